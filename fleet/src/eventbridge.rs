//! AWS EventBridge Scheduler: `cron(...)` and `rate(...)` schedules,
//! each invocation somewhere in a window after its time.
//!
//! EventBridge Scheduler is closed source, so this follows its documented
//! rules (the Scheduler User Guide's "Schedule types" and "Configuring
//! flexible time windows", and the API's `FlexibleTimeWindow`), and no
//! vectors from the real service check it:
//!
//! - `cron(minutes hours day-of-month month day-of-week year)`: six
//!   fields, with `?`, `L`, `W` and `#`, days of the week 1 (SUN) to 7
//!   (SAT), and one of the day fields `?`. These are Quartz's rules, so
//!   the times are Quartz's ([`crate::quartz`]) at second 0. In a zone
//!   (`Zone=`, the schedule's `ScheduleExpressionTimezone`), a time the
//!   clocks skip is not invoked, and a time they repeat is invoked once.
//! - `rate(value unit)`, unit `minutes`, `hours` or `days` (or one of
//!   them, for a value of 1): every `value` units from `Start=` (the
//!   schedule's `StartDate`), a day being 24 hours whatever the zone.
//!   Without a start date AWS counts from the schedule's creation, which
//!   a fleet line does not know; the steps are then counted from
//!   1970-01-01 00:00 UTC, and a notice says so.
//! - Invocation: within the minute of its time ("60 second precision")
//!   with the window `OFF`, or within the `MaximumWindowInMinutes` after
//!   it (`Window=`, 1 to 1,440) with `FLEXIBLE`. AWS does not say how it
//!   picks the moment in the window; each start here is drawn uniformly
//!   within it from the seed, one stream per schedule name, and the page shows the
//!   spread of such draws ([`crate::chance`]) beside the one it draws.

use std::sync::Arc;

use jiff::tz::TimeZone;
use rand::RngExt;
use stampede_core::field::shorten;
use stampede_core::rng::{Purpose, seeded};

use crate::cron::Schedule;
use crate::line::{FleetLine, Refusal};
use crate::quartz::{self, QuartzCron};
use crate::time::{MICROS_PER_MINUTE, MICROS_PER_SECOND, UTC_NAMES, Window};
use crate::zoned;

/// The option keys an `eventbridge` line reads.
pub const OPTION_KEYS: [&str; 3] = ["Zone", "Window", "Start"];

/// The longest flexible window AWS takes, in minutes.
pub const MOST_WINDOW_MINUTES: u32 = 1440;

/// The stream family the moments within each window are drawn from.
const WINDOW_DRAWS: Purpose = Purpose::new("fleet.eventbridge.window");

/// What a schedule's expression asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Expression {
    /// A `cron(...)` expression, as Quartz reads it with second 0; shared,
    /// so the schedule redrawn under other seeds does not copy it.
    Cron(Arc<QuartzCron>),
    /// A `rate(...)` expression: every `every` microseconds from `start`.
    Rate { every: i64, start: Option<i64> },
}

/// A schedule read from an `eventbridge` line.
#[derive(Clone, Debug, PartialEq)]
pub struct EventBridgeSchedule {
    pub expression: Expression,
    /// The zone a cron expression is read in; `None` for UTC.
    zone: Option<TimeZone>,
    /// The flexible window in minutes; `None` when it is `OFF`.
    pub window_minutes: Option<u32>,
    seed: u64,
    /// The stream of the line's draws: its id's hash, so a line drawn
    /// again after lines above it moved draws the same.
    stream: u64,
}

impl EventBridgeSchedule {
    /// Reads `line`'s expression and options; `seed` draws each start's
    /// moment within its window.
    pub fn read(line: &FleetLine, seed: u64) -> Result<Self, Refusal> {
        let spec = line.spec.trim();
        let zone = match line.options.own("Zone") {
            Some(name) if !UTC_NAMES.contains(&name) => Some(zoned::time_zone(name, "Zone")?),
            _ => None,
        };
        let start = line
            .options
            .own("Start")
            .map(|text| {
                crate::time::parse("Start", text)
                    .map(|at| at * MICROS_PER_SECOND)
                    .map_err(|e| Refusal::new("Start", e.reason))
            })
            .transpose()?;
        let expression = if let Some(fields) = inside(spec, "cron") {
            let cron = read_cron(fields)?;
            Expression::Cron(Arc::new(match &zone {
                Some(zone) => cron.in_zone(zone.clone()),
                None => cron,
            }))
        } else if let Some(rate) = inside(spec, "rate") {
            Expression::Rate {
                every: read_rate(rate)?,
                start,
            }
        } else {
            return Err(Refusal::new(
                "spec",
                format!(
                    "\"{}\" is not cron(...) or rate(...), the recurring expressions EventBridge Scheduler takes",
                    shorten(spec)
                ),
            ));
        };
        Ok(Self {
            expression,
            zone,
            window_minutes: line.options.own("Window").map(read_window).transpose()?,
            seed,
            stream: stampede_core::hash::fnv1a_64(line.id.as_bytes()),
        })
    }

    /// The schedule with the moments in its windows drawn from `seed`.
    pub fn redrawn(&self, seed: u64) -> Self {
        Self {
            seed,
            ..self.clone()
        }
    }

    /// How long after its time a start may fall, in microseconds.
    pub fn spread(&self) -> i64 {
        i64::from(self.window_minutes.unwrap_or(1)) * MICROS_PER_MINUTE
    }

    /// The law each start's moment is drawn from, in words.
    pub fn law(&self) -> String {
        let window = match self.window_minutes {
            Some(minutes) => {
                format!("within the {minutes} min after its time (FlexibleTimeWindow)")
            }
            None => "within the minute of its time (60 s precision, the window OFF)".into(),
        };
        format!(
            "each start falls {window}; AWS does not say how it picks the moment, so it is \
             drawn here uniformly from the seed"
        )
    }

    /// Appends each start in `window`, in order, while `out` holds fewer
    /// than `most`. Returns whether a start was left out because `out`
    /// was full.
    pub fn push_starts(&self, window: Window, out: &mut Vec<i64>, most: usize) -> bool {
        let spread = self.spread();
        // Times up to a window before the first start may land in it.
        let due = Window {
            from: window.from - spread + 1,
            end: window.end,
        };
        let mut times = Vec::new();
        match &self.expression {
            Expression::Cron(cron) => {
                cron.push_starts(due, &mut times, usize::MAX);
                if let Some(zone) = &self.zone {
                    let clock = cron.clock();
                    times.retain(|&at| on_the_clock(&clock, zone, at));
                }
            }
            Expression::Rate { every, start } => {
                let anchor = start.unwrap_or(0);
                let steps = (due.from - anchor).div_euclid(*every);
                let mut at = anchor + steps.max(0) * every;
                while at < due.end {
                    if at >= due.from {
                        times.push(at);
                    }
                    at += every;
                }
            }
        }
        let mut draws = seeded(self.seed, WINDOW_DRAWS.indexed(self.stream));
        let before = out.len();
        out.extend(times.into_iter().filter_map(|at| {
            let moment = at + draws.random_range(0..spread);
            (window.from <= moment && moment < window.end).then_some(moment)
        }));
        out[before..].sort_unstable();
        let full = out.len() > most;
        out.truncate(most.max(before));
        full
    }

    /// Why the schedule never runs from Unix second `after` on, when it
    /// never does.
    pub fn never_runs(&self, after: i64) -> Option<String> {
        match &self.expression {
            Expression::Cron(cron) => cron.never_runs(after),
            Expression::Rate { .. } => None,
        }
    }

    /// The minutes and hours a cron expression fires at, for the fix;
    /// `None` for a rate.
    pub fn clock(&self) -> Option<Schedule> {
        match &self.expression {
            Expression::Cron(cron) => Some(cron.clock()),
            Expression::Rate { .. } => None,
        }
    }

    /// What the placement takes for granted: a rate's start, without a
    /// start date.
    pub fn assumption(&self) -> Option<String> {
        matches!(self.expression, Expression::Rate { start: None, .. }).then(|| {
            "AWS counts a rate from when the schedule is created; give Start= (its StartDate) \
             to place it, else its steps are counted from 1970-01-01 00:00 UTC"
                .into()
        })
    }
}

/// The text inside `name(...)`, when `spec` is that.
fn inside<'a>(spec: &'a str, name: &str) -> Option<&'a str> {
    spec.strip_prefix(name)?
        .trim_start()
        .strip_prefix('(')?
        .strip_suffix(')')
}

/// A `cron(...)` expression's six fields, read by Quartz's rules at second
/// 0.
fn read_cron(fields: &str) -> Result<QuartzCron, Refusal> {
    let words: Vec<&str> = fields.split_whitespace().collect();
    let count = words.len();
    if count == 6 && (words[2] == "?") == (words[4] == "?") {
        return Err(Refusal::new(
            "spec",
            format!(
                "cron({}): give the days in one of day-of-month and day-of-week and ? in the other, as EventBridge requires",
                shorten(fields)
            ),
        ));
    }
    if count != 6 {
        return Err(Refusal::new(
            "spec",
            format!(
                "cron() takes 6 fields (minutes hours day-of-month month day-of-week year), not {count}"
            ),
        ));
    }
    quartz::read(&format!("0 {fields}")).map_err(|refusal| {
        Refusal::new(
            "spec",
            format!("cron({}): {}", shorten(fields), refusal.reason),
        )
    })
}

/// A `rate(value unit)` expression's step in microseconds.
fn read_rate(rate: &str) -> Result<i64, Refusal> {
    let refused = |why: String| Refusal::new("spec", format!("rate({}): {why}", shorten(rate)));
    let words: Vec<&str> = rate.split_whitespace().collect();
    let [value, unit] = words[..] else {
        return Err(refused(
            "expected a value and a unit, such as rate(5 minutes)".into(),
        ));
    };
    let value: i64 = value
        .parse()
        .ok()
        .filter(|&value| (1..=1_000_000).contains(&value))
        .ok_or_else(|| refused(format!("\"{value}\" is not a whole number from 1")))?;
    let unit_micros = match unit.trim_end_matches('s') {
        "minute" => MICROS_PER_MINUTE,
        "hour" => 60 * MICROS_PER_MINUTE,
        "day" => 1440 * MICROS_PER_MINUTE,
        _ => {
            return Err(refused(format!("\"{unit}\" is not minutes, hours or days")));
        }
    };
    Ok(value * unit_micros)
}

/// A `Window=` value: whole minutes from 1 to [`MOST_WINDOW_MINUTES`].
fn read_window(text: &str) -> Result<u32, Refusal> {
    text.trim()
        .parse()
        .ok()
        .filter(|minutes| (1..=MOST_WINDOW_MINUTES).contains(minutes))
        .ok_or_else(|| {
            Refusal::new(
                "Window",
                format!(
                    "\"{}\" is not whole minutes from 1 to {MOST_WINDOW_MINUTES} (MaximumWindowInMinutes)",
                    shorten(text)
                ),
            )
        })
}

/// Whether a time Quartz gives in `zone` is one the expression's clock
/// fields name there: a time the clocks skip comes back an hour later,
/// which EventBridge does not invoke.
fn on_the_clock(clock: &Schedule, zone: &TimeZone, at_micros: i64) -> bool {
    let Ok(instant) = jiff::Timestamp::from_microsecond(at_micros) else {
        return false;
    };
    let wall = instant.to_zoned(zone.clone());
    clock.minutes >> wall.minute() & 1 == 1 && clock.hours >> wall.hour() & 1 == 1
}
