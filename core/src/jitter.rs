//! Jitter: random delays that break up a bulk enqueue.
//!
//! When N jobs are enqueued at the same instant, they all hit the downstream
//! at once: the thundering herd. Giving each job its own random delay drawn
//! uniformly from [min, max) spreads them out; the downstream then sees a
//! flat rate of N / (max − min) jobs per unit of time, and the last job runs
//! by t0 + max. A fixed delay only moves the herd later.

use crate::field::{Field, Notice};
use crate::panel_params;

panel_params! {
    /// Parameters of the Jitter panel.
    pub struct JitterParams {
        /// N, the jobs enqueued at the same instant.
        pub jobs: u32 = 10_000, Field::number("n", "Jobs", "jobs", (1.0, 1_000_000.0), 1.0).log();
        /// Shortest delay, in minutes.
        pub min_delay: f64 = 0.0, Field::number("lo", "Min delay", "min", (0.0, 1440.0), 0.5);
        /// Longest delay, in minutes (exclusive).
        pub max_delay: f64 = 30.0, Field::number("hi", "Max delay", "min", (0.0, 1440.0), 0.5);
    }
    settle_rules = keep_delays_apart;
}

/// The uniform range [min, max) must not be empty.
fn keep_delays_apart(params: &mut JitterParams) -> Vec<Notice> {
    let [_, min_field, max_field] = JitterParams::FIELDS;
    if params.max_delay > params.min_delay {
        Vec::new()
    } else if params.min_delay < 1440.0 {
        params.max_delay = params.min_delay + 0.5;
        let why = format!("must be above the min delay; using {}", params.max_delay);
        vec![max_field.notice(why)]
    } else {
        (params.min_delay, params.max_delay) = (1439.5, 1440.0);
        vec![min_field.notice("must be below the max delay; using 1439.5")]
    }
}

impl JitterParams {
    /// Width of the delay range, in minutes.
    pub fn spread_minutes(&self) -> f64 {
        self.max_delay - self.min_delay
    }

    /// The rate a uniform delay gives the downstream: N / (max − min) per minute.
    pub fn flat_rate_per_minute(&self) -> f64 {
        f64::from(self.jobs) / self.spread_minutes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::PanelParams;

    #[test]
    fn ten_thousand_jobs_over_thirty_minutes_is_about_333_a_minute() {
        let rate = JitterParams::default().flat_rate_per_minute();
        assert!((rate - 333.33).abs() < 0.01, "{rate}");
    }

    #[test]
    fn an_empty_range_is_widened() {
        let mut params = JitterParams {
            min_delay: 20.0,
            max_delay: 10.0,
            ..Default::default()
        };
        let notices = params.settle();
        assert_eq!((params.min_delay, params.max_delay), (20.0, 20.5));
        assert_eq!(notices[0].key, "hi");
        let mut at_top = JitterParams {
            min_delay: 1440.0,
            max_delay: 1440.0,
            ..Default::default()
        };
        assert_eq!(at_top.settle()[0].key, "lo");
        assert!(at_top.spread_minutes() > 0.0);
    }
}
