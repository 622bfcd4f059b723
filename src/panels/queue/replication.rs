//! Replications on the page: with `repl` = R in the URL, every lane runs
//! again under R seeds in Web Workers, one per core the browser offers
//! (less the page's own), each running a range of the seeds, with progress
//! and a cancel button. The result, the same however many workers ran it,
//! shows each figure's mean with its interval, the lanes' differences in
//! words and the queue's depth as a band across the seeds. Core computes
//! and words all of it; this module wires and draws.

use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use stampede_core::panels::Panel;
use stampede_core::panels::queue::PERCENTILE_METHOD;
use stampede_core::panels::queue_replication::{Replicated, ReplicationPart, split_runs};
use stampede_core::panels::state::State;
use stampede_core::queue::QueueParams;
use stampede_core::replication::DEFAULT_REPLICATIONS;
use stampede_core::units::count;
use wasm_bindgen::JsValue;

use super::background::{self, Background};
use crate::chart::{self, ChartCanvas, Ink, Layer, Plot};
use crate::panels::{Caption, ChartBlock, Showing};
use crate::store::Store;
use crate::worker;

#[derive(Clone, PartialEq)]
enum Status {
    Off,
    /// On the worker, with the share done.
    Running(f64),
    Done,
    Cancelled,
    Failed(String),
}

/// The replications of the URL's parameters, run in workers; a newer
/// request cancels the one under way, and only the newest reports.
#[derive(Clone, Copy)]
struct Replicator {
    shown: RwSignal<Option<Arc<Replicated>>>,
    status: RwSignal<Status>,
    background: Background,
}

impl Replicator {
    fn new() -> Self {
        Self {
            shown: RwSignal::new(None),
            status: RwSignal::new(Status::Off),
            background: Background::new(),
        }
    }

    /// Splits the runs over the workers, each running a contiguous range
    /// of the seeds; their parts merge in seed order once all are done.
    fn start(self, params: QueueParams, seed: u64) {
        let current = self.background.next();
        if params.replications == 0 {
            self.shown.set(None);
            return self.status.set(Status::Off);
        }
        self.status.set(Status::Running(0.0));
        let ranges = split_runs(params.replications, workers());
        let runs = f64::from(params.replications);
        let query = State {
            seed,
            queue: params.clone(),
            ..State::new(Panel::Queue)
        }
        .to_query();
        // Per worker, the runs done and the part once it is back.
        let done = Rc::new(RefCell::new(vec![0.0; ranges.len()]));
        let parts = Rc::new(RefCell::new(vec![None; ranges.len()]));
        for (index, range) in ranges.into_iter().enumerate() {
            let size = f64::from(range.end - range.start);
            let on_progress = {
                let done = Rc::clone(&done);
                move |share: f64| {
                    if current() {
                        done.borrow_mut()[index] = share * size;
                        self.status
                            .set(Status::Running(done.borrow().iter().sum::<f64>() / runs));
                    }
                }
            };
            let on_done = {
                let (params, parts) = (params.clone(), Rc::clone(&parts));
                move |result: Result<ReplicationPart, String>| {
                    if !current() {
                        return;
                    }
                    match result {
                        Ok(part) => {
                            let all: Option<Vec<_>> = {
                                let mut parts = parts.borrow_mut();
                                parts[index] = Some(part);
                                let all_back = parts.iter().all(Option::is_some);
                                all_back
                                    .then(|| parts.iter_mut().filter_map(Option::take).collect())
                            };
                            if let Some(all) = all {
                                self.show(&params, all);
                            }
                        }
                        Err(why) => self.fail(why),
                    }
                }
            };
            match worker::start(part_request(&query, &range), on_progress, on_done) {
                Ok(run) => self.background.hold(run),
                Err(why) => return self.fail(why),
            }
        }
    }

    /// Merges every worker's part, in seed order, and shows the result.
    fn show(self, params: &QueueParams, parts: Vec<ReplicationPart>) {
        match Replicated::merge(params, parts) {
            Ok(replicated) => {
                self.shown.set(Some(Arc::new(replicated)));
                self.status.set(Status::Done);
            }
            Err(invalid) => self.status.set(Status::Failed(invalid.to_string())),
        }
    }

    /// One worker failed: the others' work is of no use without its part.
    fn fail(self, why: String) {
        self.background.cancel();
        self.status.set(Status::Failed(why));
    }

    fn cancel(self) {
        self.background.cancel();
    }
}

/// `{replicate: query, from, to}`: the runs `runs` of the replications of
/// `query`, for one worker.
fn part_request(query: &str, runs: &Range<u32>) -> JsValue {
    let request = js_sys::Object::new();
    for (key, value) in [
        ("replicate", JsValue::from(query)),
        ("from", runs.start.into()),
        ("to", runs.end.into()),
    ] {
        // Setting a key on a fresh plain object cannot fail.
        let _ = js_sys::Reflect::set(&request, &key.into(), &value);
    }
    request.into()
}

/// The workers to run replications on: one per core the browser offers,
/// less the one the page runs on, and at least one.
fn workers() -> u32 {
    let cores = web_sys::window().map_or(1.0, |window| window.navigator().hardware_concurrency());
    (cores as u32).saturating_sub(1).max(1)
}

#[component]
pub fn ReplicationView() -> impl IntoView {
    let store = Store::get();
    let params = Memo::new(move |_| store.state.with(|s| s.queue.clone()));
    let seed = Memo::new(move |_| store.state.with(|s| s.seed));
    let replicator = Replicator::new();
    Effect::new(move |_| replicator.start(params.get(), seed.get()));
    let shown = replicator.shown;

    let band = ChartCanvas::new(300.0);
    chart::redraw_on_change("figure", move || {
        shown.with(|shown| {
            if let Some(shown) = shown {
                band.draw(|area, pen| band_plot(shown).draw(area, pen));
            }
        });
    });
    let band_label =
        move || shown.with(|shown| shown.as_deref().map(band_text).unwrap_or_default());
    view! {
        <section class="queue-replication" aria-label="Replications">
            <ReplicationStatus replicator params seed />
            {move || shown.with(|shown| shown.clone().map(|shown| view! { <Figures shown /> }))}
            <Show when=move || shown.with(Option::is_some)>
                <ChartBlock figure="depth-band">
                    <Caption slot>
                        "The most jobs waiting in each bin across the seeds: the median line over \
                         the band from the 10th to the 90th percentile, one per lane."
                    </Caption>
                    {band.view("queue-depth-band", band_label)}
                </ChartBlock>
            </Show>
        </section>
    }
}

/// The button that starts replications, their progress and cancel, or
/// what went wrong. `data-replication-status` says which, for tests.
#[component]
fn ReplicationStatus(
    replicator: Replicator,
    params: Memo<QueueParams>,
    seed: Memo<u64>,
) -> impl IntoView {
    let store = Store::get();
    let status = replicator.status;
    let state_name = move || match status.get() {
        Status::Off => "off",
        Status::Running(_) => "running",
        Status::Done => "done",
        Status::Cancelled => "cancelled",
        Status::Failed(_) => "failed",
    };
    let replicate = move |_| {
        let runs = params.with_untracked(|p| p.replications);
        let runs = if runs == 0 {
            DEFAULT_REPLICATIONS
        } else {
            runs
        };
        store.set(QueueParams::REPLICATIONS.key, &runs.to_string());
    };
    let body = move || {
        match status.get() {
        Status::Off => view! {
            <button type="button" id="queue-replicate" on:click=replicate>
                {format!("Replicate ×{DEFAULT_REPLICATIONS}")}
            </button>
            " One seed is one sample: run every lane under more seeds for the figures' 95 % intervals."
        }
        .into_any(),
        Status::Running(share) => background::progress(
            ["queue-replication-progress", "queue-replication-cancel"],
            "Replicating in the background ",
            share,
            move || {
                replicator.cancel();
                status.set(Status::Cancelled);
            },
        )
        .into_any(),
        Status::Done => ().into_any(),
        Status::Cancelled => view! {
            "Replications cancelled. "
            <button
                type="button"
                id="queue-replication-restart"
                on:click=move |_| replicator.start(params.get_untracked(), seed.get_untracked())
            >
                "Replicate again"
            </button>
        }
        .into_any(),
        Status::Failed(why) => view! {
            <span role="alert">{format!("The replications failed: {why}")}</span>
        }
        .into_any(),
    }
    };
    view! {
        <div class="queue-status" data-replication-status=state_name aria-live="polite">
            {body}
        </div>
    }
}

/// Every figure as an interval per lane, and the lanes compared in words.
#[component]
fn Figures(shown: Arc<Replicated>) -> impl IntoView {
    let method = format!(
        "Each figure is the mean over {} runs, each under its own seed drawn from the page's seed, \
         with its 95 % confidence interval (Student's t). Percentiles are {PERCENTILE_METHOD} over \
         each run's waits; the sample size is under each.",
        shown.runs
    );
    let header = shown
        .lanes
        .iter()
        .enumerate()
        .map(|(i, lane)| {
            view! { <th scope="col" class=format!("lane-{}", i + 1)>{lane.label.clone()}</th> }
        })
        .collect_view();
    let rows = shown
        .rows
        .iter()
        .map(|row| {
            let cells = row
                .values
                .iter()
                .zip(&shown.lanes)
                .map(|(value, lane)| {
                    view! {
                        <td data-lane=lane.slug.clone() data-replicated=row.key.clone()>
                            {value.text.clone()}
                            {value.note.clone().map(|note| view! { <small>{note}</small> })}
                        </td>
                    }
                })
                .collect_view();
            view! {
                <tr>
                    <th scope="row" title=row.formula.clone()>{row.label.clone()}</th>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    let showing = Showing::get();
    let differences = shown
        .differences
        .iter()
        .filter(|difference| showing.number(&difference.key))
        .map(|difference| {
            view! {
                <li data-difference=difference.key.clone() data-spans-zero=difference.interval.spans_zero().to_string()>
                    {difference.text.clone()}
                </li>
            }
        })
        .collect_view();
    // A Learn step states the differences it speaks of, not the table.
    let table = showing.tools().then(|| {
        view! {
            <p class="explain" id="queue-replication-method">{method}</p>
            <div class="table-scroll" tabindex="0" role="region" aria-label="Replicated figures per lane">
                <table class="figures queue-summary queue-replicated">
                    <thead>
                        <tr>
                            <th scope="col">{format!("Over {} runs", shown.runs)}</th>
                            {header}
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        }
    });
    view! {
        {table}
        <ul class="queue-differences">{differences}</ul>
    }
}

/// Per lane, the band from p10 to p90 of the depth across runs, then the
/// median lines on top.
fn band_plot(shown: &Replicated) -> Plot {
    let bin = f64::from(shown.bin_seconds);
    let x = |k: usize| k as f64 * bin;
    let bins = shown
        .depth
        .iter()
        .map(|band| band.p50.len())
        .max()
        .unwrap_or(0);
    let top = shown
        .depth
        .iter()
        .flat_map(|band| band.p90.iter())
        .copied()
        .fold(1.0, f64::max);
    let bands = shown.depth.iter().enumerate().map(|(i, band)| Layer::Band {
        points: (0..band.p10.len())
            .map(|k| (x(k), band.p10[k], band.p90[k]))
            .collect(),
        ink: Ink::Series(i),
        label: None,
    });
    let medians = shown
        .depth
        .iter()
        .zip(&shown.lanes)
        .enumerate()
        .map(|(i, (band, lane))| Layer::Line {
            points: band
                .p50
                .iter()
                .enumerate()
                .map(|(k, &d)| (x(k), d))
                .collect(),
            ink: Ink::Series(i),
            dashed: false,
            label: Some(format!("{}, median and 10th–90th percentile", lane.label)),
        });
    Plot {
        x: 0.0..(bins as f64 * bin).max(1.0),
        y: 0.0..top * 1.1,
        x_desc: "simulated time".into(),
        y_desc: "jobs waiting".into(),
        x_tick: chart::duration_tick,
        y_tick: chart::number_tick,
        layers: bands.chain(medians).collect(),
    }
}

/// The chart's text alternative: each lane's widest band and where.
fn band_text(shown: &Replicated) -> String {
    let lanes: Vec<String> = shown
        .depth
        .iter()
        .zip(&shown.lanes)
        .map(|(band, lane)| {
            let deepest = band.p50.iter().copied().fold(0.0, f64::max);
            let top = band.p90.iter().copied().fold(0.0, f64::max);
            format!(
                "{}: median of the most jobs waiting peaks at {}, 90th percentile at {}",
                lane.label,
                count(deepest.round() as u64),
                count(top.round() as u64)
            )
        })
        .collect();
    format!("Over {} runs. {}", shown.runs, lanes.join("; "))
}
