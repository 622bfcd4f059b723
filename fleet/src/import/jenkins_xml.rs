//! Jenkins job `config.xml` files, read as `jenkins` fleet lines.
//!
//! A job's configuration (`$JENKINS_HOME/jobs/NAME/config.xml`) holds its
//! timer as `<hudson.triggers.TimerTrigger><spec>…</spec>`, the text a
//! Jenkinsfile's `cron` trigger holds: each line a spec of its own, blank
//! and `#` lines passed over, `TZ=` setting the zone of the lines after
//! it, read here as [`super::jenkins`] reads a trigger's string.
//!
//! The job's full name, which Jenkins hashes into every `H`, is not in the
//! file but in its path, so a `# file: jobs/team/jobs/nightly/config.xml`
//! line before each file names job `team/nightly`. A file without one is
//! read as job [`super::jenkins::DEFAULT_JOB`], with a note.
//!
//! Nothing else is read as a schedule, and nothing is passed over without
//! a word: an SCM trigger's `<spec>` (a polling schedule: a build starts
//! only after a change), a job with no timer, XML that is not a job's
//! configuration, and XML that is not well formed are each skipped, with
//! what they are. DTDs are refused, so no entity expands.

use std::ops::Range;

use roxmltree::{Document, Node, ParsingOptions};

use super::jenkins::{DEFAULT_JOB, SpecLine, read_spec};
use super::{NativeTranslation, split_files};

/// The line that names the file after it.
pub const FILE_MARK: &str = "# file:";

/// The most XML nodes one file holds; a job's configuration has hundreds.
const MOST_NODES: u32 = 200_000;

/// The root elements of Jenkins jobs' configurations: freestyle, Pipeline,
/// matrix and Maven jobs.
const JOB_ROOTS: [&str; 4] = [
    "project",
    "flow-definition",
    "matrix-project",
    "maven2-moduleset",
];

const TIMER_TRIGGER: &str = "hudson.triggers.TimerTrigger";
const SCM_TRIGGER: &str = "hudson.triggers.SCMTrigger";

/// Translates job configurations into fleet lines.
pub fn translate(text: &str) -> NativeTranslation {
    let mut out = NativeTranslation::default();
    for part in split_files(text, FILE_MARK) {
        let offset = part.text.as_ptr() as usize - text.as_ptr() as usize;
        if part.text.trim().is_empty() {
            continue;
        }
        let job = part.name.and_then(|(_, path)| job_name(path));
        read_file(part.text, offset, part.first_line, job, &mut out);
        if out.is_full() {
            break;
        }
    }
    out
}

/// The job a `jobs/a/jobs/b/config.xml` path names, `a/b`; `None` for a
/// path that names no job.
fn job_name(path: &str) -> Option<String> {
    let mut segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if segments.pop() != Some("config.xml") {
        return None;
    }
    let names: Vec<&str> = segments
        .windows(2)
        .filter(|pair| pair[0] == "jobs")
        .map(|pair| pair[1])
        .collect();
    (!names.is_empty()).then(|| names.join("/"))
}

/// Reads one file, `text`, which starts at byte `offset` and on line
/// `first_line` of the paste.
fn read_file(
    text: &str,
    offset: usize,
    first_line: usize,
    job: Option<String>,
    out: &mut NativeTranslation,
) {
    let options = ParsingOptions {
        allow_dtd: false,
        nodes_limit: MOST_NODES,
    };
    // Comments after the root (the paste's, not the file's) are no XML.
    let text = &text[..xml_end(text)];
    let line_at = |byte: usize| first_line + text[..byte].matches('\n').count();
    let document = match Document::parse_with_options(text, options) {
        Ok(document) => document,
        Err(error) => {
            let line = first_line + error.pos().row as usize - 1;
            out.skip(line, "xml", format!("not well-formed XML: {error}"));
            return;
        }
    };
    let root = document.root_element();
    let root_line = line_at(root.range().start);
    let name = root.tag_name().name();
    if !JOB_ROOTS.contains(&name) {
        out.skip(
            root_line,
            "xml",
            format!(
                "an XML file whose root is <{name}>, not a Jenkins job's config.xml \
                 (<project>, <flow-definition>, …)"
            ),
        );
        return;
    }
    let mut timers = 0;
    for trigger in root.descendants().filter(Node::is_element) {
        let kind = trigger.tag_name().name();
        if kind != TIMER_TRIGGER && kind != SCM_TRIGGER {
            continue;
        }
        let Some(spec) = trigger.children().find(|child| child.has_tag_name("spec")) else {
            out.skip(
                line_at(trigger.range().start),
                "spec",
                format!("<{kind}> has no <spec>"),
            );
            continue;
        };
        if kind == SCM_TRIGGER {
            out.skip(
                line_at(spec.range().start),
                "spec",
                "an SCM trigger polls the repository on this schedule; a build starts only \
                 after a change, so it is not read as a start",
            );
            continue;
        }
        timers += 1;
        let lines = spec_lines(text, &spec, offset, line_at(spec.range().start));
        for spec_line in read_spec(lines, job.as_deref(), out) {
            if job.is_none() {
                out.note(
                    spec_line,
                    format!(
                        "no \"{FILE_MARK} jobs/NAME/config.xml\" line names this job, so its H \
                         fields hash the name {DEFAULT_JOB}"
                    ),
                );
            }
        }
    }
    if timers == 0 {
        out.skip(
            root_line,
            "triggers",
            format!("a Jenkins job with no timer trigger (<{TIMER_TRIGGER}>): nothing starts it on a schedule"),
        );
    }
}

/// Where `text` ends once trailing blank and `#` lines are left out.
pub(super) fn xml_end(text: &str) -> usize {
    let mut end = 0;
    let mut at = 0;
    for raw in text.split_inclusive('\n') {
        at += raw.len();
        let line = raw.trim();
        if !line.is_empty() && !line.starts_with('#') {
            end = at;
        }
    }
    end
}

/// The lines of a `<spec>` element's text, each with its line in the
/// paste and its bytes there when it is written plainly (no CDATA).
fn spec_lines(text: &str, spec: &Node, offset: usize, first_line: usize) -> Vec<SpecLine> {
    let body = spec.first_child().filter(|child| child.is_text());
    let Some(body) = body else {
        return Vec::new();
    };
    let range = body.range();
    let raw = &text[range.clone()];
    if raw.contains("<![CDATA[") {
        let first = first_line + text[spec.range().start..range.start].matches('\n').count();
        return body
            .text()
            .unwrap_or("")
            .split('\n')
            .enumerate()
            .map(|(index, line)| SpecLine {
                line: first + index,
                text: line.trim_end_matches('\r').to_string(),
                source: None,
            })
            .collect();
    }
    let first = first_line + text[spec.range().start..range.start].matches('\n').count();
    let mut at = range.start;
    raw.split('\n')
        .enumerate()
        .map(|(index, line)| {
            let source: Range<usize> = offset + at..offset + at + line.trim_end_matches('\r').len();
            at += line.len() + 1;
            SpecLine {
                line: first + index,
                text: unescape(line.trim_end_matches('\r')),
                source: Some(source),
            }
        })
        .collect()
}

/// XML's five named entities and character references, read.
fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let Some(end) = rest.find(';') else {
            break;
        };
        let entity = &rest[1..end];
        let read = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|dec| dec.parse().ok()))
                .and_then(char::from_u32),
        };
        match read {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}
