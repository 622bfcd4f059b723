//! A fleet's expansion over the week, turned into the owned [`WeekLoad`]
//! the page draws: counts per minute and second, and the jobs named in each
//! heatmap cell.
//!
//! The expansion's starts come sorted by time, so every minute's starts,
//! and every hour's, lie next to each other: one pass over them fills the
//! busiest second of each minute and both grids of named jobs, with one
//! counter per job reused from cell to cell, and no allocation per start.

use crate::fleet::Expansion;
use crate::fleet::file::FleetLine;
use crate::fleet::plan::MICROS_PER_SECOND;

use super::report::{CellJobs, NAMED_PER_CELL, WEEK_MINUTES, WeekLoad};

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
    let running_p99 = running
        .as_ref()
        .map(|running| crate::stats::quantile_unsorted(&mut running.clone(), 0.99).unwrap_or(0.0));
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
    }
}
