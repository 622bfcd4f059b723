//! Kubernetes CronJobs, read as `cron` fleet lines.
//!
//! Each YAML document (`---` between them) that is a `CronJob`, or a
//! `List` of them, gives one line on the line of its `spec.schedule`: id
//! `namespace/name` (`metadata.namespace`, `default` when not given, as
//! `kubectl apply` without `-n` places it), spec the schedule, and
//! `CRON_TZ=` from `spec.timeZone`. Documents of other kinds are passed over.
//! A suspended CronJob (`spec.suspend: true`) is skipped with a notice.
//!
//! The CronJob controller reads schedules with robfig/cron v3.0.1's
//! `ParseStandard` (`parser.go`, `spec.go`), followed here, which differs
//! from Vixie cron, the cron lines' reader, in three ways:
//!
//! - `?` stands for `*`, so it is written as `*`;
//! - a day field is unrestricted ("star") only when one of its parts is
//!   `*` or `?` without a step over 1, where Vixie looks at the field's
//!   first character; `*/2` is restricted in robfig but not in Vixie, so
//!   a day field starting `*/n` is written with its full range
//!   (`1-31/n`, `0-6/n`), the same days, restricted for both;
//! - `@every DURATION` runs at intervals from the controller's start, not
//!   on the calendar, and `TZ=` or `CRON_TZ=` inside the schedule is
//!   refused by Kubernetes' own validation: both are skipped.

use super::NativeTranslation;
use super::yaml::{self, PasteLines, YamlNode};
use crate::line::System;
use stampede_core::field::shorten;

/// Translates CronJob YAML into fleet lines.
pub fn translate(text: &str) -> NativeTranslation {
    let mut out = NativeTranslation::default();
    let paste = PasteLines::new(text);
    let error = yaml::each_document(text, 1, |document| {
        match document.get("kind").and_then(YamlNode::as_str) {
            Some("CronJob") => cron_job(&document, &paste, &mut out),
            Some("List") => {
                let items = document
                    .get("items")
                    .and_then(YamlNode::items)
                    .unwrap_or(&[]);
                for item in items {
                    if item.get("kind").and_then(YamlNode::as_str) == Some("CronJob") {
                        cron_job(item, &paste, &mut out);
                    }
                }
            }
            _ => {}
        }
        // Past the cap, nothing more is read.
        !out.full
    });
    if let Some(error) = error {
        out.skip(error.line, "yaml", error.reason);
    }
    out
}

/// The text of `key` in `node`.
fn text<'a>(node: Option<&'a YamlNode>, key: &str) -> Option<&'a str> {
    node.and_then(|node| node.get(key))
        .and_then(YamlNode::as_str)
}

fn cron_job(job: &YamlNode, paste: &PasteLines, out: &mut NativeTranslation) {
    let metadata = job.get("metadata");
    let Some(name) = text(metadata, "name") else {
        out.skip(
            job.line,
            "metadata.name",
            "is missing, so the CronJob has no name",
        );
        return;
    };
    let namespace = text(metadata, "namespace").unwrap_or("default");
    let id = format!("{namespace}/{name}");
    let Some(spec) = job.get("spec") else {
        out.skip(job.line, "spec", format!("is missing from CronJob {id}"));
        return;
    };
    let Some(schedule_node) = spec.get("schedule") else {
        out.skip(
            spec.line,
            "spec.schedule",
            format!("is missing from CronJob {id}"),
        );
        return;
    };
    let line = schedule_node.line;
    let Some(schedule) = schedule_node.as_str() else {
        out.skip(
            line,
            "spec.schedule",
            format!("is {}, not a cron schedule", schedule_node.kind()),
        );
        return;
    };
    if spec.get("suspend").is_some_and(YamlNode::is_true) {
        out.skip(
            line,
            "spec.suspend",
            format!("CronJob {id} is suspended, so it starts no jobs"),
        );
        return;
    }
    let schedule = match robfig_as_vixie(schedule.trim()) {
        Ok(schedule) => schedule,
        Err(reason) => {
            out.skip(line, "spec.schedule", reason);
            return;
        }
    };
    // The controller matches the zone's wall clock minute by minute, as
    // cron does a job's own `CRON_TZ=`.
    let zone = text(Some(spec), "timeZone").map(|zone| ("CRON_TZ", zone));
    let source = paste.scalar_range(schedule_node);
    let options: Vec<(&str, &str)> = zone.into_iter().collect();
    out.push_at(source, line, System::Cron, &id, &schedule, &options);
}

/// A robfig schedule written so Vixie cron reads the same minutes, or why
/// it cannot be.
fn robfig_as_vixie(schedule: &str) -> Result<String, String> {
    if schedule.starts_with("@every") {
        return Err(format!(
            "\"{}\" runs at intervals from the controller's start, not at times of day",
            shorten(schedule)
        ));
    }
    if schedule.starts_with("TZ=") || schedule.starts_with("CRON_TZ=") {
        return Err(
            "Kubernetes refuses a zone inside the schedule; give it as spec.timeZone".to_string(),
        );
    }
    if schedule.starts_with('@') {
        return Ok(schedule.to_string());
    }
    let fields: Vec<&str> = schedule.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(format!(
            "\"{}\" has {} fields; Kubernetes reads 5 (minute hour day-of-month month day-of-week)",
            shorten(schedule),
            fields.len()
        ));
    }
    let written: Vec<String> = fields
        .iter()
        .enumerate()
        .map(|(index, field)| {
            let field = field.replace('?', "*");
            match index {
                2 => day_field(&field, "1-31"),
                4 => day_field(&field, "0-6"),
                _ => field,
            }
        })
        .collect();
    Ok(written.join(" "))
}

/// A day field whose "star" Vixie reads as robfig does: one with a part
/// `*` (step 1) is all days and starts with `*` already, or is written
/// `*`; one starting `*/n` with n over 1 takes the full range instead.
fn day_field(field: &str, full: &str) -> String {
    let star = field.split(',').any(|part| {
        let (range, step) = part.split_once('/').unwrap_or((part, "1"));
        range == "*" && step.trim_start_matches('0') == "1"
    });
    if star {
        return "*".to_string();
    }
    match field.strip_prefix('*') {
        Some(rest) => format!("{full}{rest}"),
        None => field.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_fields_take_robfigs_star() {
        assert_eq!(day_field("*/2", "1-31"), "1-31/2");
        assert_eq!(day_field("*", "1-31"), "*");
        assert_eq!(day_field("*/1", "0-6"), "*");
        assert_eq!(day_field("1,*", "0-6"), "*");
        assert_eq!(day_field("1-5", "0-6"), "1-5");
        assert_eq!(robfig_as_vixie("0 0 ? * MON").unwrap(), "0 0 * * MON");
    }
}
