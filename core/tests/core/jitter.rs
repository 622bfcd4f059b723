use stampede_core::jitter::{
    JitterParams, JitterRun, PRESETS, Strategy, TimeAxis, herd, key_numbers, run,
};
use stampede_core::key_numbers::KeyNumber;
use stampede_core::state::{DEFAULT_SEED, Panel};
use stampede_core::units::{count, duration};

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

fn key_number(numbers: &[KeyNumber], key: &str) -> KeyNumber {
    numbers
        .iter()
        .find(|number| number.key == key)
        .unwrap_or_else(|| panic!("no key number {key} in {numbers:?}"))
        .clone()
}

#[test]
fn key_numbers_of_the_default_uniform_run() {
    let params = JitterParams::default();
    let numbers = key_numbers(&params, &run(&params, 1).unwrap());
    let keys: Vec<&str> = numbers.iter().map(|number| number.key).collect();
    assert_eq!(
        keys,
        [
            "peak-minute",
            "flat-rate",
            "herd",
            "over-limit",
            "at-limit",
            "last-job"
        ]
    );
    let flat = key_number(&numbers, "flat-rate");
    assert_eq!(
        (flat.value.as_str(), flat.formula),
        ("333 /min", "N / (max − min)")
    );
    assert_eq!(key_number(&numbers, "herd").value, "10,000 at once");
    assert_eq!(key_number(&numbers, "over-limit").value, "0");
    assert_eq!(key_number(&numbers, "at-limit").value, "20 min");
    let last = key_number(&numbers, "last-job");
    assert_eq!(last.value, "30 min");
    assert_eq!(
        last.theory.as_deref(),
        Some("just before t0 + max = 30 min")
    );
    let peak = key_number(&numbers, "peak-minute");
    assert_eq!(
        peak.theory.as_deref(),
        Some("N / (max − min) = 333 a minute, ± 18 by chance")
    );
}

#[test]
fn the_busiest_uniform_minute_sits_a_few_spreads_above_the_flat_rate() {
    let params = JitterParams::default();
    for seed in 1..=5 {
        let result = run(&params, seed).unwrap();
        let (start, busiest) = result.peak_minute;
        // The 30 minutes share all 10,000 jobs, so the fullest holds at least
        // the mean 333.3. Each is Binomial(10,000, 1/30), sd 17.9; a minute
        // beyond mean + 4.5 sd (414) has odds of 1 in 10,000 among 30.
        assert!((334..414).contains(&busiest), "seed {seed}: {busiest}");
        let value = key_numbers(&params, &result)[0].value.clone();
        assert_eq!(
            value,
            format!("{} jobs at {}", count(u64::from(busiest)), duration(start))
        );
    }
}

#[test]
fn key_numbers_of_the_herd_are_exact() {
    for (strategy, peak, last) in [
        (Strategy::NoDelay, "10,000 jobs at 0 s", "0 s"),
        (Strategy::Fixed, "10,000 jobs at 10 min", "10 min"),
    ] {
        let params = jitter(strategy);
        let numbers = key_numbers(&params, &run(&params, 1).unwrap());
        assert_eq!(key_number(&numbers, "peak-minute").value, peak);
        assert_eq!(key_number(&numbers, "last-job").value, last);
        let over = key_number(&numbers, "over-limit");
        assert_eq!(over.value, "9,500");
        assert_eq!(
            over.theory.as_deref(),
            Some("all N in one minute, so N − R = 9,500")
        );
    }
    let fixed = jitter(Strategy::Fixed);
    let numbers = key_numbers(&fixed, &run(&fixed, 1).unwrap());
    assert_eq!(
        key_number(&numbers, "peak-minute").theory.as_deref(),
        Some("all N at t0 + fixed delay = 10,000 at 10 min")
    );
}

#[test]
fn exponential_jitter_packs_the_first_minute_as_theory_says() {
    let params = jitter(Strategy::Exponential);
    let numbers = key_numbers(&params, &run(&params, 1).unwrap());
    let peak = key_number(&numbers, "peak-minute");
    // (1 − e^−0.1) / (1 − e^−3) = 0.1002 of 10,000 jobs, sd √(N·p·(1 − p)) = 30.
    assert_eq!(
        peak.theory.as_deref(),
        Some(
            "N(1 − e^(−1/mean)) / (1 − e^(−max/mean)) = 1,001 in the first minute, ± 30 by chance"
        )
    );
    for seed in 1..=5 {
        let (start, busiest) = run(&params, seed).unwrap().peak_minute;
        // Four sd either side: a miss has odds of about 1 in 16,000 per seed.
        assert_eq!(start, 0.0);
        assert!((881..1_121).contains(&busiest), "seed {seed}: {busiest}");
    }
}

#[test]
fn normal_shapes_claim_no_busiest_minute_theory() {
    for strategy in [Strategy::Normal, Strategy::TwoPeak] {
        let params = jitter(strategy);
        let numbers = key_numbers(&params, &run(&params, 1).unwrap());
        assert_eq!(key_number(&numbers, "peak-minute").theory, None);
        assert_eq!(
            key_number(&numbers, "last-job").theory.as_deref(),
            Some("no later than t0 + max = 30 min")
        );
    }
}

#[test]
fn the_time_axis_keeps_between_30_and_600_bins() {
    for (max_delay, bin_seconds, bins) in [
        (0.5, 1, 30),
        (5.0, 1, 300),
        (9.5, 1, 570),
        (10.0, 10, 60),
        (30.0, 10, 180),
        (500.0, 60, 500),
        (1440.0, 600, 144),
    ] {
        let params = JitterParams {
            max_delay,
            ..Default::default()
        };
        let axis = TimeAxis::for_run(&params, &run(&params, 1).unwrap());
        assert_eq!(
            (axis.bin_seconds, axis.bins),
            (bin_seconds, bins),
            "max {max_delay}"
        );
        assert_eq!(axis.end(), max_delay * 60.0);
    }
}

#[test]
fn the_axis_reaches_a_job_clipped_onto_the_max_and_a_late_fixed_delay() {
    // Two peaks at 7.5 and 22.5 min with sd 5 clip 7 % of the later one onto 30 min.
    let clipped = jitter(Strategy::TwoPeak);
    let result = run(&clipped, 1).unwrap();
    assert_eq!(result.last_run, 1_800.0);
    let axis = TimeAxis::for_run(&clipped, &result);
    assert_eq!(axis.bins, 181);
    assert_eq!(result.arrivals(&axis).iter().sum::<u32>(), 10_000);

    let late = JitterParams {
        mean_delay: 45.0,
        ..jitter(Strategy::Fixed)
    };
    let result = run(&late, 1).unwrap();
    let axis = TimeAxis::for_run(&late, &result);
    let arrivals = result.arrivals(&axis);
    assert_eq!(arrivals.last(), Some(&10_000));
    assert_eq!(axis.end(), 2_710.0);
}

#[test]
fn the_herd_shares_the_axis_with_every_job_in_the_first_bin() {
    let params = JitterParams::default();
    let jittered = run(&params, 1).unwrap();
    let all_at_once = herd(&params, 1).unwrap();
    let axis = TimeAxis::for_run(&params, &jittered);
    let counts = all_at_once.arrivals(&axis);
    assert_eq!(counts.len(), 180);
    assert_eq!((counts[0], counts[1..].iter().sum::<u32>()), (10_000, 0));
    assert_eq!(jittered.arrivals(&axis).iter().sum::<u32>(), 10_000);
    assert_eq!(all_at_once, run(&jitter(Strategy::NoDelay), 1).unwrap());
    assert_eq!(params.limit_per(10.0), 500.0 / 6.0);
}

#[test]
fn completion_curves_climb_to_n_in_at_most_601_points() {
    for strategy in Strategy::ALL {
        for max_delay in [0.5, 30.0, 1440.0] {
            let params = JitterParams {
                strategy: *strategy,
                max_delay,
                jobs: 12_345,
                ..Default::default()
            };
            let result = run(&params, 7).unwrap();
            let axis = TimeAxis::for_run(&params, &result);
            let curve = result.completion(&axis);
            assert!(curve.len() <= 601, "{} points", curve.len());
            assert_eq!(curve[0], (0.0, 0.0));
            assert_eq!(*curve.last().unwrap(), (axis.end(), 12_345.0));
            assert!(
                curve
                    .windows(2)
                    .all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1),
                "{strategy:?} over {max_delay} min is not monotone"
            );
        }
    }
    let all_at_once = herd(&JitterParams::default(), 1).unwrap();
    let axis = TimeAxis::for_run(
        &JitterParams::default(),
        &run(&JitterParams::default(), 1).unwrap(),
    );
    assert_eq!(
        all_at_once.completion(&axis)[..3],
        [(0.0, 0.0), (10.0, 10_000.0), (20.0, 10_000.0)]
    );
}

#[test]
fn the_downstream_limit_caps_how_fast_jobs_can_start() {
    let params = JitterParams::default();
    assert_eq!(params.drain_seconds(), 1_200.0);
    assert_eq!(
        params.fastest_at_limit(1_800.0),
        [(0.0, 0.0), (1_200.0, 10_000.0), (1_800.0, 10_000.0)]
    );
    let slow = JitterParams {
        limit_per_minute: 300,
        ..Default::default()
    };
    assert_eq!(
        slow.fastest_at_limit(1_800.0),
        [(0.0, 0.0), (1_800.0, 9_000.0)]
    );
}

#[test]
fn delays_and_limits_out_of_range_are_refused_by_name() {
    let late = JitterParams {
        mean_delay: 1e12,
        ..jitter(Strategy::Fixed)
    };
    assert_eq!(run(&late, 1).unwrap_err().field, "mean delay");
    let closed = JitterParams {
        limit_per_minute: 0,
        ..Default::default()
    };
    assert_eq!(run(&closed, 1).unwrap_err().field, "downstream limit");
    let negative = JitterParams {
        min_delay: -1.0,
        ..Default::default()
    };
    assert_eq!(run(&negative, 1).unwrap_err().field, "min delay");
}

#[test]
fn a_uniform_range_that_fills_no_whole_minute_says_so() {
    let params = JitterParams {
        min_delay: 0.5,
        max_delay: 1.5,
        ..Default::default()
    };
    let numbers = key_numbers(&params, &run(&params, 1).unwrap());
    assert_eq!(
        key_number(&numbers, "peak-minute").theory.as_deref(),
        Some("N × the fullest minute's share of [min, max) = 5,000, ± 50 by chance")
    );
}

/// Each preset's params and run for `seed`, after checking the preset
/// parses without a notice.
fn preset_run(slug: &str, seed: u64) -> (JitterParams, JitterRun) {
    let preset = PRESETS.iter().find(|preset| preset.slug == slug).unwrap();
    let (state, notices) = preset.state(Panel::Jitter, seed);
    assert_eq!(notices, [], "{slug}");
    let result = run(&state.jitter, seed).unwrap();
    (state.jitter, result)
}

#[test]
fn every_preset_runs_and_keeps_its_seed() {
    assert!(PRESETS.len() >= 4);
    for preset in PRESETS {
        let (state, notices) = preset.state(Panel::Jitter, 42);
        assert_eq!((state.seed, notices.len()), (42, 0), "{}", preset.slug);
        let result = run(&state.jitter, 42).unwrap();
        assert_eq!(key_numbers(&state.jitter, &result).len(), 6);
        // One sentence each: a single full stop, at the end.
        assert_eq!(preset.lesson.matches(". ").count(), 0, "{}", preset.slug);
        assert!(preset.lesson.ends_with('.'), "{}", preset.slug);
    }
}

// The lessons' claims, for the default seed and four more: the numbers the
// page shows must bear them out whichever seed a reader has.
#[test]
fn the_preset_lessons_hold() {
    for seed in [DEFAULT_SEED, 2, 3, 4, 5] {
        let (_, herd) = preset_run("herd", seed);
        assert_eq!((herd.per_second[0], herd.over_limit), (10_000, 9_500));

        let (_, fixed) = preset_run("fixed-delay", seed);
        assert_eq!(
            (fixed.peak_minute, fixed.over_limit),
            ((600.0, 10_000), 9_500)
        );

        let (uniform_params, uniform) = preset_run("uniform-30", seed);
        assert_eq!(uniform_params.flat_rate_per_minute().round(), 333.0);
        // "Well under 500": mean 333 + 4.5 sd is 414.
        assert!(uniform.peak_minute.1 < 414, "seed {seed}");

        let (_, exponential) = preset_run("exponential-vs-uniform", seed);
        let minutes = &exponential.per_minute;
        // "About 1,000" first and "about 50" last: 1,001 ± 4 sd of 30, and
        // N·(e^−2.9 − e^−3) / (1 − e^−3) = 55 ± 4 sd of 7.4.
        assert_eq!(exponential.peak_minute.0, 0.0);
        assert!(
            (880..1_120).contains(&minutes[0]),
            "seed {seed}: {minutes:?}"
        );
        assert!((25..85).contains(&minutes[29]), "seed {seed}: {minutes:?}");

        let (tight_params, tight) = preset_run("tight-limit", seed);
        let numbers = key_numbers(&tight_params, &tight);
        assert_eq!(key_number(&numbers, "at-limit").value, "33 min 20 s");
        // 333 ± 18 a minute against 300: "nearly every minute" means 25 of 30.
        let overrun = tight.per_minute.iter().filter(|&&c| c > 300).count();
        assert!(overrun >= 25, "seed {seed}: {overrun}");
    }
}
