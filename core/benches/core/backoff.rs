use std::hint::black_box;

use criterion::Criterion;
use stampede_core::backoff::{self, Backoff, BackoffParams, Strategy};

/// The fleet the panel can least afford to be slow on: 100,000 clients
/// retrying with decorrelated jitter through a one-minute outage.
fn fleet_of_a_hundred_thousand(c: &mut Criterion) {
    let decorrelated = Backoff::new(Strategy::Decorrelated, 1.0, 2.0, 60.0).unwrap();
    c.bench_function(
        "backoff: 100k clients, 60 s outage, 10 retries, decorrelated",
        |b| {
            b.iter(|| {
                backoff::simulate_fleet(black_box(&decorrelated), 100_000, 60.0, 10, 1).unwrap()
            })
        },
    );
}

/// What one render of the panel computes with its defaults.
fn panel_defaults(c: &mut Criterion) {
    let params = BackoffParams::default();
    c.bench_function(
        "backoff: panel defaults (bands and 10k-client fleet)",
        |b| b.iter(|| backoff::run(black_box(&params), 1).unwrap()),
    );
}

criterion::criterion_group!(benches, fleet_of_a_hundred_thousand, panel_defaults);
