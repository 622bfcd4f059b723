//! Jitter: random delays that break up a bulk enqueue.

use leptos::prelude::*;
use stampede_core::jitter::{self, JitterParams, JitterRun, JitterStrategy, TimeAxis};
use stampede_core::panels;
use stampede_core::panels::jitter::JitterPanel;
use stampede_core::panels::snippet;
use stampede_core::units::{count, significant};

use super::{Caption, ChartBlock, Computed, PanelUi, below_first_screen, use_it};
use crate::chart::{self, Area, ChartCanvas, Drawn, Ink, Layer, Pen, Plot};
use crate::store::Store;

impl PanelUi for JitterPanel {
    fn explanation() -> impl IntoView + 'static {
        explanation()
    }

    fn figure() -> impl IntoView + 'static {
        figure()
    }
}

/// Ink of the chosen strategy and of the no-jitter herd, the same in both charts.
const CHOSEN: Ink = Ink::Series(0);
const HERD: Ink = Ink::Series(1);

fn explanation() -> impl IntoView {
    view! {
        <p class="explain">
            "A scheduler often creates a pile of work in one go: a nightly task
            enqueues a cleanup job per account, ten thousand of them, all
            runnable at the same moment. Every free worker takes one at once,
            so whatever those jobs call (a database, a partner's API, a mail
            service) receives the whole pile within seconds. That spike is the
            thundering herd, and a rate-limited service answers it with errors
            and retries that make it worse."
        </p>
        <p class="explain">
            "Jitter gives every job its own random delay. With a delay drawn
            evenly from [min, max), each moment of that range is as likely as
            any other, so N jobs arrive at a steady N / (max − min): 10,000
            jobs over 30 minutes come to 5.56 a second, 333 a minute. Nothing runs
            before t0 + min (a min above zero gives a freshly deployed service
            time to warm up), and the last job starts just before t0 + max."
        </p>
        <p class="explain">
            "The delay has to differ from job to job. Giving every job the same
            ten-minute wait changes nothing but the clock: the full herd arrives
            ten minutes later. Other shapes have their own costs: an exponential
            delay puts most jobs near the start, so its first minutes are far
            busier than the average, and a normal one gathers them around its
            mean."
        </p>
        <p class="explain">
            "Pick the window from the downstream's limit, stated per second as APIs state it: L
            calls a second. Taking L a second it needs at least N / L to take all N, so no window
            shorter can fit however evenly it spreads. Random starts are not even, though: over W
            seconds each second holds Binomial(N, 1/W) jobs, and the busiest of W such seconds
            sits several spreads above the flat rate N / W. Each night draws the delays afresh, so a
            window that happened to fit one night can overflow the next. The panel answers with the
            window that keeps every second under L on the share of nights you choose, computed
            from the multinomial counts to within a thousandth of a point, and shows this seed's
            night beside it: 5,000 jobs
            against 50 a second need 100 s by the floor, and 2 min 48 s on 95 % of nights."
        </p>
        <p class="explain">
            "Every job may wait up to max, so jitter suits background work with a loose deadline
            (cleanups, reconciliation, reports), not a job a user is waiting for, nor jobs that
            must run in a set order. A small batch, or a downstream that easily absorbs the burst,
            needs no jitter at all."
        </p>
    }
}

fn figure() -> impl IntoView {
    let computed = Computed::cached::<jitter::JitterCache>(|s| &s.jitter);
    let Computed { params, run } = computed;
    let herd = Memo::new(move |_| {
        run.with(|run| {
            let run = run.as_ref().ok()?;
            Some(params.with(|params| jitter::herd(params, run)))
        })
    });

    let arrivals = ChartCanvas::new(440.0);
    let completion = ChartCanvas::new(300.0);
    chart::redraw_on_change("figure", move || {
        let params = params.get();
        run.with(|run| {
            herd.with(|herd| {
                let (Ok(run), Some(herd)) = (run, herd) else {
                    return;
                };
                let axis = TimeAxis::for_run(&params, run);
                arrivals.draw(|area, pen| draw_arrivals(area, pen, &params, &axis, run, herd));
                completion
                    .draw(|area, pen| completion_plot(&params, &axis, run, herd).draw(area, pen));
            })
        });
    });

    view! {
        {arrivals_block(computed, arrivals)}
        {window_answer(computed)}
        {computed.key_numbers(panels::jitter::key_numbers)}
        {below_first_screen(move || completion_block(params, completion))}
        {use_it(move || params.with(snippet::jitter::snippets))}
    }
}

fn arrivals_block(
    computed: Computed<JitterParams, JitterRun>,
    arrivals: ChartCanvas,
) -> impl IntoView {
    let Computed { params, run } = computed;
    let label = move || {
        let params = params.get();
        let result = run.with(|run| {
            run.as_ref().map_or_else(
                |_| String::new(),
                |run| {
                    format!(
                        " Its busiest second holds {} jobs; {} of {} seconds are over the limit.",
                        count(u64::from(run.peak_second.1)),
                        count(u64::from(run.seconds_over_limit)),
                        count(run.per_second.len() as u64),
                    )
                },
            )
        });
        format!(
            "Two bar charts of jobs starting over one night. Top: without jitter, all {} jobs start at once. \
             Bottom: with the chosen delay ({}), against a downstream limit of {} jobs a second.{result}",
            count(u64::from(params.jobs)),
            params.strategy.label(),
            count(u64::from(params.limit_per_second)),
        )
    };
    view! {
        <ChartBlock figure=panels::jitter::ARRIVALS>
            <Caption slot>
                "One night, this seed's: jobs starting in each bin, without jitter (top) and with the
            chosen delay (bottom), each on its own scale; bars above the dashed line break the
            downstream's limit. Wide bins average their seconds, so the key numbers count the limit
            per second."
            </Caption>
            {arrivals.view("jitter-arrivals", label)}
        </ChartBlock>
    }
}

fn completion_block(params: Memo<JitterParams>, completion: ChartCanvas) -> impl IntoView {
    let label = move || {
        let params = params.get();
        format!(
            "Jobs started by each moment, rising to {} with the chosen delay ({}), a single step at t0 without jitter, \
             and the fastest the downstream's limit allows as a dashed line.",
            count(u64::from(params.jobs)),
            params.strategy.label(),
        )
    };
    view! {
        <ChartBlock figure=panels::jitter::COMPLETION>
            <Caption slot>
                "How many jobs have started by each moment; where a curve runs above the dashed line,
            the most the downstream can take at its limit, jobs arrive faster than it can serve them."
            </Caption>
            {completion.view("jitter-completion", label)}
        </ChartBlock>
    }
}

/// "What window do I need?", a polite live region, so a reader who changes
/// a control hears the new answer. Its button stays in place when the
/// window is in use, so the keyboard focus is never dropped; a click moves
/// it to the max delay it set, where that control is on screen.
fn window_answer(computed: Computed<JitterParams, JitterRun>) -> impl IntoView {
    let store = Store::get();
    let Computed { params, run } = computed;
    let answer = Memo::new(move |_| {
        run.with(|run| {
            let run = run.as_ref().ok()?;
            Some(params.with(|params| panels::jitter::window_answer(params, run)))
        })
    });
    let button = move || answer.with(|answer| answer.as_ref()?.button.clone());
    let use_window = move |_| {
        let Some(button) = button() else { return };
        if button.in_use {
            return;
        }
        chart::mark_change();
        if button.to_uniform {
            store.set("js", JitterStrategy::Uniform.slug());
        }
        store.set("hi", &button.max_delay.to_string());
        request_animation_frame(|| crate::browser::focus("f-hi-range"));
    };
    view! {
        <div class="answer" id="window-answer" aria-live="polite">
            <h3>"What window do I need?"</h3>
            {move || {
                answer
                    .with(|answer| {
                        answer
                            .iter()
                            .flat_map(|answer| answer.sentences.clone())
                            .map(|sentence| view! { <p>{sentence}</p> })
                            .collect_view()
                    })
            }}
            <button
                type="button"
                id="use-window"
                hidden=move || button().is_none()
                aria-disabled=move || button().is_some_and(|button| button.in_use).to_string()
                on:click=use_window
            >
                {move || button().map(|button| button.label).unwrap_or_default()}
            </button>
        </div>
    }
}

/// Two stacked bar charts on one time axis: the herd on top, the chosen
/// delay below, each scaled to its own tallest bar and the limit.
fn draw_arrivals(
    area: &Area,
    pen: &Pen,
    params: &JitterParams,
    axis: &TimeAxis,
    run: &JitterRun,
    herd: &JitterRun,
) -> Drawn {
    chart::draw_stacked(
        area,
        pen,
        &[
            arrivals_plot(params, axis, herd, HERD, "no jitter: all N at t0"),
            arrivals_plot(params, axis, run, CHOSEN, params.strategy.label()),
        ],
    )
}

/// One run's arrivals per bin under the downstream's limit for that bin.
fn arrivals_plot(
    params: &JitterParams,
    axis: &TimeAxis,
    run: &JitterRun,
    ink: Ink,
    name: &str,
) -> Plot {
    let limit = params.limit_per(f64::from(axis.bin_seconds));
    let unit = f64::from(axis.unit_seconds);
    let end = axis.end() / unit;
    let counts: Vec<f64> = run.arrivals(axis).into_iter().map(f64::from).collect();
    let tallest = counts.iter().copied().fold(limit, f64::max);
    Plot {
        x: 0.0..end,
        y: 0.0..tallest * 1.1,
        x_desc: format!("time after the enqueue ({})", axis.unit_name),
        y_desc: format!("jobs per {}", axis.bin_name),
        x_tick: chart::number_tick,
        y_tick: chart::number_tick,
        // The limit is named in the legend beside the bars it caps.
        layers: vec![
            Layer::Bars {
                start: 0.0,
                width: f64::from(axis.bin_seconds) / unit,
                heights: counts,
                ink,
                label: Some(name.into()),
            },
            Layer::Line {
                points: vec![(0.0, limit), (end, limit)],
                ink: Ink::Reference,
                dashed: true,
                label: Some(format!(
                    "limit L = {} per {}",
                    significant(limit, 3),
                    axis.bin_name
                )),
            },
        ],
    }
}

/// The completion curves of the chosen delay and the herd, under the
/// fastest the downstream's limit allows.
fn completion_plot(
    params: &JitterParams,
    axis: &TimeAxis,
    run: &JitterRun,
    herd: &JitterRun,
) -> Plot {
    let unit = f64::from(axis.unit_seconds);
    let in_units = |points: Vec<(f64, f64)>| {
        points
            .into_iter()
            .map(|(t, jobs)| (t / unit, jobs))
            .collect()
    };
    Plot {
        x: 0.0..axis.end() / unit,
        y: 0.0..f64::from(params.jobs) * 1.05,
        x_desc: format!("time after the enqueue ({})", axis.unit_name),
        y_desc: "jobs started".into(),
        x_tick: chart::number_tick,
        y_tick: chart::number_tick,
        layers: vec![
            Layer::Line {
                points: in_units(params.fastest_at_limit(axis.end())),
                ink: Ink::Reference,
                dashed: true,
                label: Some("most the limit allows, min(N, L·t)".into()),
            },
            Layer::Line {
                points: in_units(herd.completion(axis)),
                ink: HERD,
                dashed: false,
                label: Some("no jitter".into()),
            },
            Layer::Line {
                points: in_units(run.completion(axis)),
                ink: CHOSEN,
                dashed: false,
                label: Some(params.strategy.label().into()),
            },
        ],
    }
}
