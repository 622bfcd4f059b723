//! The fix written back into the text a fleet was read from, in its own
//! format: only what the fix sets changes; every other byte, comments,
//! blank lines, blanks between fields and line endings included, stays.
//!
//! [`rewrite`] hands the fix to the writer of the text's format:
//!
//! - fleet files: the spec field, and each option replaced where it
//!   stands or added after the others;
//! - crontabs: the five time fields (or the `@` macro);
//! - Jenkinsfiles: the spec line inside the trigger's string, quotes kept;
//! - APScheduler's Python calls: the minute and hour keyword arguments
//!   (`minute=37`), each replaced where it stands in its own quoting or
//!   added after the trigger's other fields, or `from_crontab`'s string;
//! - a job's `config.xml`: the spec line inside `<spec>`, escaped as XML;
//! - CronJob, workflow and sidekiq-cron YAML: the schedule (`cron`) scalar, in its own quoting; a
//!   new spec a plain scalar cannot hold as it is (one starting with an
//!   indicator such as `*` or `@`, or holding `: `, ` #` or any of
//!   `,[]{}`) is double-quoted, the YAML style that can escape anything;
//! - `.timer` units ([`systemd`]): each option replaced in the unit's
//!   `[Timer]` section, or added after the `OnCalendar=` line;
//! - Temporal JSON ([`temporal`]): the spec's `jitter`;
//! - EventBridge Scheduler schedules ([`eventbridge`]): the flexible
//!   window;
//! - an anacrontab ([`anacrontab`]): `RANDOM_DELAY`;
//! - `prometheus.yml`: nothing, since Prometheus spreads its own scrapes.
//!
//! A fix the format cannot hold is refused, naming the format and why.

pub mod anacrontab;
pub mod eventbridge;
mod scalar;
pub mod systemd;
pub mod temporal;

use std::collections::HashMap;
use std::ops::Range;

use stampede_core::error::InvalidInput;
use stampede_core::fleet_format::FleetFormat;
use stampede_core::line_ends;

use super::{FixChange, LineFix};
use crate::file;
use crate::import::{
    self, NativeTranslation, apscheduler_py, github_actions, jenkins, jenkins_xml, kubernetes,
    quartz_xml, sidekiq_schedule, spring_scheduled,
};

/// A format's editor of one rewritten line: the line without its ending,
/// the new spec and the options to set, to the line's new text.
type LineEditor = fn(&str, &str, &[(String, String)]) -> Result<String, InvalidInput>;

/// A format's writer of a new spec over the native text of the old one,
/// or why it cannot be written there.
type SpecWriter = fn(&str, &str) -> Result<String, String>;

/// `text`, in `format`, with every rewritten line of `fixes` written; for
/// `auto`, each of its parts ([`import::parts`]) in its own format.
pub fn rewrite(text: &str, format: FleetFormat, fixes: &[LineFix]) -> Result<String, InvalidInput> {
    // Line numbers are the importer's, which reads the normalised text.
    let normalised = line_ends::normalise(text);
    let text = &*normalised.text;
    if format != FleetFormat::Auto {
        return rewrite_as(text, format, fixes).map(|written| normalised.restore(written));
    }
    // By line, stably, so each part finds its own fixes by bisection and
    // the several fixes of one native line keep their order.
    let mut fixes = fixes.to_vec();
    fixes.sort_by_key(|fix| fix.line);
    let mut out = String::with_capacity(text.len());
    for part in import::parts::parts(text) {
        let shift = part.first_line - 1;
        let from = fixes.partition_point(|fix| fix.line <= shift);
        let to = fixes.partition_point(|fix| fix.line <= part.last_line());
        let here = &fixes[from..to];
        let part_text = &text[part.bytes.clone()];
        if rewritten(here).next().is_none() {
            out.push_str(part_text);
            continue;
        }
        let local: Vec<LineFix> = here
            .iter()
            .map(|fix| LineFix {
                line: fix.line - shift,
                change: fix.change.clone(),
            })
            .collect();
        match rewrite_as(part_text, part.format, &local) {
            Ok(written) => out.push_str(&written),
            // A refusal names its line in the whole text: blank lines
            // before the part give every line that number. Only a refusal
            // pays for them, so many parts stay one pass.
            Err(refusal) => {
                let padded = "\n".repeat(shift) + part_text;
                return Err(rewrite_as(&padded, part.format, here)
                    .err()
                    .unwrap_or(refusal));
            }
        }
    }
    Ok(normalised.restore(out))
}

/// [`rewrite`] of all of `text` in `format`, which is not `auto`.
fn rewrite_as(text: &str, format: FleetFormat, fixes: &[LineFix]) -> Result<String, InvalidInput> {
    let written = write(text, format, fixes);
    if matches!(format, FleetFormat::Fleet | FleetFormat::Crontab) {
        return written;
    }
    // The other writers' refusals say the line; this says the format.
    written.map_err(|refusal| {
        let reason = format!("{}, {}", format.label(), refusal.reason);
        InvalidInput::new(refusal.field, reason)
    })
}

/// [`rewrite`] by the writer of `format`, which is not `auto`.
fn write(text: &str, format: FleetFormat, fixes: &[LineFix]) -> Result<String, InvalidInput> {
    match format {
        FleetFormat::Auto | FleetFormat::Fleet => by_line(text, fixes, fleet_line),
        FleetFormat::Crontab => by_line(text, fixes, crontab_line),
        FleetFormat::Jenkins => {
            specs_in_place(text, jenkins::translate(text), fixes, scalar::source_string)
        }
        FleetFormat::JenkinsXml => {
            specs_in_place(text, jenkins_xml::translate(text), fixes, scalar::xml)
        }
        FleetFormat::QuartzXml => {
            specs_in_place(text, quartz_xml::translate(text), fixes, scalar::xml)
        }
        FleetFormat::SpringScheduled => specs_in_place(
            text,
            spring_scheduled::translate(text),
            fixes,
            scalar::source_string,
        ),
        FleetFormat::Apscheduler => specs_in_place(
            text,
            apscheduler_py::translate(text),
            fixes,
            scalar::python_call,
        ),
        FleetFormat::Kubernetes => {
            specs_in_place(text, kubernetes::translate(text), fixes, scalar::yaml)
        }
        FleetFormat::GithubActions => {
            specs_in_place(text, github_actions::translate(text), fixes, scalar::yaml)
        }
        FleetFormat::SidekiqCron => {
            specs_in_place(text, sidekiq_schedule::translate(text), fixes, scalar::yaml)
        }
        FleetFormat::Systemd => systemd::rewrite(text, fixes),
        FleetFormat::Temporal => temporal::rewrite(text, fixes),
        FleetFormat::EventBridge => eventbridge::rewrite(text, fixes),
        FleetFormat::Anacrontab => anacrontab::rewrite(text, fixes),
        FleetFormat::Prometheus => match rewritten(fixes).next() {
            Some((line, _, _)) => Err(refused(
                line,
                "prometheus.yml holds no start to move: Prometheus spreads its scrapes itself",
            )),
            None => Ok(text.to_string()),
        },
    }
}

/// The options a fix sets.
type Options = [(String, String)];

/// The rewritten fixes: line, spec and options.
fn rewritten<'a>(
    fixes: impl IntoIterator<Item = &'a LineFix>,
) -> impl Iterator<Item = (usize, &'a str, &'a Options)> {
    fixes.into_iter().filter_map(|fix| match &fix.change {
        FixChange::Rewritten { spec, options } => Some((fix.line, spec.as_str(), &options[..])),
        FixChange::Kept { .. } => None,
    })
}

/// A refusal of the fix of native line `line`.
fn refused(line: usize, why: impl std::fmt::Display) -> InvalidInput {
    InvalidInput::new("spec", format!("line {line}: {why}"))
}

/// `text` with each rewritten line edited by `edit`, line for line.
fn by_line(text: &str, fixes: &[LineFix], edit: LineEditor) -> Result<String, InvalidInput> {
    let mut changes = HashMap::with_capacity(fixes.len());
    for fix in fixes {
        changes.entry(fix.line).or_insert(&fix.change);
    }
    let mut out = String::with_capacity(text.len());
    for (line, raw) in (1..).zip(text.split_inclusive('\n')) {
        let body = raw.strip_suffix('\n').unwrap_or(raw);
        let body = body.strip_suffix('\r').unwrap_or(body);
        match changes.get(&line) {
            Some(FixChange::Rewritten { spec, options }) => {
                out.push_str(&edit(body, spec, options)?);
                out.push_str(&raw[body.len()..]);
            }
            _ => out.push_str(raw),
        }
    }
    Ok(out)
}

/// `text` with the spec of each rewritten fleet line written by `write`
/// over the bytes the importer read it from, each fix paired with its
/// line as [`super::pair`] pairs them.
fn specs_in_place(
    text: &str,
    translation: NativeTranslation,
    fixes: &[LineFix],
    write: SpecWriter,
) -> Result<String, InvalidInput> {
    // A fleet line the fleet reader skips gives no fix.
    let read = translation
        .lines
        .into_iter()
        .filter(|translated| !file::parse(&translated.fleet).lines.is_empty())
        .map(|translated| (translated.line, (translated.line, translated.source)));
    let (paired, unpaired) = super::pair(read, fixes);
    if let Some((line, _, _)) = rewritten(unpaired).next() {
        return Err(refused(line, "no schedule read there to rewrite"));
    }
    let mut edits = Vec::new();
    for ((line, source), change) in paired {
        let Some(FixChange::Rewritten { spec, .. }) = change else {
            continue;
        };
        let Some(range) = source.filter(|range| !text[range.clone()].contains('\n')) else {
            return Err(refused(
                line,
                "the schedule is not written on one line, so it is not rewritten",
            ));
        };
        let written = write(&text[range.clone()], spec).map_err(|why| refused(line, why))?;
        edits.push((range, written));
    }
    apply_edits(text, edits)
}

/// `text` with each range replaced by its text. The same edit twice (an
/// alias read twice, a unit on several machines) is made once; edits that
/// overlap otherwise are refused.
fn apply_edits(text: &str, mut edits: Vec<(Range<usize>, String)>) -> Result<String, InvalidInput> {
    edits.sort_by_key(|(range, _)| (range.start, range.end));
    edits.dedup();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (range, written) in edits {
        if range.start < at {
            let line = text[..range.start].matches('\n').count() + 1;
            return Err(refused(line, "two fixes rewrite the same text differently"));
        }
        out.push_str(&text[at..range.start]);
        out.push_str(&written);
        at = range.end;
    }
    out.push_str(&text[at..]);
    Ok(out)
}

/// The one value of a setting several fixed lines share (a unit's delay,
/// a schedule's jitter): theirs when they agree, else the shortest by
/// `span`, which spreads every line without reaching past any one's gap.
fn shared_value<'a>(
    key: &str,
    values: &[&'a str],
    span: impl Fn(&str) -> Option<u64>,
) -> Result<&'a str, String> {
    let Some(&first) = values.first() else {
        return Err(format!("no value for {key}="));
    };
    if values.iter().all(|value| *value == first) {
        return Ok(first);
    }
    let mut spans = Vec::with_capacity(values.len());
    for value in values {
        let length = span(value).ok_or_else(|| {
            format!("lines that share {key}= need {first} and {value}, which do not compare")
        })?;
        spans.push((length, *value));
    }
    Ok(spans.iter().min().map_or(first, |(_, value)| value))
}

/// Where the value of a `key=value` setting stands, blanks around it
/// left out; `None` without an `=`.
fn value_range(setting: &str) -> Option<Range<usize>> {
    let after = setting.find('=')? + 1;
    let start = setting.len() - setting[after..].trim_start().len();
    Some(start..setting.trim_end().len().max(start))
}

/// Each line of `text`: where it starts, where its text ends (before
/// `\n` or `\r\n`) and where the next begins.
fn line_bounds(text: &str) -> Vec<(usize, usize, usize)> {
    let mut at = 0;
    text.split_inclusive('\n')
        .map(|raw| {
            let body = raw.strip_suffix('\n').unwrap_or(raw);
            let body = body.strip_suffix('\r').unwrap_or(body);
            let bounds = (at, at + body.len(), at + raw.len());
            at += raw.len();
            bounds
        })
        .collect()
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
        match given.and_then(|field| Some((value_range(field)?, field))) {
            Some((range, field)) => field.replace_range(range, value),
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
