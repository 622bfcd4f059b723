//! The Poisson panel: its parameters in URLs and controls, the rule that
//! keeps a run's expected events in bounds, its presets and key numbers.

use super::series::TimeSeries;
use super::{Figure, KEY_NUMBERS, PanelSpec, State};
use crate::error::InvalidInput;
use crate::field::{Field, FieldValue, Kind, Notice, shorten};
use crate::key_numbers::KeyNumber;
use crate::panel_params;
use crate::poisson::*;
use crate::preset::Preset;
use crate::units::{self, SECONDS_PER_DAY};

panel_params! {
    impl PoissonParams {
        per_day = 300, PER_DAY: Field::number("n", "Events a day", "/day", (1.0, 1_000_000.0), 1.0).log();
        window_start = 0.0, WINDOW_START: Field::number("ws", "Window start", "h", (0.0, 24.0), 0.25);
        window_end = 24.0, WINDOW_END: Field::number("we", "Window end", "h", (0.0, 24.0), 0.25);
        policy = WindowPolicy::Scale, POLICY: Field::choice("wp", "Window policy", WindowPolicy::OPTIONS);
        utc_offset = 0.0, UTC_OFFSET: Field::number("tz", "UTC offset", "h", (-12.0, 14.0), 0.25);
        days = 1, DAYS: Field::number("d", "Horizon", "days", (1.0, 30.0), 1.0);
        extra_tenants = ExtraTenants::default(), EXTRA_TENANTS: Field::text("t", "More tenants", 160, "1000@22-6, 50");
        bucket_capacity = 0, BUCKET_CAPACITY: Field::number("bc", "Bucket capacity", "tokens", (0.0, 10_000.0), 1.0);
        bucket_refill = 1.0, BUCKET_REFILL: Field::number("br", "Bucket refill", "/s", (0.001, 10_000.0), 0.001).log();
        bucket_policy = BucketPolicy::Drop, BUCKET_POLICY: Field::choice("bp", "When the bucket is empty", BucketPolicy::OPTIONS);
    }
    settle_rules = limit_expected_events;
}

/// Keeps a run within [`MAX_EXPECTED_EVENTS`]: a day that alone expects
/// more scales the extra tenants down together (the first tenant's N alone
/// always fits), then the horizon shortens to the days that fit.
fn limit_expected_events(params: &mut PoissonParams) -> Vec<Notice> {
    let mut notices = Vec::new();
    let first = u64::from(params.per_day);
    let extra = params.total_per_day() - first;
    if first + extra > MAX_EXPECTED_EVENTS {
        let room = MAX_EXPECTED_EVENTS - first;
        for tenant in &mut params.extra_tenants.0 {
            tenant.per_day = (u64::from(tenant.per_day) * room / extra).max(1) as u32;
        }
        notices.push(PoissonParams::EXTRA_TENANTS.notice(format!(
            "at most {MAX_EXPECTED_EVENTS} events fit in a day; using {}",
            params.extra_tenants.encode()
        )));
    }
    let per_day = params.total_per_day();
    if per_day * u64::from(params.days) > MAX_EXPECTED_EVENTS {
        params.days = (MAX_EXPECTED_EVENTS / per_day).max(1) as u32;
        notices.push(PoissonParams::DAYS.notice(format!(
            "at most {MAX_EXPECTED_EVENTS} events fit in a run; using {} days",
            params.days
        )));
    }
    notices
}

impl FieldValue for ExtraTenants {
    fn parse(raw: &str, field: &Field) -> Result<(Self, Option<String>), String> {
        let items = raw
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty());
        let tenants = items.map(parse_tenant).collect::<Result<Vec<_>, _>>()?;
        if tenants.len() > MAX_EXTRA_TENANTS {
            return Err(format!("more than {MAX_EXTRA_TENANTS} tenants"));
        }
        let tenants = ExtraTenants(tenants);
        // Hours with many decimals would write out longer than a link holds.
        if let Kind::Text { max_len, .. } = field.kind
            && tenants.encode().chars().count() > max_len
        {
            return Err(format!("written out, more than {max_len} characters"));
        }
        Ok((tenants, None))
    }

    fn encode(&self) -> String {
        let items: Vec<String> = self.0.iter().map(Tenant::to_string).collect();
        items.join(",")
    }
}

fn parse_tenant(item: &str) -> Result<Tenant, String> {
    let bad = || format!("\"{}\" is not N or N@start-end", shorten(item));
    let (count, window) = match item.split_once('@') {
        Some((count, window)) => (count, Some(window)),
        None => (item, None),
    };
    let per_day: u32 = count.trim().parse().map_err(|_| bad())?;
    if !(1..=1_000_000).contains(&per_day) {
        return Err(format!("{per_day} a day is outside 1 to 1,000,000"));
    }
    let (window_start, window_end) = match window {
        None => (0.0, 24.0),
        Some(window) => {
            let (start, end) = window.split_once('-').ok_or_else(bad)?;
            let hour = |text: &str| {
                crate::field::parse_finite(text.trim())
                    .filter(|h| (0.0..=24.0).contains(h))
                    .ok_or_else(|| format!("\"{}\" is not an hour from 0 to 24", shorten(text)))
            };
            (hour(start)?, hour(end)?)
        }
    };
    Ok(Tenant {
        per_day,
        window_start,
        window_end,
    })
}

// The figures, in the order the panel draws them after its key numbers.
pub const TIMELINE: Figure = Figure::new("timeline", "The first day, minute by minute");
pub const GAPS: Figure = Figure::new("gaps", "Gaps between events");
pub const HOURS: Figure = Figure::new("hours", "Events per hour of the day");
pub const BUCKET: Figure = Figure::new("bucket", "Token bucket");

/// The Poisson panel, in the registry (`for_panel!`).
pub struct PoissonPanel;

impl PanelSpec for PoissonPanel {
    type Params = PoissonParams;
    type Run = PoissonRun;
    const SLUG: &'static str = "poisson";
    const TITLE: &'static str = "Poisson";
    const FIGURES: &'static [Figure] = &[KEY_NUMBERS, TIMELINE, GAPS, HOURS, BUCKET];
    const PRESETS: &'static [Preset] = PRESETS;
    const FIELDS: &'static [Field] = PoissonParams::FIELDS;

    fn params(state: &State) -> &PoissonParams {
        &state.poisson
    }

    fn params_mut(state: &mut State) -> &mut PoissonParams {
        &mut state.poisson
    }

    fn run(params: &PoissonParams, seed: u64) -> Result<PoissonRun, InvalidInput> {
        crate::poisson::run(params, seed)
    }

    fn key_numbers(params: &PoissonParams, run: &PoissonRun) -> Vec<KeyNumber> {
        key_numbers(params, run)
    }

    fn time_series(run: &PoissonRun) -> Option<TimeSeries> {
        Some(TimeSeries::new(&["time_s"], vec![run.run_times.clone()]))
    }
}

/// The panel's "try this" presets.
pub const PRESETS: &[Preset] = &[
    Preset {
        slug: "300-a-day",
        title: "300 a day",
        lesson: "One event every 288 s on average, yet half of all gaps are shorter than about 3 min 20 s (ln 2 / λ): random times cluster.",
        query: "n=300",
    },
    Preset {
        slug: "defer-burst",
        title: "Defer → a burst at 09:00",
        lesson: "Every event drawn between midnight and 09:00 waits for the window and runs at 09:00 sharp: that one minute holds about 9/24 of the day's events.",
        query: "n=300&ws=9&we=17&wp=defer",
    },
    Preset {
        slug: "scale-window",
        title: "Scale λ to the window",
        lesson: "All 300 run between 09:00 and 17:00, one every 96 s on average, and no minute stands out.",
        query: "n=300&ws=9&we=17&wp=scale",
    },
    Preset {
        slug: "token-bucket",
        title: "A token bucket in front: 1 a second, bursts of 60",
        lesson: "100,000 a day is 1.16 a second against 1 token a second: about one event in seven finds the bucket empty and is dropped.",
        query: "n=100000&bc=60&br=1&bp=drop",
    },
    Preset {
        slug: "tenants",
        title: "Three tenants, one at night",
        lesson: "The night tenant's 1,000 events fill 22:00 to 06:00 and stack above the all-day tenants in the hourly chart.",
        query: "n=300&t=1000@22-6,50",
    },
];

/// The figures the panel prints beside its charts.
pub fn key_numbers(params: &PoissonParams, run: &PoissonRun) -> Vec<KeyNumber> {
    let lambda = run.rate_per_second;
    // Tenants with different windows merge into a stream whose rate changes
    // through the day: no single λ predicts its gaps or its busiest minute.
    let tenants = params.tenants();
    let one_rate = tenants.len() == 1 || tenants.iter().all(|t| t.window().1 == SECONDS_PER_DAY);
    let theory = |number: KeyNumber, text: String| {
        if one_rate {
            number.beside(text)
        } else {
            number
        }
    };
    let expected_events = params.total_per_day() * u64::from(params.days);
    let mut numbers = vec![
        KeyNumber::new(
            "rate",
            "Rate in the window",
            units::rate(lambda),
            match params.policy {
                WindowPolicy::Scale => "λ = N / window length",
                WindowPolicy::Defer => "λ = N / 86,400 s",
            },
        ),
        KeyNumber::new(
            "events",
            "Events that ran",
            units::count(run.run_times.len() as u64),
            "over the horizon, after the bucket",
        )
        .beside(format!("N × days = {}", units::count(expected_events))),
        theory(
            KeyNumber::new(
                "mean-gap",
                "Mean gap",
                run.mean_gap.map_or("–".into(), units::duration),
                "mean of the measured gaps",
            ),
            format!("1 / λ = {}", units::duration(1.0 / lambda)),
        ),
    ];
    for (index, key, label, formula) in [
        (0, "median-gap", "Median gap", "ln 2 / λ"),
        (1, "p95-gap", "95th percentile gap", "ln 20 / λ"),
    ] {
        let quantile = run.gap_quantiles[index];
        numbers.push(theory(
            KeyNumber::new(key, label, units::duration(quantile.measured), "measured"),
            format!("{formula} = {}", units::duration(quantile.theory)),
        ));
    }
    numbers.extend(busiest_minute(params, run).map(|(number, text)| theory(number, text)));
    numbers.extend(held_for_the_window(params, run, &tenants));
    if let Some(bucket) = &run.bucket {
        numbers.extend(bucket_numbers(params, bucket, lambda));
    }
    numbers
}

/// The busiest minute in local time, and λ · 60 s beside it.
fn busiest_minute(params: &PoissonParams, run: &PoissonRun) -> Option<(KeyNumber, String)> {
    let (at, events) = run.busiest_minute?;
    let lambda = run.rate_per_second;
    let local = (at + params.utc_offset * 3600.0).rem_euclid(f64::from(SECONDS_PER_DAY));
    Some((
        KeyNumber::new(
            "busiest-minute",
            "Busiest minute",
            format!(
                "{} at {}",
                units::count(u64::from(events)),
                units::clock(local)
            ),
            "most events in one minute, local time",
        ),
        format!(
            "λ · 60 s = {} on average",
            units::significant(lambda * 60.0, 3)
        ),
    ))
}

/// Under `defer`, the events drawn outside the window, against what
/// theory expects to be held.
fn held_for_the_window(
    params: &PoissonParams,
    run: &PoissonRun,
    tenants: &[Tenant],
) -> Option<KeyNumber> {
    // Each tenant's events outside its window: N × days × (1 − window / day).
    let day = f64::from(SECONDS_PER_DAY);
    let held: f64 = tenants
        .iter()
        .map(|t| {
            f64::from(t.per_day) * f64::from(params.days) * (1.0 - f64::from(t.window().1) / day)
        })
        .sum();
    if params.policy != WindowPolicy::Defer || held <= 0.0 {
        return None;
    }
    Some(
        KeyNumber::new(
            "deferred",
            "Held for the window",
            units::count(u64::from(run.deferred)),
            "drawn outside the window, run at its opening",
        )
        .beside(format!(
            "Σ N × days × (1 − window / day) = {}",
            units::significant(held, 3)
        )),
    )
}

/// What a token bucket let through, held back and dropped.
fn bucket_numbers(params: &PoissonParams, bucket: &BucketOutcome, lambda: f64) -> Vec<KeyNumber> {
    let offered = bucket.accepted + bucket.delayed + bucket.rejected;
    let short = 1.0 - params.bucket_refill / lambda;
    let mut outcome = KeyNumber::new(
        "bucket",
        "Ran at once / waited / dropped",
        format!(
            "{} / {} / {}",
            units::count(u64::from(bucket.accepted)),
            units::count(u64::from(bucket.delayed)),
            units::count(u64::from(bucket.rejected))
        ),
        "token bucket: C tokens, refilled at r a second",
    );
    if short > 0.0 && offered > 0 {
        outcome = outcome.beside(format!(
            "λ > r: about 1 − r / λ = {} % find no token",
            units::significant(short * 100.0, 2)
        ));
    }
    let mut numbers = vec![outcome];
    if bucket.delayed > 0 {
        numbers.push(KeyNumber::new(
            "bucket-delay",
            "Added delay, mean / max",
            format!(
                "{} / {}",
                units::duration(bucket.added_delay / f64::from(bucket.delayed)),
                units::duration(bucket.max_delay)
            ),
            "over the events that waited for a token",
        ));
    }
    numbers
}
