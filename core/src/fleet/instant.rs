//! Instants as a reader writes them: RFC 3339 text with any offset, read
//! and written by `jiff`, and the Unix seconds an expansion counts in.
//!
//! ```
//! use stampede_core::fleet::instant;
//!
//! let at = instant::parse("from", "2026-01-01T02:13:00+02:00").unwrap();
//! assert_eq!(instant::format(at), "2026-01-01T00:13:00Z");
//! assert_eq!(instant::format_micros(at * 1_000_000 + 250_000), "2026-01-01T00:13:00.25Z");
//! // The last microsecond of the year 9999, past jiff's last timestamp.
//! assert_eq!(instant::format_micros(253_402_300_799_999_999), "9999-12-31T23:59:59.999999Z");
//! assert_eq!(instant::parse("from", "9999-12-31T23:59:59Z").unwrap(), 253_402_300_799);
//! assert_eq!(instant::start_of_day(at), instant::parse("from", "2026-01-01T00:00:00Z").unwrap());
//! ```

use super::civil::{SECONDS_PER_DAY, civil_from_days, days_from_civil};
use super::cron::check_from;
use crate::error::InvalidInput;

/// The Unix second `text` names, when it is a whole second a horizon may
/// start at; a refusal names `field`. Read from its civil date, time and
/// offset, so the day and more past jiff's last timestamp, to the end of
/// 9999, reads as [`format()`] writes it.
pub fn parse(field: &'static str, text: &str) -> Result<i64, InvalidInput> {
    let expected = |why: &dyn std::fmt::Display| {
        InvalidInput::new(
            field,
            format!(
                "expected RFC 3339 such as 2026-01-01T00:00:00Z or 2026-01-01T02:00:00+02:00 ({why})"
            ),
        )
    };
    let pieces = jiff::fmt::temporal::Pieces::parse(text.trim()).map_err(|e| expected(&e))?;
    let (Some(time), Some(offset)) = (pieces.time(), pieces.offset()) else {
        return Err(expected(&"no time or no offset"));
    };
    if time.subsec_nanosecond() != 0 {
        return Err(InvalidInput::new(field, "expected a whole second"));
    }
    let date = pieces.date();
    let days = days_from_civil(date.year().into(), date.month() as u32, date.day() as u32);
    let of_day =
        i64::from(time.hour()) * 3600 + i64::from(time.minute()) * 60 + i64::from(time.second());
    let offset = i64::from(offset.to_numeric_offset().seconds());
    check_from(days * SECONDS_PER_DAY + of_day - offset)
        .map_err(|e| InvalidInput::new(field, e.reason))
}

/// `at`, in Unix seconds, as RFC 3339 in UTC: `2026-01-01T02:13:00Z`.
pub fn format(at: i64) -> String {
    format_micros(at.saturating_mul(1_000_000))
}

/// `at_micros`, in Unix microseconds, as RFC 3339 in UTC, with as many
/// digits of the second as it needs: `2026-01-01T02:13:07.25Z`; up to the
/// last microsecond of the year 9999, a day and more past the last
/// instant `jiff::Timestamp` holds, so written from the civil date.
pub fn format_micros(at_micros: i64) -> String {
    const MICROS_PER_DAY: i64 = SECONDS_PER_DAY * 1_000_000;
    let date = civil_from_days(at_micros.div_euclid(MICROS_PER_DAY));
    let of_day = at_micros.rem_euclid(MICROS_PER_DAY);
    let (seconds, micros) = (of_day / 1_000_000, of_day % 1_000_000);
    let written = i16::try_from(date.year).ok().and_then(|year| {
        let time = jiff::civil::Time::new(
            (seconds / 3600) as i8,
            (seconds / 60 % 60) as i8,
            (seconds % 60) as i8,
            (micros * 1_000) as i32,
        );
        let date = jiff::civil::Date::new(year, date.month as i8, date.day as i8);
        Some(format!("{}Z", date.ok()?.to_datetime(time.ok()?)))
    });
    // Only past the years 1 to 9999, which no horizon reaches.
    written.unwrap_or_else(|| format!("{at_micros} µs"))
}

/// The start of the UTC day that holds `at`.
pub fn start_of_day(at: i64) -> i64 {
    at - at.rem_euclid(SECONDS_PER_DAY)
}
