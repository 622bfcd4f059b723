//! One entry point for every panel: a [`State`] in, the open panel's results out.
//!
//! The command line and the docs module both turn a URL or a parameter object
//! into a [`State`] through the codec, then call [`run`] or [`report`];
//! neither knows how a panel computes. Each result serialises with its
//! panel's slug under `"panel"` beside its own fields, so one JSON object
//! says what it is.
//!
//! [`place_key`] is the hash spread of a single key, as the command line's
//! `spread` and the module's `spread()` give it for a reader's own keys.

use std::convert::Infallible;

use serde::Serialize;

use crate::backoff::BackoffRun;
use crate::error::InvalidInput;
use crate::hash_spread::{self, HashMode, HashSpreadRun, Placement, Reduction};
use crate::jitter::JitterRun;
use crate::key_numbers::KeyNumber;
use crate::panels::series::TimeSeries;
use crate::panels::{State, for_panel};
use crate::poisson::PoissonRun;
use crate::queue::QueueRun;
use crate::slots::SlotRun;

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

/// Each panel's run, as [`PanelSpec::Run`] names it, becomes its variant.
macro_rules! from_runs {
    ($($variant:ident($run:ty)),* $(,)?) => {$(
        impl From<$run> for PanelRun {
            fn from(run: $run) -> Self {
                PanelRun::$variant(run)
            }
        }
    )*};
}

from_runs! {
    Poisson(PoissonRun),
    Jitter(JitterRun),
    Backoff(BackoffRun),
    HashSpread(HashSpreadRun),
    Slots(SlotRun),
    Queue(QueueRun),
}

/// The Fleet panel's run from a state alone, which never comes.
impl From<Infallible> for PanelRun {
    fn from(never: Infallible) -> Self {
        match never {}
    }
}

/// Runs the open panel of `state` with its seed.
pub fn run(state: &State) -> Result<PanelRun, InvalidInput> {
    for_panel!(state.panel, P => Ok(P::run(P::params(state), state.seed)?.into()))
}

/// A run as the command line prints it: in full ([`crate::panels::PanelSpec::run_in_full`],
/// which the docs module leaves out to stay small), with its key numbers
/// and its series against time.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub run: PanelRun,
    pub key_numbers: Vec<KeyNumber>,
    pub series: Option<TimeSeries>,
}

/// Runs the open panel of `state` in full and reports it.
pub fn report(state: &State) -> Result<Report, InvalidInput> {
    for_panel!(state.panel, P => {
        let params = P::params(state);
        let run = P::run_in_full(params, state.seed)?;
        Ok(Report {
            key_numbers: P::key_numbers(params, &run),
            series: P::time_series(&run),
            run: run.into(),
        })
    })
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

    use crate::panels::Panel;

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
        let series_of = |panel| report(&State::new(panel)).unwrap().series.unwrap();
        let series = series_of(Panel::Jitter);
        assert_eq!(series.header, ["second", "jobs"]);
        assert_eq!(series.columns[1].iter().sum::<f64>(), 10_000.0);
        assert_eq!(series.row(2).next(), Some(2.0));

        let Ok(PanelRun::Backoff(backoff)) = run(&State::new(Panel::Backoff)) else {
            panic!("no backoff run");
        };
        let series = series_of(Panel::Backoff);
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
        assert_eq!(series_of(Panel::Poisson).len(), events.run_times.len());

        let series = series_of(Panel::HashSpread);
        assert_eq!(series.header, ["offset_s", "keys"]);
        assert_eq!(series.row(1).next(), Some(3600.0));
        assert_eq!(series.columns[1].iter().sum::<f64>(), 1000.0);

        let series = series_of(Panel::Slots);
        // Both plans enqueue every account and, slotted, one job per slot.
        let enqueued = |column: usize| series.columns[column].iter().sum::<f64>();
        assert_eq!((enqueued(1), enqueued(2)), (10_015.0, 10_000.0));

        let queue = run(&State::new(Panel::Queue)).unwrap();
        let PanelRun::Queue(lanes) = &queue else {
            panic!("no queue run");
        };
        let series = series_of(Panel::Queue);
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
