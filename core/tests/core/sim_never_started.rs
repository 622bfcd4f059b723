//! Jobs due before the end that never started are ranked at their wait so
//! far, and every figure they could still raise says "at least".

use stampede_core::panels::queue::{never_started, wait_percentile};
use stampede_core::sim::{Reports, SimParams, SyncSchedule};

use crate::sim::{constant, run};

/// One worker, ten jobs due at 0 of 10 s each, 45 s simulated: jobs start
/// at 0, 10, 20, 30 and 40 s; five are still waiting at 45 s, each ranked
/// at 45 s. Waits 0, 10, 20, 30, 40, 45 × 5: the 5th (p50) is 40 s, which
/// no never-started job ranks at or below, the 10th (p95, p99) is 45 s,
/// theirs.
#[test]
fn jobs_still_waiting_at_the_end_are_counted_at_their_wait_so_far() {
    let params = SimParams::new(10, 1, 3_600, 45, constant(10.0), SyncSchedule::Herd);
    let run = run(&params);
    let summary = &run.summary;
    assert_eq!(summary.jobs_enqueued, 10);
    assert_eq!(summary.never_started, 5);
    assert_eq!(summary.least_unstarted_wait_s, Some(45.0));
    assert_eq!(
        [summary.p50_wait_s, summary.p95_wait_s, summary.p99_wait_s],
        [40.0, 45.0, 45.0]
    );
    assert!(!summary.is_lower_bound(summary.p50_wait_s));
    assert!(summary.is_lower_bound(summary.p95_wait_s));
    assert!(summary.is_lower_bound(summary.p99_wait_s));
    assert_eq!(summary.mean_wait_s, 32.5);
    assert!(summary.mean_is_lower_bound());
    assert_eq!(run.waits_ranked(), 10);
    assert_eq!(run.wait_histogram.iter().sum::<u32>(), 10);
    assert_eq!(
        wait_percentile(&run, summary.p50_wait_s, 0.5),
        "40 s (n = 10)"
    );
    assert_eq!(
        wait_percentile(&run, summary.p95_wait_s, 0.95),
        "at least 45 s (n = 10)"
    );
    assert_eq!(
        never_started(summary).as_deref(),
        Some("5 never started; p95 is at least 45 s")
    );
}

/// With time for all ten, nothing is censored and nothing extra is said.
#[test]
fn a_run_that_starts_every_job_due_says_nothing_extra() {
    let params = SimParams::new(10, 1, 3_600, 100, constant(10.0), SyncSchedule::Herd);
    let run = run(&params);
    let summary = &run.summary;
    assert_eq!(summary.never_started, 0);
    assert_eq!(summary.least_unstarted_wait_s, None);
    assert_eq!(summary.p95_wait_s, 90.0);
    assert!(!summary.is_lower_bound(summary.p95_wait_s));
    assert!(!summary.mean_is_lower_bound());
    assert_eq!(summary.mean_wait_s, 45.0);
    assert_eq!(
        wait_percentile(&run, summary.p95_wait_s, 0.95),
        "1 min 30 s (n = 10)"
    );
    assert_eq!(never_started(summary), None);
}

/// A report due with its account's sync finds the lock held and parks;
/// the sync runs past the end, so the report never starts. Its 50 s so far
/// is the larger of the two waits, so p95 is a lower bound and p50 (the
/// sync's 0 s) is not.
#[test]
fn a_job_parked_on_a_lock_at_the_end_never_started() {
    let params = SimParams {
        reports: Some(Reports {
            duration: constant(1.0),
            shift_seconds: 0,
        }),
        ..SimParams::new(1, 2, 3_600, 50, constant(100.0), SyncSchedule::Herd)
    };
    let summary = run(&params).summary;
    assert_eq!(summary.lock_conflicts, 1);
    assert_eq!(summary.never_started, 1);
    assert_eq!([summary.p50_wait_s, summary.p95_wait_s], [0.0, 50.0]);
    assert!(!summary.is_lower_bound(summary.p50_wait_s));
    assert!(summary.is_lower_bound(summary.p95_wait_s));
    assert_eq!(summary.mean_wait_s, 25.0);
}

/// Never-started jobs that all rank above p95 leave it as it is: it holds,
/// and only the mean is a lower bound. 100 jobs, 99 of them start at once
/// on 99 workers and the last waits past the end.
#[test]
fn never_started_jobs_above_p95_leave_it_standing() {
    let params = SimParams::new(100, 99, 3_600, 50, constant(100.0), SyncSchedule::Herd);
    let summary = run(&params).summary;
    assert_eq!(summary.never_started, 1);
    assert_eq!(summary.p95_wait_s, 0.0);
    assert!(!summary.is_lower_bound(summary.p95_wait_s));
    assert_eq!(summary.p99_wait_s, 0.0);
    assert_eq!(summary.mean_wait_s, 0.5);
    assert_eq!(
        never_started(&summary).as_deref(),
        Some(
            "1 never started, each already waiting longer than p95, which holds; the mean wait is at least 0.5 s"
        )
    );
}
