//! The fix written back into the text a fleet was read from, in its own
//! format: only the spec (and, in a fleet file, the options) of each
//! rewritten line changes; every other byte, comments, blank lines, blanks
//! between fields and line endings included, stays.
//!
//! [`rewrite`] takes the format the text is in and hands each rewritten
//! line to that format's editor. Fleet files and crontabs have one; a fix
//! of the other formats' text (Jenkinsfiles, `.timer` units, Prometheus,
//! Kubernetes and GitHub Actions YAML, Temporal JSON) is refused, naming
//! the format, until an editor of each plugs in beside them.

use crate::error::InvalidInput;

use super::super::import::{self, FleetFormat};
use super::{FixChange, LineFix};

/// A format's editor of one rewritten line: the line without its ending,
/// the new spec and the options to set, to the line's new text.
type LineEditor = fn(&str, &str, &[(String, String)]) -> Result<String, InvalidInput>;

/// `text`, in `format`, with every rewritten line of `fixes` edited.
pub fn rewrite(text: &str, format: FleetFormat, fixes: &[LineFix]) -> Result<String, InvalidInput> {
    let edit: LineEditor = match format {
        FleetFormat::Auto => return rewrite(text, import::detect(text), fixes),
        FleetFormat::Fleet => fleet_line,
        FleetFormat::Crontab => crontab_line,
        other => {
            return Err(InvalidInput::new(
                "format",
                format!(
                    "a fix is written back into fleet files and crontabs only, not into {}",
                    other.label()
                ),
            ));
        }
    };
    let mut out = String::with_capacity(text.len());
    for (index, raw) in text.split_inclusive('\n').enumerate() {
        let body = raw.strip_suffix('\n').unwrap_or(raw);
        let body = body.strip_suffix('\r').unwrap_or(body);
        let change = fixes
            .iter()
            .find(|fix| fix.line == index + 1)
            .map(|fix| &fix.change);
        match change {
            Some(FixChange::Rewritten { spec, options }) => {
                out.push_str(&edit(body, spec, options)?);
                out.push_str(&raw[body.len()..]);
            }
            _ => out.push_str(raw),
        }
    }
    Ok(out)
}

/// A fleet-file line with its spec field and the options set: a given
/// option's value is replaced where it stands, a new one is added at the
/// end, each after a tab.
fn fleet_line(
    body: &str,
    spec: &str,
    options: &[(String, String)],
) -> Result<String, InvalidInput> {
    let mut fields: Vec<String> = body.split('\t').map(str::to_string).collect();
    let Some(spec_field) = fields.get_mut(2) else {
        return Err(InvalidInput::new(
            "spec",
            "the line has no spec field to rewrite",
        ));
    };
    *spec_field = retext(spec_field, spec);
    for (key, value) in options {
        let given = fields[3..].iter_mut().find(|field| {
            field
                .split_once('=')
                .is_some_and(|(given, _)| given.trim() == key)
        });
        match given {
            Some(field) => {
                let after = field.find('=').map_or(0, |at| at + 1);
                let value_at = field.len() - field[after..].trim_start().len();
                let end = field.trim_end().len().max(value_at);
                field.replace_range(value_at..end, value);
            }
            None => fields.push(format!("{key}={value}")),
        }
    }
    Ok(fields.join("\t"))
}

/// A crontab line with its time fields (five, or one `@` macro) replaced.
fn crontab_line(
    body: &str,
    spec: &str,
    _options: &[(String, String)],
) -> Result<String, InvalidInput> {
    let start = body.len() - body.trim_start().len();
    let count = if body[start..].starts_with('@') { 1 } else { 5 };
    let spans = token_spans(body);
    let Some(&(_, end)) = spans.get(count - 1) else {
        return Err(InvalidInput::new(
            "spec",
            "the line has no time fields to rewrite",
        ));
    };
    let mut out = String::with_capacity(body.len() + spec.len());
    out.push_str(&body[..start]);
    out.push_str(&retext(&body[start..end], spec));
    out.push_str(&body[end..]);
    Ok(out)
}

/// Where each blank-separated token of `text` begins and ends.
fn token_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut begin = None;
    for (at, c) in text.char_indices() {
        match (c.is_whitespace(), begin) {
            (true, Some(from)) => {
                spans.push((from, at));
                begin = None;
            }
            (false, None) => begin = Some(at),
            _ => {}
        }
    }
    if let Some(from) = begin {
        spans.push((from, text.len()));
    }
    spans
}

/// `text` rewritten to hold `new`'s tokens. With as many tokens in both,
/// each token that differs is replaced where it stands and the blanks
/// between them stay; otherwise everything from the first token to the
/// last becomes `new`.
pub fn retext(text: &str, new: &str) -> String {
    let spans = token_spans(text);
    let tokens: Vec<&str> = new.split_whitespace().collect();
    let (Some(&(first, _)), Some(&(_, last))) = (spans.first(), spans.last()) else {
        return new.to_string();
    };
    if spans.len() != tokens.len() {
        return format!("{}{new}{}", &text[..first], &text[last..]);
    }
    let mut out = String::with_capacity(text.len() + new.len());
    let mut at = 0;
    for (&(begin, end), token) in spans.iter().zip(tokens) {
        out.push_str(&text[at..begin]);
        out.push_str(token);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retext_keeps_the_blanks_between_tokens() {
        assert_eq!(retext(" 0  0\t* * * ", "17 5 * * *"), " 17  5\t* * * ");
        assert_eq!(retext("@daily", "17 5 * * *"), "17 5 * * *");
        assert_eq!(retext("", "H * * * *"), "H * * * *");
    }

    #[test]
    fn options_are_replaced_where_they_stand_or_added() {
        let options = [
            ("FixedRandomDelay".to_string(), "yes".to_string()),
            ("RandomizedDelaySec".to_string(), "1h".to_string()),
        ];
        let line = fleet_line(
            "systemd\tb.timer\thourly\tFixedRandomDelay = no \tWeight=2",
            "hourly",
            &options,
        )
        .unwrap();
        assert_eq!(
            line,
            "systemd\tb.timer\thourly\tFixedRandomDelay = yes \tWeight=2\tRandomizedDelaySec=1h"
        );
    }
}
