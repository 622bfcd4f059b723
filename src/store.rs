//! The app's reactive store: the core [`State`] and the notices about
//! adjusted parameters, with the few ways the controls and the history
//! change them.

use leptos::prelude::*;
use stampede_core::field::Notice;
use stampede_core::panels::Panel;
use stampede_core::panels::State;
use stampede_core::panels::fleet::Sample;
use stampede_core::panels::learn::Step;
use stampede_core::preset::Preset;
use stampede_core::queue::QueueParams;

use crate::browser;

#[derive(Clone, Copy)]
pub struct Store {
    pub state: RwSignal<State>,
    pub notices: RwSignal<Vec<Adjusted>>,
    /// Whether a phone shows the controls' sheet over the page.
    pub controls_open: RwSignal<bool>,
    /// The link fragment (without `#`) carrying the Fleet panel's own
    /// text, once its worker has written one.
    pub fragment: RwSignal<Option<String>>,
    /// Whether the Learn page is in presenter mode, which outlives a step.
    pub presenting: RwSignal<bool>,
    /// Arrivals another panel handed to the Queue panel (the Fleet's
    /// starts of a day), until the Queue panel takes them as its own.
    pub arrivals_for_queue: RwSignal<Option<Arrivals>>,
}

/// A text of arrivals, and what it is, as the Queue's import box names it.
#[derive(Clone, Debug, PartialEq)]
pub struct Arrivals {
    pub text: String,
    pub source: String,
}

/// A notice, and the field whose change made it when that was another
/// field: typing a million accounts can shorten the simulated time, and the
/// reader should hear about it at the field they typed in too.
#[derive(Clone, Debug, PartialEq)]
pub struct Adjusted {
    pub notice: Notice,
    pub cause: Option<&'static str>,
}

impl Adjusted {
    /// Whether the notice belongs beside the control of `key`.
    pub fn concerns(&self, key: &str) -> bool {
        self.notice.key == key || self.cause == Some(key)
    }
}

impl Store {
    pub fn new(state: State, notices: Vec<Notice>) -> Self {
        Self {
            state: RwSignal::new(state),
            notices: RwSignal::new(from_url(notices)),
            controls_open: RwSignal::new(false),
            fragment: RwSignal::new(None),
            presenting: RwSignal::new(false),
            arrivals_for_queue: RwSignal::new(None),
        }
    }

    /// The store the app provided to its components.
    pub fn get() -> Self {
        expect_context::<Store>()
    }

    /// Sets a parameter of the open panel (or the seed) from a control's text.
    /// Notices about that field, or made by its last change, are now stale.
    pub fn set(&self, key: &'static str, raw: &str) {
        let mut fresh = Vec::new();
        self.state.update(|state| fresh = state.set(key, raw));
        self.dismiss(key);
        let fresh = fresh.into_iter().map(|notice| Adjusted {
            cause: (notice.key != key).then_some(key),
            notice,
        });
        self.notices.update(|notices| {
            let fresh: Vec<Adjusted> = fresh.collect();
            notices.retain(|old| fresh.iter().all(|new| new.notice.key != old.notice.key));
            notices.extend(fresh);
        });
    }

    /// Shows `preset` on `panel`: its parameters over the defaults, the
    /// same seed, and no stale notices.
    pub fn apply_preset(&self, panel: Panel, preset: &Preset) {
        let (seed, view) = self.state.with_untracked(|state| (state.seed, state.view));
        let (mut state, notices) = preset.state(panel, seed);
        state.view = view;
        self.state.set(state);
        self.notices.set(from_url(notices));
    }

    /// Opens `panel` in a new history entry, so Back returns to the panel
    /// open before; the notices of the one left behind no longer apply.
    pub fn show_panel(&self, panel: Panel) {
        if self
            .state
            .with_untracked(|state| state.panel == panel && state.learn_step.is_none())
        {
            return;
        }
        self.state.update(|state| {
            if state.learn_step.take().is_some() {
                *state = State {
                    seed: state.seed,
                    view: state.view,
                    ..State::new(panel)
                };
            }
            state.panel = panel;
        });
        self.notices.set(Vec::new());
        let entry = self.state.with_untracked(|state| self.entry(state));
        browser::push_entry(entry);
    }

    /// Opens the Learn page at `step` (from 1) in a new history entry, at
    /// the step's own parameters and the same seed, and moves the focus
    /// to its heading, so a screen reader announces the step.
    pub fn show_step(&self, step: &Step) {
        let (seed, view) = self.state.with_untracked(|state| (state.seed, state.view));
        if self.state.with_untracked(|state| state.learn_step) == Some(step.number()) {
            return;
        }
        let mut state = step.state(seed);
        state.view = view;
        self.state.set(state);
        self.notices.set(Vec::new());
        let entry = self.state.with_untracked(|state| self.entry(state));
        browser::push_entry(entry);
        request_animation_frame(|| browser::focus("step-title"));
    }

    /// Opens the Queue panel on `arrivals`, and on `workers` workers when
    /// given, in a new history entry.
    pub fn simulate_in_queue(&self, arrivals: Arrivals, workers: Option<u32>) {
        self.arrivals_for_queue.set(Some(arrivals));
        self.show_panel(Panel::Queue);
        if let Some(workers) = workers {
            self.set(QueueParams::WORKERS.key, &workers.to_string());
        }
    }

    /// Shows the state of a history entry's `query`, as loading it would.
    pub fn restore(&self, query: &str) {
        let (state, notices) = State::from_page_query(query);
        self.state.set(state);
        self.notices.set(from_url(notices));
    }

    /// Drops the notices about `key` and those its last change made.
    pub fn dismiss(&self, key: &str) {
        self.notices
            .update(|notices| notices.retain(|n| !n.concerns(key)));
    }
}

/// Notices of a URL or a preset, which no control's change caused.
fn from_url(notices: Vec<Notice>) -> Vec<Adjusted> {
    notices
        .into_iter()
        .map(|notice| Adjusted {
            notice,
            cause: None,
        })
        .collect()
}

impl Store {
    /// The link to `state` relative to the page: `?` and its query, then,
    /// for the Fleet panel showing the reader's own fleet, `#` and the
    /// fragment that carries it (browsers never send a fragment to a server).
    pub fn link_of(&self, state: &State) -> String {
        let own_fleet = state.panel == Panel::Fleet && state.fleet.sample == Sample::Own;
        let fragment = own_fleet.then(|| self.fragment.get()).flatten();
        match fragment {
            Some(fragment) => format!("?{}#{fragment}", state.to_query()),
            None => format!("?{}", state.to_query()),
        }
    }

    /// The history entry of `state`: its link and its whole query.
    pub fn entry(&self, state: &State) -> browser::Entry {
        browser::Entry {
            link: self.link_of(state),
            whole: state.to_full_query(),
        }
    }
}
