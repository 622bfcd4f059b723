//! Temporal schedules: where a Temporal server starts each action of a
//! schedule, jitter included.
//!
//! Followed: temporalio/temporal v1.31.2, commit
//! `19a774302c613da9adc4436ab14278ccdca8e0a5`:
//! `service/worker/scheduler/spec.go` (`GetNextTime`, `rawNextTime`,
//! `nextIntervalTime`, `addJitter`, `validateInterval`), `calendar.go`
//! (cron strings, [`calendar`]), `workflow.go` and
//! `chasm/lib/scheduler/scheduler.go` (`jitterSeed`) and
//! `common/primitives/timestamp/parse_duration.go` ([`duration`]).
//!
//! A line's spec is `every INTERVAL [offset PHASE]` or a Temporal cron
//! string (which may itself be `@every INTERVAL[/PHASE]`). Nominal times are
//! whole UTC seconds:
//!
//! ```text
//! interval:  next(t) = ((t − phase) / interval + 1) · interval + phase
//!            (seconds, Go's division truncating towards zero)
//! calendar:  the first second after t that every field matches
//! ```
//!
//! starting from `t` = 1969-12-31T23:59:59Z (a schedule without a start
//! time starts at the epoch, so `next(-1)` skips the phase at 0 unless
//! `phase = interval − 1 s`) and ending after 2100. Each nominal time `n`
//! with following nominal time `f` starts at
//!
//! ```text
//! start = n + ⌊fp · ms / 2³²⌋ ms
//! ms    = min(⌊min(Jitter, f − n) / 1 ms⌋, 2³² − 1)   (0 if Jitter < 0)
//! fp    = Fingerprint32(MarshalBinary(n) ‖ namespace id ‖ "-" ‖ schedule id)
//! ```
//!
//! where `MarshalBinary(n)` is Go's 15-byte `time.Time` encoding of `n` in
//! UTC (version 1, seconds since year 1 and nanoseconds big-endian, zone
//! offset −1 for UTC) and Fingerprint32 is FarmHash's
//! ([`stampede_core::hash::farm_fingerprint32`]). The delay is a whole number of
//! milliseconds below the gap to `f`, so starts keep their order and sit on
//! exact microseconds. The interval and phase count in whole seconds
//! (truncated), after Temporal has checked `interval ≥ 1 s` and
//! `0 ≤ phase < interval` on the durations as given.

pub mod calendar;
pub mod duration;

use crate::line::Refusal;
use crate::time::{MICROS_PER_SECOND, Window};
use stampede_core::field::shorten;

use self::calendar::{CronString, LAST_NOMINAL, TemporalCalendar, parse_cron_string};
use self::duration::temporal_duration_nanos;

const NANOS_PER_SECOND: i64 = 1_000_000_000;
const NANOS_PER_MILLI: i64 = 1_000_000;
/// Seconds from 0001-01-01 to the Unix epoch, as Go's `time.Time` counts.
const SECONDS_BEFORE_EPOCH: i64 = 62_135_596_800;

/// A `temporal` line: its nominal times and how its jitter is drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct TemporalSchedule {
    times: NominalTimes,
    /// `Jitter` as given, in nanoseconds.
    jitter_nanos: i64,
    /// The bytes hashed after each nominal time: `<namespace id>-<schedule id>`.
    seed: Vec<u8>,
}

/// Where a schedule's nominal times fall.
#[derive(Clone, Debug, PartialEq)]
enum NominalTimes {
    /// Every `interval` seconds from `phase` past the epoch.
    Interval {
        interval: i64,
        phase: i64,
    },
    Calendar(TemporalCalendar),
}

impl TemporalSchedule {
    /// Reads a line: the schedule id, the spec, and the `Jitter` and
    /// `Namespace` options as given. A refusal names the field at fault.
    pub fn read(
        id: &str,
        spec: &str,
        jitter: Option<&str>,
        namespace: Option<&str>,
    ) -> Result<Self, Refusal> {
        let times = read_spec(spec).map_err(|why| Refusal::new("spec", why))?;
        let jitter_nanos = match jitter {
            None => 0,
            Some(text) => {
                temporal_duration_nanos(text).map_err(|why| Refusal::new("Jitter", why))?
            }
        };
        let namespace = match namespace {
            Some(namespace) => namespace,
            // Without the namespace's id the delays cannot be drawn; with no
            // jitter it changes nothing.
            None if jitter_nanos >= NANOS_PER_MILLI => {
                return Err(Refusal::new(
                    "Namespace",
                    "is needed with Jitter: Temporal hashes the namespace's id \
                     (temporal operator namespace describe shows it) into every delay",
                ));
            }
            None => "",
        };
        Ok(Self {
            times,
            jitter_nanos,
            seed: format!("{namespace}-{id}").into_bytes(),
        })
    }

    /// Appends each start in `window`, in order, while `out` holds fewer
    /// than `most`. Returns whether a start was left out because `out` was
    /// full.
    pub fn push_starts(&self, window: Window, out: &mut Vec<i64>, most: usize) -> bool {
        let reach = self.reach_seconds();
        let end = (window.end - 1).div_euclid(MICROS_PER_SECOND) + 1;
        // A nominal time before this one starts before the window.
        let before = window.from.div_euclid(MICROS_PER_SECOND) - reach - 1;
        let Some(mut nominal) = self.first_after(before, end) else {
            return false;
        };
        while nominal <= LAST_NOMINAL && nominal < end {
            let following = self.following(nominal, (nominal + reach).max(end));
            let start = nominal * MICROS_PER_SECOND + 1000 * self.delay_millis(nominal, following);
            if start >= window.end {
                return false;
            }
            if start >= window.from {
                if out.len() >= most {
                    return true;
                }
                out.push(start);
            }
            match following {
                Some(following) => nominal = following,
                None => return false,
            }
        }
        false
    }

    /// Seconds that cover any delay: the longest delay is under
    /// `min(Jitter, 2³² − 1 ms)`.
    fn reach_seconds(&self) -> i64 {
        let millis = (self.jitter_nanos.max(0) / NANOS_PER_MILLI).min(i64::from(u32::MAX));
        (millis + 999) / 1000
    }

    /// The first nominal time after `after`, up to the last Temporal
    /// places.
    pub fn first_nominal(&self, after: i64) -> Option<i64> {
        self.first_after(after, LAST_NOMINAL + 1)
            .filter(|&at| at <= LAST_NOMINAL)
    }

    /// The first nominal time after `after` (from the epoch on), if one is
    /// before `end`.
    fn first_after(&self, after: i64, end: i64) -> Option<i64> {
        match &self.times {
            NominalTimes::Interval { interval, phase } => {
                let first = next_interval_time(-1, *interval, *phase);
                Some(if after < first {
                    first
                } else {
                    next_interval_time(after, *interval, *phase)
                })
            }
            NominalTimes::Calendar(calendar) => calendar.next_after(after.max(-1), end),
        }
    }

    /// The nominal time after `nominal`; a calendar's is looked for up to
    /// `limit` only.
    fn following(&self, nominal: i64, limit: i64) -> Option<i64> {
        match &self.times {
            NominalTimes::Interval { interval, .. } => Some(nominal + interval),
            NominalTimes::Calendar(calendar) => calendar.next_after(nominal, limit),
        }
    }

    /// The delay of the start at `nominal`, in milliseconds. `following`
    /// is `None` when the next nominal time is beyond any delay's reach.
    fn delay_millis(&self, nominal: i64, following: Option<i64>) -> i64 {
        let gap = following.map_or(i64::MAX, |following| {
            (following - nominal).saturating_mul(NANOS_PER_SECOND)
        });
        let most = self.jitter_nanos.min(gap).max(0) / NANOS_PER_MILLI;
        let most = most.min(i64::from(u32::MAX)) as u64;
        if most == 0 {
            return 0;
        }
        let mut bytes = go_time_binary(nominal).to_vec();
        bytes.extend_from_slice(&self.seed);
        let fingerprint = u64::from(stampede_core::hash::farm_fingerprint32(&bytes));
        ((fingerprint * most) >> 32) as i64
    }
}

/// Temporal's `nextIntervalTime`: the first interval time after Unix
/// second `after`, with Go's truncating division.
fn next_interval_time(after: i64, interval: i64, phase: i64) -> i64 {
    ((after - phase) / interval + 1) * interval + phase
}

/// Go's `time.Time.MarshalBinary` of Unix second `at` in UTC.
pub fn go_time_binary(at: i64) -> [u8; 15] {
    let mut bytes = [0u8; 15];
    bytes[0] = 1;
    bytes[1..9].copy_from_slice(&(at + SECONDS_BEFORE_EPOCH).to_be_bytes());
    // Nanoseconds (0), then the zone offset in minutes, −1 meaning UTC.
    bytes[13..15].copy_from_slice(&(-1i16).to_be_bytes());
    bytes
}

/// A spec as nominal times: `every INTERVAL [offset PHASE]` or a cron
/// string.
fn read_spec(spec: &str) -> Result<NominalTimes, String> {
    let words: Vec<&str> = spec.split_whitespace().take(5).collect();
    let (interval, phase) = match words.as_slice() {
        ["every", interval] => (temporal_duration_nanos(interval)?, 0),
        ["every", interval, "offset", phase] => (
            temporal_duration_nanos(interval)?,
            temporal_duration_nanos(phase)?,
        ),
        ["every", ..] => {
            return Err(format!(
                "\"{}\" is not every INTERVAL or every INTERVAL offset PHASE",
                shorten(spec)
            ));
        }
        _ => match parse_cron_string(spec)? {
            CronString::Calendar(calendar) => return Ok(NominalTimes::Calendar(calendar)),
            CronString::Every { interval, phase } => (interval, phase),
        },
    };
    if interval < NANOS_PER_SECOND {
        return Err("the interval is shorter than 1 s, the least Temporal takes".into());
    }
    if phase < 0 {
        return Err("the offset is negative".into());
    }
    if phase >= interval {
        return Err("the offset must be shorter than the interval".into());
    }
    Ok(NominalTimes::Interval {
        interval: interval / NANOS_PER_SECOND,
        phase: phase / NANOS_PER_SECOND,
    })
}
