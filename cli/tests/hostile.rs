//! Hostile input, generated from a fixed seed: several hundred cases over
//! every format and option of `stampede fleet` and `stampede run
//! --arrivals`, each run as a user runs the binary, under the limits of a
//! reader's machine: 5 s of wall time and 2 GiB of address space.
//!
//! Every case must end by itself with exit code 0, 1 (only under
//! `--strict`) or 2 with a message, never a signal or a panic. A read must
//! account for every line of its input (LF, CRLF and CR-only line ends all
//! end a line; a UTF-8 BOM is not text), and every start printed is
//! RFC 3339. The few huge inputs must peak at no more than four times their
//! size in memory.
//!
//! The suite runs in release (`scripts/test` runs it so): the limits are a
//! release build's. A failing case is written to `CARGO_TARGET_TMPDIR` and
//! runs alone with `HOSTILE_CASE=NAME cargo test --release -p stampede-cli
//! --test hostile -- --nocapture`.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde::Deserialize;
use stampede_core::fleet::link;
use stampede_core::panels::fleet::Sample;

const TIME_LIMIT: Duration = Duration::from_secs(5);
const MEMORY_LIMIT_BYTES: u64 = 2 << 30;
/// How many cases the generator makes, besides the named ones.
const GENERATED: usize = 320;
const SEED: u64 = 40;

/// SplitMix64: a handful of lines, and the same cases on every machine.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// What a case hands the binary besides its arguments.
enum Input {
    Stdin(Vec<u8>),
    /// Stdin too large to hold beside the others: made when the case runs.
    HugeStdin(fn() -> String),
    /// A file for `--arrivals`, whose path is appended to the arguments.
    ArrivalsFile(Vec<u8>),
}

struct Case {
    name: String,
    args: Vec<String>,
    input: Input,
}

impl Case {
    fn fleet(name: impl Into<String>, args: &[&str], stdin: impl Into<Vec<u8>>) -> Case {
        Case::new(name, "fleet", args, Input::Stdin(stdin.into()))
    }

    fn huge_fleet(name: &str, args: &[&str], stdin: fn() -> String) -> Case {
        Case::new(name, "fleet", args, Input::HugeStdin(stdin))
    }

    fn arrivals(name: impl Into<String>, query: &str, file: impl Into<Vec<u8>>) -> Case {
        let input = Input::ArrivalsFile(file.into());
        Case::new(name, "run", &[query, "--arrivals"], input)
    }

    fn new(name: impl Into<String>, command: &str, args: &[&str], input: Input) -> Case {
        let mut all = vec![command.to_string()];
        all.extend(args.iter().map(|a| a.to_string()));
        Case {
            name: name.into(),
            args: all,
            input,
        }
    }

    fn bytes(&self) -> Cow<'_, [u8]> {
        match &self.input {
            Input::Stdin(bytes) | Input::ArrivalsFile(bytes) => Cow::Borrowed(bytes),
            Input::HugeStdin(make) => Cow::Owned(make().into_bytes()),
        }
    }

    fn has(&self, arg: &str) -> bool {
        self.args.iter().any(|a| a == arg)
    }
}

// ---- The schedules a generated case is made of ----

const CRON_SPECS: &[&str] = &[
    "0 0 * * *",
    "*/5 * * * *",
    "30 2 * * 1-5",
    "0 0 30 2 *",
    "0 0 31 4,6,9,11 *",
    "0 0 29 2 *",
    "0 0 31 2 mon",
    "@reboot",
    "@yearly",
    "@hourly",
    "*/0 * * * *",
    "0-4294967296 * * * *",
    "1-59/99999999999 * * * *",
    "99999999999999999999 * * * *",
    "* * * * * * * *",
    "",
    "-1 * * * *",
    "0 0 L * *",
    "H H * * *",
    "H(0-99999) * * * *",
    "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20 * * * *",
    "* * * * *",
];

const CALENDARS: &[&str] = &[
    "*-*-* 00:00:00",
    "*-02-30",
    "*-02-29 00:00",
    "9999-12-31 23:59:59",
    "2199-12-31 23:59",
    "2100-02-29",
    "1970-01-01",
    "Mon..Fri *-*-* 02:00",
    "*-*-* *:*:0/0",
    "*:0/1",
    "hourly",
    "weekly",
    "*-*~01",
    "*-02~03",
    "*-04-31 12:00",
    "Sat *-*-1..7 18:00 Europe/Berlin",
    "*-*-* 02:30 America/New_York",
    "*-*-* 00:00:00.999999999",
];

const DURATIONS: &[&str] = &[
    "1h",
    "0s",
    "-1h",
    "1.5h",
    "10d",
    "1e9h",
    "99999999999999999999h",
    "2562047h47m16.854775807s",
    "1h1h1h",
    ".s",
    "5m30s",
];

const ZONES: &[&str] = &[
    "UTC",
    "Europe/Berlin",
    "America/St_Johns",
    "Pacific/Kiritimati",
    "Australia/Lord_Howe",
    "Antarctica/Troll",
    "Pacific/Apia",
    "Nowhere/Zone",
    "../../etc/passwd",
    "",
];

const FROMS: &[&str] = &[
    "2026-01-01T00:00:00Z",
    "2026-03-08T00:00:00-05:00",
    "1970-01-01T00:00:00Z",
    "9999-12-31T00:00:00Z",
    "9999-12-30T23:00:00+14:00",
    "9999-12-01T00:00:00Z",
    "2100-12-31T00:00:00Z",
    "2199-12-31T00:00:00Z",
    "0000-01-01T00:00:00Z",
    "not a time",
];

const HOURS: &[&str] = &["1", "24", "168", "744", "0", "745"];

/// A run of digits as long as a case asks.
fn nines(count: usize) -> String {
    "9".repeat(count)
}

fn cron_spec(draw: &mut Draw) -> String {
    if draw.chance(10) {
        format!("{} * * * *", nines(1 + draw.below(5_000)))
    } else {
        draw.pick(CRON_SPECS).to_string()
    }
}

fn duration(draw: &mut Draw) -> String {
    if draw.chance(10) {
        format!("{}s", nines(1 + draw.below(5_000)))
    } else {
        draw.pick(DURATIONS).to_string()
    }
}

fn fleet_line(draw: &mut Draw, i: usize) -> String {
    let (system, spec, option) = match draw.below(7) {
        0 => {
            let zone = format!("TZ={}", draw.pick(ZONES));
            ("cron", cron_spec(draw), zone)
        }
        1 => ("jenkins", cron_spec(draw), String::new()),
        2 => ("croniter", cron_spec(draw), String::new()),
        3 => {
            let delay = format!("RandomizedDelaySec={}", duration(draw));
            ("systemd", draw.pick(CALENDARS).to_string(), delay)
        }
        4 => {
            let jitter = format!("Jitter={}", duration(draw));
            let spec = if draw.chance(50) {
                format!("every {}", duration(draw))
            } else {
                cron_spec(draw)
            };
            ("temporal", spec, jitter)
        }
        5 => ("prometheus", duration(draw), format!("Job=job{i}")),
        _ => ("puppet", cron_spec(draw), String::new()),
    };
    let mut line = format!("{system}\tjob {i}\t{spec}");
    if !option.is_empty() {
        write!(line, "\t{option}").unwrap();
    }
    if draw.chance(20) {
        write!(line, "\tDuration={}", duration(draw)).unwrap();
    }
    line
}

/// A text in `format` with `count` schedules drawn from the pools above.
fn text_in(format: &str, count: usize, draw: &mut Draw) -> String {
    let mut text = String::new();
    for i in 0..count {
        let spec = cron_spec(draw);
        match format {
            "fleet" => writeln!(text, "{}", fleet_line(draw, i)),
            "crontab" => {
                if draw.chance(15) {
                    writeln!(text, "CRON_TZ={}", draw.pick(ZONES)).unwrap();
                }
                if draw.chance(10) {
                    writeln!(text, "RANDOM_DELAY={}", draw.below(100_000)).unwrap();
                }
                writeln!(text, "{spec} /usr/bin/job-{i} --flag")
            }
            "jenkins" => writeln!(
                text,
                "// job: team/job-{i}\npipeline {{\n  triggers {{ cron('{spec}') }}\n  stages {{ }}\n}}"
            ),
            "jenkins-xml" => writeln!(
                text,
                "# file: jobs/job-{i}/config.xml\n<?xml version='1.1'?>\n<project><triggers><hudson.triggers.TimerTrigger><spec>{spec}</spec></hudson.triggers.TimerTrigger></triggers></project>"
            ),
            "systemd" => writeln!(
                text,
                "# file: job-{i}.timer\n[Timer]\nOnCalendar={}\nRandomizedDelaySec={}\nAccuracySec={}\n",
                draw.pick(CALENDARS),
                duration(draw),
                duration(draw)
            ),
            "prometheus" => {
                if i == 0 {
                    text.push_str("global:\n  scrape_interval: 15s\nscrape_configs:\n");
                }
                writeln!(
                    text,
                    "  - job_name: job-{i}\n    scrape_interval: {}\n    static_configs:\n      - targets: ['host-{i}:9100']",
                    duration(draw)
                )
            }
            "k8s" => writeln!(
                text,
                "---\napiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: job-{i}\nspec:\n  schedule: \"{spec}\"\n  timeZone: \"{}\"",
                draw.pick(ZONES)
            ),
            "gha" => writeln!(
                text,
                "# file: .github/workflows/w{i}.yml\non:\n  schedule:\n    - cron: '{spec}'"
            ),
            "temporal" => writeln!(
                text,
                r#"{{"scheduleId":"s{i}","namespaceId":"ns","schedule":{{"spec":{{"interval":[{{"interval":"{}","phase":"{}"}}],"cronString":["{spec}"],"jitter":"{}"}}}}}}"#,
                duration(draw),
                duration(draw),
                duration(draw)
            ),
            _ => unreachable!("no format {format}"),
        }
        .unwrap();
    }
    text
}

const FORMATS: &[&str] = &[
    "fleet",
    "crontab",
    "jenkins",
    "jenkins-xml",
    "systemd",
    "prometheus",
    "k8s",
    "gha",
    "temporal",
];

/// The same text with other line ends, a BOM, garbage, a cut, or nesting.
fn mutate(text: String, draw: &mut Draw) -> Vec<u8> {
    let mut text = match draw.below(4) {
        0 => text,
        1 => text.replace('\n', "\r\n"),
        2 => text.replace('\n', "\r"),
        _ => text
            .split('\n')
            .enumerate()
            .map(|(i, line)| format!("{line}{}", ["\n", "\r\n", "\r"][i % 3]))
            .collect(),
    };
    if draw.chance(15) {
        text.insert(0, '\u{feff}');
    }
    if draw.chance(10) {
        let cut = draw.below(text.len().max(1));
        let cut = (0..=cut).rev().find(|&at| text.is_char_boundary(at));
        text.truncate(cut.unwrap_or(0));
    }
    if draw.chance(10) {
        for i in 0..draw.below(2_000) {
            writeln!(text, "garbage {i} \u{0}\u{7}\t{{[\"'").unwrap();
        }
    }
    if draw.chance(5) {
        let depth = draw.below(100_000);
        text.push_str(&"[".repeat(depth));
        text.push_str(&"{\"a\":".repeat(depth / 2));
    }
    text.into_bytes()
}

fn options(draw: &mut Draw, format: &str) -> Vec<String> {
    let mut args = vec![
        "--format".to_string(),
        if draw.chance(70) { format } else { "auto" }.to_string(),
    ];
    if draw.chance(40) {
        args.extend(["--from".to_string(), draw.pick(FROMS).to_string()]);
    } else {
        args.extend(["--from".to_string(), FROMS[0].to_string()]);
    }
    if draw.chance(40) {
        args.extend(["--hours".to_string(), draw.pick(HOURS).to_string()]);
    }
    if draw.chance(20) {
        args.extend(["--seed".to_string(), draw.next().to_string()]);
    }
    match draw.below(8) {
        0 => args.push("--starts".into()),
        1 => args.push("--strict".into()),
        2 => args.push("--fix".into()),
        3 => args.extend(["--fix", "--level"].map(String::from)),
        4 => args.extend(["--fix", "--capacity", "3"].map(String::from)),
        5 => args.extend(["--fix", "--night", "0-5"].map(String::from)),
        _ => {}
    }
    args
}

fn arrivals_file(draw: &mut Draw) -> Vec<u8> {
    let mut rows = String::new();
    let start = 1_767_225_600_i64;
    let unit = draw.pick(&["s", "ms", "iso", "csv"]);
    for i in 0..draw.below(5_000) {
        let at = start + i as i64 * (1 + draw.below(30) as i64);
        match unit {
            "s" => writeln!(rows, "{at}"),
            "ms" => writeln!(rows, "{}", at * 1000),
            "iso" => writeln!(rows, "2026-01-01T00:{:02}:{:02}+01:00", i / 60 % 60, i % 60),
            _ => writeln!(rows, "{at},job-{i},{}", draw.below(600)),
        }
        .unwrap();
        if draw.chance(2) {
            let outlier = draw.pick(&["1e300", "-1", "99999999999999999999", "NaN", "+25:00", ""]);
            writeln!(rows, "{outlier}").unwrap();
        }
    }
    if unit == "csv" {
        rows.insert_str(0, "timestamp,job,seconds\n");
    }
    mutate(rows, draw)
}

/// The `n`th generated case: every tenth replays arrivals, every tenth
/// one of the page's samples, and the rest cycle through the formats.
fn generated(n: usize, draw: &mut Draw) -> Case {
    let name = format!("generated-{n}");
    if n % 10 == 9 {
        return Case::arrivals(name, "v=1&p=queue&w=4", arrivals_file(draw));
    }
    let (text, format) = if n % 10 == 8 {
        let samples = &Sample::OPTIONS[1..];
        let sample = Sample::from_slug(samples[draw.below(samples.len())].slug).unwrap();
        (sample.text(), "auto")
    } else {
        let format = FORMATS[n % FORMATS.len()];
        let count = match draw.below(10) {
            0 => 0,
            1 => 1 + draw.below(20_000),
            _ => 1 + draw.below(40),
        };
        let mut text = text_in(format, count, draw);
        if draw.chance(10) {
            // A mixed paste: another format's text after this one.
            text += &text_in(draw.pick(FORMATS), 1 + draw.below(10), draw);
        }
        (text, format)
    };
    let args = options(draw, format);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Case::fleet(name, &args, mutate(text, draw))
}

/// The size of the huge cases' input: 100 MB.
const HUGE_BYTES: usize = 100_000_000;

const JENKINSFILE: &str = "// job: team/nightly\npipeline {\n  agent any\n  triggers { cron('H 2 * * *') }\n  stages { stage('build') { steps { sh 'make' } } }\n}\n";

fn midnight_lines(count: usize) -> String {
    (0..count).map(|i| format!("0 0 * * * job-{i}\n")).collect()
}

/// The arguments of a named case: a fixed horizon start, then `extra`.
fn from_2026<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["--from", "2026-01-01T00:00:00Z"];
    args.extend_from_slice(extra);
    args
}

/// The cases a reader reported, and the extremes of each limit.
fn named() -> Vec<Case> {
    let cronjobs: String = (0..120_000)
        .map(|i| {
            format!("---\napiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: job-{i}\nspec:\n  schedule: \"{} * * * *\"\n", i % 60)
        })
        .collect();
    let mut prometheus = String::from("scrape_configs:\n");
    for i in 0..25_000 {
        writeln!(
            prometheus,
            "  - job_name: job-{i}\n    static_configs:\n      - targets: ['host-{i}:9100']"
        )
        .unwrap();
    }
    // The most a link may hold, all digits: a fragment of 1,412 characters.
    let digits_link = link::encode(&nines(link::MOST_TEXT_BYTES)).unwrap();
    let mut arrivals = String::new();
    for i in 0..1_000 {
        writeln!(arrivals, "{}", 1_767_225_600 + i * 7).unwrap();
    }
    arrivals.push_str("1e300\n");
    let mut continued = String::from("[Timer]\nOnCalendar=*-*-* 00:00:00 \\\n");
    continued.push_str(&" \\\n".repeat(300_000));
    continued.push('\n');
    let long_continued = format!(
        "[Timer]\nOnCalendar=*-*-* 00:00:00{}\n",
        " \\\n 00:00".repeat(90_000)
    );

    vec![
        Case::fleet(
            "temporal-every-300kb",
            &from_2026(&["--format", "fleet"]),
            format!("temporal\tt\tevery {}s\n", nines(300_000)),
        ),
        Case::fleet(
            "temporal-jitter-300kb",
            &from_2026(&["--format", "fleet"]),
            format!("temporal\tt\tevery 1h\tJitter={}s\n", nines(300_000)),
        ),
        Case::fleet(
            "temporal-json-jitter-300kb",
            &from_2026(&["--format", "temporal"]),
            format!(
                "{{\"scheduleId\":\"s\",\"schedule\":{{\"spec\":{{\"interval\":[{{\"interval\":\"60s\"}}],\"jitter\":\"{}s\"}}}}}}\n",
                nines(300_000)
            ),
        ),
        Case::fleet(
            "systemd-continuations-900kb",
            &from_2026(&["--format", "systemd"]),
            continued,
        ),
        Case::fleet(
            "systemd-long-continued-line",
            &from_2026(&["--format", "systemd"]),
            long_continued,
        ),
        Case::fleet(
            "fix-200k-lines",
            &from_2026(&["--fix"]),
            midnight_lines(200_000),
        ),
        Case::fleet(
            "level-64k-lines-a-month",
            &from_2026(&["--fix", "--level", "--hours", "744"]),
            midnight_lines(64_000),
        ),
        Case::fleet(
            "capacity-64k-lines-a-month",
            &from_2026(&["--fix", "--capacity", "10", "--hours", "744"]),
            midnight_lines(64_000),
        ),
        Case::fleet(
            "fix-past-the-start-cap",
            &from_2026(&["--fix", "--hours", "744"]),
            "* * * * * job\n".repeat(2_000),
        ),
        Case::huge_fleet(
            "jenkinsfile-100mb",
            &from_2026(&["--format", "jenkins"]),
            || JENKINSFILE.repeat(HUGE_BYTES / JENKINSFILE.len()),
        ),
        Case::huge_fleet(
            "temporal-jsonl-100mb",
            &from_2026(&["--format", "temporal"]),
            || {
                let line = |i| {
                    format!(
                        "{{\"scheduleId\":\"s{i}\",\"namespaceId\":\"ns\",\"schedule\":{{\"spec\":{{\"interval\":[{{\"interval\":\"3600s\"}}],\"jitter\":\"60s\"}}}}}}\n"
                    )
                };
                (0..HUGE_BYTES / line(0).len()).map(line).collect()
            },
        ),
        Case::huge_fleet("crontab-100mb", &from_2026(&[]), || {
            midnight_lines(HUGE_BYTES / "0 0 * * * job-0000000\n".len())
        }),
        Case::fleet("cronjobs-120k", &from_2026(&["--format", "k8s"]), cronjobs),
        Case::fleet(
            "prometheus-25k-jobs",
            &from_2026(&["--format", "prometheus"]),
            prometheus,
        ),
        Case::fleet(
            "garbage-100k-lines",
            &from_2026(&[]),
            (0..100_000)
                .map(|i| format!("garbage line {i} {{ [ ' \"\n"))
                .collect::<String>(),
        ),
        Case::fleet("digits-300kb-paste", &from_2026(&[]), nines(300_000)),
        Case::fleet(
            "digits-1mib-link",
            &from_2026(&["--link", &digits_link]),
            Vec::new(),
        ),
        Case::fleet(
            "cr-only-crontab",
            &from_2026(&[]),
            "0 1 * * * a\r0 2 * * * b\r0 3 * * * c\r",
        ),
        Case::fleet(
            "bom-crontab",
            &from_2026(&[]),
            "\u{feff}0 1 * * * a\n0 2 * * * b\n",
        ),
        Case::fleet(
            "bom-fleet-file",
            &from_2026(&["--format", "fleet"]),
            "\u{feff}cron\ta\t0 1 * * *\n",
        ),
        Case::fleet("february-30th", &from_2026(&[]), "0 0 30 2 * a\n"),
        Case::fleet(
            "february-30th-fix",
            &from_2026(&["--fix"]),
            "0 0 30 2 * a\n0 0 * * * b\n0 0 * * * c\n",
        ),
        Case::fleet(
            "starts-near-9999",
            &["--from", "9999-12-31T00:00:00Z", "--starts"],
            "0 * * * * a\n",
        ),
        Case::fleet(
            "zone-near-9999",
            &["--from", "9999-12-31T00:00:00Z", "--starts"],
            "CRON_TZ=Pacific/Kiritimati\n0 * * * * a\n",
        ),
        Case::fleet(
            "temporal-past-2100",
            &["--from", "2100-12-31T00:00:00Z", "--format", "fleet"],
            "temporal\tt\t0 0 * * *\n",
        ),
        Case::fleet(
            "systemd-past-2199",
            &["--from", "2199-12-31T00:00:00Z", "--format", "fleet"],
            "systemd\tt\t*-*-* 00:00:00\n",
        ),
        Case::arrivals("arrivals-one-1e300", "v=1&p=queue&w=4", arrivals),
        Case::arrivals(
            "arrivals-bom-csv",
            "v=1&p=queue&w=4",
            "\u{feff}timestamp,job\n1767225600,a\n1767225601,b\n",
        ),
        Case::arrivals(
            "arrivals-cr-only",
            "v=1&p=queue&w=4",
            "1767225600\r1767225601\r1767225602\r",
        ),
    ]
}

/// The lines of `bytes` as a reader counts them: LF, CRLF and CR each end
/// one, a last line needs no end, and a BOM is not text. `None` for bytes
/// that are not UTF-8.
fn lines_in(bytes: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(bytes).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text).as_bytes();
    let mut lines = 0;
    let mut at = 0;
    while at < text.len() {
        match text[at] {
            b'\n' => lines += 1,
            b'\r' => {
                lines += 1;
                at += usize::from(text.get(at + 1) == Some(&b'\n'));
            }
            _ if at + 1 == text.len() => lines += 1,
            _ => {}
        }
        at += 1;
    }
    Some(lines)
}

struct Outcome {
    /// The exit code, or the signal that ended the binary.
    ended: Result<i32, i32>,
    timed_out: bool,
    seconds: f64,
    peak_bytes: u64,
    stdout: Vec<u8>,
    stderr: String,
    input_bytes: u64,
    /// The input's lines as [`lines_in`] counts them.
    input_lines: Option<usize>,
}

/// Runs `case` with its input in a file under `dir`, which stays there.
///
/// A forked child starts with its parent's peak resident size, which its
/// own peak then includes. So the input goes through a file, never
/// through this process' memory while the binary runs, and this process
/// returns its free heap and resets its peak to its current size
/// (`clear_refs`, Linux 4.0) first.
fn run(case: &Case, dir: &Path) -> Outcome {
    let path = dir.join(format!("{}.in", case.name));
    let (input_bytes, input_lines) = {
        let bytes = case.bytes();
        fs::write(&path, &bytes).unwrap();
        (bytes.len() as u64, lines_in(&bytes))
    };
    // SAFETY: malloc_trim only returns free heap pages to the system.
    unsafe { libc::malloc_trim(0) };
    fs::write("/proc/self/clear_refs", "5").unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_stampede"));
    command.args(&case.args);
    if let Input::ArrivalsFile(_) = case.input {
        command.arg(&path).stdin(Stdio::null());
    } else {
        command.stdin(File::open(&path).unwrap());
    }
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe, all a pre_exec hook may call.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: MEMORY_LIMIT_BYTES,
                rlim_max: MEMORY_LIMIT_BYTES,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let started = Instant::now();
    #[expect(
        clippy::zombie_processes,
        reason = "wait4 reaps it, for its peak memory"
    )]
    let mut child = command.spawn().expect("the binary starts");
    let pid = child.id() as libc::pid_t;
    let (mut output, mut errors) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    thread::scope(|scope| {
        let stdout = scope.spawn(move || {
            let mut bytes = Vec::new();
            output
                .read_to_end(&mut bytes)
                .map(|_| bytes)
                .unwrap_or_default()
        });
        let stderr = scope.spawn(move || {
            let mut text = String::new();
            errors
                .read_to_string(&mut text)
                .map(|_| text)
                .unwrap_or_default()
        });
        let mut timed_out = false;
        let (status, usage) = loop {
            let mut status = 0;
            // SAFETY: rusage is plain data, and both pointers are to live
            // locals; wait4 reaps only this child.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            let flags = if timed_out { 0 } else { libc::WNOHANG };
            let reaped = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
            if reaped == pid {
                break (status, usage);
            }
            if !timed_out && started.elapsed() > TIME_LIMIT {
                timed_out = true;
                child.kill().unwrap();
            } else {
                thread::sleep(Duration::from_millis(2));
            }
        };
        let seconds = started.elapsed().as_secs_f64();
        let ended = if libc::WIFEXITED(status) {
            Ok(libc::WEXITSTATUS(status))
        } else {
            Err(libc::WTERMSIG(status))
        };
        Outcome {
            ended,
            timed_out,
            seconds,
            peak_bytes: usage.ru_maxrss as u64 * 1024,
            stdout: stdout.join().unwrap(),
            stderr: stderr.join().unwrap(),
            input_bytes,
            input_lines,
        }
    })
}

/// What is wrong with how the binary met `case`; empty when nothing is.
fn problems(case: &Case, outcome: &Outcome) -> Vec<String> {
    let mut found = Vec::new();
    if outcome.timed_out {
        found.push(format!("took more than {} s", TIME_LIMIT.as_secs()));
    }
    match outcome.ended {
        Err(signal) if !outcome.timed_out => found.push(format!(
            "ended by signal {signal} (an abort is memory past {} GiB)",
            MEMORY_LIMIT_BYTES >> 30
        )),
        Ok(0 | 2) | Err(_) => {}
        Ok(1) if case.has("--strict") => {}
        Ok(code) => found.push(format!("exit code {code}")),
    }
    if outcome.stderr.contains("panicked") {
        found.push("panicked".into());
    }
    if outcome.ended == Ok(2) && outcome.stderr.trim().is_empty() {
        found.push("refused without a message".into());
    }
    if let Input::HugeStdin(_) = case.input
        && outcome.peak_bytes > 4 * outcome.input_bytes
    {
        found.push(format!(
            "peaked at {} MB for {} MB of input, more than 4 times",
            outcome.peak_bytes >> 20,
            outcome.input_bytes >> 20
        ));
    }
    if outcome.ended == Ok(0) && case.args[0] == "fleet" {
        if case.has("--starts") {
            let text = String::from_utf8_lossy(&outcome.stdout);
            if let Some(line) = text.lines().find(|line| !is_rfc3339_start(line)) {
                found.push(format!("a start not in RFC 3339: {line:?}"));
            }
        } else if !case.has("--fix") {
            found.extend(account_problems(case, outcome));
        }
    }
    found
}

/// `LINE<TAB>ID<TAB>START` with START as `YYYY-MM-DDTHH:MM:SS[.f]Z`.
fn is_rfc3339_start(line: &str) -> bool {
    let Some(start) = line.rsplit('\t').next() else {
        return false;
    };
    let bytes = start.as_bytes();
    let digits_at = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];
    bytes.len() >= 20
        && digits_at.iter().all(|&i| bytes[i].is_ascii_digit())
        && &start[4..5] == "-"
        && &start[7..8] == "-"
        && &start[10..11] == "T"
        && start.ends_with('Z')
        && (bytes.len() == 20
            || (bytes[19] == b'.' && bytes[20..bytes.len() - 1].iter().all(u8::is_ascii_digit)))
}

/// Where every line of stdin went, as `stampede fleet` prints it.
#[derive(Deserialize)]
struct Account {
    lines: u64,
    read: u64,
    ignored: u64,
    skipped: u64,
}

/// Every line of the input read, ignored or skipped, by the JSON's count.
fn account_problems(case: &Case, outcome: &Outcome) -> Vec<String> {
    #[derive(Deserialize)]
    struct Printed {
        input: Account,
    }
    // Only the account is read: the starts may run to millions.
    let Ok(Printed { input }) = serde_json::from_slice(&outcome.stdout) else {
        return vec!["stdout is not JSON with an input account".into()];
    };
    let mut found = Vec::new();
    if input.read + input.ignored + input.skipped != input.lines {
        found.push(format!(
            "the account does not add up: {} read, {} ignored, {} skipped of {} lines",
            input.read, input.ignored, input.skipped, input.lines
        ));
    }
    // A link's text is not the case's input.
    if let Some(expected) = outcome.input_lines.filter(|_| !case.has("--link"))
        && expected as u64 != input.lines
    {
        found.push(format!(
            "{} lines counted, {expected} in the input",
            input.lines
        ));
    }
    found
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the limits are a release build's: cargo test --release -p stampede-cli --test hostile"
)]
fn hostile_input_ends_within_limits_and_loses_nothing() {
    let only = std::env::var("HOSTILE_CASE").ok();
    let mut draw = Draw(SEED);
    let cases = named()
        .into_iter()
        .chain((0..GENERATED).map(|n| generated(n, &mut draw)))
        .filter(|case| only.as_ref().is_none_or(|name| &case.name == name));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hostile");
    fs::create_dir_all(&dir).unwrap();

    let mut failures = Vec::new();
    let mut slowest = (0.0, String::new());
    let mut heaviest = (0, String::new());
    let mut ran = 0;
    for case in cases {
        ran += 1;
        let outcome = run(&case, &dir);
        if outcome.seconds > slowest.0 {
            slowest = (outcome.seconds, case.name.clone());
        }
        if outcome.peak_bytes > heaviest.0 {
            heaviest = (outcome.peak_bytes, case.name.clone());
        }
        let found = problems(&case, &outcome);
        if only.is_some() || !found.is_empty() {
            println!(
                "{}: {:.2} s, {} MB, exit {:?}; {}\n  args: {:?}\n  stderr: {}",
                case.name,
                outcome.seconds,
                outcome.peak_bytes >> 20,
                outcome.ended,
                found.join("; "),
                case.args,
                outcome.stderr.chars().take(600).collect::<String>()
            );
        }
        if found.is_empty() {
            fs::remove_file(dir.join(format!("{}.in", case.name))).unwrap();
        } else {
            failures.push(format!("{}: {}", case.name, found.join("; ")));
        }
    }
    assert!(only.is_some() || ran >= 300, "{ran} cases");
    println!(
        "hostile: {ran} cases; slowest {} in {:.2} s; most memory {} at {} MB",
        slowest.1,
        slowest.0,
        heaviest.1,
        heaviest.0 >> 20
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases failed (inputs in {}):\n{}",
        failures.len(),
        ran,
        dir.display(),
        failures.join("\n")
    );
}
