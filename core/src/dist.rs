//! Distributions of delays and durations, and lognormals fitted to what a
//! reader knows about a job.
//!
//! A [`Dist`] draws non-negative numbers from uniforms u in [0, 1):
//! - constant: always the value;
//! - exponential with rate λ: −ln(1 − u) / λ, mean 1/λ;
//! - uniform on [min, max): min + u·(max − min);
//! - normal: Box–Muller, z = √(−2 ln(1 − u₁))·cos(2π u₂), then mean + sd·z
//!   clipped at 0 (a negative draw becomes 0);
//! - lognormal: e^(mu + sigma·z), mean e^(mu + sigma²/2);
//! - two peaks: the first peak with probability w, else the second, each a
//!   normal clipped at 0;
//! - folded normal: |mean + sd·z| with sd = (p90 − mean) / 1.28, the way a
//!   conference talk on slot scheduling modelled job durations; folding
//!   lifts its real mean and p90 far above the two inputs.
//!
//! Sampling, and the fits whose parameters feed it, use libm for every
//! transcendental function, so a seed draws bit-identical numbers on x86-64
//! and wasm32. `mean`, `cdf` and `quantile` are for display and use std and
//! statrs.
//!
//! Fitting "mean M, 90th percentile P": with z = 1.28155 (the 0.9 quantile
//! of the standard normal), a lognormal has M = e^(μ + σ²/2) and
//! P = e^(μ + zσ), so ln(P/M) = zσ − σ²/2. The right side peaks at z²/2
//! (σ = z), so a lognormal reaches P/M = e^(z²/2) ≈ 2.273 at most. No
//! non-negative duration at all has P > 10·M: the slowest tenth would then
//! contribute more than M to the mean on its own (Markov's inequality).
//! "Median m, 90th percentile P" always fits: μ = ln m, σ = ln(P/m) / z.
//!
//! ```
//! use stampede_core::dist::Dist;
//! use stampede_core::rng::{Purpose, seeded};
//!
//! // Job durations as a talk modelled them: mean 5 s, p90 8 s, folded at 0.
//! let durations = Dist::folded_normal_from_mean_p90(5.0, 8.0).unwrap();
//! let mut rng = seeded(1, Purpose::new("example.durations"));
//! assert!(durations.sample(&mut rng) >= 0.0);
//! assert!(durations.mean() > 5.0, "folding lifts the mean");
//! ```

use std::f64::consts::{PI, SQRT_2, TAU};
use std::fmt;

use rand::RngExt;
use statrs::distribution::{Continuous, ContinuousCDF, Normal};

use crate::error::{InvalidInput, positive, within};
use crate::rng::SeededRng;
use crate::units::significant;

/// The largest magnitude of any time parameter (about 31,700 years in
/// seconds); rates and fitted times lie in [1 / this, this]. Anything
/// beyond is a typo, and the bound keeps every sum and mean finite.
pub const MAX_MAGNITUDE: f64 = 1e12;
/// The lognormal's bounds on |mu| and sigma keep every mean, draw and
/// quantile below p = 1 finite: e^(100 + 20²/2) and e^(100 + 20·8.6) (8.6
/// being the largest |z| Box–Muller can draw) are far below f64::MAX.
pub const MAX_ABS_MU: f64 = 100.0;
/// See [`MAX_ABS_MU`].
pub const MAX_SIGMA: f64 = 20.0;
/// The 0.9 quantile of the standard normal.
pub const P90_Z: f64 = 1.2815515655446004;
/// e^(z²/2): the largest p90 / mean a lognormal can have.
pub const LOGNORMAL_MAX_P90_RATIO: f64 = 2.273196992863177;
/// Markov's inequality: P(X ≥ 10·mean) ≤ 0.1 for any non-negative X.
pub const MARKOV_MAX_P90_RATIO: f64 = 10.0;
/// The talk's rounded 0.9 normal quantile, kept so its figures reproduce.
const TALK_P90_Z: f64 = 1.28;

/// One peak of [`Dist::two_peak`]: a normal, clipped at 0 when drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Peak {
    pub mean: f64,
    pub sd: f64,
}

/// A distribution of non-negative delays or durations; only the validated
/// constructors build one.
#[derive(Clone, Debug, PartialEq)]
pub struct Dist(Shape);

#[derive(Clone, Debug, PartialEq)]
enum Shape {
    Constant(f64),
    Exponential {
        rate: f64,
    },
    Uniform {
        min: f64,
        max: f64,
    },
    ClippedNormal(Peak),
    Lognormal {
        mu: f64,
        sigma: f64,
    },
    TwoPeak {
        first: Peak,
        second: Peak,
        first_weight: f64,
    },
    FoldedNormal(Peak),
}

/// −ln(1 − u) for one uniform draw u in [0, 1): an exponential draw of unit
/// rate. An exponential of rate λ draws it and divides by λ, so a caller
/// that keeps these draws can make the gaps of any rate from them.
pub fn unit_exponential(rng: &mut SeededRng) -> f64 {
    -libm::log1p(-rng.random::<f64>())
}

impl Dist {
    /// Always `value`, in [0, [`MAX_MAGNITUDE`]].
    pub fn constant(value: f64) -> Result<Self, InvalidInput> {
        Ok(Self(Shape::Constant(time("value", value)?)))
    }

    /// Exponential gaps with `rate` in [1 / [`MAX_MAGNITUDE`], [`MAX_MAGNITUDE`]].
    pub fn exponential(rate: f64) -> Result<Self, InvalidInput> {
        Ok(Self(Shape::Exponential {
            rate: scale("rate", rate)?,
        }))
    }

    /// Uniform on [min, max), for 0 ≤ min < max ≤ [`MAX_MAGNITUDE`].
    pub fn uniform(min: f64, max: f64) -> Result<Self, InvalidInput> {
        let min = time("min", min)?;
        let max = time("max", max)?;
        if min >= max {
            return Err(InvalidInput::new(
                "max",
                format!("{max} must be greater than min {min}"),
            ));
        }
        Ok(Self(Shape::Uniform { min, max }))
    }

    /// A normal whose negative draws become 0; |mean| and sd (> 0) at most
    /// [`MAX_MAGNITUDE`].
    pub fn normal(mean: f64, sd: f64) -> Result<Self, InvalidInput> {
        Ok(Self(Shape::ClippedNormal(
            Peak { mean, sd }.checked("mean", "sd")?,
        )))
    }

    /// e^N(mu, sigma²), with |mu| ≤ [`MAX_ABS_MU`] and 0 < sigma ≤ [`MAX_SIGMA`].
    pub fn lognormal(mu: f64, sigma: f64) -> Result<Self, InvalidInput> {
        Ok(Self(Shape::Lognormal {
            mu: within("mu", mu, -MAX_ABS_MU, MAX_ABS_MU)?,
            sigma: within("sigma", positive("sigma", sigma)?, 0.0, MAX_SIGMA)?,
        }))
    }

    /// The first peak with probability `first_weight` in [0, 1], else the
    /// second; each clipped at 0.
    pub fn two_peak(first: Peak, second: Peak, first_weight: f64) -> Result<Self, InvalidInput> {
        Ok(Self(Shape::TwoPeak {
            first: first.checked("first_mean", "first_sd")?,
            second: second.checked("second_mean", "second_sd")?,
            first_weight: within("first_weight", first_weight, 0.0, 1.0)?,
        }))
    }

    /// The talk's job durations: a normal with this mean and
    /// sd = (p90 − mean) / 1.28, negative draws folded to |x|. Its real
    /// mean and p90 are far larger than the inputs.
    pub fn folded_normal_from_mean_p90(mean: f64, p90: f64) -> Result<Self, InvalidInput> {
        let mean = time("mean", mean)?;
        let p90 = time("p90", p90)?;
        if p90 <= mean {
            return Err(InvalidInput::new(
                "p90",
                format!("{p90} must be greater than mean {mean}"),
            ));
        }
        Ok(Self(Shape::FoldedNormal(Peak {
            mean,
            sd: (p90 - mean) / TALK_P90_Z,
        })))
    }

    /// One draw. Constants consume no randomness, normals two uniforms
    /// (one Box–Muller pair, the sine half discarded), two peaks three.
    pub fn sample(&self, rng: &mut SeededRng) -> f64 {
        match self.0 {
            Shape::Constant(value) => value,
            Shape::Exponential { rate } => unit_exponential(rng) / rate,
            Shape::Uniform { min, max } => min + rng.random::<f64>() * (max - min),
            Shape::ClippedNormal(peak) => peak.draw(rng).max(0.0),
            Shape::Lognormal { mu, sigma } => libm::exp(mu + sigma * standard_normal(rng)),
            Shape::TwoPeak {
                first,
                second,
                first_weight,
            } => {
                let peak = if rng.random::<f64>() < first_weight {
                    first
                } else {
                    second
                };
                peak.draw(rng).max(0.0)
            }
            Shape::FoldedNormal(peak) => peak.draw(rng).abs(),
        }
    }

    /// The true mean of what [`Dist::sample`] draws.
    pub fn mean(&self) -> f64 {
        match self.0 {
            Shape::Constant(value) => value,
            Shape::Exponential { rate } => 1.0 / rate,
            Shape::Uniform { min, max } => (min + max) / 2.0,
            Shape::ClippedNormal(peak) => peak.clipped_mean(),
            Shape::Lognormal { mu, sigma } => (mu + sigma * sigma / 2.0).exp(),
            Shape::TwoPeak {
                first,
                second,
                first_weight,
            } => first_weight * first.clipped_mean() + (1.0 - first_weight) * second.clipped_mean(),
            Shape::FoldedNormal(Peak { mean, sd }) => {
                let t = mean / sd;
                sd * (2.0 / PI).sqrt() * (-t * t / 2.0).exp()
                    + mean * (1.0 - 2.0 * standard_normal_cdf(-t))
            }
        }
    }

    /// P(draw ≤ x); NaN for NaN.
    pub fn cdf(&self, x: f64) -> f64 {
        if x.is_nan() {
            return f64::NAN;
        }
        match self.0 {
            Shape::Constant(value) => f64::from(u8::from(x >= value)),
            Shape::Exponential { rate } => {
                if x <= 0.0 {
                    0.0
                } else {
                    -(-rate * x).exp_m1()
                }
            }
            Shape::Uniform { min, max } => ((x - min) / (max - min)).clamp(0.0, 1.0),
            Shape::ClippedNormal(peak) => peak.clipped_cdf(x),
            Shape::Lognormal { mu, sigma } => {
                if x <= 0.0 {
                    0.0
                } else {
                    standard_normal_cdf((x.ln() - mu) / sigma)
                }
            }
            Shape::TwoPeak {
                first,
                second,
                first_weight,
            } => first_weight * first.clipped_cdf(x) + (1.0 - first_weight) * second.clipped_cdf(x),
            Shape::FoldedNormal(peak) => {
                if x < 0.0 {
                    0.0
                } else {
                    peak.unclipped_cdf(x) - peak.unclipped_cdf(-x)
                }
            }
        }
    }

    /// The smallest x with cdf(x) ≥ p, for p in [0, 1); p = 1 gives the top
    /// of the range (infinite when it is unbounded), p outside [0, 1] is
    /// clamped and NaN gives NaN.
    pub fn quantile(&self, p: f64) -> f64 {
        if p.is_nan() {
            return f64::NAN;
        }
        let p = p.clamp(0.0, 1.0);
        match self.0 {
            Shape::Constant(value) => value,
            Shape::Exponential { rate } => -(-p).ln_1p() / rate,
            Shape::Uniform { min, max } => min + p * (max - min),
            Shape::ClippedNormal(Peak { mean, sd }) => {
                (mean + sd * standard_normal_quantile(p)).max(0.0)
            }
            Shape::Lognormal { mu, sigma } => (mu + sigma * standard_normal_quantile(p)).exp(),
            Shape::TwoPeak { .. } | Shape::FoldedNormal(_) => self.bisect_quantile(p),
        }
    }

    /// The quantile where no closed form exists: bisection on the cdf,
    /// down to adjacent floats.
    fn bisect_quantile(&self, p: f64) -> f64 {
        // The shapes bisected here are unbounded above, while their cdf
        // reaches 1 in floating point at a finite x.
        if p == 1.0 {
            return f64::INFINITY;
        }
        if self.cdf(0.0) >= p {
            return 0.0;
        }
        // Invariant: cdf(low) < p ≤ cdf(high).
        let mut low = 0.0;
        let mut high = 1.0;
        while self.cdf(high) < p {
            low = high;
            high *= 2.0;
        }
        loop {
            let middle = low + (high - low) / 2.0;
            if middle <= low || middle >= high {
                return high;
            }
            if self.cdf(middle) < p {
                low = middle;
            } else {
                high = middle;
            }
        }
    }
}

impl Peak {
    fn checked(
        self,
        mean_field: &'static str,
        sd_field: &'static str,
    ) -> Result<Self, InvalidInput> {
        Ok(Self {
            mean: within(mean_field, self.mean, -MAX_MAGNITUDE, MAX_MAGNITUDE)?,
            sd: within(sd_field, positive(sd_field, self.sd)?, 0.0, MAX_MAGNITUDE)?,
        })
    }

    fn draw(self, rng: &mut SeededRng) -> f64 {
        self.mean + self.sd * standard_normal(rng)
    }

    fn unclipped_cdf(self, x: f64) -> f64 {
        standard_normal_cdf((x - self.mean) / self.sd)
    }

    /// P(max(0, X) ≤ x): the mass below 0 sits at 0.
    fn clipped_cdf(self, x: f64) -> f64 {
        if x < 0.0 { 0.0 } else { self.unclipped_cdf(x) }
    }

    /// E[max(0, X)] = μ·Φ(μ/σ) + σ·φ(μ/σ).
    fn clipped_mean(self) -> f64 {
        let t = self.mean / self.sd;
        // Far below zero the two terms cancel and rounding can leave a
        // tiny negative.
        (self.mean * standard_normal_cdf(t) + self.sd * Normal::standard().pdf(t)).max(0.0)
    }
}

/// What a caller knows about a duration, turned into a lognormal.
#[derive(Clone, Debug, PartialEq)]
pub enum MeanP90Fit {
    /// The lognormal with exactly the requested mean and p90.
    Exact(Dist),
    /// No lognormal has the requested pair; here is the nearest one.
    Infeasible(NearestLognormal),
}

impl MeanP90Fit {
    /// The lognormal to draw from: the exact fit, or else the nearest one.
    pub fn dist(&self) -> &Dist {
        match self {
            MeanP90Fit::Exact(dist) => dist,
            MeanP90Fit::Infeasible(nearest) => &nearest.dist,
        }
    }
}

/// The lognormal with the requested mean and the largest p90 any lognormal
/// reaches (σ = z, p90 = mean·e^(z²/2)), and why the request was out of reach.
#[derive(Clone, Debug, PartialEq)]
pub struct NearestLognormal {
    pub reason: Infeasibility,
    pub dist: Dist,
}

impl NearestLognormal {
    /// E.g. "the closest lognormal with mean 4 has p90 9.09".
    pub fn describe(&self) -> String {
        format!(
            "the closest lognormal with mean {} has p90 {}",
            significant(self.dist.mean(), 3),
            significant(self.dist.quantile(0.9), 3)
        )
    }
}

/// Why no lognormal has a requested mean and p90.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Infeasibility {
    /// p90 > 10 × mean: impossible for any non-negative duration.
    AboveMarkovBound,
    /// e^(z²/2) × mean < p90 ≤ 10 × mean: some distributions have it, no
    /// lognormal does.
    AboveLognormalReach,
}

impl fmt::Display for Infeasibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Infeasibility::AboveMarkovBound => write!(
                f,
                "no duration has a 90th percentile above {} × its mean: the slowest tenth \
                 alone would then add more than the mean (Markov's inequality)",
                significant(MARKOV_MAX_P90_RATIO, 3)
            ),
            Infeasibility::AboveLognormalReach => write!(
                f,
                "some distributions have this mean and 90th percentile, but no lognormal does: \
                 a lognormal's 90th percentile is at most {} × its mean",
                significant(LOGNORMAL_MAX_P90_RATIO, 3)
            ),
        }
    }
}

/// The lognormal with this `mean` and 90th percentile `p90`, or the reason
/// there is none and the nearest one. Both lie in [1e-12, 1e12].
///
/// For p90 > mean the smaller root σ = z − √(z² − 2 ln(p90/mean)) is taken,
/// the one that grows from 0 as p90 leaves the mean. A lognormal has
/// p90 ≤ mean only when σ ≥ 2z, so extremely skewed: below its 90th
/// percentile most of it is tiny and the top tenth carries the mean; for
/// p90 ≤ mean that larger root σ = z + √(z² − 2 ln(p90/mean)) is the only
/// one and is returned.
pub fn fit_mean_p90(mean: f64, p90: f64) -> Result<MeanP90Fit, InvalidInput> {
    let mean = scale("mean", mean)?;
    let p90 = scale("p90", p90)?;
    let reason = if p90 > MARKOV_MAX_P90_RATIO * mean {
        Some(Infeasibility::AboveMarkovBound)
    } else if p90 > LOGNORMAL_MAX_P90_RATIO * mean {
        Some(Infeasibility::AboveLognormalReach)
    } else {
        None
    };
    if let Some(reason) = reason {
        let dist = lognormal_with_mean(mean, P90_Z)?;
        return Ok(MeanP90Fit::Infeasible(NearestLognormal { reason, dist }));
    }
    let log_ratio = libm::log(p90 / mean);
    // At the boundary rounding can push the discriminant a hair below 0.
    let root = (P90_Z * P90_Z - 2.0 * log_ratio).max(0.0).sqrt();
    let sigma = if log_ratio > 0.0 {
        // z − root, rewritten so it does not cancel when p90 is barely above the mean.
        2.0 * log_ratio / (P90_Z + root)
    } else {
        P90_Z + root
    };
    Ok(MeanP90Fit::Exact(lognormal_with_mean(mean, sigma)?))
}

/// The lognormal with this `median` and 90th percentile `p90`, for
/// 0 < median < p90, both in [1e-12, 1e12]: μ = ln(median),
/// σ = ln(p90/median) / z.
pub fn fit_median_p90(median: f64, p90: f64) -> Result<Dist, InvalidInput> {
    let median = scale("median", median)?;
    let p90 = scale("p90", p90)?;
    if p90 <= median {
        return Err(InvalidInput::new(
            "p90",
            format!("{p90} must be greater than median {median}"),
        ));
    }
    fitted_lognormal(libm::log(median), libm::log(p90 / median) / P90_Z)
}

fn lognormal_with_mean(mean: f64, sigma: f64) -> Result<Dist, InvalidInput> {
    fitted_lognormal(libm::log(mean) - sigma * sigma / 2.0, sigma)
}

/// A fit goes out of bounds only when p90 lies extremely far from the mean
/// or median, so the error names `p90`.
fn fitted_lognormal(mu: f64, sigma: f64) -> Result<Dist, InvalidInput> {
    Dist::lognormal(mu, sigma).map_err(|error| {
        InvalidInput::new(
            "p90",
            format!("the fitted lognormal is out of bounds ({error})"),
        )
    })
}

/// A time in [0, MAX_MAGNITUDE].
fn time(field: &'static str, x: f64) -> Result<f64, InvalidInput> {
    within(field, x, 0.0, MAX_MAGNITUDE)
}

/// A rate or a fitted time: positive, in [1 / MAX_MAGNITUDE, MAX_MAGNITUDE].
fn scale(field: &'static str, x: f64) -> Result<f64, InvalidInput> {
    within(
        field,
        positive(field, x)?,
        1.0 / MAX_MAGNITUDE,
        MAX_MAGNITUDE,
    )
}

/// Box–Muller: one standard normal from two uniforms, the sine half
/// discarded so a `Dist` holds no state between draws.
fn standard_normal(rng: &mut SeededRng) -> f64 {
    // 1 − u lies in (0, 1], so the logarithm is finite.
    let radius = (-2.0 * libm::log(1.0 - rng.random::<f64>())).sqrt();
    radius * libm::cos(TAU * rng.random::<f64>())
}

/// Φ(z) = erfc(−z/√2) / 2, through libm: statrs 0.19's erfc strays by up
/// to about 1e−10 relative, which the bisected quantiles would inherit.
fn standard_normal_cdf(z: f64) -> f64 {
    0.5 * libm::erfc(-z / SQRT_2)
}

fn standard_normal_quantile(p: f64) -> f64 {
    Normal::standard().inverse_cdf(p)
}
