// The Queue panel's golden run, shared by the native test
// (core/tests/core/queue.rs) and the browser test: every strategy's draws,
// the lock, the downstream's refusals, the retries' jitter and the
// autoscaler feed these numbers, so a change to any of them, or a platform
// difference in the simulation, fails on both targets. Values from
// `stampede run` on the query below, as its JSON prints them.

/// Four strategies with reports half a cycle away, a rate-limited downstream
/// with a 20-minute outage, full-jitter retries and an autoscaler.
pub const GOLDEN_QUEUE_QUERY: &str = "v=1&p=queue&s=7&n=300&w=3&hz=6&st=poisson&vs=herd,jitter,lrs&rep=opposite&lim=2&od=20&os=60&rt=full&sc=auto&wmax=10";

/// Per lane: its slug and jobs_enqueued, jobs_done, mean_wait_s, p95_wait_s, max_queue_depth, utilization, lock_conflicts, failed_calls, gave_up, max_sync_interval_s.
pub const GOLDEN_QUEUE: [(&str, [f64; 10]); 4] = [
    (
        "poisson",
        [
            3548.0,
            3522.0,
            0.10871197284644195,
            0.338568,
            8.0,
            0.26607447538085655,
            5.0,
            750.0,
            26.0,
            7532.430299,
        ],
    ),
    (
        "herd",
        [
            3600.0,
            3375.0,
            64.09066580633174,
            168.181171,
            297.0,
            0.20024378642351554,
            0.0,
            3353.0,
            225.0,
            7350.728251,
        ],
    ),
    (
        "jitter",
        [
            3600.0,
            3578.0,
            0.19006062176524952,
            0.421233,
            12.0,
            0.26469128682061394,
            8.0,
            749.0,
            21.0,
            10141.999255,
        ],
    ),
    (
        "lrs",
        [
            3600.0,
            3570.0,
            0.5242277205040091,
            3.30339,
            15.0,
            0.20231752857757693,
            11.0,
            795.0,
            30.0,
            4857.285066,
        ],
    ),
];

/// Runs the golden query and compares each lane's figures, bit for bit.
pub fn assert_queue_golden() {
    let (state, notices) = stampede_core::panels::State::from_query(GOLDEN_QUEUE_QUERY);
    assert!(notices.is_empty(), "{notices:?}");
    let run = stampede_core::queue::run(&state.queue, state.seed).unwrap();
    assert_eq!(run.lanes.len(), GOLDEN_QUEUE.len());
    for (lane, (slug, expected)) in run.lanes.iter().zip(GOLDEN_QUEUE) {
        let s = &lane.run.summary;
        let found = [
            s.jobs_enqueued as f64,
            s.jobs_done as f64,
            s.mean_wait_s,
            s.p95_wait_s,
            s.max_queue_depth as f64,
            s.utilization,
            s.lock_conflicts as f64,
            s.failed_calls as f64,
            s.gave_up as f64,
            s.max_sync_interval_s,
        ];
        assert_eq!(lane.name.slug, slug);
        assert_eq!(found, expected, "lane {slug}");
    }
}
