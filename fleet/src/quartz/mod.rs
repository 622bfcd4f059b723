//! Quartz cron expressions, placed as Quartz 2.3.2 places them, in UTC
//! or on the wall clock of the trigger's zone (`Zone=`).
//!
//! Followed: `org.quartz.CronExpression` of Quartz 2.3.2 (Debian's
//! `libquartz2-java`), its parser character by character and
//! `getTimeAfter` step by step, so the quirks come along: `15X` reads as
//! `15`, `*/0` as every value, `1W,15` as `1W` (the `W` takes the first
//! day only), and words after the seventh field are ignored.
//!
//! - Fields: second, minute, hour, day of month, month (`1-12` or
//!   `JAN`..`DEC`), day of week (`1-7` or `SUN`..`SAT`, Sunday first) and
//!   an optional year; upper and lower case alike. Exactly one of the two
//!   day fields is `?`.
//! - Ranges wrap (`22-2` is 22, 23, 0, 1, 2), steps start from their
//!   first value (`7/13` is 7, 20, 33, 46, 59).
//! - `L` (last day), `L-n`, `LW`, `nW` (nearest weekday in the month) in
//!   the day of month; `L` (Saturday), `nL` (the month's last day `n`)
//!   and `n#k` (its `k`-th) in the day of week.
//! - A year written as `*` or with a step runs to [`MAX_YEAR`]: Quartz
//!   takes the year it starts in plus 100, this module the year its
//!   vectors were made in plus 100.
//!
//! Every spec Quartz refuses is refused with its message; a spec Quartz
//! accepts but cannot place (a field left empty by an `L` where Quartz
//! ignores it) is refused as well, since Quartz throws when asked for
//! its first fire time. Where Quartz's search goes round for ever
//! (`L-28W` to `L-30W` from some dates), the line's starts end there, with
//! a notice ([`Search::Endless`]).

use std::collections::BTreeSet;

use jiff::tz::TimeZone;
use stampede_core::error::InvalidInput;

use crate::cron::Schedule;
use crate::time::{
    CivilDate, MICROS_PER_SECOND, SECONDS_PER_DAY, Window, civil_from_days, push_daily_starts,
    push_searched_starts, steady_offset, weekday,
};

/// The last year a `*` or stepped year field reaches (`MAX_YEAR`).
pub const MAX_YEAR: i32 = 2126;
/// Quartz stops looking for a fire time past this year.
const LAST_SEARCHED_YEAR: i64 = 2999;
/// What a reader is told of a search Quartz never returns from.
const ENDLESS: &str = "Quartz 2.3.2's search for the next fire time goes round without end, \
                       so the trigger never fires again and holds one of the scheduler's threads";

/// Quartz's markers among a field's values for `*` and `?`
/// (`ALL_SPEC_INT`, `NO_SPEC_INT`), which its search meets as values.
const ALL: i32 = 99;
const NONE: i32 = 98;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Field {
    Second,
    Minute,
    Hour,
    DayOfMonth,
    Month,
    DayOfWeek,
    Year,
}

const FIELDS: [Field; 7] = [
    Field::Second,
    Field::Minute,
    Field::Hour,
    Field::DayOfMonth,
    Field::Month,
    Field::DayOfWeek,
    Field::Year,
];

const MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];
const DAYS: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

/// A Quartz cron expression, read: the values of each field (with
/// Quartz's markers for `*` and `?` among them), the day rules, and the
/// zone the trigger runs in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuartzCron {
    sets: [BTreeSet<i32>; 7],
    last_day_of_week: bool,
    nth_day_of_week: i32,
    last_day_of_month: bool,
    nearest_weekday: bool,
    last_day_offset: i32,
    /// `None` for UTC.
    zone: Option<TimeZone>,
}

/// A refusal in Quartz's own words, which say what is wrong but seldom
/// which field.
fn refused(reason: impl Into<String>) -> InvalidInput {
    InvalidInput::new("Quartz", reason.into())
}

/// What Java's own exceptions inside the parser become: Quartz wraps them
/// so.
fn malformed(what: &str) -> InvalidInput {
    refused(format!("Illegal cron expression format ({what})"))
}

/// Reads `spec` as Quartz does.
pub fn read(spec: &str) -> Result<QuartzCron, InvalidInput> {
    let spec = spec.to_ascii_uppercase();
    let mut cron = QuartzCron::default();
    let mut fields = FIELDS.iter();
    let mut reached = 0;
    for token in spec.split([' ', '\t']).filter(|token| !token.is_empty()) {
        let Some(&field) = fields.next() else {
            break;
        };
        reached += 1;
        let has_list = token.len() > 1 && token.contains(',');
        if field == Field::DayOfMonth && token.contains('L') && has_list {
            return Err(refused(
                "Support for specifying 'L' and 'LW' with other days of the month is not implemented",
            ));
        }
        if field == Field::DayOfWeek && token.contains('L') && has_list {
            return Err(refused(
                "Support for specifying 'L' with other days of the week is not implemented",
            ));
        }
        if field == Field::DayOfWeek && token.matches('#').count() > 1 {
            return Err(refused(
                "Support for specifying multiple \"nth\" days is not implemented.",
            ));
        }
        for value in token.split(',').filter(|value| !value.is_empty()) {
            cron.store(value.as_bytes(), field)?;
        }
    }
    if reached <= 5 {
        return Err(refused("Unexpected end of expression."));
    }
    if reached <= 6 {
        cron.store(b"*", Field::Year)?;
    }
    let day_of_month_given = !cron.set(Field::DayOfMonth).contains(&NONE);
    let day_of_week_given = !cron.set(Field::DayOfWeek).contains(&NONE);
    if day_of_month_given == day_of_week_given {
        return Err(refused(
            "Support for specifying both a day-of-week AND a day-of-month parameter is not implemented.",
        ));
    }
    let needed = [
        Field::Second,
        Field::Minute,
        Field::Hour,
        Field::Month,
        Field::Year,
    ];
    let day_field = if day_of_week_given {
        Field::DayOfWeek
    } else {
        Field::DayOfMonth
    };
    let empty = needed
        .into_iter()
        .chain((day_field == Field::DayOfWeek || !cron.last_day_of_month).then_some(day_field))
        .find(|&field| cron.set(field).is_empty());
    if let Some(field) = empty {
        return Err(refused(format!(
            "Quartz reads no value into the {field:?} field, and fails when asked for a fire time"
        )));
    }
    Ok(cron)
}

/// Java's `Integer.parseInt` of `text`.
fn parse_int(text: &[u8]) -> Result<i32, InvalidInput> {
    std::str::from_utf8(text)
        .ok()
        .and_then(|text| text.parse().ok())
        .ok_or_else(|| malformed("java.lang.NumberFormatException"))
}

/// The byte at `i`, or Java's out-of-bounds exception.
fn at(s: &[u8], i: usize) -> Result<u8, InvalidInput> {
    s.get(i)
        .copied()
        .ok_or_else(|| malformed("java.lang.StringIndexOutOfBoundsException"))
}

/// A number read on from `i` after the digits of `first` (`getValue`): its
/// value, and where reading goes on, one past the end when it ran to it.
fn value_from(first: i32, s: &[u8], mut i: usize) -> Result<(i32, usize), InvalidInput> {
    at(s, i)?;
    let mut digits = first.to_string().into_bytes();
    while i < s.len() && s[i].is_ascii_digit() {
        digits.push(s[i]);
        i += 1;
    }
    let pos = if i < s.len() { i } else { i + 1 };
    Ok((parse_int(&digits)?, pos))
}

fn check_increment(incr: i32, field: Field) -> Result<(), InvalidInput> {
    let (most, bound) = match field {
        Field::Second | Field::Minute => (59, 60),
        Field::Hour => (23, 24),
        Field::DayOfMonth => (31, 31),
        Field::DayOfWeek => (7, 7),
        Field::Month => (12, 12),
        Field::Year => return Ok(()),
    };
    if incr > most {
        return Err(refused(format!("Increment > {bound} : {incr}")));
    }
    Ok(())
}

impl QuartzCron {
    fn set(&self, field: Field) -> &BTreeSet<i32> {
        &self.sets[field as usize]
    }

    fn set_mut(&mut self, field: Field) -> &mut BTreeSet<i32> {
        &mut self.sets[field as usize]
    }

    /// One comma-separated value of a field (`storeExpressionVals`).
    fn store(&mut self, s: &[u8], field: Field) -> Result<(), InvalidInput> {
        let c = s[0];
        let last_word = s == b"L" || s == b"LW" || is_last_offset(s);
        if c.is_ascii_uppercase() && !last_word {
            return self.store_name(s, field);
        }
        match c {
            b'?' => self.store_no_value(s, field),
            b'*' | b'/' => self.store_every(s, field),
            b'L' => self.store_last(s, field),
            b'0'..=b'9' => {
                let val = i32::from(c - b'0');
                if s.len() == 1 {
                    return self.add(val, -1, -1, field);
                }
                let (val, i) = if s[1].is_ascii_digit() {
                    value_from(val, s, 1)?
                } else {
                    (val, 1)
                };
                self.store_after_number(s, i, val, field)
            }
            other => Err(refused(format!("Unexpected character: {}", other as char))),
        }
    }

    fn store_name(&mut self, s: &[u8], field: Field) -> Result<(), InvalidInput> {
        let name = |i: usize| -> Result<&[u8], InvalidInput> {
            s.get(i..i + 3)
                .ok_or_else(|| malformed("java.lang.StringIndexOutOfBoundsException"))
        };
        let first = name(0)?;
        let (val, end) = match field {
            Field::Month => {
                let number = |word: &[u8]| {
                    month_number(word).ok_or_else(|| {
                        refused(format!(
                            "Invalid Month value: '{}'",
                            String::from_utf8_lossy(word)
                        ))
                    })
                };
                let val = number(first)?;
                let end = if s.get(3) == Some(&b'-') {
                    number(name(4)?)?
                } else {
                    -1
                };
                (val, end)
            }
            Field::DayOfWeek => {
                let invalid = |word: &[u8]| {
                    refused(format!(
                        "Invalid Day-of-Week value: '{}'",
                        String::from_utf8_lossy(word)
                    ))
                };
                let val = day_number(first).ok_or_else(|| invalid(first))?;
                let mut end = -1;
                match s.get(3) {
                    Some(b'-') => {
                        let word = name(4)?;
                        end = day_number(word).ok_or_else(|| invalid(word))?;
                    }
                    Some(b'#') => self.nth_day_of_week = nth(&s[4..])?,
                    Some(b'L') => self.last_day_of_week = true,
                    _ => {}
                }
                (val, end)
            }
            _ => {
                return Err(refused(format!(
                    "Illegal characters for this position: '{}'",
                    String::from_utf8_lossy(first)
                )));
            }
        };
        let incr = if end == -1 { 0 } else { 1 };
        self.add(val, end, incr, field)
    }

    fn store_no_value(&mut self, s: &[u8], field: Field) -> Result<(), InvalidInput> {
        if s.len() > 2 && s[1] != b' ' && s[2] != b'\t' {
            return Err(refused(format!(
                "Illegal character after '?': {}",
                s[1] as char
            )));
        }
        if !matches!(field, Field::DayOfWeek | Field::DayOfMonth) {
            return Err(refused(
                "'?' can only be specified for Day-of-Month or Day-of-Week.",
            ));
        }
        if field == Field::DayOfWeek
            && !self.last_day_of_month
            && self.set(Field::DayOfMonth).last() == Some(&NONE)
        {
            return Err(refused(
                "'?' can only be specified for Day-of-Month -OR- Day-of-Week.",
            ));
        }
        self.add(NONE, -1, 0, field)
    }

    fn store_every(&mut self, s: &[u8], field: Field) -> Result<(), InvalidInput> {
        if s == b"*" {
            return self.add(ALL, -1, 0, field);
        }
        if s[0] == b'/' && s.len() == 1 {
            return Err(refused("'/' must be followed by an integer."));
        }
        let i = usize::from(s[0] == b'*');
        let incr = if at(s, i)? == b'/' {
            if i + 1 >= s.len() {
                return Err(refused("Unexpected end of string."));
            }
            // `getNumericValue` reads to the end: its search for a space
            // never stops.
            let incr = parse_int(&s[i + 1..])?;
            check_increment(incr, field)?;
            incr
        } else {
            1
        };
        self.add(ALL, -1, incr, field)
    }

    fn store_last(&mut self, s: &[u8], field: Field) -> Result<(), InvalidInput> {
        let mut i = 1;
        match field {
            Field::DayOfMonth => self.last_day_of_month = true,
            Field::DayOfWeek => self.add(7, 7, 0, field)?,
            _ => {}
        }
        if field == Field::DayOfMonth && s.len() > i {
            if s[i] == b'-' {
                let (offset, pos) = value_from(0, s, i + 1)?;
                if offset > 30 {
                    return Err(refused("Offset from last day must be <= 30"));
                }
                self.last_day_offset = offset;
                i = pos;
            }
            if s.get(i) == Some(&b'W') {
                self.nearest_weekday = true;
            }
        }
        Ok(())
    }

    /// What follows a number (`checkNext`): `L`, `W`, `#`, a range, a step.
    fn store_after_number(
        &mut self,
        s: &[u8],
        i: usize,
        val: i32,
        field: Field,
    ) -> Result<(), InvalidInput> {
        if i >= s.len() {
            return self.add(val, -1, -1, field);
        }
        match s[i] {
            b'L' => {
                if field != Field::DayOfWeek {
                    return Err(refused(format!("'L' option is not valid here. (pos={i})")));
                }
                if !(1..=7).contains(&val) {
                    return Err(refused("Day-of-Week values must be between 1 and 7"));
                }
                self.last_day_of_week = true;
                self.set_mut(field).insert(val);
                Ok(())
            }
            b'W' => {
                if field != Field::DayOfMonth {
                    return Err(refused(format!("'W' option is not valid here. (pos={i})")));
                }
                if val > 31 {
                    return Err(refused(
                        "The 'W' option does not make sense with values larger than 31 (max number of days in a month)",
                    ));
                }
                self.nearest_weekday = true;
                self.set_mut(field).insert(val);
                Ok(())
            }
            b'#' => {
                if field != Field::DayOfWeek {
                    return Err(refused(format!("'#' option is not valid here. (pos={i})")));
                }
                self.nth_day_of_week = nth(&s[i + 1..])?;
                self.set_mut(field).insert(val);
                Ok(())
            }
            b'-' => self.store_range(s, i + 1, val, field),
            b'/' => {
                if i + 1 >= s.len() {
                    return Err(refused("'/' must be followed by an integer."));
                }
                let incr = digit(at(s, i + 1)?)?;
                if i + 2 >= s.len() {
                    check_increment(incr, field)?;
                    return self.add(val, -1, incr, field);
                }
                let next = s[i + 2];
                if !next.is_ascii_digit() {
                    return Err(refused(format!(
                        "Unexpected character '{}' after '/'",
                        next as char
                    )));
                }
                let (incr, _) = value_from(incr, s, i + 2)?;
                check_increment(incr, field)?;
                self.add(val, -1, incr, field)
            }
            _ => self.add(val, -1, 0, field),
        }
    }

    /// `val-` and what follows: the range's end, then perhaps `/step`.
    fn store_range(
        &mut self,
        s: &[u8],
        mut i: usize,
        val: i32,
        field: Field,
    ) -> Result<(), InvalidInput> {
        let mut end = digit(at(s, i)?)?;
        i += 1;
        if i >= s.len() {
            return self.add(val, end, 1, field);
        }
        if s[i].is_ascii_digit() {
            (end, i) = value_from(end, s, i)?;
        }
        if s.get(i) != Some(&b'/') {
            return self.add(val, end, 1, field);
        }
        let incr = digit(at(s, i + 1)?)?;
        if i + 2 >= s.len() {
            return self.add(val, end, incr, field);
        }
        let incr = if s[i + 2].is_ascii_digit() {
            value_from(incr, s, i + 2)?.0
        } else {
            incr
        };
        self.add(val, end, incr, field)
    }

    /// Adds `val` (to `end` by `incr`) to a field's values (`addToSet`).
    fn add(&mut self, val: i32, end: i32, incr: i32, field: Field) -> Result<(), InvalidInput> {
        let special = val == ALL || val == NONE;
        let out_of_range = match field {
            Field::Second | Field::Minute => (!(0..=59).contains(&val) || end > 59) && val != ALL,
            Field::Hour => (!(0..=23).contains(&val) || end > 23) && val != ALL,
            Field::DayOfMonth => (!(1..=31).contains(&val) || end > 31) && !special,
            Field::Month => (!(1..=12).contains(&val) || end > 12) && val != ALL,
            Field::DayOfWeek => (val == 0 || val > 7 || end > 7) && !special,
            Field::Year => false,
        };
        if out_of_range {
            return Err(refused(match field {
                Field::Second | Field::Minute => {
                    "Minute and Second values must be between 0 and 59"
                }
                Field::Hour => "Hour values must be between 0 and 23",
                Field::DayOfMonth => "Day of month values must be between 1 and 31",
                Field::Month => "Month values must be between 1 and 12",
                _ => "Day-of-Week values must be between 1 and 7",
            }));
        }
        if (incr == 0 || incr == -1) && val != ALL {
            self.set_mut(field)
                .insert(if val == -1 { NONE } else { val });
            return Ok(());
        }
        let mut incr = incr;
        if val == ALL && incr <= 0 {
            incr = 1;
            self.set_mut(field).insert(ALL);
        }
        let (low, high, wrap) = match field {
            Field::Second | Field::Minute => (0, 59, 60),
            Field::Hour => (0, 23, 24),
            Field::DayOfMonth => (1, 31, 31),
            Field::Month => (1, 12, 12),
            Field::DayOfWeek => (1, 7, 7),
            Field::Year => (1970, MAX_YEAR, 0),
        };
        let start = if val == -1 || val == ALL { low } else { val };
        let mut stop = if end == -1 { high } else { end };
        let mut modulo = None;
        if stop < start {
            if field == Field::Year {
                return Err(malformed(
                    "java.lang.IllegalArgumentException: Start year must be less than stop year",
                ));
            }
            stop += wrap;
            modulo = Some(wrap);
        }
        let one_based = matches!(field, Field::Month | Field::DayOfWeek | Field::DayOfMonth);
        let set = self.set_mut(field);
        let mut value = start;
        while value <= stop {
            set.insert(match modulo {
                None => value,
                Some(wrap) if value % wrap == 0 && one_based => wrap,
                Some(wrap) => value % wrap,
            });
            value += incr;
        }
        Ok(())
    }
}

fn digit(c: u8) -> Result<i32, InvalidInput> {
    if c.is_ascii_digit() {
        Ok(i32::from(c - b'0'))
    } else {
        Err(malformed("java.lang.NumberFormatException"))
    }
}

/// The `k` of `#k`, 1 to 5.
fn nth(text: &[u8]) -> Result<i32, InvalidInput> {
    parse_int(text)
        .ok()
        .filter(|k| (1..=5).contains(k))
        .ok_or_else(|| refused("A numeric value between 1 and 5 must follow the '#' option"))
}

/// `L-3`, `L-3W`, `L-`: Quartz's test `^L-[0-9]*[W]?`.
fn is_last_offset(s: &[u8]) -> bool {
    let Some(rest) = s.strip_prefix(b"L-") else {
        return false;
    };
    let rest = rest.strip_suffix(b"W").unwrap_or(rest);
    rest.iter().all(u8::is_ascii_digit)
}

fn month_number(word: &[u8]) -> Option<i32> {
    let index = MONTHS.iter().position(|name| name.as_bytes() == word)?;
    Some(index as i32 + 1)
}

fn day_number(word: &[u8]) -> Option<i32> {
    let index = DAYS.iter().position(|name| name.as_bytes() == word)?;
    Some(index as i32 + 1)
}

mod calendar;

/// How Quartz's search for the next fire time ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Search {
    /// At this Unix second.
    Fires(i64),
    /// With no fire time before Quartz stops looking.
    Never,
    /// It does not end: Quartz 2.3.2's search goes round in a loop, as it
    /// does for `L-28W` to `L-30W` from some dates, and the trigger never
    /// fires again.
    Endless,
}

impl QuartzCron {
    /// The trigger run in `zone` (its `<time-zone>`), its fields read on
    /// the zone's wall clock.
    pub fn in_zone(self, zone: TimeZone) -> Self {
        Self {
            zone: Some(zone),
            ..self
        }
    }

    /// The search for the first fire time after Unix second `after`.
    pub fn next_after(&self, after: i64) -> Search {
        calendar::time_after(self, after)
    }

    /// Appends each start in `window`, in order, while `out` holds fewer
    /// than `most`. Returns whether a start was left out because `out`
    /// was full.
    pub fn push_starts(&self, window: Window, out: &mut Vec<i64>, most: usize) -> bool {
        if let Some(offset) = steady_offset(self.zone.as_ref(), window)
            && self.is_plain()
        {
            return self.push_plain_starts(window, offset, out, most);
        }
        let next = |after| match self.next_after(after) {
            Search::Fires(at) => Some(at),
            Search::Never | Search::Endless => None,
        };
        push_searched_starts(window, next, out, most)
    }

    /// Whether no day rule (`L`, `W`, `#`) is given. Quartz's search then
    /// finds, in order, each second that every field allows, which a walk
    /// over the window's days finds far sooner (a test holds the two to
    /// the same starts).
    fn is_plain(&self) -> bool {
        !self.last_day_of_week
            && self.nth_day_of_week == 0
            && !self.last_day_of_month
            && !self.nearest_weekday
    }

    /// [`Self::push_starts`] of a plain expression on a clock `offset`
    /// seconds east of UTC that does not change: each day of the window
    /// its day, month and year fields allow, at each second of the day
    /// its clock fields allow. Past [`MAX_YEAR`] Quartz finds nothing.
    fn push_plain_starts(
        &self,
        window: Window,
        offset: i32,
        out: &mut Vec<i64>,
        most: usize,
    ) -> bool {
        let values =
            |field: Field, last: i32| self.set(field).range(..=last).map(|&v| i64::from(v));
        let clock: Vec<i64> = values(Field::Hour, 23)
            .flat_map(|hour| {
                values(Field::Minute, 59).flat_map(move |minute| {
                    values(Field::Second, 59).map(move |second| hour * 3600 + minute * 60 + second)
                })
            })
            .collect();
        let by_day_of_week = !self.set(Field::DayOfWeek).contains(&NONE);
        let runs_on = |days: i64, date: CivilDate| {
            if date.year > i64::from(MAX_YEAR) {
                return None;
            }
            let day = if by_day_of_week {
                (Field::DayOfWeek, weekday(days) as i32 + 1)
            } else {
                (Field::DayOfMonth, date.day as i32)
            };
            Some(
                [
                    day,
                    (Field::Month, date.month as i32),
                    (Field::Year, date.year as i32),
                ]
                .iter()
                .all(|(field, value)| self.set(*field).contains(value)),
            )
        };
        push_daily_starts(window, offset, &clock, runs_on, out, most)
    }

    /// The minutes and hours the expression fires at, as a cron schedule
    /// whose days are left open: what the fix reads of a line (it moves
    /// only the clock, and a line that never runs is kept before).
    pub fn clock(&self) -> Schedule {
        let bits = |field: Field| {
            self.set(field)
                .iter()
                .filter(|&&value| (0..64).contains(&value))
                .fold(0u64, |bits, &value| bits | 1 << value)
        };
        Schedule::every_day(bits(Field::Minute), bits(Field::Hour) as u32)
    }

    /// Why the expression never fires from Unix second `after` on, when
    /// Quartz finds no time before it stops looking.
    pub fn never_runs(&self, after: i64) -> Option<String> {
        match self.next_after(after) {
            Search::Fires(_) => None,
            Search::Never => {
                let year = civil_from_days(after.div_euclid(SECONDS_PER_DAY)).year;
                Some(format!(
                    "Quartz finds no fire time from {year} to {LAST_SEARCHED_YEAR}"
                ))
            }
            Search::Endless => Some(ENDLESS.into()),
        }
    }

    /// Why the trigger fires no more after its last start of `starts`
    /// (Unix microseconds), when Quartz's search from there never ends.
    pub fn stops_searching(&self, starts: &[i64]) -> Option<String> {
        let last = starts.last()?.div_euclid(MICROS_PER_SECOND);
        (self.next_after(last) == Search::Endless).then(|| {
            format!(
                "it fires no more after {}: {ENDLESS}",
                crate::time::format(last)
            )
        })
    }
}
