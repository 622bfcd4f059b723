//! Where a cron-like line's fixed starts may move ([`SpreadWindow`]), and
//! the spec that places it, by a hash or at a chosen position.

use stampede_core::hash::farm_fingerprint32;
use stampede_core::hash_spread::Reduction;

use super::FixChange;
use super::native::retext;
use crate::cron::{self, Schedule};
use crate::line::{FleetLine, System};
use crate::sidekiq::fugit;
use crate::{apscheduler, croniter, jenkins, quartz, spring};

/// The span a line's fixed starts may move within, chosen from the minutes
/// and hours it fires at (see the [module docs](super)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpreadWindow {
    /// One minute past each of its hours (midnight too): any minute of
    /// those hours.
    Hour,
    /// A line at one minute of one hour of the night the reader set: any
    /// minute of that night, `first` to `last` o'clock.
    Night { first: u32, last: u32 },
    /// Every `n` minutes from minute 0, `n` dividing 60: an offset below `n`.
    Step(u32),
}

/// The hours a reader calls the night, `first` to `last` o'clock: a line
/// that starts once a day within them may move anywhere in them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NightHours {
    pub first: u32,
    pub last: u32,
}

impl NightHours {
    /// `a-b`, the hours from `a` to `b` o'clock, `a ≤ b ≤ 23`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let hour = |part: &str| part.trim().parse::<u32>().ok().filter(|&hour| hour <= 23);
        let read = text
            .split_once('-')
            .and_then(|(first, last)| Some((hour(first)?, hour(last)?)))
            .filter(|(first, last)| first <= last);
        match read {
            Some((first, last)) => Ok(Self { first, last }),
            None => Err(format!(
                "\"{text}\" is not a night: give its hours as a-b, from 0 to 23 with a ≤ b, such as 0-5"
            )),
        }
    }

    pub fn holds(self, hour: u32) -> bool {
        (self.first..=self.last).contains(&hour)
    }
}

/// Every minute of an hour, as a bit set.
const EVERY_MINUTE: u64 = (1 << 60) - 1;

/// Minutes `first`, `first + step`, … below 60, as a bit set.
fn every(step: u32, first: u32) -> u64 {
    (first..60)
        .step_by(step as usize)
        .fold(0, |set, minute| set | 1 << minute)
}

impl SpreadWindow {
    /// The window of a schedule, or why its minutes stay as written: the
    /// night when it starts at one minute of one hour of `night`.
    pub fn of(schedule: &Schedule, night: Option<NightHours>) -> Result<Self, &'static str> {
        let minutes = schedule.minutes;
        if minutes == EVERY_MINUTE {
            return Err("it starts every minute, so there is nothing to spread");
        }
        if minutes.count_ones() == 1 {
            let hour = schedule.hours.trailing_zeros();
            return Ok(match night {
                Some(night) if schedule.hours.count_ones() == 1 && night.holds(hour) => {
                    Self::Night {
                        first: night.first,
                        last: night.last,
                    }
                }
                _ => Self::Hour,
            });
        }
        (2..60)
            .filter(|step| 60 % step == 0)
            .find(|&step| minutes == every(step, 0))
            .map(Self::Step)
            .ok_or("its minutes are a list the reader chose, so they stay as written")
    }

    /// How many minutes the window spans.
    pub fn minutes(self) -> u32 {
        match self {
            Self::Hour => 60,
            Self::Night { first, last } => 60 * (last - first + 1),
            Self::Step(step) => step,
        }
    }

    /// Where `schedule`, which has this window, starts within it.
    pub fn position(self, schedule: &Schedule) -> u32 {
        let minute = schedule.minutes.trailing_zeros();
        match self {
            Self::Night { first, .. } => 60 * (schedule.hours.trailing_zeros() - first) + minute,
            Self::Hour | Self::Step(_) => minute,
        }
    }

    /// The minute and (for a night) hour fields that start at `position`,
    /// written as plain numbers, with the minute set they give.
    fn explicit(self, position: u32) -> (String, u64, Option<u32>) {
        match self {
            Self::Hour => (position.to_string(), 1 << position, None),
            Self::Night { first, .. } => (
                (position % 60).to_string(),
                1 << (position % 60),
                Some(first + position / 60),
            ),
            Self::Step(step) => (format!("{position}-59/{step}"), every(step, position), None),
        }
    }
}

/// The schedule of a cron-like line whose minutes and hours are plain
/// values, or why the fix leaves the line: its system already spreads it,
/// its spec is not read, or it never runs.
pub fn fixed_schedule(line: &FleetLine) -> Result<Schedule, String> {
    let spec = line.spec.trim();
    let read = match line.system {
        System::Cron => cron::parse(spec),
        System::Jenkins if spec.contains('H') || spec.starts_with('@') => {
            return Err("Jenkins already spreads it: H is hashed from the job's name".into());
        }
        System::Jenkins => jenkins::schedule(&line.id, &line.spec),
        // croniter reads `H` and `R` only as a whole field's head.
        System::Croniter
            if spec.starts_with('@')
                || spec
                    .split_whitespace()
                    .any(|field| field.starts_with(['H', 'h', 'R', 'r'])) =>
        {
            return Err("croniter already spreads it: H is hashed from the hash id".into());
        }
        System::Croniter => croniter::schedule(&line.id, &line.spec),
        System::Puppet if spec.contains("fqdn_rand") => {
            return Err("Puppet's fqdn_rand already spreads it per node".into());
        }
        System::Puppet => cron::parse(spec),
        System::Quartz => quartz::read(spec).map(|cron| cron.clock()),
        System::Spring => spring::read(spec).map(|cron| cron.clock()),
        System::Apscheduler => {
            return match apscheduler::read_trigger(spec, None) {
                Ok(apscheduler::Trigger::Cron(cron)) => Ok(cron.clock()),
                Ok(apscheduler::Trigger::Interval { .. }) => Err(
                    "an interval job counts from its start_date, which the fix leaves to the \
                     reader: give each job its own start_date, or a jitter"
                        .into(),
                ),
                Err(why) => Err(format!("its spec is not read: {why}")),
            }
            .and_then(|schedule| match schedule.never_runs() {
                Some(why) => Err(format!("it never runs: {why}")),
                None => Ok(schedule),
            });
        }
        System::SidekiqCron => {
            return fugit::read(spec)
                .map(|cron| cron.clock())
                .map_err(|refusal| format!("its spec is not read: {}", refusal.reason));
        }
        other => return Err(format!("{} lines have no cron fields", other.slug())),
    };
    let schedule = read.map_err(|refusal| format!("its spec is not read: {refusal}"))?;
    match schedule.never_runs() {
        Some(why) => Err(format!("it never runs: {why}")),
        None => Ok(schedule),
    }
}

/// The fields a cron-like spec stands for: a macro's own (Vixie's, or
/// Spring's on a Spring line), or the spec itself.
fn spec_fields(system: System, spec: &str) -> Vec<String> {
    let spec = spec.trim();
    let fields = match (spec.starts_with('@'), system) {
        (false, _) => spec,
        (true, System::Spring) => spring::macro_fields(spec).unwrap_or(spec),
        (true, System::SidekiqCron) => fugit::shortcut(spec).unwrap_or(spec),
        (true, _) => cron::macro_fields(spec).unwrap_or(spec),
    };
    fields.split_whitespace().map(str::to_string).collect()
}

/// Where the minute field is among a line's fields: Quartz and Spring
/// write the second first, and so does a six-field fugit string.
fn minute_field(system: System, spec: &str) -> usize {
    match system {
        System::Quartz | System::Spring => 1,
        System::SidekiqCron => fugit::read(spec).map_or(0, |cron| usize::from(cron.with_seconds)),
        _ => 0,
    }
}

/// `line`'s spec with its minute (and, for a night, hour) fields set to
/// start at `position` in `window`, as plain numbers; fields whose values
/// do not change keep their text. `None` when nothing changes.
pub fn placed_at(
    line: &FleetLine,
    schedule: &Schedule,
    window: SpreadWindow,
    position: u32,
) -> Option<String> {
    let (minute_text, minutes, hour) = window.explicit(position);
    let minute_text = (minutes != schedule.minutes).then_some(minute_text);
    let hour = hour.filter(|&hour| 1 << hour != schedule.hours);
    if minute_text.is_none() && hour.is_none() {
        return None;
    }
    if line.system == System::Apscheduler {
        return Some(apscheduler::with_clock(
            &line.spec,
            minute_text.as_deref(),
            hour,
        ));
    }
    let mut fields = spec_fields(line.system, &line.spec);
    let minute = minute_field(line.system, &line.spec);
    if let Some(text) = minute_text {
        fields[minute] = text;
    }
    if let Some(hour) = hour {
        fields[minute + 1] = hour.to_string();
    }
    Some(retext(&line.spec, &fields.join(" ")))
}

/// The cron, Quartz, Spring, APScheduler and sidekiq-cron fix: the line moves to `⌊h · w / 2³²⌋` in its window of `w`
/// minutes, `h` the FarmHash Fingerprint32 of its id with its blanks
/// folded ([`hash_identity`]).
pub fn hashed_by_id(line: &FleetLine, night: Option<NightHours>) -> FixChange {
    let schedule = match fixed_schedule(line) {
        Ok(schedule) => schedule,
        Err(why) => return FixChange::kept(why),
    };
    let window = match SpreadWindow::of(&schedule, night) {
        Ok(window) => window,
        Err(why) => return FixChange::kept(why),
    };
    let hash = farm_fingerprint32(hash_identity(&line.id).as_bytes());
    let position = Reduction::MulShift.reduce(hash, window.minutes());
    match placed_at(line, &schedule, window, position) {
        Some(spec) => FixChange::Rewritten {
            spec,
            options: Vec::new(),
        },
        None => FixChange::kept("its hashed minute is the one it already starts at"),
    }
}

/// The id a cron line's fix hashes: its words joined by one space, so a
/// command that only gains or loses blanks (re-indented, a tab for a
/// space) keeps its minute.
pub fn hash_identity(id: &str) -> String {
    id.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The Jenkins, croniter and Puppet fix: the window written in the
/// system's own hashed syntax, which the scheduler fills from the job.
///
/// A night `a-b` is `H(a-b)` in the hour field; Puppet's `fqdn_rand(n)`
/// draws from 0, so only a night from midnight has its form, and any other
/// keeps the line's own hour.
pub fn hashed_by_scheduler(line: &FleetLine, night: Option<NightHours>) -> FixChange {
    let window = fixed_schedule(line)
        .and_then(|schedule| SpreadWindow::of(&schedule, night).map_err(Into::into));
    let window = match window {
        Ok(window) => window,
        Err(why) => return FixChange::kept(why),
    };
    let (minute, hour) = match (line.system, window) {
        (System::Puppet, SpreadWindow::Step(_)) => {
            return FixChange::kept(
                "Puppet's fqdn_rand picks one value, so a step has no fqdn_rand form",
            );
        }
        (System::Puppet, SpreadWindow::Night { first: 0, last }) if last > 0 => (
            "fqdn_rand(60)".into(),
            Some(format!("fqdn_rand({})", last + 1)),
        ),
        (System::Puppet, _) => ("fqdn_rand(60)".into(), None),
        (_, SpreadWindow::Night { first, last }) if first < last => {
            ("H".into(), Some(format!("H({first}-{last})")))
        }
        (_, SpreadWindow::Night { .. } | SpreadWindow::Hour) => ("H".into(), None),
        (_, SpreadWindow::Step(step)) => (format!("H/{step}"), None),
    };
    let mut fields = spec_fields(line.system, &line.spec);
    fields[0] = minute;
    if let Some(hour) = hour {
        fields[1] = hour;
    }
    FixChange::Rewritten {
        spec: retext(&line.spec, &fields.join(" ")),
        options: Vec::new(),
    }
}
