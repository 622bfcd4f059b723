//! The Jitter panel's window for a share of nights, checked against nights
//! simulated here with a generator of the test's own, and its one-night
//! window against the run's own counting at every step below it.

use stampede_core::jitter::{Confidence, JitterCache, JitterParams, fit_window, run};
use stampede_core::multinomial::chance_max_at_most;
use stampede_core::panels::State;
use stampede_core::speedup::Speedup;

use super::jitter::operator;

/// SplitMix64: independent of the crate's seeded streams.
struct SplitMix(u64);

impl SplitMix {
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The share of `nights` simulated nights on which no second of `window`
/// holds more than `limit` of `jobs` uniform starts.
fn simulated_share(jobs: u32, window: usize, limit: u32, nights: u32) -> f64 {
    let mut rng = SplitMix(0x5EED ^ u64::from(jobs) << 20 ^ window as u64);
    let mut counts = vec![0u32; window];
    let held = (0..nights)
        .filter(|_| {
            counts.fill(0);
            (0..jobs).all(|_| {
                let count = &mut counts[(rng.unit() * window as f64) as usize];
                *count += 1;
                *count <= limit
            })
        })
        .count();
    held as f64 / f64::from(nights)
}

#[test]
fn the_chance_a_window_holds_matches_simulated_nights() {
    const NIGHTS: u32 = 2_000;
    for (jobs, limit, windows) in [
        (8_000, 40, [300, 348, 372, 400]),
        (300, 5, [90, 120, 160, 220]),
        (2_000, 12, [300, 400, 500, 700]),
    ] {
        for window in windows {
            let exact = chance_max_at_most(jobs.into(), window as u64, limit.into());
            let simulated = simulated_share(jobs, window, limit, NIGHTS);
            // Four standard errors of the simulated share, and a little
            // for a share near 0 or 1.
            let tolerance = 4.0 * (exact * (1.0 - exact) / f64::from(NIGHTS)).sqrt() + 0.003;
            assert!(
                (exact - simulated).abs() <= tolerance,
                "{jobs} jobs in {window} s under {limit}: {exact} vs {simulated} simulated"
            );
        }
    }
    // The SRE's night: 8,000 jobs under 40 /s. A window of 5 min 48 s
    // holds on about 86 % of nights, 6 min 40 s on about 99 %.
    let share = |window| chance_max_at_most(8_000, window, 40);
    assert!((0.84..0.88).contains(&share(348)), "{}", share(348));
    assert!((0.985..0.995).contains(&share(400)), "{}", share(400));
}

fn from_query(query: &str) -> JitterParams {
    let (state, notices) = State::from_query(&format!("p=jitter&{query}"));
    assert_eq!(notices, [], "{query}");
    state.jitter
}

#[test]
fn the_window_is_the_smallest_that_holds_on_the_share_asked_for() {
    let mut last = 0.0;
    for (conf, share) in [("50", 0.5), ("90", 0.9), ("95", 0.95), ("99", 0.99)] {
        let params = from_query(&format!("n=8000&rps=40&conf={conf}"));
        let fit = fit_window(&params, 1);
        assert_eq!(fit.confidence, share);
        let window = fit.window_seconds.unwrap();
        let holds = |seconds: f64| chance_max_at_most(8_000, seconds as u64, 40);
        assert!(holds(window) >= share, "{conf}: {window}");
        assert!(holds(window - 6.0) < share, "{conf}: {window}");
        assert_eq!(fit.chance, Some(holds(window)));
        assert_eq!(fit.chance_one_step_less, Some(holds(window - 6.0)));
        assert_eq!(fit.max_delay, Some(window / 60.0));
        assert!(window > last, "{conf}");
        last = window;
    }
    // 95 % of nights, the default: 6 min 12 s.
    let fit = fit_window(&from_query("n=8000&rps=40"), 1);
    assert_eq!(fit.window_seconds, Some(372.0));
    // A min delay shifts the window, not its width.
    let shifted = fit_window(&from_query("n=8000&rps=40&lo=1.5"), 1);
    assert_eq!(shifted.window_seconds, Some(372.0));
    assert_eq!(shifted.max_delay, Some(7.7));
}

#[test]
fn one_nights_window_is_the_smallest_its_own_draws_fit() {
    let cases = [
        (operator(), 1),
        (operator(), 9),
        (from_query("n=8000&rps=40"), 1),
        (from_query("n=777&rps=3&lo=1.5"), 4),
    ];
    for (params, seed) in cases {
        let fit = fit_window(&params, seed);
        let night = fit.one_night_seconds.expect("a window fits");
        // The cache keeps the window fit while only the max delay moves.
        let mut cache = JitterCache::default();
        let mut busiest = |steps: u32| {
            let max_delay = (params.min_delay * 10.0 + f64::from(steps)) / 10.0;
            let at = JitterParams {
                max_delay,
                ..params.clone()
            };
            cache.run(&at, seed).unwrap().peak_second.1
        };
        let fits = (night / 6.0) as u32;
        assert!(busiest(fits) <= params.limit_per_second, "{night} s");
        let floor = (fit.floor_seconds / 6.0).floor() as u32;
        for steps in floor.max(1)..fits {
            assert!(
                busiest(steps) > params.limit_per_second,
                "seed {seed}: fits at {} s, below {night} s",
                steps * 6
            );
        }
    }
}

#[test]
fn no_window_in_a_day_holds_a_million_jobs_under_ten_a_second() {
    let params = JitterParams {
        jobs: 1_000_000,
        limit_per_second: 10,
        ..Default::default()
    };
    let fit = fit_window(&params, 1);
    assert_eq!((fit.max_delay, fit.one_night_seconds), (None, None));
    assert_eq!(fit.floor_seconds, 100_000.0);
}

#[test]
fn the_share_of_nights_is_read_from_the_link() {
    assert_eq!(from_query("conf=99").confidence, Confidence::NinetyNine);
    let (state, notices) = State::from_query("p=jitter&conf=97");
    assert_eq!(state.jitter.confidence, Confidence::NinetyFive);
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].key, "conf");
    let (state, notices) = State::from_query("p=jitter&at=25:00");
    assert_eq!(state.jitter.start.to_string(), "00:00");
    assert!(
        notices[0].message.contains("not a time of day"),
        "{notices:?}"
    );
}

#[test]
fn the_answer_states_the_figures_of_the_current_parameters() {
    use stampede_core::panels::jitter::{share_of_nights, window_answer};
    use stampede_core::units::{count, duration};
    for query in [
        "n=8000&rps=40",
        "n=8000&rps=40&conf=50&hi=4.9",
        "n=5000&rps=50&hi=2&conf=99",
        "n=300&rps=2&js=exponential",
        "n=1000000&rps=10",
        "n=20&rps=100&js=none",
    ] {
        let params = from_query(query);
        let result = run(&params, 1).unwrap();
        let fit = result.window_fit;
        let answer = window_answer(&params, &result);
        let text = answer.sentences.join(" ");
        assert!(
            text.contains(&format!("{} jobs", count(params.jobs.into()))),
            "{text}"
        );
        assert!(text.contains(&duration(fit.floor_seconds)), "{text}");
        let share = format!("{} %", params.confidence.slug());
        assert!(text.contains(&format!("on {share} of nights")), "{text}");
        match fit.window_seconds {
            Some(window) => {
                assert!(text.contains(&duration(window)), "{query}: {text}");
                assert!(text.contains(&duration(window - 6.0)), "{query}: {text}");
                let button = answer.button.unwrap();
                assert_eq!(Some(button.max_delay), fit.max_delay);
            }
            None => assert!(text.starts_with("No uniform window"), "{text}"),
        }
        if let Some(night) = fit.one_night_seconds {
            assert!(
                text.contains(&format!("fit from {}", duration(night))),
                "{text}"
            );
        }
        if let Some(within) = result.nights_within_limit {
            assert!(text.contains(&share_of_nights(within)), "{text}");
        }
    }
    // Once used, the window is named as in use, and the button stays.
    let params = from_query("n=8000&rps=40&hi=6.2");
    let answer = window_answer(&params, &run(&params, 1).unwrap());
    let button = answer.button.unwrap();
    assert!(
        button.in_use && button.label == "In use: max 6.2 min",
        "{button:?}"
    );
}
