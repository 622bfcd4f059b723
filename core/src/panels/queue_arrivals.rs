//! The Queue panel's imported arrivals: a trace read, described and
//! replayed in one go ([`run`]), and its replay replicated as the panel's
//! own lanes are ([`crate::panels::queue_replication`]). The arrival times
//! are the data, so a run varies only what the trace does not fix: the
//! durations when it gives none, and, when asked, the arrivals themselves,
//! resampled by the hour ([`crate::sim::ImportedJobs::resampled_by_hour`]).
//! Beside the imported lane run the spread lanes of the strategies the
//! panel compares, not every strategy the single replay shows: those are
//! the comparisons a reader asked for, at a fraction of the work.

use std::ops::Range;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::arrivals::{self, ArrivalsReport, Trace, replay};
use crate::error::InvalidInput;
use crate::panels::queue_replication::{HourBlocks, LanesOf, Replicated, ReplicationSteps, Varied};
use crate::queue::{CompareBy, LaneName, QueueParams, QueueRun, QueueSteps, with_main};
use crate::sim::{FEWEST_HOURS_RESAMPLED, SimParams, SyncSchedule};

/// A report and the lanes it ran, as the command line prints them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArrivalsRun {
    pub arrivals: ArrivalsReport,
    /// One run under the page's seed.
    pub run: QueueRun,
    /// With `repl` = R, the lanes under R seeds.
    pub replicated: Option<Replicated>,
}

/// Reads, describes and replays `text` in one go, and replicates the
/// replay when `params` asks for replications, resampling its arrivals by
/// the hour when `resample_by_hour`.
pub fn run(
    params: &QueueParams,
    text: &str,
    seed: u64,
    resample_by_hour: bool,
) -> Result<ArrivalsRun, InvalidInput> {
    let trace = arrivals::parse(text)?;
    let (arrivals, replay) = arrivals::report(params, &trace, seed)?;
    let replicated = (params.replications > 0)
        .then(|| replicate(params, &trace, seed, resample_by_hour))
        .transpose()?;
    Ok(ArrivalsRun {
        arrivals,
        run: replay.steps(seed).finish()?,
        replicated,
    })
}

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
    let compared: Vec<&str> = match params.compare_by {
        CompareBy::Strategies => with_main(params.strategy, &params.compared),
        CompareBy::Retries => vec![params.strategy],
    }
    .into_iter()
    .map(|strategy| strategy.slug())
    .collect();
    // The imported lane first, then the compared strategies' spread lanes.
    let (names, simulations): (Vec<LaneName>, Vec<SimParams>) = replay
        .names
        .into_iter()
        .zip(replay.simulations)
        .enumerate()
        .filter(|(lane, (name, _))| *lane == 0 || compared.contains(&name.slug.as_str()))
        .map(|(_, lane)| lane)
        .unzip();
    let jobs = replay.jobs;
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
