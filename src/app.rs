//! The shell: header, navigation, the open panel and a footer; or, in
//! embed mode, the panel alone.

use leptos::prelude::*;
use stampede_core::panels::Panel;
use stampede_core::panels::State;
use stampede_core::panels::learn;
use stampede_core::panels::state::LEARN_SLUG;

use crate::browser;
use crate::controls::SkipToControls;
use crate::learn::LearnView;
use crate::notices::NoticeSummary;
use crate::panels::PanelView;
use crate::store::Store;
use crate::theme::{Scheme, ThemePicker};

#[component]
pub fn App() -> impl IntoView {
    let query = browser::query();
    // A hidden `debug=panic` panics on purpose once the page has drawn, so
    // the end-to-end test can prove any panic shows the error banner and its
    // way back to the defaults. The codec ignores the key, so it never
    // reaches a shared URL.
    if query.split('&').any(|pair| pair == "debug=panic") {
        request_animation_frame(|| panic!("debug=panic asked for a panic"));
    }
    // `debug=stall` likewise holds the Fleet worker on the reader's own
    // fleet, to prove a busy worker gives way (`fleet_worker`).
    if query.split('&').any(|pair| pair == "debug=stall") {
        crate::fleet_worker::stall_own_fleets();
    }
    let (state, notices) = State::from_page_query(&query);
    let embed = state.view.embed;
    Scheme::provide(embed.then_some(state.view.theme));
    let store = Store::new(state, notices);
    provide_context(store);

    // The address bar follows the state, so the URL always restores it; a
    // panel switch adds its own entry (Store::show_panel), Back and Forward
    // restore an entry's state.
    Effect::new(move |_| browser::replace_entry_debounced(store.state.with(|s| store.entry(s))));
    browser::on_history_move(move |query| {
        crate::chart::mark_change();
        store.restore(&query);
    });

    let panel = Memo::new(move |_| store.state.with(|state| state.panel));
    let learn_step = Memo::new(move |_| store.state.with(|state| state.learn_step));
    let panel_view = move || match learn_step.get() {
        Some(number) => view! { <LearnView number /> }.into_any(),
        None => view! { <PanelView panel=panel.get() /> }.into_any(),
    };

    if embed {
        browser::post_height_to_parent();
        let full_app = move || {
            let mut state = store.state.get();
            state.view = Default::default();
            store.link_of(&state)
        };
        return view! {
            <main class="embed">
                <NoticeSummary />
                {panel_view}
                <p class="open-full">
                    <a href=full_app target="_blank" rel="noopener">"Open in Stampede ↗"</a>
                </p>
            </main>
        }
        .into_any();
    }

    view! {
        <SkipToControls />
        <header>
            <div class="masthead">
                <h1>"Stampede"</h1>
                <p class="purpose">"See how scheduled jobs spread out, or pile up, under each scheduling strategy."</p>
                <FirstVisit learning=learn_step />
                <ThemePicker />
            </div>
            <nav aria-label="Panels">
                <LearnLink current=learn_step />
                {Panel::ALL
                    .into_iter()
                    .map(|p| view! { <NavLink panel=p current=panel learning=learn_step /> })
                    .collect_view()}
            </nav>
        </header>
        // Focusable from the skip link on a page without controls.
        <main id="main" tabindex="-1">{panel_view}</main>
        <footer>
            <a href="embed-example.html">"Embedding a figure in your docs: an example page"</a>
        </footer>
    }
    .into_any()
}

/// A link to a panel that keeps the seed: a plain link for a new tab, an
/// in-place switch for a plain click.
#[component]
fn NavLink(panel: Panel, current: Memo<Panel>, learning: Memo<Option<usize>>) -> impl IntoView {
    let store = Store::get();
    let href = Memo::new(move |_| {
        store
            .state
            .with(|state| format!("?{}", state.to_query_on(panel)))
    });
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let new_tab = ev.ctrl_key() || ev.meta_key() || ev.shift_key() || ev.button() != 0;
        if !new_tab {
            ev.prevent_default();
            store.show_panel(panel);
        }
    };
    view! {
        <a
            href=href
            data-panel=panel.slug()
            aria-current=move || (current.get() == panel && learning.get().is_none()).then_some("page")
            on:click=on_click
        >
            {panel.title()}
        </a>
    }
}

/// The Learn page's link, which opens its first step, or the step last
/// seen in this tab's history.
#[component]
fn LearnLink(current: Memo<Option<usize>>) -> impl IntoView {
    let store = Store::get();
    let first = &learn::STEPS[0];
    // Read again only when the seed changes, not at every step of a drag.
    let seed = Memo::new(move |_| store.state.with(|state| state.seed));
    let href = move || format!("?{}", first.state(seed.get()).to_query());
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let new_tab = ev.ctrl_key() || ev.meta_key() || ev.shift_key() || ev.button() != 0;
        if !new_tab && current.get_untracked().is_none() {
            ev.prevent_default();
            crate::chart::mark_change();
            store.show_step(first);
        }
    };
    view! {
        <a
            href=href
            class="learn-link"
            data-panel=LEARN_SLUG
            aria-current=move || current.get().is_some().then_some("page")
            on:click=on_click
        >
            "Learn"
        </a>
    }
}

/// On a reader's first visit, outside the Learn page, a pointer to the
/// story; it does not come back once seen.
#[component]
fn FirstVisit(learning: Memo<Option<usize>>) -> impl IntoView {
    const SEEN_KEY: &str = "stampede:seen";
    let storage = browser::local_storage();
    let seen = storage
        .as_ref()
        .is_none_or(|storage| storage.get_item(SEEN_KEY).ok().flatten().is_some());
    if let Some(storage) = &storage {
        let _ = storage.set_item(SEEN_KEY, "1");
    }
    let shown = RwSignal::new(!seen);
    let first = &learn::STEPS[0];
    let store = Store::get();
    let href = move || format!("?{}", first.state(store.state.with(|s| s.seed)).to_query());
    view! {
        <Show when=move || shown.get() && learning.get().is_none()>
            <a
                href=href
                id="first-visit"
                on:click=move |ev| {
                    ev.prevent_default();
                    shown.set(false);
                    crate::chart::mark_change();
                    store.show_step(first);
                }
            >
                "New here? Start with the story →"
            </a>
        </Show>
    }
}
