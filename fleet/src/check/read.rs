//! Each file read in its format, with what the repository says of it that
//! the text does not: the unit, workflow or job name its path gives, the
//! machines' zone, and how long its jobs run. Then all files' lines as one
//! fleet, numbered so that every line finds its file again.

use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::{BTreeMap, BTreeSet};

use stampede_core::fleet_format::FleetFormat;
use stampede_core::hash::farm_fingerprint32;

use super::{CheckOptions, FileChecked, Rule, SourceFile};
use crate::file::{FleetLine, System};
use crate::import::{self, Imported, github_actions, jenkins, jenkins_xml, systemd};

/// One file as read: its text, with a naming line before it where the
/// format takes its names from one, and its fleet lines numbered in that
/// text.
pub struct FileRead<'a> {
    pub source: &'a SourceFile,
    /// The text the importer read: the file's, or a naming line and then
    /// the file's.
    pub text: Cow<'a, str>,
    /// 1 when a naming line was put before the file's text, else 0.
    pub shift: usize,
    pub imported: Imported,
    /// Where each line of `text` begins.
    line_starts: Vec<usize>,
    /// The lines that gave fleet lines, each with the indices of those.
    by_line: BTreeMap<usize, Vec<usize>>,
    /// The lines skipped, with a reason.
    skipped_lines: BTreeSet<usize>,
}

impl<'a> FileRead<'a> {
    pub fn new(source: &'a SourceFile, options: &CheckOptions) -> Self {
        let text = match naming_line(source) {
            Some(line) => Cow::Owned(format!("{line}\n{}", source.text)),
            None => Cow::Borrowed(source.text.as_str()),
        };
        let shift = usize::from(matches!(text, Cow::Owned(_)));
        let imported = import::import(&text, source.format);
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        let mut read = Self {
            source,
            text,
            shift,
            imported,
            line_starts,
            by_line: BTreeMap::new(),
            skipped_lines: BTreeSet::new(),
        };
        read.complete(options);
        for (index, line) in read.imported.file.lines.iter().enumerate() {
            read.by_line.entry(line.line).or_default().push(index);
        }
        read.skipped_lines = read.imported.file.skipped.iter().map(|s| s.line).collect();
        read
    }

    pub fn path(&self) -> &str {
        &self.source.path
    }

    /// Line `line` of the file as written (1-based), or "" past its end.
    pub fn source_line(&self, line: usize) -> &str {
        self.read_line(line + self.shift)
    }

    /// Line `line` of the text read (1-based), without its ending, or ""
    /// past its end.
    pub fn read_line(&self, line: usize) -> &str {
        let Some(&start) = line.checked_sub(1).and_then(|i| self.line_starts.get(i)) else {
            return "";
        };
        let end = self
            .line_starts
            .get(line)
            .map_or(self.text.len(), |&next| next - 1);
        let text = &self.text[start..end.max(start)];
        text.strip_suffix('\r').unwrap_or(text)
    }

    /// The file's line for line `line` of the text read.
    pub fn file_line(&self, line: usize) -> usize {
        line.saturating_sub(self.shift).max(1)
    }

    /// The fleet lines read from line `line` of the text read.
    pub fn lines_at(&self, line: usize) -> impl Iterator<Item = &FleetLine> {
        let indices = self.by_line.get(&line).map_or(&[][..], Vec::as_slice);
        indices
            .iter()
            .map(|&index| &self.imported.file.lines[index])
    }

    /// Gives each line that has no duration yet the one `duration_at`
    /// finds for its line of the text read.
    pub fn add_durations(&mut self, duration_at: impl Fn(&Self, usize) -> Option<u64>) {
        let found: Vec<(usize, u64)> = (self.imported.file.lines.iter().enumerate())
            .filter(|(_, line)| line.options.duration_seconds.is_none())
            .filter_map(|(index, line)| Some((index, duration_at(self, line.line)?)))
            .collect();
        for (index, seconds) in found {
            self.imported.file.lines[index].options.duration_seconds = Some(seconds);
        }
    }

    /// Whether the importer read a schedule from line `line`, or refused one.
    pub fn holds_schedule(&self, line: usize) -> bool {
        self.by_line.contains_key(&line) || self.skipped_lines.contains(&line)
    }

    pub fn checked(&self) -> FileChecked {
        let mut input = self.imported.account();
        input.lines -= self.shift;
        input.ignored = input.ignored.saturating_sub(self.shift);
        FileChecked {
            path: self.source.path.clone(),
            format: self.source.format.slug(),
            input,
        }
    }

    /// Gives the lines that name no zone the machines' zone, and the lines
    /// that give no duration the one the options or a comment give.
    fn complete(&mut self, options: &CheckOptions) {
        let format = self.source.format;
        let mut lines = std::mem::take(&mut self.imported.file.lines);
        for line in &mut lines {
            let zone_key = match line.system {
                System::Cron if format == FleetFormat::Crontab => Some("TZ"),
                System::Quartz | System::Spring | System::Apscheduler => Some("Zone"),
                _ => None,
            };
            if let (Some(key), Some(zone)) = (zone_key, &options.zone) {
                let named = ["TZ", "CRON_TZ", "Zone"]
                    .iter()
                    .any(|key| line.options.own(key).is_some());
                if !named {
                    line.options.own.push((key.to_string(), zone.clone()));
                }
            }
            if line.options.duration_seconds.is_none() {
                line.options.duration_seconds = options.durations.get(&line.id).copied();
            }
        }
        self.imported.file.lines = lines;
    }
}

/// The line that names what a file's path names, for the formats that
/// take a name from such a line: a unit's file name (systemd hashes its
/// delay from it), a workflow's file name, a job's `config.xml` path, and
/// a Jenkinsfile's folder (Jenkins hashes `H` from the job's full name,
/// which the repository does not hold; a `// job:` line in the file
/// names it instead).
fn naming_line(source: &SourceFile) -> Option<String> {
    let path = source.path.as_str();
    let file_name = path.rsplit('/').next().unwrap_or(path);
    match source.format {
        FleetFormat::Systemd => Some(format!("{} {file_name}", systemd::FILE_MARK)),
        FleetFormat::GithubActions => Some(format!("{} {file_name}", github_actions::FILE_MARK)),
        FleetFormat::JenkinsXml => Some(format!("{} {path}", jenkins_xml::FILE_MARK)),
        FleetFormat::Jenkins if !source.text.contains(jenkins::JOB_MARK) => {
            let job = path.rsplit_once('/').map_or(path, |(folder, _)| folder);
            Some(format!("{} {job}", jenkins::JOB_MARK))
        }
        _ => None,
    }
}

/// What a rule found, before it becomes a [`super::Finding`].
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// The file's index among the files checked.
    pub file: usize,
    /// The line of the text read (see [`FileRead::file_line`]).
    pub line: usize,
    pub rule: Rule,
    pub message: String,
    pub value: Option<f64>,
    /// Whether the fix's change to the line is worth suggesting.
    pub fixable: bool,
}

/// Every file's fleet lines as one fleet, so that one expansion holds
/// them all. Each native line is numbered by what it says, its file, its
/// text and which of its file's lines with that text it is, as its
/// fingerprint is: a scheduler's delays are drawn from its line's number,
/// and a number of its place among all files' lines would draw them anew
/// whenever another file grew a comment. Prometheus' scrapes are left
/// out: a server scrapes every target every interval, already spread by
/// its own hash, and they are not jobs a budget of starts or of jobs at
/// once is about.
pub struct RepositoryFleet {
    pub lines: Vec<FleetLine>,
    /// The file, and its line of the text read, of each number.
    origins: HashMap<usize, (usize, usize)>,
}

impl RepositoryFleet {
    pub fn of(reads: &[FileRead]) -> Self {
        let mut lines = Vec::new();
        let mut origins = HashMap::new();
        for (file, read) in reads.iter().enumerate() {
            let mut numbers: HashMap<usize, usize> = HashMap::new();
            let mut seen: HashMap<&str, u32> = HashMap::new();
            let jobs = read.imported.file.lines.iter();
            for line in jobs.filter(|line| line.system != System::Prometheus) {
                let number = *numbers.entry(line.line).or_insert_with(|| {
                    let text = read.read_line(line.line).trim();
                    let occurrence = seen.entry(text).or_default();
                    let identity = format!("{}\u{1f}{text}\u{1f}{occurrence}", read.path());
                    *occurrence += 1;
                    // A u32, which wasm32's usize holds too; 0 is no line.
                    let mut number = farm_fingerprint32(identity.as_bytes()).max(1);
                    while origins.contains_key(&(number as usize)) {
                        number = number.checked_add(1).unwrap_or(1);
                    }
                    origins.insert(number as usize, (file, line.line));
                    number as usize
                });
                lines.push(FleetLine {
                    line: number,
                    ..line.clone()
                });
            }
        }
        Self { lines, origins }
    }

    /// The file and the line of its text read that fleet line number
    /// `line` came from.
    pub fn origin(&self, line: usize) -> (usize, usize) {
        self.origins[&line]
    }
}
