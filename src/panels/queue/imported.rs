//! The reader's own arrivals in the Queue panel: a paste box and a file
//! picker, read, described and replayed in the Queue's worker (the page
//! never parses a million rows), then what the trace looks like and the
//! imported lane beside the same jobs spread by each strategy.
//!
//! The arrivals stay on this page: they are not in the link, which says
//! so, and a button offers them as a file to keep beside the link. A
//! change of the Queue's parameters or seed replays them again, and
//! replicates them when `repl` asks (`replication`); until the new result
//! is back, the old one is marked as being for other parameters.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use stampede_core::arrivals::{self, MAX_BYTES};
use stampede_core::panels::Panel;
use stampede_core::panels::State;
use stampede_core::panels::queue;
use stampede_core::panels::queue::wait_percentile;
use stampede_core::panels::queue_arrivals::ArrivalsRun;
use stampede_core::queue::{Lane, QueueParams};
use stampede_core::units::{count, duration, significant};

use super::replication::{Figures, ReplicationStatus, Replicator, StatusIds, TraceRequest};
use super::{depth_plot, percent};
use crate::browser;
use crate::chart::{self, ChartCanvas, Ink, Layer, Plot};
use crate::panels::upload::{file_text, upload_button};
use crate::panels::{Caption, ChartBlock};
use crate::store::{Arrivals, Store};
use crate::worker::{self, WorkerRun};

#[derive(Clone, PartialEq)]
enum Status {
    Empty,
    Reading(f64),
    Done,
    Failed(String),
}

/// What a single replay depends on: the Queue's parameters but the
/// replications, and the seed.
#[derive(Clone, PartialEq)]
struct ReplayedFor {
    params: QueueParams,
    seed: u64,
}

impl ReplayedFor {
    fn now(store: Store) -> Self {
        store.state.with(|state| Self {
            params: QueueParams {
                replications: 0,
                ..state.queue.clone()
            },
            seed: state.seed,
        })
    }
}

/// A replay's result and the parameters it was computed for.
#[derive(Clone)]
struct Replayed {
    run: Arc<ArrivalsRun>,
    computed_for: ReplayedFor,
}

const TRACE_IDS: StatusIds = StatusIds {
    replicate: "arrivals-replicate",
    progress: "arrivals-replication-progress",
    cancel: "arrivals-replication-cancel",
    restart: "arrivals-replication-restart",
};

/// The arrivals kept on the page, the replay under way and its result.
#[derive(Clone, Copy)]
pub struct Imported {
    /// Kept, as a file's text arrives outside any reactive owner.
    store: Store,
    /// The arrivals last taken, which every replay and replication reads.
    text: RwSignal<Option<Arc<String>>>,
    /// What the box says about the text held: a pasted text or a file.
    source: RwSignal<String>,
    status: RwSignal<Status>,
    parse_ms: RwSignal<Option<f64>>,
    shown: RwSignal<Option<Replayed>>,
    /// Whether replications resample the arrivals by the hour.
    resample: RwSignal<bool>,
    replicator: Replicator,
    worker: StoredValue<Option<WorkerRun>, LocalStorage>,
    ticket: StoredValue<u64>,
}

impl Imported {
    fn new() -> Self {
        Self {
            store: Store::get(),
            text: RwSignal::new(None),
            source: RwSignal::new(String::new()),
            status: RwSignal::new(Status::Empty),
            parse_ms: RwSignal::new(None),
            shown: RwSignal::new(None),
            resample: RwSignal::new(false),
            replicator: Replicator::new(),
            worker: StoredValue::new_local(None),
            ticket: StoredValue::new(0),
        }
    }

    /// Keeps `text` as the arrivals; the effects in [`view`] replay and
    /// replicate them.
    fn take(self, text: String, source: String) {
        self.source.set(source);
        self.text.set(Some(Arc::new(text)));
    }

    /// Replays the arrivals held under the Queue's parameters now.
    fn replay(self) {
        let Some(text) = self.text.get_untracked() else {
            return;
        };
        self.ticket.update_value(|ticket| *ticket += 1);
        if let Some(run) = self.worker.try_update_value(Option::take).flatten() {
            run.cancel();
        }
        let ticket = self.ticket.get_value();
        let current = move || self.ticket.try_get_value() == Some(ticket);
        let computed_for = untrack(|| ReplayedFor::now(self.store));
        let query = State {
            seed: computed_for.seed,
            queue: computed_for.params.clone(),
            ..State::new(Panel::Queue)
        }
        .to_query();
        self.status.set(Status::Reading(0.0));
        self.parse_ms.set(None);
        let started = worker::start_arrivals(
            query,
            text.as_str().to_owned(),
            move |share| {
                if current() {
                    self.status.set(Status::Reading(share));
                }
            },
            move |ms| {
                if current() {
                    self.parse_ms.set(Some(ms));
                }
            },
            move |result| {
                if !current() {
                    return;
                }
                match result {
                    Ok(run) => {
                        self.shown.set(Some(Replayed {
                            run: Arc::new(run),
                            computed_for,
                        }));
                        self.status.set(Status::Done);
                    }
                    Err(why) => {
                        self.shown.set(None);
                        self.status.set(Status::Failed(why));
                    }
                }
            },
        );
        match started {
            Ok(run) => self.worker.set_value(Some(run)),
            Err(why) => self.status.set(Status::Failed(why)),
        }
    }
}

/// The import box and, once replayed, the description and the lanes.
pub fn view() -> impl IntoView {
    let imported = Imported::new();
    let store = imported.store;
    // Arrivals handed over through the store become the panel's own.
    if let Some(Arrivals { text, source }) =
        store.arrivals_for_queue.try_update(Option::take).flatten()
    {
        imported.take(text, source);
    }
    let replayed_for = Memo::new(move |_| ReplayedFor::now(store));
    Effect::new(move |_| {
        // Read, not only tracked: a memo nobody has read has not computed,
        // so it has no sources to hear a change from.
        replayed_for.with(|_| ());
        imported.text.track();
        imported.replay();
    });
    let replications = Memo::new(move |_| store.state.with(|s| (s.queue.clone(), s.seed)));
    Effect::new(move |_| {
        let (params, seed) = replications.get();
        let trace = imported.text.get().map(|text| TraceRequest {
            text,
            resample: imported.resample.get(),
        });
        if let Some(trace) = trace {
            imported.replicator.start(params, seed, Some(trace));
        }
    });
    let hours = ChartCanvas::new(220.0);
    let depth = ChartCanvas::new(260.0);
    chart::redraw_on_change("imported", move || {
        imported.shown.with(|shown| {
            if let Some(shown) = shown {
                hours.draw(|area, pen| hour_plot(&shown.run).draw(area, pen));
                depth.draw(|area, pen| depth_plot(&shown.run.run, 1.0).draw(area, pen));
            }
        });
    });
    // Through the memo of the parameters, not the store itself: moving to
    // another panel changes the store, and these views, disposed by then,
    // must not hear of it.
    let is_current = Memo::new(move |_| {
        let now = replayed_for.get();
        imported.shown.with(|shown| {
            shown
                .as_ref()
                .is_some_and(|shown| shown.computed_for == now)
        })
    });
    let is_current = move || is_current.get();
    view! {
        <ChartBlock figure=queue::IMPORTED png=false>
            <Caption slot>
                "Paste job arrivals, one timestamp a line (RFC 3339, or epoch seconds or
                milliseconds), or CSV with a header naming a timestamp column and, if you have
                them, duration, account and kind. They are read in the background and stay on this
                page: the link does not carry them."
            </Caption>
            <div id="imported" class="imported">
                {input(imported)}
                {status(imported)}
                <Show when=move || imported.shown.with(Option::is_some) && !is_current()>
                    <p class="imported-stale" role="status">
                        "Replaying under the changed parameters: the figures below are still the \
                         previous parameters', and are replaced when the new ones are back."
                    </p>
                </Show>
                <div
                    class="imported-results"
                    class:stale=move || !is_current()
                    data-current=move || is_current().to_string()
                    aria-busy=move || (!is_current()).to_string()
                >
                    {move || imported.shown.get().map(|shown| results(shown.run, hours, depth))}
                </div>
                {move || imported.text.with(Option::is_some).then(|| replicated(imported))}
            </div>
        </ChartBlock>
    }
}

/// The imported lanes over R runs: the resampling choice, the status line
/// and the figures.
fn replicated(imported: Imported) -> impl IntoView {
    let shown = imported.replicator.shown;
    view! {
        <section class="imported-replication" aria-label="Replications of your arrivals">
            <label class="imported-resample">
                <input
                    type="checkbox"
                    id="arrivals-resample"
                    prop:checked=move || imported.resample.get()
                    on:change=move |ev| imported.resample.set(event_target_checked(&ev))
                />
                " In each run, also resample the arrivals by whole hours: each hour replaced by \
                 itself or a neighbour, drawn at random (a block bootstrap)"
            </label>
            <ReplicationStatus replicator=imported.replicator ids=TRACE_IDS />
            {move || shown.get().map(|shown| view! { <Figures shown whose="Your arrivals' lanes" only="p95_wait_s" /> })}
        </section>
    }
}

fn input(imported: Imported) -> impl IntoView {
    let pasted = RwSignal::new(String::new());
    let replay_label = move || {
        if !pasted.with(String::is_empty) {
            "Replay these arrivals".to_string()
        } else if imported.text.with(Option::is_some) {
            format!("Replay {} again", imported.source.get())
        } else {
            "Replay these arrivals".to_string()
        }
    };
    view! {
            <textarea
                id="arrivals-text"
                class="fleet-text"
                rows="6"
                spellcheck="false"
                aria-label="Job arrivals: one timestamp a line, or CSV with a timestamp column"
                placeholder="2026-01-01T00:00:00Z\n2026-01-01T00:00:01.250Z\n…  or  timestamp,duration,account\n…"
                prop:value=move || pasted.get()
                on:input=move |ev| pasted.set(event_target_value(&ev))
            ></textarea>
            <div class="fleet-input-actions">
                <button
                    type="button"
                    id="arrivals-replay"
                    disabled=move || pasted.with(String::is_empty) && imported.text.with(Option::is_none)
                    on:click=move |_| {
                        let text = pasted.get_untracked();
                        if text.is_empty() {
                            // An empty box replays what was taken last, a
                            // file's arrivals or an earlier paste.
                            imported.replay();
                        } else {
                            imported.take(text, "the pasted text".into());
                        }
                    }
                >
                    {replay_label}
                </button>
    {upload_button(
                    "arrivals-file",
                    ".csv,.txt,.log,text/*",
                    false,
                    move |files| {
                        if let Some(file) = files.into_iter().next() {
                            read_file(imported, file);
                        }
                    },
                )}
                <button
                    type="button"
                    id="arrivals-download"
                    disabled=move || imported.source.with(String::is_empty)
                    on:click=move |_| {
                        if let Some(text) = imported.text.get_untracked() {
                            let _ = browser::download_text("arrivals.csv", "text/csv", &text);
                        }
                    }
                >
                    "Download arrivals"
                </button>
            </div>
            <p class="imported-note">
                {move || {
                    let source = imported.source.get();
                    if source.is_empty() {
                        "Nothing imported yet.".to_string()
                    } else {
                        format!(
                            "Replaying {source}. The arrivals stay on this page and are not in the link: download them to keep them beside it."
                        )
                    }
                }}
            </p>
        }
}

/// Reads a chosen file's text and replays it, refusing one over the cap.
fn read_file(imported: Imported, file: web_sys::File) {
    let name = file.name();
    if file.size() > MAX_BYTES as f64 {
        return imported.status.set(Status::Failed(format!(
            "{name} is over the {} MB an import may have.",
            MAX_BYTES >> 20
        )));
    }
    spawn_local(async move {
        match file_text(&file).await {
            Some(text) => imported.take(text, name),
            None => imported
                .status
                .set(Status::Failed(format!("{name} could not be read."))),
        }
    });
}

/// Progress, a failure, or how long reading took; `data-status` says which.
fn status(imported: Imported) -> impl IntoView {
    let name = move || match imported.status.get() {
        Status::Empty => "empty",
        Status::Reading(_) => "running",
        Status::Done => "done",
        Status::Failed(_) => "failed",
    };
    let text = move || match imported.status.get() {
        Status::Empty | Status::Done => String::new(),
        Status::Reading(share) => format!("Replaying in the background: {:.0} %", share * 100.0),
        Status::Failed(why) => why,
    };
    let parse_ms = move || imported.parse_ms.get().map(|ms| format!("{ms:.0}"));
    let read_in = move || {
        imported.parse_ms.get().map(|ms| {
            format!(
                "Read and described in {} in the worker. ",
                duration((ms / 1000.0).max(0.001))
            )
        })
    };
    view! {
        <p id="arrivals-status" data-status=name data-parse-ms=parse_ms aria-live="polite">
            {read_in}
            <span role="alert">{text}</span>
        </p>
    }
}

fn results(shown: Arc<ArrivalsRun>, hours: ChartCanvas, depth: ChartCanvas) -> impl IntoView {
    let report = &shown.arrivals;
    let d = &report.description;
    let at = arrivals::format_instant;
    let figure = |key: &'static str, label: &'static str, value: String, raw: String| {
        view! {
            <tr>
                <th scope="row">{label}</th>
                <td data-arrivals=key data-value=raw>{value}</td>
            </tr>
        }
    };
    let optional = |x: Option<f64>| x.map_or_else(|| "–".to_string(), |x| significant(x, 3));
    let raw = |x: Option<f64>| x.map_or_else(String::new, |x| x.to_string());
    let span_s = (d.last_us - d.first_us) as f64 / 1e6;
    let diagnosis = &report.diagnosis;
    let fano_widths = diagnosis
        .dispersion_by_width
        .iter()
        .map(|at| format!("{}: {}", duration(at.width_s), significant(at.fano, 3)))
        .collect::<Vec<_>>()
        .join(", ");
    let verdict = diagnosis.sentences.first().cloned().unwrap_or_default();
    let findings = diagnosis.sentences.get(1..).unwrap_or_default().join(" ");
    let hour_label = {
        let busiest_hour = (0..24).max_by_key(|&h| d.per_hour_of_day[h]).unwrap_or(0);
        format!(
            "Arrivals per hour of the day, UTC; the most, {}, in hour {busiest_hour}.",
            count(d.per_hour_of_day[busiest_hour])
        )
    };
    let lanes = shown.run.lanes.clone();
    view! {
        <p class="imported-reading">{report.reading.clone()}</p>
        {super::refused::view(Arc::clone(&shown))}
        <table class="figures imported-figures">
            <tbody>
                {figure("arrivals", "Arrivals", count(d.arrivals), d.arrivals.to_string())}
                {figure("accounts", "Accounts", count(u64::from(report.accounts)), report.accounts.to_string())}
                {figure("span", "From first to last", format!("{} ({} to {})", duration(span_s), at(d.first_us), at(d.last_us)), span_s.to_string())}
                {figure("busiest-second", "Busiest second", format!("{} at {}", count(d.busiest_second.arrivals), at(d.busiest_second.start_us)), d.busiest_second.arrivals.to_string())}
                {figure("busiest-minute", "Busiest minute", format!("{} at {}", count(d.busiest_minute.arrivals), at(d.busiest_minute.start_us)), d.busiest_minute.arrivals.to_string())}
                {figure("gap-cv", "Gaps' coefficient of variation (1 for Poisson)", optional(d.gap_cv), raw(d.gap_cv))}
                {figure("fano-minute", "Fano factor of counts per minute (1 for Poisson)", optional(d.fano_per_minute), raw(d.fano_per_minute))}
                {figure("fano-widths", "Fano factor by bin width, around the local rate (1 for Poisson)", fano_widths, String::new())}
            </tbody>
        </table>
        <p class="imported-poisson" data-arrivals="poisson">{verdict}</p>
        <p class="imported-scaling" data-arrivals="findings">{findings}</p>
        {hours.view("imported-hours", move || hour_label.clone())}
        <p class="imported-rule">{report.replay.clone()}</p>
        {depth.view("imported-depth", || "The most jobs waiting in each bin, the imported lane beside the spread ones.".to_string())}
        {lanes_table(lanes)}
    }
}

/// Each lane's figures, the imported one first, with the jobs never
/// started where any lane has some.
fn lanes_table(lanes: Vec<Lane>) -> impl IntoView {
    let censored = lanes.iter().any(|lane| lane.run.summary.never_started > 0);
    view! {
        <div class="table-scroll" tabindex="0" role="region" aria-label="Replayed lanes">
            <table class="figures imported-lanes">
                <thead>
                    <tr>
                        <th scope="col">"Lane"</th>
                        <th scope="col">"Jobs enqueued"</th>
                        {censored.then(|| view! { <th scope="col">"Never started"</th> })}
                        <th scope="col">"p50 wait"</th>
                        <th scope="col">"p95 wait"</th>
                        <th scope="col">"p99 wait"</th>
                        <th scope="col">"Most waiting"</th>
                        <th scope="col">"Utilization"</th>
                    </tr>
                </thead>
                <tbody>
                    {lanes
                        .into_iter()
                        .map(|lane| {
                            let s = &lane.run.summary;
                            let cell = |key: &'static str, text: String, raw: String| {
                                view! { <td data-replay=key data-value=raw>{text}</td> }
                            };
                            view! {
                                <tr data-replay-lane=lane.name.slug.clone()>
                                    <th scope="row">{lane.name.label.clone()}</th>
                                    {cell("jobs_enqueued", count(s.jobs_enqueued), s.jobs_enqueued.to_string())}
                                    {censored.then(|| cell("never_started", count(s.never_started), s.never_started.to_string()))}
                                    {cell("p50_wait_s", wait_percentile(&lane.run, s.p50_wait_s, 0.5), s.p50_wait_s.to_string())}
                                    {cell("p95_wait_s", wait_percentile(&lane.run, s.p95_wait_s, 0.95), s.p95_wait_s.to_string())}
                                    {cell("p99_wait_s", wait_percentile(&lane.run, s.p99_wait_s, 0.99), s.p99_wait_s.to_string())}
                                    {cell("max_queue_depth", count(s.max_queue_depth), s.max_queue_depth.to_string())}
                                    {cell("utilization", percent(s.utilization), s.utilization.to_string())}
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
        </div>
    }
}

/// Arrivals in each hour of the day, UTC.
fn hour_plot(shown: &ArrivalsRun) -> Plot {
    let per_hour = &shown.arrivals.description.per_hour_of_day;
    let most = per_hour.iter().copied().max().unwrap_or(0);
    Plot {
        x: 0.0..24.0,
        y: 0.0..(most as f64 * 1.1).max(1.0),
        x_desc: "hour of the day, UTC".into(),
        y_desc: "arrivals".into(),
        x_tick: chart::number_tick,
        y_tick: chart::number_tick,
        layers: vec![Layer::Bars {
            start: 0.0,
            width: 1.0,
            heights: per_hour.iter().map(|&n| n as f64).collect(),
            ink: Ink::Series(0),
            label: None,
        }],
    }
}
