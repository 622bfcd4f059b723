//! Cron lines in a time zone, on one of two clocks.
//!
//! - `TZ=Area/City`: the machine's own clock is in that zone. Fields match
//!   local wall-clock minutes, and where the clock jumps the daemon does
//!   what cronie's main loop does (cronie 1.7.2, `src/cron.c`; Debian's
//!   cron documents the same rule in cron(8)), with `jump` the size of the
//!   change in local minutes:
//!
//! | the clock moves          | fixed-time jobs                      | wildcard jobs         |
//! |--------------------------|--------------------------------------|-----------------------|
//! | forward, < 5 min         | each skipped minute's, at the jump   | the same              |
//! | forward, 5 min to < 3 h  | each skipped minute's, at the jump   | skipped minutes lost  |
//! | forward, ≥ 3 h           | skipped minutes lost                 | skipped minutes lost  |
//! | back, ≤ 3 h              | once, in the first pass              | in both passes        |
//! | back, > 3 h              | in both passes                       | in both passes        |
//!
//!   A wildcard job has `*` leading its minute or hour field (`@hourly`
//!   too), as cron's `MIN_STAR`/`HR_STAR` flags record; every other job
//!   is fixed-time. "At the jump" is the instant the zone's offset changes.
//!   A crontab gives this zone as `# machine-tz: Area/City`
//!   ([`crate::import::crontab`]).
//! - `CRON_TZ=Area/City`: the job alone is in that zone, on a machine
//!   whose clock never jumps (UTC). Every real minute is matched against
//!   the zone's wall clock, so a local time the zone skips never runs and
//!   one it repeats runs twice. This is cronie's `CRON_TZ=` and the
//!   Kubernetes CronJob controller's `spec.timeZone` (robfig/cron v3,
//!   whose `Next` steps through absolute time in the zone).
//!
//! Each change of a zone's offset within the horizon that skips or
//! repeats a local minute the line is due at is told once
//! ([`ZonedCron::zone_change_notices`]): the local minutes, the date, and
//! what the clock above does with them.
//!
//! The zone data is the IANA database bundled by `jiff` (the `time-zones`
//! feature); a build without it reads UTC only.

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::{AmbiguousOffset, TimeZone};

use crate::cron::{self, Schedule, bits};
use crate::line::Refusal;
use crate::time::{MICROS_PER_SECOND, Window};
use crate::time::{SECONDS_PER_DAY, civil_from_days};

/// A forward jump shorter than this runs every skipped minute's jobs.
const SMALL_JUMP_MINUTES: i64 = 5;
/// A jump at least this long (back: longer) is a clock change, not
/// daylight saving time: nothing skipped is caught up, nothing repeated is
/// held back.
const LARGE_JUMP_MINUTES: i64 = 3 * 60;
/// Zone offsets stay within ±26 h, so local days this far around the
/// window cover it.
const DAYS_AROUND: i64 = 2;
/// The most offset changes told for one line, so a zone that changes
/// often cannot flood the notices.
const MOST_CHANGE_NOTICES: usize = 4;

/// Whose clock a zone is: the machine's, or the job's alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneClock {
    /// `TZ=`: the daemon's clock, with its rule for jumps.
    Machine,
    /// `CRON_TZ=`: each real minute matched on the zone's wall clock.
    Job,
}

impl ZoneClock {
    /// The option key that gives a zone this clock.
    pub fn key(self) -> &'static str {
        match self {
            Self::Machine => "TZ",
            Self::Job => "CRON_TZ",
        }
    }
}

/// A Vixie cron schedule read on a local clock.
#[derive(Clone, Debug, PartialEq)]
pub struct ZonedCron {
    schedule: Schedule,
    zone: TimeZone,
    clock: ZoneClock,
    /// Whether the minute or the hour field starts with `*`.
    wildcard_time: bool,
}

impl ZonedCron {
    /// The schedule, read on the zone's clock.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// Reads `spec` as Vixie cron in the IANA zone `zone` on `clock`.
    pub fn new(spec: &str, zone: &str, clock: ZoneClock) -> Result<Self, Refusal> {
        let schedule =
            cron::parse(spec).map_err(|refusal| Refusal::new("spec", refusal.to_string()))?;
        Ok(Self {
            schedule,
            zone: time_zone(zone, clock.key())?,
            clock,
            wildcard_time: cron::time_is_wildcard(spec),
        })
    }

    /// Appends each start in `window`, in order, while `out` holds fewer
    /// than `most`. Returns whether a start was left out because `out` was
    /// full.
    pub fn push_starts(&self, window: Window, out: &mut Vec<i64>, most: usize) -> bool {
        let from = window.from.div_euclid(MICROS_PER_SECOND);
        let end = (window.end - 1).div_euclid(MICROS_PER_SECOND) + 1;
        let first_day = from.div_euclid(SECONDS_PER_DAY) - DAYS_AROUND;
        let last_day = end.div_euclid(SECONDS_PER_DAY) + DAYS_AROUND;
        let mut starts = Vec::new();
        for days in (first_day..=last_day).filter(|&days| self.schedule.fires_on_day(days)) {
            let date = civil_from_days(days);
            for hour in bits(u64::from(self.schedule.hours)) {
                for minute in bits(self.schedule.minutes) {
                    let local =
                        days * SECONDS_PER_DAY + i64::from(hour) * 3600 + i64::from(minute) * 60;
                    let Ok(civil) = DateTime::new(
                        date.year as i16,
                        date.month as i8,
                        date.day as i8,
                        hour as i8,
                        minute as i8,
                        0,
                        0,
                    ) else {
                        continue;
                    };
                    self.push_runs_of(local, civil, &mut starts);
                }
            }
        }
        // Caught-up minutes and second passes land out of local order.
        starts.sort_unstable();
        for at in starts {
            let at = at * MICROS_PER_SECOND;
            if at < window.from || at >= window.end {
                continue;
            }
            if out.len() >= most {
                return true;
            }
            out.push(at);
        }
        false
    }

    /// The instants, in Unix seconds, at which the daemon runs a job due at
    /// the local minute `local` (`civil` as a date and time).
    fn push_runs_of(&self, local: i64, civil: DateTime, starts: &mut Vec<i64>) {
        match self.zone.to_ambiguous_timestamp(civil).offset() {
            AmbiguousOffset::Unambiguous { offset } => {
                starts.push(local - i64::from(offset.seconds()));
            }
            // The job's own zone: a skipped time never shows on the wall
            // clock; a repeated one shows twice.
            AmbiguousOffset::Gap { .. } if self.clock == ZoneClock::Job => {}
            AmbiguousOffset::Fold { before, after } if self.clock == ZoneClock::Job => {
                starts.push(local - i64::from(before.seconds()));
                starts.push(local - i64::from(after.seconds()));
            }
            AmbiguousOffset::Gap { before, after } => {
                let jump = i64::from(after.seconds() - before.seconds()) / 60;
                let caught_up =
                    jump < SMALL_JUMP_MINUTES || (jump < LARGE_JUMP_MINUTES && !self.wildcard_time);
                if caught_up {
                    // The local minute never shows; the jump happened at
                    // or before the instant it would have had on the old
                    // clock.
                    let on_old_clock = local - i64::from(before.seconds());
                    if let Some(jump_at) = self.jump_before(on_old_clock + 1) {
                        starts.push(jump_at);
                    }
                }
            }
            AmbiguousOffset::Fold { before, after } => {
                starts.push(local - i64::from(before.seconds()));
                let back = i64::from(before.seconds() - after.seconds()) / 60;
                if self.wildcard_time || back > LARGE_JUMP_MINUTES {
                    starts.push(local - i64::from(after.seconds()));
                }
            }
        }
    }

    /// One sentence for each change of the zone's offset in `window` (at
    /// most `MOST_CHANGE_NOTICES`) that skips or repeats local minutes
    /// the line is due at: which, on what date, and what becomes of them.
    pub fn zone_change_notices(&self, window: Window) -> Vec<String> {
        let Ok(from) = Timestamp::from_second(window.from.div_euclid(MICROS_PER_SECOND) - 1) else {
            return Vec::new();
        };
        let mut notices = Vec::new();
        for transition in self.zone.following(from) {
            let at = transition.timestamp().as_second();
            if at * MICROS_PER_SECOND >= window.end || notices.len() == MOST_CHANGE_NOTICES {
                break;
            }
            let after = i64::from(transition.offset().seconds());
            let Ok(just_before) = Timestamp::from_second(at - 1) else {
                continue;
            };
            let before = i64::from(self.zone.to_offset(just_before).seconds());
            // The local minutes that never show (forward) or show twice
            // (back): from the earlier wall-clock reading to the later.
            let (first, end) = (at + before.min(after), at + before.max(after));
            let due: Vec<i64> = (first.div_euclid(60)..end.div_euclid(60))
                .map(|minute| minute * 60)
                .filter(|&local| self.is_due_at(local))
                .collect();
            if !due.is_empty() {
                notices.push(self.tell_change(&due, (after - before) / 60));
            }
        }
        notices
    }

    /// Whether the schedule matches the local minute starting at `local`
    /// (seconds of the local clock since 1970-01-01 00:00).
    fn is_due_at(&self, local: i64) -> bool {
        let days = local.div_euclid(SECONDS_PER_DAY);
        let of_day = local.rem_euclid(SECONDS_PER_DAY);
        self.schedule.fires_on_day(days)
            && self.schedule.hours & (1 << (of_day / 3600)) != 0
            && self.schedule.minutes & (1 << (of_day % 3600 / 60)) != 0
    }

    /// What a change of `jump` local minutes (forward when positive) does
    /// to the starts due at the local minutes `due`.
    fn tell_change(&self, due: &[i64], jump: i64) -> String {
        let one = due.len() == 1;
        let clock_time = |local: i64| {
            let of_day = local.rem_euclid(SECONDS_PER_DAY);
            format!("{:02}:{:02}", of_day / 3600, of_day % 3600 / 60)
        };
        let times = match due {
            [only] => clock_time(*only),
            [a, b] => format!("{} and {}", clock_time(*a), clock_time(*b)),
            [first, .., last] => format!(
                "{} to {} ({} starts)",
                clock_time(*first),
                clock_time(*last),
                due.len()
            ),
            [] => String::new(),
        };
        let date = civil_from_days(due[0].div_euclid(SECONDS_PER_DAY));
        let zone = self.zone.iana_name().unwrap_or("the zone");
        let (subject, is, runs) = if one {
            ("this start", "is", "runs")
        } else {
            ("these starts", "are", "run")
        };
        let said = format!(
            "{times} on {:04}-{:02}-{:02} {} in {zone}",
            date.year,
            date.month,
            date.day,
            match (jump > 0, one) {
                (true, true) => "does not exist",
                (true, false) => "do not exist",
                (false, true) => "happens twice",
                (false, false) => "happen twice",
            }
        );
        let machine = self.clock == ZoneClock::Machine;
        if jump > 0 {
            let caught_up = machine
                && (jump < SMALL_JUMP_MINUTES
                    || (jump < LARGE_JUMP_MINUTES && !self.wildcard_time));
            if caught_up {
                let them = if one { "it" } else { "them" };
                format!("{said} (clocks went forward); cron runs {them} at the change")
            } else {
                format!("{said} (clocks went forward), so {subject} {is} skipped")
            }
        } else if machine && !self.wildcard_time && -jump <= LARGE_JUMP_MINUTES {
            let each = if one { "it" } else { "each" };
            format!("{said} (clocks went back); cron runs {each} once")
        } else {
            format!("{said} (clocks went back), so {subject} {runs} twice")
        }
    }

    /// The latest offset change strictly before `at` (Unix seconds).
    fn jump_before(&self, at: i64) -> Option<i64> {
        let at = Timestamp::from_second(at).ok()?;
        let transition = self.zone.preceding(at).next()?;
        Some(transition.timestamp().as_second())
    }
}

/// The IANA zone `name`, from the bundled database; a refusal names the
/// option `key` that gave it.
pub fn time_zone(name: &str, key: &str) -> Result<TimeZone, Refusal> {
    if !cfg!(feature = "time-zones") {
        return Err(Refusal::new(
            key,
            format!(
                "\"{}\": this build has no time zone data; only UTC is read",
                stampede_core::field::shorten(name)
            ),
        ));
    }
    jiff::tz::db().get(name).map_err(|_| {
        Refusal::new(
            key,
            format!(
                "\"{}\" is not an IANA time zone such as Europe/Berlin or America/New_York",
                stampede_core::field::shorten(name)
            ),
        )
    })
}
