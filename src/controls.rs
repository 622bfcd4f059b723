//! Controls generated from a panel's fields: a slider with a number input
//! for numbers, a select for a choice, checkboxes for several choices, a
//! text area for a list, and the seed. Every control writes through the
//! store, so a typed value and a URL value meet the same rules.

use leptos::prelude::*;
use stampede_core::field::{Choice, Field, Kind};
use stampede_core::panels::Panel;
use stampede_core::panels::state::SEED_FIELD;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlTextAreaElement};

use crate::chart;
use crate::notices::FieldNotices;
use crate::store::Store;

/// Writes what the reader entered for `key` through the store, and marks
/// the moment, so that the charts' redraw times the update from here.
fn enter(store: Store, key: &'static str, raw: &str) {
    chart::mark_change();
    store.set(key, raw);
}

/// The controls of `panel`, one row per field, then the seed when
/// `with_seed` (the full app keeps the seed in the panel's toolbar).
/// Fields whose keys are in `leave_out` are left to the panel, which
/// shows them its own way (a row of buttons); when `only` is given, just
/// the fields it names are shown, in its order.
#[component]
pub fn Controls(
    panel: Panel,
    with_seed: bool,
    #[prop(default = &[])] leave_out: &'static [&'static str],
    #[prop(optional)] only: Option<&'static [&'static str]>,
) -> impl IntoView {
    let store = Store::get();
    let fields = store
        .state
        .with_untracked(|state| state.params(panel).fields());
    view! {
        <form class="controls" on:submit=|ev| ev.prevent_default()>
            {fields
                .iter()
                .filter(|field| !leave_out.contains(&field.key))
                .filter(|field| only.is_none_or(|keys| keys.contains(&field.key)))
                .map(|field| view! { <FieldControl panel field=*field /> })
                .collect_view()}
            {with_seed.then(|| view! { <SeedControl /> })}
        </form>
    }
}

/// The controls in a column beside the figures, which stays in view while
/// they scroll; on a phone, a sheet over the page that a button opens.
#[component]
pub fn ControlsSheet(
    panel: Panel,
    #[prop(default = &[])] leave_out: &'static [&'static str],
) -> impl IntoView {
    let open = Store::get().controls_open;
    let toggle = move |_| {
        // The sheet covers the lower half of a phone's screen: the first
        // chart moves to the upper half, to be watched while the controls change.
        if !open.get_untracked()
            && let Ok(Some(chart)) = document().query_selector("#figure canvas")
        {
            chart.scroll_into_view();
        }
        open.update(|open| *open = !*open);
    };
    view! {
        <button
            type="button"
            class="sheet-toggle"
            aria-controls="controls-sheet"
            aria-expanded=move || open.get().to_string()
            on:click=toggle
        >
            "Controls"
        </button>
        <aside id="controls-sheet" class="controls-column" class:open=open aria-label="Controls">
            <div class="sheet-head">
                <h3>"Controls"</h3>
                <button type="button" on:click=move |_| open.set(false)>
                    "Done"
                </button>
            </div>
            <Controls panel with_seed=false leave_out />
        </aside>
    }
}

/// Opens the controls' sheet, where a phone shows it as one.
pub fn open_sheet() {
    Store::get().controls_open.set(true);
}

/// The first control a reader can use: an input, select or text area of a
/// field that is shown.
const FIRST_CONTROL: &str = ".controls .control-slot:not([hidden]) :is(input, select, textarea)";

/// "Skip to controls", the page's first Tab stop, so a keyboard reader
/// passes the header and the toolbar: it opens the controls' sheet where a
/// phone has one and focuses the first control, or the page's main part
/// where there is none.
#[component]
pub fn SkipToControls() -> impl IntoView {
    let skip = |ev: leptos::ev::MouseEvent| {
        // Not followed as a link: a Fleet link keeps its fleet in the fragment.
        ev.prevent_default();
        open_sheet();
        // Once the sheet shows: a control outside the layout takes no focus.
        request_animation_frame(|| {
            let page = document();
            let target = page
                .query_selector(FIRST_CONTROL)
                .ok()
                .flatten()
                .or_else(|| page.query_selector("main").ok().flatten());
            if let Some(target) = target.and_then(|t| t.dyn_into::<HtmlElement>().ok()) {
                let _ = target.focus();
            }
        });
    };
    view! {
        // A target on every page, for tools that check where a skip link leads.
        <a href="#main" class="skip-link" on:click=skip>
            "Skip to controls"
        </a>
    }
}

#[component]
fn FieldControl(panel: Panel, field: Field) -> impl IntoView {
    let store = Store::get();
    let id = format!("f-{}", field.key);
    let value = move || {
        store
            .state
            .with(|state| state.params(panel).value(field.key))
            .unwrap_or_default()
    };
    let label_id = format!("{id}-label");
    let label = view! { <label id=label_id.clone() for=id.clone()>{field.label}</label> };
    let input = match field.kind {
        Kind::Number { min, max, step, .. } => {
            number_inputs(field, &id, label_id, (min, max, step), value).into_any()
        }
        Kind::Text { max_len, example } => view! {
            <input
                type="text"
                id=id
                maxlength=max_len
                placeholder=format!("e.g. {example}")
                autocomplete="off"
                spellcheck="false"
                prop:value=value
                on:change=move |ev| enter(store, field.key, &event_target_value(&ev))
            />
        }
        .into_any(),
        Kind::List { example, .. } => list_area(panel, field, &id, example, value).into_any(),
        Kind::Choices { options, max } => checkboxes(field, options, max, value).into_any(),
        Kind::Choice(options) => view! {
            <select id=id on:change=move |ev| enter(store, field.key, &event_target_value(&ev))>
                // `selected` per option, because a select's value set before
                // its options exist is lost.
                {options
                    .iter()
                    .map(|option| {
                        let selected = move || value() == option.slug;
                        view! { <option value=option.slug selected=selected>{option.label}</option> }
                    })
                    .collect_view()}
            </select>
        }
        .into_any(),
    };
    // A group of checkboxes is named by a legend, not by one label.
    let control = match field.kind {
        Kind::Choices { .. } => view! {
            <fieldset class="control choices">
                <legend>{field.label}</legend>
                <div class="inputs">{input}</div>
            </fieldset>
        }
        .into_any(),
        _ => {
            view! { <div class="control">{label}<div class="inputs">{input}</div></div> }.into_any()
        }
    };
    let irrelevant = move || {
        !store
            .state
            .with(|state| state.params(panel).is_relevant(field.key))
    };
    view! {
        <div class="control-slot" hidden=irrelevant>
            {control}
            <FieldNotices key=field.key />
        </div>
    }
}

/// A number's slider and its box. The slider may move on its own scale
/// (the field's slider range); the box takes the value as typed.
fn number_inputs(
    field: Field,
    id: &str,
    label_id: String,
    (min, max, step): (f64, f64, f64),
    value: impl Fn() -> String + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let store = Store::get();
    let id = id.to_string();
    let (slider_min, slider_max, slider_step) = field.slider_range().unwrap_or((min, max, step));
    let current = move || value().parse().unwrap_or(min);
    // The keys move the value in its own space (Field::step_value), not
    // the track's: on a logarithmic track a position may round back to
    // the value it left.
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let next = match ev.key().as_str() {
            "ArrowRight" | "ArrowUp" => field.step_value(current(), true, false),
            "ArrowLeft" | "ArrowDown" => field.step_value(current(), false, false),
            "PageUp" => field.step_value(current(), true, true),
            "PageDown" => field.step_value(current(), false, true),
            "Home" => min,
            "End" => max,
            _ => return,
        };
        ev.prevent_default();
        enter(store, field.key, &next.to_string());
    };
    view! {
        <input
            type="range"
            id=format!("{id}-range")
            aria-labelledby=label_id
            aria-valuetext=move || field.value_text(current())
            min=slider_min
            max=slider_max
            step=slider_step
            prop:value=move || field.slider_position(current()).to_string()
            on:keydown=on_key
            on:input=move |ev| {
                let Ok(position) = event_target_value(&ev).parse::<f64>() else { return };
                enter(store, field.key, &field.slider_value(position).to_string());
            }
        />
        // Committed on change, not on every keystroke, so a half-typed
        // "0." is not rewritten under the cursor.
        <input
            type="number"
            id=id
            min=min
            max=max
            step=step
            inputmode="decimal"
            prop:value=value
            on:change=move |ev| enter(store, field.key, &event_target_value(&ev))
        />
        <span class="unit">{field.unit}</span>
        <span class="readout">{move || field.readout(current()).map(|readout| format!("= {readout}"))}</span>
    }
}

/// A text area for a list, one item a line, and its status line beneath.
/// A paste is read at once, typing when the area is left; the area then
/// shows the items read. Its text unchanged since is not read again, so
/// leaving the area after a paste keeps that paste's notice.
fn list_area(
    panel: Panel,
    field: Field,
    id: &str,
    example: &'static str,
    value: impl Fn() -> String + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let store = Store::get();
    let status_id = format!("{id}-status");
    // Items never hold commas, so one a line is the URL's list re-joined.
    let lines = Memo::new(move |_| value().replace(',', "\n"));
    let read = move |area: &HtmlTextAreaElement| {
        let text = area.value();
        if text != lines.get_untracked() {
            enter(store, field.key, &text);
            // Set here too: when nothing in the text was kept, the list and
            // so `lines` are unchanged, and the bound value would stay put.
            area.set_value(&lines.get_untracked());
        }
    };
    // The browser's own paste into a text area edits its way through the
    // text: in headless Chromium on a test machine, 4 s for 100,000 lines
    // and 40 s for a million, the page frozen meanwhile. Putting the text
    // in place of the selection directly skips that.
    let on_paste = move |ev: leptos::ev::ClipboardEvent| {
        let text = ev
            .clipboard_data()
            .and_then(|data| data.get_data("text/plain").ok());
        let (Some(area), Some(text)) = (text_area(&ev), text) else {
            return;
        };
        ev.prevent_default();
        if area.set_range_text(&text).is_ok() {
            read(&area);
        }
    };
    let status = move || {
        store
            .state
            .with(|state| state.params(panel).status(field.key))
    };
    view! {
        <textarea
            id=id.to_string()
            rows="6"
            placeholder=format!("e.g. {example}: one a line, or separated by commas, tabs or spaces")
            autocomplete="off"
            spellcheck="false"
            aria-describedby=status_id.clone()
            prop:value=lines
            on:paste=on_paste
            on:change=move |ev| {
                if let Some(area) = text_area(&ev) {
                    read(&area);
                }
            }
        ></textarea>
        <p id=status_id class="list-status" aria-live="polite">{status}</p>
    }
}

/// The text area an event happened on.
fn text_area(ev: &web_sys::Event) -> Option<HtmlTextAreaElement> {
    ev.target()?.dyn_into().ok()
}

/// A checkbox for each option of a several-choice field whose value, as
/// the URL writes it, `value` gives. Toggling one writes the whole list, in
/// the options' order; once `max` are ticked, the others wait until one is
/// cleared.
fn checkboxes(
    field: Field,
    options: &'static [Choice],
    max: usize,
    value: impl Fn() -> String + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let store = Store::get();
    let is_chosen = move |slug: &str| value().split(',').any(|s| s == slug);
    let full = move || value().split(',').filter(|s| !s.is_empty()).count() >= max;
    options
        .iter()
        .map(|option| {
            let id = format!("f-{}-{}", field.key, option.slug);
            let toggle = move |ev| {
                let on = event_target_checked(&ev);
                let slugs: Vec<&str> = options
                    .iter()
                    .map(|o| o.slug)
                    .filter(|&slug| {
                        if slug == option.slug {
                            on
                        } else {
                            is_chosen(slug)
                        }
                    })
                    .collect();
                enter(store, field.key, &slugs.join(","));
            };
            view! {
                <label class="choice">
                    <input
                        type="checkbox"
                        id=id
                        prop:checked=move || is_chosen(option.slug)
                        prop:disabled=move || full() && !is_chosen(option.slug)
                        on:change=toggle
                    />
                    {option.label}
                </label>
            }
        })
        .collect_view()
}

/// The seed every random draw of the panel starts from, and a fresh one.
#[component]
pub fn SeedControl() -> impl IntoView {
    let store = Store::get();
    let new_seed = move |_| {
        // Only the seed button asks the browser for randomness; every
        // drawing after it follows from the seed.
        if let Ok(seed) = getrandom::u64() {
            enter(store, SEED_FIELD.key, &seed.to_string());
        }
    };
    view! {
        <div class="control">
            <label for="f-s">{SEED_FIELD.label}</label>
            <div class="inputs">
                <input
                    type="text"
                    id="f-s"
                    inputmode="numeric"
                    autocomplete="off"
                    spellcheck="false"
                    prop:value=move || store.state.with(|state| state.seed.to_string())
                    on:change=move |ev| enter(store, SEED_FIELD.key, &event_target_value(&ev))
                />
                <button type="button" id="new-seed" on:click=new_seed>
                    "New seed"
                </button>
            </div>
            <FieldNotices key=SEED_FIELD.key />
        </div>
    }
}
