//! Queue: a discrete-event simulation of workers under two to four
//! strategies at once, played back over the simulated time.
//!
//! A change of parameters or seed cancels the run under way and starts
//! another. Small runs finish within a frame on the main thread; bigger
//! ones go to a Web Worker with a progress bar and a cancel button, while
//! the last finished run stays on screen.

mod background;
mod imported;
mod refused;
mod replication;
mod scheduler;

use stampede_core::panels;
use std::sync::Arc;

use leptos::prelude::*;
use stampede_core::panels::PanelSpec;
use stampede_core::panels::State;
use stampede_core::panels::queue::QueuePanel;
use stampede_core::panels::queue::percentile_value;
use stampede_core::panels::{Figure, Panel};
use stampede_core::queue::{self, Lane, QueueParams, QueueRun};
use stampede_core::sim::SimRun;
use stampede_core::units::{count, duration};

use super::{
    Caption, ChartBlock, PanelUi, Showing, below_first_screen, key_numbers, ready_when_idle,
};
use crate::browser;
use crate::chart::{self, ChartCanvas, Ink, Layer, Plot};
use crate::playback::{PlaybackControls, Playhead};
use crate::store::Store;
use crate::worker;
use background::Background;

impl PanelUi for QueuePanel {
    fn explanation() -> impl IntoView + 'static {
        explanation()
    }

    fn figure() -> impl IntoView + 'static {
        figure()
    }
}

/// The most jobs, over all lanes, a run may enqueue and still run on the
/// main thread: about 30 ms of simulation in the browser, which keeps the
/// page from stalling over 50 ms, simulation and charts together.
const MAIN_THREAD_JOBS: u64 = 100_000;

/// Real seconds for one pass over the simulated time while playing.
const SPEEDS: &[(&str, f64)] = &[
    ("slow: the run in 40 s", 40.0),
    ("the run in 12 s", 12.0),
    ("fast: the run in 4 s", 4.0),
];

/// Height of the small multiples, whose strips share it, CSS pixels.
const STRIPS_HEIGHT: f64 = 380.0;

fn explanation() -> impl IntoView {
    view! {
        <p class="explain">
            "N accounts each need a sync job once per cycle C, and W workers take jobs from one
            queue, oldest first. The simulation jumps from event to event (a job falling due, a
            worker finishing, a batch opening), so a week of a hundred thousand accounts is
            about a million events, not six hundred thousand ticks of a second."
        </p>
        <p class="explain">
            "The strategies differ only in when jobs enter the queue. A cron herd enqueues every
            account at :00, so the queue jumps to N − W at once and drains at W / E[S] jobs a
            second: the last account waits about N·E[S] / W. Uniform jitter, Poisson arrivals and
            hash-spread offsets spread the same N over the cycle; slots enqueue one slot's accounts
            at a time, at their offsets, so ingress stays flat. Self-rescheduling jobs enqueue
            their own successor a cycle after they finish, and drift. Least-recently-synced batches
            take, every T minutes, the ⌈N·T / C⌉ accounts synced longest ago, so accounts whose
            syncs keep failing stay at the front."
        </p>
        <p class="explain">
            "With first attempts arriving at λ = N / C a second and each keeping a worker busy
            E[S] s on average, the workers are busy ρ = λ·E[S] / W of the time. Only Poisson
            arrivals make the textbook M/G/W queue; for them the Erlang C wait of an M/M/W queue
            at the same load is a fair guide. Everything else is bursty in its own way, which is
            what the charts show."
        </p>
        <p class="explain">
            "Options: a report job per account that takes the same per-account lock as the sync
            (with the sync, or half a cycle later, opposite on the donut); a downstream with a
            rate limit and an outage, whose refused calls fail after 1 s and retry with a backoff
            policy; and an autoscaler that adds a worker per target-many waiting jobs after a boot
            delay and removes idle ones only once fewer have sufficed for the scale-down delay."
        </p>
    }
}

/// A finished run and the parameters it came from.
#[derive(PartialEq)]
struct Shown {
    params: QueueParams,
    run: QueueRun,
}

#[derive(Clone, PartialEq)]
enum Status {
    /// On a worker ([`Background::share`] says how far).
    Running,
    Done,
    Cancelled,
    /// The parameters cannot run; a bug, as the store settles them.
    Failed(String),
    /// The worker would not load or crashed.
    WorkerFailed(String),
}

/// Starts runs and keeps the one under way, so that the next can cancel it.
#[derive(Clone, Copy)]
struct Runner {
    shown: RwSignal<Option<Arc<Shown>>>,
    status: RwSignal<Status>,
    background: Background,
    /// What the last run on the page keeps for the next to read.
    kept: StoredValue<queue::Kept, LocalStorage>,
}

impl Runner {
    fn new() -> Self {
        Self {
            shown: RwSignal::new(None),
            status: RwSignal::new(Status::Running),
            background: Background::new(),
            kept: StoredValue::new_local(queue::Kept::default()),
        }
    }

    fn start(self, params: QueueParams, seed: u64, on_main_thread: bool) {
        let current = self.background.next();
        let jobs = match queue::estimated_jobs(&params) {
            Ok(jobs) => jobs,
            Err(error) => return self.status.set(Status::Failed(error.to_string())),
        };
        if on_main_thread || jobs <= MAIN_THREAD_JOBS {
            let mut kept = self
                .kept
                .try_update_value(std::mem::take)
                .unwrap_or_default();
            let run = queue::run_reading(&params, seed, &mut kept).map_err(|e| e.to_string());
            self.kept.set_value(kept);
            return self.finish(params, run);
        }
        self.status.set(Status::Running);
        // The worker reads a query, as a link would carry this run.
        let query = State {
            seed,
            queue: params.clone(),
            ..State::new(Panel::Queue)
        }
        .to_query();
        let on_progress = move |share| {
            if current() {
                self.background.share.set(share);
            }
        };
        let on_done = move |result: Result<QueueRun, String>| {
            if !current() {
                return;
            }
            match result {
                Ok(run) => self.finish(params, Ok(run)),
                Err(why) => self.status.set(Status::WorkerFailed(why)),
            }
        };
        match worker::start(worker::Request::Run(query), on_progress, on_done) {
            Ok(run) => self.background.hold(run),
            Err(why) => self.status.set(Status::WorkerFailed(why)),
        }
    }

    fn finish(self, params: QueueParams, result: Result<QueueRun, String>) {
        match result {
            Ok(run) => {
                self.shown.set(Some(Arc::new(Shown { params, run })));
                self.status.set(Status::Done);
            }
            Err(why) => self.status.set(Status::Failed(why)),
        }
    }

    /// After each run shown, while the page is idle, readies its lanes
    /// for runs on other workers, a lane at a time.
    fn ready_ahead_when_idle(self, seed: Memo<u64>) {
        ready_when_idle(
            move || self.shown.track(),
            move || {
                seed.try_get_untracked()
                    .is_some_and(|seed| self.ready_ahead(seed))
            },
        );
    }

    /// Readies one more lane of the run shown for a run on other workers,
    /// if that run goes on the main thread ([`queue::Kept::ready_ahead`]);
    /// whether lanes remain.
    fn ready_ahead(self, seed: u64) -> bool {
        self.shown
            .try_with_untracked(|shown| {
                let params = &shown.as_ref()?.params;
                let on_main_thread = queue::estimated_jobs(params).ok()? <= MAIN_THREAD_JOBS;
                on_main_thread.then(|| {
                    self.kept
                        .try_update_value(|kept| kept.ready_ahead(params, seed).unwrap_or(false))
                })?
            })
            .flatten()
            .unwrap_or(false)
    }

    /// Stops the run under way, if any, and ignores what it still sends.
    fn cancel(self) {
        self.background.cancel();
    }
}

fn figure() -> impl IntoView {
    let state = Store::get().state;
    // The replications run on their own (`replication`): their count
    // leaves the single run as it is.
    let params = Memo::new(move |_| {
        state.with(|s| QueueParams {
            replications: 0,
            ..s.queue.clone()
        })
    });
    let seed = Memo::new(move |_| state.with(|s| s.seed));
    let runner = Runner::new();
    Effect::new(move |_| runner.start(params.get(), seed.get(), false));
    let shown = runner.shown;
    runner.ready_ahead_when_idle(seed);

    let playhead = Playhead::new(1.0, SPEEDS[1].1, false);
    let charts = LaneCanvases::new();
    chart::redraw_on_change("figure", move || {
        let at = playhead.at.get();
        shown.with(|shown| {
            if let Some(shown) = shown {
                charts.draw(shown, at);
            }
        });
    });
    let showing = Showing::get();
    if showing.tools() {
        load_worker_ahead(shown, seed);
    }
    // A page about the replications' band leaves out the single run's
    // status and clock; a Learn step leaves out the tools around the charts.
    let single_run = showing.tools() || !showing.figure(panels::queue::DEPTH_BAND);
    let replications = showing.tools() || showing.figure(panels::queue::DEPTH_BAND);
    view! {
        {single_run.then(|| view! { <RunStatus runner params seed /> })}
        {single_run.then(|| view! { <PlaybackControls
            id="queue"
            playhead
            speeds=SPEEDS
            step=("Step 1/24", 1.0 / 24.0)
            time_text=time_text(shown, playhead)
            scrub_label="Simulated time"
        /> })}
        <LaneChart
            figure=panels::queue::DEPTH
            canvas_id="queue-depth"
            caption="The most jobs waiting for a worker in each bin, one line per lane, up to the clock."
            canvas=charts.depth
            shown
            label=|s| describe_lanes(s, "the most jobs waiting at once", |r| count(r.summary.max_queue_depth))
        />
        {numbers(shown, params)}
        {below_first_screen(move || view! {
            {showing.tools().then(|| view! { <SummaryTable shown /> })}
            {replications.then(|| view! { <replication::ReplicationView /> })}
            <LaneChart
                figure=panels::queue::BUSY
                canvas_id="queue-busy"
                caption="Busy workers averaged over each bin, one strip per lane; the thin line is the workers ready."
                canvas=charts.busy
                shown
                label=|s| describe_lanes(s, "utilization", |r| percent(r.summary.utilization))
            />
            <LaneChart
                figure=panels::queue::INGRESS
                canvas_id="queue-ingress"
                caption="Jobs enqueued in each bin, one strip per lane, each on its own scale."
                canvas=charts.ingress
                shown
                label=|s| describe_lanes(s, "jobs enqueued", |r| count(r.summary.jobs_enqueued))
            />
            <LaneChart
                figure=panels::queue::WAITS
                canvas_id="queue-waits"
                caption="How long jobs waited from falling due to starting, over the whole run, or to its end for a job never started; each strip on its own scale."
                canvas=charts.waits
                shown
                label=|s| describe_lanes(s, "p95 wait", |r| percentile_value(&r.summary, r.summary.p95_wait_s))
            />
            <LaneChart
                figure=panels::queue::GAPS
                canvas_id="queue-gaps"
                caption="From one finished sync of an account to its next, over the whole run; a lane that keeps its cycle peaks at C."
                canvas=charts.gaps
                shown
                label=|s| describe_lanes(s, "longest time between syncs", |r| duration(r.summary.max_sync_interval_s))
            />
            <div class="queue-export">
                <button type="button" id="queue-csv" on:click=move |_| save_csv(shown)>
                    "Download the series (CSV)"
                </button>
            </div>
            {showing.tools().then(|| view! { <scheduler::EventSchedulerView /> })}
            {imported::view()}
        })}
    }
}

/// The run's charts: the queue's depth, then a strip per lane in each of
/// the small multiples.
#[derive(Clone, Copy)]
struct LaneCanvases {
    depth: ChartCanvas,
    busy: ChartCanvas,
    ingress: ChartCanvas,
    waits: ChartCanvas,
    gaps: ChartCanvas,
}

impl LaneCanvases {
    fn new() -> Self {
        Self {
            depth: ChartCanvas::new(300.0),
            busy: ChartCanvas::new(STRIPS_HEIGHT),
            ingress: ChartCanvas::new(STRIPS_HEIGHT),
            waits: ChartCanvas::new(STRIPS_HEIGHT),
            gaps: ChartCanvas::new(STRIPS_HEIGHT),
        }
    }

    /// Draws `shown` up to the clock at share `at` of the horizon.
    fn draw(self, shown: &Shown, at: f64) {
        let lanes = &shown.run.lanes;
        self.depth
            .draw(|area, pen| depth_plot(&shown.run, at).draw(area, pen));
        let frame = Frame {
            at,
            cycle_seconds: f64::from(shown.params.cycle_seconds()),
        };
        let strips = |plot: fn(&Lane, usize, Frame) -> Plot| -> Vec<Plot> {
            lanes
                .iter()
                .enumerate()
                .map(|(i, lane)| plot(lane, i, frame))
                .collect()
        };
        self.busy
            .draw(|area, pen| chart::draw_stacked(area, pen, &strips(busy_plot)));
        self.ingress
            .draw(|area, pen| chart::draw_stacked(area, pen, &strips(ingress_plot)));
        self.waits
            .draw(|area, pen| chart::draw_stacked(area, pen, &strips(wait_plot)));
        self.gaps
            .draw(|area, pen| chart::draw_stacked(area, pen, &strips(gap_plot)));
    }
}

/// Once a run is drawn and the page is idle, a worker loads for the next
/// run too long for the page, and draws the sync durations of the run
/// shown; it ends with the panel.
fn load_worker_ahead(shown: RwSignal<Option<Arc<Shown>>>, seed: Memo<u64>) {
    Effect::new(move |_| {
        if !shown.with(Option::is_some) {
            return;
        }
        // The query is made when idle too, not on the way to the charts.
        request_idle_callback(move || {
            let query = shown.try_with_untracked(|shown| {
                let shown = shown.as_ref()?;
                let state = State {
                    seed: seed.try_get_untracked()?,
                    queue: shown.params.clone(),
                    ..State::new(Panel::Queue)
                };
                Some(state.to_query())
            });
            if let Some(query) = query.flatten() {
                worker::prepare_standby();
                worker::draw_ahead(query);
            }
        });
    });
    on_cleanup(worker::drop_standby);
}

/// "3 h of 168 h": the clock against the horizon of the run shown.
fn time_text(shown: RwSignal<Option<Arc<Shown>>>, playhead: Playhead) -> Signal<String> {
    Signal::derive(move || {
        shown.with(|shown| {
            shown.as_ref().map_or_else(String::new, |shown| {
                let horizon = f64::from(shown.params.horizon_hours) * 3600.0;
                format!(
                    "{} of {}",
                    duration((playhead.at.get() * horizon).round()),
                    duration(horizon)
                )
            })
        })
    })
}

/// The key numbers of the run shown; none until one has finished. They
/// are current once the run shown is of `params`.
fn numbers(shown: RwSignal<Option<Arc<Shown>>>, params: Memo<QueueParams>) -> impl IntoView {
    key_numbers(
        move || {
            shown.with(|shown| {
                Ok(shown
                    .as_deref()
                    .map(|s| panels::queue::key_numbers(&s.params, &s.run))
                    .unwrap_or_default())
            })
        },
        move || {
            shown.with(|shown| {
                params.with(|params| shown.as_ref().is_some_and(|s| s.params == *params))
            })
        },
    )
}

/// One chart of the run shown, its text alternative `label` of it.
#[component]
fn LaneChart(
    figure: Figure,
    canvas_id: &'static str,
    caption: &'static str,
    canvas: ChartCanvas,
    shown: RwSignal<Option<Arc<Shown>>>,
    label: fn(&Shown) -> String,
) -> impl IntoView {
    let label = move || shown.with(|shown| shown.as_deref().map(label).unwrap_or_default());
    view! {
        <ChartBlock figure>
            <Caption slot>{caption}</Caption>
            {canvas.view(canvas_id, label)}
        </ChartBlock>
    }
}

/// Where the run is: progress and cancel on a worker, what went wrong, or
/// nothing once done. `data-run-status` says which, for tests.
#[component]
fn RunStatus(runner: Runner, params: Memo<QueueParams>, seed: Memo<u64>) -> impl IntoView {
    let status = runner.status;
    let state_name = move || match status.get() {
        Status::Running => "running",
        Status::Done => "done",
        Status::Cancelled => "cancelled",
        Status::Failed(_) => "failed",
        Status::WorkerFailed(_) => "worker-failed",
    };
    let body = move || match status.get() {
        Status::Running => background::progress(
            ["queue-progress", "queue-cancel"],
            "Simulating in the background ",
            runner.background,
            move || {
                runner.cancel();
                status.set(Status::Cancelled);
            },
        )
        .into_any(),
        Status::Done => ().into_any(),
        Status::Cancelled => view! {
            "Run cancelled; the charts show the last finished run. "
            <button
                type="button"
                id="queue-restart"
                on:click=move |_| runner.start(params.get_untracked(), seed.get_untracked(), false)
            >
                "Run again"
            </button>
        }
        .into_any(),
        Status::Failed(why) => view! { <span role="alert">{why}</span> }.into_any(),
        Status::WorkerFailed(why) => view! {
            <span role="alert">{format!("The background run failed: {why}. ")}</span>
            <button
                type="button"
                id="queue-main-thread"
                on:click=move |_| runner.start(params.get_untracked(), seed.get_untracked(), true)
            >
                "Run on this page instead"
            </button>
            " (the page may stop responding for a few seconds)"
        }
        .into_any(),
    };
    view! {
        <div class="queue-status" data-run-status=state_name aria-live="polite">
            {body}
        </div>
    }
}

/// The summary of every lane side by side, as core writes it.
#[component]
fn SummaryTable(shown: RwSignal<Option<Arc<Shown>>>) -> impl IntoView {
    move || {
        shown.with(|shown| {
            let shown = shown.as_deref()?;
            let rows = panels::queue::summary_rows(&shown.params, &shown.run);
            let lanes = &shown.run.lanes;
            Some(view! {
                <div class="table-scroll" tabindex="0" role="region" aria-label="Summary per lane">
                    <table class="figures queue-summary">
                        <thead>
                            <tr>
                                <th scope="col">"Per lane"</th>
                                {lanes
                                    .iter()
                                    .enumerate()
                                    .map(|(i, lane)| {
                                        view! {
                                            <th scope="col" class=format!("lane-{}", i + 1)>
                                                {lane.name.label.clone()}
                                            </th>
                                        }
                                    })
                                    .collect_view()}
                            </tr>
                        </thead>
                        <tbody>
                            {rows
                                .into_iter()
                                .map(|row| {
                                    view! {
                                        <tr>
                                            <th scope="row" title=row.formula>{row.label}</th>
                                            {row
                                                .values
                                                .into_iter()
                                                .zip(lanes)
                                                .map(|((text, raw), lane)| {
                                                    view! {
                                                        <td
                                                            data-lane=lane.name.slug.clone()
                                                            data-summary=row.key
                                                            data-value=raw.to_string()
                                                        >
                                                            {text}
                                                        </td>
                                                    }
                                                })
                                                .collect_view()}
                                        </tr>
                                    }
                                })
                                .collect_view()}
                        </tbody>
                    </table>
                </div>
            })
        })
    }
}

fn percent(share: f64) -> String {
    format!("{:.1} %", share * 100.0)
}

/// "Lanes: herd (the most jobs waiting at once 1,996), slots (…)".
fn describe_lanes(shown: &Shown, what: &str, value: fn(&SimRun) -> String) -> String {
    let lanes: Vec<String> = shown
        .run
        .lanes
        .iter()
        .map(|lane| format!("{}: {what} {}", lane.name.label, value(&lane.run)))
        .collect();
    lanes.join("; ")
}

/// Bin starts in seconds, up to the clock at share `at` of the horizon.
fn shown_bins(run: &SimRun, at: f64) -> usize {
    let bins = run.queue_depth.len();
    ((at * bins as f64).ceil() as usize).min(bins)
}

fn horizon(run: &SimRun) -> f64 {
    (run.queue_depth.len() as f64 * f64::from(run.bin_seconds)).max(1.0)
}

/// The clock, drawn where it is not at the end.
fn clock_mark(run: &SimRun, at: f64) -> Option<Layer> {
    (at < 1.0).then(|| Layer::Mark {
        x: at * horizon(run),
        ink: Ink::Muted,
        label: "now".into(),
    })
}

fn depth_plot(run: &QueueRun, at: f64) -> Plot {
    let Some(first) = run.lanes.first() else {
        return empty_plot();
    };
    let deepest = run
        .lanes
        .iter()
        .flat_map(|lane| lane.run.queue_depth.iter())
        .copied()
        .max()
        .unwrap_or(0);
    let mut layers: Vec<Layer> = run
        .lanes
        .iter()
        .enumerate()
        .map(|(i, lane)| {
            let bin = f64::from(lane.run.bin_seconds);
            Layer::Line {
                points: lane.run.queue_depth[..shown_bins(&lane.run, at)]
                    .iter()
                    .enumerate()
                    .map(|(k, &depth)| (k as f64 * bin, f64::from(depth)))
                    .collect(),
                ink: Ink::Series(i),
                dashed: false,
                label: Some(lane.name.label.clone()),
            }
        })
        .collect();
    layers.extend(clock_mark(&first.run, at));
    Plot {
        x: 0.0..horizon(&first.run),
        y: 0.0..(f64::from(deepest) * 1.1).max(1.0),
        x_desc: "simulated time".into(),
        y_desc: "jobs waiting".into(),
        x_tick: chart::duration_tick,
        y_tick: chart::number_tick,
        layers,
    }
}

/// What every strip needs besides its lane: the clock and the cycle.
#[derive(Clone, Copy)]
struct Frame {
    /// The clock, as a share of the run.
    at: f64,
    cycle_seconds: f64,
}

/// A lane's strip of values per bin against time, named in its legend
/// beside the `reference` line that reads it.
fn strip(
    lane: &Lane,
    index: usize,
    at: f64,
    y_desc: String,
    values: Vec<f64>,
    reference: Layer,
) -> Plot {
    let run = &lane.run;
    let bin = f64::from(run.bin_seconds);
    let top = values.iter().copied().fold(1.0, f64::max);
    let shown = shown_bins(run, at);
    let mut layers = vec![
        Layer::Bars {
            start: 0.0,
            width: bin,
            heights: values[..shown].to_vec(),
            ink: Ink::Series(index),
            label: Some(lane.name.label.clone()),
        },
        reference,
    ];
    layers.extend(clock_mark(run, at));
    Plot {
        x: 0.0..horizon(run),
        y: 0.0..top * 1.15,
        x_desc: "simulated time".into(),
        y_desc,
        x_tick: chart::duration_tick,
        y_tick: chart::number_tick,
        layers,
    }
}

fn busy_plot(lane: &Lane, index: usize, frame: Frame) -> Plot {
    let (run, at) = (&lane.run, frame.at);
    let bin = f64::from(run.bin_seconds);
    let ready = Layer::Line {
        points: run.workers[..shown_bins(run, at)]
            .iter()
            .enumerate()
            .flat_map(|(k, &w)| [(k as f64 * bin, w), ((k + 1) as f64 * bin, w)])
            .collect(),
        ink: Ink::Reference,
        dashed: false,
        label: Some("workers ready".into()),
    };
    let mut plot = strip(lane, index, at, "busy".into(), run.executing.clone(), ready);
    let most = run.workers.iter().copied().fold(1.0, f64::max);
    plot.y.end = plot.y.end.max(most * 1.15);
    plot
}

fn ingress_plot(lane: &Lane, index: usize, frame: Frame) -> Plot {
    let (run, at) = (&lane.run, frame.at);
    let bin = f64::from(run.bin_seconds);
    let counts: Vec<f64> = run.ingress.iter().map(|&c| f64::from(c)).collect();
    let even = counts.iter().sum::<f64>() / counts.len().max(1) as f64;
    let level = Layer::Line {
        points: vec![(0.0, even), (horizon(run), even)],
        ink: Ink::Reference,
        dashed: true,
        label: Some("spread evenly".into()),
    };
    strip(
        lane,
        index,
        at,
        format!("jobs per {}", duration(bin)),
        counts,
        level,
    )
}

/// A histogram over the whole run, `width` seconds a bin from `start`,
/// with a vertical reference line at `mark`.
fn histogram(
    lane: &Lane,
    index: usize,
    (start, width, counts): (f64, f64, &[u32]),
    x_desc: &str,
    (mark, mark_label): (f64, String),
) -> Plot {
    let top = f64::from(counts.iter().copied().max().unwrap_or(0)).max(1.0) * 1.15;
    let end = (start + width * counts.len() as f64).max(start + 1.0);
    Plot {
        x: start..end.max(mark),
        y: 0.0..top,
        x_desc: x_desc.into(),
        y_desc: "jobs".into(),
        x_tick: chart::duration_tick,
        y_tick: chart::number_tick,
        layers: vec![
            Layer::Bars {
                start,
                width,
                heights: counts.iter().map(|&c| f64::from(c)).collect(),
                ink: Ink::Series(index),
                label: Some(lane.name.label.clone()),
            },
            Layer::Line {
                points: vec![(mark, 0.0), (mark, top)],
                ink: Ink::Reference,
                dashed: true,
                label: Some(mark_label),
            },
        ],
    }
}

fn wait_plot(lane: &Lane, index: usize, _: Frame) -> Plot {
    let run = &lane.run;
    let p95 = run.summary.p95_wait_s;
    histogram(
        lane,
        index,
        (0.0, run.wait_bin_seconds, &run.wait_histogram),
        "wait",
        (p95, format!("p95: {}", percentile_value(&run.summary, p95))),
    )
}

fn gap_plot(lane: &Lane, index: usize, frame: Frame) -> Plot {
    let run = &lane.run;
    let mut plot = histogram(
        lane,
        index,
        (
            run.sync_interval_start_seconds,
            run.sync_interval_bin_seconds,
            &run.sync_interval_histogram,
        ),
        "time between syncs",
        (frame.cycle_seconds, "the cycle C".into()),
    );
    plot.y_desc = "syncs".into();
    plot
}

fn empty_plot() -> Plot {
    Plot {
        x: 0.0..1.0,
        y: 0.0..1.0,
        x_desc: String::new(),
        y_desc: String::new(),
        x_tick: chart::number_tick,
        y_tick: chart::number_tick,
        layers: Vec::new(),
    }
}

fn save_csv(shown: RwSignal<Option<Arc<Shown>>>) {
    let csv = shown.with_untracked(|shown| {
        let shown = shown.as_deref()?;
        let series = QueuePanel::time_series(&shown.run)?;
        let mut text = Vec::new();
        series.write_csv(&mut text).ok()?;
        String::from_utf8(text).ok()
    });
    let saved = csv.map(|csv| browser::download_text("stampede-queue.csv", "text/csv", &csv));
    if let Some(Err(error)) = saved {
        browser::warn(&format!("the series could not be saved: {error:?}"));
    }
}
