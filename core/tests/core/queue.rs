//! The Queue panel's parameters: lanes, caps, which controls matter, and a
//! golden run shared with the browser test.

use stampede_core::field::PanelParams;
use stampede_core::queue::{self, MAX_TOTAL_JOBS, QueueParams};
use stampede_core::state::State;

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
        State::from_query("p=queue&dm=10&d90=5&rb=60&rc=10&w=50&wmax=20&ev=1&spr=600");
    let mut keys: Vec<&str> = notices.iter().map(|n| n.key).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["d90", "rc", "spr", "wmax"], "{notices:?}");
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
    // Herd vs slots, fixed workers, no downstream: batches, outage timing,
    // retries and the autoscaler's settings do nothing.
    assert_eq!(
        hidden,
        [
            "ev", "spr", "os", "rt", "rvs", "rb", "rc", "rk", "tq", "wmax", "up", "down"
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
}
