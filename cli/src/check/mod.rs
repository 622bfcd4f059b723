//! `stampede check [PATH…]`: the schedules of a repository held to rules,
//! for CI and pre-commit.
//!
//! The files are found by path and content ([`scan`]), the settings come
//! from the flags over `stampede.toml` ([`config`]), the rules run in
//! `stampede_fleet::check`, a baseline marks what is new or worse
//! ([`baseline`]), and each report is written where asked ([`report`]).
//!
//! Exit codes: 0 when no finding at or above `--fail-on` is new or worse
//! than the baseline; 1 when one is; 2 for a usage, configuration or I/O
//! error, whatever the outputs.

mod baseline;
mod config;
mod report;
mod scan;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use stampede_fleet::check::{self, CheckOptions, Level};
use stampede_fleet::cron::{Horizon, MOST_HORIZON_MINUTES};
use stampede_fleet::fix::NightHours;
use stampede_fleet::time;

use self::baseline::Baseline;
use self::report::{Output, Reported};

/// The flags of `stampede check`; each setting but the paths and outputs
/// may also come from `stampede.toml`, and a flag wins.
#[derive(Args)]
pub struct CheckArgs {
    /// Files and folders to check; folders are walked, leaving out what
    /// .gitignore leaves out. By default, the current folder.
    pub paths: Vec<PathBuf>,
    /// A report to write: text, json, sarif, github, gitlab or junit, to
    /// stdout or, as FORMAT=FILE, to a file. Repeat for several; by
    /// default text to stdout.
    #[arg(long = "output", short = 'o', value_name = "FORMAT[=FILE]", value_parser = report::parse_output)]
    pub outputs: Vec<Output>,
    /// The most jobs that may start in one minute (the starts-per-minute rule).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_starts_per_minute: Option<u32>,
    /// The most jobs, by weight, that may run at once (the concurrent-jobs
    /// rule): a job with a known duration counts for its whole run, any
    /// other in its start minute.
    #[arg(long, value_name = "N", value_parser = config::positive)]
    pub max_concurrent: Option<f64>,
    /// Exit with 1 when a finding at or above this level is new or worse
    /// than the baseline: error, warning or note. By default error.
    #[arg(long, value_name = "LEVEL", value_parser = config::level)]
    pub fail_on: Option<Level>,
    /// An earlier run's JSON or SARIF report: only findings it lacks, or
    /// that are worse than in it, fail.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// The settings file; by default stampede.toml in the current folder,
    /// or else in the one folder given, when there is one.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The zone of the machines that run crontabs, Quartz, Spring and
    /// APScheduler, for lines that name none (Area/City). By default UTC.
    #[arg(long, value_name = "ZONE")]
    pub zone: Option<String>,
    /// Where the horizon starts, in RFC 3339. By default the start of the
    /// current week (Monday 00:00 UTC).
    #[arg(long, value_name = "RFC3339", value_parser = |text: &str| time::parse("--from", text).map_err(|e| e.reason))]
    pub from: Option<i64>,
    /// How long the horizon is, in hours: 1 to 744. By default 168, a week.
    #[arg(long, value_name = "H", value_parser = clap::value_parser!(u32).range(1..=i64::from(MOST_HORIZON_MINUTES / 60)))]
    pub hours: Option<u32>,
    /// The hours a suggested fix may move a once-a-night line over, such as 0-5.
    #[arg(long, value_name = "A-B", value_parser = |text: &str| NightHours::parse(text))]
    pub night: Option<NightHours>,
    /// The seed for the delays schedulers draw at run time; budgets are
    /// judged across 20 more draws.
    #[arg(long, default_value_t = stampede_core::panels::state::DEFAULT_SEED)]
    pub seed: u64,
}

/// A problem that stops the check: exit code 2.
pub struct Stop(pub String);

impl<T: std::fmt::Display> From<T> for Stop {
    fn from(message: T) -> Self {
        Self(message.to_string())
    }
}

/// Runs the check and gives the exit code.
pub fn run(args: CheckArgs) -> ExitCode {
    match check(args) {
        Ok(failed) => ExitCode::from(u8::from(failed)),
        Err(Stop(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

/// Whether a finding fails the check.
fn check(args: CheckArgs) -> Result<bool, Stop> {
    let settings = config::Settings::load(&args)?;
    let (files, unread) = scan::files(&args.paths, &settings.exclude)?;
    let options = CheckOptions {
        from: args.from.unwrap_or_else(start_of_week),
        horizon: Horizon::hours(settings.hours).map_err(|e| e.to_string())?,
        seed: args.seed,
        max_starts_per_minute: settings.max_starts_per_minute,
        max_concurrent: settings.max_concurrent,
        zone: settings.zone.clone(),
        durations: settings.durations.clone(),
        night: settings.night,
    };
    let mut found = check::check(&files, &options).map_err(|e| e.to_string())?;
    found.notices.extend(unread);
    found
        .findings
        .retain(|finding| !settings.ignores(finding.rule, &finding.path));
    let baseline = match &args.baseline {
        Some(path) => Baseline::read(path)?,
        None => Baseline::default(),
    };
    let reported = Reported::new(found, &baseline, settings.fail_on, args.baseline.is_some());
    let outputs = if args.outputs.is_empty() {
        vec![Output::default()]
    } else {
        args.outputs
    };
    report::write_all(&outputs, &reported)?;
    Ok(reported.fails())
}

/// Monday 00:00 UTC of the current week, in Unix seconds.
fn start_of_week() -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs() as i64);
    let day = now.div_euclid(86_400);
    // 1970-01-01 was a Thursday: day 0 is 3 days after a Monday.
    (day - (day + 3).rem_euclid(7)) * 86_400
}
