//! The panels: what each one shows a reader, built on the models.
//!
//! A model (say [`crate::poisson`]) computes; its panel module here gives it
//! a face: the parameters' URL keys, labels and ranges with the rules that
//! settle them, the "try this" presets, and the key numbers printed beside
//! the charts. Above the panels sit the URL codec ([`state`]), the one entry
//! point that runs the open panel ([`run`]) and the snippets a reader pastes
//! into their own system ([`snippet`]). Nothing outside this module imports
//! it, so the models stay free of page concerns.

pub mod backoff;
pub mod fleet;
pub mod hash_spread;
pub mod jitter;
pub mod learn;
pub mod poisson;
pub mod queue;
pub mod queue_arrivals;
pub mod queue_replication;
pub mod run;
pub mod slots;
pub mod snippet;
pub mod state;
pub mod story;

use crate::field::Notice;
use crate::preset::Preset;
use state::State;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Panel {
    #[default]
    Poisson,
    Jitter,
    Backoff,
    HashSpread,
    Slots,
    Queue,
    Fleet,
}

impl Panel {
    pub const ALL: [Panel; 7] = [
        Panel::Poisson,
        Panel::Jitter,
        Panel::Backoff,
        Panel::HashSpread,
        Panel::Slots,
        Panel::Queue,
        Panel::Fleet,
    ];

    /// The panel's name in URLs.
    pub fn slug(self) -> &'static str {
        match self {
            Panel::Poisson => "poisson",
            Panel::Jitter => "jitter",
            Panel::Backoff => "backoff",
            Panel::HashSpread => "hash",
            Panel::Slots => "slots",
            Panel::Queue => "queue",
            Panel::Fleet => "fleet",
        }
    }

    /// The panel's name as a reader sees it.
    pub fn title(self) -> &'static str {
        match self {
            Panel::Poisson => "Poisson",
            Panel::Jitter => "Jitter",
            Panel::Backoff => "Backoff",
            Panel::HashSpread => "Hash spread",
            Panel::Slots => "Slots",
            Panel::Queue => "Queue",
            Panel::Fleet => "Fleet",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Panel> {
        Panel::ALL.into_iter().find(|panel| panel.slug() == slug)
    }

    /// What the panel draws, key numbers first, in the order it draws them.
    pub fn figures(self) -> &'static [Figure] {
        const fn figure(slug: &'static str, title: &'static str) -> Figure {
            Figure { slug, title }
        }
        const POISSON: &[Figure] = &[
            KEY_NUMBERS,
            figure("timeline", "The first day, minute by minute"),
            figure("gaps", "Gaps between events"),
            figure("hours", "Events per hour of the day"),
            figure("bucket", "Token bucket"),
        ];
        const JITTER: &[Figure] = &[
            KEY_NUMBERS,
            figure("arrivals", "Arrivals at the downstream"),
            figure("completion", "Jobs started so far"),
        ];
        const BACKOFF: &[Figure] = &[
            KEY_NUMBERS,
            figure("calls", "Calls per second after the failure"),
            figure("waits", "Wait before each retry"),
            figure("totals", "Totals per strategy"),
        ];
        const HASH: &[Figure] = &[
            KEY_NUMBERS,
            figure("strip", "Every offset in the window"),
            figure("buckets", "Ids per bucket"),
        ];
        const SLOTS: &[Figure] = &[
            KEY_NUMBERS,
            figure("ring", "The cycle as a ring of slots"),
            figure("ingress", "Queue ingress over one cycle"),
            figure("costs", "Cost per slot: jumbo accounts"),
        ];
        const QUEUE: &[Figure] = &[
            KEY_NUMBERS,
            figure("depth", "Jobs waiting"),
            figure("busy", "Workers busy"),
            figure("ingress", "Jobs entering the queue"),
            figure("waits", "Start delay"),
            figure("gaps", "Time between an account's syncs"),
            figure("depth-band", "Jobs waiting across seeds"),
            figure("recurrence", "When each run starts"),
            figure("heap", "Heap entries, live and dead"),
            figure("imported", "Your own arrivals"),
        ];
        const FLEET: &[Figure] = &[
            KEY_NUMBERS,
            figure("heatmap", "Where the starts fall"),
            figure("concurrency", "Load over time against capacity"),
            figure("fix", "Before and after the fix"),
        ];
        match self {
            Panel::Poisson => POISSON,
            Panel::Jitter => JITTER,
            Panel::Backoff => BACKOFF,
            Panel::HashSpread => HASH,
            Panel::Slots => SLOTS,
            Panel::Queue => QUEUE,
            Panel::Fleet => FLEET,
        }
    }

    /// The figure named `slug` in URLs, if the panel draws one.
    pub fn figure(self, slug: &str) -> Option<&'static Figure> {
        self.figures().iter().find(|figure| figure.slug == slug)
    }
}

/// One chart, table or list a panel draws, which an embed can show alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Figure {
    /// Its name in URLs (`fig=depth`), unique within its panel.
    pub slug: &'static str,
    /// Its heading as a reader sees it.
    pub title: &'static str,
}

/// The panel's key numbers, a figure of every panel.
pub const KEY_NUMBERS: Figure = Figure {
    slug: "numbers",
    title: "Key numbers",
};
/// The presets of `panel`, in the order a reader should try them.
pub fn presets(panel: Panel) -> &'static [Preset] {
    match panel {
        Panel::Poisson => poisson::PRESETS,
        Panel::Jitter => jitter::PRESETS,
        Panel::Backoff => backoff::PRESETS,
        Panel::HashSpread => hash_spread::PRESETS,
        Panel::Slots => slots::PRESETS,
        Panel::Queue => queue::PRESETS,
        Panel::Fleet => fleet::PRESETS,
    }
}

impl Preset {
    /// The state showing this preset on `panel`, starting from `seed`; the
    /// notices are empty for every preset, which a test checks.
    pub fn state(&self, panel: Panel, seed: u64) -> (State, Vec<Notice>) {
        State::from_query(&format!("v=1&p={}&s={seed}&{}", panel.slug(), self.query))
    }
}
