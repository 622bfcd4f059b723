//! Instants as a reader writes them: RFC 3339 text with any offset, read
//! and written by `jiff`, and the Unix seconds an expansion counts in.
//!
//! ```
//! use stampede_core::fleet::instant;
//!
//! let at = instant::parse("from", "2026-01-01T02:13:00+02:00").unwrap();
//! assert_eq!(instant::format(at), "2026-01-01T00:13:00Z");
//! assert_eq!(instant::format_micros(at * 1_000_000 + 250_000), "2026-01-01T00:13:00.25Z");
//! assert_eq!(instant::start_of_day(at), instant::parse("from", "2026-01-01T00:00:00Z").unwrap());
//! ```

use super::civil::SECONDS_PER_DAY;
use super::cron::check_from;
use crate::error::InvalidInput;

/// The Unix second `text` names, when it is a whole second a horizon may
/// start at; a refusal names `field`.
pub fn parse(field: &'static str, text: &str) -> Result<i64, InvalidInput> {
    let at: jiff::Timestamp = text.trim().parse().map_err(|e| {
        InvalidInput::new(
            field,
            format!(
                "expected RFC 3339 such as 2026-01-01T00:00:00Z or 2026-01-01T02:00:00+02:00 ({e})"
            ),
        )
    })?;
    if at.subsec_nanosecond() != 0 {
        return Err(InvalidInput::new(field, "expected a whole second"));
    }
    check_from(at.as_second()).map_err(|e| InvalidInput::new(field, e.reason))
}

/// `at`, in Unix seconds, as RFC 3339 in UTC: `2026-01-01T02:13:00Z`.
pub fn format(at: i64) -> String {
    jiff::Timestamp::from_second(at).map_or_else(|_| format!("{at} s"), |t| t.to_string())
}

/// `at_micros`, in Unix microseconds, as RFC 3339 in UTC, with as many
/// digits of the second as it needs: `2026-01-01T02:13:07.25Z`.
pub fn format_micros(at_micros: i64) -> String {
    jiff::Timestamp::from_microsecond(at_micros)
        .map_or_else(|_| format!("{at_micros} µs"), |t| t.to_string())
}

/// The start of the UTC day that holds `at`.
pub fn start_of_day(at: i64) -> i64 {
    at - at.rem_euclid(SECONDS_PER_DAY)
}
