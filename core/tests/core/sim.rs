use stampede_core::backoff::{self, Backoff};
use stampede_core::dist::Dist;
use stampede_core::hash_spread::HashMode;
use stampede_core::sim::{
    self, Autoscaler, Downstream, MAX_JOBS, MAX_POINTS, Reports, SimParams, SimRun, Simulation,
    SyncSchedule, erlang_c, mm_c_mean_wait,
};

fn params(accounts: u32, workers: u32, duration: Dist, strategy: SyncSchedule) -> SimParams {
    SimParams::new(accounts, workers, 3_600, 7_200, duration, strategy)
}

fn constant(seconds: f64) -> Dist {
    Dist::constant(seconds).unwrap()
}

fn run(params: &SimParams) -> SimRun {
    sim::simulate(params, 7).unwrap()
}

#[test]
fn erlang_c_matches_closed_forms() {
    // Σ_{k<c} aᵏ/k! against aᶜ/c!·c/(c − a) by hand: c = 2, a = 1 gives
    // 1 / (2 + 1) = 1/3; c = 3, a = 2 gives 4 / (5 + 4) = 4/9; one server
    // waits with probability ρ.
    for (servers, load, expected) in [(2, 1.0, 1.0 / 3.0), (3, 2.0, 4.0 / 9.0), (1, 0.7, 0.7)] {
        let c = erlang_c(servers, load).unwrap();
        assert!((c - expected).abs() < 1e-12, "C({servers}, {load}) = {c}");
    }
    // The textbook M/M/4 at a = 2: C = (4/3) / (19/3 + 4/3) = 4/23
    // (0.173913), mean wait C / (cμ − λ) = (4/23) / 2 for μ = 1, λ = 2.
    assert!((erlang_c(4, 2.0).unwrap() - 4.0 / 23.0).abs() < 1e-12);
    assert!((mm_c_mean_wait(2.0, 1.0, 4).unwrap() - 2.0 / 23.0).abs() < 1e-12);
    // M/M/1: ρ / (μ − λ) = 0.5 / (2 − 1).
    assert!((mm_c_mean_wait(1.0, 0.5, 1).unwrap() - 0.5).abs() < 1e-12);
}

#[test]
fn erlang_c_rejects_unstable_or_empty_queues() {
    assert_eq!(erlang_c(0, 0.5).unwrap_err().field, "servers");
    for load in [4.0, 5.0, -0.1, f64::NAN] {
        assert_eq!(erlang_c(4, load).unwrap_err().field, "offered_load");
    }
    assert_eq!(
        mm_c_mean_wait(0.0, 1.0, 2).unwrap_err().field,
        "arrival_rate"
    );
}

/// Poisson arrivals at 1 job/s with exponential durations form an M/M/c
/// queue, whose mean wait is the Erlang C formula's.
#[test]
fn poisson_with_exponential_durations_waits_as_erlang_c_says() {
    // The mean wait scatters from seed to seed (standard deviations over
    // 20 to 40 seeds, release build): at ρ = 0.5, 1.3 % with 1M jobs and
    // 0.7 % with 2M; at ρ = 0.8, 0.8 % with 2M; at ρ = 0.9 (c = 15), 2.7 %
    // with 1M and 1.2 % with 4M. These counts put 3 % at 2.5 standard
    // deviations or more; 1M jobs each would not at ρ ≥ 0.8. They keep
    // this test near 5 s in a debug build (1M jobs take about 0.5 s).
    for (workers, load, jobs) in [
        (4, 0.5, 2_000_000),
        (4, 0.8, 2_000_000),
        (15, 0.9, 4_000_000),
    ] {
        let mean_service = load * f64::from(workers);
        let params = SimParams::new(
            1_000,
            workers,
            1_000,
            jobs,
            Dist::exponential(1.0 / mean_service).unwrap(),
            SyncSchedule::Poisson,
        );
        let summary = sim::simulate(&params, 1).unwrap().summary;
        let theory = mm_c_mean_wait(1.0, mean_service, workers).unwrap();
        let error = summary.mean_wait_s / theory - 1.0;
        assert!(
            error.abs() < 0.03,
            "c = {workers}, ρ = {load}: mean wait {} s, Erlang C {theory} s",
            summary.mean_wait_s
        );
        // Utilization is ρ, with far less scatter than the wait.
        assert!((summary.utilization / load - 1.0).abs() < 0.01);
        let jobs = f64::from(jobs);
        assert!((summary.jobs_enqueued as f64 / jobs - 1.0).abs() < 0.01);
    }
}

/// Every account at the cycle start, 10 workers, 0.1 s a job: the k-th
/// job of a cycle (from 0) waits ⌊k / 10⌋ · 0.1 s, so the waits are known
/// exactly.
#[test]
fn herd_queues_every_account_at_the_cycle_start() {
    let run = run(&params(10_000, 10, constant(0.1), SyncSchedule::Herd));
    let summary = &run.summary;
    assert_eq!(summary.jobs_enqueued, 20_000);
    assert_eq!(summary.jobs_done, 20_000);
    assert_eq!(summary.max_queue_depth, 9_990);
    // Mean of ⌊k / 10⌋ over k < 10,000 is 499.5; nearest ranks 10,000,
    // 19,000 and 19,800 of 20,000 are k = 4,999, 9,499 and 9,899.
    assert!((summary.mean_wait_s - 49.95).abs() < 1e-9);
    assert_eq!(
        [summary.p50_wait_s, summary.p95_wait_s, summary.p99_wait_s],
        [49.9, 94.9, 98.9]
    );
    assert!((summary.utilization - 2_000.0 / 72_000.0).abs() < 1e-12);
    assert_eq!(summary.never_synced, 0);
    // The spike: the whole herd in the first minute of each cycle, 4,000
    // left when the second minute opens (600 jobs a minute start), nothing
    // once the 100 s of work are done.
    assert_eq!(run.bin_seconds, 60);
    assert_eq!(run.queue_depth.len(), 120);
    for (bin, (&depth, &ingress)) in run.queue_depth.iter().zip(&run.ingress).enumerate() {
        let cycle_start = bin % 60 == 0;
        assert_eq!(
            depth,
            if cycle_start {
                9_990
            } else if bin % 60 == 1 {
                4_000
            } else {
                0
            }
        );
        assert_eq!(ingress, if cycle_start { 10_000 } else { 0 }, "bin {bin}");
    }
    assert_eq!(run.executing[0], 10.0);
    assert_eq!(run.executing[2], 0.0);
    assert_eq!(run.done[0] + run.done[1], 10_000);
    assert_eq!(run.wait_histogram.iter().sum::<u32>(), 20_000);
}

/// 60,000 accounts over a one-hour cycle put 1,000 a minute into the
/// queue on average; a binomial count of that mean varies by about 32, so
/// 150 is beyond four and a half standard deviations in every one of the
/// 120 minutes.
fn assert_flat_ingress(strategy: SyncSchedule) {
    let run = run(&params(60_000, 100, constant(1.0), strategy));
    for (bin, &ingress) in run.ingress.iter().enumerate() {
        assert!(
            ingress.abs_diff(1_000) < 150,
            "{strategy:?}, minute {bin}: {ingress}"
        );
    }
    // 16.7 jobs/s against 100 jobs/s of capacity: never a long queue.
    assert!(run.summary.max_queue_depth < 100, "{strategy:?}");
    assert!(run.summary.p99_wait_s < 1.0, "{strategy:?}");
}

#[test]
fn jitter_hash_spread_and_poisson_keep_ingress_flat() {
    for strategy in [
        SyncSchedule::UniformJitter {
            window_seconds: 3_600,
        },
        SyncSchedule::HashSpread(HashMode::Farm),
        SyncSchedule::HashSpread(HashMode::Murmur),
        SyncSchedule::Poisson,
    ] {
        assert_flat_ingress(strategy);
    }
}

/// 15 slots of 4 minutes: each slot's accounts enter the queue at its
/// start, a fifteenth of the herd, and fall due spread over the slot.
#[test]
fn slots_enqueue_a_slot_at_a_time_and_run_evenly() {
    let run = run(&params(
        60_000,
        100,
        constant(1.0),
        SyncSchedule::Slots { slots: 15 },
    ));
    for (bin, &ingress) in run.ingress.iter().enumerate() {
        if bin % 4 == 0 {
            assert!(ingress.abs_diff(4_000) < 400, "minute {bin}: {ingress}");
        } else {
            assert_eq!(ingress, 0, "minute {bin}");
        }
    }
    for (bin, &done) in run.done.iter().enumerate() {
        assert!(done.abs_diff(1_000) < 150, "minute {bin}: {done}");
    }
    assert!(run.summary.max_queue_depth < 100);
    assert_eq!(run.summary.jobs_enqueued, 120_000);
    // Only jobs due in the last second can still be running at the end.
    assert!(run.summary.jobs_done > 119_900);
}

#[test]
fn slots_must_divide_the_cycle() {
    for slots in [0, 7] {
        let error = sim::simulate(
            &params(10, 1, constant(1.0), SyncSchedule::Slots { slots }),
            1,
        );
        assert_eq!(error.unwrap_err().field, "slots");
    }
}

/// The successor is due one cycle after the finish, so each sync drifts
/// by its duration: with 10 s jobs and a 100 s cycle an account syncs
/// every 110 s, 9 or 10 times in 1,000 s where a fixed cycle gives 10.
#[test]
fn self_rescheduling_drifts_by_the_job_duration() {
    let params = SimParams::new(
        1_000,
        1_000,
        100,
        1_000,
        constant(10.0),
        SyncSchedule::SelfRescheduling,
    );
    let summary = run(&params).summary;
    assert!(
        (9_000..10_000).contains(&summary.jobs_enqueued),
        "{summary:?}"
    );
    assert_eq!(summary.p99_wait_s, 0.0);
    assert_eq!(summary.never_synced, 0);
    let herd = run(&SimParams {
        strategy: SyncSchedule::Herd,
        ..params
    });
    assert_eq!(herd.summary.jobs_enqueued, 10_000);
}

/// Batches of 100 every minute pick never-synced accounts first, so 1,000
/// accounts are each synced once after 10 batches, and 100 are still
/// waiting for their first sync after 9.
#[test]
fn least_recently_synced_batches_reach_every_account_in_turn() {
    let strategy = SyncSchedule::LeastRecentlySynced {
        every_seconds: 60,
        batch: 100,
        spread_seconds: 30,
    };
    for (horizon, never_synced) in [(540, 100), (600, 0)] {
        let params = SimParams::new(1_000, 50, 600, horizon, constant(1.0), strategy);
        let summary = run(&params).summary;
        assert_eq!(summary.jobs_enqueued, u64::from(horizon / 60) * 100);
        assert_eq!(summary.never_synced, never_synced, "horizon {horizon}");
    }
}

/// One worker cannot keep up with 100 jobs of 10 s a minute; accounts
/// still queued count as unsynced and are picked again and again, the
/// spiral the talk describes.
#[test]
fn least_recently_synced_repicks_accounts_stuck_in_the_queue() {
    let params = SimParams::new(
        1_000,
        1,
        600,
        3_600,
        constant(10.0),
        SyncSchedule::LeastRecentlySynced {
            every_seconds: 60,
            batch: 100,
            spread_seconds: 0,
        },
    );
    let summary = run(&params).summary;
    assert_eq!(summary.jobs_enqueued, 6_000);
    assert_eq!(summary.jobs_done, 359);
    // Each batch re-picks the unsynced accounts still in the queue, so the
    // 359 syncs done reach only 112 distinct accounts. No randomness is
    // involved (constant durations, no spread), so the count is exact.
    assert_eq!(summary.never_synced, 888);
    assert!(summary.max_queue_depth > 5_000);
}

#[test]
fn same_seed_same_run_other_seed_other_run() {
    let lognormal = Dist::lognormal(0.5, 1.0).unwrap();
    for strategy in [
        SyncSchedule::UniformJitter {
            window_seconds: 3_600,
        },
        SyncSchedule::Poisson,
        SyncSchedule::SelfRescheduling,
        SyncSchedule::LeastRecentlySynced {
            every_seconds: 300,
            batch: 2_000,
            spread_seconds: 120,
        },
    ] {
        let params = params(20_000, 8, lognormal.clone(), strategy);
        let first = sim::simulate(&params, 11).unwrap();
        assert_eq!(first, sim::simulate(&params, 11).unwrap(), "{strategy:?}");
        assert_ne!(first, sim::simulate(&params, 12).unwrap(), "{strategy:?}");
    }
}

#[test]
fn series_add_up_to_the_summary() {
    let params = SimParams {
        horizon_seconds: 604_800,
        cycle_seconds: 86_400,
        ..params(
            5_000,
            3,
            Dist::exponential(0.2).unwrap(),
            SyncSchedule::UniformJitter {
                window_seconds: 86_400,
            },
        )
    };
    let run = run(&params);
    // A week of minutes is 10,080: bins of 6 minutes keep it under 2,000.
    assert_eq!(run.bin_seconds, 360);
    assert_eq!(run.ingress.len(), 1_680);
    assert!(run.ingress.len() <= MAX_POINTS as usize);
    let total = |series: &[u32]| series.iter().map(|&n| u64::from(n)).sum::<u64>();
    assert_eq!(total(&run.ingress), run.summary.jobs_enqueued);
    assert_eq!(total(&run.done), run.summary.jobs_done);
    assert_eq!(run.summary.jobs_enqueued, 35_000);
    assert!(run.workers.iter().all(|&ready| ready == 3.0));
    let mean_busy = run.executing.iter().sum::<f64>() / run.executing.len() as f64;
    assert!((mean_busy / 3.0 - run.summary.utilization).abs() < 1e-9);
    assert!(
        run.queue_depth.iter().map(|&d| u64::from(d)).max() == Some(run.summary.max_queue_depth)
    );
    let summary = &run.summary;
    assert!(summary.p50_wait_s <= summary.p95_wait_s && summary.p95_wait_s <= summary.p99_wait_s);
    // Every account finishes a sync in each of the 7 days, so intervals
    // number one fewer per account than its syncs; the histogram spans the
    // shortest to the longest (whole microseconds, so within 1 µs).
    let gaps = &run.sync_interval_histogram;
    assert_eq!(summary.never_synced, 0);
    assert_eq!(total(gaps), summary.jobs_done - 5_000);
    assert!(gaps[0] > 0 && gaps[49] > 0);
    let end = run.sync_interval_start_seconds + 50.0 * run.sync_interval_bin_seconds;
    assert!(end > summary.max_sync_interval_s);
    assert!(end - run.sync_interval_bin_seconds <= summary.max_sync_interval_s + 1e-6);
}

#[test]
fn bad_input_names_the_field() {
    let good = params(100, 2, constant(1.0), SyncSchedule::Herd);
    let field = |params: SimParams| sim::simulate(&params, 1).unwrap_err().field;
    assert_eq!(
        field(SimParams {
            accounts: 0,
            ..good.clone()
        }),
        "accounts"
    );
    assert_eq!(
        field(SimParams {
            accounts: 1_000_001,
            ..good.clone()
        }),
        "accounts"
    );
    assert_eq!(
        field(SimParams {
            workers: 0,
            ..good.clone()
        }),
        "workers"
    );
    assert_eq!(
        field(SimParams {
            workers: 10_001,
            ..good.clone()
        }),
        "workers"
    );
    assert_eq!(
        field(SimParams {
            cycle_seconds: 0,
            ..good.clone()
        }),
        "cycle_seconds"
    );
    // A cycle past 90 days would overflow the time bits of an event key.
    assert_eq!(
        field(SimParams {
            cycle_seconds: 90 * 86_400 + 1,
            ..good.clone()
        }),
        "cycle_seconds"
    );
    assert_eq!(
        field(SimParams {
            horizon_seconds: 0,
            ..good.clone()
        }),
        "horizon_seconds"
    );
    assert_eq!(
        field(SimParams {
            horizon_seconds: 90 * 86_400 + 1,
            ..good.clone()
        }),
        "horizon_seconds"
    );
    // A million accounts synced every minute for a day: 1.44 billion jobs.
    let huge = SimParams {
        accounts: 1_000_000,
        cycle_seconds: 60,
        horizon_seconds: 86_400,
        ..good.clone()
    };
    assert_eq!(field(huge), "horizon_seconds");
    let ruby = SimParams {
        accounts: 20_001,
        strategy: SyncSchedule::HashSpread(HashMode::Ruby),
        ..good.clone()
    };
    assert_eq!(field(ruby), "accounts");
    let batches = |every_seconds, batch, spread_seconds| SimParams {
        strategy: SyncSchedule::LeastRecentlySynced {
            every_seconds,
            batch,
            spread_seconds,
        },
        ..good.clone()
    };
    assert_eq!(field(batches(0, 10, 0)), "every_seconds");
    assert_eq!(field(batches(60, 0, 0)), "batch");
    assert_eq!(field(batches(60, 101, 0)), "batch");
    assert_eq!(field(batches(60, 10, 61)), "spread_seconds");
}

/// Durations far beyond the horizon keep their workers busy to the end
/// and never finish.
#[test]
fn jobs_longer_than_the_horizon_never_finish() {
    let run = run(&params(100, 4, constant(1e9), SyncSchedule::Herd));
    assert_eq!(run.summary.jobs_done, 0);
    assert_eq!(run.summary.never_synced, 100);
    assert!((run.summary.utilization - 1.0).abs() < 1e-12);
    assert_eq!(run.summary.max_queue_depth, 196);
}

fn scaler() -> Autoscaler {
    Autoscaler {
        target_depth_per_worker: 100,
        check_seconds: 10,
        up_delay_seconds: 30,
        down_delay_seconds: 300,
        min_workers: 10,
        max_workers: 100,
    }
}

/// The herd of 10,000 one-second jobs at 10 workers: the check at 10 s
/// sees 10 busy and 9,890 waiting, wants 10 + 99, gets the maximum of
/// 100, and they are ready at 40 s. The first minute thus averages
/// (10·40 + 100·20) / 60 = 40 workers, and the herd is gone after about
/// 40 + 9,590 / 100 = 136 s instead of 1,000 s.
#[test]
fn autoscaler_meets_the_herd_and_shrinks_after_it() {
    let params = SimParams {
        autoscaler: Some(scaler()),
        ..params(10_000, 10, constant(1.0), SyncSchedule::Herd)
    };
    let run = run(&params);
    assert!((run.workers[0] - 40.0).abs() < 1e-9, "{}", run.workers[0]);
    assert_eq!(run.workers[1], 100.0);
    // Idle from about 136 s, the 90 extra workers go 300 s later.
    assert_eq!(run.workers[9], 10.0);
    assert_eq!(run.workers[59], 10.0);
    let summary = &run.summary;
    assert_eq!(summary.jobs_done, 20_000);
    assert!((130.0..140.0).contains(&summary.p99_wait_s), "{summary:?}");
    let ready_seconds: f64 = run.workers.iter().map(|w| w * 60.0).sum();
    assert!((summary.utilization - 20_000.0 / ready_seconds).abs() < 1e-9);
    // Without it, the last job of a cycle waits 999 s.
    let fixed = self::run(&SimParams {
        autoscaler: None,
        ..params
    });
    assert_eq!(fixed.summary.p99_wait_s, 989.0);
}

#[test]
fn autoscaler_limits_name_the_field() {
    let with = |autoscaler: Autoscaler, workers: u32| SimParams {
        autoscaler: Some(autoscaler),
        ..params(100, workers, constant(1.0), SyncSchedule::Herd)
    };
    let field = |params: SimParams| sim::simulate(&params, 1).unwrap_err().field;
    let cases = [
        (
            Autoscaler {
                target_depth_per_worker: 0,
                ..scaler()
            },
            10,
            "target_depth_per_worker",
        ),
        (
            Autoscaler {
                check_seconds: 0,
                ..scaler()
            },
            10,
            "check_seconds",
        ),
        (
            Autoscaler {
                up_delay_seconds: 90 * 86_400 + 1,
                ..scaler()
            },
            10,
            "up_delay_seconds",
        ),
        (
            Autoscaler {
                down_delay_seconds: 90 * 86_400 + 1,
                ..scaler()
            },
            10,
            "down_delay_seconds",
        ),
        (
            Autoscaler {
                max_workers: 10_001,
                ..scaler()
            },
            10,
            "max_workers",
        ),
        (
            Autoscaler {
                min_workers: 0,
                ..scaler()
            },
            10,
            "min_workers",
        ),
        (
            Autoscaler {
                min_workers: 101,
                ..scaler()
            },
            10,
            "min_workers",
        ),
        (scaler(), 9, "workers"),
        (scaler(), 101, "workers"),
    ];
    for (autoscaler, workers, expected) in cases {
        assert_eq!(field(with(autoscaler, workers)), expected);
    }
}

fn with_reports(params: SimParams, duration: Dist, shift_seconds: u32) -> SimParams {
    SimParams {
        reports: Some(Reports {
            duration,
            shift_seconds,
        }),
        ..params
    }
}

fn bank(
    rate_limit_per_second: Option<u32>,
    outage: Option<(u32, u32)>,
    retry: backoff::RetryStrategy,
    max_retries: u32,
) -> Downstream {
    Downstream {
        rate_limit_per_second,
        outage,
        retry: Backoff::new(retry, 10.0, 2.0, 600.0).unwrap(),
        max_retries,
    }
}

/// Reports, a bank that is down and limited, retries and an autoscaler
/// all stepped through: any chunks, even repeated, NaN or past the
/// horizon, give the run of one call, and progress moves with them.
#[test]
fn stepping_in_chunks_equals_one_run() {
    let lognormal = Dist::lognormal(0.5, 1.0).unwrap();
    let downstream = bank(
        Some(3),
        Some((1_000, 1_600)),
        backoff::RetryStrategy::Decorrelated,
        4,
    );
    for strategy in [
        SyncSchedule::Herd,
        SyncSchedule::SelfRescheduling,
        SyncSchedule::LeastRecentlySynced {
            every_seconds: 300,
            batch: 500,
            spread_seconds: 120,
        },
    ] {
        let params = SimParams {
            downstream: Some(downstream),
            autoscaler: Some(Autoscaler {
                min_workers: 4,
                max_workers: 40,
                ..scaler()
            }),
            ..with_reports(
                params(2_000, 4, lognormal.clone(), strategy),
                constant(2.0),
                0,
            )
        };
        let straight = sim::simulate(&params, 3).unwrap();
        assert!(straight.summary.failed_calls > 0 && straight.summary.retries > 0);
        let mut stepped = Simulation::new(&params, 3).unwrap();
        let mut progress = 0.0;
        for seconds in [
            -5.0,
            0.0,
            0.5,
            17.25,
            17.25,
            1_000.0,
            3_600.0,
            f64::NAN,
            5_000.5,
        ] {
            stepped.run_until(seconds);
            assert!(stepped.progress() >= progress);
            progress = stepped.progress();
        }
        // 3,600 s of a 7,200 s horizon were reached by the seventh step.
        assert!(progress > 0.5 && progress < 1.0);
        stepped.run_until(1e12);
        assert_eq!(stepped.progress(), 1.0);
        assert_eq!(stepped.finish(), straight, "{strategy:?}");
    }
}

/// Shift 0 puts every report on its account's sync. Under hash spread,
/// with workers to spare, the sync (first in key order) starts at its due
/// time and its report, due at the same microsecond, finds the lock held,
/// waits the sync's 1 s parked, and then runs: every report conflicts
/// exactly once. The herd queues them as s₀, r₀, s₁, r₁, …, so each report
/// reaches a worker right after its own sync took one, again once each.
#[test]
fn reports_on_their_syncs_conflict_once_each() {
    let hash = with_reports(
        params(
            3_000,
            100,
            constant(1.0),
            SyncSchedule::HashSpread(HashMode::Farm),
        ),
        constant(2.0),
        0,
    );
    let summary = run(&hash).summary;
    assert_eq!(summary.jobs_enqueued, 12_000);
    assert_eq!(summary.lock_conflicts, 6_000);
    assert_eq!(summary.lock_wait_s, 6_000.0);
    // The herd's backlog of 2,000 jobs of 1 s on 10 workers clears in
    // 200 s, long before the next cycle.
    let herd = with_reports(
        params(1_000, 10, constant(1.0), SyncSchedule::Herd),
        constant(1.0),
        0,
    );
    let run = run(&herd);
    assert_eq!(run.summary.lock_conflicts, 2_000);
    let conflicts_by_cycle = run
        .lock_conflicts
        .chunks(60)
        .map(|cycle| cycle.iter().sum::<u32>());
    assert!(conflicts_by_cycle.eq([1_000, 1_000]));
    assert_eq!(run.summary.jobs_done, 4_000);
}

/// Slots with reports half a cycle (1,800 s) after their syncs: an
/// account's jobs fall due exactly 1,800 s apart, so one can meet the
/// lock of the one before only if that one waited and ran for 1,800 s.
/// With 1 s jobs, a longest wait under 1,799 s rules out every conflict.
/// The same slots with shift 0 conflict once per report.
#[test]
fn reports_opposite_their_syncs_in_slots_never_conflict() {
    let slots = |shift| {
        with_reports(
            params(20_000, 50, constant(1.0), SyncSchedule::Slots { slots: 15 }),
            constant(1.0),
            shift,
        )
    };
    let opposite = run(&slots(1_800));
    let last_bin = opposite
        .wait_histogram
        .iter()
        .rposition(|&count| count > 0)
        .unwrap();
    let longest_wait = (last_bin + 1) as f64 * opposite.wait_bin_seconds;
    assert!(longest_wait + 1.0 < 1_800.0, "{longest_wait}");
    assert_eq!(opposite.summary.lock_conflicts, 0);
    assert_eq!(opposite.summary.jobs_enqueued, 80_000);
    let same = run(&slots(0)).summary;
    assert_eq!(same.lock_conflicts, 40_000);
}

/// One account, batches of it every 10 s (it counts as unsynced while
/// its job runs), jobs of 25 s, five idle workers: the job at 0 runs to
/// 25 s, and every later batch finds the lock held. Each finish sends the
/// longest-parked job to the queue, so jobs run 0–25, 25–50 (parked at
/// 10), 50–75 (parked at 20), 75–100 (parked at 30), one at a time: busy
/// time equals the horizon, one worker of five. Parked at the horizon:
/// the jobs of 40 to 90 s.
#[test]
fn one_job_of_an_account_runs_at_a_time() {
    let params = SimParams::new(
        1,
        5,
        100,
        100,
        constant(25.0),
        SyncSchedule::LeastRecentlySynced {
            every_seconds: 10,
            batch: 1,
            spread_seconds: 0,
        },
    );
    let summary = run(&params).summary;
    assert_eq!(summary.jobs_enqueued, 10);
    assert_eq!(summary.lock_conflicts, 9);
    assert_eq!(summary.utilization, 0.2);
    assert_eq!(summary.jobs_done, 3);
    // Waits 0, 15, 30 and 45 s.
    assert_eq!(summary.mean_wait_s, 22.5);
    // Parked 15 + 30 + 45 s by the jobs that ran, 60 + 50 + … + 10 s by
    // those still parked.
    assert_eq!(summary.lock_wait_s, 300.0);
    assert_eq!(summary.max_sync_interval_s, 25.0);
}

/// Syncs due in an outage with no retries allowed are refused and give
/// up: hash spread with workers to spare starts each sync when due, so
/// the refusals are exactly the syncs due in minutes 10 to 19.
#[test]
fn an_outage_without_retries_gives_up_the_syncs_due_in_it() {
    let params = SimParams {
        downstream: Some(bank(
            None,
            Some((600, 1_200)),
            backoff::RetryStrategy::Exponential,
            0,
        )),
        ..params(
            3_000,
            100,
            constant(1.0),
            SyncSchedule::HashSpread(HashMode::Farm),
        )
    };
    let run = run(&params);
    let summary = &run.summary;
    let due_in_outage: u32 = run.ingress[10..20].iter().sum();
    assert!(due_in_outage > 300, "{due_in_outage}");
    assert_eq!(summary.failed_calls, u64::from(due_in_outage));
    assert_eq!(summary.gave_up, u64::from(due_in_outage));
    assert_eq!(summary.retries, 0);
    assert_eq!(run.failed[10..20], run.ingress[10..20]);
    assert_eq!(run.failed.iter().sum::<u32>(), due_in_outage);
    // Every account syncs again in the second cycle, those that did not
    // give up exactly 3,600 s after the first.
    assert_eq!(summary.never_synced, 0);
    assert_eq!(summary.max_sync_interval_s, 3_600.0);
    assert_eq!(run.sync_interval_start_seconds, 3_600.0);
    let intervals = run.sync_interval_histogram[0];
    assert_eq!(
        u64::from(intervals),
        summary.jobs_done - u64::from(3_000 - summary.never_synced)
    );
    assert_eq!(run.sync_interval_histogram[1..], [0; 49]);
    assert!(sim::estimated_jobs(&params).unwrap() >= summary.jobs_enqueued + summary.retries);
}

/// The herd of 5,000 meets a bank down for its first 600 s, on 1,000
/// workers: refused calls hold them 1 s, so the herd fails in five
/// waves at 1–5 s. Without jitter each wave retries after 10, 20, 40, 80,
/// 160 and 320 s, every retry before 600 s is refused, and the sixth
/// brings all 5,000 back at 636–640 s, within one minute. Full jitter
/// draws each wait uniformly below those, so the returns spread out.
#[test]
fn jitterless_retries_return_in_one_spike_that_full_jitter_flattens() {
    let after_outage = |retry| {
        let params = SimParams {
            downstream: Some(bank(None, Some((0, 600)), retry, 10)),
            ..SimParams::new(
                5_000,
                1_000,
                3_600,
                3_600,
                constant(1.0),
                SyncSchedule::Herd,
            )
        };
        let run = run(&params);
        let busiest = *run.ingress[10..].iter().max().unwrap();
        (run.summary, busiest)
    };
    let (jitterless, spike) = after_outage(backoff::RetryStrategy::Exponential);
    assert_eq!(spike, 5_000);
    assert_eq!(jitterless.failed_calls, 30_000);
    assert_eq!(jitterless.retries, 30_000);
    assert_eq!(jitterless.jobs_done, 5_000);
    // Seed 7 puts 816 in the busiest minute after the outage; a third of
    // the spike leaves room for other seeds while a synchronised return
    // (or jitter that did nothing) fails.
    let (jittered, busiest) = after_outage(backoff::RetryStrategy::FullJitter);
    assert!(busiest < spike / 3, "{busiest}");
    assert_eq!(
        jittered.failed_calls,
        jittered.retries + jittered.gave_up,
        "every refusal retries or gives up"
    );
}

/// A limit of 5 calls a second with instant syncs: a worker's sync is
/// done in the second its call is accepted, so no minute finishes more
/// than 300, and while the herd of 1,000 lasts the limit is what holds it
/// back (49 other workers hold refused calls).
#[test]
fn a_rate_limit_caps_the_calls_accepted_each_second() {
    let params = SimParams {
        downstream: Some(Downstream {
            retry: Backoff::new(backoff::RetryStrategy::Constant, 1.0, 1.0, 1.0).unwrap(),
            ..bank(Some(5), None, backoff::RetryStrategy::Constant, 100)
        }),
        ..params(1_000, 50, constant(0.0), SyncSchedule::Herd)
    };
    let run = run(&params);
    assert!(run.done.iter().all(|&done| done <= 300), "{:?}", run.done);
    assert_eq!(run.done[0], 300);
    assert_eq!(run.done[1], 300);
    assert_eq!(run.summary.jobs_done, 2_000);
    assert!(run.summary.failed_calls > 1_000);
    assert_eq!(
        run.summary.failed_calls,
        run.summary.retries + run.summary.gave_up
    );
    assert!(sim::estimated_jobs(&params).unwrap() >= 2_000 + run.summary.retries);
}

#[test]
fn reports_and_a_bank_replay_with_their_seed() {
    let lognormal = Dist::lognormal(0.5, 1.0).unwrap();
    for strategy in [
        SyncSchedule::UniformJitter {
            window_seconds: 3_600,
        },
        SyncSchedule::Poisson,
        SyncSchedule::HashSpread(HashMode::Murmur),
        SyncSchedule::Slots { slots: 4 },
    ] {
        let params = SimParams {
            downstream: Some(bank(
                Some(2),
                Some((2_000, 2_300)),
                backoff::RetryStrategy::FullJitter,
                3,
            )),
            ..with_reports(
                params(5_000, 8, lognormal.clone(), strategy),
                lognormal.clone(),
                900,
            )
        };
        let first = sim::simulate(&params, 11).unwrap();
        assert!(first.summary.retries > 0, "{strategy:?}");
        assert_eq!(first, sim::simulate(&params, 11).unwrap(), "{strategy:?}");
        assert_ne!(first, sim::simulate(&params, 12).unwrap(), "{strategy:?}");
    }
}

/// The estimate: 100 accounts over 2 cycles is 200 syncs and 200 reports;
/// retries are at most min(200 × 5, 10 workers × (60 outage seconds +
/// 200 / 4 limited seconds)) = 1,000.
#[test]
fn reports_and_bank_limits_name_the_field() {
    let good = SimParams {
        downstream: Some(bank(
            Some(4),
            Some((0, 60)),
            backoff::RetryStrategy::FullJitter,
            5,
        )),
        ..with_reports(
            params(100, 10, constant(1.0), SyncSchedule::Herd),
            constant(1.0),
            0,
        )
    };
    assert_eq!(sim::estimated_jobs(&good).unwrap(), 1_400);
    let field = |params: SimParams| sim::simulate(&params, 1).unwrap_err().field;
    let reports = |shift_seconds| with_reports(good.clone(), constant(1.0), shift_seconds);
    assert_eq!(field(reports(3_600)), "shift_seconds");
    assert!(sim::simulate(&reports(3_599), 1).is_ok());
    let downstream = |downstream: Downstream| SimParams {
        downstream: Some(downstream),
        ..good.clone()
    };
    let base = good.downstream.unwrap();
    let limited = |limit| Downstream {
        rate_limit_per_second: Some(limit),
        ..base
    };
    let outage = |start, end| Downstream {
        outage: Some((start, end)),
        ..base
    };
    assert_eq!(field(downstream(limited(0))), "rate_limit_per_second");
    assert_eq!(field(downstream(outage(60, 60))), "outage");
    assert_eq!(field(downstream(outage(61, 60))), "outage");
    let retries = |max_retries| Downstream {
        max_retries,
        ..base
    };
    assert_eq!(field(downstream(retries(101))), "max_retries");
    // A herd of a million accounts against one call a second could retry
    // for ever: 10 workers × 1,000,000 limited seconds is far above the cap.
    let flood = SimParams {
        accounts: 1_000_000,
        cycle_seconds: 7_200,
        reports: None,
        ..downstream(limited(1))
    };
    assert_eq!(field(flood.clone()), "horizon_seconds");
    assert!(sim::estimated_jobs(&flood).is_err());
    assert!(
        sim::estimated_jobs(&SimParams {
            downstream: None,
            ..flood
        })
        .unwrap()
            <= MAX_JOBS
    );
}

/// The peak second counts sync starts to the second, whatever the bins:
/// 100 workers on 0.5 s syncs start 200 of the herd a second.
#[test]
fn the_peak_second_counts_the_calls_of_each_whole_second() {
    let herd = params(1_000, 100, constant(0.5), SyncSchedule::Herd);
    let plain = run(&herd);
    assert_eq!(plain.bin_seconds, 60);
    assert_eq!(plain.summary.peak_calls_per_second, 200);
    // Reports start on the same workers but call nothing.
    let reports = SimParams {
        reports: Some(Reports {
            duration: constant(0.5),
            shift_seconds: 1_800,
        }),
        ..herd.clone()
    };
    assert_eq!(run(&reports).summary.peak_calls_per_second, 200);
    // Refused calls reach the downstream too: at 0 s all 100 workers call
    // and 50 pass; at 0.5 s the 50 that passed call again, into a used-up
    // second. Each refusal holds its worker for 1 s.
    let limited = SimParams {
        downstream: Some(bank(Some(50), None, backoff::RetryStrategy::Exponential, 3)),
        ..herd
    };
    assert_eq!(run(&limited).summary.peak_calls_per_second, 150);
}

/// Uniform jitter's window holds every first attempt: none falls due after
/// it in any cycle.
#[test]
fn a_jitter_window_holds_every_due_time() {
    let windowed = params(
        6_000,
        500,
        constant(0.1),
        SyncSchedule::UniformJitter {
            window_seconds: 600,
        },
    );
    let run = run(&windowed);
    // One-minute bins: the first 10 of each hour take all 6,000.
    for (minute, &ingress) in run.ingress.iter().enumerate() {
        let in_window = minute % 60 < 10;
        assert_eq!(ingress > 0, in_window, "minute {minute}: {ingress}");
    }
    assert_eq!(run.summary.jobs_enqueued, 12_000);
    for window_seconds in [0, 3_601] {
        let outside = SimParams {
            strategy: SyncSchedule::UniformJitter { window_seconds },
            ..windowed.clone()
        };
        assert_eq!(
            sim::simulate(&outside, 1).unwrap_err().field,
            "window_seconds"
        );
    }
}
