//! What a Learn step's panel has shown, handed from the panel's figure
//! code to the step's text: the panels write it as they draw, and the
//! Learn page reads it.

use std::sync::Arc;

use leptos::prelude::*;
use stampede_core::key_numbers::KeyNumber;
use stampede_core::panels::State;
use stampede_core::panels::queue_replication::Replicated;
use stampede_core::panels::story::StepFacts;

use crate::store::Store;

/// What the open step's panel has computed, from which the step's
/// paragraphs are written: the key numbers with the state they are for,
/// and the Queue's replications. The panel's figure code keeps them, as
/// it draws them; the step only reads.
#[derive(Clone, Copy)]
pub struct StepShown {
    numbers: RwSignal<Option<(State, Vec<KeyNumber>)>>,
    replicated: RwSignal<Option<Arc<Replicated>>>,
}

impl StepShown {
    pub fn new() -> Self {
        Self {
            numbers: RwSignal::new(None),
            replicated: RwSignal::new(None),
        }
    }

    /// The one a Learn step provides around its panel's figure; `None` on
    /// a panel's own page.
    pub fn get() -> Option<Self> {
        use_context()
    }

    /// Keeps `numbers` as the step's whenever they are some, with the
    /// page's state at that moment; `numbers` says `None` while they are
    /// not yet for the page's parameters.
    pub fn follow_numbers(self, numbers: impl Fn() -> Option<Vec<KeyNumber>> + 'static) {
        let state = Store::get().state;
        Effect::new(move |_| {
            let state = state.get();
            if let Some(numbers) = numbers() {
                self.numbers.set(Some((state, numbers)));
            }
        });
    }

    /// Keeps the replications shown, which are always the current ones.
    pub fn follow_replicated(self, shown: RwSignal<Option<Arc<Replicated>>>) {
        Effect::new(move |_| self.replicated.set(shown.get()));
    }

    /// What the step's paragraphs are written from, once the panel has
    /// numbers for the page's state.
    pub fn facts(self) -> Memo<Option<StepFacts>> {
        Memo::new(move |_| {
            let (state, numbers) = self.numbers.get()?;
            Some(StepFacts {
                state,
                numbers,
                replicated: self.replicated.get(),
            })
        })
    }
}
