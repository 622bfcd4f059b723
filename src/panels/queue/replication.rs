//! Replications on the page: with `repl` = R in the URL, every lane runs
//! again under R seeds in Web Workers, one per core the browser offers
//! (less the page's own), each running a range of the seeds, with progress
//! and a cancel button. The lanes are the panel's own, or those of the
//! reader's imported arrivals (`imported`), which run the same way with
//! the trace sent along. The result, the same however many workers ran it,
//! says what changed between runs and what ± means, then shows each
//! figure's mean with its interval and bad day, the lanes' differences in
//! words and the queue's depth as a band across the seeds. Core computes
//! and words all of it; this module wires and draws.

use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use stampede_core::panels::Panel;
use stampede_core::panels::State;
use stampede_core::panels::queue;
use stampede_core::panels::queue_replication::{Replicated, ReplicationPart, split_runs};
use stampede_core::queue::QueueParams;
use stampede_core::replication::DEFAULT_REPLICATIONS;
use stampede_core::units::count;

use super::background::{self, Background};
use crate::chart::{self, ChartCanvas, Ink, Layer, Plot};
use crate::panels::{Caption, ChartBlock, Showing};
use crate::step_shown::StepShown;
use crate::store::Store;
use crate::worker;

#[derive(Clone, PartialEq)]
enum Status {
    Off,
    /// On the workers ([`Background::share`] says how far).
    Running,
    Done,
    Cancelled,
    Failed(String),
}

/// The reader's arrivals, whose replay the replications run instead of
/// the panel's lanes.
#[derive(Clone, PartialEq)]
pub struct TraceRequest {
    pub text: Arc<String>,
    /// Whether each run resamples the arrivals by the hour.
    pub resample: bool,
}

/// What replications run: the parameters, the seed and the trace, if any.
type Request = (QueueParams, u64, Option<TraceRequest>);

/// The replications of the URL's parameters, run in workers; a newer
/// request cancels the one under way, and only the newest reports.
#[derive(Clone, Copy)]
pub struct Replicator {
    pub shown: RwSignal<Option<Arc<Replicated>>>,
    status: RwSignal<Status>,
    /// The workers the latest replications run on.
    workers: RwSignal<usize>,
    background: Background,
    /// The last request, for "Replicate again".
    last: StoredValue<Option<Request>>,
}

impl Replicator {
    pub fn new() -> Self {
        Self {
            shown: RwSignal::new(None),
            status: RwSignal::new(Status::Off),
            workers: RwSignal::new(0),
            background: Background::new(),
            last: StoredValue::new(None),
        }
    }

    /// Splits the runs over the workers, each running a contiguous range
    /// of the seeds; their parts merge in seed order once all are done.
    /// Clears the result shown, so that one for other parameters is never
    /// left beside them.
    pub fn start(self, params: QueueParams, seed: u64, trace: Option<TraceRequest>) {
        let current = self.background.next();
        self.shown.set(None);
        self.last
            .set_value(Some((params.clone(), seed, trace.clone())));
        if params.replications == 0 {
            return self.status.set(Status::Off);
        }
        self.status.set(Status::Running);
        let ranges = split_runs(params.replications, workers());
        self.workers.set(ranges.len());
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
                        let share = done.borrow().iter().sum::<f64>() / runs;
                        self.background.share.set(share);
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
            let request = part_request(&query, &range, trace.as_ref());
            match worker::start(request, on_progress, on_done) {
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

    /// Runs the last request again.
    fn restart(self) {
        if let Some((params, seed, trace)) = self.last.get_value() {
            self.start(params, seed, trace);
        }
    }
}

/// The request of the runs `runs` of the replications of `query`, for one
/// worker, replaying `trace` when there is one.
fn part_request(query: &str, runs: &Range<u32>, trace: Option<&TraceRequest>) -> worker::Request {
    worker::Request::Replicate {
        query: query.to_string(),
        runs: runs.clone(),
        trace: trace.map(|trace| worker::Trace {
            text: trace.text.to_string(),
            resample: trace.resample,
        }),
    }
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
    Effect::new(move |_| replicator.start(params.get(), seed.get(), None));
    let shown = replicator.shown;
    if let Some(step) = StepShown::get() {
        step.follow_replicated(shown);
    }

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
        <section class="queue-replication" aria-label="Replications of the panel's lanes">
            <ReplicationStatus replicator ids=PANEL_IDS />
            {move || shown.with(|shown| shown.clone().map(|shown| view! { <Figures shown whose="The panel's lanes" /> }))}
            <Show when=move || shown.with(Option::is_some)>
                <ChartBlock figure=queue::DEPTH_BAND>
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

/// The ids of one replication status line's controls.
#[derive(Clone, Copy)]
pub struct StatusIds {
    pub replicate: &'static str,
    pub progress: &'static str,
    pub cancel: &'static str,
    pub restart: &'static str,
}

const PANEL_IDS: StatusIds = StatusIds {
    replicate: "queue-replicate",
    progress: "queue-replication-progress",
    cancel: "queue-replication-cancel",
    restart: "queue-replication-restart",
};

/// The button that starts replications (by setting `repl` in the URL),
/// their progress and cancel, or what went wrong.
/// `data-replication-status` says which, and `data-replication-workers`
/// on how many workers the latest ran, for tests.
#[component]
pub fn ReplicationStatus(replicator: Replicator, ids: StatusIds) -> impl IntoView {
    let store = Store::get();
    let status = replicator.status;
    let state_name = move || match status.get() {
        Status::Off => "off",
        Status::Running => "running",
        Status::Done => "done",
        Status::Cancelled => "cancelled",
        Status::Failed(_) => "failed",
    };
    let replicate = move |_| {
        let runs = store.state.with_untracked(|s| s.queue.replications);
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
            <button type="button" id=ids.replicate on:click=replicate>
                {format!("Replicate ×{DEFAULT_REPLICATIONS}")}
            </button>
            " One seed is one sample: run every lane under more seeds for the figures' 95 % intervals."
        }
        .into_any(),
        Status::Running => background::progress(
            [ids.progress, ids.cancel],
            "Replicating in the background ",
            replicator.background,
            move || {
                replicator.cancel();
                status.set(Status::Cancelled);
            },
        )
        .into_any(),
        Status::Done => ().into_any(),
        Status::Cancelled => view! {
            "Replications cancelled. "
            <button type="button" id=ids.restart on:click=move |_| replicator.restart()>
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
        <div
            class="queue-status"
            data-replication-status=state_name
            data-replication-workers=move || replicator.workers.get()
            aria-live="polite"
        >
            {body}
        </div>
    }
}

/// What changed between runs and what ± means, every figure as an
/// interval per lane with its bad day, and the lanes compared in words, on
/// every compared figure or `only` one; `whose` names the lanes in the
/// table's corner.
#[component]
pub fn Figures(
    shown: Arc<Replicated>,
    whose: &'static str,
    #[prop(optional)] only: Option<&'static str>,
) -> impl IntoView {
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
                    let bad_day = value.bad_day.as_ref().map(|bad_day| {
                        view! {
                            <small data-bad-day=bad_day.value.to_string()>
                                {format!("bad day: {}", bad_day.text)}
                            </small>
                        }
                    });
                    view! {
                        <td data-lane=lane.slug.clone() data-replicated=row.key.clone()>
                            {value.text.clone()}
                            {bad_day}
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
        .filter(|difference| only.is_none_or(|key| difference.key == key))
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
            <p class="explain replication-explained">{shown.explained.clone()}</p>
            <div class="table-scroll" tabindex="0" role="region" aria-label=format!("{whose}, replicated figures")>
                <table class="figures queue-summary queue-replicated">
                    <thead>
                        <tr>
                            <th scope="col">{format!("{whose}, over {} runs", shown.runs)}</th>
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
