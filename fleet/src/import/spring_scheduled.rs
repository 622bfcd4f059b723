//! Spring's `@Scheduled` methods in Java or Kotlin sources, read as
//! `spring` fleet lines.
//!
//! Each `@Scheduled(cron = "…")` gives a line: its expression, under the
//! method's name after its class's (`ReportJobs.nightly`), which the fix
//! hashes, with the annotation's `zone` as `Zone=`. Without a zone Spring
//! runs it in the server's default zone, which the source does not say:
//! it is read as UTC, with a note.
//!
//! Skipped, each with its reason: `cron = "-"` (Spring's trigger turned
//! off); `fixedRate` and `fixedDelay`, which count from the application's
//! start; and an expression the source does not hold (a constant, or a
//! property `${…}` with no default). A property's default
//! (`${jobs.report:0 0 1 * * *}`) is read, with a note. Comments and the
//! insides of other strings are passed over.

use std::collections::HashMap;
use std::ops::Range;

use stampede_core::field::shorten;

use super::NativeTranslation;
use super::source_code::{SourceCode, quoted_len};
use crate::line::System;
use crate::time::UTC_NAMES;

/// The annotation read.
const ANNOTATION: &str = "@Scheduled";

/// Whether `text` holds a `@Scheduled` annotation (in code or not).
pub fn holds(text: &str) -> bool {
    text.contains(ANNOTATION)
}

/// Translates sources into fleet lines.
pub fn translate(text: &str) -> NativeTranslation {
    let mut out = NativeTranslation::default();
    let code = Code::new(text);
    let mut class = None;
    // How many tasks each id names so far: a second on one method is `#2`.
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut at = 0;
    while let Some(found) = code.next_word(at) {
        at = found.end;
        let word = &text[found.clone()];
        match word {
            // A declaration's name, not `Jobs.class`.
            "class" | "object" | "interface" | "record" if !text[..found.start].ends_with('.') => {
                if let Some(name) = code.next_word(at)
                    && code.next_mark(at) == Some(name.start)
                {
                    class = Some(text[name].to_string());
                }
            }
            "Scheduled" if text[..found.start].ends_with('@') => {
                let Some(arguments) = code.arguments(at) else {
                    out.skip(
                        code.line_at(found.start),
                        "cron",
                        "@Scheduled with no arguments: Spring needs a cron, fixedRate or fixedDelay",
                    );
                    continue;
                };
                at = arguments.end;
                let method = code.method_after(arguments.end);
                let mut id = match (&class, method) {
                    (Some(class), Some(method)) => format!("{class}.{}", &text[method]),
                    (None, Some(method)) => text[method].to_string(),
                    (_, None) => format!("line {}", code.line_at(found.start)),
                };
                let seen = ids.entry(id.clone()).or_default();
                *seen += 1;
                if *seen > 1 {
                    id = format!("{id}#{seen}");
                }
                read_annotation(&code, found.start, arguments, &id, &mut out);
                if out.is_full() {
                    break;
                }
            }
            _ => {}
        }
    }
    out
}

/// One annotation's arguments (the bytes between its parentheses).
fn read_annotation(
    code: &Code,
    start: usize,
    arguments: Range<usize>,
    id: &str,
    out: &mut NativeTranslation,
) {
    let line = code.line_at(start);
    let attributes = code.attributes(arguments);
    let value = |name: &str| {
        attributes
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.clone())
    };
    let Some(cron) = value("cron") else {
        let timed = [
            "fixedRate",
            "fixedRateString",
            "fixedDelay",
            "fixedDelayString",
        ]
        .into_iter()
        .find(|name| value(name).is_some());
        let reason = match timed {
            Some(name) => format!(
                "{name} counts from when the application started, which the source does not \
                 say; only cron triggers are read"
            ),
            None => "@Scheduled with no cron, fixedRate or fixedDelay".into(),
        };
        out.skip(line, "cron", reason);
        return;
    };
    let Some(literal) = code.string(cron.clone()) else {
        out.skip(
            line,
            "cron",
            format!(
                "the expression is {}, not a string written here",
                shorten(code.text[cron].trim())
            ),
        );
        return;
    };
    let spec_line = code.line_at(literal.start);
    let written = &code.text[literal.clone()];
    let (spec, source) = match placeholder(written) {
        None if written == "-" => {
            return out.skip(
                spec_line,
                "cron",
                "cron = \"-\": Spring turns the trigger off",
            );
        }
        None => (written, Some(literal)),
        Some((key, Some(default))) => {
            out.note(
                spec_line,
                format!(
                    "read as ${{{}}}'s default; the application's property may set another",
                    shorten(key)
                ),
            );
            let start = literal.start + written.len() - default.len() - 1;
            (default, Some(start..start + default.len()))
        }
        Some((key, None)) => {
            return out.skip(
                spec_line,
                "cron",
                format!(
                    "the expression is the property {}, which the source does not hold",
                    shorten(key)
                ),
            );
        }
    };
    let zone = match value("zone").map(|zone| code.string(zone)) {
        Some(Some(zone)) => Some(&code.text[zone]),
        Some(None) => {
            return out.skip(line, "zone", "the zone is not a string written here");
        }
        None => {
            out.note(
                spec_line,
                "no zone: Spring runs it in the server's default zone, placed here as UTC",
            );
            None
        }
    };
    let options: &[(&str, &str)] = match zone {
        Some(zone) if !UTC_NAMES.contains(&zone) => &[("Zone", zone)],
        _ => &[],
    };
    // An escape in the string would have to be read to place the spec,
    // and written back by the fix.
    let source = source.filter(|_| !spec.contains('\\'));
    out.push_at(source, spec_line, System::Spring, id, spec, options);
}

/// `${key}` or `${key:default}`: the key and the default.
fn placeholder(written: &str) -> Option<(&str, Option<&str>)> {
    let inner = written.strip_prefix("${")?.strip_suffix('}')?;
    Some(match inner.split_once(':') {
        Some((key, default)) if !default.trim().is_empty() => (key, Some(default)),
        Some((key, _)) => (key, None),
        None => (inner, None),
    })
}

/// A Java or Kotlin source ([`SourceCode`]) with what reading an
/// annotation adds to it.
struct Code<'a>(SourceCode<'a>);

impl<'a> std::ops::Deref for Code<'a> {
    type Target = SourceCode<'a>;

    fn deref(&self) -> &SourceCode<'a> {
        &self.0
    }
}

impl<'a> Code<'a> {
    /// `text`, its comments (`//`, `/* */`), text blocks (`"""`) and the
    /// insides of its string and character literals not code.
    fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let mut is_code = vec![true; bytes.len()];
        let mut at = 0;
        while at < bytes.len() {
            let rest = &bytes[at..];
            let end = if rest.starts_with(b"//") {
                at + rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len())
            } else if rest.starts_with(b"/*") {
                at + 2 + find(&rest[2..], b"*/").map_or(rest.len() - 2, |i| i + 2)
            } else if rest.starts_with(b"\"\"\"") {
                at + 3 + find(&rest[3..], b"\"\"\"").map_or(rest.len() - 3, |i| i + 3)
            } else if matches!(rest[0], b'"' | b'\'') {
                at + quoted_len(rest).0
            } else {
                at += 1;
                continue;
            };
            // The quotes of a string stay code, so that a value's bounds
            // are seen; what is between them is not.
            let quoted = matches!(rest[0], b'"' | b'\'');
            let closed = quoted && end > at + 1 && bytes[end - 1] == rest[0];
            let (from, to) = match (quoted, closed) {
                (true, true) => (at + 1, end - 1),
                (true, false) => (at + 1, end),
                (false, _) => (at, end),
            };
            is_code[from..to.max(from)].fill(false);
            at = end;
        }
        Self(SourceCode::new(text, is_code, b"_$"))
    }

    /// The inside of the one string literal `value` is, if it is one.
    fn string(&self, value: Range<usize>) -> Option<Range<usize>> {
        self.0.string(value, b"\"", b"")
    }

    /// The arguments `name = value`, split at the commas between them, each
    /// value's bytes. A lone value is `value`'s.
    fn attributes(&self, arguments: Range<usize>) -> Vec<(&'a str, Range<usize>)> {
        let text = self.text;
        self.split_arguments(arguments)
            .into_iter()
            .filter_map(|part| {
                let written = &text[part.clone()];
                let is_assignment =
                    |i: &usize| self.is_code(part.start + i) && written[*i..].starts_with('=');
                match (0..written.len()).find(is_assignment) {
                    Some(eq) => Some((written[..eq].trim(), part.start + eq + 1..part.end)),
                    None if !written.trim().is_empty() => Some(("value", part)),
                    None => None,
                }
            })
            .collect()
    }

    /// The name of the method declared after byte `from`: the first word
    /// of code followed by `(` that is no annotation's.
    fn method_after(&self, mut from: usize) -> Option<Range<usize>> {
        while let Some(word) = self.next_word(from) {
            from = word.end;
            let is_annotation = self.text[..word.start].ends_with('@');
            let opens = self
                .next_mark(word.end)
                .is_some_and(|i| self.text.as_bytes()[i] == b'(');
            if opens && !is_annotation {
                return Some(word);
            }
            if opens {
                from = self.arguments(word.end)?.end;
            }
        }
        None
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
