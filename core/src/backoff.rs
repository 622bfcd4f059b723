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
//! ⌊u·k⌋.
//!
//! Without jitter, clients that failed together wait the same and retry
//! together: the fleet returns in spikes as tall as the fleet. The fleet
//! simulation shows it. M clients make their first call at t = 0 to a
//! dependency that is down for D seconds: a call at time t succeeds if and
//! only if t ≥ D. A client retries until a call succeeds or its last
//! allowed retry fails, in which case it gives up.
//!
//! Client i draws from its own PCG32 stream (`backoff.client`, index i),
//! so its waits stay the same however many clients there are and in
//! whatever order they are simulated. The delay bands, which show the
//! spread of each retry's wait, read the same streams: they are the waits
//! the first clients of the fleet would draw if the outage never ended.
//!
//! A run compares the main strategy with up to three others. Every fleet
//! has the same clients with the same streams, and their calls are counted
//! in the same bins, as wide as the longest of the runs needs, so their
//! timelines lie on one time axis.
//!
//! As client i's calls do not depend on M, a [`RunCache`] keeps what the
//! clients of the last run did: when a slider changes M alone, the next run
//! simulates only the clients it adds, or those it drops to count their
//! calls out again, and gives what [`run`] gives.

use rand::RngExt;

use crate::choice_enum;
use crate::error::{InvalidInput, count_at_most, non_negative, positive, within};
use crate::field::{ChoiceSet, Field, Notice};
use crate::key_numbers::KeyNumber;
use crate::panel_params;
use crate::presets::Preset;
use crate::rng::{Purpose, SeededRng, seeded};
use crate::stats::{bin_index_by_reciprocal, histogram, quantile_unsorted, quantiles_unsorted};
use crate::units::{count, duration, significant};

/// Most clients a fleet may have.
pub const MAX_CLIENTS: u32 = 1_000_000;
/// Most retries a client may make after its first call.
pub const MAX_RETRIES: u32 = 100;
/// Most calls a run may make, M·(A + 1) for each strategy: under 0.1 s
/// natively (the call-cap benchmark), so a browser tab stays responsive.
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
    }
}

panel_params! {
    /// Parameters of the Backoff panel.
    pub struct BackoffParams {
        pub strategy: Strategy = Strategy::Exponential, Field::choice("st", "Strategy", Strategy::OPTIONS);
        /// b, the wait before the first retry, in seconds.
        pub base: f64 = 1.0, Field::number("b", "Base delay", "s", (0.01, 60.0), 0.01).log();
        /// f, how much longer each wait is than the one before.
        pub factor: f64 = 2.0, Field::number("f", "Factor", "×", (1.0, 10.0), 0.1);
        /// c, the longest wait, in seconds.
        pub cap: f64 = 60.0, Field::number("c", "Cap", "s", (1.0, 3600.0), 1.0).log();
        /// A, the retries a client makes after its first call before it gives up.
        pub retries: u32 = 8, Field::number("k", "Retries", "", (1.0, 100.0), 1.0);
        /// M, the clients that fail together at t = 0.
        pub clients: u32 = 10_000, Field::number("m", "Clients", "", (1.0, 1_000_000.0), 1.0).log();
        /// D, how long the dependency is down, in seconds.
        pub outage: f64 = 60.0, Field::number("d", "Outage", "s", (1.0, 86_400.0), 1.0).log();
        /// Strategies drawn beside the main one; the main one, if listed, is
        /// drawn once, as the main one.
        pub compared: ChoiceSet<Strategy> = ChoiceSet::new([Strategy::FullJitter, Strategy::Decorrelated]),
            Field::choices("vs", "Compare with", Strategy::OPTIONS, MAX_COMPARED);
    }
    settle_rules = settle;
}

fn settle(params: &mut BackoffParams) -> Vec<Notice> {
    let [_, _, _, cap, _, clients, _, _] = BackoffParams::FIELDS;
    let mut notices = Vec::new();
    // A cap below the base would make every wait the cap: say so instead.
    if params.cap < params.base {
        params.cap = params.base;
        notices.push(cap.notice(format!(
            "must be at least the base delay; using {}",
            params.cap
        )));
    }
    // Each strategy simulates the whole fleet again.
    let calls_per_client = u64::from(params.retries) + 1;
    let strategies = params.strategies().len() as u64;
    if u64::from(params.clients) * calls_per_client * strategies > MAX_CALLS {
        params.clients = (MAX_CALLS / (calls_per_client * strategies)) as u32;
        let each = match strategies {
            1 => String::new(),
            n => format!(" for each of {n} strategies"),
        };
        notices.push(clients.notice(format!(
            "at most {MAX_CALLS} calls fit in a run, {calls_per_client} a client{each}; using {}",
            params.clients
        )));
    }
    notices
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
}

impl Strategy {
    /// Whether every wait is fixed by the retry's number alone, the draw
    /// ignored, so that clients failing together retry together.
    pub fn is_jitterless(self) -> bool {
        matches!(self, Self::Constant | Self::Linear | Self::Exponential)
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
            Strategy::Exponential | Strategy::FullJitter | Strategy::EqualJitter => {
                exponential(base, factor, cap, n)
            }
            Strategy::Aws => aws_ceiling(n, AWS_TRANSIENT_SCALE),
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
            Strategy::FullJitter | Strategy::Aws => full_jitter(ceiling, u),
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
            let mut at = |p| quantile_unsorted(&mut column, p).unwrap_or(0.0);
            let (median, p90) = (at(0.5), at(0.9));
            let smallest = column.iter().copied().fold(f64::INFINITY, f64::min);
            let largest = column.iter().copied().fold(f64::NEG_INFINITY, f64::max);
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
    /// Every call, the M first calls at t = 0 included.
    pub timeline: Timeline,
    /// The busiest bin from the one holding D on: the load that meets the
    /// dependency as it comes back. Without jitter it is the whole fleet.
    pub peak_after_outage: Burst,
    /// Every call, first calls included.
    pub calls: u64,
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
            rng,
            next: Some(0.0),
            retry: 0,
            previous: self.backoff.base,
        }
    }
}

/// One client's calls; see [`Retrying::calls`].
struct Calls<'a> {
    retrying: &'a Retrying,
    rng: SeededRng,
    next: Option<f64>,
    /// Retries made so far.
    retry: usize,
    /// The last wait, the base before the first.
    previous: f64,
}

impl Iterator for Calls<'_> {
    type Item = f64;

    // Here and in the fine binning, `inline(always)`: in a size-first build
    // (the docs module's, and the app's before its core was built at
    // opt-level 2) the inliner otherwise leaves a call per client call in
    // the fleet's loop, a sixth of a top move in Chromium.
    #[inline(always)]
    fn next(&mut self) -> Option<f64> {
        let now = self.next?;
        let Retrying {
            backoff,
            outage,
            ceilings,
        } = self.retrying;
        self.next = match ceilings.get(self.retry) {
            Some(&ceiling) if now < *outage => {
                self.retry += 1;
                // Drawn even where the strategy ignores it, as in
                // [`Backoff::waits`].
                let u = self.rng.random::<f64>();
                self.previous = backoff.delay_under(ceiling, self.retry as u32, self.previous, u);
                Some(now + self.previous)
            }
            _ => None,
        };
        Some(now)
    }
}

/// `clients` clients (1 to [`MAX_CLIENTS`]) fail at t = 0 against a
/// dependency down for `outage` seconds (0 to [`MAX_SECONDS`]) and retry
/// with `backoff` up to `retries` times (at most [`MAX_RETRIES`]).
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

/// The same fleet of clients once for each of `backoffs` (at least one),
/// every timeline in the same bins, wide enough for the longest run. Each
/// strategy makes up to M·(A + 1) calls, and all of them together at most
/// [`MAX_CALLS`].
pub fn simulate_fleets(
    backoffs: &[Backoff],
    clients: u32,
    outage: f64,
    retries: u32,
    seed: u64,
) -> Result<Vec<Fleet>, InvalidInput> {
    simulate_fleets_keeping(&mut Vec::new(), backoffs, clients, outage, retries, seed)
}

/// [`simulate_fleets`], starting from the `kept` clients of an earlier run
/// where they fit, and leaving this run's clients there.
fn simulate_fleets_keeping(
    kept: &mut Vec<Clients>,
    backoffs: &[Backoff],
    clients: u32,
    outage: f64,
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
    let outage = within("outage", non_negative("outage", outage)?, 0.0, MAX_SECONDS)?;
    let retries = retries_at_most(retries)?;
    if backoffs.is_empty() {
        return Err(InvalidInput::new(
            "strategies",
            "a run needs at least 1 strategy",
        ));
    }
    let most_calls =
        (u64::from(clients) * (u64::from(retries) + 1)).saturating_mul(backoffs.len() as u64);
    count_at_most(
        "clients × (retries + 1) × strategies",
        most_calls,
        MAX_CALLS,
    )?;

    // The bins wait for the longest run, so each run first counts its calls
    // in fine bins a power of ten seconds wide, which divides every width
    // the timeline can take from the first client's run on; a timeline bin
    // w is then the sum of w/g fine bins g, exactly, as ⌊t/w⌋ = ⌊⌊t/g⌋/(w/g)⌋
    // when w/g is whole. A run whose fine bins would outgrow
    // [`MAX_FINE_BINS`] draws its calls again instead: every stream replays
    // exactly.
    let first_client_last = backoffs
        .iter()
        .map(|&backoff| {
            let retrying = Retrying::new(backoff, outage, retries);
            retrying.calls(client_rng(seed, 0)).fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    let fine_seconds = power_of_ten_within(timeline_bin(first_client_last));
    let mut earlier = std::mem::take(kept);
    let finished: Vec<Finished> = backoffs
        .iter()
        .map(|backoff| {
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
            finished
        })
        .collect();
    let horizon = finished.iter().map(|run| run.last).fold(0.0, f64::max);
    let bin_seconds = timeline_bin(horizon);
    let bins = (horizon / bin_seconds) as usize + 1;
    let fine_per_bin = (bin_seconds / fine_seconds) as usize;
    let fleets = kept
        .iter()
        .zip(finished)
        .map(|(run, Finished { fleet, .. })| {
            let calls = match &run.fine.counts {
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
                    let drawn =
                        (0..clients).flat_map(|index| run.retrying.calls(client_rng(seed, index)));
                    histogram(drawn, 0.0, bin_seconds, bins)
                }
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
        // ⌈0.99·M⌉ in integers, so 100 clients need exactly 99 successes.
        let needed = (clients as u64 * 99).div_ceil(100) as usize;
        let succeeded = clients - gave_up;
        let success_99 = (needed <= succeeded).then(|| {
            let rank = gave_up + needed - 1;
            *completions
                .select_nth_unstable_by(rank / alike, f64::total_cmp)
                .1
        });
        let [completion_p50, completion_p99] =
            quantiles_unsorted(&mut completions, [0.5, 0.99]).unwrap_or([0.0; 2]);
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
            gave_up: gave_up as u32,
            last_success: (succeeded > 0).then_some(last),
            success_99,
            completion_p50,
            completion_p99,
        };
        Finished { fleet, last }
    }
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
    pub fleet: Fleet,
}

/// Everything the Backoff panel shows.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BackoffRun {
    /// The spread of each retry's wait over [`BAND_DRAWS`] clients, for the
    /// main strategy.
    pub bands: Vec<Band>,
    /// The main strategy's fleet first, then the compared ones', all in
    /// the same timeline bins.
    pub fleets: Vec<StrategyFleet>,
}

/// The delay bands of the main strategy and the fleet of every strategy
/// for `params` with `seed`.
pub fn run(params: &BackoffParams, seed: u64) -> Result<BackoffRun, InvalidInput> {
    RunCache::default().run(params, seed)
}

/// What [`run`] simulated, kept for the next run: the clients of each
/// fleet, and the delay bands.
#[derive(Debug, Default)]
pub struct RunCache {
    clients: Vec<Clients>,
    bands: Option<KeptBands>,
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
    /// [`run`], simulating only the clients the last run did not.
    pub fn run(&mut self, params: &BackoffParams, seed: u64) -> Result<BackoffRun, InvalidInput> {
        let strategies = params.strategies();
        let backoffs = strategies
            .iter()
            .map(|&strategy| Backoff::new(strategy, params.base, params.factor, params.cap))
            .collect::<Result<Vec<_>, _>>()?;
        let fleets = simulate_fleets_keeping(
            &mut self.clients,
            &backoffs,
            params.clients,
            params.outage,
            params.retries,
            seed,
        )?;
        let (backoff, retries) = (backoffs[0], params.retries);
        let bands = match self.bands.take() {
            Some(kept) if (kept.backoff, kept.retries, kept.seed) == (backoff, retries, seed) => {
                kept.bands
            }
            _ => delay_bands(&backoff, retries, BAND_DRAWS, seed)?,
        };
        let kept = self.bands.insert(KeptBands {
            backoff,
            retries,
            seed,
            bands,
        });
        Ok(BackoffRun {
            bands: kept.bands.clone(),
            fleets: strategies
                .into_iter()
                .zip(fleets)
                .map(|(strategy, fleet)| StrategyFleet {
                    strategy,
                    label: strategy.label(),
                    fleet,
                })
                .collect(),
        })
    }
}

/// The panel's "try this" presets.
pub const PRESETS: &[Preset] = &[
    Preset {
        slug: "no-jitter",
        title: "No jitter: synchronized waves",
        lesson: "Every client waits the same 1, 2, 4, … s, so each retry is all 10,000 calls in \
                 one second, and the dependency, back at 60 s, meets the whole fleet at once at 63 s.",
        query: "st=exponential&vs=",
    },
    Preset {
        slug: "jitter-kinds",
        title: "Full vs equal vs decorrelated",
        lesson: "All three spread the fleet to a few hundred calls a second, but equal jitter, \
                 never waiting less than half of e(n), is the only one whose 8 retries outlast \
                 the minute for every client: full and decorrelated jitter each lose over a \
                 thousand.",
        query: "st=full&vs=equal,decorrelated",
    },
    Preset {
        slug: "sidekiq-25",
        title: "Sidekiq's 25 retries",
        lesson: "Sidekiq's 25 retries outlast a 6-hour outage, but its jitter, under 10·n s \
                 before retry n, is tiny beside its (n − 1)⁴-second waits, so its clients return \
                 within minutes of each other, at several times the peak of Active Job, whose \
                 jitter is up to 15 % of the wait.",
        query: "st=sidekiq&k=25&d=21600&vs=activejob",
    },
    Preset {
        slug: "libraries",
        title: "Four libraries' defaults",
        lesson: "The AWS SDK's waits, sized for blips, add up to at most 12.75 s over 8 retries, \
                 so every client gives up on a one-minute outage, while Sidekiq and Active Job, \
                 made for background jobs, bring them all back within two minutes.",
        query: "st=aws&vs=celery,activejob,sidekiq",
    },
];

/// Retries whose median wait the key numbers list; a longer run ends in "…".
const LISTED_WAITS: usize = 10;

/// The median wait before retry n in theory, as a formula, for the
/// strategies whose wait grows with one uniform draw u: the wait at u = ½.
/// Decorrelated jitter depends on the previous draw, and Sidekiq and Celery
/// draw whole numbers, whose sample median can sit half a second off.
fn median_wait_formula(strategy: Strategy) -> Option<&'static str> {
    match strategy {
        Strategy::Constant => Some("b"),
        Strategy::Linear => Some("min(c, b·n)"),
        Strategy::Exponential => Some("e(n)"),
        Strategy::FullJitter => Some("e(n)/2"),
        Strategy::EqualJitter => Some("3·e(n)/4"),
        Strategy::ActiveJob => Some("1.075·n⁴ + 2"),
        Strategy::Aws => Some("min(20, 0.05·2^(n−1))/2"),
        Strategy::Decorrelated | Strategy::Sidekiq | Strategy::Celery => None,
    }
}

/// Waits as the key numbers list them: the first [`LISTED_WAITS`], then "…".
fn listed(waits: impl Iterator<Item = f64>) -> String {
    let mut text: Vec<String> = waits.take(LISTED_WAITS + 1).map(duration).collect();
    if text.len() > LISTED_WAITS {
        text.truncate(LISTED_WAITS);
        text.push("…".into());
    }
    text.join(", ")
}

/// The figures the panel prints beside its charts, for the main strategy.
pub fn key_numbers(params: &BackoffParams, run: &BackoffRun) -> Vec<KeyNumber> {
    let Some(main) = run.fleets.first() else {
        return Vec::new();
    };
    let fleet = &main.fleet;
    let never = |at: Option<f64>| at.map_or_else(|| "never".into(), duration);

    let mut waits = KeyNumber::new(
        "waits",
        "Median wait before each retry",
        listed(run.bands.iter().map(|band| band.median)),
        "median of 10,000 draws per retry",
    );
    let backoff = Backoff::new(main.strategy, params.base, params.factor, params.cap);
    if let (Some(formula), Ok(backoff)) = (median_wait_formula(main.strategy), backoff) {
        let medians = (1..=params.retries).map(|n| backoff.delay(n, params.base, 0.5));
        waits = waits.beside(format!("{formula}: {}", listed(medians)));
    }

    let peak = fleet.peak_after_outage;
    let mut peak_number = KeyNumber::new(
        "peak",
        "Peak calls per second once back",
        if peak.per_second > 0.0 {
            format!(
                "{} /s at {}",
                significant(peak.per_second, 3),
                duration(peak.at)
            )
        } else {
            "none: no call from D on".into()
        },
        "busiest bin from D on, over its width",
    );
    // Without jitter every client calls at the same instants, so the one
    // call that finds the dependency back comes from all M at once.
    if main.strategy.is_jitterless() && fleet.gave_up == 0 {
        let all_at_once = f64::from(params.clients) / fleet.timeline.bin_seconds;
        peak_number = peak_number.beside(format!(
            "all M in one bin: {} /s",
            significant(all_at_once, 3)
        ));
    }

    vec![
        waits,
        peak_number,
        KeyNumber::new(
            "calls",
            "Calls in all",
            count(fleet.calls),
            "first calls plus retries",
        ),
        KeyNumber::new(
            "recovered",
            "Last client succeeds at",
            never(fleet.last_success),
            "first call at or after D, for the slowest client",
        ),
        KeyNumber::new(
            "recovered-99",
            "99 % succeeded by",
            never(fleet.success_99),
            "the ⌈0.99 · M⌉-th success",
        ),
        KeyNumber::new(
            "completion",
            "Clients done, p50 / p99",
            format!(
                "{} / {}",
                duration(fleet.completion_p50),
                duration(fleet.completion_p99)
            ),
            "when a client stops calling",
        ),
        KeyNumber::new(
            "gave-up",
            "Clients that gave up",
            count(u64::from(fleet.gave_up)),
            "every allowed retry came before D",
        ),
    ]
}
