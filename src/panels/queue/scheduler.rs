//! Inside the scheduler: what the event scheduler under the simulation does
//! with a run that overruns its period, and what cancelling leaves in its
//! heap. Two sliders of its own, kept out of the URL, drive
//! [`stampede_core::recurrence`]; the panel's parameters play no part.

use leptos::prelude::*;
use stampede_core::error::InvalidInput;
use stampede_core::panels;
use stampede_core::recurrence::{self, Compaction, LateRun, Runs};
use stampede_core::units::{count, duration, significant};

use crate::chart::{self, ChartCanvas, Ink, Layer, Plot};
use crate::panels::{Caption, ChartBlock};

/// A job every minute, ten runs of it, and a thousand one-shot events:
/// few enough that every run and every compaction stays distinct on a
/// phone-wide chart.
const PERIOD_S: f64 = 60.0;
const RUNS: u32 = 10;
const EVENTS: u32 = 1_000;
/// The overrun slider moves in quarter periods, up to three periods.
const MAX_LATE_QUARTERS: u32 = 12;
/// The cancel slider moves in steps of 5 % up to 90 %: beyond, the pops
/// are too few to see, and the mark where they begin has no room for its
/// name.
const SHARE_STEP_PERCENT: u32 = 5;
const MAX_SHARE_PERCENT: u32 = 90;

const FIXED_RATE: Ink = Ink::Series(0);
const FIXED_DELAY: Ink = Ink::Series(1);
const HEAP: Ink = Ink::Series(0);
const LIVE: Ink = Ink::Series(2);
const NEVER_COMPACTED: Ink = Ink::Series(3);

#[component]
pub fn EventSchedulerView() -> impl IntoView {
    let late_quarters = RwSignal::new(6_u32);
    let share_percent = RwSignal::new(75_u32);
    let late_by_s = move || f64::from(late_quarters.get()) * PERIOD_S / 4.0;
    let share = move || f64::from(share_percent.get()) / 100.0;
    let late = Memo::new(move |_| recurrence::late_run(PERIOD_S, late_by_s(), RUNS));
    let heap = Memo::new(move |_| recurrence::compaction(EVENTS, share()));

    let runs_canvas = ChartCanvas::new(320.0);
    let heap_canvas = ChartCanvas::new(300.0);
    chart::redraw_on_change("figure", move || {
        late.with(|late| {
            if let Ok(late) = late {
                runs_canvas.draw(|area, pen| chart::draw_stacked(area, pen, &runs_plots(late)));
            }
        });
        heap.with(|heap| {
            if let Ok(heap) = heap {
                heap_canvas.draw(|area, pen| heap_plot(heap).draw(area, pen));
            }
        });
    });

    let late_text = move || {
        format!(
            "{} ({} P)",
            duration(late_by_s()),
            significant(f64::from(late_quarters.get()) / 4.0, 3)
        )
    };
    let share_text = move || {
        let cancelled = heap.with(|heap| heap.as_ref().map_or(0, |heap| heap.cancelled));
        format!(
            "{} % ({} of {})",
            share_percent.get(),
            count(u64::from(cancelled)),
            count(u64::from(EVENTS))
        )
    };

    view! {
        <section class="queue-sched-section" aria-labelledby="queue-sched-title">
            <h3 id="queue-sched-title">"Inside the scheduler"</h3>
            <p class="explain">
                "The event scheduler keeps pending events in a min-heap ordered by due time, priority
                and the order they were scheduled in; the simulation above orders its running jobs
                and retries on the same kind of heap, by time and then account. Fixed rate: next due =
                previous due + P; a run that fires after later slots have passed stands in for them,
                and the job returns to its grid. Fixed delay: next due = the moment the run fired + P,
                so a late start carries into every later run."
            </p>
            <p class="explain">
                "Cancelling leaves a dead entry in the heap until it reaches the top; whenever dead
                entries outnumber live ones, the scheduler rebuilds the heap without them."
            </p>
            <div class="queue-sched-controls">
                <Slider
                    id="queue-sched-late"
                    label="Overrun L of the slow run: run 3 lasts P + L"
                    max=MAX_LATE_QUARTERS
                    step=1
                    value=late_quarters
                    text=Signal::derive(late_text)
                />
                <Slider
                    id="queue-sched-share"
                    label="Share of the events cancelled"
                    max=MAX_SHARE_PERCENT
                    step=SHARE_STEP_PERCENT
                    value=share_percent
                    text=Signal::derive(share_text)
                />
            </div>
            {numbers(late, heap)}
            {recurrence_block(late, runs_canvas)}
            {heap_block(heap, heap_canvas)}
        </section>
    }
}

/// The key numbers of both runs, the late one's and the heap's.
fn numbers(
    late: Memo<Result<LateRun, InvalidInput>>,
    heap: Memo<Result<Compaction, InvalidInput>>,
) -> impl IntoView {
    // No step's text speaks of the scheduler, so these are never a step's.
    super::super::key_numbers(
        move || {
            late.with(|late| {
                heap.with(|heap| match (late, heap) {
                    (Ok(late), Ok(heap)) => Ok(panels::queue::scheduler_key_numbers(late, heap)),
                    (Err(error), _) | (_, Err(error)) => Err(error.clone()),
                })
            })
        },
        || false,
    )
}

fn recurrence_block(
    late: Memo<Result<LateRun, InvalidInput>>,
    canvas: ChartCanvas,
) -> impl IntoView {
    let label = move || late.with(|late| late.as_ref().map(describe_runs).unwrap_or_default());
    view! {
        <ChartBlock figure=panels::queue::RECURRENCE>
            <Caption slot>
                "A job every minute whose third run lasts P plus the overrun (shaded): fixed rate
                (top) fires once late and is back on the dashed grid; fixed delay (bottom) keeps the
                delay in every later run."
            </Caption>
            {canvas.view("queue-recurrence", label)}
        </ChartBlock>
    }
}

fn heap_block(heap: Memo<Result<Compaction, InvalidInput>>, canvas: ChartCanvas) -> impl IntoView {
    let label = move || heap.with(|heap| heap.as_ref().map(describe_heap).unwrap_or_default());
    view! {
        <ChartBlock figure=panels::queue::HEAP>
            <Caption slot>
                "A thousand events are scheduled, the chosen share cancelled, then the rest popped.
                Where the solid heap line drops during the cancels, the scheduler compacted; the
                dashed line is the heap without compaction."
            </Caption>
            {canvas.view("queue-heap", label)}
        </ChartBlock>
    }
}

/// One of the section's own sliders, from 0 to `max`, with its value
/// written out beside it.
#[component]
fn Slider(
    id: &'static str,
    label: &'static str,
    max: u32,
    step: u32,
    value: RwSignal<u32>,
    text: Signal<String>,
) -> impl IntoView {
    view! {
        <div class="control">
            <label for=id>{label}</label>
            <div class="inputs">
                <input
                    type="range"
                    id=id
                    min="0"
                    max=max
                    step=step
                    prop:value=move || value.get().to_string()
                    on:input=move |ev| {
                        if let Ok(chosen) = event_target_value(&ev).parse::<u32>() {
                            value.set(chosen.min(max));
                        }
                    }
                />
                <output for=id>{text}</output>
            </div>
        </div>
    }
}

/// No tick labels: a row's name is its axis title.
fn no_tick(_: f64) -> String {
    String::new()
}

/// Fixed rate above fixed delay on one time axis: a solid stem per run
/// start, a dashed line per slot of the original grid, the slow run shaded.
fn runs_plots(late: &LateRun) -> [Plot; 2] {
    let period = late.period_s;
    let end = late.grid_s.last().copied().unwrap_or(period);
    let x = -period / 4.0..end + period / 4.0;
    let row = |runs: &Runs, ink: Ink, policy: &str, mut layers: Vec<Layer>| {
        layers.push(Layer::Band {
            points: vec![(late.slow_start_s, 0.0, 1.0), (late.slow_end_s, 0.0, 1.0)],
            ink: Ink::Reference,
            label: None,
        });
        layers.extend(late.grid_s.iter().map(|&slot| Layer::Line {
            points: vec![(slot, 0.0), (slot, 1.0)],
            ink: Ink::Muted,
            dashed: true,
            label: None,
        }));
        layers.extend(runs.start_s.iter().map(|&start| Layer::Line {
            points: vec![(start, 0.0), (start, 0.8)],
            ink,
            dashed: false,
            label: None,
        }));
        Plot {
            x: x.clone(),
            y: 0.0..1.0,
            x_desc: "time since the first run".into(),
            y_desc: policy.into(),
            x_tick: chart::duration_tick,
            y_tick: no_tick,
            layers,
        }
    };
    // One legend for both rows, above the top one: empty layers carry the
    // names, as the rows' own layers stay unnamed.
    let named = |ink: Ink, name: &str| Layer::Line {
        points: Vec::new(),
        ink,
        dashed: false,
        label: Some(name.into()),
    };
    let legend = vec![
        named(FIXED_RATE, "run start, fixed rate"),
        named(FIXED_DELAY, "run start, fixed delay"),
        named(Ink::Muted, "original grid, every P"),
        named(Ink::Reference, "slow run, P + L"),
    ];
    [
        row(&late.fixed_rate, FIXED_RATE, "fixed rate", legend),
        row(&late.fixed_delay, FIXED_DELAY, "fixed delay", Vec::new()),
    ]
}

/// Live entries, the heap with its dead entries, and the heap a scheduler
/// that never compacts would hold, against the operation count.
fn heap_plot(heap: &Compaction) -> Plot {
    let line = |value: fn(&recurrence::HeapPoint) -> u32| -> Vec<(f64, f64)> {
        heap.points
            .iter()
            .map(|p| (f64::from(p.operation), f64::from(value(p))))
            .collect()
    };
    let mut layers = vec![
        Layer::Band {
            points: heap
                .points
                .iter()
                .map(|p| {
                    (
                        f64::from(p.operation),
                        f64::from(p.live),
                        f64::from(p.heap()),
                    )
                })
                .collect(),
            ink: HEAP,
            label: None,
        },
        Layer::Line {
            points: line(|p| p.heap_without_compaction()),
            ink: NEVER_COMPACTED,
            dashed: true,
            label: Some("heap without compaction".into()),
        },
        Layer::Line {
            points: line(|p| p.heap()),
            ink: HEAP,
            dashed: false,
            label: Some("heap: live + dead (shaded)".into()),
        },
        Layer::Line {
            points: line(|p| p.live),
            ink: LIVE,
            dashed: false,
            label: Some("live entries".into()),
        },
    ];
    if heap.first_pop <= heap.events {
        layers.push(Layer::Mark {
            x: f64::from(heap.first_pop) - 0.5,
            ink: Ink::Muted,
            label: "pops".into(),
        });
    }
    let events = f64::from(heap.events);
    Plot {
        x: 0.0..events,
        y: 0.0..events * 1.05,
        x_desc: "operation: cancels, then pops".into(),
        y_desc: "heap entries".into(),
        x_tick: chart::number_tick,
        y_tick: chart::number_tick,
        layers,
    }
}

fn starts(runs: &Runs) -> String {
    runs.start_s
        .iter()
        .map(|&start| duration(start))
        .collect::<Vec<_>>()
        .join(", ")
}

fn describe_runs(late: &LateRun) -> String {
    format!(
        "Start times of a job due every {}, whose run {} overruns its period by {}. \
         Fixed rate: {}. Fixed delay: {}.",
        duration(late.period_s),
        late.slow_run,
        duration(late.late_by_s),
        starts(&late.fixed_rate),
        starts(&late.fixed_delay),
    )
}

fn describe_heap(heap: &Compaction) -> String {
    let after = heap.after_cancels;
    format!(
        "Heap entries while {} of {} events are cancelled and the rest popped: {} compactions; \
         after the cancels the heap holds {} entries, {} without compaction.",
        count(u64::from(heap.cancelled)),
        count(u64::from(heap.events)),
        count(u64::from(heap.compactions)),
        count(u64::from(after.heap())),
        count(u64::from(after.heap_without_compaction())),
    )
}
