//! Sharing: copy the address of the exact state, or an iframe snippet that
//! embeds the open panel in another page.

use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use stampede_core::state::{State, View};

use crate::browser;
use crate::store::Store;

/// The full address of `state` on this page.
pub fn url_of(state: &State) -> String {
    format!("{}?{}", browser::page_base(), state.to_query())
}

/// The iframe that embeds `state`'s panel, with a listener that fits the
/// iframe to the height the panel reports.
pub fn embed_snippet(state: &State) -> String {
    let mut embedded = state.clone();
    embedded.view = View {
        embed: true,
        controls: state.view.controls,
    };
    let src = url_of(&embedded).replace('&', "&amp;");
    let title = embedded.panel.title();
    format!(
        r#"<iframe class="stampede" src="{src}" title="Stampede: {title}" width="100%" height="420" style="border:0" loading="lazy"></iframe>
<script>
addEventListener("message", (e) => {{
  if (e.data && e.data.type === "stampede:height")
    for (const f of document.querySelectorAll("iframe.stampede"))
      if (f.contentWindow === e.source) f.style.height = e.data.height + "px";
}});
</script>"#
    )
}

#[component]
pub fn ShareBar() -> impl IntoView {
    let store = Store::get();
    // None until a copy is tried; then whether it worked, for a moment.
    let copied = RwSignal::new(None::<bool>);
    let show_embed = RwSignal::new(false);
    let copy_link = move |_| {
        let url = store.state.with(url_of);
        spawn_local(async move {
            copied.set(Some(browser::copy_to_clipboard(&url).await));
            set_timeout(move || copied.set(None), Duration::from_secs(2));
        });
    };
    view! {
        <div class="share">
            <button type="button" id="copy-link" on:click=copy_link>
                {move || match copied.get() {
                    None => "Copy link",
                    Some(true) => "Copied ✓",
                    Some(false) => "Copy failed: use the address bar",
                }}
            </button>
            <button
                type="button"
                id="embed-button"
                aria-expanded=move || show_embed.get().to_string()
                on:click=move |_| show_embed.update(|shown| *shown = !*shown)
            >
                "Embed"
            </button>
        </div>
        <Show when=move || show_embed.get()>
            <div class="embed-snippet">
                <label for="embed-snippet">"Paste this into a page to embed the panel as it is now:"</label>
                <textarea
                    id="embed-snippet"
                    readonly
                    rows="9"
                    prop:value=move || store.state.with(embed_snippet)
                    on:focus=|ev| {
                        use wasm_bindgen::JsCast;
                        if let Some(area) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok()) {
                            area.select();
                        }
                    }
                ></textarea>
            </div>
        </Show>
    }
}
