//! APScheduler jobs in Python sources, read as `apscheduler` fleet lines.
//!
//! Each `add_job(func, 'cron', hour=3, …)` call and each
//! `@sched.scheduled_job('cron', …)` decorator gives a line: the trigger's
//! keyword arguments as the spec (`cron hour=3 minute=0`), with
//! `jitter=` as `Jitter=`, `timezone=` as `Zone=` and `start_date=` as
//! `Start=`. `'interval'` reads the same way, and a trigger built in the
//! call, `CronTrigger.from_crontab('0 3 * * *')`, `CronTrigger(…)` or
//! `IntervalTrigger(…)`, as its arguments.
//!
//! A job is named by its `id=`, else by its function's name:
//! APScheduler's own default id is a fresh uuid, which no reader would
//! recognise, while the name is the one in the source (a note says so).
//! A job without `timezone=` runs in the scheduler's zone, which the
//! source does not say: it is read as UTC, with a note.
//!
//! Skipped, each with its reason: a `date` trigger (or none, which is
//! one), a trigger built elsewhere (a name), a value that is not a literal
//! written in the call, a `start_date` that is not one, and an argument
//! the trigger does not take. Comments and strings are passed over.

use std::collections::HashMap;
use std::ops::Range;

use stampede_core::field::shorten;

use super::NativeTranslation;
use super::source_code::{SourceCode, quoted_len};
use crate::line::System;
use crate::time::UTC_NAMES;

/// The calls read.
const CALLS: [&str; 2] = ["add_job", "scheduled_job"];
/// `add_job`'s and `scheduled_job`'s own arguments, not the trigger's.
const JOB_ARGUMENTS: [&str; 11] = [
    "func",
    "args",
    "kwargs",
    "id",
    "name",
    "misfire_grace_time",
    "coalesce",
    "max_instances",
    "next_run_time",
    "jobstore",
    "executor",
];
const INTERVAL_FIELDS: [&str; 5] = ["weeks", "days", "hours", "minutes", "seconds"];

/// Whether `text` holds an APScheduler call this reads.
pub fn holds(text: &str) -> bool {
    text.contains("add_job(") || text.contains(".scheduled_job(") || text.contains("from_crontab(")
}

/// Translates Python sources into fleet lines.
pub fn translate(text: &str) -> NativeTranslation {
    let mut out = NativeTranslation::default();
    let code = Python::new(text);
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut at = 0;
    while let Some(found) = code.next_word(at) {
        at = found.end;
        let word = &text[found.clone()];
        if !CALLS.contains(&word) {
            continue;
        }
        let Some(arguments) = code.arguments(found.end) else {
            continue;
        };
        at = arguments.end;
        let line = code.line_at(found.start);
        let call = Call::read(&code, arguments);
        let decorated = word == "scheduled_job";
        let id = match call.keyword("id").and_then(|value| code.string(value)) {
            Some(id) => text[id].to_string(),
            None => {
                let named = if decorated {
                    code.def_after(at).map(|name| text[name].to_string())
                } else {
                    call.positional(0).map(|func| {
                        let func = code.string(func.clone()).unwrap_or(func);
                        text[func].trim().to_string()
                    })
                };
                let (id, by) = match named {
                    Some(name) => (name, "its function"),
                    None => (format!("line {line}"), "its line, with no function seen"),
                };
                out.note(
                    line,
                    format!(
                        "named {} by {by}: APScheduler's own id would be a fresh uuid",
                        shorten(&id)
                    ),
                );
                id
            }
        };
        let seen = ids.entry(id.clone()).or_default();
        *seen += 1;
        let id = if *seen > 1 {
            format!("{id}#{seen}")
        } else {
            id
        };
        match read_job(&code, &call, usize::from(!decorated)) {
            Ok(job) => {
                for note in job.notes {
                    out.note(line, note);
                }
                let options: Vec<(&str, &str)> = job
                    .options
                    .iter()
                    .map(|(key, value)| (*key, value.as_str()))
                    .collect();
                out.push_at(
                    job.source,
                    line,
                    System::Apscheduler,
                    &id,
                    &job.spec,
                    &options,
                );
            }
            Err((field, why)) => out.skip(line, &field, why),
        }
        if out.is_full() {
            break;
        }
    }
    out
}

/// The arguments of a call: positional values and `name=value` pairs,
/// with each value's bytes and each pair's.
struct Call<'a> {
    positional: Vec<Range<usize>>,
    keywords: Vec<Keyword<'a>>,
}

struct Keyword<'a> {
    name: &'a str,
    value: Range<usize>,
    /// `name=value`, from the name to the value's end.
    whole: Range<usize>,
}

impl<'a> Call<'a> {
    fn read(code: &Python<'a>, arguments: Range<usize>) -> Self {
        let mut call = Call {
            positional: Vec::new(),
            keywords: Vec::new(),
        };
        for part in code.split_arguments(arguments) {
            let text = &code.text[part.clone()];
            let start = part.start + (text.len() - text.trim_start().len());
            let end = part.start + text.trim_end().len();
            if start >= end {
                continue;
            }
            let trimmed = &code.text[start..end];
            let name_len = trimmed
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(trimmed.len());
            let after = trimmed[name_len..].trim_start();
            if name_len > 0 && after.starts_with('=') && !after.starts_with("==") {
                let eq = start + name_len + (trimmed[name_len..].len() - after.len());
                call.keywords.push(Keyword {
                    name: &code.text[start..start + name_len],
                    value: eq + 1..end,
                    whole: start..end,
                });
            } else {
                call.positional.push(start..end);
            }
        }
        call
    }

    fn keyword(&self, name: &str) -> Option<Range<usize>> {
        self.keywords
            .iter()
            .find(|keyword| keyword.name == name)
            .map(|keyword| keyword.value.clone())
    }

    fn positional(&self, at: usize) -> Option<Range<usize>> {
        self.positional.get(at).cloned()
    }
}

/// What a trigger argument is.
enum TriggerKind<'a> {
    /// `'cron'`, `'interval'` or another name: its arguments are the
    /// call's own.
    Named(&'a str),
    /// `CronTrigger.from_crontab('…')`: the expression's bytes and the
    /// call's arguments.
    Crontab(Range<usize>, Call<'a>),
    /// `CronTrigger(…)` or `IntervalTrigger(…)`, with its arguments.
    Built(&'static str, Call<'a>),
}

/// The trigger `value` names, or why it is not read.
fn trigger_kind<'a>(code: &Python<'a>, value: Range<usize>) -> Result<TriggerKind<'a>, String> {
    if let Some(name) = code.string(value.clone()) {
        return Ok(TriggerKind::Named(&code.text[name]));
    }
    let text = &code.text[value.clone()];
    let call = |prefix: &str| {
        text.strip_prefix(prefix)
            .filter(|rest| rest.trim_start().starts_with('('))
            .and_then(|_| code.arguments(value.start + prefix.len()))
            .map(|arguments| Call::read(code, arguments))
    };
    for prefix in ["CronTrigger.from_crontab", "from_crontab"] {
        if let Some(inner) = call(prefix) {
            let expression = inner
                .positional(0)
                .or_else(|| inner.keyword("expr"))
                .and_then(|expr| code.string(expr))
                .ok_or("from_crontab's expression is not a string written here")?;
            return Ok(TriggerKind::Crontab(expression, inner));
        }
    }
    for (prefix, kind) in [("CronTrigger", "cron"), ("IntervalTrigger", "interval")] {
        if let Some(inner) = call(prefix) {
            return Ok(TriggerKind::Built(kind, inner));
        }
    }
    Err(format!(
        "the trigger is {}, not one written in the call",
        shorten(text)
    ))
}

/// A job read: its spec, options and the bytes a fix rewrites.
struct Job {
    spec: String,
    options: Vec<(&'static str, String)>,
    source: Option<Range<usize>>,
    notes: Vec<String>,
}

/// One call's job, or the field that stops it and why.
fn read_job(code: &Python, call: &Call, trigger_at: usize) -> Result<Job, (String, String)> {
    // `*args` or `**options` may hold the trigger and its fields.
    if let Some(spread) = call
        .positional
        .iter()
        .find(|value| code.text[(*value).clone()].starts_with('*'))
    {
        return Err((
            "arguments".to_string(),
            format!(
                "{} passes arguments this does not see: only those written in the call are read",
                shorten(&code.text[spread.clone()])
            ),
        ));
    }
    let trigger = call
        .keyword("trigger")
        .or_else(|| call.positional(trigger_at))
        .ok_or_else(|| {
            (
                "trigger".to_string(),
                "no trigger: APScheduler runs the job once, as a date trigger; only cron and \
                 interval triggers repeat"
                    .to_string(),
            )
        })?;
    let kind = trigger_kind(code, trigger).map_err(|why| ("trigger".to_string(), why))?;
    let built_here = !matches!(kind, TriggerKind::Named(_));
    let mut job = match kind {
        TriggerKind::Named(name) => read_arguments(code, name, call, None),
        TriggerKind::Crontab(expression, inner) => {
            read_arguments(code, "crontab", &inner, Some(expression))
        }
        TriggerKind::Built(name, inner) => read_arguments(code, name, &inner, None),
    }?;
    if built_here
        && let Some(ignored) = call
            .keywords
            .iter()
            .find(|keyword| !is_job_argument(keyword.name))
    {
        job.notes.push(format!(
            "{}= beside a trigger built in the call is ignored by APScheduler",
            shorten(ignored.name)
        ));
    }
    Ok(job)
}

fn is_job_argument(name: &str) -> bool {
    JOB_ARGUMENTS.contains(&name) || matches!(name, "trigger" | "replace_existing")
}

/// The trigger `kind`'s arguments in `call`: its fields as the spec, its
/// zone, jitter and start as options.
fn read_arguments(
    code: &Python,
    kind: &str,
    call: &Call,
    crontab: Option<Range<usize>>,
) -> Result<Job, (String, String)> {
    let refuse = |field: &str, why: String| (field.to_string(), why);
    let fields = trigger_fields(kind)?;
    let mut spec = match &crontab {
        Some(expression) => format!("crontab {}", &code.text[expression.clone()]),
        None => kind.to_string(),
    };
    let day_of_week = crontab
        .as_ref()
        .and_then(|expression| code.text[expression.clone()].split_whitespace().nth(4));
    let mut notes = Vec::new();
    if let Some(days) = day_of_week.filter(|days| days.contains(|c: char| c.is_ascii_digit())) {
        notes.push(format!(
            "from_crontab hands {} to day_of_week as written: APScheduler 3 counts from \
             Monday 0, so cron's Sunday 0 is Monday here (4.x counts as cron does)",
            shorten(days)
        ));
    }
    let mut job = Job {
        spec: String::new(),
        options: Vec::new(),
        source: crontab.clone(),
        notes,
    };
    let (mut zone, mut start) = (None, None);
    let mut fields_span: Option<Range<usize>> = None;
    for keyword in &call.keywords {
        let name = keyword.name;
        let value = keyword.value.clone();
        let literal = || {
            code.literal(value.clone()).ok_or_else(|| {
                refuse(
                    name,
                    format!(
                        "the {name} is {}, not a literal written here",
                        shorten(code.text[value.clone()].trim())
                    ),
                )
            })
        };
        match name {
            _ if is_job_argument(name) || (crontab.is_some() && name == "expr") => {}
            "timezone" => zone = Some(literal()?),
            "jitter" if crontab.is_none() => {
                job.options.push(("Jitter", number(literal()?, name)?))
            }
            "start_date" if crontab.is_none() => start = Some(literal()?),
            "end_date" if crontab.is_none() => job
                .notes
                .push("end_date is not read: starts after it are shown".into()),
            _ if fields.contains(&name) => {
                let value = literal()?;
                let written = if kind == "interval" {
                    number(value, name)?
                } else {
                    crate::apscheduler::written_value(&value)
                };
                spec.push_str(&format!(" {name}={written}"));
                let span = fields_span.get_or_insert(keyword.whole.clone());
                *span = span.start.min(keyword.whole.start)..span.end.max(keyword.whole.end);
            }
            _ => {
                return Err(refuse(
                    name,
                    format!(
                        "{} takes no argument {}",
                        if crontab.is_some() {
                            "from_crontab"
                        } else {
                            kind
                        },
                        shorten(name)
                    ),
                ));
            }
        }
    }
    if kind == "cron" {
        job.source = fields_span;
    }
    job.spec = spec;
    place(job, kind, zone, start)
}

/// The time fields trigger `kind` takes, or why it is not read.
fn trigger_fields(kind: &str) -> Result<&'static [&'static str], (String, String)> {
    let refuse = |why: String| ("trigger".to_string(), why);
    match kind {
        "cron" => Ok(&crate::apscheduler::CRON_FIELD_NAMES),
        "interval" => Ok(&INTERVAL_FIELDS),
        "crontab" => Ok(&[]),
        "date" => Err(refuse(
            "a date trigger runs once, at its run_date; only cron and interval triggers repeat"
                .into(),
        )),
        other => Err(refuse(format!(
            "'{}' is not a trigger APScheduler 3 names: cron, interval or date",
            shorten(other)
        ))),
    }
}

/// `job` with its zone and start as options, and the notes on what the
/// source leaves to the running scheduler.
fn place(
    mut job: Job,
    kind: &str,
    zone: Option<String>,
    start: Option<String>,
) -> Result<Job, (String, String)> {
    match zone {
        Some(zone) if !UTC_NAMES.contains(&zone.as_str()) => {
            job.options.push(("Zone", zone));
        }
        Some(_) => {}
        None if kind != "interval" => job.notes.push(
            "no timezone: APScheduler runs it in the scheduler's zone (the machine's by \
             default), placed here as UTC"
                .into(),
        ),
        None => {}
    }
    // Without one, the line's own notice says where an interval counts
    // from.
    if let Some(text) = start {
        let zone = job.options.iter().find(|(key, _)| *key == "Zone");
        let at = start_instant(&text, zone.map(|(_, zone)| zone.as_str()))
            .map_err(|why| ("start_date".to_string(), why))?;
        job.options.push(("Start", at));
    }
    Ok(job)
}

/// A literal number of seconds (or units) as written, or why not.
fn number(text: String, name: &str) -> Result<String, (String, String)> {
    let digits = text.replace('_', "");
    let plain = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && digits.matches('.').count() <= 1;
    if plain {
        Ok(digits)
    } else {
        Err((
            name.to_string(),
            format!("{} is not a number of {name} written here", shorten(&text)),
        ))
    }
}

/// `start_date` as APScheduler reads a string (`convert_to_datetime`): a
/// date, or a date and time, with an offset or in the trigger's zone;
/// as RFC 3339 in UTC.
fn start_instant(text: &str, zone: Option<&str>) -> Result<String, String> {
    let text = text.trim().replacen(' ', "T", 1);
    let refused = || {
        format!(
            "\"{}\" is not a date or a date and time such as 2026-01-01 03:00:00",
            shorten(&text)
        )
    };
    let seconds = match text.parse::<jiff::Timestamp>() {
        Ok(at) => at.as_second(),
        Err(_) => {
            let civil = text
                .parse::<jiff::civil::DateTime>()
                .map_err(|_| refused())?;
            let zone = match zone {
                Some(name) => {
                    crate::zoned::time_zone(name, "timezone").map_err(|refusal| refusal.reason)?
                }
                None => jiff::tz::TimeZone::UTC,
            };
            zone.to_ambiguous_zoned(civil)
                .compatible()
                .map_err(|_| refused())?
                .timestamp()
                .as_second()
        }
    };
    Ok(crate::time::format(seconds))
}

/// A Python source ([`SourceCode`]) with what reading Python's values
/// adds to it.
struct Python<'a>(SourceCode<'a>);

impl<'a> std::ops::Deref for Python<'a> {
    type Target = SourceCode<'a>;

    fn deref(&self) -> &SourceCode<'a> {
        &self.0
    }
}

impl<'a> Python<'a> {
    /// `text`, its comments (`#` to the line's end) and the insides of its
    /// strings (quoted once on a line, or thrice across lines) not code.
    fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let mut is_code = vec![true; bytes.len()];
        let mut at = 0;
        while at < bytes.len() {
            let rest = &bytes[at..];
            if rest[0] == b'#' {
                let end = at + rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                is_code[at..end].fill(false);
                at = end;
            } else if matches!(rest[0], b'"' | b'\'') {
                let quote = rest[0];
                let (open, inner_end, end) = if rest.starts_with(&[quote; 3]) {
                    match rest[3..].windows(3).position(|w| w == [quote; 3]) {
                        Some(length) => (3, at + 3 + length, at + 6 + length),
                        None => (3, bytes.len(), bytes.len()),
                    }
                } else {
                    let (length, closed) = quoted_len(rest);
                    (1, at + length - usize::from(closed), at + length)
                };
                is_code[at + open..inner_end].fill(false);
                at = end;
            } else {
                at += 1;
            }
        }
        Self(SourceCode::new(text, is_code, b"_"))
    }

    /// The inside of the one plain string literal `value` is (`'…'`,
    /// `"…"`, an `r` or `u` prefix allowed), without escapes.
    fn string(&self, value: Range<usize>) -> Option<Range<usize>> {
        let inside = self.0.string(value, b"\"'", b"rRuU")?;
        let bytes = self.text.as_bytes();
        (!inside.clone().any(|i| bytes[i] == b'\\')).then_some(inside)
    }

    /// A string's text, or an integer or decimal number as written.
    fn literal(&self, value: Range<usize>) -> Option<String> {
        if let Some(inside) = self.string(value.clone()) {
            return Some(self.text[inside].to_string());
        }
        let text = self.text[value].trim();
        let numeric = !text.is_empty()
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'_'));
        numeric.then(|| text.to_string())
    }

    /// The name of the function a decorator ending at byte `from`
    /// decorates: after `def`, among the next few words (other
    /// decorators may come between), so a paste of decorators alone is
    /// not searched to its end from each.
    fn def_after(&self, mut from: usize) -> Option<Range<usize>> {
        for _ in 0..64 {
            let word = self.next_word(from)?;
            from = word.end;
            if &self.text[word] == "def" {
                return self.next_word(from);
            }
        }
        None
    }
}
