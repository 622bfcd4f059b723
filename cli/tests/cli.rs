//! The built `stampede` binary, run as a user runs it.
//!
//! Hash vectors come from `core/tests/data/hash_vectors.tsv` (the reference
//! Python packages' values) and Ruby offsets from
//! `core/tests/data/spread_ruby.tsv` (Ruby 3.1's own `Random`); the offsets
//! beside them are the hash reduced by hand: h mod W, or (h·W) >> 32.

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn stampede(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stampede"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let written = child.stdin.take().unwrap().write_all(stdin);
    // A binary that refuses its arguments exits before reading stdin.
    if let Err(e) = written {
        assert_eq!(e.kind(), ErrorKind::BrokenPipe, "writing stdin: {e}");
    }
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap()
}

/// Asserts exit code 2, nothing on stdout, and a message naming `argument`.
fn assert_refused(output: &Output, argument: &str) {
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "exit code; stderr: {stderr}");
    assert!(output.stdout.is_empty(), "stdout: {}", text(&output.stdout));
    assert!(
        stderr.contains(argument),
        "the message does not name {argument}: {stderr}"
    );
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn spread_prints_each_key_with_its_hash_and_offset() {
    let murmur = stampede(
        &["spread", "--fn", "murmur", "--window", "3600"],
        b"a\n\nabc\n",
    );
    assert!(murmur.status.success(), "{}", text(&murmur.stderr));
    // MurmurHash3 of "a", "" and "abc": 1009084850, 0 and 3017643002.
    assert_eq!(
        text(&murmur.stdout),
        "a\t1009084850\t1250\n\t0\t0\nabc\t3017643002\t602\n"
    );

    let mulshift = [
        "spread", "--fn", "murmur", "--window", "3600", "--reduce", "mulshift",
    ];
    assert_eq!(
        text(&stampede(&mulshift, b"abc").stdout),
        "abc\t3017643002\t2529\n"
    );

    let farm = stampede(&["spread", "--fn", "farm", "--window", "86400"], b"abc\r\n");
    assert_eq!(text(&farm.stdout), "abc\t795041479\t75079\n");
    let xxh = stampede(&["spread", "--fn", "xxh", "--window", "60"], b"a");
    assert_eq!(text(&xxh.stdout), "a\t1426945110\t30\n");
    let fnv = stampede(&["spread", "--fn", "fnv", "--window", "60"], b"a");
    assert_eq!(text(&fnv.stdout), "a\t3826002220\t40\n");
}

#[test]
fn ruby_mode_has_no_hash_and_draws_ruby_offsets() {
    let ruby = stampede(&["spread", "--fn", "ruby", "--window", "3600"], b"0\n1\n");
    assert!(ruby.status.success(), "{}", text(&ruby.stderr));
    // Random.new(0).rand(3600) and Random.new(1).rand(3600).
    assert_eq!(text(&ruby.stdout), "0\t-\t2732\n1\t-\t1061\n");
}

#[test]
fn spread_refuses_bad_arguments_and_stdin_before_printing() {
    let keys = b"a\nb\n";
    assert_refused(
        &stampede(&["spread", "--fn", "md5", "--window", "60"], keys),
        "--fn",
    );
    assert_refused(
        &stampede(&["spread", "--fn", "farm", "--window", "0"], keys),
        "--window",
    );
    let too_wide = ["spread", "--fn", "farm", "--window", "4294967296"];
    assert_refused(&stampede(&too_wide, keys), "--window");
    let reduce = [
        "spread", "--fn", "farm", "--window", "60", "--reduce", "div",
    ];
    assert_refused(&stampede(&reduce, keys), "--reduce");
    assert_refused(&stampede(&["spread", "--window", "60"], keys), "--fn");
    // The first line is fine, the second is not UTF-8: nothing is printed.
    let binary = stampede(
        &["spread", "--fn", "farm", "--window", "60"],
        b"fine\nbad \xff\n",
    );
    assert_refused(&binary, "stdin line 2");
    // Ruby refuses decimal ids too long to convert quickly.
    let long_decimal = "9".repeat(100_000);
    let ruby = stampede(
        &["spread", "--fn", "ruby", "--window", "60"],
        long_decimal.as_bytes(),
    );
    assert_refused(&ruby, "stdin line 1");
}

#[test]
fn run_prints_the_panel_of_a_url_as_json() {
    let url = "https://example.org/docs/stampede/?v=1&p=jitter&s=7&n=10000&lo=0&hi=30#top";
    let output = stampede(&["run", url], b"");
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        output.stderr.is_empty(),
        "notices: {}",
        text(&output.stderr)
    );
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["panel"], "jitter");
    assert_eq!(result["run_at"].as_array().unwrap().len(), 10_000);
    let rate = result["flat_rate_per_second"].as_f64().unwrap();
    assert!((rate - 10_000.0 / 1_800.0).abs() < 1e-9, "{rate}");

    // The window for a share of nights, and the seed's own night beside it.
    let output = stampede(&["run", "p=jitter&n=8000&rps=40&conf=99"], b"");
    let fit = &serde_json::from_slice::<Value>(&output.stdout).unwrap()["window_fit"];
    assert_eq!(fit["confidence"], 0.99);
    let window = fit["window_seconds"].as_f64().unwrap();
    assert!((390.0..=420.0).contains(&window), "{fit}");
    assert!(fit["one_night_seconds"].as_f64().unwrap() < window, "{fit}");

    // A bare query works too, and adjusted parameters are reported on stderr.
    let adjusted = stampede(&["run", "p=poisson&n=5000000"], b"");
    assert!(adjusted.status.success(), "{}", text(&adjusted.stderr));
    assert!(
        text(&adjusted.stderr).contains("(n)"),
        "{}",
        text(&adjusted.stderr)
    );
    let result: Value = serde_json::from_slice(&adjusted.stdout).unwrap();
    assert_eq!(result["panel"], "poisson");
    assert_eq!(result["rate_per_second"], 1_000_000.0 / 86_400.0);
}

#[test]
fn run_writes_the_time_series_as_csv() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("jitter.csv");
    let query = "v=1&p=jitter&s=7&n=1000&lo=0&hi=10";
    let output = stampede(&["run", query, "--csv", csv.to_str().unwrap()], b"");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let written = fs::read_to_string(&csv).unwrap();
    let mut lines = written.lines();
    assert_eq!(lines.next(), Some("second,jobs"));
    let rows: Vec<(f64, f64)> = lines
        .map(|line| {
            let (second, jobs) = line.split_once(',').unwrap();
            (second.parse().unwrap(), jobs.parse().unwrap())
        })
        .collect();
    assert_eq!(rows[0].0, 0.0);
    assert_eq!(rows.iter().map(|row| row.1).sum::<f64>(), 1000.0);
    // Ten minutes of delays fill at most 600 one-second rows.
    assert!(rows.len() <= 600, "{} rows", rows.len());
    assert_eq!(entries(dir.path()), ["jitter.csv"]);
}

#[test]
fn run_writes_each_queue_lanes_series_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("queue.csv");
    let out = stampede(
        &[
            "run",
            "p=queue&n=100&hz=2&vs=slots",
            "--csv",
            csv.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let lanes = json["lanes"].as_array().unwrap();
    assert_eq!(lanes[0]["slug"], "herd");
    // 100 accounts an hour for 2 hours, all due before the end.
    assert_eq!(lanes[1]["run"]["summary"]["jobs_enqueued"], 200);
    let text = fs::read_to_string(&csv).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    assert_eq!(
        header[..3],
        ["time_s", "queue_depth_herd", "executing_herd"]
    );
    assert!(header.contains(&"failed_slots"), "{header:?}");
    // One row a minute for two hours.
    assert_eq!(text.lines().count(), 1 + 120);
}

#[test]
fn run_replicates_the_queue_under_seeds_from_the_url() {
    let query = "p=queue&n=100&hz=2&s=3";
    let out = stampede(&["run", query, "--replicate", "5"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["runs"], 5);
    let rows = json["rows"].as_array().unwrap();
    let mean_wait = rows.iter().find(|r| r["key"] == "mean_wait_s").unwrap();
    let herd = mean_wait["values"][0]["text"].as_str().unwrap();
    assert!(herd.ends_with(" (95 %, 5 runs)"), "{herd}");
    let first = json["differences"][0]["text"].as_str().unwrap();
    assert!(first.starts_with("Slots cut the mean wait by "), "{first}");
    // The URL's own repl gives the same output.
    let same = stampede(&["run", &format!("{query}&repl=5")], b"");
    assert_eq!(same.stdout, out.stdout);
    assert_refused(
        &stampede(&["run", query, "--replicate", "4"], b""),
        "--replicate",
    );
    assert_refused(
        &stampede(&["run", "p=jitter", "--replicate", "5"], b""),
        "--replicate",
    );
    assert_refused(
        &stampede(&["run", query, "--replicate", "5", "--csv", "x.csv"], b""),
        "--csv",
    );
}

#[test]
fn run_refuses_bad_input_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("out.csv");
    let csv = csv.to_str().unwrap();
    assert_refused(&stampede(&["run", "hello", "--csv", csv], b""), "QUERY");
    assert_refused(&stampede(&["run", "", "--csv", csv], b""), "QUERY");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));

    let missing = dir.path().join("missing").join("out.csv");
    let missing = missing.to_str().unwrap();
    assert_refused(
        &stampede(&["run", "p=jitter", "--csv", missing], b""),
        "--csv",
    );
    let into_dir = dir.path().to_str().unwrap();
    assert_refused(
        &stampede(&["run", "p=jitter", "--csv", into_dir], b""),
        "--csv",
    );
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));

    // A failed run leaves an earlier file as it was.
    fs::write(csv, "kept\n").unwrap();
    assert_eq!(fs::read_to_string(csv).unwrap(), "kept\n");
    assert_eq!(entries(dir.path()), ["out.csv"]);
}

#[cfg(unix)]
#[test]
fn a_query_that_is_not_utf8_is_refused() {
    use std::os::unix::ffi::OsStrExt;
    let output = Command::new(env!("CARGO_BIN_EXE_stampede"))
        .arg("run")
        .arg(std::ffi::OsStr::from_bytes(b"p=jitter&n=\xff"))
        .output()
        .unwrap();
    assert_refused(&output, "QUERY is not valid UTF-8");
}

#[test]
fn snippets_print_what_to_paste_for_the_url() {
    let output = stampede(&["snippets", "?v=1&p=jitter&n=5000&rps=50&hi=2.5"], b"");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let printed = text(&output.stdout);
    let headings: Vec<&str> = printed.lines().filter(|l| l.starts_with("== ")).collect();
    assert_eq!(headings.len(), 6, "{printed}");
    assert!(printed.contains("== crontab (sh) ==\n0 0 * * * sleep \"$(shuf -i 0-149 -n 1)\""));
    assert!(printed.contains("RandomizedDelaySec=150\n"));
    let at_two = stampede(&["snippets", "p=jitter&hi=2.5&at=02:00"], b"");
    assert!(text(&at_two.stdout).contains("== crontab (sh) ==\n0 2 * * * sleep"));
    assert!(text(&at_two.stdout).contains("OnCalendar=*-*-* 02:00:00\nAccuracySec=1s\n"));
    // A panel without snippets is an input problem, named.
    assert_refused(&stampede(&["snippets", "p=queue"], b""), "QUERY");
}

/// A small fleet: cron with a duration, Jenkins `H`, a cron step, a
/// systemd timer and a line with an unknown system.
const FLEET: &str = "# a small fleet\n\
cron\tbackup\t30 2 * * *\tDuration=1h\n\
jenkins\tjob/a\tH H(0-3) * * *\n\
bogus\tx\t* * * * *\n\
cron\treport\t*/20 1-2 * * *\n\
systemd\tcleanup\tdaily\n";

#[test]
fn fleet_prints_each_start_by_time_then_line() {
    let output = stampede(
        &[
            "fleet",
            "--from",
            "2026-01-01T00:00:00Z",
            "--hours",
            "4",
            "--starts",
        ],
        FLEET.as_bytes(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    // job/a's H H(0-3) is 1:40 by Jenkins' own hash of its name; the
    // systemd timer's `daily` elapses at midnight.
    assert_eq!(
        text(&output.stdout),
        "6\tcleanup\t2026-01-01T00:00:00Z\n\
         5\treport\t2026-01-01T01:00:00Z\n\
         5\treport\t2026-01-01T01:20:00Z\n\
         3\tjob/a\t2026-01-01T01:40:00Z\n\
         5\treport\t2026-01-01T01:40:00Z\n\
         5\treport\t2026-01-01T02:00:00Z\n\
         5\treport\t2026-01-01T02:20:00Z\n\
         2\tbackup\t2026-01-01T02:30:00Z\n\
         5\treport\t2026-01-01T02:40:00Z\n"
    );
    // An offset names the same instant: 03:00+02:00 is 01:00 UTC.
    let shifted = stampede(
        &[
            "fleet",
            "--from",
            "2026-01-01T03:00:00+02:00",
            "--hours",
            "1",
            "--starts",
        ],
        FLEET.as_bytes(),
    );
    assert_eq!(
        text(&shifted.stdout),
        "5\treport\t2026-01-01T01:00:00Z\n\
         5\treport\t2026-01-01T01:20:00Z\n\
         3\tjob/a\t2026-01-01T01:40:00Z\n\
         5\treport\t2026-01-01T01:40:00Z\n"
    );
}

#[test]
fn fleet_starts_from_the_last_day_of_9999_read_and_print_as_rfc3339() {
    // Past jiff's last timestamp (9999-12-30T22:00:00Z) and to the last
    // second RFC 3339 writes, both ways.
    for from in ["9999-12-31T00:00:00Z", "9999-12-31T01:00:00+01:00"] {
        let output = stampede(
            &["fleet", "--from", from, "--hours", "48", "--starts"],
            b"0 */8 * * * a\n",
        );
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        assert_eq!(
            text(&output.stdout),
            "1\ta\t9999-12-31T00:00:00Z\n\
             1\ta\t9999-12-31T08:00:00Z\n\
             1\ta\t9999-12-31T16:00:00Z\n"
        );
        assert!(
            text(&output.stderr).contains("its last start is 9999-12-31T16:00:00Z"),
            "{}",
            text(&output.stderr)
        );
    }
    let past = stampede(&["fleet", "--from", "10000-01-01T00:00:00Z"], b"");
    assert_refused(&past, "--from");
}

#[test]
fn fleet_prints_the_expansion_and_reports_bad_lines_on_stderr() {
    let output = stampede(
        &["fleet", "--from", "2026-01-01T00:00:00Z", "--hours", "4"],
        FLEET.as_bytes(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    for key in [
        "from",
        "horizon_minutes",
        "starts",
        "starts_per_minute",
        "running_per_minute",
        "running_peak",
        "peak",
        "shared",
        "crowded",
        "notices",
        "stopped_at_line",
        "skipped",
    ] {
        assert!(result.get(key).is_some(), "no {key} in {result}");
    }
    assert_eq!(result["from"], 1_767_225_600);
    assert_eq!(result["horizon_minutes"], 240);
    assert_eq!(result["starts"].as_array().unwrap().len(), 9);
    assert_eq!(result["starts_per_minute"].as_array().unwrap().len(), 240);
    assert_eq!(result["peak"]["starts"], 2);
    assert_eq!(result["skipped"][0]["line"], 4);
    assert_eq!(result["skipped"][0]["field"], "system");
    assert_eq!(result["skipped"].as_array().unwrap().len(), 1);
    assert_eq!(result["starts"][0]["id"], "cleanup");
    let lines = FLEET.lines().count();
    let input = &result["input"];
    assert_eq!(input["lines"], lines);
    assert_eq!(input["skipped"], 1);
    let sum = ["read", "ignored", "skipped"].map(|key| input[key].as_u64().unwrap());
    assert_eq!(sum.iter().sum::<u64>(), lines as u64);

    let stderr = text(&output.stderr);
    assert!(stderr.contains("stdin line 4: system: "), "{stderr}");
    // The timer is read whole; its one notice is systemd's accuracy.
    let line_6: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("stdin line 6"))
        .collect();
    assert_eq!(line_6.len(), 1, "{stderr}");
    assert!(line_6[0].contains("(AccuracySec=)"), "{stderr}");
}

#[test]
fn fleet_strict_lists_every_skipped_line_and_exits_1() {
    let output = stampede(&["fleet", "--strict"], FLEET.as_bytes());
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(output.stdout.is_empty(), "stdout: {}", text(&output.stdout));
    assert!(
        stderr.contains("skipped: stdin line 4: system: "),
        "{stderr}"
    );
    assert!(stderr.contains("input: "), "{stderr}");
    assert!(
        stderr.contains("error: --strict: 1 line was skipped"),
        "{stderr}"
    );
    // A clean file passes.
    let clean = stampede(
        &["fleet", "--strict", "--from", "2026-01-01T00:00:00Z"],
        b"cron\tbackup\t30 2 * * *\n",
    );
    assert_eq!(clean.status.code(), Some(0), "{}", text(&clean.stderr));
}

/// A system crontab: an environment line, a job, `@reboot` and a bad line.
const CRONTAB: &str = "SHELL=/bin/sh\n\
CRON_TZ=UTC\n\
# hourly jobs\n\
17 * * * * root run-parts /etc/cron.hourly\n\
@reboot root /sbin/agent\n\
0 61 * * * root never\n";

#[test]
fn fleet_reads_a_crontab_given_or_detected() {
    let arguments = [
        "fleet",
        "--from",
        "2026-01-01T00:00:00Z",
        "--hours",
        "2",
        "--starts",
    ];
    for format in [None, Some("--format=crontab")] {
        let mut given = arguments.to_vec();
        given.extend(format);
        let output = stampede(&given, CRONTAB.as_bytes());
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        assert_eq!(
            text(&output.stdout),
            "4\troot: run-parts /etc/cron.hourly\t2026-01-01T00:17:00Z\n\
             4\troot: run-parts /etc/cron.hourly\t2026-01-01T01:17:00Z\n"
        );
        let reported = text(&output.stderr);
        assert!(
            reported.contains("skipped: stdin line 5: spec: @reboot"),
            "{reported}"
        );
        assert!(
            reported.contains("skipped: stdin line 6: spec: "),
            "{reported}"
        );
    }
    // Read as a fleet file, no line names a system.
    let mut as_fleet = arguments.to_vec();
    as_fleet.push("--format=fleet");
    let output = stampede(&as_fleet, CRONTAB.as_bytes());
    assert_eq!(text(&output.stdout), "");
    assert!(text(&output.stderr).contains("stdin line 4: system: "));
    assert_refused(&stampede(&["fleet", "--format=nomad"], b""), "--format");
}

/// One paste in each native format, each with one start in the first
/// hour of 2026, and the first start's line.
const NATIVE: [(&str, &str, &str); 6] = [
    (
        "jenkins",
        "// job: ops/hourly\npipeline {\n  triggers { cron('5 * * * *') }\n}\n",
        "3\tops/hourly\t2026-01-01T00:05:00Z\n",
    ),
    (
        "systemd",
        "# file: a.timer\n[Timer]\nOnCalendar=*-*-* 00:10:00\n",
        "3\ta.timer\t2026-01-01T00:10:00Z\n",
    ),
    (
        "k8s",
        "kind: CronJob\nmetadata: {name: r, namespace: n}\nspec:\n  schedule: '15 0 * * *'\n",
        "4\tn/r\t2026-01-01T00:15:00Z\n",
    ),
    (
        "gha",
        "name: nightly\non:\n  schedule:\n    - cron: '20 0 * * *'\n",
        "4\tnightly\t2026-01-01T00:20:00Z\n",
    ),
    (
        "temporal",
        "{\"scheduleId\": \"s\",\n \"spec\": {\"cronString\": [\"25 0 * * *\"]}}\n",
        "2\ts\t2026-01-01T00:25:00Z\n",
    ),
    (
        "crontab",
        "30 0 * * * /bin/x\n",
        "1\t/bin/x\t2026-01-01T00:30:00Z\n",
    ),
];

#[test]
fn fleet_reads_every_native_format_given_or_detected() {
    for (format, paste, starts) in NATIVE {
        let given = format!("--format={format}");
        for format in [None, Some(given.as_str())] {
            let mut arguments = vec![
                "fleet",
                "--from",
                "2026-01-01T00:00:00Z",
                "--hours",
                "1",
                "--starts",
            ];
            arguments.extend(format);
            let output = stampede(&arguments, paste.as_bytes());
            assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
            assert_eq!(text(&output.stdout), starts, "{arguments:?}");
        }
    }
    // Workflow lines carry GitHub's caveat on stderr.
    let output = stampede(&["fleet", "--format=gha"], NATIVE[3].1.as_bytes());
    let reported = text(&output.stderr);
    assert!(
        reported.contains("notice: stdin line 4: GitHub may delay"),
        "{reported}"
    );
}

#[test]
fn fleet_refuses_bad_arguments() {
    for from in [
        "2026-01-01",
        "2026-01-01T00:00:00",
        "2026-02-30T00:00:00Z",
        "2026-01-01T00:00:00.5Z",
        "soon",
    ] {
        assert_refused(&stampede(&["fleet", "--from", from], b""), "--from");
    }
    for hours in ["0", "745", "-1", "two"] {
        let argument = format!("--hours={hours}");
        assert_refused(&stampede(&["fleet", &argument], b""), "--hours");
    }
    assert_refused(&stampede(&["fleet"], b"cron\ta\t\xff\n"), "stdin line 1");
}

#[test]
fn fleet_reads_the_fleet_a_shared_link_carries() {
    let fleet = "cron\tnightly\t30 2 * * *\ncron\tbroken\t61 * * * *\n";
    let fragment = stampede_fleet::link::encode(fleet).unwrap();
    let link = format!("https://example.org/stampede/?p=fleet#{fragment}");
    for given in [link.as_str(), fragment.as_str()] {
        let output = stampede(
            &[
                "fleet",
                "--link",
                given,
                "--from",
                "2026-01-01T00:00:00Z",
                "--starts",
            ],
            b"ignored",
        );
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        assert_eq!(text(&output.stdout), "1\tnightly\t2026-01-01T02:30:00Z\n");
        assert!(
            text(&output.stderr).contains("skipped: link line 2: spec"),
            "{}",
            text(&output.stderr)
        );
    }
    let cut = &link[..link.len() - 3];
    assert_refused(&stampede(&["fleet", "--link", cut], b""), "--link");
}

#[test]
fn fleet_fix_says_what_its_figures_do_not_count_as_the_read_does() {
    let mut crontab = "CRON_TZ=Europe/Berlin\n".to_string();
    crontab.push_str(&"* * * * * /bin/poll\n".repeat(2_000));
    let output = stampede(
        &[
            "fleet",
            "--fix",
            "--hours",
            "744",
            "--from",
            "2026-03-01T00:00:00Z",
        ],
        crontab.as_bytes(),
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("notice: stdin line 46: the fleet reached 2,000,000 starts here"),
        "{stderr}"
    );
    assert!(
        stderr.contains("notice: stdin line 2: ") && stderr.contains("are skipped"),
        "the zone's skipped hour: {stderr}"
    );
}

#[test]
fn fleet_fix_leaves_a_job_that_shares_no_minute_as_written() {
    let (_, paste, _) = NATIVE[2];
    let output = stampede(&["fleet", "--fix"], paste.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), paste);
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("shares a minute with another, so it stays"),
        "{stderr}"
    );
    assert!(
        stderr.contains("peak starts per minute: 1 -> 1\n"),
        "{stderr}"
    );
}

#[test]
fn fleet_fix_to_capacity_moves_the_fewest_lines() {
    // 40 jobs on the hour against a capacity of 30 a minute: 10 move.
    let crontab: String = (1..=40)
        .map(|job| format!("0 * * * * /usr/local/bin/job-{job}\n"))
        .collect();
    let output = stampede(
        &[
            "fleet",
            "--fix",
            "--capacity",
            "30",
            "--hours",
            "2",
            "--from",
            "2026-01-01T00:00:00Z",
        ],
        crontab.as_bytes(),
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let moved = crontab
        .lines()
        .zip(text(&output.stdout).lines())
        .filter(|(was, now)| was != now)
        .count();
    assert_eq!(moved, 10, "{stderr}");
    assert!(
        stderr.contains("minutes with more than 30 starts: 2 -> 0\n"),
        "{stderr}"
    );
    assert_refused(&stampede(&["fleet", "--capacity", "3"], b""), "--fix");
}

#[test]
fn fleet_fix_prints_the_fixed_crontab_and_the_figures() {
    let mut crontab = String::from("# hourly jobs\nMAILTO=ops@example.com\n\n");
    for job in 1..=40 {
        crontab.push_str(&format!("0 * * * *\t/usr/local/bin/job-{job}\n"));
    }
    crontab.push_str("* * * * * /usr/bin/poll\n");
    let arguments = ["fleet", "--fix", "--from", "2026-01-01T00:00:00Z"];
    let output = stampede(&arguments, crontab.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let fixed = text(&output.stdout);
    assert_eq!(fixed.lines().count(), crontab.lines().count());
    for (was, now) in crontab.lines().zip(fixed.lines()) {
        match was.split_once("\t/usr/local/bin/") {
            // Only the minute changes, and the tab after the fields stays.
            Some((_, job)) => {
                let suffix = format!(" * * * *\t/usr/local/bin/{job}");
                assert!(now.ends_with(&suffix), "{now}");
            }
            None => assert_eq!(was, now),
        }
    }
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("kept: stdin line 44: it starts every minute"),
        "{stderr}"
    );
    assert!(
        stderr.contains("peak starts per minute: 41 -> 3\n"),
        "{stderr}"
    );

    // Levelled with line 4 pinned: it stays, the rest take a minute each.
    let levelled = stampede(
        &["fleet", "--fix", "--level", "--pin", "4", "--hours", "1"],
        crontab.as_bytes(),
    );
    assert_eq!(
        levelled.status.code(),
        Some(0),
        "{}",
        text(&levelled.stderr)
    );
    let fixed = text(&levelled.stdout);
    assert_eq!(
        fixed.lines().nth(3),
        Some("0 * * * *\t/usr/local/bin/job-1")
    );
    assert!(text(&levelled.stderr).contains("peak starts per minute: 41 -> 2\n"));

    assert_refused(&stampede(&["fleet", "--level"], b""), "--fix");
    assert_refused(&stampede(&["fleet", "--fix", "--starts"], b""), "--starts");
}

#[test]
fn run_with_arrivals_describes_and_replays_them_and_reports_bad_rows() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/arrivals.csv"
    );
    let output = stampede(&["run", "v=1&p=queue&w=4", "--arrivals", fixture], b"");
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr)
            .lines()
            .map(|l| l.split(':').next().unwrap())
            .collect::<Vec<_>>(),
        ["line 51", "line 101", "line 151"]
    );
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    let arrivals = &result["arrivals"];
    assert_eq!(arrivals["description"]["arrivals"], 995);
    assert_eq!(arrivals["accounts"], 40);
    let sentences = arrivals["diagnosis"]["sentences"].as_array().unwrap();
    assert!(
        sentences[0].as_str().unwrap().starts_with("Not Poisson"),
        "{sentences:?}"
    );
    let lanes = result["run"]["lanes"].as_array().unwrap();
    assert_eq!(lanes[0]["slug"], "imported");
    assert_eq!(lanes[0]["run"]["summary"]["jobs_enqueued"], 995);
    assert_eq!(lanes.len(), 8);
}

#[test]
fn run_with_arrivals_refuses_a_file_with_no_arrivals_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.csv");
    fs::write(&empty, "timestamp\nsoon\n").unwrap();
    let output = stampede(
        &["run", "p=queue", "--arrivals", empty.to_str().unwrap()],
        b"",
    );
    assert_refused(&output, "--arrivals");
    assert!(
        text(&output.stderr).contains("line 2"),
        "{}",
        text(&output.stderr)
    );
}

/// A crontab, two Jenkinsfiles and a timer in one paste, with a stray line.
const MIXED: &str = "\
0 2 * * * /opt/backup
30 * * * * /opt/poll
// job: shop/nightly
pipeline { triggers { cron('H 3 * * *') } }
// job: shop/weekly
pipeline { triggers { cron('H 4 * * 0') } }
# file: sync.timer
[Timer]
OnCalendar=hourly
not a schedule
";

#[test]
fn fleet_reads_every_part_of_a_mixed_paste_and_accounts_for_every_line() {
    let output = stampede(
        &["fleet", "--from", "2026-01-01T00:00:00Z", "--hours", "1"],
        MIXED.as_bytes(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let input = &result["input"];
    assert_eq!(input["lines"], 10);
    assert_eq!(input["jobs"], 5);
    assert_eq!(input["read"], 5);
    assert_eq!(input["skipped"], 1);
    assert_eq!(input["ignored"], 4);
    let formats: Vec<&str> = input["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|part| part["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats, ["crontab", "jenkins", "systemd", "crontab"]);
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("input: 10 lines in: 5 read into 5 jobs, 4 without a schedule, 1 skipped"),
        "{stderr}"
    );
    assert!(stderr.contains("skipped: stdin line 10: "), "{stderr}");
}

#[test]
fn fleet_fix_night_lets_nightly_jobs_move_within_it() {
    let crontab: String = (1..=30)
        .map(|job| format!("0 0 * * * /usr/local/bin/backup-{job}\n"))
        .collect();
    let output = stampede(&["fleet", "--fix", "--night", "0-5"], crontab.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let hours: Vec<u32> = text(&output.stdout)
        .lines()
        .map(|line| line.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect();
    assert!(hours.iter().all(|&hour| hour <= 5), "{hours:?}");
    assert!(hours.iter().any(|&hour| hour > 0), "{hours:?}");
    assert_refused(
        &stampede(&["fleet", "--fix", "--night", "5-2"], b""),
        "--night",
    );
}

#[test]
fn run_with_arrivals_and_replications_gives_the_imported_lane_intervals() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/arrivals.csv"
    );
    let args = ["run", "v=1&p=queue&w=4", "--arrivals", fixture];
    let output = stampede(&[&args[..], &["--replicate", "5"]].concat(), b"");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    let replicated = &result["replicated"];
    assert_eq!(replicated["runs"], 5);
    assert_eq!(replicated["lanes"][0]["slug"], "imported");
    // The fixture gives every duration: nothing in the imported lane varies.
    let explained = replicated["explained"].as_str().unwrap();
    assert!(
        explained.contains("the same in every run (± 0)"),
        "{explained}"
    );
    let without_runs = stampede(&[&args[..], &["--resample-hours"]].concat(), b"");
    assert_refused(&without_runs, "--resample-hours");
}
