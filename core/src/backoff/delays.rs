//! The waits: each strategy's formula for the wait before retry n, the
//! libraries' own formulas with their counters, a validated [`Backoff`]
//! that picks one, each client's stream of draws, and the delay bands that
//! show how widely each retry's wait spreads.

use rand::RngExt;

use super::{MAX_DRAWS, MAX_FACTOR, MAX_RETRIES, MAX_SECONDS, QuotaScope, RetryStrategy};
use crate::error::{InvalidInput, count_at_most, positive, within};
use crate::rng::{Purpose, SeededRng, seeded};
use crate::stats::quantiles_unsorted;

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

/// Each client's stream; the delay bands share it.
const CLIENTS: Purpose = Purpose::new("backoff.client");

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
/// `botocore/retries/standard.py`, botocore 1.44.8, which scales by
/// [`AWS_TRANSIENT_SCALE`] or [`AWS_THROTTLING_SCALE`]. In 1.43 every error
/// used the throttling scale, 1 s, unless `AWS_NEW_RETRIES_2026` was set
/// (`core/tests/data/make_botocore_vectors.py` runs both). An
/// `x-amz-retry-after` header, which can raise the wait, is not modelled.
pub fn aws_standard_delay(attempt: u32, scale: f64, u: f64) -> f64 {
    full_jitter(aws_ceiling(attempt, scale), u)
}

/// The AWS SDK's wait at u → 1 after attempt `attempt`:
/// min(scale·2^(attempt−1), 20).
fn aws_ceiling(attempt: u32, scale: f64) -> f64 {
    (scale * power(2.0, attempt.max(1) - 1)).min(AWS_MAX_BACKOFF)
}

/// A validated retry strategy with its base delay, factor and cap, and
/// for the AWS SDK's retry quota whose quota it spends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    pub(super) strategy: RetryStrategy,
    pub(super) base: f64,
    factor: f64,
    pub(super) cap: f64,
    pub(super) quota: QuotaScope,
}

impl Backoff {
    /// `base` and `cap` in seconds, at most [`MAX_SECONDS`], the cap at least
    /// the base; `factor` in [1, [`MAX_FACTOR`]]. The presets ignore all
    /// three, but they are checked all the same.
    pub fn new(
        strategy: RetryStrategy,
        base: f64,
        factor: f64,
        cap: f64,
    ) -> Result<Self, InvalidInput> {
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
            quota: QuotaScope::PerClient,
        })
    }

    /// The same strategy spending the retry quota of `quota`; only
    /// [`RetryStrategy::AwsQuota`] has one, so the others stay as they are.
    pub fn with_quota(self, quota: QuotaScope) -> Self {
        match self.strategy {
            RetryStrategy::AwsQuota => Self { quota, ..self },
            _ => self,
        }
    }

    /// Whether the fleet's clients spend one budget they share.
    pub(super) fn shares_a_budget(&self) -> bool {
        self.strategy.shares_a_budget(self.quota)
    }

    /// The retries a client may make of the `retries` asked for: a retry
    /// quota of its own, which only a success refills and a success ends
    /// the client's calls, pays for ⌊500 / 14⌋ = 35.
    pub fn retries_allowed(&self, retries: u32) -> u32 {
        match (self.strategy, self.quota) {
            (RetryStrategy::AwsQuota, QuotaScope::PerClient) => {
                retries.min((AWS_QUOTA_CAPACITY / AWS_RETRY_COST) as u32)
            }
            _ => retries,
        }
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
    pub(super) fn ceiling(&self, n: u32) -> f64 {
        let Self {
            base, factor, cap, ..
        } = *self;
        match self.strategy {
            RetryStrategy::Constant => base,
            RetryStrategy::Linear => (base * f64::from(n)).min(cap),
            RetryStrategy::Exponential
            | RetryStrategy::FullJitter
            | RetryStrategy::EqualJitter
            | RetryStrategy::Breaker => exponential(base, factor, cap, n),
            RetryStrategy::Aws | RetryStrategy::AwsQuota => aws_ceiling(n, AWS_TRANSIENT_SCALE),
            RetryStrategy::Decorrelated
            | RetryStrategy::Sidekiq
            | RetryStrategy::Celery
            | RetryStrategy::ActiveJob => 0.0,
        }
    }

    /// [`Self::delay`] before retry `n` (from 1), given its
    /// [`Self::ceiling`].
    #[inline(always)]
    pub(super) fn delay_under(&self, ceiling: f64, n: u32, previous: f64, u: f64) -> f64 {
        match self.strategy {
            RetryStrategy::Constant | RetryStrategy::Linear | RetryStrategy::Exponential => ceiling,
            RetryStrategy::FullJitter
            | RetryStrategy::Aws
            | RetryStrategy::AwsQuota
            | RetryStrategy::Breaker => full_jitter(ceiling, u),
            RetryStrategy::EqualJitter => equal_jitter(ceiling, u),
            RetryStrategy::Decorrelated => decorrelated(self.base, self.cap, previous, u),
            RetryStrategy::Sidekiq => sidekiq_delay(n - 1, u) as f64,
            RetryStrategy::Celery => celery_delay(n - 1, u) as f64,
            RetryStrategy::ActiveJob => active_job_delay(n, u),
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

pub(super) fn retries_at_most(retries: u32) -> Result<u32, InvalidInput> {
    count_at_most("retries", u64::from(retries), u64::from(MAX_RETRIES))?;
    Ok(retries)
}
