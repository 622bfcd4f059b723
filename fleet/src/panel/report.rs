//! What the Fleet panel draws, computed from the fleet's text in stages
//! the page receives one after another: the fleet as written ([`read`]),
//! the link that carries it ([`link`]), the fix ([`fix()`]) and the
//! stability probe ([`probe`]).
//! Each stage's result is owned and serialisable, so it crosses from the
//! worker to the page whole.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::cron::Horizon;
use crate::fix::{self, FixChange, NightHours};
use crate::import::{self, Imported, InputAccount, PartRead};
use crate::level;
use crate::line::{FleetLine, System};
use crate::stability::{self, FleetChange, StabilityPlacing};
use stampede_core::error::InvalidInput;
use stampede_core::fleet_format::FleetFormat;
use stampede_core::units::counted;

use super::diff::{self, DiffRow};
use super::load::{JobsByLine, WEEK_MINUTES, WeekLoad, week_load};
use stampede_core::panels::fleet::{FixMethod, FleetParams, Probe, Sample};

use super::night_hours;

pub use super::keys::key_numbers;

/// A job of the fleet: where it is written and what it is called.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// The line of the pasted text it came from, from 1.
    pub line: u32,
    pub id: String,
    pub system: System,
    /// The spec as the fleet line writes it, such as `H H * * *`.
    pub spec: String,
}

/// A line of the text that was not read, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub line: u32,
    /// The part of the line that stopped it, such as `spec`.
    pub field: String,
    pub reason: String,
}

/// Something about one line the expansion or the importer says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LineNotice {
    pub line: u32,
    pub message: String,
}

/// The notices that say the same thing, with the lines they are about,
/// so 50 machines' identical notices read as one: "lines 2–51".
pub fn grouped_notices(notices: &[LineNotice]) -> Vec<(String, &str)> {
    let mut groups: Vec<(&str, Vec<u32>)> = Vec::new();
    let mut group_of: HashMap<&str, usize> = HashMap::new();
    for notice in notices {
        let group = *group_of.entry(&notice.message).or_insert_with(|| {
            groups.push((&notice.message, Vec::new()));
            groups.len() - 1
        });
        // One native line gives a job a machine: its line once is enough.
        if groups[group].1.last() != Some(&notice.line) {
            groups[group].1.push(notice.line);
        }
    }
    groups
        .into_iter()
        .map(|(message, lines)| (line_ranges(&lines), message))
        .collect()
}

/// "line 3", "lines 3 and 5", "lines 2, 4–6 and 9": runs of consecutive
/// lines as ranges.
fn line_ranges(lines: &[u32]) -> String {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &line in lines {
        match runs.last_mut() {
            Some((_, last)) if line == *last + 1 => *last = line,
            _ => runs.push((line, line)),
        }
    }
    // A run of two reads better as two lines than as a range.
    let words: Vec<String> = runs
        .iter()
        .flat_map(|&(first, last)| match last - first {
            0 => vec![first.to_string()],
            1 => vec![first.to_string(), last.to_string()],
            _ => vec![format!("{first}–{last}")],
        })
        .collect();
    let many = lines.len() > 1;
    let list = match words.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => words.concat(),
    };
    format!("{} {list}", if many { "lines" } else { "line" })
}

/// A run of lines of the text in one format, and the jobs it gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextPart {
    /// The format's slug, such as `crontab`.
    pub format: String,
    /// The format in words, such as "systemd timers".
    pub words: String,
    pub first_line: u32,
    pub last_line: u32,
    pub jobs: u32,
}

/// A file of the text, from its `# file: NAME` line to the next, and
/// what was read from it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextFile {
    pub name: String,
    pub first_line: u32,
    pub last_line: u32,
    /// The formats it was read in, in words: "a crontab".
    pub formats: String,
    pub jobs: u32,
    /// Its lines skipped.
    pub skipped: u32,
}

/// Stage one: the fleet as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetRead {
    /// The format the text was read in (the detected one for `auto`), or
    /// `mixed` when its parts are in several.
    pub format: String,
    /// "212 jobs from a crontab; 3 lines skipped".
    pub summary: String,
    /// "240 lines in: 230 read into 240 jobs, 8 without a schedule, 2
    /// skipped".
    pub reconciliation: String,
    pub account: InputAccount,
    /// The text's parts, in order; one for a text in one format.
    pub parts: Vec<TextPart>,
    /// The files the text is made of, each after its `# file:` line, in
    /// order (files dropped or uploaded together); none when some of the
    /// text is before the first such line, or a file mixes formats, since
    /// then [`Self::parts`] says more.
    pub files: Vec<TextFile>,
    pub jobs: Vec<Job>,
    pub skipped: Vec<Skipped>,
    pub notices: Vec<LineNotice>,
    /// Unix seconds of the week's first minute.
    pub from: i64,
    pub load: WeekLoad,
}

/// A job the fix leaves as written, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeptJob {
    /// Index into [`FleetRead::jobs`].
    pub job: u32,
    pub why: String,
}

/// Stage two: the fix and the fleet it makes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetFix {
    /// The whole text, fixed, in the format it was read in.
    pub fixed_text: String,
    /// The rows of the diff's hunks, each change with up to
    /// [`DIFF_CONTEXT`](super::DIFF_CONTEXT) unchanged rows around it, in text order.
    pub diff: Vec<DiffRow>,
    /// Jobs the fix moved.
    pub changed: u32,
    pub kept: Vec<KeptJob>,
    pub load: WeekLoad,
    /// Starts in each minute of the week from the lines the fix leaves as
    /// written, which no fix moves: why a minute may stay over capacity.
    pub kept_starts: Vec<u32>,
    /// What the fixed fleet's figures do not count in full, as the read
    /// says it: the importer's notes, the start cap, a scheduler's last
    /// year.
    pub notices: Vec<LineNotice>,
}

/// Stage three: which jobs move when the fleet changes a little, placed
/// as the fix places them, against a random delay drawn anew.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetProbe {
    pub probe_slug: String,
    /// "renamed nightly-backup to nightly-backup-2".
    pub change: String,
    pub compared: u32,
    /// Indices into [`FleetRead::jobs`] of the jobs that moved.
    pub moved: Vec<u32>,
    /// Minutes of the week where a moved job starts, in the fixed fleet.
    pub moved_minutes: Vec<u32>,
    /// The same change with every movable job at a random delay redrawn.
    pub rerolled_moved: u32,
    pub rerolled_compared: u32,
}

/// Every stage of the report on one text, as the page shows it once the
/// worker has sent all three.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FleetReport {
    pub read: FleetRead,
    pub fix: FleetFix,
    pub probe: Option<FleetProbe>,
}

impl FleetReport {
    /// Reads, fixes and probes `text`.
    pub fn new(text: &str, params: &FleetParams, seed: u64) -> Result<Self, InvalidInput> {
        Ok(Self {
            read: read(text, params, seed)?,
            fix: fix(text, params, seed)?,
            probe: probe(text, params, seed)?,
        })
    }

    /// The key numbers of the fleet and its fix.
    pub fn key_numbers(&self, params: &FleetParams) -> Vec<stampede_core::key_numbers::KeyNumber> {
        key_numbers(params, &self.read, Some(&self.fix))
    }
}

/// The machine id [`Probe::MachineId`] gives every systemd line.
pub const NEW_MACHINE_ID: &str = "5f2b9c1e8a7d4036b1e9c2f07a6d3e48";
/// The server [`Probe::Server`] gives every Prometheus line.
pub const NEW_SERVER: &str = "prom-2.example.com";

fn week() -> Horizon {
    Horizon::minutes(WEEK_MINUTES).expect("a week is within the longest horizon")
}

/// The format in plain words, as the summary names it.
fn format_words(format: FleetFormat) -> &'static str {
    match format {
        FleetFormat::Auto | FleetFormat::Fleet => "a fleet file",
        FleetFormat::Crontab => "a crontab",
        FleetFormat::Jenkins => "Jenkinsfiles",
        FleetFormat::JenkinsXml => "Jenkins job configs",
        FleetFormat::QuartzXml => "Quartz job files",
        FleetFormat::SpringScheduled => "Spring @Scheduled methods",
        FleetFormat::Apscheduler => "APScheduler jobs",
        FleetFormat::Systemd => "systemd timers",
        FleetFormat::Prometheus => "prometheus.yml",
        FleetFormat::Kubernetes => "Kubernetes CronJobs",
        FleetFormat::GithubActions => "GitHub Actions workflows",
        FleetFormat::Temporal => "Temporal schedules",
        FleetFormat::EventBridge => "EventBridge Scheduler schedules",
        FleetFormat::Anacrontab => "an anacrontab",
        FleetFormat::SidekiqCron => "a sidekiq-cron schedule",
    }
}

/// How many lines were skipped: a line skipped for several fields counts
/// once.
pub(super) fn lines_skipped(skipped: &[Skipped]) -> u64 {
    let mut lines: Vec<u32> = skipped.iter().map(|skipped| skipped.line).collect();
    lines.dedup();
    lines.len() as u64
}

/// The formats of `parts` in words, each once, in order: "a crontab,
/// Jenkinsfiles and systemd timers".
fn formats_in_words(parts: &[PartRead]) -> String {
    let mut words: Vec<&str> = Vec::new();
    for part in parts {
        let word = format_words(part.format);
        if !words.contains(&word) {
            words.push(word);
        }
    }
    match words.as_slice() {
        [] => format_words(FleetFormat::Fleet).to_string(),
        [one] => one.to_string(),
        [most @ .., last] => format!("{} and {last}", most.join(", ")),
    }
}

/// "212 jobs from a crontab; 3 lines skipped", or what to paste when
/// nothing was there to read.
fn summary(jobs: usize, skipped: &[Skipped], parts: &[PartRead]) -> String {
    if jobs == 0 && skipped.is_empty() {
        return "No schedules yet: paste a crontab, Jenkinsfiles, systemd timers, a prometheus.yml, \
                Kubernetes CronJobs, GitHub Actions workflows, Temporal schedules or a fleet file, \
                or pick a sample"
            .into();
    }
    let read = format!(
        "{} from {}",
        counted(jobs as u64, "job", "jobs"),
        formats_in_words(parts)
    );
    match lines_skipped(skipped) {
        0 => read,
        lines => format!("{read}; {} skipped", counted(lines, "line", "lines")),
    }
}

/// The files `text` is made of, each after its `# file:` line, with what
/// each gave; none unless the text is only such files, each in one format.
fn files_of(text: &str, parts: &[PartRead], jobs: &[Job], skipped: &[Skipped]) -> Vec<TextFile> {
    let split = import::split_files(text, crate::import::systemd::FILE_MARK);
    if split
        .first()
        .is_some_and(|before| !before.text.trim().is_empty())
    {
        return Vec::new();
    }
    let files: Vec<_> = split
        .into_iter()
        .filter_map(|part| {
            let (line, name) = part.name?;
            Some((line, name.to_string()))
        })
        .collect();
    let ends = files
        .iter()
        .skip(1)
        .map(|(line, _)| line - 1)
        .chain([text.lines().count()]);
    files
        .iter()
        .zip(ends)
        .map(|((first, name), last)| {
            let within = |line: u32| (*first as u32..=last as u32).contains(&line);
            let mut skipped_lines: Vec<u32> = skipped
                .iter()
                .map(|skipped| skipped.line)
                .filter(|line| within(*line))
                .collect();
            skipped_lines.dedup();
            let overlapping: Vec<PartRead> = parts
                .iter()
                .filter(|part| part.first_line <= last && *first <= part.last_line)
                .cloned()
                .collect();
            (overlapping.len() == 1).then(|| TextFile {
                name: name.clone(),
                first_line: *first as u32,
                last_line: last as u32,
                formats: formats_in_words(&overlapping),
                jobs: jobs.iter().filter(|job| within(job.line)).count() as u32,
                skipped: skipped_lines.len() as u32,
            })
        })
        .collect::<Option<Vec<_>>>()
        .unwrap_or_default()
}

fn jobs_of(lines: &[FleetLine]) -> Vec<Job> {
    lines
        .iter()
        .map(|line| Job {
            line: line.line as u32,
            id: line.id.clone(),
            system: line.system,
            spec: line.spec.clone(),
        })
        .collect()
}

/// The week's load of `lines` (with the importer's notes among the
/// notices), and those notices.
fn load_of(
    lines: Vec<FleetLine>,
    notes: &[crate::FleetNotice],
    params: &FleetParams,
    seed: u64,
    with_draws: bool,
) -> Result<(WeekLoad, Vec<LineNotice>), InvalidInput> {
    let fleet = Imported {
        file: crate::file::FleetFile {
            lines,
            skipped: Vec::new(),
        },
        notes: notes.to_vec(),
        ..Imported::default()
    };
    let expansion = if with_draws {
        fleet.expand_with_draws(params.week.0, week(), seed)?
    } else {
        fleet.expand(params.week.0, week(), seed)?
    };
    let jobs = JobsByLine::new(&fleet.file.lines);
    let load = week_load(&expansion, &jobs, fleet.file.lines.len());
    let notices = expansion
        .notices
        .iter()
        .map(|notice| LineNotice {
            line: notice.line as u32,
            message: notice.message.clone(),
        })
        .collect();
    Ok((load, notices))
}

/// Stage one: reads `text` and expands it over the week of `params`.
pub fn read(text: &str, params: &FleetParams, seed: u64) -> Result<FleetRead, InvalidInput> {
    let imported = import::import(text, params.format);
    let account = imported.account();
    let Imported {
        file, notes, parts, ..
    } = imported;
    let jobs = jobs_of(&file.lines);
    let skipped: Vec<Skipped> = file
        .skipped
        .into_iter()
        .map(|skipped| Skipped {
            line: skipped.line as u32,
            field: skipped.field,
            reason: skipped.reason,
        })
        .collect();
    let (load, notices) = load_of(file.lines, &notes, params, seed, true)?;
    let format = match parts.as_slice() {
        [] => FleetFormat::Fleet.slug(),
        [one] => one.format.slug(),
        [first, rest @ ..] if rest.iter().all(|part| part.format == first.format) => {
            first.format.slug()
        }
        _ => "mixed",
    };
    Ok(FleetRead {
        format: format.to_string(),
        summary: summary(jobs.len(), &skipped, &parts),
        reconciliation: account.to_string(),
        account,
        files: files_of(text, &parts, &jobs, &skipped),
        parts: parts
            .iter()
            .map(|part| TextPart {
                format: part.format.slug().to_string(),
                words: format_words(part.format).to_string(),
                first_line: part.first_line as u32,
                last_line: part.last_line as u32,
                jobs: part.jobs as u32,
            })
            .collect(),
        jobs,
        skipped,
        notices,
        from: params.week.0,
        load,
    })
}

/// The starts of day `day` of the week (0 for its first) of the fleet of
/// `text`, as arrivals the Queue panel reads: a CSV of each start's instant
/// in Unix milliseconds and its job (name and line) as the account, in time order, with
/// each job's duration in seconds when every job starting that day has a
/// `Duration=` (otherwise the Queue's own durations apply to all).
pub fn day_arrivals(
    text: &str,
    params: &FleetParams,
    seed: u64,
    day: u32,
) -> Result<String, InvalidInput> {
    let fleet = import::import(text, params.format);
    let expansion = fleet.expand(params.week.0, week(), seed)?;
    let duration_of_line: std::collections::HashMap<usize, Option<u64>> = fleet
        .file
        .lines
        .iter()
        .map(|line| (line.line, line.options.duration_seconds))
        .collect();
    let from = (params.week.0 + i64::from(day) * 86_400) * 1_000_000;
    let until = from + 86_400 * 1_000_000;
    let starts: Vec<_> = expansion
        .starts
        .iter()
        .filter(|start| (from..until).contains(&start.at_micros))
        .map(|start| {
            let duration = duration_of_line.get(&start.line).copied().flatten();
            (start, duration)
        })
        .collect();
    let with_durations = starts.iter().all(|(_, duration)| duration.is_some());
    let mut csv = String::from(if with_durations {
        "timestamp,account,duration\n"
    } else {
        "timestamp,account\n"
    });
    for (start, duration) in starts {
        // One account a line: 50 machines' copies of one timer are 50 jobs.
        // The importer reads a field in quotes whole, commas and all; a
        // job's name never needs a quote of its own.
        let account = format!("{} (line {})", start.id.replace('"', "'"), start.line);
        let millis = start.at_micros.div_euclid(1_000);
        match duration.filter(|_| with_durations) {
            Some(seconds) => csv.push_str(&format!("{millis},\"{account}\",{seconds}\n")),
            None => csv.push_str(&format!("{millis},\"{account}\"\n")),
        }
    }
    Ok(csv)
}

/// The link fragment (without `#`) that carries the reader's own `text`,
/// or why none can; `None` for a sample, whose name travels instead. Its
/// own stage, after [`read`], so compressing a long fleet never holds up
/// its figure.
pub fn link(text: &str, sample: Sample) -> Option<Result<String, String>> {
    (sample == Sample::Own).then(|| crate::link::encode(text).map_err(|e| e.to_string()))
}

/// Stage two: fixes the fleet of `text` by `params.fix`.
pub fn fix(text: &str, params: &FleetParams, seed: u64) -> Result<FleetFix, InvalidInput> {
    let Imported { file, notes, .. } = import::import(text, params.format);
    let (from, horizon, night) = (params.week.0, week(), night_hours(params.night));
    let fixes = match params.fix {
        FixMethod::Hash => fix::fix_crowded(&file.lines, night, from, horizon, seed)?,
        FixMethod::Level => level::level(&file.lines, &[], night, from, horizon, seed)?.fixes,
        FixMethod::Capacity => {
            level::to_capacity(&file.lines, params.capacity, night, from, horizon, seed)?.fixes
        }
    };
    let fixed_text = fix::native::rewrite(text, params.format, &fixes)?;
    // The fixed fleet's range across draws would cost as much again, and
    // the page shows it for the fleet as written.
    let (load, notices) = load_of(fix::apply(&file.lines, &fixes), &notes, params, seed, false)?;
    let (kept_lines, _) = fix::pair(file.lines.iter().map(|line| (line.line, line)), &fixes);
    let kept_lines: Vec<FleetLine> = kept_lines
        .into_iter()
        .filter(|(_, change)| !matches!(change, Some(FixChange::Rewritten { .. })))
        .map(|(line, _)| line.clone())
        .collect();
    let kept_starts = crate::expand(&kept_lines, from, horizon, seed)?.starts_per_minute;
    // `fix_lines` and `level` give one fix a line, in the fleet's order.
    let mut changed = 0;
    let mut kept = Vec::new();
    for (job, line_fix) in fixes.iter().enumerate() {
        match &line_fix.change {
            FixChange::Rewritten { .. } => changed += 1,
            FixChange::Kept { why } => kept.push(KeptJob {
                job: job as u32,
                why: why.clone(),
            }),
        }
    }
    Ok(FleetFix {
        diff: diff::rows(text, &fixed_text),
        fixed_text,
        changed,
        kept,
        load,
        kept_starts,
        notices,
    })
}

/// Stage three: the probe of `params.probe`; `None` for [`Probe::None`].
pub fn probe(
    text: &str,
    params: &FleetParams,
    seed: u64,
) -> Result<Option<FleetProbe>, InvalidInput> {
    let lines = import::import(text, params.format).file.lines;
    let has = |system: System| lines.iter().any(|line| line.system == system);
    let (change, sentence) = match params.probe {
        Probe::None => return Ok(None),
        Probe::Rename => match lines.first() {
            Some(first) => {
                let to = format!("{}-renamed", first.id);
                let sentence = format!("renamed `{}` to `{to}`", first.id);
                (
                    FleetChange::Rename {
                        line: first.line,
                        to,
                    },
                    sentence,
                )
            }
            None => (
                FleetChange::Grow { percent: 0 },
                "there is no job to rename".to_string(),
            ),
        },
        Probe::Grow => (
            FleetChange::Grow { percent: 10 },
            format!(
                "added {}, copies of the first lines under new names",
                counted(lines.len().div_ceil(10) as u64, "job", "jobs")
            ),
        ),
        Probe::MachineId => (
            FleetChange::MachineId(NEW_MACHINE_ID.into()),
            if has(System::Systemd) {
                format!("gave every machine the id {NEW_MACHINE_ID}")
            } else {
                "no line hashes a machine id (only systemd timers do), so nothing can move".into()
            },
        ),
        Probe::Server => (
            FleetChange::Server(NEW_SERVER.into()),
            if has(System::Prometheus) {
                format!("moved every target to the server {NEW_SERVER}")
            } else {
                "no line hashes a Prometheus server, so nothing can move".into()
            },
        ),
    };
    let from = params.week.0;
    let night = night_hours(params.night);
    let hashed = stability::stability(
        &lines,
        &change,
        StabilityPlacing::HashFix { night },
        from,
        week(),
    )?;
    let rerolled = stability::stability(
        &lines,
        &change,
        StabilityPlacing::RandomDelay { seed, night },
        from,
        week(),
    )?;
    let jobs = JobsByLine::new(&lines);
    let mut moved: Vec<u32> = hashed.moved.iter().map(|job| jobs.of(job.line)).collect();
    moved.dedup();
    Ok(Some(FleetProbe {
        probe_slug: params.probe.slug().to_string(),
        change: sentence,
        compared: hashed.compared as u32,
        moved_minutes: moved_minutes(&lines, &moved, night, from)?,
        moved,
        rerolled_moved: rerolled.moved.len() as u32,
        rerolled_compared: rerolled.compared as u32,
    }))
}

/// The minutes of the week where the jobs `moved` start once the fleet is
/// hash-fixed, sorted, each once.
fn moved_minutes(
    lines: &[FleetLine],
    moved: &[u32],
    night: Option<NightHours>,
    from: i64,
) -> Result<Vec<u32>, InvalidInput> {
    if moved.is_empty() {
        return Ok(Vec::new());
    }
    let moved_lines: std::collections::BTreeSet<usize> =
        moved.iter().map(|&job| lines[job as usize].line).collect();
    let fixed = fix::apply(lines, &fix::fix_lines(lines, night));
    // Seed 0, as the stability probe expands the hash-fixed fleet.
    let expansion = crate::expand(&fixed, from, week(), 0)?;
    let mut minutes: Vec<u32> = expansion
        .starts
        .iter()
        .filter(|start| moved_lines.contains(&start.line))
        .map(|start| ((start.at_micros / 1_000_000 - from) / 60) as u32)
        .collect();
    minutes.dedup();
    Ok(minutes)
}
