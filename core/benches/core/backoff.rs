use std::hint::black_box;

use criterion::Criterion;
use stampede_core::backoff::{self, Backoff, BackoffParams, DependencyModel, RetryStrategy};
use stampede_core::panels::State;
use stampede_core::speedup::Speedup;

/// The fleet the panel can least afford to be slow on: 100,000 clients
/// retrying with decorrelated jitter through a one-minute outage.
fn fleet_of_a_hundred_thousand(c: &mut Criterion) {
    let decorrelated = Backoff::new(RetryStrategy::Decorrelated, 1.0, 2.0, 60.0).unwrap();
    c.bench_function(
        "backoff: 100k clients, 60 s outage, 10 retries, decorrelated",
        |b| {
            b.iter(|| {
                backoff::simulate_fleet(black_box(&decorrelated), 100_000, 60.0, 10, 1).unwrap()
            })
        },
    );
}

/// What one render of the panel computes with its defaults, a dependency
/// serving 1,000 calls a second: every strategy's bands and three fleets of
/// 10,000 clients, and the same again with the bands kept, as a change of
/// anything but the strategies, b, f, c, A and the seed leaves them.
fn panel_defaults(c: &mut Criterion) {
    let params = BackoffParams::default();
    c.bench_function(
        "backoff: panel defaults (bands and 3 fleets of 10k clients)",
        |b| b.iter(|| backoff::run(black_box(&params), 1).unwrap()),
    );
    let mut cache = backoff::BackoffCache::default();
    c.bench_function("backoff: panel defaults, bands kept", |b| {
        b.iter(|| cache.run(black_box(&params), 1).unwrap())
    });
}

/// The defaults with a million clients against the finite capacity: the
/// jittered fleets are simulated as 10,000 clients of 100 each.
fn panel_at_a_million_clients_under_capacity(c: &mut Criterion) {
    let params = BackoffParams {
        clients: 1_000_000,
        ..Default::default()
    };
    let mut cache = backoff::BackoffCache::default();
    c.bench_function("backoff: 1M clients under capacity, bands kept", |b| {
        b.iter(|| cache.run(black_box(&params), 1).unwrap())
    });
}

/// The retry quota and the breaker beside full jitter, at the defaults.
fn shared_budgets(c: &mut Criterion) {
    let params = BackoffParams {
        strategy: RetryStrategy::Breaker,
        compared: stampede_core::field::ChoiceSet::new([
            RetryStrategy::AwsQuota,
            RetryStrategy::FullJitter,
        ]),
        ..Default::default()
    };
    let mut cache = backoff::BackoffCache::default();
    c.bench_function("backoff: breaker, quota and full jitter, bands kept", |b| {
        b.iter(|| cache.run(black_box(&params), 1).unwrap())
    });
}

/// The panel's defaults against an unlimited dependency with the clients
/// slider dragged to a quarter of a million: the exponential fleet stands
/// for all of them with one client, the full-jitter and decorrelated fleets
/// simulate every one.
fn panel_at_a_quarter_million_clients(c: &mut Criterion) {
    let params = BackoffParams {
        clients: 250_000,
        dependency: DependencyModel::Unlimited,
        ..Default::default()
    };
    let mut group = c.benchmark_group("backoff");
    group.sample_size(20);
    group.bench_function("run, panel defaults at 250k clients", |b| {
        b.iter(|| backoff::run(black_box(&params), 1).unwrap())
    });
    group.finish();
}

/// The panel's defaults as a reader drags M up from 10,000 to 250,000 in
/// 20 moves, each 18 % more clients: one fresh run per move, against one
/// [`backoff::BackoffCache`] kept across the moves as the page keeps it; against
/// an unlimited dependency, where the cache keeps the clients, and against
/// the finite capacity, where it keeps the bands alone.
fn drag_of_m(c: &mut Criterion) {
    for dependency in [DependencyModel::Unlimited, DependencyModel::Capacity] {
        drag_of_m_against(c, dependency);
    }
}

fn drag_of_m_against(c: &mut Criterion, dependency: DependencyModel) {
    let moves: Vec<BackoffParams> = (0..20)
        .map(|step| BackoffParams {
            clients: (10_000.0 * 25f64.powf(f64::from(step) / 19.0)).round() as u32,
            dependency,
            ..Default::default()
        })
        .collect();
    let mut group = c.benchmark_group(format!(
        "backoff: a drag of M, 10,000 to 250,000 in 20 moves, {}",
        dependency.slug()
    ));
    group.sample_size(10);
    group.bench_function("fresh runs", |b| {
        b.iter(|| {
            for params in &moves {
                black_box(backoff::run(params, 1).unwrap());
            }
        })
    });
    group.bench_function("one run cache", |b| {
        b.iter(|| {
            let mut cache = backoff::BackoffCache::default();
            for params in &moves {
                black_box(cache.run(params, 1).unwrap());
            }
        })
    });
    group.finish();
}

/// The slowest run the panel allows: four strategies sharing the
/// 10-million-call budget, as many clients as fit with the default retries.
fn run_at_the_call_cap(c: &mut Criterion) {
    let (state, _) =
        State::from_query("p=backoff&dep=unlimited&vs=full,equal,decorrelated&m=1000000");
    let params = state.backoff;
    let mut group = c.benchmark_group("backoff");
    group.sample_size(10);
    group.bench_function(
        format!(
            "run at the call cap ({} clients × 9 calls × 4 strategies)",
            params.clients
        ),
        |b| b.iter(|| backoff::run(black_box(&params), 1).unwrap()),
    );
    group.finish();
}

criterion::criterion_group!(
    benches,
    fleet_of_a_hundred_thousand,
    panel_defaults,
    panel_at_a_million_clients_under_capacity,
    shared_budgets,
    panel_at_a_quarter_million_clients,
    drag_of_m,
    run_at_the_call_cap
);
