//! Replications: one seeded run is one sample, so a figure is run again
//! under R seeds and reported as the mean of its R values with a 95 %
//! confidence interval.
//!
//! - Seeds: seed i (from 0) is the i-th 64-bit draw of PCG32 on the
//!   purpose "replication.seeds" under the page's seed, so a link
//!   reproduces every replication. None of them is the page's own seed:
//!   replication 1 is not the single run the page draws.
//! - Interval: for values x₁ … x_R with mean x̄ and sample standard
//!   deviation s, x̄ ± t·s / √R, t the 97.5th percentile of Student's t
//!   with R − 1 degrees of freedom.
//! - Paired difference: two lanes run under the same seeds, so the
//!   difference of a figure is taken seed by seed, dᵢ = bᵢ − aᵢ, and its
//!   interval is the one above over the dᵢ. Sharing the seeds cancels
//!   the noise both lanes share, so it is narrower than the two intervals
//!   apart would suggest.
//! - Band: per time bin, the 10th, 50th and 90th percentiles (type 7, see
//!   [`crate::stats`]) of the R values in that bin.
//!
//! ```
//! use stampede_core::replication::Interval;
//!
//! let waits = [10.0, 12.0, 11.0, 13.0, 9.0];
//! let interval = Interval::of(&waits).unwrap();
//! assert_eq!(interval.mean, 11.0);
//! // s = √2.5 and t(0.975, 4) = 2.776: 11 ± 1.96.
//! assert!((interval.half_width - 1.963).abs() < 1e-3);
//! ```

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::rng::{Purpose, seeded};
use crate::stats::{quantile_sorted, sort_as_total_cmp};

/// The fewest replications an interval is drawn from.
pub const MIN_REPLICATIONS: u32 = 5;
/// The most replications of one request.
pub const MAX_REPLICATIONS: u32 = 100;
/// How many replications a request makes unless told otherwise.
pub const DEFAULT_REPLICATIONS: u32 = 20;
/// The intervals' confidence level.
pub const CONFIDENCE: f64 = 0.95;
/// The quantile across runs reported as a bad day: one run in 10 is worse.
pub const BAD_DAY: f64 = 0.9;

const SEEDS: Purpose = Purpose::new("replication.seeds");

/// The seeds of `replications` runs under the page's `seed`.
pub fn seeds(seed: u64, replications: u32) -> Vec<u64> {
    let mut rng = seeded(seed, SEEDS);
    (0..replications)
        .map(|_| rand::Rng::next_u64(&mut rng))
        .collect()
}

/// The mean of R values and the half width of its confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub mean: f64,
    pub half_width: f64,
    /// R, the values it is drawn from.
    pub runs: u32,
}

impl Interval {
    /// The [`CONFIDENCE`] interval of the mean of `values`; `None` for
    /// fewer than two values or any that is not finite.
    pub fn of(values: &[f64]) -> Option<Self> {
        let runs = u32::try_from(values.len()).ok()?;
        if runs < 2 || !values.iter().all(|x| x.is_finite()) {
            return None;
        }
        // Equal values are certain: summing them could leave a rounding
        // error that would read as a spread of 10⁻¹⁴.
        if values.iter().all(|&x| x == values[0]) {
            return Some(Self {
                mean: values[0],
                half_width: 0.0,
                runs,
            });
        }
        let n = f64::from(runs);
        let mean = values.iter().sum::<f64>() / n;
        let variance = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        Some(Self {
            mean,
            half_width: t_quantile(runs - 1) * (variance / n).sqrt(),
            runs,
        })
    }

    /// The interval of `after[i] − before[i]`, the two taken under the
    /// same seed i; `None` when their lengths differ or as [`Interval::of`].
    pub fn of_differences(before: &[f64], after: &[f64]) -> Option<Self> {
        if before.len() != after.len() {
            return None;
        }
        let differences: Vec<f64> = before.iter().zip(after).map(|(a, b)| b - a).collect();
        Self::of(&differences)
    }

    pub fn low(&self) -> f64 {
        self.mean - self.half_width
    }

    pub fn high(&self) -> f64 {
        self.mean + self.half_width
    }

    /// Whether 0 lies in the interval, ends included: a difference that
    /// noise could make.
    pub fn spans_zero(&self) -> bool {
        self.low() <= 0.0 && 0.0 <= self.high()
    }

    /// Whether `value` lies in the interval, ends included.
    pub fn contains(&self, value: f64) -> bool {
        (self.low()..=self.high()).contains(&value)
    }
}

/// The two-sided [`CONFIDENCE`] quantile of Student's t with `degrees`
/// degrees of freedom (at least 1): 12.706 for 1, 2.093 for 19.
pub fn t_quantile(degrees: u32) -> f64 {
    let upper = 1.0 - (1.0 - CONFIDENCE) / 2.0;
    StudentsT::new(0.0, 1.0, f64::from(degrees.max(1))).map_or(f64::NAN, |t| t.inverse_cdf(upper))
}

/// Per time bin, the spread of a series across runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PercentileBand {
    pub p10: Vec<f64>,
    pub p50: Vec<f64>,
    pub p90: Vec<f64>,
}

impl PercentileBand {
    /// The band of `runs`, one series each, over the bins all of them
    /// have.
    pub fn of<T: Copy + Into<f64>>(runs: &[Vec<T>]) -> Self {
        let bins = runs.iter().map(Vec::len).min().unwrap_or(0);
        let mut band = Self::default();
        let mut column = Vec::with_capacity(runs.len());
        for bin in 0..bins {
            column.clear();
            column.extend(runs.iter().map(|run| run[bin].into()));
            sort_as_total_cmp(&mut column);
            let at = |p| quantile_sorted(&column, p).unwrap_or(0.0);
            band.p10.push(at(0.1));
            band.p50.push(at(0.5));
            band.p90.push(at(0.9));
        }
        band
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        // Two-sided 95 % values of Student's t (any statistics table).
        for (degrees, table) in [
            (1, 12.706),
            (4, 2.776),
            (9, 2.262),
            (19, 2.093),
            (99, 1.984),
        ] {
            let t = t_quantile(degrees);
            assert!((t - table).abs() < 5e-4, "{degrees}: {t}");
        }
    }

    #[test]
    fn an_interval_needs_two_finite_values() {
        assert_eq!(Interval::of(&[1.0]), None);
        assert_eq!(Interval::of(&[1.0, f64::NAN]), None);
        let flat = Interval::of(&[3.0; 5]).unwrap();
        assert_eq!((flat.mean, flat.half_width, flat.runs), (3.0, 0.0, 5));
        // 0.1 summed ten times is not 1.0: equal values still make 0.
        let tenth = Interval::of(&[0.1; 10]).unwrap();
        assert_eq!((tenth.mean, tenth.half_width), (0.1, 0.0));
        assert!(!flat.spans_zero() && flat.contains(3.0));
    }

    #[test]
    fn paired_differences_cancel_the_shared_noise() {
        // Each seed moves both lanes alike; b is a minus 2 every time.
        let a = [10.0, 20.0, 15.0, 30.0, 25.0];
        let b = a.map(|x| x - 2.0);
        let difference = Interval::of_differences(&a, &b).unwrap();
        assert_eq!((difference.mean, difference.half_width), (-2.0, 0.0));
        assert!(Interval::of(&a).unwrap().half_width > 5.0);
        assert_eq!(Interval::of_differences(&a, &b[..4]), None);
        let noise = Interval::of_differences(&[1.0, 2.0, 3.0], &[2.0, 1.0, 3.0]).unwrap();
        assert!(noise.spans_zero());
    }

    #[test]
    fn seeds_follow_the_page_seed() {
        assert_eq!(seeds(7, 20), seeds(7, 20));
        assert_eq!(seeds(7, 5)[..], seeds(7, 20)[..5]);
        assert_ne!(seeds(7, 5), seeds(8, 5));
        assert!(!seeds(7, 20).contains(&7));
    }

    #[test]
    fn the_band_spans_the_runs_per_bin() {
        let runs: Vec<Vec<u32>> = (0..11).map(|i| vec![i, 10 * i, 5]).collect();
        let band = PercentileBand::of(&runs);
        assert_eq!(band.p10, [1.0, 10.0, 5.0]);
        assert_eq!(band.p50, [5.0, 50.0, 5.0]);
        assert_eq!(band.p90, [9.0, 90.0, 5.0]);
        assert_eq!(PercentileBand::of::<u32>(&[]), PercentileBand::default());
    }
}
