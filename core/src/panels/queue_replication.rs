//! The Queue panel's replications: every lane run again under R seeds
//! ([`crate::replication`]), each summary figure written as its mean with
//! a 95 % interval, each pair of lanes compared seed by seed in words, and
//! the queue's depth as a band across the runs.
//!
//! Percentiles of waits are the simulation's own, nearest rank over each
//! run's waits (retries included); each says how many waits a run had, and
//! a p99 over fewer than 100 is marked, as it is then the largest wait or
//! next to it.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::error::InvalidInput;
use crate::panels::queue::{FEWEST_WAITS_FOR_P99, PERCENTILE_METHOD, summary_rows};
use crate::queue::{LaneName, QueueParams, QueueRun, QueueSteps};
use crate::replication::{
    self, CONFIDENCE, Interval, MAX_REPLICATIONS, MIN_REPLICATIONS, PercentileBand,
};
use crate::units::{count, duration, significant};

/// The figures compared between lanes, and how a sentence names each.
const COMPARED: &[(&str, &str)] = &[
    ("mean_wait_s", "the mean wait"),
    ("p95_wait_s", "the p95 wait"),
    ("p99_wait_s", "the p99 wait"),
    ("max_queue_depth", "the most jobs waiting"),
];

/// The percentile rows, whose values say how many waits they rank.
const PERCENTILES: &[&str] = &["p50_wait_s", "p95_wait_s", "p99_wait_s"];

/// What R runs of every lane measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Replicated {
    /// R, the runs of each lane.
    pub runs: u32,
    pub lanes: Vec<LaneName>,
    /// The summary table's rows, each figure as an interval.
    pub rows: Vec<ReplicatedRow>,
    /// Every pair of lanes on each compared figure, first lane first.
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

/// A contiguous range of the R runs of every lane, taken a step at a time,
/// for a caller that reports progress and can stop between steps. Ranges
/// run apart (one per worker) and [`Replicated::merge`] joins their parts
/// in seed order, so the result does not depend on how the runs were split.
pub struct ReplicationSteps {
    params: QueueParams,
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
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Samples {
    /// Per run, the summary table's values per row and lane.
    figures: Vec<Vec<Vec<f64>>>,
    /// Per lane, per run.
    waits: Vec<Vec<u64>>,
    depths: Vec<Vec<Vec<u32>>>,
    bin_seconds: u32,
}

impl ReplicationSteps {
    /// The runs `runs` of the `params.replications` under seeds drawn from
    /// `seed`; the count must lie in [5, 100], and the range must be
    /// within it and not empty.
    pub fn for_runs(
        params: &QueueParams,
        seed: u64,
        runs: Range<u32>,
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
        // Checked now, so a bad parameter fails before any run.
        params.simulations()?;
        let seeds =
            replication::seeds(seed, count)[runs.start as usize..runs.end as usize].to_vec();
        Ok(Self {
            params: params.clone(),
            runs,
            seeds,
            current: None,
            samples: Samples::default(),
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
            None => self.current.insert(QueueSteps::new(&self.params, seed)?),
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
        let mut samples = Samples::default();
        let mut next = 0;
        for part in parts {
            if part.runs.start != next {
                return Err(InvalidInput::new(
                    "repl",
                    format!("runs {:?} do not follow run {next}", part.runs),
                ));
            }
            next = part.runs.end;
            samples.append(part.samples);
        }
        if next != params.replications {
            return Err(InvalidInput::new(
                "repl",
                format!("{next} of {} replications ran", params.replications),
            ));
        }
        Ok(samples.into_result(params))
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
    fn add(&mut self, params: &QueueParams, run: &QueueRun) {
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
        self.figures.extend(later.figures);
        append_per_lane(&mut self.waits, later.waits);
        append_per_lane(&mut self.depths, later.depths);
        // Every run bins alike.
        self.bin_seconds = later.bin_seconds;
    }

    fn into_result(self, params: &QueueParams) -> Replicated {
        let runs = self.figures.len() as u32;
        let lanes = params.lanes();
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
        let rows = names
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
            for before in 0..lanes.len() {
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
        Replicated {
            runs,
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
    PERCENTILES.contains(&key).then(|| {
        let base = format!(
            "{PERCENTILE_METHOD} of at least {} waits a run",
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
        "{after} {verb} {noun} by {} ± {} against {before}",
        figure_text(key, interval.mean.abs()),
        figure_text(key, interval.half_width)
    )
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
            "nearest rank of at least 71 waits a run; fewer than 100, so it is the largest wait or next to it"
        );
        assert_eq!(
            percentile_note("p95_wait_s", 71).unwrap(),
            "nearest rank of at least 71 waits a run"
        );
        assert_eq!(
            percentile_note("p99_wait_s", 100).unwrap().find("fewer"),
            None
        );
        assert_eq!(percentile_note("mean_wait_s", 71), None);
    }
}
