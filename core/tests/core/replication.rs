//! Replications: the interval's coverage against theory, and the Queue
//! panel's replicated figures.

use stampede_core::dist::Dist;
use stampede_core::panels::State;
use stampede_core::panels::queue_replication::{
    Replicated, ReplicationSteps, replicate, split_runs,
};
use stampede_core::queue::QueueParams;
use stampede_core::replication::{Interval, seeds};
use stampede_core::sim::{self, SimParams, SyncSchedule, mm_c_mean_wait};

/// Poisson arrivals at 1 job/s on 2 workers with exponential durations of
/// mean 1 s (M/M/2, ρ = 0.5) for 10,000 s: the 95 % interval of the mean
/// wait over 20 seeds holds the Erlang C value (1/3 s) in at least 90 of
/// 100 trials. The t-interval assumes normal run means; a run's mean wait
/// is skewed to the right, which costs coverage: over these 2,000 runs
/// (release build) the skewness is 0.38 and 95 trials cover, while at
/// 5,000 s it is 0.54 and only 88 cover. Starting empty biases a run's
/// mean by about −0.2 %, a tenth of the interval's half width. 20M jobs in
/// all, about 15 s in a debug build.
#[test]
fn the_interval_of_the_mean_wait_covers_erlang_c() {
    let params = SimParams::new(
        1_000,
        2,
        1_000,
        10_000,
        Dist::exponential(1.0).unwrap(),
        SyncSchedule::Poisson,
    );
    let theory = mm_c_mean_wait(1.0, 1.0, 2).unwrap();
    let covered = (0..100)
        .filter(|&trial| {
            let waits: Vec<f64> = seeds(trial, 20)
                .into_iter()
                .map(|seed| sim::simulate(&params, seed).unwrap().summary.mean_wait_s)
                .collect();
            Interval::of(&waits).unwrap().contains(theory)
        })
        .count();
    assert!((90..=100).contains(&covered), "{covered} of 100");
}

fn small_queue(query: &str) -> QueueParams {
    let (state, notices) = State::from_query(&format!("p=queue&n=200&hz=2&{query}"));
    assert!(notices.is_empty(), "{notices:?}");
    state.queue
}

#[test]
fn replications_give_every_figure_an_interval_and_compare_the_lanes() {
    let params = small_queue("repl=5");
    let result = replicate(&params, 1).unwrap();
    assert_eq!(result.runs, 5);
    assert_eq!(result.lanes.len(), 2);
    let mean_wait = result.rows.iter().find(|r| r.key == "mean_wait_s").unwrap();
    assert_eq!(mean_wait.values.len(), 2);
    assert!(mean_wait.values[0].text.ends_with("(95 %, 5 runs)"));
    // The herd's 200 accounts wait minutes; slots spread them.
    let difference = result
        .differences
        .iter()
        .find(|d| d.key == "mean_wait_s")
        .unwrap();
    assert!(difference.interval.high() < 0.0, "{difference:?}");
    assert!(difference.text.starts_with("Slots cut the mean wait by "));
    // Two cycles of 200 accounts: 400 waits a run, stated beside each
    // percentile.
    let p99 = result.rows.iter().find(|r| r.key == "p99_wait_s").unwrap();
    assert_eq!(result.fewest_waits, [400, 400]);
    assert_eq!(
        p99.values[0].note.as_deref(),
        Some("99 in 100 of at least 400 jobs a run waited no longer")
    );
    let bins = result.depth[0].p50.len();
    assert_eq!(bins, 120);
    assert!((0..bins).all(|k| result.depth[0].p10[k] <= result.depth[0].p90[k]));
    // The same seed gives the same result, stepped or in one go.
    let mut steps = ReplicationSteps::for_runs(&params, 1, 0..5).unwrap();
    let mut last = 0.0;
    while let Some(share) = steps.step().unwrap() {
        assert!(share >= last && share <= 1.0);
        last = share;
    }
    assert_eq!(last, 1.0);
    let part = steps.finish().unwrap();
    assert_eq!(Replicated::merge(&params, [part]).unwrap(), result);
}

/// Workers each run a range of the seeds; merged in seed order, the parts
/// give the very figures of one worker running them all, however split.
#[test]
fn replications_split_over_workers_merge_to_the_same_figures() {
    let params = small_queue("n=40&hz=1&repl=7");
    let whole = replicate(&params, 3).unwrap();
    let merged = |ranges: Vec<std::ops::Range<u32>>| {
        let parts = ranges.into_iter().map(|runs| {
            ReplicationSteps::for_runs(&params, 3, runs)
                .unwrap()
                .finish()
                .unwrap()
        });
        Replicated::merge(&params, parts).unwrap()
    };
    assert_eq!(split_runs(7, 1), vec![0..7]);
    assert_eq!(split_runs(7, 3), [0..2, 2..4, 4..7]);
    assert_eq!(merged(split_runs(7, 1)), whole);
    assert_eq!(merged(split_runs(7, 3)), whole);
    assert_eq!(merged(vec![0..1, 1..6, 6..7]), whole);
    // More workers than runs: one run each.
    assert_eq!(split_runs(5, 8).len(), 5);
    // Parts out of order, or missing one, are refused.
    let part = |runs| {
        ReplicationSteps::for_runs(&params, 3, runs)
            .unwrap()
            .finish()
            .unwrap()
    };
    assert!(Replicated::merge(&params, [part(3..7), part(0..3)]).is_err());
    assert!(Replicated::merge(&params, [part(0..3)]).is_err());
    assert!(ReplicationSteps::for_runs(&params, 3, 5..8).is_err());
}

#[test]
fn a_replication_count_outside_its_range_is_named() {
    let (state, notices) = State::from_query("p=queue&repl=2");
    assert_eq!(state.queue.replications, 5);
    assert_eq!(notices[0].key, "repl");
    let single = small_queue("");
    assert_eq!(replicate(&single, 1).unwrap_err().field, "repl");
}

#[test]
fn every_percentile_states_its_sample_size_and_a_thin_p99_is_marked() {
    use stampede_core::panels::queue::{key_numbers, summary_rows};
    use stampede_core::queue;
    // 30 accounts for one hour: 30 waits a lane, too few for a p99.
    let params = small_queue("n=30&hz=1");
    let run = queue::run(&params, 1).unwrap();
    assert_eq!(run.lanes[0].run.waits_ranked(), 30);
    let rows = summary_rows(&params, &run);
    let text = |key: &str| {
        rows.iter().find(|r| r.key == key).unwrap().values[0]
            .0
            .clone()
    };
    assert!(
        text("p95_wait_s").ends_with(" (n = 30)"),
        "{}",
        text("p95_wait_s")
    );
    assert!(text("p99_wait_s").ends_with(" (n = 30, too few for a p99)"));
    let p95 = key_numbers(&params, &run);
    let p95 = p95.iter().find(|n| n.key == "p95-wait").unwrap();
    assert!(p95.value.ends_with(" (n = 30)"), "{}", p95.value);
}
