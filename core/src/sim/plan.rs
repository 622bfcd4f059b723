//! When jobs fall due: each schedule's plan, report times, and the sources
//! of due jobs the engine draws from.
//!
//! # Plans
//!
//! What each schedule means is on [`SyncSchedule`]; a [`Plan`] is the state
//! that carries it out, filling a window of due syncs each time one opens:
//! once per cycle for most, every T s for least recently synced, and only
//! at 0 for self-rescheduling, whose later syncs are the successors of
//! finished ones. An imported trace's window takes the trace's jobs due
//! in its cycle. Account k (from 0) has the decimal id "k + 1". Herd,
//! hash spread and slots place every account at a fixed offset in the
//! cycle ([`Offsets`]), computed once; hash spread and slots then number
//! their accounts in the order of their offsets, which keeps the engine's
//! order of syncs due at one instant.
//!
//! # Reports
//!
//! Where syncs sit at fixed offsets, reports take the same offsets
//! shifted ([`ReportTimes::Shifted`]); elsewhere each report's time is a
//! uniform draw in its cycle ([`ReportTimes::Uniform`]), as
//! [`Reports`](super::Reports) explains.
//!
//! # Sources
//!
//! A window's due jobs are known when it opens, so they sit in one sorted
//! array; successors wait in a FIFO that stays sorted, and only the
//! retries, whose waits differ, need a heap. No allocation happens per
//! job.

use std::collections::VecDeque;
use std::fmt::Write;
use std::sync::Arc;

use rand::RngExt;

use super::event::{Attempt, Job, JobKind, NEVER, account_of, event_key, time_of};
use super::metrics::Metrics;
use super::{ImportedJobs, NO_INDEX, SimParams, SyncSchedule};
use crate::dist::Dist;
use crate::hash;
use crate::hash_spread::{HashMode, Placement, Reduction};
use crate::rng::{Purpose, SeededRng, seeded};
use crate::scheduler::{MinHeap, micros, micros_of_whole};
use crate::slots::even_slot_of;

const JITTER: Purpose = Purpose::new("sim.jitter");
const ARRIVALS: Purpose = Purpose::new("sim.poisson");
const BATCH_SPREAD: Purpose = Purpose::new("sim.batch_spread");
const REPORT_TIMES: Purpose = Purpose::new("sim.report_times");

/// Where a due job waits until it falls due.
#[derive(Clone, Copy)]
pub(super) enum Source {
    Window,
    Reports,
    Successors,
    Retries,
}

/// Every job not yet due: the plan that fills each window, the windows of
/// syncs and reports, the successors and the retries.
pub(super) struct Arrivals {
    accounts: u32,
    cycle_us: u64,
    horizon_us: u64,
    plan: Plan,
    window: Window,
    window_index: u64,
    /// None without reports.
    report_times: Option<ReportTimes>,
    /// Never opens without reports.
    report_window: Window,
    /// Successors of finished jobs; finishes come in time order and each
    /// successor is due one cycle later, so this FIFO is sorted too.
    successors: VecDeque<u64>,
    /// Retries by due key: their waits differ, so only a heap keeps them
    /// in order.
    retries: MinHeap<Job>,
}

impl Arrivals {
    pub(super) fn new(params: &SimParams, seed: u64) -> Self {
        let cycle_us = micros_of_whole(params.cycle_seconds);
        let plan = Plan::new(params, seed);
        let report_times = params.reports.as_ref().map(|reports| {
            let shift_us = micros_of_whole(reports.shift_seconds);
            match &plan {
                Plan::Herd => ReportTimes::Shifted(Offsets::new(
                    std::iter::repeat_n(shift_us, params.accounts as usize),
                    None,
                )),
                Plan::Offsets(offsets) => ReportTimes::Shifted(offsets.shifted(shift_us, cycle_us)),
                _ => ReportTimes::Uniform(seeded(seed, REPORT_TIMES)),
            }
        });
        let window_capacity = match params.schedule {
            SyncSchedule::LeastRecentlySynced { batch, .. } => batch,
            _ => params.accounts,
        };
        let (report_capacity, first_report_window) = match report_times {
            Some(_) => (params.accounts, 0),
            None => (0, NEVER),
        };
        Self {
            accounts: params.accounts,
            cycle_us,
            horizon_us: micros_of_whole(params.horizon_seconds),
            plan,
            window: Window::new(window_capacity, 0),
            window_index: 0,
            report_times,
            report_window: Window::new(report_capacity, first_report_window),
            successors: VecDeque::new(),
            retries: MinHeap::default(),
        }
    }

    /// When the next window of syncs opens, and the next of reports.
    pub(super) fn next_openings(&self) -> (u64, u64) {
        (self.window.next_open, self.report_window.next_open)
    }

    /// The key of the next job to fall due and where it waits; its time
    /// is NEVER when no job is left. Ties go to the earlier source.
    pub(super) fn next_due(&self) -> (u64, Source) {
        let successor = self.successors.front().copied().unwrap_or(NEVER);
        let retry = self.retries.peek().map_or(NEVER, |job| job.key);
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

    /// Takes the job of `key`, the next due, from `source`.
    pub(super) fn take(&mut self, key: u64, source: Source) -> Job {
        let first_attempt = Job::first_attempt(key);
        match source {
            Source::Window => {
                self.window.pass_next();
                first_attempt
            }
            Source::Reports => {
                self.report_window.pass_next();
                first_attempt
            }
            Source::Successors => {
                self.successors.pop_front();
                first_attempt
            }
            Source::Retries => self.retries.pop().unwrap_or(first_attempt),
        }
    }

    /// Fills the window that opens at `now` with its due syncs.
    pub(super) fn open_window(&mut self, now: u64, metrics: &mut Metrics) {
        let index = self.window_index;
        self.window_index += 1;
        let accounts = self.accounts;
        let horizon = self.horizon_us;
        let cycle_end = now + self.cycle_us;
        let mut jobs = WindowFill::new(&mut self.window, metrics, horizon, JobKind::Sync);
        let next_open = match &mut self.plan {
            Plan::Herd => {
                (0..accounts).for_each(|account| jobs.push(now, now, account));
                cycle_end
            }
            Plan::Jitter { delays, window_us } => {
                jobs.push_uniform(delays, now, *window_us, accounts);
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
                    *next_account = (*next_account + 1) % accounts;
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
                jobs.push_uniform(rng, now, self.cycle_us, accounts);
                NEVER
            }
            Plan::Imported {
                jobs: imported,
                next,
            } => {
                let due = &imported.due_us;
                while let Some(&at) = due.get(*next)
                    && at < cycle_end
                {
                    jobs.push(at, at, *next as u32);
                    *next += 1;
                }
                cycle_end
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
                jobs.keys.sort_unstable();
                (index + 1) * *every_us
            }
        };
        self.window.next_open = next_open;
    }

    /// Fills the cycle opening at `now` with its due reports.
    pub(super) fn open_report_window(&mut self, now: u64, metrics: &mut Metrics) {
        let Some(report_times) = &mut self.report_times else {
            return;
        };
        let mut jobs = WindowFill::new(
            &mut self.report_window,
            metrics,
            self.horizon_us,
            JobKind::Report,
        );
        match report_times {
            ReportTimes::Shifted(offsets) => offsets.push_cycle(&mut jobs, now),
            ReportTimes::Uniform(rng) => {
                jobs.push_uniform(rng, now, self.cycle_us, self.accounts);
            }
        }
        self.report_window.next_open = now + self.cycle_us;
    }

    /// What the plan does once `account`'s sync finishes at `now`.
    pub(super) fn synced(&mut self, now: u64, account: u32, metrics: &mut Metrics) {
        match &mut self.plan {
            Plan::LeastRecent { list, .. } => list.move_to_back(account),
            Plan::SelfRescheduling(_) => {
                let due = now + self.cycle_us;
                if due < self.horizon_us {
                    self.successors
                        .push_back(event_key(due, account, JobKind::Sync));
                    metrics.successor_enqueued();
                }
            }
            _ => {}
        }
    }

    /// Queues `attempt` of `account`'s sync, refused at `now`, to fall due
    /// `wait_us` later, unless that is at or past the horizon.
    pub(super) fn retry(
        &mut self,
        now: u64,
        wait_us: u64,
        account: u32,
        attempt: Attempt,
        metrics: &mut Metrics,
    ) {
        let due = now.saturating_add(wait_us);
        if due < self.horizon_us {
            self.retries.push(Job {
                key: event_key(due, account, JobKind::Sync),
                attempt,
            });
            metrics.retry_due(due);
        }
    }
}

/// The per-schedule state that produces each window's due syncs.
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
    /// The trace's jobs and the next one to place.
    Imported {
        jobs: Arc<ImportedJobs>,
        next: usize,
    },
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

impl Plan {
    fn new(params: &SimParams, seed: u64) -> Self {
        match params.schedule {
            SyncSchedule::Herd => Self::Herd,
            SyncSchedule::UniformJitter { window_seconds } => Self::Jitter {
                delays: seeded(seed, JITTER),
                window_us: micros_of_whole(window_seconds),
            },
            SyncSchedule::Poisson => {
                let mut gaps = seeded(seed, ARRIVALS);
                let rate = f64::from(params.accounts) / f64::from(params.cycle_seconds);
                // Not `expect`: it would print the error with `Debug`, and
                // that formatting alone weighs over a kilobyte in the wasm.
                let gap = Dist::exponential(rate).unwrap_or_else(|_| {
                    unreachable!("accounts / cycle lies in [1 / MAX_HORIZON, MAX_ACCOUNTS]")
                });
                let next_due = micros(gap.sample(&mut gaps));
                Self::Poisson {
                    gaps,
                    gap,
                    next_due,
                    next_account: 0,
                }
            }
            SyncSchedule::HashSpread(mode) => Self::Offsets(hash_spread(mode, params)),
            SyncSchedule::Slots { slots } => Self::Offsets(slotted(slots, params)),
            SyncSchedule::SelfRescheduling => Self::SelfRescheduling(seeded(seed, JITTER)),
            SyncSchedule::Imported(ref jobs) => Self::Imported {
                jobs: Arc::clone(jobs),
                next: 0,
            },
            SyncSchedule::LeastRecentlySynced {
                every_seconds,
                batch,
                spread_seconds,
            } => Self::LeastRecent {
                spread: seeded(seed, BATCH_SPREAD),
                every_us: micros_of_whole(every_seconds),
                batch,
                spread_us: micros_of_whole(spread_seconds),
                list: SyncOrder::new(params.accounts),
            },
        }
    }
}

/// Each account's offset in the cycle by [`crate::hash_spread`]'s placement.
fn hash_spread(mode: HashMode, params: &SimParams) -> Offsets {
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
    Offsets::new(offsets.into_iter(), None).numbered_in_order()
}

/// Each account's slot from the top bits of its hash, and its offset in
/// the slot from the hash mod the slot length.
fn slotted(slots: u32, params: &SimParams) -> Offsets {
    let slot_seconds = params.cycle_seconds / slots;
    let offsets = id_offsets(params.accounts, |id| {
        let hash = hash::farm_fingerprint32(id.as_bytes());
        let slot = even_slot_of(u64::from(hash), 1 << u32::BITS, slots);
        slot * slot_seconds + Reduction::Mod.reduce(hash, slot_seconds)
    });
    let slot_us = micros_of_whole(slot_seconds);
    Offsets::new(offsets.into_iter(), Some(slot_us)).numbered_in_order()
}

/// Each account's offset in seconds, from its decimal id, as microseconds.
fn id_offsets(accounts: u32, mut offset: impl FnMut(&str) -> u32) -> Vec<u64> {
    let mut id = String::new();
    (0..accounts)
        .map(|account| {
            id.clear();
            write!(id, "{}", u64::from(account) + 1).expect("writing to a String cannot fail");
            micros_of_whole(offset(&id))
        })
        .collect()
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
            .map(|(offset, account)| event_key(offset, account, JobKind::Sync))
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
            *key = event_key(time_of(*key), rank, JobKind::Sync);
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

    fn push_cycle(&self, jobs: &mut WindowFill, cycle_start: u64) {
        for &offset_key in &self.sorted {
            let offset = time_of(offset_key);
            let enqueued = cycle_start + self.slot_us.map_or(offset, |slot| offset - offset % slot);
            jobs.push(enqueued, cycle_start + offset, account_of(offset_key));
        }
    }
}

/// Where reports fall due in each cycle.
enum ReportTimes {
    /// Herd, hash spread and slots: the sync's offsets, shifted.
    Shifted(Offsets),
    /// Schedules whose syncs fall due at random times: a uniform draw per
    /// report.
    Uniform(SeededRng),
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
                .map(|k| if k == accounts { NO_INDEX } else { k })
                .collect(),
            prev: (0..accounts)
                .map(|k| k.checked_sub(1).unwrap_or(NO_INDEX))
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
            NO_INDEX => self.head = next,
            _ => self.next[prev as usize] = next,
        }
        self.prev[next as usize] = prev;
        self.next[self.tail as usize] = account;
        self.prev[account as usize] = self.tail;
        self.next[account as usize] = NO_INDEX;
        self.tail = account;
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

    /// Moves past the next key, taken by the engine.
    fn pass_next(&mut self) {
        self.cursor += 1;
    }

    /// Empties the window for the jobs of its next opening.
    fn refill(&mut self) -> &mut Vec<u64> {
        self.keys.clear();
        self.cursor = 0;
        &mut self.keys
    }
}

/// Refills a window with jobs of one kind, counting those due before the
/// horizon as they enter the queue.
struct WindowFill<'a> {
    keys: &'a mut Vec<u64>,
    metrics: &'a mut Metrics,
    horizon: u64,
    kind: JobKind,
}

impl<'a> WindowFill<'a> {
    /// Clears `window` for the jobs to come.
    fn new(window: &'a mut Window, metrics: &'a mut Metrics, horizon: u64, kind: JobKind) -> Self {
        Self {
            keys: window.refill(),
            metrics,
            horizon,
            kind,
        }
    }

    fn push(&mut self, enqueued: u64, due: u64, account: u32) {
        if due < self.horizon {
            self.keys.push(event_key(due, account, self.kind));
            self.metrics.enqueued(enqueued);
        }
    }

    /// Every account due once at a uniform time in [from, from + width),
    /// enqueued when due, in time order.
    fn push_uniform(&mut self, rng: &mut SeededRng, from: u64, width: u64, accounts: u32) {
        for account in 0..accounts {
            let due = from + rng.random_range(0..width);
            self.push(due, due, account);
        }
        self.keys.sort_unstable();
    }
}
