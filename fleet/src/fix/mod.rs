//! The fix: for each line, the smallest change that spreads it, written in
//! its own system's syntax, and the load before and after.
//!
//! A line starts at fixed times its reader chose, or at the defaults
//! everybody types (`0 * * * *`, `@daily`). The fix moves each fixed
//! start within a window and leaves everything else the reader wrote: the
//! days, the months, the hours they picked. The window ([`SpreadWindow`])
//! comes from the minutes and hours the line fires at:
//!
//! - every `n` minutes from minute 0 (`*/15`, `0,30`; `n` divides 60): an
//!   offset below `n`;
//! - one minute past some hours (`0 * * * *`, `30 2 * * *`, `0 0 * * *`
//!   and the macros, which start at midnight): any minute of those hours.
//!   The hour a line is written at is kept, midnight too: a nightly job
//!   stays in its night, and 60 minutes already cut its pile-up 60-fold;
//! - once a day at a minute of a night the reader sets ([`NightHours`],
//!   such as `0-5`): any minute of that night, so a pile of nightly jobs
//!   spreads over the hours the reader has for them, and no further.
//!
//! Every minute (`*`) has nothing to spread; minutes listed any other way
//! are the reader's own choice. Both stay as written. Each system then
//! writes the window its own way:
//!
//! | system | window | written as |
//! | --- | --- | --- |
//! | cron (and Kubernetes), Quartz, Spring, sidekiq-cron | night, hour, step `n` | `m h`, `m`, `o-59/n` (after the seconds, when given) |
//! | APScheduler cron | night, hour, step `n` | `hour=h minute=m`, `minute=m`, `minute=o-59/n` |
//! | Jenkins, croniter | night, hour, step `n` | `H H(a-b)`, `H`, `H/n` |
//! | Puppet | night from 0, hour | `fqdn_rand(60) fqdn_rand(b+1)`, `fqdn_rand(60)` |
//! | systemd | night, hour, step `n` | `RandomizedDelaySec=` to the night's end, `1h`, `nm`, and `FixedRandomDelay=yes` |
//! | Temporal | night, hour, step `n`, interval | `Jitter=` the window (to the night's end) |
//! | EventBridge Scheduler | night, hour, step `n`, rate | `Window=` (`FLEXIBLE`, `MaximumWindowInMinutes`) the window (to the night's end) |
//! | anacron | night, hour | `RANDOM_DELAY` to the hour's (or the night's) end |
//!
//! Cron, Quartz, Spring, APScheduler and sidekiq-cron have no hash of their own, so the fix computes one: with
//! `h = FarmHash Fingerprint32(id as UTF-8)` ([`stampede_core::hash`], FarmHash 1.1),
//! the id's words joined by one space ([`window::hash_identity`]) so that
//! blanks in a command do not move it,
//! and a window of `w` minutes, the line moves to position
//! `p = ⌊h · w / 2³²⌋` (multiply-shift): `m = p mod 60` and `h = a + ⌊p /
//! 60⌋` for a night from `a`, `m = p` for an hour, the offset `o = p` for a
//! step. A field
//! whose values come out unchanged keeps its text.
//!
//! Jenkins (`hudson.scheduler`, as [`crate::jenkins`] follows it) and
//! croniter 7.0.0 hash `H` from the job's own name, so an `H` spec needs
//! no number from us. Puppet 7.23's `fqdn_rand(max)` seeds its draw with
//! MD5 of `fqdn:max:`, so `fqdn_rand(60)` and `fqdn_rand(24)` are two
//! unrelated draws; a step has no `fqdn_rand` form and stays. systemd
//! (252, `systemd.timer`) delays each elapse by up to
//! `RandomizedDelaySec=`, the same delay every time with
//! `FixedRandomDelay=yes`; a delay without it is drawn anew at every
//! restart, so the fix adds only `FixedRandomDelay=yes`. Temporal's
//! `Jitter=` delays each action by a hash of the nominal time and the ids,
//! below `min(Jitter, gap to the next nominal time)`; an interval
//! `every D` spreads over `min(D, 1 hour)`. Prometheus already spreads its scrapes
//! (each target at `(hash(target) ^ server seed) mod interval`), so its
//! lines stay. An APScheduler line keeps its `jitter`; an interval job
//! counts from its `start_date`, which the fix leaves to the reader, so
//! it stays.
//!
//! Lines that already spread (an `H`, an `fqdn_rand`, a delay, a jitter)
//! stay as they are, and so does a line none of whose starts shares a
//! minute with another's ([`fix_crowded`]): the fix changes only what
//! needs changing. [`fix_lines`] says what happens to each line,
//! [`apply`] gives the fixed lines, [`compare`] expands both over the same
//! horizon, and [`native::rewrite`] writes the fix into the text the fleet
//! came from.

pub mod delay;
pub mod native;
pub mod window;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::Serialize;

use stampede_core::error::InvalidInput;

use crate::cron::Horizon;
use crate::line::{FleetLine, System};
use crate::plan::LinePlan;
use crate::time::MICROS_PER_SECOND;

pub use self::window::{NightHours, SpreadWindow};

/// What the fix does to one line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineFix {
    /// The line of the fleet text, as [`FleetLine::line`] numbers it.
    pub line: usize,
    pub change: FixChange,
}

/// A line's new spec and options, or why it stays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum FixChange {
    Rewritten {
        spec: String,
        /// Options to set, each replacing one of the same key or added
        /// after the others.
        options: Vec<(String, String)>,
    },
    Kept {
        why: String,
    },
}

impl FixChange {
    /// A line left as written, and why.
    pub fn kept(why: impl Into<String>) -> Self {
        Self::Kept { why: why.into() }
    }
}

/// The fix of every line, in order, the lines once a day within `night`
/// spread over it.
pub fn fix_lines(lines: &[FleetLine], night: Option<NightHours>) -> Vec<LineFix> {
    lines
        .iter()
        .map(|line| LineFix {
            line: line.line,
            change: fix_line(line, night),
        })
        .collect()
}

/// [`fix_lines`], keeping as written every line none of whose starts over
/// `[from, from + horizon)` shares a minute with another start.
pub fn fix_crowded(
    lines: &[FleetLine],
    night: Option<NightHours>,
    from: i64,
    horizon: Horizon,
    seed: u64,
) -> Result<Vec<LineFix>, InvalidInput> {
    let expansion = crate::expand(lines, from, horizon, seed)?;
    let mut crowded: BTreeSet<usize> = BTreeSet::new();
    for start in &expansion.starts {
        let minute = (start.at_micros / MICROS_PER_SECOND - from).div_euclid(60) as usize;
        if expansion
            .starts_per_minute
            .get(minute)
            .is_some_and(|&n| n > 1)
        {
            crowded.insert(start.line);
        }
    }
    Ok(lines
        .iter()
        .map(|line| LineFix {
            line: line.line,
            change: if crowded.contains(&line.line) {
                fix_line(line, night)
            } else {
                never_runs(line).unwrap_or_else(|| {
                    FixChange::kept("none of its starts shares a minute with another, so it stays")
                })
            },
        })
        .collect())
}

/// The smallest change that spreads `line`, by its system's rules, within
/// `night` when it starts once a day in it. A line its system cannot read
/// stays as written, with the reason.
pub fn fix_line(line: &FleetLine, night: Option<NightHours>) -> FixChange {
    if let Err(refusal) = LinePlan::read(line, 0) {
        return FixChange::kept(format!(
            "it is not read: {}: {}",
            refusal.field, refusal.reason
        ));
    }
    if let Some(kept) = never_runs(line) {
        return kept;
    }
    match line.system {
        System::Cron
        | System::Quartz
        | System::Spring
        | System::Apscheduler
        | System::SidekiqCron => window::hashed_by_id(line, night),
        System::Jenkins | System::Croniter | System::Puppet => {
            window::hashed_by_scheduler(line, night)
        }
        System::Systemd => delay::systemd(line, night),
        System::Temporal => delay::temporal(line, night),
        System::EventBridge => delay::eventbridge(line, night),
        System::Anacron => delay::anacron(line, night),
        System::Prometheus => FixChange::kept(
            "Prometheus already spreads its scrapes: each target starts at (hash(target) ^ the server's seed) mod the interval",
        ),
    }
}

/// A line that never runs, kept as written with the reason: moving it
/// would only give it another date that never comes.
fn never_runs(line: &FleetLine) -> Option<FixChange> {
    let why = LinePlan::read(line, 0).ok()?.never_runs(0)?;
    Some(FixChange::kept(format!("it never runs: {why}")))
}

/// `lines` with each rewritten line's spec and options replaced.
pub fn apply(lines: &[FleetLine], fixes: &[LineFix]) -> Vec<FleetLine> {
    let (paired, _) = pair(lines.iter().map(|line| (line.line, line)), fixes);
    paired
        .into_iter()
        .map(|(line, change)| match change {
            Some(FixChange::Rewritten { spec, options }) => with_change(line, spec, options),
            _ => line.clone(),
        })
        .collect()
}

/// Each of `items`, numbered by the native line it came from, with its
/// fix, and the fixes left over. The `k`-th fix of a native line goes
/// with the `k`-th item from it, as [`fix_lines`] keeps the order lines
/// are read in, so the several lines one native line gives (a Jenkins
/// spec with `\n` in it, a timer on several machines) each take their own.
pub fn pair<T>(
    items: impl IntoIterator<Item = (usize, T)>,
    fixes: &[LineFix],
) -> (Vec<(T, Option<&FixChange>)>, Vec<&LineFix>) {
    let mut by_line: BTreeMap<usize, VecDeque<&LineFix>> = BTreeMap::new();
    for fix in fixes {
        by_line.entry(fix.line).or_default().push_back(fix);
    }
    let paired = items
        .into_iter()
        .map(|(line, item)| {
            let fix = by_line.get_mut(&line).and_then(VecDeque::pop_front);
            (item, fix.map(|fix| &fix.change))
        })
        .collect();
    (paired, by_line.into_values().flatten().collect())
}

/// `line` with `spec` and each of `options` set.
pub fn with_change(line: &FleetLine, spec: &str, options: &[(String, String)]) -> FleetLine {
    let mut changed = line.clone();
    changed.spec = spec.to_string();
    for (key, value) in options {
        set_option(&mut changed, key, value);
    }
    changed
}

/// Sets the system option `key` of `line` to `value`, replacing the value
/// given or adding the option after the others.
pub fn set_option(line: &mut FleetLine, key: &str, value: &str) {
    match line.options.own.iter_mut().find(|(given, _)| given == key) {
        Some((_, old)) => *old = value.to_string(),
        None => line.options.own.push((key.to_string(), value.to_string())),
    }
}

/// A fleet's load over a horizon, in the figures the fix is judged by.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoadFigures {
    /// The most starts in any one minute.
    pub peak_starts_per_minute: u32,
    /// Minutes with more than one start.
    pub shared_minutes: u32,
    /// Starts in those minutes.
    pub shared_starts: u64,
    /// The 99th percentile (type 7) of jobs running per minute, weighted;
    /// `None` when no line gives a `Duration=`.
    pub running_p99: Option<f64>,
    /// What the figures do not count in full: the start cap, a
    /// scheduler's last year, a zone's skipped hour.
    pub notices: Vec<crate::FleetNotice>,
}

/// The load of the fleet as written and as fixed, over the same horizon.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FixFigures {
    pub before: LoadFigures,
    pub after: LoadFigures,
}

/// Expands `before` and `after` over `[from, from + horizon)` and
/// measures each. `seed` draws the delays a scheduler draws at random.
pub fn compare(
    before: &[FleetLine],
    after: &[FleetLine],
    from: i64,
    horizon: Horizon,
    seed: u64,
) -> Result<FixFigures, InvalidInput> {
    Ok(FixFigures {
        before: measure(before, from, horizon, seed)?,
        after: measure(after, from, horizon, seed)?,
    })
}

/// The [`LoadFigures`] of `lines` over `[from, from + horizon)`.
pub fn measure(
    lines: &[FleetLine],
    from: i64,
    horizon: Horizon,
    seed: u64,
) -> Result<LoadFigures, InvalidInput> {
    let expansion = crate::expand(lines, from, horizon, seed)?;
    let running_p99 = expansion.running_per_minute.map(|mut running| {
        stampede_core::stats::quantile_unsorted(&mut running, 0.99).unwrap_or(0.0)
    });
    Ok(LoadFigures {
        peak_starts_per_minute: expansion.shared.most_in_a_minute,
        shared_minutes: expansion.shared.minutes,
        shared_starts: expansion.shared.starts,
        running_p99,
        notices: expansion.notices,
    })
}
