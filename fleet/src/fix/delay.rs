//! systemd and Temporal: the fix adds a delay the scheduler keeps stable,
//! as long as the line's [`SpreadWindow`] (see the [module docs](super)).
//!
//! An `OnCalendar=` window comes from the calendar's own elapses, read by
//! systemd's rules ([`calendar_delay_minutes`]); a Temporal window from its
//! interval or five-field cron spec. A calendar whose gaps fit no window
//! stays as written, with a note, rather than get a delay longer than the
//! gap between its starts.

use super::window::NightHours;
use super::{FixChange, SpreadWindow};
use crate::anacron::AnacronJob;
use crate::cron;
use crate::eventbridge::{EventBridgeSchedule, Expression};
use crate::file::parse_duration;
use crate::line::FleetLine;
use crate::systemd::calendar;
use crate::systemd::timespan::parse_span;
use crate::time::MICROS_PER_SECOND;

/// Whether a systemd time span gives a delay: it reads, as systemd reads
/// it, as more than 0 s.
fn gives_a_delay(value: &str) -> bool {
    parse_span(value).is_ok_and(|span| span > 0)
}

/// systemd's boolean "yes" spellings.
fn is_yes(value: &str) -> bool {
    ["yes", "y", "true", "t", "on", "1"]
        .iter()
        .any(|yes| value.trim().eq_ignore_ascii_case(yes))
}

const EVERY_MINUTE: &str = "it starts every minute, so there is nothing to spread";

/// The systemd fix: `RandomizedDelaySec=` as long as the window, and
/// `FixedRandomDelay=yes` so every restart keeps the same delay.
pub fn systemd(line: &FleetLine, night: Option<NightHours>) -> FixChange {
    let own = |key| line.options.own(key);
    if own("RandomizedOffsetSec").is_some_and(gives_a_delay) {
        return FixChange::kept("RandomizedOffsetSec= already spreads it, stably");
    }
    if own("RandomizedDelaySec").is_some_and(gives_a_delay) {
        if own("FixedRandomDelay").is_some_and(is_yes) {
            return FixChange::kept(
                "RandomizedDelaySec= with FixedRandomDelay=yes already spreads it, stably",
            );
        }
        // The delay spreads, but is drawn anew at every restart.
        return FixChange::Rewritten {
            spec: line.spec.clone(),
            options: vec![("FixedRandomDelay".into(), "yes".into())],
        };
    }
    match calendar_delay_minutes(&line.spec, night) {
        Ok(minutes) => {
            let delay = if minutes % 60 == 0 {
                format!("{}h", minutes / 60)
            } else {
                format!("{minutes}m")
            };
            FixChange::Rewritten {
                spec: line.spec.clone(),
                options: vec![
                    ("RandomizedDelaySec".into(), delay),
                    ("FixedRandomDelay".into(), "yes".into()),
                ],
            }
        }
        Err(why) => FixChange::kept(why),
    }
}

/// How many elapses of a calendar its window is judged on, from
/// [`CALENDAR_SAMPLE_FROM`]: enough to see a weekly pattern's gaps.
const CALENDAR_SAMPLE: usize = 64;
/// 2026-01-01T00:00:00Z, in Unix microseconds.
const CALENDAR_SAMPLE_FROM: i64 = 1_767_225_600 * MICROS_PER_SECOND;

/// How long a delay spreads an `OnCalendar=` expression, in minutes, read
/// by systemd's own rules ([`calendar::parse`]) and judged on its first
/// elapses from 2026: once a day at one time within `night`, what is left
/// of the night from that time; a fixed minute an hour or more apart, the
/// hour; every `n` minutes from minute 0 (`n` dividing 60), `n`; anything
/// closer or less even stays as written.
pub fn calendar_delay_minutes(spec: &str, night: Option<NightHours>) -> Result<u32, String> {
    let calendar =
        calendar::parse(spec).map_err(|why| format!("its OnCalendar= is not read: {why}"))?;
    let elapses: Vec<i64> =
        std::iter::successors(calendar.next_elapse(CALENDAR_SAMPLE_FROM), |&at| {
            calendar.next_elapse(at)
        })
        .take(CALENDAR_SAMPLE)
        .collect();
    let Some(gap) = elapses.windows(2).map(|pair| pair[1] - pair[0]).min() else {
        return Err("it starts at most once, so there is no gap to spread within".into());
    };
    const MINUTE: i64 = 60 * MICROS_PER_SECOND;
    const HOUR: i64 = 60 * MINUTE;
    let all_at = |period: i64| elapses.iter().all(|at| at % period == 0);
    if gap <= MINUTE {
        return Err(EVERY_MINUTE.into());
    }
    const DAY: i64 = 24 * HOUR;
    let time_of_day = elapses[0].rem_euclid(DAY);
    let daily = gap >= DAY && elapses.iter().all(|at| at.rem_euclid(DAY) == time_of_day);
    let minute_of_day = (time_of_day / MINUTE) as u32;
    if let Some(night) = night.filter(|night| daily && night.holds(minute_of_day / 60)) {
        return Ok(60 * (night.last + 1) - minute_of_day);
    }
    if gap >= HOUR {
        return Ok(60);
    }
    let step = gap / MINUTE;
    if gap % MINUTE == 0 && 60 % step == 0 && all_at(gap) {
        return Ok(step as u32);
    }
    Err(format!(
        "its starts are as little as {} s apart and not on an even step of the hour; give RandomizedDelaySec= up to that gap, and FixedRandomDelay=yes",
        gap / MICROS_PER_SECOND
    ))
}

/// The Temporal fix: `Jitter=` as long as the window, in Go's duration
/// syntax.
pub fn temporal(line: &FleetLine, night: Option<NightHours>) -> FixChange {
    if line.options.own("Jitter").is_some_and(gives_a_delay) {
        return FixChange::kept(
            "Jitter= already spreads it, stably: Temporal hashes each delay from the nominal time and the ids",
        );
    }
    match temporal_window_seconds(&line.spec, night) {
        Ok(seconds) => FixChange::Rewritten {
            spec: line.spec.clone(),
            options: vec![("Jitter".into(), go_duration(seconds))],
        },
        Err(why) => FixChange::kept(why),
    }
}

/// The EventBridge Scheduler fix: a flexible window (`Window=`, its
/// `MaximumWindowInMinutes`) as long as the line's window, to the
/// night's end for a nightly line.
pub fn eventbridge(line: &FleetLine, night: Option<NightHours>) -> FixChange {
    if line.options.own("Window").is_some() {
        return FixChange::kept(
            "its flexible window already spreads it: AWS invokes it somewhere within Window= minutes",
        );
    }
    let schedule = match EventBridgeSchedule::read(line, 0) {
        Ok(schedule) => schedule,
        Err(refusal) => return FixChange::kept(format!("{}: {}", refusal.field, refusal.reason)),
    };
    let minutes = match (&schedule.expression, schedule.clock()) {
        (_, Some(clock)) => match SpreadWindow::of(&clock, night) {
            Ok(window @ SpreadWindow::Night { .. }) => window.minutes() - window.position(&clock),
            Ok(window) => window.minutes(),
            Err(why) => return FixChange::kept(why),
        },
        (Expression::Rate { every, .. }, None) if *every > 60 * MICROS_PER_SECOND => {
            (every / MICROS_PER_SECOND / 60).min(60) as u32
        }
        _ => return FixChange::kept(EVERY_MINUTE),
    };
    FixChange::Rewritten {
        spec: line.spec.clone(),
        options: vec![("Window".into(), minutes.to_string())],
    }
}

/// The anacron fix: `RANDOM_DELAY` as long as the rest of the hour the
/// first run in the job's hours starts in, or of the night when that hour
/// is in it. `RANDOM_DELAY` is one setting for the jobs after it, so the
/// value comes from the runs and hours, which every job of the file
/// shares, not from the job's own delay. anacron draws it anew each run
/// and one anacrontab serves every machine, so widening the draw is the
/// one spread the file can hold.
pub fn anacron(line: &FleetLine, night: Option<NightHours>) -> FixChange {
    let job = match AnacronJob::read(line, 0) {
        Ok(job) => job,
        Err(refusal) => return FixChange::kept(format!("{}: {}", refusal.field, refusal.reason)),
    };
    let first_hour = job
        .hours
        .map_or(job.runs.first, |(first, _)| first.max(job.runs.first));
    let run = first_hour * 60 + job.runs.minute;
    let end = match night {
        Some(night) if (night.first..=night.last).contains(&first_hour) => (night.last + 1) * 60,
        _ => (first_hour + 1) * 60,
    };
    let spread = end.saturating_sub(run + 1);
    if spread == 0 {
        return FixChange::kept(
            "its first run starts in the last minute of its window, so no room is left to spread it",
        );
    }
    if job.random_delay >= spread {
        return FixChange::kept(format!(
            "RANDOM_DELAY={} already spreads it over its window, anew each run",
            job.random_delay
        ));
    }
    FixChange::Rewritten {
        spec: line.spec.clone(),
        options: vec![("RandomDelay".into(), spread.to_string())],
    }
}

/// The window of a Temporal spec in seconds: `every D` spreads over
/// `min(D, 1 hour)`, as a cron line stays in its hour; a cron spec over its
/// [`SpreadWindow`], or for a night what is left of it.
fn temporal_window_seconds(spec: &str, night: Option<NightHours>) -> Result<u64, String> {
    let words: Vec<&str> = spec.split_whitespace().collect();
    if !words
        .first()
        .is_some_and(|word| word.eq_ignore_ascii_case("every"))
    {
        let schedule = cron::parse(spec).map_err(|refusal| {
            format!("its spec is not read as a five-field cron spec: {refusal}")
        })?;
        let window = SpreadWindow::of(&schedule, night)?;
        let minutes = match window {
            SpreadWindow::Night { .. } => window.minutes() - window.position(&schedule),
            SpreadWindow::Hour | SpreadWindow::Step(_) => window.minutes(),
        };
        return Ok(u64::from(minutes) * 60);
    }
    let interval = words
        .get(1)
        .ok_or_else(|| "every needs an interval".to_string())
        .and_then(|text| parse_duration(text))?;
    if interval <= 60 {
        return Err(EVERY_MINUTE.into());
    }
    Ok(interval.min(3600))
}

/// Seconds as Go writes a duration, without zero parts: `24h`, `1h30m`,
/// `15m`, `90s` as `1m30s`.
fn go_duration(seconds: u64) -> String {
    let (hours, minutes, rest) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    let mut text = String::new();
    for (amount, unit) in [(hours, "h"), (minutes, "m"), (rest, "s")] {
        if amount > 0 {
            text.push_str(&format!("{amount}{unit}"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendars_read_their_window() {
        let window = |spec| calendar_delay_minutes(spec, None);
        // A nightly line stays in its hour unless the reader sets a night.
        assert_eq!(window("daily"), Ok(60));
        assert_eq!(window("Mon *-*-* 00:00:00"), Ok(60));
        assert_eq!(window("*-*-01"), Ok(60));
        let night = NightHours::parse("0-5").ok();
        assert_eq!(calendar_delay_minutes("daily", night), Ok(360));
        assert_eq!(calendar_delay_minutes("*-*-* 02:30", night), Ok(210));
        assert_eq!(calendar_delay_minutes("*-*-* 08:00", night), Ok(60));
        assert_eq!(calendar_delay_minutes("*-*-* 00,12:00", night), Ok(60));
        assert_eq!(window("*-*-* 03:00"), Ok(60));
        assert_eq!(window("*-*-* *:00:00"), Ok(60));
        assert_eq!(window("*:0/15"), Ok(15));
        assert_eq!(window("*-*-* *:00/5:00"), Ok(5));
        // systemd itself refuses a `*` before the step.
        assert!(window("*-*-* *:*/5:00").is_err());
        assert!(window("minutely").is_err());
        assert!(window("*:*").is_err());
        assert_eq!(window("*-*-* 08,20:00,30"), Ok(30));
        assert!(window("*-*-* 08:00:00,20").is_err());
        assert!(window("2026-03-01 12:00").is_err());
        assert!(window("*:0/7").is_err());
        assert_eq!(window("Sat,Sun"), Ok(60));
        assert!(window("").is_err());
        assert!(window("sometimes").is_err());
    }

    #[test]
    fn go_durations_drop_zero_parts() {
        assert_eq!(go_duration(86_400), "24h");
        assert_eq!(go_duration(5400), "1h30m");
        assert_eq!(go_duration(90), "1m30s");
    }
}
