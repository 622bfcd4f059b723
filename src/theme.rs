//! The colour scheme. The full app follows the system unless the reader
//! picks light or dark, a taste kept in local storage rather than in shared
//! links; an embed takes the scheme its snippet names. The page's root
//! carries it as `data-theme`, which the style sheet and the charts read.
//!
//! `index.html` sets the same attribute before the app starts, so the page
//! never flashes the other scheme.

use leptos::prelude::*;
use stampede_core::panels::state::Theme;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

const STORAGE_KEY: &str = "stampede-theme";

/// The scheme chosen and whether the page is dark now, for charts to draw in.
#[derive(Clone, Copy)]
pub struct Scheme {
    chosen: RwSignal<Theme>,
    system_dark: RwSignal<bool>,
}

impl Scheme {
    /// Starts from `chosen`, or from the reader's stored choice when `None`,
    /// and keeps the page's root attribute and the system's setting in step.
    pub fn provide(chosen: Option<Theme>) -> Self {
        let chosen = chosen.unwrap_or_else(stored_choice);
        let scheme = Self {
            chosen: RwSignal::new(chosen),
            system_dark: RwSignal::new(system_is_dark()),
        };
        scheme.mark_root();
        scheme.follow_system();
        provide_context(scheme);
        scheme
    }

    /// Writes the scheme on the page's root. Done as soon as it changes,
    /// not in an effect, so that the charts redrawn for the change read the
    /// new colours whatever order effects run in.
    fn mark_root(self) {
        let name = if self.is_dark_untracked() {
            "dark"
        } else {
            "light"
        };
        if let Some(root) = document().document_element() {
            let _ = root.set_attribute("data-theme", name);
        }
    }

    fn choose(self, theme: Theme) {
        self.chosen.set(theme);
        self.mark_root();
    }

    /// Follows the system's scheme as it changes.
    fn follow_system(self) {
        let Some(query) = dark_query() else { return };
        let on_change = Closure::<dyn Fn()>::new(move || {
            self.system_dark.set(system_is_dark());
            self.mark_root();
        });
        let _ =
            query.add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref());
        // The listener lasts as long as the page.
        on_change.forget();
    }

    fn is_dark_untracked(self) -> bool {
        match self.chosen.get_untracked() {
            Theme::Auto => self.system_dark.get_untracked(),
            Theme::Light => false,
            Theme::Dark => true,
        }
    }

    /// Whether the page is dark, as a tracked read.
    pub fn is_dark(self) -> bool {
        match self.chosen.get() {
            Theme::Auto => self.system_dark.get(),
            Theme::Light => false,
            Theme::Dark => true,
        }
    }

    /// Whether charts should draw dark: light outside an app that provided a scheme.
    pub fn current_is_dark() -> bool {
        use_context::<Scheme>().is_some_and(Scheme::is_dark)
    }
}

/// Whether the page is dark now, as its root says, for work outside the
/// reactive graph such as an export.
pub fn page_is_dark() -> bool {
    document()
        .document_element()
        .and_then(|root| root.get_attribute("data-theme"))
        .as_deref()
        == Some("dark")
}

fn stored_choice() -> Theme {
    let stored = crate::browser::local_storage()
        .and_then(|storage| storage.get_item(STORAGE_KEY).ok().flatten());
    Theme::ALL
        .into_iter()
        .find(|theme| Some(theme.slug()) == stored.as_deref())
        .unwrap_or_default()
}

fn dark_query() -> Option<web_sys::MediaQueryList> {
    window()
        .match_media("(prefers-color-scheme: dark)")
        .ok()
        .flatten()
}

fn system_is_dark() -> bool {
    dark_query().is_some_and(|query| query.matches())
}

/// The reader's choice of scheme, for the page's header.
#[component]
pub fn ThemePicker() -> impl IntoView {
    let scheme = expect_context::<Scheme>();
    let choose = move |ev| {
        let slug = event_target_value(&ev);
        let theme = Theme::ALL
            .into_iter()
            .find(|theme| theme.slug() == slug)
            .unwrap_or_default();
        if let Some(storage) = crate::browser::local_storage() {
            let _ = storage.set_item(STORAGE_KEY, theme.slug());
        }
        scheme.choose(theme);
    };
    let option = move |theme: Theme, label: &'static str| {
        view! {
            <option value=theme.slug() selected=move || scheme.chosen.get() == theme>
                {label}
            </option>
        }
    };
    view! {
        <label class="theme-picker">
            "Theme "
            <select id="theme" on:change=choose>
                {option(Theme::Auto, "as the system")}
                {option(Theme::Light, "light")}
                {option(Theme::Dark, "dark")}
            </select>
        </label>
    }
}
