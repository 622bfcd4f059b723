//! The fix written into Temporal schedule JSON: the `jitter` of each
//! schedule's spec (where the importer reads it: `schedule.spec`,
//! `info.spec` or `spec`), as protojson writes a duration, seconds with
//! an `s` (`"3600s"`).
//!
//! A `jitter` given has its value replaced where it stands. Otherwise one
//! is added as the spec's first member: on a line of its own, indented as
//! the member after it, when that member starts its line (pretty-printed
//! JSON); before it on the same line when not. The spec must be a JSON
//! object (`{…}`) for that; a spec written as YAML blocks is refused.
//!
//! The jitter belongs to the spec, so every entry of one spec shares it:
//! entries whose fixes differ get the shortest, which stays within every
//! entry's gap. Each fixed entry must be alone on its line with its
//! schedule, so a line names one schedule; only `Jitter=` is written, the
//! one option a Temporal fix sets.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use stampede_core::error::InvalidInput;

use super::{apply_edits, refused, rewritten, shared_value};
use crate::import::NativeTranslation;
use crate::import::temporal::{for_each_schedule, spec_of};
use crate::import::yaml::{PasteLines, YamlNode};
use crate::temporal::duration::temporal_duration_nanos;

const NANOS_PER_SECOND: u64 = 1_000_000_000;

/// `text`, schedule JSON, with every rewritten line's `Jitter=` set.
pub fn rewrite(text: &str, fixes: &[super::LineFix]) -> Result<String, InvalidInput> {
    let mut jitters: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for (line, _, options) in rewritten(fixes) {
        for (key, value) in options {
            if key != "Jitter" {
                return Err(refused(
                    line,
                    format!("{key}= is not written into schedule JSON, only Jitter="),
                ));
            }
            jitters.entry(line).or_default().push(value);
        }
    }
    let paste = PasteLines::new(text);
    let mut edits = Vec::new();
    let mut claimed = BTreeSet::new();
    let mut unread = NativeTranslation::default();
    for_each_schedule(text, &mut unread, |schedule, _| {
        let Some(spec) = spec_of(schedule) else {
            return Ok(());
        };
        let lines: BTreeSet<usize> = spec
            .entries()
            .unwrap_or(&[])
            .iter()
            .flat_map(|(_, entries)| entries.items().unwrap_or(&[]))
            .map(|entry| entry.line)
            .collect();
        let values: Vec<&str> = lines
            .iter()
            .filter_map(|line| jitters.get(line))
            .flatten()
            .copied()
            .collect();
        let Some(&first) = lines.iter().find(|line| jitters.contains_key(line)) else {
            return Ok(());
        };
        if let Some(line) = lines.iter().find(|line| !claimed.insert(**line)) {
            return Err(refused(
                *line,
                "entries of two schedules share the line; put each on its own to fix them",
            ));
        }
        let nanos = |value: &str| {
            temporal_duration_nanos(value)
                .ok()
                .and_then(|nanos| u64::try_from(nanos).ok())
        };
        let jitter = shared_value("Jitter", &values, nanos).map_err(|why| refused(first, why))?;
        let seconds = nanos(jitter)
            .map(protojson_seconds)
            .ok_or_else(|| refused(first, format!("{jitter:?} is not a jitter Temporal reads")))?;
        edits.push(jitter_edit(&paste, spec, &seconds).map_err(|why| refused(first, why))?);
        Ok(())
    })?;
    if let Some(line) = jitters.keys().find(|line| !claimed.contains(*line)) {
        return Err(refused(*line, "no entry of a schedule's spec is there"));
    }
    apply_edits(text, edits)
}

/// A duration as protojson writes one: seconds, a fraction if any, `s`.
fn protojson_seconds(nanos: u64) -> String {
    let (seconds, fraction) = (nanos / NANOS_PER_SECOND, nanos % NANOS_PER_SECOND);
    if fraction == 0 {
        return format!("{seconds}s");
    }
    let fraction = format!("{fraction:09}");
    format!("{seconds}.{}s", fraction.trim_end_matches('0'))
}

/// The edit that sets `spec`'s `jitter` to `seconds`.
fn jitter_edit(
    paste: &PasteLines,
    spec: &YamlNode,
    seconds: &str,
) -> Result<(Range<usize>, String), String> {
    let value = format!("\"{seconds}\"");
    if let Some((_, given)) = spec.entry("jitter") {
        let range = paste
            .scalar_range(given)
            .ok_or("its jitter is not a value on one line")?;
        return Ok((range, value));
    }
    let text = paste.text();
    let opens = paste
        .offset(spec)
        .is_some_and(|at| text[at..].starts_with('{'));
    let first_key = spec.entries().and_then(|entries| entries.first());
    let (Some((key, _)), true) = (first_key, opens) else {
        return Err("its spec is not a JSON object, so no jitter is added to it".into());
    };
    let at = paste
        .offset(key)
        .ok_or("its spec's first key is not found")?;
    let line_start = text[..at].rfind('\n').map_or(0, |end| end + 1);
    let indent = &text[line_start..at];
    if key.line == spec.line || !indent.trim().is_empty() {
        return Ok((at..at, format!("\"jitter\": {value}, ")));
    }
    let ending = if text[..line_start].ends_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    Ok((at..at, format!("\"jitter\": {value},{ending}{indent}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_written_as_protojson_seconds() {
        assert_eq!(protojson_seconds(300 * NANOS_PER_SECOND), "300s");
        assert_eq!(protojson_seconds(1_500_000_000), "1.5s");
        assert_eq!(protojson_seconds(0), "0s");
    }
}
