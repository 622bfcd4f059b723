//! One line's plan: its spec and options read once, by its system's rules,
//! into something that lists its starts over any window.
//!
//! Every system answers the same two questions: which option keys does a
//! line of it read ([`option_keys`]), and where does each start of a line
//! fall ([`LinePlan::push_starts`]). Starts are Unix microseconds, the
//! finest step any of the schedulers here places a start at.

use super::file::{FleetLine, Refusal, System};
use super::{cron, croniter, jenkins, temporal};

/// Microseconds in a second.
pub const MICROS_PER_SECOND: i64 = 1_000_000;

/// A half-open span `[from, end)` of Unix microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub from: i64,
    pub end: i64,
}

/// A line read into the schedule its system places its starts by.
#[derive(Clone, Debug, PartialEq)]
pub enum LinePlan {
    /// Cron, Jenkins and croniter lines: minutes of the UTC calendar.
    Minutes(cron::Schedule),
    /// Temporal lines: interval or calendar times, each delayed by its
    /// hashed jitter.
    Temporal(temporal::TemporalSchedule),
}

/// The option keys lines of `system` read, besides `Duration` and `Weight`.
pub fn option_keys(system: System) -> &'static [&'static str] {
    match system {
        System::Cron => &["TZ"],
        System::Temporal => &["Jitter", "Namespace"],
        _ => &[],
    }
}

impl LinePlan {
    /// Reads `line` by its system's rules. `seed` draws the delays a real
    /// scheduler would draw at random.
    pub fn read(line: &FleetLine, _seed: u64) -> Result<Self, Refusal> {
        let spec = |refusal: crate::error::InvalidInput| Refusal::new("spec", refusal.to_string());
        match line.system {
            System::Cron => {
                only_utc(line)?;
                cron::parse(&line.spec).map(Self::Minutes).map_err(spec)
            }
            // Jenkins hashes the job's full name into its `H` fields.
            System::Jenkins => jenkins::schedule(&line.id, &line.spec)
                .map(Self::Minutes)
                .map_err(spec),
            // croniter hashes the id given as `hash_id` into its `H` fields.
            System::Croniter => croniter::schedule(&line.id, &line.spec)
                .map(Self::Minutes)
                .map_err(spec),
            System::Temporal => temporal::TemporalSchedule::read(
                &line.id,
                &line.spec,
                line.options.own("Jitter"),
                line.options.own("Namespace"),
            )
            .map(Self::Temporal),
            other => Err(Refusal::new(
                "system",
                format!("{} lines are not expanded yet", other.slug()),
            )),
        }
    }

    /// Appends each start in `window`, in order, while `out` holds fewer
    /// than `most`. Returns whether a start was left out because `out` was
    /// full.
    pub fn push_starts(&self, window: Window, out: &mut Vec<i64>, most: usize) -> bool {
        match self {
            Self::Minutes(schedule) => schedule.push_starts(window, out, most),
            Self::Temporal(schedule) => schedule.push_starts(window, out, most),
        }
    }
}

fn only_utc(line: &FleetLine) -> Result<(), Refusal> {
    match line.options.own("TZ") {
        None | Some("UTC" | "Etc/UTC") => Ok(()),
        Some(zone) => Err(Refusal::new(
            "TZ",
            format!(
                "\"{}\": time zones other than UTC are not read yet",
                crate::field::shorten(zone)
            ),
        )),
    }
}
