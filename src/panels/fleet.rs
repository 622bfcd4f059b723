//! Fleet: the reader's own schedules, where they pile up, and the fix.
//!
//! The fleet is read, fixed and probed in the fleet worker
//! ([`crate::fleet_worker`]); the page keeps the three stages' results and
//! draws everything else from them, so changing the view, the day, the
//! measure or the capacity redraws at once without asking the worker.
//! While the worker works, the last figures stay on screen.

mod explain;
mod fix;
mod heat_canvas;
mod heatmap;
mod input;

use leptos::prelude::*;
use stampede_core::panels::Panel;
use stampede_core::panels::State;
use stampede_core::panels::fleet::FleetPanel;
use stampede_core::panels::fleet::{self, CapacityUnit, FixMethod, FleetParams, HeatView, Sample};
use stampede_core::units::count;
use stampede_fleet::panel::{CapacityLoad, FleetFix, FleetProbe, FleetRead};

use self::heat_canvas::HeatCanvas;
use self::heatmap::Grid;
use super::{Caption, ChartBlock, PanelUi, Showing, below_first_screen, with_code};
use crate::chart::{self, ChartCanvas, Ink, Layer, Plot};
use crate::fleet_worker::{self, Reply, Source};
use crate::store::{Arrivals, Store};

use explain::explanation;

impl PanelUi for FleetPanel {
    /// The sample and the format (above the paste box), and the change (in
    /// the stability figure).
    const OWN_CONTROLS: &'static [&'static str] = &["smp", "fmt", "chg"];

    fn explanation() -> impl IntoView + 'static {
        explanation()
    }

    fn figure() -> impl IntoView + 'static {
        figure()
    }
}

/// The most lines the box holds: a text area takes the browser some 13 ms
/// to lay out per 1,000 lines, twice that on a busy machine, so a paste of
/// 100,000 would freeze the page for over a second; 5,000 stay within a
/// tenth of one.
const MOST_BOX_LINES: usize = 5_000;

/// What the worker is doing for the newest request.
#[derive(Clone, Debug, PartialEq)]
enum Status {
    Idle,
    Working,
    /// Not read, or stopped, for its size or its time: why, with a button
    /// to read it anyway.
    OverBudget(String),
    Failed(String),
}

/// The panel's state on the page: the text in the box and the stages the
/// worker sent for it.
#[derive(Clone, Copy)]
struct Fleet {
    store: Store,
    params: Memo<FleetParams>,
    /// The fleet's text as the worker last got it, or is about to.
    text: StoredValue<String>,
    /// What the box shows when the text came from elsewhere (a sample, a
    /// link, a file). Typing never sets it: rewriting a box of 10,000
    /// lines under the reader's fingers costs a third of a second.
    shown: RwSignal<String>,
    /// The fleet's lines when the box shows only its first
    /// [`MOST_BOX_LINES`], read-only; `None` when it shows them all.
    box_cut: RwSignal<Option<usize>>,
    /// Whether the box has yet to show `text`: a pasted or dropped fleet
    /// goes in once its figure is drawn.
    box_behind: StoredValue<bool>,
    /// The link's fragment while its text has not reached the box, so
    /// reading it anyway asks for the fragment again.
    fragment: StoredValue<Option<String>>,
    read: RwSignal<Option<FleetRead>>,
    /// The link of the reader's own fleet, or why it has none.
    link: RwSignal<Option<Result<String, String>>>,
    fix: RwSignal<Option<FleetFix>>,
    probe: RwSignal<Option<FleetProbe>>,
    status: RwSignal<Status>,
    /// Counts the requests: a reply held back for a frame is dropped once
    /// a newer request has started.
    requests: StoredValue<u32>,
}

impl Fleet {
    fn new() -> Self {
        let store = Store::get();
        let state = store.state;
        Self {
            store,
            params: Memo::new(move |_| state.with(|s| s.fleet.clone())),
            text: StoredValue::new(String::new()),
            shown: RwSignal::new(String::new()),
            box_cut: RwSignal::new(None),
            box_behind: StoredValue::new(false),
            fragment: StoredValue::new(None),
            read: RwSignal::new(None),
            link: RwSignal::new(None),
            fix: RwSignal::new(None),
            probe: RwSignal::new(None),
            status: RwSignal::new(Status::Idle),
            requests: StoredValue::new(0),
        }
    }

    /// Starts a new request: replies of earlier ones still held back are
    /// dropped.
    fn next_request(self) -> u32 {
        self.requests.update_value(|count| *count += 1);
        self.requests.get_value()
    }

    /// The query the worker reads: the panel's own settings and the seed,
    /// as a link to the panel would carry them (not a Learn step's link).
    fn query(self) -> String {
        self.store.state.with_untracked(|state| {
            State {
                seed: state.seed,
                fleet: state.fleet.clone(),
                ..State::new(Panel::Fleet)
            }
            .to_query()
        })
    }

    /// Sends the fleet of `source` with the current settings to the worker;
    /// `patient` reads it however large it is and however long it takes.
    fn submit(self, source: Source, patient: bool) {
        let query = self.query();
        match &source {
            // The old fragment carries the old text: no link until the new one.
            Source::Text(_) => {
                self.store.fragment.set(None);
                self.link.set(None);
            }
            Source::Fragment(fragment) => self.fragment.set_value(Some(fragment.clone())),
            Source::Sample => {}
        }
        self.status.set(Status::Working);
        let request = self.next_request();
        fleet_worker::request(&query, source, None, patient, move |reply| {
            self.receive(request, reply)
        });
    }

    /// Reads the fleet the worker found too large or too slow, however long
    /// it takes: the link's, or the current one.
    fn read_anyway(self) {
        match self.fragment.get_value() {
            Some(fragment) => self.submit(Source::Fragment(fragment), true),
            None => self.submit(self.source(), true),
        }
    }

    /// Sends the text in the box, or the sample the settings name.
    fn submit_current(self) {
        let own = self.params.with_untracked(|p| p.sample == Sample::Own);
        if !own {
            // A link's text that never reached the box gives way to the sample.
            self.fragment.set_value(None);
            return self.submit(Source::Sample, false);
        }
        if let Some(fragment) = self.fragment.get_value() {
            return self.submit(Source::Fragment(fragment), false);
        }
        let text = self.text.get_value();
        if text.trim().is_empty() {
            self.next_request();
            self.status.set(Status::Idle);
            self.read.set(None);
            self.link.set(None);
            self.fix.set(None);
            self.probe.set(None);
            self.store.fragment.set(None);
            self.catch_up_box();
        } else {
            self.submit(Source::Text(text), false);
        }
    }

    /// Takes `text` as the fleet's and shows it in the box.
    fn show_text(self, text: String) {
        self.text.set_value(text);
        self.box_behind.set_value(false);
        self.show_in_box(false);
    }

    /// Puts the fleet's text in the box: its first [`MOST_BOX_LINES`]
    /// lines unless `whole`.
    fn show_in_box(self, whole: bool) {
        let text = self.text.get_value();
        let cut = text
            .match_indices('\n')
            .nth(MOST_BOX_LINES - 1)
            .filter(|_| !whole);
        match cut {
            Some((at, _)) => {
                let lines = text.bytes().filter(|&byte| byte == b'\n').count() + 1;
                self.box_cut.set(Some(lines));
                self.shown.set(text[..at].to_string());
            }
            None => {
                self.box_cut.set(None);
                self.shown.set(text);
            }
        }
    }

    /// Puts a pasted or dropped fleet in the box after the frame that
    /// draws its figure (or its failure), unless the reader typed since.
    fn catch_up_box(self) {
        if !self.box_behind.get_value() {
            return;
        }
        // The panel may have closed by then.
        after_next_frame(move || {
            if self.box_behind.try_get_value() == Some(true) {
                self.box_behind.set_value(false);
                self.show_in_box(false);
            }
        });
    }

    /// Runs `apply` after the next frame, unless a newer request than
    /// `request` has started by then, or the panel has closed.
    fn after_next_frame_of(self, request: u32, apply: impl FnOnce() + 'static) {
        after_next_frame(move || {
            if self.requests.try_get_value() == Some(request) {
                apply();
            }
        });
    }

    fn receive(self, request: u32, reply: Reply) {
        match reply {
            Reply::Text(text) => {
                self.fragment.set_value(None);
                self.show_text(text);
            }
            Reply::Read(read) => {
                self.read.set(Some(*read));
                self.catch_up_box();
            }
            Reply::Link(link) => {
                self.store.fragment.set(link.clone().and_then(Result::ok));
                self.link.set(link);
            }
            // The fix and the probe, which the worker sends right after the
            // read, wait for the frame that shows the read: drawing them
            // first kept the figure off the screen for as long again.
            Reply::Fix(fix) => self.after_next_frame_of(request, move || self.fix.set(Some(*fix))),
            Reply::Probe(probe) => self.after_next_frame_of(request, move || {
                self.probe.set(probe);
                self.status.set(Status::Idle);
            }),
            Reply::OverBudget(why) => {
                self.status.set(Status::OverBudget(why));
                self.catch_up_box();
            }
            Reply::Failed(why) => {
                self.status.set(Status::Failed(why));
                self.catch_up_box();
            }
            // Only a handoff asks for arrivals, and hears the answer itself.
            Reply::Arrivals(_) => {}
        }
    }

    /// The fleet as the worker should take it: the text in the box, or
    /// the sample the settings name.
    fn source(self) -> Source {
        if self.params.with_untracked(|p| p.sample == Sample::Own) {
            Source::Text(self.text.get_value())
        } else {
            Source::Sample
        }
    }

    /// The grid of the fleet as written, in the chosen view.
    fn grid(self) -> Memo<Option<Grid>> {
        Memo::new(move |_| {
            let params = self.params.get();
            self.read.with(|read| {
                read.as_ref()
                    .map(|read| Grid::of(read, &read.load, params.view, params.day, params.measure))
            })
        })
    }
}

fn figure() -> impl IntoView {
    let fleet = Fleet::new();
    // What the worker's answer depends on; the view, the day, the measure
    // and the capacity only redraw, but for the fix to capacity, which
    // places the jobs by it.
    let store = Store::get();
    let inputs = Memo::new(move |_| {
        let (params, seed) = store.state.with(|s| (s.fleet.clone(), s.seed));
        let fix_capacity = (params.fix == FixMethod::Capacity).then_some(params.capacity);
        (
            params.sample,
            params.format,
            params.week,
            params.fix,
            fix_capacity,
            params.probe,
            seed,
        )
    });
    let opened_with = crate::browser::fragment();
    Effect::new(move |first: Option<()>| {
        // Read, not only tracked: a memo nobody has read has no sources
        // yet, so it would never change.
        inputs.get();
        let own = fleet.params.with_untracked(|p| p.sample == Sample::Own);
        match (&opened_with, first) {
            (Some(fragment), None) if own => {
                fleet.submit(Source::Fragment(fragment.clone()), false)
            }
            _ => fleet.submit_current(),
        }
    });
    // Nobody would see the answer of a request still under way.
    on_cleanup(fleet_worker::stop);

    let grid = fleet.grid();
    let heat = HeatCanvas::new(fleet, grid, false, 380.0);
    let concurrency = ChartCanvas::new(280.0);
    let (before, after) = fix::grids(fleet);
    let shared_max = Memo::new(move |_| {
        let max = |grid: Memo<Option<Grid>>| grid.with(|g| g.as_ref().map_or(1.0, Grid::max));
        max(before).max(max(after))
    });
    let before_canvas = HeatCanvas::new(fleet, before, false, 300.0);
    let after_canvas = HeatCanvas::new(fleet, after, true, 300.0);
    chart::redraw_on_change("figure", move || {
        let max = grid.with(|g| g.as_ref().map_or(1.0, Grid::max));
        heat.draw(max);
        let plot = fleet.read.with(|read| {
            read.as_ref()
                .map(|read| concurrency_plot(&fleet.params.get(), read))
        });
        if let Some((plot, _)) = plot {
            concurrency.draw(|area, pen| plot.draw(area, pen));
        }
        let max = shared_max.get();
        before_canvas.draw(max);
        after_canvas.draw(max);
    });

    let embed = store.state.with_untracked(|s| s.view.embed);
    view! {
        {(!embed && Showing::get().tools()).then(|| input::input(fleet))}
        {status_line(fleet)}
        {heatmap_block(fleet, heat)}
        {key_numbers(fleet)}
        {below_first_screen(move || view! {
            {concurrency_block(fleet, concurrency)}
            {fix::fix_block(fleet, before_canvas, after_canvas)}
        })}
    }
}

/// "Reading…" while the worker works, or why it failed; the figures
/// below keep the last fleet meanwhile.
fn status_line(fleet: Fleet) -> impl IntoView {
    let text = move || match fleet.status.get() {
        Status::Idle if fleet.read.with(Option::is_none) => {
            "No fleet yet: paste one into the box, drop a file on it, or pick a sample.".to_string()
        }
        Status::Idle => String::new(),
        Status::Working => "Reading the fleet…".to_string(),
        Status::OverBudget(why) => format!("The fleet is not read: {why}."),
        Status::Failed(why) => format!("The fleet could not be read: {why}"),
    };
    let failed = move || matches!(fleet.status.get(), Status::Failed(_));
    // For tests and embedding pages: whether the newest request is answered.
    let state = move || match fleet.status.get() {
        Status::Idle => "idle",
        Status::Working => "working",
        Status::OverBudget(_) => "over-budget",
        Status::Failed(_) => "failed",
    };
    let read_anyway = move || {
        matches!(fleet.status.get(), Status::OverBudget(_)).then(|| {
            view! {
                <button type="button" id="fleet-read-anyway" on:click=move |_| fleet.read_anyway()>
                    "Read it anyway"
                </button>
            }
        })
    };
    view! {
        <p class="fleet-status" class:failed=failed id="fleet-status" data-status=state aria-live="polite">
            {text}
            " "
            {read_anyway}
        </p>
    }
}

fn heatmap_block(fleet: Fleet, heat: HeatCanvas) -> impl IntoView {
    let no_durations = move || {
        let wants = fleet
            .params
            .with(|p| p.measure == stampede_core::panels::fleet::CellMeasure::Running);
        let has = fleet
            .read
            .with(|r| r.as_ref().is_some_and(|r| r.load.running.is_some()));
        (wants && !has && fleet.read.with(Option::is_some)).then(|| {
            view! {
                <p class="note">"This fleet gives no Duration=, so the cells count starts."</p>
            }
        })
    };
    let drawn = move || {
        fleet.read.with(|r| {
            r.as_ref().and_then(|r| r.load.drawn.as_ref()).map(|drawn| {
            view! {
                <p class="note" id="fleet-drawn">
                    {format!(
                        "Some schedulers here draw a delay each time they run, so the map is one \
                         draw of them; the underlined cells are where any of {} more draws started \
                         a job, and the load chart below shades their 10th to 90th percentile.",
                        drawn.draws
                    )}
                </p>
            }
        })
        })
    };
    view! {
        <ChartBlock figure=fleet::HEATMAP>
            <Caption slot>
                "Each cell is a minute of the day (or an hour of the week), its colour stronger for
                more starts, or for more jobs running when the fleet gives durations (on a
                square-root scale, so single starts show beside a pile); the red outline is the
                peak. Point at a cell, or focus the map and use the arrow keys, to name its jobs."
            </Caption>
            {no_durations}
            {drawn}
            {heat.view("fleet-heatmap")}
        </ChartBlock>
    }
}

fn key_numbers(fleet: Fleet) -> impl IntoView {
    super::key_numbers(
        move || {
            let params = fleet.params.get();
            fleet.read.with(|read| {
                fleet.fix.with(|fix| {
                    Ok(read
                        .as_ref()
                        .map(|read| stampede_fleet::panel::key_numbers(&params, read, fix.as_ref()))
                        .unwrap_or_default())
                })
            })
        },
        move || matches!(fleet.status.get(), Status::Idle) && fleet.read.with(Option::is_some),
    )
}

/// The load per minute over the shown day or the week against the
/// capacity, how many minutes pass it, and, where the fleet draws random
/// delays, how many pass it on 1 night in 10 (their 90th percentile).
fn concurrency_plot(params: &FleetParams, read: &FleetRead) -> (Plot, Over) {
    let CapacityLoad {
        per_minute: values,
        what,
        ..
    } = read.load.against(params.capacity_unit);
    let shown = match params.view {
        HeatView::Day => {
            let first = heatmap::shown_day(read, params.day) as usize * 1440;
            first..first + 1440
        }
        HeatView::Week => 0..values.len(),
    };
    let x_desc = match params.view {
        HeatView::Day => "hour of the day",
        HeatView::Week => "hours into the week",
    };
    let values = values[shown.clone()].to_vec();
    let capacity = f64::from(params.capacity);
    let over = values.iter().filter(|&&v| v > capacity).count();
    // The load on most nights, where the fleet draws random delays: the
    // bars are one draw of them.
    let drawn = read
        .load
        .drawn
        .as_ref()
        .zip(read.load.drawn_band(params.capacity_unit));
    let band = drawn.map(|(drawn, band)| Layer::Band {
        points: shown
            .clone()
            .enumerate()
            .map(|(x, minute)| (x as f64 / 60.0, band.p10[minute], band.p90[minute]))
            .collect(),
        ink: Ink::Series(1),
        label: Some(format!("10th to 90th percentile of {} draws", drawn.draws)),
    });
    let band_top = drawn.map_or(0.0, |(_, band)| {
        band.p90[shown.clone()].iter().copied().fold(0.0, f64::max)
    });
    let over = Over {
        shown: over,
        drawn: drawn.map(|(_, band)| band.p90[shown].iter().filter(|&&v| v > capacity).count()),
    };
    let tallest = values
        .iter()
        .copied()
        .fold(capacity.max(band_top), f64::max);
    let unit = match params.capacity_unit {
        CapacityUnit::Workers => "workers",
        CapacityUnit::PerSecond => "a second",
    };
    let plot = Plot {
        x: 0.0..values.len() as f64 / 60.0,
        y: 0.0..tallest * 1.1,
        x_desc: x_desc.into(),
        y_desc: format!("{what} per minute"),
        x_tick: chart::number_tick,
        y_tick: chart::number_tick,
        layers: band
            .into_iter()
            .chain([
                Layer::Bars {
                    start: 0.0,
                    width: 1.0 / 60.0,
                    heights: values,
                    ink: Ink::Series(0),
                    label: Some(match drawn {
                        Some(_) => format!("{what}, one draw"),
                        None => what.into(),
                    }),
                },
                Layer::Level {
                    y: capacity,
                    ink: Ink::Reference,
                    label: format!("capacity {} {unit}", count(u64::from(params.capacity))),
                },
            ])
            .collect(),
    };
    (plot, over)
}

/// The shown day (0 for the week's first) and its starts.
fn shown_day_starts(fleet: Fleet) -> Option<(u32, u64)> {
    let day = fleet.params.with(|p| p.day);
    fleet.read.with(|read| {
        let read = read.as_ref()?;
        let index = heatmap::shown_day(read, day);
        let minutes = read
            .load
            .starts
            .get(index as usize * 1440..(index as usize + 1) * 1440)?;
        Some((index, minutes.iter().map(|&n| u64::from(n)).sum()))
    })
}

/// Opens the Queue with the shown day's starts as its arrivals (with the
/// jobs' durations when every one has a `Duration=`), and the capacity as
/// its workers when the capacity counts workers.
fn simulate_starts(fleet: Fleet) -> impl IntoView {
    let starts = move || shown_day_starts(fleet).map(|(_, total)| total.to_string());
    let simulate = move |_| {
        let Some((day, _)) = shown_day_starts(fleet) else {
            return;
        };
        let workers = fleet
            .params
            .with_untracked(|p| (p.capacity_unit == CapacityUnit::Workers).then_some(p.capacity));
        let query = fleet.query();
        fleet.status.set(Status::Working);
        fleet_worker::request(
            &query,
            fleet.source(),
            Some(day),
            false,
            move |reply| match reply {
                Reply::Arrivals(text) => {
                    fleet.status.set(Status::Idle);
                    let source = format!("day {} of the fleet", day + 1);
                    let arrivals = Arrivals { text, source };
                    fleet.store.simulate_in_queue(arrivals, workers);
                }
                Reply::Failed(why) | Reply::OverBudget(why) => {
                    fleet.status.set(Status::Failed(why))
                }
                _ => {}
            },
        );
    };
    view! {
        <button type="button" id="fleet-simulate" data-starts=starts on:click=simulate>
            "Simulate these starts"
        </button>
        " in the Queue: the shown day's starts as arrivals, at their exact times, with the
        jobs' durations when every job gives one (else the Queue's), on as many workers as the
        capacity when it counts workers."
    }
}

/// Minutes over the capacity: in the shown draw, and on 1 night in 10
/// where the fleet draws random delays.
#[derive(Clone, Copy)]
struct Over {
    shown: usize,
    drawn: Option<usize>,
}

/// "No minute", "1 minute", "12 minutes".
fn minutes_words(minutes: usize) -> String {
    match minutes {
        0 => "No minute".to_string(),
        1 => "1 minute".to_string(),
        n => format!("{} minutes", count(n as u64)),
    }
}

/// The verb for `minutes` minutes: "goes" for one (or none), "go" for more.
fn goes(minutes: usize) -> &'static str {
    if minutes > 1 { "go" } else { "goes" }
}

fn concurrency_block(fleet: Fleet, canvas: ChartCanvas) -> impl IntoView {
    let over = move || {
        let params = fleet.params.get();
        fleet
            .read
            .with(|read| read.as_ref().map(|read| concurrency_plot(&params, read).1))
    };
    let sentence = move || {
        over().map(|over| match over.drawn {
            None => format!(
                "{} of the shown span {} over the capacity.",
                minutes_words(over.shown),
                goes(over.shown)
            ),
            Some(drawn) => format!(
                "{} of the shown span {} over the capacity in this draw of the random delays; \
                 {} {} over it on at least 1 night in 10 (the band's top).",
                minutes_words(over.shown),
                goes(over.shown),
                minutes_words(drawn).to_lowercase(),
                goes(drawn)
            ),
        })
    };
    let label = move || {
        let capacity = fleet.params.with(|p| p.capacity);
        format!(
            "A bar chart of the load per minute against a capacity of {}: {}",
            count(u64::from(capacity)),
            sentence().unwrap_or_default()
        )
    };
    view! {
        <ChartBlock figure=fleet::CONCURRENCY>
            <Caption slot>
                "The load in each minute: jobs running when the fleet gives durations, else starts;
                or, counting requests a second, the busiest second of each minute. The red line is
                the capacity you set."
            </Caption>
            {canvas.view("fleet-concurrency", label)}
            <p class="over-capacity" id="over-capacity" aria-live="polite">{sentence}</p>
            {simulate_starts(fleet)}
        </ChartBlock>
    }
}

/// Runs `f` once the next frame is on screen.
fn after_next_frame(f: impl FnOnce() + 'static) {
    request_animation_frame(move || set_timeout(f, std::time::Duration::ZERO));
}
