//! The Learn page: the story from the herd to the proof, one step a
//! screen. A step is a panel at the step's parameters (core's
//! [`learn`](stampede_core::panels::learn)), drawn by that panel's own
//! figure code with only the step's figure, key numbers and controls, beside
//! a few sentences. Arrows, the step list and the buttons move through the
//! steps; each has its own URL and embeds like a panel.
//!
//! Presenter mode is a slide for a projector: the figure fills most of the
//! screen and the side column shows one card at a time, as a slide deck's
//! builds do: each paragraph, then the step's numbers, then the panel's
//! answer when its figure has one ([`Deck`]). A remote's keys move through
//! the cards and on to the next step, and blank the screen.

use std::cell::Cell;

use leptos::ev;
use leptos::html;
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use stampede_core::panels::State;
use stampede_core::panels::learn::{self, STEPS, Step};
use stampede_core::panels::state::View;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use crate::controls::Controls;
use crate::notices::NoticeSummary;
use crate::panels::{self, Showing, with_code};
use crate::share::Toolbar;
use crate::step_shown::StepShown;
use crate::store::Store;

thread_local! {
    /// Whether the next step shown opens at its last card: presenter mode
    /// went back from the first card of the step after it.
    static OPEN_AT_END: Cell<bool> = const { Cell::new(false) };
}

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
    let (paragraphs, current) = written(step, shown);
    let deck = Deck::new(paragraphs);
    let figure_node = NodeRef::<html::Div>::new();
    if !embed {
        follow_keys(store, number, deck);
        leave_presenting_with_fullscreen(presenting);
        deck.watch_answer(figure_node);
        Effect::new(move |_| crate::chart::set_presenting(presenting.get()));
    }

    let panel = step.panel;
    let figure = Suspend::new(async move { panels::parts(panel).await.figure });
    let text = move || {
        paragraphs
            .get()
            .into_iter()
            .enumerate()
            .map(|(index, paragraph)| {
                let current = move || deck.card() == Card::Paragraph(index);
                view! { <p class="paragraph" class:current=current>{with_code(&paragraph)}</p> }
            })
            .collect_view()
    };
    let controls = (!step.controls.is_empty()
        && (!embed || store.state.with_untracked(|s| s.view.controls)))
    .then(|| view! { <Controls panel=step.panel with_seed=false only=step.controls /> });

    view! {
        <section
            id="learn"
            class="learn"
            class:presenting=presenting
            class:embedded=embed
            data-step=number
            data-panel=step.panel.slug()
            data-card=move || deck.card().name()
            aria-labelledby="step-title"
        >
            <div class="step-head">
                <p class="step-count">{format!("Step {number} of {}", STEPS.len())}</p>
                <h2 id="step-title" tabindex="-1">{step.title}</h2>
                {move || presenting.get().then(|| view! { <BuildCount deck /> })}
                {(!embed).then(|| view! { <StepTools deck /> })}
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
                    <p class="open-full-line">{open_full(store, step, embed)}</p>
                </div>
                <div class="figure step-figure" id="figure" node_ref=figure_node>
                    <Suspense fallback=panels::Loading>{figure}</Suspense>
                </div>
            </div>
            {(!embed).then(|| view! { <StepNav number /> })}
            {move || deck.blank.get().then(|| view! {
                <div class="presenter-blank" role="status">
                    <span class="sr-only">"The screen is blank. Press B to show the step again."</span>
                </div>
            })}
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
) -> (Memo<Vec<String>>, impl Fn() -> bool + Copy + Send + Sync) {
    let store = Store::get();
    let facts = shown.facts();
    let paragraphs = Memo::new(move |_| {
        facts.with(|facts| {
            facts
                .as_ref()
                .map(|facts| step.paragraphs(facts))
                .unwrap_or_default()
        })
    });
    let current = move || {
        facts.with(|facts| {
            facts
                .as_ref()
                .is_some_and(|facts| store.state.with(|state| facts.state == *state))
        })
    };
    (paragraphs, current)
}

/// "Open in the full … panel": the step's panel at the same values.
fn open_full(store: Store, step: &'static Step, embed: bool) -> impl IntoView {
    let full_panel = move || {
        store.state.with(|state| {
            store.link_of(&State {
                learn_step: None,
                view: View::default(),
                ..state.clone()
            })
        })
    };
    view! {
        <a class="open-panel" href=full_panel target=embed.then_some("_blank")>
            {format!("Open in the full {} panel →", step.panel.title())}
        </a>
    }
}

/// Presenter mode's button, and the page's own tools (link, embed, seed).
#[component]
fn StepTools(deck: Deck) -> impl IntoView {
    let presenting = Store::get().presenting;
    view! {
        <div class="step-tools">
            <button
                type="button"
                id="present"
                aria-pressed=move || presenting.get().to_string()
                aria-label=move || presenting.get().then_some("Leave presenter mode")
                title=move || presenting.get().then_some("Leave presenter mode (Esc)")
                on:click=move |_| set_presenting(presenting, deck, !presenting.get_untracked())
            >
                {move || if presenting.get() { "✕" } else { "Present" }}
            </button>
            <Toolbar />
        </div>
    }
}

/// Which card of the step presenter mode shows, of how many.
#[component]
fn BuildCount(deck: Deck) -> impl IntoView {
    view! {
        <p class="build-count">
            <span class="sr-only">"Card "</span>
            {move || format!("{} / {}", deck.current() + 1, deck.total())}
        </p>
    }
}

/// What the side column of presenter mode shows.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Card {
    /// One of the step's paragraphs.
    Paragraph(usize),
    /// The step's key numbers, or its replications' differences.
    Numbers,
    /// The panel's answer box.
    Answer,
}

impl Card {
    /// Its name, which the stylesheet shows and hides by.
    fn name(self) -> &'static str {
        match self {
            Self::Paragraph(_) => "text",
            Self::Numbers => "numbers",
            Self::Answer => "answer",
        }
    }
}

/// Presenter mode's builds: a paragraph at a time, then the step's
/// numbers, then the panel's answer when its figure has one. Three
/// paragraphs, a dozen key numbers, an answer box and the controls at a
/// size read across a room do not fit beside a figure that fills half of a
/// 1280 × 720 screen; one card at a time does.
#[derive(Clone, Copy)]
struct Deck {
    /// The card shown, from 0; past the last means the last, so that a
    /// step entered backwards opens at its end however many cards it
    /// turns out to have once its figure has loaded.
    build: RwSignal<usize>,
    paragraphs: Memo<Vec<String>>,
    /// Whether the figure shows an answer box (Jitter's window, Backoff's
    /// verdict).
    answer: RwSignal<bool>,
    /// Whether the screen is blanked, as a projector's remote asks.
    blank: RwSignal<bool>,
}

impl Deck {
    fn new(paragraphs: Memo<Vec<String>>) -> Self {
        let build = if OPEN_AT_END.replace(false) {
            usize::MAX
        } else {
            0
        };
        Self {
            build: RwSignal::new(build),
            paragraphs,
            answer: RwSignal::new(false),
            blank: RwSignal::new(false),
        }
    }

    fn total(self) -> usize {
        self.paragraphs.with(Vec::len) + 1 + usize::from(self.answer.get())
    }

    /// The card shown, from 0.
    fn current(self) -> usize {
        self.build.get().min(self.total() - 1)
    }

    fn card(self) -> Card {
        let (current, prose) = (self.current(), self.paragraphs.with(Vec::len));
        match current.checked_sub(prose) {
            None => Card::Paragraph(current),
            Some(0) => Card::Numbers,
            Some(_) => Card::Answer,
        }
    }

    /// Shows the next card; false at the last.
    fn forward(self) -> bool {
        let (current, total) = untrack(|| (self.current(), self.total()));
        let more = current + 1 < total;
        if more {
            self.build.set(current + 1);
        }
        more
    }

    /// Shows the card before; false at the first.
    fn back(self) -> bool {
        let current = untrack(|| self.current());
        if current > 0 {
            self.build.set(current - 1);
        }
        current > 0
    }

    /// Follows whether the figure shows an answer box: it comes with the
    /// panel's code and its run, after the step itself, and could come and
    /// go with them.
    fn watch_answer(self, figure: NodeRef<html::Div>) {
        let answer = self.answer;
        figure.on_load(move |figure| {
            let figure: web_sys::Element = figure.into();
            let watched = figure.clone();
            let check = move || {
                let shown = watched.query_selector(".answer").ok().flatten().is_some();
                if answer.get_untracked() != shown {
                    answer.set(shown);
                }
            };
            check();
            let on_change = Closure::<dyn Fn()>::new(check);
            let Ok(observer) = web_sys::MutationObserver::new(on_change.as_ref().unchecked_ref())
            else {
                return;
            };
            let options = web_sys::MutationObserverInit::new();
            options.set_child_list(true);
            options.set_subtree(true);
            let _ = observer.observe_with_options(&figure, &options);
            // The observer and its callback live as long as the step.
            let kept = SendWrapper::new((observer, on_change));
            on_cleanup(move || kept.0.disconnect());
        });
    }
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
    // The arrow alone shows in presenter mode, the title still named.
    let neighbour = |offset: isize, id: &'static str, label: &'static str| {
        let step = number.checked_add_signed(offset).and_then(learn::step)?;
        let title = view! { <span class="step-move-title">{step.title}</span> };
        let text = if offset < 0 {
            view! { <span aria-hidden="true">"←"</span>" "{title} }.into_any()
        } else {
            view! { {title}" "<span aria-hidden="true">"→"</span> }.into_any()
        };
        Some(view! {
            <a class="step-move" id=id href=link(step) rel=label title=step.title on:click=go(step)>
                {text}
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

/// What a key asks of presenter mode.
#[derive(Clone, Copy, PartialEq)]
enum Press {
    Next,
    Previous,
    Blank,
    Leave,
}

/// Left and right arrows move a step. In presenter mode, as a projector's
/// remote sends them, Page Down, the right arrow and Space show the next
/// card and then the next step, Page Up and the left arrow go back, B or
/// "." blanks the screen, and Escape leaves. None of it while the focus is
/// in a field, nor when the focused element used the key (a chart's
/// readout, the ring), except the remote's Page Up and Page Down: a chart
/// clicked on must not stop the remote.
fn follow_keys(store: Store, number: usize, deck: Deck) {
    let presenting = store.presenting;
    let handle = window_event_listener(ev::keydown, move |event| {
        if event.alt_key() || event.ctrl_key() || event.meta_key() || in_field(&event) {
            return;
        }
        let remote = matches!(event.key().as_str(), "PageDown" | "PageUp");
        if event.default_prevented() && !(remote && presenting.get_untracked()) {
            return;
        }
        if !presenting.get_untracked() {
            let offset = match event.key().as_str() {
                _ if event.shift_key() => return,
                "ArrowRight" => 1,
                "ArrowLeft" => -1,
                _ => return,
            };
            if go_to(store, number, offset) {
                event.prevent_default();
            }
            return;
        }
        if let Some(press) = presenter_press(&event) {
            event.prevent_default();
            present(store, number, deck, press);
        }
    });
    on_cleanup(move || handle.remove());
}

/// What `event` asks of presenter mode, if anything. While the ring's own
/// full-screen view is open, its keys are its own but the blank.
fn presenter_press(event: &web_sys::KeyboardEvent) -> Option<Press> {
    let ring_open = document()
        .query_selector(".ring-view")
        .ok()
        .flatten()
        .is_some();
    Some(match event.key().as_str() {
        "b" | "B" | "." => Press::Blank,
        _ if ring_open => return None,
        "PageDown" | "ArrowRight" => Press::Next,
        // Space presses a focused button or link instead.
        " " if !on_button(event) => Press::Next,
        "PageUp" | "ArrowLeft" => Press::Previous,
        "Escape" => Press::Leave,
        _ => return None,
    })
}

fn present(store: Store, number: usize, deck: Deck, press: Press) {
    let blank = deck.blank.get_untracked();
    match press {
        Press::Blank => deck.blank.set(!blank),
        // Any move shows the screen again, and moves nothing yet.
        _ if blank => deck.blank.set(false),
        Press::Next => {
            if !deck.forward() {
                go_to(store, number, 1);
            }
        }
        Press::Previous => {
            if !deck.back() {
                OPEN_AT_END.set(true);
                if !go_to(store, number, -1) {
                    OPEN_AT_END.set(false);
                }
            }
        }
        Press::Leave => set_presenting(store.presenting, deck, false),
    }
}

/// Shows the step `offset` from `number`, if there is one.
fn go_to(store: Store, number: usize, offset: isize) -> bool {
    let Some(step) = number.checked_add_signed(offset).and_then(learn::step) else {
        return false;
    };
    crate::chart::mark_change();
    store.show_step(step);
    true
}

/// The element a key event is aimed at.
fn key_target(event: &web_sys::KeyboardEvent) -> Option<web_sys::Element> {
    event
        .target()
        .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
}

/// Whether the focus is in a control whose keys mean something (a slider,
/// a box, a list).
fn in_field(event: &web_sys::KeyboardEvent) -> bool {
    key_target(event).is_some_and(|element| {
        matches!(element.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA")
    })
}

/// Whether the focus is on something Space presses.
fn on_button(event: &web_sys::KeyboardEvent) -> bool {
    key_target(event).is_some_and(|element| {
        matches!(element.tag_name().as_str(), "BUTTON" | "A" | "SUMMARY")
            || element.get_attribute("role").as_deref() == Some("button")
    })
}

/// Presenter mode fills the screen where the browser allows it; the
/// layout changes either way, so a page that refuses full screen (an
/// iframe, a test) still presents. It opens at the step's first card, with
/// the focus on the step's heading, where Space moves on.
fn set_presenting(presenting: RwSignal<bool>, deck: Deck, on: bool) {
    presenting.set(on);
    deck.blank.set(false);
    let document = document();
    if on {
        deck.build.set(0);
        if document.fullscreen_element().is_none()
            && let Some(root) = document.document_element()
        {
            let _ = root.request_fullscreen();
        }
        request_animation_frame(|| crate::browser::focus("step-title"));
    } else if document.fullscreen_element().is_some() {
        document.exit_fullscreen();
    }
}

/// Whether the page itself (not a figure of it) is full screen.
fn page_is_fullscreen() -> bool {
    document()
        .fullscreen_element()
        .is_some_and(|element| element.tag_name().eq_ignore_ascii_case("html"))
}

/// Leaving full screen (Escape) leaves presenter mode too, when the page
/// itself was full screen: the ring's own full-screen view, which nests
/// inside presenter mode, returns to the step when it closes.
fn leave_presenting_with_fullscreen(presenting: RwSignal<bool>) {
    let page_was_full = StoredValue::new(page_is_fullscreen());
    let handle = window_event_listener(
        ev::Custom::<ev::Event>::new("fullscreenchange"),
        move |_| {
            if page_was_full.get_value() && document().fullscreen_element().is_none() {
                presenting.set(false);
            }
            page_was_full.set_value(page_is_fullscreen());
        },
    );
    on_cleanup(move || handle.remove());
}
