//! Queue simulation: N accounts, W workers, and a strategy that decides when
//! each account's sync job enters the queue, run from event to event.
//!
//! Time is whole microseconds in u64. The clock jumps to the next event:
//! a job falling due, a worker finishing, or a strategy's next window
//! (a cycle, or a batch of the least-recently-synced strategy) opening.
//! A due job starts at once on an idle worker, else it waits in one FIFO
//! queue; a finishing worker takes the oldest waiting job. Its wait (start
//! delay) is start − due; its duration is a draw from a [`Dist`].
//! Events at one instant run finishes first, then the window, then due
//! jobs, ties among jobs by account number, so a seed replays exactly.
//!
//! Strategies, each syncing every account about once per cycle of C s:
//! - herd: every account due at k·C (cron at one instant);
//! - uniform jitter: due at k·C + u, u uniform in [0, C), drawn anew each
//!   cycle, enqueued when due;
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
//! The engine keeps [`crate::scheduler`]'s ordering (one packed integer
//! key, time first) but not its API: that scheduler keeps a record per
//! event for cancelling, rescheduling and retries, and would push every
//! one of a million due jobs through its heap. Here a window's due jobs
//! are known when it opens, so they sit in one sorted array, successors in
//! a FIFO that stays sorted, and only the W busy workers need a heap; no
//! allocation happens per job.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::fmt::Write;

use rand::RngExt;
use serde::Serialize;

use crate::dist::Dist;
use crate::error::{InvalidInput, positive};
use crate::hash;
use crate::rng::{Purpose, SeededRng, seeded};
use crate::spread::{HashMode, MAX_RUBY_KEYS, Placement, Reduction};

/// The most accounts a run simulates (their number fits the 20 account
/// bits of an event key).
pub const MAX_ACCOUNTS: u32 = 1_000_000;
/// The most workers.
pub const MAX_WORKERS: u32 = 10_000;
/// The longest horizon, and the longest cycle: 90 days. Twice its
/// microseconds fit the 44 time bits of an event key, so a window opening
/// before the horizon never packs a due time that overflows them.
pub const MAX_HORIZON: u32 = 90 * 86_400;
/// The most jobs a run may enqueue, about a second of simulation natively.
pub const MAX_JOBS: u64 = 5_000_000;
/// The most points of each time series.
pub const MAX_POINTS: u32 = 2_000;
/// Bins of the wait histogram.
pub const WAIT_BINS: u32 = 50;

const MICROS: u64 = 1_000_000;
/// An event key is time << 20 | account: one integer comparison orders
/// events by time and then by account, as the scheduler's keys do.
const ACCOUNT_BITS: u32 = 20;
const ACCOUNT_MASK: u64 = (1 << ACCOUNT_BITS) - 1;
/// No event: later than every horizon.
const NEVER: u64 = u64::MAX;
/// The end of the least-recently-synced list.
const NONE: u32 = u32::MAX;

const DURATIONS: Purpose = Purpose::new("sim.durations");
const JITTER: Purpose = Purpose::new("sim.jitter");
const ARRIVALS: Purpose = Purpose::new("sim.poisson");
const BATCH_SPREAD: Purpose = Purpose::new("sim.batch_spread");

/// When each account's sync job enters the queue (see the module text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Herd,
    UniformJitter,
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
    /// Job durations in seconds.
    pub duration: Dist,
    pub strategy: Strategy,
    pub autoscaler: Option<Autoscaler>,
}

/// The run's totals. Lock conflicts are left out until jobs take locks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Jobs due before the horizon.
    pub jobs_enqueued: u64,
    /// Jobs finished before the horizon.
    pub jobs_done: u64,
    /// Over the jobs that started before the horizon; 0 when none did.
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
    /// Accounts with no finished job by the horizon.
    pub never_synced: u32,
}

/// A run: its summary, time series over bins of `bin_seconds` (the last
/// one shorter when the bin does not divide the horizon), and the wait
/// histogram.
#[derive(Clone, Debug, PartialEq, Serialize)]
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
    /// Jobs entering the queue in the bin: when they fall due, except
    /// slot jobs (at their slot's start), batch jobs (at the batch time)
    /// and successors (at their predecessor's finish).
    pub ingress: Vec<u32>,
    /// Jobs finishing in the bin.
    pub done: Vec<u32>,
    /// Bin k of `wait_histogram` counts waits in [k·w, (k + 1)·w).
    pub wait_bin_seconds: f64,
    pub wait_histogram: Vec<u32>,
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

/// Simulates `params` under `seed`.
pub fn simulate(params: &SimParams, seed: u64) -> Result<SimRun, InvalidInput> {
    let expected_jobs = validate(params)?;
    let mut sim = Sim::new(params, seed, expected_jobs);
    sim.run();
    Ok(sim.into_run())
}

/// Checks every field and returns an upper estimate of the jobs.
fn validate(params: &SimParams) -> Result<u64, InvalidInput> {
    let in_range = |field: &'static str, value: u32, max: u32| {
        if (1..=max).contains(&value) {
            Ok(u64::from(value))
        } else {
            Err(InvalidInput::new(
                field,
                format!("{value} is outside [1, {max}]"),
            ))
        }
    };
    let accounts = in_range("accounts", params.accounts, MAX_ACCOUNTS)?;
    in_range("workers", params.workers, MAX_WORKERS)?;
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
        in_range("max_workers", scaler.max_workers, MAX_WORKERS)?;
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
    let jobs = match params.strategy {
        Strategy::HashSpread(HashMode::Ruby) if params.accounts > MAX_RUBY_KEYS => {
            return Err(InvalidInput::new(
                "accounts",
                format!(
                    "{accounts} is above {MAX_RUBY_KEYS}, the most ids Ruby-seeded offsets place quickly"
                ),
            ));
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
    if jobs > MAX_JOBS {
        return Err(InvalidInput::new(
            "horizon_seconds",
            format!("the run would enqueue about {jobs} jobs, above the limit {MAX_JOBS}"),
        ));
    }
    Ok(jobs)
}

fn event_key(time: u64, account: u32) -> u64 {
    time << ACCOUNT_BITS | u64::from(account)
}

fn time_of(key: u64) -> u64 {
    key >> ACCOUNT_BITS
}

fn account_of(key: u64) -> u32 {
    (key & ACCOUNT_MASK) as u32
}

/// Seconds drawn from a distribution as whole microseconds; `as`
/// saturates, so a huge draw becomes "beyond every horizon".
fn micros(seconds: f64) -> u64 {
    (seconds * MICROS as f64).round() as u64
}

/// The per-strategy state that produces each window's due jobs.
enum Plan {
    Herd,
    Jitter(SeededRng),
    Poisson {
        gaps: SeededRng,
        gap: Dist,
        next_due: u64,
        next_account: u32,
    },
    /// Hash spread and slots: each account's due offset in the cycle as a
    /// sorted event key, and for slots the slot length, whose start is
    /// when a job is enqueued; hash-spread jobs are enqueued when due.
    Offsets {
        sorted: Vec<u64>,
        slot_us: Option<u64>,
    },
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
    bin: usize,
    /// Up to where busy time has been added.
    integrated_to: u64,
    queue_depth: Vec<u32>,
    busy_us: Vec<u64>,
    ready_us: Vec<u64>,
    ingress: Vec<u32>,
    done: Vec<u32>,
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

struct Sim {
    accounts: u32,
    /// Ready workers: jobs start only while fewer are busy.
    workers: usize,
    scaler: Option<Scaler>,
    cycle_us: u64,
    horizon_us: u64,
    duration: Dist,
    durations: SeededRng,
    plan: Plan,
    /// The open window's due jobs, sorted, and the next one to fall due.
    window: Vec<u64>,
    cursor: usize,
    next_window: u64,
    window_index: u64,
    /// Successors of finished jobs; finishes come in time order and each
    /// successor is due one cycle later, so this FIFO is sorted too.
    successors: VecDeque<u64>,
    /// Finish keys of the busy workers.
    busy: BinaryHeap<Reverse<u64>>,
    waiting: VecDeque<u64>,
    waits_us: Vec<u64>,
    synced: Vec<bool>,
    jobs_enqueued: u64,
    jobs_done: u64,
    max_queue_depth: u64,
    series: Series,
}

impl Sim {
    fn new(params: &SimParams, seed: u64, expected_jobs: u64) -> Self {
        let cycle_us = u64::from(params.cycle_seconds) * MICROS;
        let horizon_us = u64::from(params.horizon_seconds) * MICROS;
        let minutes = params.horizon_seconds.div_ceil(60);
        let bin_seconds = 60 * minutes.div_ceil(MAX_POINTS);
        let bins = params.horizon_seconds.div_ceil(bin_seconds) as usize;
        let plan = match params.strategy {
            Strategy::Herd => Plan::Herd,
            Strategy::UniformJitter => Plan::Jitter(seeded(seed, JITTER)),
            Strategy::Poisson => {
                let mut gaps = seeded(seed, ARRIVALS);
                let rate = f64::from(params.accounts) / f64::from(params.cycle_seconds);
                let gap = Dist::exponential(rate)
                    .expect("accounts / cycle lies in [1 / MAX_HORIZON, MAX_ACCOUNTS]");
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
                    placement.offset(id).expect("decimal ids always seed Ruby")
                });
                Plan::Offsets {
                    sorted: sorted_keys(offsets),
                    slot_us: None,
                }
            }
            Strategy::Slots { slots } => {
                let slot_seconds = params.cycle_seconds / slots;
                let offsets = id_offsets(params.accounts, |id| {
                    let hash = hash::farm_fingerprint32(id.as_bytes());
                    let slot = Reduction::MulShift.reduce(hash, slots);
                    slot * slot_seconds + Reduction::Mod.reduce(hash, slot_seconds)
                });
                Plan::Offsets {
                    sorted: sorted_keys(offsets),
                    slot_us: Some(u64::from(slot_seconds) * MICROS),
                }
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
        let window_capacity = match params.strategy {
            Strategy::LeastRecentlySynced { batch, .. } => batch,
            _ => params.accounts,
        };
        Self {
            accounts: params.accounts,
            workers: params.workers as usize,
            scaler: params
                .autoscaler
                .map(|config| Scaler::new(config, params.workers)),
            cycle_us,
            horizon_us,
            duration: params.duration.clone(),
            durations: seeded(seed, DURATIONS),
            plan,
            window: Vec::with_capacity(window_capacity as usize + 1),
            cursor: 0,
            next_window: 0,
            window_index: 0,
            successors: VecDeque::new(),
            busy: BinaryHeap::with_capacity(
                params
                    .autoscaler
                    .map_or(params.workers, |config| config.max_workers) as usize,
            ),
            waiting: VecDeque::new(),
            waits_us: Vec::with_capacity(expected_jobs as usize),
            synced: vec![false; params.accounts as usize],
            jobs_enqueued: 0,
            jobs_done: 0,
            max_queue_depth: 0,
            series: Series::new(u64::from(bin_seconds) * MICROS, bins),
        }
    }

    fn run(&mut self) {
        loop {
            let finish = self.busy.peek().map_or(NEVER, |Reverse(key)| time_of(*key));
            let (ready, check) = self.scaler.as_ref().map_or((NEVER, NEVER), |scaler| {
                (scaler.next_ready(), scaler.next_check)
            });
            let due_key = self.next_due_key();
            let now = finish
                .min(ready)
                .min(check)
                .min(self.next_window)
                .min(time_of(due_key));
            if now >= self.horizon_us {
                break;
            }
            self.advance_series(now);
            if finish == now {
                self.finish(now);
            } else if ready == now {
                self.workers_ready(now);
            } else if check == now {
                self.check_scale(now);
            } else if self.next_window == now {
                self.open_window(now);
            } else {
                self.arrive(now);
            }
        }
        self.advance_series(self.horizon_us);
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
        while self.busy.len() < self.workers {
            let Some(next) = self.waiting.pop_front() else {
                break;
            };
            self.start(now, next);
        }
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

    /// The key of the next job to fall due, or one whose time is NEVER.
    fn next_due_key(&self) -> u64 {
        let in_window = self.window.get(self.cursor).copied().unwrap_or(NEVER);
        let successor = self.successors.front().copied().unwrap_or(NEVER);
        in_window.min(successor)
    }

    fn arrive(&mut self, now: u64) {
        let key = if self.window.get(self.cursor).copied().unwrap_or(NEVER)
            <= self.successors.front().copied().unwrap_or(NEVER)
        {
            self.cursor += 1;
            self.window[self.cursor - 1]
        } else {
            self.successors.pop_front().unwrap_or(NEVER)
        };
        if self.busy.len() < self.workers {
            self.start(now, key);
        } else {
            self.waiting.push_back(key);
            let depth = self.waiting.len() as u32;
            self.max_queue_depth = self.max_queue_depth.max(u64::from(depth));
            self.series.note_depth(depth);
        }
    }

    fn start(&mut self, now: u64, due_key: u64) {
        self.waits_us.push(now - time_of(due_key));
        let finish = now
            .saturating_add(micros(self.duration.sample(&mut self.durations)))
            .min(self.horizon_us);
        self.busy
            .push(Reverse(event_key(finish, account_of(due_key))));
    }

    fn finish(&mut self, now: u64) {
        let Some(Reverse(key)) = self.busy.pop() else {
            return;
        };
        let account = account_of(key);
        self.jobs_done += 1;
        let bin = self.series.bin_of(now);
        self.series.done[bin] += 1;
        self.synced[account as usize] = true;
        match &mut self.plan {
            Plan::LeastRecent { list, .. } => list.move_to_back(account),
            Plan::SelfRescheduling(_) => {
                let due = now + self.cycle_us;
                if due < self.horizon_us {
                    self.successors.push_back(event_key(due, account));
                    self.series.ingress[bin] += 1;
                    self.jobs_enqueued += 1;
                }
            }
            _ => {}
        }
        if self.busy.len() < self.workers
            && let Some(next) = self.waiting.pop_front()
        {
            self.start(now, next);
        }
    }

    /// Fills the window that opens at `now` with its due jobs.
    fn open_window(&mut self, now: u64) {
        self.window.clear();
        self.cursor = 0;
        let index = self.window_index;
        self.window_index += 1;
        let horizon = self.horizon_us;
        let mut jobs = Jobs {
            window: &mut self.window,
            series: &mut self.series,
            enqueued: &mut self.jobs_enqueued,
            horizon,
        };
        let cycle_end = now + self.cycle_us;
        self.next_window = match &mut self.plan {
            Plan::Herd => {
                (0..self.accounts).for_each(|account| jobs.push(now, now, account));
                cycle_end
            }
            Plan::Jitter(rng) => {
                jobs.push_uniform(rng, now, self.cycle_us, self.accounts);
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
            Plan::Offsets { sorted, slot_us } => {
                for &offset_key in sorted.iter() {
                    let offset = time_of(offset_key);
                    let enqueued = now + slot_us.map_or(offset, |slot| offset - offset % slot);
                    jobs.push(enqueued, now + offset, account_of(offset_key));
                }
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
    }

    fn into_run(mut self) -> SimRun {
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
        let mut percentile = |p: u64| seconds(nearest_rank(waits, p));
        let (p50_wait_s, p95_wait_s, p99_wait_s) = (percentile(50), percentile(95), percentile(99));
        let (wait_bin_seconds, wait_histogram) = wait_histogram(waits);
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
                never_synced: self.synced.iter().filter(|&&synced| !synced).count() as u32,
            },
            bin_seconds: (series.bin_us / MICROS) as u32,
            queue_depth: series.queue_depth,
            executing,
            workers,
            ingress: series.ingress,
            done: series.done,
            wait_bin_seconds,
            wait_histogram,
        }
    }
}

fn seconds(us: u64) -> f64 {
    us as f64 / MICROS as f64
}

/// The nearest-rank percentile p of `values` (reordered): the value of
/// rank ⌈p·n / 100⌉; 0 for no values.
fn nearest_rank(values: &mut [u64], p: u64) -> u64 {
    let n = values.len() as u64;
    if n == 0 {
        return 0;
    }
    let rank = (p * n).div_ceil(100).max(1);
    *values.select_nth_unstable((rank - 1) as usize).1
}

/// [`WAIT_BINS`] equal bins from 0 to just past the longest wait, their
/// width a whole number of microseconds.
fn wait_histogram(waits: &[u64]) -> (f64, Vec<u32>) {
    let longest = waits.iter().copied().max().unwrap_or(0);
    let width = (longest + 1).div_ceil(u64::from(WAIT_BINS));
    let mut counts = vec![0u32; WAIT_BINS as usize];
    for &wait in waits {
        counts[(wait / width) as usize] += 1;
    }
    (seconds(width), counts)
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

/// Offsets as event keys (offset, account), sorted.
fn sorted_keys(offsets: Vec<u64>) -> Vec<u64> {
    let mut keys: Vec<u64> = offsets
        .into_iter()
        .zip(0u32..)
        .map(|(offset, account)| event_key(offset, account))
        .collect();
    keys.sort_unstable();
    keys
}

/// Adds a window's jobs, counting those due before the horizon.
struct Jobs<'a> {
    window: &'a mut Vec<u64>,
    series: &'a mut Series,
    enqueued: &'a mut u64,
    horizon: u64,
}

impl Jobs<'_> {
    fn push(&mut self, enqueued: u64, due: u64, account: u32) {
        if due < self.horizon {
            self.window.push(event_key(due, account));
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
