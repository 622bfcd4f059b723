//! The rules, in two kinds:
//!
//! - **A line on its own** ([`per_line`]): a line its scheduler refuses
//!   (`not-read`), one that never runs, cron's OR of the two day fields, a
//!   workflow at minute 0 (GitHub's busy time), a Jenkins trigger Jenkins
//!   itself would ask to hash (`CronTab.checkSanity`, which ends in
//!   [`jenkins_hashify`]), a random delay longer than the gap between runs.
//! - **The fleet's load** ([`starts_over`], [`running_over`]): every line
//!   starting in a minute over the starts budget, and every line with a
//!   duration running in a minute over the concurrency budget, each named
//!   once with its worst minute. Where delays are drawn at run time, a
//!   minute is judged by its 90th percentile across draws ([`Load`]).

use std::collections::{BTreeMap, BTreeSet};

use stampede_core::fleet_format::FleetFormat;
use stampede_core::units::duration;

use super::read::{FileRead, Hit, RepositoryFleet};
use super::{CheckOptions, Rule, suggest};
use crate::Expansion;
use crate::cron::{DayRule, Horizon, Schedule};
use crate::file::{FleetLine, System};
use crate::plan::LinePlan;
use crate::systemd::timespan::parse_span;
use crate::temporal::duration::temporal_duration_nanos;
use crate::time::MICROS_PER_SECOND;

/// The load each minute is judged by: starts, and jobs running when any
/// line gives a duration, as one draw gives them or, where delays are
/// drawn, their 90th percentile across draws.
pub struct Load {
    starts: Vec<f64>,
    running: Option<Vec<f64>>,
    /// Where delays are drawn, the 10th percentiles of starts and
    /// running, to tell the minutes the draws move from those they do not.
    least: Option<(Vec<f64>, Option<Vec<f64>>)>,
}

impl Load {
    pub fn new(expansion: &Expansion) -> Self {
        match &expansion.drawn {
            Some(range) => Self {
                starts: range.starts.p90.clone(),
                running: range.running.as_ref().map(|band| band.p90.clone()),
                least: Some((
                    range.starts.p10.clone(),
                    range.running.as_ref().map(|band| band.p10.clone()),
                )),
            },
            None => Self {
                starts: expansion
                    .starts_per_minute
                    .iter()
                    .map(|&n| n.into())
                    .collect(),
                running: expansion.running_per_minute.clone(),
                least: None,
            },
        }
    }

    /// The busiest minute's start in Unix seconds and its starts; `None`
    /// when nothing starts.
    pub fn busiest(&self, from: i64) -> Option<(i64, f64)> {
        let (minute, &starts) = self
            .starts
            .iter()
            .enumerate()
            .rev()
            .max_by(|a, b| a.1.total_cmp(b.1))?;
        (starts > 0.0).then_some((from + 60 * minute as i64, starts))
    }

    /// Each hour's busiest minute.
    pub fn busiest_by_hour(&self) -> Vec<f64> {
        self.starts
            .chunks(60)
            .map(|hour| hour.iter().copied().fold(0.0, f64::max))
            .collect()
    }

    /// " on 1 night in 10" for a minute whose figure `most` (a 90th
    /// percentile) is above its 10th percentile `least`: the delays drawn
    /// at run time move it.
    fn across_draws(least: Option<&Vec<f64>>, minute: usize, most: f64) -> &'static str {
        match least.and_then(|least| least.get(minute)) {
            Some(&least) if least < most => {
                " on 1 night in 10 (across 20 draws of the delays drawn at run time)"
            }
            _ => "",
        }
    }
}

/// The rules a line breaks on its own, for every line of one file.
pub fn per_line(file: usize, read: &FileRead, options: &CheckOptions, hits: &mut Vec<Hit>) {
    let mut found = BTreeSet::new();
    let mut hit = |line: usize, rule: Rule, message: String| {
        if found.insert((line, rule)) {
            hits.push(Hit {
                file,
                line,
                rule,
                message,
                value: None,
                fixable: suggest::fixes(rule),
            });
        }
    };
    // In a program's source, the code around its schedules is not a
    // schedule in another format, whatever it looks like.
    let source_code = matches!(
        read.source.format,
        FleetFormat::SpringScheduled | FleetFormat::Apscheduler
    );
    for skipped in &read.imported.file.skipped {
        if source_code && skipped.field == "format" {
            continue;
        }
        hit(
            skipped.line,
            Rule::NotRead,
            format!("not read ({}): {}", skipped.field, skipped.reason),
        );
    }
    for line in &read.imported.file.lines {
        let plan = match LinePlan::read(line, options.seed) {
            Ok(plan) => plan,
            Err(refusal) => {
                let message = format!("not read ({}): {}", refusal.field, refusal.reason);
                hit(line.line, Rule::NotRead, message);
                continue;
            }
        };
        for (rule, message) in line_rules(line, &plan, read.source.format, options) {
            hit(line.line, rule, message);
        }
    }
}

/// What one readable line breaks, with the message for each.
fn line_rules(
    line: &FleetLine,
    plan: &LinePlan,
    format: FleetFormat,
    options: &CheckOptions,
) -> Vec<(Rule, String)> {
    let mut broken = Vec::new();
    if let Some(why) = plan.never_runs(options.from) {
        broken.push((
            Rule::NeverRuns,
            format!("`{}` never runs: {why}", line.spec),
        ));
    }
    let schedule = plan.cron_schedule();
    if schedule.is_some_and(|schedule| schedule.days == DayRule::EitherWhenBothRestricted) {
        broken.push((
            Rule::DayFieldsOr,
            format!(
                "`{}` sets both day of month and day of week, so cron starts it on every day that matches either one, not only on days that match both",
                line.spec
            ),
        ));
    }
    if format == FleetFormat::GithubActions && schedule.is_some_and(|s| s.minutes & 1 == 1) {
        broken.push((
            Rule::GithubTopOfHour,
            format!(
                "`{}` runs at minute 0: GitHub delays scheduled runs at busy times, the start of every hour most of all, and may drop them; run it at another minute",
                line.spec
            ),
        ));
    }
    if line.system == System::Jenkins
        && let Some(hashed) = jenkins_spread(&line.spec, schedule)
    {
        broken.push((
            Rule::JenkinsSpread,
            format!(
                "Spread load evenly by using ‘{hashed}’ rather than ‘{}’ (Jenkins' own advice)",
                line.spec
            ),
        ));
    }
    if let Some(message) = delay_over_period(line, options) {
        broken.push((Rule::DelayOverPeriod, message));
    }
    broken
}

/// The spec Jenkins' `CronTab.checkSanity` advises hashing to, if any:
/// it asks whether "every minute" is meant of a spec that starts every
/// minute, and warns of short day-of-month cycles (6 to 27 of the days 1
/// to 30), before it ever hashes, so it gives no such advice then.
fn jenkins_spread(spec: &str, schedule: Option<&Schedule>) -> Option<String> {
    if let Some(schedule) = schedule {
        let every_minute = schedule.minutes == (1 << 60) - 1;
        let days = (1..31)
            .filter(|day| schedule.days_of_month >> day & 1 == 1)
            .count();
        if every_minute || (6..28).contains(&days) {
            return None;
        }
    }
    jenkins_hashify(spec)
}

/// Jenkins' `CronTab.hashify`: the spec with `H` for its fixed minute,
/// its `*/n` or its `0,n,2n,…`, or `None` when it holds `H` already or
/// is none of those.
pub fn jenkins_hashify(spec: &str) -> Option<String> {
    if spec.contains('H') {
        return None;
    }
    if let Some(rest) = spec.strip_prefix("*/") {
        return Some(format!("H/{rest}"));
    }
    let (minute, rest) = spec.split_once(' ')?;
    if rest.is_empty() {
        return None;
    }
    if !minute.is_empty() && minute.bytes().all(|b| b.is_ascii_digit()) {
        return Some(format!("H {rest}"));
    }
    let steps = minute.strip_prefix("0,")?;
    // Jenkins skips a period of 0 (`0,0`) before listing its multiples,
    // which would never reach 60.
    let period: u32 = steps.split(',').next()?.parse().ok().filter(|&p| p > 0)?;
    let expected: Vec<String> = (1..)
        .map(|k| k * period)
        .take_while(|&m| m < 60)
        .map(|m| m.to_string())
        .collect();
    (steps == expected.join(",")).then(|| format!("H/{period} {rest}"))
}

/// The message for a systemd `RandomizedDelaySec=` or a Temporal
/// `Jitter=` longer than the shortest gap between the line's undelayed
/// starts over the horizon.
fn delay_over_period(line: &FleetLine, options: &CheckOptions) -> Option<String> {
    let (key, delay_seconds, effect) = match line.system {
        System::Systemd => {
            let text = line.options.own("RandomizedDelaySec")?;
            (
                "RandomizedDelaySec",
                parse_span(text).ok()? / MICROS_PER_SECOND as u64,
                "a start delayed past the next calendar time skips it, so the timer runs less often than OnCalendar= says",
            )
        }
        System::Temporal => {
            let text = line.options.own("Jitter")?;
            (
                "Jitter",
                u64::try_from(temporal_duration_nanos(text).ok()? / 1_000_000_000).ok()?,
                "Temporal cuts each jitter to the gap before the next time, so the starts spread less than Jitter= says",
            )
        }
        _ => return None,
    };
    let mut undelayed = line.clone();
    undelayed.options.own.retain(|(own, _)| own != key);
    let horizon = Horizon::minutes(options.horizon.in_minutes()).ok()?;
    let expansion =
        crate::expand(std::slice::from_ref(&undelayed), options.from, horizon, 0).ok()?;
    let gap_micros = expansion
        .starts
        .windows(2)
        .map(|pair| pair[1].at_micros - pair[0].at_micros)
        .min()?;
    let gap = (gap_micros / MICROS_PER_SECOND) as u64;
    (delay_seconds > gap).then(|| {
        format!(
            "{key}={} is longer than the {} between its runs: {effect}",
            line.options.own(key).unwrap_or_default(),
            duration(gap as f64)
        )
    })
}

/// The minute `at_micros` falls in, counted from `from`.
fn minute_of(at_micros: i64, from: i64) -> usize {
    (at_micros - from * MICROS_PER_SECOND).div_euclid(60 * MICROS_PER_SECOND) as usize
}

/// A figure as a reader reads it: whole when it is whole.
fn figure(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{value}")
    } else {
        format!("{value:.1}")
    }
}

/// `at` (Unix seconds) as "Tue 2026-12-01 03:00 UTC".
fn minute_name(at: i64) -> String {
    jiff::Timestamp::from_second(at)
        .map(|ts| ts.strftime("%a %Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_else(|_| at.to_string())
}

/// Every line that starts in a minute over `budget`, with its busiest
/// such minute.
pub fn starts_over(
    fleet: &RepositoryFleet,
    expansion: &Expansion,
    load: &Load,
    budget: u32,
    hits: &mut Vec<Hit>,
) {
    let from = expansion.from;
    let over = |minute: usize| {
        load.starts
            .get(minute)
            .is_some_and(|&n| n > f64::from(budget))
    };
    let mut worst: BTreeMap<usize, usize> = BTreeMap::new();
    for start in &expansion.starts {
        let minute = minute_of(start.at_micros, from);
        if over(minute) {
            let kept = worst.entry(start.line).or_insert(minute);
            if load.starts[minute] > load.starts[*kept] {
                *kept = minute;
            }
        }
    }
    for (line, minute) in worst {
        let (file, line) = fleet.origin(line);
        let starts = load.starts[minute];
        hits.push(Hit {
            file,
            line,
            rule: Rule::StartsPerMinute,
            message: format!(
                "starts in {}, a minute with {} starts{}, over the budget of {budget} a minute",
                minute_name(from + 60 * minute as i64),
                figure(starts),
                Load::across_draws(
                    load.least.as_ref().map(|(starts, _)| starts),
                    minute,
                    starts
                )
            ),
            value: Some(starts),
            fixable: true,
        });
    }
}

/// Every line with a duration that runs in a minute over `budget` jobs
/// at once, with its busiest such minute.
pub fn running_over(
    fleet: &RepositoryFleet,
    expansion: &Expansion,
    load: &Load,
    budget: f64,
    hits: &mut Vec<Hit>,
) {
    let Some(running) = &load.running else {
        return;
    };
    let from = expansion.from;
    let over: Vec<usize> = (0..running.len())
        .filter(|&m| running[m] > budget)
        .collect();
    if over.is_empty() {
        return;
    }
    let durations: BTreeMap<usize, u64> = fleet
        .lines
        .iter()
        .filter_map(|line| Some((line.line, line.options.duration_seconds?)))
        .collect();
    let mut worst: BTreeMap<usize, usize> = BTreeMap::new();
    for start in &expansion.starts {
        let Some(&seconds) = durations.get(&start.line) else {
            continue;
        };
        let first = minute_of(start.at_micros, from);
        let end = start.at_micros + seconds as i64 * MICROS_PER_SECOND - 1;
        let last = minute_of(end, from);
        let inside =
            &over[over.partition_point(|&m| m < first)..over.partition_point(|&m| m <= last)];
        if let Some(&busiest) = inside
            .iter()
            .max_by(|a, b| running[**a].total_cmp(&running[**b]))
        {
            let kept = worst.entry(start.line).or_insert(busiest);
            if running[busiest] > running[*kept] {
                *kept = busiest;
            }
        }
    }
    for (line, minute) in worst {
        let seconds = durations[&line];
        let (file, line) = fleet.origin(line);
        let jobs = running[minute];
        hits.push(Hit {
            file,
            line,
            rule: Rule::ConcurrentJobs,
            message: format!(
                "runs for {} and is running in {}, when {} jobs run at once{}, over the budget of {}",
                duration(seconds as f64),
                minute_name(from + 60 * minute as i64),
                figure(jobs),
                Load::across_draws(
                    load.least.as_ref().and_then(|(_, running)| running.as_ref()),
                    minute,
                    jobs
                ),
                figure(budget)
            ),
            value: Some(jobs),
            fixable: true,
        });
    }
}
