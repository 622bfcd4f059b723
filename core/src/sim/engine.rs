//! The engine: the event loop that moves a run from event to event.
//!
//! Time is whole microseconds in u64. The clock jumps to the next event:
//! a job falling due, a worker finishing, ordered workers becoming ready,
//! an autoscaler check, or a window (a cycle, or a batch of the
//! least-recently-synced schedule) opening. A due job starts at once on an
//! idle worker, else it waits in one FIFO queue; a finishing worker takes
//! the oldest waiting job. Its wait (start delay) is start − due; its
//! duration is a draw from a [`Dist`].
//!
//! The engine owns its state in parts, each changed only through its own
//! methods: [`Arrivals`] (jobs not yet due), [`Workers`], the waiting
//! queue, [`Accounts`] (locks and parked jobs), the downstream and
//! [`Metrics`]. A handler reads the parts it needs and reports what
//! happened to the metrics.
//!
//! The busy workers' finishes and the retries sit in the scheduler's
//! [`MinHeap`](crate::scheduler::MinHeap), keyed as in
//! [`super::event`]; the engine does not use the
//! [`Scheduler`](crate::scheduler::Scheduler) itself, which keeps a record
//! per event for cancelling and would push every one of a million due jobs
//! through its heap.

use std::collections::VecDeque;
use std::sync::Arc;

use super::accounts::Accounts;
use super::autoscaler::Workers;
use super::downstream::{DownstreamState, REFUSED_CALL_US};
use super::durations::SyncDurations;
use super::event::{Attempt, Job, JobKind, account_of, event_key, kind_of, time_of};
use super::metrics::Metrics;
use super::plan::{Arrivals, Source};
use super::validation::Estimate;
use super::{Finished, ImportedJobs, SimParams, SyncSchedule};
use crate::dist::Dist;
use crate::rng::{Purpose, SeededRng, seeded};
use crate::scheduler::{micros, micros_of_whole};

const REPORT_DURATIONS: Purpose = Purpose::new("sim.report_durations");

/// A run in progress.
pub(super) struct Engine {
    horizon_us: u64,
    /// Up to where events have been processed.
    reached: u64,
    arrivals: Arrivals,
    workers: Workers,
    /// Due jobs waiting for a worker, oldest first.
    waiting: VecDeque<Job>,
    work: WorkTimes,
    accounts: Accounts,
    downstream: Option<DownstreamState>,
    metrics: Metrics,
}

impl Engine {
    /// Sets a run of checked `params` up at time 0, reading its sync
    /// durations from `kept` where those are its draws.
    pub(super) fn new(
        params: &SimParams,
        seed: u64,
        estimate: &Estimate,
        kept: Option<SyncDurations>,
    ) -> Self {
        Self {
            horizon_us: micros_of_whole(params.horizon_seconds),
            reached: 0,
            arrivals: Arrivals::new(params, seed),
            workers: Workers::new(params),
            waiting: VecDeque::new(),
            work: WorkTimes::new(params, seed, kept),
            accounts: Accounts::new(params.accounts),
            downstream: params
                .downstream
                .map(|config| DownstreamState::new(config, params.accounts, seed)),
            metrics: Metrics::new(params, estimate),
        }
    }

    /// The simulated time reached over the horizon, in [0, 1].
    pub(super) fn progress(&self) -> f64 {
        self.reached as f64 / self.horizon_us as f64
    }

    /// Processes every event before `until`, capped at the horizon.
    ///
    /// Events at one instant run in a fixed order, so a seed replays
    /// exactly: finishes first (freeing workers and locks), then ordered
    /// workers becoming ready, then autoscaler checks, then the window of
    /// syncs opening, then that of reports, then due jobs. Due jobs at one
    /// instant come by their event key, by account and then kind (a sync
    /// before its report). As nothing changes between events, a run
    /// stepped in any chunks equals one straight run.
    pub(super) fn run(&mut self, until: u64) {
        let until = until.min(self.horizon_us);
        loop {
            let finish = self.workers.next_finish();
            let (ready, check) = self.workers.next_scaling();
            let (sync_window, report_window) = self.arrivals.next_openings();
            let (due_key, source) = self.arrivals.next_due();
            let now = finish
                .min(ready)
                .min(check)
                .min(sync_window)
                .min(report_window)
                .min(time_of(due_key));
            if now >= until {
                break;
            }
            self.advance_metrics(now);
            if finish == now {
                self.finish(now);
            } else if ready == now {
                self.workers_ready(now);
            } else if check == now {
                self.workers.check(now, self.waiting.len());
            } else if sync_window == now {
                self.arrivals.open_window(now, &mut self.metrics);
            } else if report_window == now {
                self.arrivals.open_report_window(now, &mut self.metrics);
            } else {
                self.arrive(now, due_key, source);
            }
        }
        self.reached = self.reached.max(until);
    }

    /// Runs to the horizon and measures the run, the jobs still waiting or
    /// parked at it included.
    pub(super) fn into_run(mut self) -> Finished {
        self.run(self.horizon_us);
        self.advance_metrics(self.horizon_us);
        let horizon_us = self.horizon_us;
        let metrics = &mut self.metrics;
        let mut never_started = |job: Job| metrics.never_started(horizon_us, time_of(job.key));
        self.waiting.iter().copied().for_each(&mut never_started);
        self.accounts.for_each_parked(never_started);
        Finished {
            busy_us: self.metrics.busy_us(),
            most_busy: self.workers.most_busy() as u32,
            run: self.metrics.into_run(self.horizon_us, &self.accounts),
            durations: self.work.syncs,
        }
    }

    fn advance_metrics(&mut self, now: u64) {
        self.metrics.advance(
            now,
            self.workers.busy(),
            self.workers.ready(),
            self.waiting.len(),
        );
    }

    fn workers_ready(&mut self, now: u64) {
        if self.workers.join_booted() {
            self.take_waiting(now);
        }
    }

    /// Takes the job of `key` from `source` and starts or queues it.
    fn arrive(&mut self, now: u64, key: u64, source: Source) {
        let job = self.arrivals.take(key, source);
        if self.workers.has_idle() {
            self.start(now, job);
        } else {
            self.enqueue(job);
        }
    }

    fn enqueue(&mut self, job: Job) {
        self.waiting.push_back(job);
        self.metrics.queued(self.waiting.len());
    }

    /// Idle workers take waiting jobs, oldest first, past lock conflicts.
    fn take_waiting(&mut self, now: u64) {
        while self.workers.has_idle() {
            let Some(next) = self.waiting.pop_front() else {
                break;
            };
            self.start(now, next);
        }
    }

    /// Starts `job` on an idle worker, or parks it when its account's
    /// lock is held.
    fn start(&mut self, now: u64, job: Job) {
        if !self.accounts.lock_or_park(job, now) {
            self.metrics.lock_conflict();
            return;
        }
        let account = account_of(job.key);
        let kind = kind_of(job.key);
        self.metrics.started(now, now - time_of(job.key), kind);
        let work_us = if kind == JobKind::Report {
            self.work.report_us()
        } else if self.call_refused(now) {
            self.refuse(account, job.attempt);
            REFUSED_CALL_US
        } else {
            self.work.sync_us(account)
        };
        let finish = now.saturating_add(work_us).min(self.horizon_us);
        self.workers.start(event_key(finish, account, kind));
    }

    /// Whether the downstream refuses a sync's call at `now`; never without
    /// a downstream.
    fn call_refused(&mut self, now: u64) -> bool {
        self.downstream
            .as_mut()
            .is_some_and(|downstream| !downstream.accepts(now))
    }

    fn refuse(&mut self, account: u32, attempt: Attempt) {
        self.accounts.refuse(account);
        let gave_up = self
            .downstream
            .as_mut()
            .is_some_and(|downstream| downstream.refuse(account, attempt));
        self.metrics.refused(gave_up);
    }

    fn finish(&mut self, now: u64) {
        let Some(key) = self.workers.finish() else {
            return;
        };
        let account = account_of(key);
        let (refused, unparked) = self.accounts.release(account, now);
        if refused {
            self.schedule_retry(now, account);
        } else {
            self.metrics.done();
            if kind_of(key) == JobKind::Sync {
                self.synced(now, account);
            }
        }
        if let Some(job) = unparked {
            self.enqueue(job);
        }
        self.take_waiting(now);
    }

    fn synced(&mut self, now: u64, account: u32) {
        if let Some(interval) = self.accounts.synced(account, now) {
            self.metrics.sync_interval(interval);
        }
        self.arrivals.synced(now, account, &mut self.metrics);
    }

    fn schedule_retry(&mut self, now: u64, account: u32) {
        let Some((attempt, wait_us)) = self
            .downstream
            .as_mut()
            .and_then(|downstream| downstream.retry(account))
        else {
            return;
        };
        self.arrivals
            .retry(now, wait_us, account, attempt, &mut self.metrics);
    }
}

/// How long jobs take: each kind's distribution and its own stream of
/// draws.
struct WorkTimes {
    syncs: SyncDurations,
    /// Syncs started so far that read a duration from `syncs`.
    started: usize,
    /// An imported trace's own durations, by account (job).
    imported: Option<Arc<ImportedJobs>>,
    /// None without reports.
    report: Option<(Dist, SeededRng)>,
}

impl WorkTimes {
    fn new(params: &SimParams, seed: u64, kept: Option<SyncDurations>) -> Self {
        Self {
            syncs: SyncDurations::reuse(kept, &params.duration, seed),
            started: 0,
            imported: match &params.schedule {
                SyncSchedule::Imported(jobs) if jobs.has_durations() => Some(Arc::clone(jobs)),
                _ => None,
            },
            report: params
                .reports
                .as_ref()
                .map(|reports| (reports.duration.clone(), seeded(seed, REPORT_DURATIONS))),
        }
    }

    fn sync_us(&mut self, account: u32) -> u64 {
        match self
            .imported
            .as_ref()
            .and_then(|jobs| jobs.durations_us.as_ref())
        {
            Some(durations) => durations[account as usize],
            None => {
                self.started += 1;
                self.syncs.get(self.started - 1)
            }
        }
    }

    fn report_us(&mut self) -> u64 {
        self.report
            .as_mut()
            .map_or(0, |(duration, draws)| micros(duration.sample(draws)))
    }
}
