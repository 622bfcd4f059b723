//! The app's reactive store: the core [`State`] and the notices about
//! adjusted parameters, with the few ways the controls and the history
//! change them.

use leptos::prelude::*;
use stampede_core::field::Notice;
use stampede_core::presets::Preset;
use stampede_core::state::{Panel, State};

use crate::browser;

#[derive(Clone, Copy)]
pub struct Store {
    pub state: RwSignal<State>,
    pub notices: RwSignal<Vec<Notice>>,
}

impl Store {
    pub fn new(state: State, notices: Vec<Notice>) -> Self {
        Self {
            state: RwSignal::new(state),
            notices: RwSignal::new(notices),
        }
    }

    /// The store the app provided to its components.
    pub fn get() -> Self {
        expect_context::<Store>()
    }

    /// Sets a parameter of the open panel (or the seed) from a control's text.
    /// A notice about the same key, now stale, is dropped.
    pub fn set(&self, key: &str, raw: &str) {
        let mut fresh = Vec::new();
        crate::chart::mark_change();
        self.state.update(|state| fresh = state.set(key, raw));
        self.dismiss(key);
        self.notify(fresh);
    }

    /// Shows `preset` on `panel`: its parameters over the defaults, the
    /// same seed, and no stale notices.
    pub fn apply_preset(&self, panel: Panel, preset: &Preset) {
        crate::chart::mark_change();
        let (seed, view) = self.state.with_untracked(|state| (state.seed, state.view));
        let (mut state, notices) = preset.state(panel, seed);
        state.view = view;
        self.state.set(state);
        self.notices.set(notices);
    }

    /// Opens `panel` in a new history entry, so Back returns to the panel
    /// open before.
    pub fn show_panel(&self, panel: Panel) {
        if self.state.with_untracked(|state| state.panel) == panel {
            return;
        }
        self.state.update(|state| state.panel = panel);
        browser::push_entry(self.state.with_untracked(history_entry));
    }

    /// Shows the state of a history entry's `query`, as loading it would.
    pub fn restore(&self, query: &str) {
        crate::chart::mark_change();
        let (state, notices) = State::from_query(query);
        self.state.set(state);
        self.notices.set(notices);
    }

    /// Adds notices, each replacing an older one about the same key.
    fn notify(&self, fresh: Vec<Notice>) {
        if fresh.is_empty() {
            return;
        }
        self.notices.update(|notices| {
            notices.retain(|old| fresh.iter().all(|new| new.key != old.key));
            notices.extend(fresh);
        });
    }

    pub fn dismiss(&self, key: &str) {
        self.notices
            .update(|notices| notices.retain(|n| n.key != key));
    }
}

/// The history entry of `state`: its link and its whole query.
pub fn history_entry(state: &State) -> browser::Entry {
    browser::Entry {
        link: state.to_query(),
        whole: state.to_full_query(),
    }
}
