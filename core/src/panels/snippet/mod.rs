//! Snippets: what a reader pastes into their own system to get what a
//! panel shows.
//!
//! A panel turns its parameters into a few snippets, one per system (a
//! crontab line, a Sidekiq call, a SQL query), each exact for those
//! parameters: the same window, the same retries, the same hash. The app
//! shows them under "Use it in your stack" with a copy button each, and the
//! tests check every number in them against the parameters.

pub mod backoff;
pub mod hash;
pub mod jitter;
pub mod slots;

use serde::Serialize;

use crate::panels::{State, for_panel};

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Snippet {
    /// A stable name, for the page and its tests: "crontab", "celery".
    pub key: &'static str,
    /// Where it goes, as a reader names it: "crontab", "systemd timer".
    pub title: &'static str,
    /// The language of `code`: "sh", "ini", "ruby", "python", "go", "sql",
    /// "yaml".
    pub language: &'static str,
    /// The text to paste, lines separated by '\n'.
    pub code: String,
    /// What it does and where it differs from the panel, in a sentence or two.
    pub note: String,
}

impl Snippet {
    pub fn new(
        key: &'static str,
        title: &'static str,
        language: &'static str,
        code: impl Into<String>,
        note: impl Into<String>,
    ) -> Self {
        Self {
            key,
            title,
            language,
            code: code.into(),
            note: note.into(),
        }
    }
}

/// The snippets of the open panel of `state`, for its parameters
/// ([`crate::panels::PanelSpec::snippets`]).
pub fn of_panel(state: &State) -> Vec<Snippet> {
    for_panel!(state.panel, P => P::snippets(P::params(state)))
}
