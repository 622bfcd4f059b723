//! The Jitter panel: its parameters in URLs and controls, the rules that
//! keep the delay range sound, its presets and key numbers.

use super::series::TimeSeries;
use super::snippet::{self, Snippet};
use super::{Figure, KEY_NUMBERS, PanelSpec, State};
use crate::clock::ClockTime;
use crate::error::InvalidInput;
use crate::field::{Field, Notice};
use crate::jitter::*;
use crate::key_numbers::KeyNumber;
use crate::panel_params;
use crate::preset::Preset;
use crate::units::{count, duration, percent, significant};

panel_params! {
    impl JitterParams {
        jobs = 10_000, JOBS: Field::number("n", "Jobs", "jobs", (1.0, 1_000_000.0), 1.0).log();
        strategy = JitterStrategy::Uniform, STRATEGY: Field::choice("js", "Delay", JitterStrategy::OPTIONS);
        min_delay = 0.0, MIN_DELAY: Field::number("lo", "Min delay", "min", (0.0, MAX_DELAY_MINUTES), DELAY_STEP_MINUTES).log();
        max_delay = 30.0, MAX_DELAY: Field::number("hi", "Max delay", "min", (0.0, MAX_DELAY_MINUTES), DELAY_STEP_MINUTES).log();
        fixed_delay = 10.0, FIXED_DELAY: Field::number("fd", "Fixed delay", "min", (0.0, MAX_DELAY_MINUTES), DELAY_STEP_MINUTES).log();
        mean_delay = 10.0, MEAN_DELAY: Field::number("m", "Mean delay", "min", (0.0, MAX_DELAY_MINUTES), DELAY_STEP_MINUTES).log();
        sd = 5.0, SD: Field::number("sd", "Std deviation", "min", (0.1, 720.0), 0.1).log();
        limit_per_second = 20, LIMIT_PER_SECOND: Field::number("rps", "Downstream limit", "/s", (1.0, 100_000.0), 1.0).log();
        confidence = Confidence::NinetyFive, CONFIDENCE: Field::choice("conf", "Window holds on", Confidence::OPTIONS);
        start = ClockTime::MIDNIGHT, START: Field::text("at", "Enqueue at", 5, "02:00");
    }
    settle_rules = keep_delays_apart;
    relevance = is_relevant;
}

/// The URL key of the downstream limit before it was per second: a number
/// of jobs a minute. [`JitterParams::read_per_minute_limit`] still reads it.
pub const PER_MINUTE_LIMIT_KEY: &str = "r";

impl JitterParams {
    /// Reads `raw`, a limit in jobs a minute as URLs once wrote it under
    /// [`PER_MINUTE_LIMIT_KEY`], into the per-second limit, rounded up to a
    /// whole call a second; the notice says what it became.
    pub fn read_per_minute_limit(&mut self, raw: &str) -> Notice {
        const LIMIT: Field = JitterParams::LIMIT_PER_SECOND;
        let per_minute = crate::field::parse_finite(raw.trim());
        match per_minute {
            Some(per_minute) if per_minute > 0.0 => {
                let per_second = (per_minute / 60.0).ceil().clamp(1.0, 100_000.0);
                self.limit_per_second = per_second as u32;
                LIMIT.notice(format!(
                    "the limit is per second now: {} a minute read as {} /s",
                    crate::field::shorten(raw.trim()),
                    self.limit_per_second
                ))
            }
            _ => LIMIT.notice(format!(
                "\"{}\" is not a limit a minute; using {} /s",
                crate::field::shorten(raw.trim()),
                self.limit_per_second
            )),
        }
    }
}

/// The uniform range [min, max) must not be empty.
fn keep_delays_apart(params: &mut JitterParams) -> Vec<Notice> {
    if params.max_delay > params.min_delay {
        Vec::new()
    } else if params.min_delay + 0.5 <= MAX_DELAY_MINUTES {
        params.max_delay = params.min_delay + 0.5;
        let why = format!("must be above the min delay; using {}", params.max_delay);
        vec![JitterParams::MAX_DELAY.notice(why)]
    } else {
        (params.min_delay, params.max_delay) = (MAX_DELAY_MINUTES - 0.5, MAX_DELAY_MINUTES);
        vec![JitterParams::MIN_DELAY.notice("must be below the max delay; using 1439.5")]
    }
}

/// Which delays a strategy reads: the others' controls are hidden.
fn is_relevant(params: &JitterParams, key: &str) -> bool {
    let [min, max, fixed, mean, sd] = [
        JitterParams::MIN_DELAY,
        JitterParams::MAX_DELAY,
        JitterParams::FIXED_DELAY,
        JitterParams::MEAN_DELAY,
        JitterParams::SD,
    ]
    .map(|field| field.key);
    let uses: &[&str] = match params.strategy {
        JitterStrategy::NoDelay => &[],
        JitterStrategy::Fixed => &[fixed],
        JitterStrategy::Uniform => &[min, max],
        JitterStrategy::Exponential => &[max, mean],
        JitterStrategy::Normal => &[min, max, mean, sd],
        JitterStrategy::TwoPeak => &[min, max, sd],
    };
    ![min, max, fixed, mean, sd].contains(&key) || uses.contains(&key)
}

// The figures, in the order the panel draws them after its key numbers.
pub const ARRIVALS: Figure = Figure::new("arrivals", "Arrivals at the downstream");
pub const COMPLETION: Figure = Figure::new("completion", "Jobs started so far");

/// The Jitter panel, in the registry (`for_panel!`).
pub struct JitterPanel;

impl PanelSpec for JitterPanel {
    type Params = JitterParams;
    type Run = JitterRun;
    const SLUG: &'static str = "jitter";
    const TITLE: &'static str = "Jitter";
    const FIGURES: &'static [Figure] = &[KEY_NUMBERS, ARRIVALS, COMPLETION];
    const PRESETS: &'static [Preset] = PRESETS;
    const FIELDS: &'static [Field] = JitterParams::FIELDS;

    fn params(state: &State) -> &JitterParams {
        &state.jitter
    }

    fn params_mut(state: &mut State) -> &mut JitterParams {
        &mut state.jitter
    }

    fn run(params: &JitterParams, seed: u64) -> Result<JitterRun, InvalidInput> {
        crate::jitter::run(params, seed)
    }

    fn key_numbers(params: &JitterParams, run: &JitterRun) -> Vec<KeyNumber> {
        key_numbers(params, run)
    }

    fn time_series(run: &JitterRun) -> Option<TimeSeries> {
        Some(TimeSeries::counted("second", "jobs", &run.per_second, 1.0))
    }

    fn snippets(params: &JitterParams) -> Vec<Snippet> {
        snippet::jitter::snippets(params)
    }

    /// Links made while the limit was per minute still open with the same
    /// limit, read per second, unless they name the new key too.
    fn read_old_keys<'a>(
        params: &mut JitterParams,
        last: &dyn Fn(&str) -> Option<&'a str>,
    ) -> Vec<Notice> {
        match (
            last(PER_MINUTE_LIMIT_KEY),
            last(JitterParams::LIMIT_PER_SECOND.key),
        ) {
            (Some(raw), None) => vec![params.read_per_minute_limit(raw)],
            _ => Vec::new(),
        }
    }
}

/// The panel's "try this" presets.
pub const PRESETS: &[Preset] = &[
    Preset {
        slug: "herd",
        title: "10,000 jobs, no jitter",
        lesson: "All 10,000 jobs start in the same second, 500 times the 20 a second the downstream takes, so 9,980 of them are over its limit.",
        query: "js=none&n=10000",
    },
    Preset {
        slug: "fixed-delay",
        title: "A fixed 10-minute delay just moves the herd",
        lesson: "The same spike of 10,000 jobs arrives ten minutes later, and the same 9,980 of them are over the limit.",
        query: "js=fixed&fd=10",
    },
    Preset {
        slug: "uniform-30",
        title: "30-minute uniform jitter ≈ 5.6/s",
        lesson: "Spread evenly over 30 minutes the jobs arrive at 5.56 a second (333 a minute); by chance the busiest second holds two or three times that, still under the limit of 20.",
        query: "js=uniform&lo=0&hi=30",
    },
    Preset {
        slug: "api-limit",
        title: "5,000 jobs against a 50/s API",
        lesson: "Over 2 minutes 5,000 jobs average 41.7 a second, under the limit of 50, yet the busiest second holds about 60: a window that holds on 95 % of nights is 2 min 48 s, where N / L alone says 1 min 40 s.",
        query: "n=5000&rps=50&hi=2",
    },
    Preset {
        slug: "exponential-vs-uniform",
        title: "Exponential vs uniform",
        lesson: "Over the same 30 minutes an exponential delay front-loads the jobs, about 17.5 in each of its first seconds, so by chance some of them break the limit of 20, where uniform jitter breaks it in none.",
        query: "js=exponential&m=10&hi=30",
    },
];

/// A rate per second with the same rate a minute beside it.
fn per_second_and_minute(per_second: f64) -> String {
    format!(
        "{} /s ({} /min)",
        significant(per_second, 3),
        significant(per_second * 60.0, 3)
    )
}

/// The figures the panel prints beside its charts.
pub fn key_numbers(params: &JitterParams, run: &JitterRun) -> Vec<KeyNumber> {
    let jobs = u64::from(params.jobs);
    let limit = params.limit_per_second;
    let (peak_start, peak_count) = run.peak_second;
    let peak = KeyNumber::new(
        "peak-second",
        "Busiest second",
        format!(
            "{} jobs at {}",
            count(u64::from(peak_count)),
            duration(peak_start)
        ),
        "most jobs starting within one second [k, k + 1) from t0",
    );
    let peak = match busiest_second_theory(params) {
        Some(theory) => peak.beside(theory),
        None => peak,
    };
    let seconds_over = KeyNumber::new(
        "seconds-over",
        "Seconds over the limit",
        format!(
            "{} of {}",
            count(u64::from(run.seconds_over_limit)),
            count(run.per_second.len() as u64)
        ),
        "seconds [k, k + 1) with more than L jobs",
    );
    let seconds_over = match run.nights_within_limit {
        Some(share) => seconds_over.beside(format!(
            "this is one night; at this window {} of nights have none",
            share_of_nights(share)
        )),
        None => seconds_over,
    };
    let over_limit = KeyNumber::new(
        "over-limit",
        "Jobs over the downstream limit",
        count(run.over_limit),
        "Σ max(0, jobs in a second − L), over every second",
    );
    let over_limit = match params.strategy {
        JitterStrategy::NoDelay | JitterStrategy::Fixed => over_limit.beside(format!(
            "all N in one second, so N − L = {}",
            count(jobs.saturating_sub(u64::from(limit)))
        )),
        _ => over_limit,
    };
    let range_end = duration(params.max_delay * 60.0);
    let last_job_theory = match params.strategy {
        JitterStrategy::NoDelay => "t0 = 0 s".to_string(),
        JitterStrategy::Fixed => {
            format!("t0 + fixed delay = {}", duration(params.fixed_delay * 60.0))
        }
        JitterStrategy::Uniform => format!("just before t0 + max = {range_end}"),
        JitterStrategy::Exponential | JitterStrategy::Normal | JitterStrategy::TwoPeak => {
            format!("no later than t0 + max = {range_end}")
        }
    };
    vec![
        peak,
        seconds_over,
        over_limit,
        fit_number(&run.window_fit, params.min_delay),
        KeyNumber::new(
            "flat-rate",
            "Flat rate with uniform jitter",
            per_second_and_minute(params.flat_rate_per_second()),
            "N / (max − min)",
        ),
        KeyNumber::new(
            "herd",
            "Without jitter",
            format!("{} at once", count(jobs)),
            "all N at t0",
        ),
        KeyNumber::new(
            "at-limit",
            "Fastest the downstream can take them",
            duration(params.drain_seconds()),
            "N / L, at the limit from t0",
        ),
        KeyNumber::new(
            "last-job",
            "Last job runs at",
            duration(run.last_run),
            "the latest delay drawn",
        )
        .beside(last_job_theory),
    ]
}

/// The narrowest uniform window at the chosen confidence, beside the
/// counting floor and this seed's one night.
fn fit_number(fit: &WindowFit, min_delay: f64) -> KeyNumber {
    let value = match (fit.window_seconds, fit.max_delay) {
        (Some(window), Some(max_delay)) => format!(
            "{} on {} of nights (delays from {} to {} min)",
            duration(window),
            percent(fit.confidence),
            min_delay,
            max_delay
        ),
        _ => "none up to 1,440 min".into(),
    };
    let night = match fit.one_night_seconds {
        Some(seconds) => format!("this seed's one night fits from {}", duration(seconds)),
        None => "this seed's one night fits no window up to a day".into(),
    };
    KeyNumber::new(
        "fit-window",
        "Smallest uniform window under the limit",
        value,
        "holds on the chosen share of nights: the chance that no second of W holds more than L \
         of N, from the multinomial by Levin's method (within 0.001 points), in steps of 6 s",
    )
    .beside(format!(
        "at least N / L = {}; {night}",
        duration(fit.floor_seconds)
    ))
}

/// A share of nights in words that never round a near-certainty to 100 %.
pub fn share_of_nights(share: f64) -> String {
    if share >= 0.9995 {
        "over 99.9 %".into()
    } else if share < 0.0005 {
        "under 0.1 %".into()
    } else {
        percent(share)
    }
}

/// What theory expects of the busiest second, where it says something
/// simple: the whole herd for no or a fixed delay; for uniform delays over
/// W seconds the expected largest of W Binomial(N, 1/W) counts; for an
/// exponential one the first second's expected count N·p with its binomial
/// spread √(N·p·(1 − p)). Normal shapes clipped at the range's ends pile
/// jobs onto the ends, so they get no simple figure.
fn busiest_second_theory(params: &JitterParams) -> Option<String> {
    let jobs = f64::from(params.jobs);
    let (hi, mean) = (params.max_delay, params.mean_delay);
    let all = count(u64::from(params.jobs));
    match params.strategy {
        JitterStrategy::NoDelay => Some(format!("all N in the first second = {all}")),
        JitterStrategy::Fixed => Some(format!(
            "all N at t0 + fixed delay = {all} at {}",
            duration((params.fixed_delay * 60.0).floor())
        )),
        JitterStrategy::Uniform => {
            let seconds = (params.spread_minutes() * 60.0).round().max(1.0) as u32;
            Some(format!(
                "max of W = {} seconds each Binomial(N, 1/W) ≈ {} (flat rate N / W = {})",
                count(u64::from(seconds)),
                significant(expected_busiest_second(params.jobs, seconds), 3),
                significant(jobs / f64::from(seconds), 3)
            ))
        }
        JitterStrategy::Exponential if mean == 0.0 || hi * 60.0 <= 1.0 => {
            Some(format!("all N in the first second = {all}"))
        }
        JitterStrategy::Exponential => {
            // The density falls from t0, so the first second expects the
            // most, and the seconds after it nearly as many: the busiest of
            // them lands a few spreads above.
            let first = libm::expm1(-1.0 / (60.0 * mean)) / libm::expm1(-hi / mean);
            let spread = (jobs * first * (1.0 - first)).sqrt();
            Some(format!(
                "N(1 − e^(−1 s/mean)) / (1 − e^(−max/mean)) = {} expected in the first second, \
                 ± {} by chance, and nearly as many in each second after it",
                significant(jobs * first, 3),
                significant(spread, 2)
            ))
        }
        JitterStrategy::Normal | JitterStrategy::TwoPeak => None,
    }
}

/// The panel's headline: "What window do I need?" in sentences that follow
/// the window fit and the current run, and what its button would set.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowAnswer {
    pub sentences: Vec<String>,
    /// `None` when no window up to a day holds.
    pub button: Option<WindowButton>,
}

/// "Use this window": the max delay it sets, whether it switches the
/// strategy to uniform, and whether the window is already in use.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowButton {
    pub label: String,
    pub max_delay: f64,
    pub to_uniform: bool,
    pub in_use: bool,
}

/// The window answer for `params` and its `run`.
pub fn window_answer(params: &JitterParams, run: &JitterRun) -> WindowAnswer {
    let fit = &run.window_fit;
    let (jobs, limit) = (
        count(u64::from(params.jobs)),
        count(u64::from(params.limit_per_second)),
    );
    let share = percent(fit.confidence);
    let floor = duration(fit.floor_seconds);
    let headline = match (fit.window_seconds, fit.chance, fit.chance_one_step_less) {
        (Some(window), Some(chance), Some(less)) => format!(
            "{jobs} jobs under {limit} a second need a uniform window of {} to keep every second \
             at or under {limit} on {share} of nights: it holds on {}, and {} on {}. \
             N / L = {floor} is the floor.",
            duration(window),
            share_of_nights(chance),
            duration(window - 6.0),
            share_of_nights(less),
        ),
        _ => format!(
            "No uniform window up to 1,440 min keeps {jobs} jobs under {limit} a second on \
             {share} of nights. N / L = {floor} is the floor."
        ),
    };
    let night = match fit.one_night_seconds {
        Some(seconds) => format!(
            "The charts show one night, this seed's draws, which fit from {}.",
            duration(seconds)
        ),
        None => "The charts show one night, this seed's draws, which fit no window up to a day."
            .to_string(),
    };
    let current = match run.nights_within_limit {
        Some(within) => format!(
            " At the current window of {}, {} of nights keep every second under the limit.",
            duration(params.spread_minutes() * 60.0),
            share_of_nights(within)
        ),
        None if params.strategy == JitterStrategy::NoDelay => {
            " Without a delay every job starts at once.".to_string()
        }
        None => format!(
            " The chosen delay is {}, not uniform: the window above is for uniform jitter.",
            params.strategy.label().to_ascii_lowercase()
        ),
    };
    let uniform = params.strategy == JitterStrategy::Uniform;
    let button = fit.max_delay.map(|max_delay| {
        let in_use = uniform && max_delay == params.max_delay;
        let label = if in_use {
            format!("In use: max {max_delay} min")
        } else if uniform {
            format!("Use this window (max {max_delay} min)")
        } else {
            format!("Use uniform jitter over it (max {max_delay} min)")
        };
        WindowButton {
            label,
            max_delay,
            to_uniform: !uniform,
            in_use,
        }
    });
    WindowAnswer {
        sentences: vec![headline, night + &current],
        button,
    }
}
