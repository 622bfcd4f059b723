//! Backoff: how long a client waits before retrying a failed call.
//!
//! Capped exponential backoff waits min(cap, base · 2^(k−1)) before retry k:
//! each failure doubles the wait until it reaches the cap. Without jitter,
//! every client that failed at the same moment retries at the same moments
//! too, so the herd comes back in waves.

use crate::field::{Field, Notice};
use crate::panel_params;

panel_params! {
    /// Parameters of the Backoff panel.
    pub struct BackoffParams {
        /// The wait before the first retry, in seconds.
        pub base: f64 = 1.0, Field::number("b", "Base delay", "s", (0.01, 60.0), 0.01).log();
        /// The longest wait, in seconds.
        pub cap: f64 = 60.0, Field::number("c", "Cap", "s", (1.0, 3600.0), 1.0).log();
        /// How many retries a client makes before giving up.
        pub attempts: u32 = 8, Field::number("k", "Attempts", "retries", (1.0, 30.0), 1.0);
    }
    settle_rules = cap_at_least_base;
}

/// A cap below the base would make every wait the cap: say so instead.
fn cap_at_least_base(params: &mut BackoffParams) -> Vec<Notice> {
    if params.cap >= params.base {
        return Vec::new();
    }
    params.cap = params.base;
    let [_, cap, _] = BackoffParams::FIELDS;
    vec![cap.notice(format!(
        "must be at least the base delay; using {}",
        params.cap
    ))]
}

impl BackoffParams {
    /// The wait before each retry without jitter: min(cap, base · 2^(k−1)).
    pub fn capped_delays(&self) -> Vec<f64> {
        (0..self.attempts)
            .map(|k| (self.base * 2f64.powi(k as i32)).min(self.cap))
            .collect()
    }

    /// The first retry whose wait is the cap, if any of them reaches it.
    pub fn first_capped_attempt(&self) -> Option<u32> {
        self.capped_delays()
            .iter()
            .position(|&delay| delay >= self.cap)
            .map(|index| index as u32 + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_until_the_cap() {
        let params = BackoffParams::default();
        assert_eq!(
            params.capped_delays(),
            [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0]
        );
        assert_eq!(params.first_capped_attempt(), Some(7));
        let short = BackoffParams {
            attempts: 3,
            ..params
        };
        assert_eq!(short.first_capped_attempt(), None);
    }
}
