//! The bridges to the browser that are not the DOM Leptos draws: the
//! address bar, the clipboard, the embedding page, downloads and the panic
//! banner.

use std::cell::Cell;
use std::time::Duration;

use leptos::prelude::set_timeout;
use wasm_bindgen::prelude::*;

/// How long the address bar waits after the last change: a dragged slider
/// rewrites it once it rests, not at every step.
const URL_DEBOUNCE: Duration = Duration::from_millis(300);

/// The current query string, without its `?`.
pub fn query() -> String {
    let search = window().location().search().unwrap_or_default();
    search.trim_start_matches('?').to_string()
}

/// The page address up to and including its path, e.g.
/// `https://docs.example.com/tools/stampede/`.
pub fn page_base() -> String {
    let location = window().location();
    let origin = location.origin().unwrap_or_default();
    let path = location.pathname().unwrap_or_default();
    format!("{origin}{path}")
}

thread_local! {
    static PENDING_URL_WRITE: Cell<u64> = const { Cell::new(0) };
}

/// Replaces the query in the address bar once `query` has been the latest
/// for [`URL_DEBOUNCE`], without adding a history entry.
pub fn replace_query_debounced(query: String) {
    let ticket = PENDING_URL_WRITE.with(|pending| {
        pending.set(pending.get() + 1);
        pending.get()
    });
    set_timeout(
        move || {
            if PENDING_URL_WRITE.with(Cell::get) == ticket {
                let url = format!("?{query}");
                if let Ok(history) = window().history() {
                    // A page sandboxed without same-origin may refuse; the state still lives.
                    let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
                }
            }
        },
        URL_DEBOUNCE,
    );
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
