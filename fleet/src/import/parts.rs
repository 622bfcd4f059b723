//! A paste that mixes formats, cut into parts that are each in one.
//!
//! Readers paste what they have: a crontab, then a few Jenkinsfiles, then
//! the timers of one host. [`parts`] walks the lines once and starts a new
//! part where a line can only belong to another format:
//!
//! - a marker line: `// job: NAME` starts a Jenkinsfile; `# file: NAME`
//!   starts a file whose format its name tells (`*.timer`, `*.service`,
//!   `config.xml`, `Jenkinsfile*`, `*.java`, `*.kt`, `.github/workflows/*`,
//!   `*.json`) or, when it does not, its first line that opens a part;
//! - a unit's section header (`[Timer]`, `[Unit]`, …) or `# machines:`;
//! - `pipeline {`, `node {`, `properties(`, `triggers {` or a `cron(` call
//!   (a Jenkinsfile), `package`, `import` or `@Scheduled` (a Java or Kotlin
//!   source);
//! - a YAML document: `---`, or a `key:` or `- key:` at the line's start (`# server:`
//!   and `# version:` too, which only a prometheus.yml reads);
//! - `{` or `[` at a line's start (Temporal JSON), `<` (XML);
//! - a fleet line (a system's name and a tab), or a crontab line (a time
//!   field or `@macro` first, or a `NAME=value` setting).
//!
//! A part goes on while its lines fit it: braces left open in a source
//! or a JSON value, `Key=value` lines in a unit, indented or
//! `key:` lines in YAML, anything up to the next marker in XML. Blank and
//! comment lines stay with the part before them. A YAML part is read as
//! whichever of a CronJob, a prometheus.yml, a workflow or a sidekiq-cron
//! schedule it holds.
//! Neighbouring parts of one format are joined, so units named by
//! `# file:` lines, or Jenkinsfiles by `// job:` lines, read as one text
//! as they would on their own; JSON values and prometheus.yml files are
//! not, since two side by side are no one document.

use std::ops::Range;

use crate::line::System;
use stampede_core::fleet_format::FleetFormat;

use super::{detect, jenkins, prometheus, systemd};

/// A run of whole lines of a paste in one format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// Never [`FleetFormat::Auto`].
    pub format: FleetFormat,
    /// The part's first line, from 1.
    pub first_line: usize,
    /// How many lines it holds.
    pub line_count: usize,
    /// Its bytes in the paste, line endings included.
    pub bytes: Range<usize>,
}

impl Part {
    /// The part's last line.
    pub fn last_line(&self) -> usize {
        self.first_line + self.line_count.max(1) - 1
    }
}

/// What a line of a paste is, as far as cutting needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Fleet,
    Crontab,
    /// Groovy, Java, Kotlin or Python: Jenkinsfiles, sources with Spring's
    /// `@Scheduled` methods, or with APScheduler's jobs.
    Source,
    Xml,
    Systemd,
    Yaml,
    Json,
}

/// A part being gathered.
struct Open {
    /// `None` while it holds only blank and comment lines.
    kind: Option<Kind>,
    first_line: usize,
    start: usize,
}

/// `text` cut into parts, in order, covering every line. Text with no
/// line that tells is one part, in the format [`detect`] gives it.
pub fn parts(text: &str) -> Vec<Part> {
    let mut cut: Vec<(Kind, usize, usize)> = Vec::new();
    let mut open = Open {
        kind: None,
        first_line: 1,
        start: 0,
    };
    let mut depth = Depth::default();
    let mut continued = false;
    let mut at = 0;
    let mut line_count = 0;
    for (index, raw) in text.split_inclusive('\n').enumerate() {
        let number = index + 1;
        line_count = number;
        let line = raw.trim_end_matches(['\n', '\r']);
        let trimmed = line.trim_start();
        let next = if let Some(name) = trimmed.strip_prefix(systemd::FILE_MARK) {
            Some(Step::Marker(kind_of_file(name.trim())))
        } else if trimmed.starts_with(jenkins::JOB_MARK) {
            Some(Step::Marker(Some(Kind::Source)))
        } else {
            step(open.kind, line, &depth, continued).map(Step::Open)
        };
        match next {
            Some(Step::Marker(kind)) => {
                close(&mut cut, &open);
                open = Open {
                    kind,
                    first_line: number,
                    start: at,
                };
                depth = Depth::default();
            }
            Some(Step::Open(kind)) if open.kind.is_none() => open.kind = Some(kind),
            Some(Step::Open(kind)) => {
                close(&mut cut, &open);
                open = Open {
                    kind: Some(kind),
                    first_line: number,
                    start: at,
                };
                depth = Depth::default();
            }
            None => {}
        }
        match open.kind {
            Some(Kind::Source) => depth.groovy(line),
            Some(Kind::Json) => depth.json(line),
            Some(Kind::Xml) => depth.xml(line),
            _ => {}
        }
        continued = open.kind == Some(Kind::Systemd) && line.ends_with('\\');
        at += raw.len();
    }
    close(&mut cut, &open);
    let ends: Vec<usize> = cut
        .iter()
        .skip(1)
        .map(|&(_, _, start)| start)
        .chain([text.len()])
        .collect();
    let mut parts: Vec<Part> = Vec::new();
    for ((kind, first_line, start), end) in cut.into_iter().zip(ends) {
        let format = format_of(kind, &text[start..end]);
        match parts.last_mut() {
            Some(last) if last.format == format && joins(format) => last.bytes.end = end,
            _ => parts.push(Part {
                format,
                first_line,
                line_count: 0,
                bytes: start..end,
            }),
        }
    }
    match parts.first_mut() {
        // Blank and comment lines before the first part are its own.
        Some(first) => {
            first.first_line = 1;
            first.bytes.start = 0;
        }
        None => parts.push(Part {
            format: detect(text),
            first_line: 1,
            line_count,
            bytes: 0..text.len(),
        }),
    }
    for part in &mut parts {
        part.line_count = text[part.bytes.clone()].split_inclusive('\n').count();
    }
    parts
}

/// Files given together (dropped or uploaded at once) as one paste: each
/// after a `# file: NAME` line, which starts its part, names it in the
/// reading, and gives its name to the importers that hash it (a unit's,
/// a workflow's, a job's `config.xml` path). A lone file is as it is,
/// unless it is a unit, whose name systemd hashes; so a lone JSON or
/// crontab file's fix copies back as it came.
pub fn join_files<'a>(files: &[(&'a str, &'a str)]) -> String {
    if let [(name, body)] = files
        && kind_of_file(name) != Some(Kind::Systemd)
    {
        return body.to_string();
    }
    let mut text = String::new();
    for (name, body) in files {
        let name: String = name
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        text.push_str(systemd::FILE_MARK);
        text.push(' ');
        text.push_str(name.trim());
        text.push('\n');
        // Each file's own mark and line ends, not the first file's.
        let body = stampede_core::line_ends::normalise(body).text;
        text.push_str(&body);
        if !body.is_empty() && !body.ends_with('\n') {
            text.push('\n');
        }
    }
    text
}

/// A line that ends the part before it.
enum Step {
    /// A `# file:` or `// job:` line, and the format its name tells.
    Marker(Option<Kind>),
    /// A line that opens a part of this kind.
    Open(Kind),
}

/// Ends `open`: a part of only blank and comment lines is not cut, so
/// its lines join the part before it (or, first of all, the next one).
fn close(cut: &mut Vec<(Kind, usize, usize)>, open: &Open) {
    if let Some(kind) = open.kind {
        cut.push((kind, open.first_line, open.start));
    }
}

/// The kind of the part a `# file:` line names, from the name alone.
fn kind_of_file(name: &str) -> Option<Kind> {
    let base = name.rsplit('/').next().unwrap_or(name);
    if base.ends_with(".timer") || base.ends_with(".service") {
        Some(Kind::Systemd)
    } else if base.ends_with(".xml") {
        Some(Kind::Xml)
    } else if base.starts_with("Jenkinsfile")
        || [".groovy", ".java", ".kt", ".py"]
            .iter()
            .any(|ending| base.ends_with(ending))
    {
        Some(Kind::Source)
    } else if name.contains(".github/workflows/") {
        Some(Kind::Yaml)
    } else if base.ends_with(".json") || base.ends_with(".jsonl") {
        Some(Kind::Json)
    } else {
        None
    }
}

/// The kind of a new part `line` opens, if it cannot go on in a part of
/// `kind`.
fn step(kind: Option<Kind>, line: &str, depth: &Depth, continued: bool) -> Option<Kind> {
    let trimmed = line.trim();
    if trimmed.is_empty() {
        return None;
    }
    let opens = opens(line);
    // A comment that is no marker goes on with the part, the others mark
    // a part of their own.
    let plain_comment = is_comment(trimmed) && opens.is_none();
    let Some(kind) = kind else {
        // Text that tells nothing is read as a crontab, whose reader
        // names each line it cannot read.
        return if plain_comment {
            None
        } else {
            Some(opens.unwrap_or(Kind::Crontab))
        };
    };
    let goes_on = match kind {
        Kind::Source | Kind::Json | Kind::Xml if depth.is_open() => true,
        Kind::Systemd => continued || plain_comment || is_section(trimmed) || is_setting(trimmed),
        // `---` and a prometheus.yml's own comments start a document.
        Kind::Yaml => {
            trimmed != "---"
                && !is_prometheus_mark(trimmed)
                && (opens.is_none_or(|opened| opened == Kind::Yaml) && trimmed.starts_with('#')
                    || line.starts_with([' ', '\t'])
                    || trimmed == "-"
                    || trimmed.starts_with("- ")
                    || trimmed == "..."
                    || is_yaml_key(line))
        }
        // Each JSON value is a part (JSON Lines too), read as YAML's flow
        // style, whose comments start `#`.
        Kind::Json => plain_comment,
        // Between a source's blocks only code goes on, so a stray line
        // after one is read (and named) as a crontab's.
        // An assignment that builds something (`sched =
        // BlockingScheduler()`) is code, where a crontab's setting would
        // hold neither a call nor a quote.
        Kind::Source => {
            let assigns = opens == Some(Kind::Crontab)
                && is_setting(trimmed)
                && trimmed.contains(['(', '\'', '"']);
            (opens.is_none_or(|opened| opened == kind) || assigns)
                && (plain_comment || is_source_statement(trimmed))
        }
        Kind::Xml | Kind::Fleet | Kind::Crontab => opens.is_none_or(|opened| opened == kind),
    };
    if goes_on {
        None
    } else {
        Some(opens.unwrap_or(Kind::Crontab))
    }
}

/// The kind of part a line belongs to on its own, when it tells.
fn opens(line: &str) -> Option<Kind> {
    let trimmed = line.trim();
    if let Some((system, _)) = line.split_once('\t')
        && System::from_slug(&system.trim().to_ascii_lowercase()).is_some()
    {
        return Some(Kind::Fleet);
    }
    if is_section(trimmed) || trimmed.starts_with(systemd::MACHINES_MARK) {
        return Some(Kind::Systemd);
    }
    // A list at the line's start whose first item is a mapping (`- name:
    // hourly`) is YAML too: sidekiq-cron's array of jobs.
    let list_of_mappings = line.strip_prefix("- ").is_some_and(is_yaml_key);
    if trimmed == "---" || is_prometheus_mark(trimmed) || is_yaml_key(line) || list_of_mappings {
        return Some(Kind::Yaml);
    }
    if trimmed.starts_with('#') || trimmed.starts_with("//") || trimmed.starts_with(';') {
        return None;
    }
    if trimmed.starts_with('<') {
        return Some(Kind::Xml);
    }
    if trimmed.starts_with(['{', '[']) {
        return Some(Kind::Json);
    }
    if opens_source(trimmed) {
        return Some(Kind::Source);
    }
    // A crontab's `MAILTO=…` or `CRON_TZ=…`; a unit's settings go on in
    // its part before this is asked.
    if is_setting(trimmed) {
        return Some(Kind::Crontab);
    }
    let mut chars = trimmed.chars();
    let is_crontab = match chars.next()? {
        first if first.is_ascii_digit() => true,
        '*' | '?' => true,
        // `@daily`, not a Groovy annotation such as `@Library`.
        '@' => chars.next().is_some_and(|c| c.is_ascii_lowercase()),
        _ => false,
    };
    is_crontab.then_some(Kind::Crontab)
}

/// `# server:` and `# version:`, which only a prometheus.yml reads.
fn is_prometheus_mark(trimmed: &str) -> bool {
    trimmed.starts_with(prometheus::SERVER_MARK) || trimmed.starts_with(prometheus::VERSION_MARK)
}

fn is_comment(trimmed: &str) -> bool {
    trimmed.starts_with(['#', ';']) || trimmed.starts_with("//")
}

/// `[Timer]`, `[Unit]`: a unit file's section header.
fn is_section(trimmed: &str) -> bool {
    trimmed
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .is_some_and(|name| {
            name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
}

/// `OnCalendar=daily`: a unit's setting.
fn is_setting(trimmed: &str) -> bool {
    trimmed.split_once('=').is_some_and(|(key, _)| {
        let key = key.trim_end();
        key.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// `scrape_configs:`, `kind: CronJob`, `"on":`: a YAML key at the line's
/// start, not indented.
fn is_yaml_key(line: &str) -> bool {
    let key = line
        .strip_prefix('"')
        .and_then(|rest| rest.split_once("\":"))
        .or_else(|| {
            line.strip_prefix('\'')
                .and_then(|rest| rest.split_once("':"))
        })
        .or_else(|| {
            line.split_once(':').filter(|(key, _)| {
                key.chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && key
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
            })
        });
    key.is_some_and(|(_, rest)| rest.is_empty() || rest.starts_with([' ', '\t']))
}

/// The lines a Jenkinsfile's or a Java or Kotlin source's code starts
/// with, and a bare trigger call.
fn opens_source(trimmed: &str) -> bool {
    let word_then = |word: &str, after: &[char]| {
        trimmed
            .strip_prefix(word)
            .is_some_and(|rest| rest.trim_start().starts_with(after))
    };
    word_then("pipeline", &['{'])
        || word_then("node", &['{', '('])
        || word_then("properties", &['('])
        || word_then("triggers", &['{'])
        || [
            "cron(",
            "cron '",
            "cron \"",
            "package ",
            "import ",
            "@Scheduled",
            "from ",
        ]
        .iter()
        .any(|start| trimmed.starts_with(start))
        // APScheduler's calls, and its decorator before `@daily` reads as
        // a crontab's.
        || trimmed.contains("add_job(")
        || (trimmed.starts_with('@') && trimmed.contains(".scheduled_job("))
}

/// A statement at a source's top level: a closing bracket, an annotation,
/// a declaration (`public class Jobs {`, `fun run()`), or a name followed
/// by a call, block, assignment, member, string or another name's call
/// (`def x = …`, `stage('b') {`, `echo 'hi'`, `import a.b`).
fn is_source_statement(trimmed: &str) -> bool {
    if trimmed.starts_with(['}', ')', ']', '@']) {
        return true;
    }
    let name_end = trimmed
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(trimmed.len());
    if name_end == 0 {
        return false;
    }
    let name = &trimmed[..name_end];
    let after = trimmed[name_end..].trim_start();
    matches!(
        name,
        "def"
            | "import"
            | "package"
            | "return"
            | "if"
            | "for"
            | "while"
            | "try"
            | "library"
            | "public"
            | "private"
            | "protected"
            | "internal"
            | "abstract"
            | "final"
            | "open"
            | "static"
            | "class"
            | "interface"
            | "object"
            | "enum"
            | "record"
            | "data"
            | "fun"
            | "val"
            | "var"
            // Python's.
            | "from"
            | "async"
            | "with"
            | "else"
            | "elif"
            | "except"
            | "finally"
            | "raise"
    ) || after.is_empty()
        || after.starts_with(['(', '{', '=', '.', '\'', '"', '['])
}

/// How deep in brackets (or elements) a Jenkinsfile's, a JSON value's or
/// an XML file's text is, and what spans the line's end.
#[derive(Clone, Copy, Debug, Default)]
struct Depth {
    open: u32,
    inside: Inside,
    /// Inside an XML tag: whether it opens an element (`<a …>`) or not.
    tag: Option<bool>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Inside {
    #[default]
    Code,
    /// A Groovy `'''` or `"""` string, by its quote.
    Triple(u8),
    /// A comment or CDATA, until its closing text: `*/`, `-->`, `]]>`.
    Comment(&'static str),
}

impl Depth {
    fn is_open(&self) -> bool {
        self.open > 0 || self.inside != Inside::Code || self.tag.is_some()
    }

    fn count(&mut self, byte: u8) {
        match byte {
            b'{' | b'(' | b'[' => self.open += 1,
            b'}' | b')' | b']' => self.open = self.open.saturating_sub(1),
            _ => {}
        }
    }

    /// Goes through one line of Groovy: strings (one-line and triple),
    /// `//` and `/* */` comments hold no brackets that count.
    fn groovy(&mut self, line: &str) {
        let bytes = line.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            match self.inside {
                Inside::Triple(quote) => {
                    if bytes[at..].starts_with(&[quote; 3]) {
                        self.inside = Inside::Code;
                        at += 3;
                    } else {
                        at += if bytes[at] == b'\\' { 2 } else { 1 };
                    }
                }
                Inside::Comment(end) => match line[at..].find(end) {
                    Some(found) => {
                        self.inside = Inside::Code;
                        at += found + end.len();
                    }
                    None => return,
                },
                Inside::Code => match bytes[at] {
                    b'/' if bytes.get(at + 1) == Some(&b'/') => return,
                    b'/' if bytes.get(at + 1) == Some(&b'*') => {
                        self.inside = Inside::Comment("*/");
                        at += 2;
                    }
                    quote @ (b'\'' | b'"') if bytes[at..].starts_with(&[quote; 3]) => {
                        self.inside = Inside::Triple(quote);
                        at += 3;
                    }
                    quote @ (b'\'' | b'"') => at = string_end(bytes, at + 1, quote),
                    byte => {
                        self.count(byte);
                        at += 1;
                    }
                },
            }
        }
    }

    /// Goes through one line of XML: an element opens at `<a …>` and closes
    /// at `</a>`; `<a/>`, declarations, comments and CDATA leave the depth
    /// as it was.
    fn xml(&mut self, line: &str) {
        let mut rest = line;
        loop {
            if let Some(opens) = self.tag {
                let Some(at) = rest.find('>') else {
                    return;
                };
                if opens && !rest[..at].ends_with('/') {
                    self.open += 1;
                }
                self.tag = None;
                rest = &rest[at + 1..];
            } else if let Inside::Comment(end) = self.inside {
                let Some(at) = rest.find(end) else {
                    return;
                };
                self.inside = Inside::Code;
                rest = &rest[at + end.len()..];
            } else {
                let Some(at) = rest.find('<') else {
                    return;
                };
                rest = &rest[at..];
                if rest.starts_with("<!--") {
                    self.inside = Inside::Comment("-->");
                } else if rest.starts_with("<![CDATA[") {
                    self.inside = Inside::Comment("]]>");
                } else if rest.starts_with("</") {
                    self.open = self.open.saturating_sub(1);
                    self.tag = Some(false);
                } else {
                    self.tag = Some(!rest[1..].starts_with(['?', '!']));
                }
                rest = &rest[1..];
            }
        }
    }

    /// Goes through one line of JSON, strings holding no brackets.
    fn json(&mut self, line: &str) {
        let bytes = line.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            match bytes[at] {
                b'"' => at = string_end(bytes, at + 1, b'"'),
                byte => {
                    self.count(byte);
                    at += 1;
                }
            }
        }
    }
}

/// Where a one-line string that opened before `from` ends (after its
/// closing quote), or the line's end.
fn string_end(bytes: &[u8], from: usize, quote: u8) -> usize {
    let mut at = from;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            byte if byte == quote => return at + 1,
            _ => at += 1,
        }
    }
    bytes.len()
}

/// Whether parts of `format` side by side read as one text: not JSON
/// values, templates or prometheus.yml files, each one document.
fn joins(format: FleetFormat) -> bool {
    !matches!(
        format,
        FleetFormat::Temporal | FleetFormat::Prometheus | FleetFormat::EventBridge
    )
}

/// The format a part of `kind` is read in; YAML by what it holds.
fn format_of(kind: Kind, text: &str) -> FleetFormat {
    match kind {
        Kind::Fleet => FleetFormat::Fleet,
        Kind::Crontab if super::anacrontab::holds(text) => FleetFormat::Anacrontab,
        Kind::Crontab => FleetFormat::Crontab,
        Kind::Source if super::spring_scheduled::holds(text) => FleetFormat::SpringScheduled,
        Kind::Source if super::apscheduler_py::holds(text) => FleetFormat::Apscheduler,
        Kind::Source => FleetFormat::Jenkins,
        Kind::Xml => super::xml_format(text),
        Kind::Systemd => FleetFormat::Systemd,
        Kind::Json if super::eventbridge::holds(text) => FleetFormat::EventBridge,
        Kind::Json => FleetFormat::Temporal,
        Kind::Yaml => match detect(text) {
            format @ (FleetFormat::Prometheus
            | FleetFormat::GithubActions
            | FleetFormat::SidekiqCron
            | FleetFormat::EventBridge) => format,
            _ => FleetFormat::Kubernetes,
        },
    }
}
