//! The fleets after an outage: what the clients do against an unlimited
//! dependency, against one with finite capacity and with a shared budget.

use stampede_core::backoff::{
    AWS_QUOTA_CAPACITY, AWS_RETRY_COST, BREAKER_MIN_CALLS, BREAKER_OPEN_SECONDS, Backoff, Burst,
    Dependency, Fleet, QuotaScope, RetryStrategy, run, simulate_fleet, simulate_fleets_against,
};
use stampede_core::stats::histogram;

use super::backoff::{backoff, doubling, waits_of};
use super::backoff_panel::decoded;

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

pub(crate) fn assert_consistent(fleet: &Fleet, clients: u32, outage: f64) {
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
        // Each client's own retry quota pays for 35 of its 60 retries,
        // enough to outlast 45 s; one the fleet shares pays for 35 in all
        // (see `a_large_fleet_drains_the_retry_quota_and_stops_retrying`).
        assert!(fleet.last_success.is_some(), "{strategy:?}");
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
// A dependency with finite capacity

/// The fleets of `strategies` with the default b, f, c against a dependency
/// down for `outage` seconds serving `capacity` calls a second, the AWS
/// SDK's clients sharing one retry quota.
fn against(
    strategies: &[RetryStrategy],
    clients: u32,
    outage: f64,
    capacity: Option<u32>,
    retries: u32,
    seed: u64,
) -> Vec<Fleet> {
    let backoffs: Vec<Backoff> = strategies
        .iter()
        .map(|&s| doubling(s).with_quota(QuotaScope::Shared))
        .collect();
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
