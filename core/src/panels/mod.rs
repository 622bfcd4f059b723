//! The panels: what each one shows a reader, built on the models.
//!
//! A model (say [`crate::poisson`]) computes; its panel module here gives it
//! a face: the parameters' URL keys, labels and ranges with the rules that
//! settle them, the figures it draws, the "try this" presets, and the key
//! numbers printed beside the charts. Above the panels sit the URL codec
//! ([`state`]), the one entry point that runs the open panel ([`run`]) and
//! the snippets a reader pastes into their own system ([`snippet`]).
//! Nothing outside this module imports it, so the models stay free of page
//! concerns.
//!
//! Each panel's module implements [`PanelSpec`] on a type of its own
//! (`poisson::PoissonPanel`), in the manner of egui's `Demo`, and `for_panel!`,
//! the registry, maps each [`Panel`] to that type: code that works for
//! every panel is written once, against the trait. A new panel is its
//! module, its variant of [`Panel`] with its line in the registry, its
//! parameters' field in [`State`] and its run's variant of
//! [`run::PanelRun`].

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
pub mod series;
pub mod slots;
pub mod snippet;
pub mod state;
pub mod story;

use crate::error::InvalidInput;
use crate::field::{Field, Notice, PanelParams};
use crate::key_numbers::KeyNumber;
use crate::preset::Preset;
use crate::{backoff::BackoffParams, hash_spread::HashSpreadParams, jitter::JitterParams};
use crate::{poisson::PoissonParams, queue::QueueParams, slots::SlotParams};
use fleet::FleetParams;
use run::PanelRun;
use series::TimeSeries;
use snippet::Snippet;
use state::View;

/// One panel as core knows it: its names, the figures it draws, its
/// presets, where the state keeps its parameters, its run and the key
/// numbers printed beside it. Implemented by each panel's module on a type
/// of its own and reached through the registry, `for_panel!`.
pub trait PanelSpec {
    /// The parameters, as the state keeps them.
    type Params: PanelParams;
    /// What a run computes from the parameters and a seed.
    type Run: Into<PanelRun>;
    /// The name in URLs (`p=`).
    const SLUG: &'static str;
    /// The name as a reader sees it.
    const TITLE: &'static str;
    /// What the panel draws, key numbers first, in the order it draws them.
    const FIGURES: &'static [Figure];
    /// The "try this" presets, in the order a reader should try them.
    const PRESETS: &'static [Preset];
    /// The parameters' fields, in the order the controls show them.
    const FIELDS: &'static [Field];

    fn params(state: &State) -> &Self::Params;
    fn params_mut(state: &mut State) -> &mut Self::Params;
    fn run(params: &Self::Params, seed: u64) -> Result<Self::Run, InvalidInput>;
    /// The run with what the page adds to it while idle (Backoff's search
    /// for its verdict's flip), as the command line prints it.
    fn run_in_full(params: &Self::Params, seed: u64) -> Result<Self::Run, InvalidInput> {
        Self::run(params, seed)
    }
    /// The figures printed beside the charts.
    fn key_numbers(params: &Self::Params, run: &Self::Run) -> Vec<KeyNumber>;
    /// The series a reader would chart against time, for a CSV file.
    fn time_series(run: &Self::Run) -> Option<TimeSeries>;
    /// What a reader pastes into their own system for these parameters;
    /// none for a panel whose figures are not something to paste.
    fn snippets(_params: &Self::Params) -> Vec<Snippet> {
        Vec::new()
    }
    /// Reads the keys of links written before a key of the panel changed
    /// (`last` gives a key's value in the URL), after the current keys.
    fn read_old_keys<'a>(
        _params: &mut Self::Params,
        _last: &dyn Fn(&str) -> Option<&'a str>,
    ) -> Vec<Notice> {
        Vec::new()
    }
}

/// The registry: `$body` for the [`PanelSpec`] of `$panel`, named `$P`
/// in it (`for_panel!(panel, P => P::TITLE)`). Each arm is a panel's one
/// line; the match is exhaustive, so a new variant of [`Panel`] does not
/// compile until it has its line.
macro_rules! for_panel {
    ($panel:expr, $P:ident => $body:expr) => {{
        use $crate::panels::{Panel, PanelSpec as _};
        match $panel {
            Panel::Poisson => {
                type $P = $crate::panels::poisson::PoissonPanel;
                $body
            }
            Panel::Jitter => {
                type $P = $crate::panels::jitter::JitterPanel;
                $body
            }
            Panel::Backoff => {
                type $P = $crate::panels::backoff::BackoffPanel;
                $body
            }
            Panel::HashSpread => {
                type $P = $crate::panels::hash_spread::HashSpreadPanel;
                $body
            }
            Panel::Slots => {
                type $P = $crate::panels::slots::SlotsPanel;
                $body
            }
            Panel::Queue => {
                type $P = $crate::panels::queue::QueuePanel;
                $body
            }
            Panel::Fleet => {
                type $P = $crate::panels::fleet::FleetPanel;
                $body
            }
        }
    }};
}
pub(crate) use for_panel;

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
        for_panel!(self, P => P::SLUG)
    }

    /// The panel's name as a reader sees it.
    pub fn title(self) -> &'static str {
        for_panel!(self, P => P::TITLE)
    }

    pub fn from_slug(slug: &str) -> Option<Panel> {
        Panel::ALL.into_iter().find(|panel| panel.slug() == slug)
    }

    /// What the panel draws, key numbers first, in the order it draws them.
    pub fn figures(self) -> &'static [Figure] {
        for_panel!(self, P => P::FIGURES)
    }

    /// The figure named `slug` in URLs, if the panel draws one.
    pub fn figure(self, slug: &str) -> Option<&'static Figure> {
        self.figures().iter().find(|figure| figure.slug == slug)
    }

    /// The panel's presets, in the order a reader should try them.
    pub fn presets(self) -> &'static [Preset] {
        for_panel!(self, P => P::PRESETS)
    }
}

/// One chart, table or list a panel draws, which an embed can show alone.
/// Each is a constant of its panel's module (`queue::DEPTH`), which the
/// app's figure blocks, the codec's `fig=` and the Learn steps name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Figure {
    /// Its name in URLs (`fig=depth`), unique within its panel.
    pub slug: &'static str,
    /// Its heading as a reader sees it.
    pub title: &'static str,
}

impl Figure {
    pub const fn new(slug: &'static str, title: &'static str) -> Self {
        Self { slug, title }
    }
}

/// The panel's key numbers, a figure of every panel.
pub const KEY_NUMBERS: Figure = Figure::new("numbers", "Key numbers");

/// Everything a shared URL restores; [`state`] reads and writes it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct State {
    /// The panel whose parameters the page shows: the open panel, or the
    /// Learn step's.
    pub panel: Panel,
    /// On the Learn page, its step (from 1, as its URL writes it).
    pub learn_step: Option<usize>,
    pub seed: u64,
    pub view: View,
    pub poisson: PoissonParams,
    pub jitter: JitterParams,
    pub backoff: BackoffParams,
    pub hash_spread: HashSpreadParams,
    pub slots: SlotParams,
    pub queue: QueueParams,
    pub fleet: FleetParams,
}

impl Preset {
    /// The state showing this preset on `panel`, starting from `seed`; the
    /// notices are empty for every preset, which a test checks.
    pub fn state(&self, panel: Panel, seed: u64) -> (State, Vec<Notice>) {
        State::from_query(&format!("v=1&p={}&s={seed}&{}", panel.slug(), self.query))
    }
}
