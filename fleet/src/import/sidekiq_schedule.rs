//! sidekiq-cron's `config/schedule.yml`, read as `sidekiq-cron` fleet
//! lines, in the two shapes sidekiq-cron 1.8.0 loads
//! (`Sidekiq::Cron::Job.load_from_hash`, `load_from_array`): a mapping of
//! job names to jobs, or a list of jobs each with its `name`.
//!
//! Each job gives one line on the line of its `cron` value: id its name,
//! spec the cron string as fugit reads it. A job sidekiq-cron would not
//! save (no name, no `cron`, a `cron` that is not a string, no `class`)
//! is skipped with its reason, and so is one with `status: disabled`,
//! which is saved but never enqueued.
//!
//! Two comments the panel reads, since the file does not say how its
//! process polls: `# poll: N` is the `cron_poll_interval` in seconds
//! (`Poll=`, 30 unless given) and `# process: NAME` the process whose
//! poller enqueues every job (`Process=`); the last of each wins.

use super::NativeTranslation;
use super::yaml::{self, PasteLines, YamlNode, YamlValue};
use crate::line::System;

const POLL_MARK: &str = "# poll:";
const PROCESS_MARK: &str = "# process:";

/// Whether `text` holds a sidekiq-cron schedule: a mapping whose values
/// are jobs with `cron` and `class`, or a list of jobs with `name` and
/// `cron`. Only text with a `cron:` key is parsed to tell.
pub fn holds(text: &str) -> bool {
    let has_cron = text.lines().any(|line| {
        line.trim_start()
            .trim_start_matches("- ")
            .starts_with("cron:")
    });
    if !has_cron {
        return false;
    }
    let mut found = false;
    yaml::each_document(text, 1, |document| {
        found = match &document.value {
            YamlValue::Mapping(entries) => entries
                .iter()
                .any(|(_, job)| job.get("cron").is_some() && job.get("class").is_some()),
            YamlValue::Sequence(jobs) => jobs
                .iter()
                .any(|job| job.get("name").is_some() && job.get("cron").is_some()),
            YamlValue::Scalar { .. } => false,
        };
        // The first document tells.
        false
    });
    found
}

/// Translates a schedule.yml into fleet lines.
pub fn translate(text: &str) -> NativeTranslation {
    let mut out = NativeTranslation::default();
    let paste = PasteLines::new(text);
    let poll = last_mark(text, POLL_MARK);
    let process = last_mark(text, PROCESS_MARK);
    let options: Vec<(&str, &str)> = [("Poll", poll), ("Process", process)]
        .into_iter()
        .filter_map(|(key, value)| Some((key, value?)))
        .collect();
    let error = yaml::each_document(text, 1, |document| {
        match &document.value {
            YamlValue::Mapping(entries) => {
                for (name, job) in entries {
                    job_line(name.as_str(), name.line, job, &paste, &options, &mut out);
                }
            }
            YamlValue::Sequence(jobs) => {
                for job in jobs {
                    let name = job.get("name").and_then(YamlNode::as_str);
                    job_line(name, job.line, job, &paste, &options, &mut out);
                }
            }
            YamlValue::Scalar { .. } if document.is_null() => {}
            YamlValue::Scalar { .. } => out.skip(
                document.line,
                "yaml",
                "is a scalar, not a mapping or list of sidekiq-cron jobs",
            ),
        }
        // Past the cap, nothing more is read.
        !out.is_full()
    });
    if let Some(error) = error {
        out.skip(error.line, "yaml", error.reason);
    }
    out
}

/// The value of the last comment line starting with `mark`.
fn last_mark<'a>(text: &'a str, mark: &str) -> Option<&'a str> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix(mark))
        .map(str::trim)
        .rfind(|value| !value.is_empty())
}

/// One job's line, or why sidekiq-cron would not run it; `line` is where
/// the job starts, for a refusal with no `cron` to point at.
fn job_line(
    name: Option<&str>,
    line: usize,
    job: &YamlNode,
    paste: &PasteLines,
    options: &[(&str, &str)],
    out: &mut NativeTranslation,
) {
    let Some(name) = name.filter(|name| !name.is_empty()) else {
        out.skip(
            line,
            "name",
            "is missing, and sidekiq-cron saves no job without one",
        );
        return;
    };
    if job.entries().is_none() {
        let reason = format!(
            "job {name} is {}, not a mapping of its settings",
            job.kind()
        );
        out.skip(line, "job", reason);
        return;
    }
    let Some(cron_node) = job.get("cron") else {
        out.skip(line, "cron", format!("is missing from job {name}"));
        return;
    };
    let at = cron_node.line;
    let Some(cron) = cron_node.as_str() else {
        let reason = format!("is {} in job {name}, not a cron string", cron_node.kind());
        out.skip(at, "cron", reason);
        return;
    };
    if ["class", "klass"].iter().all(|key| job.get(key).is_none()) {
        let reason = format!("job {name} has no class, so sidekiq-cron refuses it");
        out.skip(at, "class", reason);
        return;
    }
    if job.get("status").and_then(YamlNode::as_str) == Some("disabled") {
        let reason = format!("job {name} is disabled, so it is never enqueued");
        out.skip(at, "status", reason);
        return;
    }
    let source = paste.scalar_range(cron_node);
    out.push_at(source, at, System::SidekiqCron, name, cron, options);
}
