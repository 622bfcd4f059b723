//! One line's plan: its spec and options read once, by its system's rules,
//! into something that lists its starts over any window.
//!
//! Every system answers the same two questions: which option keys does a
//! line of it read ([`option_keys`]), and where does each start of a line
//! fall ([`LinePlan::push_starts`]). Starts are Unix microseconds, the
//! finest step any of the schedulers here places a start at.

use crate::line::{FleetLine, Refusal, System};
use crate::time::{MICROS_PER_SECOND, UTC_NAMES, Window};
use crate::zoned::{self, ZoneClock, ZonedCron};
use crate::{
    anacron, apscheduler, cron, croniter, eventbridge, jenkins, prometheus, puppet, quartz,
    sidekiq, spring, systemd, temporal,
};

/// A line read into the schedule its system places its starts by.
#[derive(Clone, Debug, PartialEq)]
pub enum LinePlan {
    /// Cron, Jenkins and Puppet lines: minutes of the UTC calendar.
    Minutes(cron::Schedule),
    /// croniter lines: minutes of the UTC calendar, each at its seconds.
    Croniter(croniter::CroniterSchedule),
    /// Cron lines with a time zone: minutes of a local clock.
    Zoned(Box<ZonedCron>),
    /// Cron lines with cronie's `RANDOM_DELAY=`: the line's starts, each
    /// the daemon's one delay later.
    Delayed(Box<LinePlan>, cron::RandomDelay),
    /// systemd lines: calendar elapses, delayed as the timer delays them.
    Systemd(systemd::SystemdTimer),
    /// Temporal lines: interval or calendar times, each delayed by its
    /// hashed jitter.
    Temporal(temporal::TemporalSchedule),
    /// Prometheus lines: every interval, at the target's hashed offset.
    Prometheus(prometheus::PrometheusScrapes),
    /// Quartz lines: seconds of the UTC calendar, as Quartz searches them.
    Quartz(quartz::QuartzCron),
    /// Spring lines: seconds of the UTC calendar, as Spring searches them.
    Spring(spring::SpringCron),
    /// EventBridge Scheduler lines: cron or rate times, each invoked
    /// within its window.
    EventBridge(Box<eventbridge::EventBridgeSchedule>),
    /// anacron jobs: due every so many days, started by an hourly run.
    Anacron(anacron::AnacronJob),
    /// APScheduler lines: cron or interval triggers, each start jittered
    /// as APScheduler 3.x draws it.
    Apscheduler(Box<apscheduler::ApschedulerJob>),
    /// sidekiq-cron lines: fugit's times, each enqueued at the first poll
    /// of its process's poller after it.
    Sidekiq(Box<sidekiq::SidekiqJob>),
}

/// The option keys lines of `system` read, besides `Duration` and `Weight`.
pub fn option_keys(system: System) -> &'static [&'static str] {
    match system {
        System::Cron => &["TZ", "CRON_TZ", "RANDOM_DELAY"],
        System::Puppet => &["FIPS"],
        System::Systemd => &systemd::OPTION_KEYS,
        System::Temporal => &["Jitter", "Namespace"],
        System::Prometheus => &prometheus::OPTION_KEYS,
        System::Quartz | System::Spring => &["Zone"],
        System::EventBridge => &eventbridge::OPTION_KEYS,
        System::Anacron => &anacron::OPTION_KEYS,
        System::Apscheduler => &apscheduler::OPTION_KEYS,
        System::SidekiqCron => &sidekiq::OPTION_KEYS,
        System::Jenkins | System::Croniter => &[],
    }
}

/// The zone a Java scheduler's line runs in (`Zone=`), `None` for UTC.
fn java_zone(line: &FleetLine) -> Result<Option<jiff::tz::TimeZone>, Refusal> {
    match line.options.own("Zone") {
        Some(name) if !UTC_NAMES.contains(&name) => zoned::time_zone(name, "Zone").map(Some),
        _ => Ok(None),
    }
}

impl LinePlan {
    /// Reads `line` by its system's rules. `seed` draws the delays a real
    /// scheduler would draw at random.
    pub fn read(line: &FleetLine, seed: u64) -> Result<Self, Refusal> {
        let spec =
            |refusal: stampede_core::error::InvalidInput| Refusal::new("spec", refusal.to_string());
        match line.system {
            System::Cron => {
                let plan = Self::read_cron(line)?;
                match line.options.own("RANDOM_DELAY") {
                    Some(minutes) => cron::RandomDelay::read(minutes, seed)
                        .map(|delay| Self::Delayed(Box::new(plan), delay)),
                    None => Ok(plan),
                }
            }
            // Jenkins hashes the job's full name into its `H` fields.
            System::Jenkins => jenkins::schedule(&line.id, &line.spec)
                .map(Self::Minutes)
                .map_err(spec),
            // croniter hashes the id given as `hash_id` into its `H` fields.
            System::Croniter => croniter::read(&line.id, &line.spec)
                .map(Self::Croniter)
                .map_err(spec),
            // Puppet evaluates `fqdn_rand` for the node and writes the number.
            System::Puppet => puppet::read_line(line).map(Self::Minutes),
            System::Systemd => systemd::SystemdTimer::read(line, seed).map(Self::Systemd),
            System::Temporal => temporal::TemporalSchedule::read(
                &line.id,
                &line.spec,
                line.options.own("Jitter"),
                line.options.own("Namespace"),
            )
            .map(Self::Temporal),
            // The offset hashes the target, its URL and the server's name.
            System::Prometheus => {
                prometheus::read_target(line).map(|target| Self::Prometheus(target.scrapes))
            }
            System::Quartz => {
                let cron = quartz::read(&line.spec).map_err(spec)?;
                Ok(Self::Quartz(match java_zone(line)? {
                    Some(zone) => cron.in_zone(zone),
                    None => cron,
                }))
            }
            System::Spring => {
                let cron = spring::read(&line.spec).map_err(spec)?;
                Ok(Self::Spring(match java_zone(line)? {
                    Some(zone) => cron.in_zone(zone),
                    None => cron,
                }))
            }
            System::EventBridge => eventbridge::EventBridgeSchedule::read(line, seed)
                .map(|schedule| Self::EventBridge(Box::new(schedule))),
            System::Anacron => anacron::AnacronJob::read(line, seed).map(Self::Anacron),
            System::Apscheduler => apscheduler::ApschedulerJob::read(line, seed)
                .map(|job| Self::Apscheduler(Box::new(job))),
            System::SidekiqCron => {
                sidekiq::SidekiqJob::read(line, seed).map(|job| Self::Sidekiq(Box::new(job)))
            }
        }
    }

    /// A cron line's schedule, on its zone's clock when it gives one.
    fn read_cron(line: &FleetLine) -> Result<Self, Refusal> {
        match (line.options.own("TZ"), line.options.own("CRON_TZ")) {
            (Some(_), Some(_)) => Err(Refusal::new(
                "CRON_TZ",
                "give TZ= (the machine's clock) or CRON_TZ= (the job's zone), not both",
            )),
            (None | Some("UTC" | "Etc/UTC"), None) | (None, Some("UTC" | "Etc/UTC")) => {
                cron::parse(&line.spec)
                    .map(Self::Minutes)
                    .map_err(|refusal| Refusal::new("spec", refusal.to_string()))
            }
            (Some(zone), None) => ZonedCron::new(&line.spec, zone, ZoneClock::Machine)
                .map(|zoned| Self::Zoned(Box::new(zoned))),
            (None, Some(zone)) => ZonedCron::new(&line.spec, zone, ZoneClock::Job)
                .map(|zoned| Self::Zoned(Box::new(zoned))),
        }
    }

    /// Appends each start in `window`, in order, while `out` holds fewer
    /// than `most`. Returns whether a start was left out because `out` was
    /// full.
    pub fn push_starts(&self, window: Window, out: &mut Vec<i64>, most: usize) -> bool {
        match self {
            Self::Minutes(schedule) => schedule.push_starts(window, out, most),
            Self::Croniter(schedule) => schedule.push_starts(window, out, most),
            Self::Zoned(zoned) => zoned.push_starts(window, out, most),
            Self::Delayed(plan, delay) => {
                let before = out.len();
                let full = plan.push_starts(due_window(window, delay), out, most);
                for at in &mut out[before..] {
                    *at += delay.minutes() * 60 * MICROS_PER_SECOND;
                }
                full
            }
            Self::Systemd(timer) => timer.push_starts(window, out, most),
            Self::Temporal(schedule) => schedule.push_starts(window, out, most),
            Self::Prometheus(scrapes) => scrapes.push_starts(window, out, most),
            Self::Quartz(cron) => cron.push_starts(window, out, most),
            Self::Spring(cron) => cron.push_starts(window, out, most),
            Self::EventBridge(schedule) => schedule.push_starts(window, out, most),
            Self::Anacron(job) => job.push_starts(window, out, most),
            Self::Apscheduler(job) => job.push_starts(window, out, most),
            Self::Sidekiq(job) => job.push_starts(window, out, most),
        }
    }

    /// Why the line never runs from `after` (Unix seconds) on, when it
    /// never does: for cron-like lines, from their fields alone ("February
    /// has no 30th"); for systemd and Temporal calendars, from a search up
    /// to where each stops looking.
    pub fn never_runs(&self, after: i64) -> Option<String> {
        let found = match self {
            Self::Minutes(schedule) => return schedule.never_runs(),
            Self::Croniter(schedule) => return schedule.minutes.never_runs(),
            Self::Zoned(zoned) => return zoned.schedule().never_runs(),
            Self::Delayed(plan, _) => return plan.never_runs(after),
            Self::Prometheus(_) => return None,
            Self::Quartz(cron) => return cron.never_runs(after),
            Self::Spring(cron) => return cron.never_runs(after),
            Self::EventBridge(schedule) => return schedule.never_runs(after),
            Self::Anacron(job) => return job.never_runs(),
            Self::Apscheduler(job) => return job.never_runs(after),
            Self::Sidekiq(job) => return job.never_runs(after),
            Self::Systemd(timer) => timer.calendar.next_elapse(after * MICROS_PER_SECOND),
            Self::Temporal(schedule) => schedule.first_nominal(after),
        };
        let (last, system) = self.last_searched()?;
        found.is_none().then(|| {
            format!(
                "no date from {} to the end of {}, where {system} stops looking, matches it",
                &crate::time::format(after)[..10],
                &crate::time::format(last)[..4]
            )
        })
    }

    /// Why the line starts no more after the last of `starts` (Unix
    /// microseconds), when its scheduler's search from there never ends.
    pub fn stops_searching(&self, starts: &[i64]) -> Option<String> {
        match self {
            Self::Quartz(cron) => cron.stops_searching(starts),
            Self::Spring(cron) => cron.stops_searching(starts),
            Self::Apscheduler(job) => job.stops_searching(starts),
            _ => None,
        }
    }

    /// What the line's starts take for granted that its text does not
    /// say: when an APScheduler interval's scheduler started, or when an
    /// EventBridge rate schedule was created.
    pub fn assumption(&self) -> Option<String> {
        match self {
            Self::Apscheduler(job) => job.assumption(),
            Self::EventBridge(schedule) => schedule.assumption(),
            _ => None,
        }
    }

    /// The last second whose starts the line's system searches for, and
    /// the system, where it stops before the year 9999: Temporal's
    /// calendar ends with 2100 (`maxCalendarYear`), systemd's with 2199.
    pub fn last_searched(&self) -> Option<(i64, &'static str)> {
        match self {
            Self::Temporal(_) => Some((temporal::calendar::LAST_NOMINAL, "Temporal")),
            Self::Systemd(_) => Some((systemd::calendar::LAST_SECOND, "systemd")),
            Self::Delayed(plan, _) => plan.last_searched(),
            _ => None,
        }
    }

    /// The span `[start, end)` a start given at `start` falls in when the
    /// line does not place it to the microsecond: a systemd timer without
    /// `BootID=` starts somewhere within its `AccuracySec=`. `None` when
    /// the start is exact.
    pub fn start_window(&self, start: i64) -> Option<Window> {
        match self {
            Self::Systemd(timer) => timer.start_window(start),
            Self::Delayed(..)
            | Self::Minutes(_)
            | Self::Croniter(_)
            | Self::Zoned(_)
            | Self::Temporal(_)
            | Self::Prometheus(_)
            | Self::Quartz(_)
            | Self::Spring(_)
            | Self::EventBridge(_)
            | Self::Anacron(_)
            | Self::Apscheduler(_) => None,
            Self::Sidekiq(_) => None,
        }
    }

    /// What changes of the line's time zone within `window` do to its
    /// starts, a sentence for each change that skips or repeats one.
    pub fn zone_change_notices(&self, window: Window) -> Vec<String> {
        match self {
            Self::Zoned(zoned) => zoned.zone_change_notices(window),
            Self::Delayed(plan, delay) => plan.zone_change_notices(due_window(window, delay)),
            Self::Minutes(_)
            | Self::Croniter(_)
            | Self::Systemd(_)
            | Self::Temporal(_)
            | Self::Prometheus(_)
            | Self::Quartz(_)
            | Self::Spring(_)
            | Self::EventBridge(_)
            | Self::Anacron(_)
            | Self::Apscheduler(_) => Vec::new(),
            Self::Sidekiq(_) => Vec::new(),
        }
    }

    /// The plan with its delays drawn from `seed`, as [`Self::read`] with
    /// that seed gives it; `None` when it draws none.
    pub fn redrawn(&self, seed: u64) -> Option<Self> {
        match self {
            Self::Systemd(timer) if timer.draws_at_random() => {
                Some(Self::Systemd(timer.redrawn(seed)))
            }
            Self::Delayed(plan, delay) => Some(Self::Delayed(plan.clone(), delay.redrawn(seed))),
            Self::EventBridge(schedule) => {
                Some(Self::EventBridge(Box::new(schedule.redrawn(seed))))
            }
            Self::Apscheduler(job) if job.drawn_delays().is_some() => {
                Some(Self::Apscheduler(Box::new(job.redrawn(seed))))
            }
            Self::Anacron(job) if job.draws_at_random() => Some(Self::Anacron(job.redrawn(seed))),
            Self::Sidekiq(job) => Some(Self::Sidekiq(Box::new(job.redrawn(seed)))),
            _ => None,
        }
    }

    /// Whether the starts depend on delays drawn from the seed, where a
    /// real machine draws its own.
    pub fn draws_at_random(&self) -> bool {
        self.drawn_delays().is_some()
    }

    /// The five-field cron schedule under a cron-like line (Vixie cron,
    /// Jenkins, Puppet, croniter, with a zone or a delay), when it has one.
    pub fn cron_schedule(&self) -> Option<&cron::Schedule> {
        match self {
            Self::Minutes(schedule) => Some(schedule),
            Self::Croniter(schedule) => Some(&schedule.minutes),
            Self::Zoned(zoned) => Some(zoned.schedule()),
            Self::Delayed(plan, _) => plan.cron_schedule(),
            _ => None,
        }
    }

    /// What the starts owe to delays drawn from the seed, where a real
    /// machine draws its own; `None` when they owe nothing.
    pub fn drawn_delays(&self) -> Option<String> {
        match self {
            Self::Systemd(timer) => timer.draws_at_random().then(|| {
                "its delays were drawn from the seed; a real machine draws new ones at every \
                 elapse and boot"
                    .into()
            }),
            Self::Delayed(_, delay) => Some(format!(
                "each start is {} min late: RANDOM_DELAY={} times a scale of {}% drawn from \
                 the seed; cronie draws that scale once when the daemon starts and every job \
                 shares it, so each restart moves all the delays together",
                delay.minutes(),
                delay.most_minutes,
                (delay.scale * 100.0) as u32
            )),
            Self::EventBridge(schedule) => Some(schedule.law()),
            Self::Anacron(job) => job.draws_at_random().then(|| job.law()),
            Self::Apscheduler(job) => job.drawn_delays(),
            Self::Sidekiq(job) => Some(job.law()),
            Self::Minutes(_)
            | Self::Croniter(_)
            | Self::Zoned(_)
            | Self::Temporal(_)
            | Self::Prometheus(_)
            | Self::Quartz(_)
            | Self::Spring(_) => None,
        }
    }
}

/// The span in which a line delayed by `delay` is due for its starts to
/// fall in `window`.
fn due_window(window: Window, delay: &cron::RandomDelay) -> Window {
    let by = delay.minutes() * 60 * MICROS_PER_SECOND;
    Window {
        from: window.from - by,
        end: window.end - by,
    }
}
