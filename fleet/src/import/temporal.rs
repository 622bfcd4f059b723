//! Temporal schedules as JSON, read as `temporal` fleet lines.
//!
//! The paste is one JSON object, an array of them, or one object per line
//! (JSON Lines). An object is what `temporal schedule describe --output
//! json` prints (temporalio/cli v1.7.2: the `DescribeScheduleResponse`
//! in protojson, its spec under `schedule.spec`), an entry of `temporal
//! schedule list --output json` (spec under `info.spec`), or a bare
//! `ScheduleSpec` under `spec`. The describe output leaves out the
//! schedule's id and the namespace's id, both hashed into every jitter
//! delay, so they are read from `scheduleId` and `namespaceId` keys beside
//! it (the list output has `scheduleId`); an object without `scheduleId`
//! is skipped. JSON is read as YAML's flow style, so every line number is
//! the paste's own.
//!
//! Each entry of the spec gives one line on the entry's own line, with
//! `Jitter=` from `spec.jitter` and `Namespace=` from `namespaceId`:
//!
//! - `interval[]`: `every INTERVAL [offset PHASE]` (`interval`, `phase`);
//! - `cronString[]`: the string as it is;
//! - `calendar[]` (fields as text) and `structuredCalendar[]` (fields as
//!   lists of `{start, end, step}`, what a server describes every calendar
//!   as): the 7-field cron string `second minute hour day-of-month month
//!   day-of-week year` with the same values. Temporal's `iterateRanges`
//!   (service/worker/scheduler/calendar.go at v1.31.2) reads a missing
//!   `end`, or one below `start`, as `start` and a missing `step` as 1; a
//!   field with no ranges matches nothing, except the year, which then
//!   matches every year. `import_temporal.tsv` checks both forms against
//!   the times Temporal's own calendar.go gives.
//!
//! `spec.timezoneName` leads each calendar as `TZ=zone`. A paused schedule
//! (`state.paused`) and one with `excludeCalendar` or
//! `excludeStructuredCalendar` are skipped; `startTime` and `endTime` get
//! a note, since the lines place starts outside them too.

use super::NativeTranslation;
use super::yaml::{self, YamlNode, YamlValue};
use crate::line::System;

/// A structured calendar's fields: name, lowest and highest value a cron
/// string takes, and the value a missing field of a text calendar has.
const CALENDAR_FIELDS: [(&str, i64, i64, &str); 7] = [
    ("second", 0, 59, "0"),
    ("minute", 0, 59, "0"),
    ("hour", 0, 23, "0"),
    ("dayOfMonth", 1, 31, "*"),
    ("month", 1, 12, "*"),
    ("dayOfWeek", 0, 6, "*"),
    ("year", 2000, 2100, "*"),
];

/// Translates schedule JSON into fleet lines.
pub fn translate(text: &str) -> NativeTranslation {
    let mut out = NativeTranslation::default();
    let read = for_each_schedule(text, &mut out, |schedule, out| {
        read_schedule(schedule, out);
        Ok::<(), std::convert::Infallible>(())
    });
    let Ok(()) = read;
    out
}

/// Calls `each` on every schedule object of the paste (an array's items,
/// or each document or JSON line), with any text that is not JSON
/// skipped in `out`, until `each` fails. JSON Lines are read a line at a
/// time, and each line's nodes dropped once read, so a paste of a million
/// schedules never holds them all.
pub(crate) fn for_each_schedule<E>(
    text: &str,
    out: &mut NativeTranslation,
    mut each: impl FnMut(&YamlNode, &mut NativeTranslation) -> Result<(), E>,
) -> Result<(), E> {
    let mut visit = |document: &YamlNode, out: &mut NativeTranslation| match &document.value {
        YamlValue::Sequence(schedules) => schedules.iter().try_for_each(|item| each(item, out)),
        _ => each(document, out),
    };
    if is_json_lines(text) {
        for (index, raw) in text.lines().enumerate() {
            // Past the cap, nothing more is read.
            if out.full {
                break;
            }
            if raw.trim().is_empty() {
                continue;
            }
            let (read, error) = yaml::documents(raw, index + 1);
            if let Some(error) = error {
                out.skip(error.line, "json", error.reason);
            }
            read.iter().try_for_each(|document| visit(document, out))?;
        }
        return Ok(());
    }
    let (documents, error) = yaml::documents(text, 1);
    if let Some(error) = error {
        out.skip(error.line, "json", error.reason);
        return Ok(());
    }
    documents
        .iter()
        .try_for_each(|document| visit(document, out))
}

/// Whether the text's first line that is not blank is a whole object, as
/// in JSON Lines.
fn is_json_lines(text: &str) -> bool {
    let Some(first) = text.lines().find(|line| !line.trim().is_empty()) else {
        return false;
    };
    // A YAML block's `key: value` parses as an object too.
    if !first.trim_start().starts_with('{') {
        return false;
    }
    let (documents, error) = yaml::documents(first, 1);
    error.is_none() && documents.first().and_then(YamlNode::entries).is_some()
}

fn read_schedule(schedule: &YamlNode, out: &mut NativeTranslation) {
    if schedule.entries().is_none() {
        out.skip(
            schedule.line,
            "json",
            format!("is {}, not a schedule object", schedule.kind()),
        );
        return;
    }
    let inner = schedule.get("schedule");
    let Some(spec) = spec_of(schedule) else {
        out.skip(
            schedule.line,
            "spec",
            "is missing: no schedule.spec, info.spec or spec",
        );
        return;
    };
    let Some(id) = schedule.get("scheduleId").and_then(YamlNode::as_str) else {
        out.skip(schedule.line, "scheduleId", "is missing; add the schedule's id beside the describe output, as Temporal hashes it into every jitter delay");
        return;
    };
    let paused = inner
        .and_then(|inner| inner.get("state"))
        .and_then(|state| state.get("paused"))
        .is_some_and(YamlNode::is_true);
    if paused {
        out.skip(
            schedule.line,
            "state.paused",
            format!("schedule {id} is paused, so it takes no actions"),
        );
        return;
    }
    for key in ["excludeCalendar", "excludeStructuredCalendar"] {
        let excluding = spec
            .entry(key)
            .filter(|(_, exclude)| exclude.items().is_some_and(|items| !items.is_empty()));
        if let Some((exclude, _)) = excluding {
            out.skip(
                exclude.line,
                key,
                format!("leaves times out of schedule {id}, which is not read here"),
            );
            return;
        }
    }
    let mut options: Vec<(&str, &str)> = Vec::new();
    if let Some(jitter) = spec.get("jitter").and_then(YamlNode::as_str) {
        options.push(("Jitter", jitter));
    }
    if let Some(namespace) = schedule.get("namespaceId").and_then(YamlNode::as_str) {
        options.push(("Namespace", namespace));
    }
    let zone = spec
        .get("timezoneName")
        .and_then(YamlNode::as_str)
        .filter(|zone| !zone.is_empty());
    let bounded = ["startTime", "endTime"]
        .into_iter()
        .find_map(|key| spec.entry(key).map(|(node, _)| (key, node.line)));
    let lines_before = out.lines.len();
    for (key, entries) in spec.entries().unwrap_or(&[]) {
        let (Some(key), Some(entries)) = (key.as_str(), entries.items()) else {
            continue;
        };
        for entry in entries {
            let written = match key {
                "interval" => interval_spec(entry),
                "cronString" => entry
                    .as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("is {}, not a cron string", entry.kind())),
                "calendar" => text_calendar(entry),
                "structuredCalendar" => structured_calendar(entry),
                _ => continue,
            };
            match written {
                Ok(spec) => {
                    let spec = match zone {
                        Some(zone) if key != "interval" => format!("TZ={zone} {spec}"),
                        _ => spec,
                    };
                    out.push(entry.line, System::Temporal, id, &spec, &options);
                }
                Err(reason) => out.skip(entry.line, key, reason),
            }
        }
    }
    if let Some((key, line)) = bounded.filter(|_| out.lines.len() > lines_before) {
        out.note(
            line,
            format!("schedule {id} has a {key}; its lines place starts outside it too"),
        );
    }
}

/// A schedule's `ScheduleSpec`: under `schedule.spec` (describe),
/// `info.spec` (list) or `spec`.
pub(crate) fn spec_of(schedule: &YamlNode) -> Option<&YamlNode> {
    schedule
        .get("schedule")
        .and_then(|inner| inner.get("spec"))
        .or_else(|| schedule.get("info").and_then(|info| info.get("spec")))
        .or_else(|| schedule.get("spec"))
}

/// An interval entry as `every INTERVAL [offset PHASE]`.
fn interval_spec(entry: &YamlNode) -> Result<String, String> {
    let interval = entry
        .get("interval")
        .and_then(YamlNode::as_str)
        .ok_or("has no interval")?;
    match entry.get("phase").and_then(YamlNode::as_str) {
        Some(phase) if !matches!(phase, "0s" | "0") => {
            Ok(format!("every {interval} offset {phase}"))
        }
        _ => Ok(format!("every {interval}")),
    }
}

/// A calendar with text fields as a 7-field cron string.
fn text_calendar(entry: &YamlNode) -> Result<String, String> {
    let mut fields = Vec::with_capacity(CALENDAR_FIELDS.len());
    for (name, _, _, default) in CALENDAR_FIELDS {
        let value = entry
            .get(name)
            .and_then(YamlNode::as_str)
            .filter(|value| !value.trim().is_empty());
        let value = value.unwrap_or(default);
        if value.contains(char::is_whitespace) {
            return Err(format!("{name}: {value:?} holds blanks"));
        }
        fields.push(value);
    }
    Ok(fields.join(" "))
}

/// A structured calendar as a 7-field cron string with the same values.
fn structured_calendar(entry: &YamlNode) -> Result<String, String> {
    let mut fields = Vec::with_capacity(CALENDAR_FIELDS.len());
    for (name, low, high, _) in CALENDAR_FIELDS {
        let ranges = entry.get(name).and_then(YamlNode::items).unwrap_or(&[]);
        if ranges.is_empty() {
            if name == "year" {
                fields.push("*".to_string());
                continue;
            }
            return Err(format!(
                "{name} has no ranges, so the calendar never matches"
            ));
        }
        let mut parts = Vec::with_capacity(ranges.len());
        for range in ranges {
            let number = |key: &str| -> Result<i64, String> {
                match range.get(key).and_then(YamlNode::as_str) {
                    None => Ok(0),
                    Some(text) => text
                        .parse()
                        .map_err(|_| format!("{name}.{key}: {text:?} is not a whole number")),
                }
            };
            let (start, end, step) = (number("start")?, number("end")?, number("step")?);
            let end = end.max(start);
            if start < low || end > high {
                return Err(format!(
                    "{name}: {start}-{end} reaches outside {low}-{high}"
                ));
            }
            if step < 0 {
                return Err(format!("{name}: the step {step} is negative"));
            }
            parts.push(match (start == end, step > 1) {
                (true, _) => start.to_string(),
                (false, false) => format!("{start}-{end}"),
                (false, true) => format!("{start}-{end}/{step}"),
            });
        }
        fields.push(parts.join(","));
    }
    Ok(fields.join(" "))
}
