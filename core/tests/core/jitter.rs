use stampede_core::jitter::{JitterParams, Strategy, run};

fn jitter(strategy: Strategy) -> JitterParams {
    JitterParams {
        strategy,
        ..Default::default()
    }
}

#[test]
fn uniform_jitter_spreads_ten_thousand_jobs_to_about_333_a_minute() {
    let result = run(&jitter(Strategy::Uniform), 1).unwrap();
    assert_eq!(result.per_minute.len(), 30);
    // Each minute holds Binomial(10,000, 1/30) jobs: mean 333, sd 18. The
    // largest of 30 such minutes stays below mean + 4 sd.
    for &count in &result.per_minute {
        assert!((260..406).contains(&count), "{:?}", result.per_minute);
    }
    assert!(result.peak_minute.1 < 406);
    assert_eq!(result.over_limit, 0);
    assert!(result.last_run < 1_800.0 && result.last_run > 1_790.0);
    assert_eq!(result.flat_rate_per_minute.map(f64::round), Some(333.0));
}

#[test]
fn without_jitter_every_job_lands_in_the_first_second() {
    let result = run(&jitter(Strategy::NoDelay), 1).unwrap();
    assert_eq!(result.per_second, [10_000]);
    assert_eq!(result.peak_minute, (0.0, 10_000));
    assert_eq!(result.over_limit, 10_000 - 500);
    assert_eq!(result.flat_rate_per_minute, None);
}

#[test]
fn a_fixed_delay_only_moves_the_herd() {
    let result = run(&jitter(Strategy::Fixed), 1).unwrap();
    assert_eq!(result.last_run, 600.0);
    assert_eq!(result.per_second[600], 10_000);
    assert_eq!(result.peak_minute, (600.0, 10_000));
    assert_eq!(result.over_limit, 9_500);
}

#[test]
fn exponential_jitter_is_cut_at_the_max_and_front_loaded() {
    let result = run(&jitter(Strategy::Exponential), 2).unwrap();
    assert!(result.run_at.iter().all(|&t| (0.0..=1_800.0).contains(&t)));
    assert_eq!(result.peak_minute.0, 0.0);
    // Mean of an exponential (mean 10) cut at 30: 10 − 30·e^−3 / (1 − e^−3)
    // ≈ 8.43 min. The sd of a draw is under 8 min, so 10,000 draws put the
    // sample mean within 0.08 min per sd; 0.35 min is over four sd.
    let mean = result.run_at.iter().sum::<f64>() / 10_000.0 / 60.0;
    let cut = (-3f64).exp();
    let expected = 10.0 - 30.0 * cut / (1.0 - cut);
    assert!((mean - expected).abs() < 0.35, "{mean} vs {expected}");
}

#[test]
fn normal_and_two_peak_jitter_stay_in_range_with_their_shapes() {
    let normal = run(&jitter(Strategy::Normal), 3).unwrap();
    assert!(normal.run_at.iter().all(|&t| (0.0..=1_800.0).contains(&t)));
    // The density peaks at 10 min, so minutes 9 and 10 are equally likely to lead.
    let peak = normal.peak_minute.0;
    assert!(peak == 540.0 || peak == 600.0, "{:?}", normal.per_minute);

    let narrow_peaks = JitterParams {
        sd: 2.5,
        ..jitter(Strategy::TwoPeak)
    };
    let minutes = run(&narrow_peaks, 3).unwrap().per_minute;
    // Peaks at 7.5 and 22.5 minutes, three sd from the valley at 15, where
    // the density is 45 times lower.
    assert!(
        minutes[7] > 4 * minutes[15] && minutes[22] > 4 * minutes[15],
        "{minutes:?}"
    );
}

#[test]
fn bad_input_is_refused_by_name() {
    let crossed = JitterParams {
        min_delay: 20.0,
        max_delay: 10.0,
        ..Default::default()
    };
    assert_eq!(run(&crossed, 1).unwrap_err().field, "max delay");
    let too_many = JitterParams {
        jobs: 2_000_000,
        ..Default::default()
    };
    assert_eq!(run(&too_many, 1).unwrap_err().field, "jobs");
    let nan = JitterParams {
        sd: f64::NAN,
        ..Default::default()
    };
    assert_eq!(run(&nan, 1).unwrap_err().field, "std deviation");
}

#[test]
fn a_seed_draws_the_same_delays_every_time() {
    let first = run(&JitterParams::default(), 5).unwrap();
    assert_eq!(first, run(&JitterParams::default(), 5).unwrap());
    assert_ne!(
        first.run_at,
        run(&JitterParams::default(), 6).unwrap().run_at
    );
}
