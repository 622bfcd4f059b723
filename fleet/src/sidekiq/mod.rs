//! sidekiq-cron: a job's cron time as fugit reads it, then the first poll
//! of the Sidekiq process's cron poller that finds it.
//!
//! A job's `cron` is read by fugit ([`fugit`], fugit 1.5.2's
//! `Fugit::Cron`), seconds included; a string without a zone runs on the
//! process's local clock, UTC here (append the zone, as fugit allows,
//! for another). fugit's natural language ("every day at noon"), which
//! sidekiq-cron also takes, is not read.
//!
//! No poller runs at the cron time. sidekiq-cron 1.8.0's
//! `Sidekiq::Cron::Poller` (`lib/sidekiq/cron/poller.rb`) is Sidekiq's
//! `Scheduled::Poller` with its own `poll_interval_average`, the
//! `cron_poll_interval` option (30 s unless set, `Launcher`'s
//! `DEFAULT_POLL_INTERVAL`); between polls it sleeps Sidekiq 6.4.1's
//! `random_poll_interval` (`lib/sidekiq/scheduled.rb`): `avg · rand +
//! avg / 2`, uniform on `[avg/2, 3·avg/2]`, while the cluster has fewer
//! than 10 processes. At each poll, `Job#test_and_enque_for_time!`
//! (`lib/sidekiq/cron/job.rb`) asks fugit's `previous_time` for the latest
//! cron time a whole second or more before the poll, and enqueues the job
//! when that time is at most 60 s old and later than the job's last
//! enqueue (`not_past_scheduled_time?`, `not_enqueued_after?`). So a start
//! is the first poll at least 1 s after its time; a time a poll gap longer
//! than a minute steps over is never run, and of several times between
//! two polls only the last is.
//!
//! The polls of each process (`Process=`) are drawn from the seed, in
//! stretches of an hour, each starting in equilibrium (its first poll a
//! residual life away), so jobs of one process share their polls within
//! the hour and every start's delay has the law of a residual life:
//! density `(1 − F(x)) / avg` for a gap's distribution `F`. Left out: a
//! cluster of several processes (each polls, the first wins; with 10 or
//! more the sleep is `avg · rand`), the time Redis takes, and a process's
//! start. The vectors in `fleet/tests/data/sidekiq_starts.tsv` come from the
//! real fugit and sidekiq-cron, polled against a Redis kept in memory.

pub mod fugit;
mod grammar;

use std::sync::Arc;

use rand::RngExt;
use stampede_core::field::shorten;
use stampede_core::rng::{Purpose, seeded};

use crate::span_cache::SpanCache;

use crate::line::{FleetLine, Refusal};
use crate::time::{MICROS_PER_SECOND, Window};
use fugit::FugitCron;

/// The option keys a `sidekiq-cron` line reads.
pub const OPTION_KEYS: [&str; 2] = ["Poll", "Process"];

/// sidekiq-cron's `cron_poll_interval` when none is set, in seconds.
pub const DEFAULT_POLL_SECONDS: u32 = 30;

/// The longest average poll read: ten minutes, so a start lies within the
/// hour after the stretch of polls that placed it.
pub const MOST_POLL_SECONDS: u32 = 600;

/// How old a cron time may be when a poll enqueues it, in seconds
/// (`not_past_scheduled_time?`).
const LATEST_ENQUEUE: i64 = 60;

/// The stretch of time one draw of a process's polls covers, in seconds.
const STRETCH: i64 = 3600;

/// The stream family each process's polls are drawn from.
const POLL_DRAWS: Purpose = Purpose::new("fleet.sidekiq.polls");

/// A job read from a `sidekiq-cron` line.
#[derive(Clone, Debug, PartialEq)]
pub struct SidekiqJob {
    /// Shared, so the job redrawn under other seeds does not copy it.
    pub cron: Arc<FugitCron>,
    /// The poller's average sleep (`cron_poll_interval`), in seconds.
    pub poll_seconds: u32,
    /// The hash of the process whose poller enqueues it.
    process: u64,
    seed: u64,
    /// The cron's times in `(after, until]` (Unix seconds, ascending)
    /// for the first span asked for: they do not depend on the seed, so
    /// the job redrawn under other seeds shares them.
    times: SpanCache<Vec<i64>>,
}

impl SidekiqJob {
    /// Reads `line`'s cron string and options; `seed` draws the polls.
    pub fn read(line: &FleetLine, seed: u64) -> Result<Self, Refusal> {
        let poll_seconds = match line.options.own("Poll") {
            None => DEFAULT_POLL_SECONDS,
            Some(text) => read_poll(text)?,
        };
        Ok(Self {
            cron: Arc::new(fugit::read(&line.spec)?),
            poll_seconds,
            process: stampede_core::hash::fnv1a_64(
                line.options.own("Process").unwrap_or_default().as_bytes(),
            ),
            seed,
            times: SpanCache::default(),
        })
    }

    /// The job with its process's polls drawn from `seed`.
    pub fn redrawn(&self, seed: u64) -> Self {
        Self {
            seed,
            ..self.clone()
        }
    }

    /// How each start's delay is drawn, in words.
    pub fn law(&self) -> String {
        let average = self.poll_seconds;
        format!(
            "each start is the first poll of its process's cron poller 1 s or more after its \
             time; the poller sleeps {average}·rand + {} s between polls (uniform {} to {} s, \
             Sidekiq's random_poll_interval), so the delay is 1 s plus the residual life of \
             those sleeps, density (1 − F(x))/{average} s: flat to {} s, then falling to 0 at \
             {} s; the polls are drawn from the seed, and a real process polls at its own",
            f64::from(average) / 2.0,
            f64::from(average) / 2.0,
            f64::from(average) * 1.5,
            f64::from(average) / 2.0,
            f64::from(average) * 1.5,
        )
    }

    /// The longest a start may come after its time, in seconds: a second,
    /// then the longest sleep.
    fn reach(&self) -> i64 {
        1 + i64::from(self.poll_seconds * 3).div_euclid(2) + 1
    }

    /// The polls of the stretch of hour `stretch`, from a warm-up before
    /// it until past the reach after it, in Unix microseconds.
    fn polls(&self, stretch: i64) -> impl Iterator<Item = i64> + use<> {
        let index = self.process ^ (stretch as u64).wrapping_mul(0xd6e8_feb8_6659_fd93);
        let mut draws = seeded(self.seed, POLL_DRAWS.indexed(index));
        let average = f64::from(self.poll_seconds) * MICROS_PER_SECOND as f64;
        let (low, high) = (average / 2.0, average * 1.5);
        // The first poll a residual life in: a gap drawn by its length
        // (a size-biased uniform), then a point uniform within it.
        let gap = (low * low + draws.random::<f64>() * (high * high - low * low)).sqrt();
        let first = (stretch * STRETCH - 2 * self.reach()) * MICROS_PER_SECOND
            + (draws.random::<f64>() * gap) as i64;
        let end = (stretch * STRETCH + STRETCH + self.reach()) * MICROS_PER_SECOND;
        std::iter::successors(Some(first), move |at| {
            Some(at + (average * draws.random::<f64>() + low) as i64)
        })
        .take_while(move |&at| at <= end)
    }

    /// Appends each start in `window`, in order, while `out` holds fewer
    /// than `most`. Returns whether a start was left out because `out`
    /// was full.
    pub fn push_starts(&self, window: Window, out: &mut Vec<i64>, most: usize) -> bool {
        let before = out.len();
        let first = window.from.div_euclid(MICROS_PER_SECOND) - self.reach();
        let last = (window.end - 1).div_euclid(MICROS_PER_SECOND);
        // The first stretch's polls look back a warm-up and a minute.
        let after = first - 3 * self.reach() - LATEST_ENQUEUE - 1;
        let times = self
            .times
            .get((after, last), || self.cron.times_between(after, last));
        let times = &times[..];
        let mut next = times.partition_point(|&time| time < first);
        let mut stop = None;
        while let Some(&time) = times.get(next) {
            let stretch = time.div_euclid(STRETCH);
            if stop.is_some_and(|stop| stretch > stop) {
                break;
            }
            let span = stretch * STRETCH..stretch * STRETCH + STRETCH;
            let in_span = times[next..].partition_point(|&time| time < span.end);
            let last_in_span = times[next + in_span - 1];
            enqueue_times(times, self.polls(stretch), last_in_span, |poll, time| {
                if span.contains(&time) && window.from <= poll && poll < window.end {
                    out.push(poll);
                }
            });
            // A later stretch's starts come after all of this one's but
            // the next's: the reach is shorter than a stretch.
            if stop.is_none() && out.len() - before > most {
                stop = Some(stretch + 1);
            }
            next += in_span;
        }
        out[before..].sort_unstable();
        let full = out.len() - before > most;
        out.truncate(before + most);
        full
    }

    /// Why the job never runs from Unix second `after` on, when no time
    /// within 400 years (the calendar's cycle) matches its cron.
    pub fn never_runs(&self, after: i64) -> Option<String> {
        let until = (after + 146_097 * 86_400).min(crate::time::LATEST_FROM);
        self.cron.next_match(after, until).is_none().then(|| {
            "no time matches its cron, so fugit finds none and sidekiq-cron enqueues nothing".into()
        })
    }
}

/// A `Poll=` value: whole seconds from 1 to [`MOST_POLL_SECONDS`].
fn read_poll(text: &str) -> Result<u32, Refusal> {
    match text.trim().parse::<u32>() {
        Ok(0) => Err(Refusal::new(
            "Poll",
            "0 turns sidekiq-cron's poller off (cron_poll_interval 0), so nothing is enqueued",
        )),
        Ok(seconds) if seconds <= MOST_POLL_SECONDS => Ok(seconds),
        _ => Err(Refusal::new(
            "Poll",
            format!(
                "\"{}\" is not whole seconds from 1 to {MOST_POLL_SECONDS} (cron_poll_interval)",
                shorten(text)
            ),
        )),
    }
}

/// What sidekiq-cron's poller enqueues at each of `polls` (Unix
/// microseconds, ascending): `each(poll, time)` for each poll that
/// enqueues, with the cron time it enqueues for.
pub fn enqueues(
    cron: &FugitCron,
    polls: impl IntoIterator<Item = i64>,
    each: impl FnMut(i64, i64),
) {
    let polls: Vec<i64> = polls.into_iter().collect();
    let (Some(&first), Some(&last)) = (polls.first(), polls.last()) else {
        return;
    };
    let times = cron.times_between(
        first.div_euclid(MICROS_PER_SECOND) - LATEST_ENQUEUE - 1,
        last.div_euclid(MICROS_PER_SECOND) - 1,
    );
    enqueue_times(&times, polls, i64::MAX, each);
}

/// [`enqueues`] with the cron's `times` (Unix seconds, ascending) given,
/// all of those the polls can enqueue among them, up to the time `until`:
/// no poll after it can enqueue one of them, so none is drawn.
fn enqueue_times(
    times: &[i64],
    polls: impl IntoIterator<Item = i64>,
    until: i64,
    mut each: impl FnMut(i64, i64),
) {
    let mut past = None;
    let mut last_enqueue = None;
    for poll in polls {
        // fugit's `previous_time` looks from a second before the poll's
        // whole second, back at most LATEST_ENQUEUE seconds; the job's
        // last enqueue keeps whole seconds.
        let second = poll.div_euclid(MICROS_PER_SECOND);
        if second > until.saturating_add(LATEST_ENQUEUE + 1) {
            break;
        }
        let mut index =
            past.unwrap_or_else(|| times.partition_point(|&time| time < second - LATEST_ENQUEUE));
        while index < times.len() && times[index] < second {
            index += 1;
        }
        past = Some(index);
        let latest = index
            .checked_sub(1)
            .map(|index| times[index])
            .filter(|&time| time > second - LATEST_ENQUEUE - 1);
        if let Some(time) = latest
            && last_enqueue.is_none_or(|last| last < time)
        {
            last_enqueue = Some(second);
            each(poll, time);
        }
    }
}
