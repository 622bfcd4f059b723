//! Backoff: how long a client waits before retrying a failed call, and what
//! a whole fleet of clients does to a dependency that comes back.
//!
//! # Waits
//!
//! Retries are numbered from 1: the first call is call 0, and retry n is
//! the (n + 1)-th call, made after the n-th wait. Every wait depends on n,
//! on the base delay b, the growth factor f and the cap c, and on one
//! uniform draw u in [0, 1):
//! - constant: b;
//! - linear: min(c, b·n);
//! - exponential: e(n) = min(c, b·f^(n−1)), so the wait grows by f after
//!   every failure until it reaches the cap;
//! - full jitter: u·e(n), anywhere between nothing and the exponential wait;
//! - equal jitter: e(n)/2 + u·e(n)/2, at least half of it;
//! - decorrelated jitter: min(c, b + u·(3·w − b)), uniform between the base
//!   and three times the previous wait w (w = b before the first retry), so
//!   each wait grows from the last one drawn rather than from n.
//!
//! Four presets follow the formula of one named library version each, with
//! that library's own counter (see [`RetryStrategy`]): Sidekiq, Celery
//! autoretry, Active Job's `:polynomially_longer` and the AWS SDK's standard
//! retry mode. A library that draws a whole number below k is modelled as
//! ⌊u·k⌋. Two more strategies spend a budget: the AWS SDK's retry quota,
//! each client's own or, as an option, one the fleet shares
//! ([`QuotaScope`]), and a circuit breaker the fleet shares (see
//! [`RetryStrategy`]). The formulas, [`Backoff`] and the delay bands are in
//! `delays`.
//!
//! # The fleet
//!
//! M clients make their first call at t = 0 to a dependency that is down
//! for D seconds; every call before D fails. From D on the dependency
//! either serves every call ([`DependencyModel::Unlimited`]) or, by
//! default, at most K calls a second ([`DependencyModel::Capacity`]): in
//! each whole second [s, s + 1) the first K calls made at or after D
//! succeed and the rest fail, as during the outage. A client retries a
//! failed call until one succeeds or its last allowed retry fails, and then
//! gives up. Without jitter, clients that failed together retry together, so
//! the herd that meets the dependency as it returns can overload it, fail
//! again and come back together: overload outlasting the outage, a
//! metastable failure. The dependency is healthy again at the end of the last
//! second from D on in which it refused a call for capacity (D if none).
//!
//! Client i draws from its own PCG32 stream (`backoff.client`, index i),
//! so its waits stay the same however many clients there are and in
//! whatever order they are simulated. The delay bands, which show the
//! spread of each retry's wait for every strategy drawn, read the same
//! streams: they are the waits the first clients of the fleet would draw if
//! the outage never ended.
//!
//! Two simulations, in `fleet`, give the fleets:
//! - Independent clients, when nothing is shared: an unlimited dependency and
//!   a strategy without a shared budget. Client i's calls then do not depend
//!   on M, a client without jitter stands for all of them, and a
//!   [`BackoffCache`] keeps what the clients of the last run did, so that a
//!   change of M alone simulates only the clients it adds or drops.
//! - Interacting clients, otherwise: calls are taken in time order from one
//!   queue, each entry a client standing for `weight` alike clients, which
//!   the dependency serves in part when its capacity runs out in that
//!   second; the part that failed retries as one. A strategy without jitter
//!   is one entry for the whole fleet. A jittered fleet of more than
//!   [`MAX_SIMULATED`] clients is simulated as [`MAX_SIMULATED`] clients
//!   each standing for ⌊M / 10,000⌋ or ⌈M / 10,000⌉ alike ones, so that a
//!   run takes the same time however large M is: alike clients call at the
//!   same instants and share the capacity in those weights. Calls before D
//!   fail whatever the others do, so a fleet without a shared budget
//!   replays each client up to its first call from D on without the queue.
//!
//! # A run
//!
//! A run compares the main strategy with up to four others. Every fleet
//! has the same clients with the same streams, and their calls are counted
//! in the same bins, as wide as the longest of the runs needs, so their
//! timelines lie on one time axis. A verdict (in `verdict`) ranks them by
//! one [`Objective`], but never a strategy that leaves more clients without
//! a success than the floor allows above one that does not: giving up is
//! not a way to spare the dependency. It says why in one sentence, and
//! `flip` finds, by running the fleets again, one change that would turn
//! the first two around.
//!
//! ```
//! use stampede_core::backoff::{BackoffParams, RetryStrategy, exponential, run};
//!
//! // Base 1 s, factor 2, cap 60 s: 1, 2, 4, … 32 s, then 60 s.
//! assert_eq!(exponential(1.0, 2.0, 60.0, 6), 32.0);
//! assert_eq!(exponential(1.0, 2.0, 60.0, 7), 60.0);
//!
//! // 2,000 clients after a 60 s outage, without jitter and with full jitter.
//! let params = BackoffParams {
//!     strategy: RetryStrategy::Exponential,
//!     clients: 2_000,
//!     ..Default::default()
//! };
//! let fleets = run(&params, 1).unwrap().fleets;
//! let (herd, jittered) = (&fleets[0].fleet, &fleets[1].fleet);
//! assert!(jittered.peak_after_outage.per_second < herd.peak_after_outage.per_second);
//! ```

mod delays;
mod fleet;
mod flip;
mod ranking;
mod verdict;

pub use delays::{
    ACTIVE_JOB_JITTER, AWS_MAX_BACKOFF, AWS_NO_RETRY_REFUND, AWS_QUOTA_CAPACITY, AWS_RETRY_COST,
    AWS_THROTTLING_SCALE, AWS_TRANSIENT_SCALE, Backoff, Band, CELERY_MAX_COUNTDOWN,
    DECORRELATED_SPREAD, Waits, active_job_delay, aws_standard_delay, celery_countdown,
    celery_delay, client_rng, decorrelated, delay_bands, equal_jitter, exponential, full_jitter,
    sidekiq_delay, uniform_below,
};
pub use fleet::{
    BREAKER_FAILURE_PERCENT, BREAKER_MIN_CALLS, BREAKER_OPEN_SECONDS, BREAKER_WINDOW_SECONDS,
    Burst, Fleet, Timeline, simulate_fleet, simulate_fleets, simulate_fleets_against,
};
pub use flip::{Flip, FlipSearch};
pub use verdict::{Ranked, Verdict};

use crate::choice_enum;
use crate::error::InvalidInput;
use crate::field::ChoiceSet;
use crate::speedup::Speedup;

use fleet::{Clients, simulate_fleets_keeping};
use verdict::verdict;

/// Most clients a fleet may have.
pub const MAX_CLIENTS: u32 = 1_000_000;
/// Most retries a client may make after its first call.
pub const MAX_RETRIES: u32 = 100;
/// Most calls a run may make, M·(A + 1) for each strategy whose clients are
/// independent (the interacting ones follow at most [`MAX_SIMULATED`]):
/// under 0.1 s natively (the call-cap benchmark), so a browser tab stays
/// responsive.
pub const MAX_CALLS: u64 = 10_000_000;
/// Most strategies compared with the main one: five fleets in all, which
/// the charts' eight colours and the totals' columns still tell apart.
pub const MAX_COMPARED: usize = 4;
/// Most draws per retry for the delay bands.
pub const MAX_DRAWS: u32 = 100_000;
/// Longest base delay, cap or outage accepted: a year. Anything longer is a
/// typo, and the bound keeps every sum of waits finite.
pub const MAX_SECONDS: f64 = 31_536_000.0;
/// Largest growth factor accepted.
pub const MAX_FACTOR: f64 = 100.0;
/// Draws per retry behind the panel's delay bands.
pub const BAND_DRAWS: u32 = 10_000;

/// Most clients the interacting simulation follows one by one; a larger
/// jittered fleet is simulated as this many, each standing for several
/// alike clients, which keeps a run within a frame however large M is.
pub const MAX_SIMULATED: u32 = 10_000;
/// Most calls a dependency with finite capacity serves a second.
pub const MAX_CAPACITY: u32 = 1_000_000;

choice_enum! {
    /// How a client picks its wait before each retry.
    pub enum RetryStrategy {
        /// b before every retry.
        Constant = ("constant", "Constant"),
        /// min(c, b·n).
        Linear = ("linear", "Linear"),
        /// min(c, b·f^(n−1)).
        Exponential = ("exponential", "Exponential, no jitter"),
        /// u·min(c, b·f^(n−1)).
        FullJitter = ("full", "Full jitter"),
        /// Half of min(c, b·f^(n−1)) plus up to the other half at random.
        EqualJitter = ("equal", "Equal jitter"),
        /// min(c, b + u·(3·previous − b)).
        Decorrelated = ("decorrelated", "Decorrelated jitter"),
        /// [`sidekiq_delay`] with count = n − 1.
        Sidekiq = ("sidekiq", "Sidekiq 8.1.7"),
        /// [`celery_delay`] with retries = n − 1.
        Celery = ("celery", "Celery 5.7.0 autoretry"),
        /// [`active_job_delay`] with executions = n.
        ActiveJob = ("activejob", "Active Job 8.1 polynomially longer"),
        /// [`aws_standard_delay`] with attempt = n and the transient scale.
        Aws = ("aws", "AWS SDK standard (botocore 1.44.8)"),
        /// The AWS SDK's standard mode with its retry quota, as botocore
        /// 1.44.8 has it by default: `RetryQuotaChecker` in
        /// `botocore/retries/standard.py` and `RetryQuota` in
        /// `botocore/retries/quota.py`. Each SDK client object has its own
        /// quota, which starts full at [`AWS_QUOTA_CAPACITY`] tokens; by
        /// default each of the M clients is its own SDK client
        /// ([`QuotaScope::PerClient`]), or all M requests go through one
        /// ([`QuotaScope::Shared`]). A retry costs [`AWS_RETRY_COST`]
        /// tokens: outage and overload replies are taken as 503s, neither
        /// throttling codes nor a 429. A success gives back
        /// [`AWS_NO_RETRY_REFUND`] token without retries, or what its last
        /// retry cost after them, never above the capacity. When the quota
        /// cannot pay for a retry, the client gives up. The waits are
        /// [`RetryStrategy::Aws`]'s. botocore 1.43 charged 5 tokens and
        /// waited up to 1·2^(n−1) s unless `AWS_NEW_RETRIES_2026` was set.
        AwsQuota = ("awsquota", "AWS SDK standard with retry quota (botocore 1.44.8)"),
        /// Full jitter on b, f and c, every call passing one circuit breaker
        /// the fleet shares, as a proxy in front of the dependency holds it.
        /// Closed, it lets calls through and opens when, of the calls of
        /// the last [`BREAKER_WINDOW_SECONDS`], at least
        /// [`BREAKER_MIN_CALLS`] reached the dependency and at least
        /// [`BREAKER_FAILURE_PERCENT`] % failed. Open, it turns every call
        /// away at once, without load on the dependency: the call fails and
        /// uses a retry. After [`BREAKER_OPEN_SECONDS`] the next call goes
        /// through as a probe; its success closes the breaker with an empty
        /// window, its failure opens it again.
        Breaker = ("breaker", "Full jitter behind a circuit breaker"),
    }
}

choice_enum! {
    /// Whose retry quota a retry of [`RetryStrategy::AwsQuota`] spends.
    pub enum QuotaScope {
        /// Each client is its own SDK client with its own quota, as a
        /// fleet of processes or of client objects has: one request alone
        /// pays for at most ⌊500 / 14⌋ = 35 retries.
        PerClient = ("0", "Each client its own SDK client"),
        /// The M clients are requests through one SDK client, one process
        /// with M requests in flight, and spend one quota.
        Shared = ("1", "Clients share one SDK client"),
    }
}

choice_enum! {
    /// What the dependency serves once its outage is over.
    pub enum DependencyModel {
        /// At most K calls a second; the others fail as during the outage.
        Capacity = ("capacity", "At most K calls a second"),
        /// Every call: the dependency is either down or fine.
        Unlimited = ("unlimited", "Every call"),
    }
}

choice_enum! {
    /// What the verdict ranks the strategies by, smallest first; two more
    /// figures break ties in turn, then the order drawn.
    pub enum Objective {
        /// When the dependency is healthy again; ties by the client p99,
        /// then by the clients that gave up.
        Recovery = ("recovery", "Recovery time"),
        /// The busiest second from D on, over the capacity (the busiest bin
        /// from D on, per second, when unlimited); ties by the recovery
        /// time, then by the client p99.
        Load = ("load", "Load on the dependency"),
        /// When 99 % of the clients had succeeded, never when more than
        /// 1 % gave up; ties by the clients that gave up, then by the
        /// recovery time.
        ClientP99 = ("p99", "Client p99 time to success"),
        /// How many clients gave up; ties by the client p99, then by the
        /// recovery time.
        GaveUp = ("gaveup", "Clients that gave up"),
    }
}

/// The retry strategies compared, their delays, the fleet and the
/// dependency it calls.
#[derive(Clone, Debug, PartialEq)]
pub struct BackoffParams {
    pub strategy: RetryStrategy,
    /// b, the wait before the first retry, in seconds.
    pub base: f64,
    /// f, how much longer each wait is than the one before.
    pub factor: f64,
    /// c, the longest wait, in seconds.
    pub cap: f64,
    /// A, the retries a client makes after its first call before it gives up.
    pub retries: u32,
    /// M, the clients that fail together at t = 0.
    pub clients: u32,
    /// D, how long the dependency is down, in seconds.
    pub outage: f64,
    /// Strategies drawn beside the main one; the main one, if listed, is
    /// drawn once, as the main one.
    pub compared: ChoiceSet<RetryStrategy>,
    /// Whether the dependency serves at most K calls a second from D on.
    pub dependency: DependencyModel,
    /// K, the calls a second the dependency serves. With the other
    /// defaults, 1,000 /s: exponential backoff without jitter brings all
    /// 10,000 clients back in one second, 10 times that, and keeps it
    /// overloaded until 3 min 4 s, while full and decorrelated jitter
    /// peak under 300 calls a second and find it healthy at D.
    pub capacity: u32,
    /// What the verdict ranks the strategies by.
    pub objective: Objective,
    /// The share of clients, in percent, that must succeed for a strategy
    /// to rank by the objective at all; those short of it rank below, by
    /// how many succeeded.
    pub floor: f64,
    /// Whose retry quota the AWS SDK's clients spend.
    pub quota: QuotaScope,
}

impl BackoffParams {
    /// The strategies a run draws: the main one first, then each compared
    /// one that is not the main one.
    pub fn strategies(&self) -> Vec<RetryStrategy> {
        let compared = self.compared.as_slice().iter();
        std::iter::once(self.strategy)
            .chain(
                compared
                    .filter(|&&strategy| strategy != self.strategy)
                    .copied(),
            )
            .collect()
    }

    /// The dependency the fleets call.
    pub fn dependency(&self) -> Dependency {
        Dependency {
            outage: self.outage,
            capacity: match self.dependency {
                DependencyModel::Capacity => Some(self.capacity),
                DependencyModel::Unlimited => None,
            },
        }
    }

    /// How many of the strategies drawn simulate M independent clients, each
    /// making up to A + 1 calls: those the call budget [`MAX_CALLS`] bounds.
    pub fn independent_strategies(&self) -> u64 {
        let dependency = self.dependency();
        let strategies = self.strategies().into_iter();
        strategies
            .filter(|&strategy| dependency.keeps_independent(strategy, self.quota))
            .count() as u64
    }

    /// The validated [`Backoff`] of `strategy` under these parameters.
    pub fn backoff(&self, strategy: RetryStrategy) -> Result<Backoff, InvalidInput> {
        let backoff = Backoff::new(strategy, self.base, self.factor, self.cap)?;
        Ok(backoff.with_quota(self.quota))
    }
}

/// The dependency a fleet calls: down until `outage`, then serving every
/// call, or at most `capacity` calls in each whole second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dependency {
    /// D, in seconds.
    pub outage: f64,
    /// K, calls a second; `None` for no limit.
    pub capacity: Option<u32>,
}

impl Dependency {
    /// Down for `outage` seconds, then serving every call.
    pub fn unlimited(outage: f64) -> Self {
        Self {
            outage,
            capacity: None,
        }
    }

    /// Whether the clients of `strategy` call independently of each other
    /// here: without a capacity to share and without a shared budget.
    fn keeps_independent(&self, strategy: RetryStrategy, quota: QuotaScope) -> bool {
        self.capacity.is_none() && !strategy.shares_a_budget(quota)
    }
}

impl RetryStrategy {
    /// Whether every wait is fixed by the retry's number alone, the draw
    /// ignored, so that clients failing together retry together.
    pub fn is_jitterless(self) -> bool {
        matches!(self, Self::Constant | Self::Linear | Self::Exponential)
    }

    /// Whether the fleet's clients spend one budget they share: the retry
    /// quota when `quota` is shared, or the circuit breaker.
    pub fn shares_a_budget(self, quota: QuotaScope) -> bool {
        match self {
            Self::AwsQuota => quota == QuotaScope::Shared,
            Self::Breaker => true,
            _ => false,
        }
    }
}

/// A strategy is written as its slug, as in a URL.
impl serde::Serialize for RetryStrategy {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.slug())
    }
}

/// One strategy's fleet in a run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StrategyFleet {
    pub strategy: RetryStrategy,
    /// The strategy's name, with the library version for the presets.
    pub label: &'static str,
    /// The spread of each retry's wait over [`BAND_DRAWS`] clients.
    pub bands: Vec<Band>,
    pub fleet: Fleet,
}

/// The fleets of every strategy drawn and the verdict that ranks them.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BackoffRun {
    /// The main strategy's fleet first, then the compared ones', all in
    /// the same timeline bins.
    pub fleets: Vec<StrategyFleet>,
    pub verdict: Verdict,
}

impl BackoffRun {
    /// Fills in the verdict's flip, running the fleets again for each
    /// change tried until one turns the first two around (see
    /// [`FlipSearch`]).
    pub fn search_flip(&mut self, params: &BackoffParams, seed: u64) {
        self.verdict.flip = FlipSearch::new(params, seed, self).finish();
    }
}

/// The delay bands and the fleet of every strategy for `params` with
/// `seed`, and the verdict, its flip not yet searched for
/// ([`BackoffRun::search_flip`]).
pub fn run(params: &BackoffParams, seed: u64) -> Result<BackoffRun, InvalidInput> {
    let backoffs = backoffs_of(params)?;
    let retries = params.retries;
    let fleets = simulate_fleets_against(
        &backoffs,
        params.clients,
        params.dependency(),
        retries,
        seed,
    )?;
    let bands = backoffs
        .iter()
        .map(|backoff| delay_bands(backoff, backoff.retries_allowed(retries), BAND_DRAWS, seed))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(assembled(params, seed, fleets, bands))
}

/// The backoff of each strategy `params` compares, in order.
fn backoffs_of(params: &BackoffParams) -> Result<Vec<Backoff>, InvalidInput> {
    params
        .strategies()
        .iter()
        .map(|&strategy| params.backoff(strategy))
        .collect()
}

/// The run of `params` with `seed` from each strategy's fleet and delay
/// bands, in the order of [`BackoffParams::strategies`].
fn assembled(
    params: &BackoffParams,
    seed: u64,
    fleets: Vec<Fleet>,
    bands: Vec<Vec<Band>>,
) -> BackoffRun {
    let fleets: Vec<StrategyFleet> = params
        .strategies()
        .into_iter()
        .zip(fleets)
        .zip(bands)
        .map(|((strategy, fleet), bands)| StrategyFleet {
            strategy,
            label: strategy.label(),
            bands,
            fleet,
        })
        .collect();
    let verdict = verdict(params, seed, &fleets);
    BackoffRun { fleets, verdict }
}

/// What [`run`] simulated, kept for the next run: the independent clients
/// of each fleet, and the delay bands of each strategy.
#[derive(Debug, Default)]
pub struct BackoffCache {
    clients: Vec<Clients>,
    bands: Vec<KeptBands>,
}

/// Delay bands and what they were drawn for.
#[derive(Debug)]
struct KeptBands {
    backoff: Backoff,
    retries: u32,
    seed: u64,
    bands: Vec<Band>,
}

impl Speedup for BackoffCache {
    type Params = BackoffParams;
    type Run = BackoffRun;

    fn plain(params: &BackoffParams, seed: u64) -> Result<BackoffRun, InvalidInput> {
        run(params, seed)
    }

    /// [`run`], simulating only the independent clients the last run did
    /// not, and drawing only the bands it did not.
    fn run(&mut self, params: &BackoffParams, seed: u64) -> Result<BackoffRun, InvalidInput> {
        let backoffs = backoffs_of(params)?;
        let retries = params.retries;
        let fleets = simulate_fleets_keeping(
            &mut self.clients,
            &backoffs,
            params.clients,
            params.dependency(),
            retries,
            seed,
        )?;
        let mut earlier = std::mem::take(&mut self.bands);
        for backoff in backoffs {
            let kept = earlier.iter().position(|kept| {
                (kept.backoff, kept.retries, kept.seed) == (backoff, retries, seed)
            });
            let bands = match kept {
                Some(index) => earlier.swap_remove(index).bands,
                None => delay_bands(&backoff, backoff.retries_allowed(retries), BAND_DRAWS, seed)?,
            };
            self.bands.push(KeptBands {
                backoff,
                retries,
                seed,
                bands,
            });
        }
        let bands = self.bands.iter().map(|kept| kept.bands.clone()).collect();
        Ok(assembled(params, seed, fleets, bands))
    }
}
