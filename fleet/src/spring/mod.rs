//! Spring cron expressions, placed as Spring Framework 7.0.9's
//! `CronExpression` places them (the rules of Spring 5.3 on).
//!
//! - Six fields, on the wall clock of the line's zone (UTC unless `Zone=`
//!   names one): second, minute, hour, day of month, month (`1-12` or
//!   `JAN`..`DEC`) and day of week (`0-7` or `MON`..`SUN`, Sunday 0 or 7,
//!   as cron counts), or one of the macros `@yearly`, `@annually`,
//!   `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`.
//! - A day runs when both day fields allow it (cron runs when either
//!   does); `?` stands for `*` in either.
//! - `L`, `L-n`, `LW` and `nW` in the day of month; `nL` (the month's
//!   last day `n`) and `n#k` (its `k`-th) in the day of week.
//!
//! Spring's parser is followed for what it refuses and with which words,
//! and its search (the `search` module) step by step, with its limit of 366
//! attempts. Where Spring gives up, the task is not scheduled again;
//! where it gives back a time already past (`L-30` and `L-31`, some
//! times at a zone's change), the task is due again at once. Either way the line's starts end there, with a
//! notice ([`NextRun`]).
//!
//! Spring 4's `CronSequenceGenerator` differs: it has no macros, `L`, `W`
//! or `#`; it counts a step over the days from 0 (`*/10` in the day of
//! month is the 10th, 20th and 30th, where Spring 7 gives the 1st, 11th,
//! 21st and 31st); it refuses `MON-SUN` and `7-2`; and it throws where
//! the next run is months away, as Friday the 13th can be.

mod search;

use jiff::tz::TimeZone;
use stampede_core::error::InvalidInput;

use crate::cron::Schedule;
use crate::time::{
    CivilDate, MICROS_PER_SECOND, Window, push_daily_starts, push_searched_starts, steady_offset,
    weekday,
};

/// The fields Spring searches, a unit each, in order of size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Unit {
    Nano,
    Second,
    Minute,
    Hour,
    DayOfMonth,
    Month,
    DayOfWeek,
}

impl Unit {
    /// The unit's values, as `ChronoField.range()` gives them (a month's
    /// days as up to 31).
    fn range(self) -> (u32, u32) {
        match self {
            Unit::Nano => (0, 999_999_999),
            Unit::Second | Unit::Minute => (0, 59),
            Unit::Hour => (0, 23),
            Unit::DayOfMonth => (1, 31),
            Unit::Month => (1, 12),
            Unit::DayOfWeek => (1, 7),
        }
    }

    /// `java.time`'s name of the field and its range, for refusals.
    fn java_name(self) -> (&'static str, &'static str) {
        match self {
            Unit::Nano => ("NanoOfSecond", "0 - 999999999"),
            Unit::Second => ("SecondOfMinute", "0 - 59"),
            Unit::Minute => ("MinuteOfHour", "0 - 59"),
            Unit::Hour => ("HourOfDay", "0 - 23"),
            Unit::DayOfMonth => ("DayOfMonth", "1 - 28/31"),
            Unit::Month => ("MonthOfYear", "1 - 12"),
            Unit::DayOfWeek => ("DayOfWeek", "1 - 7"),
        }
    }

    /// `Type.checkValidValue`: `value` if the unit allows it (and 0 in
    /// the day of week, cron's Sunday).
    fn check(self, value: i32) -> Result<u32, String> {
        let (min, max) = self.range();
        if (self == Unit::DayOfWeek && value == 0)
            || (i64::from(min)..=i64::from(max)).contains(&i64::from(value))
        {
            return Ok(value as u32);
        }
        let (name, range) = self.java_name();
        Err(format!(
            "Invalid value for {name} (valid values {range}): {value}"
        ))
    }
}

/// A day rule of the day fields, as Spring's `QuartzCronField` adjusts
/// a date to it. Days of the week count 1 (Monday) to 7 (Sunday).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DayRule {
    LastDay,
    LastWeekday,
    /// `L-n`: `n` days before the last (negative).
    LastDayOffset(i32),
    NearestWeekday(u32),
    LastInMonth(u32),
    /// The `k`-th such weekday of the month.
    NthInMonth(i32, u32),
}

/// One field of an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Field {
    /// The values allowed, as bits.
    Bits(Unit, u64),
    Rule(Unit, DayRule),
    /// A list holding a day rule: whichever part comes first.
    Any(Vec<Field>),
}

/// A Spring cron expression, read: its fields in the order Spring
/// searches them, the largest first, and the zone it runs in.
#[derive(Clone, Debug, PartialEq)]
pub struct SpringCron {
    fields: [Field; 6],
    /// `None` for UTC.
    zone: Option<TimeZone>,
}

const MACROS: [(&str, &str); 7] = [
    ("@yearly", "0 0 0 1 1 *"),
    ("@annually", "0 0 0 1 1 *"),
    ("@monthly", "0 0 0 1 * *"),
    ("@weekly", "0 0 0 * * 0"),
    ("@daily", "0 0 0 * * *"),
    ("@midnight", "0 0 0 * * *"),
    ("@hourly", "0 0 * * * *"),
];
const MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];
const DAYS: [&str; 7] = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"];
/// What a reader is told when Spring's search gives up.
const GIVES_UP: &str = "Spring 7's search for the next run gives up (it tries 366 times), \
                        so the task is not scheduled again";

/// What a reader is told when Spring's search gives back `at`, a time
/// not later than the one it searched after (`L-30` and `L-31` from the
/// day they land on; some times at a zone's change).
fn stuck(at: i64) -> String {
    format!(
        "Spring 7's search for the next run gives back {}, a time already past, so the task \
         is due again at once each time it ends; its starts from there are not shown",
        crate::time::format(at)
    )
}

/// The fields Spring's macro `spec` stands for, if it is one.
pub fn macro_fields(spec: &str) -> Option<&'static str> {
    MACROS
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(java_trim(spec)))
        .map(|(_, fields)| *fields)
}

/// A refusal in Spring's own words.
fn refused(reason: impl Into<String>) -> InvalidInput {
    InvalidInput::new("Spring", reason.into())
}

/// Reads `spec` as Spring's `CronExpression.parse` does.
pub fn read(spec: &str) -> Result<SpringCron, InvalidInput> {
    if spec.is_empty() {
        return Err(refused("Expression must not be empty"));
    }
    let trimmed = java_trim(spec);
    let expression = macro_fields(trimmed).unwrap_or(trimmed);
    let tokens: Vec<&str> = expression
        .split(' ')
        .map(java_trim)
        .filter(|token| !token.is_empty())
        .collect();
    let [second, minute, hour, day_of_month, month, day_of_week] = tokens[..] else {
        return Err(refused(format!(
            "Cron expression must consist of 6 fields (found {} in \"{expression}\")",
            tokens.len()
        )));
    };
    let fields = (|| {
        let second = parse_bits(second, Unit::Second)?;
        let minute = parse_bits(minute, Unit::Minute)?;
        let hour = parse_bits(hour, Unit::Hour)?;
        let day_of_month = parse_day_field(
            day_of_month,
            Unit::DayOfMonth,
            ['L', 'W'],
            day_of_month_rule,
        )?;
        let month = parse_bits(&replace_names(month, &MONTHS), Unit::Month)?;
        let day_of_week = replace_names(day_of_week, &DAYS);
        let day_of_week =
            parse_day_field(&day_of_week, Unit::DayOfWeek, ['L', '#'], day_of_week_rule)?;
        Ok([day_of_week, month, day_of_month, hour, minute, second])
    })()
    .map_err(|why: String| refused(format!("{why} in cron expression \"{expression}\"")))?;
    Ok(SpringCron { fields, zone: None })
}

/// Java's `String.trim`: every character up to the space off both ends.
fn java_trim(text: &str) -> &str {
    text.trim_matches(|c: char| c <= ' ')
}

/// `CronField.replaceOrdinals`: upper case, and each name by its number.
fn replace_names(value: &str, names: &[&str]) -> String {
    let mut value = value.to_uppercase();
    for (i, name) in names.iter().enumerate() {
        value = value.replace(name, &(i + 1).to_string());
    }
    value
}

/// `CronField.parseDaysOfMonth` and `parseDaysOfWeek`: a day field of
/// `unit`, whose parts holding one of `marks` are day rules read by
/// `rule`. A list holding a rule is whichever of its parts comes first.
fn parse_day_field(
    value: &str,
    unit: Unit,
    marks: [char; 2],
    rule: fn(&str) -> Result<DayRule, String>,
) -> Result<Field, String> {
    if !value.contains(marks) {
        return parse_date_bits(value, unit);
    }
    let part = |part: &str| {
        if part.contains(marks) {
            rule(part).map(|rule| Field::Rule(unit, rule))
        } else {
            parse_date_bits(part, unit)
        }
    };
    let mut parts = value.split(',').map(part).collect::<Result<Vec<_>, _>>()?;
    Ok(if parts.len() == 1 {
        parts.remove(0)
    } else {
        Field::Any(parts)
    })
}

/// `QuartzCronField.parseDaysOfMonth`.
fn day_of_month_rule(value: &str) -> Result<DayRule, String> {
    if let Some(at) = value.rfind('L') {
        if at != 0 {
            return Err(format!("Unrecognized characters before 'L' in '{value}'"));
        }
        return Ok(match value {
            "LW" => DayRule::LastWeekday,
            "L" => DayRule::LastDay,
            _ => {
                let offset = java_parse_int_range(value, 1, value.len())?;
                if offset >= 0 {
                    return Err(format!("Offset '{offset} should be < 0 '{value}'"));
                }
                DayRule::LastDayOffset(offset)
            }
        });
    }
    let at = value.rfind('W').unwrap_or_default();
    if at == 0 {
        return Err(format!("No day-of-month before 'W' in '{value}'"));
    }
    if at != value.len() - 1 {
        return Err(format!("Unrecognized characters after 'W' in '{value}'"));
    }
    let day = Unit::DayOfMonth.check(java_parse_int_range(value, 0, at)?)?;
    Ok(DayRule::NearestWeekday(day))
}

/// `QuartzCronField.parseDaysOfWeek`.
fn day_of_week_rule(value: &str) -> Result<DayRule, String> {
    if let Some(at) = value.rfind('L') {
        if at != value.len() - 1 {
            return Err(format!("Unrecognized characters after 'L' in '{value}'"));
        }
        if at == 0 {
            return Err(format!("No day-of-week before 'L' in '{value}'"));
        }
        return Ok(DayRule::LastInMonth(java_day_of_week(&value[..at])?));
    }
    let at = value.rfind('#').unwrap_or_default();
    if at == 0 {
        return Err(format!("No day-of-week before '#' in '{value}'"));
    }
    if at == value.len() - 1 {
        return Err(format!("No ordinal after '#' in '{value}'"));
    }
    let day_of_week = java_day_of_week(&value[..at])?;
    let ordinal = java_parse_int_range(value, at + 1, value.len())?;
    if ordinal <= 0 {
        return Err(format!(
            "Ordinal '{ordinal}' in '{value}' must be positive number "
        ));
    }
    Ok(DayRule::NthInMonth(ordinal, day_of_week))
}

/// `QuartzCronField.parseDayOfWeek`: 1 (Monday) to 7 (Sunday), 0 read as 7.
fn java_day_of_week(value: &str) -> Result<u32, String> {
    match java_parse_int(value)? {
        0 => Ok(7),
        day @ 1..=7 => Ok(day as u32),
        day => Err(format!("Invalid value for DayOfWeek: {day} '{value}'")),
    }
}

/// `BitsCronField.parseDate`: `?` read as `*`, Sunday as 7.
fn parse_date_bits(value: &str, unit: Unit) -> Result<Field, String> {
    let field = parse_bits(if value == "?" { "*" } else { value }, unit)?;
    Ok(match field {
        Field::Bits(Unit::DayOfWeek, bits) if bits & 1 == 1 => {
            Field::Bits(Unit::DayOfWeek, bits & !1 | 1 << 7)
        }
        field => field,
    })
}

/// `BitsCronField.parseField`: values, ranges and steps, comma-separated.
fn parse_bits(value: &str, unit: Unit) -> Result<Field, String> {
    if value.is_empty() {
        return Err("Value must not be empty".into());
    }
    let mut bits = 0u64;
    for part in value.split(',') {
        let read = match part.split_once('/') {
            None => parse_range(part, unit).map(|(min, max)| (min, max, 1)),
            Some((range, step)) => parse_range(range, unit).and_then(|(min, max)| {
                let max = if range.contains('-') {
                    max
                } else {
                    unit.range().1
                };
                match java_parse_int(step)? {
                    step if step <= 0 => Err("Incrementer delta must be 1 or higher".into()),
                    step => Ok((min, max, step as u32)),
                }
            }),
        };
        let (min, max, step) = read.map_err(|why| format!("{why} '{value}'"))?;
        for bit in (min..=max).step_by(step as usize) {
            bits |= 1 << bit;
        }
    }
    Ok(Field::Bits(unit, bits))
}

/// `BitsCronField.parseRange`: `*`, `n` or `n-m`, as the lowest and
/// highest value.
fn parse_range(value: &str, unit: Unit) -> Result<(u32, u32), String> {
    if value == "*" {
        return Ok(unit.range());
    }
    let Some(hyphen) = value.find('-') else {
        let only = unit.check(java_parse_int(value)?)?;
        return Ok((only, only));
    };
    let min = java_parse_int_range(value, 0, hyphen)?;
    let max = java_parse_int_range(value, hyphen + 1, value.len())?;
    let (mut min, max) = (unit.check(min)?, unit.check(max)?);
    // As the first of a range, Sunday is 0, so that `SUN-SAT` is a week.
    if unit == Unit::DayOfWeek && min == 7 {
        min = 0;
    }
    if min > max {
        return Err("Minimum value must be less than maximum value".into());
    }
    Ok((min, max))
}

/// Java's `Integer.parseInt(String)`, with its message.
fn java_parse_int(text: &str) -> Result<i32, String> {
    parse_signed(text).ok_or_else(|| format!("For input string: \"{text}\""))
}

/// Java's `Integer.parseInt(CharSequence, begin, end, 10)`, with its
/// message, which says where the first bad character is.
fn java_parse_int_range(text: &str, begin: usize, end: usize) -> Result<i32, String> {
    let digits = &text[begin..end];
    if digits.is_empty() {
        return Err(String::new());
    }
    parse_signed(digits).ok_or_else(|| {
        let bytes = digits.as_bytes();
        let signed = matches!(bytes[0], b'+' | b'-');
        let error_at = if signed && bytes.len() == 1 {
            1
        } else {
            let first_bad = bytes[usize::from(signed)..]
                .iter()
                .position(|b| !b.is_ascii_digit())
                .map(|i| i + usize::from(signed));
            match (bytes[0], first_bad) {
                (b'0'..=b'9' | b'+' | b'-', Some(i)) => i,
                (b'0'..=b'9' | b'+' | b'-', None) => overflow_index(digits),
                _ => 0,
            }
        };
        format!("Error at index {error_at} in: \"{digits}\"")
    })
}

/// Where Java notices that all-digit `digits` overflow an `int`: at the
/// digit that takes it past the limit.
fn overflow_index(digits: &str) -> usize {
    let negative = digits.starts_with('-');
    let limit: i64 = if negative { 1 << 31 } else { (1 << 31) - 1 };
    let start = usize::from(digits.starts_with(['+', '-']));
    let mut value: i64 = 0;
    for (i, digit) in digits.bytes().enumerate().skip(start) {
        value = value * 10 + i64::from(digit - b'0');
        if value > limit {
            return i;
        }
    }
    digits.len()
}

/// An optional sign and ASCII digits, within an `int`.
fn parse_signed(text: &str) -> Option<i32> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// How the search for the next fire time after a given one ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextRun {
    /// At this later Unix second.
    Fires(i64),
    /// Spring's search gives up: the task is not scheduled again.
    GivesUp,
    /// Spring's search gives back this time, not later than the one it
    /// was asked after: the task is due again at once.
    Stuck(i64),
}

impl SpringCron {
    /// The expression run in `zone` (a `CronTrigger`'s zone, the
    /// annotation's `zone`), its fields read on the zone's wall clock.
    pub fn in_zone(self, zone: TimeZone) -> Self {
        Self {
            zone: Some(zone),
            ..self
        }
    }

    /// The search for the first fire time after Unix second `after`.
    pub fn search_after(&self, after: i64) -> NextRun {
        match self.next_after(after) {
            None => NextRun::GivesUp,
            Some(at) if at <= after => NextRun::Stuck(at),
            Some(at) => NextRun::Fires(at),
        }
    }

    /// Appends each start in `window`, in order, while `out` holds fewer
    /// than `most`. Returns whether a start was left out because `out`
    /// was full. Where the search does not move on, the starts end.
    pub fn push_starts(&self, window: Window, out: &mut Vec<i64>, most: usize) -> bool {
        if let (Some((clock, days)), Some(offset)) =
            (self.plain(), steady_offset(self.zone.as_ref(), window))
        {
            let runs_on = |n, date| Some(days(n, date));
            return push_daily_starts(window, offset, &clock, runs_on, out, most);
        }
        let next = |after| match self.search_after(after) {
            NextRun::Fires(at) => Some(at),
            NextRun::GivesUp | NextRun::Stuck(_) => None,
        };
        push_searched_starts(window, next, out, most)
    }

    /// For an expression with no day rule, the seconds of the day it fires
    /// at and the days it fires on. On a steady clock Spring's search then
    /// finds, in order, each second every field allows (a test holds the
    /// two to the same starts).
    fn plain(&self) -> Option<(Vec<i64>, impl Fn(i64, CivilDate) -> bool + '_)> {
        let [
            Field::Bits(_, days_of_week),
            Field::Bits(_, months),
            Field::Bits(_, days_of_month),
            Field::Bits(_, hours),
            Field::Bits(_, minutes),
            Field::Bits(_, seconds),
        ] = &self.fields
        else {
            return None;
        };
        let values = |bits: u64| (0..64).filter(move |i| bits >> i & 1 == 1);
        let clock = values(*hours)
            .flat_map(|hour| {
                values(*minutes).flat_map(move |minute| {
                    values(*seconds).map(move |second| hour * 3600 + minute * 60 + second)
                })
            })
            .collect();
        // Monday is 1 and Sunday 7 among Spring's days of the week.
        let days = move |days: i64, date: CivilDate| {
            let day_of_week = (weekday(days) + 6) % 7 + 1;
            days_of_week >> day_of_week & 1 == 1
                && months >> date.month & 1 == 1
                && days_of_month >> date.day & 1 == 1
        };
        Some((clock, days))
    }

    /// The minutes and hours the expression fires at, as a cron schedule
    /// whose days are left open: what the fix reads of a line.
    pub fn clock(&self) -> Schedule {
        let bits = |unit: Unit| {
            self.fields
                .iter()
                .find_map(|field| match field {
                    Field::Bits(of, bits) if *of == unit => Some(*bits),
                    _ => None,
                })
                .unwrap_or_default()
        };
        Schedule::every_day(bits(Unit::Minute), bits(Unit::Hour) as u32)
    }

    /// Why the expression never fires after Unix second `after`, when
    /// Spring's search finds no later time.
    pub fn never_runs(&self, after: i64) -> Option<String> {
        match self.search_after(after) {
            NextRun::Fires(_) => None,
            NextRun::GivesUp => Some(GIVES_UP.into()),
            NextRun::Stuck(at) => Some(stuck(at)),
        }
    }

    /// Why no start is shown after the last of `starts` (Unix
    /// microseconds), when Spring's search from there finds no later time.
    pub fn stops_searching(&self, starts: &[i64]) -> Option<String> {
        let last = starts.last()?.div_euclid(MICROS_PER_SECOND);
        let why = match self.search_after(last) {
            NextRun::Fires(_) => return None,
            NextRun::GivesUp => GIVES_UP.into(),
            NextRun::Stuck(at) => stuck(at),
        };
        Some(format!("after {}: {why}", crate::time::format(last)))
    }
}
