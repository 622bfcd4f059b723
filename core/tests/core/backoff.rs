//! The waits: each strategy's formula, the libraries' own numbers, the
//! draws behind them and the delay bands.

use stampede_core::backoff::{
    AWS_THROTTLING_SCALE, AWS_TRANSIENT_SCALE, Backoff, RetryStrategy, active_job_delay,
    aws_standard_delay, celery_countdown, celery_delay, client_rng, decorrelated, delay_bands,
    equal_jitter, exponential, full_jitter, sidekiq_delay,
};

pub(crate) fn backoff(strategy: RetryStrategy, base: f64, factor: f64, cap: f64) -> Backoff {
    Backoff::new(strategy, base, factor, cap).unwrap()
}

/// Base 1 s, factor 2, cap 60 s: waits 1, 2, 4, … 32, 60 s.
pub(crate) fn doubling(strategy: RetryStrategy) -> Backoff {
    backoff(strategy, 1.0, 2.0, 60.0)
}

/// The waits before retries 1 to `retries` of one client.
pub(crate) fn waits_of(backoff: Backoff, seed: u64, client: u32, retries: usize) -> Vec<f64> {
    backoff
        .waits(client_rng(seed, client))
        .take(retries)
        .collect()
}

// ---------------------------------------------------------------------------
// Exact waits for fixed inputs

#[test]
fn each_generic_strategy_waits_exactly_its_formula() {
    let constant = backoff(RetryStrategy::Constant, 1.5, 2.0, 60.0);
    assert_eq!([1, 5, 100].map(|n| constant.delay(n, 1.5, 0.7)), [1.5; 3]);

    let linear = backoff(RetryStrategy::Linear, 2.0, 2.0, 7.0);
    assert_eq!(
        [1, 2, 3, 4, 9].map(|n| linear.delay(n, 2.0, 0.7)),
        [2.0, 4.0, 6.0, 7.0, 7.0]
    );

    let waits: Vec<f64> = (1..=8)
        .map(|n| doubling(RetryStrategy::Exponential).delay(n, 1.0, 0.7))
        .collect();
    assert_eq!(waits, [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0]);
    assert_eq!(
        [1, 2, 3, 4].map(|n| exponential(0.5, 1.5, 60.0, n)),
        [0.5, 0.75, 1.125, 1.6875]
    );

    // Retry 4 of the doubling schedule has a ceiling of 8 s.
    let full = doubling(RetryStrategy::FullJitter);
    assert_eq!(
        [0.0, 0.25, 0.5].map(|u| full.delay(4, 1.0, u)),
        [0.0, 2.0, 4.0]
    );
    assert_eq!(full_jitter(8.0, 0.75), 6.0);
    let equal = doubling(RetryStrategy::EqualJitter);
    assert_eq!(
        [0.0, 0.25, 0.5].map(|u| equal.delay(4, 1.0, u)),
        [4.0, 5.0, 6.0]
    );
    assert_eq!(equal_jitter(8.0, 0.75), 7.0);

    // U(base, 3·previous): 1 + 0.5·(30 − 1); capped when 3·previous is past the cap.
    let decorrelated_backoff = doubling(RetryStrategy::Decorrelated);
    assert_eq!(decorrelated_backoff.delay(7, 10.0, 0.5), 15.5);
    assert_eq!(decorrelated_backoff.delay(7, 30.0, 0.9), 60.0);
    assert_eq!(decorrelated(1.0, 60.0, 1.0, 0.0), 1.0);
    assert_eq!(decorrelated(2.0, 60.0, 4.0, 0.25), 4.5);
}

#[test]
fn retries_count_from_one_and_zero_reads_as_one() {
    let exponential = doubling(RetryStrategy::Exponential);
    assert_eq!(
        exponential.delay(0, 1.0, 0.5),
        exponential.delay(1, 1.0, 0.5)
    );
    assert_eq!(doubling(RetryStrategy::Linear).delay(0, 1.0, 0.5), 1.0);
    // The presets' own counters: Sidekiq's retry_count and Celery's
    // retries start at 0 for retry 1, Active Job's executions and botocore's
    // attempt number at 1.
    assert_eq!(doubling(RetryStrategy::Sidekiq).delay(1, 1.0, 0.0), 15.0);
    assert_eq!(doubling(RetryStrategy::Celery).delay(1, 1.0, 0.9), 1.0);
    assert_eq!(doubling(RetryStrategy::ActiveJob).delay(1, 1.0, 0.0), 3.0);
    assert_eq!(doubling(RetryStrategy::Aws).delay(1, 1.0, 0.5), 0.025);
    assert_eq!(doubling(RetryStrategy::Sidekiq).delay(0, 1.0, 0.0), 15.0);
}

// ---------------------------------------------------------------------------
// The libraries' own numbers. Every row gives the wait for these six
// random inputs u, in order; a library's integer draw below k is fed as
// floor(u·k).

const U: [f64; 6] = [0.0, 0.1, 0.25, 0.5, 0.7390851332151607, 0.9999999999999999];

// Ruby 3.1.2 evaluating Sidekiq 8.1.7's formula, taken from that gem's
// lib/sidekiq/job_retry.rb (`(count**4) + 15` plus `rand(10 * (count + 1))`),
// with rand(n) replaced by (u * n).floor. Rows: count, then the six waits.
const SIDEKIQ: [(u32, [u64; 6]); 6] = [
    (0, [15, 16, 17, 20, 22, 24]),
    (1, [16, 18, 21, 26, 30, 35]),
    (2, [31, 34, 38, 46, 53, 60]),
    (4, [271, 276, 283, 296, 307, 320]),
    (9, [6576, 6586, 6601, 6626, 6649, 6675]),
    (24, [331791, 331816, 331853, 331916, 331975, 332040]),
];

// celery 5.7.0 from PyPI: celery.utils.time.get_exponential_backoff_interval(
// factor=int(max(1.0, True)), retries=r, maximum=600, full_jitter=True), as
// autoretry calls it by default, with random.randrange patched (unittest.mock)
// to `lambda n: int(u * n)`. Rows: retries, then the six waits.
const CELERY: [(u32, [u64; 6]); 6] = [
    (0, [0, 0, 0, 1, 1, 1]),
    (1, [0, 0, 0, 1, 2, 2]),
    (2, [0, 0, 1, 2, 3, 4]),
    (5, [0, 3, 8, 16, 24, 32]),
    (9, [0, 51, 128, 256, 379, 512]),
    (12, [0, 60, 150, 300, 444, 600]),
];

// The same function with full_jitter=False: (factor, retries, maximum, countdown).
const CELERY_COUNTDOWNS: [(u64, u32, u64, u64); 7] = [
    (1, 0, 600, 1),
    (1, 3, 600, 8),
    (1, 9, 600, 512),
    (1, 10, 600, 600),
    (3, 4, 600, 48),
    (5, 7, 100, 100),
    (1, 99, 600, 600),
];

// Ruby 3.1.2 evaluating Active Job's :polynomially_longer, taken from
// activejob/lib/active_job/exceptions.rb at Rails v8.1.3.1
// (`delay = executions**4`, `Kernel.rand * delay * jitter`,
// `delay + delay_jitter + 2`) with jitter 0.15 and Kernel.rand as u.
// Rows: executions, then the six waits.
const ACTIVE_JOB: [(u32, [f64; 6]); 6] = [
    (
        1,
        [
            3.0,
            3.0149999999999997,
            3.0375,
            3.075,
            3.1108627699822744,
            3.15,
        ],
    ),
    (2, [18.0, 18.24, 18.6, 19.2, 19.773804319716387, 20.4]),
    (
        3,
        [
            83.0,
            84.215,
            86.0375,
            89.075,
            91.9798843685642,
            95.14999999999999,
        ],
    ),
    (
        5,
        [627.0, 636.375, 650.4375, 673.875, 696.2892312389213, 720.75],
    ),
    (
        10,
        [
            10002.0,
            10152.0,
            10377.0,
            10752.0,
            11110.62769982274,
            11502.0,
        ],
    ),
    (
        25,
        [
            390627.0,
            396486.375,
            405275.4375,
            419923.875,
            433932.76952432585,
            449220.75,
        ],
    ),
];

// botocore 1.44.5 from PyPI (1.44.8 gives the same; see botocore_retries.tsv): botocore.retries.standard.ExponentialBackoff(
// random=lambda: u).delay_amount(context) for a context with attempt_number n
// and no HTTP response, so no retry-after header. Without a throttling
// detector it takes the transient scale, 0.05 s. Rows: attempt, then the six waits.
const AWS_TRANSIENT: [(u32, [f64; 6]); 9] = [
    (
        1,
        [
            0.0,
            0.005000000000000001,
            0.0125,
            0.025,
            0.036954256660758036,
            0.049999999999999996,
        ],
    ),
    (
        2,
        [
            0.0,
            0.010000000000000002,
            0.025,
            0.05,
            0.07390851332151607,
            0.09999999999999999,
        ],
    ),
    (
        3,
        [
            0.0,
            0.020000000000000004,
            0.05,
            0.1,
            0.14781702664303215,
            0.19999999999999998,
        ],
    ),
    (
        5,
        [
            0.0,
            0.08000000000000002,
            0.2,
            0.4,
            0.5912681065721286,
            0.7999999999999999,
        ],
    ),
    (
        8,
        [
            0.0,
            0.6400000000000001,
            1.6,
            3.2,
            4.730144852577029,
            6.3999999999999995,
        ],
    ),
    (
        9,
        [
            0.0,
            1.2800000000000002,
            3.2,
            6.4,
            9.460289705154057,
            12.799999999999999,
        ],
    ),
    (
        10,
        [0.0, 2.0, 5.0, 10.0, 14.781702664303214, 19.999999999999996],
    ),
    (
        12,
        [0.0, 2.0, 5.0, 10.0, 14.781702664303214, 19.999999999999996],
    ),
    (
        40,
        [0.0, 2.0, 5.0, 10.0, 14.781702664303214, 19.999999999999996],
    ),
];

// The same call with a throttling detector that always answers yes: scale 1 s.
const AWS_THROTTLING: [(u32, [f64; 6]); 6] = [
    (
        1,
        [0.0, 0.1, 0.25, 0.5, 0.7390851332151607, 0.9999999999999999],
    ),
    (
        2,
        [0.0, 0.2, 0.5, 1.0, 1.4781702664303213, 1.9999999999999998],
    ),
    (
        3,
        [0.0, 0.4, 1.0, 2.0, 2.9563405328606427, 3.9999999999999996],
    ),
    (
        5,
        [0.0, 1.6, 4.0, 8.0, 11.82536213144257, 15.999999999999998],
    ),
    (
        8,
        [0.0, 2.0, 5.0, 10.0, 14.781702664303214, 19.999999999999996],
    ),
    (
        40,
        [0.0, 2.0, 5.0, 10.0, 14.781702664303214, 19.999999999999996],
    ),
];

#[test]
fn sidekiq_matches_its_formula_evaluated_in_ruby() {
    for (count, waits) in SIDEKIQ {
        assert_eq!(U.map(|u| sidekiq_delay(count, u)), waits, "count {count}");
    }
}

#[test]
fn celery_matches_the_library() {
    for (retries, waits) in CELERY {
        assert_eq!(
            U.map(|u| celery_delay(retries, u)),
            waits,
            "retries {retries}"
        );
    }
    for (factor, retries, maximum, countdown) in CELERY_COUNTDOWNS {
        assert_eq!(celery_countdown(factor, retries, maximum), countdown);
    }
}

#[test]
fn active_job_matches_its_formula_evaluated_in_ruby_to_the_bit() {
    for (executions, waits) in ACTIVE_JOB {
        assert_eq!(
            U.map(|u| active_job_delay(executions, u)),
            waits,
            "executions {executions}"
        );
    }
}

#[test]
fn aws_standard_mode_matches_botocore_to_the_bit() {
    for (attempt, waits) in AWS_TRANSIENT {
        let computed = U.map(|u| aws_standard_delay(attempt, AWS_TRANSIENT_SCALE, u));
        assert_eq!(computed, waits, "attempt {attempt}");
    }
    for (attempt, waits) in AWS_THROTTLING {
        let computed = U.map(|u| aws_standard_delay(attempt, AWS_THROTTLING_SCALE, u));
        assert_eq!(computed, waits, "attempt {attempt}");
    }
}

#[test]
fn the_presets_feed_the_library_formulas_their_own_counters() {
    for n in 1..=12 {
        for u in U {
            let at = |strategy| doubling(strategy).delay(n, 1.0, u);
            assert_eq!(at(RetryStrategy::Sidekiq), sidekiq_delay(n - 1, u) as f64);
            assert_eq!(at(RetryStrategy::Celery), celery_delay(n - 1, u) as f64);
            assert_eq!(at(RetryStrategy::ActiveJob), active_job_delay(n, u));
            assert_eq!(
                at(RetryStrategy::Aws),
                aws_standard_delay(n, AWS_TRANSIENT_SCALE, u)
            );
        }
    }
}

#[test]
fn huge_counters_saturate_instead_of_overflowing() {
    assert_eq!(sidekiq_delay(u32::MAX, 0.5), u64::MAX);
    assert_eq!(celery_countdown(u64::MAX, 70, 600), 600);
    assert!(active_job_delay(u32::MAX, 0.5).is_finite());
    assert_eq!(aws_standard_delay(u32::MAX, 1.0, 0.5), 10.0);
    assert_eq!(exponential(1.0, 100.0, 60.0, u32::MAX), 60.0);
}

// ---------------------------------------------------------------------------
// Sampling

#[test]
fn waits_feed_one_draw_per_retry_and_the_previous_wait_to_the_formula() {
    use rand::RngExt;
    let backoff = doubling(RetryStrategy::Decorrelated);
    let mut rng = client_rng(9, 3);
    let mut previous = 1.0;
    let by_hand: Vec<f64> = (1..=20)
        .map(|n| {
            previous = backoff.delay(n, previous, rng.random::<f64>());
            previous
        })
        .collect();
    assert_eq!(waits_of(backoff, 9, 3, 20), by_hand);
}

#[test]
fn a_seed_and_client_pin_the_waits() {
    // Pinned from this implementation: a change here changes what every
    // shared URL shows.
    let waits = waits_of(doubling(RetryStrategy::Decorrelated), 1, 0, 3);
    assert_eq!(
        waits,
        [1.0064087354643676, 2.9641263205464723, 4.084449049597761]
    );
    assert_ne!(
        waits,
        waits_of(doubling(RetryStrategy::Decorrelated), 2, 0, 3)
    );
    assert_ne!(
        waits,
        waits_of(doubling(RetryStrategy::Decorrelated), 1, 1, 3)
    );
}

/// The mean wait before `retry` over 10,000 clients lies within four
/// standard errors (sd / 100) of `mean`.
fn assert_mean_wait(backoff: Backoff, retry: usize, mean: f64, sd: f64) {
    let clients = 10_000;
    let total: f64 = (0..clients)
        .map(|client| waits_of(backoff, 5, client, retry)[retry - 1])
        .sum();
    let sample_mean = total / f64::from(clients);
    let tolerance = 4.0 * sd / f64::from(clients).sqrt();
    assert!(
        (sample_mean - mean).abs() < tolerance,
        "{:?}: mean {sample_mean}, expected {mean} ± {tolerance}",
        backoff
    );
}

#[test]
fn jittered_waits_have_the_mean_of_their_uniform() {
    let sd_of_uniform = |width: f64| width / 12f64.sqrt();
    // Retry 4: U(0, 8) and U(4, 8).
    assert_mean_wait(
        doubling(RetryStrategy::FullJitter),
        4,
        4.0,
        sd_of_uniform(8.0),
    );
    assert_mean_wait(
        doubling(RetryStrategy::EqualJitter),
        4,
        6.0,
        sd_of_uniform(4.0),
    );
    // Retry 1: U(1, 3).
    assert_mean_wait(
        doubling(RetryStrategy::Decorrelated),
        1,
        2.0,
        sd_of_uniform(2.0),
    );
    // Retry 2 of Active Job: 16 + U·2.4 + 2.
    assert_mean_wait(
        doubling(RetryStrategy::ActiveJob),
        2,
        19.2,
        sd_of_uniform(2.4),
    );
    // Retry 3 of botocore: U(0, 0.2).
    assert_mean_wait(doubling(RetryStrategy::Aws), 3, 0.1, sd_of_uniform(0.2));
    // Whole numbers uniform on 0..k − 1 have sd √((k² − 1) / 12).
    let sd_of_whole = |k: f64| ((k * k - 1.0) / 12.0).sqrt();
    // Retry 1 of Sidekiq: 15 + {0, …, 9}.
    assert_mean_wait(doubling(RetryStrategy::Sidekiq), 1, 19.5, sd_of_whole(10.0));
    // Retry 3 of Celery: {0, …, 4}.
    assert_mean_wait(doubling(RetryStrategy::Celery), 3, 2.0, sd_of_whole(5.0));
}

#[test]
fn decorrelated_waits_stay_between_the_base_and_three_times_the_last_or_the_cap() {
    let backoff = backoff(RetryStrategy::Decorrelated, 0.5, 2.0, 20.0);
    for client in 0..200 {
        let waits = waits_of(backoff, 3, client, 40);
        let mut previous: f64 = 0.5;
        for wait in waits {
            assert!(
                wait >= 0.5 && wait <= (3.0 * previous).min(20.0),
                "{wait} after {previous}"
            );
            previous = wait;
        }
    }
}

// ---------------------------------------------------------------------------
// Delay bands

#[test]
fn without_jitter_each_band_is_the_exact_wait() {
    let bands = delay_bands(&doubling(RetryStrategy::Exponential), 8, 1_000, 1).unwrap();
    let expected = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0];
    for (band, wait) in bands.iter().zip(expected) {
        assert_eq!([band.min, band.median, band.p90, band.max], [wait; 4]);
    }
    assert_eq!(
        bands.iter().map(|b| b.retry).collect::<Vec<_>>(),
        (1..=8).collect::<Vec<_>>()
    );
}

#[test]
fn full_jitter_bands_spread_over_zero_to_the_exponential_wait() {
    let bands = delay_bands(&doubling(RetryStrategy::FullJitter), 8, 10_000, 2).unwrap();
    let band = bands[3];
    // 10,000 draws of U(0, 8): the smallest is below 0.01 and the largest
    // above 7.99 but for a chance of e^−12.5. The median's sd is
    // 8 / (2·√10,000) = 0.04 and the 90th percentile's 8·√(0.09 / 10,000) =
    // 0.024; the tolerances are four of each.
    assert!(band.min >= 0.0 && band.min < 0.01, "{band:?}");
    assert!(band.max < 8.0 && band.max > 7.99, "{band:?}");
    assert!((band.median - 4.0).abs() < 0.16, "{band:?}");
    assert!((band.p90 - 7.2).abs() < 0.1, "{band:?}");
    // Every band tops out below its ceiling of min(60, 2^(n−1)).
    for band in &bands {
        assert!(band.max < 2f64.powi(band.retry as i32 - 1).min(60.0));
    }
}

#[test]
fn sidekiq_bands_cover_its_whole_jitter_range() {
    let bands = delay_bands(&doubling(RetryStrategy::Sidekiq), 3, 10_000, 3).unwrap();
    // count⁴ + 15 plus 0 to 10·(count + 1) − 1: every value is drawn about
    // 1,000 (or 500, 333) times, so both ends show up.
    let ranges = [(15.0, 24.0), (16.0, 35.0), (31.0, 60.0)];
    for (band, (low, high)) in bands.iter().zip(ranges) {
        assert_eq!((band.min, band.max), (low, high));
    }
}

#[test]
fn bands_read_the_fleet_clients_own_waits() {
    let backoff = doubling(RetryStrategy::Decorrelated);
    let bands = delay_bands(&backoff, 10, 1, 4).unwrap();
    let medians: Vec<f64> = bands.iter().map(|band| band.median).collect();
    assert_eq!(medians, waits_of(backoff, 4, 0, 10));
}
