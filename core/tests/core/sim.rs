use stampede_core::dist::Dist;
use stampede_core::hash_spread::HashMode;
use stampede_core::sim::{
    self, Autoscaler, MAX_POINTS, SimParams, SimRun, SyncSchedule, erlang_c, mm_c_mean_wait,
};

pub(crate) fn params(
    accounts: u32,
    workers: u32,
    duration: Dist,
    strategy: SyncSchedule,
) -> SimParams {
    SimParams::new(accounts, workers, 3_600, 7_200, duration, strategy)
}

pub(crate) fn constant(seconds: f64) -> Dist {
    Dist::constant(seconds).unwrap()
}

pub(crate) fn run(params: &SimParams) -> SimRun {
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
    let run = run(&params(60_000, 100, constant(1.0), strategy.clone()));
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
        schedule: SyncSchedule::Herd,
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
        let params = SimParams::new(1_000, 50, 600, horizon, constant(1.0), strategy.clone());
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
        let params = params(20_000, 8, lognormal.clone(), strategy.clone());
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
        schedule: SyncSchedule::HashSpread(HashMode::Ruby),
        ..good.clone()
    };
    assert_eq!(field(ruby), "accounts");
    let batches = |every_seconds, batch, spread_seconds| SimParams {
        schedule: SyncSchedule::LeastRecentlySynced {
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

pub(crate) fn scaler() -> Autoscaler {
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
