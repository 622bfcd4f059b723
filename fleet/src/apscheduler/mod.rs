//! APScheduler (Python) jobs, placed as APScheduler 3.11's triggers place
//! them, jitter and all.
//!
//! A line's spec is the trigger and its keyword arguments, as `add_job`
//! takes them: `cron hour=3 minute=0 day_of_week=mon-fri` (a value with a
//! blank in it quoted: `day='last fri'`), `crontab 0 3 * * *` for
//! `CronTrigger.from_crontab`, or `interval minutes=15`. Options:
//! `Jitter=` (seconds), `Zone=` (the trigger's `timezone`; UTC when not
//! given, where APScheduler takes the machine's zone) and `Start=` (the
//! trigger's `start_date`, RFC 3339).
//!
//! - **Cron.** The eight fields of `triggers/cron/__init__.py`
//!   (`CronTrigger`): fields less significant than the least significant
//!   one given stand for their least value (`second` 0), the others for
//!   `*`; days of the week count from Monday, 0. `from_crontab` hands its
//!   fifth field to `day_of_week` unchanged, so cron's `0` (Sunday) is
//!   Monday here and `7` is refused: APScheduler 3.x's known pitfall,
//!   which 4.x mends. The search ([`CronFields::first_from`]) follows
//!   `get_next_fire_time` step by step, on the zone's wall clock.
//! - **Interval.** `triggers/interval.py` (`IntervalTrigger`): from
//!   `start_date`, every interval; a zero interval is one second.
//! - **Jitter.** `triggers/base.py` (`_apply_jitter`) and the interval
//!   trigger add `random.uniform(0, jitter)` seconds to each fire time.
//!   The draws here come from the seed, one stream per line; a real
//!   scheduler draws anew at every run. The next fire time is then
//!   searched from the jittered one (`Job._get_run_times` hands it back as
//!   `previous_fire_time`), which is 3.x's drift: an interval job's `k`-th
//!   start is `k` intervals plus `k` draws after its first, so it drifts
//!   later by half the jitter a run; a cron job whose jitter reaches past
//!   its next time skips that time. A cron jitter is added on the wall
//!   clock (Python adds a `timedelta` to an aware `datetime` there), so a
//!   start pushed across a change of offset moves by the change too; and
//!   on the second pass of a repeated hour the sum is read at the first
//!   pass's offset, an hour early, and every later search finds the same
//!   time again: the real scheduler's catch-up loop never ends. The starts
//!   end there, with a notice.
//!
//! The scheduler is taken to start with the window: the first cron start
//! is the first time at or after the window's start (or `Start=`, if
//! later), and an interval's `start_date` defaults, as APScheduler's
//! does, to the scheduler's start plus one interval. A job a running
//! scheduler is late for is not modelled (`misfire_grace_time` of 1 s,
//! `coalesce`), nor `max_instances` skipping a run while one is running.
//!
//! APScheduler 4 (4.0.0a6) differs: the jitter (`max_jitter`, a
//! schedule's) is added to the job, not to the trigger, so nothing drifts;
//! it is cut to end before the next fire time; and `from_crontab` reads
//! cron's days of the week (Sunday 0 or 7). Lines here follow 3.x.
//!
//! The vectors (`fleet/tests/data/apscheduler_starts.tsv`) are written by
//! the real APScheduler 3.11.3 (`make_apscheduler_vectors.py` beside them).

mod fields;
mod search;

use jiff::tz::TimeZone;
use rand::Rng;
use stampede_core::rng::{Purpose, seeded};

use crate::line::{FleetLine, MOST_DURATION_SECONDS, Refusal};
use crate::time::{MICROS_PER_SECOND, UTC_NAMES, Window, push_searched_starts};

pub use self::fields::NAMES as CRON_FIELD_NAMES;
pub use self::search::CronFields;

/// The option keys an APScheduler line reads.
pub const OPTION_KEYS: [&str; 3] = ["Jitter", "Zone", "Start"];

/// The stream family jitters are drawn from, one stream per line.
const JITTER_DRAWS: Purpose = Purpose::new("fleet.apscheduler.jitter");

/// The longest interval read: a century, far past any horizon.
const MOST_INTERVAL_MICROS: i64 = 100 * 366 * 86_400 * MICROS_PER_SECOND;

/// The interval trigger's keyword arguments and their units in seconds.
const INTERVAL_UNITS: [(&str, i64); 5] = [
    ("weeks", 7 * 86_400),
    ("days", 86_400),
    ("hours", 3600),
    ("minutes", 60),
    ("seconds", 1),
];

/// A trigger, read.
#[derive(Clone, Debug, PartialEq)]
pub enum Trigger {
    Cron(CronFields),
    /// Every `every` microseconds from `start` (Unix microseconds), or
    /// from one interval after the scheduler's start.
    Interval {
        every: i64,
        start: Option<i64>,
    },
}

/// An APScheduler job: its trigger, its jitter and where its draws come
/// from.
#[derive(Clone, Debug, PartialEq)]
pub struct ApschedulerJob {
    pub trigger: Trigger,
    /// The most jitter, in microseconds; `None` when none is given or 0.
    pub jitter: Option<i64>,
    /// The earliest cron start (`start_date`), Unix seconds.
    start: Option<i64>,
    seed: u64,
    line: u64,
}

/// `key=value` words after the trigger's name; a value may be quoted
/// with `'` or `"` to hold blanks.
pub fn keywords(text: &str) -> Result<Vec<(&str, &str)>, String> {
    let mut out: Vec<(&str, &str)> = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let word_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let Some(eq) = rest[..word_end].find('=') else {
            return Err(format!(
                "\"{}\" is not key=value",
                stampede_core::field::shorten(&rest[..word_end])
            ));
        };
        let key = &rest[..eq];
        let after = &rest[eq + 1..];
        let (value, next) = match after.chars().next() {
            Some(quote @ ('\'' | '"')) => match after[1..].find(quote) {
                Some(close) => (&after[1..close + 1], &after[close + 2..]),
                None => return Err(format!("the value of {key} has no closing {quote}")),
            },
            _ => {
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        if out.iter().any(|(given, _)| *given == key) {
            return Err(format!("got multiple values for argument '{key}'"));
        }
        out.push((key, value));
        rest = next.trim_start();
    }
    Ok(out)
}

/// A non-negative decimal number of `unit` seconds, in microseconds,
/// rounded as `timedelta` rounds; `None` when it is not one or past
/// `most`.
fn micros(text: &str, unit: i64, most: i64) -> Option<i64> {
    let plain = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && text.matches('.').count() <= 1
        && text != ".";
    let value: f64 = text.parse().ok().filter(|_| plain)?;
    let total = (value * (unit * MICROS_PER_SECOND) as f64).round();
    (total <= most as f64).then_some(total as i64)
}

/// Reads `spec`, in `zone`, as the trigger it names; the refusal says
/// why, in APScheduler's words where it has them.
pub fn read_trigger(spec: &str, zone: Option<TimeZone>) -> Result<Trigger, String> {
    let spec = spec.trim();
    let (kind, rest) = spec.split_once(char::is_whitespace).unwrap_or((spec, ""));
    match kind {
        "cron" => {
            let given = keywords(rest)?;
            for (key, _) in &given {
                if !fields::NAMES.contains(key) {
                    return Err(format!(
                        "CronTrigger has no argument '{key}'; its fields are {}",
                        fields::NAMES.join(", ")
                    ));
                }
            }
            cron_fields(&given, zone).map(Trigger::Cron)
        }
        "crontab" => {
            let values: Vec<&str> = rest.split_whitespace().collect();
            let [minute, hour, day, month, day_of_week] = values[..] else {
                return Err(format!(
                    "Wrong number of fields; got {}, expected 5",
                    values.len()
                ));
            };
            let given = [
                ("minute", minute),
                ("hour", hour),
                ("day", day),
                ("month", month),
                ("day_of_week", day_of_week),
            ];
            cron_fields(&given, zone).map(Trigger::Cron)
        }
        "interval" => {
            let mut every = 0;
            for (key, value) in keywords(rest)? {
                let Some((_, unit)) = INTERVAL_UNITS.iter().find(|(name, _)| *name == key) else {
                    return Err(format!(
                        "IntervalTrigger has no argument '{key}'; it takes weeks, days, hours, \
                         minutes and seconds"
                    ));
                };
                every += micros(value, *unit, MOST_INTERVAL_MICROS).ok_or_else(|| {
                    format!("{key}={value}: give a number of {key} from 0 to a century")
                })?;
            }
            if every > MOST_INTERVAL_MICROS {
                return Err("the interval is longer than a century".into());
            }
            // APScheduler runs a zero interval every second.
            Ok(Trigger::Interval {
                every: if every == 0 { MICROS_PER_SECOND } else { every },
                start: None,
            })
        }
        "date" => Err(
            "a date trigger runs once, at its run_date; only cron and interval \
                       triggers repeat"
                .into(),
        ),
        _ => Err(format!(
            "\"{}\" is not a trigger: give cron key=value…, crontab with five fields, or \
             interval key=value…",
            stampede_core::field::shorten(kind)
        )),
    }
}

/// The fields of `CronTrigger(**given)`, with the defaults of those not
/// given.
fn cron_fields(given: &[(&str, &str)], zone: Option<TimeZone>) -> Result<CronFields, String> {
    let least_given = (0..fields::NAMES.len())
        .rev()
        .find(|&index| given.iter().any(|(key, _)| *key == fields::NAMES[index]));
    let fields = (0..fields::NAMES.len())
        .map(|index| {
            let value = given
                .iter()
                .find(|(key, _)| *key == fields::NAMES[index])
                .map(|(_, value)| *value);
            let value = match (value, least_given) {
                (Some(value), _) => value,
                (None, Some(least)) if index > least => fields::DEFAULTS[index],
                (None, _) => "*",
            };
            fields::CronField::read(index, value)
        })
        .collect::<Result<_, _>>()?;
    Ok(CronFields { fields, zone })
}

impl ApschedulerJob {
    /// Reads `line`; `seed` draws its jitter.
    pub fn read(line: &FleetLine, seed: u64) -> Result<Self, Refusal> {
        let zone = match line.options.own("Zone") {
            Some(name) if !UTC_NAMES.contains(&name) => {
                Some(crate::zoned::time_zone(name, "Zone")?)
            }
            _ => None,
        };
        let mut trigger =
            read_trigger(&line.spec, zone).map_err(|why| Refusal::new("spec", why))?;
        let jitter = match line.options.own("Jitter") {
            Some(text) => Some(
                micros(text, 1, MOST_DURATION_SECONDS as i64 * MICROS_PER_SECOND).ok_or_else(
                    || {
                        Refusal::new(
                            "Jitter",
                            format!(
                                "\"{}\" is not a number of seconds from 0 to 31 days",
                                stampede_core::field::shorten(text)
                            ),
                        )
                    },
                )?,
            ),
            None => None,
        };
        let start = line
            .options
            .own("Start")
            .map(|text| crate::time::parse("Start", text))
            .transpose()
            .map_err(|refusal| Refusal::new("Start", refusal.reason))?;
        if let Trigger::Interval { start: at, .. } = &mut trigger {
            *at = start.map(|seconds| seconds * MICROS_PER_SECOND);
        }
        Ok(Self {
            trigger,
            jitter: jitter.filter(|&most| most > 0),
            start,
            seed,
            line: line.line as u64,
        })
    }

    /// Appends each start in `window`, in order, while `out` holds fewer
    /// than `most`. Returns whether a start was left out because `out` was
    /// full.
    pub fn push_starts(&self, window: Window, out: &mut Vec<i64>, most: usize) -> bool {
        let mut draws = self
            .jitter
            .map(|most| (most, seeded(self.seed, JITTER_DRAWS.indexed(self.line))));
        // `random.uniform(0, jitter)`, to the microsecond `timedelta` keeps.
        let mut draw = || {
            draws.as_mut().map_or(0, |(most, rng)| {
                ((u128::from(rng.next_u64()) * (*most as u128 + 1)) >> 64) as i64
            })
        };
        match &self.trigger {
            Trigger::Cron(cron) => {
                let first = self.first_search(window);
                if self.jitter.is_none() {
                    let next = |after: i64| cron.first_from((after + 1).max(first));
                    return push_searched_starts(window, next, out, most);
                }
                let mut nominal = cron.first_from(first);
                while let Some(at) = nominal.filter(|&at| !cron.is_second_pass(at)) {
                    let Some(start) = cron.add_on_wall(at, draw()) else {
                        return false;
                    };
                    if start >= window.end {
                        return false;
                    }
                    if out.len() >= most {
                        return true;
                    }
                    out.push(start);
                    nominal = cron.first_from(start.div_euclid(MICROS_PER_SECOND) + 1);
                }
                false
            }
            Trigger::Interval { every, start } => {
                let now = window.from;
                let start = start.unwrap_or(now + every);
                let mut next = if start > now {
                    start
                } else {
                    start + (now - start + every - 1) / every * every
                };
                loop {
                    let at = next + draw();
                    if at >= window.end {
                        return false;
                    }
                    if out.len() >= most {
                        return true;
                    }
                    out.push(at);
                    // 3.x counts the next interval from the jittered start.
                    next = at + every;
                }
            }
        }
    }

    /// The second a cron line's first search starts from: the window's
    /// start (the scheduler's), or `Start=` when later, rounded up.
    fn first_search(&self, window: Window) -> i64 {
        let from = window.from.div_euclid(MICROS_PER_SECOND)
            + i64::from(window.from.rem_euclid(MICROS_PER_SECOND) != 0);
        self.start.map_or(from, |start| start.max(from))
    }

    /// Why the job never runs after Unix second `after`, when its cron
    /// fields allow no later time.
    pub fn never_runs(&self, after: i64) -> Option<String> {
        let Trigger::Cron(cron) = &self.trigger else {
            return None;
        };
        let from = self.start.map_or(after, |start| start.max(after));
        cron.first_from(from).is_none().then(|| {
            format!(
                "APScheduler finds no time from {} to the end of 9999, where its years end, \
                 that its fields allow",
                &crate::time::format(from)[..10]
            )
        })
    }

    /// Why no start is shown after the last of `starts` (Unix
    /// microseconds): a jittered cron job whose next time is on the second
    /// pass of a repeated hour.
    pub fn stops_searching(&self, starts: &[i64]) -> Option<String> {
        let (Trigger::Cron(cron), Some(_)) = (&self.trigger, self.jitter) else {
            return None;
        };
        let after = starts.last()?.div_euclid(MICROS_PER_SECOND) + 1;
        let at = cron
            .first_from(after)
            .filter(|&at| cron.is_second_pass(at))?;
        Some(format!(
            "at {}, on the second pass of the hour its zone repeats, APScheduler 3.x adds the \
             jitter on the wall clock and reads the sum at the first pass's offset, an hour \
             early; every later search finds the same time again and the scheduler's catch-up \
             loop never ends, so no start is shown after it",
            crate::time::format(at)
        ))
    }

    /// For an interval without `Start=`: that it counts from the
    /// scheduler's start, taken to be the window's.
    pub fn assumption(&self) -> Option<String> {
        matches!(self.trigger, Trigger::Interval { start: None, .. }).then(|| {
            "no Start=: APScheduler counts an interval from the scheduler's start plus one \
             interval, taken here to be the horizon's start; give Start= (the trigger's \
             start_date) for the real one"
                .into()
        })
    }

    /// The job with its jitter drawn from `seed`.
    pub fn redrawn(&self, seed: u64) -> Self {
        Self {
            seed,
            ..self.clone()
        }
    }

    /// The law of the jitter in words, when the line has one.
    pub fn drawn_delays(&self) -> Option<String> {
        let most = self.jitter?;
        let seconds = stampede_core::units::duration(most as f64 / MICROS_PER_SECOND as f64);
        let drift = match self.trigger {
            Trigger::Interval { .. } => {
                "; APScheduler 3.x counts each interval from the jittered start before it, so \
                 the starts drift later by half the jitter a run on average"
            }
            Trigger::Cron(_) => "",
        };
        Some(format!(
            "each start is drawn uniformly within the {seconds} after its time (APScheduler's \
             jitter), here from the seed; a real scheduler draws anew at each run{drift}"
        ))
    }
}

/// A value as a spec writes it: quoted when it holds a blank or is empty.
pub fn written_value(value: &str) -> String {
    match (
        value.is_empty() || value.contains(char::is_whitespace),
        value.contains('\''),
    ) {
        (false, _) => value.to_string(),
        (true, false) => format!("'{value}'"),
        (true, true) => format!("\"{value}\""),
    }
}

/// `spec` with its minute set to `minute` and its hour to `hour`, each
/// when given: a keyword replaced where it stands or added after the
/// others, or a crontab's field. A minute added where none was given
/// takes the hour along, since the fields above the least significant one
/// given stand for `*`: the hour it stood for (its least, 0, or `hour`)
/// is written out.
pub fn with_clock(spec: &str, minute: Option<&str>, hour: Option<u32>) -> String {
    let spec = spec.trim();
    let (kind, rest) = spec.split_once(char::is_whitespace).unwrap_or((spec, ""));
    let hour = hour.map(|hour| hour.to_string());
    if kind == "crontab" {
        let mut values: Vec<&str> = rest.split_whitespace().collect();
        if let (Some(minute), Some(slot)) = (minute, values.get_mut(0)) {
            *slot = minute;
        }
        if let (Some(hour), Some(slot)) = (&hour, values.get_mut(1)) {
            *slot = hour;
        }
        return format!("crontab {}", values.join(" "));
    }
    let mut given: Vec<(String, String)> = keywords(rest)
        .unwrap_or_default()
        .into_iter()
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .collect();
    let has = |given: &[(String, String)], key: &str| given.iter().any(|(k, _)| k == key);
    let hour = match hour {
        None if minute.is_some() && !has(&given, "minute") && !has(&given, "hour") => {
            Some("0".to_string())
        }
        hour => hour,
    };
    for (key, value) in [("hour", hour.as_deref()), ("minute", minute)] {
        let Some(value) = value else { continue };
        match given.iter_mut().find(|(given, _)| given == key) {
            Some((_, old)) => *old = value.to_string(),
            None => given.push((key.to_string(), value.to_string())),
        }
    }
    let mut out = kind.to_string();
    for (key, value) in &given {
        out.push_str(&format!(" {key}={}", written_value(value)));
    }
    out
}
