//! The six panels. Each module owns its text and its figure (charts and key
//! numbers); this module lays a panel out for the full app or an embed.

mod backoff;
mod hash;
mod jitter;
mod poisson;
mod queue;
mod slots;

use leptos::prelude::*;
use stampede_core::state::Panel;

use crate::controls::Controls;
use crate::store::Store;

/// The open panel: title, explanation, controls and figure. An embed shows
/// only the figure, and the controls when the URL asks for them.
#[component]
pub fn PanelView(panel: Panel) -> impl IntoView {
    let view_flags = Store::get().state.with_untracked(|state| state.view);
    let (explanation, figure) = match panel {
        Panel::Poisson => (
            poisson::explanation().into_any(),
            poisson::figure().into_any(),
        ),
        Panel::Jitter => (
            jitter::explanation().into_any(),
            jitter::figure().into_any(),
        ),
        Panel::Backoff => (
            backoff::explanation().into_any(),
            backoff::figure().into_any(),
        ),
        Panel::Hash => (hash::explanation().into_any(), hash::figure().into_any()),
        Panel::Slots => (slots::explanation().into_any(), slots::figure().into_any()),
        Panel::Queue => (queue::explanation().into_any(), queue::figure().into_any()),
    };
    let show_text = !view_flags.embed;
    let show_controls = !view_flags.embed || view_flags.controls;
    view! {
        <section id="panel" data-panel=panel.slug() aria-labelledby="panel-title">
            <h2 id="panel-title">{panel.title()}</h2>
            {show_text.then(|| view! { <div class="explain-block">{explanation}</div> })}
            {show_controls.then(|| view! { <Controls panel /> })}
            <div class="figure">{figure}</div>
        </section>
    }
}

/// One key number: its label, its value and the formula it comes from.
fn key_number(
    key: &'static str,
    label: &'static str,
    value: impl Fn() -> String + Send + Sync + 'static,
    formula: &'static str,
) -> impl IntoView {
    view! {
        <div class="key-number">
            <dt>{label}</dt>
            <dd data-key=key>{value}</dd>
            <dd class="formula">{formula}</dd>
        </div>
    }
}

/// The line that says which charts this panel will gain.
fn coming(charts: &'static str) -> impl IntoView {
    view! { <p class="coming">"Coming: " {charts}</p> }
}
