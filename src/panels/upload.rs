//! "Upload a file": the button that takes a reader's file, and its text.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// A button, styled as the others, that opens the file chooser for files
/// `accept` names and hands the chosen file to `on_file`.
pub fn upload_button(
    id: &'static str,
    accept: &'static str,
    on_file: impl Fn(web_sys::File) + 'static,
) -> impl IntoView {
    view! {
        <label class="button upload">
            "Upload a file"
            <input
                type="file"
                id=id
                accept=accept
                on:change=move |ev| {
                    let input = ev
                        .target()
                        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
                    if let Some(file) = input.as_ref().and_then(|i| i.files()).and_then(|f| f.get(0)) {
                        on_file(file);
                    }
                }
            />
        </label>
    }
}

/// The text of `file`, or `None` when the browser cannot read it.
pub async fn file_text(file: &web_sys::File) -> Option<String> {
    JsFuture::from(file.text())
        .await
        .ok()
        .and_then(|text| text.as_string())
}
