use std::hint::black_box;

use criterion::Criterion;
use stampede_core::slots::{self, DelaySource, IdBytes, Layout, SlotParams};

/// The slot plan for a million accounts: each id's bucket and slot, its
/// offset inside the slot and inside the cycle, and the time histograms.
fn million_account_plan(c: &mut Criterion) {
    let layout = Layout::new(28_800, 65_535, IdBytes::LastTwo).unwrap();
    let ids = slots::account_ids(1, 1_000_000).unwrap();
    let mut group = c.benchmark_group("slots: plan for 1M accounts");
    // Ruby-exact offsets take a tenth of a second an iteration; ten samples
    // suffice.
    group.sample_size(10);
    for source in [DelaySource::Pcg, DelaySource::Ruby] {
        group.bench_function(source.slug(), |b| {
            b.iter(|| slots::plan(black_box(&layout), black_box(&ids), source).unwrap())
        });
    }
    group.finish();
}

/// What one render of the panel computes with its defaults (10k accounts,
/// Ruby offsets).
fn panel_defaults(c: &mut Criterion) {
    let params = SlotParams::default();
    c.bench_function("slots: panel defaults", |b| {
        b.iter(|| slots::run(black_box(&params), 1).unwrap())
    });
}

criterion::criterion_group!(benches, million_account_plan, panel_defaults);
