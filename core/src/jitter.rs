//! Jitter: random delays that break up a bulk enqueue.
//!
//! When N jobs are enqueued at the same instant, they all hit the downstream
//! at once: the thundering herd. Giving each job its own random delay drawn
//! uniformly from [min, max) spreads them out; the downstream then sees a
//! flat rate of N / (max − min) jobs per unit of time, and the last job runs
//! by t0 + max. A fixed delay only moves the herd later. Other shapes trade
//! the flat rate for an early bulk (exponential) or a hump (normal).

use rand::RngExt;

use crate::choice_enum;
use crate::dist::{Dist, Peak};
use crate::error::{InvalidInput, count_at_most, non_negative, positive};
use crate::field::{Field, Notice};
use crate::panel_params;
use crate::rng::{Purpose, seeded};
use crate::stats;

const DELAYS: Purpose = Purpose::new("jitter.delays");
const MAX_JOBS: u64 = 1_000_000;
const MAX_DELAY_MINUTES: f64 = 1440.0;

choice_enum! {
    /// How each job's delay is drawn.
    pub enum Strategy {
        /// Every job runs at t0: the herd.
        NoDelay = ("none", "None: all at once"),
        /// Every job waits the mean delay: the herd, later.
        Fixed = ("fixed", "Fixed delay"),
        /// Uniform in [min, max): a flat rate.
        Uniform = ("uniform", "Uniform"),
        /// Exponential with the mean, cut at max.
        Exponential = ("exponential", "Exponential"),
        /// Normal around the mean, clipped to [min, max].
        Normal = ("normal", "Normal"),
        /// Two normal peaks at a quarter and three quarters of [min, max].
        TwoPeak = ("twopeak", "Two peaks"),
    }
}

panel_params! {
    /// Parameters of the Jitter panel.
    pub struct JitterParams {
        /// N, the jobs enqueued at the same instant.
        pub jobs: u32 = 10_000, Field::number("n", "Jobs", "jobs", (1.0, 1_000_000.0), 1.0).log();
        pub strategy: Strategy = Strategy::Uniform, Field::choice("js", "Delay", Strategy::OPTIONS);
        /// Shortest delay, in minutes.
        pub min_delay: f64 = 0.0, Field::number("lo", "Min delay", "min", (0.0, 1440.0), 0.5);
        /// Longest delay, in minutes (exclusive for uniform).
        pub max_delay: f64 = 30.0, Field::number("hi", "Max delay", "min", (0.0, 1440.0), 0.5);
        /// The fixed delay, and the mean of the exponential and normal shapes.
        pub mean_delay: f64 = 10.0, Field::number("m", "Mean delay", "min", (0.0, 1440.0), 0.5);
        /// Spread of the normal shapes.
        pub sd: f64 = 5.0, Field::number("sd", "Std deviation", "min", (0.1, 720.0), 0.1).log();
        /// What the downstream accepts per minute.
        pub limit_per_minute: u32 = 500, Field::number("r", "Downstream limit", "/min", (1.0, 1_000_000.0), 1.0).log();
    }
    settle_rules = keep_delays_apart;
}

/// The uniform range [min, max) must not be empty.
fn keep_delays_apart(params: &mut JitterParams) -> Vec<Notice> {
    let [_, _, min_field, max_field, ..] = JitterParams::FIELDS;
    if params.max_delay > params.min_delay {
        Vec::new()
    } else if params.min_delay < MAX_DELAY_MINUTES {
        params.max_delay = params.min_delay + 0.5;
        let why = format!("must be above the min delay; using {}", params.max_delay);
        vec![max_field.notice(why)]
    } else {
        (params.min_delay, params.max_delay) = (MAX_DELAY_MINUTES - 0.5, MAX_DELAY_MINUTES);
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

/// Everything a bulk enqueue with jitter produced. Times are seconds after t0.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct JitterRun {
    /// When each job runs, in enqueue order.
    pub run_at: Vec<f64>,
    /// Jobs starting in each second from t0.
    pub per_second: Vec<u32>,
    /// Jobs starting in each minute from t0.
    pub per_minute: Vec<u32>,
    /// The busiest minute's start and count (the earliest of equals).
    pub peak_minute: (f64, u32),
    /// Jobs beyond the limit, summed over minutes: Σ max(0, count − R).
    pub over_limit: u64,
    pub last_run: f64,
    /// N / (max − min) per minute, for the uniform strategy.
    pub flat_rate_per_minute: Option<f64>,
}

/// Draws every job's delay for `params` with `seed` and counts what the
/// downstream sees.
pub fn run(params: &JitterParams, seed: u64) -> Result<JitterRun, InvalidInput> {
    count_at_most("jobs", u64::from(params.jobs), MAX_JOBS)?;
    let (lo, hi) = (params.min_delay, params.max_delay);
    non_negative("min delay", lo)?;
    if !(hi > lo && hi <= MAX_DELAY_MINUTES) {
        return Err(InvalidInput::new(
            "max delay",
            format!("{hi} must lie in ({lo}, 1440]"),
        ));
    }
    let mean = non_negative("mean delay", params.mean_delay)?;
    let sd = positive("std deviation", params.sd)?;
    let width = hi - lo;
    let shape = match params.strategy {
        Strategy::Normal => Some(Dist::normal(mean, sd)?),
        Strategy::TwoPeak => Some(Dist::two_peak(
            Peak {
                mean: lo + width / 4.0,
                sd,
            },
            Peak {
                mean: lo + width * 3.0 / 4.0,
                sd,
            },
            0.5,
        )?),
        _ => None,
    };
    // Inverse transform of the exponential cut at max: F(max) = 1 − e^(−max/mean).
    let exponential_mass = -libm::expm1(-hi / mean);
    let mut rng = seeded(seed, DELAYS);
    let mut draw_minutes = || match params.strategy {
        Strategy::NoDelay => 0.0,
        Strategy::Fixed => mean,
        Strategy::Uniform => lo + rng.random::<f64>() * width,
        Strategy::Exponential if mean == 0.0 => 0.0,
        Strategy::Exponential => -mean * libm::log1p(-rng.random::<f64>() * exponential_mass),
        Strategy::Normal | Strategy::TwoPeak => shape
            .as_ref()
            .map_or(lo, |shape| shape.sample(&mut rng).clamp(lo, hi)),
    };
    let run_at: Vec<f64> = (0..params.jobs).map(|_| draw_minutes() * 60.0).collect();

    let last_run = run_at.iter().copied().fold(0.0, f64::max);
    let seconds = last_run.floor() as usize + 1;
    let per_second = stats::histogram(run_at.iter().copied(), 0.0, 1.0, seconds);
    let per_minute = stats::histogram(run_at.iter().copied(), 0.0, 60.0, seconds.div_ceil(60));
    let (peak_index, peak_count) = per_minute
        .iter()
        .copied()
        .enumerate()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .unwrap_or((0, 0));
    let limit = params.limit_per_minute;
    let over_limit = per_minute
        .iter()
        .map(|&c| u64::from(c.saturating_sub(limit)))
        .sum();
    Ok(JitterRun {
        run_at,
        per_second,
        per_minute,
        peak_minute: (peak_index as f64 * 60.0, peak_count),
        over_limit,
        last_run,
        flat_rate_per_minute: (params.strategy == Strategy::Uniform)
            .then(|| params.flat_rate_per_minute()),
    })
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
