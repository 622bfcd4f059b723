//! Backoff: how long a client waits before retrying a failed call, and what
//! a whole fleet of clients does to a dependency that comes back.
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
//! that library's own counter (see [`Strategy`]): Sidekiq, Celery autoretry,
//! Active Job's `:polynomially_longer` and the AWS SDK's standard retry
//! mode. A library that draws a whole number below k is modelled as
//! ⌊u·k⌋. Two more strategies spend a budget the fleet shares: the AWS
//! SDK's retry quota, and a circuit breaker (see [`Strategy`]).
//!
//! The fleet simulation: M clients make their first call at t = 0 to a
//! dependency that is down for D seconds; every call before D fails. From D
//! on the dependency either serves every call ([`DependencyModel::Unlimited`])
//! or, by default, at most K calls a second ([`DependencyModel::Capacity`]):
//! in each whole second [s, s + 1) the first K calls made at or after D
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
//! A run compares the main strategy with up to three others. Every fleet
//! has the same clients with the same streams, and their calls are counted
//! in the same bins, as wide as the longest of the runs needs, so their
//! timelines lie on one time axis. A verdict ranks them by one
//! [`Objective`] and says in one sentence why the first one wins.
//!
//! Two simulations give the fleets:
//! - Independent clients, when nothing is shared: an unlimited dependency and
//!   a strategy without a shared budget. Client i's calls then do not depend
//!   on M, a client without jitter stands for all of them, and a
//!   [`RunCache`] keeps what the clients of the last run did, so that a
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

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use rand::RngExt;

use crate::choice_enum;
use crate::error::{InvalidInput, count_at_most, non_negative, positive, within};
use crate::field::ChoiceSet;
use crate::rng::{Purpose, SeededRng, seeded};
use crate::stats::{
    bin_index_by_reciprocal, histogram, place_order_statistics, quantiles_unsorted,
};
use crate::units::{count, duration, percent, significant};

/// Most clients a fleet may have.
pub const MAX_CLIENTS: u32 = 1_000_000;
/// Most retries a client may make after its first call.
pub const MAX_RETRIES: u32 = 100;
/// Most calls a run may make, M·(A + 1) for each strategy whose clients are
/// independent (the interacting ones follow at most [`MAX_SIMULATED`]):
/// under 0.1 s natively (the call-cap benchmark), so a browser tab stays
/// responsive.
pub const MAX_CALLS: u64 = 10_000_000;
/// Most strategies compared with the main one.
pub const MAX_COMPARED: usize = 3;
/// Most draws per retry for the delay bands.
pub const MAX_DRAWS: u32 = 100_000;
/// Longest base delay, cap or outage accepted: a year. Anything longer is a
/// typo, and the bound keeps every sum of waits finite.
pub const MAX_SECONDS: f64 = 31_536_000.0;
/// Largest growth factor accepted.
pub const MAX_FACTOR: f64 = 100.0;
/// Draws per retry behind the panel's delay bands.
pub const BAND_DRAWS: u32 = 10_000;
/// Decorrelated jitter draws up to this multiple of the previous wait.
pub const DECORRELATED_SPREAD: f64 = 3.0;

/// Active Job's `retry_jitter` as `config.load_defaults` 6.1 and later set
/// it; the class default is 0.
pub const ACTIVE_JOB_JITTER: f64 = 0.15;
/// Celery's default `retry_backoff_max`, in seconds.
pub const CELERY_MAX_COUNTDOWN: u64 = 600;
/// botocore's `_MAX_BACKOFF`, in seconds.
pub const AWS_MAX_BACKOFF: f64 = 20.0;
/// botocore's scale for errors that are not throttling, such as the
/// connection errors and 5xx replies of an outage (DynamoDB uses 0.025).
pub const AWS_TRANSIENT_SCALE: f64 = 0.05;
/// botocore's scale for throttling errors.
pub const AWS_THROTTLING_SCALE: f64 = 1.0;
/// botocore's `RetryQuota.INITIAL_CAPACITY`, also its most: the tokens one
/// SDK client starts with.
pub const AWS_QUOTA_CAPACITY: u64 = 500;
/// botocore's `_RETRY_COST_V2`: the tokens a retry after an error that is
/// not throttling costs with the new retries, which charge 5
/// (`_THROTTLING_RETRY_COST`) after throttling; without them a retry costs
/// 5 (`_RETRY_COST`), or 10 after a timeout (`_TIMEOUT_RETRY_REQUEST`).
pub const AWS_RETRY_COST: u64 = 14;
/// botocore's `_NO_RETRY_INCREMENT`: the tokens a call that succeeds at once
/// gives back.
pub const AWS_NO_RETRY_REFUND: u64 = 1;

/// The circuit breaker opens when, over its window, at least
/// [`BREAKER_MIN_CALLS`] calls reached the dependency and at least this
/// percentage of them failed.
pub const BREAKER_FAILURE_PERCENT: u64 = 50;
/// Fewest calls in the window before the breaker may open.
pub const BREAKER_MIN_CALLS: u64 = 20;
/// The breaker's sliding window: the calls of the last 10 s.
pub const BREAKER_WINDOW_SECONDS: f64 = 10.0;
/// How long the breaker stays open before it lets one probe call through:
/// long enough to shed a herd's load, short beside a one-minute outage.
pub const BREAKER_OPEN_SECONDS: f64 = 5.0;

/// Most clients the interacting simulation follows one by one; a larger
/// jittered fleet is simulated as this many, each standing for several
/// alike clients, which keeps a run within a frame however large M is.
pub const MAX_SIMULATED: u32 = 10_000;
/// Most calls a dependency with finite capacity serves a second.
pub const MAX_CAPACITY: u32 = 1_000_000;

/// Each client's stream; the delay bands share it.
const CLIENTS: Purpose = Purpose::new("backoff.client");
/// A calls-per-second timeline has at most this many bins; longer runs get
/// wider bins.
const MAX_TIMELINE_BINS: f64 = 2_000.0;

choice_enum! {
    /// How a client picks its wait before each retry.
    pub enum Strategy {
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
        Aws = ("aws", "AWS SDK standard (botocore 1.44.5)"),
        /// The AWS SDK's standard mode with its retry quota, as botocore
        /// 1.43.67 has it with the new retries (`AWS_NEW_RETRIES_2026`) on,
        /// the behaviour whose transient scale [`Strategy::Aws`] follows:
        /// `RetryQuotaChecker` in `botocore/retries/standard.py` and
        /// `RetryQuota` in `botocore/retries/quota.py`. The whole fleet is
        /// one process with M requests in flight through one SDK client,
        /// whose quota starts full at [`AWS_QUOTA_CAPACITY`] tokens. A retry
        /// costs [`AWS_RETRY_COST`] tokens: outage and overload replies are
        /// 5xx errors, neither timeouts nor throttling codes. A success
        /// gives back [`AWS_NO_RETRY_REFUND`] token without retries, or what
        /// its last retry cost after them, never above the capacity. When
        /// the quota cannot pay for a retry, the client gives up. The waits
        /// are [`Strategy::Aws`]'s.
        AwsQuota = ("awsquota", "AWS SDK standard with retry quota (botocore 1.43.67)"),
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

/// Parameters of the Backoff panel.
#[derive(Clone, Debug, PartialEq)]
pub struct BackoffParams {
    pub strategy: Strategy,
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
    pub compared: ChoiceSet<Strategy>,
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
}

impl BackoffParams {
    /// The strategies a run draws: the main one first, then each compared
    /// one that is not the main one.
    pub fn strategies(&self) -> Vec<Strategy> {
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
            .filter(|&strategy| dependency.keeps_independent(strategy))
            .count() as u64
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
    fn keeps_independent(&self, strategy: Strategy) -> bool {
        self.capacity.is_none() && !strategy.shares_a_budget()
    }
}

impl Strategy {
    /// Whether every wait is fixed by the retry's number alone, the draw
    /// ignored, so that clients failing together retry together.
    pub fn is_jitterless(self) -> bool {
        matches!(self, Self::Constant | Self::Linear | Self::Exponential)
    }

    /// Whether the fleet's clients spend one budget they share: the retry
    /// quota or the circuit breaker.
    pub fn shares_a_budget(self) -> bool {
        matches!(self, Self::AwsQuota | Self::Breaker)
    }
}

/// A strategy is written as its slug, as in a URL.
impl serde::Serialize for Strategy {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.slug())
    }
}

/// The exponential wait before retry `retry` (counted from 1; 0 reads as
/// 1): min(cap, base·factor^(retry−1)).
pub fn exponential(base: f64, factor: f64, cap: f64, retry: u32) -> f64 {
    (base * power(factor, retry.max(1) - 1)).min(cap)
}

/// x^exponent by repeated squaring: plain multiplications, which round
/// alike on every platform, and far cheaper than a general `pow` on the
/// fleet's hot path. Exact for powers of two.
fn power(x: f64, exponent: u32) -> f64 {
    let (mut result, mut square, mut rest) = (1.0, x, exponent);
    while rest > 0 {
        if rest & 1 == 1 {
            result *= square;
        }
        square *= square;
        rest >>= 1;
    }
    result
}

/// Full jitter: u·ceiling, uniform in [0, ceiling).
pub fn full_jitter(ceiling: f64, u: f64) -> f64 {
    u * ceiling
}

/// Equal jitter: ceiling/2 + u·ceiling/2, uniform in [ceiling/2, ceiling).
pub fn equal_jitter(ceiling: f64, u: f64) -> f64 {
    let half = ceiling / 2.0;
    half + u * half
}

/// Decorrelated jitter: min(cap, base + u·(3·previous − base)), uniform in
/// [base, 3·previous) before the cap.
pub fn decorrelated(base: f64, cap: f64, previous: f64, u: f64) -> f64 {
    let wait = base + u * (DECORRELATED_SPREAD * previous - base);
    // f64::min, with its NaN rule, is a call to fmin in wasm; this is the
    // same for every cap but NaN, on a fleet's hot path.
    if wait < cap { wait } else { cap }
}

/// A whole number uniform in [0, k) from u in [0, 1): ⌊u·k⌋. Its bias is at
/// most k / 2^53, far below anything a histogram shows.
pub fn uniform_below(u: f64, k: u64) -> u64 {
    (u * k as f64) as u64
}

/// Sidekiq 8.1.7's default wait in whole seconds before the retry whose
/// `retry_count` is `count` (0 for the first retry): count⁴ + 15 +
/// rand(10·(count + 1)), with that rand drawn as ⌊u·10·(count + 1)⌋.
///
/// Source: `lib/sidekiq/job_retry.rb` at tag v8.1.7. `delay_for` returns
/// `(count**4) + 15` and `attempt_retry` adds `rand(10 * (count + 1))`.
/// Sidekiq 6.2 to 7.x added `rand(10) * (count + 1)` instead: multiples of
/// count + 1 only.
pub fn sidekiq_delay(count: u32, u: f64) -> u64 {
    let count = u64::from(count);
    let jitter = uniform_below(u, count.saturating_add(1).saturating_mul(10));
    count
        .saturating_pow(4)
        .saturating_add(15)
        .saturating_add(jitter)
}

/// Celery 5.7.0's countdown before the retry numbered `retries` (0 for the
/// first retry), without jitter: min(maximum, factor·2^retries) seconds.
///
/// Source: `get_exponential_backoff_interval` in `celery/utils/time.py`.
pub fn celery_countdown(factor: u64, retries: u32, maximum: u64) -> u64 {
    let doubled = 1u64
        .checked_shl(retries)
        .and_then(|power| factor.checked_mul(power));
    doubled.map_or(maximum, |countdown| countdown.min(maximum))
}

/// Celery 5.7.0's autoretry wait in whole seconds with its defaults
/// (`retry_backoff=True`, so factor 1; `retry_backoff_max=600`;
/// `retry_jitter=True`): `random.randrange(countdown + 1)`, drawn as
/// ⌊u·(countdown + 1)⌋, so anything from 0 to the countdown itself.
///
/// Source: `celery/app/autoretry.py`, which passes
/// `task.request.retries` to `get_exponential_backoff_interval` in
/// `celery/utils/time.py`.
pub fn celery_delay(retries: u32, u: f64) -> u64 {
    let countdown = celery_countdown(1, retries, CELERY_MAX_COUNTDOWN);
    uniform_below(u, countdown + 1)
}

/// Active Job 8.1's `:polynomially_longer` wait in seconds after
/// `executions` runs (1 after the first failure): e⁴ + u·e⁴·0.15 + 2,
/// the jitter applying to e⁴ only, evaluated in Ruby's order so the result
/// matches to the last bit.
///
/// Source: `determine_delay` in `activejob/lib/active_job/exceptions.rb`
/// at Rails v8.1.3.1, with `Kernel.rand` as u and `retry_jitter` 0.15.
pub fn active_job_delay(executions: u32, u: f64) -> f64 {
    let delay = u64::from(executions).saturating_pow(4) as f64;
    delay + u * delay * ACTIVE_JOB_JITTER + 2.0
}

/// The AWS SDK's standard retry mode wait in seconds after attempt
/// `attempt` (1 for the first call) failed: u·min(scale·2^(attempt−1), 20).
///
/// Source: `ExponentialBackoff.delay_amount` in
/// `botocore/retries/standard.py`, botocore 1.44.5, which scales by
/// [`AWS_TRANSIENT_SCALE`] or [`AWS_THROTTLING_SCALE`]. Before 1.44 (or
/// without the opt-in `AWS_NEW_RETRIES_2026`) every error used the
/// throttling scale, 1 s. An `x-amz-retry-after` header, which can raise
/// the wait, is not modelled.
pub fn aws_standard_delay(attempt: u32, scale: f64, u: f64) -> f64 {
    full_jitter(aws_ceiling(attempt, scale), u)
}

/// The AWS SDK's wait at u → 1 after attempt `attempt`:
/// min(scale·2^(attempt−1), 20).
fn aws_ceiling(attempt: u32, scale: f64) -> f64 {
    (scale * power(2.0, attempt.max(1) - 1)).min(AWS_MAX_BACKOFF)
}

/// A validated retry strategy with its base delay, factor and cap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    strategy: Strategy,
    base: f64,
    factor: f64,
    cap: f64,
}

impl Backoff {
    /// `base` and `cap` in seconds, at most [`MAX_SECONDS`], the cap at least
    /// the base; `factor` in [1, [`MAX_FACTOR`]]. The presets ignore all
    /// three, but they are checked all the same.
    pub fn new(strategy: Strategy, base: f64, factor: f64, cap: f64) -> Result<Self, InvalidInput> {
        let base = within("base", positive("base", base)?, 0.0, MAX_SECONDS)?;
        let factor = within("factor", factor, 1.0, MAX_FACTOR)?;
        let cap = within("cap", positive("cap", cap)?, 0.0, MAX_SECONDS)?;
        if cap < base {
            return Err(InvalidInput::new(
                "cap",
                format!("{cap} must be at least the base delay {base}"),
            ));
        }
        Ok(Self {
            strategy,
            base,
            factor,
            cap,
        })
    }

    /// The wait in seconds before retry `retry` (counted from 1; 0 reads as
    /// 1), given the wait before the previous retry (the base before the
    /// first; only decorrelated jitter reads it) and u in [0, 1).
    pub fn delay(&self, retry: u32, previous: f64, u: f64) -> f64 {
        let n = retry.max(1);
        self.delay_under(self.ceiling(n), n, previous, u)
    }

    /// What the wait before retry `n` (from 1) is without a draw, or the
    /// most a draw scales it to: the wait itself for the strategies without
    /// jitter, e(n) for full and equal jitter, the AWS SDK's capped
    /// doubling. The other strategies work their waits out from each draw
    /// and read 0. A run works it out once per retry, not once per call.
    fn ceiling(&self, n: u32) -> f64 {
        let Self {
            base, factor, cap, ..
        } = *self;
        match self.strategy {
            Strategy::Constant => base,
            Strategy::Linear => (base * f64::from(n)).min(cap),
            Strategy::Exponential
            | Strategy::FullJitter
            | Strategy::EqualJitter
            | Strategy::Breaker => exponential(base, factor, cap, n),
            Strategy::Aws | Strategy::AwsQuota => aws_ceiling(n, AWS_TRANSIENT_SCALE),
            Strategy::Decorrelated | Strategy::Sidekiq | Strategy::Celery | Strategy::ActiveJob => {
                0.0
            }
        }
    }

    /// [`Self::delay`] before retry `n` (from 1), given its
    /// [`Self::ceiling`].
    #[inline(always)]
    fn delay_under(&self, ceiling: f64, n: u32, previous: f64, u: f64) -> f64 {
        match self.strategy {
            Strategy::Constant | Strategy::Linear | Strategy::Exponential => ceiling,
            Strategy::FullJitter | Strategy::Aws | Strategy::AwsQuota | Strategy::Breaker => {
                full_jitter(ceiling, u)
            }
            Strategy::EqualJitter => equal_jitter(ceiling, u),
            Strategy::Decorrelated => decorrelated(self.base, self.cap, previous, u),
            Strategy::Sidekiq => sidekiq_delay(n - 1, u) as f64,
            Strategy::Celery => celery_delay(n - 1, u) as f64,
            Strategy::ActiveJob => active_job_delay(n, u),
        }
    }

    /// The waits before retry 1, 2, 3, …, one draw from `rng` each (drawn
    /// even where the strategy ignores it, so every strategy reads its
    /// stream in step).
    pub fn waits(self, rng: SeededRng) -> Waits {
        Waits {
            backoff: self,
            rng,
            retry: 0,
            previous: self.base,
        }
    }
}

/// The endless waits of one client; see [`Backoff::waits`].
#[derive(Clone, Debug)]
pub struct Waits {
    backoff: Backoff,
    rng: SeededRng,
    retry: u32,
    previous: f64,
}

impl Iterator for Waits {
    type Item = f64;

    fn next(&mut self) -> Option<f64> {
        self.retry = self.retry.saturating_add(1);
        let u = self.rng.random::<f64>();
        self.previous = self.backoff.delay(self.retry, self.previous, u);
        Some(self.previous)
    }
}

/// The generator of client `index` under `seed`.
pub fn client_rng(seed: u64, index: u32) -> SeededRng {
    seeded(seed, CLIENTS.indexed(u64::from(index)))
}

/// The spread of the wait before one retry over many draws.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Band {
    /// Counted from 1.
    pub retry: u32,
    pub min: f64,
    pub median: f64,
    pub p90: f64,
    pub max: f64,
}

/// Min, median, 90th percentile and max of the wait before each of retries
/// 1 to `retries`, over `draws` clients (at least 1, at most
/// [`MAX_DRAWS`]) that keep failing. Quantiles interpolate (type 7).
pub fn delay_bands(
    backoff: &Backoff,
    retries: u32,
    draws: u32,
    seed: u64,
) -> Result<Vec<Band>, InvalidInput> {
    let retries = retries_at_most(retries)?;
    count_at_most("draws", u64::from(draws), u64::from(MAX_DRAWS))?;
    if draws == 0 {
        return Err(InvalidInput::new("draws", "must be at least 1"));
    }
    // Without jitter every draw gives the same wait.
    if backoff.strategy.is_jitterless() {
        let band = |retry| {
            let wait = backoff.delay(retry, backoff.base, 0.0);
            Band {
                retry,
                min: wait,
                median: wait,
                p90: wait,
                max: wait,
            }
        };
        return Ok((1..=retries).map(band).collect());
    }
    let mut clients: Vec<Waits> = (0..draws)
        .map(|index| backoff.waits(client_rng(seed, index)))
        .collect();
    let mut column = Vec::with_capacity(clients.len());
    let bands = (1..=retries)
        .map(|retry| {
            column.clear();
            column.extend(clients.iter_mut().flat_map(|waits| waits.next()));
            // Selection rather than a sort: the panel redraws these on
            // every change, and four order statistics need no full order.
            let smallest = column.iter().copied().fold(f64::INFINITY, f64::min);
            let largest = column.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let [median, p90] = quantiles_unsorted(&mut column, [0.5, 0.9]).unwrap_or([0.0; 2]);
            Band {
                retry,
                min: smallest,
                median,
                p90,
                max: largest,
            }
        })
        .collect();
    Ok(bands)
}

fn retries_at_most(retries: u32) -> Result<u32, InvalidInput> {
    count_at_most("retries", u64::from(retries), u64::from(MAX_RETRIES))?;
    Ok(retries)
}

/// Calls over time: bin k counts the calls made in
/// [k·bin_seconds, (k + 1)·bin_seconds).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Timeline {
    /// 1 s while the whole run fits in 2,000 bins, else the smallest of
    /// 2, 5, 10, 20, 50, … seconds that makes it fit.
    pub bin_seconds: f64,
    pub calls: Vec<u32>,
}

/// The busiest stretch of a timeline.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Burst {
    /// Calls in the bin over its width: with bins wider than a second, the
    /// bin's average.
    pub per_second: f64,
    /// The bin's start.
    pub at: f64,
}

impl Timeline {
    /// The busiest bin from the one holding `from` on (the earliest of
    /// equals).
    pub fn peak_from(&self, from: f64) -> Burst {
        let first = (from / self.bin_seconds) as usize;
        let (index, most) =
            self.calls
                .iter()
                .enumerate()
                .skip(first)
                .fold((first, 0), |best, (index, &calls)| {
                    if calls > best.1 { (index, calls) } else { best }
                });
        Burst {
            per_second: f64::from(most) / self.bin_seconds,
            at: index as f64 * self.bin_seconds,
        }
    }
}

/// What a fleet of clients did after an outage. Times are seconds after the
/// failure at t = 0.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Fleet {
    /// Every call that reached the dependency, the M first calls at t = 0
    /// included: all calls but those a circuit breaker turned away.
    pub timeline: Timeline,
    /// The busiest bin from the one holding D on: the load that meets the
    /// dependency as it comes back. Without jitter it is the whole fleet.
    pub peak_after_outage: Burst,
    /// Every call, first calls included.
    pub calls: u64,
    /// Calls made during the outage, all of which failed.
    pub failed_in_outage: u64,
    /// Calls from D on that the dependency refused for capacity.
    pub refused: u64,
    /// Calls an open circuit breaker turned away before the dependency.
    pub rejected: u64,
    /// When the dependency is healthy again: the end of the last second from
    /// D on in which it refused a call for capacity, D if it never did.
    pub healthy_at: f64,
    /// The busiest whole second from D on, counting the calls made at or
    /// after D that reached the dependency, over K; `None` when unlimited.
    pub peak_load: Option<f64>,
    /// Clients whose last call succeeded.
    pub succeeded: u32,
    pub gave_up: u32,
    /// When the last client to succeed did; `None` when none did.
    pub last_success: Option<f64>,
    /// When 99 % of all clients had succeeded (the ⌈0.99·M⌉-th success);
    /// `None` when more than 1 % gave up.
    pub success_99: Option<f64>,
    /// Median and 99th percentile of when clients stopped calling, whether
    /// they succeeded or gave up.
    pub completion_p50: f64,
    pub completion_p99: f64,
    /// The time to success of the ⌈0.5·S⌉-th and ⌈0.99·S⌉-th of the S
    /// clients that succeeded; `None` when none did.
    pub success_p50: Option<f64>,
    pub success_p99: Option<f64>,
}

impl Fleet {
    /// Every call that failed: during the outage, over capacity, or turned
    /// away by a breaker.
    pub fn wasted(&self) -> u64 {
        self.failed_in_outage + self.refused + self.rejected
    }

    /// The share of the fleet's clients that succeeded, from 0 to 1.
    pub fn succeeded_share(&self) -> f64 {
        let clients = u64::from(self.succeeded) + u64::from(self.gave_up);
        self.succeeded as f64 / clients.max(1) as f64
    }
}

/// How the clients of one fleet call: the strategy, with the ceiling of
/// each retry's wait worked out once, against one outage.
#[derive(Debug)]
struct Retrying {
    backoff: Backoff,
    outage: f64,
    /// [`Backoff::ceiling`] of retries 1 to A.
    ceilings: Vec<f64>,
}

impl Retrying {
    fn new(backoff: Backoff, outage: f64, retries: u32) -> Self {
        Self {
            backoff,
            outage,
            ceilings: (1..=retries).map(|n| backoff.ceiling(n)).collect(),
        }
    }

    /// The times of the calls of the client drawing from `rng`: the first
    /// at 0, then one after each wait, until a call lands at or after the
    /// outage's end or the retries run out.
    fn calls(&self, rng: SeededRng) -> Calls<'_> {
        Calls {
            retrying: self,
            client: Client::new(rng, self.backoff.base),
            next: Some(0.0),
        }
    }
}

/// Where one client is in its retries.
#[derive(Clone, Debug)]
struct Client {
    rng: SeededRng,
    /// Retries made so far.
    retries: u32,
    /// The last wait, the base before the first.
    previous: f64,
}

impl Client {
    fn new(rng: SeededRng, base: f64) -> Self {
        Self {
            rng,
            retries: 0,
            previous: base,
        }
    }

    /// The wait before the next retry, or `None` when the retries have run
    /// out.
    // Here, in the calls' iterator and in the fine binning,
    // `inline(always)`: in a size-first build (the docs module's, and the
    // app's before its core was built at opt-level 2) the inliner otherwise
    // leaves a call per client call in the fleet's loop, a sixth of a top
    // move in Chromium.
    #[inline(always)]
    fn wait(&mut self, retrying: &Retrying) -> Option<f64> {
        let &ceiling = retrying.ceilings.get(self.retries as usize)?;
        self.retries += 1;
        // Drawn even where the strategy ignores it, as in
        // [`Backoff::waits`].
        let u = self.rng.random::<f64>();
        self.previous = retrying
            .backoff
            .delay_under(ceiling, self.retries, self.previous, u);
        Some(self.previous)
    }
}

/// One client's calls; see [`Retrying::calls`].
struct Calls<'a> {
    retrying: &'a Retrying,
    client: Client,
    next: Option<f64>,
}

impl Iterator for Calls<'_> {
    type Item = f64;

    #[inline(always)]
    fn next(&mut self) -> Option<f64> {
        let now = self.next?;
        self.next = if now < self.retrying.outage {
            self.client.wait(self.retrying).map(|wait| now + wait)
        } else {
            None
        };
        Some(now)
    }
}

/// Calls waiting to be made, taken in time order, second by second: the
/// calls of the next [`NEAR_SECONDS`] seconds in one bucket per second, each
/// sorted when its second comes, later ones in a heap. A call is keyed by
/// the bits of its time, which for times from +0 on order as the times do,
/// and then its client, so that of calls at one instant client 0 comes
/// first. It takes only calls no earlier than the last one taken, as
/// retries are.
struct CallQueue {
    /// The second whose calls are being taken, once `open`, or the first
    /// second the buckets can hold.
    second: u64,
    open: bool,
    /// The open second's calls, sorted latest first.
    current: Vec<(u64, u32)>,
    /// Calls made into the open second after it was sorted.
    late: BinaryHeap<Reverse<(u64, u32)>>,
    /// Second s's calls in bucket s mod [`NEAR_SECONDS`], for the seconds
    /// after the open one and before it + [`NEAR_SECONDS`].
    near: Vec<Vec<(u64, u32)>>,
    near_calls: usize,
    far: BinaryHeap<Reverse<(u64, u32)>>,
}

/// Seconds ahead whose calls a [`CallQueue`] keeps in buckets.
const NEAR_SECONDS: u64 = 1024;

impl CallQueue {
    fn new() -> Self {
        Self {
            second: 0,
            open: false,
            current: Vec::new(),
            late: BinaryHeap::new(),
            near: (0..NEAR_SECONDS).map(|_| Vec::new()).collect(),
            near_calls: 0,
            far: BinaryHeap::new(),
        }
    }

    fn bucket(second: u64) -> usize {
        (second % NEAR_SECONDS) as usize
    }

    /// Client `client` calls at `at`, no earlier than the last call taken.
    fn push(&mut self, at: f64, client: u32) {
        let key = (at.to_bits(), client);
        let second = at as u64;
        if self.open && second == self.second {
            self.late.push(Reverse(key));
        } else if second < self.second + NEAR_SECONDS {
            self.near[Self::bucket(second)].push(key);
            self.near_calls += 1;
        } else {
            self.far.push(Reverse(key));
        }
    }

    /// The earliest call and its client.
    fn pop(&mut self) -> Option<(f64, u32)> {
        loop {
            let sorted = self.current.last().copied();
            let late = self.late.peek().map(|&Reverse(key)| key);
            let key = match (sorted, late) {
                (Some(sorted), Some(late)) if late < sorted => self.late.pop().map(|key| key.0),
                (Some(_), _) => self.current.pop(),
                (None, Some(_)) => self.late.pop().map(|key| key.0),
                (None, None) if self.next_second() => continue,
                (None, None) => None,
            };
            return key.map(|(bits, client)| (f64::from_bits(bits), client));
        }
    }

    /// Opens the next second with calls; false when there is none.
    fn next_second(&mut self) -> bool {
        let first = self.second + u64::from(self.open);
        let next = if self.near_calls > 0 {
            (first..first + NEAR_SECONDS)
                .find(|&second| !self.near[Self::bucket(second)].is_empty())
        } else {
            self.far
                .peek()
                .map(|&Reverse((bits, _))| f64::from_bits(bits) as u64)
        };
        let Some(next) = next else {
            return false;
        };
        (self.second, self.open) = (next, true);
        while let Some(&Reverse((bits, client))) = self.far.peek() {
            let second = f64::from_bits(bits) as u64;
            if second >= next + NEAR_SECONDS {
                break;
            }
            self.far.pop();
            self.near[Self::bucket(second)].push((bits, client));
            self.near_calls += 1;
        }
        std::mem::swap(&mut self.current, &mut self.near[Self::bucket(next)]);
        self.near_calls -= self.current.len();
        self.current.sort_unstable_by(|a, b| b.cmp(a));
        true
    }
}

/// Outages longer than this send every call through the queue rather than
/// counting the calls before D second by second.
const MAX_EARLY_SECONDS: f64 = 200_000.0;

/// Calls that reached the dependency, per whole second: those before D
/// replayed client by client, and those taken from the queue in time order.
#[derive(Debug, Default)]
struct SecondCounts {
    /// Calls in second s at index s.
    early: Vec<u64>,
    /// (second, calls) in ascending seconds.
    taken: Vec<(u64, u64)>,
}

impl SecondCounts {
    fn add_early(&mut self, at: f64, calls: u64) {
        let second = at as usize;
        if second >= self.early.len() {
            self.early.resize(second + 1, 0);
        }
        self.early[second] += calls;
    }

    fn add_taken(&mut self, at: f64, calls: u64) {
        let second = at as u64;
        match self.taken.last_mut() {
            Some((last, count)) if *last == second => *count += calls,
            _ => self.taken.push((second, calls)),
        }
    }

    /// The calls in `bins` bins `bin_seconds` wide, a whole number of
    /// seconds, so each second lies in one bin.
    fn binned(&self, bin_seconds: f64, bins: usize) -> Vec<u32> {
        let width = bin_seconds as u64;
        let mut counts = vec![0u32; bins];
        let early = self.early.iter().enumerate();
        let seconds = early.map(|(second, &calls)| (second as u64, calls));
        for (second, calls) in seconds.chain(self.taken.iter().copied()) {
            let bin = usize::try_from(second / width).unwrap_or(usize::MAX);
            if let Some(count) = counts.get_mut(bin) {
                *count = count.saturating_add(u32::try_from(calls).unwrap_or(u32::MAX));
            }
        }
        counts
    }
}

/// The dependency as a fleet's calls find it, second by second, and what it
/// did with them.
struct Service {
    outage: f64,
    /// K, or no limit as `u64::MAX`.
    capacity: u64,
    /// The whole second of the last call from D on, and how many calls from
    /// D on reached the dependency in it.
    second: u64,
    load: u64,
    busiest: u64,
    /// The last second in which a call was refused for capacity.
    last_refusal: Option<u64>,
    failed_in_outage: u64,
    refused: u64,
    counts: SecondCounts,
}

impl Service {
    fn new(dependency: Dependency) -> Self {
        Self {
            outage: dependency.outage,
            capacity: dependency.capacity.map_or(u64::MAX, u64::from),
            second: 0,
            load: 0,
            busiest: 0,
            last_refusal: None,
            failed_in_outage: 0,
            refused: 0,
            counts: SecondCounts::default(),
        }
    }

    /// How many more calls made at `at` it serves.
    fn room(&mut self, at: f64) -> u64 {
        if at < self.outage {
            return 0;
        }
        let second = at as u64;
        if second != self.second {
            self.second = second;
            self.load = 0;
        }
        self.capacity.saturating_sub(self.load)
    }

    /// `calls` calls made at `at` reach the dependency, no earlier than the
    /// last ones; returns how many it serves.
    fn serve(&mut self, at: f64, calls: u64) -> u64 {
        self.counts.add_taken(at, calls);
        if at < self.outage {
            self.failed_in_outage += calls;
            return 0;
        }
        let room = self.room(at);
        self.load += calls;
        self.busiest = self.busiest.max(self.load);
        let served = calls.min(room);
        if served < calls {
            self.refused += calls - served;
            self.last_refusal = Some(self.second);
        }
        served
    }
}

/// The retry quota of one AWS SDK client, in tokens; see
/// [`Strategy::AwsQuota`].
struct RetryQuota {
    available: u64,
}

impl RetryQuota {
    /// How many of `retries` retries, taken one after the other, the quota
    /// pays for.
    fn acquire(&mut self, retries: u64) -> u64 {
        let paid = retries.min(self.available / AWS_RETRY_COST);
        self.available -= paid * AWS_RETRY_COST;
        paid
    }

    /// `calls` calls succeeded, after `retries_made` retries each. Each
    /// gives its tokens back in turn, up to the capacity.
    fn release(&mut self, calls: u64, retries_made: u32) {
        let each = if retries_made == 0 {
            AWS_NO_RETRY_REFUND
        } else {
            AWS_RETRY_COST
        };
        self.available = (self.available + calls * each).min(AWS_QUOTA_CAPACITY);
    }
}

/// The circuit breaker the fleet shares; see [`Strategy::Breaker`].
#[derive(Default)]
struct Breaker {
    /// Calls that reached the dependency while closed, as (time, calls,
    /// failed), within the window.
    window: VecDeque<(f64, u64, u64)>,
    calls: u64,
    failed: u64,
    /// Open until then; a call from then on is a probe. `None` when closed.
    open_until: Option<f64>,
}

impl Breaker {
    /// Lets `calls` calls made together at `at` through to `service`, in
    /// turn; returns how many the dependency served and how many the
    /// breaker turned away.
    fn pass(&mut self, at: f64, calls: u64, service: &mut Service) -> (u64, u64) {
        let (mut left, mut served) = (calls, 0);
        while left > 0 {
            match self.open_until {
                Some(until) if at < until => break,
                Some(_) => {
                    left -= 1;
                    if service.serve(at, 1) == 1 {
                        served += 1;
                        self.close();
                    } else {
                        self.open(at);
                    }
                }
                None => {
                    self.forget_before(at);
                    // The first `room` succeed; of the failures after them,
                    // the one that tips the window opens the breaker.
                    let succeeding = left.min(service.room(at));
                    let failing = left - succeeding;
                    self.calls += succeeding;
                    let tipping = self.failures_to_open();
                    let failed = failing.min(tipping);
                    let reached = succeeding + failed;
                    served += service.serve(at, reached);
                    self.calls += failed;
                    self.failed += failed;
                    self.window.push_back((at, reached, failed));
                    left -= reached;
                    if failed == tipping {
                        self.open(at);
                    }
                }
            }
        }
        (served, left)
    }

    /// How many more failures in a row open the closed breaker: j with
    /// calls + j ≥ the minimum and 100·(failed + j) ≥ percent·(calls + j).
    fn failures_to_open(&self) -> u64 {
        let short = BREAKER_MIN_CALLS.saturating_sub(self.calls);
        let excess = (BREAKER_FAILURE_PERCENT * self.calls).saturating_sub(100 * self.failed);
        let share = excess.div_ceil(100 - BREAKER_FAILURE_PERCENT);
        short.max(share).max(1)
    }

    fn forget_before(&mut self, at: f64) {
        while let Some(&(then, calls, failed)) = self.window.front() {
            if then > at - BREAKER_WINDOW_SECONDS {
                break;
            }
            self.window.pop_front();
            self.calls -= calls;
            self.failed -= failed;
        }
    }

    fn open(&mut self, at: f64) {
        self.open_until = Some(at + BREAKER_OPEN_SECONDS);
        self.clear();
    }

    fn close(&mut self) {
        self.open_until = None;
        self.clear();
    }

    fn clear(&mut self) {
        self.window.clear();
        (self.calls, self.failed) = (0, 0);
    }
}

/// Clients that call together: one simulated client standing for `weight`
/// alike ones.
struct Cohort {
    client: Client,
    weight: u64,
}

/// When clients stopped calling, as (time, clients), in time order.
type Stops = Vec<(f64, u64)>;

/// The value of rank `rank` (from 0) among the stops, each counted as
/// often as its clients; the last one past the end.
fn stop_at_rank(stops: &[(f64, u64)], rank: u64) -> f64 {
    let mut below = 0;
    for &(at, clients) in stops {
        below += clients;
        if rank < below {
            return at;
        }
    }
    stops.last().map_or(0.0, |&(at, _)| at)
}

/// The type-7 quantile p of the stops, each counted as often as its clients,
/// as [`quantiles_unsorted`] gives it for the clients one by one.
fn stop_quantile(stops: &[(f64, u64)], clients: u64, p: f64) -> f64 {
    let h = (clients.saturating_sub(1)) as f64 * p;
    let below = h.floor();
    let low = stop_at_rank(stops, below as u64);
    let high = stop_at_rank(stops, h.ceil() as u64);
    low + (h - below) * (high - low)
}

/// One strategy's fleet against `dependency`, its clients interacting
/// through the dependency's capacity or the strategy's shared budget: the
/// fleet without its timeline, and its calls per second.
fn simulate_interacting(
    backoff: Backoff,
    clients: u32,
    dependency: Dependency,
    retries: u32,
    seed: u64,
) -> (Finished, SecondCounts) {
    let retrying = Retrying::new(backoff, dependency.outage, retries);
    let (simulated, weight) = if backoff.strategy.is_jitterless() {
        (1, clients)
    } else {
        let simulated = clients.min(MAX_SIMULATED);
        (simulated, clients / simulated)
    };
    // The first M mod N simulated clients stand for one more.
    let heavier = clients - simulated * weight;
    let mut service = Service::new(dependency);
    let mut quota = (backoff.strategy == Strategy::AwsQuota).then_some(RetryQuota {
        available: AWS_QUOTA_CAPACITY,
    });
    let mut breaker = (backoff.strategy == Strategy::Breaker).then(Breaker::default);
    // Calls before D fail whatever the other clients do, unless a budget
    // the clients share hangs on their order.
    let replay_before_outage =
        !backoff.strategy.shares_a_budget() && dependency.outage <= MAX_EARLY_SECONDS;

    let mut queue = CallQueue::new();
    let mut cohorts = Vec::with_capacity(simulated as usize);
    let (mut calls, mut last) = (0, 0.0);
    let mut early_stops = Stops::new();
    // Cohort i is simulated client i.
    for index in 0..simulated {
        let weight = u64::from(weight + u32::from(index < heavier));
        let mut client = Client::new(client_rng(seed, index), backoff.base);
        let mut at = 0.0;
        while replay_before_outage && at < dependency.outage {
            calls += weight;
            service.failed_in_outage += weight;
            service.counts.add_early(at, weight);
            // A comparison, not f64::max, which is a call to fmax in wasm.
            if at > last {
                last = at;
            }
            match client.wait(&retrying) {
                Some(wait) => at += wait,
                None => {
                    early_stops.push((at, weight));
                    break;
                }
            }
        }
        if !replay_before_outage || at >= dependency.outage {
            queue.push(at, index);
        }
        cohorts.push(Cohort { client, weight });
    }
    let gave_up_early: u64 = early_stops.iter().map(|&(_, clients)| clients).sum();
    early_stops.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));

    let (mut successes, mut later_stops) = (Stops::new(), Stops::new());
    let (mut rejected, mut gave_up) = (0, gave_up_early);
    while let Some((at, index)) = queue.pop() {
        let cohort = &mut cohorts[index as usize];
        let units = cohort.weight;
        calls += units;
        last = at;
        let (served, turned_away) = match &mut breaker {
            Some(breaker) => breaker.pass(at, units, &mut service),
            None => (service.serve(at, units), 0),
        };
        rejected += turned_away;
        if served > 0 {
            successes.push((at, served));
            later_stops.push((at, served));
            if let Some(quota) = &mut quota {
                quota.release(served, cohort.client.retries);
            }
        }
        let failed = units - served;
        let mut retrying_units = if cohort.client.retries < retries {
            failed
        } else {
            0
        };
        if let Some(quota) = &mut quota {
            retrying_units = quota.acquire(retrying_units);
        }
        if failed > retrying_units {
            gave_up += failed - retrying_units;
            later_stops.push((at, failed - retrying_units));
        }
        if retrying_units > 0
            && let Some(wait) = cohort.client.wait(&retrying)
        {
            cohort.weight = retrying_units;
            queue.push(at + wait, index);
        }
    }

    let clients = u64::from(clients);
    let succeeded = clients - gave_up;
    let mut stops = early_stops;
    stops.extend(later_stops);
    let success_at = |rank: u64| stop_at_rank(&successes, rank - 1);
    let needed = nearest_rank(clients, 99);
    let [success_p50, success_p99] = [50, 99]
        .map(|percent| (succeeded > 0).then(|| success_at(nearest_rank(succeeded, percent))));
    let fleet = Fleet {
        timeline: Timeline {
            bin_seconds: 1.0,
            calls: Vec::new(),
        },
        peak_after_outage: Burst {
            per_second: 0.0,
            at: 0.0,
        },
        calls,
        failed_in_outage: service.failed_in_outage,
        refused: service.refused,
        rejected,
        healthy_at: service
            .last_refusal
            .map_or(dependency.outage, |second| (second + 1) as f64),
        peak_load: dependency
            .capacity
            .map(|capacity| service.busiest as f64 / f64::from(capacity)),
        succeeded: succeeded as u32,
        gave_up: gave_up as u32,
        last_success: successes.last().map(|&(at, _)| at),
        success_99: (needed <= succeeded).then(|| success_at(needed)),
        completion_p50: stop_quantile(&stops, clients, 0.5),
        completion_p99: stop_quantile(&stops, clients, 0.99),
        success_p50,
        success_p99,
    };
    (Finished { fleet, last }, service.counts)
}

/// `clients` clients (1 to [`MAX_CLIENTS`]) fail at t = 0 against a
/// dependency down for `outage` seconds (0 to [`MAX_SECONDS`]) and then
/// unlimited, and retry with `backoff` up to `retries` times (at most
/// [`MAX_RETRIES`]).
pub fn simulate_fleet(
    backoff: &Backoff,
    clients: u32,
    outage: f64,
    retries: u32,
    seed: u64,
) -> Result<Fleet, InvalidInput> {
    let mut fleets = simulate_fleets(
        std::slice::from_ref(backoff),
        clients,
        outage,
        retries,
        seed,
    )?;
    Ok(fleets.remove(0))
}

/// [`simulate_fleets_against`] a dependency down for `outage` seconds and
/// then unlimited.
pub fn simulate_fleets(
    backoffs: &[Backoff],
    clients: u32,
    outage: f64,
    retries: u32,
    seed: u64,
) -> Result<Vec<Fleet>, InvalidInput> {
    let dependency = Dependency::unlimited(outage);
    simulate_fleets_against(backoffs, clients, dependency, retries, seed)
}

/// The same fleet of clients once for each of `backoffs` (at least one)
/// against `dependency`, every timeline in the same bins, wide enough for
/// the longest run. Each strategy whose clients call independently (see
/// [`Dependency`]) makes up to M·(A + 1) calls, and all of them together at
/// most [`MAX_CALLS`]; K is 1 to [`MAX_CAPACITY`].
pub fn simulate_fleets_against(
    backoffs: &[Backoff],
    clients: u32,
    dependency: Dependency,
    retries: u32,
    seed: u64,
) -> Result<Vec<Fleet>, InvalidInput> {
    simulate_fleets_keeping(
        &mut Vec::new(),
        backoffs,
        clients,
        dependency,
        retries,
        seed,
    )
}

/// How a strategy's calls were counted: in the fine bins of the independent
/// clients kept at an index, or per second.
enum Counted {
    Fine(usize),
    PerSecond(SecondCounts),
}

/// [`simulate_fleets_against`], starting from the `kept` independent
/// clients of an earlier run where they fit, and leaving this run's there.
fn simulate_fleets_keeping(
    kept: &mut Vec<Clients>,
    backoffs: &[Backoff],
    clients: u32,
    dependency: Dependency,
    retries: u32,
    seed: u64,
) -> Result<Vec<Fleet>, InvalidInput> {
    count_at_most("clients", u64::from(clients), u64::from(MAX_CLIENTS))?;
    if clients == 0 {
        return Err(InvalidInput::new(
            "clients",
            "a fleet needs at least 1 client",
        ));
    }
    let outage = within(
        "outage",
        non_negative("outage", dependency.outage)?,
        0.0,
        MAX_SECONDS,
    )?;
    if let Some(capacity) = dependency.capacity {
        count_at_most("capacity", u64::from(capacity), u64::from(MAX_CAPACITY))?;
        if capacity == 0 {
            return Err(InvalidInput::new(
                "capacity",
                "must be at least 1 call a second",
            ));
        }
    }
    let dependency = Dependency {
        outage,
        ..dependency
    };
    let retries = retries_at_most(retries)?;
    if backoffs.is_empty() {
        return Err(InvalidInput::new(
            "strategies",
            "a run needs at least 1 strategy",
        ));
    }
    let independent = |backoff: &&Backoff| dependency.keeps_independent(backoff.strategy);
    let most_calls = (u64::from(clients) * (u64::from(retries) + 1))
        .saturating_mul(backoffs.iter().filter(independent).count() as u64);
    count_at_most(
        "clients × (retries + 1) × strategies",
        most_calls,
        MAX_CALLS,
    )?;

    // The bins wait for the longest run, so each run of independent clients
    // first counts its calls in fine bins a power of ten seconds wide, which
    // divides every width the timeline can take from the first client's run
    // on; a timeline bin w is then the sum of w/g fine bins g, exactly, as
    // ⌊t/w⌋ = ⌊⌊t/g⌋/(w/g)⌋ when w/g is whole. A run whose fine bins would
    // outgrow [`MAX_FINE_BINS`] draws its calls again instead: every stream
    // replays exactly. Interacting clients count their calls per second,
    // and every width is a whole number of seconds.
    let first_client_last = backoffs
        .iter()
        .filter(independent)
        .map(|&backoff| {
            let retrying = Retrying::new(backoff, outage, retries);
            retrying.calls(client_rng(seed, 0)).fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    let fine_seconds = power_of_ten_within(timeline_bin(first_client_last));
    let mut earlier = std::mem::take(kept);
    let finished: Vec<(Finished, Counted)> = backoffs
        .iter()
        .map(|backoff| {
            if !independent(&backoff) {
                let (finished, counts) =
                    simulate_interacting(*backoff, clients, dependency, retries, seed);
                return (finished, Counted::PerSecond(counts));
            }
            // Without jitter every client calls at the first one's times,
            // so one client stands for all of them.
            let (simulated, alike) = if backoff.strategy.is_jitterless() {
                (1, clients)
            } else {
                (clients, 1)
            };
            let setup = Setup {
                backoff: *backoff,
                outage,
                retries,
                seed,
                alike,
            };
            let mut run = match earlier
                .iter()
                .position(|run| run.fits(&setup, fine_seconds))
            {
                Some(index) => earlier.swap_remove(index),
                None => Clients::new(setup, fine_seconds),
            };
            run.resize(simulated);
            let finished = run.finish();
            kept.push(run);
            (finished, Counted::Fine(kept.len() - 1))
        })
        .collect();
    let horizon = finished.iter().map(|(run, _)| run.last).fold(0.0, f64::max);
    let bin_seconds = timeline_bin(horizon);
    let bins = (horizon / bin_seconds) as usize + 1;
    let fleets = finished
        .into_iter()
        .map(|(Finished { fleet, .. }, counted)| {
            let calls = match counted {
                Counted::Fine(index) => kept[index].binned(bin_seconds, bins, clients),
                Counted::PerSecond(counts) => counts.binned(bin_seconds, bins),
            };
            let timeline = Timeline { bin_seconds, calls };
            Fleet {
                peak_after_outage: timeline.peak_from(outage),
                timeline,
                ..fleet
            }
        })
        .collect();
    Ok(fleets)
}

/// Most fine bins a run counts its calls in, 800 kB of them: ten times the
/// timeline's bins for a run ten times as long as the first client's.
const MAX_FINE_BINS: usize = 200_000;

/// The largest power of ten seconds that is at most `seconds` (1 s below).
fn power_of_ten_within(seconds: f64) -> f64 {
    let mut power = 1.0;
    while power * 10.0 <= seconds {
        power *= 10.0;
    }
    power
}

/// Calls counted in bins `width` seconds wide from 0; `None` once a call
/// lands beyond [`MAX_FINE_BINS`] of them.
#[derive(Debug)]
struct FineCounts {
    width: f64,
    /// 1 / width, for [`bin_index_by_reciprocal`]: every call is binned.
    per_width: f64,
    counts: Option<Vec<u32>>,
}

impl FineCounts {
    fn new(width: f64) -> Self {
        Self {
            width,
            per_width: 1.0 / width,
            counts: Some(Vec::new()),
        }
    }

    /// `bin_index(at, 0.0, width)`.
    #[inline(always)]
    fn bin(&self, at: f64) -> f64 {
        bin_index_by_reciprocal(at, self.width, self.per_width, MAX_FINE_BINS as f64)
    }

    #[inline(always)]
    fn add(&mut self, at: f64, calls: u32) {
        let bin = self.bin(at);
        let Some(counts) = &mut self.counts else {
            return;
        };
        if !(0.0..MAX_FINE_BINS as f64).contains(&bin) {
            self.counts = None;
            return;
        }
        let bin = bin as usize;
        if bin >= counts.len() {
            counts.resize(bin + 1, 0);
        }
        counts[bin] = counts[bin].saturating_add(calls);
    }

    /// Takes back calls that [`Self::add`] counted. Only a fleet that
    /// simulates every client drops clients, and its counts, at most
    /// [`MAX_CALLS`], never saturated.
    fn remove(&mut self, at: f64, calls: u32) {
        let bin = self.bin(at) as usize;
        if let Some(count) = self.counts.as_mut().and_then(|counts| counts.get_mut(bin)) {
            *count -= calls;
        }
    }
}

/// Whose calls a [`Clients`] holds: one strategy's, against one outage.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Setup {
    backoff: Backoff,
    outage: f64,
    retries: u32,
    seed: u64,
    /// How many clients each simulated one stands for.
    alike: u32,
}

/// What clients 0 to n − 1 of a fleet did, n being how many completions
/// there are: their calls in fine bins and when each stopped.
#[derive(Debug)]
struct Clients {
    setup: Setup,
    retrying: Retrying,
    calls: u64,
    /// When each simulated client made its last call, in client order.
    completions: Vec<f64>,
    fine: FineCounts,
}

/// How one strategy's fleet ended, its timeline still empty.
struct Finished {
    fleet: Fleet,
    /// When its last client stopped calling.
    last: f64,
}

impl Clients {
    fn new(setup: Setup, fine_seconds: f64) -> Self {
        Self {
            setup,
            retrying: Retrying::new(setup.backoff, setup.outage, setup.retries),
            calls: 0,
            completions: Vec::new(),
            fine: FineCounts::new(fine_seconds),
        }
    }

    /// Whether these clients can grow or shrink into a fleet of `setup`
    /// counted in fine bins `fine_seconds` wide.
    fn fits(&self, setup: &Setup, fine_seconds: f64) -> bool {
        self.setup == *setup && self.fine.width == fine_seconds && self.fine.counts.is_some()
    }

    /// Simulates clients up to `simulated`, or drops those from it on,
    /// replaying their calls to count them out.
    fn resize(&mut self, simulated: u32) {
        let Setup { seed, alike, .. } = self.setup;
        let had = self.completions.len() as u32;
        for index in had..simulated {
            let mut last = 0.0;
            for at in self.retrying.calls(client_rng(seed, index)) {
                self.calls += u64::from(alike);
                last = at;
                self.fine.add(at, alike);
            }
            self.completions.push(last);
        }
        for index in simulated..had {
            for at in self.retrying.calls(client_rng(seed, index)) {
                self.calls -= u64::from(alike);
                self.fine.remove(at, alike);
            }
        }
        self.completions.truncate(simulated as usize);
    }

    /// The calls of a fleet of `clients` in `bins` bins `bin_seconds`
    /// wide: summed from the fine bins, or drawn again when they overflowed.
    fn binned(&self, bin_seconds: f64, bins: usize, clients: u32) -> Vec<u32> {
        let fine_per_bin = (bin_seconds / self.fine.width) as usize;
        match &self.fine.counts {
            Some(fine) => {
                let mut calls = vec![0u32; bins];
                for (fine_bin, &count) in fine.iter().enumerate() {
                    if let Some(bin) = calls.get_mut(fine_bin / fine_per_bin) {
                        *bin = bin.saturating_add(count);
                    }
                }
                calls
            }
            None => {
                let seed = self.setup.seed;
                let drawn =
                    (0..clients).flat_map(|index| self.retrying.calls(client_rng(seed, index)));
                histogram(drawn, 0.0, bin_seconds, bins)
            }
        }
    }

    /// How the fleet ended.
    fn finish(&self) -> Finished {
        let Setup { outage, alike, .. } = self.setup;
        // Ranks count every client of the fleet; one simulated client stands
        // for `alike` of them only when it is the only one simulated, and
        // then holds every rank, so a rank r is the simulated client r / alike.
        let alike = alike as usize;
        let mut completions = self.completions.clone();
        let clients = completions.len() * alike;
        // A client stops at its first call from D on, or gives up before D,
        // so every success comes after every client that gave up: the k-th
        // success is the (gave_up + k)-th completion. Order statistics come
        // by selection, cheaper than a sort for a figure redrawn on every
        // change.
        // One pass for both, comparing rather than calling f64::max, which
        // is a call to fmax in wasm.
        let (gave_up, last) = completions.iter().fold((0, 0.0), |(gave_up, last), &at| {
            (
                gave_up + usize::from(at < outage),
                if at > last { at } else { last },
            )
        });
        let gave_up = gave_up * alike;
        let succeeded = clients - gave_up;
        // The k-th success of the fleet, as a simulated client's rank.
        let success = |k: u64| (gave_up + k as usize - 1) / alike;
        let needed = nearest_rank(clients as u64, 99);
        let success_99 = (needed <= succeeded as u64).then(|| success(needed));
        let [success_p50, success_p99] = [50, 99].map(|percent| {
            (succeeded > 0).then(|| success(nearest_rank(succeeded as u64, percent)))
        });
        // Type 7, as [`quantiles_unsorted`]: h = (n − 1)·p between ranks
        // ⌊h⌋ and ⌊h⌋ + 1.
        let last_rank = completions.len() - 1;
        let completion = [0.5, 0.99].map(|p| {
            let h = last_rank as f64 * p;
            (h.floor() as usize, h - h.floor())
        });
        let mut ranks: Vec<usize> = [success_99, success_p50, success_p99]
            .into_iter()
            .flatten()
            .chain(completion.iter().flat_map(|&(below, _)| [below, below + 1]))
            .collect();
        ranks.sort_unstable();
        place_order_statistics(&mut completions, &ranks);
        let at = |rank: Option<usize>| rank.map(|rank| completions[rank]);
        let [completion_p50, completion_p99] = completion.map(|(below, fraction)| {
            let low = completions[below];
            let high = completions.get(below + 1).copied().unwrap_or(low);
            low + fraction * (high - low)
        });
        let fleet = Fleet {
            timeline: Timeline {
                bin_seconds: 1.0,
                calls: Vec::new(),
            },
            peak_after_outage: Burst {
                per_second: 0.0,
                at: 0.0,
            },
            calls: self.calls,
            // Every call before D fails and every one from D on succeeds.
            failed_in_outage: self.calls - succeeded as u64,
            refused: 0,
            rejected: 0,
            healthy_at: outage,
            peak_load: None,
            succeeded: succeeded as u32,
            gave_up: gave_up as u32,
            last_success: (succeeded > 0).then_some(last),
            success_99: at(success_99),
            completion_p50,
            completion_p99,
            success_p50: at(success_p50),
            success_p99: at(success_p99),
        };
        Finished { fleet, last }
    }
}

/// The rank of the ⌈percent·count / 100⌉-th of `count` values, at least the
/// first: in integers, so 100 clients need exactly 99 for 99 %.
fn nearest_rank(count: u64, percent: u64) -> u64 {
    (count * percent).div_ceil(100).max(1)
}

/// 1 s, or the smallest of 2, 5, 10, 20, 50, … s that keeps a run lasting
/// `horizon` seconds within the timeline's bins.
fn timeline_bin(horizon: f64) -> f64 {
    let mut decade = 1.0;
    loop {
        for step in [1.0, 2.0, 5.0] {
            let width = step * decade;
            if horizon / width < MAX_TIMELINE_BINS {
                return width;
            }
        }
        decade *= 10.0;
    }
}

/// One strategy's fleet in a run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StrategyFleet {
    pub strategy: Strategy,
    /// The strategy's name, with the library version for the presets.
    pub label: &'static str,
    /// The spread of each retry's wait over [`BAND_DRAWS`] clients.
    pub bands: Vec<Band>,
    pub fleet: Fleet,
}

/// The strategies of a run ranked by one objective, and why the first wins.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Verdict {
    /// Best first.
    pub ranking: Vec<Strategy>,
    /// One sentence, with the figures that decide.
    pub sentence: String,
}

/// Everything the Backoff panel shows.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BackoffRun {
    /// The main strategy's fleet first, then the compared ones', all in
    /// the same timeline bins.
    pub fleets: Vec<StrategyFleet>,
    pub verdict: Verdict,
}

/// The delay bands and the fleet of every strategy for `params` with
/// `seed`, and the verdict.
pub fn run(params: &BackoffParams, seed: u64) -> Result<BackoffRun, InvalidInput> {
    RunCache::default().run(params, seed)
}

/// What [`run`] simulated, kept for the next run: the independent clients
/// of each fleet, and the delay bands of each strategy.
#[derive(Debug, Default)]
pub struct RunCache {
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

impl RunCache {
    /// [`run`], simulating only the independent clients the last run did
    /// not, and drawing only the bands it did not.
    pub fn run(&mut self, params: &BackoffParams, seed: u64) -> Result<BackoffRun, InvalidInput> {
        let strategies = params.strategies();
        let backoffs = strategies
            .iter()
            .map(|&strategy| Backoff::new(strategy, params.base, params.factor, params.cap))
            .collect::<Result<Vec<_>, _>>()?;
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
                None => delay_bands(&backoff, retries, BAND_DRAWS, seed)?,
            };
            self.bands.push(KeptBands {
                backoff,
                retries,
                seed,
                bands,
            });
        }
        let fleets: Vec<StrategyFleet> = strategies
            .into_iter()
            .zip(fleets)
            .zip(&self.bands)
            .map(|((strategy, fleet), kept)| StrategyFleet {
                strategy,
                label: strategy.label(),
                bands: kept.bands.clone(),
                fleet,
            })
            .collect();
        let verdict = verdict(params, &fleets);
        Ok(BackoffRun { fleets, verdict })
    }
}

/// The client p99 the verdict compares: when 99 % had succeeded, never
/// (infinity) when more than 1 % gave up.
fn client_p99(fleet: &Fleet) -> f64 {
    fleet.success_99.unwrap_or(f64::INFINITY)
}

/// The load the verdict compares: the busiest second from D on over K, or
/// with no limit the busiest bin from D on in calls a second.
fn load(fleet: &Fleet) -> f64 {
    fleet
        .peak_load
        .unwrap_or(fleet.peak_after_outage.per_second)
}

impl Objective {
    /// The figure of `fleet` this objective ranks by, smaller first.
    fn figure(self, fleet: &Fleet) -> f64 {
        match self {
            Self::Recovery => fleet.healthy_at,
            Self::Load => load(fleet),
            Self::ClientP99 => client_p99(fleet),
            Self::GaveUp => f64::from(fleet.gave_up),
        }
    }

    /// This objective, then the two that break its ties in turn.
    fn with_tie_breakers(self) -> [Self; 3] {
        match self {
            Self::Recovery => [self, Self::ClientP99, Self::GaveUp],
            Self::Load => [self, Self::Recovery, Self::ClientP99],
            Self::ClientP99 => [self, Self::GaveUp, Self::Recovery],
            Self::GaveUp => [self, Self::ClientP99, Self::Recovery],
        }
    }

    /// The figure `fleet` is ranked by, in words.
    fn describe(self, fleet: &Fleet, params: &BackoffParams) -> String {
        let clients = u64::from(fleet.succeeded) + u64::from(fleet.gave_up);
        match self {
            Self::Recovery => match fleet.peak_load {
                Some(load) if load > 0.0 => format!(
                    "healthy again at {}, its busiest second from D on {}× capacity",
                    duration(fleet.healthy_at),
                    significant(load, 3)
                ),
                Some(_) => format!(
                    "healthy again at D = {}, as no call comes from D on",
                    duration(fleet.healthy_at)
                ),
                None => format!(
                    "healthy again at D = {}, as it serves every call",
                    duration(fleet.healthy_at)
                ),
            },
            Self::Load => match fleet.peak_load {
                Some(load) if load > 0.0 => format!(
                    "its busiest second from D on is {}× the capacity of {} /s",
                    significant(load, 3),
                    count(u64::from(params.capacity))
                ),
                Some(_) => "no call comes from D on".into(),
                None => format!(
                    "its busiest bin from D on brings {} calls a second",
                    significant(load(fleet), 3)
                ),
            },
            Self::ClientP99 => match fleet.success_99 {
                Some(at) => format!("99 % of its clients succeeded by {}", duration(at)),
                None => format!(
                    "only {} of its clients succeeded ({} of {}), short of 99 %",
                    percent(fleet.succeeded_share()),
                    count(u64::from(fleet.succeeded)),
                    count(clients)
                ),
            },
            Self::GaveUp => format!(
                "{} of its {} clients gave up",
                count(u64::from(fleet.gave_up)),
                count(clients)
            ),
        }
    }
}

/// The strategies of `fleets` ranked by the objective of `params`, ties
/// broken by two more figures in turn (see [`Objective`]) and then by the
/// order drawn, and one sentence on why the first comes before the second.
fn verdict(params: &BackoffParams, fleets: &[StrategyFleet]) -> Verdict {
    let order = params.objective.with_tie_breakers();
    let figures =
        |strategy: &StrategyFleet| order.map(|objective| objective.figure(&strategy.fleet));
    let mut ranked: Vec<&StrategyFleet> = fleets.iter().collect();
    ranked.sort_by(|a, b| {
        let (a, b) = (figures(a), figures(b));
        a.iter()
            .zip(&b)
            .fold(std::cmp::Ordering::Equal, |order, (a, b)| {
                order.then(a.total_cmp(b))
            })
    });
    let name = |objective: Objective| objective.label().to_lowercase();
    let describe = |objective: Objective, strategy: &StrategyFleet| {
        objective.describe(&strategy.fleet, params)
    };
    let objective = order[0];
    let sentence = match &ranked[..] {
        [] => String::new(),
        [only] => format!(
            "{} is the only strategy drawn: {}.",
            only.label,
            describe(objective, only)
        ),
        [first, second, ..] => {
            let (mine, theirs) = (figures(first), figures(second));
            let decider = order
                .into_iter()
                .zip(mine.iter().zip(&theirs))
                .find(|(_, (mine, theirs))| mine != theirs)
                .map(|(decider, _)| decider);
            match decider {
                Some(decider) if decider == objective => format!(
                    "{} ranks first by {}: {}; next, {}: {}.",
                    first.label,
                    name(objective),
                    describe(objective, first),
                    second.label,
                    describe(objective, second)
                ),
                Some(decider) => format!(
                    "{} and {} tie on {} ({}); {} ranks first on {}: {}; {}: {}.",
                    first.label,
                    second.label,
                    name(objective),
                    describe(objective, first),
                    first.label,
                    name(decider),
                    describe(decider, first),
                    second.label,
                    describe(decider, second)
                ),
                None => format!(
                    "{} and {} tie on {}, {} and {} ({}), so the one drawn first leads.",
                    first.label,
                    second.label,
                    name(order[0]),
                    name(order[1]),
                    name(order[2]),
                    describe(objective, first)
                ),
            }
        }
    };
    // With three or more, the last one too, where the objective alone
    // sets it apart from the first.
    let sentence = match ranked[..] {
        [first, _, .., last] if objective.figure(&last.fleet) != objective.figure(&first.fleet) => {
            format!(
                "{}; last, {}: {}.",
                sentence.trim_end_matches('.'),
                last.label,
                describe(objective, last)
            )
        }
        _ => sentence,
    };
    Verdict {
        ranking: ranked.iter().map(|strategy| strategy.strategy).collect(),
        sentence,
    }
}
