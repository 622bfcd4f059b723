//! The fix written into `.timer` units.
//!
//! Each unit of the paste (its `# file:` part) is read as the importer
//! reads it. A fix of an `OnCalendar=` line sets its options in that
//! unit alone: a key the unit's `[Timer]` section already sets gets the
//! new value in place, on the line that is in force (the last); the
//! others go on new lines right after the `OnCalendar=`, indented as it
//! is. A spec the fix changes is written over the `OnCalendar=` value.
//!
//! A unit holds one value of each setting for all its calendars and
//! machines: a `.timer` on several machines gives identical fixes, written
//! once, and calendars whose fixes differ share the shortest delay, which
//! stays within every calendar's gap.

use std::collections::BTreeMap;
use std::ops::Range;

use stampede_core::error::InvalidInput;

use super::{Options, apply_edits, line_bounds, refused, rewritten, shared_value, value_range};
use crate::import::systemd::{FILE_MARK, read_unit};
use crate::import::{NativeTranslation, split_files};
use crate::systemd::timespan::parse_span;

/// `text`, `.timer` units, with every rewritten line's options set.
pub fn rewrite(text: &str, fixes: &[super::LineFix]) -> Result<String, InvalidInput> {
    let bounds = line_bounds(text);
    let mut by_line: BTreeMap<usize, Vec<(&str, &Options)>> = BTreeMap::new();
    for (line, spec, options) in rewritten(fixes) {
        by_line.entry(line).or_default().push((spec, options));
    }
    let mut edits = Vec::new();
    let mut unread = NativeTranslation::default();
    for part in split_files(text, FILE_MARK) {
        let unit = read_unit(part.text, part.first_line, &mut unread);
        let mut fixed = Vec::new();
        for (line, calendar) in &unit.calendars {
            for (spec, options) in by_line.remove(line).unwrap_or_default() {
                if spec.trim() != calendar {
                    edits.push(set_value(text, &bounds, *line, spec)?);
                }
                fixed.push((*line, options));
            }
        }
        let Some(&(first, _)) = fixed.first() else {
            continue;
        };
        let mut keys: Vec<&str> = Vec::new();
        for (key, _) in fixed.iter().flat_map(|(_, options)| options.iter()) {
            if !keys.contains(&key.as_str()) {
                keys.push(key);
            }
        }
        let mut added = Vec::new();
        for key in keys {
            let values: Vec<&str> = fixed
                .iter()
                .filter_map(|(_, options)| options.iter().find(|(given, _)| given == key))
                .map(|(_, value)| value.as_str())
                .collect();
            let value = shared_value(key, &values, |value| parse_span(value).ok())
                .map_err(|why| refused(first, format!("the unit's calendars {why}")))?;
            match unit.last_set.get(key) {
                Some(&line) => edits.push(set_value(text, &bounds, line, value)?),
                None => added.push(format!("{key}={value}")),
            }
        }
        if !added.is_empty() {
            edits.push(add_lines(text, &bounds, first, &added));
        }
    }
    if let Some(line) = by_line.keys().next() {
        return Err(refused(
            *line,
            "no OnCalendar= in force in a unit's [Timer] section is there",
        ));
    }
    apply_edits(text, edits)
}

/// The edit that sets the value of the setting on `line` to `value`.
fn set_value(
    text: &str,
    bounds: &[(usize, usize, usize)],
    line: usize,
    value: &str,
) -> Result<(Range<usize>, String), InvalidInput> {
    let (start, end, _) = bounds[line - 1];
    let setting = &text[start..end];
    if setting.trim_end().ends_with('\\') {
        return Err(refused(
            line,
            "the setting goes on over the next line, so it is not rewritten",
        ));
    }
    let range = value_range(setting).ok_or_else(|| refused(line, "the line sets nothing"))?;
    Ok((start + range.start..start + range.end, value.to_string()))
}

/// The edit that adds `settings` as lines after the `OnCalendar=` on
/// `line` (and any lines it goes on over), indented and ended as it is.
fn add_lines(
    text: &str,
    bounds: &[(usize, usize, usize)],
    line: usize,
    settings: &[String],
) -> (Range<usize>, String) {
    let mut last = line - 1;
    while last + 1 < bounds.len() && {
        let (start, end, _) = bounds[last];
        text[start..end].trim_end().ends_with('\\')
    } {
        last += 1;
    }
    let (start, _, _) = bounds[line - 1];
    let (_, end, next) = bounds[last];
    let calendar = &text[start..bounds[line - 1].1];
    let indent = &calendar[..calendar.len() - calendar.trim_start().len()];
    let ending = match &text[end..next] {
        "" if text.contains("\r\n") => "\r\n",
        "" => "\n",
        ending => ending,
    };
    let lines: Vec<String> = settings
        .iter()
        .map(|setting| format!("{indent}{setting}"))
        .collect();
    let added = lines.join(ending);
    if next > end {
        (next..next, format!("{added}{ending}"))
    } else {
        (end..end, format!("{ending}{added}"))
    }
}
