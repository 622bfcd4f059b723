use stampede_core::jitter::{
    JitterParams, JitterRun, JitterStrategy, TimeAxis, expected_busiest_second, herd, run,
};
use stampede_core::key_numbers::KeyNumber;
use stampede_core::panels::Panel;
use stampede_core::panels::State;
use stampede_core::panels::jitter::{PRESETS, key_numbers};
use stampede_core::panels::state::DEFAULT_SEED;
use stampede_core::units::{count, duration};

fn jitter(strategy: JitterStrategy) -> JitterParams {
    JitterParams {
        strategy,
        ..Default::default()
    }
}

#[test]
fn uniform_jitter_spreads_ten_thousand_jobs_to_about_5_6_a_second() {
    let result = run(&jitter(JitterStrategy::Uniform), 1).unwrap();
    assert_eq!(result.per_second.len(), 1_800);
    // Each second holds Binomial(10,000, 1/1,800) jobs: mean 5.56, sd 2.36.
    // The largest of 1,800 such seconds is expected near 15.2; over 22
    // (mean + 7 sd) has odds far below 1 in a million.
    let busiest = result.peak_second.1;
    assert!((10..=22).contains(&busiest), "{busiest}");
    assert_eq!((result.over_limit, result.seconds_over_limit), (0, 0));
    assert!(result.last_run < 1_800.0 && result.last_run > 1_790.0);
    let rate = result.flat_rate_per_second.unwrap();
    assert!((rate - 10_000.0 / 1_800.0).abs() < 1e-12);
}

#[test]
fn without_jitter_every_job_lands_in_the_first_second() {
    let result = run(&jitter(JitterStrategy::NoDelay), 1).unwrap();
    assert_eq!(result.per_second, [10_000]);
    assert_eq!(result.peak_second, (0.0, 10_000));
    assert_eq!((result.over_limit, result.seconds_over_limit), (9_980, 1));
    assert_eq!(result.flat_rate_per_second, None);
}

#[test]
fn a_fixed_delay_only_moves_the_herd() {
    let result = run(&jitter(JitterStrategy::Fixed), 1).unwrap();
    assert_eq!(result.last_run, 600.0);
    assert_eq!(result.per_second[600], 10_000);
    assert_eq!(result.peak_second, (600.0, 10_000));
    assert_eq!(result.over_limit, 9_980);
}

/// The operator's case: 5,000 jobs over 2 minutes against 50 a second.
pub fn operator() -> JitterParams {
    JitterParams {
        jobs: 5_000,
        max_delay: 2.0,
        limit_per_second: 50,
        ..Default::default()
    }
}

#[test]
fn the_limit_is_counted_per_second_whatever_a_minute_holds() {
    let result = run(&operator(), 1).unwrap();
    let over: u64 = result
        .per_second
        .iter()
        .map(|&c| u64::from(c.saturating_sub(50)))
        .sum();
    assert_eq!(result.over_limit, over);
    assert!(result.over_limit > 0 && result.peak_second.1 > 50);
    // Per minute the 2,500 sit under 50 × 60 = 3,000: a per-minute count
    // would see nothing wrong.
    let busiest_minute = per_minute(&result).into_iter().max().unwrap();
    assert!(busiest_minute <= 3_000, "{busiest_minute}");
}

#[test]
fn the_expected_busiest_second_matches_a_simulation() {
    // 200 seconds of Binomial(2,000, 1/200), mean 10: the maximum, averaged
    // over 2,000 seeded throws, within 0.2 (its sd is about 2, so the
    // average's is 0.05).
    let expected = expected_busiest_second(2_000, 200);
    let params = JitterParams {
        jobs: 2_000,
        max_delay: 200.0 / 60.0,
        ..Default::default()
    };
    let throws = 2_000u64;
    let total: u64 = (0..throws)
        .map(|seed| u64::from(run(&params, seed).unwrap().peak_second.1))
        .sum();
    let mean = total as f64 / throws as f64;
    assert!((mean - expected).abs() < 0.3, "{mean} vs {expected}");
    assert_eq!(expected_busiest_second(7, 1), 7.0);
}

#[test]
fn exponential_jitter_is_cut_at_the_max_and_front_loaded() {
    let result = run(&jitter(JitterStrategy::Exponential), 2).unwrap();
    assert!(result.run_at.iter().all(|&t| (0.0..=1_800.0).contains(&t)));
    assert!(result.peak_second.0 < 120.0, "{:?}", result.peak_second);
    // Mean of an exponential (mean 10) cut at 30: 10 − 30·e^−3 / (1 − e^−3)
    // ≈ 8.43 min. The sd of a draw is under 8 min, so 10,000 draws put the
    // sample mean within 0.08 min per sd; 0.35 min is over four sd.
    let mean = result.run_at.iter().sum::<f64>() / 10_000.0 / 60.0;
    let cut = (-3f64).exp();
    let expected = 10.0 - 30.0 * cut / (1.0 - cut);
    assert!((mean - expected).abs() < 0.35, "{mean} vs {expected}");
}

/// Jobs starting in each minute from t0.
fn per_minute(result: &JitterRun) -> Vec<u32> {
    result
        .per_second
        .chunks(60)
        .map(|minute| minute.iter().sum())
        .collect()
}

#[test]
fn normal_and_two_peak_jitter_stay_in_range_with_their_shapes() {
    let normal = run(&jitter(JitterStrategy::Normal), 3).unwrap();
    assert!(normal.run_at.iter().all(|&t| (0.0..=1_800.0).contains(&t)));
    // The density peaks at 10 min, so minutes 9 and 10 are equally likely to lead.
    let minutes = per_minute(&normal);
    let leading = (0..minutes.len()).max_by_key(|&m| minutes[m]).unwrap();
    assert!(leading == 9 || leading == 10, "{minutes:?}");

    let narrow_peaks = JitterParams {
        sd: 2.5,
        ..jitter(JitterStrategy::TwoPeak)
    };
    let minutes = per_minute(&run(&narrow_peaks, 3).unwrap());
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
    let clipped = jitter(JitterStrategy::TwoPeak);
    let result = run(&clipped, 1).unwrap();
    assert_eq!(result.last_run, 1_800.0);
    let axis = TimeAxis::for_run(&clipped, &result);
    assert_eq!(axis.bins, 181);
    assert_eq!(result.arrivals(&axis).iter().sum::<u32>(), 10_000);

    let late = JitterParams {
        fixed_delay: 45.0,
        ..jitter(JitterStrategy::Fixed)
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
    let all_at_once = herd(&params, &jittered);
    let axis = TimeAxis::for_run(&params, &jittered);
    let counts = all_at_once.arrivals(&axis);
    assert_eq!(counts.len(), 180);
    assert_eq!((counts[0], counts[1..].iter().sum::<u32>()), (10_000, 0));
    assert_eq!(jittered.arrivals(&axis).iter().sum::<u32>(), 10_000);
    assert_eq!(
        all_at_once,
        run(&jitter(JitterStrategy::NoDelay), 1).unwrap()
    );
    assert_eq!(params.limit_per(10.0), 200.0);
}

#[test]
fn completion_curves_climb_to_n_in_at_most_601_points() {
    for strategy in JitterStrategy::ALL {
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
    let jittered = run(&JitterParams::default(), 1).unwrap();
    let all_at_once = herd(&JitterParams::default(), &jittered);
    let axis = TimeAxis::for_run(&JitterParams::default(), &jittered);
    assert_eq!(
        all_at_once.completion(&axis)[..3],
        [(0.0, 0.0), (10.0, 10_000.0), (20.0, 10_000.0)]
    );
}

#[test]
fn key_numbers_of_the_default_uniform_run() {
    let params = JitterParams::default();
    let numbers = key_numbers(&params, &run(&params, 1).unwrap());
    let keys: Vec<&str> = numbers.iter().map(|number| number.key).collect();
    assert_eq!(
        keys,
        [
            "peak-second",
            "seconds-over",
            "over-limit",
            "fit-window",
            "flat-rate",
            "herd",
            "at-limit",
            "last-job"
        ]
    );
    let flat = key_number(&numbers, "flat-rate");
    assert_eq!(
        (flat.value.as_str(), flat.formula),
        ("5.56 /s (333 /min)", "N / (max − min)")
    );
    assert_eq!(key_number(&numbers, "herd").value, "10,000 at once");
    assert_eq!(key_number(&numbers, "over-limit").value, "0");
    assert_eq!(key_number(&numbers, "seconds-over").value, "0 of 1,800");
    assert_eq!(key_number(&numbers, "at-limit").value, "8 min 20 s");
    let last = key_number(&numbers, "last-job");
    assert_eq!(last.value, "30 min");
    assert_eq!(
        last.theory.as_deref(),
        Some("just before t0 + max = 30 min")
    );
    let peak = key_number(&numbers, "peak-second");
    assert_eq!(
        peak.theory.as_deref(),
        Some("max of W = 1,800 seconds each Binomial(N, 1/W) ≈ 15.2 (flat rate N / W = 5.56)")
    );
}

#[test]
fn the_fit_card_states_the_window_the_floor_and_one_night() {
    let params = operator();
    let result = run(&params, 1).unwrap();
    let fit = key_number(&key_numbers(&params, &result), "fit-window");
    let window = result.window_fit;
    assert_eq!(
        fit.value,
        "2 min 48 s on 95 % of nights (delays from 0 to 2.8 min)"
    );
    assert_eq!(window.window_seconds, Some(168.0));
    assert_eq!(
        fit.theory.unwrap(),
        format!(
            "at least N / L = 1 min 40 s; this seed's one night fits from {}",
            duration(window.one_night_seconds.unwrap())
        )
    );
}

#[test]
fn the_busiest_uniform_second_sits_near_the_expected_maximum() {
    let params = JitterParams::default();
    for seed in 1..=5 {
        let result = run(&params, seed).unwrap();
        let (start, busiest) = result.peak_second;
        // The expected maximum is 15.2; 10 to 22 holds it with room.
        assert!((10..=22).contains(&busiest), "seed {seed}: {busiest}");
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
        (JitterStrategy::NoDelay, "10,000 jobs at 0 s", "0 s"),
        (JitterStrategy::Fixed, "10,000 jobs at 10 min", "10 min"),
    ] {
        let params = jitter(strategy);
        let numbers = key_numbers(&params, &run(&params, 1).unwrap());
        assert_eq!(key_number(&numbers, "peak-second").value, peak);
        assert_eq!(key_number(&numbers, "last-job").value, last);
        let over = key_number(&numbers, "over-limit");
        assert_eq!(over.value, "9,980");
        assert_eq!(
            over.theory.as_deref(),
            Some("all N in one second, so N − L = 9,980")
        );
    }
    let fixed = jitter(JitterStrategy::Fixed);
    let numbers = key_numbers(&fixed, &run(&fixed, 1).unwrap());
    assert_eq!(
        key_number(&numbers, "peak-second").theory.as_deref(),
        Some("all N at t0 + fixed delay = 10,000 at 10 min")
    );
}

#[test]
fn exponential_jitter_packs_its_first_seconds_as_theory_says() {
    let params = jitter(JitterStrategy::Exponential);
    let numbers = key_numbers(&params, &run(&params, 1).unwrap());
    let peak = key_number(&numbers, "peak-second");
    // (1 − e^(−1/600)) / (1 − e^−3) = 0.001753 of 10,000 jobs, sd 4.2.
    assert_eq!(
        peak.theory.as_deref(),
        Some(
            "N(1 − e^(−1 s/mean)) / (1 − e^(−max/mean)) = 17.5 expected in the first second, \
             ± 4.2 by chance, and nearly as many in each second after it"
        )
    );
    for seed in 1..=5 {
        let result = run(&params, seed).unwrap();
        // The first minute's 60 seconds expect 17.5 down to 16.6 each.
        let first: u32 = result.per_second[..60].iter().sum();
        assert!((930..1_150).contains(&first), "seed {seed}: {first}");
        assert!(result.peak_second.1 >= 20, "seed {seed}");
    }
}

#[test]
fn normal_shapes_claim_no_busiest_second_theory() {
    for strategy in [JitterStrategy::Normal, JitterStrategy::TwoPeak] {
        let params = jitter(strategy);
        let numbers = key_numbers(&params, &run(&params, 1).unwrap());
        assert_eq!(key_number(&numbers, "peak-second").theory, None);
        assert_eq!(
            key_number(&numbers, "last-job").theory.as_deref(),
            Some("no later than t0 + max = 30 min")
        );
    }
}

#[test]
fn the_downstream_limit_caps_how_fast_jobs_can_start() {
    let params = JitterParams::default();
    assert_eq!(params.drain_seconds(), 500.0);
    assert_eq!(
        params.fastest_at_limit(1_800.0),
        [(0.0, 0.0), (500.0, 10_000.0), (1_800.0, 10_000.0)]
    );
    let slow = JitterParams {
        limit_per_second: 5,
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
        fixed_delay: 1e12,
        ..jitter(JitterStrategy::Fixed)
    };
    assert_eq!(run(&late, 1).unwrap_err().field, "fixed delay");
    let closed = JitterParams {
        limit_per_second: 0,
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
fn a_link_with_the_old_per_minute_limit_opens_with_the_same_limit_per_second() {
    let (state, notices) = State::from_query("p=jitter&r=3000");
    assert_eq!(state.jitter.limit_per_second, 50);
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].key, "rps");
    assert_eq!(
        notices[0].message,
        "the limit is per second now: 3000 a minute read as 50 /s"
    );
    // 500 a minute is 8.3 a second: rounded up to a whole call.
    assert_eq!(
        State::from_query("p=jitter&r=500")
            .0
            .jitter
            .limit_per_second,
        9
    );
    // The new key wins, silently.
    let (state, notices) = State::from_query("p=jitter&r=500&rps=7");
    assert_eq!((state.jitter.limit_per_second, notices.len()), (7, 0));
    assert_eq!(State::from_query("p=jitter&r=x").1[0].key, "rps");
}

#[test]
fn each_strategy_shows_only_the_delays_it_reads() {
    use stampede_core::field::PanelParams;
    let shown = |strategy| {
        let params = jitter(strategy);
        let keys: Vec<&str> = JitterParams::FIELDS
            .iter()
            .map(|field| field.key)
            .filter(|key| params.is_relevant(key))
            .collect();
        keys.join(" ")
    };
    assert_eq!(shown(JitterStrategy::NoDelay), "n js rps conf at");
    assert_eq!(shown(JitterStrategy::Fixed), "n js fd rps conf at");
    assert_eq!(shown(JitterStrategy::Uniform), "n js lo hi rps conf at");
    assert_eq!(shown(JitterStrategy::Exponential), "n js hi m rps conf at");
    assert_eq!(shown(JitterStrategy::Normal), "n js lo hi m sd rps conf at");
    assert_eq!(shown(JitterStrategy::TwoPeak), "n js lo hi sd rps conf at");
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
        assert_eq!(key_numbers(&state.jitter, &result).len(), 8);
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
        assert_eq!((herd.per_second[0], herd.over_limit), (10_000, 9_980));

        let (_, fixed) = preset_run("fixed-delay", seed);
        assert_eq!(
            (fixed.peak_second, fixed.over_limit),
            ((600.0, 10_000), 9_980)
        );

        let (uniform_params, uniform) = preset_run("uniform-30", seed);
        let rate = uniform_params.flat_rate_per_second();
        assert_eq!(
            ((rate * 100.0).round(), (rate * 60.0).round()),
            (556.0, 333.0)
        );
        // "Two or three times that, still under 20."
        let busiest = f64::from(uniform.peak_second.1);
        assert!(
            busiest >= 2.0 * rate && busiest <= 3.5 * rate,
            "seed {seed}"
        );
        assert_eq!(uniform.seconds_over_limit, 0, "seed {seed}");

        let (api_params, api) = preset_run("api-limit", seed);
        assert!((api_params.flat_rate_per_second() - 41.67).abs() < 0.01);
        // "About 60", and 2 min 48 s on 95 % of nights.
        assert!((55..=66).contains(&api.peak_second.1), "seed {seed}");
        assert_eq!(api.window_fit.window_seconds, Some(168.0));
        assert_eq!(api.window_fit.floor_seconds, 100.0);

        let (_, exponential) = preset_run("exponential-vs-uniform", seed);
        assert!(exponential.seconds_over_limit > 0, "seed {seed}");
    }
}
