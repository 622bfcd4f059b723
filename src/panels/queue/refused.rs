//! The rows an import refused, each reachable: the first few on the page,
//! the rest a click away, and every one in a CSV file to fix and import
//! again. A million refused rows must not freeze the tab, so the list
//! opened in full stops at a few thousand and says the file holds them all.

use std::sync::Arc;

use leptos::prelude::*;
use stampede_core::arrivals::{self, RefusedRow};
use stampede_core::panels::queue_arrivals::ArrivalsRun;
use stampede_core::units::count;

use crate::browser;

/// Refused rows listed at once.
const LISTED: usize = 20;
/// The most rows the list opened in full holds, the first ones included.
const MOST_LISTED: usize = 2_000;

/// How many rows were refused, the first listed, the rest behind "Show
/// all", and the download of every one.
pub fn view(shown: Arc<ArrivalsRun>) -> impl IntoView {
    let refused = shown.arrivals.refused.len();
    let first = items(&shown.arrivals.refused[..refused.min(LISTED)]);
    view! {
        <p class="imported-refused" data-refused=refused.to_string()>
            {if refused == 0 {
                "Every row was read.".to_string()
            } else {
                format!("{} refused, the rest kept:", count(refused as u64))
            }}
        </p>
        <ul class="imported-refusals">{first}</ul>
        {(refused > LISTED).then(|| the_rest(Arc::clone(&shown)))}
        {(refused > 0).then(|| download(shown))}
    }
}

/// The rows after the first, built only once a reader opens them.
fn the_rest(shown: Arc<ArrivalsRun>) -> impl IntoView {
    let refused = shown.arrivals.refused.len();
    let opened = RwSignal::new(false);
    let rows = move || {
        opened
            .get()
            .then(|| items(&shown.arrivals.refused[LISTED..refused.min(MOST_LISTED)]))
    };
    let cut = (refused > MOST_LISTED).then(|| {
        format!(
            "The first {} are listed; the download holds all {}.",
            count(MOST_LISTED as u64),
            count(refused as u64)
        )
    });
    view! {
        <details class="imported-refusals-all" on:toggle=move |_| opened.set(true)>
            <summary>
                {if refused > MOST_LISTED {
                    format!(
                        "Show the first {} of the {} refused rows",
                        count(MOST_LISTED as u64),
                        count(refused as u64)
                    )
                } else {
                    format!("Show all {} refused rows", count(refused as u64))
                }}
            </summary>
            <ul class="imported-refusals-rest">{rows}</ul>
            {cut.map(|cut| view! { <p class="imported-refusals-cut">{cut}</p> })}
        </details>
    }
}

fn items(rows: &[RefusedRow]) -> impl IntoView + use<> {
    rows.iter()
        .map(|row| format!("Line {}: {}", row.line, row.reason))
        .map(|line| view! { <li>{line}</li> })
        .collect_view()
}

/// A button that saves every refused row as CSV: line and reason.
fn download(shown: Arc<ArrivalsRun>) -> impl IntoView {
    let save = move |_| {
        let csv = arrivals::refused_csv(&shown.arrivals.refused);
        if let Err(error) = browser::download_text("refused-rows.csv", "text/csv", &csv) {
            browser::warn(&format!("the refused rows could not be saved: {error:?}"));
        }
    };
    view! {
        <button type="button" id="arrivals-refused-download" on:click=save>
            "Download refused rows"
        </button>
    }
}
