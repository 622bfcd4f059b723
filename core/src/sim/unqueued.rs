//! Runs that no job waited in, read again on other workers.
//!
//! Workers enter a run only where a due job finds none idle. In a run on
//! fixed workers where that never happened (its deepest queue is 0), every
//! job started when it fell due, so the same run on any W at least its peak
//! of busy workers starts every job at the same instant again. Only what
//! counts ready workers differs: the workers series, which is W throughout,
//! and the utilization, busy time over W × horizon. A drag of the Workers
//! slider above a lane's peak, where that lane never queues, reads the lane
//! again rather than running it.

use super::{Finished, SimParams, SimRun};
use crate::scheduler::micros_of_whole;

/// A finished run on fixed workers in which no job waited for a worker.
#[derive(Clone, Debug)]
pub struct Unqueued {
    params: SimParams,
    seed: u64,
    run: SimRun,
    /// The most workers busy at once.
    most_busy: u32,
    /// Busy worker time over the whole run, in µs.
    busy_us: u64,
}

impl Unqueued {
    /// The `finished` run of `params` under `seed`, when no job waited in
    /// it.
    pub fn of(params: &SimParams, seed: u64, finished: &Finished) -> Option<Self> {
        let run = &finished.run;
        (params.autoscaler.is_none() && run.summary.max_queue_depth == 0).then(|| Self {
            params: params.clone(),
            seed,
            run: run.clone(),
            most_busy: finished.most_busy,
            busy_us: finished.busy_us,
        })
    }

    /// Whether the run of `params` under `seed` is this one but for its
    /// workers.
    pub fn is_of(&self, params: &SimParams, seed: u64) -> bool {
        seed == self.seed
            && *params
                == SimParams {
                    workers: params.workers,
                    ..self.params.clone()
                }
    }

    /// The run of `params` under `seed`, when it is this one on other
    /// workers: the same parameters but for W, and W at least the peak.
    pub fn on_workers(&self, params: &SimParams, seed: u64) -> Option<SimRun> {
        let workers = params.workers;
        if workers < self.most_busy || !self.is_of(params, seed) {
            return None;
        }
        let ready_us = u64::from(workers) * micros_of_whole(params.horizon_seconds);
        let mut run = self.run.clone();
        run.workers.fill(f64::from(workers));
        run.summary.utilization = self.busy_us as f64 / ready_us as f64;
        Some(run)
    }
}
