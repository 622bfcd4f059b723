//! The bridges to the browser that are not the DOM Leptos draws: the
//! address bar and history, the clipboard, the embedding page, downloads,
//! the loading skeleton and the panic banner.
//!
//! Each history entry holds two queries: the address shows the link's,
//! where a long list is cut to what a link carries, and the entry's state
//! keeps the whole one, so Back, Forward and reload restore a long list
//! the link could not.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use leptos::prelude::{ArcRwSignal, Get, GetUntracked, Set, set_timeout};
use wasm_bindgen::prelude::*;

/// How long the address bar waits after the last change: a dragged slider
/// rewrites it once it rests, not at every step.
const URL_DEBOUNCE: Duration = Duration::from_millis(300);

/// The query of the current history entry, without its `?`: the whole
/// one the page kept with the entry, else the address's.
pub fn query() -> String {
    let kept = window()
        .history()
        .ok()
        .and_then(|history| history.state().ok())
        .and_then(|state| state.as_string());
    kept.unwrap_or_else(|| {
        let search = window().location().search().unwrap_or_default();
        search.trim_start_matches('?').to_string()
    })
}

/// The fragment of the page's address, without `#`, when it has one.
pub fn fragment() -> Option<String> {
    let hash = window().location().hash().unwrap_or_default();
    let fragment = hash.trim_start_matches('#');
    (!fragment.is_empty()).then(|| fragment.to_string())
}

/// The address of the asset `index.html` names in `<meta name="NAME">`,
/// else `fallback`. `scripts/build` renames the workers' files by their
/// content and points these at them; a build that has not (such as `trunk
/// serve`) keeps Trunk's names.
pub fn named_asset(name: &str, fallback: &str) -> String {
    window()
        .document()
        .and_then(|document| {
            document
                .query_selector(&format!("meta[name=\"{name}\"]"))
                .ok()
                .flatten()
        })
        .and_then(|meta| meta.get_attribute("content"))
        .filter(|content| !content.is_empty())
        .unwrap_or_else(|| fallback.to_string())
}

/// The page address up to and including its path, e.g.
/// `https://docs.example.com/tools/stampede/`.
pub fn page_base() -> String {
    let location = window().location();
    let origin = location.origin().unwrap_or_default();
    let path = location.pathname().unwrap_or_default();
    format!("{origin}{path}")
}

/// What a history entry holds: the link its address shows (`?` and the
/// query, maybe a `#` fragment), and the whole query the page keeps with
/// it (see the module text).
pub struct Entry {
    pub link: String,
    pub whole: String,
}

thread_local! {
    /// The entry waiting out [`URL_DEBOUNCE`] to replace the current one.
    static PENDING_REPLACE: RefCell<Option<Entry>> = const { RefCell::new(None) };
    /// Counts replace requests, so only the latest one's timer writes.
    static REPLACE_TICKET: Cell<u64> = const { Cell::new(0) };
}

/// Replaces the current history entry with `entry` once it has been the
/// latest for [`URL_DEBOUNCE`]: a dragged slider rewrites the address
/// once it rests, without adding history.
pub fn replace_entry_debounced(entry: Entry) {
    PENDING_REPLACE.set(Some(entry));
    let ticket = REPLACE_TICKET.with(|ticket| {
        ticket.set(ticket.get() + 1);
        ticket.get()
    });
    set_timeout(
        move || {
            if REPLACE_TICKET.get() == ticket {
                flush_pending_replace();
            }
        },
        URL_DEBOUNCE,
    );
}

/// Adds `entry` to the history after the current one. A replace still
/// waiting belongs to the current entry, so it is written there first.
pub fn push_entry(entry: Entry) {
    flush_pending_replace();
    write_entry(&entry, true);
}

/// Calls `restore` with the whole query of the entry that Back or Forward
/// moved to. A replace still waiting belonged to the entry moved away from,
/// so it is dropped rather than written over the one moved to.
pub fn on_history_move(restore: impl Fn(String) + 'static) {
    let on_pop = Closure::<dyn FnMut()>::new(move || {
        PENDING_REPLACE.take();
        restore(query());
    });
    let _ = window().add_event_listener_with_callback("popstate", on_pop.as_ref().unchecked_ref());
    // The listener lives as long as the page.
    on_pop.forget();
}

fn flush_pending_replace() {
    if let Some(entry) = PENDING_REPLACE.take() {
        write_entry(&entry, false);
    }
}

fn write_entry(entry: &Entry, push: bool) {
    let Ok(history) = window().history() else {
        return;
    };
    let url = &entry.link;
    let whole = JsValue::from_str(&entry.whole);
    // A page sandboxed without same-origin may refuse; the state still lives.
    let _ = if push {
        history.push_state_with_url(&whole, "", Some(url))
    } else {
        history.replace_state_with_url(&whole, "", Some(url))
    };
}

/// Copies `text` to the clipboard; resolves to whether it worked.
pub async fn copy_to_clipboard(text: &str) -> bool {
    let promise = window().navigator().clipboard().write_text(text);
    wasm_bindgen_futures::JsFuture::from(promise).await.is_ok()
}

/// Tells the embedding page our height whenever it changes, as
/// `{type: "stampede:height", height}`, so the iframe can fit its content.
pub fn post_height_to_parent() {
    let window = window();
    // A page on its own is its own parent, and nobody is listening.
    let Ok(Some(parent)) = window.parent() else {
        return;
    };
    if parent == window {
        return;
    }
    // The body, not the root element: the root is never shorter than the
    // iframe, so an embed could grow but never shrink.
    let Some(body) = window.document().and_then(|d| d.body()) else {
        return;
    };
    let measured = body.clone();
    let last_height = Cell::new(-1);
    let on_resize = Closure::<dyn FnMut()>::new(move || {
        let height = measured.offset_height();
        if height != last_height.replace(height) {
            let message = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&message, &"type".into(), &"stampede:height".into());
            let _ = js_sys::Reflect::set(&message, &"height".into(), &height.into());
            let _ = parent.post_message(&message, "*");
        }
    });
    if let Ok(observer) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()) {
        observer.observe(&body);
    }
    // The observer calls back for the life of the page.
    on_resize.forget();
}

/// Removes the skeleton of index.html (see there). Called in the task that
/// mounts the app, before the browser paints again.
pub fn remove_skeleton() {
    let skeleton = window()
        .document()
        .and_then(|document| document.get_element_by_id("skeleton"));
    if let Some(skeleton) = skeleton {
        skeleton.remove();
    }
}

/// How long the opening waits at most for an idle moment: a page kept busy
/// (a run playing) still renders its lower blocks within this.
const OPENING_LIMIT: Duration = Duration::from_millis(1000);

thread_local! {
    /// Whether the opening has ended ([`end_opening`]).
    static OPENED: ArcRwSignal<bool> = ArcRwSignal::new(false);
}

/// Ends the page's opening: index.html marks the root `data-opening`, and
/// until then the style sheet leaves the blocks below the first screen
/// unrendered, and the parts a panel builds [`opened`] wait. Called once
/// the app is mounted, it waits for the first idle moment, which comes
/// after the first picture is on screen, or [`OPENING_LIMIT`]; from then
/// the whole page renders, so a print or a capture of the full page has
/// it all.
pub fn end_opening() {
    let end = || {
        if OPENED.with(|opened| opened.get_untracked()) {
            return;
        }
        if let Some(root) = window().document().and_then(|d| d.document_element()) {
            let _ = root.remove_attribute("data-opening");
        }
        OPENED.with(|opened| opened.set(true));
    };
    leptos::prelude::request_idle_callback(end);
    set_timeout(end, OPENING_LIMIT);
}

/// Whether the page's opening has ended, tracked: the parts below the
/// first screen are built once it has.
pub fn opened() -> bool {
    OPENED.with(|opened| opened.get())
}

/// Shows a visible error with a way back to the defaults. Used by the panic
/// hook, when the app can no longer draw, so it writes the DOM directly.
pub fn show_error_banner(message: &str) {
    let Some(document) = window().document() else {
        return;
    };
    let (Some(body), Ok(banner), Ok(reset)) = (
        document.body(),
        document.create_element("div"),
        document.create_element("a"),
    ) else {
        return;
    };
    if let Some(old) = document.get_element_by_id("error-banner") {
        old.remove();
    }
    banner.set_id("error-banner");
    let _ = banner.set_attribute("role", "alert");
    banner.set_text_content(Some(&format!(
        "Something went wrong and this page stopped: {message} "
    )));
    reset.set_id("reset-link");
    // The page's own path without a query: every parameter at its default.
    let _ = reset.set_attribute("href", &window().location().pathname().unwrap_or_default());
    reset.set_text_content(Some("Reset to defaults"));
    let _ = banner.append_child(&reset);
    let _ = body.prepend_with_node_1(&banner);
}

/// Installs a panic hook that logs the panic and shows the error banner.
pub fn report_panics_on_page() {
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&info.to_string().into());
        let message = match info.payload().downcast_ref::<&str>() {
            Some(text) => (*text).to_string(),
            None => info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_default(),
        };
        show_error_banner(&message);
    }));
}

fn window() -> web_sys::Window {
    web_sys::window().expect("the app runs in a browser window")
}

/// A line in the console's warnings, for what a reader need not see.
pub fn warn(message: &str) {
    web_sys::console::warn_1(&message.into());
}

/// Milliseconds since the page started, from the high-resolution clock.
pub fn now_ms() -> f64 {
    window()
        .performance()
        .map_or(0.0, |performance| performance.now())
}

/// Offers `text` as a file named `file_name` to save.
pub fn download_text(file_name: &str, mime: &str, text: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let clicked = download_url(file_name, &url);
    web_sys::Url::revoke_object_url(&url)?;
    clicked
}

/// A click on a link to `url` that saves it as `file_name`.
pub fn download_url(file_name: &str, url: &str) -> Result<(), JsValue> {
    let document = window()
        .document()
        .ok_or_else(|| JsValue::from_str("no document"))?;
    let link: web_sys::HtmlAnchorElement = document.create_element("a")?.dyn_into()?;
    link.set_href(url);
    link.set_download(file_name);
    link.click();
    Ok(())
}

/// The page's local storage, if the browser allows it: a sandboxed iframe
/// may refuse storage altogether.
pub fn local_storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

/// Moves the keyboard focus to the element with id `id`, if there is one.
pub fn focus(id: &str) {
    if let Some(element) = window()
        .document()
        .and_then(|document| document.get_element_by_id(id))
        .and_then(|element| element.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = element.focus();
    }
}
