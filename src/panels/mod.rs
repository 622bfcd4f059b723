//! The seven panels. Each module owns its text and its figure (charts and key
//! numbers), and gives them by [`PanelUi`] on the type core registers the
//! panel by (`PoissonPanel`); [`split_points!`], the app's registry, maps
//! each panel to it. This module lays a panel out for the full app or an
//! embed.

mod backoff;
mod chart_block;
mod fleet;
mod hash_spread;
mod jitter;
mod poisson;
mod queue;
mod slots;
mod upload;

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos::wasm_split::SplitLoaderError;
use send_wrapper::SendWrapper;
use stampede_core::error::InvalidInput;
use stampede_core::key_numbers::KeyNumber;
use stampede_core::panels::State;
use stampede_core::panels::backoff::BackoffPanel;
use stampede_core::panels::fleet::FleetPanel;
use stampede_core::panels::hash_spread::HashSpreadPanel;
use stampede_core::panels::jitter::JitterPanel;
use stampede_core::panels::learn::Step;
use stampede_core::panels::poisson::PoissonPanel;
use stampede_core::panels::queue::QueuePanel;
use stampede_core::panels::slots::SlotsPanel;
use stampede_core::panels::snippet::Snippet;
use stampede_core::panels::state::View;
use stampede_core::panels::{Figure, KEY_NUMBERS, Panel};
use stampede_core::speedup::Speedup;

use self::chart_block::{Caption, ChartBlock};
use crate::browser;
use crate::controls::{Controls, ControlsSheet};
use crate::notices::NoticeSummary;
use crate::share::Toolbar;
use crate::step_shown::StepShown;
use crate::store::Store;

/// The open panel as a workbench: its head with the toolbar, the presets,
/// the controls beside the figures, and "How it works" below them. An embed
/// shows only the figures (or one of them), and the controls when the URL
/// asks for them.
#[component]
pub fn PanelView(panel: Panel) -> impl IntoView {
    let view_flags = Store::get().state.with_untracked(|state| state.view);
    provide_context(Showing::of_view(&view_flags));
    let leave_out = own_controls(panel);
    let single = view_flags.figure.is_some();
    let figures =
        move |figure| view! { <div class="figure" class:single=single id="figure">{figure}</div> };
    if view_flags.embed {
        let body = Suspend::new(async move {
            let Parts { figure, .. } = parts(panel).await;
            view! {
                {view_flags.controls.then(|| view! { <Controls panel with_seed=true leave_out /> })}
                {figures(figure)}
            }
        });
        return view! {
            <section id="panel" data-panel=panel.slug() aria-label=panel.title()>
                {view_flags.figure.is_none().then(|| view! { <h2>{panel.title()}</h2> })}
                <Suspense fallback=Loading>{body}</Suspense>
            </section>
        }
        .into_any();
    }
    let body = Suspend::new(async move {
        let Parts {
            explanation,
            figure,
        } = parts(panel).await;
        view! {
            <div class="bench">
                <ControlsSheet panel leave_out />
                {figures(figure)}
            </div>
            {explanation.map(|explanation| below_first_screen(move || view! {
                <details class="how-it-works" open>
                    <summary>"How it works"</summary>
                    <div class="explain-block">{explanation}</div>
                </details>
            }))}
        }
    });
    view! {
        <section id="panel" data-panel=panel.slug() aria-labelledby="panel-title">
            <div class="panel-head">
                <h2 id="panel-title">{panel.title()}</h2>
                <Toolbar />
            </div>
            <NoticeSummary />
            <Presets panel />
            <Suspense fallback=Loading>{body}</Suspense>
        </section>
    }
    .into_any()
}

/// A part of the full panel below its first screen, built once the page's
/// opening has ended ([`browser::opened`]), so that it stays out of the
/// work before the first picture and its code is not compiled until then;
/// later pages of the same visit build it at once. Where it is the page's
/// figure (an embed of one figure, a Learn step) it is built at once.
fn below_first_screen<V: IntoView + 'static>(part: impl FnOnce() -> V + 'static) -> AnyView {
    if Showing::get().single() {
        return part().into_any();
    }
    let part = SendWrapper::new(Cell::new(Some(part)));
    // `opened` turns true once, so this runs at most twice; the part reads
    // the store as its own views do, not as this closure's dependencies.
    (move || {
        browser::opened()
            .then(|| Cell::take(&part).map(|part| untrack(|| part().into_any())))
            .flatten()
    })
    .into_any()
}

/// What a panel shows while its code is fetched: the skeleton's figures,
/// as index.html draws them before the app starts.
#[component]
pub fn Loading() -> impl IntoView {
    view! {
        <p class="skeleton-loading" role="status">"Loading the panel…"</p>
        <div class="skeleton-figures" aria-hidden="true"><div></div><div></div><div></div></div>
    }
}

/// Which of the open panel's blocks the page draws: all of them, the one
/// figure an embed names, or a Learn step's figure with a few of the key
/// numbers. Provided by the page around the panel's figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Showing {
    figure: Option<Figure>,
    /// The key numbers listed, by key; all of them when `None`.
    numbers: Option<&'static [&'static str]>,
}

impl Showing {
    fn of_view(view: &View) -> Self {
        Self {
            figure: view.figure.copied(),
            numbers: None,
        }
    }

    /// A Learn step's figure and key numbers.
    pub fn step(step: &Step) -> Self {
        Self {
            figure: Some(step.figure),
            numbers: Some(step.numbers),
        }
    }

    pub fn get() -> Self {
        expect_context()
    }

    /// Whether the page draws `figure`.
    pub fn figure(self, figure: Figure) -> bool {
        match (self.figure, self.numbers) {
            (Some(shown), _) if shown == figure => true,
            (_, Some(numbers)) => figure == KEY_NUMBERS && !numbers.is_empty(),
            (shown, None) => shown.is_none(),
        }
    }

    /// Whether the page draws one figure alone.
    pub fn single(self) -> bool {
        self.figure.is_some()
    }

    /// Whether the key number (or the replicated figure) `key` is listed,
    /// when the key numbers are.
    pub fn number(self, key: &str) -> bool {
        self.numbers.is_none_or(|keys| keys.contains(&key))
    }

    /// Whether the page shows the panel's tools around its figures (its
    /// snippets, its input, its run's summary); a Learn step keeps to its
    /// figure.
    pub fn tools(self) -> bool {
        !self.learning()
    }

    fn learning(self) -> bool {
        self.numbers.is_some()
    }
}

/// A panel's "How it works" text and its figures, which read the store's
/// state; no text when the panel's code could not be fetched.
pub struct Parts {
    pub explanation: Option<AnyView>,
    pub figure: AnyView,
}

impl Parts {
    fn of(explanation: impl IntoView + 'static, figure: impl IntoView + 'static) -> Self {
        Self {
            explanation: Some(explanation.into_any()),
            figure: figure.into_any(),
        }
    }
}

/// The parts of `panel`. With the `split` feature (the release build, see
/// `scripts/build-app`) the panel's code is in a wasm module of its group,
/// fetched the first time one of the group's panels opens, so the app's
/// first download carries no panel; without it the future is ready at
/// once. If the module cannot be fetched (offline before the service worker
/// kept it, or a build replaced on the host mid-visit), the figure says so
/// and the rest of the app keeps working.
pub fn parts(panel: Panel) -> impl Future<Output = Parts> + Send {
    // The loader's future is not Send; the app runs on one thread.
    SendWrapper::new(async move {
        load_parts(panel).await.unwrap_or_else(|_| Parts {
            explanation: None,
            figure: not_loaded(panel).into_any(),
        })
    })
}

fn not_loaded(panel: Panel) -> impl IntoView {
    view! {
        <p class="not-loaded" role="alert">
            {format!("The {} panel's code could not be downloaded. ", panel.title())}
            "Check the connection, then "
            <a href="">"reload the page"</a>
            "."
        </p>
    }
}

/// Loads `panel`'s module, for the app to wait on before it first mounts.
/// A failed load is not kept, so [`parts`] asks again and reports it.
pub async fn load(panel: Panel) {
    let _ = load_module(panel).await;
}

/// One panel as the app shows it, implemented by each panel's module on
/// the type core registers the panel by, in the manner of egui's `Demo`.
pub trait PanelUi {
    /// The fields the panel shows as its own buttons rather than in the
    /// controls' sheet.
    const OWN_CONTROLS: &'static [&'static str] = &[];
    /// "How it works".
    fn explanation() -> impl IntoView + 'static;
    /// The figures, which read the store's state.
    fn figure() -> impl IntoView + 'static;
}

/// The app's registry: each panel's line names its [`PanelUi`] type, its
/// split point and the module its code goes in. The split points make
/// three modules: the panels of arrivals and retries, the two that
/// simulate queues, and Fleet. Everything only a module's panels reach
/// moves into it, and code two modules share into modules of their own.
/// Fewer, larger modules: a panel's first opening asks for a few files
/// instead of one per group of panels sharing code.
macro_rules! split_points {
    ($($panel:ident: $ui:ty => $parts:ident, $preload:ident in $module:ident),* $(,)?) => {
        $(
            #[cfg(feature = "split")]
            #[leptos::wasm_split::wasm_split(
                $module,
                wasm_split_path = ::leptos::wasm_split,
                fallible,
                preload($preload)
            )]
            fn $parts() -> Result<Parts, SplitLoaderError> {
                Ok(Parts::of(<$ui>::explanation(), <$ui>::figure()))
            }

            #[cfg(not(feature = "split"))]
            async fn $parts() -> Result<Parts, SplitLoaderError> {
                Ok(Parts::of(<$ui>::explanation(), <$ui>::figure()))
            }

            #[cfg(not(feature = "split"))]
            async fn $preload() -> Result<(), SplitLoaderError> {
                Ok(())
            }
        )*

        /// The parts of `panel`, once its module is loaded.
        async fn load_parts(panel: Panel) -> Result<Parts, SplitLoaderError> {
            match panel {
                $(Panel::$panel => $parts().await,)*
            }
        }

        /// Loads the module of `panel`.
        async fn load_module(panel: Panel) -> Result<(), SplitLoaderError> {
            match panel {
                $(Panel::$panel => $preload().await,)*
            }
        }

        /// The fields `panel` shows as its own buttons.
        fn own_controls(panel: Panel) -> &'static [&'static str] {
            match panel {
                $(Panel::$panel => <$ui as PanelUi>::OWN_CONTROLS,)*
            }
        }
    };
}

split_points! {
    Poisson: PoissonPanel => poisson_parts, poisson_preload in arrivals,
    Jitter: JitterPanel => jitter_parts, jitter_preload in arrivals,
    Backoff: BackoffPanel => backoff_parts, backoff_preload in arrivals,
    HashSpread: HashSpreadPanel => hash_spread_parts, hash_spread_preload in arrivals,
    Slots: SlotsPanel => slots_parts, slots_preload in queues,
    Queue: QueuePanel => queue_parts, queue_preload in queues,
    Fleet: FleetPanel => fleet_parts, fleet_preload in fleet,
}

/// One panel's parameters and its run, as memos: the run is recomputed only
/// when the panel's own parameters or the seed change.
struct Computed<P: Send + Sync + 'static, R: Send + Sync + 'static> {
    params: Memo<P>,
    run: Memo<Result<R, InvalidInput>>,
}

impl<P: Send + Sync + 'static, R: Send + Sync + 'static> Clone for Computed<P, R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P: Send + Sync + 'static, R: Send + Sync + 'static> Copy for Computed<P, R> {}

impl<P, R> Computed<P, R>
where
    P: Clone + PartialEq + Send + Sync + 'static,
    R: PartialEq + Send + Sync + 'static,
{
    /// The memos of a panel's parameters and of its run through the
    /// speed-up `S`, which keeps what the next run can reuse, so that a
    /// moving slider redoes only what changed.
    fn cached<S: Speedup<Params = P, Run = R> + Send + 'static>(
        params_of: fn(&State) -> &P,
    ) -> Self {
        Self::with_cache(params_of, Arc::<Mutex<S>>::default())
    }

    /// As [`Computed::cached`], and after each run, while the page is idle,
    /// `S` readies `slice` at a time what later runs may ask for, until it
    /// says nothing is left or the parameters change.
    fn cached_ahead<S: Speedup<Params = P, Run = R> + Send + 'static>(
        params_of: fn(&State) -> &P,
        slice: u32,
    ) -> Self {
        let cache = Arc::<Mutex<S>>::default();
        let computed = Self::with_cache(params_of, Arc::clone(&cache));
        let state = Store::get().state;
        ready_when_idle(
            move || computed.run.track(),
            move || {
                computed
                    .params
                    .try_with_untracked(|params| {
                        let mut cache = cache.lock().unwrap_or_else(PoisonError::into_inner);
                        cache.ready_ahead(params, state.with_untracked(|s| s.seed), slice)
                    })
                    .unwrap_or(false)
            },
        );
        computed
    }

    fn with_cache<S: Speedup<Params = P, Run = R> + Send + 'static>(
        params_of: fn(&State) -> &P,
        cache: Arc<Mutex<S>>,
    ) -> Self {
        let state = Store::get().state;
        let params = Memo::new(move |_| state.with(|s| params_of(s).clone()));
        let seed = Memo::new(move |_| state.with(|s| s.seed));
        let run = Memo::new(move |_| {
            params.with(|p| {
                let mut cache = cache.lock().unwrap_or_else(PoisonError::into_inner);
                cache.run(p, seed.get())
            })
        });
        Self { params, run }
    }

    /// Text about the current run, such as a chart's label for a reader who
    /// cannot see it; empty when the run failed.
    fn describe(self, what: fn(&P, &R) -> String) -> impl Fn() -> String + Send + Sync + 'static {
        move || {
            self.params.with(|params| {
                self.run.with(|run| {
                    run.as_ref()
                        .map(|run| what(params, run))
                        .unwrap_or_default()
                })
            })
        }
    }

    /// The run's key numbers, as [`key_numbers`] shows them; the memos
    /// keep them current.
    fn key_numbers(self, of: fn(&P, &R) -> Vec<KeyNumber>) -> impl IntoView {
        key_numbers(
            move || {
                self.params.with(|params| {
                    self.run.with(|run| {
                        run.as_ref()
                            .map(|run| of(params, run))
                            .map_err(Clone::clone)
                    })
                })
            },
            || true,
        )
    }
}

/// Once now and after each change of what `changed` reads, calls `slice`
/// each time the page is idle until it returns false. The next change, or
/// the panel's end, stops the calls.
fn ready_when_idle(changed: impl Fn() + 'static, slice: impl Fn() -> bool + Send + Sync + 'static) {
    let slice = Arc::new(slice);
    // Counts changes and the panel's end: a slice of an earlier change's
    // chain finds the count moved on and stops.
    let changes = Arc::new(AtomicU32::new(0));
    let ended = Arc::clone(&changes);
    on_cleanup(move || {
        ended.fetch_add(1, Ordering::Relaxed);
    });
    Effect::new(move |_| {
        changed();
        let this_change = changes.fetch_add(1, Ordering::Relaxed) + 1;
        let (changes, slice) = (Arc::clone(&changes), Arc::clone(&slice));
        when_idle(Arc::new(move || {
            changes.load(Ordering::Relaxed) == this_change && slice()
        }));
    });
}

/// Calls `slice` each time the page is idle, until it returns false.
fn when_idle(slice: Arc<dyn Fn() -> bool>) {
    request_idle_callback(move || {
        if slice() {
            when_idle(Arc::clone(&slice));
        }
    });
}

/// The panel's key numbers, as core writes them, each with its formula and,
/// where there is one, the theory's value beside it. Parameters come settled
/// from the store, so an error here is a bug worth showing. A Learn step
/// writes its paragraphs from them while `current` says they are for the
/// page's parameters.
fn key_numbers(
    numbers: impl Fn() -> Result<Vec<KeyNumber>, InvalidInput> + Send + Sync + 'static,
    current: impl Fn() -> bool + Send + Sync + 'static,
) -> impl IntoView {
    let showing = Showing::get();
    let numbers = Arc::new(numbers);
    if let Some(step) = StepShown::get() {
        let numbers = Arc::clone(&numbers);
        step.follow_numbers(move || current().then(|| numbers().ok()).flatten());
    }
    let listed = move || {
        numbers().map(|numbers| {
            numbers
                .into_iter()
                .filter(|number| showing.number(number.key))
                .collect::<Vec<_>>()
        })
    };
    // A Learn step whose numbers are its replications' shows no empty list.
    let empty = {
        let listed = listed.clone();
        move || showing.learning() && listed().is_ok_and(|numbers| numbers.is_empty())
    };
    let items = move || {
        match listed() {
        Ok(numbers) => numbers
            .into_iter()
            .map(|number| {
                view! {
                    <div class="key-number">
                        <dt>{number.label}</dt>
                        <dd data-key=number.key>{number.value}</dd>
                        <dd class="formula">{number.formula}</dd>
                        {number.theory.map(|theory| view! { <dd class="theory">"theory: " {theory}</dd> })}
                    </div>
                }
            })
            .collect_view()
            .into_any(),
        Err(error) => view! { <div class="key-number" role="alert">{error.to_string()}</div> }.into_any(),
    }
    };
    showing.figure(KEY_NUMBERS).then(|| {
        view! {
            <dl class="key-numbers" class:chosen=showing.single() id=format!("fig-{}", KEY_NUMBERS.slug) hidden=empty>
                {items}
            </dl>
        }
    })
}

/// The panel's "try this" presets, a row of buttons: each sets its
/// parameters and keeps the seed, and the lesson of the last one pressed
/// says what to notice (its `backticked` stretches as code).
#[component]
fn Presets(panel: Panel) -> impl IntoView {
    let store = Store::get();
    let presets = panel.presets();
    let pressed = RwSignal::new(None::<usize>);
    let lesson = move || pressed.get().map(|index| presets[index].lesson);
    (!presets.is_empty()).then(|| {
        view! {
            <section class="presets" aria-labelledby="presets-title">
                <h3 id="presets-title">"Try this"</h3>
                <ul>
                    {presets
                        .iter()
                        .enumerate()
                        .map(|(index, preset)| {
                            view! {
                                <li>
                                    <button
                                        type="button"
                                        data-preset=preset.slug
                                        aria-pressed=move || (pressed.get() == Some(index)).to_string()
                                        on:click=move |_| {
                                            crate::chart::mark_change();
                                            store.apply_preset(panel, preset);
                                            pressed.set(Some(index));
                                        }
                                    >
                                        {preset.title}
                                    </button>
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
                <p class="lesson" aria-live="polite" hidden=move || lesson().is_none()>
                    {move || lesson().map(with_code)}
                </p>
            </section>
        }
    })
}

/// "Use it in your stack": the snippets core writes for the current
/// parameters, one system at a time, each with its note and a copy button.
fn use_it(snippets: impl Fn() -> Vec<Snippet> + Copy + Send + Sync + 'static) -> impl IntoView {
    Showing::get()
        .tools()
        .then(|| below_first_screen(move || snippets_view(snippets)))
}

fn snippets_view(
    snippets: impl Fn() -> Vec<Snippet> + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let chosen = RwSignal::new(0usize);
    let copied = RwSignal::new(None::<bool>);
    let current = move || {
        let mut all = snippets();
        let index = chosen.get().min(all.len().saturating_sub(1));
        (!all.is_empty()).then(|| all.swap_remove(index))
    };
    let copy = move |_| {
        let Some(snippet) = current() else { return };
        spawn_local(async move {
            copied.set(Some(crate::browser::copy_to_clipboard(&snippet.code).await));
            set_timeout(move || copied.set(None), Duration::from_secs(2));
        });
    };
    view! {
        <section class="use-it" aria-labelledby="use-it-title">
            <h3 id="use-it-title">"Use it in your stack"</h3>
            <div class="use-it-systems" role="group" aria-label="System">
                {move || {
                    snippets()
                        .into_iter()
                        .enumerate()
                        .map(|(index, snippet)| {
                            view! {
                                <button
                                    type="button"
                                    data-snippet=snippet.key
                                    aria-pressed=move || (chosen.get() == index).to_string()
                                    on:click=move |_| chosen.set(index)
                                >
                                    {snippet.title}
                                </button>
                            }
                        })
                        .collect_view()
                }}
            </div>
            {move || {
                current()
                    .map(|snippet| {
                        view! {
                            <div class="snippet" data-snippet=snippet.key>
                                <pre tabindex="0" aria-label=format!("{} code", snippet.title)><code class=format!("language-{}", snippet.language)>{snippet.code}</code></pre>
                                <button type="button" class="copy-snippet" on:click=copy>
                                    {move || match copied.get() {
                                        None => format!("Copy {}", snippet.title),
                                        Some(true) => "Copied ✓".to_string(),
                                        Some(false) => "Copy failed: select the text".to_string(),
                                    }}
                                </button>
                                <p class="snippet-note">{with_code(&snippet.note)}</p>
                            </div>
                        }
                    })
            }}
        </section>
    }
}

/// Text whose `backticked` stretches are code, as snippet notes write it.
pub fn with_code(text: &str) -> impl IntoView + use<> {
    text.split('`')
        .enumerate()
        .map(|(index, piece)| {
            let piece = piece.to_string();
            if index % 2 == 1 {
                view! { <code>{piece}</code> }.into_any()
            } else {
                piece.into_any()
            }
        })
        .collect_view()
}
