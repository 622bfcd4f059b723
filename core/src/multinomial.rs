//! The chance that N jobs, each starting in one of W equally likely
//! seconds, put at most L in every second: P(max count ≤ L) for an equal
//! multinomial.
//!
//! The counts are not independent (they sum to N), so the chance is not
//! simply P(Binomial ≤ L)^W. Levin's representation makes it exact: with
//! Xᵢ independent Poisson(N / W),
//!
//! P(max ≤ L) = N! / (Nᴺ e⁻ᴺ) · P(X ≤ L)ᵂ · P(Y₁ + … + Y_W = N),
//!
//! where each Yᵢ is Xᵢ conditioned on Xᵢ ≤ L (B. Levin, "A representation
//! for multinomial cumulative distribution functions", Annals of
//! Statistics 9(5), 1981). The last factor is a sum of W independent
//! bounded counts: small sums are convolved exactly, and larger ones use
//! the Edgeworth expansion Levin gives, whose error falls as 1 / W².
//!
//! ```
//! use stampede_core::multinomial::chance_max_at_most;
//!
//! // Two jobs in two seconds share one half the time.
//! assert!((chance_max_at_most(2, 2, 1) - 0.5).abs() < 1e-12);
//! ```

use statrs::function::gamma::ln_gamma;

/// Below this many multiply-adds the last factor is convolved exactly.
const MOST_EXACT_STEPS: u64 = 2_000_000;

/// P(max count ≤ `limit`) for `jobs` placed independently and uniformly in
/// `cells` cells.
pub fn chance_max_at_most(jobs: u64, cells: u64, limit: u64) -> f64 {
    if limit >= jobs {
        return 1.0;
    }
    if cells == 0 || cells.saturating_mul(limit) < jobs {
        return 0.0;
    }
    let bounded = BoundedPoisson::new(jobs as f64 / cells as f64, limit);
    let exact_steps = cells
        .saturating_mul(jobs)
        .saturating_mul(limit.min(jobs) + 1);
    let sum_is_jobs = if exact_steps <= MOST_EXACT_STEPS {
        bounded.sum_is_exactly(cells, jobs)
    } else {
        bounded.sum_is_edgeworth(cells, jobs)
    };
    let n = jobs as f64;
    let stirling = ln_gamma(n + 1.0) - n * n.ln() + n;
    let ln_chance = stirling + cells as f64 * bounded.ln_mass + sum_is_jobs.ln();
    ln_chance.exp().clamp(0.0, 1.0)
}

/// A Poisson(mean) count conditioned on being at most `limit`: its
/// probabilities where they matter, and its own moments.
struct BoundedPoisson {
    /// ln P(X ≤ limit) for the unconditioned count.
    ln_mass: f64,
    /// P(Y = first + i) for i in 0..probabilities.len().
    first: u64,
    probabilities: Vec<f64>,
    mean: f64,
    variance: f64,
    /// Skewness and excess kurtosis.
    skew: f64,
    kurtosis: f64,
}

impl BoundedPoisson {
    fn new(mean: f64, limit: u64) -> Self {
        // Beyond 40 spreads of the mode a Poisson term is below 1e-300.
        let reach = (40.0 * mean.sqrt() + 40.0).ceil() as u64;
        let mode = (mean.floor() as u64).min(limit);
        let first = mode.saturating_sub(reach);
        let last = (mode + reach).min(limit);
        let ln_at = |k: u64| -mean + k as f64 * mean.ln() - ln_gamma(k as f64 + 1.0);
        // Outward from the mode by the ratio of neighbouring terms.
        let mut raw = vec![0.0; (last - first + 1) as usize];
        let at_mode = (mode - first) as usize;
        raw[at_mode] = ln_at(mode).exp();
        for i in (0..at_mode).rev() {
            let k = first + i as u64;
            raw[i] = raw[i + 1] * (k + 1) as f64 / mean;
        }
        for i in at_mode + 1..raw.len() {
            let k = first + i as u64;
            raw[i] = raw[i - 1] * mean / k as f64;
        }
        let below: f64 = raw.iter().sum();
        // Past the mode the mass above the limit is small, and summed on
        // its own it keeps its digits.
        let ln_mass = if limit as f64 >= mean {
            let mut above = 0.0;
            let mut term = ln_at(limit).exp();
            for k in limit + 1..limit + 1 + reach {
                term *= mean / k as f64;
                above += term;
            }
            libm::log1p(-above)
        } else {
            below.ln()
        };
        let probabilities: Vec<f64> = raw.iter().map(|p| p / below).collect();
        let at = |i: usize| (first + i as u64) as f64;
        let truncated_mean: f64 = probabilities
            .iter()
            .enumerate()
            .map(|(i, p)| p * at(i))
            .sum();
        // The second, third and fourth central moments in one pass.
        let mut central = [0.0; 3];
        for (i, p) in probabilities.iter().enumerate() {
            let d = at(i) - truncated_mean;
            central[0] += p * d * d;
            central[1] += p * d * d * d;
            central[2] += p * d * d * d * d;
        }
        let [variance, third, fourth] = central;
        let (skew, kurtosis) = if variance > 0.0 {
            (
                third / (variance * variance.sqrt()),
                fourth / (variance * variance) - 3.0,
            )
        } else {
            (0.0, 0.0)
        };
        Self {
            ln_mass,
            first,
            probabilities,
            mean: truncated_mean,
            variance,
            skew,
            kurtosis,
        }
    }

    /// P(Y₁ + … + Y_cells = total), convolving one count at a time and
    /// keeping sums up to `total` only.
    fn sum_is_exactly(&self, cells: u64, total: u64) -> f64 {
        let width = total as usize + 1;
        let mut sums = vec![0.0; width];
        sums[0] = 1.0;
        let mut next = vec![0.0; width];
        for _ in 0..cells {
            next.fill(0.0);
            for (sum, &p_sum) in sums.iter().enumerate().filter(|(_, p)| **p > 0.0) {
                for (i, &p) in self.probabilities.iter().enumerate() {
                    let at = sum + self.first as usize + i;
                    if at >= width {
                        break;
                    }
                    next[at] += p_sum * p;
                }
            }
            std::mem::swap(&mut sums, &mut next);
        }
        sums[total as usize]
    }

    /// P(Y₁ + … + Y_cells = total) by Levin's Edgeworth expansion for a
    /// lattice sum, to the 1 / cells term.
    fn sum_is_edgeworth(&self, cells: u64, total: u64) -> f64 {
        if self.variance <= 0.0 {
            let all = self.mean * cells as f64;
            return if (all - total as f64).abs() < 0.5 {
                1.0
            } else {
                0.0
            };
        }
        let w = cells as f64;
        let spread = (w * self.variance).sqrt();
        let x = (total as f64 - w * self.mean) / spread;
        let x2 = x * x;
        let h3 = x * (x2 - 3.0);
        let h4 = x2 * x2 - 6.0 * x2 + 3.0;
        let h6 = x2 * x2 * x2 - 15.0 * x2 * x2 + 45.0 * x2 - 15.0;
        let correction = 1.0
            + self.skew / (6.0 * w.sqrt()) * h3
            + self.kurtosis / (24.0 * w) * h4
            + self.skew * self.skew / (72.0 * w) * h6;
        let density = (-x2 / 2.0).exp() / (spread * (2.0 * std::f64::consts::PI).sqrt());
        (density * correction).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chance by counting every way to place a few jobs.
    fn by_enumeration(jobs: u32, cells: u32, limit: u32) -> f64 {
        let total = u64::from(cells).pow(jobs);
        let fitting = (0..total)
            .filter(|&placement| {
                let mut counts = vec![0; cells as usize];
                let mut rest = placement;
                for _ in 0..jobs {
                    counts[(rest % u64::from(cells)) as usize] += 1;
                    rest /= u64::from(cells);
                }
                counts.iter().all(|&c| c <= limit)
            })
            .count();
        fitting as f64 / total as f64
    }

    #[test]
    fn small_placements_match_counting_them_all() {
        for (jobs, cells, limit) in [(2, 2, 1), (5, 3, 2), (7, 4, 2), (8, 5, 3), (6, 6, 1)] {
            let counted = by_enumeration(jobs, cells, limit);
            let computed = chance_max_at_most(jobs.into(), cells.into(), limit.into());
            assert!(
                (computed - counted).abs() < 1e-9,
                "{jobs} in {cells}, ≤ {limit}: {computed} vs {counted}"
            );
        }
    }

    #[test]
    fn the_expansion_agrees_with_the_exact_sum() {
        let mut worst: f64 = 0.0;
        for (jobs, limit) in [(300, 6), (600, 12), (1_000, 20), (500, 4)] {
            for cells in (jobs / limit..jobs / 2).step_by((jobs / 16) as usize) {
                let bounded = BoundedPoisson::new(jobs as f64 / cells as f64, limit);
                let exact = bounded.sum_is_exactly(cells, jobs);
                let expanded = bounded.sum_is_edgeworth(cells, jobs);
                let n = jobs as f64;
                let scale =
                    (ln_gamma(n + 1.0) - n * n.ln() + n + cells as f64 * bounded.ln_mass).exp();
                worst = worst.max(scale * (exact - expanded).abs());
            }
        }
        // 1.3e-6 at most when this was written.
        assert!(worst < 1e-5, "the expansion is off by {worst}");
    }

    #[test]
    fn edges() {
        assert_eq!(chance_max_at_most(10, 3, 10), 1.0);
        assert_eq!(chance_max_at_most(10, 3, 3), 0.0);
        assert_eq!(chance_max_at_most(10, 1, 9), 0.0);
        assert_eq!(chance_max_at_most(0, 5, 0), 1.0);
        // Exactly full: every one of 3 cells holds 2, of 6!/(2!³) · 1/3⁶.
        let full = chance_max_at_most(6, 3, 2);
        assert!((full - 90.0 / 729.0).abs() < 1e-12, "{full}");
    }
}
