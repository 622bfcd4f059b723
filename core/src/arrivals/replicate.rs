//! Replications of a replayed trace: its lanes run again under R seeds, as
//! the panel's own are ([`crate::panels::queue_replication`]). The arrival
//! times are the data, so a run varies only what the trace does not fix:
//! the durations when it gives none, and, when asked, the arrivals
//! themselves, resampled by the hour
//! ([`crate::sim::ImportedJobs::resampled_by_hour`]).

use std::ops::Range;
use std::sync::Arc;

use super::{Trace, replay};
use crate::error::InvalidInput;
use crate::panels::queue_replication::{HourBlocks, LanesOf, Replicated, ReplicationSteps, Varied};
use crate::queue::{QueueParams, QueueSteps};
use crate::sim::{FEWEST_HOURS_RESAMPLED, SyncSchedule};

/// The runs `runs` of the `params.replications` of `trace`'s replay under
/// seeds drawn from `seed`, its arrivals resampled by the hour in each run
/// when `resample_by_hour`.
pub fn replication_steps(
    params: &QueueParams,
    trace: &Trace,
    seed: u64,
    runs: Range<u32>,
    resample_by_hour: bool,
) -> Result<ReplicationSteps, InvalidInput> {
    let replay = replay(params, trace)?;
    let (jobs, names, simulations) = (replay.jobs, replay.names, replay.simulations);
    let whole_hours = jobs.whole_hours();
    let hours = match (resample_by_hour, whole_hours >= FEWEST_HOURS_RESAMPLED) {
        (false, _) => HourBlocks::Kept,
        (true, true) => HourBlocks::Resampled(whole_hours),
        (true, false) => HourBlocks::TooShort(whole_hours),
    };
    let varied = Varied::Trace {
        own_durations: jobs.has_durations(),
        hours,
    };
    let lanes_of: LanesOf = Box::new(move |seed| {
        let mut simulations = simulations.clone();
        if let HourBlocks::Resampled(_) = hours {
            // The imported lane comes first.
            let resampled = jobs.resampled_by_hour(seed);
            simulations[0].accounts = resampled.len();
            simulations[0].schedule = SyncSchedule::Imported(Arc::new(resampled));
        }
        Ok(QueueSteps::of_lanes(names.clone(), simulations, seed))
    });
    ReplicationSteps::of_lanes(params, seed, runs, varied, lanes_of)
}

/// Every run of the `params.replications` of `trace`'s replay, as one part.
pub fn replicate(
    params: &QueueParams,
    trace: &Trace,
    seed: u64,
    resample_by_hour: bool,
) -> Result<Replicated, InvalidInput> {
    let all = replication_steps(
        params,
        trace,
        seed,
        0..params.replications,
        resample_by_hour,
    )?
    .finish()?;
    Replicated::merge(params, [all])
}
