//! Fleets: a reader's own schedules, each start placed as its real
//! scheduler places it.
//!
//! A fleet file ([`mod@file`]) lists schedules; [`expand`] turns each line's
//! spec into its starts over a horizon of at most 31 days and bins them by
//! minute: how many jobs start in each minute, how many run in each minute
//! (a run `[start, start + duration)` counts, times its weight, in every
//! minute it overlaps; a line without a duration counts in its start
//! minute only), the busiest minutes and how many starts share a minute.
//! Minute `i` is `[from + 60 i, from + 60 (i + 1))`. Expansion stops at
//! [`MOST_STARTS`] starts, so no fleet can allocate without bound.

pub mod civil;
pub mod cron;
pub mod file;
pub mod instant;
pub mod jenkins;

use serde::Serialize;

use crate::error::InvalidInput;

use self::cron::Horizon;
use self::file::{FleetLine, System};

/// The most starts an expansion holds: 2,000,000 (64 MB of starts).
/// `* * * * *` on 10,000 lines over 31 days would be 446 million.
pub const MOST_STARTS: usize = 2_000_000;

/// How many of the most crowded minutes an expansion lists.
pub const CROWDED_MINUTES: usize = 10;

/// One start of one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Start<'a> {
    /// The line of the fleet file the job is on.
    pub line: usize,
    pub id: &'a str,
    /// Unix seconds.
    pub at: i64,
}

/// A minute of the horizon and the jobs that start in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BusyMinute<'a> {
    /// Minutes since `from`.
    pub minute: u32,
    /// Where the minute begins, in Unix seconds.
    pub at: i64,
    pub starts: u32,
    /// The starts in the minute, by time then line.
    pub jobs: Vec<Start<'a>>,
}

/// The minute with the most jobs running.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RunningPeak {
    pub minute: u32,
    pub at: i64,
    /// The sum of the weights of the jobs running in that minute.
    pub running: f64,
}

/// How many starts land in a minute another start lands in too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SharedStarts {
    /// Minutes with more than one start.
    pub minutes: u32,
    /// Starts in those minutes.
    pub starts: u64,
    /// The most starts in any one minute.
    pub most_in_a_minute: u32,
}

/// Something about a line the expansion did not count in full.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FleetNotice {
    pub line: usize,
    pub message: String,
}

/// A fleet's starts over a horizon, and the load they make.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Expansion<'a> {
    pub from: i64,
    pub horizon_minutes: u32,
    /// Every start, by time then line.
    pub starts: Vec<Start<'a>>,
    /// Starts in each minute of the horizon.
    pub starts_per_minute: Vec<u32>,
    /// Weighted jobs running in each minute; `None` when no expanded line
    /// gives a duration.
    pub running_per_minute: Option<Vec<f64>>,
    pub running_peak: Option<RunningPeak>,
    /// The minute with the most starts (the earliest of a tie).
    pub peak: Option<BusyMinute<'a>>,
    pub shared: SharedStarts,
    /// Up to [`CROWDED_MINUTES`] minutes with the most starts, busiest
    /// first, then earliest.
    pub crowded: Vec<BusyMinute<'a>>,
    /// Lines not expanded, or not in full, once each.
    pub notices: Vec<FleetNotice>,
    /// The line at which [`MOST_STARTS`] was reached, when it was.
    pub stopped_at_line: Option<usize>,
}

/// Expands every line of a fleet over `[from, from + horizon)`.
pub fn expand(
    lines: &[FleetLine],
    from: i64,
    horizon: Horizon,
) -> Result<Expansion<'_>, InvalidInput> {
    cron::check_from(from)?;
    let minutes = horizon.in_minutes() as usize;
    let mut starts = Vec::new();
    let mut notices = Vec::new();
    let mut stopped_at_line = None;
    // Runs begin (+weight) and end (−weight) by minute; a running sum turns
    // these into jobs running per minute, one step per start whatever the
    // duration.
    let mut running_changes = vec![0.0f64; minutes + 1];
    let mut any_duration = false;
    for line in lines {
        let Some(schedule) = schedule_of(line, &mut notices) else {
            continue;
        };
        let before = starts.len();
        for at in schedule.starts(from, horizon) {
            if starts.len() == MOST_STARTS {
                stopped_at_line = Some(line.line);
                break;
            }
            starts.push(Start {
                line: line.line,
                id: &line.id,
                at,
            });
        }
        any_duration |= line.options.duration_seconds.is_some();
        for start in &starts[before..] {
            add_run(&mut running_changes, from, start.at, line);
        }
        if let Some(stopped) = stopped_at_line {
            notices.push(FleetNotice {
                line: stopped,
                message: format!(
                    "the fleet reached {} starts here; this line and those after it are not counted in full",
                    crate::units::count(MOST_STARTS as u64)
                ),
            });
            break;
        }
    }
    starts.sort_unstable_by_key(|start| (start.at, start.line));
    let starts_per_minute = bin_starts(&starts, from, minutes);
    let running_per_minute = any_duration.then(|| running_sums(&running_changes, minutes));
    let running_peak = running_per_minute
        .as_deref()
        .and_then(|running| running_peak(running, from));
    let crowded = crowded_minutes(&starts, &starts_per_minute, from);
    Ok(Expansion {
        from,
        horizon_minutes: horizon.in_minutes(),
        shared: shared_starts(&starts_per_minute),
        peak: crowded.first().cloned(),
        crowded,
        starts,
        starts_per_minute,
        running_per_minute,
        running_peak,
        notices,
        stopped_at_line,
    })
}

/// The schedule of `line`, or `None` with a notice saying why it has none.
fn schedule_of(line: &FleetLine, notices: &mut Vec<FleetNotice>) -> Option<cron::Schedule> {
    let refusal = match line.system {
        System::Cron => match line.options.time_zone.as_deref() {
            None | Some("UTC" | "Etc/UTC") => match cron::parse(&line.spec) {
                Ok(schedule) => return Some(schedule),
                Err(refusal) => format!("not expanded: {refusal}"),
            },
            Some(_) => "not expanded: time zones other than UTC are not read yet".to_string(),
        },
        // Jenkins hashes the job's full name into its `H` fields.
        System::Jenkins => match jenkins::schedule(&line.id, &line.spec) {
            Ok(schedule) => return Some(schedule),
            Err(refusal) => format!("not expanded: {refusal}"),
        },
        other => format!("{} lines are not expanded yet", other.slug()),
    };
    notices.push(FleetNotice {
        line: line.line,
        message: refusal,
    });
    None
}

/// Adds the run of `line` starting `at` to the per-minute changes.
fn add_run(changes: &mut [f64], from: i64, at: i64, line: &FleetLine) {
    let minutes = changes.len() as i64 - 1;
    let first = (at - from) / 60;
    let last = match line.options.duration_seconds {
        // The minute after the last one the run overlaps: ⌈(end − from) / 60⌉.
        Some(duration) => (at + duration as i64 - from + 59) / 60,
        None => first + 1,
    };
    changes[first as usize] += line.options.weight;
    changes[last.min(minutes) as usize] -= line.options.weight;
}

fn running_sums(changes: &[f64], minutes: usize) -> Vec<f64> {
    let mut running = 0.0;
    changes[..minutes]
        .iter()
        .map(|change| {
            running += change;
            running
        })
        .collect()
}

fn running_peak(running: &[f64], from: i64) -> Option<RunningPeak> {
    let (minute, &most) = running
        .iter()
        .enumerate()
        // The earliest of equal peaks: `max_by` keeps the last, so compare
        // reversed positions on ties.
        .max_by(|(a, x), (b, y)| x.total_cmp(y).then(b.cmp(a)))?;
    (most > 0.0).then(|| RunningPeak {
        minute: minute as u32,
        at: from + 60 * minute as i64,
        running: most,
    })
}

fn bin_starts(starts: &[Start<'_>], from: i64, minutes: usize) -> Vec<u32> {
    let mut bins = vec![0u32; minutes];
    for start in starts {
        bins[((start.at - from) / 60) as usize] += 1;
    }
    bins
}

fn shared_starts(starts_per_minute: &[u32]) -> SharedStarts {
    let mut shared = SharedStarts::default();
    for &count in starts_per_minute {
        shared.most_in_a_minute = shared.most_in_a_minute.max(count);
        if count > 1 {
            shared.minutes += 1;
            shared.starts += u64::from(count);
        }
    }
    shared
}

/// The minutes with the most starts, each with its jobs (found by binary
/// search in the sorted starts).
fn crowded_minutes<'a>(
    starts: &[Start<'a>],
    starts_per_minute: &[u32],
    from: i64,
) -> Vec<BusyMinute<'a>> {
    let mut order: Vec<u32> = (0..starts_per_minute.len() as u32)
        .filter(|&minute| starts_per_minute[minute as usize] > 0)
        .collect();
    order.sort_unstable_by_key(|&minute| {
        (
            std::cmp::Reverse(starts_per_minute[minute as usize]),
            minute,
        )
    });
    order
        .into_iter()
        .take(CROWDED_MINUTES)
        .map(|minute| {
            let at = from + 60 * i64::from(minute);
            let first = starts.partition_point(|start| start.at < at);
            let last = starts.partition_point(|start| start.at < at + 60);
            BusyMinute {
                minute,
                at,
                starts: starts_per_minute[minute as usize],
                jobs: starts[first..last].to_vec(),
            }
        })
        .collect()
}
