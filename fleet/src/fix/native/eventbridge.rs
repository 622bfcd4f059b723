//! The fix written into EventBridge Scheduler schedules (CloudFormation,
//! SAM, Terraform JSON): a flexible window, `Mode` `FLEXIBLE` with
//! `MaximumWindowInMinutes` (`mode`, `maximum_window_in_minutes` in
//! Terraform), the one option an EventBridge fix sets.
//!
//! A window given has its mode and its maximum replaced where they stand,
//! in their own quoting; a maximum not given is added after the mode, and
//! a window not given is added before the schedule's expression. Each is
//! written as its neighbours are: a JSON object's members quoted, on the
//! same line or on lines of their own as the member beside them; a YAML
//! block's keys plain, at its indent.

use std::collections::BTreeMap;
use std::ops::Range;

use stampede_core::error::InvalidInput;

use super::{apply_edits, refused, rewritten};
use crate::import::NativeTranslation;
use crate::import::eventbridge::{Found, Keys, for_each_schedule};
use crate::import::yaml::{PasteLines, YamlNode, YamlValue};

/// `text` with every rewritten schedule's window set to its `Window=`.
pub fn rewrite(text: &str, fixes: &[super::LineFix]) -> Result<String, InvalidInput> {
    let mut windows: BTreeMap<usize, &str> = BTreeMap::new();
    for (line, _, options) in rewritten(fixes) {
        for (key, value) in options {
            if key != "Window" {
                return Err(refused(
                    line,
                    format!("{key}= is not written into a schedule, only Window="),
                ));
            }
            windows.insert(line, value);
        }
    }
    let paste = PasteLines::new(text);
    let mut edits = Vec::new();
    let mut failed = None;
    let mut unread = NativeTranslation::default();
    for_each_schedule(text, &mut unread, |found, _| {
        let Some((key, expression)) = found.properties.entry(found.keys.expression) else {
            return;
        };
        let Some(minutes) = windows.remove(&expression.line) else {
            return;
        };
        match window_edits(&paste, found, key, minutes) {
            Ok(more) => edits.extend(more),
            Err(why) => {
                failed.get_or_insert_with(|| refused(expression.line, why));
            }
        }
    });
    if let Some(refusal) = failed {
        return Err(refusal);
    }
    if let Some(line) = windows.keys().next() {
        return Err(refused(*line, "no schedule's expression is there"));
    }
    apply_edits(text, edits)
}

/// How a mapping is written, for what is added to it.
struct Style<'a> {
    json: bool,
    /// The text before a member of it on its line, when members start
    /// their lines; `None` when they share one.
    indent: Option<&'a str>,
    ending: &'static str,
}

impl<'a> Style<'a> {
    /// The style of `mapping`, from its member `member`.
    fn of(paste: &PasteLines<'a>, mapping: &YamlNode, member: &YamlNode) -> Option<Self> {
        let text = paste.text();
        let at = paste.offset(member)?;
        let line_start = text[..at].rfind('\n').map_or(0, |end| end + 1);
        let indent = &text[line_start..at];
        let json = paste
            .offset(mapping)
            .is_some_and(|at| text[at..].starts_with('{'));
        // A block mapping's members start their lines; a JSON object's may.
        let own_line = (!json || member.line != mapping.line) && indent.trim().is_empty();
        Some(Self {
            json,
            indent: own_line.then_some(indent),
            ending: if text[..line_start].ends_with("\r\n") {
                "\r\n"
            } else {
                "\n"
            },
        })
    }

    fn key(&self, key: &str) -> String {
        if self.json {
            format!("\"{key}\"")
        } else {
            key.to_string()
        }
    }

    /// A string value as the mapping writes one.
    fn string(&self, value: &str) -> String {
        if self.json {
            format!("\"{value}\"")
        } else {
            value.to_string()
        }
    }
}

/// The edits that give `found` a flexible window of `minutes`.
fn window_edits(
    paste: &PasteLines,
    found: &Found,
    expression_key: &YamlNode,
    minutes: &str,
) -> Result<Vec<(Range<usize>, String)>, String> {
    let keys = found.keys;
    let window = found
        .properties
        .get(keys.window)
        .and_then(|node| match &node.value {
            YamlValue::Sequence(items) => items.first(),
            _ => Some(node),
        });
    let Some(window) = window else {
        return Ok(vec![new_window(paste, found, expression_key, minutes)?]);
    };
    let Some((mode_key, mode)) = window.entry(keys.mode) else {
        return Err(format!("its {} has no {}", keys.window, keys.mode));
    };
    let mode_range = paste
        .scalar_range(mode)
        .ok_or_else(|| format!("its {} is not a value on one line", keys.mode))?;
    let quote = &paste.text()[mode_range.start..mode_range.start + 1];
    let quoted = if quote == "\"" || quote == "'" {
        format!("{quote}FLEXIBLE{quote}")
    } else {
        "FLEXIBLE".to_string()
    };
    let mut edits = vec![(mode_range.clone(), quoted)];
    match window.get(keys.most) {
        Some(most) => {
            let range = paste
                .scalar_range(most)
                .ok_or_else(|| format!("its {} is not a value on one line", keys.most))?;
            edits.push((range, minutes.to_string()));
        }
        None => {
            let style = Style::of(paste, window, mode_key).ok_or("its window is not found")?;
            let member = format!("{}: {minutes}", style.key(keys.most));
            let added = match (style.json, style.indent) {
                (true, Some(indent)) => format!(",{}{indent}{member}", style.ending),
                (true, None) => format!(", {member}"),
                (false, Some(indent)) => format!("{}{indent}{member}", style.ending),
                (false, None) => return Err("its window is a YAML flow mapping".into()),
            };
            edits.push((mode_range.end..mode_range.end, added));
        }
    }
    Ok(edits)
}

/// The edit that adds a whole window before the schedule's expression.
fn new_window(
    paste: &PasteLines,
    found: &Found,
    expression_key: &YamlNode,
    minutes: &str,
) -> Result<(Range<usize>, String), String> {
    let Keys {
        window, mode, most, ..
    } = found.keys;
    let style = Style::of(paste, found.properties, expression_key)
        .ok_or("its expression's key is not found")?;
    let at = paste
        .offset(expression_key)
        .ok_or("its expression's key is not found")?;
    let (window, mode, most) = (style.key(window), style.key(mode), style.key(most));
    let flexible = style.string("FLEXIBLE");
    let ending = style.ending;
    let added = match (style.json, style.indent) {
        (true, Some(indent)) => {
            format!("{window}: {{{mode}: {flexible}, {most}: {minutes}}},{ending}{indent}")
        }
        (true, None) => format!("{window}: {{{mode}: {flexible}, {most}: {minutes}}}, "),
        (false, Some(indent)) => format!(
            "{window}:{ending}{indent}  {mode}: {flexible}{ending}{indent}  {most}: {minutes}{ending}{indent}"
        ),
        (false, None) => return Err("its properties are a YAML flow mapping".into()),
    };
    Ok((at..at, added))
}
