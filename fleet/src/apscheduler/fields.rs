//! `CronTrigger`'s eight fields: how each value is read, which values a
//! field allows, and the next one it allows on a date.
//!
//! Followed from APScheduler 3.11's `triggers/cron/fields.py`
//! (`BaseField.compile_expressions`, `get_next_value`, `get_min`,
//! `get_max`) and `triggers/cron/expressions.py`: each comma-separated
//! part is tried against the field's expressions in order, the first that
//! matches reads it, and a field allows the smallest value any part
//! gives. Refusals use APScheduler's own words.

use jiff::civil::DateTime;

/// The fields, most significant first, as `CronTrigger.FIELD_NAMES`.
pub const NAMES: [&str; 8] = [
    "year",
    "month",
    "day",
    "week",
    "day_of_week",
    "hour",
    "minute",
    "second",
];
/// Where each field's values start and end (`MIN_VALUES`, `MAX_VALUES`);
/// a day's end is its month's length.
const MIN: [i64; 8] = [1970, 1, 1, 1, 0, 0, 0, 0];
const MAX: [i64; 8] = [9999, 12, 31, 53, 6, 23, 59, 59];
/// What a field less significant than every field given stands for
/// (`DEFAULT_VALUES`); the others stand for `*`.
pub const DEFAULTS: [&str; 8] = ["*", "1", "1", "*", "*", "0", "0", "0"];

pub const YEAR: usize = 0;
pub const MONTH: usize = 1;
pub const DAY: usize = 2;
pub const WEEK: usize = 3;
pub const DAY_OF_WEEK: usize = 4;
pub const HOUR: usize = 5;
pub const MINUTE: usize = 6;
pub const SECOND: usize = 7;

const WEEKDAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const POSITIONS: [&str; 6] = ["1st", "2nd", "3rd", "4th", "5th", "last"];

/// One comma-separated part of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// `*` or `*/step`.
    All { step: Option<i64> },
    /// `a`, `a-b`, `a/step`, `a-b/step`, and the names of months and days.
    Range {
        first: i64,
        last: Option<i64>,
        step: Option<i64>,
    },
    /// `1st mon` .. `5th mon`, `last mon` (`nth` 5): in the day field.
    Position { nth: usize, weekday: i64 },
    /// `last`: the month's last day.
    LastDay,
}

/// A field as read: its place in [`NAMES`] and its parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CronField {
    index: usize,
    parts: Vec<Part>,
}

/// Python's `repr` of a string, as APScheduler's messages quote a part.
fn python_repr(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::from(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// The ASCII digits `text` starts with, and the rest.
fn digits(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    text.split_at(end)
}

/// Python's `int()` of ASCII digits; numbers past an `i64` are held at
/// its largest, which every check refuses as too large all the same.
fn int(digits: &str) -> i64 {
    digits.parse().unwrap_or(i64::MAX)
}

/// `(?P<first>\d+)(?:-(?P<last>\d+))?(?:/(?P<step>\d+))?$`.
fn match_range(part: &str) -> Option<Part> {
    let (first, mut rest) = digits(part);
    if first.is_empty() {
        return None;
    }
    let mut last = None;
    if let Some(after) = rest.strip_prefix('-') {
        let (read, after) = digits(after);
        if read.is_empty() {
            return None;
        }
        last = Some(int(read));
        rest = after;
    }
    let step = match rest.strip_prefix('/') {
        Some(after) => match digits(after) {
            (read, "") if !read.is_empty() => Some(int(read)),
            _ => return None,
        },
        None if rest.is_empty() => None,
        None => return None,
    };
    Some(Part::Range {
        first: int(first),
        last,
        step,
    })
}

/// The ASCII letters `text` starts with (`[a-z]+`, any case).
fn letters(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    text.split_at(end)
}

/// `(?P<first>[a-z]+)(?:-(?P<last>[a-z]+))?`, matched at the start only:
/// what follows the names is not read, as in APScheduler.
fn match_names(part: &str) -> Option<(&str, Option<&str>)> {
    let (first, rest) = letters(part);
    if first.is_empty() {
        return None;
    }
    let last = rest
        .strip_prefix('-')
        .map(|after| letters(after).0)
        .filter(|last| !last.is_empty());
    Some((first, last))
}

/// The place of `name` among `names`, any case.
fn name_index(names: &[&str], name: &str) -> Option<i64> {
    let lower = name.to_lowercase();
    names
        .iter()
        .position(|known| *known == lower)
        .map(|i| i as i64)
}

/// `(1st|2nd|3rd|4th|5th|last) +(\d+|\w+)`, any case, at the start.
fn match_position(part: &str) -> Option<Result<Part, String>> {
    let lower = part.to_ascii_lowercase();
    let nth = POSITIONS.iter().position(|name| lower.starts_with(name))?;
    let rest = &part[POSITIONS[nth].len()..];
    let name = rest.trim_start_matches(' ');
    if name.len() == rest.len() {
        return None;
    }
    let (number, _) = digits(name);
    let weekday = if number.is_empty() {
        let end = name
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(name.len());
        &name[..end]
    } else {
        number
    };
    if weekday.is_empty() {
        return None;
    }
    Some(match name_index(&WEEKDAYS, weekday) {
        Some(weekday) => Ok(Part::Position { nth, weekday }),
        None => Err(format!("Invalid weekday name \"{weekday}\"")),
    })
}

impl Part {
    /// The part's own check (`__init__`), before its range is checked.
    fn new_range(first: i64, last: Option<i64>, step: Option<i64>) -> Result<Self, String> {
        if step == Some(0) {
            return Err("Increment must be higher than 0".into());
        }
        let last = if last.is_none() && step.is_none() {
            Some(first)
        } else {
            last
        };
        if last.is_some_and(|last| first > last) {
            return Err("The minimum value in a range must not be higher than the maximum".into());
        }
        Ok(Part::Range { first, last, step })
    }

    /// `validate_range`: the part within the field's values.
    fn check(self, index: usize) -> Result<Self, String> {
        let (min, max) = (MIN[index], MAX[index]);
        let step_within = |step: Option<i64>, span: i64| match step {
            Some(step) if step > span => Err(format!(
                "the step value ({step}) is higher than the total range of the expression \
                 ({span})"
            )),
            _ => Ok(()),
        };
        match self {
            Part::All { step } => step_within(step, max - min)?,
            Part::Range { first, last, step } => {
                step_within(step, max - min)?;
                if first < min {
                    return Err(format!(
                        "the first value ({first}) is lower than the minimum value ({min})"
                    ));
                }
                if let Some(last) = last.filter(|&last| last > max) {
                    return Err(format!(
                        "the last value ({last}) is higher than the maximum value ({max})"
                    ));
                }
                // APScheduler reads a last value of 0 as none given here.
                let end = last.filter(|&last| last != 0).unwrap_or(max);
                step_within(step, end - first)?;
            }
            Part::Position { .. } | Part::LastDay => {}
        }
        Ok(self)
    }
}

/// One part of field `index`, by the first expression that matches it.
fn read_part(index: usize, part: &str) -> Result<Part, String> {
    let checked = |read: Result<Part, String>| {
        read?
            .check(index)
            .map_err(|why| format!("Error validating expression {}: {why}", python_repr(part)))
    };
    if let Some(step) = part.strip_prefix('*') {
        let step = match step.strip_prefix('/').map(digits) {
            None if step.is_empty() => Some(None),
            Some((read, "")) if !read.is_empty() => Some(Some(int(read))),
            _ => None,
        };
        if let Some(step) = step {
            if step == Some(0) {
                return Err("Increment must be higher than 0".into());
            }
            return checked(Ok(Part::All { step }));
        }
    }
    if let Some(Part::Range { first, last, step }) = match_range(part) {
        return checked(Part::new_range(first, last, step));
    }
    let names = match index {
        MONTH => Some((&MONTHS[..], "month", 1)),
        DAY_OF_WEEK => Some((&WEEKDAYS[..], "weekday", 0)),
        _ => None,
    };
    if let Some((names, kind, base)) = names
        && let Some((first, last)) = match_names(part)
    {
        let number = |name: &str| {
            name_index(names, name)
                .map(|i| i + base)
                .ok_or_else(|| format!("Invalid {kind} name \"{name}\""))
        };
        let first = number(first)?;
        let last = last.map(number).transpose()?;
        return checked(Part::new_range(first, last, None));
    }
    if index == DAY {
        if let Some(read) = match_position(part) {
            return checked(read);
        }
        if part.len() >= 4 && part[..4].eq_ignore_ascii_case("last") {
            return Ok(Part::LastDay);
        }
    }
    Err(format!(
        "Unrecognized expression \"{part}\" for field \"{}\"",
        NAMES[index]
    ))
}

impl CronField {
    /// Reads `value` for field `index`: Python's `str.strip`, then parts
    /// split at commas with any spaces around them (`" *, *"`).
    pub fn read(index: usize, value: &str) -> Result<Self, String> {
        let parts = value
            .trim()
            .split(',')
            .enumerate()
            .map(|(i, part)| {
                // Spaces around a comma belong to the separator.
                let part = if i == 0 {
                    part
                } else {
                    part.trim_start_matches(' ')
                };
                read_part(index, part.trim_end_matches(' '))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { index, parts })
    }

    /// Whether the field is a field of the date itself (`REAL`), not the
    /// week or the day of the week, which the search reaches by days.
    pub fn is_real(&self) -> bool {
        is_real(self.index)
    }

    /// The values from 0 to 63 the field allows, as bits, for a field of
    /// the clock (no day rule in it).
    pub fn bits(&self) -> u64 {
        let min = MIN[self.index];
        let allows = |value: i64| {
            self.parts.iter().any(|part| match *part {
                Part::All { step } => step.is_none_or(|step| (value - min) % step == 0),
                Part::Range { first, last, step } => {
                    (first..=last.unwrap_or(MAX[self.index])).contains(&value)
                        && step.is_none_or(|step| (value - first) % step == 0)
                }
                Part::Position { .. } | Part::LastDay => false,
            })
        };
        (min..=MAX[self.index].min(63))
            .filter(|&value| allows(value))
            .fold(0, |bits, value| bits | 1 << value)
    }

    /// For the year field: a span of years after which the years it
    /// allows repeat with the calendar's 400-year cycle (every step's
    /// multiple of 400), and the latest year a part starts from. A
    /// search that finds no time in one such span past both finds none.
    pub fn year_cycle(&self) -> (i64, i64) {
        let gcd = |mut a: i64, mut b: i64| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        self.parts
            .iter()
            .fold((400, MIN[YEAR]), |(cycle, latest), part| {
                let (step, first) = match *part {
                    Part::All { step } => (step.unwrap_or(1), MIN[YEAR]),
                    Part::Range { first, step, .. } => (step.unwrap_or(1), first),
                    Part::Position { .. } | Part::LastDay => (1, MIN[YEAR]),
                };
                let cycle = cycle / gcd(cycle, step) * step;
                (cycle.min(MAX[YEAR]), latest.max(first))
            })
    }

    /// The smallest value at or after the date's own that a part allows.
    pub fn next_value(&self, date: DateTime) -> Option<i64> {
        self.parts
            .iter()
            .filter_map(|part| self.next_of(*part, date))
            .min()
    }

    fn next_of(&self, part: Part, date: DateTime) -> Option<i64> {
        let value = value(self.index, date);
        let (min, max) = (MIN[self.index], max(self.index, date));
        let stepped = |from: i64, low: i64, step: Option<i64>| match step {
            Some(step) => from + (-(from - low)).rem_euclid(step),
            None => from,
        };
        let next = match part {
            Part::All { step } => stepped(value.max(min), min, step),
            Part::Range { first, last, step } => {
                let low = min.max(first);
                let high = last.map_or(max, |last| max.min(last));
                let next = stepped(low.max(value), low, step);
                return (next <= high).then_some(next);
            }
            Part::Position { nth, weekday } => {
                let first_of_month = date.first_of_month().weekday().to_monday_zero_offset();
                let mut first_hit = weekday - i64::from(first_of_month) + 1;
                if first_hit <= 0 {
                    first_hit += 7;
                }
                let target = if nth < 5 {
                    first_hit + nth as i64 * 7
                } else {
                    first_hit + (max - first_hit) / 7 * 7
                };
                return (target <= max && target >= i64::from(date.day())).then_some(target);
            }
            Part::LastDay => max,
        };
        (next <= max).then_some(next)
    }
}

/// Whether field `index` is one of the date's own.
pub fn is_real(index: usize) -> bool {
    !matches!(index, WEEK | DAY_OF_WEEK)
}

/// Field `index` of `date` (`get_value`): the ISO week, and the day of
/// the week from Monday, 0.
pub fn value(index: usize, date: DateTime) -> i64 {
    i64::from(match index {
        YEAR => date.year(),
        MONTH => i16::from(date.month()),
        DAY => i16::from(date.day()),
        WEEK => i16::from(date.date().iso_week_date().week()),
        DAY_OF_WEEK => i16::from(date.weekday().to_monday_zero_offset()),
        HOUR => i16::from(date.hour()),
        MINUTE => i16::from(date.minute()),
        _ => i16::from(date.second()),
    })
}

/// The least value of field `index` (`get_min`).
pub fn min(index: usize) -> i64 {
    MIN[index]
}

/// The greatest value of field `index` on `date` (`get_max`).
pub fn max(index: usize, date: DateTime) -> i64 {
    match index {
        DAY => i64::from(date.days_in_month()),
        _ => MAX[index],
    }
}
