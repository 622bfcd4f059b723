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

use rand::RngExt;

use crate::choice_enum;
use crate::error::{InvalidInput, count_at_most, non_negative, positive, within};
use crate::field::{Field, Notice};
use crate::panel_params;
use crate::rng::{Purpose, SeededRng, seeded};
use crate::stats::{histogram, quantile_sorted};

/// Most clients a fleet may have.
pub const MAX_CLIENTS: u32 = 1_000_000;
/// Most retries a client may make after its first call.
pub const MAX_RETRIES: u32 = 100;
/// Most calls a fleet may make, M·(A + 1): about a quarter of a second
/// natively, so a browser tab stays responsive.
pub const MAX_CALLS: u64 = 10_000_000;
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
    }
    settle_rules = settle;
}

fn settle(params: &mut BackoffParams) -> Vec<Notice> {
    let [_, _, _, cap, _, clients, _] = BackoffParams::FIELDS;
    let mut notices = Vec::new();
    // A cap below the base would make every wait the cap: say so instead.
    if params.cap < params.base {
        params.cap = params.base;
        notices.push(cap.notice(format!(
            "must be at least the base delay; using {}",
            params.cap
        )));
    }
    let calls_per_client = u64::from(params.retries) + 1;
    if u64::from(params.clients) * calls_per_client > MAX_CALLS {
        params.clients = (MAX_CALLS / calls_per_client) as u32;
        notices.push(clients.notice(format!(
            "at most {MAX_CALLS} calls fit in a run, {calls_per_client} a client; using {}",
            params.clients
        )));
    }
    notices
}

impl BackoffParams {
    pub fn backoff(&self) -> Result<Backoff, InvalidInput> {
        Backoff::new(self.strategy, self.base, self.factor, self.cap)
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
    (base + u * (DECORRELATED_SPREAD * previous - base)).min(cap)
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
    u * (scale * power(2.0, attempt.max(1) - 1)).min(AWS_MAX_BACKOFF)
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
        let Self {
            base, factor, cap, ..
        } = *self;
        match self.strategy {
            Strategy::Constant => base,
            Strategy::Linear => (base * f64::from(n)).min(cap),
            Strategy::Exponential => exponential(base, factor, cap, n),
            Strategy::FullJitter => full_jitter(exponential(base, factor, cap, n), u),
            Strategy::EqualJitter => equal_jitter(exponential(base, factor, cap, n), u),
            Strategy::Decorrelated => decorrelated(base, cap, previous, u),
            Strategy::Sidekiq => sidekiq_delay(n - 1, u) as f64,
            Strategy::Celery => celery_delay(n - 1, u) as f64,
            Strategy::ActiveJob => active_job_delay(n, u),
            Strategy::Aws => aws_standard_delay(n, AWS_TRANSIENT_SCALE, u),
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
            column.sort_unstable_by(f64::total_cmp);
            let at = |p| quantile_sorted(&column, p).unwrap_or(0.0);
            Band {
                retry,
                min: at(0.0),
                median: at(0.5),
                p90: at(0.9),
                max: at(1.0),
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

/// The times of one client's calls: the first at 0, then one after each
/// wait, until a call lands at or after `outage` or the retries run out.
fn call_times(
    backoff: Backoff,
    outage: f64,
    retries: u32,
    rng: SeededRng,
) -> impl Iterator<Item = f64> {
    let mut waits = backoff.waits(rng).take(retries as usize);
    let mut next = Some(0.0);
    std::iter::from_fn(move || {
        let now = next?;
        next = if now >= outage {
            None
        } else {
            waits.next().map(|wait| now + wait)
        };
        Some(now)
    })
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
    count_at_most("clients", u64::from(clients), u64::from(MAX_CLIENTS))?;
    if clients == 0 {
        return Err(InvalidInput::new(
            "clients",
            "a fleet needs at least 1 client",
        ));
    }
    let outage = within("outage", non_negative("outage", outage)?, 0.0, MAX_SECONDS)?;
    let retries = retries_at_most(retries)?;
    count_at_most(
        "clients × (retries + 1)",
        u64::from(clients) * (u64::from(retries) + 1),
        MAX_CALLS,
    )?;
    let client_calls = |index| call_times(*backoff, outage, retries, client_rng(seed, index));

    let mut calls = 0u64;
    let mut completions = Vec::with_capacity(clients as usize);
    for index in 0..clients {
        let (made, last) = client_calls(index).fold((0u64, 0.0), |(made, _), at| (made + 1, at));
        calls += made;
        completions.push(last);
    }
    completions.sort_unstable_by(f64::total_cmp);
    // A client stops at its first call from D on, or gives up before D: the
    // successes are the sorted completions from D on.
    let gave_up = completions.partition_point(|&at| at < outage);
    let successes = &completions[gave_up..];

    // Every stream replays exactly, so the calls are drawn again for the
    // timeline rather than kept: a million clients making a hundred calls
    // each would need 800 MB.
    let horizon = completions.last().copied().unwrap_or(0.0);
    let bin_seconds = timeline_bin(horizon);
    let bins = (horizon / bin_seconds) as usize + 1;
    let timeline = Timeline {
        bin_seconds,
        calls: histogram((0..clients).flat_map(client_calls), 0.0, bin_seconds, bins),
    };

    // ⌈0.99·M⌉ in integers, so 100 clients need exactly 99 successes.
    let needed = (u64::from(clients) * 99).div_ceil(100) as usize;
    let completion = |p| quantile_sorted(&completions, p).unwrap_or(0.0);
    Ok(Fleet {
        peak_after_outage: timeline.peak_from(outage),
        timeline,
        calls,
        gave_up: gave_up as u32,
        last_success: successes.last().copied(),
        success_99: successes.get(needed - 1).copied(),
        completion_p50: completion(0.5),
        completion_p99: completion(0.99),
    })
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

/// Everything the Backoff panel shows.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BackoffRun {
    /// The spread of each retry's wait over [`BAND_DRAWS`] clients.
    pub bands: Vec<Band>,
    pub fleet: Fleet,
}

/// The delay bands and the fleet for `params` with `seed`.
pub fn run(params: &BackoffParams, seed: u64) -> Result<BackoffRun, InvalidInput> {
    let backoff = params.backoff()?;
    Ok(BackoffRun {
        bands: delay_bands(&backoff, params.retries, BAND_DRAWS, seed)?,
        fleet: simulate_fleet(
            &backoff,
            params.clients,
            params.outage,
            params.retries,
            seed,
        )?,
    })
}
