use std::hint::black_box;

use criterion::Criterion;
use stampede_core::jitter::{self, JitterParams};
use stampede_core::poisson::{self, PoissonParams};
use stampede_core::speedup::Speedup;

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
    // The top of a drag of the events slider: the draws are kept from the
    // step before, as the page keeps them.
    let params = PoissonParams {
        per_day: 250_000,
        ..Default::default()
    };
    let mut cache = poisson::PoissonCache::default();
    c.bench_function("poisson: 250k events a day, draws kept", |b| {
        b.iter(|| cache.run(black_box(&params), 1).unwrap())
    });
}

/// A run from scratch, window fit included; a drag of the max delay, which
/// keeps the fit; and the fit alone for a million jobs, the slider's top.
fn ten_thousand_jittered_jobs(c: &mut Criterion) {
    let params = JitterParams::default();
    c.bench_function("jitter: 10k jobs, uniform over 30 min", |b| {
        b.iter(|| jitter::run(black_box(&params), 1).unwrap())
    });
    let mut cache = jitter::JitterCache::default();
    let mut max_delay = 30.0;
    c.bench_function("jitter: 10k jobs, the max delay dragged", |b| {
        b.iter(|| {
            max_delay = if max_delay >= 40.0 {
                20.0
            } else {
                max_delay + 0.1
            };
            let dragged = JitterParams {
                max_delay,
                ..params.clone()
            };
            cache.run(black_box(&dragged), 1).unwrap()
        })
    });
    let million = JitterParams {
        jobs: 1_000_000,
        limit_per_second: 1_000,
        ..Default::default()
    };
    c.bench_function("jitter: window fit for 1M jobs at 1,000 /s", |b| {
        b.iter(|| jitter::fit_window(black_box(&million), 1))
    });
}

criterion::criterion_group!(benches, poisson_events, ten_thousand_jittered_jobs);
