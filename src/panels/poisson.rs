//! Poisson: N events a day at random, memoryless times.

use leptos::prelude::*;
use stampede_core::panels;
use stampede_core::panels::poisson::PoissonPanel;
use stampede_core::poisson::{self, BucketOutcome, PoissonParams, PoissonRun, Tenant};
use stampede_core::units::{self, SECONDS_PER_DAY, clock, count, duration, rate};

use super::{Caption, ChartBlock, Computed, PanelUi, below_first_screen};
use crate::chart::{self, ChartCanvas, Ink, Layer, Plot, number_tick};

impl PanelUi for PoissonPanel {
    fn explanation() -> impl IntoView + 'static {
        explanation()
    }

    fn figure() -> impl IntoView + 'static {
        figure()
    }
}

fn explanation() -> impl IntoView {
    view! {
        <p class="explain">
            "Some work should happen about N times a day, but not on a fixed
            beat: health probes, synthetic checks, sampled audits. Drawing each
            wait at random from the exponential distribution makes the events a
            Poisson process: they come at an average rate λ = N / 86,400 s, and
            the time already waited says nothing about the time still to wait."
        </p>
        <p class="explain">
            "The mean gap is 1 / λ, but the typical gap is shorter: half of all
            gaps are below ln 2 / λ (69 % of the mean) and 95 % below ln 20 / λ
            (three times the mean). Short gaps are common and long ones rare, so
            even a calm schedule has small clusters. The gap chart compares the
            measured gaps with the curve λe^(−λt)."
        </p>
        <p class="explain">
            "A daily window limits when events may run. Scaling packs all N into
            the window, λ = N / window length, and keeps the gaps exponential.
            Deferring keeps the daily rate and holds every event drawn outside
            the window until it opens: all of them then run in the same second,
            which the hourly chart shows as one tall bar."
        </p>
        <p class="explain">
            "A token bucket in front caps the pace: it holds up to C tokens,
            gains r a second, and each event spends one. An event that finds it
            empty is dropped, or waits for the next token. When λ exceeds r,
            about 1 − r / λ of the events find no token."
        </p>
        <p class="explain">
            "Use it for work whose timing should look natural and not line up
            across machines. Do not use it when a job must run at a known time,
            or when bursts hurt: random times do bunch up, and only a limit
            such as the token bucket bounds the busiest minute."
        </p>
    }
}

/// The draws made ahead in one idle moment: about 3 ms of work in
/// Chromium.
const DRAWS_PER_IDLE_SLICE: u32 = 100_000;

fn figure() -> impl IntoView {
    let computed =
        Computed::cached_ahead::<poisson::PoissonCache>(|s| &s.poisson, DRAWS_PER_IDLE_SLICE);
    let Computed { params, run } = computed;

    let timeline = ChartCanvas::new(110.0);
    let gaps = ChartCanvas::new(230.0);
    let hours = ChartCanvas::new(230.0);
    chart::redraw_on_change("figure", move || {
        let params = params.get();
        run.with(|run| {
            let Ok(run) = run else { return };
            timeline.draw(|area, pen| timeline_plot(&params, run).draw(area, pen));
            gaps.draw(|area, pen| gap_plot(run).draw(area, pen));
            hours.draw(|area, pen| hourly_plot(&params, run).draw(area, pen));
        });
    });

    let bucket = move || run.with(|run| run.as_ref().ok().and_then(|run| run.bucket.clone()));
    view! {
        {timeline_block(computed, timeline)}
        {computed.key_numbers(panels::poisson::key_numbers)}
        {below_first_screen(move || view! {
            {gaps_block(computed, gaps)}
            {hours_block(computed, hours)}
            {move || bucket().map(bucket_block)}
        })}
    }
}

type PoissonComputed = Computed<PoissonParams, PoissonRun>;

fn timeline_block(computed: PoissonComputed, timeline: ChartCanvas) -> impl IntoView {
    let label = computed.describe(|_, run| {
        let day: u32 = run.first_day_per_minute.iter().sum();
        // The earliest of the busiest minutes.
        let (minute, most) =
            run.first_day_per_minute
                .iter()
                .enumerate()
                .fold(
                    (0, 0),
                    |top, (minute, &n)| if n > top.1 { (minute, n) } else { top },
                );
        format!(
            "{} events in the first day, by minute of local time; the busiest minute, {}, holds {}",
            count(u64::from(day)),
            clock(minute as f64 * 60.0),
            count(u64::from(most))
        )
    });
    view! {
        <ChartBlock figure=panels::poisson::TIMELINE>
            <Caption slot>"Each bar is a minute with events; the shaded stretch is the window."</Caption>
            {timeline.view("poisson-timeline", label)}
        </ChartBlock>
    }
}

fn gaps_block(computed: PoissonComputed, gaps: ChartCanvas) -> impl IntoView {
    let label = computed.describe(|_, run| {
        let [p50, p95, _] = run.gap_quantiles;
        format!(
            "Histogram of {} gaps: median {}, 95th percentile {}",
            count(run.gap_count as u64),
            duration(p50.measured),
            duration(p95.measured)
        )
    });
    view! {
        <ChartBlock figure=panels::poisson::GAPS>
            <Caption slot>
                "Measured gaps against the exponential curve; dashed marks are the measured p50 and p95."
            </Caption>
            {gaps.view("poisson-gaps", label)}
        </ChartBlock>
    }
}

fn hours_block(computed: PoissonComputed, hours: ChartCanvas) -> impl IntoView {
    let label = computed.describe(|params, run| {
        let tenants = params.tenants().len();
        let total: u32 = run.per_hour.iter().flatten().sum();
        format!(
            "{} events by local hour, {tenants} tenant(s)",
            count(u64::from(total))
        )
    });
    view! {
        <ChartBlock figure=panels::poisson::HOURS>
            <Caption slot>"Summed over the horizon, local time; one colour per tenant."</Caption>
            {hours.view("poisson-hours", label)}
        </ChartBlock>
    }
}

/// The first day's events per minute of local time, the window shaded.
fn timeline_plot(params: &PoissonParams, run: &PoissonRun) -> Plot {
    let per_minute: Vec<f64> = run
        .first_day_per_minute
        .iter()
        .map(|&c| f64::from(c))
        .collect();
    let busiest = per_minute.iter().copied().fold(1.0, f64::max);
    let mut layers: Vec<Layer> = params
        .window_spans()
        .into_iter()
        .filter(|&(from, to)| to - from < 86_400.0)
        .map(|(from, to)| Layer::Span {
            from,
            to,
            label: String::new(),
        })
        .collect();
    layers.push(Layer::Bars {
        start: 0.0,
        width: 60.0,
        heights: per_minute,
        ink: Ink::Series(0),
        label: None,
    });
    Plot {
        x: 0.0..86_400.0,
        y: 0.0..busiest,
        x_desc: "local time".into(),
        y_desc: "per minute".into(),
        x_tick: clock,
        y_tick: number_tick,
        layers,
    }
}

/// The gap histogram, the exponential's expected counts and the measured
/// quantiles.
fn gap_plot(run: &PoissonRun) -> Plot {
    let histogram = &run.gap_histogram;
    let heights: Vec<f64> = histogram.counts.iter().map(|&c| f64::from(c)).collect();
    let reach = histogram.bin_seconds * heights.len() as f64;
    let top = heights
        .iter()
        .copied()
        .chain(histogram.expected.iter().map(|&(_, y)| y))
        .fold(1.0, f64::max);
    let [p50, p95, _] = run.gap_quantiles;
    Plot {
        x: 0.0..reach,
        y: 0.0..top * 1.1,
        x_desc: "gap".into(),
        y_desc: "gaps per bin".into(),
        x_tick: chart::duration_tick,
        y_tick: number_tick,
        layers: vec![
            Layer::Bars {
                start: 0.0,
                width: histogram.bin_seconds,
                heights,
                ink: Ink::Series(0),
                label: Some("measured".into()),
            },
            Layer::Line {
                points: histogram.expected.clone(),
                ink: Ink::Reference,
                dashed: false,
                label: Some(format!("exponential, λ = {}", rate(run.rate_per_second))),
            },
            Layer::Mark {
                x: p50.measured,
                ink: Ink::Muted,
                label: format!("p50 {}", duration(p50.measured)),
            },
            Layer::Mark {
                x: p95.measured,
                ink: Ink::Muted,
                label: format!("p95 {}", duration(p95.measured)),
            },
        ],
    }
}

/// Events per local hour, tenants stacked, with the level one steady
/// tenant would reach.
fn hourly_plot(params: &PoissonParams, run: &PoissonRun) -> Plot {
    let tenants = params.tenants();
    // Stacked by drawing each running total, the tallest first, so the
    // lower tenants paint over the upper ones' bases.
    let mut stacked: Vec<[f64; 24]> = Vec::with_capacity(run.per_hour.len());
    let mut total = [0.0; 24];
    for hours in &run.per_hour {
        for (sum, &events) in total.iter_mut().zip(hours) {
            *sum += f64::from(events);
        }
        stacked.push(total);
    }
    let top = total.iter().copied().fold(1.0, f64::max);
    let mut layers: Vec<Layer> = stacked
        .iter()
        .zip(&tenants)
        .enumerate()
        .rev()
        .map(|(index, (heights, tenant))| Layer::Bars {
            start: 0.0,
            width: 1.0,
            heights: heights.to_vec(),
            ink: Ink::Series(index),
            label: Some(tenant_label(index, tenant)),
        })
        .collect();
    if let [tenant] = tenants.as_slice() {
        let per_hour = tenant.rate_per_second(params.policy) * 3600.0 * f64::from(params.days);
        layers.push(Layer::Level {
            y: per_hour,
            ink: Ink::Reference,
            label: format!("λ · 1 h = {}", units::significant(per_hour, 3)),
        });
    }
    Plot {
        x: 0.0..24.0,
        y: 0.0..top * 1.15,
        x_desc: "local hour".into(),
        y_desc: "events per hour".into(),
        x_tick: |hour| clock(hour * 3600.0),
        y_tick: number_tick,
        layers,
    }
}

/// "tenant 2: 1000 a day, 22–6 h".
fn tenant_label(index: usize, tenant: &Tenant) -> String {
    let n = count(u64::from(tenant.per_day));
    if tenant.window().1 == SECONDS_PER_DAY {
        format!("tenant {}: {n} a day", index + 1)
    } else {
        format!(
            "tenant {}: {n} a day, {}–{} h",
            index + 1,
            tenant.window_start,
            tenant.window_end
        )
    }
}

/// What the token bucket did, as one bar cut in three.
fn bucket_block(outcome: BucketOutcome) -> impl IntoView {
    let total = f64::from(outcome.accepted + outcome.delayed + outcome.rejected).max(1.0);
    let parts = [
        ("ran at once", outcome.accepted, "bucket-ran"),
        ("waited for a token", outcome.delayed, "bucket-waited"),
        ("dropped", outcome.rejected, "bucket-dropped"),
    ];
    let described = parts
        .iter()
        .map(|(what, n, _)| format!("{} {what}", count(u64::from(*n))))
        .collect::<Vec<_>>()
        .join(", ");
    let bar = view! {
            <div class="poisson-bucket" role="img" aria-label=described>
                {parts
                    .iter()
                    .filter(|(_, n, _)| *n > 0)
                    .map(|(_, n, class)| {
                        let share = 100.0 * f64::from(*n) / total;
                        view! { <span class=*class style=format!("width:{share}%")></span> }
                    })
                    .collect_view()}
            </div>
            <ul class="poisson-bucket-legend">
                {parts
                    .iter()
                    .map(|(what, n, class)| {
                        view! { <li><span class=format!("swatch {class}")></span>{format!("{} {what}", count(u64::from(*n)))}</li> }
                    })
                    .collect_view()}
            </ul>
    };
    view! {
        <ChartBlock figure=panels::poisson::BUCKET png=false>
            <Caption slot>"What happened to each event that reached the bucket."</Caption>
            {bar}
        </ChartBlock>
    }
}
