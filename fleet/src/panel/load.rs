//! A fleet's expansion over the week, turned into the owned [`WeekLoad`]
//! the page draws: counts per minute and second, and the jobs named in each
//! heatmap cell.
//!
//! The expansion's starts come sorted by time, so every minute's starts,
//! and every hour's, lie next to each other: one pass over them fills the
//! busiest second of each minute and both grids of named jobs, with one
//! counter per job reused from cell to cell, and no allocation per start.

use serde::{Deserialize, Serialize};
use stampede_core::panels::fleet::CapacityUnit;
use stampede_core::replication::PercentileBand;

use crate::Expansion;
use crate::chance::DrawnRange;
use crate::line::FleetLine;
use crate::time::MICROS_PER_SECOND;

/// Minutes in the panel's horizon: one week.
pub const WEEK_MINUTES: u32 = 7 * 24 * 60;
/// How many jobs a heatmap cell names, the most starts first.
pub const NAMED_PER_CELL: usize = 3;

/// The jobs named in each cell of a grid: cell `c`'s are
/// `jobs[first[c]..first[c + 1]]` with their starts in the cell beside
/// them, the most starts first (then fleet order), at most
/// [`NAMED_PER_CELL`]; `distinct[c]` counts every job starting in it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CellJobs {
    pub first: Vec<u32>,
    /// Indices into [`FleetRead::jobs`](super::FleetRead::jobs).
    pub jobs: Vec<u32>,
    pub starts: Vec<u32>,
    pub distinct: Vec<u32>,
}

/// A fleet's load over the week, minute by minute.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WeekLoad {
    /// Starts in each minute of the week ([`WEEK_MINUTES`] of them).
    pub starts: Vec<u32>,
    /// Weighted jobs running in each minute; `None` when no line gives a
    /// `Duration=` (each job then counts in its start minute only).
    pub running: Option<Vec<f64>>,
    /// The most starts within one second `[k, k + 1)` of each minute.
    pub busiest_second: Vec<u32>,
    /// The jobs starting in each minute of the week.
    pub by_minute: CellJobs,
    /// The jobs starting in each hour of the week (168 cells).
    pub by_hour: CellJobs,
    pub total_starts: u64,
    /// The minute with the most starts (the earliest of a tie).
    pub peak_minute: Option<u32>,
    /// The most starts in any one minute.
    pub peak_starts: u32,
    /// Minutes with more than one start, and the starts in them.
    pub shared_minutes: u32,
    pub shared_starts: u64,
    /// The most starts within any one second of the week.
    pub peak_second_starts: u32,
    /// The 99th percentile (type 7) of `running`, when there is one.
    pub running_p99: Option<f64>,
    pub running_peak: Option<f64>,
    /// The line at which expansion stopped at its limit, when it did.
    pub stopped_at_line: Option<u32>,
    /// The load across draws of the delays real schedulers draw at run
    /// time, when a line draws any: the figures above are one draw.
    pub drawn: Option<DrawnRange>,
}

/// The load a capacity is held against, minute by minute, as its unit
/// counts it: jobs running for workers (starts, when no line gives a
/// duration, each job then running in its start minute), or the busiest
/// second's starts for requests a second.
pub struct CapacityLoad {
    pub per_minute: Vec<f64>,
    /// What a value counts, such as "jobs running".
    pub what: &'static str,
    /// How a minute is judged over the capacity.
    pub formula: &'static str,
}

impl WeekLoad {
    /// How many minutes of the week are over `capacity` as `unit` counts
    /// them, and the worst of them (the earliest of a tie).
    pub fn minutes_over(&self, capacity: u32, unit: CapacityUnit) -> (usize, Option<usize>) {
        let load = self.against(unit);
        let capacity = f64::from(capacity);
        let mut over = 0;
        let mut worst: Option<usize> = None;
        for (minute, &value) in load.per_minute.iter().enumerate() {
            if value > capacity {
                over += 1;
                if worst.is_none_or(|worst| value > load.per_minute[worst]) {
                    worst = Some(minute);
                }
            }
        }
        (over, worst)
    }

    /// The spread across draws of the load `unit` counts, when the fleet
    /// draws random delays; none for requests a second, which only the
    /// shown draw counts.
    pub fn drawn_band(&self, unit: CapacityUnit) -> Option<&PercentileBand> {
        let drawn = self.drawn.as_ref()?;
        match (unit, &drawn.running) {
            (CapacityUnit::Workers, Some(running)) if self.running.is_some() => Some(running),
            (CapacityUnit::Workers, _) => Some(&drawn.starts),
            (CapacityUnit::PerSecond, _) => None,
        }
    }

    pub fn against(&self, unit: CapacityUnit) -> CapacityLoad {
        let counts = |values: &[u32]| values.iter().map(|&n| f64::from(n)).collect();
        let (per_minute, what, formula) = match (unit, &self.running) {
            (CapacityUnit::Workers, Some(running)) => (
                running.clone(),
                "jobs running",
                "minutes with more weighted jobs running than the workers",
            ),
            (CapacityUnit::Workers, None) => (
                counts(&self.starts),
                "starts (no Duration= given)",
                "minutes with more starts than the workers (no Duration=: a job runs in its start minute)",
            ),
            (CapacityUnit::PerSecond, _) => (
                counts(&self.busiest_second),
                "starts in the busiest second",
                "minutes whose busiest second has more starts than the requests a second",
            ),
        };
        CapacityLoad {
            per_minute,
            what,
            formula,
        }
    }
}

/// Each line number's job: the first job read from that line, as an index
/// into the fleet's lines. Jobs one native line gives (a timer on several
/// machines) share it, so a cell names the first of them.
pub(super) struct JobsByLine(Vec<u32>);

impl JobsByLine {
    pub(super) fn new(lines: &[FleetLine]) -> Self {
        let last = lines.iter().map(|line| line.line).max().unwrap_or(0);
        let mut jobs = vec![u32::MAX; last + 1];
        for (index, line) in lines.iter().enumerate().rev() {
            jobs[line.line] = index as u32;
        }
        Self(jobs)
    }

    pub(super) fn of(&self, line: usize) -> u32 {
        self.0[line]
    }
}

/// A grid's cells being filled: the counts of the cell under way, kept per
/// job so each start costs one increment.
struct CellCounter {
    cells: CellJobs,
    counts: Vec<u32>,
    /// The jobs counted in the cell under way, in the order first seen.
    seen: Vec<u32>,
}

impl CellCounter {
    fn new(jobs: usize, cells: usize) -> Self {
        let mut first = Vec::with_capacity(cells + 1);
        first.push(0);
        Self {
            cells: CellJobs {
                first,
                jobs: Vec::new(),
                starts: Vec::new(),
                distinct: Vec::with_capacity(cells),
            },
            counts: vec![0; jobs],
            seen: Vec::new(),
        }
    }

    fn count(&mut self, job: u32) {
        let slot = &mut self.counts[job as usize];
        if *slot == 0 {
            self.seen.push(job);
        }
        *slot += 1;
    }

    /// Closes the cell under way: names its busiest jobs, most starts
    /// first, then fleet order, and clears the counters for the next.
    fn close(&mut self) {
        let counts = &self.counts;
        let rank = |job: &u32| (std::cmp::Reverse(counts[*job as usize]), *job);
        let named = self.seen.len().min(NAMED_PER_CELL);
        if self.seen.len() > named {
            self.seen.select_nth_unstable_by_key(named, rank);
        }
        self.seen[..named].sort_unstable_by_key(rank);
        let cells = &mut self.cells;
        cells.distinct.push(self.seen.len() as u32);
        for &job in &self.seen[..named] {
            cells.jobs.push(job);
            cells.starts.push(counts[job as usize]);
        }
        cells.first.push(cells.jobs.len() as u32);
        for &job in &self.seen {
            self.counts[job as usize] = 0;
        }
        self.seen.clear();
    }
}

/// The week's load of `expansion`, its jobs indexed by `jobs` (built from
/// the lines it expanded).
pub(super) fn week_load(expansion: &Expansion, jobs: &JobsByLine, job_count: usize) -> WeekLoad {
    const MINUTES: usize = WEEK_MINUTES as usize;
    let from_micros = expansion.from * MICROS_PER_SECOND;
    let mut busiest_second = Vec::with_capacity(MINUTES);
    let mut by_minute = CellCounter::new(job_count, MINUTES);
    let mut by_hour = CellCounter::new(job_count, MINUTES / 60);
    let mut next = 0;
    for (minute, &in_minute) in expansion.starts_per_minute.iter().enumerate() {
        let in_minute = in_minute as usize;
        let starts = &expansion.starts[next..next + in_minute];
        next += in_minute;
        let (mut second, mut run, mut most) = (i64::MIN, 0, 0);
        for start in starts {
            let job = jobs.of(start.line);
            by_minute.count(job);
            by_hour.count(job);
            let this_second = (start.at_micros - from_micros) / MICROS_PER_SECOND;
            run = if this_second == second { run + 1 } else { 1 };
            second = this_second;
            most = most.max(run);
        }
        busiest_second.push(most);
        by_minute.close();
        if minute % 60 == 59 {
            by_hour.close();
        }
    }
    let running = expansion.running_per_minute.clone();
    let running_p99 = running.as_ref().map(|running| {
        stampede_core::stats::quantile_unsorted(&mut running.clone(), 0.99).unwrap_or(0.0)
    });
    WeekLoad {
        starts: expansion.starts_per_minute.clone(),
        running_peak: running
            .as_ref()
            .map(|running| running.iter().copied().fold(0.0, f64::max)),
        running,
        peak_second_starts: busiest_second.iter().copied().max().unwrap_or(0),
        busiest_second,
        by_minute: by_minute.cells,
        by_hour: by_hour.cells,
        total_starts: expansion.starts.len() as u64,
        peak_minute: expansion.peak.as_ref().map(|peak| peak.minute),
        peak_starts: expansion.shared.most_in_a_minute,
        shared_minutes: expansion.shared.minutes,
        shared_starts: expansion.shared.starts,
        running_p99,
        stopped_at_line: expansion.stopped_at_line.map(|line| line as u32),
        drawn: expansion.drawn.clone(),
    }
}
