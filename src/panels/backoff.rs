//! Backoff: how long clients wait before retrying, and why they need jitter.

use std::sync::{Arc, Mutex, PoisonError};

use leptos::prelude::*;
use stampede_core::backoff::{
    self, BackoffParams, BackoffRun, DependencyModel, Fleet, FlipSearch, RetryStrategy,
    StrategyFleet,
};
use stampede_core::error::InvalidInput;
use stampede_core::key_numbers::KeyNumber;
use stampede_core::panels;
use stampede_core::panels::backoff::BackoffPanel;
use stampede_core::panels::snippet;
use stampede_core::units::{count, duration, significant};

use super::{Caption, ChartBlock, Computed, PanelUi, below_first_screen, ready_when_idle, use_it};
use crate::chart::{self, ChartCanvas, Ink, Layer, Plot};
use crate::store::Store;

impl PanelUi for BackoffPanel {
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
            "A client whose call failed usually tries again. When a dependency goes down, thousands
            of clients fail at the same moment, and if they all retried at once they would pile the
            most load onto it exactly when it can take the least. Backoff makes a client wait before
            each retry, and wait longer after every failure."
        </p>
        <p class="explain">
            "Exponential backoff waits e(n) = min(c, b·f^(n−1)) before retry n: with base b = 1 s,
            factor f = 2 and cap c = 60 s, that is 1, 2, 4, … 32 s, then 60 s for every retry after.
            Linear backoff waits min(c, b·n), constant backoff always b."
        </p>
        <p class="explain">
            "Without jitter, clients that failed together also wait together, so every retry reaches
            the dependency as a spike as tall as the fleet, and so does the one that finds it back up.
            Full jitter waits a uniform random share of e(n), from nothing to all of it; equal jitter
            waits e(n)/2 plus a random share of the other half; decorrelated jitter waits between b
            and three times its previous wait, capped at c, so each wait grows from the last one drawn."
        </p>
        <p class="explain">
            "The library strategies follow one version each of Sidekiq, Celery, Active Job and the AWS
            SDK, with its own formula, counter and constants: Sidekiq and Active Job wait about n⁴
            seconds, for background jobs that can wait hours, while the AWS SDK caps its waits at 20 s,
            for requests someone is waiting on."
        </p>
        <p class="explain">
            "Backoff with jitter suits any retry that many clients may make at once: calls to a shared
            service, reconnects after a network blip, jobs failing against the same database. The
            jitter has a price: full jitter waits half as long on average, so its clients call more
            often and, with a fixed number of retries, more of them give up during a long outage. No
            backoff helps with a failure that will not go away, such as a rejected request: retrying it
            only adds load, so it should fail at once. Nor is a long wait right for a reader watching a
            spinner, who is better served by a quick second try and then a clear error."
        </p>
        <p class="explain">
            "The verdict ranks by the objective only the strategies where at least the success floor's
            share of clients succeed, since a fleet that gives up spares the dependency; the others
            follow, most successes first."
        </p>
        <p class="explain">
            "The figure follows M clients that fail together at t = 0 against a dependency that is down
            for D seconds and then serves at most K calls a second: in each second the first K calls
            succeed and the rest fail, as a 503 would (the SDKs retry and charge quota for it as a
            transient error). A herd that returns together fails
            again, and its next retry comes back together too, so the overload can outlast the outage.
            A client that spends all its retries gives up. Every compared strategy replays the same
            clients with the same random draws."
        </p>
        <p class="explain">
            "Two strategies spend a budget. The AWS SDK's standard mode keeps a retry quota in each SDK
            client object, a bucket of 500 tokens that each retry after an error costs 14 (botocore 1.44)
            and each success pays back: alone, a client gets 35 retries; shared by many requests through
            one SDK client, a fleet that keeps failing stops retrying. A circuit breaker the fleet shares
            opens when most recent calls failed and turns calls away without touching the dependency,
            then lets one probe through."
        </p>
    }
}

fn figure() -> impl IntoView {
    let computed = Computed::cached::<backoff::BackoffCache>(|s| &s.backoff);
    let Computed { params, run } = computed;

    let calls = ChartCanvas::new(320.0);
    let waits = ChartCanvas::new(280.0);
    chart::redraw_on_change("figure", move || {
        let (outage, capacity) = params.with(|params| (params.outage, capacity_of(params)));
        run.with(|run| {
            let Ok(run) = run else {
                return;
            };
            calls.draw(|area, pen| calls_plot(run, outage, capacity).draw(area, pen));
            waits.draw(|area, pen| bands_plot(&run.fleets).draw(area, pen));
        });
    });

    view! {
        {calls_block(computed, calls)}
        {verdict(computed)}
        {computed.key_numbers(numbers_beside_the_verdict)}
        {below_first_screen(move || view! {
            {waits_block(params, waits)}
            {totals_block(run)}
        })}
        {use_it(move || params.with(snippet::backoff::snippets))}
    }
}

type BackoffComputed = Computed<BackoffParams, BackoffRun>;

fn calls_block(computed: BackoffComputed, calls: ChartCanvas) -> impl IntoView {
    let Computed { params, run } = computed;
    let labels = move || {
        run.with(|run| {
            let labels: Vec<&str> = run
                .iter()
                .flat_map(|run| &run.fleets)
                .map(|fleet| fleet.label)
                .collect();
            labels.join(", ")
        })
    };
    let label = move || {
        let capacity = params
            .with(capacity_of)
            .map_or_else(String::new, |capacity| {
                format!(
                    ", and a level line the capacity of {} calls a second",
                    count(u64::from(capacity))
                )
            });
        format!(
            "Calls per second over time on a logarithmic scale, one line for each of {}; a dashed line marks \
             the moment the dependency is back up, after {}{capacity}.",
            labels(),
            duration(params.with(|params| params.outage)),
        )
    };
    let served = move || match params.with(capacity_of) {
        Some(_) => {
            "from the dashed line at D on, the calls below the capacity line K are served in each \
             second and the rest fail."
        }
        None => "from the dashed line at D on every call succeeds.",
    };
    view! {
        <ChartBlock figure=panels::backoff::CALLS>
            <Caption slot>
                "Each strategy's calls reaching the dependency, on a logarithmic scale so that a spike of
            the whole fleet and a thin trickle both show; a line along the bottom edge is a stretch
            without calls, and " {served}
            </Caption>
            {calls.view("backoff-calls", label)}
        </ChartBlock>
    }
}

/// "Which policy is better here?": the verdict among the key numbers,
/// shown as the answer with the rule it ranks by, and the change that
/// would turn it around, searched for while the page is idle, one change a
/// step, so that a drag never waits for it.
fn verdict(computed: BackoffComputed) -> impl IntoView {
    let Computed { params, run } = computed;
    let flip = RwSignal::new(Flip::Searching);
    let search = Arc::new(Mutex::new(None::<FlipSearch>));
    let started = Arc::clone(&search);
    let state = Store::get().state;
    ready_when_idle(
        move || {
            let seed = state.with(|state| state.seed);
            params.with(|params| {
                run.with(|run| {
                    let begun = run
                        .as_ref()
                        .ok()
                        .map(|run| FlipSearch::new(params, seed, run));
                    *lock(&started) = begun;
                })
            });
            flip.set(Flip::Searching);
        },
        move || {
            let mut search = lock(&search);
            let Some(searching) = search.as_mut() else {
                return false;
            };
            let more = searching.step();
            if !more {
                flip.set(match searching.found() {
                    Some(found) => Flip::Found(found.sentence.clone()),
                    None => Flip::NoneFound,
                });
                *search = None;
            }
            more
        },
    );
    let flip_text = move || match flip.get() {
        Flip::Searching => "Looking for one change that would turn it around…".to_string(),
        Flip::Found(sentence) => sentence,
        Flip::NoneFound => {
            "No single change tried (more or fewer retries, a longer or shorter cap or base, a \
             steeper factor) turns it around."
                .to_string()
        }
    };
    move || {
        params.with(|params| {
            run.with(|run| {
                let verdict = run.as_ref().ok().and_then(|run| {
                    panels::backoff::key_numbers(params, run)
                        .into_iter()
                        .find(is_verdict)
                })?;
                Some(view! {
                    <div class="answer" id="verdict" aria-live="polite">
                        <h3>"Which policy is better here?"</h3>
                        <dl>
                            <dt class="sr-only">{verdict.label}</dt>
                            <dd data-key=verdict.key>{verdict.value}</dd>
                            <dd data-key="flip" aria-live="polite">{flip_text}</dd>
                            <dd class="formula">"Ranked by " {verdict.formula}</dd>
                        </dl>
                    </div>
                })
            })
        })
    }
}

/// Where the search for a flip stands.
#[derive(Clone, Debug, PartialEq)]
enum Flip {
    Searching,
    Found(String),
    NoneFound,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// K, when the dependency serves at most K calls a second.
fn capacity_of(params: &BackoffParams) -> Option<u32> {
    (params.dependency == DependencyModel::Capacity).then_some(params.capacity)
}

fn waits_block(params: Memo<BackoffParams>, waits: ChartCanvas) -> impl IntoView {
    let label = move || {
        format!(
            "The wait before each retry for {}: a shaded range from the shortest to the longest draw, \
             with lines at the median and the 90th percentile.",
            params.with(|params| params.strategy.label()),
        )
    };
    let strategy = move || params.with(|params| params.strategy.label());
    view! {
        <ChartBlock figure=panels::backoff::WAITS>
            <Caption slot>
                {strategy}
                ": over 10,000 draws for each retry, the shaded range runs from the shortest wait to the
                longest; a jitter-free strategy shrinks it to one line."
            </Caption>
            {waits.view("backoff-waits", label)}
        </ChartBlock>
    }
}

/// The totals of every strategy side by side, one column a strategy.
fn totals_block(run: Memo<Result<BackoffRun, InvalidInput>>) -> impl IntoView {
    let strategies = move || {
        run.with(|run| {
            run.iter()
                .flat_map(|run| &run.fleets)
                .map(|strategy| view! { <th scope="col">{strategy.label}</th> })
                .collect_view()
        })
    };
    let rows = TOTALS
        .iter()
        .map(|&(name, figure)| {
            let cells = move || {
                run.with(|run| {
                    run.iter()
                        .flat_map(|run| &run.fleets)
                        .map(|strategy| view! { <td>{figure(&strategy.fleet)}</td> })
                        .collect_view()
                })
            };
            view! {
                <tr>
                    <th scope="row">{name}</th>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    view! {
        <ChartBlock figure=panels::backoff::TOTALS png=false>
            <Caption slot>
                "The same fleet and the same outage for every strategy: the load it brings back, and
            when its clients are done."
            </Caption>
            <div class="table-scroll" tabindex="0" role="region" aria-label="Totals per strategy">
                <table class="figures backoff-totals">
                    <thead>
                        <tr>
                            <th scope="col">"Strategy"</th>
                            {strategies}
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </ChartBlock>
    }
}

fn is_verdict(number: &KeyNumber) -> bool {
    number.key == "verdict"
}

/// The key numbers but the verdict, which the answer above them shows.
fn numbers_beside_the_verdict(params: &BackoffParams, run: &BackoffRun) -> Vec<KeyNumber> {
    let mut numbers = panels::backoff::key_numbers(params, run);
    numbers.retain(|number| !is_verdict(number));
    numbers
}

/// A time, or "never" for a client that never got there.
fn time_or_never(at: Option<f64>) -> String {
    at.map_or_else(|| "never".to_string(), duration)
}

/// A row of the totals table: what the figure is, and how it reads for one
/// strategy's fleet.
type Total = (&'static str, fn(&Fleet) -> String);

/// The rows of the totals table; one column a strategy keeps it narrow.
const TOTALS: [Total; 10] = [
    ("Healthy again at", |fleet| duration(fleet.healthy_at)),
    ("Peak load", |fleet| {
        fleet.peak_load.map_or_else(
            || "unlimited".into(),
            |load| format!("{} × K", significant(load, 3)),
        )
    }),
    ("Calls", |fleet| count(fleet.calls)),
    ("Wasted calls", |fleet| count(fleet.wasted())),
    ("Succeeded", |fleet| {
        format!(
            "{} ({} %)",
            count(u64::from(fleet.succeeded)),
            significant(100.0 * fleet.succeeded_share(), 3)
        )
    }),
    ("Time to success, p50 / p99", |fleet| {
        format!(
            "{} / {}",
            time_or_never(fleet.success_p50),
            time_or_never(fleet.success_p99)
        )
    }),
    ("Peak once back", |fleet| {
        let peak = fleet.peak_after_outage.per_second;
        if peak > 0.0 {
            format!("{} /s", significant(peak, 3))
        } else {
            "none".into()
        }
    }),
    ("99 % succeeded by", |fleet| time_or_never(fleet.success_99)),
    ("Last success", |fleet| time_or_never(fleet.last_success)),
    ("Gave up", |fleet| count(u64::from(fleet.gave_up))),
];

/// A unit that keeps an axis of up to `seconds` readable: its length in
/// seconds and its name.
fn time_unit(seconds: f64) -> (f64, &'static str) {
    match seconds {
        s if s < 300.0 => (1.0, "s"),
        s if s < 3.0 * 3600.0 => (60.0, "min"),
        s if s < 3.0 * 86_400.0 => (3600.0, "h"),
        _ => (86_400.0, "days"),
    }
}

/// Tick text for a base-10 logarithm: the number it stands for.
fn power_of_ten_tick(exponent: f64) -> String {
    significant(10f64.powf(exponent), 2)
}

/// Calls per second over time, one line per strategy, with y the base-10
/// logarithm of the rate: without jitter a bin holds all M clients, with
/// it a few hundred a second, and a linear axis would flatten the latter.
/// Bins without calls sit one decade below a single call, just above the
/// bottom edge.
/// With a `capacity`, a level line marks it.
fn calls_plot(run: &BackoffRun, outage: f64, capacity: Option<u32>) -> Plot {
    let (bin, bins) = run.fleets.first().map_or((1.0, 0), |first| {
        let timeline = &first.fleet.timeline;
        (timeline.bin_seconds, timeline.calls.len())
    });
    let horizon = bin * bins as f64;
    let (unit, unit_name) = time_unit(horizon);
    let none = (1.0 / bin).log10() - 1.0;
    let mut highest = none + 1.0;
    let inks = strategy_inks(run.fleets.iter().map(|strategy| strategy.strategy));
    let mut layers: Vec<Layer> = run
        .fleets
        .iter()
        .zip(inks)
        .map(|(strategy, ink)| {
            // A step outline, one stretch for each run of equal bins.
            let mut points: Vec<(f64, f64)> = Vec::new();
            for (at, &calls) in strategy.fleet.timeline.calls.iter().enumerate() {
                let level = if calls > 0 {
                    (f64::from(calls) / bin).log10()
                } else {
                    none
                };
                highest = highest.max(level);
                let (left, right) = (at as f64 * bin / unit, (at + 1) as f64 * bin / unit);
                match points.last_mut() {
                    Some(last) if last.1 == level => last.0 = right,
                    _ => points.extend([(left, level), (right, level)]),
                }
            }
            Layer::Line {
                points,
                ink,
                dashed: false,
                label: Some(strategy.label.into()),
            }
        })
        .collect();
    layers.push(Layer::Mark {
        x: outage / unit,
        ink: Ink::Reference,
        label: "D: back up".into(),
    });
    if let Some(capacity) = capacity {
        let level = f64::from(capacity).log10();
        highest = highest.max(level);
        layers.push(Layer::Level {
            y: level,
            ink: Ink::Reference,
            label: format!("K: {} /s", count(u64::from(capacity))),
        });
    }
    let per = if bin == 1.0 {
        "second".to_string()
    } else {
        format!("second, averaged over {}", duration(bin))
    };
    Plot {
        x: 0.0..horizon / unit,
        // The no-calls line sits a little above the axis, so that a line
        // lying on it still shows.
        y: none - 0.2..highest + 0.1 * (highest - none),
        x_desc: format!("time since the failure ({unit_name})"),
        y_desc: format!("calls per {per} (log scale)"),
        x_tick: chart::number_tick,
        y_tick: power_of_ten_tick,
        layers,
    }
}

/// The colour of each of `strategies`, in order: each keeps its own (see
/// [`preferred_series`]) unless one drawn before it took that one, and
/// then takes the next free one, so the up to five strategies of a run
/// never share a colour.
fn strategy_inks(strategies: impl Iterator<Item = RetryStrategy>) -> Vec<Ink> {
    let mut taken = [false; SERIES];
    strategies
        .map(|strategy| {
            let preferred = preferred_series(strategy);
            let free = (0..SERIES)
                .map(|step| (preferred + step) % SERIES)
                .find(|&series| !taken[series])
                .unwrap_or(preferred);
            taken[free] = true;
            Ink::Series(free)
        })
        .collect()
}

/// The chart's series colours.
const SERIES: usize = 8;

/// The colour a strategy keeps in every chart, whether it is the main one
/// or a compared one: the usual comparisons, and each preset's strategies,
/// get different colours.
fn preferred_series(strategy: RetryStrategy) -> usize {
    match strategy {
        RetryStrategy::Exponential | RetryStrategy::ActiveJob => 0,
        RetryStrategy::FullJitter | RetryStrategy::Celery => 1,
        RetryStrategy::Decorrelated => 2,
        RetryStrategy::EqualJitter | RetryStrategy::Constant => 3,
        RetryStrategy::Breaker => 4,
        RetryStrategy::AwsQuota | RetryStrategy::Linear => 5,
        RetryStrategy::Aws => 6,
        RetryStrategy::Sidekiq => 7,
    }
}

/// The wait before each retry for every strategy drawn: the main one's
/// shortest to longest draw shaded, and each one's median as a line in its
/// own colour.
fn bands_plot(fleets: &[StrategyFleet]) -> Plot {
    let longest = fleets
        .iter()
        .flat_map(|fleet| &fleet.bands)
        .map(|band| band.max)
        .fold(0.0, f64::max);
    let (unit, unit_name) = time_unit(longest);
    let last = fleets
        .iter()
        .filter_map(|fleet| fleet.bands.last())
        .map(|band| band.retry)
        .max()
        .unwrap_or(1);
    let mut layers: Vec<Layer> = fleets
        .first()
        .map(|main| Layer::Band {
            points: main
                .bands
                .iter()
                .map(|band| (f64::from(band.retry), band.min / unit, band.max / unit))
                .collect(),
            ink: Ink::Muted,
            label: Some(format!("{}: shortest to longest", main.label)),
        })
        .into_iter()
        .collect();
    let inks = strategy_inks(fleets.iter().map(|fleet| fleet.strategy));
    layers.extend(fleets.iter().zip(inks).map(|(fleet, ink)| {
        Layer::Line {
            points: fleet
                .bands
                .iter()
                .map(|band| (f64::from(band.retry), band.median / unit))
                .collect(),
            ink,
            dashed: false,
            label: Some(format!("{}: median", fleet.label)),
        }
    }));
    Plot {
        x: 1.0..f64::from(last.max(2)),
        y: 0.0..longest / unit * 1.1,
        x_desc: "retry".into(),
        y_desc: format!("wait before the retry ({unit_name})"),
        x_tick: chart::number_tick,
        y_tick: chart::number_tick,
        layers,
    }
}
