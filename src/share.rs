//! Sharing, in the panel's toolbar: copy the address of the exact state,
//! the seed, and the embed picker, which builds a snippet (the
//! `<stampede-figure>` element of `www/stampede-figure.js`, or an iframe)
//! for the whole panel or one figure, with or without controls, in a
//! chosen theme, and previews it live.

use std::time::Duration;

use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use stampede_core::panels::State;
use stampede_core::panels::learn;
use stampede_core::panels::state::{Theme, View};
use stampede_core::panels::{Figure, Panel};
use wasm_bindgen::{JsCast, JsValue};

use crate::browser;
use crate::controls::SeedControl;
use crate::store::Store;

/// The full address of `state` on this page.
pub fn url_of(store: Store, state: &State) -> String {
    format!("{}{}", browser::page_base(), store.link_of(state))
}

/// `state` as an embed shows it with `view`'s choices.
fn embedded(state: &State, view: View) -> State {
    let mut embedded = state.clone();
    embedded.view = View {
        embed: true,
        ..view
    };
    embedded
}

/// How a snippet embeds a figure.
#[derive(Clone, Copy, PartialEq)]
enum SnippetForm {
    /// The `<stampede-figure>` element and its one module script.
    Element,
    /// An iframe and a listener that fits it to the reported height.
    Iframe,
}

/// The snippet that embeds `state`. Both forms start as tall as the figure
/// usually is, so the page barely moves when the embed reports its height.
fn embed_snippet(store: Store, state: &State, form: SnippetForm) -> String {
    let url = url_of(store, state);
    let src = url.replace('&', "&amp;");
    let title = title_of(state);
    let height = if state.view.figure.is_some() {
        360
    } else if state.learn_step.is_some() {
        640
    } else {
        900
    };
    match form {
        SnippetForm::Element => {
            // The element's script sits beside the build's index.html.
            let base = browser::page_base();
            let folder = &base[..base.rfind('/').map_or(base.len(), |slash| slash + 1)];
            format!(
                r#"<script type="module" src="{folder}stampede-figure.js"></script>
<stampede-figure src="{src}" title="Stampede: {title}" height="{height}"></stampede-figure>"#
            )
        }
        SnippetForm::Iframe => format!(
            r#"<iframe class="stampede" src="{src}" title="Stampede: {title}" width="100%" height="{height}" style="border:0" loading="lazy"></iframe>
<script>
addEventListener("message", (e) => {{
  if (e.data && e.data.type === "stampede:height")
    for (const f of document.querySelectorAll("iframe.stampede"))
      if (f.contentWindow === e.source) f.style.height = e.data.height + "px";
}});
</script>"#
        ),
    }
}

/// What an embed of `state` shows, as its title says it.
fn title_of(state: &State) -> String {
    let step = state.learn_step.and_then(learn::step);
    match (step, state.view.figure) {
        (Some(step), _) => format!("Learn, step {}: {}", step.number(), step.title),
        (None, Some(figure)) => format!("{}: {}", state.panel.title(), figure.title),
        (None, None) => state.panel.title().to_string(),
    }
}

/// "Copied ✓" for a moment after a copy, or why it failed.
fn copy_later(text: String, copied: RwSignal<Option<bool>>) {
    spawn_local(async move {
        copied.set(Some(browser::copy_to_clipboard(&text).await));
        set_timeout(move || copied.set(None), Duration::from_secs(2));
    });
}

/// The panel's toolbar: Copy link, Embed and the seed.
#[component]
pub fn Toolbar() -> impl IntoView {
    let store = Store::get();
    // None until a copy is tried; then whether it worked, for a moment.
    let copied = RwSignal::new(None::<bool>);
    let dialog = NodeRef::<html::Dialog>::new();
    let picking = RwSignal::new(false);
    let open_picker = move |_| {
        picking.set(true);
        if let Some(dialog) = dialog.get() {
            let _ = dialog.show_modal();
        }
    };
    view! {
        <div class="toolbar" role="toolbar" aria-label="Share and seed">
            <button
                type="button"
                id="copy-link"
                on:click=move |_| copy_later(store.state.with(|s| url_of(store, s)), copied)
            >
                {move || match copied.get() {
                    None => "Copy link",
                    Some(true) => "Copied ✓",
                    Some(false) => "Copy failed: use the address bar",
                }}
            </button>
            <button type="button" id="embed-button" aria-haspopup="dialog" on:click=open_picker>
                "Embed"
            </button>
            <SeedControl />
        </div>
        // The button's new text is not announced by itself.
        <p class="sr-only" role="status">
            {move || match copied.get() {
                None => "",
                Some(true) => "Link copied",
                Some(false) => "The link could not be copied: use the address bar",
            }}
        </p>
        <dialog
            id="embed-dialog"
            node_ref=dialog
            aria-labelledby="embed-title"
            on:close=move |_| picking.set(false)
        >
            // The preview lives only while the dialog is open.
            <Show when=move || picking.get()>
                <EmbedPicker dialog />
            </Show>
        </dialog>
    }
}

/// The embed picker's choices, live preview and snippet.
#[component]
fn EmbedPicker(dialog: NodeRef<html::Dialog>) -> impl IntoView {
    let store = Store::get();
    let (panel, learning) = store
        .state
        .with_untracked(|state| (state.panel, state.learn_step.is_some()));
    let figure = RwSignal::new(None::<&'static Figure>);
    let controls = RwSignal::new(false);
    let theme = RwSignal::new(Theme::Auto);
    let form = RwSignal::new(SnippetForm::Element);
    let chosen = move || {
        store.state.with(|state| {
            embedded(
                state,
                View {
                    controls: controls.get(),
                    figure: figure.get(),
                    theme: theme.get(),
                    ..View::default()
                },
            )
        })
    };
    let snippet = move || embed_snippet(store, &chosen(), form.get());
    let preview_src = move || store.link_of(&chosen());
    let copied = RwSignal::new(None::<bool>);
    let preview = NodeRef::<html::Iframe>::new();
    fit_to_reported_height(preview);
    view! {
        <div class="picker-head">
            <h2 id="embed-title">{move || format!("Embed {}", store.state.with(|state| title_of(&State { view: View::default(), ..state.clone() })))}</h2>
            <button
                type="button"
                class="close"
                on:click=move |_| {
                    if let Some(dialog) = dialog.get() {
                        dialog.close();
                    }
                }
            >
                "Close"
            </button>
        </div>
        {embed_options(panel, learning, figure, controls, theme, form)}
        <h3>"Preview"</h3>
        <div class="picker-preview">
            <iframe node_ref=preview class="stampede" src=preview_src title="Preview of the embed"></iframe>
        </div>
        <label for="embed-snippet">"Paste this into your page:"</label>
        <textarea
            id="embed-snippet"
            readonly
            rows="8"
            prop:value=snippet
            on:focus=|ev| {
                if let Some(area) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok()) {
                    area.select();
                }
            }
        ></textarea>
        <button type="button" id="copy-embed" on:click=move |_| copy_later(snippet(), copied)>
            {move || match copied.get() {
                None => "Copy the snippet",
                Some(true) => "Copied ✓",
                Some(false) => "Copy failed: select the text",
            }}
        </button>
    }
}

/// What the embed shows: the whole panel or one figure, with or without
/// its controls, in which theme, and the snippet's form.
fn embed_options(
    panel: Panel,
    learning: bool,
    figure: RwSignal<Option<&'static Figure>>,
    controls: RwSignal<bool>,
    theme: RwSignal<Theme>,
    form: RwSignal<SnippetForm>,
) -> impl IntoView {
    // A Learn step embeds whole: its text, its figure and its numbers.
    let figure_choice = (!learning).then(|| {
        view! {
            <label>
                "Show "
                <select
                    id="embed-figure"
                    on:change=move |ev| figure.set(panel.figure(&event_target_value(&ev)))
                >
                    <option value="" selected>"the whole panel"</option>
                    {panel
                        .figures()
                        .iter()
                        .map(|f| view! { <option value=f.slug>{f.title}</option> })
                        .collect_view()}
                </select>
            </label>
        }
    });
    view! {
    <div class="picker-options">
        {figure_choice}
        <label>
            <input
                type="checkbox"
                id="embed-controls"
                on:change=move |ev| controls.set(event_target_checked(&ev))
            />
            " with its controls"
        </label>
        <label>
            "Theme "
            <select
                id="embed-theme"
                on:change=move |ev| {
                    let slug = event_target_value(&ev);
                    theme.set(Theme::ALL.into_iter().find(|t| t.slug() == slug).unwrap_or_default());
                }
            >
                {Theme::ALL
                    .into_iter()
                    .map(|t| view! { <option value=t.slug()>{t.slug()}</option> })
                    .collect_view()}
            </select>
        </label>
        <label>
            "Embed as "
            <select
                id="embed-form"
                on:change=move |ev| {
                    form.set(match event_target_value(&ev).as_str() {
                        "iframe" => SnippetForm::Iframe,
                        _ => SnippetForm::Element,
                    });
                }
            >
                <option value="element" selected>"a <stampede-figure> element (one script, loads when scrolled near)"</option>
                <option value="iframe">"an iframe with a resize listener"</option>
            </select>
        </label>
    </div>
    }
}

/// Sets the preview iframe's height to what the embed inside it reports,
/// as the snippet's script does on the reader's page.
fn fit_to_reported_height(preview: NodeRef<html::Iframe>) {
    let handle = window_event_listener(leptos::ev::message, move |event| {
        let Some(frame) = preview.get_untracked() else {
            return;
        };
        let from_preview = frame
            .content_window()
            .zip(event.source())
            .is_some_and(|(window, source)| JsValue::from(window) == JsValue::from(source));
        let data = event.data();
        let kind = js_sys::Reflect::get(&data, &"type".into()).ok();
        let height = js_sys::Reflect::get(&data, &"height".into())
            .ok()
            .and_then(|h| h.as_f64());
        if let (true, Some(kind), Some(height)) = (from_preview, kind, height)
            && kind.as_string().as_deref() == Some("stampede:height")
        {
            let _ = frame.set_attribute("style", &format!("height:{height}px"));
        }
    });
    on_cleanup(move || handle.remove());
}
