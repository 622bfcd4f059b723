//! The simulation with reports on the accounts' locks, and with a
//! downstream that is limited or down, retried with backoff.

use stampede_core::backoff::{self, Backoff};
use stampede_core::dist::Dist;
use stampede_core::hash_spread::HashMode;
use stampede_core::sim::{
    self, Autoscaler, Downstream, MAX_JOBS, Reports, SimParams, Simulation, SyncSchedule,
};

use crate::sim::{constant, params, run, scaler};

pub(crate) fn with_reports(params: SimParams, duration: Dist, shift_seconds: u32) -> SimParams {
    SimParams {
        reports: Some(Reports {
            duration,
            shift_seconds,
        }),
        ..params
    }
}

pub(crate) fn downstream(
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

/// Reports, a downstream that is down and limited, retries and an autoscaler
/// all stepped through: any chunks, even repeated, NaN or past the
/// horizon, give the run of one call, and progress moves with them.
#[test]
fn stepping_in_chunks_equals_one_run() {
    let lognormal = Dist::lognormal(0.5, 1.0).unwrap();
    let downstream = downstream(
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
                params(2_000, 4, lognormal.clone(), strategy.clone()),
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
    // Waits 0, 15, 30 and 45 s, and the six jobs still parked count
    // theirs so far, 60 + 50 + … + 10 s: (90 + 210) / 10, at least.
    assert_eq!(summary.never_started, 6);
    assert_eq!(summary.mean_wait_s, 30.0);
    assert!(summary.mean_is_lower_bound());
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
        downstream: Some(downstream(
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

/// The herd of 5,000 meets a downstream down for its first 600 s, on 1,000
/// workers: refused calls hold them 1 s, so the herd fails in five
/// waves at 1–5 s. Without jitter each wave retries after 10, 20, 40, 80,
/// 160 and 320 s, every retry before 600 s is refused, and the sixth
/// brings all 5,000 back at 636–640 s, within one minute. Full jitter
/// draws each wait uniformly below those, so the returns spread out.
#[test]
fn jitterless_retries_return_in_one_spike_that_full_jitter_flattens() {
    let after_outage = |retry| {
        let params = SimParams {
            downstream: Some(downstream(None, Some((0, 600)), retry, 10)),
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
            ..downstream(Some(5), None, backoff::RetryStrategy::Constant, 100)
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
fn reports_and_a_downstream_replay_with_their_seed() {
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
            downstream: Some(downstream(
                Some(2),
                Some((2_000, 2_300)),
                backoff::RetryStrategy::FullJitter,
                3,
            )),
            ..with_reports(
                params(5_000, 8, lognormal.clone(), strategy.clone()),
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
fn reports_and_downstream_limits_name_the_field() {
    let good = SimParams {
        downstream: Some(downstream(
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
        downstream: Some(downstream(
            Some(50),
            None,
            backoff::RetryStrategy::Exponential,
            3,
        )),
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
            schedule: SyncSchedule::UniformJitter { window_seconds },
            ..windowed.clone()
        };
        assert_eq!(
            sim::simulate(&outside, 1).unwrap_err().field,
            "window_seconds"
        );
    }
}
