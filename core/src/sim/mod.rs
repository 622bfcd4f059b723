//! Queue simulation: N accounts, W workers, and a strategy that decides when
//! each account's sync job enters the queue, run from event to event.
//!
//! Time is whole microseconds in u64. The clock jumps to the next event:
//! a job falling due, a worker finishing, or a strategy's next window
//! (a cycle, or a batch of the least-recently-synced strategy) opening.
//! A due job starts at once on an idle worker, else it waits in one FIFO
//! queue; a finishing worker takes the oldest waiting job. Its wait (start
//! delay) is start − due; its duration is a draw from a [`Dist`].
//! Events at one instant run finishes first, then windows, then due jobs,
//! ties among jobs by account and then kind (a sync before its report), so
//! a seed replays exactly (hash spread and slots number their accounts in
//! the order of their offsets, which keeps that order among syncs).
//! [`Simulation::run_until`] processes the events before a time; as
//! nothing changes between events, a run stepped in any chunks equals one
//! straight run.
//!
//! Strategies, each syncing every account about once per cycle of C s:
//! - herd: every account due at k·C (cron at one instant);
//! - uniform jitter: due at k·C + u, u uniform in [0, W) for a window
//!   W ≤ C, drawn anew each cycle, enqueued when due;
//! - Poisson: arrivals with exponential gaps of mean C / N, accounts in
//!   turn;
//! - hash spread: due at k·C + (hash32(id) mod C) s ([`crate::spread`]);
//! - slots: n slots of D = C / n s; an account's slot is the high bits of
//!   its hash, ⌊h·n / 2³²⌋, its offset in the slot the low bits, h mod D;
//!   each slot's accounts are enqueued at the slot start and fall due at
//!   their offsets (the per-slot and bootstrap jobs cost nothing here);
//! - self-rescheduling: first due uniformly in the first cycle, then each
//!   finished job enqueues its successor, due C after the finish;
//! - least recently synced: every T s the M accounts whose last finished
//!   sync is oldest (never-synced first) are enqueued, each due after a
//!   uniform delay below the spread S. An account still queued counts as
//!   not yet synced and can be picked again, as in the talk.
//!
//! Reports, when on, are a second job per account and cycle with their own
//! durations. Under herd, hash spread and slots a report is placed like its
//! account's sync shifted by s < C: due at k·C + ((o + s) mod C) for the
//! sync's offset o (0 for the herd), so it never falls due after the next
//! cycle's window opens (that clears the window); a slot report is enqueued
//! at the start of its own slot. s = 0 puts each report on its account's
//! sync, s = C/2 opposite it. Where a sync's time is a random draw (jitter,
//! Poisson, self-rescheduling, least recently synced), a shift of it is as
//! random, so a report falls due at its own uniform time in each cycle
//! (over the whole cycle: the jitter window narrows only the syncs, the
//! jobs that call the downstream).
//!
//! Every job holds its account's lock while it runs, so one job of an
//! account runs at a time. A job reaching a worker while its account's lock
//! is held is a lock conflict: the worker moves on at once, the job is
//! parked on the account, and each release sends the longest-parked job to
//! the back of the queue, where it may conflict again (and counts again).
//! A job's wait still runs from its due time to its real start; the lock
//! wait adds up the time jobs spend parked, up to the horizon. Parked jobs
//! are not in the queue depth.
//!
//! A downstream service (a bank), when on, is called by every sync as it
//! starts; reports do not call it. The call is refused while an outage
//! [a, b) s covers the start, or when the whole second ⌊t⌋ has already
//! accepted its limit of R calls (refused calls use none of it). A refused
//! call holds the worker and lock for [`REFUSED_CALL_SECONDS`], then the job
//! fails. Retry n (from 1) falls due after the backoff's wait
//! delay(n, previous wait, u), u drawn from its own stream; a job refused
//! after `max_retries` retries gives up and syncs nothing, so under least
//! recently synced its account stays at the front and under
//! self-rescheduling its chain ends. `jobs_enqueued` counts first attempts
//! (syncs and reports), `retries` the retries due before the horizon, and
//! `ingress` both; waits cover every start, retries included.
//!
//! The calls the downstream receives are the syncs' starts, first attempts
//! and retries, refused or not; parked jobs have not started. Without a
//! downstream the syncs' starts are still counted: they are the calls a
//! downstream would receive. The peak is the most in one whole second ⌊t⌋,
//! counted per second whatever the series' bins. The times
//! between two finished syncs of one account make a histogram of
//! [`WAIT_BINS`] equal bins from the shortest to just past the longest, as
//! waits make one from 0 (kept in 32 bits, at a resolution of 1 µs up to
//! a 71-minute horizon and 2,048 µs at 90 days).
//!
//! An optional autoscaler looks at the queue every check interval and
//! wants desired = clamp(busy + ⌈waiting / target⌉, min, max) workers:
//! those at work, plus one per `target` waiting jobs. More than it has
//! (counting those booting) are ordered at once and join after the boot
//! delay; fewer are removed only once desired has stayed below for the
//! down delay and nothing is booting; as desired counts the busy ones,
//! only idle workers go. Utilization is busy time over ready worker time.
//!
//! Mean waits of Poisson arrivals with exponential durations follow the
//! M/M/c queue: with offered load a = λ/μ and c servers, Erlang B by the
//! recursion B₀ = 1, Bₖ = a·Bₖ₋₁ / (k + a·Bₖ₋₁) up to k = c, the chance
//! to wait is C(c, a) = c·B / (c − a·(1 − B)) with B the last of them, and
//! the mean wait C(c, a) / (cμ − λ).
//!
//! An event key is one u64, time in µs << 21 | account << 1 | kind (0 sync,
//! 1 report), so one integer comparison orders events by time, account and
//! kind, as [`crate::scheduler`]'s keys do. Its 43 time bits reach 2⁴³ µs,
//! about 101.8 days, beyond the 90-day horizon cap; no key holds a time
//! past the horizon, as due times are checked before they are packed and
//! finishes are clipped to it. The engine keeps that ordering but not the
//! scheduler's API, which keeps a record per event for cancelling and
//! would push every one of a million due jobs through its heap. Here a
//! window's due jobs are known when it opens, so they sit in one sorted
//! array, successors in a FIFO that stays sorted, and only the busy
//! workers and the retries, whose waits differ, need heaps; no allocation
//! happens per job.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};
use std::fmt::Write;

use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::backoff::{self, Backoff};
use crate::dist::Dist;
use crate::error::{InvalidInput, count_at_most, positive};
use crate::hash;
use crate::rng::{Purpose, SeededRng, seeded};
use crate::spread::{HashMode, MAX_RUBY_KEYS, Placement, Reduction};

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

const MICROS: u64 = 1_000_000;
const REFUSED_CALL_US: u64 = REFUSED_CALL_SECONDS as u64 * MICROS;
/// Bits of an event key below the time: the account's 20 above the kind's
/// one (see the module text).
const KIND_BITS: u32 = 1;
const ACCOUNT_BITS: u32 = 20;
const TIME_SHIFT: u32 = ACCOUNT_BITS + KIND_BITS;
const ACCOUNT_MASK: u64 = (1 << ACCOUNT_BITS) - 1;
/// No event: later than every horizon.
const NEVER: u64 = u64::MAX;
/// The end of an index list.
const NONE: u32 = u32::MAX;

const DURATIONS: Purpose = Purpose::new("sim.durations");
const JITTER: Purpose = Purpose::new("sim.jitter");
const ARRIVALS: Purpose = Purpose::new("sim.poisson");
const BATCH_SPREAD: Purpose = Purpose::new("sim.batch_spread");
const REPORT_DURATIONS: Purpose = Purpose::new("sim.report_durations");
const REPORT_TIMES: Purpose = Purpose::new("sim.report_times");
const RETRY_WAITS: Purpose = Purpose::new("sim.retry_waits");

/// When each account's sync job enters the queue (see the module text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Herd,
    /// Due at a uniform delay in [0, `window_seconds`) from each cycle's
    /// start, the window at most the cycle.
    UniformJitter {
        window_seconds: u32,
    },
    Poisson,
    HashSpread(HashMode),
    Slots {
        slots: u32,
    },
    SelfRescheduling,
    LeastRecentlySynced {
        every_seconds: u32,
        batch: u32,
        spread_seconds: u32,
    },
}

/// Scales the workers with the queue (see the module text).
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
/// lock (see the module text).
#[derive(Clone, Debug, PartialEq)]
pub struct Reports {
    /// Report durations in seconds.
    pub duration: Dist,
    /// How long after its account's sync a report falls due, below the
    /// cycle; unused where syncs fall due at random times.
    pub shift_seconds: u32,
}

/// The service each sync calls as it starts (see the module text).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Downstream {
    /// Calls accepted in each whole second, at least 1; None for no limit.
    pub rate_limit_per_second: Option<u32>,
    /// Seconds [start, end) in which every call is refused.
    pub outage: Option<(u32, u32)>,
    /// The wait before each retry of a failed sync.
    pub retry: Backoff,
    /// Retries before a job gives up, at most [`backoff::MAX_RETRIES`].
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
    pub strategy: Strategy,
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
        strategy: Strategy,
    ) -> Self {
        Self {
            accounts,
            workers,
            cycle_seconds,
            horizon_seconds,
            duration,
            strategy,
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
    /// Over the starts before the horizon, retries included; 0 when none.
    pub mean_wait_s: f64,
    /// Nearest-rank percentiles of the same waits.
    pub p50_wait_s: f64,
    pub p95_wait_s: f64,
    pub p99_wait_s: f64,
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
    /// started, retries and refused calls included (see the module text).
    pub peak_calls_per_second: u32,
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
    /// Bin k of `wait_histogram` counts waits in [k·w, (k + 1)·w).
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

/// The chance that a job waits in an M/M/c queue with `servers` servers
/// and offered load a = λ/μ (Erlang C); needs 0 ≤ a < servers.
pub fn erlang_c(servers: u32, offered_load: f64) -> Result<f64, InvalidInput> {
    if servers == 0 {
        return Err(InvalidInput::new("servers", "must be at least 1"));
    }
    let c = f64::from(servers);
    if !(offered_load.is_finite() && (0.0..c).contains(&offered_load)) {
        return Err(InvalidInput::new(
            "offered_load",
            format!(
                "{offered_load} must lie in [0, {servers}): a queue at or above capacity never settles"
            ),
        ));
    }
    let blocking = (1..=servers).fold(1.0, |b, k| {
        offered_load * b / (f64::from(k) + offered_load * b)
    });
    Ok(c * blocking / (c - offered_load * (1.0 - blocking)))
}

/// The mean wait of an M/M/c queue: C(c, a) / (cμ − λ), in the unit of
/// `mean_service`.
pub fn mm_c_mean_wait(
    arrival_rate: f64,
    mean_service: f64,
    servers: u32,
) -> Result<f64, InvalidInput> {
    let arrival_rate = positive("arrival_rate", arrival_rate)?;
    let mean_service = positive("mean_service", mean_service)?;
    let offered_load = arrival_rate * mean_service;
    let waits = erlang_c(servers, offered_load)?;
    Ok(waits / (f64::from(servers) / mean_service - arrival_rate))
}

/// Simulates `params` under `seed` in one go.
pub fn simulate(params: &SimParams, seed: u64) -> Result<SimRun, InvalidInput> {
    Ok(Simulation::new(params, seed)?.finish())
}

/// An upper estimate of the jobs a run of `params` starts: first attempts
/// of syncs and reports, plus retries. Each refused call holds a worker for
/// a second, so no second sees more refusals than workers, and only the
/// outage's seconds and the seconds that used up the rate limit R see any;
/// as each sync is accepted once, those are at most syncs / R. Retries
/// are thus at most min(syncs × max_retries, max workers × (outage seconds
/// + syncs / R)). Runs above [`MAX_JOBS`] are refused.
pub fn estimated_jobs(params: &SimParams) -> Result<u64, InvalidInput> {
    validate(params).map(|estimate| estimate.total())
}

/// A run stepped by simulated time, so that a caller (a Web Worker) can
/// report progress between steps.
pub struct Simulation {
    sim: Sim,
}

impl Simulation {
    /// Checks `params` and sets the run up at time 0.
    pub fn new(params: &SimParams, seed: u64) -> Result<Self, InvalidInput> {
        let estimate = validate(params)?;
        Ok(Self {
            sim: Sim::new(params, seed, &estimate),
        })
    }

    /// Processes every event strictly before `seconds` (in microseconds,
    /// rounded up), never past the horizon. NaN and times already passed
    /// do nothing.
    pub fn run_until(&mut self, seconds: f64) {
        let until = (seconds * MICROS as f64).ceil() as u64;
        self.sim.run(until);
    }

    /// The simulated time reached over the horizon, in [0, 1].
    pub fn progress(&self) -> f64 {
        self.sim.reached as f64 / self.sim.horizon_us as f64
    }

    /// Runs the rest and returns the result.
    pub fn finish(mut self) -> SimRun {
        self.sim.run(self.sim.horizon_us);
        self.sim.into_run()
    }
}

/// Upper estimates of the jobs a run starts, by kind.
struct Estimate {
    syncs: u64,
    reports: u64,
    retries: u64,
}

impl Estimate {
    fn total(&self) -> u64 {
        self.syncs + self.reports + self.retries
    }
}

/// `value` if it lies in [1, max].
fn in_range(field: &'static str, value: u32, max: u32) -> Result<u64, InvalidInput> {
    if (1..=max).contains(&value) {
        Ok(u64::from(value))
    } else {
        Err(InvalidInput::new(
            field,
            format!("{value} is outside [1, {max}]"),
        ))
    }
}

/// Checks every field and returns upper estimates of the jobs.
fn validate(params: &SimParams) -> Result<Estimate, InvalidInput> {
    let accounts = in_range("accounts", params.accounts, MAX_ACCOUNTS)?;
    let mut most_workers = in_range("workers", params.workers, MAX_WORKERS)?;
    if let Some(scaler) = &params.autoscaler {
        in_range(
            "target_depth_per_worker",
            scaler.target_depth_per_worker,
            u32::MAX,
        )?;
        in_range("check_seconds", scaler.check_seconds, MAX_HORIZON)?;
        if scaler.up_delay_seconds > MAX_HORIZON {
            return Err(InvalidInput::new(
                "up_delay_seconds",
                format!("{} is above {MAX_HORIZON}", scaler.up_delay_seconds),
            ));
        }
        if scaler.down_delay_seconds > MAX_HORIZON {
            return Err(InvalidInput::new(
                "down_delay_seconds",
                format!("{} is above {MAX_HORIZON}", scaler.down_delay_seconds),
            ));
        }
        most_workers = in_range("max_workers", scaler.max_workers, MAX_WORKERS)?;
        in_range("min_workers", scaler.min_workers, scaler.max_workers)?;
        if !(scaler.min_workers..=scaler.max_workers).contains(&params.workers) {
            return Err(InvalidInput::new(
                "workers",
                format!(
                    "{} must lie in the autoscaler's [{}, {}]",
                    params.workers, scaler.min_workers, scaler.max_workers
                ),
            ));
        }
    }
    let cycle = in_range("cycle_seconds", params.cycle_seconds, MAX_HORIZON)?;
    let horizon = in_range("horizon_seconds", params.horizon_seconds, MAX_HORIZON)?;
    let cycles = horizon.div_ceil(cycle);
    let syncs = match params.strategy {
        Strategy::HashSpread(HashMode::Ruby) if params.accounts > MAX_RUBY_KEYS => {
            return Err(InvalidInput::new(
                "accounts",
                format!(
                    "{accounts} is above {MAX_RUBY_KEYS}, the most ids Ruby-seeded offsets place quickly"
                ),
            ));
        }
        Strategy::UniformJitter { window_seconds } => {
            in_range("window_seconds", window_seconds, params.cycle_seconds)?;
            accounts * cycles
        }
        Strategy::Slots { slots } => {
            if slots == 0 || !params.cycle_seconds.is_multiple_of(slots) {
                return Err(InvalidInput::new(
                    "slots",
                    format!(
                        "{slots} must be at least 1 and divide the cycle of {cycle} s into whole seconds"
                    ),
                ));
            }
            accounts * cycles
        }
        Strategy::LeastRecentlySynced {
            every_seconds,
            batch,
            spread_seconds,
        } => {
            let every = in_range("every_seconds", every_seconds, MAX_HORIZON)?;
            let batch = in_range("batch", batch, params.accounts)?;
            if spread_seconds > every_seconds {
                return Err(InvalidInput::new(
                    "spread_seconds",
                    format!("{spread_seconds} must be at most every_seconds {every_seconds}"),
                ));
            }
            batch * horizon.div_ceil(every)
        }
        // Poisson counts vary; 5 % over the mean is far beyond any
        // plausible draw at the sizes where the cap matters.
        Strategy::Poisson => (accounts * horizon / cycle) * 21 / 20 + 1,
        _ => accounts * cycles,
    };
    let reports = match &params.reports {
        Some(reports) if reports.shift_seconds >= params.cycle_seconds => {
            return Err(InvalidInput::new(
                "shift_seconds",
                format!(
                    "{} must be below the cycle of {cycle} s",
                    reports.shift_seconds
                ),
            ));
        }
        Some(_) => accounts * cycles,
        None => 0,
    };
    let retries = match &params.downstream {
        Some(downstream) => retry_bound(downstream, syncs, horizon, most_workers)?,
        None => 0,
    };
    let estimate = Estimate {
        syncs,
        reports,
        retries,
    };
    let jobs = estimate.total();
    if jobs > MAX_JOBS {
        return Err(InvalidInput::new(
            "horizon_seconds",
            format!("the run would start about {jobs} jobs, above the limit {MAX_JOBS}"),
        ));
    }
    Ok(estimate)
}

/// Checks the downstream and bounds the retries (see [`estimated_jobs`]).
fn retry_bound(
    downstream: &Downstream,
    syncs: u64,
    horizon: u64,
    workers: u64,
) -> Result<u64, InvalidInput> {
    let max_retries = count_at_most(
        "max_retries",
        u64::from(downstream.max_retries),
        u64::from(backoff::MAX_RETRIES),
    )?;
    let limited_seconds = match downstream.rate_limit_per_second {
        Some(0) => {
            return Err(InvalidInput::new(
                "rate_limit_per_second",
                "must be at least 1 call a second",
            ));
        }
        Some(limit) => syncs / u64::from(limit),
        None => 0,
    };
    let outage_seconds = match downstream.outage {
        Some((start, end)) if start >= end => {
            return Err(InvalidInput::new(
                "outage",
                format!("its start {start} s must come before its end {end} s"),
            ));
        }
        Some((start, end)) => u64::from(end).min(horizon).saturating_sub(u64::from(start)),
        None => 0,
    };
    Ok((syncs * max_retries).min(workers * (outage_seconds + limited_seconds)))
}

/// What a job is: a sync, which calls the downstream and counts as the
/// account's sync, or a report. The kind is the low bit of a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Sync = 0,
    Report = 1,
}

fn event_key(time: u64, account: u32, kind: Kind) -> u64 {
    time << TIME_SHIFT | u64::from(account) << KIND_BITS | kind as u64
}

fn time_of(key: u64) -> u64 {
    key >> TIME_SHIFT
}

fn account_of(key: u64) -> u32 {
    ((key >> KIND_BITS) & ACCOUNT_MASK) as u32
}

fn kind_of(key: u64) -> Kind {
    if key & 1 == 0 {
        Kind::Sync
    } else {
        Kind::Report
    }
}

/// Seconds drawn from a distribution as whole microseconds; `as`
/// saturates, so a huge draw becomes "beyond every horizon".
fn micros(seconds: f64) -> u64 {
    (seconds * MICROS as f64).round() as u64
}

/// Which attempt of its job a start is: the retry (0 for the first
/// attempt) and the wait before it, which decorrelated jitter reads. An
/// f32 keeps a queued job at 16 bytes.
#[derive(Clone, Copy)]
struct Attempt {
    retry: u32,
    wait: f32,
}

impl Attempt {
    const FIRST: Self = Self {
        retry: 0,
        wait: 0.0,
    };
}

/// A job on its way to a worker, keyed by when it fell due, and ordered by
/// that key alone: two retries tie only when they are of one account and
/// due at the same microsecond, and the heap then pops them in an order
/// fixed by its operations, the same on every platform.
#[derive(Clone, Copy)]
struct Job {
    key: u64,
    attempt: Attempt,
}

impl PartialEq for Job {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Job {}

impl PartialOrd for Job {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Job {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}

/// Where a due job waits until it falls due.
#[derive(Clone, Copy)]
enum Source {
    Window,
    Reports,
    Successors,
    Retries,
}

/// The per-strategy state that produces each window's due syncs.
enum Plan {
    Herd,
    Jitter {
        delays: SeededRng,
        window_us: u64,
    },
    Poisson {
        gaps: SeededRng,
        gap: Dist,
        next_due: u64,
        next_account: u32,
    },
    Offsets(Offsets),
    SelfRescheduling(SeededRng),
    LeastRecent {
        spread: SeededRng,
        every_us: u64,
        batch: u32,
        spread_us: u64,
        /// Accounts from longest ago synced to most recently, never-synced
        /// first: finishes come in time order, so a finished account moves
        /// to the back and the list stays sorted by last sync.
        list: SyncOrder,
    },
}

/// Each account's due offset in the cycle as a sorted event key, and for
/// slots the slot length, whose start is when a job is enqueued; other
/// jobs are enqueued when due.
struct Offsets {
    sorted: Vec<u64>,
    slot_us: Option<u64>,
}

impl Offsets {
    fn new(offsets_us: impl Iterator<Item = u64>, slot_us: Option<u64>) -> Self {
        let mut sorted: Vec<u64> = offsets_us
            .zip(0u32..)
            .map(|(offset, account)| event_key(offset, account, Kind::Sync))
            .collect();
        sorted.sort_unstable();
        Self { sorted, slot_us }
    }

    /// The same offsets, their accounts renumbered in offset order. Nothing
    /// in a run needs an account's id once it is placed, and a cycle then
    /// reads each account's state in memory order; jobs due at one instant
    /// keep their order, as their offsets are equal.
    fn numbered_in_order(mut self) -> Self {
        for (rank, key) in (0u32..).zip(self.sorted.iter_mut()) {
            *key = event_key(time_of(*key), rank, Kind::Sync);
        }
        self
    }

    /// The same placement `shift_us` later, wrapped into the cycle.
    fn shifted(&self, shift_us: u64, cycle_us: u64) -> Self {
        let mut offsets = vec![0; self.sorted.len()];
        for &key in &self.sorted {
            offsets[account_of(key) as usize] = (time_of(key) + shift_us) % cycle_us;
        }
        Self::new(offsets.into_iter(), self.slot_us)
    }

    fn push_cycle(&self, jobs: &mut Jobs, cycle_start: u64) {
        for &offset_key in &self.sorted {
            let offset = time_of(offset_key);
            let enqueued = cycle_start + self.slot_us.map_or(offset, |slot| offset - offset % slot);
            jobs.push(enqueued, cycle_start + offset, account_of(offset_key));
        }
    }
}

/// Reports: where they fall due in each cycle, and their durations.
struct Reporting {
    placement: ReportPlacement,
    duration: Dist,
    durations: SeededRng,
}

enum ReportPlacement {
    /// Herd, hash spread and slots: the sync's offsets, shifted.
    Shifted(Offsets),
    /// Strategies whose syncs fall due at random times: a uniform draw
    /// per report.
    Uniform(SeededRng),
}

/// The downstream as the run has used it.
struct Bank {
    config: Downstream,
    /// The attempt of each account's running job whose call was refused
    /// (one job of an account runs at a time).
    refused: Vec<Attempt>,
    outage_us: Option<(u64, u64)>,
    /// The wait before the first retry that decorrelated jitter, the only
    /// strategy reading it, assumes: the base b, its wait for u = 0,
    /// min(c, b + 0) = b.
    first_wait: f64,
    accepted: PerSecond,
    waits: SeededRng,
}

impl Bank {
    fn new(config: Downstream, accounts: u32, seed: u64) -> Self {
        let to_us = |seconds: u32| u64::from(seconds) * MICROS;
        Self {
            config,
            refused: vec![Attempt::FIRST; accounts as usize],
            outage_us: config.outage.map(|(start, end)| (to_us(start), to_us(end))),
            first_wait: config.retry.delay(1, 0.0, 0.0),
            accepted: PerSecond::default(),
            waits: seeded(seed, RETRY_WAITS),
        }
    }

    /// Whether a call at `now` goes through; calls come in time order.
    fn accepts(&mut self, now: u64) -> bool {
        if self
            .outage_us
            .is_some_and(|(start, end)| (start..end).contains(&now))
        {
            return false;
        }
        if let Some(limit) = self.config.rate_limit_per_second {
            let accepted = self.accepted.at(now);
            if *accepted >= limit {
                return false;
            }
            *accepted += 1;
        }
        true
    }

    /// The attempt after `failed` and how long until it is due, or None
    /// when `failed` was the last allowed.
    fn retry_after(&mut self, failed: Attempt) -> Option<(Attempt, u64)> {
        if failed.retry >= self.config.max_retries {
            return None;
        }
        let retry = failed.retry + 1;
        let previous = if failed.retry == 0 {
            self.first_wait
        } else {
            f64::from(failed.wait)
        };
        let wait = self
            .config
            .retry
            .delay(retry, previous, self.waits.random::<f64>());
        let attempt = Attempt {
            retry,
            wait: wait as f32,
        };
        Some((attempt, micros(wait)))
    }
}

/// A count within the whole second of the latest time asked about; times
/// come in order, so a later second starts it from 0. Keeping the second's
/// end spares every call a division.
#[derive(Default)]
struct PerSecond {
    /// The end of the counted second, in µs.
    ends: u64,
    count: u32,
}

impl PerSecond {
    /// The count of the second holding `now`.
    fn at(&mut self, now: u64) -> &mut u32 {
        if now >= self.ends {
            self.ends = (now / MICROS + 1) * MICROS;
            self.count = 0;
        }
        &mut self.count
    }
}

/// A doubly linked list of all accounts over index arrays.
struct SyncOrder {
    next: Vec<u32>,
    prev: Vec<u32>,
    head: u32,
    tail: u32,
}

impl SyncOrder {
    fn new(accounts: u32) -> Self {
        Self {
            next: (1..=accounts)
                .map(|k| if k == accounts { NONE } else { k })
                .collect(),
            prev: (0..accounts)
                .map(|k| k.checked_sub(1).unwrap_or(NONE))
                .collect(),
            head: 0,
            tail: accounts - 1,
        }
    }

    fn move_to_back(&mut self, account: u32) {
        if account == self.tail {
            return;
        }
        let (prev, next) = (self.prev[account as usize], self.next[account as usize]);
        match prev {
            NONE => self.head = next,
            _ => self.next[prev as usize] = next,
        }
        self.prev[next as usize] = prev;
        self.next[self.tail as usize] = account;
        self.prev[account as usize] = self.tail;
        self.next[account as usize] = NONE;
        self.tail = account;
    }
}

/// One bit per account, set while a job of it runs. Every start reads it,
/// so it lives apart from [`Account`], in a 64th of the space, where it
/// stays in cache however randomly accounts come.
struct Locks(Vec<u64>);

impl Locks {
    fn new(accounts: u32) -> Self {
        Self(vec![0; accounts.div_ceil(u64::BITS) as usize])
    }

    fn word_and_bit(account: u32) -> (usize, u64) {
        ((account / u64::BITS) as usize, 1 << (account % u64::BITS))
    }

    fn held(&self, account: u32) -> bool {
        let (word, bit) = Self::word_and_bit(account);
        self.0[word] & bit != 0
    }

    fn set(&mut self, account: u32, held: bool) {
        let (word, bit) = Self::word_and_bit(account);
        if held {
            self.0[word] |= bit;
        } else {
            self.0[word] &= !bit;
        }
    }
}

/// What the run keeps per account in one word, read when its job
/// finishes: whether jobs are parked on it in the top bit, whether its
/// running job's call was refused in the next, and below them when its
/// last sync finished (µs), all ones when none has.
#[derive(Clone, Copy)]
struct Account(u64);

impl Account {
    const PARKED: u64 = 1 << 63;
    const REFUSED: u64 = 1 << 62;
    const LAST_SYNC: u64 = Self::REFUSED - 1;
    const NEW: Self = Self(Self::LAST_SYNC);

    fn has_parked(self) -> bool {
        self.0 & Self::PARKED != 0
    }

    fn refused(self) -> bool {
        self.0 & Self::REFUSED != 0
    }

    fn last_sync(self) -> Option<u64> {
        Some(self.0 & Self::LAST_SYNC).filter(|&time| time != Self::LAST_SYNC)
    }

    fn set(&mut self, bits: u64, on: bool) {
        if on {
            self.0 |= bits;
        } else {
            self.0 &= !bits;
        }
    }

    fn set_last_sync(&mut self, time: u64) {
        self.0 = (self.0 & !Self::LAST_SYNC) | time;
    }
}

/// Jobs parked on held locks. An account's parked jobs form a ring in
/// `slots`, each pointing to the one parked after it and the last back to
/// the first, so one index per account reaches both ends.
struct Parking {
    accounts: u32,
    /// The last job parked on each account, when its PARKED bit is set;
    /// made at the first conflict, as most runs have none.
    last_parked: Vec<u32>,
    slots: Vec<Parked>,
    /// Slots free for reuse, linked through `next`.
    free: u32,
    conflicts: u64,
    /// Time parked by the jobs that have left, and the number and summed
    /// parking times of those still parked, which wait until the horizon.
    left_us: u128,
    still_parked: u64,
    parked_at_sum: u128,
}

struct Parked {
    job: Job,
    since: u64,
    next: u32,
}

impl Parking {
    fn new(accounts: u32) -> Self {
        Self {
            accounts,
            last_parked: Vec::new(),
            slots: Vec::new(),
            free: NONE,
            conflicts: 0,
            left_us: 0,
            still_parked: 0,
            parked_at_sum: 0,
        }
    }

    fn park(&mut self, state: &mut Account, job: Job, now: u64) {
        self.conflicts += 1;
        self.still_parked += 1;
        self.parked_at_sum += u128::from(now);
        let entry = Parked {
            job,
            since: now,
            next: NONE,
        };
        let slot = if self.free == NONE {
            self.slots.push(entry);
            (self.slots.len() - 1) as u32
        } else {
            let slot = self.free;
            self.free = self.slots[slot as usize].next;
            self.slots[slot as usize] = entry;
            slot
        };
        let account = account_of(job.key) as usize;
        if self.last_parked.is_empty() {
            self.last_parked = vec![0; self.accounts as usize];
        }
        let first = if state.has_parked() {
            let last = self.last_parked[account];
            std::mem::replace(&mut self.slots[last as usize].next, slot)
        } else {
            slot
        };
        self.slots[slot as usize].next = first;
        self.last_parked[account] = slot;
        state.set(Account::PARKED, true);
    }

    /// Takes the longest-parked job of `account`, if any.
    fn unpark(&mut self, account: u32, state: &mut Account, now: u64) -> Option<Job> {
        if !state.has_parked() {
            return None;
        }
        let last = self.last_parked[account as usize];
        let first = self.slots[last as usize].next;
        let Parked { job, since, next } = self.slots[first as usize];
        if first == last {
            state.set(Account::PARKED, false);
        } else {
            self.slots[last as usize].next = next;
        }
        self.slots[first as usize].next = self.free;
        self.free = first;
        self.left_us += u128::from(now - since);
        self.still_parked -= 1;
        self.parked_at_sum -= u128::from(since);
        Some(job)
    }

    fn total_us(&self, horizon: u64) -> u128 {
        self.left_us + u128::from(self.still_parked) * u128::from(horizon) - self.parked_at_sum
    }
}

/// The autoscaler and what it has decided so far.
struct Scaler {
    config: Autoscaler,
    check_us: u64,
    next_check: u64,
    /// Ready workers plus those booting.
    provisioned: u32,
    /// Orders of workers: when they are ready, and how many. The boot
    /// delay is the same for all, so this FIFO is sorted.
    booting: VecDeque<(u64, u32)>,
    /// Since when desired has stayed below `provisioned`.
    low_since: Option<u64>,
}

impl Scaler {
    fn new(config: Autoscaler, workers: u32) -> Self {
        let check_us = u64::from(config.check_seconds) * MICROS;
        Self {
            config,
            check_us,
            next_check: check_us,
            provisioned: workers,
            booting: VecDeque::new(),
            low_since: None,
        }
    }

    fn next_ready(&self) -> u64 {
        self.booting.front().map_or(NEVER, |&(ready, _)| ready)
    }

    /// The check at `now`: orders workers, or returns how many ready
    /// workers to keep when it removes some.
    fn check(&mut self, now: u64, busy: u32, waiting: u32) -> Option<u32> {
        let Autoscaler {
            target_depth_per_worker,
            up_delay_seconds,
            down_delay_seconds,
            min_workers,
            max_workers,
            ..
        } = self.config;
        self.next_check = now + self.check_us;
        let desired = busy
            .saturating_add(waiting.div_ceil(target_depth_per_worker))
            .clamp(min_workers, max_workers);
        if desired > self.provisioned {
            let ready = now + u64::from(up_delay_seconds) * MICROS;
            self.booting.push_back((ready, desired - self.provisioned));
            self.provisioned = desired;
            self.low_since = None;
            return None;
        }
        if desired == self.provisioned {
            self.low_since = None;
            return None;
        }
        let since = *self.low_since.get_or_insert(now);
        if self.booting.is_empty() && now - since >= u64::from(down_delay_seconds) * MICROS {
            self.provisioned = desired;
            self.low_since = None;
            return Some(desired);
        }
        None
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
}

/// A window's due jobs, sorted, the next one to fall due, and when the
/// next window opens (and clears this one).
struct Window {
    keys: Vec<u64>,
    cursor: usize,
    next_open: u64,
}

impl Window {
    fn new(capacity: u32, first_open: u64) -> Self {
        Self {
            keys: Vec::with_capacity(capacity as usize),
            cursor: 0,
            next_open: first_open,
        }
    }

    fn next_key(&self) -> u64 {
        self.keys.get(self.cursor).copied().unwrap_or(NEVER)
    }

    fn clear(&mut self) {
        self.keys.clear();
        self.cursor = 0;
    }
}

struct Sim {
    accounts: u32,
    /// Ready workers: jobs start only while fewer are busy.
    workers: usize,
    scaler: Option<Scaler>,
    cycle_us: u64,
    horizon_us: u64,
    /// Up to where events have been processed.
    reached: u64,
    duration: Dist,
    durations: SeededRng,
    plan: Plan,
    window: Window,
    window_index: u64,
    reporting: Option<Reporting>,
    /// Never opens without reports.
    report_window: Window,
    /// Successors of finished jobs; finishes come in time order and each
    /// successor is due one cycle later, so this FIFO is sorted too.
    successors: VecDeque<u64>,
    /// Retries by due key: their waits differ, so only a heap keeps them
    /// in order.
    retries: BinaryHeap<Reverse<Job>>,
    bank: Option<Bank>,
    /// Finish keys of the busy workers.
    busy: BinaryHeap<Reverse<u64>>,
    waiting: VecDeque<Job>,
    locks: Locks,
    account_state: Vec<Account>,
    parking: Parking,
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
    series: Series,
}

impl Sim {
    fn new(params: &SimParams, seed: u64, estimate: &Estimate) -> Self {
        let cycle_us = u64::from(params.cycle_seconds) * MICROS;
        let horizon_us = u64::from(params.horizon_seconds) * MICROS;
        let minutes = params.horizon_seconds.div_ceil(60);
        let bin_seconds = 60 * minutes.div_ceil(MAX_POINTS);
        let bins = params.horizon_seconds.div_ceil(bin_seconds) as usize;
        let plan = match params.strategy {
            Strategy::Herd => Plan::Herd,
            Strategy::UniformJitter { window_seconds } => Plan::Jitter {
                delays: seeded(seed, JITTER),
                window_us: u64::from(window_seconds) * MICROS,
            },
            Strategy::Poisson => {
                let mut gaps = seeded(seed, ARRIVALS);
                let rate = f64::from(params.accounts) / f64::from(params.cycle_seconds);
                // Not `expect`: it would print the error with `Debug`, and
                // that formatting alone weighs over a kilobyte in the wasm.
                let gap = Dist::exponential(rate).unwrap_or_else(|_| {
                    unreachable!("accounts / cycle lies in [1 / MAX_HORIZON, MAX_ACCOUNTS]")
                });
                let next_due = micros(gap.sample(&mut gaps));
                Plan::Poisson {
                    gaps,
                    gap,
                    next_due,
                    next_account: 0,
                }
            }
            Strategy::HashSpread(mode) => {
                let placement = Placement {
                    mode,
                    reduction: Reduction::Mod,
                    window: params.cycle_seconds,
                };
                let offsets = id_offsets(params.accounts, |id| {
                    // Not `expect`, for the reason given for the Poisson gap.
                    placement
                        .offset(id)
                        .unwrap_or_else(|_| unreachable!("decimal ids always seed Ruby"))
                });
                Plan::Offsets(Offsets::new(offsets.into_iter(), None).numbered_in_order())
            }
            Strategy::Slots { slots } => {
                let slot_seconds = params.cycle_seconds / slots;
                let offsets = id_offsets(params.accounts, |id| {
                    let hash = hash::farm_fingerprint32(id.as_bytes());
                    let slot = Reduction::MulShift.reduce(hash, slots);
                    slot * slot_seconds + Reduction::Mod.reduce(hash, slot_seconds)
                });
                let slot_us = u64::from(slot_seconds) * MICROS;
                Plan::Offsets(Offsets::new(offsets.into_iter(), Some(slot_us)).numbered_in_order())
            }
            Strategy::SelfRescheduling => Plan::SelfRescheduling(seeded(seed, JITTER)),
            Strategy::LeastRecentlySynced {
                every_seconds,
                batch,
                spread_seconds,
            } => Plan::LeastRecent {
                spread: seeded(seed, BATCH_SPREAD),
                every_us: u64::from(every_seconds) * MICROS,
                batch,
                spread_us: u64::from(spread_seconds) * MICROS,
                list: SyncOrder::new(params.accounts),
            },
        };
        let reporting = params.reports.as_ref().map(|reports| {
            let shift_us = u64::from(reports.shift_seconds) * MICROS;
            let placement = match &plan {
                Plan::Herd => ReportPlacement::Shifted(Offsets::new(
                    std::iter::repeat_n(shift_us, params.accounts as usize),
                    None,
                )),
                Plan::Offsets(offsets) => {
                    ReportPlacement::Shifted(offsets.shifted(shift_us, cycle_us))
                }
                _ => ReportPlacement::Uniform(seeded(seed, REPORT_TIMES)),
            };
            Reporting {
                placement,
                duration: reports.duration.clone(),
                durations: seeded(seed, REPORT_DURATIONS),
            }
        });
        let window_capacity = match params.strategy {
            Strategy::LeastRecentlySynced { batch, .. } => batch,
            _ => params.accounts,
        };
        let (report_capacity, first_report_window) = match reporting {
            Some(_) => (params.accounts, 0),
            None => (0, NEVER),
        };
        let most_workers = params
            .autoscaler
            .map_or(params.workers, |config| config.max_workers);
        Self {
            accounts: params.accounts,
            workers: params.workers as usize,
            scaler: params
                .autoscaler
                .map(|config| Scaler::new(config, params.workers)),
            cycle_us,
            horizon_us,
            reached: 0,
            duration: params.duration.clone(),
            durations: seeded(seed, DURATIONS),
            plan,
            window: Window::new(window_capacity, 0),
            window_index: 0,
            reporting,
            report_window: Window::new(report_capacity, first_report_window),
            successors: VecDeque::new(),
            retries: BinaryHeap::new(),
            bank: params
                .downstream
                .map(|config| Bank::new(config, params.accounts, seed)),
            busy: BinaryHeap::with_capacity(most_workers as usize),
            waiting: VecDeque::new(),
            locks: Locks::new(params.accounts),
            account_state: vec![Account::NEW; params.accounts as usize],
            parking: Parking::new(params.accounts),
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
            series: Series::new(u64::from(bin_seconds) * MICROS, bins),
        }
    }

    /// Processes every event before `until`, capped at the horizon.
    fn run(&mut self, until: u64) {
        let until = until.min(self.horizon_us);
        loop {
            let finish = self.busy.peek().map_or(NEVER, |Reverse(key)| time_of(*key));
            let (ready, check) = self.scaler.as_ref().map_or((NEVER, NEVER), |scaler| {
                (scaler.next_ready(), scaler.next_check)
            });
            let (due_key, source) = self.next_due();
            let now = finish
                .min(ready)
                .min(check)
                .min(self.window.next_open)
                .min(self.report_window.next_open)
                .min(time_of(due_key));
            if now >= until {
                break;
            }
            self.advance_series(now);
            if finish == now {
                self.finish(now);
            } else if ready == now {
                self.workers_ready(now);
            } else if check == now {
                self.check_scale(now);
            } else if self.window.next_open == now {
                self.open_window(now);
            } else if self.report_window.next_open == now {
                self.open_report_window(now);
            } else {
                self.arrive(now, due_key, source);
            }
        }
        self.reached = self.reached.max(until);
    }

    fn advance_series(&mut self, now: u64) {
        self.series.advance(
            now,
            self.busy.len() as u64,
            self.workers as u64,
            self.waiting.len() as u32,
        );
    }

    fn workers_ready(&mut self, now: u64) {
        let Some((_, count)) = self.scaler.as_mut().and_then(|s| s.booting.pop_front()) else {
            return;
        };
        self.workers += count as usize;
        self.take_waiting(now);
    }

    fn check_scale(&mut self, now: u64) {
        let (busy, waiting) = (self.busy.len() as u32, self.waiting.len() as u32);
        if let Some(keep) = self
            .scaler
            .as_mut()
            .and_then(|s| s.check(now, busy, waiting))
        {
            self.workers = keep as usize;
        }
    }

    /// The key of the next job to fall due and where it waits; its time
    /// is NEVER when no job is left. Ties go to the earlier source.
    fn next_due(&self) -> (u64, Source) {
        let successor = self.successors.front().copied().unwrap_or(NEVER);
        let retry = self.retries.peek().map_or(NEVER, |Reverse(job)| job.key);
        let mut next = (self.window.next_key(), Source::Window);
        for candidate in [
            (self.report_window.next_key(), Source::Reports),
            (successor, Source::Successors),
            (retry, Source::Retries),
        ] {
            if candidate.0 < next.0 {
                next = candidate;
            }
        }
        next
    }

    /// Takes the job of `key` from `source` and starts or queues it.
    fn arrive(&mut self, now: u64, key: u64, source: Source) {
        let first_attempt = Job {
            key,
            attempt: Attempt::FIRST,
        };
        let job = match source {
            Source::Window => {
                self.window.cursor += 1;
                first_attempt
            }
            Source::Reports => {
                self.report_window.cursor += 1;
                first_attempt
            }
            Source::Successors => {
                self.successors.pop_front();
                first_attempt
            }
            Source::Retries => self
                .retries
                .pop()
                .map_or(first_attempt, |Reverse(retry)| retry),
        };
        if self.busy.len() < self.workers {
            self.start(now, job);
        } else {
            self.enqueue(job);
        }
    }

    fn enqueue(&mut self, job: Job) {
        self.waiting.push_back(job);
        let depth = self.waiting.len() as u32;
        self.max_queue_depth = self.max_queue_depth.max(u64::from(depth));
        self.series.note_depth(depth);
    }

    /// Idle workers take waiting jobs, oldest first, past lock conflicts.
    fn take_waiting(&mut self, now: u64) {
        while self.busy.len() < self.workers {
            let Some(next) = self.waiting.pop_front() else {
                break;
            };
            self.start(now, next);
        }
    }

    /// Starts `job` on an idle worker, or parks it when its account's
    /// lock is held.
    fn start(&mut self, now: u64, job: Job) {
        let account = account_of(job.key);
        if self.locks.held(account) {
            let state = &mut self.account_state[account as usize];
            self.parking.park(state, job, now);
            let bin = self.series.bin;
            self.series.lock_conflicts[bin] += 1;
            return;
        }
        self.locks.set(account, true);
        self.waits_us.push(now - time_of(job.key));
        let kind = kind_of(job.key);
        if kind == Kind::Sync {
            let calls = self.calls.at(now);
            *calls += 1;
            self.peak_calls_per_second = self.peak_calls_per_second.max(*calls);
        }
        let work_us = if kind == Kind::Report {
            self.report_us()
        } else if self.bank.as_mut().is_some_and(|bank| !bank.accepts(now)) {
            self.refuse(account, job.attempt);
            REFUSED_CALL_US
        } else {
            micros(self.duration.sample(&mut self.durations))
        };
        let finish = now.saturating_add(work_us).min(self.horizon_us);
        self.busy.push(Reverse(event_key(finish, account, kind)));
    }

    fn report_us(&mut self) -> u64 {
        self.reporting.as_mut().map_or(0, |reporting| {
            micros(reporting.duration.sample(&mut reporting.durations))
        })
    }

    fn refuse(&mut self, account: u32, attempt: Attempt) {
        self.failed_calls += 1;
        let bin = self.series.bin;
        self.series.failed[bin] += 1;
        self.account_state[account as usize].set(Account::REFUSED, true);
        if let Some(bank) = &mut self.bank {
            bank.refused[account as usize] = attempt;
            if attempt.retry >= bank.config.max_retries {
                self.gave_up += 1;
            }
        }
    }

    fn finish(&mut self, now: u64) {
        let Some(Reverse(key)) = self.busy.pop() else {
            return;
        };
        let account = account_of(key);
        self.locks.set(account, false);
        let state = &mut self.account_state[account as usize];
        let refused = state.refused();
        state.set(Account::REFUSED, false);
        let unparked = self.parking.unpark(account, state, now);
        if refused {
            self.schedule_retry(now, account);
        } else {
            self.jobs_done += 1;
            let bin = self.series.bin;
            self.series.done[bin] += 1;
            if kind_of(key) == Kind::Sync {
                self.synced(now, account, bin);
            }
        }
        if let Some(job) = unparked {
            self.enqueue(job);
        }
        self.take_waiting(now);
    }

    fn synced(&mut self, now: u64, account: u32, bin: usize) {
        let state = &mut self.account_state[account as usize];
        if let Some(last) = state.last_sync() {
            self.sync_intervals.push(now - last);
        }
        state.set_last_sync(now);
        match &mut self.plan {
            Plan::LeastRecent { list, .. } => list.move_to_back(account),
            Plan::SelfRescheduling(_) => {
                let due = now + self.cycle_us;
                if due < self.horizon_us {
                    self.successors
                        .push_back(event_key(due, account, Kind::Sync));
                    self.series.ingress[bin] += 1;
                    self.jobs_enqueued += 1;
                }
            }
            _ => {}
        }
    }

    fn schedule_retry(&mut self, now: u64, account: u32) {
        let Some((attempt, wait_us)) = self.bank.as_mut().and_then(|bank| {
            let failed = bank.refused[account as usize];
            bank.retry_after(failed)
        }) else {
            return;
        };
        let due = now.saturating_add(wait_us);
        if due < self.horizon_us {
            self.retries.push(Reverse(Job {
                key: event_key(due, account, Kind::Sync),
                attempt,
            }));
            self.retries_due += 1;
            let bin = self.series.bin_of(due);
            self.series.ingress[bin] += 1;
        }
    }

    fn jobs<'a>(
        window: &'a mut Window,
        series: &'a mut Series,
        enqueued: &'a mut u64,
        horizon: u64,
        kind: Kind,
    ) -> Jobs<'a> {
        window.clear();
        Jobs {
            window: &mut window.keys,
            series,
            enqueued,
            horizon,
            kind,
        }
    }

    /// Fills the window that opens at `now` with its due syncs.
    fn open_window(&mut self, now: u64) {
        let index = self.window_index;
        self.window_index += 1;
        let horizon = self.horizon_us;
        let mut jobs = Self::jobs(
            &mut self.window,
            &mut self.series,
            &mut self.jobs_enqueued,
            horizon,
            Kind::Sync,
        );
        let cycle_end = now + self.cycle_us;
        let next_open = match &mut self.plan {
            Plan::Herd => {
                (0..self.accounts).for_each(|account| jobs.push(now, now, account));
                cycle_end
            }
            Plan::Jitter { delays, window_us } => {
                jobs.push_uniform(delays, now, *window_us, self.accounts);
                cycle_end
            }
            Plan::Poisson {
                gaps,
                gap,
                next_due,
                next_account,
            } => {
                while *next_due < cycle_end.min(horizon) {
                    jobs.push(*next_due, *next_due, *next_account);
                    *next_account = (*next_account + 1) % self.accounts;
                    *next_due = next_due.saturating_add(micros(gap.sample(gaps)));
                }
                cycle_end
            }
            Plan::Offsets(offsets) => {
                offsets.push_cycle(&mut jobs, now);
                cycle_end
            }
            // Its only window opens at 0; finishes enqueue the rest.
            Plan::SelfRescheduling(rng) => {
                jobs.push_uniform(rng, now, self.cycle_us, self.accounts);
                NEVER
            }
            Plan::LeastRecent {
                spread,
                every_us,
                batch,
                spread_us,
                list,
            } => {
                let mut account = list.head;
                for _ in 0..*batch {
                    let delay = if *spread_us == 0 {
                        0
                    } else {
                        spread.random_range(0..*spread_us)
                    };
                    jobs.push(now, now + delay, account);
                    account = list.next[account as usize];
                }
                jobs.window.sort_unstable();
                (index + 1) * *every_us
            }
        };
        self.window.next_open = next_open;
    }

    /// Fills the cycle opening at `now` with its due reports.
    fn open_report_window(&mut self, now: u64) {
        let Some(reporting) = &mut self.reporting else {
            return;
        };
        let mut jobs = Self::jobs(
            &mut self.report_window,
            &mut self.series,
            &mut self.jobs_enqueued,
            self.horizon_us,
            Kind::Report,
        );
        match &mut reporting.placement {
            ReportPlacement::Shifted(offsets) => offsets.push_cycle(&mut jobs, now),
            ReportPlacement::Uniform(rng) => {
                jobs.push_uniform(rng, now, self.cycle_us, self.accounts);
            }
        }
        self.report_window.next_open = now + self.cycle_us;
    }

    fn into_run(mut self) -> SimRun {
        self.advance_series(self.horizon_us);
        let busy_total: u64 = self.series.busy_us.iter().sum();
        let ready_total: u64 = self.series.ready_us.iter().sum();
        let waits = &mut self.waits_us;
        let started = waits.len() as u64;
        let total_wait: u128 = waits.iter().map(|&w| u128::from(w)).sum();
        let mean_wait_s = if started == 0 {
            0.0
        } else {
            (total_wait as f64 / started as f64) / MICROS as f64
        };
        let [p50_wait_s, p95_wait_s, p99_wait_s] = nearest_ranks(waits, [50, 95, 99]).map(seconds);
        let (wait_bin_us, wait_histogram) = histogram(waits, 0);
        let (sync_interval_start_seconds, sync_interval_bin_seconds, sync_interval_histogram) =
            self.sync_intervals.histogram();
        let lock_wait_us = self.parking.total_us(self.horizon_us);
        let series = self.series;
        let per_bin = |worker_us: &[u64]| {
            worker_us
                .iter()
                .enumerate()
                .map(|(bin, &total)| {
                    let start = bin as u64 * series.bin_us;
                    let width = (start + series.bin_us).min(self.horizon_us) - start;
                    total as f64 / width as f64
                })
                .collect()
        };
        let executing = per_bin(&series.busy_us);
        let workers = per_bin(&series.ready_us);
        let never_synced = self
            .account_state
            .iter()
            .filter(|account| account.last_sync().is_none())
            .count() as u32;
        SimRun {
            summary: Summary {
                jobs_enqueued: self.jobs_enqueued,
                jobs_done: self.jobs_done,
                mean_wait_s,
                p50_wait_s,
                p95_wait_s,
                p99_wait_s,
                max_queue_depth: self.max_queue_depth,
                utilization: busy_total as f64 / ready_total as f64,
                never_synced,
                lock_conflicts: self.parking.conflicts,
                lock_wait_s: lock_wait_us as f64 / MICROS as f64,
                failed_calls: self.failed_calls,
                retries: self.retries_due,
                gave_up: self.gave_up,
                max_sync_interval_s: seconds(self.sync_intervals.longest_us),
                peak_calls_per_second: self.peak_calls_per_second,
            },
            bin_seconds: (series.bin_us / MICROS) as u32,
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

fn seconds(us: u64) -> f64 {
    us as f64 / MICROS as f64
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

/// Each account's offset in seconds, from its decimal id, as microseconds.
fn id_offsets(accounts: u32, mut offset: impl FnMut(&str) -> u32) -> Vec<u64> {
    let mut id = String::new();
    (0..accounts)
        .map(|account| {
            id.clear();
            write!(id, "{}", u64::from(account) + 1).expect("writing to a String cannot fail");
            u64::from(offset(&id)) * MICROS
        })
        .collect()
}

/// Adds a window's jobs of one kind, counting those due before the
/// horizon.
struct Jobs<'a> {
    window: &'a mut Vec<u64>,
    series: &'a mut Series,
    enqueued: &'a mut u64,
    horizon: u64,
    kind: Kind,
}

impl Jobs<'_> {
    fn push(&mut self, enqueued: u64, due: u64, account: u32) {
        if due < self.horizon {
            self.window.push(event_key(due, account, self.kind));
            let bin = self.series.bin_of(enqueued);
            self.series.ingress[bin] += 1;
            *self.enqueued += 1;
        }
    }

    /// Every account due once at a uniform time in [from, from + width),
    /// enqueued when due, in time order.
    fn push_uniform(&mut self, rng: &mut SeededRng, from: u64, width: u64, accounts: u32) {
        for account in 0..accounts {
            let due = from + rng.random_range(0..width);
            self.push(due, due, account);
        }
        self.window.sort_unstable();
    }
}
