//! "Try this" presets: one-click lessons. Each sets a panel's parameters
//! (everything it does not name goes back to its default; the seed stays)
//! and says in one sentence what to notice.

use crate::field::Notice;
use crate::state::{Panel, State};
use crate::{backoff, jitter, poisson, queue, slots, spread};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preset {
    /// A stable name, for the page and its tests.
    pub slug: &'static str,
    pub title: &'static str,
    /// What the preset shows, in one sentence.
    pub lesson: &'static str,
    /// The parameters it sets, as a query string of the panel's keys.
    pub query: &'static str,
}

/// The presets of `panel`, in the order a reader should try them.
pub fn presets(panel: Panel) -> &'static [Preset] {
    match panel {
        Panel::Poisson => poisson::PRESETS,
        Panel::Jitter => jitter::PRESETS,
        Panel::Backoff => backoff::PRESETS,
        Panel::Hash => spread::PRESETS,
        Panel::Slots => slots::PRESETS,
        Panel::Queue => queue::PRESETS,
    }
}

impl Preset {
    /// The state showing this preset on `panel`, starting from `seed`; the
    /// notices are empty for every preset, which a test checks.
    pub fn state(&self, panel: Panel, seed: u64) -> (State, Vec<Notice>) {
        State::from_query(&format!("v=1&p={}&s={seed}&{}", panel.slug(), self.query))
    }
}
