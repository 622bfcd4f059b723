//! The downstream as a run uses it.
//!
//! What a downstream refuses and how retries wait is on [`Downstream`].
//! The run keeps the count of calls accepted in the current second, the
//! refused attempt of each account's running job (one runs at a time), and
//! a stream of draws for the retry waits of its own, so retries do not
//! shift any other draw.

use rand::RngExt;

use super::event::Attempt;
use super::metrics::PerSecond;
use super::{Downstream, REFUSED_CALL_SECONDS};
use crate::rng::{Purpose, SeededRng, seeded};
use crate::scheduler::{micros, micros_of_whole};

const RETRY_WAITS: Purpose = Purpose::new("sim.retry_waits");

/// How long a refused call holds its worker and lock.
pub(super) const REFUSED_CALL_US: u64 = micros_of_whole(REFUSED_CALL_SECONDS);

/// The downstream as the run has used it: the calls it accepted and the
/// refused attempts awaiting their retries.
pub(super) struct DownstreamState {
    config: Downstream,
    /// The attempt of each account's running job whose call was refused
    /// (one job of an account runs at a time).
    refused: Vec<Attempt>,
    outage_us: Option<(u64, u64)>,
    /// The wait before the first retry that decorrelated jitter, the only
    /// strategy reading it, assumes: the base b, its wait for u = 0,
    /// min(c, b + 0) = b.
    first_wait: f64,
    accepted: PerSecond,
    waits: SeededRng,
}

impl DownstreamState {
    pub(super) fn new(config: Downstream, accounts: u32, seed: u64) -> Self {
        Self {
            config,
            refused: vec![Attempt::FIRST; accounts as usize],
            outage_us: config
                .outage
                .map(|(start, end)| (micros_of_whole(start), micros_of_whole(end))),
            first_wait: config.retry.delay(1, 0.0, 0.0),
            accepted: PerSecond::default(),
            waits: seeded(seed, RETRY_WAITS),
        }
    }

    /// Whether a call at `now` goes through; calls come in time order.
    pub(super) fn accepts(&mut self, now: u64) -> bool {
        if self
            .outage_us
            .is_some_and(|(start, end)| (start..end).contains(&now))
        {
            return false;
        }
        if let Some(limit) = self.config.rate_limit_per_second {
            let accepted = self.accepted.at(now);
            if *accepted >= limit {
                return false;
            }
            *accepted += 1;
        }
        true
    }

    /// Notes that `account`'s job refused on `attempt`; true when that was
    /// its last allowed attempt, so the job gives up.
    pub(super) fn refuse(&mut self, account: u32, attempt: Attempt) -> bool {
        self.refused[account as usize] = attempt;
        attempt.retry >= self.config.max_retries
    }

    /// The attempt after `account`'s refused one and how long until it is
    /// due, or None when the refused one was the last allowed.
    pub(super) fn retry(&mut self, account: u32) -> Option<(Attempt, u64)> {
        let failed = self.refused[account as usize];
        if failed.retry >= self.config.max_retries {
            return None;
        }
        let retry = failed.retry + 1;
        let previous = if failed.retry == 0 {
            self.first_wait
        } else {
            f64::from(failed.wait)
        };
        let wait = self
            .config
            .retry
            .delay(retry, previous, self.waits.random::<f64>());
        let attempt = Attempt {
            retry,
            wait: wait as f32,
        };
        Some((attempt, micros(wait)))
    }
}
