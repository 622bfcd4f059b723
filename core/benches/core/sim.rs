use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use stampede_core::backoff::{self, Backoff};
use stampede_core::dist::fit_mean_p90;
use stampede_core::hash_spread::HashMode;
use stampede_core::queue::{self, QueueParams};
use stampede_core::sim::{self, Autoscaler, Downstream, Reports, SimParams, SyncSchedule};

/// The target: a week, 100k accounts, 15 workers, a 13-hour cycle
/// (13 syncs per account, 1.3M jobs) and a mean duration of 5.62 s, so
/// that the load is ρ = 2.137 jobs/s × 5.62 s / 15 ≈ 0.8. The cycle has
/// gcd(46,800, 65,535) = 15 slots, as the talk's plan would give it.
fn week(strategy: SyncSchedule) -> SimParams {
    SimParams::new(
        100_000,
        15,
        46_800,
        604_800,
        fit_mean_p90(5.62, 11.0).unwrap().dist().clone(),
        strategy,
    )
}

fn week_of_syncs(c: &mut Criterion) {
    let mut group = c.benchmark_group("sim: week, 100k accounts, 15 workers");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    let strategies = [
        ("herd", SyncSchedule::Herd),
        (
            "uniform jitter",
            SyncSchedule::UniformJitter {
                window_seconds: 46_800,
            },
        ),
        ("poisson", SyncSchedule::Poisson),
        ("hash spread", SyncSchedule::HashSpread(HashMode::Farm)),
        ("slots", SyncSchedule::Slots { slots: 15 }),
        ("self-rescheduling", SyncSchedule::SelfRescheduling),
        (
            "least recently synced",
            SyncSchedule::LeastRecentlySynced {
                every_seconds: 300,
                batch: 641,
                spread_seconds: 240,
            },
        ),
    ];
    for (name, strategy) in strategies {
        let params = week(strategy);
        group.bench_function(name, |b| {
            b.iter(|| sim::simulate(black_box(&params), 1).unwrap())
        });
    }
    // The herd again, workers scaled between 15 and 150 by an autoscaler
    // checking every 10 s: about 60,000 checks more.
    let scaled = SimParams {
        autoscaler: Some(Autoscaler {
            target_depth_per_worker: 100,
            check_seconds: 10,
            up_delay_seconds: 60,
            down_delay_seconds: 600,
            min_workers: 15,
            max_workers: 150,
        }),
        ..week(SyncSchedule::Herd)
    };
    group.bench_function("herd, autoscaled", |b| {
        b.iter(|| sim::simulate(black_box(&scaled), 1).unwrap())
    });
    // Slots with reports opposite the syncs on 20 workers (ρ ≈ 0.82 with
    // 2 s reports), a downstream limited to 20 calls a second that is down
    // for an hour on the second day, and full-jitter retries: 2.6M first
    // attempts.
    let reports_and_downstream = SimParams {
        workers: 20,
        reports: Some(Reports {
            duration: fit_mean_p90(2.0, 4.0).unwrap().dist().clone(),
            shift_seconds: 23_400,
        }),
        downstream: Some(Downstream {
            rate_limit_per_second: Some(20),
            outage: Some((86_400 + 36_000, 86_400 + 39_600)),
            retry: Backoff::new(backoff::RetryStrategy::FullJitter, 1.0, 2.0, 300.0).unwrap(),
            max_retries: 8,
        }),
        ..week(SyncSchedule::Slots { slots: 15 })
    };
    group.bench_function("slots, reports and a downstream", |b| {
        b.iter(|| sim::simulate(black_box(&reports_and_downstream), 1).unwrap())
    });
    group.finish();
}

/// The Queue panel at its defaults (herd against slots, 2,000 accounts
/// hourly for a day: 96,000 jobs) on the workers a drag of the Workers
/// slider passes through: the run each step of that drag makes, reading
/// what the step before kept (the sync durations, and the slots lane,
/// which no job waits in from 16 workers up), and a run drawing its own.
fn queue_drag(c: &mut Criterion) {
    let mut group = c.benchmark_group("queue panel: defaults");
    let mut kept = queue::Kept::default();
    for workers in [4, 16, 256] {
        let params = QueueParams {
            workers,
            ..QueueParams::default()
        };
        group.bench_function(format!("{workers} workers"), |b| {
            b.iter(|| queue::run_reading(black_box(&params), 1, &mut kept).unwrap())
        });
    }
    group.bench_function("16 workers, durations drawn", |b| {
        let params = QueueParams {
            workers: 16,
            ..QueueParams::default()
        };
        b.iter(|| queue::run(black_box(&params), 1).unwrap())
    });
    group.finish();
}

criterion::criterion_group!(benches, week_of_syncs, queue_drag);
