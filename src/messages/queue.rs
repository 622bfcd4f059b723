//! The Queue worker's messages, one enum each way, shared by the page
//! (`src/worker.rs`) and the worker (`src/worker_main.rs`). They cross as
//! JS values through serde-wasm-bindgen, so a run's f64s arrive exactly
//! (see Cargo.toml).
//!
//! The worker's binary takes this file by `#[path]` rather than linking
//! the app's library, which would cost it 7.8 KB gzipped.

use std::ops::Range;

use serde::{Deserialize, Serialize};

/// What the page asks of a worker. A worker serves one run, and until it
/// gets one it may draw ahead for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// While the worker waits for its run, draw the sync durations of the
    /// state of this query string, a slice per task; the run reads them
    /// where they are its own (the same seed and durations).
    Ahead(String),
    /// Simulate the lanes of the state of this query string, as a URL
    /// holds it: done with a `QueueRun`.
    Run(String),
    /// Run the lanes under runs `runs` of the replications of `query`'s
    /// state, one worker's part of them, or a replay of `trace` instead of
    /// the lanes: done with a `ReplicationPart`.
    Replicate {
        query: String,
        runs: Range<u32>,
        trace: Option<Trace>,
    },
    /// Read, describe and diagnose `text` as arrivals, then replay them
    /// under the Queue parameters of `query`'s state: [`Reply::Parsed`]
    /// once the text is read, then done with an `ArrivalsRun`.
    Arrivals { query: String, text: String },
}

/// The reader's arrivals, which replications replay instead of the lanes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub text: String,
    /// Whether each run resamples the arrivals by the hour.
    pub resample: bool,
}

/// What a worker tells the page about its run, whose result is a `T`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Reply<T> {
    /// The worker runs and hears requests: one posted earlier is lost, so
    /// the page waits for this.
    Ready,
    /// The share of the run done, from 0 to 1.
    Progress(f64),
    /// How long reading, describing and diagnosing arrivals took, in ms.
    Parsed(f64),
    Done(T),
    /// Why the run gives no result, for the reader.
    Failed(String),
}
