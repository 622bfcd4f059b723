//! `/etc/anacrontab`, read as `anacron` fleet lines, as cronie 1.7.2's
//! `anacron/readtab.c` reads it.
//!
//! A line ending in `\` goes on on the next. A blank or `#` line is
//! nothing; `NAME=value` sets the environment, and three names set
//! anacron itself (compared by prefix, as `strncmp` does):
//! `START_HOURS_RANGE=A-B` and `PREFERRED_HOUR=H` for every job (the last
//! given wins), `RANDOM_DELAY=N` for the jobs after it. A job is `PERIOD
//! DELAY ID COMMAND`, `PERIOD` whole days or `@daily`, `@weekly`,
//! `@monthly`, `@yearly`; anything else is skipped with cronie's reason.
//!
//! Each job gives one line, id its identifier, spec `PERIOD DELAY`, with
//! `RandomDelay=`, `Hours=` and `PreferredHour=`. Comments the panel
//! reads: `# hosts: N` (or names) runs the anacrontab on N machines,
//! each job once per machine (`Machine=`), so their draws differ; `# runs:
//! A-B:MM` and `# run-delay: S` say when anacron runs (`Runs=`,
//! `RunDelay=`), cronie's hourly `0-23:01` unless given (Debian's
//! `anacron.timer` is `7-23:30` with 300 s).

use super::NativeTranslation;
use crate::line::System;
use stampede_core::field::shorten;

const HOSTS_MARK: &str = "# hosts:";
const RUNS_MARK: &str = "# runs:";
const RUN_DELAY_MARK: &str = "# run-delay:";

/// The settings that reach every job, wherever they are written.
#[derive(Default)]
struct Settings {
    hours: Option<String>,
    preferred_hour: Option<String>,
    runs: Option<String>,
    run_delay: Option<String>,
    machines: Vec<String>,
}

/// A job line as read, before the settings that reach it are known.
struct JobLine {
    line: usize,
    id: String,
    spec: String,
    random_delay: Option<String>,
}

/// Whether `text` holds an anacrontab: an anacron setting, or a job whose
/// identifier no crontab's day field could be.
pub fn holds(text: &str) -> bool {
    text.lines().map(str::trim_start).any(|line| {
        line.starts_with("START_HOURS_RANGE=")
            || line.starts_with("PREFERRED_HOUR=")
            || job_fields(line).is_some_and(|(_, _, id, _)| {
                id.chars()
                    .any(|c| c.is_ascii_alphabetic() && !"LW".contains(c))
            })
    })
}

/// The four fields of a job line: period, delay, id (no `/`) and command.
fn job_fields(line: &str) -> Option<(&str, &str, &str, &str)> {
    let line = line.trim_start_matches([' ', '\t']);
    let mut rest = line;
    let mut field = || {
        let end = rest.find([' ', '\t'])?;
        let (word, after) = rest.split_at(end);
        rest = after.trim_start_matches([' ', '\t']);
        Some(word)
    };
    let (period, delay, id) = (field()?, field()?, field()?);
    let period_ok =
        period.bytes().all(|b| b.is_ascii_digit()) || (period.starts_with('@') && period.len() > 1);
    let ok = period_ok
        && delay.bytes().all(|b| b.is_ascii_digit())
        && !id.contains('/')
        && !rest.is_empty();
    ok.then_some((period, delay, id, rest))
}

/// The logical lines of `text`, a `\` at a line's end joining the next,
/// each with the number of its first line.
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (index, raw) in text.lines().enumerate() {
        let (first, mut joined) = open.take().unwrap_or((index + 1, String::new()));
        match raw.strip_suffix('\\') {
            Some(head) => {
                joined.push_str(head);
                joined.push(' ');
                open = Some((first, joined));
            }
            None => {
                joined.push_str(raw);
                lines.push((first, joined));
            }
        }
    }
    lines.extend(open);
    lines
}

/// Translates an anacrontab into fleet lines.
pub fn translate(text: &str) -> NativeTranslation {
    let mut out = NativeTranslation::default();
    let mut settings = Settings::default();
    let mut random_delay: Option<String> = None;
    let mut jobs = Vec::new();
    for (line, text) in logical_lines(text) {
        let trimmed = text.trim_start_matches([' ', '\t']);
        if trimmed.is_empty() || trimmed.starts_with('#') {
            read_mark(trimmed, &mut settings);
            continue;
        }
        if let Some((name, value)) = setting(trimmed) {
            let number = || !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
            let invalid = |out: &mut NativeTranslation, name: &str| {
                out.skip(
                    line,
                    name,
                    format!(
                        "\"{}\" is not what anacron reads there, so it skips the line",
                        shorten(value)
                    ),
                );
            };
            if name.starts_with("START_HOURS_RANGE") {
                match value.split_once('-') {
                    Some((a, b))
                        if [a, b]
                            .iter()
                            .all(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit())) =>
                    {
                        if a.parse::<u64>().ok() > b.parse::<u64>().ok() {
                            // cronie sets the range to 0-0 before it skips.
                            settings.hours = Some("0-0".into());
                            invalid(&mut out, "START_HOURS_RANGE");
                        } else {
                            settings.hours = Some(value.to_string());
                        }
                    }
                    _ => invalid(&mut out, "START_HOURS_RANGE"),
                }
            } else if name.starts_with("RANDOM_DELAY") {
                if number() {
                    random_delay = Some(value.to_string());
                } else {
                    invalid(&mut out, "RANDOM_DELAY");
                }
            } else if name.starts_with("PREFERRED_HOUR") {
                if number() && value.parse::<u32>().is_ok_and(|hour| hour <= 24) {
                    settings.preferred_hour = Some(value.to_string());
                } else {
                    settings.preferred_hour = None;
                    invalid(&mut out, "PREFERRED_HOUR");
                }
            }
            continue;
        }
        match job_fields(trimmed) {
            Some((period, delay, id, _)) => jobs.push(JobLine {
                line,
                id: id.to_string(),
                spec: format!("{period} {delay}"),
                random_delay: random_delay.clone(),
            }),
            None => out.skip(
                line,
                "line",
                "is not a job (PERIOD DELAY ID COMMAND) or a setting, so anacron skips it",
            ),
        }
    }
    push_jobs(&jobs, &settings, &mut out);
    out
}

/// `NAME=value`, as anacron's setting pattern reads it.
fn setting(line: &str) -> Option<(&str, &str)> {
    let (name, value) = line.split_once('=')?;
    let name = name.trim_end_matches([' ', '\t']);
    (!name.is_empty() && !name.contains([' ', '\t'])).then_some((name, value))
}

/// A comment the panel reads: the machines, and when anacron runs.
fn read_mark(line: &str, settings: &mut Settings) {
    if let Some(machines) = line.strip_prefix(HOSTS_MARK) {
        let words: Vec<&str> = machines.split_whitespace().collect();
        settings.machines = match words[..] {
            [count]
                if count
                    .parse::<u32>()
                    .is_ok_and(|n| (1..=100_000).contains(&n)) =>
            {
                (1..=count.parse::<u32>().unwrap_or(1))
                    .map(|n| format!("host-{n}"))
                    .collect()
            }
            _ => words.iter().map(|word| word.to_string()).collect(),
        };
    } else if let Some(runs) = line.strip_prefix(RUNS_MARK) {
        settings.runs = Some(runs.trim().to_string());
    } else if let Some(delay) = line.strip_prefix(RUN_DELAY_MARK) {
        settings.run_delay = Some(delay.trim().to_string());
    }
}

/// Each job, once per machine, with the settings that reach it.
fn push_jobs(jobs: &[JobLine], settings: &Settings, out: &mut NativeTranslation) {
    let machines: Vec<Option<&str>> = if settings.machines.is_empty() {
        vec![None]
    } else {
        settings.machines.iter().map(|m| Some(m.as_str())).collect()
    };
    for job in jobs {
        for machine in &machines {
            let options: Vec<(&str, &str)> = [
                ("RandomDelay", job.random_delay.as_deref()),
                ("Hours", settings.hours.as_deref()),
                ("PreferredHour", settings.preferred_hour.as_deref()),
                ("Runs", settings.runs.as_deref()),
                ("RunDelay", settings.run_delay.as_deref()),
                ("Machine", *machine),
            ]
            .into_iter()
            .filter_map(|(key, value)| Some((key, value?)))
            .collect();
            let id = match machine {
                Some(machine) => format!("{machine}/{}", job.id),
                None => job.id.clone(),
            };
            out.push(job.line, System::Anacron, &id, &job.spec, &options);
            if out.is_full() {
                return;
            }
        }
    }
}
