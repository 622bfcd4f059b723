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
//! worker E[S] s, the load is λ·E[S] busy workers and ρ = λ·E[S] / W. Only
//! Poisson arrivals make an M/G/W queue; there the wait of an M/M/W queue at
//! the same load (Erlang C) is a reference, not a prediction.

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

use crate::backoff::{self, Backoff};
use crate::dist::Dist;
use crate::error::InvalidInput;
use crate::field::{ChoiceSet, Field, Notice};
use crate::key_numbers::KeyNumber;
use crate::presets::Preset;
use crate::sim::{
    self, Autoscaler, Downstream, Reports, SimParams, SimRun, Simulation, SyncSchedule,
};
use crate::spread::HashMode;
use crate::units::{count, duration, significant};
use crate::{choice_enum, panel_params};

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

panel_params! {
    /// Parameters of the Queue panel.
    pub struct QueueParams {
        pub strategy: QueueStrategy = QueueStrategy::Herd, Field::choice("st", "Strategy", QueueStrategy::OPTIONS);
        pub compare_by: CompareBy = CompareBy::Strategies, Field::choice("by", "Compare", CompareBy::OPTIONS);
        /// Strategies drawn beside the main one.
        pub compared: ChoiceSet<QueueStrategy> = ChoiceSet::new([QueueStrategy::Slots]),
            Field::choices("vs", "Compare with", QueueStrategy::OPTIONS, MAX_COMPARED);
        /// N, the accounts synced once per cycle.
        pub accounts: u32 = 2_000, Field::number("n", "Accounts", "", (1.0, 1_000_000.0), 1.0).log();
        /// W, the workers (the autoscaler's least).
        pub workers: u32 = 4, Field::number("w", "Workers", "", (1.0, 10_000.0), 1.0).log();
        /// C, the cycle, in minutes.
        pub cycle_minutes: u32 = 60, Field::number("cyc", "Cycle", "min", (1.0, 10_080.0), 1.0).log();
        /// How long to simulate, in hours.
        pub horizon_hours: u32 = 24, Field::number("hz", "Simulated time", "h", (1.0, 2_160.0), 1.0).log();
        /// m, the sync's mean duration in seconds before folding.
        pub duration_mean: f64 = 5.0, Field::number("dm", "Job duration, mean", "s", (0.01, 3_600.0), 0.01).log();
        /// The sync's 90th percentile before folding, in seconds.
        pub duration_p90: f64 = 8.0, Field::number("d90", "Job duration, p90", "s", (0.02, 7_200.0), 0.01).log();
        /// Uniform jitter's window from the cycle's start, in seconds, at
        /// most the cycle; 0 for the whole cycle.
        pub jitter_window: u32 = 0, Field::number("jw", "Jitter window", "s", (0.0, 604_800.0), 1.0);
        /// Slots asked for; the cycle is cut into gcd(C in s, this) of them.
        pub slots: u32 = 60, Field::number("sl", "Slots", "", (1.0, 3_600.0), 1.0).log();
        /// T, minutes between least-recently-synced batches.
        pub batch_every: u32 = 5, Field::number("ev", "Batch every", "min", (1.0, 1_440.0), 1.0).log();
        /// S, the spread of a batch's due times, in seconds.
        pub batch_spread: u32 = 60, Field::number("spr", "Batch spread", "s", (0.0, 86_400.0), 1.0);
        pub reports: ReportPlacement = ReportPlacement::Off, Field::choice("rep", "Reports (same lock)", ReportPlacement::OPTIONS);
        /// Calls per second the downstream accepts; 0 for no limit.
        pub rate_limit: u32 = 0, Field::number("lim", "Downstream limit", "/s", (0.0, 100_000.0), 1.0);
        /// When the downstream goes down, in minutes from the start.
        pub outage_start: u32 = 60, Field::number("os", "Outage starts at", "min", (0.0, 129_600.0), 1.0);
        /// How long it stays down, in minutes; 0 for no outage.
        pub outage_minutes: u32 = 0, Field::number("od", "Outage length", "min", (0.0, 10_080.0), 1.0);
        pub retry: backoff::Strategy = backoff::Strategy::FullJitter, Field::choice("rt", "Retry policy", backoff::Strategy::OPTIONS);
        /// Retry policies drawn beside the main one when comparing retries.
        pub retries_compared: ChoiceSet<backoff::Strategy> = ChoiceSet::new([backoff::Strategy::Exponential]),
            Field::choices("rvs", "Compare retries with", backoff::Strategy::OPTIONS, MAX_COMPARED);
        /// The wait before the first retry, in seconds.
        pub retry_base: f64 = 10.0, Field::number("rb", "Retry base", "s", (0.01, 3_600.0), 0.01).log();
        /// The longest wait between retries, in seconds.
        pub retry_cap: f64 = 600.0, Field::number("rc", "Retry cap", "s", (0.01, 86_400.0), 0.01).log();
        /// Retries after the first call before a job gives up.
        pub max_retries: u32 = 8, Field::number("rk", "Retries", "", (0.0, 30.0), 1.0);
        pub scaling: Scaling = Scaling::Fixed, Field::choice("sc", "Workers", Scaling::OPTIONS);
        /// Waiting jobs that call for one more worker.
        pub target_depth: u32 = 10, Field::number("tq", "Target queue per worker", "", (1.0, 10_000.0), 1.0).log();
        /// The most workers the autoscaler runs.
        pub max_workers: u32 = 40, Field::number("wmax", "Most workers", "", (1.0, 10_000.0), 1.0).log();
        /// From ordering a worker to its first job, in seconds.
        pub boot_seconds: u32 = 60, Field::number("up", "Boot delay", "s", (0.0, 3_600.0), 1.0);
        /// How long fewer workers must suffice before any go, in seconds.
        pub down_seconds: u32 = 300, Field::number("down", "Scale-down delay", "s", (0.0, 86_400.0), 1.0);
    }
    settle_rules = settle;
    relevance = is_relevant;
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

    fn simulation(
        &self,
        strategy: QueueStrategy,
        retry: backoff::Strategy,
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
        sim.downstream = (self.rate_limit > 0 || outage.is_some())
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
fn with_main<T: Copy + PartialEq>(main: T, compared: &ChoiceSet<T>) -> Vec<T> {
    std::iter::once(main)
        .chain(compared.as_slice().iter().copied().filter(|&c| c != main))
        .collect()
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Slots, batch and jitter window settings matter only to a lane that uses
/// them, retries only with a downstream that refuses calls, the
/// autoscaler's settings only with it on.
fn is_relevant(params: &QueueParams, key: &str) -> bool {
    let uses = |strategy: QueueStrategy| match params.compare_by {
        CompareBy::Strategies => with_main(params.strategy, &params.compared).contains(&strategy),
        CompareBy::Retries => params.strategy == strategy,
    };
    let refuses = params.rate_limit > 0 || params.outage_minutes > 0;
    match key {
        "vs" => params.compare_by == CompareBy::Strategies,
        "rvs" => params.compare_by == CompareBy::Retries && refuses,
        "jw" => uses(QueueStrategy::Jitter),
        "sl" => uses(QueueStrategy::Slots),
        "ev" | "spr" => uses(QueueStrategy::LeastRecent),
        "os" => params.outage_minutes > 0,
        "rt" | "rb" | "rc" | "rk" => refuses,
        "tq" | "wmax" | "up" | "down" => params.scaling == Scaling::Auto,
        _ => true,
    }
}

fn settle(params: &mut QueueParams) -> Vec<Notice> {
    let field = |key: &str| {
        QueueParams::FIELDS
            .iter()
            .find(|field| field.key == key)
            .expect("every key named here is a field")
    };
    let mut notices = Vec::new();
    if params.duration_p90 <= params.duration_mean {
        params.duration_p90 = params.duration_mean * 1.6;
        notices.push(field("d90").notice(format!(
            "must be above the mean; using {}",
            significant(params.duration_p90, 3)
        )));
    }
    if params.retry_cap < params.retry_base {
        params.retry_cap = params.retry_base;
        notices.push(field("rc").notice(format!(
            "must be at least the retry base; using {}",
            params.retry_cap
        )));
    }
    if params.max_workers < params.workers {
        params.max_workers = params.workers;
        notices.push(field("wmax").notice(format!(
            "must be at least the {} workers it starts with; using {}",
            params.workers, params.workers
        )));
    }
    let cycle_seconds = params.cycle_seconds();
    if params.jitter_window > cycle_seconds {
        params.jitter_window = cycle_seconds;
        notices.push(field("jw").notice(format!(
            "must fit in the cycle of {}; using {cycle_seconds} s",
            duration(f64::from(cycle_seconds))
        )));
    }
    let batch_window = params.batch_every * 60;
    if params.batch_spread > batch_window {
        params.batch_spread = batch_window;
        notices
            .push(field("spr").notice(format!("must fit between batches; using {batch_window} s")));
    }
    // The cap counts retries too: an outage or a rate limit can multiply
    // the first attempts by the retries allowed. The horizon goes first:
    // fewer hours keep every account in the run.
    if !fits_the_job_cap(params) {
        let planned = params.planned_jobs();
        params.horizon_hours = largest_fitting(params.horizon_hours, |hours| QueueParams {
            horizon_hours: hours,
            ..params.clone()
        });
        notices.push(field("hz").notice(format!(
            "would start more than {} jobs over all lanes, retries included ({} first attempts); using {} h",
            count(MAX_TOTAL_JOBS),
            count(planned),
            params.horizon_hours
        )));
    }
    if !fits_the_job_cap(params) {
        let planned = params.planned_jobs();
        params.accounts = largest_fitting(params.accounts, |accounts| QueueParams {
            accounts,
            ..params.clone()
        });
        notices.push(field("n").notice(format!(
            "would start more than {} jobs over all lanes in one hour, retries included ({} first attempts); using {}",
            count(MAX_TOTAL_JOBS),
            count(planned),
            params.accounts
        )));
    }
    notices
}

/// Whether every lane can run and all of them together start at most
/// [`MAX_TOTAL_JOBS`] jobs, by the simulation's own upper estimate.
fn fits_the_job_cap(params: &QueueParams) -> bool {
    estimated_jobs(params).is_ok_and(|jobs| jobs <= MAX_TOTAL_JOBS)
}

/// The largest value in [1, `most`] whose parameters fit the job cap, or 1.
/// The estimate grows with the horizon and the accounts, so a binary search
/// finds it.
fn largest_fitting(most: u32, with: impl Fn(u32) -> QueueParams) -> u32 {
    let (mut fits, mut fails) = (1, most);
    if !fits_the_job_cap(&with(fits)) {
        return 1;
    }
    // `fits` fits and `fails` does not, as the caller found.
    while fails - fits > 1 {
        let middle = fits + (fails - fits) / 2;
        if fits_the_job_cap(&with(middle)) {
            fits = middle;
        } else {
            fails = middle;
        }
    }
    fits
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

/// A run taken a step at a time, [`PROGRESS_STEPS`] steps per lane, for a
/// caller that must get control back between steps: the Web Worker returns
/// to its event loop there, which is when a browser can stop it.
pub struct QueueSteps {
    seed: u64,
    names: Vec<LaneName>,
    simulations: Vec<SimParams>,
    runs: Vec<SimRun>,
    /// The lane under way and the steps it has taken.
    current: Option<(Simulation, u32)>,
}

impl QueueSteps {
    pub fn new(params: &QueueParams, seed: u64) -> Result<Self, InvalidInput> {
        let simulations = params.simulations()?;
        Ok(Self {
            seed,
            names: params.lanes(),
            runs: Vec::with_capacity(simulations.len()),
            simulations,
            current: None,
        })
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
            None => self
                .current
                .insert((Simulation::new(sim_params, self.seed)?, 0)),
        };
        *steps += 1;
        let horizon = f64::from(sim_params.horizon_seconds);
        simulation.run_until(horizon * f64::from(*steps) / f64::from(PROGRESS_STEPS));
        let share = (lane as f64 + simulation.progress()) / self.simulations.len() as f64;
        if *steps == PROGRESS_STEPS
            && let Some((simulation, _)) = self.current.take()
        {
            self.runs.push(simulation.finish());
        }
        Ok(Some(share))
    }

    /// Takes the steps left and returns the run.
    pub fn finish(mut self) -> Result<QueueRun, InvalidInput> {
        while self.step()?.is_some() {}
        Ok(QueueRun {
            lanes: self
                .names
                .into_iter()
                .zip(self.runs)
                .map(|(name, run)| Lane { name, run })
                .collect(),
        })
    }
}

/// The jobs a run of `params` may enqueue over all lanes, retries included,
/// as the simulation estimates them: what decides where a run goes.
pub fn estimated_jobs(params: &QueueParams) -> Result<u64, InvalidInput> {
    params.simulations()?.iter().map(sim::estimated_jobs).sum()
}

/// The panel's "try this" presets.
pub const PRESETS: &[Preset] = &[
    Preset {
        slug: "cron-herd",
        title: "Cron herd at :00",
        lesson: "All 2,000 accounts fall due at :00, so 1,996 wait at once and the 4 workers take \
                 42 minutes to clear them: the mean wait is 21 minutes, as (N − W)²·E[S] / (2N·W) \
                 predicts, though the workers are idle 30 % of the hour.",
        query: "st=herd&vs=",
    },
    Preset {
        slug: "least-recent-vs-slots",
        title: "Least-recently-synced batches vs slots",
        lesson: "Every 5 minutes a batch of 167 accounts lands within one minute, over 3 minutes of \
                 work for 4 workers, so jobs wait 73 s on average; slots feed the same 2,000 an hour \
                 at their own offsets and jobs wait about a second.",
        query: "st=lrs&vs=slots",
    },
    Preset {
        slug: "poisson-vs-hash",
        title: "Poisson vs hash spread at equal load",
        lesson: "Both make the same 70 % load and almost the same waits, but Poisson arrivals pick \
                 accounts in turn at random moments, so an account's syncs drift up to 1 h 3 min \
                 apart, while a hash offset keeps each account on its own minute of the hour.",
        query: "st=poisson&vs=hash",
    },
    Preset {
        slug: "autoscaler-flapping",
        title: "Autoscaler flapping",
        lesson: "Each hour the herd's 1,998 waiting jobs call for all 40 workers, which boot a minute \
                 later, clear the pile and are let go five minutes after: the fleet swings between 2 \
                 and 40 every cycle, busy 36 % of the time, while slots never need more than 8.",
        query: "st=herd&vs=slots&sc=auto&w=2",
    },
    Preset {
        slug: "shared-lock",
        title: "Payments vs reports on a shared lock",
        lesson: "With each report due with its account's sync, slots make half of all jobs find \
                 their account locked (47,540 conflicts), while jitter, drawing each job's moment \
                 apart, has 122; set Reports to half a cycle later and slots drop to none.",
        query: "st=slots&vs=jitter&rep=same&w=8",
    },
    Preset {
        slug: "bank-outage",
        title: "A bank outage with and without jittered retries",
        lesson: "For the 10-minute outage every worker refuses a call a second, 12,000 in all. \
                 Without jitter the retries come back in waves, so the queue empties while the bank \
                 is still down and refills at once; full jitter keeps them trickling back, and the \
                 herd is done a minute sooner.",
        query: "st=herd&by=retries&rt=exponential&rvs=full&od=10&os=0&w=20&hz=2&rb=5",
    },
    Preset {
        slug: "jitter-window-for-a-limit",
        title: "A jitter window for a 50 /s limit",
        lesson: "Drawing 5,000 calls into a 100 s window averages exactly the bank's 50 /s, yet \
                 chance and the refused calls' retries bring 95 in the busiest second and 19,943 \
                 refusals over the day; a 200 s window keeps the busiest second at 44 and refuses \
                 none.",
        query: "st=jitter&vs=&n=5000&w=400&wmax=400&lim=50&jw=100",
    },
];

/// The figures the panel prints beside its charts, for the main lane, with
/// the theory where one applies: the load when the workers are fixed and
/// every call succeeds, the herd's drain, Erlang C for Poisson arrivals,
/// and uniform jitter's mean call rate over its window.
pub fn key_numbers(params: &QueueParams, run: &QueueRun) -> Vec<KeyNumber> {
    let Some(main) = run.lanes.first() else {
        return Vec::new();
    };
    let summary = &main.run.summary;
    let (n, w) = (f64::from(params.accounts), f64::from(params.workers));
    let cycle = f64::from(params.cycle_seconds());
    let arrival_rate = n / cycle;
    let mean_duration =
        Dist::folded_normal_from_mean_p90(params.duration_mean, params.duration_p90)
            .map_or(params.duration_mean, |dist| dist.mean());
    // Theory holds for one job kind on fixed workers whose calls all pass.
    let plain = params.reports == ReportPlacement::Off
        && params.rate_limit == 0
        && params.outage_minutes == 0
        && params.scaling == Scaling::Fixed;
    let load = arrival_rate * mean_duration;

    let mut utilization = KeyNumber::new(
        "utilization",
        "Workers busy",
        format!("ρ = {:.1} %", summary.utilization * 100.0),
        "busy worker time / ready worker time",
    );
    if plain {
        utilization = utilization.beside(format!(
            "λ·E[S] / W = {} /s × {} / {} = {:.1} %",
            significant(arrival_rate, 3),
            duration(mean_duration),
            params.workers,
            load / w * 100.0
        ));
    }

    let mut mean_wait = KeyNumber::new(
        "mean-wait",
        "Mean wait",
        duration(summary.mean_wait_s),
        "start − due, over the jobs started",
    );
    let mut depth = KeyNumber::new(
        "max-depth",
        "Most jobs waiting",
        count(summary.max_queue_depth),
        "at any instant",
    );
    let drains_within_cycle = n > w && (n - w) * mean_duration / w < cycle;
    match params.strategy {
        QueueStrategy::Herd if plain && drains_within_cycle => {
            mean_wait = mean_wait.beside(format!(
                "all due at once, drained at W / E[S]: (N − W)²·E[S] / (2N·W) = {}",
                duration((n - w).powi(2) * mean_duration / (2.0 * n * w))
            ));
            depth = depth.beside(format!(
                "all due at once: N − W = {}",
                count((n - w) as u64)
            ));
        }
        QueueStrategy::Poisson if plain => {
            if let Ok(wait) = sim::mm_c_mean_wait(arrival_rate, mean_duration, params.workers) {
                mean_wait = mean_wait.beside(format!(
                    "an M/M/W queue at the same load (Erlang C): {}",
                    duration(wait)
                ));
            }
        }
        _ => {}
    }

    let mut numbers = vec![
        utilization,
        mean_wait,
        KeyNumber::new(
            "p95-wait",
            "p95 wait",
            duration(summary.p95_wait_s),
            "nearest rank over the jobs started",
        ),
        depth,
        KeyNumber::new(
            "sync-gap",
            "Longest time between an account's syncs",
            duration(summary.max_sync_interval_s),
            "finish to finish, over all accounts",
        )
        .beside(format!("the cycle C = {}", duration(cycle))),
        KeyNumber::new(
            "never-synced",
            "Accounts never synced",
            count(u64::from(summary.never_synced)),
            "no finished sync by the end",
        ),
        peak_calls(params, summary.peak_calls_per_second),
    ];
    if params.reports != ReportPlacement::Off {
        numbers.push(KeyNumber::new(
            "lock-conflicts",
            "Lock conflicts",
            match summary.lock_conflicts {
                0 => "0".into(),
                conflicts => format!(
                    "{} ({} parked each)",
                    count(conflicts),
                    duration(summary.lock_wait_s / conflicts as f64)
                ),
            },
            "jobs that found their account locked, and their mean time parked",
        ));
    }
    if params.rate_limit > 0 || params.outage_minutes > 0 {
        numbers.push(KeyNumber::new(
            "refused",
            "Calls refused / retries / gave up",
            format!(
                "{} / {} / {}",
                count(summary.failed_calls),
                count(summary.retries),
                count(summary.gave_up)
            ),
            "over the limit or in the outage; a refusal holds its worker 1 s",
        ));
    }
    if params.scaling == Scaling::Auto {
        let most = main.run.workers.iter().copied().fold(0.0, f64::max);
        numbers.push(KeyNumber::new(
            "peak-workers",
            "Most workers ready",
            significant(most, 3),
            "highest average over a bin",
        ));
    }
    numbers
}

/// The busiest second's calls, per second and per minute, beside uniform
/// jitter's mean rate N / W over its window and the limit, where set.
fn peak_calls(params: &QueueParams, peak: u32) -> KeyNumber {
    let number = KeyNumber::new(
        "peak-calls",
        "Peak downstream calls, one second",
        format!(
            "{} /s ({} /min)",
            count(u64::from(peak)),
            count(u64::from(peak) * 60)
        ),
        "syncs started in the busiest whole second, retries and refused calls included",
    );
    let limit = (params.rate_limit > 0).then(|| format!("the limit is {} /s", params.rate_limit));
    let mean_rate = (params.strategy == QueueStrategy::Jitter).then(|| {
        let window = params.jitter_window_seconds();
        format!(
            "first attempts N / W = {} / {} = {} /s on average over the window",
            count(u64::from(params.accounts)),
            duration(f64::from(window)),
            significant(f64::from(params.accounts) / f64::from(window), 3)
        )
    });
    match (mean_rate, limit) {
        (Some(mean_rate), Some(limit)) => number.beside(format!("{mean_rate}; {limit}")),
        (Some(theory), None) | (None, Some(theory)) => number.beside(theory),
        (None, None) => number,
    }
}

fn whole(n: u64) -> (String, f64) {
    (count(n), n as f64)
}

fn time(seconds: f64) -> (String, f64) {
    (duration(seconds), seconds)
}

/// One line of the summary table: a figure for every lane.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SummaryRow {
    /// The summary's key, as `stampede run` prints it.
    pub key: &'static str,
    pub label: &'static str,
    pub formula: &'static str,
    /// Per lane: the value as the page writes it, and as a number.
    pub values: Vec<(String, f64)>,
}

/// The summary table: every lane's figures, the lock, downstream and
/// autoscaler lines only where those are on.
pub fn summary_rows(params: &QueueParams, run: &QueueRun) -> Vec<SummaryRow> {
    type Figure = fn(&SimRun) -> (String, f64);
    let mut rows: Vec<(&'static str, &'static str, &'static str, Figure)> = vec![
        (
            "jobs_enqueued",
            "Jobs enqueued",
            "first attempts due before the end",
            |r| whole(r.summary.jobs_enqueued),
        ),
        ("jobs_done", "Jobs done", "finished before the end", |r| {
            whole(r.summary.jobs_done)
        }),
        (
            "mean_wait_s",
            "Mean wait",
            "start − due, over jobs started",
            |r| time(r.summary.mean_wait_s),
        ),
        ("p50_wait_s", "Median wait", "nearest rank", |r| {
            time(r.summary.p50_wait_s)
        }),
        ("p95_wait_s", "p95 wait", "nearest rank", |r| {
            time(r.summary.p95_wait_s)
        }),
        ("p99_wait_s", "p99 wait", "nearest rank", |r| {
            time(r.summary.p99_wait_s)
        }),
        (
            "max_queue_depth",
            "Most jobs waiting",
            "at any instant",
            |r| whole(r.summary.max_queue_depth),
        ),
        (
            "utilization",
            "Utilization",
            "busy worker time / ready worker time",
            |r| {
                let share = r.summary.utilization;
                (format!("{:.1} %", share * 100.0), share)
            },
        ),
        (
            "never_synced",
            "Accounts never synced",
            "no finished sync by the end",
            |r| whole(u64::from(r.summary.never_synced)),
        ),
        (
            "max_sync_interval_s",
            "Longest time between syncs",
            "of one account, finish to finish",
            |r| time(r.summary.max_sync_interval_s),
        ),
        (
            "peak_calls_per_second",
            "Peak downstream calls",
            "syncs started in the busiest whole second",
            |r| {
                let peak = r.summary.peak_calls_per_second;
                (format!("{} /s", count(u64::from(peak))), f64::from(peak))
            },
        ),
    ];
    if params.reports != ReportPlacement::Off {
        rows.push((
            "lock_conflicts",
            "Lock conflicts",
            "a job found its account locked",
            |r| whole(r.summary.lock_conflicts),
        ));
        rows.push((
            "lock_wait_s",
            "Wait added by the lock",
            "time parked, in all",
            |r| time(r.summary.lock_wait_s),
        ));
    }
    if params.rate_limit > 0 || params.outage_minutes > 0 {
        rows.push((
            "failed_calls",
            "Calls refused",
            "over the limit or in the outage",
            |r| whole(r.summary.failed_calls),
        ));
        rows.push((
            "retries",
            "Retries",
            "jobs enqueued again after a refusal",
            |r| whole(r.summary.retries),
        ));
        rows.push((
            "gave_up",
            "Gave up",
            "refused once more than the retries allow",
            |r| whole(r.summary.gave_up),
        ));
    }
    if params.scaling == Scaling::Auto {
        rows.push((
            "peak_workers",
            "Most workers ready",
            "highest bin average",
            |r| {
                let most = r.workers.iter().copied().fold(0.0, f64::max);
                (crate::units::significant(most, 3), most)
            },
        ));
    }
    rows.into_iter()
        .map(|(key, label, formula, figure)| SummaryRow {
            key,
            label,
            formula,
            values: run.lanes.iter().map(|lane| figure(&lane.run)).collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
