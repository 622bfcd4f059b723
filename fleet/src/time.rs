//! Time as every scheduler here counts it: Unix seconds and microseconds,
//! half-open windows of them, calendar dates in UTC, and instants written
//! as RFC 3339.
//!
//! It imports nothing else from the crate, so each scheduler can take its
//! units and dates from here without a loop through the dispatcher
//! ([`crate::plan`]). Dates are jiff's civil dates; a day number counts
//! days since 1970-01-01 (negative before it).
//!
//! ```
//! use stampede_fleet::time;
//!
//! let at = time::parse("from", "2026-01-01T02:13:00+02:00").unwrap();
//! assert_eq!(time::format(at), "2026-01-01T00:13:00Z");
//! assert_eq!(time::format_micros(at * 1_000_000 + 250_000), "2026-01-01T00:13:00.25Z");
//! // The last microsecond of the year 9999, past jiff's last timestamp.
//! assert_eq!(time::format_micros(253_402_300_799_999_999), "9999-12-31T23:59:59.999999Z");
//! assert_eq!(time::parse("from", "9999-12-31T23:59:59Z").unwrap(), 253_402_300_799);
//! assert_eq!(time::start_of_day(at), time::parse("from", "2026-01-01T00:00:00Z").unwrap());
//! ```

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use stampede_core::error::InvalidInput;
use stampede_core::units::{date_of_day, day_of_date};

/// Microseconds in a second: starts are placed to the microsecond. The
/// core's units, signed, as instants before 1970 need.
pub const MICROS_PER_SECOND: i64 = stampede_core::scheduler::MICROS_PER_SECOND as i64;

/// Microseconds in a minute, the bin an expansion counts starts in.
pub const MICROS_PER_MINUTE: i64 = 60 * MICROS_PER_SECOND;

/// Seconds in a day: the core's, signed.
pub const SECONDS_PER_DAY: i64 = stampede_core::units::SECONDS_PER_DAY as i64;

/// The names Java and the tz database give UTC, read as no zone at all.
pub const UTC_NAMES: [&str; 4] = ["UTC", "GMT", "Etc/UTC", "Etc/GMT"];

/// A half-open span `[from, end)` of Unix microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub from: i64,
    pub end: i64,
}

/// The earliest and latest `from` a horizon may start at: years 1 to 9999,
/// where every date has a four-digit year and no sum can overflow.
pub const EARLIEST_FROM: i64 = -62_135_596_800;
pub const LATEST_FROM: i64 = 253_402_300_799;

/// `from` if a horizon may start there.
pub fn check_from(from: i64) -> Result<i64, InvalidInput> {
    if (EARLIEST_FROM..=LATEST_FROM).contains(&from) {
        Ok(from)
    } else {
        Err(InvalidInput::new(
            "from",
            format!("{from} is outside the years 1 to 9999"),
        ))
    }
}

/// A date in the proleptic Gregorian calendar, with a year of any size
/// (a search may look a year past 9999, where jiff's dates end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CivilDate {
    pub year: i64,
    /// 1 (January) to 12.
    pub month: u32,
    /// 1 to 31.
    pub day: u32,
}

/// The Gregorian calendar repeats every 400 years, which are 146,097
/// days: a date outside jiff's years -9999 to 9999 is moved by whole
/// cycles into them and back.
const CYCLE_YEARS: i64 = 400;
const CYCLE_DAYS: i64 = 146_097;

/// The day number of `year-month-day`, which must be a date of the
/// calendar.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    // 1970 to 2369 lie well inside jiff's years.
    let cycles = (year - 1970).div_euclid(CYCLE_YEARS);
    let date = Date::new((year - cycles * CYCLE_YEARS) as i16, month as i8, day as i8)
        .expect("a date of the calendar");
    day_of_date(date) + cycles * CYCLE_DAYS
}

/// The date of day number `days`.
pub fn civil_from_days(days: i64) -> CivilDate {
    let cycles = days.div_euclid(CYCLE_DAYS);
    let date = date_of_day(days - cycles * CYCLE_DAYS).expect("within 400 years of 1970");
    CivilDate {
        year: i64::from(date.year()) + cycles * CYCLE_YEARS,
        month: date.month() as u32,
        day: date.day() as u32,
    }
}

/// The day of the week of day number `days`, 0 (Sunday) to 6.
pub fn weekday(days: i64) -> u32 {
    let date = date_of_day(days.rem_euclid(CYCLE_DAYS)).expect("within 400 years of 1970");
    date.weekday().to_sunday_zero_offset() as u32
}

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
    format_micros(at.saturating_mul(MICROS_PER_SECOND))
}

/// `at_micros`, in Unix microseconds, as RFC 3339 in UTC, with as many
/// digits of the second as it needs: `2026-01-01T02:13:07.25Z`; up to the
/// last microsecond of the year 9999, a day and more past the last
/// instant `jiff::Timestamp` holds, so written from the civil date.
pub fn format_micros(at_micros: i64) -> String {
    const MICROS_PER_DAY: i64 = SECONDS_PER_DAY * MICROS_PER_SECOND;
    let date = civil_from_days(at_micros.div_euclid(MICROS_PER_DAY));
    let of_day = at_micros.rem_euclid(MICROS_PER_DAY);
    let (seconds, micros) = (of_day / MICROS_PER_SECOND, of_day % MICROS_PER_SECOND);
    let written = i16::try_from(date.year).ok().and_then(|year| {
        let time = jiff::civil::Time::new(
            (seconds / 3600) as i8,
            (seconds / 60 % 60) as i8,
            (seconds % 60) as i8,
            (micros * 1_000) as i32,
        );
        let date = Date::new(year, date.month as i8, date.day as i8);
        Some(format!("{}Z", date.ok()?.to_datetime(time.ok()?)))
    });
    // Only past the years 1 to 9999, which no horizon reaches.
    written.unwrap_or_else(|| format!("{at_micros} µs"))
}

/// The start of the UTC day that holds `at`.
pub fn start_of_day(at: i64) -> i64 {
    at - at.rem_euclid(SECONDS_PER_DAY)
}

/// Appends each instant of `window` that is a second of the day in
/// `clock` (ascending) on a day `runs_on` allows, on a wall clock
/// `offset` seconds east of UTC, in order, while `out` holds fewer than
/// `most`. `runs_on` is given the day's number and date; `None` from it
/// ends the walk. Returns whether a start was left out because `out` was
/// full.
///
/// A calendar search that finds, in order, every second its fields allow
/// gives the same starts on a clock that does not change
/// ([`steady_offset`]); a walk over the window's days finds them far
/// sooner.
pub fn push_daily_starts(
    window: Window,
    offset: i32,
    clock: &[i64],
    mut runs_on: impl FnMut(i64, CivilDate) -> Option<bool>,
    out: &mut Vec<i64>,
    most: usize,
) -> bool {
    let shift = i64::from(offset) * MICROS_PER_SECOND;
    let (from, end) = (window.from + shift, window.end + shift);
    let seconds = |micros: i64| micros.div_euclid(MICROS_PER_SECOND);
    let first_day = seconds(from).div_euclid(SECONDS_PER_DAY);
    let last_day = seconds(end - 1).div_euclid(SECONDS_PER_DAY);
    for days in first_day..=last_day {
        match runs_on(days, civil_from_days(days)) {
            None => break,
            Some(false) => continue,
            Some(true) => {}
        }
        for at in clock {
            let micros = (days * SECONDS_PER_DAY + at) * MICROS_PER_SECOND;
            if micros < from {
                continue;
            }
            if micros >= end {
                return false;
            }
            if out.len() >= most {
                return true;
            }
            out.push(micros - shift);
        }
    }
    false
}

/// Wall-clock second `local` (seconds since 1970 on a zone's clock) as a
/// civil date and time, within jiff's years.
pub fn wall_clock(local: i64) -> Option<jiff::civil::DateTime> {
    let at = Timestamp::from_second(local).ok()?;
    Some(TimeZone::UTC.to_datetime(at))
}

/// Appends the fire times in `window` that a search gives, each the next
/// after the one before, while `out` holds fewer than `most`: `next`
/// gives the next fire time after a Unix second, or `None` where the
/// search ends. Returns whether a start was left out because `out` was
/// full.
pub fn push_searched_starts(
    window: Window,
    mut next: impl FnMut(i64) -> Option<i64>,
    out: &mut Vec<i64>,
    most: usize,
) -> bool {
    // The first second at or after the window's start.
    let mut after = window.from.div_euclid(MICROS_PER_SECOND) - 1;
    if window.from.rem_euclid(MICROS_PER_SECOND) != 0 {
        after += 1;
    }
    while let Some(at) = next(after) {
        let micros = at * MICROS_PER_SECOND;
        if micros >= window.end {
            return false;
        }
        if out.len() >= most {
            return true;
        }
        out.push(micros);
        after = at;
    }
    false
}

/// The offset of `zone` (UTC for `None`) over `window` and a day either
/// side, if its clock does not change then: a search can look back
/// across a change by an hour or two, hence the days.
pub fn steady_offset(zone: Option<&TimeZone>, window: Window) -> Option<i32> {
    let Some(zone) = zone else {
        return Some(0);
    };
    let second = |micros: i64| Timestamp::from_second(micros / MICROS_PER_SECOND).ok();
    let day = SECONDS_PER_DAY * MICROS_PER_SECOND;
    let (from, end) = (second(window.from - day)?, second(window.end + day)?);
    let change = zone.following(from).next();
    change
        .is_none_or(|change| change.timestamp() > end)
        .then(|| zone.to_offset(from).seconds())
}

/// A broken-down UTC time, as C's `struct tm` and Java's lenient
/// `GregorianCalendar` hold it: a scheduler's search sets fields past
/// their ranges (the 32nd of January, month 12) and the time they stand
/// for carries each into the one above.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BrokenDown {
    pub year: i64,
    /// 0 (January) to 11 once normalised.
    pub month: i64,
    pub day: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
}

impl BrokenDown {
    /// The fields of Unix second `seconds` (`gmtime()`).
    pub fn from_seconds(seconds: i64) -> Self {
        let days = seconds.div_euclid(SECONDS_PER_DAY);
        let of_day = seconds.rem_euclid(SECONDS_PER_DAY);
        let date = civil_from_days(days);
        Self {
            year: date.year,
            month: i64::from(date.month) - 1,
            day: i64::from(date.day),
            hour: of_day / 3600,
            minute: of_day / 60 % 60,
            second: of_day % 60,
        }
    }

    /// The fields, overflowing ones carried, as Unix seconds (`timegm()`).
    pub fn to_seconds(self) -> i64 {
        let year = self.year + self.month.div_euclid(12);
        let month = self.month.rem_euclid(12) as u32 + 1;
        let days = days_from_civil(year, month, 1) + self.day - 1;
        days * SECONDS_PER_DAY + self.hour * 3600 + self.minute * 60 + self.second
    }

    /// Every field within its range.
    pub fn normalized(self) -> Self {
        Self::from_seconds(self.to_seconds())
    }

    /// How many days the month (carried into its year) has.
    pub fn days_in_month(self) -> i64 {
        let year = self.year + self.month.div_euclid(12);
        let month = self.month.rem_euclid(12) as u32 + 1;
        let (next_year, next_month) = if month == 12 {
            (year + 1, 1)
        } else {
            (year, month + 1)
        };
        days_from_civil(next_year, next_month, 1) - days_from_civil(year, month, 1)
    }

    /// Midnight of the day.
    pub fn clear_from_hour(&mut self) {
        self.hour = 0;
        self.clear_from_minute();
    }

    /// The start of the minute.
    pub fn clear_from_minute(&mut self) {
        self.minute = 0;
        self.second = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates_have_their_day_numbers() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(2024, 2, 29), 19_782);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        assert_eq!(weekday(days_from_civil(2024, 2, 29)), 4);
        assert_eq!(weekday(-1), 3);
        // Past jiff's years, by whole 400-year cycles.
        assert_eq!(days_from_civil(10_000, 1, 1), 2_932_897);
        assert_eq!(
            civil_from_days(2_932_897),
            CivilDate {
                year: 10_000,
                month: 1,
                day: 1
            }
        );
        assert_eq!(weekday(2_932_897), 6);
        assert_eq!(
            civil_from_days(days_from_civil(-12_345, 6, 7)).year,
            -12_345
        );
    }

    #[test]
    fn day_numbers_round_trip_over_eight_centuries() {
        let first = days_from_civil(1600, 1, 1);
        let last = days_from_civil(2400, 12, 31);
        let mut expected = civil_from_days(first);
        for days in first..=last {
            let date = civil_from_days(days);
            assert_eq!(date, expected, "day {days}");
            assert_eq!(days_from_civil(date.year, date.month, date.day), days);
            assert_eq!(weekday(days), (days + 4).rem_euclid(7) as u32, "day {days}");
            expected = next_date(date);
        }
    }

    /// The date after `date`, by the leap-year rule written out.
    fn next_date(date: CivilDate) -> CivilDate {
        let leap = date.year % 4 == 0 && (date.year % 100 != 0 || date.year % 400 == 0);
        let length = match date.month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        match (date.day < length, date.month < 12) {
            (true, _) => CivilDate {
                day: date.day + 1,
                ..date
            },
            (false, true) => CivilDate {
                month: date.month + 1,
                day: 1,
                ..date
            },
            (false, false) => CivilDate {
                year: date.year + 1,
                month: 1,
                day: 1,
            },
        }
    }
}
