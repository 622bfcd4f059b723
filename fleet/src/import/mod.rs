//! Schedules in the formats readers already keep them in, read into the
//! same [`FleetFile`] as the canonical fleet file, line numbers and all.
//!
//! [`read`] takes a [`FleetFormat`]. Crontabs translate line for line
//! ([`crontab`]); every other format translates to a [`NativeTranslation`]:
//! fleet lines, each with the native line it came from (one native line
//! may give several, such as a `.timer`'s `OnCalendar=` on several
//! machines), the native lines skipped with the field and why, and notes
//! on lines that were read but deserve a word ([`Imported::notes`]).
//!
//! `auto` cuts the paste into parts that are each in one format
//! ([`parts`]) and reads each as if pasted alone, so a crontab, a few
//! Jenkinsfiles and a host's timers pasted together all read. Every line
//! is accounted for ([`InputAccount`]): it gave a job, or it is blank, a
//! comment or a setting, or it is skipped with the field and why. With a
//! format chosen, a part that reads as another format is skipped, named.
//!
//! [`detect`] names the one format of a text by the first rule that holds:
//!
//! 1. the first line that is neither blank nor a `#` comment starts with a
//!    system name (`cron`, `jenkins`, …) and a tab: a fleet file, since no
//!    other format starts a line that way;
//! 2. a line is `[Timer]`: systemd units;
//! 3. `AWS::Scheduler::Schedule`, `ScheduleV2` or `aws_scheduler_schedule`
//!    anywhere: EventBridge Scheduler schedules in CloudFormation, SAM or
//!    Terraform JSON;
//! 4. the first character that is not blank is `{` or `[`: Temporal JSON;
//!    `<`: a Quartz job file when it holds `<job-scheduling-data`, else a
//!    Jenkins job's `config.xml`;
//! 5. a line is `kind: CronJob` (at any indent, so `List` items count):
//!    Kubernetes; the first document is a mapping whose values have
//!    `cron:` and `class:`, or a list of mappings with `name:` and
//!    `cron:`: a sidekiq-cron `config/schedule.yml` (before GitHub
//!    Actions, whose `jobs:` could be a job's name); a line starts with
//!    `scrape_configs:`: Prometheus; a line starts with `on:` or `jobs:`:
//!    GitHub Actions;
//! 6. a `@Scheduled` annotation: Java or Kotlin sources with Spring's
//!    scheduled methods;
//! 7. an `add_job(`, `.scheduled_job(` or `from_crontab(` call: Python
//!    sources with APScheduler's jobs (before Jenkins, whose `cron(` a
//!    Python call could hold);
//! 8. `START_HOURS_RANGE=`, `PREFERRED_HOUR=` or a job line whose
//!    identifier has a letter no cron field has (`1 5 cron.daily …`): an
//!    anacrontab;
//! 9. a `cron` call (`cron(`, `cron '`, `cron "`), a `triggers {` block or
//!    a `// job:` line: Jenkinsfiles;
//! 10. otherwise a crontab.

pub mod anacrontab;
pub mod apscheduler_py;
pub mod crontab;
pub mod eventbridge;
pub mod github_actions;
pub mod jenkins;
pub mod jenkins_xml;
pub mod kubernetes;
pub mod parts;
pub mod prometheus;
pub mod quartz_xml;
pub mod sidekiq_schedule;
mod source_code;
pub mod spring_scheduled;
pub mod systemd;
pub mod temporal;
pub mod yaml;

use std::collections::BTreeSet;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use stampede_core::error::InvalidInput;
use stampede_core::fleet_format::FleetFormat;
use stampede_core::line_ends;
use stampede_core::units::{count, counted};

use crate::cron::Horizon;
use crate::file::{self, FleetFile, SkippedLine, System};
use crate::{Expansion, FleetNotice};

use self::crontab::CrontabForm;

/// The most fleet lines one paste translates to; the rest are skipped
/// with one refusal, so no paste allocates without bound.
pub const MOST_IMPORTED_LINES: usize = file::MOST_LINES;

/// A fleet read from native text, and notes on lines read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Imported {
    pub file: FleetFile,
    /// Something to know about a line that was read, such as GitHub's
    /// habit of delaying scheduled runs; the command line prints each.
    pub notes: Vec<FleetNotice>,
    /// The lines of the text read.
    pub lines_in: usize,
    /// The parts of the text, each in its format, in order.
    pub parts: Vec<PartRead>,
}

/// A part of a text in one format, and how many jobs it gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartRead {
    pub format: FleetFormat,
    pub first_line: usize,
    pub last_line: usize,
    /// Fleet lines read from it.
    pub jobs: usize,
}

/// Where every line of a text went. `read + ignored + skipped = lines`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputAccount {
    /// Lines in the text.
    pub lines: usize,
    /// Lines that gave at least one job.
    pub read: usize,
    /// Jobs (fleet lines) read; a line may give several, such as a unit on
    /// several machines.
    pub jobs: usize,
    /// Blank lines, comments, and the format's other text (settings,
    /// structure, code around a trigger).
    pub ignored: usize,
    /// Lines skipped, each with its reason.
    pub skipped: usize,
}

impl Imported {
    /// The fleet's expansion ([`crate::expand`]) with the importer's notes
    /// (such as GitHub's late scheduled runs) among its notices, by line.
    pub fn expand(
        &self,
        from: i64,
        horizon: Horizon,
        seed: u64,
    ) -> Result<Expansion<'_>, InvalidInput> {
        Ok(self.with_notes(crate::expand(&self.file.lines, from, horizon, seed)?))
    }

    /// [`Self::expand`] with its range across draws of the delays drawn
    /// at run time ([`crate::chance`]): 20 more expansions of the lines
    /// that draw, so only what shows the range asks for it.
    pub fn expand_with_draws(
        &self,
        from: i64,
        horizon: Horizon,
        seed: u64,
    ) -> Result<Expansion<'_>, InvalidInput> {
        let expansion = crate::expand_with_draws(&self.file.lines, from, horizon, seed)?;
        Ok(self.with_notes(expansion))
    }

    /// `expansion` with the importer's notes among its notices, by line.
    fn with_notes<'a>(&self, mut expansion: Expansion<'a>) -> Expansion<'a> {
        expansion.notices.extend(self.notes.iter().cloned());
        expansion.notices.sort_by_key(|notice| notice.line);
        expansion
    }
}

/// Reads `text` in `format`. Never fails: unreadable lines land in
/// `skipped`, numbered as in `text`.
pub fn read(text: &str, format: FleetFormat) -> FleetFile {
    import(text, format).file
}

/// Where every line of a text went and its parts, as the command line's
/// and the fleet module's results give them (`input`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InputReport {
    #[serde(flatten)]
    pub account: InputAccount,
    pub parts: Vec<InputPart>,
}

/// A part of a text in [`InputReport`]: its format's slug, its lines and
/// the jobs it gave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InputPart {
    pub format: &'static str,
    pub first_line: usize,
    pub last_line: usize,
    pub jobs: usize,
}

impl std::fmt::Display for InputAccount {
    /// "240 lines in: 230 read into 240 jobs, 8 without a schedule, 2
    /// skipped": the lines that gave no job and were not skipped are
    /// blank, comments, settings, or a source's code around a schedule.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} in: {} read into {}, {} without a schedule, {} skipped",
            counted(self.lines as u64, "line", "lines"),
            count(self.read as u64),
            counted(self.jobs as u64, "job", "jobs"),
            count(self.ignored as u64),
            count(self.skipped as u64),
        )
    }
}

impl Imported {
    /// Where every line of the text went, and its parts.
    pub fn input(&self) -> InputReport {
        InputReport {
            account: self.account(),
            parts: self
                .parts
                .iter()
                .map(|part| InputPart {
                    format: part.format.slug(),
                    first_line: part.first_line,
                    last_line: part.last_line,
                    jobs: part.jobs,
                })
                .collect(),
        }
    }

    /// Where every line of the text went.
    pub fn account(&self) -> InputAccount {
        let read: BTreeSet<usize> = self.file.lines.iter().map(|line| line.line).collect();
        let skipped: BTreeSet<usize> = self
            .file
            .skipped
            .iter()
            .map(|skipped| skipped.line)
            .filter(|line| !read.contains(line))
            .collect();
        InputAccount {
            lines: self.lines_in,
            read: read.len(),
            jobs: self.file.lines.len(),
            ignored: self.lines_in.saturating_sub(read.len() + skipped.len()),
            skipped: skipped.len(),
        }
    }
}

/// Reads `text` in `format`, with the notes on the lines read: by parts
/// for `auto`; for a format given, with any part that reads as another
/// format skipped.
pub fn import(text: &str, format: FleetFormat) -> Imported {
    let normalised = line_ends::normalise(text);
    let text = &*normalised.text;
    let parts = parts::parts(text);
    let lines_in = text.lines().count();
    let mut imported = Imported {
        lines_in,
        ..Imported::default()
    };
    if format != FleetFormat::Auto {
        imported.absorb(read_as(text, format), 0);
        imported.parts.push(PartRead {
            format,
            first_line: 1,
            last_line: lines_in,
            jobs: imported.file.lines.len(),
        });
        imported.skip_strays(text, &parts, format);
        return imported;
    }
    for part in &parts {
        // Past the cap, no part is read: its lines would only be dropped.
        if imported.file.lines.len() > MOST_IMPORTED_LINES {
            break;
        }
        let before = imported.file.lines.len();
        let read = read_as(&text[part.bytes.clone()], part.format);
        imported.absorb(read, part.first_line - 1);
        let jobs = imported.file.lines.len() - before;
        match imported.parts.last_mut() {
            Some(last) if last.format == part.format => {
                last.last_line = part.last_line();
                last.jobs += jobs;
            }
            _ => imported.parts.push(PartRead {
                format: part.format,
                first_line: part.first_line,
                last_line: part.last_line(),
                jobs,
            }),
        }
    }
    imported.cap();
    imported.file.skipped.sort_by_key(|skipped| skipped.line);
    imported
}

impl Imported {
    /// Takes in what a part gave, its lines `shift` lines down the text.
    fn absorb(&mut self, read: Imported, shift: usize) {
        let Imported {
            file, mut notes, ..
        } = read;
        self.file
            .lines
            .extend(file.lines.into_iter().map(|mut line| {
                line.line += shift;
                line
            }));
        self.file
            .skipped
            .extend(file.skipped.into_iter().map(|mut skipped| {
                skipped.line += shift;
                skipped
            }));
        for note in &mut notes {
            note.line += shift;
        }
        self.notes.append(&mut notes);
    }

    /// Holds the fleet to [`MOST_IMPORTED_LINES`] across its parts.
    fn cap(&mut self) {
        if self.file.lines.len() <= MOST_IMPORTED_LINES {
            return;
        }
        let first_out = self.file.lines[MOST_IMPORTED_LINES].line;
        self.file.lines.truncate(MOST_IMPORTED_LINES);
        // A line that gave lines on both sides of the cap is not read.
        self.file.lines.retain(|line| line.line != first_out);
        self.file
            .skipped
            .retain(|skipped| skipped.line < first_out || skipped.field != "lines");
        self.file.skipped.push(file::past_most_lines(first_out));
        let read: BTreeSet<usize> = self.file.lines.iter().map(|line| line.line).collect();
        self.notes.retain(|note| read.contains(&note.line));
    }

    /// Skips, for a text read in `format`, each part that reads as another
    /// format and gave nothing, at its first line that is not blank or a
    /// comment, so no line is passed over without a word.
    fn skip_strays(&mut self, text: &str, parts: &[parts::Part], format: FleetFormat) {
        let taken: BTreeSet<usize> = self
            .file
            .lines
            .iter()
            .map(|line| line.line)
            .chain(self.file.skipped.iter().map(|skipped| skipped.line))
            .collect();
        for part in parts.iter().filter(|part| part.format != format) {
            let lines = (part.first_line..).zip(text[part.bytes.clone()].lines());
            let mut significant = lines.filter(|(_, line)| {
                let line = line.trim();
                !line.is_empty() && !line.starts_with(['#', ';']) && !line.starts_with("//")
            });
            let Some((first, _)) = significant.next() else {
                continue;
            };
            if (part.first_line..=part.last_line()).any(|line| taken.contains(&line)) {
                continue;
            }
            self.file.skipped.push(SkippedLine {
                line: first,
                field: "format".into(),
                reason: format!(
                    "lines {first}–{} read as {}, not as {}: choose Detect to read them",
                    part.last_line(),
                    part.format.label(),
                    format.label()
                ),
            });
        }
        self.file.skipped.sort_by_key(|skipped| skipped.line);
    }
}

/// Reads all of `text` in `format`, which is not `auto`.
fn read_as(text: &str, format: FleetFormat) -> Imported {
    let translation = match format {
        FleetFormat::Auto | FleetFormat::Fleet => {
            return Imported {
                file: file::parse(text),
                ..Imported::default()
            };
        }
        FleetFormat::Crontab => {
            let (file, notes) = crontab::read(text, CrontabForm::Auto);
            return Imported {
                file,
                notes,
                ..Imported::default()
            };
        }
        FleetFormat::Jenkins => jenkins::translate(text),
        FleetFormat::JenkinsXml => jenkins_xml::translate(text),
        FleetFormat::QuartzXml => quartz_xml::translate(text),
        FleetFormat::SpringScheduled => spring_scheduled::translate(text),
        FleetFormat::Apscheduler => apscheduler_py::translate(text),
        FleetFormat::Systemd => systemd::translate(text),
        FleetFormat::Prometheus => prometheus::translate(text),
        FleetFormat::Kubernetes => kubernetes::translate(text),
        FleetFormat::GithubActions => github_actions::translate(text),
        FleetFormat::Temporal => temporal::translate(text),
        FleetFormat::EventBridge => eventbridge::translate(text),
        FleetFormat::Anacrontab => anacrontab::translate(text),
        FleetFormat::SidekiqCron => sidekiq_schedule::translate(text),
    };
    translation.read()
}

/// The format of XML `text`: a Quartz job file or Jenkins jobs' configs.
pub fn xml_format(text: &str) -> FleetFormat {
    if text.contains(&format!("<{}", quartz_xml::ROOT)) {
        FleetFormat::QuartzXml
    } else {
        FleetFormat::JenkinsXml
    }
}

/// The format `text` is in, by the rules in the module's docs. Text with
/// no line that tells reads the same either way, as a fleet file.
pub fn detect(text: &str) -> FleetFormat {
    let first = text
        .lines()
        .map(str::trim_start)
        .find(|line| !line.trim().is_empty() && !line.starts_with('#'));
    let Some(first) = first else {
        return FleetFormat::Fleet;
    };
    let names_a_system = first.split_once('\t').is_some_and(|(system, _)| {
        System::from_slug(&system.trim().to_ascii_lowercase()).is_some()
    });
    let lines = || text.lines().map(str::trim_end);
    let any_starts = |prefixes: &[&str]| {
        lines().any(|line| prefixes.iter().any(|prefix| line.starts_with(prefix)))
    };
    if names_a_system {
        FleetFormat::Fleet
    } else if lines().any(|line| line.trim_start() == "[Timer]") {
        FleetFormat::Systemd
    } else if eventbridge::holds(text) {
        FleetFormat::EventBridge
    } else if first.starts_with(['{', '[']) {
        FleetFormat::Temporal
    } else if first.starts_with('<') {
        xml_format(text)
    } else if lines().any(|line| {
        let line = line.trim_start().trim_start_matches("- ");
        matches!(
            line,
            "kind: CronJob" | "kind: \"CronJob\"" | "kind: 'CronJob'"
        )
    }) {
        FleetFormat::Kubernetes
    } else if sidekiq_schedule::holds(text) {
        FleetFormat::SidekiqCron
    } else if any_starts(&["scrape_configs:"]) {
        FleetFormat::Prometheus
    } else if any_starts(&["on:", "\"on\":", "'on':", "jobs:"]) {
        FleetFormat::GithubActions
    } else if spring_scheduled::holds(text) {
        FleetFormat::SpringScheduled
    } else if apscheduler_py::holds(text) {
        FleetFormat::Apscheduler
    } else if anacrontab::holds(text) {
        FleetFormat::Anacrontab
    } else if lines().any(|line| {
        let line = line.trim_start();
        line.starts_with(jenkins::JOB_MARK)
            || line.starts_with("triggers {")
            || ["cron(", "cron '", "cron \""]
                .iter()
                .any(|call| line.contains(call))
    }) {
        FleetFormat::Jenkins
    } else {
        FleetFormat::Crontab
    }
}

/// One fleet line and the native line it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TranslatedLine {
    pub line: usize,
    /// The fleet line's text, without its line ending.
    pub fleet: String,
    /// The bytes of the native text its spec is written in, for a format
    /// whose writer puts a new spec there (Jenkinsfiles, CronJob and
    /// workflow YAML).
    pub source: Option<Range<usize>>,
}

/// Native text translated to fleet lines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NativeTranslation {
    pub lines: Vec<TranslatedLine>,
    /// Native lines that gave no fleet line, and why.
    pub skipped: Vec<SkippedLine>,
    pub notes: Vec<FleetNotice>,
    /// Whether a line was refused for [`MOST_IMPORTED_LINES`].
    full: bool,
}

impl NativeTranslation {
    /// The fleet file the translation amounts to, one line each.
    pub fn fleet_text(&self) -> String {
        self.lines
            .iter()
            .map(|line| format!("{}\n", line.fleet))
            .collect()
    }

    /// Reads every fleet line, numbered by the native line it came from.
    pub fn read(self) -> Imported {
        let mut file = FleetFile {
            lines: Vec::with_capacity(self.lines.len()),
            skipped: self.skipped,
        };
        for translated in &self.lines {
            let read = file::parse(&translated.fleet);
            file.lines.extend(read.lines.into_iter().map(|mut line| {
                line.line = translated.line;
                line
            }));
            file.skipped
                .extend(read.skipped.into_iter().map(|mut skipped| {
                    skipped.line = translated.line;
                    skipped
                }));
        }
        file.skipped.sort_by_key(|skipped| skipped.line);
        // A note is on a line read; a line the fleet reader skipped says
        // why instead.
        let read: BTreeSet<usize> = file.lines.iter().map(|line| line.line).collect();
        let mut notes = self.notes;
        notes.retain(|note| read.contains(&note.line));
        notes.dedup();
        Imported {
            file,
            notes,
            ..Imported::default()
        }
    }

    /// Adds a fleet line of `system` from native line `line`, unless the
    /// translation is full; fields lose any tab or line break, which
    /// would split the fleet line.
    fn push(
        &mut self,
        line: usize,
        system: System,
        id: &str,
        spec: &str,
        options: &[(&str, &str)],
    ) {
        self.push_at(None, line, system, id, spec, options);
    }

    /// [`Self::push`], noting the bytes the spec is written in.
    fn push_at(
        &mut self,
        source: Option<Range<usize>>,
        line: usize,
        system: System,
        id: &str,
        spec: &str,
        options: &[(&str, &str)],
    ) {
        if self.lines.len() >= MOST_IMPORTED_LINES {
            if !self.full {
                self.full = true;
                self.skipped.push(file::past_most_lines(line));
            }
            return;
        }
        let mut fleet = format!("{}\t{}\t{}", system.slug(), one_line(id), one_line(spec));
        for (key, value) in options {
            fleet.push('\t');
            fleet.push_str(key);
            fleet.push('=');
            fleet.push_str(&one_line(value));
        }
        self.lines.push(TranslatedLine {
            line,
            fleet,
            source,
        });
    }

    /// Whether [`MOST_IMPORTED_LINES`] lines are in, so a loop that
    /// multiplies lines (units by machines) can stop.
    fn is_full(&self) -> bool {
        self.full
    }

    fn skip(&mut self, line: usize, field: &str, reason: impl Into<String>) {
        self.skipped.push(SkippedLine {
            line,
            field: field.to_string(),
            reason: reason.into(),
        });
    }

    fn note(&mut self, line: usize, message: impl Into<String>) {
        self.notes.push(FleetNotice {
            line,
            message: message.into(),
        });
    }
}

/// `text` with tabs and line breaks as spaces and the ends trimmed.
fn one_line(text: &str) -> String {
    text.trim()
        .chars()
        .map(|c| {
            if matches!(c, '\t' | '\n' | '\r') {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// A part of a paste: the text after a `# file: name` line (or before
/// the first), and where it starts.
pub struct FilePart<'a> {
    /// The name given and the marker's line; `None` before any marker.
    pub name: Option<(usize, &'a str)>,
    /// The line the part's text starts on.
    pub first_line: usize,
    pub text: &'a str,
}

/// `text` cut at its lines that start with `marker` (after blanks), such
/// as `# file:`. The part before the first marker comes first, even when
/// empty.
pub fn split_files<'a>(text: &'a str, marker: &str) -> Vec<FilePart<'a>> {
    let mut parts = vec![FilePart {
        name: None,
        first_line: 1,
        text: "",
    }];
    let mut part_start = 0;
    let mut at = 0;
    for (index, raw) in text.split_inclusive('\n').enumerate() {
        let line = index + 1;
        if let Some(name) = raw.trim().strip_prefix(marker) {
            if let Some(last) = parts.last_mut() {
                last.text = &text[part_start..at];
            }
            parts.push(FilePart {
                name: Some((line, name.trim())),
                first_line: line + 1,
                text: "",
            });
            part_start = at + raw.len();
        }
        at += raw.len();
    }
    if let Some(last) = parts.last_mut() {
        last.text = &text[part_start..];
    }
    parts
}
