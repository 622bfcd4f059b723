use std::hint::black_box;

use criterion::Criterion;
use stampede_core::hash_spread::{HashMode, HashSpreadCache, Placement, Reduction, run, stability};
use stampede_core::keys::{KeyKind, generate};
use stampede_core::panels::State;
use stampede_core::speedup::Speedup;

/// Keys per measured pass: the most a run places.
const KEYS: u32 = 1_000_000;

fn placement(mode: HashMode, reduction: Reduction) -> Placement {
    Placement {
        mode,
        reduction,
        window: 86_400,
    }
}

/// Hash and reduce a million pre-generated UUIDv4 keys, per hash and reduction.
fn million_keys_per_hash(c: &mut Criterion) {
    let keys = generate(KeyKind::UuidV4, KEYS, 1).unwrap();
    let mut group = c.benchmark_group("spread: 1M UUIDv4 keys");
    group.sample_size(20);
    for &mode in HashMode::ALL.iter().filter(|&&mode| mode != HashMode::Ruby) {
        for &reduction in Reduction::ALL {
            let placement = placement(mode, reduction);
            group.bench_function(format!("{} {}", mode.slug(), reduction.slug()), |b| {
                b.iter(|| placement.place(black_box(&keys)).unwrap())
            });
        }
    }
    group.finish();
}

/// Ruby's `Random.new(id).rand(window)` seeds a Mersenne Twister per key,
/// so it is measured on a tenth of the keys.
fn hundred_thousand_keys_in_ruby_mode(c: &mut Criterion) {
    let keys = generate(KeyKind::UuidV4, KEYS / 10, 1).unwrap();
    let placement = placement(HashMode::Ruby, Reduction::Mod);
    let mut group = c.benchmark_group("spread: 100k UUIDv4 keys");
    group.sample_size(10);
    group.bench_function("ruby", |b| {
        b.iter(|| placement.place(black_box(&keys)).unwrap())
    });
    group.finish();
}

/// The stability check for a million keys: placed, grown by 10 %, and
/// placed in a second window, by FarmHash and by rank.
fn million_key_stability(c: &mut Criterion) {
    let mut keys = generate(KeyKind::UuidV4, KEYS + KEYS / 10, 1).unwrap();
    let added = keys.split_off(KEYS as usize);
    let placement = placement(HashMode::Farm, Reduction::Mod);
    let mut group = c.benchmark_group("spread: stability of 1M keys");
    group.sample_size(10);
    group.bench_function("farm mod, +10 % keys and W + 1 h", |b| {
        b.iter(|| stability(placement, black_box(&keys), &added, 90_000, 3_600).unwrap())
    });
    group.finish();
}

/// A whole panel run (placing, both functions, stability, look-up) for
/// the default page and for larger key counts without Ruby.
fn panel_runs(c: &mut Criterion) {
    let mut group = c.benchmark_group("spread: panel run");
    group.sample_size(10);
    for query in [
        "",
        "n=20000",
        "fn2=murmur&n=10000",
        "fn2=murmur&n=100000",
        "fn2=murmur&n=1000000",
    ] {
        let (state, _) = State::from_query(&format!("v=1&p=hash&s=1&{query}"));
        group.bench_function(format!("default {query}"), |b| {
            b.iter(|| run(black_box(&state.hash_spread), 1).unwrap())
        });
    }
    group.finish();
}

/// The default page as a reader drags N up from 1,000 to Ruby's cap of
/// 20,000 in 20 moves, each 16 % more ids: one fresh run per move, against
/// one [`HashSpreadCache`] kept across the moves as the page keeps it.
fn drag_of_n(c: &mut Criterion) {
    let states: Vec<State> = (0..20)
        .map(|step| {
            let keys = (1_000.0 * 20f64.powf(f64::from(step) / 19.0)).round();
            State::from_query(&format!("v=1&p=hash&s=1&n={keys}")).0
        })
        .collect();
    let mut group = c.benchmark_group("spread: a drag of N, 1,000 to 20,000 in 20 moves");
    group.sample_size(10);
    group.bench_function("fresh runs", |b| {
        b.iter(|| {
            for state in &states {
                black_box(run(&state.hash_spread, 1).unwrap());
            }
        })
    });
    group.bench_function("one run cache", |b| {
        b.iter(|| {
            let mut cache = HashSpreadCache::default();
            for state in &states {
                black_box(cache.run(&state.hash_spread, 1).unwrap());
            }
        })
    });
    group.finish();
}

criterion::criterion_group!(
    benches,
    panel_runs,
    drag_of_n,
    million_keys_per_hash,
    hundred_thousand_keys_in_ruby_mode,
    million_key_stability
);
