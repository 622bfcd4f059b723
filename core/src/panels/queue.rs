//! The Queue panel: its parameters in URLs and controls, the rules that keep
//! every lane within the job cap, its presets, key numbers and the summary
//! table that sets the lanes side by side.

use super::series::TimeSeries;
use super::{Figure, KEY_NUMBERS, PanelSpec, State};
use crate::backoff;
use crate::dist::Dist;
use crate::error::InvalidInput;
use crate::field::{ChoiceSet, Field, Notice};
use crate::key_numbers::KeyNumber;
use crate::panel_params;
use crate::preset::Preset;
use crate::queue::*;
use crate::recurrence::{Compaction, LateRun};
use crate::replication::MIN_REPLICATIONS;
use crate::scheduler::micros;
use crate::sim::{self, SimRun};
use crate::units::{count, duration, significant};
use serde::Serialize;

panel_params! {
    impl QueueParams {
        strategy = QueueStrategy::Herd, STRATEGY: Field::choice("st", "Strategy", QueueStrategy::OPTIONS);
        compare_by = CompareBy::Strategies, COMPARE_BY: Field::choice("by", "Compare", CompareBy::OPTIONS);
        compared = ChoiceSet::new([QueueStrategy::Slots]), COMPARED: Field::choices("vs", "Compare with", QueueStrategy::OPTIONS, MAX_COMPARED);
        accounts = 2_000, ACCOUNTS: Field::number("n", "Accounts", "", (1.0, 1_000_000.0), 1.0).log();
        workers = 4, WORKERS: Field::number("w", "Workers", "", (1.0, 10_000.0), 1.0).log();
        cycle_minutes = 60, CYCLE_MINUTES: Field::number("cyc", "Cycle", "min", (1.0, 10_080.0), 1.0).log();
        horizon_hours = 24, HORIZON_HOURS: Field::number("hz", "Simulated time", "h", (1.0, 2_160.0), 1.0).log();
        duration_mean = 5.0, DURATION_MEAN: Field::number("dm", "Job duration, mean", "s", (0.01, 3_600.0), 0.01).log();
        duration_p90 = 8.0, DURATION_P90: Field::number("d90", "Job duration, p90", "s", (0.02, 7_200.0), 0.01).log();
        jitter_window = 0, JITTER_WINDOW: Field::number("jw", "Jitter window", "s", (0.0, 604_800.0), 1.0);
        slots = 60, SLOTS: Field::number("sl", "Slots", "", (1.0, 3_600.0), 1.0).log();
        batch_every = 5, BATCH_EVERY: Field::number("ev", "Batch every", "min", (1.0, 1_440.0), 1.0).log();
        batch_spread = 60, BATCH_SPREAD: Field::number("spr", "Batch spread", "s", (0.0, 86_400.0), 1.0);
        reports = ReportPlacement::Off, REPORTS: Field::choice("rep", "Reports (same lock)", ReportPlacement::OPTIONS);
        rate_limit = 0, RATE_LIMIT: Field::number("lim", "Downstream limit", "/s", (0.0, 100_000.0), 1.0);
        outage_start = 60, OUTAGE_START: Field::number("os", "Outage starts at", "min", (0.0, 129_600.0), 1.0);
        outage_minutes = 0, OUTAGE_MINUTES: Field::number("od", "Outage length", "min", (0.0, 10_080.0), 1.0);
        retry = backoff::RetryStrategy::FullJitter, RETRY: Field::choice("rt", "Retry policy", backoff::RetryStrategy::OPTIONS);
        retries_compared = ChoiceSet::new([backoff::RetryStrategy::Exponential]), RETRIES_COMPARED: Field::choices("rvs", "Compare retries with", backoff::RetryStrategy::OPTIONS, MAX_COMPARED);
        retry_base = 10.0, RETRY_BASE: Field::number("rb", "Retry base", "s", (0.01, 3_600.0), 0.01).log();
        retry_cap = 600.0, RETRY_CAP: Field::number("rc", "Retry cap", "s", (0.01, 86_400.0), 0.01).log();
        max_retries = 8, MAX_RETRIES: Field::number("rk", "Retries", "", (0.0, 30.0), 1.0);
        scaling = Scaling::Fixed, SCALING: Field::choice("sc", "Workers", Scaling::OPTIONS);
        target_depth = 10, TARGET_DEPTH: Field::number("tq", "Target queue per worker", "", (1.0, 10_000.0), 1.0).log();
        max_workers = 40, MAX_WORKERS: Field::number("wmax", "Most workers", "", (1.0, 10_000.0), 1.0).log();
        boot_seconds = 60, BOOT_SECONDS: Field::number("up", "Boot delay", "s", (0.0, 3_600.0), 1.0);
        down_seconds = 300, DOWN_SECONDS: Field::number("down", "Scale-down delay", "s", (0.0, 86_400.0), 1.0);
        replications = 0, REPLICATIONS: Field::number("repl", "Replications (0: one run)", "", (0.0, 100.0), 1.0);
    }
    settle_rules = settle;
    relevance = is_relevant;
}

/// Slots, batch and jitter window settings matter only to a lane that uses
/// them, retries only with a downstream that refuses calls, the
/// autoscaler's settings only with it on.
fn is_relevant(params: &QueueParams, key: &str) -> bool {
    let uses = |strategy: QueueStrategy| match params.compare_by {
        CompareBy::Strategies => with_main(params.strategy, &params.compared).contains(&strategy),
        CompareBy::Retries => params.strategy == strategy,
    };
    let refuses = params.has_downstream();
    let is = |fields: &[Field]| fields.iter().any(|field| field.key == key);
    type Q = QueueParams;
    if is(&[Q::COMPARED]) {
        params.compare_by == CompareBy::Strategies
    } else if is(&[Q::RETRIES_COMPARED]) {
        params.compare_by == CompareBy::Retries && refuses
    } else if is(&[Q::JITTER_WINDOW]) {
        uses(QueueStrategy::Jitter)
    } else if is(&[Q::SLOTS]) {
        uses(QueueStrategy::Slots)
    } else if is(&[Q::BATCH_EVERY, Q::BATCH_SPREAD]) {
        uses(QueueStrategy::LeastRecent)
    } else if is(&[Q::OUTAGE_START]) {
        params.outage_minutes > 0
    } else if is(&[Q::RETRY, Q::RETRY_BASE, Q::RETRY_CAP, Q::MAX_RETRIES]) {
        refuses
    } else if is(&[
        Q::TARGET_DEPTH,
        Q::MAX_WORKERS,
        Q::BOOT_SECONDS,
        Q::DOWN_SECONDS,
    ]) {
        params.scaling == Scaling::Auto
    } else {
        true
    }
}

fn settle(params: &mut QueueParams) -> Vec<Notice> {
    let mut notices = Vec::new();
    if params.duration_p90 <= params.duration_mean {
        params.duration_p90 = params.duration_mean * 1.6;
        notices.push(QueueParams::DURATION_P90.notice(format!(
            "must be above the mean; using {}",
            significant(params.duration_p90, 3)
        )));
    }
    if params.retry_cap < params.retry_base {
        params.retry_cap = params.retry_base;
        notices.push(QueueParams::RETRY_CAP.notice(format!(
            "must be at least the retry base; using {}",
            params.retry_cap
        )));
    }
    // Only the autoscaler reads the most workers: a drag of the fixed
    // workers past it is no mistake to point out.
    if params.scaling == Scaling::Auto && params.max_workers < params.workers {
        params.max_workers = params.workers;
        notices.push(QueueParams::MAX_WORKERS.notice(format!(
            "must be at least the {} workers it starts with; using {}",
            params.workers, params.workers
        )));
    }
    if (1..MIN_REPLICATIONS).contains(&params.replications) {
        params.replications = MIN_REPLICATIONS;
        notices.push(QueueParams::REPLICATIONS.notice(format!(
            "an interval needs at least {MIN_REPLICATIONS} runs; using {MIN_REPLICATIONS}"
        )));
    }
    let cycle_seconds = params.cycle_seconds();
    if params.jitter_window > cycle_seconds {
        params.jitter_window = cycle_seconds;
        notices.push(QueueParams::JITTER_WINDOW.notice(format!(
            "must fit in the cycle of {}; using {cycle_seconds} s",
            duration(f64::from(cycle_seconds))
        )));
    }
    let batch_window = params.batch_every * 60;
    if params.batch_spread > batch_window {
        params.batch_spread = batch_window;
        notices.push(
            QueueParams::BATCH_SPREAD
                .notice(format!("must fit between batches; using {batch_window} s")),
        );
    }
    // The cap counts retries too: an outage or a rate limit can multiply
    // the first attempts by the retries allowed. The horizon goes first:
    // fewer hours keep every account in the run.
    if !fits_the_job_cap(params) {
        let planned = params.planned_jobs();
        params.horizon_hours = largest_fitting(params.horizon_hours, |hours| QueueParams {
            horizon_hours: hours,
            ..params.clone()
        });
        notices.push(QueueParams::HORIZON_HOURS.notice(format!(
            "would start more than {} jobs over all lanes, retries included ({} first attempts); using {} h",
            count(MAX_TOTAL_JOBS),
            count(planned),
            params.horizon_hours
        )));
    }
    if !fits_the_job_cap(params) {
        let planned = params.planned_jobs();
        params.accounts = largest_fitting(params.accounts, |accounts| QueueParams {
            accounts,
            ..params.clone()
        });
        notices.push(QueueParams::ACCOUNTS.notice(format!(
            "would start more than {} jobs over all lanes in one hour, retries included ({} first attempts); using {}",
            count(MAX_TOTAL_JOBS),
            count(planned),
            params.accounts
        )));
    }
    notices
}

/// Whether every lane can run and all of them together start at most
/// [`MAX_TOTAL_JOBS`] jobs, by the simulation's own upper estimate.
fn fits_the_job_cap(params: &QueueParams) -> bool {
    estimated_jobs(params).is_ok_and(|jobs| jobs <= MAX_TOTAL_JOBS)
}

/// The largest value in [1, `most`] whose parameters fit the job cap, or 1.
/// The estimate grows with the horizon and the accounts, so a binary search
/// finds it.
fn largest_fitting(most: u32, with: impl Fn(u32) -> QueueParams) -> u32 {
    let (mut fits, mut fails) = (1, most);
    if !fits_the_job_cap(&with(fits)) {
        return 1;
    }
    // `fits` fits and `fails` does not, as the caller found.
    while fails - fits > 1 {
        let middle = fits + (fails - fits) / 2;
        if fits_the_job_cap(&with(middle)) {
            fits = middle;
        } else {
            fails = middle;
        }
    }
    fits
}

// The figures, in the order the panel draws them after its key numbers.
pub const DEPTH: Figure = Figure::new("depth", "Jobs waiting");
pub const BUSY: Figure = Figure::new("busy", "Workers busy");
pub const INGRESS: Figure = Figure::new("ingress", "Jobs entering the queue");
pub const WAITS: Figure = Figure::new("waits", "Start delay");
pub const GAPS: Figure = Figure::new("gaps", "Time between an account's syncs");
pub const DEPTH_BAND: Figure = Figure::new("depth-band", "Jobs waiting across seeds");
pub const RECURRENCE: Figure = Figure::new("recurrence", "When each run starts");
pub const HEAP: Figure = Figure::new("heap", "Heap entries, live and dead");
pub const IMPORTED: Figure = Figure::new("imported", "Your own arrivals");

/// The Queue panel, in the registry (`for_panel!`).
pub struct QueuePanel;

impl PanelSpec for QueuePanel {
    type Params = QueueParams;
    type Run = QueueRun;
    const SLUG: &'static str = "queue";
    const TITLE: &'static str = "Queue";
    const FIGURES: &'static [Figure] = &[
        KEY_NUMBERS,
        DEPTH,
        BUSY,
        INGRESS,
        WAITS,
        GAPS,
        DEPTH_BAND,
        RECURRENCE,
        HEAP,
        IMPORTED,
    ];
    const PRESETS: &'static [Preset] = PRESETS;
    const FIELDS: &'static [Field] = QueueParams::FIELDS;

    fn params(state: &State) -> &QueueParams {
        &state.queue
    }

    fn params_mut(state: &mut State) -> &mut QueueParams {
        &mut state.queue
    }

    fn run(params: &QueueParams, seed: u64) -> Result<QueueRun, InvalidInput> {
        crate::queue::run(params, seed)
    }

    fn key_numbers(params: &QueueParams, run: &QueueRun) -> Vec<KeyNumber> {
        key_numbers(params, run)
    }

    fn time_series(run: &QueueRun) -> Option<TimeSeries> {
        queue_series(run)
    }
}

/// The lanes' series side by side; the lanes share their bins.
fn queue_series(run: &QueueRun) -> Option<TimeSeries> {
    let first = &run.lanes.first()?.run;
    let bins = first.queue_depth.len();
    let mut header = vec!["time_s".to_string()];
    let mut columns = vec![
        (0..bins)
            .map(|bin| bin as f64 * f64::from(first.bin_seconds))
            .collect(),
    ];
    let whole = |counts: &[u32]| counts.iter().map(|&c| f64::from(c)).collect();
    for lane in &run.lanes {
        let series = &lane.run;
        let lane_columns: [(&str, Vec<f64>); 7] = [
            ("queue_depth", whole(&series.queue_depth)),
            ("executing", series.executing.clone()),
            ("workers", series.workers.clone()),
            ("ingress", whole(&series.ingress)),
            ("done", whole(&series.done)),
            ("lock_conflicts", whole(&series.lock_conflicts)),
            ("failed", whole(&series.failed)),
        ];
        for (name, column) in lane_columns {
            header.push(format!("{name}_{}", lane.name.slug));
            columns.push(column);
        }
    }
    Some(TimeSeries { header, columns })
}

/// The panel's "try this" presets.
pub const PRESETS: &[Preset] = &[
    Preset {
        slug: "cron-herd",
        title: "Cron herd at :00",
        lesson: "All 2,000 accounts fall due at :00, so 1,996 wait at once and the 4 workers take \
                 42 minutes to clear them: the mean wait is 21 minutes, as (N − W)²·E[S] / (2N·W) \
                 predicts, though the workers are idle 30 % of the hour.",
        query: "st=herd&vs=",
    },
    Preset {
        slug: "least-recent-vs-slots",
        title: "Least-recently-synced batches vs slots",
        lesson: "Every 5 minutes a batch of 167 accounts lands within one minute, over 3 minutes of \
                 work for 4 workers, so jobs wait 73 s on average; slots feed the same 2,000 an hour \
                 at their own offsets and jobs wait about a second.",
        query: "st=lrs&vs=slots",
    },
    Preset {
        slug: "poisson-vs-hash",
        title: "Poisson vs hash spread at equal load",
        lesson: "Both make the same 70 % load and almost the same waits, but Poisson arrivals pick \
                 accounts in turn at random moments, so an account's syncs drift up to 1 h 3 min \
                 apart, while a hash offset keeps each account on its own minute of the hour.",
        query: "st=poisson&vs=hash",
    },
    Preset {
        slug: "autoscaler-flapping",
        title: "Autoscaler flapping",
        lesson: "Each hour the herd's 1,998 waiting jobs call for all 40 workers, which boot a minute \
                 later, clear the pile and are let go five minutes after: the fleet swings between 2 \
                 and 40 every cycle, busy 36 % of the time, while slots never need more than 8.",
        query: "st=herd&vs=slots&sc=auto&w=2",
    },
    Preset {
        slug: "shared-lock",
        title: "Payments vs reports on a shared lock",
        lesson: "With each report due with its account's sync, slots make half of all jobs find \
                 their account locked (47,540 conflicts), while jitter, drawing each job's moment \
                 apart, has 122; set Reports to half a cycle later and slots drop to none.",
        query: "st=slots&vs=jitter&rep=same&w=8",
    },
    Preset {
        slug: "bank-outage",
        title: "A bank outage with and without jittered retries",
        lesson: "For the 10-minute outage every worker refuses a call a second, 12,000 in all. \
                 Without jitter the retries come back in waves, so the queue empties while the bank \
                 is still down and refills at once; full jitter keeps them trickling back, and the \
                 herd is done a minute sooner.",
        query: "st=herd&by=retries&rt=exponential&rvs=full&od=10&os=0&w=20&hz=2&rb=5",
    },
    Preset {
        slug: "jitter-window-for-a-limit",
        title: "A jitter window for a 50 /s limit",
        lesson: "Drawing 5,000 calls into a 100 s window averages exactly the bank's 50 /s, yet \
                 chance and the refused calls' retries bring 95 in the busiest second and 19,943 \
                 refusals over the day; a 200 s window keeps the busiest second at 44 and refuses \
                 none.",
        query: "st=jitter&vs=&n=5000&w=400&wmax=400&lim=50&jw=100",
    },
];

/// The figures the panel prints beside its charts, for the main lane, with
/// the theory where one applies: the load when the workers are fixed and
/// every call succeeds, the herd's drain, Erlang C for Poisson arrivals,
/// and uniform jitter's mean call rate over its window.
pub fn key_numbers(params: &QueueParams, run: &QueueRun) -> Vec<KeyNumber> {
    let Some(main) = run.lanes.first() else {
        return Vec::new();
    };
    let summary = &main.run.summary;
    let [utilization, mean_wait, depth] = compared_with_theory(params, summary);
    let mut numbers = vec![
        utilization,
        mean_wait,
        KeyNumber::new(
            "p95-wait",
            "p95 wait",
            wait_percentile(&main.run, summary.p95_wait_s, 0.95),
            "95 in 100 of the n jobs due waited no longer",
        ),
        depth,
        KeyNumber::new(
            "sync-gap",
            "Longest time between an account's syncs",
            duration(summary.max_sync_interval_s),
            "finish to finish, over all accounts",
        )
        .beside(format!(
            "the cycle C = {}",
            duration(f64::from(params.cycle_seconds()))
        )),
        KeyNumber::new(
            "never-synced",
            "Accounts never synced",
            count(u64::from(summary.never_synced)),
            "no finished sync by the end",
        ),
        peak_calls(params, summary.peak_calls_per_second),
    ];
    if let Some(sentence) = never_started(summary) {
        numbers.push(KeyNumber::new(
            "never-started",
            "Jobs never started",
            sentence,
            "due before the end, still waiting at it; each counts its wait so far",
        ));
    }
    numbers.extend(situational(params, main));
    numbers
}

/// What the jobs due but never started do to the figures, "4,473 never
/// started; p95 is at least 17 min 33 s"; None when every job due started.
pub fn never_started(summary: &sim::Summary) -> Option<String> {
    let jobs = count(summary.never_started);
    let p95 = summary.p95_wait_s;
    (summary.never_started > 0).then(|| {
        if summary.is_lower_bound(p95) {
            format!("{jobs} never started; p95 is at least {}", duration(p95))
        } else {
            format!(
                "{jobs} never started, each already waiting longer than p95, which holds; \
                 the mean wait is at least {}",
                duration(summary.mean_wait_s)
            )
        }
    })
}

/// E\[S\], the mean of the durations a lane draws: a normal of the
/// parameters' mean and p90 with negative draws folded back, which lifts
/// the mean a little above the parameter.
pub fn mean_duration(params: &QueueParams) -> f64 {
    Dist::folded_normal_from_mean_p90(params.duration_mean, params.duration_p90)
        .map_or(params.duration_mean, |dist| dist.mean())
}

/// Utilization, mean wait and the deepest queue, each beside what theory
/// predicts where a model fits: the herd draining at W / E[S], or an M/M/W
/// queue for Poisson arrivals, for one job kind on fixed workers whose
/// calls all pass.
fn compared_with_theory(params: &QueueParams, summary: &sim::Summary) -> [KeyNumber; 3] {
    let (n, w) = (f64::from(params.accounts), f64::from(params.workers));
    let cycle = f64::from(params.cycle_seconds());
    let arrival_rate = n / cycle;
    let mean_duration = mean_duration(params);
    // Theory holds for one job kind on fixed workers whose calls all pass.
    let plain = params.reports == ReportPlacement::Off
        && !params.has_downstream()
        && params.scaling == Scaling::Fixed;
    let load = arrival_rate * mean_duration;

    let mut utilization = KeyNumber::new(
        "utilization",
        "Workers busy",
        format!("ρ = {:.1} %", summary.utilization * 100.0),
        "busy worker time / ready worker time",
    );
    if plain {
        utilization = utilization.beside(format!(
            "λ·E[S] / W = {} /s × {} / {} = {:.1} %",
            significant(arrival_rate, 3),
            duration(mean_duration),
            params.workers,
            load / w * 100.0
        ));
    }

    let mut mean_wait = KeyNumber::new(
        "mean-wait",
        "Mean wait",
        mean_wait(summary),
        "start − due, over the jobs due",
    );
    let mut depth = KeyNumber::new(
        "max-depth",
        "Most jobs waiting",
        count(summary.max_queue_depth),
        "at any instant",
    );
    let drains_within_cycle = n > w && (n - w) * mean_duration / w < cycle;
    match params.strategy {
        QueueStrategy::Herd if plain && drains_within_cycle => {
            mean_wait = mean_wait.beside(format!(
                "all due at once, drained at W / E[S]: (N − W)²·E[S] / (2N·W) = {}",
                duration((n - w).powi(2) * mean_duration / (2.0 * n * w))
            ));
            depth = depth.beside(format!(
                "all due at once: N − W = {}",
                count((n - w) as u64)
            ));
        }
        QueueStrategy::Poisson if plain => {
            if let Ok(wait) = sim::mm_c_mean_wait(arrival_rate, mean_duration, params.workers) {
                mean_wait = mean_wait.beside(format!(
                    "an M/M/W queue at the same load (Erlang C): {}",
                    duration(wait)
                ));
            }
        }
        _ => {}
    }
    [utilization, mean_wait, depth]
}

/// The figures that exist only with reports, a downstream or the autoscaler on.
fn situational(params: &QueueParams, main: &Lane) -> Vec<KeyNumber> {
    let summary = &main.run.summary;
    let mut numbers = Vec::new();
    if params.reports != ReportPlacement::Off {
        numbers.push(KeyNumber::new(
            "lock-conflicts",
            "Lock conflicts",
            match summary.lock_conflicts {
                0 => "0".into(),
                conflicts => format!(
                    "{} ({} parked each)",
                    count(conflicts),
                    duration(summary.lock_wait_s / conflicts as f64)
                ),
            },
            "jobs that found their account locked, and their mean time parked",
        ));
    }
    if params.has_downstream() {
        numbers.push(KeyNumber::new(
            "refused",
            "Calls refused / retries / gave up",
            format!(
                "{} / {} / {}",
                count(summary.failed_calls),
                count(summary.retries),
                count(summary.gave_up)
            ),
            "over the limit or in the outage; a refusal holds its worker 1 s",
        ));
    }
    if params.scaling == Scaling::Auto {
        let most = main.run.workers.iter().copied().fold(0.0, f64::max);
        numbers.push(KeyNumber::new(
            "peak-workers",
            "Most workers ready",
            significant(most, 3),
            "highest average over a bin",
        ));
    }
    numbers
}

/// The busiest second's calls, per second and per minute, beside uniform
/// jitter's mean rate N / W over its window and the limit, where set.
fn peak_calls(params: &QueueParams, peak: u32) -> KeyNumber {
    let number = KeyNumber::new(
        "peak-calls",
        "Peak downstream calls, one second",
        format!(
            "{} /s ({} /min)",
            count(u64::from(peak)),
            count(u64::from(peak) * 60)
        ),
        "syncs started in the busiest whole second, retries and refused calls included",
    );
    let limit = (params.rate_limit > 0).then(|| format!("the limit is {} /s", params.rate_limit));
    let mean_rate = (params.strategy == QueueStrategy::Jitter).then(|| {
        let window = params.jitter_window_seconds();
        format!(
            "first attempts N / W = {} / {} = {} /s on average over the window",
            count(u64::from(params.accounts)),
            duration(f64::from(window)),
            significant(f64::from(params.accounts) / f64::from(window), 3)
        )
    });
    match (mean_rate, limit) {
        (Some(mean_rate), Some(limit)) => number.beside(format!("{mean_rate}; {limit}")),
        (Some(theory), None) | (None, Some(theory)) => number.beside(theory),
        (None, None) => number,
    }
}

/// What a wait percentile is, in a reader's words.
pub const PERCENTILE_METHOD: &str = "a percentile, p95 say, is the wait 95 in 100 jobs did not \
    exceed: one job's own wait, never a blend of two";
/// Below this many waits, a p99 is the largest wait or next to it.
pub const FEWEST_WAITS_FOR_P99: u64 = 100;

/// The share of jobs that waited no longer than the percentile of
/// `key` ("95 in 100" for `p95_wait_s`); None for other figures.
pub fn percentile_share(key: &str) -> Option<&'static str> {
    match key {
        "p50_wait_s" => Some("half"),
        "p95_wait_s" => Some("95 in 100"),
        "p99_wait_s" => Some("99 in 100"),
        _ => None,
    }
}

/// A percentile `p` of `run`'s waits, `value_s`, with its sample size,
/// "2 min 22 s (n = 48,096)", marked when too few waits are ranked for it
/// and "at least" when a never-started job could raise it.
pub fn wait_percentile(run: &SimRun, value_s: f64, p: f64) -> String {
    let waits = run.waits_ranked();
    let few = p >= 0.99 && waits < FEWEST_WAITS_FOR_P99;
    format!(
        "{} (n = {}{})",
        percentile_value(&run.summary, value_s),
        count(waits),
        if few { ", too few for a p99" } else { "" }
    )
}

/// A wait percentile of `summary`, `value_s`, "at least" when a
/// never-started job could raise it.
pub fn percentile_value(summary: &sim::Summary, value_s: f64) -> String {
    format!(
        "{}{}",
        at_least(summary.is_lower_bound(value_s)),
        duration(value_s)
    )
}

/// The mean wait, "at least" when a job never started.
fn mean_wait(summary: &sim::Summary) -> String {
    format!(
        "{}{}",
        at_least(summary.mean_is_lower_bound()),
        duration(summary.mean_wait_s)
    )
}

fn at_least(lower_bound: bool) -> &'static str {
    if lower_bound { "at least " } else { "" }
}

fn whole(n: u64) -> (String, f64) {
    (count(n), n as f64)
}

fn time(seconds: f64) -> (String, f64) {
    (duration(seconds), seconds)
}

/// One line of the summary table: a figure for every lane.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SummaryRow {
    /// The summary's key, as `stampede run` prints it.
    pub key: &'static str,
    pub label: &'static str,
    pub formula: &'static str,
    /// Per lane: the value as the page writes it, and as a number.
    pub values: Vec<(String, f64)>,
}

/// The summary table: every lane's figures, the lock, downstream and
/// autoscaler lines only where those are on.
pub fn summary_rows(params: &QueueParams, run: &QueueRun) -> Vec<SummaryRow> {
    let shown = [
        (EVERY_RUN, true),
        (WITH_REPORTS, params.reports != ReportPlacement::Off),
        (WITH_DOWNSTREAM, params.has_downstream()),
        (WITH_AUTOSCALER, params.scaling == Scaling::Auto),
    ];
    shown
        .into_iter()
        .filter(|(_, shown)| *shown)
        .flat_map(|(figures, _)| figures)
        .map(|figure| SummaryRow {
            key: figure.key,
            label: figure.label,
            formula: figure.formula,
            values: run
                .lanes
                .iter()
                .map(|lane| (figure.of)(&lane.run))
                .collect(),
        })
        .collect()
}

/// One row of the summary table: how to read its figure from a lane's run.
struct SummaryFigure {
    key: &'static str,
    label: &'static str,
    formula: &'static str,
    of: fn(&SimRun) -> (String, f64),
}

const fn figure(
    key: &'static str,
    label: &'static str,
    formula: &'static str,
    of: fn(&SimRun) -> (String, f64),
) -> SummaryFigure {
    SummaryFigure {
        key,
        label,
        formula,
        of,
    }
}

const EVERY_RUN: &[SummaryFigure] = &[
    figure(
        "jobs_enqueued",
        "Jobs enqueued",
        "first attempts due before the end",
        |r| whole(r.summary.jobs_enqueued),
    ),
    figure("jobs_done", "Jobs done", "finished before the end", |r| {
        whole(r.summary.jobs_done)
    }),
    figure(
        "mean_wait_s",
        "Mean wait",
        "start − due, over jobs due before the end",
        |r| (mean_wait(&r.summary), r.summary.mean_wait_s),
    ),
    figure(
        "p50_wait_s",
        "Median wait",
        "half of the n jobs waited no longer",
        |r| {
            let p50 = r.summary.p50_wait_s;
            (wait_percentile(r, p50, 0.5), p50)
        },
    ),
    figure(
        "p95_wait_s",
        "p95 wait",
        "95 in 100 of the n jobs waited no longer",
        |r| {
            let p95 = r.summary.p95_wait_s;
            (wait_percentile(r, p95, 0.95), p95)
        },
    ),
    figure(
        "p99_wait_s",
        "p99 wait",
        "99 in 100 of the n jobs waited no longer",
        |r| {
            let p99 = r.summary.p99_wait_s;
            (wait_percentile(r, p99, 0.99), p99)
        },
    ),
    figure(
        "never_started",
        "Never started",
        "due before the end, still waiting at it",
        |r| whole(r.summary.never_started),
    ),
    figure(
        "max_queue_depth",
        "Most jobs waiting",
        "at any instant",
        |r| whole(r.summary.max_queue_depth),
    ),
    figure(
        "utilization",
        "Utilization",
        "busy worker time / ready worker time",
        |r| {
            let share = r.summary.utilization;
            (format!("{:.1} %", share * 100.0), share)
        },
    ),
    figure(
        "never_synced",
        "Accounts never synced",
        "no finished sync by the end",
        |r| whole(u64::from(r.summary.never_synced)),
    ),
    figure(
        "max_sync_interval_s",
        "Longest time between syncs",
        "of one account, finish to finish",
        |r| time(r.summary.max_sync_interval_s),
    ),
    figure(
        "peak_calls_per_second",
        "Peak downstream calls",
        "syncs started in the busiest whole second",
        |r| {
            let peak = r.summary.peak_calls_per_second;
            (format!("{} /s", count(u64::from(peak))), f64::from(peak))
        },
    ),
];

const WITH_REPORTS: &[SummaryFigure] = &[
    figure(
        "lock_conflicts",
        "Lock conflicts",
        "a job found its account locked",
        |r| whole(r.summary.lock_conflicts),
    ),
    figure(
        "lock_wait_s",
        "Wait added by the lock",
        "time parked, in all",
        |r| time(r.summary.lock_wait_s),
    ),
];

const WITH_DOWNSTREAM: &[SummaryFigure] = &[
    figure(
        "failed_calls",
        "Calls refused",
        "over the limit or in the outage",
        |r| whole(r.summary.failed_calls),
    ),
    figure(
        "retries",
        "Retries",
        "jobs enqueued again after a refusal",
        |r| whole(r.summary.retries),
    ),
    figure(
        "gave_up",
        "Gave up",
        "refused once more than the retries allow",
        |r| whole(r.summary.gave_up),
    ),
];

const WITH_AUTOSCALER: &[SummaryFigure] = &[figure(
    "peak_workers",
    "Most workers ready",
    "highest bin average",
    |r| {
        let most = r.workers.iter().copied().fold(0.0, f64::max);
        (significant(most, 3), most)
    },
)];

/// The few figures printed beside the two charts of "Inside the scheduler".
pub fn scheduler_key_numbers(late: &LateRun, heap: &Compaction) -> Vec<KeyNumber> {
    let slots_passed = micros(late.late_by_s)
        .checked_div(micros(late.period_s))
        .unwrap_or(0);
    let after = heap.after_cancels;
    vec![
        KeyNumber::new(
            "sched_coalesced",
            "Fixed-rate slots coalesced",
            count(late.fixed_rate.coalesced),
            "grid slots that passed while the slow run overran, covered by one late run",
        )
        .beside(format!("⌊L / P⌋ = {}", count(slots_passed))),
        KeyNumber::new(
            "sched_heap",
            "Heap entries after the cancels",
            format!(
                "{} ({} without compaction)",
                count(u64::from(after.heap())),
                count(u64::from(after.heap_without_compaction())),
            ),
            "live + dead entries; a rebuild drops the dead once they outnumber the live",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recurrence::{compaction, late_run};

    #[test]
    fn the_schedulers_key_numbers_read_its_runs() {
        let numbers = scheduler_key_numbers(
            &late_run(60.0, 150.0, 10).unwrap(),
            &compaction(1_000, 0.75).unwrap(),
        );
        let values: Vec<(&str, &str, Option<&str>)> = numbers
            .iter()
            .map(|n| (n.key, n.value.as_str(), n.theory.as_deref()))
            .collect();
        assert_eq!(
            values,
            [
                ("sched_coalesced", "2", Some("⌊L / P⌋ = 2")),
                ("sched_heap", "499 (1,000 without compaction)", None),
            ]
        );
    }
}
