//! Queue simulation: N accounts, W workers, and a schedule that decides
//! when each account's sync job enters the queue, run from event to event.
//!
//! A run is given as [`SimParams`]: the accounts, the workers, the cycle
//! in which every account syncs about once, the horizon, the sync
//! durations and the [`SyncSchedule`], and optionally an [`Autoscaler`],
//! [`Reports`] (a second job per account and cycle) and a [`Downstream`]
//! service that syncs call. [`simulate`] runs it in one go;
//! [`Simulation`] steps it by simulated time, for a caller that reports
//! progress. Either returns a [`SimRun`]: a [`Summary`] of totals, time
//! series and histograms. A seed replays a run exactly, on every platform.
//!
//! ```
//! use stampede_core::dist::Dist;
//! use stampede_core::sim::{self, SimParams, SyncSchedule};
//!
//! // 1,000 accounts synced hourly for two hours by 2 workers, each sync
//! // taking 1 s: the herd makes them all due at once, every hour, so two
//! // start and 998 wait, the last two for 499 s.
//! let duration = Dist::constant(1.0)?;
//! let params = SimParams::new(1_000, 2, 3_600, 7_200, duration, SyncSchedule::Herd);
//! let summary = sim::simulate(&params, 7)?.summary;
//! assert_eq!(summary.jobs_enqueued, 2_000);
//! assert_eq!(summary.max_queue_depth, 998);
//! assert_eq!(summary.p99_wait_s, 494.0);
//! # Ok::<(), stampede_core::error::InvalidInput>(())
//! ```
//!
//! # Layout
//!
//! - `engine`: the event loop, its order of events at one instant, and
//!   the parts of its state;
//! - `event`: the event key, one u64 whose order is the engine's
//!   tie-break;
//! - `plan`: how each schedule puts jobs in time, and reports beside them;
//! - `accounts`: locks, parked jobs, last syncs;
//! - `downstream`: refusals and retries;
//! - `durations`: sync durations kept to be read again by the next lane
//!   or run;
//! - `autoscaler`: the workers and the autoscaler;
//! - `metrics`: what a run measures;
//! - `validation`: the parameters' bounds and the jobs estimate;
//! - `mmc`: M/M/c theory for Poisson runs;
//! - `unqueued`: runs that no job waited in, read again on other workers.

mod accounts;
mod autoscaler;
mod downstream;
mod durations;
mod engine;
mod event;
mod metrics;
mod mmc;
mod plan;
mod resample;
mod unqueued;
mod validation;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use self::durations::SyncDurations;
pub use self::mmc::{erlang_c, mm_c_mean_wait};
pub use self::resample::FEWEST_HOURS_RESAMPLED;
pub use self::unqueued::Unqueued;
use crate::backoff::Backoff;
use crate::dist::Dist;
use crate::error::InvalidInput;
use crate::hash_spread::HashMode;
use crate::scheduler::MICROS_PER_SECOND;
use engine::Engine;
use validation::validate;

/// The most accounts a run simulates (their number fits the 20 account
/// bits of an event key).
pub const MAX_ACCOUNTS: u32 = 1_000_000;
/// The most workers.
pub const MAX_WORKERS: u32 = 10_000;
/// The longest horizon, and the longest cycle: 90 days, whose
/// microseconds fit the 43 time bits of an event key.
pub const MAX_HORIZON: u32 = 90 * 86_400;
/// The most jobs a run may start, retries included, about a second of
/// simulation natively.
pub const MAX_JOBS: u64 = 5_000_000;
/// The most points of each time series.
pub const MAX_POINTS: u32 = 2_000;
/// Bins of the wait and sync-interval histograms.
pub const WAIT_BINS: u32 = 50;
/// How long a refused call holds its worker before the job fails: the
/// connection and the error reply.
pub const REFUSED_CALL_SECONDS: u32 = 1;

/// The end of an index list.
const NO_INDEX: u32 = u32::MAX;

/// When each account's sync job enters the queue. Each syncs every
/// account about once per cycle of C s, except an imported trace, whose
/// jobs come when the trace says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyncSchedule {
    /// Every account due at k·C (cron at one instant).
    Herd,
    /// Due at k·C + u, u uniform in [0, `window_seconds`) for a window at
    /// most the cycle, drawn anew each cycle, enqueued when due.
    UniformJitter { window_seconds: u32 },
    /// Arrivals with exponential gaps of mean C / N, accounts in turn.
    Poisson,
    /// Due at k·C + (hash32(id) mod C) s ([`crate::hash_spread`]).
    HashSpread(HashMode),
    /// n slots of D = C / n s; an account's slot is the high bits of its
    /// hash, ⌊h·n / 2³²⌋ ([`crate::slots::even_slot_of`]), its offset in
    /// the slot the low bits, h mod D. Each slot's accounts are enqueued at
    /// the slot start and fall due at their offsets (the per-slot and
    /// bootstrap jobs cost nothing here).
    Slots { slots: u32 },
    /// First due uniformly in the first cycle, then each finished job
    /// enqueues its successor, due C after the finish.
    SelfRescheduling,
    /// Every `every_seconds` the `batch` accounts whose last finished sync
    /// is oldest (never-synced first) are enqueued, each due after a
    /// uniform delay below `spread_seconds`. An account still queued counts
    /// as not yet synced and can be picked again, as in the talk.
    LeastRecentlySynced {
        every_seconds: u32,
        batch: u32,
        spread_seconds: u32,
    },
    /// A trace replayed: job k is account k, due once at its time.
    Imported(Arc<ImportedJobs>),
}

/// Jobs at given times, as a trace of arrivals recorded them, each with
/// its own duration or none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedJobs {
    /// Microseconds from the first arrival, ascending.
    due_us: Vec<u64>,
    /// Each job's duration in microseconds; None to draw from the run's
    /// distribution.
    durations_us: Option<Vec<u64>>,
}

impl ImportedJobs {
    /// Jobs at `times_us` (microseconds, ascending), from the first, with
    /// `durations_s` beside them when given.
    pub fn new(times_us: &[i64], durations_s: Option<&[f64]>) -> Result<Self, InvalidInput> {
        let (Some(&first), Some(&last)) = (times_us.first(), times_us.last()) else {
            return Err(InvalidInput::new("arrivals", "no arrivals to replay"));
        };
        if times_us.len() > MAX_ACCOUNTS as usize {
            return Err(InvalidInput::new(
                "arrivals",
                format!(
                    "{} jobs are above the {MAX_ACCOUNTS} a replay takes",
                    times_us.len()
                ),
            ));
        }
        if !times_us.is_sorted() {
            return Err(InvalidInput::new("arrivals", "times must be in order"));
        }
        let span_us = last.abs_diff(first);
        if span_us >= u64::from(MAX_HORIZON - 1) * MICROS_PER_SECOND {
            return Err(InvalidInput::new(
                "arrivals",
                format!(
                    "they span {} days, above the {} a replay takes",
                    span_us / (86_400 * MICROS_PER_SECOND),
                    MAX_HORIZON / 86_400
                ),
            ));
        }
        let durations_us = match durations_s {
            Some(durations) if durations.len() != times_us.len() => {
                return Err(InvalidInput::new(
                    "durations",
                    format!(
                        "{} durations for {} arrivals",
                        durations.len(),
                        times_us.len()
                    ),
                ));
            }
            Some(durations) => Some(
                durations
                    .iter()
                    .map(|&seconds| {
                        crate::error::non_negative("durations", seconds)
                            .map(|seconds| (seconds * MICROS_PER_SECOND as f64).round() as u64)
                    })
                    .collect::<Result<_, _>>()?,
            ),
            None => None,
        };
        Ok(Self {
            due_us: times_us.iter().map(|&at| at.abs_diff(first)).collect(),
            durations_us,
        })
    }

    /// The jobs, one account each.
    pub fn len(&self) -> u32 {
        self.due_us.len() as u32
    }

    /// Never: a replay has at least one job.
    pub fn is_empty(&self) -> bool {
        self.due_us.is_empty()
    }

    /// Whole seconds from the first arrival to just past the last: a
    /// horizon this long takes every job.
    pub fn span_seconds(&self) -> u32 {
        self.due_us
            .last()
            .map_or(0, |&last| (last / MICROS_PER_SECOND) as u32 + 1)
    }

    /// Whether each job brings its own duration.
    pub fn has_durations(&self) -> bool {
        self.durations_us.is_some()
    }
}

/// Scales the workers with the queue. Every check interval it wants
/// desired = clamp(busy + ⌈waiting / target⌉, min, max) workers: those at
/// work, plus one per `target` waiting jobs. More than it has (counting
/// those booting) are ordered at once and join after the boot delay; fewer
/// are removed only once desired has stayed below for the down delay and
/// nothing is booting; as desired counts the busy ones, only idle workers
/// go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Autoscaler {
    /// Waiting jobs that call for one more worker.
    pub target_depth_per_worker: u32,
    pub check_seconds: u32,
    /// From ordering a worker to its first job.
    pub up_delay_seconds: u32,
    /// How long fewer workers must suffice before any are removed.
    pub down_delay_seconds: u32,
    pub min_workers: u32,
    pub max_workers: u32,
}

/// A second job per account and cycle, beside its sync, under the same
/// lock, with its own durations.
///
/// Under herd, hash spread and slots a report is placed like its account's
/// sync shifted by s < C: due at k·C + ((o + s) mod C) for the sync's
/// offset o (0 for the herd), so it never falls due after the next cycle's
/// window opens (that clears the window); a slot report is enqueued at the
/// start of its own slot. s = 0 puts each report on its account's sync,
/// s = C/2 opposite it. Where a sync's time is a random draw (jitter,
/// Poisson, self-rescheduling, least recently synced), a shift of it is as
/// random, so a report falls due at its own uniform time in each cycle
/// (over the whole cycle: the jitter window narrows only the syncs, the
/// jobs that call the downstream).
#[derive(Clone, Debug, PartialEq)]
pub struct Reports {
    /// Report durations in seconds.
    pub duration: Dist,
    /// How long after its account's sync a report falls due, below the
    /// cycle; unused where syncs fall due at random times.
    pub shift_seconds: u32,
}

/// The service each sync calls as it starts; reports do not call it.
///
/// The call is refused while an outage [a, b) s covers the start, or when
/// the whole second ⌊t⌋ has already accepted its limit of R calls (refused
/// calls use none of it). A refused call holds the worker and lock for
/// [`REFUSED_CALL_SECONDS`], then the job fails. Retry n (from 1) falls due
/// after the backoff's wait delay(n, previous wait, u), u drawn from its
/// own stream; a job refused after `max_retries` retries gives up and
/// syncs nothing, so under least recently synced its account stays at the
/// front and under self-rescheduling its chain ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Downstream {
    /// Calls accepted in each whole second, at least 1; None for no limit.
    pub rate_limit_per_second: Option<u32>,
    /// Seconds [start, end) in which every call is refused.
    pub outage: Option<(u32, u32)>,
    /// The wait before each retry of a failed sync.
    pub retry: Backoff,
    /// Retries before a job gives up, at most [`crate::backoff::MAX_RETRIES`].
    pub max_retries: u32,
}

/// What to simulate. Account k (from 0) has the decimal id "k + 1", as
/// integer primary keys would.
#[derive(Clone, Debug, PartialEq)]
pub struct SimParams {
    pub accounts: u32,
    /// The workers at the start; all of them throughout without an
    /// autoscaler.
    pub workers: u32,
    pub cycle_seconds: u32,
    pub horizon_seconds: u32,
    /// Sync durations in seconds.
    pub duration: Dist,
    /// When each account's sync falls due.
    pub schedule: SyncSchedule,
    pub autoscaler: Option<Autoscaler>,
    pub reports: Option<Reports>,
    pub downstream: Option<Downstream>,
}

impl SimParams {
    /// Syncs alone on a fixed number of workers: no autoscaler, reports or
    /// downstream.
    pub fn new(
        accounts: u32,
        workers: u32,
        cycle_seconds: u32,
        horizon_seconds: u32,
        duration: Dist,
        schedule: SyncSchedule,
    ) -> Self {
        Self {
            accounts,
            workers,
            cycle_seconds,
            horizon_seconds,
            duration,
            schedule,
            autoscaler: None,
            reports: None,
            downstream: None,
        }
    }
}

/// The run's totals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// First attempts (syncs and reports) due before the horizon.
    pub jobs_enqueued: u64,
    /// Jobs finished before the horizon, refused calls not included.
    pub jobs_done: u64,
    /// Over every job due before the horizon, retries included, a
    /// never-started one at its wait so far; 0 when none. A lower bound
    /// when a job never started ([`Summary::mean_is_lower_bound`]).
    pub mean_wait_s: f64,
    /// The percentiles of the same waits, each one job's own: p·n / 100
    /// of the n jobs, rounded up, waited no longer. A lower bound when
    /// [`Summary::is_lower_bound`] says so.
    pub p50_wait_s: f64,
    pub p95_wait_s: f64,
    pub p99_wait_s: f64,
    /// Jobs due before the horizon, first attempts and retries, that had
    /// not started by it: still waiting for a worker, or parked on a lock.
    pub never_started: u64,
    /// The shortest of their waits so far (horizon − due); None when every
    /// job due started.
    pub least_unstarted_wait_s: Option<f64>,
    /// The most due jobs waiting for a worker at any instant.
    pub max_queue_depth: u64,
    /// Busy worker time over ready worker time (W × horizon without an
    /// autoscaler).
    pub utilization: f64,
    /// Accounts with no finished sync by the horizon.
    pub never_synced: u32,
    /// Times a job reached a worker while its account's lock was held.
    pub lock_conflicts: u64,
    /// Seconds jobs spent parked on a held lock.
    pub lock_wait_s: f64,
    /// Calls the downstream refused.
    pub failed_calls: u64,
    /// Retries due before the horizon.
    pub retries: u64,
    /// Jobs refused once more after their last retry.
    pub gave_up: u64,
    /// The longest time between two finished syncs of one account; 0 when
    /// no account finished two.
    pub max_sync_interval_s: f64,
    /// The most calls the downstream received in one whole second: syncs
    /// started, retries and refused calls included (see `metrics`'
    /// module text).
    pub peak_calls_per_second: u32,
}

impl Summary {
    /// Whether a wait percentile of `value_s` is only a lower bound ("at
    /// least"): a never-started job ranks at or below it at its wait so
    /// far, so its real wait could raise it. Never-started jobs all ranked
    /// above it can only rise further, and leave it as it is.
    pub fn is_lower_bound(&self, value_s: f64) -> bool {
        self.least_unstarted_wait_s
            .is_some_and(|least| least <= value_s)
    }

    /// Whether the mean wait is only a lower bound: any never-started job's
    /// real wait would raise it.
    pub fn mean_is_lower_bound(&self) -> bool {
        self.never_started > 0
    }
}

/// A run: its summary, time series over bins of `bin_seconds` (the last
/// one shorter when the bin does not divide the horizon), and the
/// histograms of waits and sync intervals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimRun {
    pub summary: Summary,
    /// A whole number of minutes, so that there are at most
    /// [`MAX_POINTS`] bins.
    pub bin_seconds: u32,
    /// The most due jobs waiting for a worker at any instant of the bin,
    /// the depth it opens with included.
    pub queue_depth: Vec<u32>,
    /// Busy workers averaged over the bin.
    pub executing: Vec<f64>,
    /// Ready workers averaged over the bin.
    pub workers: Vec<f64>,
    /// Jobs and retries entering the queue in the bin: when they fall due,
    /// except slot jobs (at their slot's start), batch jobs (at the batch
    /// time) and successors (at their predecessor's finish).
    pub ingress: Vec<u32>,
    /// Jobs finishing in the bin.
    pub done: Vec<u32>,
    /// Lock conflicts in the bin.
    pub lock_conflicts: Vec<u32>,
    /// Calls refused in the bin, when they were made.
    pub failed: Vec<u32>,
    /// Bin k of `wait_histogram` counts waits in [k·w, (k + 1)·w): the
    /// waits the percentiles rank, every job due before the end, a
    /// never-started one at its wait so far.
    pub wait_bin_seconds: f64,
    pub wait_histogram: Vec<u32>,
    /// Bin k of `sync_interval_histogram` counts intervals between two
    /// finished syncs of one account in [s + k·w, s + (k + 1)·w), s the
    /// shortest of them (0 when none): they cluster near the cycle, where
    /// bins from 0 would lump them together. Intervals are binned in units
    /// of 2^b µs, b the bits the horizon needs beyond 32 (1 µs up to 71
    /// minutes, 256 µs for a week).
    pub sync_interval_start_seconds: f64,
    pub sync_interval_bin_seconds: f64,
    pub sync_interval_histogram: Vec<u32>,
}

impl SimRun {
    /// The waits the percentiles are ranked over: every job due before the
    /// end, retries included, started or not, each of which lands in a bin
    /// of the wait histogram.
    pub fn waits_ranked(&self) -> u64 {
        self.wait_histogram.iter().map(|&c| u64::from(c)).sum()
    }
}

/// Simulates `params` under `seed` in one go.
pub fn simulate(params: &SimParams, seed: u64) -> Result<SimRun, InvalidInput> {
    Ok(Simulation::new(params, seed)?.finish())
}

/// An upper estimate of the jobs a run of `params` starts: first attempts
/// of syncs and reports, plus retries, bounded as `validation`'s module
/// text says. Runs above [`MAX_JOBS`] are refused.
pub fn estimated_jobs(params: &SimParams) -> Result<u64, InvalidInput> {
    validate(params).map(|estimate| estimate.total())
}

/// A finished run, and what a later run of its seed may read again.
pub struct Finished {
    pub run: SimRun,
    /// The sync durations drawn, for the next run of the seed to read.
    pub durations: SyncDurations,
    /// The most workers busy at once.
    most_busy: u32,
    /// Busy worker time over the whole run, in µs.
    busy_us: u64,
}

/// A run stepped by simulated time, so that a caller (a Web Worker) can
/// report progress between steps.
pub struct Simulation {
    engine: Engine,
}

impl Simulation {
    /// Checks `params` and sets the run up at time 0.
    pub fn new(params: &SimParams, seed: u64) -> Result<Self, InvalidInput> {
        Self::reading(params, seed, None)
    }

    /// As [`Simulation::new`], reading the sync durations from `kept`
    /// (what an earlier run of the seed returned) where they are this
    /// run's draws; the result is the same.
    pub fn reading(
        params: &SimParams,
        seed: u64,
        kept: Option<SyncDurations>,
    ) -> Result<Self, InvalidInput> {
        let estimate = validate(params)?;
        Ok(Self {
            engine: Engine::new(params, seed, &estimate, kept),
        })
    }

    /// Processes every event strictly before `seconds` (in microseconds,
    /// rounded up), never past the horizon. NaN and times already passed
    /// do nothing.
    pub fn run_until(&mut self, seconds: f64) {
        let until = (seconds * MICROS_PER_SECOND as f64).ceil() as u64;
        self.engine.run(until);
    }

    /// The simulated time reached over the horizon, in [0, 1].
    pub fn progress(&self) -> f64 {
        self.engine.progress()
    }

    /// Runs the rest and returns the result.
    pub fn finish(self) -> SimRun {
        self.finish_keeping().run
    }

    /// Runs the rest and returns the result with what a later run of the
    /// seed may read again.
    pub fn finish_keeping(self) -> Finished {
        self.engine.into_run()
    }
}
