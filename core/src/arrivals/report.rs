//! Everything the page and the command line show of an imported trace,
//! from one function, so the two agree number for number.

use serde::{Deserialize, Serialize};

use super::{Description, Diagnosis, RefusedRow, Replay, Trace, describe, diagnose, replay};
use crate::error::InvalidInput;
use crate::queue::QueueParams;

/// How a trace was read, what it looks like, and how the lanes were set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArrivalsReport {
    /// How the text was read, in words.
    pub reading: String,
    /// Every refused row.
    pub refused: Vec<RefusedRow>,
    /// Distinct accounts; the arrivals when there is no account column.
    pub accounts: u32,
    pub kinds: Vec<(String, u64)>,
    pub description: Description,
    pub diagnosis: Diagnosis,
    /// How the replay's lanes were set, in words.
    pub replay: String,
}

/// `trace` described and its replay set up under `params`; `seed` is the
/// run's.
pub fn report(
    params: &QueueParams,
    trace: &Trace,
    seed: u64,
) -> Result<(ArrivalsReport, Replay), InvalidInput> {
    let description = describe(&trace.times_us);
    let replay = replay(params, trace)?;
    let report = ArrivalsReport {
        reading: trace.reading_in_words(),
        refused: trace.refused.clone(),
        accounts: trace.account_count,
        kinds: trace.kinds.clone(),
        diagnosis: diagnose(&trace.times_us, seed),
        replay: replay.rule_in_words(trace.times_us.len() as u32),
        description,
    };
    Ok((report, replay))
}
