//! "Upload a file": the button that takes a reader's files, and their text.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// A button, styled as the others, that opens the file chooser for files
/// `accept` names (several when `multiple`) and hands the chosen ones to
/// `on_files`.
pub fn upload_button(
    id: &'static str,
    accept: &'static str,
    multiple: bool,
    on_files: impl Fn(Vec<web_sys::File>) + 'static,
) -> impl IntoView {
    view! {
        <label class="button upload">
            {if multiple { "Upload files" } else { "Upload a file" }}
            <input
                type="file"
                id=id
                accept=accept
                multiple=multiple
                on:change=move |ev| {
                    let input = ev
                        .target()
                        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
                    let files = input.as_ref().and_then(|i| i.files()).map(|list| files_of(&list));
                    if let Some(files) = files.filter(|files| !files.is_empty()) {
                        on_files(files);
                    }
                }
            />
        </label>
    }
}

/// The files of a `FileList`, in order.
pub fn files_of(list: &web_sys::FileList) -> Vec<web_sys::File> {
    (0..list.length())
        .filter_map(|index| list.get(index))
        .collect()
}

/// The text of `file`, or `None` when the browser cannot read it.
pub async fn file_text(file: &web_sys::File) -> Option<String> {
    JsFuture::from(file.text())
        .await
        .ok()
        .and_then(|text| text.as_string())
}
