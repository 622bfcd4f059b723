//! Cron schedules: which minutes of the calendar a five-field spec fires on.
//!
//! A [`Schedule`] holds each field as the set of values it allows, so every
//! dialect (Vixie cron, Jenkins' `H`, croniter's `H`, Puppet's
//! `fqdn_rand`) reads its own text into the same sets and shares one
//! expansion over a horizon.
//!
//! [`parse`] reads Vixie cron (`minute hour day-of-month month
//! day-of-week`): `*`, numbers, ranges `a-b`, lists, steps `*/n`, `a-b/n`
//! and `a/n` (from `a` to the field's maximum, as cronie reads it; Vixie
//! itself refuses it), month names `jan`–`dec` and day names `sun`–`sat`
//! in any case, 7 for Sunday, and the `@hourly`…`@annually` macros. A
//! minute matches when
//!
//! ```text
//! minute ∧ hour ∧ month ∧ day,
//! day = dom ∧ dow   when either day field starts with `*`,
//!       dom ∨ dow   otherwise.
//! ```
//!
//! "Starts with `*`" is Vixie's own test: `entry.c` sets `DOM_STAR` and
//! `DOW_STAR` from the field's first character before parsing it, so
//! `*/2` counts as unrestricted while `1-31/2`, the same days, does not.
//!
//! A cronie job may wait a [`RandomDelay`] after each time it is due.
//!
//! [`Schedule::starts`] walks a horizon day by day: a day that fails the
//! day and month fields is skipped whole, and on a matching day only the
//! allowed hours and minutes are visited, so a line costs at most 32 day
//! checks plus one step per start.

use rand::Rng;

use stampede_core::error::InvalidInput;
use stampede_core::rng::{Purpose, seeded};

use crate::line::Refusal;
use crate::time::{MICROS_PER_SECOND, Window};
use crate::time::{SECONDS_PER_DAY, civil_from_days, weekday};

/// The values each field of a five-field cron spec allows, as bit sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Bit m for minute m, 0 to 59.
    pub minutes: u64,
    /// Bit h for hour h, 0 to 23.
    pub hours: u32,
    /// Bit d for day of month d, 1 to 31.
    pub days_of_month: u32,
    /// Bit m for month m, 1 to 12.
    pub months: u16,
    /// Bit d for day of week d, 0 (Sunday) to 6.
    pub days_of_week: u8,
    /// How the two day fields combine.
    pub days: DayRule,
}

/// How day of month and day of week combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DayRule {
    /// Vixie cron: when both fields are restricted (neither is `*`), a day
    /// matches either; otherwise the restricted one decides.
    EitherWhenBothRestricted,
    /// A day must match both fields.
    Both,
}

/// The longest horizon a schedule is expanded over: 31 days.
pub const MOST_HORIZON_MINUTES: u32 = 31 * 24 * 60;

/// A span of whole minutes to expand schedules over, at most 31 days.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Horizon {
    minutes: u32,
}

impl Horizon {
    pub fn minutes(minutes: u32) -> Result<Self, InvalidInput> {
        if minutes == 0 {
            return Err(InvalidInput::new("horizon", "must be at least 1 minute"));
        }
        if minutes > MOST_HORIZON_MINUTES {
            return Err(InvalidInput::new(
                "horizon",
                format!("{minutes} min is longer than 31 days"),
            ));
        }
        Ok(Self { minutes })
    }

    pub fn hours(hours: u32) -> Result<Self, InvalidInput> {
        Self::minutes(hours.saturating_mul(60))
    }

    pub fn in_minutes(self) -> u32 {
        self.minutes
    }

    pub fn in_seconds(self) -> i64 {
        i64::from(self.minutes) * 60
    }
}

/// One field's name, range and names for its values.
struct FieldSpec {
    name: &'static str,
    low: u32,
    high: u32,
    /// Names for `low`, `low + 1`, … (months from 1, days from Sunday = 0).
    names: &'static [&'static str],
}

const MONTH_NAMES: &[&str] = &[
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const DAY_NAMES: &[&str] = &["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

const FIELDS: [FieldSpec; 5] = [
    FieldSpec {
        name: "minute",
        low: 0,
        high: 59,
        names: &[],
    },
    FieldSpec {
        name: "hour",
        low: 0,
        high: 23,
        names: &[],
    },
    FieldSpec {
        name: "day of month",
        low: 1,
        high: 31,
        names: &[],
    },
    FieldSpec {
        name: "month",
        low: 1,
        high: 12,
        names: MONTH_NAMES,
    },
    // 7 is Sunday again, folded onto 0 once the field is read.
    FieldSpec {
        name: "day of week",
        low: 0,
        high: 7,
        names: DAY_NAMES,
    },
];

/// The five fields a macro stands for.
pub(crate) fn macro_fields(name: &str) -> Result<&'static str, InvalidInput> {
    match name.to_ascii_lowercase().as_str() {
        "@hourly" => Ok("0 * * * *"),
        "@daily" | "@midnight" => Ok("0 0 * * *"),
        "@weekly" => Ok("0 0 * * 0"),
        "@monthly" => Ok("0 0 1 * *"),
        "@yearly" | "@annually" => Ok("0 0 1 1 *"),
        "@reboot" => Err(InvalidInput::new(
            "spec",
            "@reboot runs at boot, not at a time of day, so it has no starts to place",
        )),
        _ => Err(InvalidInput::new(
            "spec",
            format!(
                "\"{}\" is not one of @hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually",
                stampede_core::field::shorten(name)
            ),
        )),
    }
}

/// Reads a Vixie cron spec: five fields separated by blanks, or a macro.
pub fn parse(spec: &str) -> Result<Schedule, InvalidInput> {
    let spec = spec.trim();
    let spec = if spec.starts_with('@') {
        macro_fields(spec)?
    } else {
        spec
    };
    let parts: Vec<&str> = spec.split_whitespace().collect();
    if parts.len() != 5 {
        return Err(InvalidInput::new(
            "spec",
            format!(
                "has {} fields; cron needs 5 (minute hour day-of-month month day-of-week)",
                parts.len()
            ),
        ));
    }
    let mut sets = [0u64; 5];
    for ((set, text), field) in sets.iter_mut().zip(&parts).zip(&FIELDS) {
        *set = parse_field(text, field)?;
    }
    let [minutes, hours, days_of_month, months, days_of_week] = sets;
    // Sunday written as 7 is Sunday.
    let days_of_week = (days_of_week | days_of_week >> 7) & 0x7f;
    let both_restricted = !parts[2].starts_with('*') && !parts[4].starts_with('*');
    Ok(Schedule {
        minutes,
        hours: hours as u32,
        days_of_month: days_of_month as u32,
        months: months as u16,
        days_of_week: days_of_week as u8,
        days: if both_restricted {
            DayRule::EitherWhenBothRestricted
        } else {
            DayRule::Both
        },
    })
}

/// `day` as an ordinal: 1st, 2nd, 3rd, 30th, 31st.
fn ordinal(day: u32) -> String {
    let suffix = match (day % 10, day % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{day}{suffix}")
}

/// Whether `spec` (Vixie cron, as [`parse`] reads it) has `*` leading its
/// minute or hour field, as cron's `MIN_STAR` and `HR_STAR` flags record:
/// such a job runs on whatever the clock shows, while others run at fixed
/// times and are caught up when the clock skips them.
pub fn time_is_wildcard(spec: &str) -> bool {
    let spec = spec.trim();
    let fields = if spec.starts_with('@') {
        macro_fields(spec).unwrap_or("")
    } else {
        spec
    };
    fields
        .split_whitespace()
        .take(2)
        .any(|field| field.starts_with('*'))
}

/// One field's comma-separated list as a bit set.
fn parse_field(text: &str, field: &FieldSpec) -> Result<u64, InvalidInput> {
    let mut set = 0u64;
    for item in text.split(',') {
        set |= parse_item(item, field)
            .map_err(|why| InvalidInput::new(field.name, format!("\"{}\" {why}", short(item))))?;
    }
    Ok(set)
}

fn short(text: &str) -> String {
    stampede_core::field::shorten(text)
}

/// One list item: `*`, `a`, `a-b`, each with an optional `/step`.
fn parse_item(item: &str, field: &FieldSpec) -> Result<u64, String> {
    if item.is_empty() {
        return Err("is an empty list item".into());
    }
    let (range, step) = match item.split_once('/') {
        Some((range, step)) => (range, Some(step)),
        None => (item, None),
    };
    let (first, last) = if range == "*" {
        (field.low, field.high)
    } else if let Some((a, b)) = range.split_once('-') {
        let (a, b) = (value(a, field)?, value(b, field)?);
        if a > b {
            return Err(format!("runs backwards: {a} is after {b}"));
        }
        (a, b)
    } else {
        let a = value(range, field)?;
        // A single value with a step runs to the field's end (`5/15`).
        (a, if step.is_some() { field.high } else { a })
    };
    let step = match step {
        None => 1,
        Some(text) => match text.parse::<u32>() {
            Ok(0) => return Err("has a step of 0".into()),
            Ok(step) if text.bytes().all(|b| b.is_ascii_digit()) => step,
            _ => {
                return Err(format!(
                    "has a step \"{}\" that is not a whole number",
                    short(text)
                ));
            }
        },
    };
    let mut set = 0u64;
    let mut at = first;
    while at <= last {
        set |= 1 << at;
        at = at.saturating_add(step);
    }
    Ok(set)
}

/// A number or a name of `field`, within its range.
fn value(text: &str, field: &FieldSpec) -> Result<u32, String> {
    let lower = text.to_ascii_lowercase();
    if let Some(at) = field.names.iter().position(|name| *name == lower) {
        let offset = if field.name == "month" { 1 } else { 0 };
        return Ok(at as u32 + offset);
    }
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        let names = if field.names.is_empty() {
            String::new()
        } else {
            format!(" or a name ({}…)", field.names[..3].join(", "))
        };
        return Err(format!(
            "has \"{}\", which is not a number{names}",
            short(text)
        ));
    }
    match text.parse::<u32>() {
        Ok(n) if (field.low..=field.high).contains(&n) => Ok(n),
        _ => Err(format!(
            "has {}, outside {}-{}",
            short(text),
            field.low,
            field.high
        )),
    }
}

impl Schedule {
    /// The `minutes` and `hours` (bit sets) of every day: the clock of a
    /// spec whose days a fix leaves as they are.
    pub fn every_day(minutes: u64, hours: u32) -> Self {
        Self {
            minutes,
            hours,
            days_of_month: u32::MAX << 1,
            months: 0x1ffe,
            days_of_week: u8::MAX >> 1,
            days: DayRule::Both,
        }
    }

    /// Whether the schedule fires on day number `days` (days since
    /// 1970-01-01), going by the day and month fields.
    pub fn fires_on_day(&self, days: i64) -> bool {
        let date = civil_from_days(days);
        if self.months & (1 << date.month) == 0 {
            return false;
        }
        let dom = self.days_of_month & (1 << date.day) != 0;
        let dow = self.days_of_week & (1 << weekday(days)) != 0;
        match self.days {
            DayRule::EitherWhenBothRestricted => dom || dow,
            DayRule::Both => dom && dow,
        }
    }

    /// Why no date ever matches, when none does: the day of month decides
    /// (the day of week is `*`, or must match too) and no month named has
    /// a day named, February taken at its 29 days. "February has no 30th".
    pub fn never_runs(&self) -> Option<String> {
        const LONGEST: [u32; 12] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
        const NAMES: [&str; 12] = [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ];
        if self.days != DayRule::Both {
            return None;
        }
        let months: Vec<usize> = (1..=12).filter(|m| self.months & (1 << m) != 0).collect();
        let first_day = self.days_of_month.trailing_zeros();
        if months.iter().any(|&m| first_day <= LONGEST[m - 1]) {
            return None;
        }
        let days: Vec<String> = (1..=31)
            .filter(|d| self.days_of_month & (1 << d) != 0)
            .map(ordinal)
            .collect();
        let names: Vec<&str> = months.iter().map(|&m| NAMES[m - 1]).collect();
        let verb = if names.len() == 1 { "has" } else { "have" };
        let months = match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => return Some("it names no month".into()),
        };
        Some(format!("{months} {verb} no {}", days.join(" or ")))
    }

    /// Every start in `[from, from + horizon)`, as Unix seconds, in order.
    /// `from` must have passed [`check_from`](crate::time::check_from).
    pub fn starts(&self, from: i64, horizon: Horizon) -> impl Iterator<Item = i64> + '_ {
        let end = from + horizon.in_seconds();
        let first_day = from.div_euclid(SECONDS_PER_DAY);
        let last_day = (end - 1).div_euclid(SECONDS_PER_DAY);
        let minutes = self.minutes;
        (first_day..=last_day)
            .filter(move |&days| self.fires_on_day(days))
            .flat_map(move |days| {
                bits(u64::from(self.hours)).flat_map(move |hour| {
                    bits(minutes).map(move |minute| {
                        days * SECONDS_PER_DAY + i64::from(hour) * 3600 + i64::from(minute) * 60
                    })
                })
            })
            .skip_while(move |&at| at < from)
            .take_while(move |&at| at < end)
    }
}

impl Schedule {
    /// Appends each start in `window`, in Unix microseconds, in order, as
    /// [`Schedule::starts`] yields them, while `out` holds fewer than
    /// `most`. Returns whether a start was left out because `out` was full.
    pub fn push_starts(&self, window: Window, out: &mut Vec<i64>, most: usize) -> bool {
        // The first and last whole seconds in the window.
        let from = window.from.div_euclid(MICROS_PER_SECOND)
            + i64::from(window.from.rem_euclid(MICROS_PER_SECOND) != 0);
        let end = (window.end - 1).div_euclid(MICROS_PER_SECOND) + 1;
        if end <= from {
            return false;
        }
        let first_day = from.div_euclid(SECONDS_PER_DAY);
        let last_day = (end - 1).div_euclid(SECONDS_PER_DAY);
        for days in (first_day..=last_day).filter(|&days| self.fires_on_day(days)) {
            for hour in bits(u64::from(self.hours)) {
                let hour_at = days * SECONDS_PER_DAY + i64::from(hour) * 3600;
                if hour_at + 3600 <= from {
                    continue;
                }
                for minute in bits(self.minutes) {
                    let at = hour_at + i64::from(minute) * 60;
                    if at < from {
                        continue;
                    }
                    if at >= end {
                        return false;
                    }
                    if out.len() >= most {
                        return true;
                    }
                    out.push(at * MICROS_PER_SECOND);
                }
            }
        }
        false
    }
}

/// The stream cronie's `RANDOM_DELAY` scale is drawn from: one draw a
/// seed, as the daemon draws one when it starts.
const DAEMON_START: Purpose = Purpose::new("fleet.cron.random_scale");

/// The most minutes cronie takes in `RANDOM_DELAY`: a day.
pub const MOST_RANDOM_DELAY_MINUTES: u32 = 24 * 60;

/// cronie's `RANDOM_DELAY=`: a job runs `⌊minutes × scale⌋` whole minutes
/// after each time it is due, where `scale` is `random() / 2^31`, drawn
/// once when the daemon starts and shared by every job it runs (cronie
/// 1.7.2: `RandomScale` in `src/cron.c`, `main`; `e->delay` in
/// `src/entry.c`, `load_entry`; `find_jobs` matches the job at the minute
/// `delay` minutes back). The scale here is drawn from the fleet's seed,
/// so every line of a fleet shares it as one daemon's jobs do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RandomDelay {
    /// `RANDOM_DELAY`, in minutes.
    pub most_minutes: u32,
    /// The daemon's scale, in [0, 1).
    pub scale: f64,
}

impl RandomDelay {
    /// Reads the `RANDOM_DELAY=` option, whole minutes from 0 to 1440, with
    /// the scale `seed` draws.
    pub fn read(minutes: &str, seed: u64) -> Result<Self, Refusal> {
        let most_minutes = minutes
            .parse()
            .ok()
            .filter(|&minutes| minutes <= MOST_RANDOM_DELAY_MINUTES)
            .ok_or_else(|| {
                Refusal::new(
                    "RANDOM_DELAY",
                    format!(
                        "\"{}\" is not whole minutes from 0 to {MOST_RANDOM_DELAY_MINUTES}",
                        stampede_core::field::shorten(minutes)
                    ),
                )
            })?;
        Ok(Self {
            most_minutes,
            scale: daemon_scale(seed),
        })
    }

    /// The delay a daemon started under `seed` draws.
    pub fn redrawn(self, seed: u64) -> Self {
        Self {
            scale: daemon_scale(seed),
            ..self
        }
    }

    /// Each start's delay in whole minutes, truncated as cronie's `(int)`
    /// cast truncates it.
    pub fn minutes(&self) -> i64 {
        (f64::from(self.most_minutes) * self.scale) as i64
    }
}

/// cronie's `RandomScale` for `seed`: 31 random bits, as `random()` gives,
/// over 2^31.
pub fn daemon_scale(seed: u64) -> f64 {
    let bits = seeded(seed, DAEMON_START).next_u32() >> 1;
    f64::from(bits) / f64::from(1u32 << 31)
}

/// The positions of the set bits of `set`, lowest first.
pub(crate) fn bits(mut set: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if set == 0 {
            return None;
        }
        let at = set.trailing_zeros();
        set &= set - 1;
        Some(at)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_ranges_and_names_fill_the_sets() {
        let schedule = parse("*/15 9-17/4 1,15 JAN-mar/2 mon-fri").unwrap();
        assert_eq!(schedule.minutes, 1 | 1 << 15 | 1 << 30 | 1 << 45);
        assert_eq!(schedule.hours, 1 << 9 | 1 << 13 | 1 << 17);
        assert_eq!(schedule.days_of_month, 1 << 1 | 1 << 15);
        assert_eq!(schedule.months, 1 << 1 | 1 << 3);
        assert_eq!(schedule.days_of_week, 0b011_1110);
        assert_eq!(schedule.days, DayRule::EitherWhenBothRestricted);
    }

    #[test]
    fn a_single_value_with_a_step_runs_to_the_end() {
        assert_eq!(parse("50/5 * * * *").unwrap().minutes, 1 << 50 | 1 << 55);
    }

    #[test]
    fn seven_is_sunday() {
        assert_eq!(parse("0 0 * * 5-7").unwrap().days_of_week, 0b110_0001);
    }

    #[test]
    fn a_day_field_starting_with_a_star_is_unrestricted() {
        assert_eq!(parse("0 0 */2 * 1").unwrap().days, DayRule::Both);
        assert_eq!(
            parse("0 0 1-31/2 * 1").unwrap().days,
            DayRule::EitherWhenBothRestricted
        );
    }

    #[test]
    fn refusals_name_the_field() {
        let field = |spec: &str| parse(spec).unwrap_err().field;
        assert_eq!(field("60 * * * *"), "minute");
        assert_eq!(field("0 24 * * *"), "hour");
        assert_eq!(field("0 0 0 * *"), "day of month");
        assert_eq!(field("0 0 * foo *"), "month");
        assert_eq!(field("0 0 * * 8"), "day of week");
        assert_eq!(field("0 0 * * 5-2"), "day of week");
        assert_eq!(field("*/0 * * * *"), "minute");
        assert_eq!(field("@reboot"), "spec");
        assert_eq!(field("* * * *"), "spec");
    }
}
