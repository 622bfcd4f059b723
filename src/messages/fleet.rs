//! The Fleet worker's messages, one enum each way, shared by the page
//! (`src/fleet_worker.rs`) and the worker (`src/fleet_worker_main.rs`).
//! Each crosses as its postcard bytes in one transferred buffer: a
//! 10,000-job fleet's read is thousands of small values, which a JS value
//! would build, clone and take apart again on both sides (see Cargo.toml).
//!
//! The worker's binary takes this file by `#[path]` rather than linking
//! the app's library, which would cost it 7.8 KB gzipped.

use serde::{Deserialize, Serialize};
use stampede_fleet::panel::{FleetFix, FleetProbe, FleetRead};

/// What the page asks: one request, which takes the place of any the
/// worker is still on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Grows with every request of the page; the worker's replies name it.
    pub id: u32,
    /// The page's query string, whose Fleet settings and seed apply.
    pub query: String,
    pub source: Source,
    /// Asks, instead of the stages, for this day's starts (0 for the
    /// week's first) as arrivals for the Queue panel.
    pub day: Option<u32>,
    /// Reads a text past the size budget too, however long it takes.
    pub patient: bool,
    /// Holds the reader's own fleet for a minute first, as no fleet within
    /// the budget takes: the end-to-end test's busy worker (`debug=stall`).
    pub stall: bool,
}

/// Where the fleet's text comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Source {
    /// The text itself, typed, pasted or dropped.
    Text(String),
    /// A link's fragment, without `#`; the worker replies with its text.
    Fragment(String),
    /// The sample the query names; the worker replies with its text.
    Sample,
}

/// What the worker says. The end-to-end test counts `Taken` by its
/// index, which postcard writes first (tests/e2e/specs/fleet.spec.mjs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Message {
    /// The worker runs and hears requests: one posted earlier is lost, so
    /// the page waits for this.
    Ready,
    /// The request of this id arrived, so the worker is not stuck in a
    /// long stage.
    Taken(u32),
    /// One reply about the request of this id.
    Reply(u32, Reply),
    /// The worker could not read a request: why.
    Unreadable(String),
}

/// One reply about a request, in the order the worker sends them: the
/// text a fragment or a sample stands for, then the read, the link, the
/// fix and the probe, or the day's arrivals alone; or, in place of the
/// rest, why no more come.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Reply {
    /// The text a fragment or a sample stands for.
    Text(String),
    Read(Box<FleetRead>),
    /// The link fragment that carries the reader's own fleet, or why none
    /// can; `None` for a sample.
    Link(Option<Result<String, String>>),
    Fix(Box<FleetFix>),
    Probe(Option<FleetProbe>),
    /// A day's starts as arrivals for the Queue panel (a CSV text).
    Arrivals(String),
    /// The fleet was not read, or its reading was stopped, because it could
    /// take minutes: why, for the reader to ask for it anyway.
    OverBudget(String),
    /// The request failed, or the worker did: the reader's message.
    Failed(String),
}

impl Reply {
    /// Whether nothing more comes about the request.
    pub fn is_last(&self) -> bool {
        match self {
            Reply::Probe(_) | Reply::Arrivals(_) | Reply::OverBudget(_) | Reply::Failed(_) => true,
            Reply::Text(_) | Reply::Read(_) | Reply::Link(_) | Reply::Fix(_) => false,
        }
    }
}
