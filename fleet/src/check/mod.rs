//! A repository's schedules held to rules, as `stampede check` runs them
//! in CI: every file read in its own format, all of their lines expanded
//! together over one horizon (a week by default), and each problem a
//! [`Finding`] with a stable rule id, the file and line, a message in the
//! scheduler's own words and, where the fix can spread the line, the
//! change written in the file's own syntax ([`suggest`]).
//!
//! The rules ([`Rule`]) are in [`rules`]. A budget that depends on the
//! delays a scheduler draws at run time is judged across 20 draws
//! ([`crate::chance`]): a minute counts as over the budget when it is on
//! at least 1 night in 10 (its 90th percentile), not on one seed's night.
//! A finding is dropped where its line says so ([`marks`]): a
//! `stampede: ignore RULE` comment on the line or in the comments just
//! above it, or a CronJob's `stampede/ignore` annotation.
//!
//! Nothing here reads the disk: the command line finds the files and
//! writes the reports.

pub mod marks;
mod read;
pub mod rules;
pub mod suggest;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use stampede_core::choice_enum;
use stampede_core::error::InvalidInput;
use stampede_core::fleet_format::FleetFormat;
use stampede_core::hash::farm_fingerprint32;

use crate::cron::Horizon;
use crate::fix::NightHours;
use crate::import::InputAccount;

use self::read::FileRead;

choice_enum! {
    /// What a finding is about. The slugs are the stable ids reports,
    /// baselines and `stampede: ignore` comments name.
    #[derive(Serialize, Deserialize, PartialOrd, Ord)]
    #[serde(rename_all = "kebab-case")]
    pub enum Rule {
        StartsPerMinute = ("starts-per-minute", "A minute with more starts than the budget"),
        ConcurrentJobs = ("concurrent-jobs", "More jobs running at once than the budget"),
        GithubTopOfHour = ("github-top-of-hour", "A GitHub Actions schedule at the top of the hour"),
        JenkinsSpread = ("jenkins-spread", "A Jenkins trigger at a fixed minute where H would spread it"),
        DayFieldsOr = ("day-fields-or", "Day of month and day of week both set, which cron ORs"),
        DelayOverPeriod = ("delay-over-period", "A random delay longer than the time between runs"),
        NeverRuns = ("never-runs", "A schedule that never runs"),
        NotRead = ("not-read", "A schedule line that could not be read"),
        BadMark = ("bad-mark", "A stampede: comment that cannot be read"),
    }
}

choice_enum! {
    /// How much a finding matters, least first, as SARIF's levels.
    #[derive(Serialize, Deserialize, PartialOrd, Ord)]
    #[serde(rename_all = "lowercase")]
    pub enum Level {
        Note = ("note", "note"),
        Warning = ("warning", "warning"),
        Error = ("error", "error"),
    }
}

impl Rule {
    /// The level every finding of the rule has.
    pub fn level(self) -> Level {
        match self {
            Self::StartsPerMinute | Self::ConcurrentJobs | Self::NeverRuns => Level::Error,
            Self::GithubTopOfHour
            | Self::JenkinsSpread
            | Self::DayFieldsOr
            | Self::DelayOverPeriod
            | Self::NotRead => Level::Warning,
            Self::BadMark => Level::Note,
        }
    }

    /// What the rule checks and why it matters, for a report's rule list.
    pub fn help(self) -> &'static str {
        match self {
            Self::StartsPerMinute => {
                "More jobs start in one minute than --max-starts-per-minute allows. Where a scheduler draws delays at run time, the minute counts when it is over on at least 1 night in 10 across 20 draws."
            }
            Self::ConcurrentJobs => {
                "More jobs run at once than --max-concurrent allows, counting each job with a known duration (Duration=, a `stampede: duration` comment, or [durations] in stampede.toml) for as long as it runs, and any other job in its start minute."
            }
            Self::GithubTopOfHour => {
                "GitHub delays scheduled workflow runs at busy times, the start of every hour most of all, and may drop queued runs; GitHub's docs advise another minute of the hour."
            }
            Self::JenkinsSpread => {
                "Jenkins warns: spread load evenly by using H rather than a fixed minute, so jobs do not all start at once."
            }
            Self::DayFieldsOr => {
                "When both day of month and day of week are restricted, cron starts the job on a day matching either, not only on days matching both."
            }
            Self::DelayOverPeriod => {
                "A random delay longer than the time between two runs pushes a start past the next one: systemd then skips that calendar time, and Temporal cuts its jitter to the gap."
            }
            Self::NeverRuns => {
                "No date the scheduler searches matches the schedule, so the job never starts."
            }
            Self::BadMark => {
                "A `stampede:` comment or a `stampede/ignore` annotation naming a rule that does not exist, a duration that is none, or an unknown word: it changes nothing, so the findings it meant to ignore stay."
            }
            Self::NotRead => {
                "A line that holds a schedule, or looks like one, that its scheduler would refuse or that Stampede cannot read; it is left out of every other rule."
            }
        }
    }
}

/// One file of schedules, its path relative to where the check runs.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// With `/` between folders, as reports name it.
    pub path: String,
    pub text: String,
    pub format: FleetFormat,
}

/// What the check holds the schedules to, and over what horizon.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Where the horizon starts, in Unix seconds.
    pub from: i64,
    pub horizon: Horizon,
    /// Draws the delays schedulers draw at run time; the range across
    /// draws comes from it too.
    pub seed: u64,
    pub max_starts_per_minute: Option<u32>,
    pub max_concurrent: Option<f64>,
    /// The zone of the machines that run crontabs and Java and Python
    /// schedulers, given to their lines that name none.
    pub zone: Option<String>,
    /// How long jobs run, by id, for lines that give no duration.
    pub durations: BTreeMap<String, u64>,
    /// The hours a fix may move a nightly line over.
    pub night: Option<NightHours>,
}

/// A problem with one line of one file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub rule: Rule,
    pub level: Level,
    pub path: String,
    /// 1-based, as an editor numbers it.
    pub line: usize,
    /// The id of the job the line gives, as `[durations]` names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    pub message: String,
    /// The quantity over a budget (starts in the minute, jobs at once),
    /// which a baseline compares to tell a worse finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// The same for the same rule, file and line text wherever the line
    /// moves in its file.
    pub fingerprint: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<suggest::Suggestion>,
}

/// A file the check read, and where its lines went.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileChecked {
    pub path: String,
    pub format: &'static str,
    pub input: InputAccount,
}

/// Everything a check found, and the load it judged.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckReport {
    pub from: i64,
    pub horizon_minutes: u32,
    pub files: Vec<FileChecked>,
    /// Schedules read, over all files.
    pub schedules: usize,
    pub starts: usize,
    /// The most starts in a minute (the 90th percentile across draws
    /// where delays are drawn), and where it begins in Unix seconds.
    pub busiest_minute: Option<(i64, f64)>,
    /// For each hour of the horizon, its busiest minute's starts, as
    /// judged for the budget: the week's heatmap.
    pub busiest_by_hour: Vec<f64>,
    /// Whether some line's starts were drawn at random, so the figures
    /// are 90th percentiles across draws.
    pub drawn: bool,
    /// By file, then line, then rule.
    pub findings: Vec<Finding>,
    /// What the check could not do as asked, such as a concurrency budget
    /// with no duration known.
    pub notices: Vec<String>,
}

/// Why a concurrency budget found nothing to count.
const NO_DURATIONS: &str = "--max-concurrent: no schedule has a known duration (Duration= in a fleet file, a `stampede: duration` comment, or [durations] in stampede.toml), so no job was counted as running and the budget was not checked";

/// Reads every file, expands all their schedules together over the
/// options' horizon and returns what breaks a rule. Fails only on a
/// horizon that cannot be expanded.
pub fn check(files: &[SourceFile], options: &CheckOptions) -> Result<CheckReport, InvalidInput> {
    let reads: Vec<FileRead> = files
        .iter()
        .map(|file| {
            let mut read = FileRead::new(file, options);
            read.add_durations(marks::duration);
            read
        })
        .collect();
    let fleet = read::RepositoryFleet::of(&reads);
    let expansion =
        crate::expand_with_draws(&fleet.lines, options.from, options.horizon, options.seed)?;
    let load = rules::Load::new(&expansion);
    let mut hits = Vec::new();
    for (index, read) in reads.iter().enumerate() {
        rules::per_line(index, read, options, &mut hits);
        hits.extend(
            marks::mistakes(read)
                .into_iter()
                .map(|(line, message)| read::Hit {
                    file: index,
                    line,
                    rule: Rule::BadMark,
                    message,
                    value: None,
                    fixable: false,
                }),
        );
    }
    if let Some(budget) = options.max_starts_per_minute {
        rules::starts_over(&fleet, &expansion, &load, budget, &mut hits);
    }
    let mut notices = Vec::new();
    if let Some(stopped) = expansion.stopped_at_line {
        let (file, line) = fleet.origin(stopped);
        notices.push(format!(
            "the schedules reach {} starts at {}:{}: it and the lines after it are not counted in full, so the budgets are judged on part of the load",
            stampede_core::units::count(crate::MOST_STARTS as u64),
            reads[file].path(),
            reads[file].file_line(line)
        ));
    }
    if let Some(budget) = options.max_concurrent {
        if expansion.running_per_minute.is_none() {
            notices.push(NO_DURATIONS.to_string());
        }
        rules::running_over(&fleet, &expansion, &load, budget, &mut hits);
    }
    hits.retain(|hit| !marks::ignores(&reads[hit.file], hit.line, hit.rule));
    let mut findings = suggest::findings(&reads, hits, options.night);
    findings.sort_by(|a, b| (&a.path, a.line, a.rule).cmp(&(&b.path, b.line, b.rule)));
    fingerprint(&reads, &mut findings);
    Ok(CheckReport {
        from: options.from,
        horizon_minutes: options.horizon.in_minutes(),
        files: reads.iter().map(FileRead::checked).collect(),
        schedules: fleet.lines.len(),
        starts: expansion.starts.len(),
        busiest_minute: load.busiest(options.from),
        busiest_by_hour: load.busiest_by_hour(),
        drawn: expansion.drawn.is_some(),
        findings,
        notices,
    })
}

/// Gives each finding its fingerprint: a hash of its rule, its file and
/// its line's text without the blanks around it, and which occurrence of
/// that text it is, so moving a line keeps it and two equal lines differ.
fn fingerprint(reads: &[FileRead], findings: &mut [Finding]) {
    let by_path: BTreeMap<&str, &FileRead> = reads.iter().map(|read| (read.path(), read)).collect();
    let mut seen: BTreeMap<(Rule, String, String), u32> = BTreeMap::new();
    for finding in findings {
        let text = by_path
            .get(finding.path.as_str())
            .map_or("", |read| read.source_line(finding.line).trim());
        let key = (finding.rule, finding.path.clone(), text.to_string());
        let occurrence = seen.entry(key).or_default();
        let identity = format!(
            "{}\u{1f}{}\u{1f}{text}\u{1f}{occurrence}",
            finding.rule.slug(),
            finding.path
        );
        *occurrence += 1;
        let low = farm_fingerprint32(identity.as_bytes());
        let high = farm_fingerprint32(format!("stampede\u{1f}{identity}").as_bytes());
        finding.fingerprint = format!("{high:08x}{low:08x}");
    }
}

#[cfg(test)]
mod tests;
