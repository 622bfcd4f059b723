//! The Queue panel's parameters: lanes, caps, which controls matter, and a
//! golden run shared with the browser test.

use stampede_core::field::PanelParams;
use stampede_core::panels;
use stampede_core::panels::State;
use stampede_core::queue::{self, MAX_TOTAL_JOBS, QueueParams};
use stampede_core::units::count;

include!("../golden/queue.rs");

#[test]
fn the_golden_run_replays_bit_for_bit() {
    assert_queue_golden();
}

#[test]
fn a_url_over_the_job_cap_is_cut_to_fit_with_a_notice() {
    // A million accounts every minute for 90 days on four lanes: 5e11 jobs.
    let (state, notices) =
        State::from_query("p=queue&n=1000000&cyc=1&hz=2160&vs=slots,jitter,poisson");
    let keys: Vec<&str> = notices.iter().map(|n| n.key).collect();
    assert_eq!(keys, ["hz", "n"], "{notices:?}");
    let params = &state.queue;
    assert_eq!(params.horizon_hours, 1);
    assert!(
        params.planned_jobs() <= MAX_TOTAL_JOBS,
        "{}",
        params.planned_jobs()
    );
    // The simulation's own estimate allows Poisson lanes 5 % over their mean.
    assert!(queue::estimated_jobs(params).unwrap() <= MAX_TOTAL_JOBS * 21 / 20 + 4);
    // Within the cap, nothing changes.
    let (_, quiet) = State::from_query("p=queue&n=100000&cyc=780&hz=168&vs=");
    assert!(quiet.is_empty(), "{quiet:?}");
}

#[test]
fn combinations_that_cannot_run_are_repaired_by_name() {
    let (state, notices) =
        State::from_query("p=queue&dm=10&d90=5&rb=60&rc=10&sc=auto&w=50&wmax=20&ev=1&spr=600");
    let mut keys: Vec<&str> = notices.iter().map(|n| n.key).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["d90", "rc", "spr", "wmax"], "{notices:?}");
    // Fixed workers leave the autoscaler's most workers alone, unremarked.
    let (fixed, notices) = State::from_query("p=queue&w=50&wmax=20");
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!((fixed.queue.workers, fixed.queue.max_workers), (50, 20));
    let params = &state.queue;
    assert!(params.duration_p90 > params.duration_mean);
    assert_eq!(
        (params.retry_cap, params.max_workers, params.batch_spread),
        (60.0, 50, 60)
    );
    assert!(
        queue::run(
            &QueueParams {
                horizon_hours: 1,
                ..params.clone()
            },
            1
        )
        .is_ok()
    );
}

#[test]
fn controls_that_change_nothing_are_hidden() {
    let params = QueueParams::default();
    let hidden: Vec<&str> = QueueParams::FIELDS
        .iter()
        .map(|field| field.key)
        .filter(|key| !params.is_relevant(key))
        .collect();
    // Herd vs slots, fixed workers, no downstream: the jitter window,
    // batches, outage timing, retries and the autoscaler's settings do
    // nothing.
    assert_eq!(
        hidden,
        [
            "jw", "ev", "spr", "os", "rt", "rvs", "rb", "rc", "rk", "tq", "wmax", "up", "down"
        ]
    );
    let (outage, _) = State::from_query("p=queue&od=10&by=retries&sc=auto&st=lrs");
    for key in [
        "os", "rt", "rvs", "rb", "rc", "rk", "tq", "wmax", "ev", "spr",
    ] {
        assert!(outage.queue.is_relevant(key), "{key}");
    }
    assert!(!outage.queue.is_relevant("vs"));
    assert!(!outage.queue.is_relevant("sl"));
    assert!(!outage.queue.is_relevant("jw"));
    // The window matters wherever uniform jitter is drawn, main or compared.
    for query in ["p=queue&st=jitter", "p=queue&vs=slots,jitter"] {
        assert!(
            State::from_query(query).0.queue.is_relevant("jw"),
            "{query}"
        );
    }
}

/// 5,000 jobs an hour on workers that start up to 10,000 a second, so the
/// window alone sets the peak: uniform jitter alone, with the window `jw`
/// (absent for the default).
fn jitter_run(jw: Option<u32>) -> (QueueParams, queue::QueueRun) {
    let window = jw.map_or(String::new(), |jw| format!("&jw={jw}"));
    let (state, notices) = State::from_query(&format!(
        "p=queue&s=3&n=5000&w=1000&wmax=1000&dm=0.1&d90=0.2&hz=3&st=jitter&vs={window}"
    ));
    assert!(notices.is_empty(), "{notices:?}");
    let run = queue::run(&state.queue, state.seed).unwrap();
    (state.queue, run)
}

#[test]
fn a_narrower_jitter_window_raises_the_peak_second() {
    let peak = |jw| {
        jitter_run(Some(jw)).1.lanes[0]
            .run
            .summary
            .peak_calls_per_second
    };
    let peaks = [3_600, 600, 100, 10].map(peak);
    // The mean rate N / W is 1.4, 8.3, 50 and 500 calls a second; the
    // busiest second lies above it, and below all N.
    assert!(peaks.windows(2).all(|pair| pair[0] < pair[1]), "{peaks:?}");
    for (peak, window) in peaks.into_iter().zip([3_600, 600, 100, 10]) {
        assert!(
            peak >= 5_000 / window && peak < 5_000,
            "{peak} in {window} s"
        );
    }
}

#[test]
fn the_whole_cycle_replays_the_run_without_a_window() {
    let (absent, run) = jitter_run(None);
    assert_eq!(absent.jitter_window, 0);
    assert_eq!(absent.jitter_window_seconds(), 3_600);
    let (_, whole_cycle) = jitter_run(Some(3_600));
    assert_eq!(run, whole_cycle);
    let (_, narrower) = jitter_run(Some(1_800));
    assert_ne!(run, narrower);
}

#[test]
fn a_window_longer_than_the_cycle_is_cut_to_it_with_a_notice() {
    let (state, notices) = State::from_query("p=queue&st=jitter&cyc=10&jw=900");
    let keys: Vec<&str> = notices.iter().map(|n| n.key).collect();
    assert_eq!(keys, ["jw"], "{notices:?}");
    assert_eq!(
        notices[0].message,
        "must fit in the cycle of 10 min; using 600 s"
    );
    assert_eq!(state.queue.jitter_window, 600);
    // Shortening the cycle under a window cuts the window too.
    let mut state = State::from_query("p=queue&st=jitter&jw=1200").0;
    let notices = state.set("cyc", "5");
    assert_eq!(state.queue.jitter_window, 300, "{notices:?}");
}

#[test]
fn the_peak_second_is_a_key_number_and_a_summary_row() {
    let (params, run) = jitter_run(Some(100));
    let peak = run.lanes[0].run.summary.peak_calls_per_second;
    let number = panels::queue::key_numbers(&params, &run)
        .into_iter()
        .find(|number| number.key == "peak-calls")
        .unwrap();
    assert_eq!(
        number.value,
        format!("{peak} /s ({} /min)", count(u64::from(peak) * 60))
    );
    assert_eq!(
        number.theory.as_deref(),
        Some("first attempts N / W = 5,000 / 1 min 40 s = 50 /s on average over the window")
    );
    let row = panels::queue::summary_rows(&params, &run)
        .into_iter()
        .find(|row| row.key == "peak_calls_per_second")
        .unwrap();
    assert_eq!(row.values, [(format!("{peak} /s"), f64::from(peak))]);
}

#[test]
fn runs_reading_kept_durations_equal_fresh_runs() {
    reading_kept_runs_equal_fresh_runs(false);
}

#[test]
fn runs_reading_lanes_readied_ahead_equal_fresh_runs() {
    reading_kept_runs_equal_fresh_runs(true);
}

/// A drag of the workers, up past where the herd queues and down again,
/// then of the accounts, then a new seed and new durations: each run reads
/// what the one before kept where it may, and with `ready_ahead` what the
/// idle time between runs readied.
fn reading_kept_runs_equal_fresh_runs(ready_ahead: bool) {
    let mut kept = queue::Kept::default();
    let steps = [
        ("w=4", 1),
        ("w=16", 1),
        ("w=24", 1),
        ("w=2000", 1),
        ("w=2600", 1),
        ("w=1999", 1),
        ("w=3", 1),
        ("w=256&wmax=256&vs=slots,poisson,herd", 1),
        ("w=16&n=3000", 1),
        ("w=16&n=3000", 2),
        ("w=16&n=3000&dm=3&d90=9", 2),
        ("w=8&n=500&dm=3&d90=9", 2),
    ];
    for (query, seed) in steps {
        let (state, notices) = State::from_query(&format!("p=queue&{query}"));
        assert!(notices.is_empty(), "{query}: {notices:?}");
        let fresh = queue::run(&state.queue, seed).unwrap();
        let reading = queue::run_reading(&state.queue, seed, &mut kept).unwrap();
        assert!(fresh == reading, "{query} with seed {seed}");
        while ready_ahead && kept.ready_ahead(&state.queue, seed).unwrap() {}
    }
}
