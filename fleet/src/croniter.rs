//! croniter specs, five fields or six (the sixth the second), with `H` a
//! value per field taken from one CRC-32 of the hash id.
//!
//! Followed: PyPI `croniter` 7.0.0 (`croniter.py`: `HashExpander`,
//! `croniter._expand`, `croniter._calc_next`), run as
//! `croniter(spec, start, hash_id=id)` with its defaults (`day_or=True`,
//! no `expand_from_start_time`).
//!
//! - Hash: `crc = zlib.crc32(hash_id as UTF-8)`, one number for the whole
//!   spec. Field `i` (minute 0, hour 1, day of month 2, month 3, day of
//!   week 4, second 5) draws `lo + (crc >> i) % (hi - lo + 1)`: the field
//!   position enters the draw, the field's text never does, so `H H * * *`
//!   and `H H(0-23) * * *` give the same hour.
//! - `H` spans the field (minute 0-59, hour 0-23, day of month 1-31,
//!   month 1-12, day of week 0-6); `H(a-b)` spans `a-b` (`a < b`, both
//!   in range, 7 reading as Sunday). `H/n` and `H(a-b)/n` draw `x` over
//!   `lo..=min(lo + n - 1, hi)` and become the text `x-hi/n`, or `x` when
//!   `x` is `hi`. That text is then read as any other field, quirks and
//!   all (`0-7/2` in day of week is `0-0/2`, an equal range, so every
//!   second day from Sunday).
//! - Fields are matched whole: `H` inside a list (`H,5`) is refused, as
//!   croniter refuses it. `R` (random per process) is refused here.
//! - Seconds: a sixth field is the second of the minute (0-59), read as
//!   the other fields are read (`H` is `(crc >> 5) % 60`); five fields
//!   start on second 0. Every second of a matching minute is a start
//!   ([`CroniterSchedule::push_starts`]), so `* * * * * *` is 60 a
//!   minute.
//! - `@hourly` = `H * * * * H`, `@daily` = `H H * * * H`, `@midnight` =
//!   `H H(0-2) * * * H`, `@weekly` = `H H * * H H`, `@monthly` =
//!   `H H H * * H`, `@yearly`/`@annually` = `H H H H * H`: croniter's
//!   hashed forms, six fields like any other.
//! - Days: when both day fields are restricted a day matches either
//!   ([`DayRule::EitherWhenBothRestricted`]), otherwise both. Unlike
//!   Vixie, "restricted" is judged on the expanded values, not the first
//!   character: a field is unrestricted only when it is `*` or `?`, or it
//!   lists every day while the other field's text holds a `*`. So
//!   `0 0 */2 * 1` is odd days OR Mondays here, odd Mondays in Vixie.
//!
//! Not read (refused with the field named): `L`, `W`, `#`, `R`, `*`
//! listed with other values, and seven-field specs (years).

use crate::cron::{DayRule, Schedule, bits};
use crate::jenkins::FIELD_NAMES;
use crate::time::{MICROS_PER_SECOND, Window};
use stampede_core::error::InvalidInput;

/// `croniter.RANGES` for the six fields.
const RANGES: [(u64, u64); 6] = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 6), (0, 59)];
const DAY_OF_MONTH: usize = 2;
const MONTH: usize = 3;
const DAY_OF_WEEK: usize = 4;
const SECOND: usize = 5;

const MONTH_NAMES: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const DAY_NAMES: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

/// The hashed `@` forms (`expr_aliases[...][1]`).
const ALIASES: [(&str, &str); 7] = [
    ("@midnight", "h h(0-2) * * * h"),
    ("@hourly", "h * * * * h"),
    ("@daily", "h h * * * h"),
    ("@weekly", "h h * * h h"),
    ("@monthly", "h h h * * h"),
    ("@yearly", "h h h h * h"),
    ("@annually", "h h h h * h"),
];

/// The CRC-32 croniter hashes every `H` of a spec from.
pub fn hash(hash_id: &str) -> u32 {
    crc32fast::hash(hash_id.as_bytes())
}

/// A croniter spec: the minutes it fires on and the seconds of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CroniterSchedule {
    pub minutes: Schedule,
    /// Bit s for second s of a matching minute, 0 to 59.
    pub seconds: u64,
}

impl CroniterSchedule {
    /// Appends each start in `window`, in order, while `out` holds fewer
    /// than `most`. Returns whether a start was left out because `out` was
    /// full.
    pub fn push_starts(&self, window: Window, out: &mut Vec<i64>, most: usize) -> bool {
        let second = |bit: u32| i64::from(bit) * MICROS_PER_SECOND;
        let (first, last) = (
            self.seconds.trailing_zeros(),
            63 - self.seconds.leading_zeros(),
        );
        // The minutes with a second in the window. Every minute but the
        // first and last has all its seconds in it, so two more minutes than
        // there is room for starts overfill `out`.
        let minutes_window = Window {
            from: window.from - second(last),
            end: window.end - second(first),
        };
        let room = most.saturating_sub(out.len()).saturating_add(2);
        let mut minutes = Vec::new();
        let left_out = self.minutes.push_starts(minutes_window, &mut minutes, room);
        for minute in minutes {
            for bit in bits(self.seconds) {
                let at = minute + second(bit);
                if !(window.from..window.end).contains(&at) {
                    continue;
                }
                if out.len() >= most {
                    return true;
                }
                out.push(at);
            }
        }
        left_out
    }
}

/// A spec read as `croniter(spec, hash_id=hash_id)` reads it, minutes only.
pub fn schedule(hash_id: &str, spec: &str) -> Result<Schedule, InvalidInput> {
    read(hash_id, spec).map(|read| read.minutes)
}

/// A spec read as `croniter(spec, hash_id=hash_id)` reads it.
pub fn read(hash_id: &str, spec: &str) -> Result<CroniterSchedule, InvalidInput> {
    // croniter lowercases the whole spec first (`expr_format.lower()`);
    // non-ASCII text is refused below as croniter refuses it.
    let lower = spec.to_ascii_lowercase();
    let alias = ALIASES.iter().find(|(name, _)| *name == lower);
    let text = alias.map_or(lower.as_str(), |(_, fields)| fields);
    // `re.compile(r"\S+", re.ASCII)`: ASCII whitespace, vertical tab too.
    let fields: Vec<&str> = text
        .split([' ', '\t', '\n', '\r', '\x0b', '\x0c'])
        .filter(|field| !field.is_empty())
        .collect();
    if fields.len() < 5 {
        return Err(InvalidInput::new(
            field_name(fields.len()),
            "is missing: croniter reads minute hour day-of-month month day-of-week, then an optional second",
        ));
    }
    if fields.len() > RANGES.len() {
        return Err(refuse(
            SECOND,
            format!(
                "is followed by {} more fields; croniter reads a seventh as the year, which is not read here",
                fields.len() - RANGES.len()
            ),
        ));
    }
    let crc = hash(hash_id);
    // Five fields start on second 0.
    let mut sets = [0u64, 0, 0, 0, 0, 1];
    let mut unrestricted = [false; 6];
    for (index, field) in fields.iter().enumerate() {
        let expanded = expand_hash(crc, index, field)?;
        let (set, star) = read_field(index, &expanded)?;
        sets[index] = set;
        unrestricted[index] = star;
    }
    // `LEN_MEANS_ALL`: a day field listing every value is `*` only when
    // the other day field's text holds a `*`.
    for (field, other) in [(DAY_OF_MONTH, DAY_OF_WEEK), (DAY_OF_WEEK, DAY_OF_MONTH)] {
        if sets[field] == full(field) && fields[other].contains('*') {
            unrestricted[field] = true;
        }
    }
    let either = !unrestricted[DAY_OF_MONTH] && !unrestricted[DAY_OF_WEEK];
    Ok(CroniterSchedule {
        minutes: Schedule {
            minutes: sets[0],
            hours: sets[1] as u32,
            days_of_month: sets[DAY_OF_MONTH] as u32,
            months: sets[MONTH] as u16,
            days_of_week: sets[DAY_OF_WEEK] as u8,
            days: if either {
                DayRule::EitherWhenBothRestricted
            } else {
                DayRule::Both
            },
        },
        seconds: sets[SECOND],
    })
}

/// The name a refusal gives field `field`: Jenkins' five, then `second`.
pub fn field_name(field: usize) -> &'static str {
    FIELD_NAMES.get(field).copied().unwrap_or("second")
}

fn refuse(field: usize, reason: impl Into<String>) -> InvalidInput {
    InvalidInput::new(field_name(field), reason)
}

fn short(text: &str) -> String {
    stampede_core::field::shorten(text)
}

/// Every value of a field as a bit set.
fn full(field: usize) -> u64 {
    let (lo, hi) = RANGES[field];
    ((1u64 << (hi + 1)) - 1) & !((1u64 << lo) - 1)
}

/// `HashExpander.do`: the hashed value in `begin..=end` for `field`.
fn draw(crc: u32, field: usize, begin: u64, end: u64) -> u64 {
    u64::from(crc >> field) % (end - begin + 1) + begin
}

/// Digits as a number; more than `u64` holds saturates, which every
/// check below treats as Python treats the big number (too large).
fn number(digits: &str) -> Option<u64> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.bytes().fold(0u64, |n, b| {
        n.saturating_mul(10).saturating_add(u64::from(b - b'0'))
    }))
}

/// `value_alias` for the five-field form: only day of week's 7 (Sunday).
fn alias(field: usize, value: u64) -> u64 {
    if field == DAY_OF_WEEK && value == 7 {
        0
    } else {
        value
    }
}

/// The parts of `hash_expression_re`, `^(h|r)(\((\d+)-(\d+)\))?(/(\d+))?$`.
struct HashTerm<'a> {
    random: bool,
    range: Option<(&'a str, &'a str)>,
    divisor: Option<&'a str>,
}

fn hash_term(field: &str) -> Option<HashTerm<'_>> {
    let random = field.starts_with('r');
    let rest = field.strip_prefix(['h', 'r'])?;
    let (range, rest) = match rest.strip_prefix('(') {
        Some(inner) => {
            let (range, rest) = inner.split_once(')')?;
            let (a, b) = range.split_once('-')?;
            number(a)?;
            number(b)?;
            (Some((a, b)), rest)
        }
        None => (None, rest),
    };
    let divisor = match rest {
        "" => None,
        _ => {
            let digits = rest.strip_prefix('/')?;
            number(digits)?;
            Some(digits)
        }
    };
    Some(HashTerm {
        random,
        range,
        divisor,
    })
}

/// `HashExpander.expand`: a whole-field `H` term as the plain text
/// croniter reads in its place; any other field unchanged.
fn expand_hash(crc: u32, field: usize, text: &str) -> Result<String, InvalidInput> {
    let Some(term) = hash_term(text) else {
        return Ok(text.to_string());
    };
    if term.random {
        return Err(refuse(
            field,
            "croniter's R is random in each process, so it has no fixed starts",
        ));
    }
    let (lo, hi) = RANGES[field];
    let (begin, end) = match term.range {
        Some((a, b)) => {
            let (begin, end) = (number(a).unwrap_or(u64::MAX), number(b).unwrap_or(u64::MAX));
            if begin >= end {
                return Err(refuse(
                    field,
                    format!("H({a}-{b}) must end after it begins"),
                ));
            }
            for bound in [begin, end] {
                if !(lo..=hi).contains(&alias(field, bound)) {
                    return Err(refuse(field, format!("H({a}-{b}) is outside {lo}-{hi}")));
                }
            }
            (begin, end)
        }
        None => (lo, hi),
    };
    let Some(divisor) = term.divisor else {
        return Ok(draw(crc, field, begin, end).to_string());
    };
    let divisor = number(divisor).unwrap_or(u64::MAX);
    if divisor == 0 {
        return Err(refuse(
            field,
            format!("\"{}\" has a step of 0", short(text)),
        ));
    }
    // `_expand_divisor`: the offset comes from the first period only.
    let x = draw(
        crc,
        field,
        begin,
        begin.saturating_add(divisor - 1).min(end),
    );
    Ok(if x == end {
        x.to_string()
    } else {
        format!("{x}-{end}/{divisor}")
    })
}

/// One field's text (after `H`) as a bit set, and whether croniter
/// expands it to `*` itself.
fn read_field(field: usize, text: &str) -> Result<(u64, bool), InvalidInput> {
    let text = if text.contains('?') {
        if text != "?" || (field != DAY_OF_MONTH && field != DAY_OF_WEEK) {
            return Err(refuse(
                field,
                format!("\"{}\": `?` stands alone, in a day field", short(text)),
            ));
        }
        "*"
    } else {
        text
    };
    let items: Vec<&str> = text.split(',').collect();
    let stars = items.iter().filter(|item| **item == "*").count();
    if stars == items.len() {
        return Ok((full(field), true));
    }
    if stars > 0 {
        return Err(refuse(
            field,
            format!(
                "\"{}\" lists `*` with other values, which croniter reads unevenly",
                short(text)
            ),
        ));
    }
    let mut set = 0u64;
    for item in items {
        for value in read_item(field, item)? {
            set |= 1 << value;
        }
    }
    Ok((set, false))
}

/// A month or day name, or digits, as `_alphaconv` and `int` read them.
fn bound(field: usize, text: &str, item: &str) -> Result<u64, InvalidInput> {
    if let Some(value) = number(text) {
        return Ok(value);
    }
    let names: &[&str] = match field {
        MONTH => &MONTH_NAMES,
        DAY_OF_WEEK => &DAY_NAMES,
        _ => &[],
    };
    match names.iter().position(|name| *name == text) {
        Some(at) => Ok(at as u64 + u64::from(field == MONTH)),
        None => Err(refuse(
            field,
            format!(
                "\"{}\" is not a number{} (L, W and # are not read here)",
                short(item),
                if names.is_empty() { "" } else { " or a name" }
            ),
        )),
    }
}

/// `step_search_re`, `^([^-]+)-([^-/]+)(/(\d+))?$`: low, high, step.
fn step_search(text: &str) -> Option<(&str, &str, Option<&str>)> {
    let (low, rest) = text.split_once('-')?;
    let (high, step) = match rest.split_once('/') {
        Some((high, step)) => {
            number(step)?;
            (high, Some(step))
        }
        None => (rest, None),
    };
    (!low.is_empty() && !high.is_empty() && !high.contains('-')).then_some((low, high, step))
}

/// One list item's values, as the loop in `croniter._expand` finds them.
fn read_item(field: usize, item: &str) -> Result<Vec<u64>, InvalidInput> {
    let (lo, hi) = RANGES[field];
    // `*/n` is `lo-hi/n`; `a/n` is `a-hi/n`, marked as a start with a step.
    let mut text = match item.strip_prefix("*/") {
        Some(rest) => format!("{lo}-{hi}/{rest}"),
        None => item.to_string(),
    };
    let mut start_with_step = false;
    if step_search(&text).is_none()
        && let Some((start, step)) = text.rsplit_once('/')
        && !start.is_empty()
        && !step.is_empty()
    {
        text = format!("{start}-{hi}/{step}");
        start_with_step = step_search(&text).is_some();
    }
    let values = match step_search(&text) {
        Some((low, high, step)) => {
            let step = step.map_or(1, |step| number(step).unwrap_or(u64::MAX));
            if step == 0 {
                return Err(refuse(
                    field,
                    format!("\"{}\" has a step of 0", short(item)),
                ));
            }
            let low = alias(field, bound(field, low, item)?);
            let high = alias(field, bound(field, high, item)?);
            if low.max(high) > hi {
                return Err(refuse(
                    field,
                    format!("\"{}\" is outside {lo}-{hi}", short(item)),
                ));
            }
            range_values(field, low, high, step, start_with_step)
        }
        None => {
            if text.starts_with('-') {
                return Err(refuse(field, format!("\"{}\" is negative", short(item))));
            }
            vec![alias(field, bound(field, &text, item)?)]
        }
    };
    // croniter puts a range's values back on its list and checks each.
    match values.iter().find(|value| !(lo..=hi).contains(*value)) {
        Some(value) => Err(refuse(
            field,
            format!("\"{}\" gives {value}, outside {lo}-{hi}", short(item)),
        )),
        None => Ok(values),
    }
}

/// `low-high/step` as croniter walks it: an equal range written as one
/// is the whole field, and a range running backwards wraps past the
/// field's end.
fn range_values(field: usize, low: u64, high: u64, step: u64, start_with_step: bool) -> Vec<u64> {
    let (lo, hi) = RANGES[field];
    let walk = |from: u64, to: u64| {
        let mut values = Vec::new();
        let mut at = from;
        while at <= to {
            values.push(at);
            at = at.saturating_add(step);
        }
        values
    };
    if start_with_step && low == high {
        // `59/15` is minute 59 alone, not the whole cycle.
        return vec![low];
    }
    let (low, high) = if low == high { (lo, hi) } else { (low, high) };
    if low <= high {
        return walk(low, high);
    }
    let mut values = walk(low, hi);
    // Continue from the field's start, skipping what the step still owes
    // (`Apr-Jan/3`), as croniter's `to_skip` does.
    let mut to_skip = 0;
    if let Some(&last) = values.last() {
        let already_skipped = hi - last;
        let position = last - lo;
        if position.saturating_add(step) > hi - lo + 1 && already_skipped < step {
            to_skip = step - already_skipped;
        }
    }
    values.extend(walk(lo.saturating_add(to_skip), high));
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_field_position_shifts_the_one_crc() {
        let crc = hash("job");
        let schedule = schedule("job", "H H H H H").unwrap();
        assert_eq!(schedule.minutes, 1 << (crc % 60));
        assert_eq!(schedule.hours, 1 << ((crc >> 1) % 24));
        assert_eq!(schedule.days_of_month, 1 << ((crc >> 2) % 31 + 1));
        assert_eq!(schedule.months, 1 << ((crc >> 3) % 12 + 1));
        assert_eq!(schedule.days_of_week, 1 << ((crc >> 4) % 7));
        assert_eq!(schedule.days, DayRule::EitherWhenBothRestricted);
        let seconds = read("job", "H H H H H H").unwrap().seconds;
        assert_eq!(seconds, 1 << ((crc >> 5) % 60));
        assert_eq!(read("job", "H H H H H").unwrap().seconds, 1);
    }

    #[test]
    fn a_backwards_range_wraps() {
        let months = schedule("", "0 0 1 nov-feb *").unwrap().months;
        assert_eq!(months, 1 << 11 | 1 << 12 | 1 << 1 | 1 << 2);
        assert_eq!(schedule("", "59/15 * * * *").unwrap().minutes, 1 << 59);
    }
}
