//! The Queue panel's replications: every lane run again under R seeds
//! ([`crate::replication`]), each summary figure written as its mean with
//! a 95 % interval and its bad day (the 90th percentile across the runs),
//! each pair of lanes compared seed by seed in words, and the queue's
//! depth as a band across the runs. The lanes are the panel's own, or a
//! replayed trace's ([`crate::panels::queue_arrivals`]); either way
//! the result says what changed from one run to the next.
//!
//! Percentiles of waits are the simulation's own over each run's waits
//! (retries included); each says how many waits a run had, and a p99 over
//! fewer than 100 is marked, as it is then the largest wait or next to it.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::error::InvalidInput;
use crate::panels::queue::{FEWEST_WAITS_FOR_P99, percentile_share, summary_rows};
use crate::queue::{LaneName, QueueParams, QueueRun, QueueSteps};
use crate::replication::{
    self, BAD_DAY, CONFIDENCE, Interval, MAX_REPLICATIONS, MIN_REPLICATIONS, PercentileBand,
};
use crate::sim::FEWEST_HOURS_RESAMPLED;
use crate::stats::{quantile_sorted, sort_as_total_cmp};
use crate::units::{count, counted, duration, significant};

/// The figures compared between lanes, and how a sentence names each.
const COMPARED: &[(&str, &str)] = &[
    ("mean_wait_s", "the mean wait"),
    ("p95_wait_s", "the p95 wait"),
    ("p99_wait_s", "the p99 wait"),
    ("max_queue_depth", "the most jobs waiting"),
];

/// What R runs of every lane measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Replicated {
    /// R, the runs of each lane.
    pub runs: u32,
    pub lanes: Vec<LaneName>,
    pub varied: Varied,
    /// What changed between runs, what ± means and the main lane's bad
    /// day, for the line beside the first interval.
    pub explained: String,
    /// The summary table's rows, each figure as an interval.
    pub rows: Vec<ReplicatedRow>,
    /// Every pair of lanes on each compared figure, first lane first; for
    /// a trace, each lane against the imported one.
    pub differences: Vec<Difference>,
    /// Per lane, the most jobs waiting in each bin across the runs.
    pub depth: Vec<PercentileBand>,
    pub bin_seconds: u32,
    /// Per lane, the fewest waits any run ranked its percentiles over.
    pub fewest_waits: Vec<u64>,
}

/// One figure for every lane.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplicatedRow {
    pub key: String,
    pub label: String,
    pub formula: String,
    pub values: Vec<ReplicatedValue>,
}

/// A lane's figure over the runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplicatedValue {
    pub interval: Interval,
    /// "20 min 58 s ± 14 s (95 %, 20 runs)".
    pub text: String,
    /// For a figure where more is worse (waits, jobs waiting): its bad day.
    pub bad_day: Option<BadDay>,
    /// For a percentile, its sample size and, when too small, a warning.
    pub note: Option<String>,
}

/// A figure of lane `after` less that of lane `before`, seed by seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    pub key: String,
    pub before: usize,
    pub after: usize,
    pub interval: Interval,
    /// "Slots cut the p95 wait by 38 min ± 2 min against Cron herd at :00".
    pub text: String,
}

/// The 90th percentile of a figure's R values, which one run in 10
/// exceeded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BadDay {
    pub value: f64,
    /// As the summary table writes the figure.
    pub text: String,
}

/// What changed from one run to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Varied {
    /// The seed, and with it every random draw of the panel's lanes.
    Draws,
    /// A replayed trace beside its spread lanes.
    Trace {
        /// Whether the trace gives each job's duration (else each run
        /// draws them from the panel's).
        own_durations: bool,
        hours: HourBlocks,
    },
}

/// Whether a replayed trace's arrivals were resampled by the hour
/// ([`crate::sim::ImportedJobs::resampled_by_hour`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HourBlocks {
    /// Every run replays the arrivals as they are.
    Kept,
    /// Each run redraws this many whole hours.
    Resampled(u64),
    /// Asked for, but the trace has fewer whole hours than resampling needs.
    TooShort(u64),
}

/// How one run's lanes are made from its seed.
pub type LanesOf = Box<dyn Fn(u64) -> Result<QueueSteps, InvalidInput>>;

/// A contiguous range of the R runs of every lane, taken a step at a time,
/// for a caller that reports progress and can stop between steps. Ranges
/// run apart (one per worker) and [`Replicated::merge`] joins their parts
/// in seed order, so the result does not depend on how the runs were split.
pub struct ReplicationSteps {
    params: QueueParams,
    lanes_of: LanesOf,
    runs: Range<u32>,
    /// The seeds of `runs`, in order.
    seeds: Vec<u64>,
    current: Option<QueueSteps>,
    samples: Samples,
}

/// What a range of the runs measured, to be merged with the other ranges'.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplicationPart {
    runs: Range<u32>,
    samples: Samples,
}

/// Per run, what the result is made from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Samples {
    lanes: Vec<LaneName>,
    varied: Varied,
    /// Per run, the summary table's values per row and lane.
    figures: Vec<Vec<Vec<f64>>>,
    /// Per lane, per run.
    waits: Vec<Vec<u64>>,
    depths: Vec<Vec<Vec<u32>>>,
    bin_seconds: u32,
}

impl ReplicationSteps {
    /// The runs `runs` of the `params.replications` of the panel's lanes
    /// under seeds drawn from `seed`; the count must lie in [5, 100], and
    /// the range must be within it and not empty.
    pub fn for_runs(
        params: &QueueParams,
        seed: u64,
        runs: Range<u32>,
    ) -> Result<Self, InvalidInput> {
        // Checked now, so a bad parameter fails before any run.
        params.simulations()?;
        let panel = params.clone();
        let lanes_of: LanesOf = Box::new(move |seed| QueueSteps::new(&panel, seed));
        Self::of_lanes(params, seed, runs, Varied::Draws, lanes_of)
    }

    /// As [`Self::for_runs`], each run's lanes made by `lanes_of` from its
    /// seed, and `varied` saying what changes between them.
    pub fn of_lanes(
        params: &QueueParams,
        seed: u64,
        runs: Range<u32>,
        varied: Varied,
        lanes_of: LanesOf,
    ) -> Result<Self, InvalidInput> {
        let count = params.replications;
        if !(MIN_REPLICATIONS..=MAX_REPLICATIONS).contains(&count) {
            return Err(InvalidInput::new(
                "repl",
                format!(
                    "{count} replications: give {MIN_REPLICATIONS} to {MAX_REPLICATIONS} for intervals"
                ),
            ));
        }
        if runs.is_empty() || runs.end > count {
            return Err(InvalidInput::new(
                "repl",
                format!("runs {runs:?} are not a range of the {count} replications"),
            ));
        }
        let seeds =
            replication::seeds(seed, count)[runs.start as usize..runs.end as usize].to_vec();
        Ok(Self {
            params: params.clone(),
            lanes_of,
            runs,
            seeds,
            current: None,
            samples: Samples::new(varied),
        })
    }

    /// Takes the next step and returns the share of the range done, from 0
    /// to 1; `None` once every run is done.
    pub fn step(&mut self) -> Result<Option<f64>, InvalidInput> {
        let done = self.samples.figures.len();
        let Some(&seed) = self.seeds.get(done) else {
            return Ok(None);
        };
        let steps = match &mut self.current {
            Some(steps) => steps,
            None => self.current.insert((self.lanes_of)(seed)?),
        };
        let share = match steps.step()? {
            Some(share) => share,
            None => {
                if let Some(steps) = self.current.take() {
                    self.samples.add(&self.params, &steps.finish()?);
                }
                1.0
            }
        };
        Ok(Some((done as f64 + share) / self.seeds.len() as f64))
    }

    /// Takes the steps left and returns what the range measured.
    pub fn finish(mut self) -> Result<ReplicationPart, InvalidInput> {
        while self.step()?.is_some() {}
        Ok(ReplicationPart {
            runs: self.runs,
            samples: self.samples,
        })
    }
}

impl Replicated {
    /// The result of the parts of `params.replications` runs, given in
    /// seed order and covering every run once.
    pub fn merge(
        params: &QueueParams,
        parts: impl IntoIterator<Item = ReplicationPart>,
    ) -> Result<Self, InvalidInput> {
        let mut samples: Option<Samples> = None;
        let mut next = 0;
        for part in parts {
            if part.runs.start != next {
                return Err(InvalidInput::new(
                    "repl",
                    format!("runs {:?} do not follow run {next}", part.runs),
                ));
            }
            next = part.runs.end;
            match &mut samples {
                Some(samples) => samples.append(part.samples),
                None => samples = Some(part.samples),
            }
        }
        if next != params.replications {
            return Err(InvalidInput::new(
                "repl",
                format!("{next} of {} replications ran", params.replications),
            ));
        }
        Ok(samples
            .unwrap_or_else(|| Samples::new(Varied::Draws))
            .into_result(params))
    }
}

/// `runs` split into at most `parts` contiguous ranges, in order, whose
/// sizes differ by one at most: one per worker.
pub fn split_runs(runs: u32, parts: u32) -> Vec<Range<u32>> {
    let parts = parts.clamp(1, runs.max(1));
    (0..parts)
        .map(|part| runs * part / parts..runs * (part + 1) / parts)
        .collect()
}

/// Runs every lane of `params` under `params.replications` seeds drawn
/// from `seed`, as one part.
pub fn replicate(params: &QueueParams, seed: u64) -> Result<Replicated, InvalidInput> {
    let all = ReplicationSteps::for_runs(params, seed, 0..params.replications)?.finish()?;
    Replicated::merge(params, [all])
}

impl Samples {
    fn new(varied: Varied) -> Self {
        Self {
            lanes: Vec::new(),
            varied,
            figures: Vec::new(),
            waits: Vec::new(),
            depths: Vec::new(),
            bin_seconds: 0,
        }
    }

    fn add(&mut self, params: &QueueParams, run: &QueueRun) {
        if self.lanes.is_empty() {
            self.lanes = run.lanes.iter().map(|lane| lane.name.clone()).collect();
        }
        let figures = summary_rows(params, run)
            .into_iter()
            .map(|row| row.values.into_iter().map(|(_, value)| value).collect())
            .collect();
        self.figures.push(figures);
        let lanes = run.lanes.len();
        self.waits.resize_with(lanes, Vec::new);
        self.depths.resize_with(lanes, Vec::new);
        for (lane, ((waits, depths), run)) in self
            .waits
            .iter_mut()
            .zip(&mut self.depths)
            .zip(run.lanes.iter().map(|lane| &lane.run))
            .enumerate()
        {
            waits.push(run.waits_ranked());
            depths.push(run.queue_depth.clone());
            if lane == 0 {
                self.bin_seconds = run.bin_seconds;
            }
        }
    }

    /// Adds the runs of `later`, which follow these.
    fn append(&mut self, later: Samples) {
        if self.lanes.is_empty() {
            self.lanes = later.lanes;
        }
        self.figures.extend(later.figures);
        append_per_lane(&mut self.waits, later.waits);
        append_per_lane(&mut self.depths, later.depths);
        // Every run bins alike.
        self.bin_seconds = later.bin_seconds;
    }

    fn into_result(self, params: &QueueParams) -> Replicated {
        let runs = self.figures.len() as u32;
        let lanes = self.lanes;
        let fewest_waits: Vec<u64> = self
            .waits
            .iter()
            .map(|waits| waits.iter().copied().min().unwrap_or(0))
            .collect();
        // The rows' names come from the table itself, for the first run's
        // lanes (all runs share them).
        let names = summary_rows(params, &QueueRun { lanes: Vec::new() });
        let column = |row: usize, lane: usize| -> Vec<f64> {
            self.figures.iter().map(|run| run[row][lane]).collect()
        };
        let rows: Vec<ReplicatedRow> = names
            .iter()
            .enumerate()
            .map(|(index, row)| ReplicatedRow {
                key: row.key.into(),
                label: row.label.into(),
                formula: row.formula.into(),
                values: (0..lanes.len())
                    .filter_map(|lane| {
                        let interval = Interval::of(&column(index, lane))?;
                        Some(ReplicatedValue {
                            interval,
                            text: interval_text(row.key, &interval),
                            bad_day: COMPARED
                                .iter()
                                .any(|(key, _)| *key == row.key)
                                .then(|| bad_day(row.key, column(index, lane))),
                            note: percentile_note(row.key, fewest_waits[lane]),
                        })
                    })
                    .collect(),
            })
            .collect();
        let mut differences = Vec::new();
        for (key, noun) in COMPARED {
            let Some(row) = names.iter().position(|row| row.key == *key) else {
                continue;
            };
            // A trace's lanes are compared with the imported one, the
            // first; the panel's, every pair.
            let befores = match self.varied {
                Varied::Draws => 0..lanes.len(),
                Varied::Trace { .. } => 0..1.min(lanes.len()),
            };
            for before in befores {
                for after in before + 1..lanes.len() {
                    let Some(interval) =
                        Interval::of_differences(&column(row, before), &column(row, after))
                    else {
                        continue;
                    };
                    differences.push(Difference {
                        key: (*key).into(),
                        before,
                        after,
                        text: difference_text(
                            key,
                            noun,
                            [&lanes[before].label, &lanes[after].label],
                            &interval,
                        ),
                        interval,
                    });
                }
            }
        }
        let explained = explained(self.varied, runs, &lanes, &rows);
        Replicated {
            runs,
            varied: self.varied,
            explained,
            depth: self
                .depths
                .iter()
                .map(|runs| PercentileBand::of(runs))
                .collect(),
            lanes,
            rows,
            differences,
            bin_seconds: self.bin_seconds,
            fewest_waits,
        }
    }
}

/// Each lane's runs of `later` after those in `all`.
fn append_per_lane<T>(all: &mut Vec<Vec<T>>, later: Vec<Vec<T>>) {
    all.resize_with(all.len().max(later.len()), Vec::new);
    for (all, later) in all.iter_mut().zip(later) {
        all.extend(later);
    }
}

/// The value of `key` one run in 10 exceeded: the [`BAD_DAY`] quantile of
/// its `values`.
fn bad_day(key: &str, mut values: Vec<f64>) -> BadDay {
    sort_as_total_cmp(&mut values);
    let value = quantile_sorted(&values, BAD_DAY).unwrap_or(f64::NAN);
    BadDay {
        value,
        text: figure_text(key, value),
    }
}

impl Varied {
    /// What changed from one run to the next, in a sentence or two.
    pub fn in_words(self) -> String {
        let (own_durations, hours) = match self {
            Varied::Draws => {
                return "Between runs only the seed changed, and with it every random draw: \
                        job durations, Poisson and jittered due times, refusals and retry delays."
                    .into();
            }
            Varied::Trace {
                own_durations,
                hours,
            } => (own_durations, hours),
        };
        let arrivals = match hours {
            HourBlocks::Resampled(whole) => format!(
                "each of the trace's {} was replaced by itself or an hour next to it, drawn at \
                 random and moved into its place (a block bootstrap), so the arrivals varied as \
                 another day like this one might",
                counted(whole, "whole hour", "whole hours")
            ),
            HourBlocks::Kept => "the arrival times were the trace's own in every run".into(),
            HourBlocks::TooShort(whole) => format!(
                "the arrival times were the trace's own in every run: it has {}, and resampling \
                 by the hour needs {FEWEST_HOURS_RESAMPLED}",
                counted(whole, "whole hour", "whole hours")
            ),
        };
        let durations = if own_durations {
            "each job kept the trace's duration"
        } else {
            "job durations were drawn anew from the panel's"
        };
        let fixed = (own_durations && !matches!(hours, HourBlocks::Resampled(_))).then_some(
            " Nothing random is left in the imported lane, so its figures are the same in every \
             run (± 0): resample by the hour to see how much they hang on this one trace.",
        );
        format!(
            "Between runs, in the imported lane {arrivals}, and {durations}; the spread lanes \
             drew anew whatever their strategy draws at random.{}",
            fixed.unwrap_or_default()
        )
    }
}

/// The line beside the first interval: what changed between runs, what
/// ± means, and the first lane's bad day for its p95 wait.
fn explained(varied: Varied, runs: u32, lanes: &[LaneName], rows: &[ReplicatedRow]) -> String {
    let p95 = rows
        .iter()
        .find(|row| row.key == "p95_wait_s")
        .and_then(|row| row.values.first());
    let bad_day = match (p95, lanes.first()) {
        (Some(value), Some(lane)) => value.bad_day.as_ref().map(|bad_day| {
            format!(
                " A bad day is the 90th percentile across the runs, which one run in 10 \
                 exceeded: the p95 wait of {} is {} on a bad day, against {} on average.",
                lane.label,
                bad_day.text,
                duration(value.interval.mean)
            )
        }),
        _ => None,
    };
    format!(
        "What does ± mean? {} Each figure is the average over the {runs} runs; ± is how far \
         that average may be from the one endless runs would give (95 % confidence). It is the \
         uncertainty of the average, not the range of one day.{}",
        varied.in_words(),
        bad_day.unwrap_or_default()
    )
}

/// A figure's value as the summary table writes it, by its key: seconds
/// for keys ending in `_s`, a share for utilization, a rate for the peak
/// calls, else a number.
fn figure_text(key: &str, value: f64) -> String {
    if key.ends_with("_s") {
        duration(value)
    } else if key == "utilization" {
        format!("{:.1} %", value * 100.0)
    } else if key == "peak_calls_per_second" {
        format!("{} /s", number(value))
    } else {
        number(value)
    }
}

/// Whole numbers with separators from 100 up, else three digits.
fn number(value: f64) -> String {
    if value.abs() >= 100.0 {
        let sign = if value < 0.0 { "−" } else { "" };
        format!("{sign}{}", count(value.abs().round() as u64))
    } else {
        significant(value, 3)
    }
}

/// "20 min 58 s ± 14 s (95 %, 20 runs)".
fn interval_text(key: &str, interval: &Interval) -> String {
    format!(
        "{} ± {} ({:.0} %, {} runs)",
        figure_text(key, interval.mean),
        figure_text(key, interval.half_width),
        CONFIDENCE * 100.0,
        interval.runs
    )
}

/// A percentile's sample size, and a warning for a p99 over too few.
fn percentile_note(key: &str, fewest_waits: u64) -> Option<String> {
    percentile_share(key).map(|share| {
        let base = format!(
            "{share} of at least {} jobs a run waited no longer",
            count(fewest_waits)
        );
        if key == "p99_wait_s" && fewest_waits < FEWEST_WAITS_FOR_P99 {
            format!(
                "{base}; fewer than {FEWEST_WAITS_FOR_P99}, so it is the largest wait or next to it"
            )
        } else {
            base
        }
    })
}

/// "Slots cut the p95 wait by 38 min ± 2 min against Cron herd at :00", or
/// no difference within noise when the interval holds 0.
fn difference_text(
    key: &str,
    noun: &str,
    [before, after]: [&str; 2],
    interval: &Interval,
) -> String {
    if interval.spans_zero() {
        return format!("{after} and {before}: no difference in {noun} within noise");
    }
    let verb = if interval.mean < 0.0 { "cut" } else { "raise" };
    format!(
        "{after} {verb} {noun} by {} against {before}",
        amount(key, interval)
    )
}

/// The size of a difference with its margin: "38 min ± 2 min".
fn amount(key: &str, interval: &Interval) -> String {
    format!(
        "{} ± {}",
        figure_text(key, interval.mean.abs()),
        figure_text(key, interval.half_width)
    )
}

impl Difference {
    /// The size of the difference with its margin, as its text writes it.
    pub fn amount(&self) -> String {
        amount(&self.key, &self.interval)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_and_differences_read_as_sentences() {
        let interval = Interval {
            mean: 1258.0,
            half_width: 14.0,
            runs: 20,
        };
        assert_eq!(
            interval_text("mean_wait_s", &interval),
            "20 min 58 s ± 14 s (95 %, 20 runs)"
        );
        let cut = Interval {
            mean: -2280.0,
            half_width: 120.0,
            runs: 20,
        };
        let lanes = ["Cron herd at :00", "Slots"];
        assert_eq!(
            difference_text("p95_wait_s", "the p95 wait", lanes, &cut),
            "Slots cut the p95 wait by 38 min ± 2 min against Cron herd at :00"
        );
        let noise = Interval {
            mean: 3.0,
            half_width: 4.0,
            runs: 20,
        };
        assert_eq!(
            difference_text("max_queue_depth", "the most jobs waiting", lanes, &noise),
            "Slots and Cron herd at :00: no difference in the most jobs waiting within noise"
        );
    }

    #[test]
    fn a_p99_over_few_waits_is_marked() {
        assert_eq!(
            percentile_note("p99_wait_s", 71).unwrap(),
            "99 in 100 of at least 71 jobs a run waited no longer; fewer than 100, so it is the largest wait or next to it"
        );
        assert_eq!(
            percentile_note("p95_wait_s", 71).unwrap(),
            "95 in 100 of at least 71 jobs a run waited no longer"
        );
        assert_eq!(
            percentile_note("p99_wait_s", 100).unwrap().find("fewer"),
            None
        );
        assert_eq!(percentile_note("mean_wait_s", 71), None);
    }
}
