//! Finding the schedule files of a repository, by path and by content.
//!
//! Folders are walked with ripgrep's walker (the `ignore` crate), which
//! leaves out what `.gitignore` and `.ignore` leave out; hidden folders
//! are walked, for `.github/workflows`, but `.git` is not. A file is read
//! in the format its path names (`*.timer`, `Jenkinsfile`, a workflow, a
//! crontab, `prometheus.yml`, `anacrontab`, `*.fleet`), or that its
//! content shows beyond doubt (`kind: CronJob`, `@Scheduled`, an
//! APScheduler call, a Temporal schedule, an EventBridge schedule, a
//! Quartz or Jenkins job's XML, a sidekiq-cron schedule). A file named on
//! the command line that neither shows is read as `stampede fleet` would
//! read it.

use std::path::{Component, Path, PathBuf};

use globset::GlobSet;
use ignore::WalkBuilder;
use stampede_core::fleet_format::FleetFormat;
use stampede_fleet::check::SourceFile;
use stampede_fleet::import;

use super::Stop;

/// The largest file read: larger ones are not schedules.
const MOST_BYTES: u64 = 16 << 20;

/// The schedule files under `paths` (the current folder when empty), by
/// path, and a notice for each file left unread for its size.
pub fn files(paths: &[PathBuf], exclude: &GlobSet) -> Result<(Vec<SourceFile>, Vec<String>), Stop> {
    let mut too_large = Vec::new();
    let here = [PathBuf::from(".")];
    let roots = if paths.is_empty() { &here[..] } else { paths };
    let mut files = Vec::new();
    for root in roots {
        let metadata = std::fs::metadata(root).map_err(|e| format!("{}: {e}", root.display()))?;
        if metadata.is_file() {
            let text = read(root)?;
            let name = shown(root);
            let format = format_of(&name, &text).unwrap_or_else(|| import::detect(&text));
            files.push(SourceFile {
                path: name,
                text,
                format,
            });
            continue;
        }
        let walk = WalkBuilder::new(root)
            .hidden(false)
            .require_git(false)
            .filter_entry(|entry| entry.file_name() != ".git")
            .build();
        for entry in walk {
            let entry = entry.map_err(|e| e.to_string())?;
            if !entry.file_type().is_some_and(|kind| kind.is_file()) {
                continue;
            }
            let name = shown(entry.path());
            if exclude.is_match(&name) || !maybe_schedules(&name) {
                continue;
            }
            let bytes = entry.metadata().map_or(0, |m| m.len());
            if bytes > MOST_BYTES {
                too_large.push(format!(
                    "{name}: not read, since it holds {} MiB, past the {} MiB a file of schedules is read to",
                    bytes >> 20,
                    MOST_BYTES >> 20
                ));
                continue;
            }
            let text = read(entry.path())?;
            if let Some(format) = format_of(&name, &text) {
                files.push(SourceFile {
                    path: name,
                    text,
                    format,
                });
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files.dedup_by(|a, b| a.path == b.path);
    Ok((files, too_large))
}

fn read(path: &Path) -> Result<String, Stop> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `path` as reports name it: relative to the current folder when under
/// it, with `/` between folders and no leading `./`.
fn shown(path: &Path) -> String {
    let relative = std::env::current_dir()
        .ok()
        .and_then(|here| path.strip_prefix(here).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf());
    let parts: Vec<String> = relative
        .components()
        .filter(|part| !matches!(part, Component::CurDir))
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/").replace("//", "/")
}

/// The extensions of files that may hold schedules.
const EXTENSIONS: [&str; 12] = [
    "yml", "yaml", "json", "template", "timer", "xml", "java", "kt", "py", "cron", "crontab",
    "fleet",
];

/// Whether a file of this name could hold schedules, so that a walk
/// opens only those.
fn maybe_schedules(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let extension = name.rsplit_once('.').map_or("", |(_, extension)| extension);
    EXTENSIONS.contains(&extension)
        || name.starts_with("Jenkinsfile")
        || name.ends_with(".jenkinsfile")
        || matches!(name, "crontab" | "anacrontab")
        || path.contains("cron.d/")
        || path.contains("crontabs/")
}

/// The format a file is in, by its path and then its content; `None`
/// when it holds no schedules this check reads.
pub fn format_of(path: &str, text: &str) -> Option<FleetFormat> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let extension = name.rsplit_once('.').map_or("", |(_, extension)| extension);
    let yaml = matches!(extension, "yml" | "yaml");
    let by_path = if path.contains(".github/workflows/") && yaml {
        text.contains("cron").then_some(FleetFormat::GithubActions)
    } else if name.starts_with("Jenkinsfile") || name.ends_with(".jenkinsfile") {
        text.contains("cron").then_some(FleetFormat::Jenkins)
    } else if extension == "timer" {
        Some(FleetFormat::Systemd)
    } else if name == "anacrontab" {
        Some(FleetFormat::Anacrontab)
    } else if matches!(extension, "cron" | "crontab")
        || name == "crontab"
        || path.contains("cron.d/")
        || path.contains("crontabs/")
    {
        Some(FleetFormat::Crontab)
    } else if matches!(name, "prometheus.yml" | "prometheus.yaml") {
        Some(FleetFormat::Prometheus)
    } else if extension == "fleet" {
        Some(FleetFormat::Fleet)
    } else {
        None
    };
    by_path.or_else(|| by_content(extension, text))
}

/// The format `text` shows beyond doubt, for a file of this extension.
fn by_content(extension: &str, text: &str) -> Option<FleetFormat> {
    let detected = || import::detect(text);
    match extension {
        "yml" | "yaml" | "json" | "template" => {
            let eventbridge = [
                "AWS::Scheduler::Schedule",
                "ScheduleV2",
                "aws_scheduler_schedule",
            ];
            if eventbridge.iter().any(|mark| text.contains(mark)) {
                Some(FleetFormat::EventBridge)
            } else if text.contains("kind: CronJob") {
                Some(FleetFormat::Kubernetes)
            } else {
                let format = detected();
                matches!(format, FleetFormat::SidekiqCron | FleetFormat::Temporal)
                    .then_some(format)
                    .filter(|format| *format != FleetFormat::Temporal || temporal_like(text))
            }
        }
        "xml" if text.contains("<job-scheduling-data") => Some(FleetFormat::QuartzXml),
        "xml" if text.contains("TimerTrigger") => Some(FleetFormat::JenkinsXml),
        "java" | "kt" if text.contains("@Scheduled") => Some(FleetFormat::SpringScheduled),
        "py" if ["add_job(", "scheduled_job(", "from_crontab("]
            .iter()
            .any(|call| text.contains(call)) =>
        {
            Some(FleetFormat::Apscheduler)
        }
        _ => None,
    }
}

/// Whether JSON looks like a Temporal schedule rather than any JSON:
/// it names a schedule's spec or id.
fn temporal_like(text: &str) -> bool {
    [
        "\"scheduleId\"",
        "\"calendars\"",
        "\"intervals\"",
        "\"cronString\"",
        "\"structuredCalendar\"",
    ]
    .iter()
    .any(|key| text.contains(key))
}
