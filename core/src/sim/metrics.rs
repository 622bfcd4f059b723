//! What a run measures: totals, time series over bins, and histograms.
//!
//! # Counts
//!
//! `jobs_enqueued` counts first attempts (syncs and reports), `retries` the
//! retries due before the horizon, and `ingress` both. Waits cover every
//! job due before the horizon, retries included: a job still waiting for a
//! worker or parked on a lock at the horizon (`never_started`) counts its
//! wait so far, horizon − due, a lower bound of its real one. Leaving it
//! out would make the figures look better the more jobs the run starves;
//! counting it makes the mean, and a percentile a never-started job could
//! still raise, a lower bound instead. Utilization is busy time over ready
//! worker time.
//!
//! # Calls
//!
//! The calls the downstream receives are the syncs' starts, first attempts
//! and retries, refused or not; parked jobs have not started. Without a
//! downstream the syncs' starts are still counted: they are the calls a
//! downstream would receive. The peak is the most in one whole second ⌊t⌋,
//! counted per second whatever the series' bins.
//!
//! # Histograms
//!
//! The times between two finished syncs of one account make a histogram of
//! [`WAIT_BINS`] equal bins from the shortest to just past the longest, as
//! the waits ranked, never-started ones at their wait so far, make one
//! from 0 (kept in 32 bits, at a resolution of 1 µs up to
//! a 71-minute horizon and 2,048 µs at 90 days).

use super::accounts::Accounts;
use super::event::JobKind;
use super::validation::Estimate;
use super::{MAX_POINTS, SimParams, SimRun, Summary, WAIT_BINS};
use crate::scheduler::{MICROS_PER_SECOND, micros_of_whole, seconds};

/// The run's counters, series and samples, changed only through the
/// engine's reports of what happened.
pub(super) struct Metrics {
    series: Series,
    waits_us: Vec<u64>,
    sync_intervals: Intervals,
    jobs_enqueued: u64,
    jobs_done: u64,
    max_queue_depth: u64,
    failed_calls: u64,
    retries_due: u64,
    gave_up: u64,
    calls: PerSecond,
    peak_calls_per_second: u32,
    never_started: u64,
    /// The shortest wait so far of a never-started job; `u64::MAX` when
    /// none.
    least_unstarted_us: u64,
}

impl Metrics {
    pub(super) fn new(params: &SimParams, estimate: &Estimate) -> Self {
        let horizon_us = micros_of_whole(params.horizon_seconds);
        let minutes = params.horizon_seconds.div_ceil(60);
        let bin_seconds = 60 * minutes.div_ceil(MAX_POINTS);
        let bins = params.horizon_seconds.div_ceil(bin_seconds) as usize;
        Self {
            series: Series::new(micros_of_whole(bin_seconds), bins),
            waits_us: Vec::with_capacity(estimate.total() as usize),
            sync_intervals: Intervals::new(horizon_us, estimate.syncs),
            jobs_enqueued: 0,
            jobs_done: 0,
            max_queue_depth: 0,
            failed_calls: 0,
            retries_due: 0,
            gave_up: 0,
            calls: PerSecond::default(),
            peak_calls_per_second: 0,
            never_started: 0,
            least_unstarted_us: u64::MAX,
        }
    }

    /// Brings the series up to `now` (see [`Series::advance`]).
    pub(super) fn advance(&mut self, now: u64, executing: usize, ready: usize, depth: usize) {
        self.series
            .advance(now, executing as u64, ready as u64, depth as u32);
    }

    /// A first attempt due before the horizon, entering the queue at
    /// `entered`.
    pub(super) fn enqueued(&mut self, entered: u64) {
        self.series.add_ingress_at(entered);
        self.jobs_enqueued += 1;
    }

    /// A successor, entering the queue now.
    pub(super) fn successor_enqueued(&mut self) {
        self.series.add_ingress_now();
        self.jobs_enqueued += 1;
    }

    /// A retry due before the horizon, entering the queue when due.
    pub(super) fn retry_due(&mut self, due: u64) {
        self.retries_due += 1;
        self.series.add_ingress_at(due);
    }

    /// A job joined the queue, now `depth` long.
    pub(super) fn queued(&mut self, depth: usize) {
        self.max_queue_depth = self.max_queue_depth.max(depth as u64);
        self.series.note_depth(depth as u32);
    }

    /// A job of `kind` started at `now` after waiting `wait_us`.
    pub(super) fn started(&mut self, now: u64, wait_us: u64, kind: JobKind) {
        self.waits_us.push(wait_us);
        if kind == JobKind::Sync {
            let calls = self.calls.at(now);
            *calls += 1;
            self.peak_calls_per_second = self.peak_calls_per_second.max(*calls);
        }
    }

    /// A job due at `due`, before the horizon, that had not started by it:
    /// ranked at its wait so far.
    pub(super) fn never_started(&mut self, horizon_us: u64, due: u64) {
        let wait_so_far = horizon_us - due;
        self.waits_us.push(wait_so_far);
        self.never_started += 1;
        self.least_unstarted_us = self.least_unstarted_us.min(wait_so_far);
    }

    pub(super) fn lock_conflict(&mut self) {
        self.series.add_lock_conflict();
    }

    /// A refused call; `gave_up` when it was the job's last attempt.
    pub(super) fn refused(&mut self, gave_up: bool) {
        self.failed_calls += 1;
        self.series.add_failed();
        if gave_up {
            self.gave_up += 1;
        }
    }

    pub(super) fn done(&mut self) {
        self.jobs_done += 1;
        self.series.add_done();
    }

    /// The time between an account's last two finished syncs.
    pub(super) fn sync_interval(&mut self, interval_us: u64) {
        self.sync_intervals.push(interval_us);
    }

    /// Busy worker time so far, in µs.
    pub(super) fn busy_us(&self) -> u64 {
        self.series.busy_us.iter().sum()
    }

    /// The summary, series and histograms of a run advanced to the horizon.
    pub(super) fn into_run(mut self, horizon_us: u64, accounts: &Accounts) -> SimRun {
        let busy_total = self.busy_us();
        let ready_total: u64 = self.series.ready_us.iter().sum();
        let waits = &mut self.waits_us;
        let ranked = waits.len() as u64;
        let total_wait: u128 = waits.iter().map(|&w| u128::from(w)).sum();
        let mean_wait_s = if ranked == 0 {
            0.0
        } else {
            (total_wait as f64 / ranked as f64) / MICROS_PER_SECOND as f64
        };
        let [p50_wait_s, p95_wait_s, p99_wait_s] = nearest_ranks(waits, [50, 95, 99]).map(seconds);
        let (wait_bin_us, wait_histogram) = histogram(waits, 0);
        let (sync_interval_start_seconds, sync_interval_bin_seconds, sync_interval_histogram) =
            self.sync_intervals.histogram();
        let lock_wait_us = accounts.lock_wait_us(horizon_us);
        let series = self.series;
        let executing = series.per_bin(&series.busy_us, horizon_us);
        let workers = series.per_bin(&series.ready_us, horizon_us);
        SimRun {
            summary: Summary {
                jobs_enqueued: self.jobs_enqueued,
                jobs_done: self.jobs_done,
                mean_wait_s,
                p50_wait_s,
                p95_wait_s,
                p99_wait_s,
                never_started: self.never_started,
                least_unstarted_wait_s: (self.never_started > 0)
                    .then(|| seconds(self.least_unstarted_us)),
                max_queue_depth: self.max_queue_depth,
                utilization: busy_total as f64 / ready_total as f64,
                never_synced: accounts.never_synced(),
                lock_conflicts: accounts.lock_conflicts(),
                lock_wait_s: lock_wait_us as f64 / MICROS_PER_SECOND as f64,
                failed_calls: self.failed_calls,
                retries: self.retries_due,
                gave_up: self.gave_up,
                max_sync_interval_s: seconds(self.sync_intervals.longest_us),
                peak_calls_per_second: self.peak_calls_per_second,
            },
            bin_seconds: (series.bin_us / MICROS_PER_SECOND) as u32,
            queue_depth: series.queue_depth,
            executing,
            workers,
            ingress: series.ingress,
            done: series.done,
            lock_conflicts: series.lock_conflicts,
            failed: series.failed,
            wait_bin_seconds: seconds(wait_bin_us),
            wait_histogram,
            sync_interval_start_seconds,
            sync_interval_bin_seconds,
            sync_interval_histogram,
        }
    }
}

/// Time series over bins.
struct Series {
    bin_us: u64,
    /// The bin of the event being processed: [`Series::advance`] brings it
    /// there first.
    bin: usize,
    /// Up to where busy time has been added.
    integrated_to: u64,
    queue_depth: Vec<u32>,
    busy_us: Vec<u64>,
    ready_us: Vec<u64>,
    ingress: Vec<u32>,
    done: Vec<u32>,
    lock_conflicts: Vec<u32>,
    failed: Vec<u32>,
}

impl Series {
    fn new(bin_us: u64, bins: usize) -> Self {
        Self {
            bin_us,
            bin: 0,
            integrated_to: 0,
            queue_depth: vec![0; bins],
            busy_us: vec![0; bins],
            ready_us: vec![0; bins],
            ingress: vec![0; bins],
            done: vec![0; bins],
            lock_conflicts: vec![0; bins],
            failed: vec![0; bins],
        }
    }

    fn bin_of(&self, time: u64) -> usize {
        ((time / self.bin_us) as usize).min(self.done.len() - 1)
    }

    /// Brings busy and ready time up to `now`, with `executing` workers
    /// busy and `ready` ready since the last event and `depth` jobs
    /// waiting.
    fn advance(&mut self, now: u64, executing: u64, ready: u64, depth: u32) {
        let last = self.done.len() - 1;
        while self.bin < last && now >= (self.bin as u64 + 1) * self.bin_us {
            let end = (self.bin as u64 + 1) * self.bin_us;
            self.busy_us[self.bin] += executing * (end - self.integrated_to);
            self.ready_us[self.bin] += ready * (end - self.integrated_to);
            self.integrated_to = end;
            self.bin += 1;
            self.queue_depth[self.bin] = depth;
        }
        self.busy_us[self.bin] += executing * (now - self.integrated_to);
        self.ready_us[self.bin] += ready * (now - self.integrated_to);
        self.integrated_to = now;
    }

    fn note_depth(&mut self, depth: u32) {
        let peak = &mut self.queue_depth[self.bin];
        *peak = (*peak).max(depth);
    }

    fn add_ingress_at(&mut self, time: u64) {
        let bin = self.bin_of(time);
        self.ingress[bin] += 1;
    }

    fn add_ingress_now(&mut self) {
        self.ingress[self.bin] += 1;
    }

    fn add_done(&mut self) {
        self.done[self.bin] += 1;
    }

    fn add_lock_conflict(&mut self) {
        self.lock_conflicts[self.bin] += 1;
    }

    fn add_failed(&mut self) {
        self.failed[self.bin] += 1;
    }

    /// Worker time per bin as workers averaged over the bin; the last bin
    /// ends at the horizon.
    fn per_bin(&self, worker_us: &[u64], horizon_us: u64) -> Vec<f64> {
        worker_us
            .iter()
            .enumerate()
            .map(|(bin, &total)| {
                let start = bin as u64 * self.bin_us;
                let width = (start + self.bin_us).min(horizon_us) - start;
                total as f64 / width as f64
            })
            .collect()
    }
}

/// A count within the whole second of the latest time asked about; times
/// come in order, so a later second starts it from 0. Keeping the second's
/// end spares every call a division.
#[derive(Default)]
pub(super) struct PerSecond {
    /// The end of the counted second, in µs.
    ends: u64,
    count: u32,
}

impl PerSecond {
    /// The count of the second holding `now`.
    pub(super) fn at(&mut self, now: u64) -> &mut u32 {
        if now >= self.ends {
            self.ends = (now / MICROS_PER_SECOND + 1) * MICROS_PER_SECOND;
            self.count = 0;
        }
        &mut self.count
    }
}

/// The nearest-rank percentiles `ps` (ascending) of `values`, reordered:
/// the value of rank ⌈p·n / 100⌉; 0 for no values. Each selection leaves
/// the larger values above its rank, so the next one searches only those.
fn nearest_ranks<const K: usize>(values: &mut [u64], ps: [u64; K]) -> [u64; K] {
    let n = values.len() as u64;
    let mut below = 0;
    ps.map(|p| {
        if n == 0 {
            return 0;
        }
        let index = ((p * n).div_ceil(100).max(1) - 1) as usize;
        let value = *values[below..].select_nth_unstable(index - below).1;
        below = index;
        value
    })
}

/// [`WAIT_BINS`] equal bins of `values` (none below `origin`) from
/// `origin` to just past the largest, their width a whole number of the
/// values' unit.
fn histogram<T: Copy + Into<u64>>(values: &[T], origin: u64) -> (u64, Vec<u32>) {
    let longest = values
        .iter()
        .map(|&value| value.into())
        .max()
        .unwrap_or(origin);
    let width = (longest - origin + 1).div_ceil(u64::from(WAIT_BINS));
    let mut counts = vec![0u32; WAIT_BINS as usize];
    for &value in values {
        counts[((value.into() - origin) / width) as usize] += 1;
    }
    (width, counts)
}

/// Times between two finished syncs of one account, in 32 bits: in units
/// of 2^shift µs, shift the bits the horizon needs beyond 32 (exact up to
/// a 71-minute horizon, 256 µs for a week, 2,048 µs at 90 days). That
/// halves their memory, and with it the pages a long run touches; the
/// histogram is coarser than whole microseconds only when all intervals
/// lie within 50 units of each other. The longest is kept exactly.
struct Intervals {
    shift: u32,
    units: Vec<u32>,
    longest_us: u64,
}

impl Intervals {
    fn new(horizon_us: u64, capacity: u64) -> Self {
        Self {
            shift: (u64::BITS - horizon_us.leading_zeros()).saturating_sub(u32::BITS),
            units: Vec::with_capacity(capacity as usize),
            longest_us: 0,
        }
    }

    /// `interval_us` is below the horizon, so it fits 32 bits once shifted.
    fn push(&mut self, interval_us: u64) {
        self.units.push((interval_us >> self.shift) as u32);
        self.longest_us = self.longest_us.max(interval_us);
    }

    /// The histogram from the shortest interval: its start and bin width in
    /// seconds, and its counts.
    fn histogram(&self) -> (f64, f64, Vec<u32>) {
        let shortest = self.units.iter().copied().min().map_or(0, u64::from);
        let (width, counts) = histogram(&self.units, shortest);
        let to_seconds = |units: u64| seconds(units << self.shift);
        (to_seconds(shortest), to_seconds(width), counts)
    }
}
