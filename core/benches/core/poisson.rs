use std::hint::black_box;

use criterion::Criterion;
use stampede_core::jitter::{self, JitterParams};
use stampede_core::poisson::{self, PoissonParams};

/// A million events a day, and a quarter of a million: the events slider
/// at the panel's defaults where the browser's frame budget is tightest.
fn poisson_events(c: &mut Criterion) {
    for (per_day, name) in [
        (1_000_000, "poisson: 1M events a day, one day"),
        (250_000, "poisson: 250k events a day, one day"),
    ] {
        let params = PoissonParams {
            per_day,
            ..Default::default()
        };
        c.bench_function(name, |b| {
            b.iter(|| poisson::run(black_box(&params), 1).unwrap())
        });
    }
}

fn ten_thousand_jittered_jobs(c: &mut Criterion) {
    let params = JitterParams::default();
    c.bench_function("jitter: 10k jobs, uniform over 30 min", |b| {
        b.iter(|| jitter::run(black_box(&params), 1).unwrap())
    });
}

criterion::criterion_group!(benches, poisson_events, ten_thousand_jittered_jobs);
