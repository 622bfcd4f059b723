//! Notices about parameters that were not taken as written: each beside the
//! control it concerns, and all of them in a short summary at the panel's
//! head, whose links lead to those controls.

use leptos::prelude::*;

use stampede_core::panels::state::SEED_FIELD;

use crate::store::{Adjusted, Store};

/// The summary at the head of the panel. A notice about no control (the
/// panel, the version, an embed's figure) is only here.
#[component]
pub fn NoticeSummary() -> impl IntoView {
    let store = Store::get();
    view! {
        <div id="notices" role="status" aria-live="polite">
            <Show when=move || store.notices.with(|n| !n.is_empty())>
                <ul>
                    <For
                        each=move || store.notices.get()
                        key=|adjusted| (adjusted.notice.key, adjusted.notice.message.clone())
                        let(adjusted)
                    >
                        <li class="notice">
                            <NoticeText adjusted=adjusted.clone() linked=true />
                            <DismissButton adjusted />
                        </li>
                    </For>
                </ul>
            </Show>
        </div>
    }
}

/// The notices that concern the control of `key`, under it.
#[component]
pub fn FieldNotices(key: &'static str) -> impl IntoView {
    let store = Store::get();
    let here = move || {
        store.notices.with(|notices| {
            notices
                .iter()
                .filter(|adjusted| adjusted.concerns(key))
                .cloned()
                .collect::<Vec<_>>()
        })
    };
    view! {
        <For
            each=here
            key=|adjusted| (adjusted.notice.key, adjusted.notice.message.clone())
            children=|adjusted| {
                let key = adjusted.notice.key;
                view! {
                    <p class="field-notice" data-notice=key>
                        <NoticeText adjusted=adjusted.clone() linked=false />
                        <DismissButton adjusted />
                    </p>
                }
            }
        />
    }
}

/// The notice's text. In the summary, the field's name links to its
/// control, when the open panel has one.
#[component]
fn NoticeText(adjusted: Adjusted, linked: bool) -> impl IntoView {
    let notice = adjusted.notice;
    let target = format!("f-{}", notice.key);
    let has_control = linked
        && Store::get().state.with_untracked(|state| {
            notice.key == SEED_FIELD.key
                || state
                    .params(state.panel)
                    .fields()
                    .iter()
                    .any(|field| field.key == notice.key)
        });
    let name = format!("{} ({})", notice.label, notice.key);
    let name = if has_control {
        view! {
            <a href=format!("#{target}") on:click=move |ev| focus_control(ev, &target)>
                {name}
            </a>
        }
        .into_any()
    } else {
        name.into_any()
    };
    view! { <span>{name}": "{notice.message}</span> }
}

/// Brings a control into view and focus, opening the controls' sheet on a
/// phone first.
fn focus_control(ev: leptos::ev::MouseEvent, id: &str) {
    ev.prevent_default();
    crate::store::Store::get().controls_open.set(true);
    if let Some(element) = document().get_element_by_id(id) {
        element.scroll_into_view();
        if let Ok(element) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(element) {
            let _ = element.focus();
        }
    }
}

#[component]
fn DismissButton(adjusted: Adjusted) -> impl IntoView {
    let store = Store::get();
    let key = adjusted.notice.key;
    view! {
        <button
            type="button"
            class="dismiss"
            aria-label=format!("Dismiss the notice about {}", adjusted.notice.label)
            on:click=move |_| store.dismiss(key)
        >
            "×"
        </button>
    }
}
