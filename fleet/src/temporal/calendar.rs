//! Temporal's cron strings, read as `parseCronString` and `makeRange` read
//! them, and the calendar they compile to.
//!
//! A cron string is `[TZ=zone |CRON_TZ=zone ]fields[#comment]` where fields
//! are 5 (`minute hour day-of-month month day-of-week`), 6 (`… year`) or 7
//! (`second … year`) words, one of `@yearly`, `@annually`, `@monthly`,
//! `@weekly`, `@daily`, `@midnight`, `@hourly`, or `@every interval[/phase]`.
//! Seconds default to 0 and years to every year. Each field is a list of
//! `*`, `x`, `x-z`, each with an optional `/step`; `x/step` runs from `x`
//! to the field's maximum. Numbers are Go's `strconv.Atoi` (a sign and
//! leading zeros allowed); months may be any prefix of at least three
//! letters of their English name, days of the week any prefix of at least
//! two. Years run 2000-2100, days of the week 0-7 with 7 for Sunday, except
//! that `0-7` and `1-7` become `0-6` and `1-6`: Sunday is dropped from
//! `1-7`. A second matches when every field matches, so day of month and
//! day of week are ANDed ([`DayRule::Both`]), never ORed as Vixie does.

use super::duration::temporal_duration_nanos;
use crate::cron::{DayRule, Schedule};
use crate::time::{SECONDS_PER_DAY, civil_from_days};
use stampede_core::field::shorten;

/// The last second Temporal places a start at, 2100-12-31T23:59:59Z:
/// `maxCalendarYear` ends both the calendar search and the schedule.
pub const LAST_NOMINAL: i64 = 4_133_980_799;

/// The longest comment after `#` a calendar may carry (`maxCommentLen`).
const MOST_COMMENT_BYTES: usize = 200;

/// The first year a year field may name (`minCalendarYear`).
const FIRST_YEAR: i64 = 2000;

/// The seconds a calendar cron string matches, in UTC.
#[derive(Clone, Debug, PartialEq)]
pub struct TemporalCalendar {
    /// Minutes, hours, both day fields (ANDed) and months.
    pub schedule: Schedule,
    /// Bit s for second s, 0 to 59.
    pub seconds: u64,
    /// Bit y − 2000 for year y; `None` for every year.
    pub years: Option<u128>,
}

/// What a cron string compiles to.
#[derive(Clone, Debug, PartialEq)]
pub enum CronString {
    Calendar(TemporalCalendar),
    /// `@every`: the interval and its phase, in nanoseconds, unchecked.
    Every {
        interval: i64,
        phase: i64,
    },
}

/// How a field's single values are read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Names {
    Numbers,
    Months,
    DaysOfWeek,
}

impl Names {
    /// What a value of the field may be, for a refusal.
    fn what(self) -> &'static str {
        match self {
            Self::Numbers => "a number",
            Self::Months => "a number or month name",
            Self::DaysOfWeek => "a number or day name",
        }
    }
}

/// One field of a cron string: its name, range and names.
struct TemporalField {
    name: &'static str,
    low: i64,
    high: i64,
    names: Names,
    /// The value bit 0 of the field's set stands for.
    base: i64,
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
const DAYS_OF_WEEK: [&str; 7] = [
    "sunday",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
];

const fn field(name: &'static str, low: i64, high: i64, names: Names) -> TemporalField {
    TemporalField {
        name,
        low,
        high,
        names,
        base: 0,
    }
}

const SECOND: TemporalField = field("second", 0, 59, Names::Numbers);
const MINUTE: TemporalField = field("minute", 0, 59, Names::Numbers);
const HOUR: TemporalField = field("hour", 0, 23, Names::Numbers);
const DAY_OF_MONTH: TemporalField = field("day of month", 1, 31, Names::Numbers);
const MONTH: TemporalField = field("month", 1, 12, Names::Months);
const DAY_OF_WEEK: TemporalField = field("day of week", 0, 7, Names::DaysOfWeek);
const YEAR: TemporalField = TemporalField {
    base: FIRST_YEAR,
    ..field("year", FIRST_YEAR, 2100, Names::Numbers)
};

/// Reads a cron string; the error says why not. A zone other than UTC is
/// refused: only UTC calendars are placed here.
pub fn parse_cron_string(text: &str) -> Result<CronString, String> {
    let mut text = text.trim();
    let mut zone = None;
    if text.starts_with("TZ=") || text.starts_with("CRON_TZ=") {
        let (prefix, rest) = text
            .split_once(' ')
            .ok_or("has a time zone but no fields after it")?;
        zone = prefix.split_once('=').map(|(_, name)| name);
        text = rest;
    }
    let (text, comment) = text.split_once('#').unwrap_or((text, ""));
    let text = text.trim();
    if text.starts_with("@every") {
        // Temporal drops the zone of an `@every` string: intervals count
        // from the Unix epoch whatever the zone.
        return parse_every(text);
    }
    if let Some(zone) = zone.filter(|zone| !matches!(*zone, "" | "UTC" | "Etc/UTC")) {
        return Err(format!(
            "time zone \"{}\": only UTC calendars are placed so far",
            shorten(zone)
        ));
    }
    if comment.trim().len() > MOST_COMMENT_BYTES {
        return Err(format!(
            "has a comment longer than {MOST_COMMENT_BYTES} bytes, which Temporal refuses"
        ));
    }
    let text = match text {
        "@yearly" | "@annually" => "0 0 1 1 *",
        "@monthly" => "0 0 1 * *",
        "@weekly" => "0 0 * * 0",
        "@daily" | "@midnight" => "0 0 * * *",
        "@hourly" => "0 * * * *",
        other => other,
    };
    // Eight words are enough to know there are too many.
    let words: Vec<&str> = text.split_whitespace().take(8).collect();
    let (second, rest, year) = match words.len() {
        5 => ("0", &words[..], "*"),
        6 => ("0", &words[..5], words[5]),
        7 => (words[0], &words[1..6], words[6]),
        8 => return Err("has more than 7 fields; Temporal reads 5 to 7".into()),
        count => return Err(format!("has {count} fields; Temporal reads 5 to 7")),
    };
    let calendar = TemporalCalendar {
        schedule: Schedule {
            minutes: field_set(rest[0], &MINUTE)? as u64,
            hours: field_set(rest[1], &HOUR)? as u32,
            days_of_month: field_set(rest[2], &DAY_OF_MONTH)? as u32,
            months: field_set(rest[3], &MONTH)? as u16,
            days_of_week: field_set(rest[4], &DAY_OF_WEEK)? as u8,
            days: DayRule::Both,
        },
        seconds: field_set(second, &SECOND)? as u64,
        years: match year {
            "*" => None,
            year => Some(field_set(year, &YEAR)?),
        },
    };
    Ok(CronString::Calendar(calendar))
}

/// `@every interval[/phase]`: the words after the first space.
fn parse_every(text: &str) -> Result<CronString, String> {
    let (_, durations) = text.split_once(' ').ok_or("has no interval after @every")?;
    let (interval, phase) = durations.split_once('/').unwrap_or((durations, ""));
    Ok(CronString::Every {
        interval: temporal_duration_nanos(interval)?,
        phase: match phase {
            "" => 0,
            phase => temporal_duration_nanos(phase)?,
        },
    })
}

/// A field's comma-separated list as a bit set: bit `v − base` for value
/// `v` (a `u128`, so the 101 years fit).
fn field_set(text: &str, field: &TemporalField) -> Result<u128, String> {
    let fail = |why: &str| format!("{} \"{}\" {why}", field.name, shorten(text));
    let mut set = 0u128;
    for part in text.split(',') {
        let (range, step) = match part.split('/').collect::<Vec<_>>().as_slice() {
            [range] => (*range, None),
            [_, ""] => return Err(fail("has a / with no step after it")),
            [range, step] => match go_atoi(step) {
                Some(step) if step >= 1 => (*range, Some(step)),
                _ => return Err(fail("has a step that is not a whole number above 0")),
            },
            _ => return Err(fail("has more than one / in an item")),
        };
        let (mut first, mut last) = (field.low, field.high);
        if range != "*" {
            if let Some((a, b)) = range.split_once('-') {
                if b.contains('-') {
                    return Err(fail("has more than one - in an item"));
                }
                first = value(a, field.low, field.high, field.names).ok_or_else(|| {
                    fail(&format!(
                        "starts a range outside {}-{}",
                        field.low, field.high
                    ))
                })?;
                last = value(b, first, field.high, field.names).ok_or_else(|| {
                    fail(&format!(
                        "ends a range before it starts or past {}",
                        field.high
                    ))
                })?;
            } else {
                first = value(range, field.low, field.high, field.names).ok_or_else(|| {
                    fail(&format!(
                        "has a value that is not {} in {}-{}",
                        field.names.what(),
                        field.low,
                        field.high
                    ))
                })?;
                if step.is_none() {
                    last = first;
                }
            }
        }
        let step = step.unwrap_or(1);
        if field.names == Names::DaysOfWeek && last == 7 {
            // Temporal's own fold of 7 onto Sunday: added only when the
            // range steps onto 7 from past Monday, so `1-7` leaves Sunday out.
            if (7 - first) % step == 0 && (step > 1 || first > 1) {
                set |= 1;
                if first == 7 {
                    continue;
                }
            }
            last = 6;
        }
        let mut at = first;
        while at <= last {
            set |= 1 << (at - field.base);
            at = at.saturating_add(step);
        }
    }
    Ok(set)
}

/// A single value: a number within `low..=high`, or a month or day name
/// (a long enough prefix of it, in any case) within it.
fn value(text: &str, low: i64, high: i64, names: Names) -> Option<i64> {
    let (list, shortest, first): (&[&str], usize, i64) = match names {
        Names::Numbers => (&[], usize::MAX, 0),
        Names::Months => (&MONTHS, 3, 1),
        Names::DaysOfWeek => (&DAYS_OF_WEEK, 2, 0),
    };
    let number = if text.len() >= shortest {
        let lowered = go_lowercase(text);
        match list.iter().position(|name| name.starts_with(&lowered)) {
            Some(at) => Some(at as i64 + first),
            None => go_atoi(&lowered),
        }
    } else {
        go_atoi(text)
    };
    number.filter(|number| (low..=high).contains(number))
}

/// Go's `strings.ToLower` where it can matter here: ASCII letters, and the
/// two non-ASCII letters whose simple lowercase is ASCII (`İ` → `i`,
/// Kelvin `K` → `k`). Any other letter stays as it is, which no name holds.
fn go_lowercase(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\u{130}' => 'i',
            '\u{212a}' => 'k',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// Go's `strconv.Atoi`: an optional sign, then decimal digits only, within
/// an `i64`.
fn go_atoi(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

impl TemporalCalendar {
    /// Whether the calendar matches day number `days` (days since
    /// 1970-01-01), going by its year, month and day fields.
    fn matches_day(&self, days: i64) -> bool {
        let year_matches = self.years.is_none_or(|years| {
            let year = civil_from_days(days).year - FIRST_YEAR;
            (0..101).contains(&year) && years >> year & 1 == 1
        });
        year_matches && self.schedule.fires_on_day(days)
    }

    /// The first second after `after` and at most `limit` that the calendar
    /// matches, as Temporal's `compiledCalendar.next` finds it in UTC (no
    /// later than [`LAST_NOMINAL`]). Walks the days between, so a caller
    /// keeps `limit - after` to the span it needs; within a day each field
    /// jumps to its next allowed value.
    pub fn next_after(&self, after: i64, limit: i64) -> Option<i64> {
        let first = after + 1;
        let last = limit.min(LAST_NOMINAL);
        if first > last {
            return None;
        }
        let first_day = first.div_euclid(SECONDS_PER_DAY);
        let last_day = last.div_euclid(SECONDS_PER_DAY);
        let hours = u64::from(self.schedule.hours);
        for days in (first_day..=last_day).filter(|&days| self.matches_day(days)) {
            let day_at = days * SECONDS_PER_DAY;
            // The time of day to look from: `first` on its own day, else midnight.
            let from = (first - day_at).max(0);
            let (mut hour, mut minute, mut second) = (from / 3600, from / 60 % 60, from % 60);
            while let Some(next_hour) = next_bit(hours, hour) {
                if next_hour != hour {
                    (hour, minute, second) = (next_hour, 0, 0);
                }
                while let Some(next_minute) = next_bit(self.schedule.minutes, minute) {
                    if next_minute != minute {
                        (minute, second) = (next_minute, 0);
                    }
                    if let Some(second) = next_bit(self.seconds, second) {
                        let at = day_at + 3600 * hour + 60 * minute + second;
                        return (at <= last).then_some(at);
                    }
                    (minute, second) = (minute + 1, 0);
                }
                (hour, minute, second) = (hour + 1, 0, 0);
            }
        }
        None
    }
}

/// The lowest bit of `set` at `from` (0 to 63) or above.
fn next_bit(set: u64, from: i64) -> Option<i64> {
    let above = set & (u64::MAX << from);
    (above != 0).then(|| i64::from(above.trailing_zeros()))
}
