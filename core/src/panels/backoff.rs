//! The Backoff panel: its parameters in URLs and controls, the rules that
//! keep a run within its call budget, its presets and key numbers.

use super::series::{self, TimeSeries};
use super::snippet::{self, Snippet};
use super::{Figure, KEY_NUMBERS, PanelSpec, State};
use crate::backoff::*;
use crate::error::InvalidInput;
use crate::field::{ChoiceSet, Field, Notice};
use crate::key_numbers::KeyNumber;
use crate::panel_params;
use crate::preset::Preset;
use crate::units::{count, duration, percent, significant};

panel_params! {
    impl BackoffParams {
        strategy = RetryStrategy::Exponential, STRATEGY: Field::choice("st", "Strategy", RetryStrategy::OPTIONS);
        base = 1.0, BASE: Field::number("b", "Base delay", "s", (0.01, 60.0), 0.01).log();
        factor = 2.0, FACTOR: Field::number("f", "Factor", "×", (1.0, 10.0), 0.1);
        cap = 60.0, CAP: Field::number("c", "Cap", "s", (1.0, 3600.0), 1.0).log();
        retries = 8, RETRIES: Field::number("k", "Retries", "", (1.0, 100.0), 1.0);
        clients = 10_000, CLIENTS: Field::number("m", "Clients", "", (1.0, 1_000_000.0), 1.0).log();
        outage = 60.0, OUTAGE: Field::number("d", "Outage", "s", (1.0, 86_400.0), 1.0).log();
        compared = ChoiceSet::new([RetryStrategy::FullJitter, RetryStrategy::Decorrelated]), COMPARED: Field::choices("vs", "Compare with", RetryStrategy::OPTIONS, MAX_COMPARED);
        dependency = DependencyModel::Capacity, DEPENDENCY: Field::choice("dep", "Dependency", DependencyModel::OPTIONS);
        capacity = 1_000, CAPACITY: Field::number("cp", "Capacity", "/s", (1.0, 1_000_000.0), 1.0).log();
        objective = Objective::Recovery, OBJECTIVE: Field::choice("obj", "Rank by", Objective::OPTIONS);
        floor = 99.0, FLOOR: Field::number("fl", "Success floor", "%", (0.0, 100.0), 0.1);
        quota = QuotaScope::PerClient, QUOTA: Field::choice("qshare", "AWS SDK retry quota", QuotaScope::OPTIONS);
    }
    settle_rules = settle;
    relevance = is_relevant;
}

/// K matters only for a dependency with finite capacity, and the quota's
/// scope only with the AWS SDK's retry quota drawn.
fn is_relevant(params: &BackoffParams, key: &str) -> bool {
    if key == BackoffParams::CAPACITY.key {
        params.dependency == DependencyModel::Capacity
    } else if key == BackoffParams::QUOTA.key {
        params.strategies().contains(&RetryStrategy::AwsQuota)
    } else {
        true
    }
}

fn settle(params: &mut BackoffParams) -> Vec<Notice> {
    let mut notices = Vec::new();
    // A cap below the base would make every wait the cap: say so instead.
    if params.cap < params.base {
        params.cap = params.base;
        notices.push(BackoffParams::CAP.notice(format!(
            "must be at least the base delay; using {}",
            params.cap
        )));
    }
    // Each strategy whose clients are independent simulates the whole fleet
    // again; the interacting simulation follows at most MAX_SIMULATED.
    let calls_per_client = u64::from(params.retries) + 1;
    let strategies = params.independent_strategies();
    if strategies > 0 && u64::from(params.clients) * calls_per_client * strategies > MAX_CALLS {
        params.clients = (MAX_CALLS / (calls_per_client * strategies)) as u32;
        let each = match strategies {
            1 => String::new(),
            n => format!(" for each of {n} strategies"),
        };
        notices.push(BackoffParams::CLIENTS.notice(format!(
            "at most {MAX_CALLS} calls fit in a run, {calls_per_client} a client{each}; using {}",
            params.clients
        )));
    }
    notices
}

// The figures, in the order the panel draws them after its key numbers.
pub const CALLS: Figure = Figure::new("calls", "Calls per second after the failure");
pub const WAITS: Figure = Figure::new("waits", "Wait before each retry");
pub const TOTALS: Figure = Figure::new("totals", "Totals per strategy");

/// The Backoff panel, in the registry (`for_panel!`).
pub struct BackoffPanel;

impl PanelSpec for BackoffPanel {
    type Params = BackoffParams;
    type Run = BackoffRun;
    const SLUG: &'static str = "backoff";
    const TITLE: &'static str = "Backoff";
    const FIGURES: &'static [Figure] = &[KEY_NUMBERS, CALLS, WAITS, TOTALS];
    const PRESETS: &'static [Preset] = PRESETS;
    const FIELDS: &'static [Field] = BackoffParams::FIELDS;

    fn params(state: &State) -> &BackoffParams {
        &state.backoff
    }

    fn params_mut(state: &mut State) -> &mut BackoffParams {
        &mut state.backoff
    }

    fn run(params: &BackoffParams, seed: u64) -> Result<BackoffRun, InvalidInput> {
        crate::backoff::run(params, seed)
    }

    /// With the search for the verdict's flip, which runs the fleets again
    /// for each change it tries: the page searches while idle.
    fn run_in_full(params: &BackoffParams, seed: u64) -> Result<BackoffRun, InvalidInput> {
        let mut run = Self::run(params, seed)?;
        run.search_flip(params, seed);
        Ok(run)
    }

    fn key_numbers(params: &BackoffParams, run: &BackoffRun) -> Vec<KeyNumber> {
        key_numbers(params, run)
    }

    fn time_series(run: &BackoffRun) -> Option<TimeSeries> {
        // The fleets share their bins, so one time column serves all.
        let timeline = &run.fleets.first()?.fleet.timeline;
        let [starts, _] = series::counted(&timeline.calls, timeline.bin_seconds);
        let calls = run.fleets.iter().map(|strategy| {
            let calls = strategy.fleet.timeline.calls.iter();
            calls.map(|&c| f64::from(c)).collect()
        });
        Some(TimeSeries {
            header: std::iter::once("time_s")
                .chain(run.fleets.iter().map(|strategy| strategy.strategy.slug()))
                .map(String::from)
                .collect(),
            columns: std::iter::once(starts).chain(calls).collect(),
        })
    }

    fn snippets(params: &BackoffParams) -> Vec<Snippet> {
        snippet::backoff::snippets(params)
    }
}

/// The panel's "try this" presets. Every number in a lesson is what the
/// preset shows at seed 1, which a test checks.
pub const PRESETS: &[Preset] = &[
    Preset {
        slug: "no-jitter",
        title: "No jitter: synchronized waves",
        lesson: "Every client waits the same 1, 2, 4, … s, so each retry is all 10,000 calls in \
                 one second, and the dependency, back at 60 s and serving every call, meets the \
                 whole fleet at once at 1 min 3 s.",
        query: "st=exponential&vs=&dep=unlimited",
    },
    Preset {
        slug: "metastable",
        title: "Metastable: the herd knocks it down again",
        lesson: "Against a capacity of 1,000 calls a second, the 10,000 clients without jitter \
                 all return at 1 min 3 s, 10× capacity, and the 9,000 refused return together \
                 again at 2 min 3 s and 3 min 3 s, so the dependency is healthy only at 3 min 4 s \
                 and 7,000 clients give up, while full jitter peaks at 0.295× capacity and finds \
                 it healthy at 1 min.",
        query: "st=exponential&vs=full",
    },
    Preset {
        slug: "jitter-kinds",
        title: "Full vs equal vs decorrelated",
        lesson: "All three peak between 0.263× and 0.389× the capacity, so the dependency is \
                 healthy at 1 min for each, but equal jitter, never waiting less than half of \
                 e(n), is the only one whose 8 retries outlast the minute for every client: full \
                 jitter loses 1,275 clients and decorrelated jitter 4,232.",
        query: "st=full&vs=equal,decorrelated",
    },
    Preset {
        slug: "sidekiq-25",
        title: "Sidekiq's 25 retries",
        lesson: "Sidekiq's 25 retries outlast a 6-hour outage, but its jitter, under 10·n s \
                 before retry n, is tiny beside its (n − 1)⁴-second waits, so its clients return \
                 within minutes of each other, its busiest second at 0.07× capacity, over four \
                 times Active Job's 0.015×, whose jitter is up to 15 % of the wait.",
        query: "st=sidekiq&k=25&d=21600&vs=activejob",
    },
    Preset {
        slug: "libraries",
        title: "Four libraries' defaults",
        lesson: "The AWS SDK's waits, sized for blips, add up to at most 12.75 s over 8 retries, \
                 so all 10,000 clients give up on a one-minute outage, while Sidekiq and Active \
                 Job, made for background jobs, bring every client back by 1 min 59 s, Active Job \
                 at up to 0.881× capacity.",
        query: "st=aws&vs=celery,activejob,sidekiq",
    },
    Preset {
        slug: "retry-quota",
        title: "The AWS SDK's retry quota",
        lesson: "One SDK client's quota of 500 tokens pays for 35 retries at 14 tokens each and \
                 refills only on successes, so 10,000 requests failing in a 1-second outage drain \
                 it at once: 10,035 calls in all and 0 % succeeded, the dependency healthy at 1 s, \
                 where the SDK without its quota makes 83,858 calls, peaks at 9.27× capacity and \
                 serves 82.3 % of its requests.",
        query: "st=awsquota&vs=aws&d=1&qshare=1",
    },
    Preset {
        slug: "circuit-breaker",
        title: "A circuit breaker in front",
        lesson: "In front of a dependency serving 100 calls a second, the breaker turns 82,434 \
                 calls away without load and holds the refusals to 1,937, against 5,301 for full \
                 jitter alone, but its clients spend their retries on it: 5,313 give up, against \
                 3,641.",
        query: "st=breaker&vs=full&cp=100",
    },
];

/// Retries whose median wait the key numbers list; a longer run ends in "…".
const LISTED_WAITS: usize = 10;

/// The median wait before retry n in theory, as a formula, for the
/// strategies whose wait grows with one uniform draw u: the wait at u = ½.
/// Decorrelated jitter depends on the previous draw, and Sidekiq and Celery
/// draw whole numbers, whose sample median can sit half a second off.
fn median_wait_formula(strategy: RetryStrategy) -> Option<&'static str> {
    match strategy {
        RetryStrategy::Constant => Some("b"),
        RetryStrategy::Linear => Some("min(c, b·n)"),
        RetryStrategy::Exponential => Some("e(n)"),
        RetryStrategy::FullJitter => Some("e(n)/2"),
        RetryStrategy::EqualJitter => Some("3·e(n)/4"),
        RetryStrategy::ActiveJob => Some("1.075·n⁴ + 2"),
        RetryStrategy::Breaker => Some("e(n)/2"),
        RetryStrategy::Aws | RetryStrategy::AwsQuota => Some("min(20, 0.05·2^(n−1))/2"),
        RetryStrategy::Decorrelated | RetryStrategy::Sidekiq | RetryStrategy::Celery => None,
    }
}

/// Waits as the key numbers list them: the first [`LISTED_WAITS`], then "…".
fn listed(waits: impl Iterator<Item = f64>) -> String {
    let mut text: Vec<String> = waits.take(LISTED_WAITS + 1).map(duration).collect();
    if text.len() > LISTED_WAITS {
        text.truncate(LISTED_WAITS);
        text.push("…".into());
    }
    text.join(", ")
}

/// The figures the panel prints beside its charts, for the main strategy,
/// and the verdict over all of them.
pub fn key_numbers(params: &BackoffParams, run: &BackoffRun) -> Vec<KeyNumber> {
    let Some(main) = run.fleets.first() else {
        return Vec::new();
    };
    let fleet = &main.fleet;
    let never = |at: Option<f64>| at.map_or_else(|| "never".into(), duration);
    let succeeded = succeeded(fleet);

    let waits = median_waits(params, main);

    let peak_number = peak_once_back(params, main);

    let load_number = KeyNumber::new(
        "load",
        "Peak load",
        match fleet.peak_load {
            Some(load) if load > 0.0 => format!(
                "{}× the capacity of {} /s",
                significant(load, 3),
                count(u64::from(params.capacity))
            ),
            Some(_) => NO_CALL_ONCE_BACK.into(),
            None => "no capacity limit".into(),
        },
        "busiest whole second from D on, calls made at or after D, ÷ K",
    );

    vec![
        waits,
        peak_number,
        load_number,
        healthy(params, fleet),
        KeyNumber::new(
            "calls",
            "Calls in all",
            count(fleet.calls),
            "first calls plus retries; under capacity or a shared budget, a jittered fleet \
             of more than 10,000 is simulated as 10,000 clients, each standing for \
             ⌊M / 10,000⌋ or ⌈M / 10,000⌉ alike clients that share the capacity",
        ),
        KeyNumber::new("wasted", "Calls wasted", wasted(fleet), "calls that failed"),
        KeyNumber::new(
            "succeeded",
            "Clients that succeeded",
            succeeded.clone(),
            "clients whose last call succeeded, of all M",
        ),
        KeyNumber::new(
            "recovered",
            "Last client succeeds at",
            never(fleet.last_success),
            "the last success, for the slowest client that succeeded",
        ),
        KeyNumber::new(
            "recovered-99",
            "99 % succeeded by",
            match fleet.success_99 {
                Some(at) => duration(at),
                None => format!("{succeeded}; the 99 % mark was never reached"),
            },
            "the ⌈0.99 · M⌉-th success",
        ),
        KeyNumber::new(
            "success-time",
            "Time to success, p50 / p99",
            success_times(fleet),
            "the ⌈0.5 · S⌉-th and ⌈0.99 · S⌉-th of the S clients that succeeded",
        ),
        KeyNumber::new(
            "completion",
            "Clients done, p50 / p99",
            format!(
                "{} / {}",
                duration(fleet.completion_p50),
                duration(fleet.completion_p99)
            ),
            "when a client stops calling",
        ),
        KeyNumber::new(
            "gave-up",
            "Clients that gave up",
            count(u64::from(fleet.gave_up)),
            "its last allowed retry failed, or the retry quota could not pay for one",
        ),
        KeyNumber::new(
            "verdict",
            "Verdict",
            format!("{} {}", run.verdict.sentence, run.verdict.why)
                .trim_end()
                .to_string(),
            verdict_rule(params.objective),
        ),
    ]
}

/// The median wait before each retry, beside the formula's where it has one.
fn median_waits(params: &BackoffParams, main: &StrategyFleet) -> KeyNumber {
    let mut waits = KeyNumber::new(
        "waits",
        "Median wait before each retry",
        listed(main.bands.iter().map(|band| band.median)),
        "median of 10,000 draws per retry",
    );
    let backoff = Backoff::new(main.strategy, params.base, params.factor, params.cap);
    if let (Some(formula), Ok(backoff)) = (median_wait_formula(main.strategy), backoff) {
        let medians = (1..=params.retries).map(|n| backoff.delay(n, params.base, 0.5));
        waits = waits.beside(format!("{formula}: {}", listed(medians)));
    }
    waits
}

/// The peak and the load once the dependency is back when no client calls
/// any more: every one gave up during the outage.
pub const NO_CALL_ONCE_BACK: &str = "none: no call from D on";

/// The busiest rate of calls once the dependency is back; without jitter,
/// beside all M in one bin.
fn peak_once_back(params: &BackoffParams, main: &StrategyFleet) -> KeyNumber {
    let fleet = &main.fleet;
    let peak = fleet.peak_after_outage;
    let mut peak_number = KeyNumber::new(
        "peak",
        "Peak calls per second once back",
        if peak.per_second > 0.0 {
            format!(
                "{} /s at {}",
                significant(peak.per_second, 3),
                duration(peak.at)
            )
        } else {
            NO_CALL_ONCE_BACK.into()
        },
        "busiest bin from D on, over its width",
    );
    // Without jitter every client calls at the same instants, so the one
    // call that finds the dependency back comes from all M at once.
    if main.strategy.is_jitterless() && fleet.gave_up == 0 && fleet.refused == 0 {
        let all_at_once = f64::from(params.clients) / fleet.timeline.bin_seconds;
        peak_number = peak_number.beside(format!(
            "all M in one bin: {} /s",
            significant(all_at_once, 3)
        ));
    }
    peak_number
}

/// The calls that failed, by why.
fn wasted(fleet: &Fleet) -> String {
    let mut wasted_parts = vec![
        format!("{} in the outage", count(fleet.failed_in_outage)),
        format!("{} over capacity", count(fleet.refused)),
    ];
    if fleet.rejected > 0 {
        wasted_parts.push(format!(
            "{} turned away by the breaker",
            count(fleet.rejected)
        ));
    }
    format!("{}: {}", count(fleet.wasted()), wasted_parts.join(", "))
}

/// How the verdict ranks, for its key number.
fn verdict_rule(objective: Objective) -> &'static str {
    match objective {
        Objective::Recovery => {
            "those meeting the success floor first, earliest healthy-again time first, ties by \
             the ⌈0.99 · M⌉-th success, never last; the others after, most successes first"
        }
        Objective::Load => {
            "those meeting the success floor first, lowest busiest second from D on first (÷ K, \
             or per second when unlimited), ties by the healthy-again time; the others after, \
             most successes first"
        }
        Objective::ClientP99 => {
            "those meeting the success floor first, earliest ⌈0.99 · M⌉-th success first, never \
             last, ties by the clients that gave up; the others after, most successes first"
        }
        Objective::GaveUp => {
            "those meeting the success floor first, fewest clients that gave up first, ties by \
             the ⌈0.99 · M⌉-th success; the others after, most successes first"
        }
    }
}

/// "97.3 % succeeded (9,730 of 10,000)".
fn succeeded(fleet: &Fleet) -> String {
    let clients = u64::from(fleet.succeeded) + u64::from(fleet.gave_up);
    format!(
        "{} succeeded ({} of {})",
        percent(fleet.succeeded_share()),
        count(u64::from(fleet.succeeded)),
        count(clients)
    )
}

/// The median and 99th percentile time to success, over those that did.
fn success_times(fleet: &Fleet) -> String {
    match (fleet.success_p50, fleet.success_p99) {
        (Some(p50), Some(p99)) => format!(
            "{} / {} over the {} that succeeded",
            duration(p50),
            duration(p99),
            count(u64::from(fleet.succeeded))
        ),
        _ => "none succeeded".into(),
    }
}

/// When the dependency is healthy again, beside the earliest it can be.
fn healthy(params: &BackoffParams, fleet: &Fleet) -> KeyNumber {
    KeyNumber::new(
        "healthy",
        "Dependency healthy again at",
        duration(fleet.healthy_at),
        "end of the last second from D on with a call refused for capacity; D if none",
    )
    .beside(format!(
        "at the earliest, the outage's end D = {}",
        duration(params.outage)
    ))
}
