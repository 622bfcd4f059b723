use proptest::prelude::*;
use stampede_core::backoff::{
    AWS_QUOTA_CAPACITY, AWS_RETRY_COST, AWS_THROTTLING_SCALE, AWS_TRANSIENT_SCALE,
    BREAKER_MIN_CALLS, BREAKER_OPEN_SECONDS, Backoff, BackoffCache, BackoffParams, BackoffRun,
    Burst, Dependency, DependencyModel, Fleet, RetryStrategy, active_job_delay, aws_standard_delay,
    celery_countdown, celery_delay, client_rng, decorrelated, delay_bands, equal_jitter,
    exponential, full_jitter, run, sidekiq_delay, simulate_fleet, simulate_fleets,
    simulate_fleets_against,
};
use stampede_core::error::InvalidInput;
use stampede_core::field::{ChoiceSet, PanelParams};
use stampede_core::panels::Panel;
use stampede_core::panels::backoff::{PRESETS, key_numbers};
use stampede_core::panels::state::State;
use stampede_core::stats::histogram;

fn backoff(strategy: RetryStrategy, base: f64, factor: f64, cap: f64) -> Backoff {
    Backoff::new(strategy, base, factor, cap).unwrap()
}

/// Base 1 s, factor 2, cap 60 s: waits 1, 2, 4, … 32, 60 s.
fn doubling(strategy: RetryStrategy) -> Backoff {
    backoff(strategy, 1.0, 2.0, 60.0)
}

/// The waits before retries 1 to `retries` of one client.
fn waits_of(backoff: Backoff, seed: u64, client: u32, retries: usize) -> Vec<f64> {
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

// botocore 1.44.5 from PyPI: botocore.retries.standard.ExponentialBackoff(
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

// ---------------------------------------------------------------------------
// The fleet after an outage

#[test]
fn without_jitter_the_whole_fleet_retries_in_spikes() {
    let fleet = simulate_fleet(&doubling(RetryStrategy::Exponential), 1_000, 60.0, 8, 1).unwrap();
    // Calls at 0, then after waits of 1, 2, 4, 8, 16, 32: at 1, 3, 7, 15, 31
    // and 63 s, the first call after the 60 s outage.
    let spikes = [0, 1, 3, 7, 15, 31, 63];
    assert_eq!(fleet.timeline.bin_seconds, 1.0);
    assert_eq!(fleet.timeline.calls.len(), 64);
    for (second, &calls) in fleet.timeline.calls.iter().enumerate() {
        let expected = if spikes.contains(&second) { 1_000 } else { 0 };
        assert_eq!(calls, expected, "second {second}");
    }
    assert_eq!(
        fleet.peak_after_outage,
        Burst {
            per_second: 1_000.0,
            at: 63.0
        }
    );
    assert_eq!(fleet.calls, 7_000);
    assert_eq!(fleet.gave_up, 0);
    assert_eq!(
        (fleet.last_success, fleet.success_99),
        (Some(63.0), Some(63.0))
    );
    assert_eq!((fleet.completion_p50, fleet.completion_p99), (63.0, 63.0));
}

#[test]
fn full_jitter_flattens_the_spike_that_meets_the_recovered_dependency() {
    let clients = 10_000;
    let plain =
        simulate_fleet(&doubling(RetryStrategy::Exponential), clients, 60.0, 12, 1).unwrap();
    let full = simulate_fleet(&doubling(RetryStrategy::FullJitter), clients, 60.0, 12, 1).unwrap();
    let decorrelated =
        simulate_fleet(&doubling(RetryStrategy::Decorrelated), clients, 60.0, 12, 1).unwrap();
    assert_eq!(plain.peak_after_outage.per_second, f64::from(clients));
    // Jittered clients cross 60 s spread over tens of seconds, so no second
    // gets more than a few percent of them.
    for jittered in [&full, &decorrelated] {
        assert!(
            jittered.peak_after_outage.per_second < f64::from(clients) / 10.0,
            "{:?}",
            jittered.peak_after_outage
        );
    }
    // The price: full jitter waits less on average, so it makes more calls.
    assert!(full.calls > plain.calls);
}

fn assert_consistent(fleet: &Fleet, clients: u32, outage: f64) {
    let timeline_calls: u64 = fleet.timeline.calls.iter().map(|&c| u64::from(c)).sum();
    assert_eq!(timeline_calls + fleet.rejected, fleet.calls);
    assert!(fleet.calls >= u64::from(clients));
    assert_eq!(fleet.succeeded + fleet.gave_up, clients);
    // Every call fails or is a client's one success.
    assert_eq!(fleet.wasted() + u64::from(fleet.succeeded), fleet.calls);
    assert!(fleet.healthy_at >= outage);
    if let (Some(p50), Some(p99)) = (fleet.success_p50, fleet.success_p99) {
        assert!(outage <= p50 && p50 <= p99 && Some(p99) <= fleet.last_success);
    }
    if let Some(last) = fleet.last_success {
        assert!(last >= outage, "{last} < {outage}");
    }
    if let Some(most) = fleet.success_99 {
        assert!(most >= outage && Some(most) <= fleet.last_success);
    }
    assert!(fleet.completion_p50 <= fleet.completion_p99);
    assert_eq!(fleet.last_success.is_none(), fleet.gave_up == clients);
}

#[test]
fn no_strategy_recovers_before_the_outage_ends() {
    for &strategy in RetryStrategy::ALL {
        let fleet = simulate_fleet(&doubling(strategy), 500, 45.0, 60, 2).unwrap();
        assert_consistent(&fleet, 500, 45.0);
        // The retry quota pays for 35 retries in all, too few to outlast
        // 45 s.
        let recovers = strategy != RetryStrategy::AwsQuota;
        assert_eq!(fleet.last_success.is_some(), recovers, "{strategy:?}");
    }
}

#[test]
fn clients_give_up_when_their_retries_run_out_first() {
    // Calls at 0, 1, 3, 7: all before the outage ends.
    let fleet = simulate_fleet(&doubling(RetryStrategy::Exponential), 300, 60.0, 3, 1).unwrap();
    assert_eq!(fleet.gave_up, 300);
    assert_eq!(fleet.calls, 4 * 300);
    assert_eq!((fleet.last_success, fleet.success_99), (None, None));
    assert_eq!(fleet.completion_p99, 7.0);
    assert_eq!(fleet.peak_after_outage.per_second, 0.0);

    // With full jitter some clients draw long enough waits and some do not;
    // once more than 1 % give up, 99 % never succeed.
    let fleet = simulate_fleet(&doubling(RetryStrategy::FullJitter), 2_000, 60.0, 7, 1).unwrap();
    assert!(
        fleet.gave_up > 20 && fleet.gave_up < 2_000,
        "{}",
        fleet.gave_up
    );
    assert_eq!(fleet.success_99, None);
    assert!(fleet.last_success.is_some());
    assert_consistent(&fleet, 2_000, 60.0);
}

#[test]
fn with_no_outage_every_first_call_succeeds() {
    let fleet = simulate_fleet(&doubling(RetryStrategy::FullJitter), 50, 0.0, 5, 1).unwrap();
    assert_eq!(fleet.calls, 50);
    assert_eq!((fleet.last_success, fleet.gave_up), (Some(0.0), 0));
    assert_eq!(fleet.timeline.calls, [50]);
}

#[test]
fn a_client_retries_the_same_however_large_the_fleet() {
    let backoff = doubling(RetryStrategy::Decorrelated);
    let small = simulate_fleet(&backoff, 1_000, 60.0, 10, 8).unwrap();
    let large = simulate_fleet(&backoff, 3_000, 60.0, 10, 8).unwrap();
    // The first 1,000 clients of the large fleet are the small fleet, so it
    // has at least as many calls in every second.
    assert_eq!(small.timeline.bin_seconds, large.timeline.bin_seconds);
    for (second, &calls) in small.timeline.calls.iter().enumerate() {
        assert!(large.timeline.calls[second] >= calls, "second {second}");
    }
    assert!(large.calls > small.calls);
    assert_eq!(simulate_fleet(&backoff, 1_000, 60.0, 10, 8).unwrap(), small);
}

/// Every call time of one client, replayed from its waits: the first call
/// at 0, then one after each wait until a call lands at or after `outage`
/// or the retries run out.
fn call_times_of(
    backoff: Backoff,
    outage: f64,
    retries: usize,
    seed: u64,
    client: u32,
) -> Vec<f64> {
    let mut times = vec![0.0];
    for wait in waits_of(backoff, seed, client, retries) {
        let now = *times.last().unwrap();
        if now >= outage {
            break;
        }
        times.push(now + wait);
    }
    times
}

/// The timeline a fleet should have: every client's replayed calls in its
/// bins, counted by the reference histogram.
fn replayed_timeline(
    backoff: Backoff,
    clients: u32,
    outage: f64,
    retries: usize,
    seed: u64,
    fleet: &Fleet,
) -> Vec<u32> {
    let times =
        (0..clients).flat_map(|client| call_times_of(backoff, outage, retries, seed, client));
    histogram(
        times,
        0.0,
        fleet.timeline.bin_seconds,
        fleet.timeline.calls.len(),
    )
}

#[test]
fn timelines_count_exactly_the_replayed_calls() {
    // Bins of 1 s, of 2 s to 50 s summed from 1 s ones, and of 1,000 s
    // summed from 100 s ones; with and without jitter.
    let cases = [
        (doubling(RetryStrategy::FullJitter), 3_000, 60.0, 8),
        (doubling(RetryStrategy::Decorrelated), 3_000, 600.0, 20),
        (doubling(RetryStrategy::Exponential), 3_000, 5_000.0, 100),
        (
            backoff(RetryStrategy::EqualJitter, 0.5, 3.0, 3_000.0),
            2_000,
            30_000.0,
            30,
        ),
        (doubling(RetryStrategy::Sidekiq), 500, 1e6, 25),
    ];
    let mut widths = Vec::new();
    for (backoff, clients, outage, retries) in cases {
        let fleet = simulate_fleet(&backoff, clients, outage, retries as u32, 3).unwrap();
        let expected = replayed_timeline(backoff, clients, outage, retries, 3, &fleet);
        assert_eq!(fleet.timeline.calls, expected, "{backoff:?}");
        widths.push(fleet.timeline.bin_seconds);
    }
    assert_eq!(widths, [1.0, 1.0, 5.0, 20.0, 1_000.0]);
}

#[test]
fn a_fleet_far_longer_than_its_first_client_still_bins_exactly() {
    // Waits up to 1 ks, 20 ks and 400 ks, and an outage none outlasts: the
    // fleet's horizon is up to 421 ks. A seed whose first client stops
    // before 10 ks counts the others in 1 s bins until a call passes
    // 200,000 s, so the fleet's calls are drawn again to be binned.
    let backoff = backoff(RetryStrategy::FullJitter, 1_000.0, 20.0, 1e6);
    let (outage, retries, clients) = (1e7, 3, 300);
    let seed = (0..1_000)
        .find(|&seed| {
            call_times_of(backoff, outage, retries, seed, 0)
                .last()
                .unwrap()
                < &10_000.0
        })
        .expect("a seed whose first client stops early");
    let fleet = simulate_fleet(&backoff, clients, outage, retries as u32, seed).unwrap();
    assert!(fleet.timeline.bin_seconds * fleet.timeline.calls.len() as f64 > 200_000.0);
    let expected = replayed_timeline(backoff, clients, outage, retries, seed, &fleet);
    assert_eq!(fleet.timeline.calls, expected);
    assert_consistent(&fleet, clients, outage);
}

#[test]
fn long_runs_get_wider_timeline_bins() {
    // Sidekiq's 25 retries span about three weeks; an outage of 11.6 days
    // ends at its 22nd retry or so.
    let fleet = simulate_fleet(&doubling(RetryStrategy::Sidekiq), 200, 1e6, 25, 1).unwrap();
    assert!(fleet.timeline.calls.len() <= 2_000);
    assert_eq!(fleet.timeline.bin_seconds, 1_000.0);
    assert!(fleet.last_success.is_some());
    assert_consistent(&fleet, 200, 1e6);
}

// ---------------------------------------------------------------------------
// Parameters and bad input

#[test]
fn the_panel_defaults_run_and_settle() {
    let params = BackoffParams {
        dependency: DependencyModel::Unlimited,
        ..Default::default()
    };
    let result = run(&params, 1).unwrap();
    for strategy in &result.fleets {
        assert_eq!(strategy.bands.len(), 8);
    }
    let strategies: Vec<RetryStrategy> = result.fleets.iter().map(|f| f.strategy).collect();
    assert_eq!(
        strategies,
        [
            RetryStrategy::Exponential,
            RetryStrategy::FullJitter,
            RetryStrategy::Decorrelated
        ]
    );
    assert_eq!(result.fleets[0].fleet.calls, 7 * 10_000);
    let mut crossed = BackoffParams {
        base: 30.0,
        cap: 5.0,
        ..params.clone()
    };
    assert_eq!(crossed.settle()[0].key, "c");
    assert_eq!(crossed.cap, 30.0);
    // A million clients with 100 retries would make 101 million calls for
    // each of the three strategies.
    let mut huge = BackoffParams {
        clients: 1_000_000,
        retries: 100,
        ..params.clone()
    };
    let notices = huge.settle();
    assert_eq!(notices[0].key, "m");
    assert!(notices[0].message.contains("3 strategies"), "{notices:?}");
    assert_eq!(huge.clients, 33_003);
    assert!(huge.settle().is_empty());
    assert!(run(&huge, 1).is_ok());
    // Alone, a strategy gets the whole budget.
    let mut alone = BackoffParams {
        clients: 1_000_000,
        retries: 100,
        compared: ChoiceSet::new([]),
        ..params
    };
    alone.settle();
    assert_eq!(alone.clients, 99_009);
    // Under capacity the jittered fleets are simulated as at most 10,000
    // clients, so a million fit.
    let mut capacity = BackoffParams {
        clients: 1_000_000,
        retries: 100,
        ..BackoffParams::default()
    };
    assert!(capacity.settle().is_empty());
    assert_eq!(capacity.independent_strategies(), 0);
}

fn field<T>(result: Result<T, InvalidInput>) -> &'static str {
    result.map(|_| ()).unwrap_err().field
}

#[test]
fn bad_input_names_its_field() {
    let new = |base, factor, cap| Backoff::new(RetryStrategy::FullJitter, base, factor, cap);
    assert_eq!(field(new(f64::NAN, 2.0, 60.0)), "base");
    assert_eq!(field(new(-1.0, 2.0, 60.0)), "base");
    assert_eq!(field(new(0.0, 2.0, 60.0)), "base");
    assert_eq!(field(new(1e9, 2.0, 1e9)), "base");
    assert_eq!(field(new(1.0, 0.5, 60.0)), "factor");
    assert_eq!(field(new(1.0, f64::INFINITY, 60.0)), "factor");
    assert_eq!(field(new(1.0, 2.0, f64::NAN)), "cap");
    assert_eq!(field(new(10.0, 2.0, 5.0)), "cap");

    let good = doubling(RetryStrategy::FullJitter);
    assert_eq!(field(simulate_fleet(&good, 0, 60.0, 5, 1)), "clients");
    assert_eq!(
        field(simulate_fleet(&good, 1_000_001, 60.0, 5, 1)),
        "clients"
    );
    assert_eq!(field(simulate_fleet(&good, 10, f64::NAN, 5, 1)), "outage");
    assert_eq!(field(simulate_fleet(&good, 10, -1.0, 5, 1)), "outage");
    assert_eq!(field(simulate_fleet(&good, 10, 1e12, 5, 1)), "outage");
    assert_eq!(field(simulate_fleet(&good, 10, 60.0, 101, 1)), "retries");
    assert_eq!(
        field(simulate_fleet(&good, 200_000, 60.0, 50, 1)),
        "clients × (retries + 1) × strategies"
    );
    // 100,000 clients making 51 calls fit once, not twice.
    assert!(simulate_fleets(&[good], 100_000, 60.0, 50, 1).is_ok());
    assert_eq!(
        field(simulate_fleets(&[good, good], 100_000, 60.0, 50, 1)),
        "clients × (retries + 1) × strategies"
    );
    assert_eq!(field(simulate_fleets(&[], 10, 60.0, 5, 1)), "strategies");
    assert_eq!(field(delay_bands(&good, 101, 10, 1)), "retries");
    assert_eq!(field(delay_bands(&good, 5, 0, 1)), "draws");
    assert_eq!(field(delay_bands(&good, 5, 100_001, 1)), "draws");
}

fn any_number() -> impl proptest::strategy::Strategy<Value = f64> {
    prop_oneof![
        any::<f64>(),
        -1.0..100.0f64,
        0.001..4_000.0f64,
        Just(0.0),
        Just(f64::NAN),
        Just(f64::INFINITY),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_parameters_never_panic(
        strategy in prop::sample::select(RetryStrategy::ALL),
        base in any_number(),
        factor in any_number(),
        cap in any_number(),
        outage in any_number(),
        clients in prop_oneof![0..300u32, Just(1_000_001)],
        retries in 0..110u32,
        seed in any::<u64>(),
    ) {
        let Ok(backoff) = Backoff::new(strategy, base, factor, cap) else { return Ok(()) };
        if let Ok(fleet) = simulate_fleet(&backoff, clients, outage, retries, seed) {
            assert_consistent(&fleet, clients, outage);
        }
        if let Ok(bands) = delay_bands(&backoff, retries, 50, seed) {
            prop_assert_eq!(bands.len(), retries as usize);
            for band in bands {
                prop_assert!(band.min <= band.median && band.median <= band.p90 && band.p90 <= band.max);
                prop_assert!(band.min >= 0.0 && band.max.is_finite());
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Comparing strategies

/// The state a Backoff URL with `query` decodes to, and the notices'
/// messages by key.
fn decoded(query: &str) -> (BackoffParams, Vec<String>) {
    let (state, notices) = State::from_query(&format!("p=backoff&{query}"));
    let messages = notices.iter().map(ToString::to_string).collect();
    (state.backoff, messages)
}

fn compared(params: &BackoffParams) -> &[RetryStrategy] {
    params.compared.as_slice()
}

#[test]
fn the_compared_strategies_are_read_as_a_list_of_slugs() {
    let (params, notices) = decoded("vs=%20equal%20,,sidekiq,");
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(
        compared(&params),
        [RetryStrategy::EqualJitter, RetryStrategy::Sidekiq]
    );
    let (params, notices) = decoded("vs=");
    assert!(notices.is_empty() && compared(&params).is_empty());
    // The default compares two jittered strategies and writes them out.
    let default = State::new(Panel::Backoff).to_query();
    assert!(default.contains("&vs=full,decorrelated&"), "{default}");
}

#[test]
fn an_unknown_slug_or_too_many_refuse_the_whole_list() {
    let (params, notices) = decoded("vs=full,jittery");
    assert_eq!(
        compared(&params),
        [RetryStrategy::FullJitter, RetryStrategy::Decorrelated]
    );
    assert_eq!(notices.len(), 1);
    assert!(
        notices[0].starts_with("Compare with (vs): \"jittery\" is not one of constant, linear,"),
        "{notices:?}"
    );
    let (params, notices) = decoded("vs=linear,equal,sidekiq,aws");
    assert_eq!(
        compared(&params),
        [RetryStrategy::FullJitter, RetryStrategy::Decorrelated]
    );
    assert_eq!(
        notices,
        ["Compare with (vs): lists 4 options, and at most 3 fit; using full,decorrelated"]
    );
}

#[test]
fn a_repeated_slug_is_kept_once_with_a_notice() {
    let (params, notices) = decoded("vs=aws,celery,aws,aws");
    assert_eq!(
        compared(&params),
        [RetryStrategy::Aws, RetryStrategy::Celery]
    );
    assert_eq!(
        notices,
        ["Compare with (vs): lists aws more than once; using aws,celery"]
    );
    // Repeats do not count towards the three.
    let (params, notices) = decoded("vs=full,full,equal,linear");
    assert_eq!(compared(&params).len(), 3);
    assert_eq!(notices.len(), 1);
}

#[test]
fn the_main_strategy_in_the_list_is_drawn_once_as_the_main_one() {
    let (params, notices) = decoded("st=full&vs=equal,full");
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(
        params.strategies(),
        [RetryStrategy::FullJitter, RetryStrategy::EqualJitter]
    );
    let result = run(&params, 1).unwrap();
    let labels: Vec<&str> = result.fleets.iter().map(|f| f.label).collect();
    assert_eq!(labels, ["Full jitter", "Equal jitter"]);
    // It still takes one of the three places in the list.
    let (params, _) = decoded("st=full&vs=full,equal,linear");
    assert_eq!(params.strategies().len(), 3);
    // And the call budget counts the strategies drawn, not the ones listed.
    let (params, notices) = decoded("st=full&vs=full&m=1000000&k=100&dep=unlimited");
    assert_eq!((params.clients, notices.len()), (99_009, 1));
}

#[test]
fn compared_fleets_share_seed_and_bins() {
    // Sidekiq's fleet succeeds at its 7th retry, after about 2,500 s, which
    // takes 2 s bins; the exponential one gives up at 423 s and alone would
    // get 1 s bins. Together both get the wider bins, and each is the fleet
    // it would be alone, binned alike.
    let (params, _) = decoded("st=exponential&vs=sidekiq&d=1500&k=12&m=2000&dep=unlimited");
    let result = run(&params, 3).unwrap();
    let [plain, sidekiq] = &result.fleets[..] else {
        panic!("{} fleets", result.fleets.len());
    };
    let alone = |strategy| simulate_fleet(&doubling(strategy), 2_000, 1500.0, 12, 3).unwrap();
    let (plain_alone, sidekiq_alone) = (
        alone(RetryStrategy::Exponential),
        alone(RetryStrategy::Sidekiq),
    );
    assert_eq!(plain_alone.timeline.bin_seconds, 1.0);
    assert_eq!(sidekiq_alone.timeline.bin_seconds, 2.0);
    for strategy in [plain, sidekiq] {
        assert_eq!(strategy.fleet.timeline.bin_seconds, 2.0);
        assert_eq!(
            strategy.fleet.timeline.calls.len(),
            sidekiq_alone.timeline.calls.len()
        );
    }
    assert_eq!(sidekiq.fleet, sidekiq_alone);
    assert_eq!(plain.fleet.calls, plain_alone.calls);
    assert_eq!(plain.fleet.last_success, plain_alone.last_success);
    // Calls at 0, 1, 3, 7, 15, 31, 63 s and every 60 s after, the last at
    // 423 s: 2 s bins pair 0 with 1, and 422 s begins bin 211.
    assert_eq!(plain.fleet.timeline.calls[0], 4_000);
    assert_eq!(plain.fleet.timeline.calls[211], 2_000);
    assert_eq!(plain.fleet.gave_up, 2_000);
}

// ---------------------------------------------------------------------------
// Key numbers

/// A key number as (key, value, theory).
type Shown = (&'static str, String, Option<String>);

/// The run for `query` and `seed`, and its key numbers.
fn numbers(query: &str, seed: u64) -> (BackoffRun, Vec<Shown>) {
    let (params, _) = decoded(query);
    let result = run(&params, seed).unwrap();
    let numbers = key_numbers(&params, &result)
        .into_iter()
        .map(|number| (number.key, number.value, number.theory))
        .collect();
    (result, numbers)
}

#[test]
fn without_jitter_the_key_numbers_are_exact() {
    // Every client calls at 0, 1, 3, 7, 15, 31 and 63 s; the dependency is
    // back at 60 s and serves every call.
    let query = "dep=unlimited&vs=";
    let (_, numbers) = numbers(query, 1);
    let waits = "1 s, 2 s, 4 s, 8 s, 16 s, 32 s, 1 min, 1 min";
    let expected = [
        ("waits", waits.into(), Some(format!("e(n): {waits}"))),
        (
            "peak",
            "10,000 /s at 1 min 3 s".into(),
            Some("all M in one bin: 10,000 /s".into()),
        ),
        ("load", "no capacity limit".into(), None),
        ("healthy", "1 min".into(), None),
        ("calls", "70,000".into(), None),
        (
            "wasted",
            "60,000: 60,000 in the outage, 0 over capacity".into(),
            None,
        ),
        (
            "succeeded",
            "100 % succeeded (10,000 of 10,000)".into(),
            None,
        ),
        ("recovered", "1 min 3 s".into(), None),
        ("recovered-99", "1 min 3 s".into(), None),
        (
            "success-time",
            "1 min 3 s / 1 min 3 s over the 10,000 that succeeded".into(),
            None,
        ),
        ("completion", "1 min 3 s / 1 min 3 s".into(), None),
        ("gave-up", "0".into(), None),
        (
            "verdict",
            "Exponential, no jitter is the only strategy drawn: healthy again at D = 1 min, \
             as it serves every call."
                .into(),
            None,
        ),
    ];
    assert_eq!(numbers, expected);
    // The other seeds draw the same, since nothing is random.
    assert_eq!(self::numbers(query, 99).1, expected);
}

#[test]
fn full_jitter_waits_half_the_exponential_wait_in_the_median() {
    let (result, numbers) = numbers("st=full&k=12", 5);
    let theory = "e(n)/2: 0.5 s, 1 s, 2 s, 4 s, 8 s, 16 s, 30 s, 30 s, 30 s, 30 s, …";
    assert_eq!(numbers[0].2.as_deref(), Some(theory));
    // The median of 10,000 draws of U(0, e) has sd e / 200 (see the bands'
    // test); four of them bound it.
    for band in &result.fleets[0].bands {
        let half = exponential(1.0, 2.0, 60.0, band.retry) / 2.0;
        assert!((band.median - half).abs() < 4.0 * half / 100.0, "{band:?}");
    }
    // A jittered peak has no closed form here, so no theory beside it.
    assert_eq!(numbers[1].2, None);
}

#[test]
fn a_fleet_that_gives_up_has_no_peak_and_never_recovers() {
    // The AWS SDK's eight waits add up to at most 0.05·(2⁸ − 1) = 12.75 s.
    let (_, numbers) = numbers("st=aws&vs=", 1);
    let value = |key| {
        numbers
            .iter()
            .find(|number| number.0 == key)
            .map(|number| number.1.as_str())
    };
    assert_eq!(value("peak"), Some("none: no call from D on"));
    assert_eq!(value("load"), Some("none: no call from D on"));
    assert_eq!(value("recovered"), Some("never"));
    assert_eq!(
        value("recovered-99"),
        Some("0 % succeeded (0 of 10,000); the 99 % mark was never reached")
    );
    assert_eq!(value("success-time"), Some("none succeeded"));
    assert_eq!(value("gave-up"), Some("10,000"));
}

#[test]
fn short_of_99_percent_the_key_numbers_say_how_many_succeeded() {
    let (_, numbers) = numbers("st=full&vs=", 1);
    let value = |key| {
        numbers
            .iter()
            .find(|number| number.0 == key)
            .map(|number| number.1.clone())
    };
    assert_eq!(
        value("recovered-99").as_deref(),
        Some("87.2 % succeeded (8,725 of 10,000); the 99 % mark was never reached")
    );
    assert_eq!(value("recovered").as_deref(), Some("1 min 59 s"));
    assert_eq!(
        value("success-time").as_deref(),
        Some("1 min 18 s / 1 min 52 s over the 8,725 that succeeded")
    );
}

// ---------------------------------------------------------------------------
// Presets

/// The run a preset shows with seed 1, the page's default.
fn preset_run(slug: &str) -> BackoffRun {
    let preset = PRESETS.iter().find(|preset| preset.slug == slug).unwrap();
    let (state, notices) = preset.state(Panel::Backoff, 1);
    assert!(notices.is_empty(), "{slug}: {notices:?}");
    run(&state.backoff, state.seed).unwrap()
}

fn fleet_of(run: &BackoffRun, strategy: RetryStrategy) -> &Fleet {
    &run.fleets
        .iter()
        .find(|f| f.strategy == strategy)
        .unwrap()
        .fleet
}

/// The key numbers of `strategy`'s fleet in the run of preset `slug` at
/// seed 1, by key: the preset's parameters with that strategy as the main
/// one, as the key numbers describe the main fleet.
fn preset_numbers(slug: &str, strategy: RetryStrategy) -> Vec<(&'static str, String)> {
    let preset = PRESETS.iter().find(|preset| preset.slug == slug).unwrap();
    let (state, notices) = preset.state(Panel::Backoff, 1);
    assert!(notices.is_empty(), "{slug}: {notices:?}");
    let params = BackoffParams {
        strategy,
        ..state.backoff
    };
    let result = run(&params, state.seed).unwrap();
    let numbers = key_numbers(&params, &result);
    numbers.into_iter().map(|n| (n.key, n.value)).collect()
}

/// Asserts that each (key, value) is among `numbers`, and that the lesson of
/// `slug` quotes `quoted`.
fn assert_shows(slug: &str, strategy: RetryStrategy, shown: &[(&str, &str)], quoted: &[&str]) {
    let numbers = preset_numbers(slug, strategy);
    for (key, value) in shown {
        let found = numbers.iter().find(|number| number.0 == *key);
        assert_eq!(
            found.map(|number| number.1.as_str()),
            Some(*value),
            "{slug}, {strategy:?}, {key}"
        );
    }
    let lesson = PRESETS.iter().find(|p| p.slug == slug).unwrap().lesson;
    for quote in quoted {
        assert!(
            lesson.contains(quote),
            "{slug}: {quote:?} not in {lesson:?}"
        );
    }
}

#[test]
fn every_preset_lesson_quotes_what_its_run_shows() {
    let slugs: Vec<&str> = PRESETS.iter().map(|preset| preset.slug).collect();
    assert_eq!(
        slugs,
        [
            "no-jitter",
            "metastable",
            "jitter-kinds",
            "sidekiq-25",
            "libraries",
            "retry-quota",
            "circuit-breaker"
        ]
    );

    assert_shows(
        "no-jitter",
        RetryStrategy::Exponential,
        &[
            ("peak", "10,000 /s at 1 min 3 s"),
            ("healthy", "1 min"),
            ("waits", "1 s, 2 s, 4 s, 8 s, 16 s, 32 s, 1 min, 1 min"),
        ],
        &["10,000 calls", "60 s", "1 min 3 s"],
    );

    let metastable = preset_run("metastable");
    let herd = fleet_of(&metastable, RetryStrategy::Exponential);
    // 1,000 of the 10,000 served at each return, the rest refused.
    for (second, calls) in [(63, 10_000), (123, 9_000), (183, 8_000)] {
        assert_eq!(herd.timeline.calls[second], calls);
    }
    assert_shows(
        "metastable",
        RetryStrategy::Exponential,
        &[
            ("peak", "10,000 /s at 1 min 3 s"),
            ("load", "10× the capacity of 1,000 /s"),
            ("healthy", "3 min 4 s"),
            ("gave-up", "7,000"),
        ],
        &[
            "1,000 calls",
            "10,000 clients",
            "1 min 3 s, 10× capacity",
            "9,000",
            "2 min 3 s and 3 min 3 s",
            "3 min 4 s",
            "7,000",
        ],
    );
    assert_shows(
        "metastable",
        RetryStrategy::FullJitter,
        &[
            ("load", "0.295× the capacity of 1,000 /s"),
            ("healthy", "1 min"),
        ],
        &["0.295× capacity", "healthy at 1 min"],
    );

    for (strategy, load, gave_up) in [
        (RetryStrategy::FullJitter, "0.295×", "1,275"),
        (RetryStrategy::EqualJitter, "0.389×", "0"),
        (RetryStrategy::Decorrelated, "0.263×", "4,232"),
    ] {
        let load = format!("{load} the capacity of 1,000 /s");
        assert_shows(
            "jitter-kinds",
            strategy,
            &[("load", &load), ("healthy", "1 min"), ("gave-up", gave_up)],
            &["0.263×", "0.389×", "1 min", "8 retries", "1,275", "4,232"],
        );
    }

    // Sidekiq's clients all succeed, within minutes of each other.
    let sidekiq = preset_run("sidekiq-25");
    let fleet = fleet_of(&sidekiq, RetryStrategy::Sidekiq);
    let spread = fleet.last_success.unwrap() - fleet.success_p50.unwrap();
    assert!(spread < 15.0 * 60.0, "{spread}");
    assert_shows(
        "sidekiq-25",
        RetryStrategy::Sidekiq,
        &[("load", "0.07× the capacity of 1,000 /s"), ("gave-up", "0")],
        &["6-hour", "0.07× capacity"],
    );
    assert_shows(
        "sidekiq-25",
        RetryStrategy::ActiveJob,
        &[("load", "0.015× the capacity of 1,000 /s")],
        &["over four times", "0.015×"],
    );

    // The AWS SDK gives up within 12.75 s.
    let libraries = preset_run("libraries");
    assert!(fleet_of(&libraries, RetryStrategy::Aws).completion_p99 <= 12.75);
    assert_shows(
        "libraries",
        RetryStrategy::Aws,
        &[("gave-up", "10,000")],
        &["12.75 s", "8 retries", "10,000 clients"],
    );
    assert_shows(
        "libraries",
        RetryStrategy::Sidekiq,
        &[("gave-up", "0"), ("recovered", "1 min 58 s")],
        &[],
    );
    assert_shows(
        "libraries",
        RetryStrategy::ActiveJob,
        &[
            ("gave-up", "0"),
            ("recovered", "1 min 59 s"),
            ("load", "0.881× the capacity of 1,000 /s"),
        ],
        &["by 1 min 59 s", "0.881× capacity"],
    );

    // ⌊500 / 14⌋ = 35 retries.
    assert_eq!(AWS_QUOTA_CAPACITY / AWS_RETRY_COST, 35);
    assert_shows(
        "retry-quota",
        RetryStrategy::AwsQuota,
        &[
            ("calls", "10,035"),
            ("succeeded", "0 % succeeded (0 of 10,000)"),
            ("healthy", "1 s"),
        ],
        &[
            "500 tokens",
            "35 retries at 14",
            "10,000 requests",
            "1-second",
            "10,035 calls",
            "0 % succeeded",
            "healthy at 1 s",
        ],
    );
    assert_shows(
        "retry-quota",
        RetryStrategy::Aws,
        &[
            ("calls", "83,858"),
            ("load", "9.27× the capacity of 1,000 /s"),
            ("succeeded", "82.3 % succeeded (8,226 of 10,000)"),
        ],
        &["83,858 calls", "9.27× capacity", "82.3 %"],
    );

    assert_shows(
        "circuit-breaker",
        RetryStrategy::Breaker,
        &[
            (
                "wasted",
                "84,402: 31 in the outage, 1,937 over capacity, 82,434 turned away by the breaker",
            ),
            ("gave-up", "5,313"),
        ],
        &["100 calls", "82,434", "1,937", "5,313"],
    );
    assert_shows(
        "circuit-breaker",
        RetryStrategy::FullJitter,
        &[
            (
                "wasted",
                "81,306: 76,005 in the outage, 5,301 over capacity",
            ),
            ("gave-up", "3,641"),
        ],
        &["5,301", "3,641"],
    );
}

#[test]
fn a_run_cache_gives_what_a_fresh_run_gives() {
    let defaults = BackoffParams {
        clients: 2_000,
        dependency: DependencyModel::Unlimited,
        ..Default::default()
    };
    let jittered = BackoffParams {
        strategy: RetryStrategy::EqualJitter,
        compared: ChoiceSet::new([RetryStrategy::Decorrelated, RetryStrategy::Sidekiq]),
        clients: 3_000,
        ..defaults.clone()
    };
    // Waits far longer than the first client's on some seeds, so calls
    // outgrow the fine bins and are drawn again (see the test above).
    let long = BackoffParams {
        strategy: RetryStrategy::FullJitter,
        compared: ChoiceSet::new([]),
        base: 1_000.0,
        factor: 20.0,
        cap: 1e6,
        outage: 1e7,
        retries: 3,
        clients: 300,
        ..defaults.clone()
    };
    let overflowing = (0..1_000)
        .find(|&seed| {
            let fleet = run(&long, seed).unwrap().fleets.remove(0).fleet;
            fleet.timeline.bin_seconds * fleet.timeline.calls.len() as f64 > 200_000.0
        })
        .expect("a seed whose calls outgrow the fine bins");
    // A reader's path: M up and down, the outage, the strategies, the seed
    // and the retries changed, runs too long for fine bins, and back.
    let steps = [
        (defaults.clone(), 1),
        (
            BackoffParams {
                clients: 5_000,
                ..defaults.clone()
            },
            1,
        ),
        (
            BackoffParams {
                clients: 1_200,
                ..defaults.clone()
            },
            1,
        ),
        (
            BackoffParams {
                clients: 1_200,
                outage: 120.0,
                ..defaults.clone()
            },
            1,
        ),
        (jittered.clone(), 1),
        (
            BackoffParams {
                clients: 3_500,
                ..jittered.clone()
            },
            2,
        ),
        (
            BackoffParams {
                retries: 3,
                ..jittered.clone()
            },
            2,
        ),
        (long.clone(), overflowing),
        (
            BackoffParams {
                clients: 100,
                ..long.clone()
            },
            overflowing,
        ),
        (
            BackoffParams {
                clients: 400,
                ..long.clone()
            },
            overflowing,
        ),
        (
            BackoffParams {
                clients: 1,
                ..defaults.clone()
            },
            1,
        ),
        (defaults.clone(), 1),
        // Under capacity and with shared budgets the cache keeps the bands.
        (
            BackoffParams {
                dependency: DependencyModel::Capacity,
                ..defaults.clone()
            },
            1,
        ),
        (
            BackoffParams {
                dependency: DependencyModel::Capacity,
                clients: 30_000,
                ..defaults.clone()
            },
            1,
        ),
        (
            BackoffParams {
                strategy: RetryStrategy::Breaker,
                compared: ChoiceSet::new([RetryStrategy::AwsQuota, RetryStrategy::FullJitter]),
                ..defaults.clone()
            },
            1,
        ),
        (defaults, 1),
    ];
    let mut cache = BackoffCache::default();
    for (index, (params, seed)) in steps.into_iter().enumerate() {
        assert_eq!(cache.run(&params, seed), run(&params, seed), "step {index}");
    }
}

// ---------------------------------------------------------------------------
// A dependency with finite capacity

/// The fleets of `strategies` with the default b, f, c against a dependency
/// down for `outage` seconds serving `capacity` calls a second.
fn against(
    strategies: &[RetryStrategy],
    clients: u32,
    outage: f64,
    capacity: Option<u32>,
    retries: u32,
    seed: u64,
) -> Vec<Fleet> {
    let backoffs: Vec<Backoff> = strategies.iter().map(|&s| doubling(s)).collect();
    let dependency = Dependency { outage, capacity };
    simulate_fleets_against(&backoffs, clients, dependency, retries, seed).unwrap()
}

#[test]
fn without_jitter_the_herd_overloads_the_dependency_and_fails_again() {
    let fleets = against(
        &[RetryStrategy::Exponential],
        10_000,
        60.0,
        Some(1_000),
        8,
        1,
    );
    let herd = &fleets[0];
    // All 10,000 call at 63 s; 1,000 are served and 9,000 refused, who
    // return together at 123 s, and the 8,000 refused then at 183 s, after
    // which the 7,000 refused have no retry left.
    assert_eq!(herd.refused, 9_000 + 8_000 + 7_000);
    assert_eq!(herd.failed_in_outage, 6 * 10_000);
    assert_eq!((herd.succeeded, herd.gave_up), (3_000, 7_000));
    assert_eq!(herd.healthy_at, 184.0);
    assert_eq!(herd.peak_load, Some(10.0));
    assert_eq!(herd.last_success, Some(183.0));
    assert_eq!(
        (herd.success_p50, herd.success_p99),
        (Some(123.0), Some(183.0))
    );
    assert_eq!(herd.success_99, None);
    assert_consistent(herd, 10_000, 60.0);
    // The same herd against an unlimited dependency is served at once.
    let unlimited = against(&[RetryStrategy::Exponential], 10_000, 60.0, None, 8, 1);
    assert_eq!((unlimited[0].refused, unlimited[0].healthy_at), (0, 60.0));
}

#[test]
fn full_jitter_lets_the_dependency_recover_sooner_than_no_jitter() {
    for (capacity, seed) in [(1_000, 1), (300, 2), (100, 3)] {
        let fleets = against(
            &[RetryStrategy::Exponential, RetryStrategy::FullJitter],
            10_000,
            60.0,
            Some(capacity),
            8,
            seed,
        );
        let [plain, full] = &fleets[..] else {
            panic!("two fleets")
        };
        assert!(plain.healthy_at > 60.0, "{capacity}: {}", plain.healthy_at);
        assert!(
            full.healthy_at < plain.healthy_at,
            "{capacity}: {} against {}",
            full.healthy_at,
            plain.healthy_at
        );
        assert!(full.peak_load < plain.peak_load);
        for fleet in [plain, full] {
            assert_consistent(fleet, 10_000, 60.0);
        }
    }
}

#[test]
fn a_capacity_nobody_reaches_changes_nothing_but_the_load_figure() {
    // The interacting simulation, with a capacity no second fills, gives
    // what the independent one gives.
    let strategies = [
        RetryStrategy::Exponential,
        RetryStrategy::FullJitter,
        RetryStrategy::Decorrelated,
        RetryStrategy::Sidekiq,
    ];
    let roomy = against(&strategies, 3_000, 45.0, Some(1_000_000), 10, 4);
    let unlimited = against(&strategies, 3_000, 45.0, None, 10, 4);
    for (roomy, unlimited) in roomy.iter().zip(&unlimited) {
        assert!(roomy.peak_load.is_some_and(|load| load < 1.0));
        let without_load = Fleet {
            peak_load: None,
            ..roomy.clone()
        };
        assert_eq!(&without_load, unlimited);
    }
}

#[test]
fn a_fleet_above_ten_thousand_is_simulated_in_weights_and_counts_every_client() {
    let clients = 1_000_000;
    let fleets = against(
        &[RetryStrategy::FullJitter, RetryStrategy::Exponential],
        clients,
        60.0,
        Some(1_000),
        8,
        1,
    );
    for fleet in &fleets {
        assert_consistent(fleet, clients, 60.0);
        // A million clients return far above 1,000 calls a second.
        assert!(fleet.healthy_at > 60.0 && fleet.refused > 0);
    }
    // A simulated client stands for 100: calls come in hundreds.
    assert_eq!(fleets[0].calls % 100, 0);
}

#[test]
fn unlimited_reproduces_the_figures_from_before_capacity() {
    // Pinned from the implementation before the dependency had a capacity:
    // calls, gave up, last success, 99 % mark, completion p50 and p99,
    // peak, and Σ (bin + 1)·calls over the timeline.
    let (params, _) = decoded("dep=unlimited&st=full&vs=equal,decorrelated");
    let result = run(&params, 1).unwrap();
    let pinned = [
        (
            84_730,
            1_275,
            Some(119.40792662069597),
            None,
            75.12212976954986,
            111.61834180735337,
            (295.0, 60.0),
            1_612_651,
        ),
        (
            79_991,
            0,
            Some(118.97374047361069),
            Some(113.24391141473615),
            92.14166773657787,
            113.24408295027956,
            (389.0, 91.0),
            1_864_939,
        ),
        (
            80_960,
            4_232,
            Some(119.98850777305992),
            None,
            63.2756116353691,
            117.30098059153937,
            (263.0, 61.0),
            1_657_014,
        ),
    ];
    for (strategy, expected) in result.fleets.iter().zip(pinned) {
        let fleet = &strategy.fleet;
        let weighted: u64 = (fleet.timeline.calls.iter().enumerate())
            .map(|(bin, &calls)| (bin as u64 + 1) * u64::from(calls))
            .sum();
        let peak = fleet.peak_after_outage;
        let shown = (
            fleet.calls,
            fleet.gave_up,
            fleet.last_success,
            fleet.success_99,
            fleet.completion_p50,
            fleet.completion_p99,
            (peak.per_second, peak.at),
            weighted,
        );
        assert_eq!(shown, expected, "{:?}", strategy.strategy);
        assert_eq!(fleet.timeline.calls.len(), 120);
    }
}

#[test]
fn the_verdict_ranks_by_the_chosen_objective() {
    // Defaults: full and decorrelated jitter both find the dependency
    // healthy at 60 s; full jitter loses fewer clients; the herd without
    // jitter keeps it down until 184 s.
    let (params, _) = decoded("");
    let verdict = run(&params, 1).unwrap().verdict;
    assert_eq!(
        verdict.ranking,
        [
            RetryStrategy::FullJitter,
            RetryStrategy::Decorrelated,
            RetryStrategy::Exponential
        ]
    );
    assert_eq!(
        verdict.sentence,
        "Full jitter and Decorrelated jitter tie on recovery time (healthy again at 1 min, \
         its busiest second from D on 0.295× capacity); Full jitter ranks first on clients \
         that gave up: 1,275 of its 10,000 clients gave up; Decorrelated jitter: 4,232 of its \
         10,000 clients gave up; last, Exponential, no jitter: healthy again at 3 min 4 s, its \
         busiest second from D on 10× capacity."
    );
    // By load, decorrelated jitter's 263 calls a second come first.
    let (params, _) = decoded("obj=load");
    let ranking = run(&params, 1).unwrap().verdict.ranking;
    assert_eq!(
        ranking,
        [
            RetryStrategy::Decorrelated,
            RetryStrategy::FullJitter,
            RetryStrategy::Exponential
        ]
    );
    // Unlimited, by client p99: only the fleet without jitter has 99 % of
    // its clients back, at 63 s; the other two never do and are told
    // apart by the clients that gave up.
    let (params, _) = decoded("dep=unlimited&obj=p99");
    let verdict = run(&params, 1).unwrap().verdict;
    assert_eq!(
        verdict.ranking,
        [
            RetryStrategy::Exponential,
            RetryStrategy::FullJitter,
            RetryStrategy::Decorrelated
        ]
    );
    assert!(
        verdict.sentence.starts_with(
            "Exponential, no jitter ranks first by client p99 time to success: 99 % of its \
             clients succeeded by 1 min 3 s; next, Full jitter: only 87.2 % of its clients \
             succeeded (8,725 of 10,000), short of 99 %"
        ),
        "{}",
        verdict.sentence
    );
}

// ---------------------------------------------------------------------------
// Shared budgets

#[test]
fn a_small_fleet_never_drains_the_retry_quota() {
    // 3 clients with 8 retries spend at most 24 · 14 = 336 of 500 tokens,
    // so the quota changes nothing: the fleet is the plain SDK's.
    const { assert!(3 * 8 * AWS_RETRY_COST < AWS_QUOTA_CAPACITY) };
    for (outage, seed) in [(0.5, 1), (2.0, 2), (5.0, 3)] {
        let fleets = against(
            &[RetryStrategy::AwsQuota, RetryStrategy::Aws],
            3,
            outage,
            None,
            8,
            seed,
        );
        assert_eq!(fleets[0], fleets[1], "{outage}");
    }
}

#[test]
fn a_large_fleet_drains_the_retry_quota_and_stops_retrying() {
    // 10,000 calls fail at t = 0; the quota pays for ⌊500 / 14⌋ = 35
    // retries and no success refills it during a one-minute outage.
    let retries = AWS_QUOTA_CAPACITY / AWS_RETRY_COST;
    let fleets = against(&[RetryStrategy::AwsQuota], 10_000, 60.0, Some(1_000), 8, 1);
    let quota = &fleets[0];
    assert_eq!(quota.calls, 10_000 + retries);
    assert_eq!((quota.gave_up, quota.succeeded), (10_000, 0));
    assert_consistent(quota, 10_000, 60.0);
    // Without an outage every first call succeeds and the quota is never
    // touched. With a short one, the 100 calls failing at t = 0 get 35
    // retries and the other 65 give up at once; successes refill the quota
    // only later.
    let fleets = against(
        &[RetryStrategy::AwsQuota],
        10_000,
        0.0,
        Some(1_000_000),
        8,
        1,
    );
    assert_eq!((fleets[0].calls, fleets[0].succeeded), (10_000, 10_000));
    let fleets = against(&[RetryStrategy::AwsQuota], 100, 0.01, None, 8, 1);
    assert!(fleets[0].gave_up >= 65, "{}", fleets[0].gave_up);
    assert!(fleets[0].succeeded > 0 && fleets[0].calls >= 100 + retries);
    assert_consistent(&fleets[0], 100, 0.01);
}

#[test]
fn an_open_breaker_puts_no_load_on_the_dependency() {
    let fleets = against(&[RetryStrategy::Breaker], 10_000, 60.0, Some(1_000), 8, 1);
    let breaker = &fleets[0];
    assert_consistent(breaker, 10_000, 60.0);
    // It opens after the first 20 failures at t = 0 and lets one probe
    // through each time it has been open 5 s: the outage sees 20 calls and
    // one probe per 5 s at most.
    let probes = (60.0 / BREAKER_OPEN_SECONDS) as u64 + 1;
    assert!(breaker.failed_in_outage <= BREAKER_MIN_CALLS + probes);
    assert_eq!(breaker.timeline.calls[0], BREAKER_MIN_CALLS as u32);
    // Nothing reaches the dependency while it stays open after that.
    assert!(breaker.timeline.calls[1..5].iter().all(|&calls| calls == 0));
    assert!(breaker.rejected > 70_000);
    // The same clients without the breaker load it with every call.
    let full = &against(
        &[RetryStrategy::FullJitter],
        10_000,
        60.0,
        Some(1_000),
        8,
        1,
    )[0];
    assert_eq!(full.rejected, 0);
    assert!(full.failed_in_outage > 70_000);
}
