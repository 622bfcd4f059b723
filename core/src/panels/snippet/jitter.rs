//! Jitter snippets: the panel's delay as six schedulers write it.
//!
//! Delays are whole seconds here, as every one of these systems counts
//! them: a uniform delay in [min, max) minutes is a whole number of seconds
//! from ⌊60·min⌉ to ⌊60·max⌉ − 1. The uniform and fixed delays are exact;
//! the other shapes are drawn by the language's own generator with the same
//! formula the panel uses (an exponential cut at max by inversion, a normal
//! clipped to [min, max]), so they match in distribution, not draw by draw.
//!
//! A shell has no good random source of its own: `$RANDOM` is bash's, not
//! `sh`'s (cron runs `/bin/sh`), and reaches only 32,767. The shell lines
//! use coreutils' `shuf` for uniform delays and four bytes of
//! `/dev/urandom` for the other shapes; awk's own `srand()` seeds from the
//! clock's second, which would give every machine starting in that second
//! the same delay.

use crate::clock::ClockTime;
use crate::jitter::{JitterParams, JitterStrategy};
use crate::units::clock_with_seconds;

use super::Snippet;

/// The snippets for the Jitter panel's strategy and window: crontab,
/// systemd, Sidekiq, Active Job, Celery and a Kubernetes CronJob.
pub fn snippets(params: &JitterParams) -> Vec<Snippet> {
    let delay = Delay::of(params);
    let start = params.start;
    vec![
        crontab(&delay, start),
        systemd(&delay, start),
        sidekiq(&delay),
        active_job(&delay),
        celery(&delay),
        kubernetes(&delay, start),
    ]
}

/// A crontab's minute and hour fields for `start`: `0 2 * * *`.
fn cron_schedule(start: ClockTime) -> String {
    format!("{} {} * * *", start.minute(), start.hour())
}

/// A delay in whole seconds, in the shape the panel draws.
enum Delay {
    None,
    Fixed(u64),
    /// [min, max), max exclusive.
    Uniform {
        min: u64,
        max: u64,
    },
    /// Mean m, cut at max.
    Exponential {
        mean: u64,
        max: u64,
    },
    Normal {
        mean: u64,
        sd: u64,
        min: u64,
        max: u64,
    },
    /// Two normal peaks at a quarter and three quarters of [min, max].
    TwoPeak {
        sd: u64,
        min: u64,
        max: u64,
    },
}

/// Minutes as whole seconds.
fn seconds(minutes: f64) -> u64 {
    (minutes * 60.0).round().max(0.0) as u64
}

impl Delay {
    fn of(params: &JitterParams) -> Self {
        let (min, max) = (seconds(params.min_delay), seconds(params.max_delay));
        // The panel keeps max above min; whole seconds keep it so.
        let max = max.max(min + 1);
        match params.strategy {
            JitterStrategy::NoDelay => Self::None,
            JitterStrategy::Fixed => Self::Fixed(seconds(params.fixed_delay)),
            JitterStrategy::Uniform => Self::Uniform { min, max },
            JitterStrategy::Exponential if seconds(params.mean_delay) == 0 => Self::Fixed(0),
            JitterStrategy::Exponential => Self::Exponential {
                mean: seconds(params.mean_delay),
                max,
            },
            JitterStrategy::Normal => Self::Normal {
                mean: seconds(params.mean_delay),
                sd: seconds(params.sd).max(1),
                min,
                max,
            },
            JitterStrategy::TwoPeak => Self::TwoPeak {
                sd: seconds(params.sd).max(1),
                min,
                max,
            },
        }
    }

    /// A shell command that prints the delay in whole seconds, or `None`
    /// when there is none.
    fn shell(&self) -> Option<String> {
        // Four random bytes as a fraction u in [0, 1), for awk.
        const U: &str = "-v u=\"$(od -An -N4 -tu4 /dev/urandom)\"";
        let awk = |program: String| format!("awk {U} 'BEGIN {{ u /= 4294967296; {program} }}'");
        match *self {
            Self::None => None,
            Self::Fixed(delay) => Some(format!("echo {delay}")),
            Self::Uniform { min, max } => Some(format!("shuf -i {min}-{} -n 1", max - 1)),
            Self::Exponential { mean, max } => Some(awk(format!(
                "print int(-{mean} * log(1 - u * (1 - exp(-{max} / {mean}))))"
            ))),
            Self::Normal { mean, sd, min, max } => Some(awk(format!(
                "srand(u * 2147483647); z = sqrt(-2 * log(1 - u)) * cos(6.283185307 * rand()); \
                 d = {mean} + {sd} * z; print int(d < {min} ? {min} : d > {max} ? {max} : d)"
            ))),
            Self::TwoPeak { sd, min, max } => {
                let (early, late) = peaks(min, max);
                Some(awk(format!(
                    "srand(u * 2147483647); z = sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand()); \
                     d = (u < 0.5 ? {early} : {late}) + {sd} * z; \
                     print int(d < {min} ? {min} : d > {max} ? {max} : d)"
                )))
            }
        }
    }

    /// A Ruby expression for the delay in seconds.
    fn ruby(&self) -> String {
        match *self {
            Self::None => "0".into(),
            Self::Fixed(delay) => delay.to_string(),
            Self::Uniform { min, max } => offset(min, format!("rand({})", max - min)),
            Self::Exponential { mean, max } => {
                format!("-{mean} * Math.log(1 - rand * (1 - Math.exp(-{max}.0 / {mean})))")
            }
            Self::Normal { mean, sd, min, max } => format!(
                "({mean} + {sd} * Math.sqrt(-2 * Math.log(1 - rand)) * Math.cos(2 * Math::PI * rand)).clamp({min}, {max})"
            ),
            Self::TwoPeak { sd, min, max } => {
                let (early, late) = peaks(min, max);
                format!(
                    "([{early}, {late}].sample + {sd} * Math.sqrt(-2 * Math.log(1 - rand)) * Math.cos(2 * Math::PI * rand)).clamp({min}, {max})"
                )
            }
        }
    }

    /// A Python expression for the delay in seconds, after the import
    /// line it needs.
    fn python(&self) -> (&'static str, String) {
        let expression = match *self {
            Self::None => "0".into(),
            Self::Fixed(delay) => delay.to_string(),
            Self::Uniform { min, max } => format!("random.randrange({min}, {max})"),
            Self::Exponential { mean, max } => {
                format!("-{mean} * math.log(1 - random.random() * (1 - math.exp(-{max} / {mean})))")
            }
            Self::Normal { mean, sd, min, max } => {
                format!("min(max(random.gauss({mean}, {sd}), {min}), {max})")
            }
            Self::TwoPeak { sd, min, max } => {
                let (early, late) = peaks(min, max);
                format!(
                    "min(max(random.gauss(random.choice([{early}, {late}]), {sd}), {min}), {max})"
                )
            }
        };
        let import = match self {
            Self::None | Self::Fixed(_) => "",
            Self::Exponential { .. } => "import math, random\n\n",
            Self::Uniform { .. } | Self::Normal { .. } | Self::TwoPeak { .. } => {
                "import random\n\n"
            }
        };
        (import, expression)
    }

    /// What the snippet draws, in a few words.
    fn describe(&self) -> String {
        match *self {
            Self::None => "no delay".into(),
            Self::Fixed(delay) => format!("the same {delay} s for every job"),
            Self::Uniform { min, max } => {
                format!(
                    "a whole number of seconds uniform from {min} to {}",
                    max - 1
                )
            }
            Self::Exponential { mean, max } => {
                format!("an exponential delay of mean {mean} s, cut at {max} s")
            }
            Self::Normal { mean, sd, min, max } => {
                format!("a normal delay around {mean} s (sd {sd} s), kept within {min}–{max} s")
            }
            Self::TwoPeak { sd, min, max } => {
                let (early, late) = peaks(min, max);
                format!(
                    "a delay around {early} s or {late} s (sd {sd} s), kept within {min}–{max} s"
                )
            }
        }
    }
}

/// `expression` shifted by `min` seconds, written without a "0 +".
fn offset(min: u64, expression: String) -> String {
    if min == 0 {
        expression
    } else {
        format!("{min} + {expression}")
    }
}

/// The two peaks' centres: a quarter and three quarters of [min, max].
fn peaks(min: u64, max: u64) -> (u64, u64) {
    let width = max - min;
    (min + width / 4, min + width * 3 / 4)
}

/// A line run as the job's command, after the delay.
const JOB: &str = "/usr/local/bin/nightly-sync";

fn crontab(delay: &Delay, start: ClockTime) -> Snippet {
    let schedule = cron_schedule(start);
    let code = match delay.shell() {
        Some(shell) => format!("{schedule} sleep \"$({shell})\"; {JOB}"),
        None => format!("{schedule} {JOB}"),
    };
    Snippet::new(
        "crontab",
        "crontab",
        "sh",
        code,
        format!(
            "Each machine's job sleeps {} before it runs. Not `$((RANDOM % W))`: cron runs \
             /bin/sh, which may have no $RANDOM, and bash's tops out at 32,767 (9 h 6 min), \
             favouring small delays unless W divides 32,768.",
            delay.describe()
        ),
    )
}

fn systemd(delay: &Delay, start: ClockTime) -> Snippet {
    // systemd coalesces a timer's wakeups within AccuracySec=, a minute
    // by default, which would add up to a minute of its own.
    const ACCURACY: &str = "AccuracySec=1s";
    const ACCURACY_NOTE: &str =
        "AccuracySec=1s keeps systemd's default of a minute's slack from moving every start.";
    let (code, note) = match *delay {
        Delay::Uniform { min, max } => (
            format!(
                "[Timer]\nOnCalendar={}\n{ACCURACY}\nRandomizedDelaySec={}\nFixedRandomDelay=true",
                on_calendar(start, min),
                max - min
            ),
            format!(
                "systemd delays each start uniformly by up to {} s. FixedRandomDelay=true \
                 keeps each machine's delay the same night after night (it is derived from \
                 the machine id and the timer's name), so a fleet stays spread and each \
                 machine keeps its own time. {ACCURACY_NOTE}",
                max - min
            ),
        ),
        Delay::Fixed(delay) => (
            format!(
                "[Timer]\nOnCalendar={}\n{ACCURACY}",
                on_calendar(start, delay)
            ),
            format!(
                "A fixed delay is a later OnCalendar time: every machine still starts at once. \
                 {ACCURACY_NOTE}"
            ),
        ),
        Delay::None => (
            format!("[Timer]\nOnCalendar={}\n{ACCURACY}", on_calendar(start, 0)),
            format!("Without a delay every machine starts at {start} together. {ACCURACY_NOTE}"),
        ),
        Delay::Exponential { .. } | Delay::Normal { .. } | Delay::TwoPeak { .. } => {
            let shell = delay.shell().unwrap_or_default().replace('\'', "'\\''");
            (
                format!(
                    "[Timer]\nOnCalendar={}\n{ACCURACY}\n\n[Service]\nTimeoutStartSec=infinity\n\
                     ExecStartPre=/bin/sh -c 'sleep \"$({shell})\"'",
                    on_calendar(start, 0)
                ),
                format!(
                    "RandomizedDelaySec= draws uniformly only, so the service sleeps {} first; \
                     TimeoutStartSec=infinity keeps systemd from stopping a long sleep. \
                     {ACCURACY_NOTE}",
                    delay.describe()
                ),
            )
        }
    };
    Snippet::new("systemd", "systemd timer", "ini", code, note)
}

/// An OnCalendar time of day `after` seconds past `start`.
fn on_calendar(start: ClockTime, after: u64) -> String {
    let seconds = (start.seconds() + after) % 86_400;
    format!("*-*-* {}", clock_with_seconds(seconds as u32))
}

fn sidekiq(delay: &Delay) -> Snippet {
    let code = match delay {
        Delay::None => "account_ids.each { |id| SyncJob.perform_async(id) }".to_string(),
        _ => format!(
            "account_ids.each do |id|\n  SyncJob.perform_in({}, id)\nend",
            delay.ruby()
        ),
    };
    Snippet::new(
        "sidekiq",
        "Sidekiq",
        "ruby",
        code,
        format!(
            "Each job is scheduled {} from now; `perform_in` takes seconds.",
            delay.describe()
        ),
    )
}

fn active_job(delay: &Delay) -> Snippet {
    let code = match delay {
        Delay::None => "account_ids.each { |id| SyncJob.perform_later(id) }".to_string(),
        _ => format!(
            "account_ids.each do |id|\n  SyncJob.set(wait: ({}).seconds).perform_later(id)\nend",
            delay.ruby()
        ),
    };
    Snippet::new(
        "activejob",
        "Active Job",
        "ruby",
        code,
        format!("Each job waits {} before it runs.", delay.describe()),
    )
}

fn celery(delay: &Delay) -> Snippet {
    let code = match delay {
        Delay::None => "for account_id in account_ids:\n    sync.delay(account_id)".to_string(),
        _ => {
            let (import, countdown) = delay.python();
            format!(
                "{import}for account_id in account_ids:\n    \
                 sync.apply_async(args=[account_id], countdown={countdown})"
            )
        }
    };
    Snippet::new(
        "celery",
        "Celery",
        "python",
        code,
        format!(
            "Each task is held back {}; `countdown` takes seconds. A countdown longer than \
             the broker's visibility timeout (an hour by default on Redis and SQS) can run \
             twice: raise it for long windows.",
            delay.describe()
        ),
    )
}

fn kubernetes(delay: &Delay, start: ClockTime) -> Snippet {
    let command = match delay.shell() {
        Some(shell) => format!(
            "sleep \\\"$({})\\\" && exec {JOB}",
            shell.replace('"', "\\\"")
        ),
        None => format!("exec {JOB}"),
    };
    let code = format!(
        "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: nightly-sync\nspec:\n  \
         schedule: \"{}\"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          \
         restartPolicy: OnFailure\n          containers:\n            - name: sync\n              \
         image: registry.example.com/sync:latest\n              \
         command: [\"/bin/sh\", \"-c\", \"{command}\"]",
        cron_schedule(start)
    );
    Snippet::new(
        "kubernetes",
        "Kubernetes CronJob",
        "yaml",
        code,
        format!(
            "A CronJob has no jitter of its own, so the container sleeps {} before the job. \
             Every CronJob on the same schedule starts its pod at once; the sleep spreads \
             the work, not the pods.",
            delay.describe()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(query: &str) -> JitterParams {
        let (state, notices) = crate::panels::State::from_query(&format!("p=jitter&{query}"));
        assert_eq!(notices, [], "{query}");
        state.jitter
    }

    fn code(snippets: &[Snippet], key: &str) -> String {
        snippets
            .iter()
            .find(|snippet| snippet.key == key)
            .unwrap_or_else(|| panic!("no {key}"))
            .code
            .clone()
    }

    #[test]
    fn a_uniform_window_is_the_same_seconds_in_every_system() {
        let snippets = snippets(&params("js=uniform&lo=0&hi=2.5"));
        let keys: Vec<&str> = snippets.iter().map(|s| s.key).collect();
        assert_eq!(
            keys,
            [
                "crontab",
                "systemd",
                "sidekiq",
                "activejob",
                "celery",
                "kubernetes"
            ]
        );
        assert_eq!(
            code(&snippets, "crontab"),
            "0 0 * * * sleep \"$(shuf -i 0-149 -n 1)\"; /usr/local/bin/nightly-sync"
        );
        assert_eq!(
            code(&snippets, "systemd"),
            "[Timer]\nOnCalendar=*-*-* 00:00:00\nAccuracySec=1s\nRandomizedDelaySec=150\nFixedRandomDelay=true"
        );
        assert!(code(&snippets, "sidekiq").contains("SyncJob.perform_in(rand(150), id)"));
        assert!(code(&snippets, "activejob").contains("set(wait: (rand(150)).seconds)"));
        assert_eq!(
            code(&snippets, "celery"),
            "import random\n\nfor account_id in account_ids:\n    \
             sync.apply_async(args=[account_id], countdown=random.randrange(0, 150))"
        );
        assert!(
            code(&snippets, "kubernetes")
                .contains(r#"command: ["/bin/sh", "-c", "sleep \"$(shuf -i 0-149 -n 1)\" && exec"#)
        );
    }

    #[test]
    fn a_min_delay_shifts_the_window() {
        let snippets = snippets(&params("js=uniform&lo=1.5&hi=4"));
        assert!(code(&snippets, "crontab").contains("shuf -i 90-239 -n 1"));
        assert!(
            code(&snippets, "systemd")
                .contains("OnCalendar=*-*-* 00:01:30\nAccuracySec=1s\nRandomizedDelaySec=150")
        );
        assert!(code(&snippets, "sidekiq").contains("perform_in(90 + rand(150), id)"));
        assert!(code(&snippets, "celery").contains("random.randrange(90, 240)"));
    }

    #[test]
    fn the_start_time_schedules_every_calendar() {
        let night = snippets(&params("js=uniform&lo=1.5&hi=4&at=02:00"));
        assert!(code(&night, "crontab").starts_with("0 2 * * * sleep"));
        assert!(code(&night, "systemd").contains("OnCalendar=*-*-* 02:01:30\n"));
        assert!(code(&night, "kubernetes").contains("schedule: \"0 2 * * *\""));
        let late = snippets(&params("js=fixed&fd=45&at=23:30"));
        assert!(code(&late, "crontab").starts_with("30 23 * * * sleep \"$(echo 2700)\""));
        assert!(code(&late, "systemd").contains("OnCalendar=*-*-* 00:15:00\n"));
        // No import for a fixed countdown; math only where it is used.
        assert!(code(&late, "celery").starts_with("for account_id"));
        let exponential = snippets(&params("js=exponential&m=10&hi=30"));
        assert!(code(&exponential, "celery").starts_with("import math, random\n"));
    }

    #[test]
    fn other_shapes_carry_their_own_numbers() {
        let fixed = snippets(&params("js=fixed&fd=10"));
        assert!(code(&fixed, "crontab").contains("sleep \"$(echo 600)\""));
        assert!(code(&fixed, "systemd").contains("OnCalendar=*-*-* 00:10:00"));
        assert!(code(&fixed, "celery").contains("countdown=600)"));

        let exponential = snippets(&params("js=exponential&m=10&hi=30"));
        assert!(
            code(&exponential, "sidekiq")
                .contains("-600 * Math.log(1 - rand * (1 - Math.exp(-1800.0 / 600)))")
        );
        assert!(code(&exponential, "celery").contains("math.exp(-1800 / 600)"));
        assert!(code(&exponential, "systemd").contains("ExecStartPre=/bin/sh -c"));

        let normal = snippets(&params("js=normal&m=10&sd=5&lo=0&hi=30"));
        assert!(code(&normal, "celery").contains("min(max(random.gauss(600, 300), 0), 1800)"));
        assert!(code(&normal, "sidekiq").contains(".clamp(0, 1800)"));

        let two = snippets(&params("js=twopeak&sd=2&lo=0&hi=30"));
        assert!(code(&two, "celery").contains("random.choice([450, 1350]), 120)"));

        let none = snippets(&params("js=none"));
        assert_eq!(
            code(&none, "crontab"),
            "0 0 * * * /usr/local/bin/nightly-sync"
        );
    }
}
