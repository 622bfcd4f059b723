//! `stampede`: the playground's computations on the command line.
//!
//! - `stampede spread --fn NAME --window SECONDS [--reduce mod|mulshift]`
//!   reads keys from stdin, one a line, and prints `key<TAB>hash<TAB>offset`
//!   for each: the key's 32-bit hash in decimal (`-` for `ruby`, which draws
//!   the offset instead of hashing) and its offset in the window, exactly as
//!   the Hash spread panel places it. All of stdin is read and checked
//!   before the first line is printed.
//! - `stampede run QUERY [--csv FILE]` reads an app URL (or its query
//!   string) exactly as the app does, prints the open panel's results as one
//!   JSON object on stdout, and with `--csv` writes the panel's time series.
//!   Parameters the app would adjust are adjusted the same way, and each
//!   adjustment is reported on stderr. With `--replicate R` (5 to 100), or
//!   `repl=R` in the URL, a Queue run is made under R seeds drawn from the
//!   URL's seed and the JSON object holds each figure's mean with its 95 %
//!   interval and the lanes' differences, in the page's words. With
//!   `--arrivals FILE` it reads job arrivals (one timestamp a line, or CSV
//!   with a timestamp column) and prints them described and replayed under
//!   the URL's Queue parameters, each refused row on stderr by its line;
//!   with `--replicate R` too, the replay's lanes over R runs, and with
//!   `--resample-hours` each run redraws the trace's whole hours.
//!
//! - `stampede snippets QUERY` prints what the open panel hands a reader to
//!   paste into their own system (a crontab line, a retry policy, a SQL
//!   query), each under a heading with its note, for that URL's parameters.
//!
//! - `stampede presets [--seed N]` prints every panel's "try this" presets
//!   as a JSON array: each with its full query string and the key numbers
//!   the page shows for it, word for word, so a browser test can compare.
//!
//! - `stampede fleet [--format FORMAT] [--from RFC3339] [--hours H]
//!   [--starts] [--strict] [--link URL]` reads a fleet file, a crontab or
//!   another scheduler's own text from stdin, or the fleet a shared Fleet
//!   panel link carries, and expands its schedules
//!   over the horizon: the expansion and the skipped lines as one JSON
//!   object, or with `--starts` each start as `line<TAB>id<TAB>start` in
//!   UTC. Skipped lines, lines not expanded and the importer's notes (such
//!   as GitHub's late scheduled runs) are reported on stderr, and the rest
//!   are still expanded; `--strict` refuses the file at its first bad line.
//!   With `--fix` it prints the fleet fixed instead, in the format it was
//!   read in, every byte but the changed specs and options as read; `--level` levels the lines instead of hashing them,
//!   never moving the lines `--pin` numbers. The figures before and after
//!   (peak starts per minute, minutes over --capacity, p99 of running jobs) and why
//!   each line left alone stays go to stderr as plain lines.
//!
//! - `stampede check [PATH…]` holds a repository's schedules to rules, for
//!   CI ([`check`], which has its own exit codes).
//!
//! Input problems (an unreadable argument or stdin, an unknown name, a value
//! out of range) exit with code 2 and a message naming the argument, before
//! anything is written: output goes out only once everything has succeeded,
//! and the CSV reaches its path by a rename, whole or not at all.

mod check;
mod whole_file;

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};
use serde::Serialize;
use stampede_core::error::InvalidInput;
use stampede_core::field::Choice;
use stampede_core::fleet_format::FleetFormat;
use stampede_core::hash_spread::{HashMode, Reduction};
use stampede_core::key_numbers::KeyNumber;
use stampede_core::panels::Panel;
use stampede_core::panels::State;
use stampede_core::panels::run::{self, KeyOffset};
use stampede_core::panels::series::TimeSeries;
use stampede_core::panels::snippet;
use stampede_core::panels::state::RESERVED_KEYS;
use stampede_core::panels::{queue_arrivals, queue_replication};
use stampede_core::replication::{MAX_REPLICATIONS, MIN_REPLICATIONS};
use stampede_core::units::counted;
use stampede_fleet::Expansion;
use stampede_fleet::cron::{Horizon, MOST_HORIZON_MINUTES};
use stampede_fleet::file::SkippedLine;
use stampede_fleet::fix::{self, FixChange, FixFigures, NightHours, native};
use stampede_fleet::import::{self, Imported, InputReport};
use stampede_fleet::level;
use stampede_fleet::link as fleet_link;
use stampede_fleet::panel::FleetReport;
use stampede_fleet::time;

use self::whole_file::WriteFailure;

#[derive(Parser)]
#[command(
    name = "stampede",
    version,
    about = "Scheduled work, computed: the Stampede playground on the command line."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Place keys read from stdin, one a line, in a recurring window.
    ///
    /// Prints key, hash and offset, separated by tabs: the hash in decimal
    /// (`-` for ruby, which has none) and the offset in seconds.
    Spread {
        /// How a key becomes an offset.
        #[arg(long = "fn", value_name = "NAME", value_parser = choices(HashMode::OPTIONS, HashMode::from_slug))]
        function: HashMode,
        /// The window in seconds.
        #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u32).range(1..))]
        window: u32,
        /// How a hash is brought below the window (not used by ruby).
        #[arg(long, value_name = "HOW", default_value = "mod", value_parser = choices(Reduction::OPTIONS, Reduction::from_slug))]
        reduce: Reduction,
    },
    /// Run the panel an app URL shows and print its results as JSON.
    ///
    /// Notices about parameters the app would adjust go to stderr.
    Run {
        /// An app URL, or its query string, e.g. 'v=1&p=jitter&s=7&n=10000'.
        // Read as an OsString so that text that is not UTF-8 gets a message
        // naming QUERY rather than clap's general one.
        query: OsString,
        /// Also write the panel's time series to this CSV file.
        #[arg(long, value_name = "FILE", conflicts_with = "arrivals")]
        csv: Option<PathBuf>,
        /// Run the Queue panel under R seeds drawn from the URL's seed and
        /// print each figure's mean with its 95 % interval (as `repl=R` in
        /// the URL does).
        #[arg(long, value_name = "R", value_parser = clap::value_parser!(u32).range(i64::from(MIN_REPLICATIONS)..=i64::from(MAX_REPLICATIONS)))]
        replicate: Option<u32>,
        /// Replay these arrivals (one timestamp a line, or CSV with a
        /// timestamp column) under the URL's Queue parameters, and print
        /// them described beside the lanes' figures; with --replicate, also
        /// each lane's figures over R runs.
        #[arg(long, value_name = "FILE")]
        arrivals: Option<PathBuf>,
        /// With --arrivals and replications: in each run, replace every whole
        /// hour of the arrivals by itself or a neighbouring hour, drawn at
        /// random (a block bootstrap).
        #[arg(long, requires = "arrivals")]
        resample_hours: bool,
    },
    /// Print the open panel's snippets for an app URL: what to paste where.
    Snippets {
        /// An app URL, or its query string, e.g. 'v=1&p=jitter&n=5000&hi=2.5'.
        query: OsString,
    },
    /// Print every "try this" preset with its URL query and key numbers, as JSON.
    Presets {
        /// The seed the presets start from.
        #[arg(long, default_value_t = stampede_core::panels::state::DEFAULT_SEED)]
        seed: u64,
    },
    /// Expand the schedules of a fleet file read from stdin over a horizon.
    ///
    /// A fleet file has one schedule a line: SYSTEM<TAB>ID<TAB>SPEC, then
    /// optional Duration= and Weight= fields and the system's own options.
    /// SYSTEM is cron (TZ= or CRON_TZ=Area/City), jenkins, croniter, systemd
    /// (RandomizedDelaySec=, FixedRandomDelay=, MachineID=,
    /// RandomizedOffsetSec=), temporal (Jitter=, Namespace=), prometheus (Job=,
    /// Labels=, URL=, Server=, ExternalLabels=), puppet, quartz (Quartz 2.3.2), spring (Spring 7), apscheduler (Jitter=, Start=),
    /// each with Zone=Area/City, eventbridge (Zone=, Window=, Start=), anacron (RandomDelay=, Hours=, Machine=, Runs=, Last=) or sidekiq-cron (Poll=, Process=); each start is placed as that scheduler places it. Prints the
    /// expansion and the skipped lines as one JSON object. Skipped lines, and lines not
    /// expanded, are reported on stderr with their line numbers.
    Fleet {
        /// What stdin holds: a fleet file; a crontab (user or system, as
        /// crontab -e or /etc/crontab has it); Jenkinsfiles (cron
        /// triggers; a "// job: folder/name" line before each names its
        /// job); systemd .timer units ("# file: name.timer" before each,
        /// "# machines: ID ..." for the machines they run on); a
        /// prometheus.yml ("# server: FQDN" names the server); Kubernetes
        /// CronJob YAML; GitHub Actions workflow YAML ("# file: name.yml"
        /// before each); Temporal schedule JSON (describe or list output,
        /// with "scheduleId" and "namespaceId" beside it); Jenkins job
        /// config.xml files ("# file: jobs/NAME/config.xml" before each);
        /// Quartz job files (quartz_data.xml, its cron triggers); Java or Kotlin
        /// sources (their @Scheduled(cron = ...) methods); Python sources (APScheduler's add_job and scheduled_job); EventBridge Scheduler schedules in CloudFormation, SAM or Terraform JSON; an anacrontab ("# hosts: N" runs it on N machines); a sidekiq-cron config/schedule.yml ("# poll: N", "# process: NAME"). Auto cuts stdin into parts,
        /// each in one of these, and reads each as if given alone: a part starts at a "# file:"
        /// or "// job:" line, a unit's [Section], a Jenkinsfile's pipeline {, a YAML document or
        /// key, JSON's { or [, XML's <, a fleet line, or a crontab line.
        /// Where every line went (read, without a schedule, skipped)
        /// goes to stderr and, as "input", into the JSON.
        #[arg(long, value_name = "FORMAT", default_value = "auto", value_parser = choices(FleetFormat::OPTIONS, FleetFormat::from_slug))]
        format: FleetFormat,
        /// Read the fleet a shared Fleet panel link carries instead of
        /// stdin: the whole link, or the part after its #.
        #[arg(long, value_name = "URL")]
        link: Option<String>,
        /// Where the horizon starts, in RFC 3339: 2026-01-01T00:00:00Z, or
        /// with an offset such as +02:00. By default, the start of the
        /// current day in UTC.
        #[arg(long, value_name = "RFC3339", value_parser = |text: &str| time::parse("--from", text).map_err(|e| e.reason))]
        from: Option<i64>,
        /// How long the horizon is, in hours: 1 to 744 (31 days).
        #[arg(long, value_name = "H", default_value_t = 24, value_parser = clap::value_parser!(u32).range(1..=i64::from(MOST_HORIZON_MINUTES / 60)))]
        hours: u32,
        /// The seed for the delays a scheduler draws at random (systemd's RandomizedDelaySec=
        /// without FixedRandomDelay=yes, APScheduler's Jitter=, EventBridge's window, anacron's RANDOM_DELAY, sidekiq-cron's polls); the JSON's "drawn" is 20 more draws.
        #[arg(long, default_value_t = stampede_core::panels::state::DEFAULT_SEED)]
        seed: u64,
        /// Print each start instead, as LINE<TAB>ID<TAB>START, START in RFC
        /// 3339 in UTC (with fractional seconds when not whole), by start
        /// then line.
        #[arg(long)]
        starts: bool,
        /// Refuse the input when any line is skipped (exit code 1), once every
        /// skipped line and where every line went are on stderr, instead of
        /// expanding the rest.
        #[arg(long)]
        strict: bool,
        /// Print the fleet fixed instead, in the format it was read in:
        /// each line that shares a minute with another start spread in its
        /// own system's syntax within its hour (cron a minute hashed from
        /// the job's id with its blanks folded; Jenkins
        /// and croniter H; Puppet fqdn_rand; systemd RandomizedDelaySec= with
        /// FixedRandomDelay=yes; Temporal Jitter=), every other byte as
        /// read. The peak starts per minute and the 99th percentile of
        /// running jobs, before and after over the horizon, go to stderr,
        /// with why each line left alone stays.
        #[arg(long, conflicts_with = "starts")]
        fix: bool,
        /// With --fix: level the lines instead of hashing them, placing
        /// each, most starts first, where the load so far is lowest.
        #[arg(long, requires = "fix")]
        level: bool,
        /// With --level: line numbers that must not move, e.g. 3,7.
        #[arg(long, value_name = "LINES", value_delimiter = ',', requires = "level")]
        pin: Vec<usize>,
        /// With --fix: the hours a line that starts once a day within them
        /// may move over, such as 0-5; without it each line keeps its hour.
        #[arg(long, value_name = "A-B", requires = "fix", value_parser = |text: &str| NightHours::parse(text))]
        night: Option<NightHours>,
        /// With --fix: move the fewest lines that bring every minute to at
        /// most N starts, levelling those, and say how many minutes still
        /// exceed it.
        #[arg(long, value_name = "N", requires = "fix", conflicts_with = "level", value_parser = clap::value_parser!(u32).range(1..))]
        capacity: Option<u32>,
    },
    /// Check a repository's schedules against rules, for CI and pre-commit.
    Check(check::CheckArgs),
}

/// The start of the current day in UTC, in Unix seconds.
fn start_of_today() -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs() as i64);
    time::start_of_day(now)
}

/// A parser for one of a core choice's options, by slug, listing each with
/// its label in `--help`.
fn choices<T: Copy + Send + Sync + 'static>(
    options: &'static [Choice],
    from_slug: fn(&str) -> Option<T>,
) -> impl TypedValueParser<Value = T> {
    let possible = options
        .iter()
        .map(|o| PossibleValue::new(o.slug).help(o.label));
    PossibleValuesParser::new(possible).try_map(move |slug| from_slug(&slug).ok_or("not an option"))
}

/// Why the command stopped.
enum Failure {
    /// The arguments or stdin: the message names which, and the exit code is 2.
    Input(clap::Error),
    /// Writing `what` failed, which is not the input's fault: exit code 1.
    Output { what: String, error: io::Error },
    /// `--strict` and this many lines skipped, each already on stderr:
    /// exit code 1.
    Skipped(usize),
}

fn output(what: impl Into<String>) -> impl FnOnce(io::Error) -> Failure {
    let what = what.into();
    move |error| Failure::Output { what, error }
}

/// An input problem, reported the way clap reports a bad argument.
fn input(message: impl std::fmt::Display) -> Failure {
    let error = clap::Error::raw(ErrorKind::InvalidValue, format!("{message}\n"));
    Failure::Input(error.with_cmd(&Cli::command()))
}

/// Runs the command line `args`, the program's name first, and gives the
/// exit code.
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = Cli::parse_from(args);
    let outcome = match cli.command {
        Command::Check(args) => return check::run(args),
        Command::Spread {
            function,
            window,
            reduce,
        } => spread(function, reduce, window),
        Command::Run {
            query,
            arrivals: Some(file),
            replicate,
            resample_hours,
            ..
        } => run_arrivals(&query, &file, replicate, resample_hours),
        Command::Run {
            query,
            csv,
            replicate,
            ..
        } => run_query(&query, csv.as_deref(), replicate),
        Command::Snippets { query } => snippets(&query),
        Command::Presets { seed } => presets(seed),
        Command::Fleet {
            format,
            link,
            from,
            hours,
            seed,
            starts,
            strict,
            fix,
            level,
            pin,
            capacity,
            night,
        } => {
            let from = from.unwrap_or_else(start_of_today);
            let source = FleetSource {
                link,
                format,
                strict,
            };
            if fix {
                let how = match (level, capacity) {
                    (true, _) => FixHow::Level(pin),
                    (false, Some(capacity)) => FixHow::Capacity(capacity),
                    (false, None) => FixHow::Hash,
                };
                fleet_fix(&source, from, hours, seed, how, night)
            } else {
                fleet(&source, from, hours, seed, starts)
            }
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(error)) => error.exit(),
        // A reader that closes the pipe early (`| head`) has what it wanted.
        Err(Failure::Output { error, .. }) if error.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(Failure::Output { what, error }) => {
            eprintln!("error: cannot write {what}: {error}");
            ExitCode::FAILURE
        }
        Err(Failure::Skipped(lines)) => {
            let lines = counted(lines as u64, "line was", "lines were");
            eprintln!("error: --strict: {lines} skipped, each listed above");
            ExitCode::FAILURE
        }
    }
}

fn spread(mode: HashMode, reduction: Reduction, window: u32) -> Result<(), Failure> {
    let placement = run::placement(mode, reduction, window).map_err(|e| input(format!("--{e}")))?;
    let mut bytes = Vec::new();
    io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|e| input(format!("stdin: cannot read: {e}")))?;
    let placed = keys(&bytes)?
        .into_iter()
        .enumerate()
        .map(|(index, key)| {
            run::place_key(&placement, key)
                .map_err(|e| input(format!("stdin line {}: {e}", index + 1)))
        })
        .collect::<Result<Vec<KeyOffset>, Failure>>()?;

    let mut out = BufWriter::new(io::stdout().lock());
    let written = placed.iter().try_for_each(|placed| {
        let hash = placed
            .hash
            .map_or_else(|| "-".to_string(), |h| h.to_string());
        writeln!(out, "{}\t{hash}\t{}", placed.key, placed.offset)
    });
    written
        .and_then(|()| out.flush())
        .map_err(output("the offsets"))
}

/// The keys in `bytes`, one a line. A final newline ends the last line
/// rather than starting an empty one, and a carriage return before a
/// newline is dropped, so files from any editor read alike.
fn keys(bytes: &[u8]) -> Result<Vec<String>, Failure> {
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    let text = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let lines = text.split(|&byte| byte == b'\n');
    let mut keys = Vec::new();
    for (index, line) in lines.enumerate() {
        let number = index + 1;
        if keys.len() as u64 >= run::MAX_KEYS {
            return Err(input(format!("stdin: more than {} keys", run::MAX_KEYS)));
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let key = String::from_utf8(line.to_vec()).map_err(|e| {
            let at = e.utf8_error().valid_up_to() + 1;
            input(format!(
                "stdin line {number}: not valid UTF-8 (byte {at} of the line)"
            ))
        })?;
        keys.push(key);
    }
    Ok(keys)
}

/// The state an app URL restores, its notices reported on stderr.
fn state_of(link: &OsStr) -> Result<State, Failure> {
    let link = link
        .to_str()
        .ok_or_else(|| input("QUERY is not valid UTF-8"))?;
    let query = run::query_of(link);
    if !names_a_parameter(query) {
        return Err(input(format!(
            "QUERY '{link}' holds no parameter of the app; expected a URL or a query such as 'v=1&p=jitter&n=10000'"
        )));
    }
    let (state, notices) = State::from_page_query(query);
    for notice in &notices {
        eprintln!("notice: {notice}");
    }
    Ok(state)
}

fn run_query(link: &OsStr, csv: Option<&Path>, replicate: Option<u32>) -> Result<(), Failure> {
    let mut state = state_of(link)?;
    if let Some(runs) = replicate {
        if state.panel != Panel::Queue {
            return Err(input(format!(
                "--replicate: the {} panel has no replications; the Queue panel does",
                state.panel.title()
            )));
        }
        state.queue.replications = runs;
    }
    if state.panel == Panel::Queue && state.queue.replications > 0 {
        if csv.is_some() {
            return Err(input(
                "--csv: the series are a single run's; leave out --replicate and repl",
            ));
        }
        let replicated = queue_replication::replicate(&state.queue, state.seed)
            .map_err(|e| input(format!("QUERY: {e}")))?;
        return print_json(&replicated, "the results");
    }
    let report = run::report(&state).map_err(|e| input(format!("QUERY: {e}")))?;
    if let Some(path) = csv {
        let series = report.series.ok_or_else(|| {
            input(format!(
                "--csv: the {} panel gave no time series",
                state.panel.slug()
            ))
        })?;
        write_csv(path, &series)?;
    }
    print_json(&report.run, "the results")
}

/// `value` as one line of JSON on stdout.
fn print_json(value: &impl Serialize, what: &str) -> Result<(), Failure> {
    let mut out = BufWriter::new(io::stdout().lock());
    serde_json::to_writer(&mut out, value)
        .map_err(io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush())
        .map_err(output(what))
}

fn run_arrivals(
    link: &OsStr,
    file: &Path,
    replicate: Option<u32>,
    resample_hours: bool,
) -> Result<(), Failure> {
    let mut state = state_of(link)?;
    if let Some(runs) = replicate {
        state.queue.replications = runs;
    }
    if resample_hours && state.queue.replications == 0 {
        return Err(input(
            "--resample-hours: resampling varies the replications; add --replicate R or repl=R",
        ));
    }
    let text = fs::read_to_string(file)
        .map_err(|e| input(format!("--arrivals: {}: {e}", file.display())))?;
    let result = queue_arrivals::run(&state.queue, &text, state.seed, resample_hours)
        .map_err(|e| input(format!("--arrivals: {e}")))?;
    for refused in &result.arrivals.refused {
        eprintln!("line {}: {}", refused.line, refused.reason);
    }
    print_json(&result, "the results")
}

fn snippets(link: &OsStr) -> Result<(), Failure> {
    let state = state_of(link)?;
    let snippets = snippet::of_panel(&state);
    if snippets.is_empty() {
        return Err(input(format!(
            "QUERY: the {} panel has no snippets; Jitter, Backoff, Hash spread and Slots do",
            state.panel.title()
        )));
    }
    let mut out = BufWriter::new(io::stdout().lock());
    let mut write = || -> io::Result<()> {
        for snippet in &snippets {
            writeln!(out, "== {} ({}) ==", snippet.title, snippet.language)?;
            writeln!(out, "{}", snippet.code)?;
            writeln!(out, "-- {}", snippet.note)?;
            writeln!(out)?;
        }
        out.flush()
    };
    write().map_err(output("the snippets"))
}

/// One preset as `presets` prints it.
#[derive(Serialize)]
struct PresetFigures {
    panel: &'static str,
    slug: &'static str,
    title: &'static str,
    lesson: &'static str,
    /// The whole query string of the page that shows the preset.
    query: String,
    key_numbers: Vec<KeyNumber>,
}

fn presets(seed: u64) -> Result<(), Failure> {
    let mut listed = Vec::new();
    for panel in Panel::ALL {
        for preset in panel.presets() {
            let (state, _) = preset.state(panel, seed);
            let refused = |e: InvalidInput| input(format!("preset {}: {e}", preset.slug));
            let key_numbers = if panel == Panel::Fleet {
                // A Fleet preset loads a sample: its numbers are the
                // sample's read, fixed and probed, as the page shows them.
                let params = &state.fleet;
                FleetReport::new(&params.sample.text(), params, seed)
                    .map_err(refused)?
                    .key_numbers(params)
            } else {
                run::report(&state).map_err(refused)?.key_numbers
            };
            listed.push(PresetFigures {
                panel: panel.slug(),
                slug: preset.slug,
                title: preset.title,
                lesson: preset.lesson,
                query: state.to_query(),
                key_numbers,
            });
        }
    }
    let mut out = BufWriter::new(io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, &listed)
        .map_err(io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush())
        .map_err(output("the presets"))
}

/// What `fleet` prints: the expansion, where every line of stdin went,
/// and the lines that were not read.
#[derive(Serialize)]
struct FleetOutput<'a> {
    #[serde(flatten)]
    expansion: &'a Expansion<'a>,
    input: InputReport,
    skipped: &'a [SkippedLine],
}

fn fleet(
    source: &FleetSource,
    from: i64,
    hours: u32,
    seed: u64,
    starts: bool,
) -> Result<(), Failure> {
    let (_, imported) = source.read()?;
    let read = &imported.file;
    let horizon = Horizon::hours(hours).map_err(|e| input(format!("--hours: {}", e.reason)))?;
    let expansion = imported
        .expand_with_draws(from, horizon, seed)
        .map_err(horizon_refused)?;

    // Buffered: a paste of a million skipped lines is a million messages.
    let mut err = BufWriter::new(io::stderr().lock());
    let reported = report_input(&mut err, &imported, source.name()).and_then(|()| {
        expansion.notices.iter().try_for_each(|notice| {
            writeln!(
                err,
                "notice: {} line {}: {}",
                source.name(),
                notice.line,
                notice.message
            )
        })
    });
    reported
        .and_then(|()| err.flush())
        .map_err(output("the skipped lines"))?;
    drop(err);

    let mut out = BufWriter::new(io::stdout().lock());
    if starts {
        let written = expansion.starts.iter().try_for_each(|start| {
            writeln!(
                out,
                "{}\t{}\t{}",
                start.line,
                start.id,
                time::format_micros(start.at_micros)
            )
        });
        return written
            .and_then(|()| out.flush())
            .map_err(output("the starts"));
    }
    let printed = FleetOutput {
        expansion: &expansion,
        input: imported.input(),
        skipped: &read.skipped,
    };
    serde_json::to_writer(&mut out, &printed)
        .map_err(io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush())
        .map_err(output("the expansion"))
}

/// Where `stampede fleet` reads its fleet, and how.
struct FleetSource {
    /// A shared link, whose fragment carries the fleet; stdin without one.
    link: Option<String>,
    format: FleetFormat,
    /// Refuse the fleet when any line is skipped.
    strict: bool,
}

impl FleetSource {
    /// The text, and the fleet read from it with the notes on its lines;
    /// with `strict`, refused when any line is skipped, once every line
    /// and the account are on stderr.
    fn read(&self) -> Result<(String, Imported), Failure> {
        let text = match &self.link {
            Some(link) => {
                let fragment = link
                    .split_once('#')
                    .map_or(link.as_str(), |(_, after)| after);
                fleet_link::decode(fragment).map_err(|e| input(format!("--link: {}", e.reason)))?
            }
            None => stdin_text()?,
        };
        let read = import::import(&text, self.format);
        let skipped = read.account().skipped;
        if self.strict && skipped > 0 {
            let mut err = BufWriter::new(io::stderr().lock());
            report_input(&mut err, &read, self.name())
                .and_then(|()| err.flush())
                .map_err(output("the skipped lines"))?;
            return Err(Failure::Skipped(skipped));
        }
        Ok((text, read))
    }

    /// What the messages call the fleet's text, as in "stdin line 3".
    fn name(&self) -> &'static str {
        if self.link.is_some() { "link" } else { "stdin" }
    }
}

/// All of stdin, which must be UTF-8.
fn stdin_text() -> Result<String, Failure> {
    let mut bytes = Vec::new();
    io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|e| input(format!("stdin: cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        input(format!("stdin line {line}: not valid UTF-8"))
    })
}

/// Where every line went, the parts by format when there are several, and
/// each skipped line.
fn report_input(err: &mut impl Write, read: &Imported, source: &str) -> io::Result<()> {
    writeln!(err, "input: {}", read.account())?;
    if read.parts.len() > 1 {
        for part in &read.parts {
            writeln!(
                err,
                "input: lines {}-{}: {}, {} jobs",
                part.first_line,
                part.last_line,
                part.format.label(),
                part.jobs
            )?;
        }
    }
    report_skipped(err, &read.file.skipped, source)
}

fn report_skipped(err: &mut impl Write, skipped: &[SkippedLine], source: &str) -> io::Result<()> {
    skipped.iter().try_for_each(|s| {
        writeln!(
            err,
            "skipped: {source} line {}: {}: {}",
            s.line, s.field, s.reason
        )
    })
}

/// A refusal of the horizon, named by the argument that set it.
fn horizon_refused(e: InvalidInput) -> Failure {
    let argument = if e.field == "horizon" {
        "hours"
    } else {
        e.field
    };
    input(format!("--{argument}: {}", e.reason))
}

/// `stampede fleet --fix`: the fixed (or, with `pinned`, levelled) fleet
/// on stdout in the format it was read in; the figures before and after,
/// and why each line left alone stays, on stderr.
/// How `--fix` places the lines it moves.
enum FixHow {
    /// Each crowded line hashed into its window.
    Hash,
    /// Every movable line levelled, but the pinned ones.
    Level(Vec<usize>),
    /// The fewest lines that bring each minute to at most this many starts.
    Capacity(u32),
}

fn fleet_fix(
    source: &FleetSource,
    from: i64,
    hours: u32,
    seed: u64,
    how: FixHow,
    night: Option<NightHours>,
) -> Result<(), Failure> {
    let (text, imported) = source.read()?;
    let read = &imported.file;
    let horizon = Horizon::hours(hours).map_err(|e| input(format!("--hours: {}", e.reason)))?;
    let fixes = match &how {
        FixHow::Level(pinned) => level::level(&read.lines, pinned, night, from, horizon, seed)
            .map(|levelled| levelled.fixes),
        FixHow::Capacity(capacity) => {
            level::to_capacity(&read.lines, *capacity, night, from, horizon, seed)
                .map(|levelled| levelled.fixes)
        }
        FixHow::Hash => fix::fix_crowded(&read.lines, night, from, horizon, seed),
    }
    .map_err(horizon_refused)?;
    let fixed = fix::apply(&read.lines, &fixes);
    let figures =
        fix::compare(&read.lines, &fixed, from, horizon, seed).map_err(horizon_refused)?;
    let over_capacity = match how {
        FixHow::Capacity(capacity) => {
            let over = |lines: &[_]| {
                stampede_fleet::expand(lines, from, horizon, seed).map(|expansion| {
                    let minutes = &expansion.starts_per_minute;
                    minutes.iter().filter(|&&starts| starts > capacity).count()
                })
            };
            let before = over(&read.lines).map_err(horizon_refused)?;
            Some((capacity, before, over(&fixed).map_err(horizon_refused)?))
        }
        _ => None,
    };
    let written = native::rewrite(&text, source.format, &fixes)
        .map_err(|e| input(format!("{}: {}: {}", source.name(), e.field, e.reason)))?;

    let mut err = BufWriter::new(io::stderr().lock());
    // The notes and limits of the fleet as written, then any only the
    // fixed one meets.
    let (before, after) = (&figures.before.notices, &figures.after.notices);
    let said: HashSet<(usize, &str)> = before.iter().map(|n| (n.line, &*n.message)).collect();
    let notices = imported.notes.iter().chain(before).map(|n| ("", n));
    let fixed_only = after
        .iter()
        .filter(|n| !said.contains(&(n.line, &*n.message)))
        .map(|n| ("fixed, ", n));
    report_input(&mut err, &imported, source.name())
        .and_then(|()| {
            notices.chain(fixed_only).try_for_each(|(which, notice)| {
                let (name, line) = (source.name(), notice.line);
                writeln!(err, "notice: {which}{name} line {line}: {}", notice.message)
            })
        })
        .and_then(|()| {
            fixes.iter().try_for_each(|fix| match &fix.change {
                FixChange::Kept { why } => {
                    writeln!(err, "kept: {} line {}: {why}", source.name(), fix.line)
                }
                FixChange::Rewritten { .. } => Ok(()),
            })
        })
        .and_then(|()| report_figures(&mut err, &figures, over_capacity))
        .and_then(|()| err.flush())
        .map_err(output("the figures"))?;
    drop(err);
    let mut out = io::stdout().lock();
    out.write_all(written.as_bytes())
        .and_then(|()| out.flush())
        .map_err(output("the fixed fleet"))
}

/// The figures before and after the fix. Minutes shared by several starts
/// are not among them: spreading a pile of starts fills more minutes, each
/// with fewer, so that count rises when the fix works.
fn report_figures(
    err: &mut impl Write,
    figures: &FixFigures,
    over_capacity: Option<(u32, usize, usize)>,
) -> io::Result<()> {
    let (before, after) = (&figures.before, &figures.after);
    writeln!(
        err,
        "peak starts per minute: {} -> {}",
        before.peak_starts_per_minute, after.peak_starts_per_minute
    )?;
    if let Some((capacity, before, after)) = over_capacity {
        writeln!(
            err,
            "minutes with more than {capacity} starts: {before} -> {after}"
        )?;
    }
    if let (Some(before), Some(after)) = (before.running_p99, after.running_p99) {
        writeln!(err, "p99 of jobs running per minute: {before} -> {after}")?;
    }
    Ok(())
}

/// Whether `query` holds any key the app reads: `p`, `s`, `v`, the view
/// flags or a field of any panel. Anything else is not an app URL at all.
fn names_a_parameter(query: &str) -> bool {
    let state = State::default();
    form_urlencoded::parse(query.as_bytes()).any(|(key, _)| {
        RESERVED_KEYS.contains(&key.as_ref())
            || Panel::ALL
                .into_iter()
                .any(|panel| state.params(panel).fields().iter().any(|f| f.key == key))
    })
}

/// Writes `series` as CSV to a temporary file in the destination's directory,
/// then renames it over `path`.
fn write_csv(path: &Path, series: &TimeSeries) -> Result<(), Failure> {
    let shown = format!("--csv {}", path.display());
    whole_file::write_whole(path, |mut out| series.write_csv(&mut out)).map_err(|failure| {
        match failure {
            WriteFailure::Place(why) => input(format!("{shown}: {why}")),
            WriteFailure::Write(error) => output(shown)(error),
        }
    })
}
