//! The Learn page: the story from the herd to the proof, one step a
//! screen. A step is a panel at the step's parameters (core's
//! [`learn`](stampede_core::panels::learn)), drawn by that panel's own
//! figure code with only the step's figure, key numbers and controls, beside
//! a few sentences. Arrows, the step list and the buttons move through the
//! steps; each has its own URL and embeds like a panel; presenter mode
//! gives the figure most of the screen and the text a projector's size.

use leptos::ev;
use leptos::prelude::*;
use std::sync::Arc;

use stampede_core::key_numbers::KeyNumber;
use stampede_core::panels::learn::{self, STEPS, Step, StepFacts};
use stampede_core::panels::queue_replication::Replicated;
use stampede_core::panels::state::{State, View};
use wasm_bindgen::JsCast;

use crate::controls::Controls;
use crate::notices::NoticeSummary;
use crate::panels::{self, Showing, with_code};
use crate::share::Toolbar;
use crate::store::Store;

#[component]
pub fn LearnView(number: usize) -> impl IntoView {
    let store = Store::get();
    let Some(step) = learn::step(number) else {
        return ().into_any();
    };
    provide_context(Showing::step(step));
    let shown = StepShown::new();
    provide_context(shown);
    let embed = store.state.with_untracked(|state| state.view.embed);
    let presenting = store.presenting;
    if !embed {
        follow_arrows(store, number);
        leave_presenting_with_fullscreen(presenting);
    }

    let panel = step.panel;
    let figure = Suspend::new(async move { panels::parts(panel).await.figure });
    let (text, current) = written(step, shown);
    let controls = (!step.controls.is_empty()
        && (!embed || store.state.with_untracked(|s| s.view.controls)))
    .then(|| view! { <Controls panel=step.panel with_seed=false only=step.controls /> });
    let full_panel = move || {
        store.state.with(|state| {
            store.link_of(&State {
                learn_step: None,
                view: View::default(),
                ..state.clone()
            })
        })
    };
    let open_full = view! {
        <a class="open-panel" href=full_panel target=embed.then_some("_blank")>
            {format!("Open in the full {} panel →", step.panel.title())}
        </a>
    };

    view! {
        <section
            id="learn"
            class="learn"
            class:presenting=presenting
            class:embedded=embed
            data-step=number
            data-panel=step.panel.slug()
            aria-labelledby="step-title"
        >
            <div class="step-head">
                <p class="step-count">{format!("Step {number} of {}", STEPS.len())}</p>
                <h2 id="step-title" tabindex="-1">{step.title}</h2>
                {(!embed).then(|| view! {
                    <div class="step-tools">
                        <button
                            type="button"
                            id="present"
                            aria-pressed=move || presenting.get().to_string()
                            on:click=move |_| toggle_presenting(presenting)
                        >
                            {move || if presenting.get() { "Leave presenter mode" } else { "Present" }}
                        </button>
                        <Toolbar />
                    </div>
                })}
            </div>
            <NoticeSummary />
            <div class="step-body">
                <div
                    class="step-text"
                    class:stale=move || !current()
                    data-current=move || current().to_string()
                    aria-busy=move || (!current()).to_string()
                >
                    {text}
                    {controls}
                    <p>{open_full}</p>
                </div>
                <div class="figure step-figure" id="figure">
                    <Suspense fallback=panels::Loading>{figure}</Suspense>
                </div>
            </div>
            {(!embed).then(|| view! { <StepNav number /> })}
        </section>
    }
    .into_any()
}

/// The step's paragraphs, written from what its panel shows, and whether
/// that is for the page's state: until it is, the text stays with the
/// numbers it was written from, dimmed.
fn written(
    step: &'static Step,
    shown: StepShown,
) -> (impl IntoView, impl Fn() -> bool + Copy + Send + Sync) {
    let store = Store::get();
    let facts = shown.facts();
    let text = move || {
        facts.with(|facts| {
            facts
                .as_ref()
                .map(|facts| step.paragraphs(facts))
                .unwrap_or_default()
                .into_iter()
                .map(|paragraph| view! { <p>{with_code(&paragraph)}</p> })
                .collect_view()
        })
    };
    let current = move || {
        facts.with(|facts| {
            facts
                .as_ref()
                .is_some_and(|facts| store.state.with(|state| facts.state == *state))
        })
    };
    (text, current)
}

/// Previous and next, and the list of steps as a progress bar of links.
#[component]
fn StepNav(number: usize) -> impl IntoView {
    let store = Store::get();
    let link = move |step: &'static Step| {
        let seed = store.state.with_untracked(|state| state.seed);
        format!("?{}", step.state(seed).to_query())
    };
    let go = move |step: &'static Step| {
        move |ev: ev::MouseEvent| {
            let new_tab = ev.ctrl_key() || ev.meta_key() || ev.shift_key() || ev.button() != 0;
            if !new_tab {
                ev.prevent_default();
                crate::chart::mark_change();
                store.show_step(step);
            }
        }
    };
    let neighbour = |offset: isize, id: &'static str, label: &'static str| {
        let step = number.checked_add_signed(offset).and_then(learn::step)?;
        Some(view! {
            <a class="step-move" id=id href=link(step) rel=label on:click=go(step)>
                {if offset < 0 { format!("← {}", step.title) } else { format!("{} →", step.title) }}
            </a>
        })
    };
    view! {
        <nav class="step-nav" aria-label="Steps">
            <span class="step-prev">{neighbour(-1, "step-prev", "prev")}</span>
            <ol class="step-list">
                {STEPS
                    .iter()
                    .enumerate()
                    .map(|(index, step)| {
                        let current = index + 1 == number;
                        view! {
                            <li class:done=index + 1 < number>
                                <a
                                    href=link(step)
                                    title=step.title
                                    aria-current=current.then_some("step")
                                    on:click=go(step)
                                >
                                    <span class="sr-only">{format!("Step {}: {}", index + 1, step.title)}</span>
                                    <span aria-hidden="true">{index + 1}</span>
                                </a>
                            </li>
                        }
                    })
                    .collect_view()}
            </ol>
            <span class="step-next">{neighbour(1, "step-next", "next")}</span>
        </nav>
    }
}

/// Left and right arrows move a step, unless the focus is in a control
/// whose arrows mean something (a slider, a box, a list).
fn follow_arrows(store: Store, number: usize) {
    let handle = window_event_listener(ev::keydown, move |event| {
        if event.alt_key() || event.ctrl_key() || event.meta_key() || event.shift_key() {
            return;
        }
        let offset = match event.key().as_str() {
            "ArrowRight" => 1,
            "ArrowLeft" => -1,
            _ => return,
        };
        let in_control = event
            .target()
            .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
            .is_some_and(|element| {
                matches!(element.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA")
            });
        if in_control {
            return;
        }
        if let Some(step) = number.checked_add_signed(offset).and_then(learn::step) {
            event.prevent_default();
            crate::chart::mark_change();
            store.show_step(step);
        }
    });
    on_cleanup(move || handle.remove());
}

/// Presenter mode fills the screen where the browser allows it; the
/// layout changes either way, so a page that refuses full screen (an
/// iframe, a test) still presents.
fn toggle_presenting(presenting: RwSignal<bool>) {
    let on = !presenting.get_untracked();
    presenting.set(on);
    let document = document();
    if on {
        if let Some(root) = document.document_element() {
            let _ = root.request_fullscreen();
        }
    } else if document.fullscreen_element().is_some() {
        document.exit_fullscreen();
    }
}

/// Leaving full screen (Escape) leaves presenter mode too.
fn leave_presenting_with_fullscreen(presenting: RwSignal<bool>) {
    let handle = window_event_listener(
        ev::Custom::<ev::Event>::new("fullscreenchange"),
        move |_| {
            if document().fullscreen_element().is_none() {
                presenting.set(false);
            }
        },
    );
    on_cleanup(move || handle.remove());
}

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
    fn new() -> Self {
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

    fn facts(self) -> Memo<Option<StepFacts>> {
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
