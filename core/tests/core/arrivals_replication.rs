//! Replications of a replayed trace: what varies between runs, and an
//! interval that holds the imported lane's mean wait over the draws.

use stampede_core::arrivals::{self, Trace};
use stampede_core::panels::State;
use stampede_core::panels::queue_arrivals;
use stampede_core::panels::queue_replication::{HourBlocks, Replicated, Varied};
use stampede_core::queue::QueueParams;
use stampede_core::sim;

const JAN_1_2026: i64 = 1_767_225_600;

fn queue(query: &str) -> QueueParams {
    let (state, notices) = State::from_query(&format!("p=queue&{query}"));
    assert!(notices.is_empty(), "{notices:?}");
    state.queue
}

/// Arrivals at a steady `per_second` for `hours`, spaced by a fixed
/// low-discrepancy rule (no chance in the trace itself), with a duration
/// column when `duration_s` is given.
fn trace(hours: i64, per_second: f64, duration_s: Option<f64>) -> Trace {
    let count = (hours as f64 * 3_600.0 * per_second) as i64;
    let golden = 0.618_033_988_749_895_f64;
    let mut rows = String::from(if duration_s.is_some() {
        "timestamp,duration\n"
    } else {
        "timestamp\n"
    });
    let mut times: Vec<i64> = (0..count)
        .map(|k| {
            let jitter = (k as f64 * golden).fract() - 0.5;
            ((k as f64 + jitter) / per_second * 1e3) as i64
        })
        .collect();
    times.sort_unstable();
    for ms in times {
        let at = JAN_1_2026 * 1_000 + ms.max(0);
        match duration_s {
            Some(d) => rows.push_str(&format!("{at},{d}\n")),
            None => rows.push_str(&format!("{at}\n")),
        }
    }
    arrivals::parse(&rows).unwrap()
}

fn imported_mean_wait(result: &Replicated) -> f64 {
    let row = result.rows.iter().find(|r| r.key == "mean_wait_s").unwrap();
    row.values[0].interval.mean
}

/// 1.6 jobs a second for 1 h on 2 workers, durations drawn from the
/// panel's (mean 1 s, p90 1.6 s): ρ ≈ 0.8, so a run's mean wait rests on
/// the draws. The truth is the mean over 400 single runs of the imported
/// lane, simulated directly under seeds of their own; the 95 % interval
/// over 6 runs must hold it in most of 40 trials (nominally 38; a run's
/// mean wait is right-skewed, which costs the t-interval a little).
#[test]
fn the_imported_lanes_interval_holds_its_mean_wait_over_the_draws() {
    let params = queue("w=2&dm=1&d90=1.6&repl=6&vs=");
    let trace = trace(1, 1.6, None);
    let lane = arrivals::replay(&params, &trace).unwrap().simulations[0].clone();
    let runs = 400;
    let truth = (0..runs)
        .map(|seed| {
            sim::simulate(&lane, 1_000_000 + seed)
                .unwrap()
                .summary
                .mean_wait_s
        })
        .sum::<f64>()
        / runs as f64;
    let mut covered = 0;
    for trial in 0..40 {
        let result = queue_arrivals::replicate(&params, &trace, trial, false).unwrap();
        assert_eq!(result.lanes[0].slug, arrivals::IMPORTED);
        let row = result.rows.iter().find(|r| r.key == "mean_wait_s").unwrap();
        if row.values[0].interval.contains(truth) {
            covered += 1;
        }
    }
    assert!((34..=40).contains(&covered), "{covered} of 40 hold {truth}");
}

/// Hour h of 6 holds 200 + 100·h arrivals, evenly spaced, each lasting
/// 4 s: resampling by the hour changes how many arrive.
fn stepped_trace() -> Trace {
    let mut rows = String::from("timestamp,duration\n");
    for hour in 0..6 {
        let arrivals = 200 + 100 * hour;
        for k in 0..arrivals {
            let at = JAN_1_2026 * 1_000 + hour * 3_600_000 + k * 3_600_000 / arrivals;
            rows.push_str(&format!("{at},4\n"));
        }
    }
    rows.push_str(&format!("{},4\n", JAN_1_2026 * 1_000 + 6 * 3_600_000 + 10));
    arrivals::parse(&rows).unwrap()
}

#[test]
fn a_trace_with_its_own_durations_is_the_same_every_run_unless_resampled() {
    let params = queue("w=1&repl=5&vs=");
    let trace = stepped_trace();

    let kept = queue_arrivals::replicate(&params, &trace, 3, false).unwrap();
    assert_eq!(
        kept.varied,
        Varied::Trace {
            own_durations: true,
            hours: HourBlocks::Kept
        }
    );
    let enqueued = kept.rows.iter().find(|r| r.key == "jobs_enqueued").unwrap();
    assert_eq!(enqueued.values[0].interval.half_width, 0.0);
    assert_eq!(
        kept.rows
            .iter()
            .find(|r| r.key == "mean_wait_s")
            .unwrap()
            .values[0]
            .interval
            .half_width,
        0.0
    );
    assert!(kept.explained.contains("the same in every run (± 0)"));

    let resampled = queue_arrivals::replicate(&params, &trace, 3, true).unwrap();
    assert_eq!(
        resampled.varied,
        Varied::Trace {
            own_durations: true,
            hours: HourBlocks::Resampled(6)
        }
    );
    let enqueued = resampled
        .rows
        .iter()
        .find(|r| r.key == "jobs_enqueued")
        .unwrap();
    assert!(enqueued.values[0].interval.half_width > 0.0);
    assert!(resampled.explained.contains("block bootstrap"));
    assert!(!resampled.explained.contains("± 0"));
    // The bad day of a wait is the 90th percentile of the runs: at least
    // their average.
    let p95 = resampled
        .rows
        .iter()
        .find(|r| r.key == "p95_wait_s")
        .unwrap();
    let bad_day = p95.values[0].bad_day.as_ref().unwrap();
    assert!(bad_day.value >= p95.values[0].interval.mean - 1e-9);
    assert!(resampled.explained.contains(&bad_day.text));
}

#[test]
fn a_trace_too_short_to_resample_says_so() {
    let params = queue("w=1&repl=5&vs=");
    let result = queue_arrivals::replicate(&params, &trace(2, 0.2, None), 1, true).unwrap();
    assert_eq!(
        result.varied,
        Varied::Trace {
            own_durations: false,
            hours: HourBlocks::TooShort(1)
        }
    );
    assert!(result.explained.contains("resampling by the hour needs 3"));
}

#[test]
fn a_traces_replications_split_over_workers_merge_to_the_same_figures() {
    let params = queue("w=2&repl=5&vs=");
    let trace = trace(4, 0.5, None);
    let whole = queue_arrivals::replicate(&params, &trace, 9, true).unwrap();
    let parts = [0..2, 2..5].map(|runs| {
        queue_arrivals::replication_steps(&params, &trace, 9, runs, true)
            .unwrap()
            .finish()
            .unwrap()
    });
    assert_eq!(Replicated::merge(&params, parts).unwrap(), whole);
    assert!(imported_mean_wait(&whole) > 0.0);
}
