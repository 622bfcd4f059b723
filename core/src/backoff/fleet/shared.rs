//! The budgets a fleet's clients share, so that one client's calls change
//! what the others may do: the AWS SDK's retry quota and a circuit breaker
//! in front of the dependency.

use std::collections::VecDeque;

use super::super::delays::{AWS_NO_RETRY_REFUND, AWS_QUOTA_CAPACITY, AWS_RETRY_COST};
use super::dependency::Service;

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

/// The retry quota of one AWS SDK client, in tokens; see
/// [`RetryStrategy::AwsQuota`](crate::backoff::RetryStrategy::AwsQuota).
pub(super) struct RetryQuota {
    available: u64,
}

impl RetryQuota {
    /// A quota that starts full, as one SDK client's does.
    pub(super) fn full() -> Self {
        Self {
            available: AWS_QUOTA_CAPACITY,
        }
    }

    /// How many of `retries` retries, taken one after the other, the quota
    /// pays for.
    pub(super) fn acquire(&mut self, retries: u64) -> u64 {
        let paid = retries.min(self.available / AWS_RETRY_COST);
        self.available -= paid * AWS_RETRY_COST;
        paid
    }

    /// `calls` calls succeeded, after `retries_made` retries each. Each
    /// gives its tokens back in turn, up to the capacity.
    pub(super) fn release(&mut self, calls: u64, retries_made: u32) {
        let each = if retries_made == 0 {
            AWS_NO_RETRY_REFUND
        } else {
            AWS_RETRY_COST
        };
        self.available = (self.available + calls * each).min(AWS_QUOTA_CAPACITY);
    }
}

/// The circuit breaker the fleet shares; see [`RetryStrategy::Breaker`](crate::backoff::RetryStrategy::Breaker).
#[derive(Default)]
pub(super) struct Breaker {
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
    pub(super) fn pass(&mut self, at: f64, calls: u64, service: &mut Service) -> (u64, u64) {
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
