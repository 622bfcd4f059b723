use proptest::prelude::*;
use stampede_core::dist::{
    Dist, Infeasibility, LOGNORMAL_MAX_P90_RATIO, MAX_MAGNITUDE, MeanP90Fit, P90_Z, Peak,
    fit_mean_p90, fit_median_p90,
};
use stampede_core::error::InvalidInput;
use stampede_core::rng::{Purpose, seeded};
use stampede_core::stats::{ks_p_value, ks_statistic};
use statrs::distribution::{ContinuousCDF, Normal};

include!("../golden/dist.rs");

/// Draws `n` values of `dist` and checks them against its analytic figures.
///
/// The sample mean must lie within 4 standard errors (s/√n, s the sample
/// standard deviation) of `mean()`, and that band must itself be within 1 %
/// of the mean, so the check is never looser than 1 %. The share of draws
/// at or below `quantile(p)` is a binomial proportion with standard error
/// √(p(1−p)/n) whatever the shape, so it must lie within 4 of those of p;
/// that is the sample p-th percentile matching `quantile(p)`, with a
/// tolerance that needs no density. A correct sampler misses a
/// 4-standard-error band about once in 16,000 checks.
fn check_draws(dist: &Dist, purpose: &'static str, n: usize) {
    let mut rng = seeded(7, Purpose::new(purpose));
    let draws: Vec<f64> = (0..n).map(|_| dist.sample(&mut rng)).collect();
    let n = n as f64;
    let sample_mean = draws.iter().sum::<f64>() / n;
    let variance = draws.iter().map(|x| (x - sample_mean).powi(2)).sum::<f64>() / (n - 1.0);
    let tolerance = 4.0 * (variance / n).sqrt();
    assert!(
        tolerance <= 0.01 * dist.mean(),
        "{purpose}: {n} draws are too few"
    );
    assert!(
        (sample_mean - dist.mean()).abs() <= tolerance,
        "{purpose}: sample mean {sample_mean} vs mean {} (tolerance {tolerance})",
        dist.mean()
    );
    for p in [0.5, 0.9] {
        let quantile = dist.quantile(p);
        let share = draws.iter().filter(|&&x| x <= quantile).count() as f64 / n;
        let tolerance = 4.0 * (p * (1.0 - p) / n).sqrt();
        assert!(
            (share - p).abs() <= tolerance,
            "{purpose}: {share} of draws at or below quantile({p}) = {quantile}"
        );
    }
}

/// Enough draws to bring every case's 4-standard-error band within 1 % of
/// its mean (the widest, the clipped normal with s ≈ 1.06 × mean, reaches
/// 0.67 %), and few enough to keep the debug build quick.
const DRAWS: usize = 400_000;

fn peak(mean: f64, sd: f64) -> Peak {
    Peak { mean, sd }
}

#[test]
fn exponential_draws_match_mean_and_percentiles() {
    check_draws(&Dist::exponential(0.5).unwrap(), "test.exponential", DRAWS);
}

#[test]
fn uniform_draws_match_mean_and_percentiles() {
    check_draws(&Dist::uniform(2.0, 5.0).unwrap(), "test.uniform", DRAWS);
}

#[test]
fn normal_draws_match_mean_and_percentiles() {
    check_draws(&Dist::normal(10.0, 2.0).unwrap(), "test.normal", DRAWS);
}

#[test]
fn clipped_normal_draws_match_the_clipped_mean() {
    // A third of N(1, 2) lies below 0, so the clipped mean 1.3 is far from 1.
    let dist = Dist::normal(1.0, 2.0).unwrap();
    assert!((dist.mean() - 1.0).abs() > 0.25);
    check_draws(&dist, "test.clipped", DRAWS);
}

#[test]
fn lognormal_draws_match_mean_and_percentiles() {
    check_draws(&Dist::lognormal(0.5, 0.8).unwrap(), "test.lognormal", DRAWS);
}

#[test]
fn two_peak_draws_match_mean_and_percentiles() {
    let dist = Dist::two_peak(peak(0.5, 1.0), peak(12.0, 2.0), 0.3).unwrap();
    check_draws(&dist, "test.two_peak", DRAWS);
}

#[test]
fn folded_normal_draws_match_mean_and_percentiles() {
    let dist = Dist::folded_normal_from_mean_p90(1.0, 3.0).unwrap();
    check_draws(&dist, "test.folded", DRAWS);
}

#[test]
fn constant_draws_only_its_value() {
    let dist = Dist::constant(3.0).unwrap();
    let mut rng = seeded(7, Purpose::new("test.constant"));
    assert!((0..100).all(|_| dist.sample(&mut rng) == 3.0));
    assert_eq!(dist.mean(), 3.0);
    assert_eq!([dist.cdf(2.999), dist.cdf(3.0)], [0.0, 1.0]);
    assert_eq!([dist.quantile(0.0), dist.quantile(0.9)], [3.0, 3.0]);
}

#[test]
fn closed_forms_give_exact_values() {
    let exponential = Dist::exponential(2.0).unwrap();
    assert_eq!(exponential.mean(), 0.5);
    assert_close(exponential.quantile(0.5), 2f64.ln() / 2.0, 1e-15);
    assert_close(exponential.quantile(0.9), 10f64.ln() / 2.0, 1e-15);
    assert_close(exponential.cdf(2f64.ln() / 2.0), 0.5, 1e-15);
    assert_eq!(exponential.cdf(-1.0), 0.0);

    let uniform = Dist::uniform(2.0, 6.0).unwrap();
    assert_eq!(uniform.mean(), 4.0);
    assert_eq!(uniform.quantile(0.25), 3.0);
    assert_eq!(
        [uniform.cdf(1.0), uniform.cdf(3.0), uniform.cdf(7.0)],
        [0.0, 0.25, 1.0]
    );

    // E[max(0, Z)] = 1/√(2π); half of N(0, 1) sits at 0 after clipping.
    let clipped = Dist::normal(0.0, 1.0).unwrap();
    assert_close(clipped.mean(), 0.398_942_280_401_432_7, 1e-15);
    assert_eq!([clipped.cdf(-1e-9), clipped.cdf(0.0)], [0.0, 0.5]);
    assert_eq!(clipped.quantile(0.3), 0.0);
    assert_close(Dist::normal(10.0, 2.0).unwrap().quantile(0.5), 10.0, 1e-15);

    let lognormal = Dist::lognormal(0.0, 1.0).unwrap();
    assert_close(lognormal.mean(), 0.5f64.exp(), 1e-15);
    assert_close(lognormal.quantile(0.5), 1.0, 1e-15);
    assert_close(lognormal.quantile(0.9), P90_Z.exp(), 1e-14);

    // Mean 0 and p90 1.28 fold N(0, 1) into the half-normal: mean √(2/π),
    // median Φ⁻¹(0.75), cdf(1) = erf(1/√2).
    let half_normal = Dist::folded_normal_from_mean_p90(0.0, 1.28).unwrap();
    assert_close(
        half_normal.mean(),
        (2.0 / std::f64::consts::PI).sqrt(),
        1e-15,
    );
    assert_close(half_normal.quantile(0.5), 0.674_489_750_196_081_7, 1e-14);
    assert_close(half_normal.cdf(1.0), 0.682_689_492_137_085_9, 1e-15);
}

#[test]
fn mixture_of_one_peak_is_that_peak() {
    // The bisected quantile of a mixture of equal peaks must agree with the
    // normal's closed form, and a weight of 1 or 0 selects one peak.
    let (low, high) = (peak(5.0, 2.0), peak(40.0, 1.0));
    let single = Dist::normal(5.0, 2.0).unwrap();
    let equal = Dist::two_peak(low, low, 0.5).unwrap();
    for p in [0.001, 0.1, 0.5, 0.9, 0.999] {
        assert_close(equal.quantile(p), single.quantile(p), 1e-12);
    }
    // Midway between the peaks lies 8.75 sd from the low one and 17.5 from
    // the high one: no draw of 1,000 crosses it.
    let midway = 22.5;
    for (weight, only, below_midway) in [(1.0, low, true), (0.0, high, false)] {
        let mixture = Dist::two_peak(low, high, weight).unwrap();
        let only = Dist::normal(only.mean, only.sd).unwrap();
        assert_eq!(mixture.mean(), only.mean());
        assert_eq!(mixture.cdf(6.0), only.cdf(6.0));
        let mut rng = seeded(3, Purpose::new("test.mixture"));
        assert!((0..1000).all(|_| (mixture.sample(&mut rng) < midway) == below_midway));
    }
}

#[test]
fn quantile_inverts_cdf() {
    let dists = [
        Dist::exponential(0.5).unwrap(),
        Dist::uniform(2.0, 5.0).unwrap(),
        Dist::normal(10.0, 2.0).unwrap(),
        Dist::lognormal(0.5, 0.8).unwrap(),
        Dist::two_peak(peak(3.0, 1.0), peak(12.0, 2.0), 0.3).unwrap(),
        Dist::folded_normal_from_mean_p90(4.0, 120.0).unwrap(),
    ];
    for dist in &dists {
        for p in [0.01, 0.25, 0.5, 0.75, 0.9, 0.99] {
            assert_close(dist.cdf(dist.quantile(p)), p, 1e-12);
        }
    }
}

#[test]
fn quantile_at_the_ends_is_the_range() {
    assert_eq!(Dist::exponential(1.0).unwrap().quantile(1.0), f64::INFINITY);
    assert_eq!(Dist::uniform(2.0, 5.0).unwrap().quantile(1.0), 5.0);
    assert_eq!(Dist::uniform(2.0, 5.0).unwrap().quantile(0.0), 2.0);
    let two_peak = Dist::two_peak(peak(3.0, 1.0), peak(12.0, 2.0), 0.3).unwrap();
    assert_eq!(two_peak.quantile(1.0), f64::INFINITY);
    assert_eq!(two_peak.quantile(0.0), 0.0);
    assert!(
        Dist::lognormal(0.0, 1.0)
            .unwrap()
            .quantile(f64::NAN)
            .is_nan()
    );
}

#[test]
fn exponential_gaps_pass_kolmogorov_smirnov_and_a_wrong_rate_fails() {
    // 100,000 gaps: a rate 5 % off moves the cdf by up to 0.05/e ≈ 0.018,
    // about 6 times the 0.003 a true cdf typically shows at this n.
    let rate = 0.2;
    let dist = Dist::exponential(rate).unwrap();
    let mut rng = seeded(11, Purpose::new("test.ks"));
    let mut gaps: Vec<f64> = (0..100_000).map(|_| dist.sample(&mut rng)).collect();
    gaps.sort_by(f64::total_cmp);
    let right = ks_statistic(&gaps, |x| dist.cdf(x));
    assert!(ks_p_value(right, gaps.len()) > 0.01, "D = {right}");
    let wrong = Dist::exponential(rate * 1.05).unwrap();
    let wrong = ks_statistic(&gaps, |x| wrong.cdf(x));
    assert!(ks_p_value(wrong, gaps.len()) < 1e-6, "D = {wrong}");
}

#[test]
fn every_continuous_distribution_passes_kolmogorov_smirnov() {
    // The mean and percentile checks test `cdf` at a few points; this tests
    // it everywhere. The normal's atom at 0 has mass Φ(−5) ≈ 3e−7, too small
    // to reach a sample of 20,000.
    let dists = [
        Dist::uniform(2.0, 5.0).unwrap(),
        Dist::normal(10.0, 2.0).unwrap(),
        Dist::lognormal(0.5, 0.8).unwrap(),
        Dist::two_peak(peak(6.0, 1.0), peak(12.0, 2.0), 0.3).unwrap(),
        Dist::folded_normal_from_mean_p90(4.0, 120.0).unwrap(),
    ];
    let mut rng = seeded(12, Purpose::new("test.ks.all"));
    for dist in &dists {
        let mut draws: Vec<f64> = (0..20_000).map(|_| dist.sample(&mut rng)).collect();
        draws.sort_by(f64::total_cmp);
        let d = ks_statistic(&draws, |x| dist.cdf(x));
        assert!(ks_p_value(d, draws.len()) > 0.01, "{dist:?}: D = {d}");
    }
}

fn exact(fit: MeanP90Fit) -> Dist {
    match fit {
        MeanP90Fit::Exact(dist) => dist,
        MeanP90Fit::Infeasible(nearest) => panic!("expected an exact fit, got {nearest:?}"),
    }
}

#[test]
fn mean_p90_fit_round_trips() {
    let boundary = 4.0 * LOGNORMAL_MAX_P90_RATIO;
    // Pairs with p90 above, barely above, at and below the mean, and at the
    // lognormal's limit.
    let pairs = [
        (4.0, 6.0),
        (1.0, 1.001),
        (100.0, 227.0),
        (4.0, boundary),
        (4.0, 4.0),
        (4.0, 3.0),
        (4.0, 0.5),
        (MAX_MAGNITUDE, 1.0 / MAX_MAGNITUDE),
    ];
    for (mean, p90) in pairs {
        let dist = exact(fit_mean_p90(mean, p90).unwrap());
        assert_close(dist.mean(), mean, 1e-9);
        assert_close(dist.quantile(0.9), p90, 1e-9);
    }
}

#[test]
fn p90_above_ten_means_is_impossible_for_any_duration() {
    let MeanP90Fit::Infeasible(nearest) = fit_mean_p90(4.0, 120.0).unwrap() else {
        panic!("(4, 120) must be infeasible");
    };
    assert_eq!(nearest.reason, Infeasibility::AboveMarkovBound);
    assert!(nearest.reason.to_string().contains("Markov"));
    assert_nearest_lognormal_of_mean_4(&nearest.dist);
    assert_eq!(
        nearest.describe(),
        "the closest lognormal with mean 4 has p90 9.09"
    );
}

#[test]
fn p90_between_lognormal_reach_and_ten_means_is_possible_but_not_lognormal() {
    let fit = fit_mean_p90(4.0, 20.0).unwrap();
    let MeanP90Fit::Infeasible(nearest) = &fit else {
        panic!("(4, 20) must be infeasible");
    };
    assert_eq!(nearest.reason, Infeasibility::AboveLognormalReach);
    assert!(nearest.reason.to_string().contains("2.27 × its mean"));
    assert_nearest_lognormal_of_mean_4(fit.dist());
    assert_eq!(
        nearest.describe(),
        "the closest lognormal with mean 4 has p90 9.09"
    );
}

/// The lognormal of mean 4 with the largest p90: σ = z, p90 = 4·e^(z²/2).
fn assert_nearest_lognormal_of_mean_4(dist: &Dist) {
    assert_close(dist.mean(), 4.0, 1e-12);
    assert_close(dist.quantile(0.9), 9.092_787_971_452_708, 1e-12);
}

#[test]
fn feasibility_boundaries_are_exact() {
    let boundary = 4.0 * LOGNORMAL_MAX_P90_RATIO;
    assert!(matches!(
        fit_mean_p90(4.0, boundary),
        Ok(MeanP90Fit::Exact(_))
    ));
    let reason = |p90| match fit_mean_p90(4.0, p90).unwrap() {
        MeanP90Fit::Exact(_) => None,
        MeanP90Fit::Infeasible(nearest) => Some(nearest.reason),
    };
    assert_eq!(
        reason(boundary * (1.0 + 1e-12)),
        Some(Infeasibility::AboveLognormalReach)
    );
    assert_eq!(reason(40.0), Some(Infeasibility::AboveLognormalReach));
    assert_eq!(reason(40.000_001), Some(Infeasibility::AboveMarkovBound));
    // The constants are e^(z²/2) and the 0.9 normal quantile to the last bit or one.
    assert_close(LOGNORMAL_MAX_P90_RATIO, (P90_Z * P90_Z / 2.0).exp(), 2e-16);
    assert_close(P90_Z, Normal::standard().inverse_cdf(0.9), 1e-15);
}

#[test]
fn median_p90_fit_round_trips() {
    for (median, p90) in [(2.0, 5.0), (1.0, 1.000_001), (0.01, 1000.0)] {
        let dist = fit_median_p90(median, p90).unwrap();
        assert_close(dist.quantile(0.5), median, 1e-12);
        assert_close(dist.quantile(0.9), p90, 1e-12);
    }
}

#[test]
fn folded_normal_of_the_talk_is_far_above_its_inputs() {
    // The talk's (mean 4, p90 120) gives sd = 116 / 1.28 = 90.625; folding
    // makes the real mean 72.38 and the real p90 149.21 (50-digit values).
    let dist = Dist::folded_normal_from_mean_p90(4.0, 120.0).unwrap();
    assert_close(dist.mean(), 72.378_710_837_724_62, 1e-13);
    assert_close(dist.quantile(0.9), 149.210_003_890_778, 1e-12);
    // 200,000 draws: the standard error of the mean is about 55/√200,000
    // ≈ 0.12, and of the share below the p90 √(0.09/200,000) ≈ 0.00067.
    check_draws(&dist, "test.folded.talk", 200_000);
}

#[test]
fn golden_draws() {
    assert_dist_golden();
}

#[test]
fn bad_input_names_the_field() {
    let good = peak(1.0, 1.0);
    let nan = f64::NAN;
    let inf = f64::INFINITY;
    let cases: Vec<(Result<Dist, InvalidInput>, &str)> = vec![
        (Dist::constant(nan), "value"),
        (Dist::constant(-1.0), "value"),
        (Dist::constant(inf), "value"),
        (Dist::exponential(0.0), "rate"),
        (Dist::exponential(-1.0), "rate"),
        (Dist::exponential(nan), "rate"),
        (Dist::exponential(inf), "rate"),
        (Dist::exponential(-inf), "rate"),
        (Dist::uniform(nan, 1.0), "min"),
        (Dist::uniform(-1.0, 1.0), "min"),
        (Dist::uniform(0.0, inf), "max"),
        (Dist::uniform(3.0, 3.0), "max"),
        (Dist::uniform(4.0, 3.0), "max"),
        (Dist::normal(nan, 1.0), "mean"),
        (Dist::normal(-inf, 1.0), "mean"),
        (Dist::normal(0.0, -1.0), "sd"),
        (Dist::normal(0.0, 0.0), "sd"),
        (Dist::normal(0.0, nan), "sd"),
        (Dist::lognormal(nan, 1.0), "mu"),
        (Dist::lognormal(1000.0, 1.0), "mu"),
        (Dist::lognormal(0.0, -1.0), "sigma"),
        (Dist::lognormal(0.0, 0.0), "sigma"),
        (Dist::lognormal(0.0, inf), "sigma"),
        (Dist::two_peak(good, good, 1.5), "first_weight"),
        (Dist::two_peak(good, good, -0.1), "first_weight"),
        (Dist::two_peak(good, good, nan), "first_weight"),
        (Dist::two_peak(peak(nan, 1.0), good, 0.5), "first_mean"),
        (Dist::two_peak(peak(1.0, -1.0), good, 0.5), "first_sd"),
        (Dist::two_peak(good, peak(inf, 1.0), 0.5), "second_mean"),
        (Dist::two_peak(good, peak(1.0, 0.0), 0.5), "second_sd"),
        (Dist::folded_normal_from_mean_p90(nan, 5.0), "mean"),
        (Dist::folded_normal_from_mean_p90(-1.0, 5.0), "mean"),
        (Dist::folded_normal_from_mean_p90(4.0, 4.0), "p90"),
        (Dist::folded_normal_from_mean_p90(4.0, 3.0), "p90"),
        (Dist::folded_normal_from_mean_p90(4.0, inf), "p90"),
        (fit_median_p90(0.0, 1.0), "median"),
        (fit_median_p90(nan, 1.0), "median"),
        (fit_median_p90(2.0, 2.0), "p90"),
        (fit_median_p90(2.0, 1.0), "p90"),
        // σ = ln(1e12) / z ≈ 21.6, beyond any lognormal this draws.
        (fit_median_p90(1e-3, 1e9), "p90"),
    ];
    for (index, (result, expected)) in cases.into_iter().enumerate() {
        assert_eq!(
            result.expect_err("bad input").field,
            expected,
            "case {index}"
        );
    }
    let fits = [
        (fit_mean_p90(0.0, 5.0), "mean"),
        (fit_mean_p90(nan, 5.0), "mean"),
        (fit_mean_p90(4.0, -1.0), "p90"),
        (fit_mean_p90(4.0, nan), "p90"),
        (fit_mean_p90(4.0, 1e13), "p90"),
    ];
    for (result, expected) in fits {
        assert_eq!(result.expect_err("bad input").field, expected);
    }
}

/// Any f64, with the special values and a plain range weighted up so valid
/// inputs occur too.
fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        proptest::num::f64::ANY,
        -50.0..50.0f64,
        Just(0.0),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(MAX_MAGNITUDE),
        Just(-MAX_MAGNITUDE),
        Just(1.0 / MAX_MAGNITUDE),
    ]
}

/// Whatever a constructor accepts draws finite non-negative numbers and has
/// finite figures.
fn assert_well_behaved(dist: &Dist) {
    let mut rng = seeded(5, Purpose::new("test.proptest"));
    for _ in 0..4 {
        let draw = dist.sample(&mut rng);
        assert!(draw.is_finite() && draw >= 0.0, "{dist:?} drew {draw}");
    }
    assert!(dist.mean().is_finite() && dist.mean() >= 0.0, "{dist:?}");
    for p in [0.0, 0.5, 0.99] {
        assert!(dist.quantile(p).is_finite(), "{dist:?} at {p}");
    }
    assert!((0.0..=1.0).contains(&dist.cdf(dist.mean())), "{dist:?}");
}

proptest! {
    #[test]
    fn constructors_never_panic(a in number(), b in number(), c in number(), d in number(), w in number()) {
        let built = [
            Dist::constant(a),
            Dist::exponential(a),
            Dist::uniform(a, b),
            Dist::normal(a, b),
            Dist::lognormal(a, b),
            Dist::two_peak(peak(a, b), peak(c, d), w),
            Dist::folded_normal_from_mean_p90(a, b),
            fit_median_p90(a, b),
        ];
        for dist in built.iter().flatten() {
            assert_well_behaved(dist);
        }
        if let Ok(fit) = fit_mean_p90(a, b) {
            assert_well_behaved(fit.dist());
        }
    }
}

fn assert_close(actual: f64, expected: f64, relative: f64) {
    assert!(
        (actual - expected).abs() <= relative * expected.abs().max(f64::MIN_POSITIVE),
        "{actual} is not within {relative} (relative) of {expected}"
    );
}
