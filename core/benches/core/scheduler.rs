use std::hint::black_box;

use criterion::{Criterion, criterion_group};
use rand::Rng;
use stampede_core::rng::{Purpose, seeded};
use stampede_core::scheduler::{Micros, Scheduler};

const GAPS: Purpose = Purpose::new("bench.scheduler.gaps");
const PENDING: u64 = 1_000;
const PAIRS: u64 = 1_000_000;
/// New events land up to this far after the one just popped, so the heap
/// keeps a spread of times rather than a queue in arrival order.
const MAX_GAP: u32 = 1_000;

/// A steady state of about `PENDING` events: each pop of the earliest
/// schedules one new event at a seeded pseudo-random later time. Returns a
/// checksum of the payloads so the work cannot be optimised away.
fn push_pop_pairs(seed: u64) -> u64 {
    let mut gaps = seeded(seed, GAPS);
    let mut gap = move || Micros::from(gaps.next_u32() % MAX_GAP + 1);
    let mut scheduler = Scheduler::new();
    for payload in 0..PENDING {
        scheduler.schedule(gap(), 0, payload).unwrap();
    }
    let mut checksum = 0;
    for payload in 0..PAIRS {
        let now = scheduler.next_due().unwrap_or_default();
        if let Some(fired) = scheduler.pop_ready(now) {
            checksum ^= fired.payload;
        }
        // Four priorities so ties are broken on more than time alone.
        scheduler
            .schedule(now + gap(), (payload % 4) as u8, payload)
            .unwrap();
    }
    checksum
}

fn scheduler_push_pop(c: &mut Criterion) {
    let mut group = c.benchmark_group("scheduler");
    group.sample_size(10);
    group.bench_function("1M push-pop pairs, 1k pending", |b| {
        b.iter(|| push_pop_pairs(black_box(1)))
    });
    group.finish();
}

criterion_group!(benches, scheduler_push_pop);
