//! What the Fleet panel draws, computed from the fleet's text in three
//! stages the page receives one after another: the fleet as written
//! ([`read`]), the fix ([`fix`]) and the stability probe ([`probe`]).
//! Each stage's result is owned and serialisable, so it crosses from the
//! worker to the page whole.

use serde::{Deserialize, Serialize};

use crate::error::InvalidInput;
use crate::fleet::file::System;
use crate::key_numbers::KeyNumber;

use super::{FleetParams, Probe};

/// Minutes in the panel's horizon: one week.
pub const WEEK_MINUTES: u32 = 7 * 24 * 60;
/// How many jobs a heatmap cell names, the most starts first.
pub const NAMED_PER_CELL: usize = 3;
/// Unchanged rows shown around each change of the fix's diff.
pub const DIFF_CONTEXT: usize = 2;

/// A job of the fleet: where it is written and what it is called.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// The line of the pasted text it came from, from 1.
    pub line: u32,
    pub id: String,
    pub system: System,
    /// The spec as the fleet line writes it, such as `H H * * *`.
    pub spec: String,
}

/// A line of the text that was not read, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub line: u32,
    /// The part of the line that stopped it, such as `spec`.
    pub field: String,
    pub reason: String,
}

/// Something about one line the expansion or the importer says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LineNotice {
    pub line: u32,
    pub message: String,
}

/// The jobs named in each cell of a grid: cell `c`'s are
/// `jobs[first[c]..first[c + 1]]` with their starts in the cell beside
/// them, the most starts first (then fleet order), at most
/// [`NAMED_PER_CELL`]; `distinct[c]` counts every job starting in it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CellJobs {
    pub first: Vec<u32>,
    /// Indices into [`FleetRead::jobs`].
    pub jobs: Vec<u32>,
    pub starts: Vec<u32>,
    pub distinct: Vec<u32>,
}

/// A fleet's load over the week, minute by minute.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WeekLoad {
    /// Starts in each minute of the week ([`WEEK_MINUTES`] of them).
    pub starts: Vec<u32>,
    /// Weighted jobs running in each minute; `None` when no line gives a
    /// `Duration=` (each job then counts in its start minute only).
    pub running: Option<Vec<f64>>,
    /// The most starts within one second `[k, k + 1)` of each minute.
    pub busiest_second: Vec<u32>,
    /// The jobs starting in each minute of the week.
    pub by_minute: CellJobs,
    /// The jobs starting in each hour of the week (168 cells).
    pub by_hour: CellJobs,
    pub total_starts: u64,
    /// The minute with the most starts (the earliest of a tie).
    pub peak_minute: Option<u32>,
    /// The most starts in any one minute.
    pub peak_starts: u32,
    /// Minutes with more than one start, and the starts in them.
    pub shared_minutes: u32,
    pub shared_starts: u64,
    /// The most starts within any one second of the week.
    pub peak_second_starts: u32,
    /// The 99th percentile (type 7) of `running`, when there is one.
    pub running_p99: Option<f64>,
    pub running_peak: Option<f64>,
    /// The line at which expansion stopped at its limit, when it did.
    pub stopped_at_line: Option<u32>,
}

/// Stage one: the fleet as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetRead {
    /// The format the text was read in (the detected one for `auto`).
    pub format: String,
    /// "212 jobs from a crontab; 3 lines skipped".
    pub summary: String,
    pub jobs: Vec<Job>,
    pub skipped: Vec<Skipped>,
    pub notices: Vec<LineNotice>,
    /// Unix seconds of the week's first minute.
    pub from: i64,
    pub load: WeekLoad,
    /// The link fragment (without `#`) that carries the text, or why none
    /// can; `None` for a sample, whose name travels instead.
    pub link: Option<Result<String, String>>,
}

/// Whether a row of the diff is in both texts or only one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiffKind {
    Same,
    Removed,
    Added,
}

/// A row of the line-by-line diff of the text as pasted and as fixed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiffRow {
    pub kind: DiffKind,
    /// Its line in the pasted text, from 1; `None` for an added row.
    pub before_line: Option<u32>,
    /// Its line in the fixed text, from 1; `None` for a removed row.
    pub after_line: Option<u32>,
    pub text: String,
}

/// A job the fix leaves as written, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeptJob {
    /// Index into [`FleetRead::jobs`].
    pub job: u32,
    pub why: String,
}

/// Stage two: the fix and the fleet it makes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetFix {
    /// The whole text, fixed, in the format it was read in.
    pub fixed_text: String,
    /// The rows of the diff's hunks, each change with up to
    /// [`DIFF_CONTEXT`] unchanged rows around it, in text order.
    pub diff: Vec<DiffRow>,
    /// Jobs the fix moved.
    pub changed: u32,
    pub kept: Vec<KeptJob>,
    pub load: WeekLoad,
}

/// Stage three: which jobs move when the fleet changes a little, placed
/// as the fix places them, against a random delay drawn anew.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetProbe {
    pub probe_slug: String,
    /// "renamed nightly-backup to nightly-backup-2".
    pub change: String,
    pub compared: u32,
    /// Indices into [`FleetRead::jobs`] of the jobs that moved.
    pub moved: Vec<u32>,
    /// Minutes of the week where a moved job starts, in the fixed fleet.
    pub moved_minutes: Vec<u32>,
    /// The same change with every movable job at a random delay redrawn.
    pub rerolled_moved: u32,
    pub rerolled_compared: u32,
}

/// Stage one: reads `text` and expands it over the week of `params`.
pub fn read(text: &str, params: &FleetParams, seed: u64) -> Result<FleetRead, InvalidInput> {
    todo!("{text}{params:?}{seed}")
}

/// Stage two: fixes the fleet of `text` by `params.fix`.
pub fn fix(text: &str, params: &FleetParams, seed: u64) -> Result<FleetFix, InvalidInput> {
    todo!("{text}{params:?}{seed}")
}

/// Stage three: the probe of `params.probe`; `None` for [`Probe::None`].
pub fn probe(
    text: &str,
    params: &FleetParams,
    seed: u64,
) -> Result<Option<FleetProbe>, InvalidInput> {
    let _ = Probe::None;
    todo!("{text}{params:?}{seed}")
}

/// The panel's key numbers: the fleet as written, and the fix's when it
/// has arrived.
pub fn key_numbers(params: &FleetParams, read: &FleetRead, fix: Option<&FleetFix>) -> Vec<KeyNumber> {
    todo!("{params:?}{read:?}{fix:?}")
}
