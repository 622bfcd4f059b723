//! anacron, cronie's (1.7.2): jobs due every so many days, started when
//! an hourly run of anacron finds them due and inside its hours.
//!
//! cronie's `0hourly` runs `/etc/cron.hourly` at minute 01 of every hour;
//! its `0anacron` runs `anacron -s`. Each run (`anacron/main.c`,
//! `readtab.c`, `lock.c`) reads `/etc/anacrontab` and, for each job
//! `PERIOD DELAY ID COMMAND`:
//!
//! - is it due? Days since its timestamp (the date of the run that last
//!   ran it) at least `PERIOD`; `@daily` 1, `@weekly` 7, `@monthly` the
//!   days of last month (or exactly this month's), `@yearly` likewise
//!   (`consider_job`, `gregor.c`);
//! - its time is the run's start plus `DELAY` minutes plus `RANDOM_DELAY`'s
//!   draw: one whole number of minutes from 0 to `RANDOM_DELAY`, uniform
//!   (`unbiased_rand`), drawn once per run when the line is read and
//!   shared by every job after it; a wait over a day is dropped (`time_till`);
//! - it runs in this run only if that time's hour is within
//!   `START_HOURS_RANGE` (`a` ≤ hour < `b`) and is `PREFERRED_HOUR` when
//!   given; otherwise a later run tries again.
//!
//! So on an always-on machine a daily job starts once a day, at the
//! first run whose time falls in the hours: with RHEL's defaults (delay 5,
//! `RANDOM_DELAY=45`, `3-22`) between 03:06 and 03:51. The runs can be set
//! (`Runs=7-23:30` and `RunDelay=300` for Debian's `anacron.timer`:
//! `OnCalendar=07..23:30`, `RandomizedDelaySec=5m`). The draws come from
//! the seed, one stream per machine (`Machine=`), so the jobs of one
//! machine share each run's draw as they do on it. The clock is UTC.
//!
//! Left out: `-s` makes each job wait for the one before it to end, which
//! needs their run times; each job is placed at its own time, the earliest
//! it can start. A job with no timestamp yet (a new machine) ignores the
//! hours; `Last=` gives the timestamp, else the job is due on the
//! horizon's first day. No anacron runs here, so the tests hold these
//! rules, worked out by hand from the source, not vectors.

use rand::RngExt;
use stampede_core::field::shorten;
use stampede_core::rng::{Purpose, seeded};

use crate::line::{FleetLine, Refusal};
use crate::time::{MICROS_PER_SECOND, SECONDS_PER_DAY, Window, civil_from_days, days_from_civil};

/// The option keys an `anacron` line reads.
pub const OPTION_KEYS: [&str; 7] = [
    "RandomDelay",
    "Hours",
    "PreferredHour",
    "Machine",
    "Runs",
    "RunDelay",
    "Last",
];

/// The stream family each run's draws come from, one stream per machine
/// and run.
const RUN_DRAWS: Purpose = Purpose::new("fleet.anacron.run");

/// How often a job is due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Period {
    /// A number of days: 0 is every run.
    Days(u32),
    Daily,
    Weekly,
    Monthly,
    Yearly,
}

/// When anacron itself runs in a day: at `minute` of each hour from
/// `first` to `last`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunTimes {
    pub first: u32,
    pub last: u32,
    pub minute: u32,
}

/// cronie's `0hourly`: minute 01 of every hour.
const HOURLY: RunTimes = RunTimes {
    first: 0,
    last: 23,
    minute: 1,
};

/// A job of an anacrontab, on one machine.
#[derive(Clone, Debug, PartialEq)]
pub struct AnacronJob {
    pub period: Period,
    pub delay_minutes: u32,
    /// `RANDOM_DELAY`, in minutes; 0 draws nothing.
    pub random_delay: u32,
    /// `START_HOURS_RANGE`: from the first hour up to, not into, the last.
    pub hours: Option<(u32, u32)>,
    pub preferred_hour: Option<u32>,
    pub runs: RunTimes,
    /// How late a run may start after its time, in microseconds, drawn
    /// uniformly (a timer's `RandomizedDelaySec=`).
    pub run_delay: i64,
    /// The day number of the job's timestamp before the horizon.
    last: Option<i64>,
    seed: u64,
    machine: u64,
}

impl AnacronJob {
    /// Reads `line`: its spec `PERIOD DELAY` and its options.
    pub fn read(line: &FleetLine, seed: u64) -> Result<Self, Refusal> {
        let words: Vec<&str> = line.spec.split_whitespace().collect();
        let [period, delay] = words[..] else {
            return Err(Refusal::new(
                "spec",
                format!(
                    "\"{}\" is not PERIOD DELAY, such as 1 5 or @monthly 45",
                    shorten(&line.spec)
                ),
            ));
        };
        let own = |key| line.options.own(key);
        let hours = own("Hours").map(read_hours).transpose()?;
        let preferred_hour = own("PreferredHour")
            .map(|text| whole(text, "PreferredHour", 24))
            .transpose()?;
        Ok(Self {
            period: read_period(period)?,
            delay_minutes: whole(delay, "spec", i32::MAX as u32)?,
            random_delay: own("RandomDelay")
                .map(|text| whole(text, "RandomDelay", 100_000))
                .transpose()?
                .unwrap_or(0),
            hours,
            preferred_hour,
            runs: own("Runs").map(read_runs).transpose()?.unwrap_or(HOURLY),
            run_delay: own("RunDelay")
                .map(|text| whole(text, "RunDelay", 86_400))
                .transpose()?
                .map_or(0, |seconds| i64::from(seconds) * MICROS_PER_SECOND),
            last: own("Last").map(read_day).transpose()?,
            seed,
            machine: stampede_core::hash::fnv1a_64(own("Machine").unwrap_or("").as_bytes()),
        })
    }

    /// The job with its runs' draws taken from `seed`.
    pub fn redrawn(&self, seed: u64) -> Self {
        Self {
            seed,
            ..self.clone()
        }
    }

    /// Whether a run draws anything the job's time depends on.
    pub fn draws_at_random(&self) -> bool {
        self.random_delay > 0 || self.run_delay > 0
    }

    /// The law of the job's draws, in words.
    pub fn law(&self) -> String {
        let mut parts = Vec::new();
        if self.random_delay > 0 {
            parts.push(format!(
                "each run of anacron draws one delay of 0 to {} whole minutes (RANDOM_DELAY), \
                 uniformly, that all the machine's jobs share",
                self.random_delay
            ));
        }
        if self.run_delay > 0 {
            parts.push(format!(
                "the run itself starts up to {} s after its time, uniformly",
                self.run_delay / MICROS_PER_SECOND
            ));
        }
        format!(
            "{}; drawn here from the seed, where a real machine draws anew each run",
            parts.join(", and ")
        )
    }

    /// Why the job never runs, when its hours hold none.
    pub fn never_runs(&self) -> Option<String> {
        match (self.hours, self.preferred_hour) {
            (Some((first, last)), _) if first == last => {
                Some(format!("START_HOURS_RANGE={first}-{last} holds no hour"))
            }
            (Some((first, last)), Some(hour)) if hour < first || hour >= last => Some(format!(
                "PREFERRED_HOUR={hour} is outside START_HOURS_RANGE={first}-{last}"
            )),
            _ => None,
        }
    }

    /// Appends each start in `window`, in order, while `out` holds fewer
    /// than `most`. Returns whether a start was left out because `out`
    /// was full.
    pub fn push_starts(&self, window: Window, out: &mut Vec<i64>, most: usize) -> bool {
        let day_micros = SECONDS_PER_DAY * MICROS_PER_SECOND;
        // A run's job waits at most a day, so runs from two days before
        // can start one in the window.
        let first_day = window.from.div_euclid(day_micros) - 2;
        let last_day = (window.end - 1).div_euclid(day_micros);
        // Without a timestamp the job is due on the window's first day.
        let mut last = self
            .last
            .unwrap_or(window.from.div_euclid(day_micros) - self.longest_period());
        // A job waiting for its time holds its lock, so a later run passes
        // it over until then.
        let mut locked_until = i64::MIN;
        for day in first_day..=last_day {
            for hour in self.runs.first..=self.runs.last {
                if !self.is_due(day, last) {
                    break;
                }
                let run = day * day_micros
                    + (i64::from(hour) * 3600 + i64::from(self.runs.minute) * 60)
                        * MICROS_PER_SECOND;
                let (drawn_minutes, late) = self.draw(day, hour);
                let start = run + late;
                if start < locked_until {
                    continue;
                }
                let mut wait =
                    (i64::from(self.delay_minutes) + drawn_minutes) * 60 * MICROS_PER_SECOND;
                if wait > day_micros {
                    wait = 0;
                }
                let at = start + wait;
                if !self.in_hours(at) {
                    continue;
                }
                last = start.div_euclid(day_micros);
                locked_until = at;
                if window.from <= at && at < window.end {
                    if out.len() >= most {
                        return true;
                    }
                    out.push(at);
                }
            }
        }
        false
    }

    /// The most days the job's period can take.
    fn longest_period(&self) -> i64 {
        match self.period {
            Period::Days(days) => i64::from(days),
            Period::Daily => 1,
            Period::Weekly => 7,
            Period::Monthly => 31,
            Period::Yearly => 366,
        }
    }

    /// Whether the job is due on day `day`, its timestamp `last`.
    fn is_due(&self, day: i64, last: i64) -> bool {
        let since = day - last;
        if since < 0 {
            // cronie reads a timestamp ahead of the clock as skew, and runs.
            return true;
        }
        let date = civil_from_days(day);
        let month_days = |year: i64, month: u32| {
            let (next_year, next_month) = if month == 12 {
                (year + 1, 1)
            } else {
                (year, month + 1)
            };
            days_from_civil(next_year, next_month, 1) - days_from_civil(year, month, 1)
        };
        let year_days = |year: i64| days_from_civil(year + 1, 1, 1) - days_from_civil(year, 1, 1);
        let (period, bypass) = match self.period {
            Period::Days(days) => return since >= i64::from(days),
            Period::Daily => (1, 1),
            Period::Weekly => (7, 7),
            Period::Monthly => {
                let (year, month) = if date.month == 1 {
                    (date.year - 1, 12)
                } else {
                    (date.year, date.month - 1)
                };
                (month_days(year, month), month_days(date.year, date.month))
            }
            Period::Yearly => (year_days(date.year - 1), year_days(date.year)),
        };
        since >= period || since == bypass
    }

    /// Whether a job timed at `at` runs in its run: its hour within the
    /// hours, and the preferred one when given.
    fn in_hours(&self, at: i64) -> bool {
        let hour = (at.div_euclid(MICROS_PER_SECOND).rem_euclid(SECONDS_PER_DAY) / 3600) as u32;
        let preferred = self
            .preferred_hour
            .is_none_or(|preferred| preferred == hour);
        let range = self
            .hours
            .is_none_or(|(first, last)| first <= hour && hour < last);
        preferred && range
    }

    /// The run's draws on `day` at `hour`: RANDOM_DELAY's minutes and how
    /// late the run starts, in microseconds. The same for every job of the
    /// machine.
    fn draw(&self, day: i64, hour: u32) -> (i64, i64) {
        if !self.draws_at_random() {
            return (0, 0);
        }
        let run = (day * 24 + i64::from(hour)) as u64;
        let mut rng = seeded(
            self.seed,
            RUN_DRAWS.indexed(self.machine ^ run.wrapping_mul(0xd6e8_feb8_6659_fd93)),
        );
        let minutes = rng.random_range(0..=i64::from(self.random_delay));
        let late = if self.run_delay > 0 {
            rng.random_range(0..self.run_delay)
        } else {
            0
        };
        (minutes, late)
    }
}

/// A period: whole days, or one of the names cronie compares by prefix
/// (`strncmp`), so `@monthly-ish` reads as `@monthly`.
fn read_period(text: &str) -> Result<Period, Refusal> {
    if !text.starts_with('@') {
        return whole(text, "spec", i32::MAX as u32).map(Period::Days);
    }
    let named = [
        ("@monthly", Period::Monthly),
        ("@yearly", Period::Yearly),
        ("@annually", Period::Yearly),
        ("@annualy", Period::Yearly),
        ("@daily", Period::Daily),
        ("@weekly", Period::Weekly),
    ];
    named
        .iter()
        .find(|(name, _)| text.starts_with(name))
        .map(|(_, period)| *period)
        .ok_or_else(|| {
            Refusal::new(
                "spec",
                format!(
                    "\"{}\" is not a period anacron names: @daily, @weekly, @monthly, @yearly",
                    shorten(text)
                ),
            )
        })
}

/// A whole number from 0 to `most`, as `field`.
fn whole(text: &str, field: &str, most: u32) -> Result<u32, Refusal> {
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|&value| value <= most)
        .ok_or_else(|| {
            Refusal::new(
                field,
                format!(
                    "\"{}\" is not a whole number from 0 to {most}",
                    shorten(text)
                ),
            )
        })
}

/// `START_HOURS_RANGE`'s `A-B`, `A` ≤ `B` ≤ 24.
fn read_hours(text: &str) -> Result<(u32, u32), Refusal> {
    let refused = || {
        Refusal::new(
            "Hours",
            format!(
                "\"{}\" is not hours A-B with A ≤ B ≤ 24, such as 3-22",
                shorten(text)
            ),
        )
    };
    let (first, last) = text.trim().split_once('-').ok_or_else(refused)?;
    let first = whole(first, "Hours", 24).map_err(|_| refused())?;
    let last = whole(last, "Hours", 24).map_err(|_| refused())?;
    if first > last {
        return Err(refused());
    }
    Ok((first, last))
}

/// `Runs=A-B:MM`: anacron runs at minute `MM` of each hour `A` to `B`.
fn read_runs(text: &str) -> Result<RunTimes, Refusal> {
    let refused = || {
        Refusal::new(
            "Runs",
            format!(
                "\"{}\" is not hours and a minute A-B:MM, such as 0-23:01 or 7-23:30",
                shorten(text)
            ),
        )
    };
    let (hours, minute) = text.trim().split_once(':').ok_or_else(refused)?;
    let (first, last) = hours.split_once('-').unwrap_or((hours, hours));
    let first = whole(first, "Runs", 23).map_err(|_| refused())?;
    let last = whole(last, "Runs", 23).map_err(|_| refused())?;
    let minute = whole(minute, "Runs", 59).map_err(|_| refused())?;
    if first > last {
        return Err(refused());
    }
    Ok(RunTimes {
        first,
        last,
        minute,
    })
}

/// `Last=YYYY-MM-DD`, the day number of a job's timestamp.
fn read_day(text: &str) -> Result<i64, Refusal> {
    let date: jiff::civil::Date = text.trim().parse().map_err(|_| {
        Refusal::new(
            "Last",
            format!("\"{}\" is not a date such as 2026-01-01", shorten(text)),
        )
    })?;
    Ok(days_from_civil(
        i64::from(date.year()),
        date.month() as u32,
        date.day() as u32,
    ))
}
