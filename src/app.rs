//! The shell: header, navigation, the open panel and a footer; or, in
//! embed mode, the panel alone.

use leptos::prelude::*;
use stampede_core::panels::Panel;
use stampede_core::panels::state::State;

use crate::browser;
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
    let (state, notices) = State::from_query(&query);
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
    let panel_view = move || view! { <PanelView panel=panel.get() /> };

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
        <header>
            <div class="masthead">
                <h1>"Stampede"</h1>
                <p class="purpose">"See how scheduled jobs spread out, or pile up, under each scheduling strategy."</p>
                <ThemePicker />
            </div>
            <nav aria-label="Panels">
                {Panel::ALL.into_iter().map(|p| view! { <NavLink panel=p current=panel /> }).collect_view()}
            </nav>
        </header>
        <main>{panel_view}</main>
        <footer>
            <a href="embed-example.html">"Embedding a figure in your docs: an example page"</a>
        </footer>
    }
    .into_any()
}

/// A link to a panel that keeps the seed: a plain link for a new tab, an
/// in-place switch for a plain click.
#[component]
fn NavLink(panel: Panel, current: Memo<Panel>) -> impl IntoView {
    let store = Store::get();
    let href = move || {
        let mut state = store.state.get();
        state.panel = panel;
        format!("?{}", state.to_query())
    };
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
            aria-current=move || (current.get() == panel).then_some("page")
            on:click=on_click
        >
            {panel.title()}
        </a>
    }
}
