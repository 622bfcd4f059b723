//! systemd and Temporal: the fix adds a delay the scheduler keeps stable,
//! as long as the line's [`SpreadWindow`] (see the [module docs](super)).
//!
//! The window is read from the spec's text alone: an `OnCalendar=` time
//! `H:M[:S]` whose minute is a number, `*`, or `*/n`; its keywords
//! (`hourly`, `daily`, …); or a Temporal interval or five-field cron spec.
//! A calendar this cannot read stays as written, with a note, rather than
//! get a delay longer than the gap between its starts.

use super::super::cron;
use super::super::file::{FleetLine, parse_duration};
use super::super::systemd::timespan::parse_span;
use super::{FixChange, SpreadWindow};

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

/// An `OnCalendar=` date such as `*-*-01` or `2024-01-01..05`.
fn is_date(part: &str) -> bool {
    part.contains('-')
        && part
            .chars()
            .all(|c| c.is_ascii_digit() || "*-,./~".contains(c))
}

/// `OnCalendar=` weekdays such as `Mon`, `Mon..Fri` or `Sat,Sun`.
fn is_weekdays(part: &str) -> bool {
    const DAYS: [&str; 7] = [
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ];
    part.split([',', '.'])
        .filter(|day| !day.is_empty())
        .all(|day| {
            let day = day.to_ascii_lowercase();
            DAYS.iter()
                .any(|name| day.len() >= 3 && name.starts_with(day.as_str()))
        })
}

/// The systemd fix: `RandomizedDelaySec=` as long as the window, and
/// `FixedRandomDelay=yes` so every restart keeps the same delay.
pub fn systemd(line: &FleetLine) -> FixChange {
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
    match calendar_window(&line.spec) {
        Ok(window) => {
            let delay = match window {
                SpreadWindow::Day => "1d".to_string(),
                SpreadWindow::Hour => "1h".to_string(),
                SpreadWindow::Step(step) => format!("{step}m"),
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

/// The window of an `OnCalendar=` expression, or why it is not read.
pub fn calendar_window(spec: &str) -> Result<SpreadWindow, String> {
    let unread = || {
        format!(
            "the gap between starts of \"{}\" is not read here; give RandomizedDelaySec= up to that gap, and FixedRandomDelay=yes",
            crate::field::shorten(spec)
        )
    };
    match spec.trim().to_ascii_lowercase().as_str() {
        "minutely" => return Err(EVERY_MINUTE.into()),
        "hourly" => return Ok(SpreadWindow::Hour),
        "daily" | "weekly" | "monthly" | "yearly" | "annually" | "quarterly" | "semiannually" => {
            return Ok(SpreadWindow::Day);
        }
        _ => {}
    }
    // A date or weekdays without a time start at 00:00:00.
    let Some(time) = spec.split_whitespace().find(|part| part.contains(':')) else {
        let mut parts = spec.split_whitespace().peekable();
        let dated = parts.peek().is_some() && parts.all(|part| is_date(part) || is_weekdays(part));
        return if dated {
            Ok(SpreadWindow::Day)
        } else {
            Err(unread())
        };
    };
    let parts: Vec<&str> = time.split(':').collect();
    let number = |text: &str| {
        (!text.is_empty() && text.len() <= 2 && text.bytes().all(|b| b.is_ascii_digit()))
            .then(|| text.parse::<u32>().ok())
            .flatten()
    };
    if !(2..=3).contains(&parts.len()) || parts.get(2).is_some_and(|s| number(s).is_none()) {
        return Err(unread());
    }
    let (hour, minute) = (parts[0], parts[1]);
    if let Some(minute) = number(minute) {
        return Ok(if minute == 0 && number(hour) == Some(0) {
            SpreadWindow::Day
        } else {
            SpreadWindow::Hour
        });
    }
    let step = minute
        .split_once('/')
        .filter(|(first, _)| matches!(*first, "*" | "0" | "00"))
        .and_then(|(_, step)| number(step));
    match (minute, step) {
        ("*", _) | (_, Some(1)) => Err(EVERY_MINUTE.into()),
        (_, Some(step)) if step > 1 && 60 % step == 0 => Ok(SpreadWindow::Step(step)),
        _ => Err(unread()),
    }
}

/// The Temporal fix: `Jitter=` as long as the window, in Go's duration
/// syntax.
pub fn temporal(line: &FleetLine) -> FixChange {
    if line.options.own("Jitter").is_some_and(gives_a_delay) {
        return FixChange::kept(
            "Jitter= already spreads it, stably: Temporal hashes each delay from the nominal time and the ids",
        );
    }
    match temporal_window_seconds(&line.spec) {
        Ok(seconds) => FixChange::Rewritten {
            spec: line.spec.clone(),
            options: vec![("Jitter".into(), go_duration(seconds))],
        },
        Err(why) => FixChange::kept(why),
    }
}

/// The window of a Temporal spec in seconds: `every D` spreads over
/// `min(D, 1 day)`, `every D offset O` over `min(D, 1 hour)`, a cron spec
/// over its [`SpreadWindow`].
fn temporal_window_seconds(spec: &str) -> Result<u64, String> {
    let words: Vec<&str> = spec.split_whitespace().collect();
    if !words
        .first()
        .is_some_and(|word| word.eq_ignore_ascii_case("every"))
    {
        let schedule = cron::parse(spec).map_err(|refusal| {
            format!("its spec is not read as a five-field cron spec: {refusal}")
        })?;
        let window = SpreadWindow::of(&schedule)?;
        return Ok(u64::from(window.minutes()) * 60);
    }
    let interval = words
        .get(1)
        .ok_or_else(|| "every needs an interval".to_string())
        .and_then(|text| parse_duration(text))?;
    if interval <= 60 {
        return Err(EVERY_MINUTE.into());
    }
    let has_offset = words
        .get(2)
        .is_some_and(|word| word.eq_ignore_ascii_case("offset"));
    Ok(interval.min(if has_offset { 3600 } else { 86_400 }))
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
        let window = |spec| calendar_window(spec);
        assert_eq!(window("daily"), Ok(SpreadWindow::Day));
        assert_eq!(window("Mon *-*-* 00:00:00"), Ok(SpreadWindow::Day));
        assert_eq!(window("*-*-01"), Ok(SpreadWindow::Day));
        assert_eq!(window("*-*-* 03:00"), Ok(SpreadWindow::Hour));
        assert_eq!(window("*-*-* *:00:00"), Ok(SpreadWindow::Hour));
        assert_eq!(window("*:0/15"), Ok(SpreadWindow::Step(15)));
        assert_eq!(window("*-*-* *:*/5:00"), Ok(SpreadWindow::Step(5)));
        assert!(window("minutely").is_err());
        assert!(window("*:*").is_err());
        assert!(window("*-*-* 08,20:00,30").is_err());
        assert!(window("*:0/7").is_err());
        assert_eq!(window("Sat,Sun"), Ok(SpreadWindow::Day));
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
