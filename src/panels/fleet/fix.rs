//! Before and after the fix: both heatmaps on one colour scale, the
//! figures that changed, the diff of the text, the jobs left as written,
//! the fixed file to copy or save, and the stability probe.

use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use stampede_core::panels::fleet::{self, CapacityUnit, FixMethod, Probe};
use stampede_core::units::{count, significant};
use stampede_fleet::file::System;
use stampede_fleet::panel::{DiffKind, DiffRow, FleetFix, FleetProbe, FleetRead, WeekLoad};

use super::heat_canvas::HeatCanvas;
use super::heatmap::Grid;
use super::input::{file_name, notice_list};
use super::{Caption, ChartBlock, Fleet, with_code};
use crate::browser;
use crate::store::Store;

/// Kept jobs listed open; more are folded away.
const KEPT_OPEN: usize = 5;
/// Rows of the diff shown: a page builds thousands slowly, and nobody
/// reads them there; the file has them all.
const MOST_DIFF_ROWS: usize = 400;

/// The grids of the fleet as written and as fixed, on the same day; the
/// fixed one marks where the probe's moved jobs start.
pub fn grids(fleet: Fleet) -> (Memo<Option<Grid>>, Memo<Option<Grid>>) {
    let grid_of = move |fixed: bool| {
        Memo::new(move |_| {
            let params = fleet.params.get();
            fleet.read.with(|read| {
                let read = read.as_ref()?;
                if !fixed {
                    return Some(Grid::of(
                        read,
                        &read.load,
                        params.view,
                        params.day,
                        params.measure,
                    ));
                }
                fleet.fix.with(|fix| {
                    let fix = fix.as_ref()?;
                    let mut grid =
                        Grid::of(read, &fix.load, params.view, params.day, params.measure);
                    fleet.probe.with(|probe| {
                        if let Some(probe) = probe {
                            grid.mark_minutes(&probe.moved_minutes);
                        }
                    });
                    Some(grid)
                })
            })
        })
    };
    (grid_of(false), grid_of(true))
}

pub fn fix_block(fleet: Fleet, before: HeatCanvas, after: HeatCanvas) -> impl IntoView {
    let has_fix = move || fleet.fix.with(Option::is_some);
    view! {
        <ChartBlock figure=fleet::FIX>
            <Caption slot>
                "The fleet as written (left) and as fixed (right), on one colour scale; below, what
                changed in numbers and in the text, ready to copy."
            </Caption>
            {method_picker()}
            <div class="heat-pair">
                <div>
                    <h4>"As written"</h4>
                    {before.view("fleet-before")}
                </div>
                <div>
                    <h4>"After the fix"</h4>
                    {after.view("fleet-after")}
                </div>
            </div>
            {stability(fleet)}
            <Show when=has_fix>
                {figures_table(fleet)}
                {fix_notices(fleet)}
                {fixed_file(fleet)}
                {diff(fleet)}
                {kept(fleet)}
            </Show>
        </ChartBlock>
    }
}

/// The fix's method, as radio buttons.
fn method_picker() -> impl IntoView {
    let store = Store::get();
    let chosen = Memo::new(move |_| store.state.with(|s| s.fleet.fix));
    let options = FixMethod::OPTIONS
        .iter()
        .map(|choice| {
            let slug = choice.slug;
            view! {
                <label>
                    <input
                        type="radio"
                        name="fleet-fix"
                        value=slug
                        prop:checked=move || chosen.get().slug() == slug
                        on:change=move |_| {
                            crate::chart::mark_change();
                            store.set("fix", slug);
                        }
                    />
                    {choice.label}
                </label>
            }
        })
        .collect_view();
    view! {
        <fieldset class="fix-method">
            <legend>"Fix by"</legend>
            {options}
        </fieldset>
    }
}

/// The figures before and after, as a small table.
fn figures_table(fleet: Fleet) -> impl IntoView {
    let rows = move || {
        fleet.read.with(|read| {
            fleet.fix.with(|fix| {
                let (Some(read), Some(fix)) = (read, fix) else {
                    return Vec::new();
                };
                let params = fleet.params.get();
                figure_rows(&read.load, &fix.load, params.capacity, params.capacity_unit)
            })
        })
    };
    view! {
        <table class="fix-figures">
            <thead>
                <tr><th scope="col">"Figure"</th><th scope="col">"As written"</th><th scope="col">"Fixed"</th></tr>
            </thead>
            <tbody>
                {move || {
                    rows()
                        .into_iter()
                        .map(|(what, before, after)| {
                            view! { <tr><th scope="row">{what}</th><td>{before}</td><td>{after}</td></tr> }
                        })
                        .collect_view()
                }}
            </tbody>
        </table>
    }
}

/// What the fixed fleet's figures do not count in full, as the read
/// lists it for the fleet as written.
fn fix_notices(fleet: Fleet) -> impl IntoView {
    move || {
        fleet
            .fix
            .with(|fix| notice_list(&fix.as_ref()?.notices, "Notices on the fixed fleet"))
    }
}

/// The figures the fix is judged by. Not the starts sharing a minute:
/// spreading a pile fills more minutes, each with fewer starts, so that
/// count can rise when the fix works.
fn figure_rows(
    before: &WeekLoad,
    after: &WeekLoad,
    capacity: u32,
    unit: CapacityUnit,
) -> Vec<(&'static str, String, String)> {
    let starts = |load: &WeekLoad| count(u64::from(load.peak_starts));
    let over = |load: &WeekLoad| count(load.minutes_over(capacity, unit).0 as u64);
    let mut rows = vec![
        (
            "Starts in the busiest minute",
            starts(before),
            starts(after),
        ),
        ("Minutes over capacity", over(before), over(after)),
    ];
    if let (Some(b), Some(a)) = (before.running_p99, after.running_p99) {
        rows.push((
            "Jobs running, 99th percentile",
            significant(b, 3),
            significant(a, 3),
        ));
    }
    rows
}

/// "Copy fixed file" and "Download", and how many jobs moved.
fn fixed_file(fleet: Fleet) -> impl IntoView {
    let copied = RwSignal::new(None::<bool>);
    let fixed_text = move || {
        fleet
            .fix
            .with_untracked(|fix| fix.as_ref().map(|fix| fix.fixed_text.clone()))
    };
    let copy = move |_| {
        let Some(text) = fixed_text() else { return };
        spawn_local(async move {
            copied.set(Some(browser::copy_to_clipboard(&text).await));
            set_timeout(move || copied.set(None), Duration::from_secs(2));
        });
    };
    let download = move |_| {
        if let Some(text) = fixed_text() {
            let name = fleet
                .read
                .with_untracked(|read| file_name(read.as_ref(), "fixed"));
            let _ = browser::download_text(&name, "text/plain", &text);
        }
    };
    let changed = move || {
        fleet.fix.with(|fix| {
            fix.as_ref().map(|fix| {
                format!(
                    "The fix moves {} and leaves {} as written.",
                    counted_jobs(fix.changed),
                    counted_jobs(fix.kept.len() as u32)
                )
            })
        })
    };
    view! {
        <div class="fixed-file">
            <p>{changed}</p>
            <button type="button" id="copy-fixed" on:click=copy>
                {move || match copied.get() {
                    None => "Copy fixed file",
                    Some(true) => "Copied ✓",
                    Some(false) => "Copy failed: use Download",
                }}
            </button>
            <button type="button" id="download-fixed" on:click=download>"Download"</button>
        </div>
    }
}

fn counted_jobs(n: u32) -> String {
    match n {
        1 => "1 job".to_string(),
        n => format!("{} jobs", count(u64::from(n))),
    }
}

/// The diff of the text, line by line: − for a line of the pasted text
/// only, + for one of the fixed text only, "…" between hunks.
fn diff(fleet: Fleet) -> impl IntoView {
    let rows = move || {
        fleet.fix.with(|fix| {
            fix.as_ref()
                .map(|fix| diff_rows(&fix.diff))
                .unwrap_or_default()
        })
    };
    let unchanged = move || {
        fleet
            .fix
            .with(|fix| fix.as_ref().is_some_and(|f| f.diff.is_empty()))
    };
    view! {
        <h4>"What the fix changes"</h4>
        <Show
            when=move || !unchanged()
            fallback=|| view! { <p class="note">"Nothing: the fix leaves the text as it is."</p> }
        >
            <div class="diff" role="table" aria-label="Changes to the text" tabindex="0">
                {move || rows().collect_view()}
            </div>
        </Show>
    }
}

fn diff_rows(rows: &[DiffRow]) -> Vec<AnyView> {
    let mut out = Vec::with_capacity(rows.len().min(MOST_DIFF_ROWS) + 1);
    let mut last: Option<(Option<u32>, Option<u32>)> = None;
    for row in rows.iter().take(MOST_DIFF_ROWS) {
        // A gap in both line numbers starts a new hunk.
        if let Some((before, after)) = last {
            let next = |line: Option<u32>, was: Option<u32>| match (line, was) {
                (Some(line), Some(was)) => line > was + 1,
                _ => false,
            };
            if next(row.before_line, before) || next(row.after_line, after) {
                out.push(
                    view! { <div class="diff-gap" role="row"><span role="cell">"…"</span></div> }
                        .into_any(),
                );
            }
        }
        last = Some((
            row.before_line.or(last.and_then(|l| l.0)),
            row.after_line.or(last.and_then(|l| l.1)),
        ));
        let (class, marker) = match row.kind {
            DiffKind::Same => ("diff-same", " "),
            DiffKind::Removed => ("diff-removed", "−"),
            DiffKind::Added => ("diff-added", "+"),
        };
        let number = |line: Option<u32>| line.map(|n| n.to_string()).unwrap_or_default();
        out.push(
            view! {
                <div class=class role="row">
                    <span class="diff-line" role="cell">{number(row.before_line)}</span>
                    <span class="diff-line" role="cell">{number(row.after_line)}</span>
                    <span class="diff-marker" role="cell">{marker}</span>
                    <span class="diff-text" role="cell">{row.text.clone()}</span>
                </div>
            }
            .into_any(),
        );
    }
    if rows.len() > MOST_DIFF_ROWS {
        let rest = format!(
            "… and {} more rows: Download has the whole fixed file.",
            count((rows.len() - MOST_DIFF_ROWS) as u64)
        );
        out.push(
            view! { <div class="diff-gap" role="row"><span role="cell">{rest}</span></div> }
                .into_any(),
        );
    }
    out
}

/// The jobs the fix leaves as written, with why; folded when many.
fn kept(fleet: Fleet) -> impl IntoView {
    move || {
        fleet.read.with(|read| {
            fleet.fix.with(|fix| {
                let (Some(read), Some(fix)) = (read, fix) else {
                    return None;
                };
                (!fix.kept.is_empty()).then(|| kept_list(read, fix))
            })
        })
    }
}

fn kept_list(read: &FleetRead, fix: &FleetFix) -> impl IntoView + use<> {
    let items = fix
        .kept
        .iter()
        .filter_map(|kept| {
            let job = read.jobs.get(kept.job as usize)?;
            let text = format!("line {}: {} ({})", job.line, job.id, kept.why);
            Some(view! { <li>{text}</li> })
        })
        .collect_view();
    let summary = format!("Left as written: {}", counted_jobs(fix.kept.len() as u32));
    view! {
        <details class="kept" open=fix.kept.len() <= KEPT_OPEN>
            <summary>{summary}</summary>
            <ul>{items}</ul>
        </details>
    }
}

/// The stability probe: a small change of the fleet, and how many jobs it
/// moves with the fix against a random delay drawn anew.
fn stability(fleet: Fleet) -> impl IntoView {
    let store = Store::get();
    let systems = move |system: System| {
        fleet.read.with(|read| {
            read.as_ref()
                .is_some_and(|r| r.jobs.iter().any(|j| j.system == system))
        })
    };
    let button = move |probe: Probe, label: &'static str| {
        let slug = probe.slug();
        view! {
            <button
                type="button"
                data-probe=slug
                aria-pressed=move || store.state.with(|s| s.fleet.probe == probe).to_string()
                on:click=move |_| {
                    let now = store.state.with_untracked(|s| s.fleet.probe);
                    let next = if now == probe { Probe::None } else { probe };
                    store.set("chg", next.slug());
                }
            >
                {label}
            </button>
        }
    };
    let sentence = move || {
        fleet.probe.with(|probe| {
            probe
                .as_ref()
                .map(|probe| with_code(&probe_sentence(probe)))
        })
    };
    let hash_only = move || {
        let level = store.state.with(|s| s.fleet.fix == FixMethod::Level);
        let probing = store.state.with(|s| s.fleet.probe != Probe::None);
        (level && probing).then_some(
            "The dots show where the moved jobs start when each is hashed into its window, as the hash fix places them.",
        )
    };
    view! {
        <div id="f-chg" tabindex="-1" class="stability" role="group" aria-label="Change the fleet a little">
            <h4>"Does the fix hold when the fleet changes?"</h4>
            {button(Probe::Rename, "Rename a job")}
            {button(Probe::Grow, "Add 10 % more jobs")}
            <Show when=move || systems(System::Systemd)>{button(Probe::MachineId, "Change the machine id")}</Show>
            <Show when=move || systems(System::Prometheus)>{button(Probe::Server, "Change the server")}</Show>
            <p class="probe-result" aria-live="polite">{sentence}</p>
            <p class="note">{hash_only}</p>
        </div>
    }
}

fn probe_sentence(probe: &FleetProbe) -> String {
    format!(
        "After the change ({}), {} of {} jobs start at another time; with a random delay drawn anew, {} of {} would.",
        probe.change,
        count(probe.moved.len() as u64),
        count(u64::from(probe.compared)),
        count(u64::from(probe.rerolled_moved)),
        count(u64::from(probe.rerolled_compared)),
    )
}
