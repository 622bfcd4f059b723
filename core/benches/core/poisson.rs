use std::hint::black_box;

use criterion::Criterion;
use stampede_core::jitter::{self, JitterParams};
use stampede_core::poisson::{self, PoissonParams};

fn million_poisson_events(c: &mut Criterion) {
    let params = PoissonParams {
        per_day: 1_000_000,
        ..Default::default()
    };
    c.bench_function("poisson: 1M events a day, one day", |b| {
        b.iter(|| poisson::run(black_box(&params), 1).unwrap())
    });
}

/// The panel's defaults with the events slider dragged to a quarter of a
/// million a day, where the browser's frame budget is tightest.
fn quarter_million_poisson_events(c: &mut Criterion) {
    let params = PoissonParams {
        per_day: 250_000,
        ..Default::default()
    };
    c.bench_function("poisson: 250k events a day, one day", |b| {
        b.iter(|| poisson::run(black_box(&params), 1).unwrap())
    });
}

fn ten_thousand_jittered_jobs(c: &mut Criterion) {
    let params = JitterParams::default();
    c.bench_function("jitter: 10k jobs, uniform over 30 min", |b| {
        b.iter(|| jitter::run(black_box(&params), 1).unwrap())
    });
}

criterion::criterion_group!(
    benches,
    million_poisson_events,
    quarter_million_poisson_events,
    ten_thousand_jittered_jobs
);
