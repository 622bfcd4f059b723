//! The Fleet worker's messages, one enum each way, shared by the page
//! (`src/fleet_worker.rs`) and the worker (`src/fleet_worker_main.rs`).
//! Each crosses as its postcard bytes in one transferred buffer: a
//! 10,000-job fleet's read is thousands of small values, which a JS value
//! would build, clone and take apart again on both sides (see Cargo.toml).
//!
//! The worker's binary takes this file by `#[path]` rather than linking
//! the app's library, which would cost it 7.8 KB gzipped.

use serde::{Deserialize, Serialize};
use stampede_core::panels::fleet::Sample;
use stampede_core::panels::{Panel, State};
use stampede_fleet::panel::{FleetFix, FleetProbe, FleetRead};

/// The id of the request a worker takes up by itself ([`Request::ahead_of`])
/// until the page makes it; the page's own requests count from 1.
pub const AHEAD_ID: u32 = 0;

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

impl Request {
    /// The request a worker named by a page's `query` takes up before the
    /// page asks anything: index.html starts a worker so named with a page
    /// that opens on the Fleet panel. It asks for the sample the query
    /// names; the reader's own fleet waits for the page, which has its text.
    pub fn ahead_of(query: &str) -> Option<Request> {
        let (state, _notices) = State::from_query(query);
        (state.panel == Panel::Fleet && state.fleet.sample != Sample::Own).then(|| Request {
            id: AHEAD_ID,
            query: query.to_string(),
            source: Source::Sample,
            day: None,
            patient: false,
            stall: false,
        })
    }

    /// Whether the worker answers `self` and `other` alike: the same
    /// source and options, and the same Fleet settings and seed however
    /// the queries write them.
    pub fn asks_as(&self, other: &Request) -> bool {
        let settings = |request: &Request| {
            let (state, _notices) = State::from_query(&request.query);
            (state.fleet, state.seed)
        };
        (&self.source, self.day, self.patient, self.stall)
            == (&other.source, other.day, other.patient, other.stall)
            && settings(self) == settings(other)
    }
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
