//! The fleet's input: the sample buttons, the paste box (which also takes
//! dropped files), an upload button for several files, the format, and
//! under the box what was read: the summary, where every line went, the
//! files or parts with their counts, every skipped line (the first few
//! shown, all on request or as a download) and each notice, and when the
//! fleet is too long for a link, a way to save it.

use std::cell::Cell;
use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use stampede_core::fleet_format::FleetFormat;
use stampede_core::panels::fleet::Sample;
use stampede_core::units::{count, counted};
use stampede_fleet::import::parts::join_files;
use stampede_fleet::panel::{FleetRead, LineNotice, grouped_notices};
use wasm_bindgen::JsCast;

use super::Fleet;
use crate::browser;
use crate::panels::upload::{file_text, files_of, upload_button};
use crate::store::Store;

/// Typing waits this long after the last key before the fleet is read again.
const TYPING_DEBOUNCE: Duration = Duration::from_millis(300);
/// The most read from files at once, as the link's own limit: 1 MiB.
const MOST_FILE_BYTES: f64 = 1_048_576.0;
/// Skipped lines listed before the reader asks for more.
const SKIPPED_SHOWN: usize = 20;
/// Skipped lines a page lists once the reader asks; the download holds
/// every one.
const SKIPPED_PAGE: usize = 500;

thread_local! {
    /// Counts edits, so only the last one's timer reads the fleet.
    static EDIT_TICKET: Cell<u64> = const { Cell::new(0) };
}

pub fn input(fleet: Fleet) -> impl IntoView {
    let refused = RwSignal::new(None::<String>);
    view! {
            <section class="fleet-input" aria-labelledby="fleet-input-title">
                <h3 id="fleet-input-title">"Your fleet"</h3>
                {samples(fleet)}
                {format_picker()}
                <textarea
                    id="fleet-text"
                    class="fleet-text"
                    rows="6"
                    spellcheck="false"
                    aria-label="Fleet text: one schedule a line, or a file such as a crontab"
                    placeholder="Paste schedules as you keep them (a crontab or an anacrontab, Jenkinsfiles, systemd timers, prometheus.yml, CronJob or workflow YAML, Quartz, Spring or APScheduler sources, an EventBridge template), or drop files here."
                    prop:value=move || fleet.shown.get()
                    prop:readOnly=move || fleet.box_cut.get().is_some()
                    on:paste=move |ev| paste(fleet, &ev)
                    on:input=move |ev| use_text(fleet, event_target_value(&ev), false)
                    on:dragover=|ev| ev.prevent_default()
                    on:drop=move |ev: leptos::ev::DragEvent| {
                        ev.prevent_default();
                        let files = ev.data_transfer().and_then(|data| data.files()).map(|list| files_of(&list));
                        if let Some(files) = files.filter(|files| !files.is_empty()) {
                            read_files(fleet, files, refused);
                        }
                    }
                ></textarea>
                {move || fleet.box_cut.get().map(|lines| box_cut_note(fleet, lines))}
                <div class="fleet-input-actions">
    {upload_button(
                        "fleet-file",
                        ".txt,.yaml,.yml,.json,.jsonl,.xml,.conf,.timer,.service,.groovy,text/*",
                        true,
                        move |files| read_files(fleet, files, refused),
                    )}
                    <p class="refused" role="alert">{move || refused.get()}</p>
                </div>
                {what_was_read(fleet)}
            </section>
        }
}

/// Says the box shows only the first lines, and offers them all.
fn box_cut_note(fleet: Fleet, lines: usize) -> impl IntoView {
    let says = format!(
        "The box shows the first {} of the fleet's {} lines, and the page reads them all; a paste or a file replaces them all. ",
        count(super::MOST_BOX_LINES as u64),
        count(lines as u64)
    );
    view! {
        <p class="note" id="fleet-box-cut">
            {says}
            <button type="button" id="fleet-box-whole" on:click=move |_| fleet.show_in_box(true)>
                "Edit them all in the box (slow)"
            </button>
        </p>
    }
}

/// Puts the pasted text in place of the selection and reads the fleet at
/// once; into a box showing only the fleet's first lines, in place of the
/// whole fleet. The browser's own paste edits its way through the text area, which
/// takes seconds for a fleet of 10,000 lines with the page frozen meanwhile.
fn paste(fleet: Fleet, ev: &leptos::ev::ClipboardEvent) {
    let text = ev
        .clipboard_data()
        .and_then(|data| data.get_data("text/plain").ok());
    let area = ev
        .target()
        .and_then(|target| target.dyn_into::<web_sys::HtmlTextAreaElement>().ok());
    let (Some(area), Some(text)) = (area, text) else {
        return;
    };
    ev.prevent_default();
    if fleet.box_cut.get_untracked().is_some() {
        return take_text(fleet, text);
    }
    // The selection counts UTF-16 units, as JS strings do, so the box's
    // value is spliced as one.
    let value: js_sys::JsString = js_sys::Reflect::get(&area, &"value".into())
        .ok()
        .and_then(|value| value.dyn_into().ok())
        .unwrap_or_default();
    let at = |position: Result<Option<u32>, _>| position.ok().flatten();
    let start = at(area.selection_start()).unwrap_or(0);
    let end = at(area.selection_end()).unwrap_or(start).max(start);
    let spliced = value
        .slice(0, start)
        .concat(&text.into())
        .concat(&value.slice(end, value.length()));
    take_text(fleet, spliced.into());
}

/// Takes a pasted or dropped fleet: read at once, and put in the box once
/// its figure is drawn. Laying out a box of 10,000 lines takes the page a
/// quarter of a second, which would otherwise come before the figure.
fn take_text(fleet: Fleet, text: String) {
    fleet.box_behind.set_value(true);
    use_text(fleet, text, true);
}

/// Takes `text` as the reader's own fleet: read at once when `at_once`
/// (a paste, a file), else once typing rests.
fn use_text(fleet: Fleet, text: String, at_once: bool) {
    if !at_once {
        // The box shows what was typed.
        fleet.box_behind.set_value(false);
    }
    fleet.text.set_value(text);
    // The reader's own text takes the place of a link's not yet read.
    fleet.fragment.set_value(None);
    crate::chart::mark_change();
    if fleet.params.with_untracked(|p| p.sample != Sample::Own) {
        // The panel's effect reads the fleet when the sample changes.
        return fleet.store.set("smp", Sample::Own.slug());
    }
    let ticket = EDIT_TICKET.get() + 1;
    EDIT_TICKET.set(ticket);
    if at_once {
        return fleet.submit_current();
    }
    set_timeout(
        move || {
            if EDIT_TICKET.get() == ticket {
                fleet.submit_current();
            }
        },
        TYPING_DEBOUNCE,
    );
}

/// Reads dropped or chosen files as one paste, each after a `# file:`
/// line with its name ([`join_files`]), refusing them all when they are
/// too big together or one is not text, naming it.
fn read_files(fleet: Fleet, files: Vec<web_sys::File>, refused: RwSignal<Option<String>>) {
    let size: f64 = files.iter().map(|file| file.size()).sum();
    if size > MOST_FILE_BYTES {
        let what = match files.as_slice() {
            [one] => one.name(),
            _ => format!("These {} files", files.len()),
        };
        return refused.set(Some(format!(
            "{what} come to more than 1 MiB; paste the part you want to see."
        )));
    }
    spawn_local(async move {
        let mut texts = Vec::with_capacity(files.len());
        for file in &files {
            let name = file.name();
            match file_text(file).await {
                Some(text) if !text.contains('\0') => texts.push((name, text)),
                Some(_) => {
                    return refused.set(Some(format!(
                        "{name} is not a text file; a fleet is a text such as a crontab."
                    )));
                }
                None => return refused.set(Some(format!("{name} could not be read."))),
            }
        }
        refused.set(None);
        let named: Vec<(&str, &str)> = texts
            .iter()
            .map(|(name, text)| (name.as_str(), text.as_str()))
            .collect();
        take_text(fleet, join_files(&named));
    });
}

/// One button a sample; the pressed one is the fleet shown.
fn samples(fleet: Fleet) -> impl IntoView {
    let store = Store::get();
    let buttons = Sample::OPTIONS
        .iter()
        .filter(|choice| choice.slug != Sample::Own.slug())
        .map(|choice| {
            let slug = choice.slug;
            let pressed = move || fleet.params.with(|p| p.sample.slug() == slug).to_string();
            view! {
                <button
                    type="button"
                    data-sample=slug
                    aria-pressed=pressed
                    on:click=move |_| {
                        crate::chart::mark_change();
                        store.set("smp", slug);
                    }
                >
                    {choice.label}
                </button>
            }
        })
        .collect_view();
    // The id and tabindex let a notice about the sample (`smp`) bring
    // these into view and focus, as the other fields' notices do.
    view! {
        <div id="f-smp" tabindex="-1" class="samples" role="group" aria-label="Sample fleets">
            {buttons}
        </div>
    }
}

/// The format the text is read in; auto-detect unless the reader says.
fn format_picker() -> impl IntoView {
    let store = Store::get();
    let current = Memo::new(move |_| store.state.with(|s| s.fleet.format.slug()));
    let options = FleetFormat::OPTIONS
        .iter()
        .map(|choice| {
            let slug = choice.slug;
            view! { <option value=slug selected=move || current.get() == slug>{choice.label}</option> }
        })
        .collect_view();
    view! {
        <label class="fleet-format">
            "Read as "
            // The id the controls' sheet gives a field, so that a notice
            // about the format links here.
            <select
                id="f-fmt"
                on:change=move |ev| {
                    crate::chart::mark_change();
                    store.set("fmt", &event_target_value(&ev));
                }
            >
                {options}
            </select>
        </label>
    }
}

/// `text` with its first letter in capitals, as a notice starts. Core
/// writes its messages in ASCII first letters; ASCII keeps Unicode's case
/// tables out of the app.
fn sentence_case(text: &str) -> String {
    let mut text = text.to_string();
    if let Some(first) = text.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    text
}

/// The files the text names, or its parts when it mixes formats, each with
/// what it gave.
fn sources(read: &FleetRead) -> Option<impl IntoView + use<>> {
    let rows: Vec<String> = if !read.files.is_empty() {
        read.files
            .iter()
            .map(|file| {
                let skipped = match file.skipped {
                    0 => String::new(),
                    lines => format!(", {} skipped", counted(u64::from(lines), "line", "lines")),
                };
                format!(
                    "{}: {} from {} ({}){skipped}",
                    file.name,
                    counted(u64::from(file.jobs), "job", "jobs"),
                    file.formats,
                    lines_words(file.first_line, file.last_line, "line", "lines"),
                )
            })
            .collect()
    } else if read.parts.len() > 1 {
        read.parts
            .iter()
            .map(|part| {
                format!(
                    "{}: {} from {}",
                    lines_words(part.first_line, part.last_line, "Line", "Lines"),
                    counted(u64::from(part.jobs), "job", "jobs"),
                    part.words
                )
            })
            .collect()
    } else {
        return None;
    };
    let label = if read.files.is_empty() {
        "Parts of the text"
    } else {
        "Files"
    };
    let items = rows
        .into_iter()
        .map(|row| view! { <li>{row}</li> })
        .collect_view();
    Some(view! { <ul class="fleet-sources" aria-label=label>{items}</ul> })
}

/// "Line 7" or "Lines 7–12".
fn lines_words(first: u32, last: u32, one: &str, many: &str) -> String {
    if first == last {
        format!("{one} {first}")
    } else {
        format!("{many} {first}–{last}")
    }
}

/// "line 12 (spec): why", as the list and the download write it.
fn skipped_row(skipped: &stampede_fleet::panel::Skipped) -> String {
    format!(
        "line {} ({}): {}",
        skipped.line, skipped.field, skipped.reason
    )
}

/// Every skipped line: the first [`SKIPPED_SHOWN`], the rest on request a
/// page of [`SKIPPED_PAGE`] at a time, and all of them as a download. Only
/// the rows shown are ever written: a paste of 100,000 bad lines must not
/// make 100,000 rows.
fn skipped_lines(fleet: Fleet, read: &FleetRead) -> Option<impl IntoView + use<>> {
    let total = read.skipped.len();
    if total == 0 {
        return None;
    }
    // `None` for the first few, else the page shown, from 0.
    let page = RwSignal::new(None::<usize>);
    let pages = total.div_ceil(SKIPPED_PAGE);
    let rows = move |range: std::ops::Range<usize>| {
        fleet.read.with_untracked(|read| {
            read.as_ref()
                .and_then(|read| read.skipped.get(range.start..range.end.min(total)))
                .map(|skipped| skipped.iter().map(skipped_row).collect::<Vec<_>>())
                .unwrap_or_default()
        })
    };
    let download = move |_| {
        let text: String = rows(0..total)
            .iter()
            .map(|row| format!("{row}\n"))
            .collect();
        let _ = browser::download_text("skipped-lines.txt", "text/plain", &text);
    };
    let list = move || {
        let shown = match page.get() {
            None => 0..SKIPPED_SHOWN,
            Some(page) => page * SKIPPED_PAGE..(page + 1) * SKIPPED_PAGE,
        };
        rows(shown)
            .into_iter()
            .map(|row| view! { <li>{row}</li> })
            .collect_view()
    };
    let more = (total > SKIPPED_SHOWN).then(|| {
        let label = move || match page.get() {
            Some(_) => format!("Show the first {SKIPPED_SHOWN} only"),
            None if pages == 1 => format!("Show all {total} skipped lines"),
            None => format!("Show the {} skipped lines {SKIPPED_PAGE} at a time", count(total as u64)),
        };
        let toggle = move |_| page.update(|page| *page = page.xor(Some(0)));
        let turn = move |by: isize| {
            move |_| page.update(|page| *page = page.map(|at| at.saturating_add_signed(by).min(pages - 1)))
        };
        let paging = move || {
            page.get().filter(|_| pages > 1).map(|at| {
                let first = at * SKIPPED_PAGE + 1;
                let last = ((at + 1) * SKIPPED_PAGE).min(total);
                view! {
                    <button type="button" id="skipped-previous" disabled=at == 0 on:click=turn(-1)>"Previous"</button>
                    <span class="skipped-page">{format!("{} to {} of {}", count(first as u64), count(last as u64), count(total as u64))}</span>
                    <button type="button" id="skipped-next" disabled=at + 1 == pages on:click=turn(1)>"Next"</button>
                }
            })
        };
        view! {
            <button type="button" id="show-skipped" aria-expanded=move || page.get().is_some().to_string()
                aria-controls="skipped-lines" on:click=toggle>
                {label}
            </button>
            {paging}
        }
    });
    Some(view! {
        <ul class="skipped" id="skipped-lines" aria-label="Skipped lines">{list}</ul>
        <div class="skipped-actions">
            {more}
            <button type="button" id="download-skipped" on:click=download>
                {if total == 1 { "Download the skipped line".to_string() } else { format!("Download all {} skipped lines", count(total as u64)) }}
            </button>
        </div>
    })
}

/// The summary, the skipped lines and the notices, and the link's fate.
fn what_was_read(fleet: Fleet) -> impl IntoView {
    move || {
        fleet
            .read
            .with(|read| read.as_ref().map(|read| read_report(fleet, read)))
    }
}

/// `notices` grouped by message, each with its lines, as a list named
/// `label`; nothing when there are none.
pub fn notice_list(notices: &[LineNotice], label: &'static str) -> Option<impl IntoView + use<>> {
    let items = grouped_notices(notices)
        .into_iter()
        .map(|(lines, message)| view! { <li>{format!("{lines}: {message}")}</li> })
        .collect_view();
    (!notices.is_empty()).then(|| view! { <ul class="line-notices" aria-label=label>{items}</ul> })
}

fn read_report(fleet: Fleet, read: &FleetRead) -> impl IntoView + use<> {
    let too_long = fleet.link.with(|link| match link {
        Some(Err(why)) => Some(sentence_case(why)),
        _ => None,
    });
    let name = file_name(Some(read), "");
    let link_notice = too_long.map(|why| {
        let download = move |_| {
            let text = fleet.text.get_value();
            let _ = browser::download_text(&name, "text/plain", &text);
        };
        view! {
            <div class="notice link-notice" role="status">
                <p>{why}</p>
                <button type="button" id="download-fleet" on:click=download>"Download fleet"</button>
            </div>
        }
    });
    view! {
        <p class="fleet-reading">
            <span class="fleet-summary" id="fleet-summary">{read.summary.clone()}</span>
            " "
            <span class="fleet-account" id="fleet-account">{format!("({})", read.reconciliation)}</span>
        </p>
        {sources(read)}
        {skipped_lines(fleet, read)}
        {notice_list(&read.notices, "Notices")}
        {link_notice}
    }
}

/// A file name for the fleet's text, after its format: `crontab.txt`,
/// `crontab.fixed.txt`.
pub fn file_name(read: Option<&FleetRead>, suffix: &str) -> String {
    let base = read.map_or("fleet", |read| match read.format.as_str() {
        "" | "auto" => "fleet",
        format => format,
    });
    let base: String = base
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    if suffix.is_empty() {
        format!("{base}.txt")
    } else {
        format!("{base}.{suffix}.txt")
    }
}
