//! Queue: N accounts, each synced once per cycle by a job, W workers, and the
//! strategy that decides when each job enters the queue.
//!
//! The panel's parameters become one [`SimParams`] per lane: the main
//! strategy and up to three more drawn beside it, or, compared by retries,
//! the main strategy under up to four retry policies. Each lane runs the
//! discrete-event simulation of [`crate::sim`] with the same seed.
//!
//! Job durations follow the talk's folded normal: a normal of mean m and
//! sd = (p90 − m) / 1.28, negative draws folded; reports, when on, take
//! as long as syncs. Derived values: the slots are
//! gcd(cycle in seconds, slots asked for), so each is a whole number of
//! seconds; least-recently-synced batches hold ⌈N·T / C⌉ accounts, so every
//! account is due about once per cycle C; retries grow by a factor of 2; the
//! autoscaler looks every 10 s and never goes below the W workers it starts
//! with.
//!
//! Uniform jitter draws each sync's delay in a window of its own from the
//! cycle's start, the whole cycle unless narrowed. The window is in seconds:
//! the one that spreads N jobs to a rate R is N / R s, seldom whole minutes
//! (5,000 jobs at 50 /s need 100 s). Each lane reports the most calls the
//! downstream received in one whole second: a window W brings N / W calls
//! a second on average, and the busiest second lies above that by chance.
//!
//! With arrivals at λ = N / C per second (first attempts), each job keeping a
//! worker E\[S\] s, the load is λ·E\[S\] busy workers and ρ = λ·E\[S\] / W. Only
//! Poisson arrivals make an M/G/W queue; there the wait of an M/M/W queue at
//! the same load (Erlang C) is a reference, not a prediction.
//!
//! ```
//! use stampede_core::queue::{QueueParams, QueueStrategy, run};
//!
//! // 2,000 accounts on 4 workers for a day: the cron herd beside slots.
//! let params = QueueParams {
//!     strategy: QueueStrategy::Herd,
//!     ..Default::default()
//! };
//! let run = run(&params, 1).unwrap();
//! let [herd, slots] = [&run.lanes[0].run.summary, &run.lanes[1].run.summary];
//! assert!(slots.p95_wait_s < herd.p95_wait_s);
//! ```

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

use crate::backoff::{self, Backoff};
use crate::choice_enum;
use crate::dist::Dist;
use crate::error::InvalidInput;
use crate::field::ChoiceSet;
use crate::hash_spread::HashMode;
use crate::sim::{
    self, Autoscaler, Downstream, Reports, SimParams, SimRun, Simulation, SyncDurations,
    SyncSchedule, Unqueued,
};
use crate::slots::gcd;

/// Strategies or retry policies drawn beside the main one.
pub const MAX_COMPARED: usize = 3;
/// The most jobs all lanes of one run may start together, retries
/// included, by the simulation's upper estimate: the costliest lanes (ten
/// thousand workers on short jobs) take about 0.9 s of CPU natively for
/// this many, so a browser's WebAssembly stays near 2 s, and the bound
/// keeps a shared URL from freezing a tab.
pub const MAX_TOTAL_JOBS: u64 = 4_000_000;
/// How often the autoscaler looks at the queue.
pub const AUTOSCALER_CHECK_SECONDS: u32 = 10;
/// Each retry waits this many times longer than the one before.
pub const RETRY_FACTOR: f64 = 2.0;

choice_enum! {
    /// When each account's sync job enters the queue.
    pub enum QueueStrategy {
        /// Every account at the start of each cycle.
        Herd = ("herd", "Cron herd at :00"),
        /// Every T minutes, the ⌈N·T / C⌉ accounts synced longest ago.
        LeastRecent = ("lrs", "Least-recently-synced batches"),
        /// A fresh uniform delay in the cycle for each job.
        Jitter = ("jitter", "Uniform jitter"),
        /// Exponential gaps of mean C / N.
        Poisson = ("poisson", "Poisson arrivals"),
        /// Offset hash32(id) mod C.
        Hash = ("hash", "Hash spread"),
        /// gcd-many slots, each account in its hash's slot.
        Slots = ("slots", "Slots"),
        /// Each job enqueues its successor one cycle after it finishes.
        SelfRescheduling = ("self", "Self-rescheduling"),
    }
}

choice_enum! {
    /// What the lanes beside the main one vary.
    pub enum CompareBy {
        Strategies = ("strategies", "Strategies"),
        Retries = ("retries", "Retry policies"),
    }
}

choice_enum! {
    /// Whether the workers are fixed or follow the queue.
    pub enum Scaling {
        Fixed = ("fixed", "Fixed"),
        Auto = ("auto", "Autoscaler"),
    }
}

choice_enum! {
    /// A second job kind per account that shares the sync's lock.
    pub enum ReportPlacement {
        Off = ("off", "Off"),
        /// Due when the account's sync is.
        Same = ("same", "With the sync"),
        /// Half a cycle after the sync: opposite on the donut.
        Opposite = ("opposite", "Half a cycle later"),
    }
}

/// The accounts, workers, strategies and downstream the lanes simulate.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueParams {
    pub strategy: QueueStrategy,
    pub compare_by: CompareBy,
    /// Strategies drawn beside the main one.
    pub compared: ChoiceSet<QueueStrategy>,
    /// N, the accounts synced once per cycle.
    pub accounts: u32,
    /// W, the workers (the autoscaler's least).
    pub workers: u32,
    /// C, the cycle, in minutes.
    pub cycle_minutes: u32,
    /// How long to simulate, in hours.
    pub horizon_hours: u32,
    /// m, the sync's mean duration in seconds before folding.
    pub duration_mean: f64,
    /// The sync's 90th percentile before folding, in seconds.
    pub duration_p90: f64,
    /// Uniform jitter's window from the cycle's start, in seconds, at
    /// most the cycle; 0 for the whole cycle.
    pub jitter_window: u32,
    /// Slots asked for; the cycle is cut into gcd(C in s, this) of them.
    pub slots: u32,
    /// T, minutes between least-recently-synced batches.
    pub batch_every: u32,
    /// S, the spread of a batch's due times, in seconds.
    pub batch_spread: u32,
    pub reports: ReportPlacement,
    /// Calls per second the downstream accepts; 0 for no limit.
    pub rate_limit: u32,
    /// When the downstream goes down, in minutes from the start.
    pub outage_start: u32,
    /// How long it stays down, in minutes; 0 for no outage.
    pub outage_minutes: u32,
    pub retry: backoff::RetryStrategy,
    /// Retry policies drawn beside the main one when comparing retries.
    pub retries_compared: ChoiceSet<backoff::RetryStrategy>,
    /// The wait before the first retry, in seconds.
    pub retry_base: f64,
    /// The longest wait between retries, in seconds.
    pub retry_cap: f64,
    /// Retries after the first call before a job gives up.
    pub max_retries: u32,
    pub scaling: Scaling,
    /// Waiting jobs that call for one more worker.
    pub target_depth: u32,
    /// The most workers the autoscaler runs.
    pub max_workers: u32,
    /// From ordering a worker to its first job, in seconds.
    pub boot_seconds: u32,
    /// How long fewer workers must suffice before any go, in seconds.
    pub down_seconds: u32,
    /// R, the seeds the lanes are run again under for confidence
    /// intervals ([`crate::replication`]); 0 for the single run alone.
    pub replications: u32,
}

impl QueueParams {
    pub fn cycle_seconds(&self) -> u32 {
        self.cycle_minutes * 60
    }

    /// The window uniform jitter draws delays in: the one asked for, or the
    /// whole cycle for 0 and for any longer than it.
    pub fn jitter_window_seconds(&self) -> u32 {
        match self.jitter_window {
            0 => self.cycle_seconds(),
            window => window.min(self.cycle_seconds()),
        }
    }

    /// Whether the lanes call a downstream that can refuse: one with a
    /// rate limit or an outage. Only then do retries happen.
    pub fn has_downstream(&self) -> bool {
        self.rate_limit > 0 || self.outage_minutes > 0
    }

    /// gcd(C in seconds, slots asked for).
    pub fn slot_count(&self) -> u32 {
        gcd(self.cycle_seconds(), self.slots.max(1))
    }

    /// ⌈N·T / C⌉, at most N.
    pub fn batch_size(&self) -> u32 {
        let per_batch = (u64::from(self.accounts) * u64::from(self.batch_every))
            .div_ceil(u64::from(self.cycle_minutes.max(1)));
        per_batch.min(u64::from(self.accounts)) as u32
    }

    /// The lanes' names, main lane first.
    pub fn lanes(&self) -> Vec<LaneName> {
        match self.compare_by {
            CompareBy::Strategies => with_main(self.strategy, &self.compared)
                .into_iter()
                .map(|strategy| LaneName {
                    slug: strategy.slug().into(),
                    label: strategy.label().into(),
                })
                .collect(),
            CompareBy::Retries => with_main(self.retry, &self.retries_compared)
                .into_iter()
                .map(|retry| LaneName {
                    slug: retry.slug().into(),
                    label: format!("{}, retries: {}", self.strategy.label(), retry.label()),
                })
                .collect(),
        }
    }

    /// The simulation of each lane, main lane first.
    pub fn simulations(&self) -> Result<Vec<SimParams>, InvalidInput> {
        match self.compare_by {
            CompareBy::Strategies => with_main(self.strategy, &self.compared)
                .into_iter()
                .map(|strategy| self.simulation(strategy, self.retry))
                .collect(),
            CompareBy::Retries => with_main(self.retry, &self.retries_compared)
                .into_iter()
                .map(|retry| self.simulation(self.strategy, retry))
                .collect(),
        }
    }

    pub(crate) fn simulation(
        &self,
        strategy: QueueStrategy,
        retry: backoff::RetryStrategy,
    ) -> Result<SimParams, InvalidInput> {
        let cycle_seconds = self.cycle_seconds();
        let duration = Dist::folded_normal_from_mean_p90(self.duration_mean, self.duration_p90)?;
        let strategy = match strategy {
            QueueStrategy::Herd => SyncSchedule::Herd,
            QueueStrategy::LeastRecent => SyncSchedule::LeastRecentlySynced {
                every_seconds: self.batch_every * 60,
                batch: self.batch_size(),
                spread_seconds: self.batch_spread,
            },
            QueueStrategy::Jitter => SyncSchedule::UniformJitter {
                window_seconds: self.jitter_window_seconds(),
            },
            QueueStrategy::Poisson => SyncSchedule::Poisson,
            QueueStrategy::Hash => SyncSchedule::HashSpread(HashMode::Farm),
            QueueStrategy::Slots => SyncSchedule::Slots {
                slots: self.slot_count(),
            },
            QueueStrategy::SelfRescheduling => SyncSchedule::SelfRescheduling,
        };
        let mut sim = SimParams::new(
            self.accounts,
            self.workers,
            cycle_seconds,
            self.horizon_hours * 3_600,
            duration.clone(),
            strategy,
        );
        sim.reports = match self.reports {
            ReportPlacement::Off => None,
            placement => Some(Reports {
                duration,
                shift_seconds: match placement {
                    ReportPlacement::Opposite => cycle_seconds / 2,
                    _ => 0,
                },
            }),
        };
        let outage = (self.outage_minutes > 0).then(|| {
            let start = self.outage_start * 60;
            (start, start + self.outage_minutes * 60)
        });
        sim.downstream = self
            .has_downstream()
            .then(|| {
                Backoff::new(retry, self.retry_base, RETRY_FACTOR, self.retry_cap).map(|retry| {
                    Downstream {
                        rate_limit_per_second: (self.rate_limit > 0).then_some(self.rate_limit),
                        outage,
                        retry,
                        max_retries: self.max_retries,
                    }
                })
            })
            .transpose()?;
        sim.autoscaler = (self.scaling == Scaling::Auto).then_some(Autoscaler {
            target_depth_per_worker: self.target_depth,
            check_seconds: AUTOSCALER_CHECK_SECONDS,
            up_delay_seconds: self.boot_seconds,
            down_delay_seconds: self.down_seconds,
            min_workers: self.workers,
            max_workers: self.max_workers,
        });
        Ok(sim)
    }

    /// First attempts over all lanes, from the parameters alone: N jobs per
    /// cycle begun (twice that with reports) per lane.
    pub fn planned_jobs(&self) -> u64 {
        let cycles = u64::from(self.horizon_hours * 60).div_ceil(u64::from(self.cycle_minutes));
        let kinds = if self.reports == ReportPlacement::Off {
            1
        } else {
            2
        };
        self.lanes().len() as u64 * u64::from(self.accounts) * cycles * kinds
    }
}

/// `main` first, then the compared ones other than it.
pub fn with_main<T: Copy + PartialEq>(main: T, compared: &ChoiceSet<T>) -> Vec<T> {
    std::iter::once(main)
        .chain(compared.as_slice().iter().copied().filter(|&c| c != main))
        .collect()
}

/// A lane's name: the strategy, or the retry policy, it shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaneName {
    pub slug: String,
    pub label: String,
}

/// One lane's simulation.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Lane {
    #[serde(flatten)]
    pub name: LaneName,
    pub run: SimRun,
}

/// `{slug, label, run}`, as `#[serde(flatten)]` would write it, but written
/// as a struct: flattening goes through serde's map machinery, which weighs
/// on the docs module's wasm.
impl Serialize for Lane {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut lane = serializer.serialize_struct("Lane", 3)?;
        lane.serialize_field("slug", &self.name.slug)?;
        lane.serialize_field("label", &self.name.label)?;
        lane.serialize_field("run", &self.run)?;
        lane.end()
    }
}

/// Every lane of a run, main lane first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QueueRun {
    pub lanes: Vec<Lane>,
}

/// How many steps each lane runs in, for progress and cancelling.
const PROGRESS_STEPS: u32 = 50;

/// Runs every lane of `params` with `seed`.
pub fn run(params: &QueueParams, seed: u64) -> Result<QueueRun, InvalidInput> {
    QueueSteps::new(params, seed)?.finish()
}

/// What a run keeps for the next of its seed: the sync durations drawn,
/// and the lanes no job waited in ([`Unqueued`]).
#[derive(Default)]
pub struct Kept {
    durations: Option<SyncDurations>,
    unqueued: Vec<Unqueued>,
    /// How far [`Kept::ready_ahead`] got, and for which run.
    ahead: Option<Ahead>,
}

/// The run whose lanes [`Kept::ready_ahead`] readies, with its workers
/// left out, and the next lane to look at.
struct Ahead {
    params: QueueParams,
    seed: u64,
    next_lane: usize,
}

impl Kept {
    /// Readies one more lane of the run of `params` under `seed` for other
    /// workers: a lane that queued is run again on a worker per account,
    /// the most a run can keep busy, as every job holds its account's
    /// lock. If no job waits then, the lane is kept ([`Unqueued`]), and a
    /// drag of the Workers slider reads it at every W from its peak up.
    ///
    /// Made for a page's idle time, a lane a call. A lane is passed over
    /// when no worker per account fits [`sim::MAX_WORKERS`], or when that
    /// run would hold more jobs than the run as set (retries grow with
    /// workers) or more than a run may. Returns whether lanes remain; after the last, calls for
    /// the same run but for its workers do nothing.
    pub fn ready_ahead(&mut self, params: &QueueParams, seed: u64) -> Result<bool, InvalidInput> {
        let but_workers = QueueParams {
            workers: 0,
            ..params.clone()
        };
        let next_lane = match &self.ahead {
            Some(ahead) if ahead.seed == seed && ahead.params == but_workers => ahead.next_lane,
            _ => 0,
        };
        let lanes = params.simulations()?;
        let Some(lane) = lanes.get(next_lane) else {
            return Ok(false);
        };
        self.ahead = Some(Ahead {
            params: but_workers,
            seed,
            next_lane: next_lane + 1,
        });
        let per_account = SimParams {
            workers: lane.accounts,
            ..lane.clone()
        };
        let kept_already = self.unqueued.iter().any(|kept| kept.is_of(lane, seed));
        if lane.autoscaler.is_none()
            && lane.workers < lane.accounts
            && lane.accounts <= sim::MAX_WORKERS
            && !kept_already
            && sim::estimated_jobs(&per_account)
                .is_ok_and(|jobs| sim::estimated_jobs(lane).is_ok_and(|set| jobs <= set))
        {
            let simulation = Simulation::reading(&per_account, seed, self.durations.take())?;
            let finished = simulation.finish_keeping();
            self.unqueued
                .extend(Unqueued::of(&per_account, seed, &finished));
            self.durations = Some(finished.durations);
        }
        Ok(next_lane + 1 < lanes.len())
    }
}

/// As [`run`], reading from `kept` what an earlier run of the seed left
/// there, and leaving this run's for the next: a drag of a slider other
/// than the durations' reruns faster, and one of the Workers slider reads
/// again the lanes that never queued, with the same result.
pub fn run_reading(
    params: &QueueParams,
    seed: u64,
    kept: &mut Kept,
) -> Result<QueueRun, InvalidInput> {
    let mut earlier = std::mem::take(&mut kept.unqueued);
    let mut lanes = Vec::new();
    for (name, sim_params) in params.lanes().into_iter().zip(params.simulations()?) {
        // A lane kept for this one on other workers stays kept, whether
        // it answers for these workers or not.
        let same_lane = earlier
            .iter()
            .position(|lane| lane.is_of(&sim_params, seed))
            .map(|at| earlier.swap_remove(at));
        let again = same_lane
            .as_ref()
            .and_then(|lane| lane.on_workers(&sim_params, seed));
        let run = match again {
            Some(run) => run,
            None => {
                let simulation = Simulation::reading(&sim_params, seed, kept.durations.take())?;
                let finished = simulation.finish_keeping();
                kept.unqueued
                    .extend(Unqueued::of(&sim_params, seed, &finished));
                kept.durations = Some(finished.durations);
                finished.run
            }
        };
        kept.unqueued.extend(same_lane);
        lanes.push(Lane { name, run });
    }
    Ok(QueueRun { lanes })
}

/// The sync durations every lane of `params` reads under `seed`: `kept`
/// if it holds them, else a new set with none drawn, for a worker to draw
/// ahead of the run ([`SyncDurations::draw_ahead`]).
pub fn sync_durations(
    params: &QueueParams,
    seed: u64,
    kept: Option<SyncDurations>,
) -> Result<SyncDurations, InvalidInput> {
    let lanes = params.simulations()?;
    let duration = lanes
        .first()
        .map(|lane| &lane.duration)
        .ok_or_else(|| InvalidInput::new("vs", "a run needs a lane"))?;
    Ok(SyncDurations::reuse(kept, duration, seed))
}

/// A run taken a step at a time, 50 steps per lane, for a
/// caller that must get control back between steps: the Web Worker returns
/// to its event loop there, which is when a browser can stop it.
pub struct QueueSteps {
    seed: u64,
    names: Vec<LaneName>,
    simulations: Vec<SimParams>,
    runs: Vec<SimRun>,
    /// The lane under way and the steps it has taken.
    current: Option<(Simulation, u32)>,
    /// The sync durations the last lane drew, which the next reads.
    durations: Option<SyncDurations>,
}

impl QueueSteps {
    pub fn new(params: &QueueParams, seed: u64) -> Result<Self, InvalidInput> {
        Ok(Self::of_lanes(params.lanes(), params.simulations()?, seed))
    }

    /// Steps through lanes given one by one (a replayed trace's).
    pub fn of_lanes(names: Vec<LaneName>, simulations: Vec<SimParams>, seed: u64) -> Self {
        Self {
            seed,
            names,
            runs: Vec::with_capacity(simulations.len()),
            simulations,
            current: None,
            durations: None,
        }
    }

    /// Reads the sync durations from `drawn`, if any, where they are this
    /// run's draws; the result is the same.
    pub fn reading(mut self, drawn: Option<SyncDurations>) -> Self {
        self.durations = drawn;
        self
    }

    /// Takes the next step and returns the share done, from 0 to 1; `None`
    /// once every lane has run.
    pub fn step(&mut self) -> Result<Option<f64>, InvalidInput> {
        let lane = self.runs.len();
        let Some(sim_params) = self.simulations.get(lane) else {
            return Ok(None);
        };
        let (simulation, steps) = match &mut self.current {
            Some(current) => current,
            None => self.current.insert((
                Simulation::reading(sim_params, self.seed, self.durations.take())?,
                0,
            )),
        };
        *steps += 1;
        let horizon = f64::from(sim_params.horizon_seconds);
        simulation.run_until(horizon * f64::from(*steps) / f64::from(PROGRESS_STEPS));
        let share = (lane as f64 + simulation.progress()) / self.simulations.len() as f64;
        if *steps == PROGRESS_STEPS
            && let Some((simulation, _)) = self.current.take()
        {
            let finished = simulation.finish_keeping();
            self.runs.push(finished.run);
            self.durations = Some(finished.durations);
        }
        Ok(Some(share))
    }

    /// Takes the steps left and returns the run.
    pub fn finish(mut self) -> Result<QueueRun, InvalidInput> {
        while self.step()?.is_some() {}
        Ok(self.into_run())
    }

    /// The lanes run, after the last step.
    fn into_run(self) -> QueueRun {
        QueueRun {
            lanes: self
                .names
                .into_iter()
                .zip(self.runs)
                .map(|(name, run)| Lane { name, run })
                .collect(),
        }
    }
}

/// The jobs a run of `params` may enqueue over all lanes, retries included,
/// as the simulation estimates them: what decides where a run goes.
pub fn estimated_jobs(params: &QueueParams) -> Result<u64, InvalidInput> {
    params.simulations()?.iter().map(sim::estimated_jobs).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_readied_ahead_answer_for_more_workers() {
        // At the defaults on 4 workers both lanes queue: the slots lane
        // stops queuing from 11 workers, the herd only on a worker per
        // account.
        let at = |workers| QueueParams {
            workers,
            ..QueueParams::default()
        };
        let mut kept = Kept::default();
        run_reading(&at(4), 1, &mut kept).unwrap();
        assert!(kept.unqueued.is_empty());
        assert!(kept.ready_ahead(&at(4), 1).unwrap());
        assert!(!kept.ready_ahead(&at(4), 1).unwrap());
        assert_eq!(kept.unqueued.len(), 2);
        // Done for this run on any workers: nothing more is run.
        assert!(!kept.ready_ahead(&at(7), 1).unwrap());
        assert_eq!(kept.unqueued.len(), 2);
        for workers in [13, 2_000] {
            let lanes = at(workers).simulations().unwrap();
            let answered = lanes
                .iter()
                .filter(|lane| {
                    kept.unqueued
                        .iter()
                        .any(|k| k.on_workers(lane, 1).is_some())
                })
                .count();
            assert_eq!(answered, if workers == 13 { 1 } else { 2 }, "W {workers}");
            // Both stay kept after a run that read one or none of them.
            run_reading(&at(workers), 1, &mut kept).unwrap();
            assert_eq!(kept.unqueued.len(), 2);
        }
        // A new seed starts over.
        assert!(kept.ready_ahead(&at(4), 2).unwrap());
    }

    #[test]
    fn slots_divide_the_cycle_and_batches_cover_it() {
        let mut params = QueueParams::default();
        assert_eq!(params.slot_count(), 60);
        params.slots = 7;
        assert_eq!(params.slot_count(), 1);
        params.slots = 48;
        assert_eq!(params.slot_count(), 48);
        // 2,000 accounts every 5 of 60 minutes: 167 a batch, 12 batches.
        assert_eq!(params.batch_size(), 167);
    }

    #[test]
    fn lanes_put_the_main_one_first_once() {
        let mut params = QueueParams {
            compared: ChoiceSet::new([QueueStrategy::Herd, QueueStrategy::Poisson]),
            ..QueueParams::default()
        };
        let slugs = |p: &QueueParams| p.lanes().into_iter().map(|l| l.slug).collect::<Vec<_>>();
        assert_eq!(slugs(&params), ["herd", "poisson"]);
        params.compare_by = CompareBy::Retries;
        assert_eq!(slugs(&params), ["full", "exponential"]);
        assert_eq!(params.simulations().unwrap().len(), 2);
    }
}
