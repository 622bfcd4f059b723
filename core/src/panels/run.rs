//! One entry point for every panel: a [`State`] in, the open panel's results out.
//!
//! The command line and the docs module both turn a URL or a parameter object
//! into a [`State`] through the codec, then call [`run`]; neither knows how a
//! panel computes. Each result serialises with its panel's slug under
//! `"panel"` beside its own fields, so one JSON object says what it is.
//!
//! [`PanelRun::time_series`] picks the series a reader would chart against
//! time, for a CSV file: a Poisson run's event times, jitter's jobs per
//! second, each backoff fleet's calls per timeline bin (a column for each
//! strategy, named by its slug), the hash spread's keys per bucket and the
//! slots' queue ingress per bin of the cycle, and each queue lane's depth,
//! busy and ready workers, ingress, finishes, lock conflicts and refused
//! calls per bin (columns named by the lane's slug).
//!
//! [`place_key`] is the hash spread of a single key, as the command line's
//! `spread` and the module's `spread()` give it for a reader's own keys.

use serde::Serialize;

use crate::backoff::{self, BackoffRun};
use crate::error::InvalidInput;
use crate::hash_spread::{self, HashMode, HashSpreadRun, Placement, Reduction};
use crate::jitter::{self, JitterRun};
use crate::key_numbers::KeyNumber;
use crate::panels::state::State;
use crate::panels::{self, Panel};
use crate::poisson::{self, PoissonRun};
use crate::queue::{self, QueueRun};
use crate::slots::{self, SlotRun};

/// What one panel computed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "panel", rename_all = "lowercase")]
// One value a run, handed on whole: boxing the larger results saves nothing.
#[allow(clippy::large_enum_variant)]
pub enum PanelRun {
    Poisson(PoissonRun),
    Jitter(JitterRun),
    Backoff(BackoffRun),
    #[serde(rename = "hash")]
    HashSpread(HashSpreadRun),
    Slots(SlotRun),
    Queue(QueueRun),
}

/// [`run`], and for Backoff the search for its verdict's flip, which runs
/// the fleets again for each change it tries: the command line prints it,
/// the page searches while idle, and the docs module leaves it out to stay
/// small.
pub fn run_with_flip(state: &State) -> Result<PanelRun, InvalidInput> {
    let mut result = run(state)?;
    if let PanelRun::Backoff(backoff) = &mut result {
        backoff.search_flip(&state.backoff, state.seed);
    }
    Ok(result)
}

/// Runs the open panel of `state` with its seed.
pub fn run(state: &State) -> Result<PanelRun, InvalidInput> {
    let seed = state.seed;
    Ok(match state.panel {
        Panel::Poisson => PanelRun::Poisson(poisson::run(&state.poisson, seed)?),
        Panel::Jitter => PanelRun::Jitter(jitter::run(&state.jitter, seed)?),
        Panel::Backoff => PanelRun::Backoff(backoff::run(&state.backoff, seed)?),
        Panel::HashSpread => PanelRun::HashSpread(hash_spread::run(&state.hash_spread, seed)?),
        Panel::Slots => PanelRun::Slots(slots::run(&state.slots, seed)?),
        Panel::Queue => PanelRun::Queue(queue::run(&state.queue, seed)?),
        // A fleet is text the reader pastes, which no state holds.
        Panel::Fleet => {
            return Err(InvalidInput::new(
                "p",
                "the Fleet panel reads a fleet's text: give it to `stampede fleet` or the fleet module",
            ));
        }
    })
}

/// Named columns of equal length, one row per step in time. Kept by column
/// because a long run has millions of rows and few columns.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeSeries {
    pub header: Vec<String>,
    pub columns: Vec<Vec<f64>>,
}

impl TimeSeries {
    /// The number of rows.
    pub fn len(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values of row `index`, one per column.
    pub fn row(&self, index: usize) -> impl Iterator<Item = f64> + '_ {
        self.columns.iter().map(move |column| column[index])
    }

    /// The header line, then one line per row, values as Rust prints them
    /// (shortest text that reads back as the same f64).
    pub fn write_csv(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        writeln!(out, "{}", self.header.join(","))?;
        for index in 0..self.len() {
            let row: Vec<String> = self.row(index).map(|x| x.to_string()).collect();
            writeln!(out, "{}", row.join(","))?;
        }
        Ok(())
    }
}

fn names(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| name.to_string()).collect()
}

/// The lanes' series side by side; the lanes share their bins.
fn queue_series(run: &QueueRun) -> Option<TimeSeries> {
    let first = &run.lanes.first()?.run;
    let bins = first.queue_depth.len();
    let mut header = names(&["time_s"]);
    let mut columns = vec![
        (0..bins)
            .map(|bin| bin as f64 * f64::from(first.bin_seconds))
            .collect(),
    ];
    let whole = |counts: &[u32]| counts.iter().map(|&c| f64::from(c)).collect();
    for lane in &run.lanes {
        let series = &lane.run;
        let lane_columns: [(&str, Vec<f64>); 7] = [
            ("queue_depth", whole(&series.queue_depth)),
            ("executing", series.executing.clone()),
            ("workers", series.workers.clone()),
            ("ingress", whole(&series.ingress)),
            ("done", whole(&series.done)),
            ("lock_conflicts", whole(&series.lock_conflicts)),
            ("failed", whole(&series.failed)),
        ];
        for (name, column) in lane_columns {
            header.push(format!("{name}_{}", lane.name.slug));
            columns.push(column);
        }
    }
    Some(TimeSeries { header, columns })
}

/// Counts of bins `step` wide as two columns: each bin's start, its count.
fn counted(counts: &[u32], step: f64) -> [Vec<f64>; 2] {
    let starts = (0..counts.len()).map(|i| i as f64 * step).collect();
    let counts = counts.iter().map(|&c| f64::from(c)).collect();
    [starts, counts]
}

impl PanelRun {
    /// The figures the panel prints beside its charts, for `state`, the
    /// state this run came from.
    pub fn key_numbers(&self, state: &State) -> Vec<KeyNumber> {
        match self {
            PanelRun::Poisson(run) => panels::poisson::key_numbers(&state.poisson, run),
            PanelRun::Jitter(run) => panels::jitter::key_numbers(&state.jitter, run),
            PanelRun::Backoff(run) => panels::backoff::key_numbers(&state.backoff, run),
            PanelRun::HashSpread(run) => panels::hash_spread::key_numbers(&state.hash_spread, run),
            PanelRun::Slots(run) => panels::slots::key_numbers(&state.slots, run),
            PanelRun::Queue(run) => panels::queue::key_numbers(&state.queue, run),
        }
    }

    /// The series this panel charts against time.
    pub fn time_series(&self) -> Option<TimeSeries> {
        Some(match self {
            PanelRun::Poisson(run) => TimeSeries {
                header: names(&["time_s"]),
                columns: vec![run.run_times.clone()],
            },
            PanelRun::Jitter(run) => TimeSeries {
                header: names(&["second", "jobs"]),
                columns: counted(&run.per_second, 1.0).into(),
            },
            PanelRun::Backoff(run) => {
                // The fleets share their bins, so one time column serves all.
                let timeline = &run.fleets.first()?.fleet.timeline;
                let [starts, _] = counted(&timeline.calls, timeline.bin_seconds);
                let calls = run.fleets.iter().map(|strategy| {
                    let calls = strategy.fleet.timeline.calls.iter();
                    calls.map(|&c| f64::from(c)).collect()
                });
                TimeSeries {
                    header: std::iter::once("time_s")
                        .chain(run.fleets.iter().map(|strategy| strategy.strategy.slug()))
                        .map(String::from)
                        .collect(),
                    columns: std::iter::once(starts).chain(calls).collect(),
                }
            }
            PanelRun::HashSpread(run) => TimeSeries {
                header: names(&["offset_s", "keys"]),
                columns: counted(&run.bucket_counts, f64::from(run.bucket_width)).into(),
            },
            PanelRun::Slots(run) => {
                let plan = &run.plan;
                let [starts, slotted] = counted(&plan.ingress_slotted, plan.bin_seconds);
                let all_at_once = plan.ingress_all_at_once.iter().map(|&c| f64::from(c));
                TimeSeries {
                    header: names(&["time_s", "ingress_slotted", "ingress_all_at_once"]),
                    columns: vec![starts, slotted, all_at_once.collect()],
                }
            }
            PanelRun::Queue(run) => queue_series(run)?,
        })
    }
}

/// The most keys [`place_key`]'s callers take at once.
pub const MAX_KEYS: u64 = hash_spread::MAX_PLACED_KEYS as u64;

/// One key's place in a window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KeyOffset {
    pub key: String,
    /// The 32-bit hash of the key's UTF-8 bytes; `None` in Ruby mode, which
    /// draws the offset from a generator seeded by the key instead.
    pub hash: Option<u32>,
    /// Seconds from the window's start, below the window.
    pub offset: u32,
}

/// The placement of keys by `mode` and `reduction` in a window of `window`
/// seconds, which must hold at least one second.
pub fn placement(
    mode: HashMode,
    reduction: Reduction,
    window: u32,
) -> Result<Placement, InvalidInput> {
    if window == 0 {
        return Err(InvalidInput::new("window", "must be at least 1 second"));
    }
    Ok(Placement {
        mode,
        reduction,
        window,
    })
}

/// The hash and offset of `key` under `placement`.
pub fn place_key(placement: &Placement, key: String) -> Result<KeyOffset, InvalidInput> {
    Ok(KeyOffset {
        hash: placement.mode.hash(&key),
        offset: placement.offset(&key)?,
        key,
    })
}

/// The query string of an app URL (what follows `?`, up to any `#`), or
/// `link` itself when it holds no `?` and no `://`, as a bare query does.
pub fn query_of(link: &str) -> &str {
    let link = link.trim();
    let without_fragment = link.split_once('#').map_or(link, |(before, _)| before);
    // "://" is looked for among the bytes: a `&str` pattern would bring a
    // substring search (about 2 KB of wasm) into the docs module.
    let has_scheme = || without_fragment.as_bytes().windows(3).any(|w| w == b"://");
    match without_fragment.split_once('?') {
        Some((_, query)) => query,
        None if has_scheme() => "",
        None => without_fragment,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_panel_runs_its_own_computation() {
        let Ok(PanelRun::Jitter(run)) = run(&State::new(Panel::Jitter)) else {
            panic!("the jitter panel did not give a jitter run");
        };
        let rate = run.flat_rate_per_second.unwrap();
        assert!((rate - 10_000.0 / 1_800.0).abs() < 1e-9, "{rate}");
        assert!(matches!(
            super::run(&State::new(Panel::Backoff)),
            Ok(PanelRun::Backoff(_))
        ));
    }

    #[test]
    fn the_queue_runs_every_lane() {
        let Ok(PanelRun::Queue(queue)) = run(&State::new(Panel::Queue)) else {
            panic!("the queue panel did not give a queue run");
        };
        let slugs: Vec<&str> = queue.lanes.iter().map(|l| l.name.slug.as_str()).collect();
        assert_eq!(slugs, ["herd", "slots"]);
        let mut idle = State::new(Panel::Queue);
        idle.queue.duration_p90 = idle.queue.duration_mean;
        assert_eq!(run(&idle).unwrap_err().field, "p90");
    }

    #[test]
    fn time_series_count_every_job_and_call() {
        let jitter = run(&State::new(Panel::Jitter)).unwrap();
        let series = jitter.time_series().unwrap();
        assert_eq!(series.header, ["second", "jobs"]);
        assert_eq!(series.columns[1].iter().sum::<f64>(), 10_000.0);
        assert_eq!(series.row(2).next(), Some(2.0));

        let Ok(PanelRun::Backoff(backoff)) = run(&State::new(Panel::Backoff)) else {
            panic!("no backoff run");
        };
        let series = PanelRun::Backoff(backoff.clone()).time_series().unwrap();
        assert_eq!(
            series.header,
            ["time_s", "exponential", "full", "decorrelated"]
        );
        assert_eq!(
            series.columns[1].iter().sum::<f64>(),
            backoff.fleets[0].fleet.calls as f64
        );

        let poisson = run(&State::new(Panel::Poisson)).unwrap();
        let PanelRun::Poisson(events) = &poisson else {
            panic!("no poisson run");
        };
        assert_eq!(poisson.time_series().unwrap().len(), events.run_times.len());

        let hash = run(&State::new(Panel::HashSpread)).unwrap();
        let series = hash.time_series().unwrap();
        assert_eq!(series.header, ["offset_s", "keys"]);
        assert_eq!(series.row(1).next(), Some(3600.0));
        assert_eq!(series.columns[1].iter().sum::<f64>(), 1000.0);

        let slots = run(&State::new(Panel::Slots)).unwrap();
        let series = slots.time_series().unwrap();
        // Both plans enqueue every account and, slotted, one job per slot.
        let enqueued = |column: usize| series.columns[column].iter().sum::<f64>();
        assert_eq!((enqueued(1), enqueued(2)), (10_015.0, 10_000.0));

        let queue = run(&State::new(Panel::Queue)).unwrap();
        let PanelRun::Queue(lanes) = &queue else {
            panic!("no queue run");
        };
        let series = queue.time_series().unwrap();
        assert_eq!(series.header.len(), 1 + 7 * 2);
        assert_eq!(series.header[1], "queue_depth_herd");
        assert_eq!(series.header[9], "executing_slots");
        let done: f64 = series.columns[5].iter().sum();
        assert_eq!(done, lanes.lanes[0].run.summary.jobs_done as f64);
    }

    #[test]
    fn a_key_is_placed_by_its_hash_or_by_ruby() {
        // MurmurHash3 of "abc" is 0xb3dd93fa = 3,017,643,002 (core/tests/data/hash_vectors.tsv).
        let murmur = |reduction| placement(HashMode::Murmur, reduction, 3600).unwrap();
        let by_mod = place_key(&murmur(Reduction::Mod), "abc".into()).unwrap();
        assert_eq!((by_mod.hash, by_mod.offset), (Some(3_017_643_002), 602));
        let by_mulshift = place_key(&murmur(Reduction::MulShift), "abc".into()).unwrap();
        assert_eq!(by_mulshift.offset, 2529);
        // Random.new(1).rand(3600) is 1061 (core/tests/data/spread_ruby.tsv).
        let ruby = placement(HashMode::Ruby, Reduction::Mod, 3600).unwrap();
        let drawn = place_key(&ruby, "1".into()).unwrap();
        assert_eq!((drawn.hash, drawn.offset), (None, 1061));
        let empty = placement(HashMode::Farm, Reduction::Mod, 0);
        assert_eq!(empty.unwrap_err().field, "window");
    }

    #[test]
    fn the_query_is_found_in_a_url_or_taken_as_it_is() {
        let url = "https://example.org/docs/stampede/?v=1&p=jitter&n=5#top";
        assert_eq!(query_of(url), "v=1&p=jitter&n=5");
        assert_eq!(query_of("?p=slots"), "p=slots");
        assert_eq!(query_of(" p=slots&bk=256 "), "p=slots&bk=256");
        assert_eq!(query_of("https://example.org/docs/stampede/"), "");
    }
}
