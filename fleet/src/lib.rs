//! Fleets: a reader's own schedules, each start placed as its real
//! scheduler places it.
//!
//! A fleet file ([`mod@file`]) lists schedules; [`expand`] turns each line's
//! spec into its starts over a horizon of at most 31 days and bins them by
//! minute: how many jobs start in each minute, how many run in each minute
//! (a run `[start, start + duration)` counts, times its weight, in every
//! minute it overlaps; a line without a duration counts in its start
//! minute only), the busiest minutes and how many starts share a minute.
//! Minute `i` is `[from + 60 i, from + 60 (i + 1))`. Starts are placed to
//! the microsecond ([`plan`]); minutes are the bins. Expansion stops at
//! [`MOST_STARTS`] starts, so no fleet can allocate without bound.
//!
//! The crate sits on `stampede-core` in two layers, as the core does:
//!
//! - **Models**, from the bottom: [`time`] (instants, windows, units and
//!   dates; it imports nothing else from the crate) and [`mod@line`] (a fleet
//!   line's types); the schedulers, each a module ([`apscheduler`], [`cron`], [`croniter`],
//!   [`jenkins`], [`puppet`], [`quartz`], [`spring`], [`systemd`], [`temporal`],
//!   [`eventbridge`], [`anacron`], [`sidekiq`],
//!   [`prometheus`], [`zoned`]); the dispatcher [`plan`] that reads a line by its system;
//!   the fleet file ([`mod@file`]) and the expansion here, with its range
//!   across draws of the delays some schedulers draw ([`chance`]); then the
//!   importers of native formats ([`import`]), the fix ([`fix`],
//!   [`level`]), what a small change moves ([`stability`]) and the link's
//!   fragment ([`link`]). A model never imports the panel.
//! - **The Fleet panel's run** ([`panel`]): its parameters are the core's
//!   (`stampede_core::panels::fleet`, read by the one URL codec); this
//!   layer reads, fixes and probes a fleet with them.

pub mod anacron;
pub mod apscheduler;
pub mod chance;
pub mod check;
pub mod cron;
pub mod croniter;
pub mod eventbridge;
pub mod file;
pub mod fix;
pub mod import;
pub mod jenkins;
pub mod level;
pub mod line;
pub mod link;
pub mod panel;
pub mod plan;
pub mod prometheus;
pub mod puppet;
pub mod quartz;
#[cfg(test)]
mod reference;
pub mod sidekiq;
pub mod span_cache;
pub mod spring;
pub mod stability;
pub mod systemd;
pub mod temporal;
pub mod time;
pub mod zoned;

use serde::Serialize;

use stampede_core::error::InvalidInput;

use self::cron::Horizon;
use self::file::FleetLine;
use self::plan::LinePlan;
use self::time::{MICROS_PER_MINUTE, MICROS_PER_SECOND, Window};

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
    /// Unix microseconds.
    pub at_micros: i64,
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
    /// The load across draws of the delays real schedulers draw at run
    /// time, when a line draws any: the figures above are one draw.
    /// [`expand_with_draws`] gives it; [`expand`] alone does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drawn: Option<chance::DrawnRange>,
}

/// Expands every line of a fleet over `[from, from + horizon)`, `from` in
/// Unix seconds. `seed` draws the delays a real scheduler draws at random.
pub fn expand(
    lines: &[FleetLine],
    from: i64,
    horizon: Horizon,
    seed: u64,
) -> Result<Expansion<'_>, InvalidInput> {
    Ok(expand_read(lines, from, horizon, seed)?.0)
}

/// [`expand`] with the range across draws of the delays drawn at run time
/// ([`chance::DrawnRange`]), taken from the same read of the lines: the
/// lines that draw nothing are neither read nor placed again.
pub fn expand_with_draws(
    lines: &[FleetLine],
    from: i64,
    horizon: Horizon,
    seed: u64,
) -> Result<Expansion<'_>, InvalidInput> {
    let (mut expansion, read) = expand_read(lines, from, horizon, seed)?;
    expansion.drawn = match read.stopped_at_line {
        None => chance::DrawnRange::from_read(lines, &read, from, horizon, seed),
        // Past the cap, the range counts the fixed lines, and each draw,
        // up to a cap of their own, which this read did not reach.
        Some(_) => chance::DrawnRange::of(lines, from, horizon, seed),
    };
    Ok(expansion)
}

/// [`expand`], and the read it was made from.
fn expand_read(
    lines: &[FleetLine],
    from: i64,
    horizon: Horizon,
    seed: u64,
) -> Result<(Expansion<'_>, ReadStarts), InvalidInput> {
    time::check_from(from)?;
    let minutes = horizon.in_minutes() as usize;
    let mut notices = Vec::new();
    let mut read = read_starts(lines, from, horizon, seed, &mut notices);
    if let Some(stopped) = read.stopped_at_line {
        notices.push(FleetNotice {
            line: stopped,
            message: format!(
                "the fleet reached {} starts here; this line and those after it are not counted in full",
                stampede_core::units::count(MOST_STARTS as u64)
            ),
        });
    }
    // Where each minute's starts begin in `starts`, and where the last ends.
    let mut first_of_minute = Vec::with_capacity(minutes + 1);
    first_of_minute.push(0);
    for &count in &read.tally.starts_per_minute {
        first_of_minute.push(first_of_minute.last().copied().unwrap_or(0) + count as usize);
    }
    let starts = place_starts(lines, &read, &first_of_minute);
    let starts_per_minute = std::mem::take(&mut read.tally.starts_per_minute);
    let running_per_minute = read
        .any_duration
        .then(|| running_sums(&read.tally.running_changes, minutes));
    let running_peak = running_per_minute
        .as_deref()
        .and_then(|running| running_peak(running, from));
    let crowded = crowded_minutes(&starts, &starts_per_minute, &first_of_minute, from);
    let expansion = Expansion {
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
        stopped_at_line: read.stopped_at_line,
        drawn: None,
    };
    Ok((expansion, read))
}

/// The starts of a fleet, line by line, before they are put in order.
struct ReadStarts {
    /// The horizon, in Unix microseconds, cut at the end of 9999.
    window: Window,
    /// Each expanded line's starts in Unix microseconds, in time order,
    /// lines one after another as the fleet lists them.
    starts: Vec<i64>,
    /// The lines with starts: the line's index in the fleet, and the end
    /// of its starts in `starts` (each begins where the one before ends).
    spans: Vec<(usize, usize)>,
    tally: Tally,
    any_duration: bool,
    stopped_at_line: Option<usize>,
    /// The lines that draw delays at run time, in fleet order, with their
    /// plans, which the draws redraw.
    drawing: Vec<chance::Drawing>,
}

/// Starts and runs counted by minute.
struct Tally {
    /// Runs begin (+weight) and end (−weight) by minute; a running sum
    /// turns these into jobs running per minute, one step per start
    /// whatever the duration.
    running_changes: Vec<f64>,
    starts_per_minute: Vec<u32>,
}

impl Tally {
    fn new(minutes: usize) -> Self {
        Self {
            running_changes: vec![0.0; minutes + 1],
            starts_per_minute: vec![0; minutes],
        }
    }

    /// Counts `starts`, `line`'s in Unix microseconds from `window_from`
    /// on, and their runs.
    fn count(&mut self, window_from: i64, line: &FleetLine, starts: &[i64]) {
        let minutes = self.starts_per_minute.len();
        let duration = line
            .options
            .duration_seconds
            .map(|seconds| seconds as i64 * MICROS_PER_SECOND);
        let weight = line.options.weight;
        for &at in starts {
            let since_from = at - window_from;
            let first = (since_from / MICROS_PER_MINUTE) as usize;
            // A run `[at, at + duration)` reaches into the minute holding
            // its last microsecond, and no further.
            let after_last = match duration {
                Some(duration) => ((since_from + duration - 1) / MICROS_PER_MINUTE + 1) as usize,
                None => first + 1,
            };
            self.starts_per_minute[first] += 1;
            self.running_changes[first] += weight;
            self.running_changes[after_last.min(minutes)] -= weight;
        }
    }
}

/// Every line's starts, up to [`MOST_STARTS`], with their runs added to
/// the running changes, and the plans of the lines that draw.
fn read_starts(
    lines: &[FleetLine],
    from: i64,
    horizon: Horizon,
    seed: u64,
    notices: &mut Vec<FleetNotice>,
) -> ReadStarts {
    let mut read = ReadStarts::new(from, horizon);
    let horizon_end = from + horizon.in_seconds();
    for (index, line) in lines.iter().enumerate() {
        let plan = match LinePlan::read(line, seed) {
            Ok(plan) => plan,
            Err(refusal) => {
                notices.push(FleetNotice {
                    line: line.line,
                    message: format!("not expanded: {}: {}", refusal.field, refusal.reason),
                });
                continue;
            }
        };
        let law = plan.drawn_delays();
        for message in [law.clone(), plan.assumption()].into_iter().flatten() {
            notices.push(FleetNotice {
                line: line.line,
                message,
            });
        }
        notices.extend(
            plan.zone_change_notices(read.window)
                .into_iter()
                .map(|message| FleetNotice {
                    line: line.line,
                    message,
                }),
        );
        let before = read.starts.len();
        let stopped = read.add(index, line, &plan);
        let starts = &read.starts[before..];
        notices.extend(placement_notices(&plan, line, starts, from, horizon_end));
        if stopped {
            break;
        }
        if let Some(law) = law {
            read.drawing.push(chance::Drawing { index, law, plan });
        }
    }
    read
}

impl ReadStarts {
    /// Nothing read yet over `[from, from + horizon)`.
    fn new(from: i64, horizon: Horizon) -> Self {
        let minutes = horizon.in_minutes() as usize;
        let horizon_end = from + horizon.in_seconds();
        // No start is placed after the year 9999, which RFC 3339 cannot write.
        let window = Window {
            from: from * MICROS_PER_SECOND,
            end: horizon_end.min(time::LATEST_FROM + 1) * MICROS_PER_SECOND,
        };
        Self {
            window,
            starts: Vec::new(),
            spans: Vec::new(),
            tally: Tally::new(minutes),
            any_duration: false,
            stopped_at_line: None,
            drawing: Vec::new(),
        }
    }

    /// Adds the starts `plan` places for `line`, the `index`-th of the
    /// fleet, and their runs. Returns whether [`MOST_STARTS`] stopped it.
    fn add(&mut self, index: usize, line: &FleetLine, plan: &LinePlan) -> bool {
        let before = self.starts.len();
        let stopped = plan.push_starts(self.window, &mut self.starts, MOST_STARTS);
        self.any_duration |= line.options.duration_seconds.is_some();
        self.tally
            .count(self.window.from, line, &self.starts[before..]);
        if self.starts.len() > before {
            self.spans.push((index, self.starts.len()));
        }
        if stopped {
            self.stopped_at_line = Some(line.line);
        }
        stopped
    }
}

/// What a line's starts, `starts`, do not show exactly: that it never
/// runs or stops, a systemd timer's accuracy, and a horizon past where its
/// scheduler searches.
fn placement_notices(
    plan: &LinePlan,
    fleet_line: &FleetLine,
    starts: &[i64],
    from: i64,
    horizon_end: i64,
) -> Vec<FleetNotice> {
    let line = fleet_line.line;
    let mut notices = Vec::new();
    // Only a line with no start here is searched, so a fleet that runs
    // costs nothing more.
    if let Some(why) = starts.is_empty().then(|| plan.never_runs(from)).flatten() {
        let spec = stampede_core::field::shorten(fleet_line.spec.trim());
        notices.push(FleetNotice {
            line,
            message: format!("\"{spec}\" never runs: {why}"),
        });
    }
    if let Some(message) = plan.stops_searching(starts) {
        notices.push(FleetNotice { line, message });
    }
    let searched = plan.last_searched();
    let last_searched = searched.map_or(time::LATEST_FROM, |(at, _)| at);
    if horizon_end > last_searched + 1 {
        let system = searched.map(|(_, system)| system);
        notices.push(FleetNotice {
            line,
            message: search_stopped(system, last_searched, starts.iter().max().copied()),
        });
    }
    if let Some(span) = starts.first().and_then(|&start| plan.start_window(start)) {
        notices.push(FleetNotice {
            line,
            message: format!(
                "each start is shown at its earliest: systemd wakes the timer at a second \
                 fixed per boot within the next {} (AccuracySec=); give BootID= for that second",
                stampede_core::units::duration(
                    (span.end - span.from) as f64 / MICROS_PER_SECOND as f64
                )
            ),
        });
    }
    notices
}

/// Why a line shows no start past `last_searched`, and its last one.
fn search_stopped(system: Option<&str>, last_searched: i64, last: Option<i64>) -> String {
    let until = time::format(last_searched);
    let stops = match system {
        Some(system) => format!("{system} places no start after {until}"),
        None => format!("no start is placed after {until}, the last second RFC 3339 writes"),
    };
    let last = match last {
        Some(at) => format!("its last start is {}", time::format_micros(at)),
        None => "it has no start within the horizon before then".into(),
    };
    format!("{stops}, and the horizon runs past it: {last}")
}

/// The starts by time then line (lines with the same number in fleet
/// order): a counting sort by minute, filled line by line, then each
/// minute put in time order, which keeps that line order among equal
/// times. Cron-like lines start on the minute, so most minutes are in
/// order already.
///
/// The sort moves one `u64` a start, the line's place among the spans
/// above the start's microsecond within its minute, and the starts are
/// built in order from it: far less memory to scatter than whole starts.
fn place_starts<'a>(
    lines: &'a [FleetLine],
    read: &ReadStarts,
    first_of_minute: &[usize],
) -> Vec<Start<'a>> {
    let mut spans: Vec<(usize, usize, usize)> = read
        .spans
        .iter()
        .scan(0, |begin, &(index, end)| {
            let span = (index, *begin, end);
            *begin = end;
            Some(span)
        })
        .collect();
    // Stable, so lines with the same number keep their fleet order.
    if !spans.is_sorted_by_key(|span| lines[span.0].line) {
        spans.sort_by_key(|span| lines[span.0].line);
    }
    let from = read.window.from;
    let mut next = first_of_minute.to_vec();
    let mut packed = vec![0u64; read.starts.len()];
    for (owner, &(_, begin, end)) in spans.iter().enumerate() {
        for &at_micros in &read.starts[begin..end] {
            let since_from = at_micros - from;
            let slot = &mut next[(since_from / MICROS_PER_MINUTE) as usize];
            packed[*slot] = (owner as u64) << 32 | (since_from % MICROS_PER_MINUTE) as u64;
            *slot += 1;
        }
    }
    let within_minute = |packed: &u64| *packed as u32;
    let owners: Vec<(usize, &str)> = spans
        .iter()
        .map(|span| (lines[span.0].line, lines[span.0].id.as_str()))
        .collect();
    let mut starts = Vec::with_capacity(packed.len());
    for (minute, bounds) in first_of_minute.windows(2).enumerate() {
        let in_minute = &mut packed[bounds[0]..bounds[1]];
        if !in_minute.is_sorted_by_key(within_minute) {
            in_minute.sort_by_key(within_minute);
        }
        let minute_from = from + minute as i64 * MICROS_PER_MINUTE;
        starts.extend(in_minute.iter().map(|&packed| {
            let (line, id) = owners[(packed >> 32) as usize];
            Start {
                line,
                id,
                at_micros: minute_from + i64::from(within_minute(&packed)),
            }
        }));
    }
    starts
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

/// The minutes with the most starts, each with its jobs.
fn crowded_minutes<'a>(
    starts: &[Start<'a>],
    starts_per_minute: &[u32],
    first_of_minute: &[usize],
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
            let first = first_of_minute[minute as usize];
            let last = first_of_minute[minute as usize + 1];
            BusyMinute {
                minute,
                at,
                starts: starts_per_minute[minute as usize],
                jobs: starts[first..last].to_vec(),
            }
        })
        .collect()
}
