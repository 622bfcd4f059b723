//! Exit codes as CI reads them: 0 when nothing fails, 1 when a finding at
//! or above `--fail-on` does, 2 for a usage or configuration error, with
//! a message naming what is wrong and no report written, whatever reports
//! were asked for.

use std::fs;
use std::path::Path;

use super::{BUDGETS, check, copy, files_read, fixture};

#[test]
fn a_repository_without_findings_exits_0() {
    // `17 4 * * 1`: Mondays at 04:17, alone.
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join(".github/workflows")).unwrap();
    fs::copy(
        fixture().join(".github/workflows/weekly.yml"),
        dir.path().join(".github/workflows/weekly.yml"),
    )
    .unwrap();
    for fail_on in ["error", "warning", "note"] {
        let run = check(
            dir.path(),
            &[&BUDGETS[..], &["--fail-on", fail_on]].concat(),
        );
        assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
        let tally = format!("0 errors, 0 warnings and 0 notes; 0 fail (at {fail_on} and above).\n");
        assert!(run.stdout.ends_with(&tally), "{}", run.stdout);
    }
}

#[test]
fn findings_at_or_above_the_level_exit_1() {
    // The timer's one finding, delay-over-period, is a warning.
    let timer = "systemd/backup.timer";
    for (fail_on, code) in [
        (None, 0),
        (Some("error"), 0),
        (Some("warning"), 1),
        (Some("note"), 1),
    ] {
        let mut args = vec![timer];
        args.extend(fail_on.iter().flat_map(|level| ["--fail-on", level]));
        let run = check(&fixture(), &args);
        assert_eq!(
            run.code,
            Some(code),
            "--fail-on {fail_on:?}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains("warning[delay-over-period]"),
            "{}",
            run.stdout
        );
    }
    // The whole fixture has errors, with budgets or without (never-runs).
    assert_eq!(check(&fixture(), &BUDGETS).code, Some(1));
    assert_eq!(check(&fixture(), &[]).code, Some(1));
}

/// Runs `args` in `dir` with and without a SARIF report to a file, and
/// asserts exit code 2, a message holding each of `named`, nothing on
/// stdout and no report written.
fn assert_stops(dir: &Path, args: &[&str], named: &[&str]) {
    let sarif = dir.join("out.sarif");
    let to_file = format!("sarif={}", sarif.display());
    for args in [args.to_vec(), [args, &["-o", &to_file]].concat()] {
        let run = check(dir, &args);
        assert_eq!(run.code, Some(2), "{args:?}: {}{}", run.stdout, run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
        for name in named {
            assert!(
                run.stderr.contains(name),
                "{args:?} names no {name}: {}",
                run.stderr
            );
        }
        assert!(!sarif.exists(), "{args:?} wrote {}", sarif.display());
    }
}

#[test]
fn usage_errors_exit_2_naming_the_argument() {
    let dir = copy();
    let cases: [(&[&str], &[&str]); 9] = [
        (&["--frobnicate"], &["'--frobnicate'"]),
        (
            &["-o", "xml"],
            &["--output", "\"xml\" is not one of text, json, sarif"],
        ),
        (&["-o", "json="], &["\"json=\" names no file"]),
        (
            &["-o", "json", "-o", "text"],
            &["only one report can go to stdout"],
        ),
        (&["no/such/dir"], &["no/such/dir"]),
        (
            &["--fail-on", "fatal"],
            &["--fail-on", "\"fatal\" is not one of error, warning, note"],
        ),
        (&["--zone", "Mars/Olympus"], &["--zone", "Mars/Olympus"]),
        (&["--config", "missing.toml"], &["--config missing.toml"]),
        (
            &["--baseline", "missing.json"],
            &["--baseline missing.json"],
        ),
    ];
    for (args, named) in cases {
        assert_stops(dir.path(), args, named);
    }
}

#[test]
fn a_bad_stampede_toml_exits_2_naming_its_key_or_line() {
    let dir = copy();
    let cases: [(&str, &[&str]); 7] = [
        (
            "max-starts-per-minute = 10\nmax-concurent = 2\n",
            &["stampede.toml", "line 2", "unknown field `max-concurent`"],
        ),
        (
            "max-starts-per-minute = \"ten\"\n",
            &["stampede.toml", "line 1", "max-starts-per-minute"],
        ),
        (
            "max-starts-per-minute = 0\n",
            &["stampede.toml: max-starts-per-minute"],
        ),
        (
            "[[ignore]]\nrule = \"github-top-of-hour\"\n\n[[ignore]]\nrule = \"start-per-minute\"\n",
            &[
                "stampede.toml: ignore[1]",
                "\"start-per-minute\" is not one of",
            ],
        ),
        (
            "zone = \"Mars/Olympus\"\n",
            &["stampede.toml: zone", "Mars/Olympus"],
        ),
        (
            "[durations]\nnightly-backup = \"forever\"\n",
            &["stampede.toml: durations.nightly-backup", "\"forever\""],
        ),
        (
            "fail-on = \"fatal\"\n",
            &["stampede.toml: fail-on", "\"fatal\""],
        ),
    ];
    for (toml, named) in cases {
        fs::write(dir.path().join("stampede.toml"), toml).unwrap();
        assert_stops(dir.path(), &BUDGETS, named);
    }
}

#[test]
fn a_bad_baseline_exits_2() {
    let dir = copy();
    fs::write(dir.path().join("base.json"), "{\"findings\": 3}").unwrap();
    assert_stops(
        dir.path(),
        &["--baseline", "base.json"],
        &[
            "--baseline base.json",
            "neither a `stampede check` JSON report nor a SARIF one",
        ],
    );
}

/// Files a repository should not hold, found by a walk: bytes that are not
/// UTF-8 in a crontab, NULs in a timer, a file past the size read, a
/// symbolic link that loops, a workflow that is not YAML. The check reads
/// what it can, names what it cannot, and ends with its usual codes.
#[test]
fn hostile_files_are_read_or_named_and_never_stop_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("etc/cron.d")).unwrap();
    fs::create_dir_all(root.join(".github/workflows")).unwrap();
    fs::create_dir_all(root.join("units")).unwrap();
    fs::write(
        root.join("etc/cron.d/binary"),
        b"\xff\xfe0 * * * * /a\n\x00\x01\x02\n0 1 * * * /b\n",
    )
    .unwrap();
    fs::write(
        root.join("units/nul.timer"),
        b"[Timer]\nOnCalendar=\x00daily\n",
    )
    .unwrap();
    let huge = "# padding\n".repeat(2_000_000);
    fs::write(
        root.join("units/huge.timer"),
        format!("[Timer]\nOnCalendar=hourly\n{huge}"),
    )
    .unwrap();
    fs::write(
        root.join(".github/workflows/broken.yml"),
        "on:\n  schedule:\n    - cron: [unclosed\n",
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(root.join("etc"), root.join("etc/cron.d/loop")).unwrap();
    let run = check(root, &[&BUDGETS[..], &["-o", "json"]].concat());
    assert!(matches!(run.code, Some(0 | 1)), "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    let report = run.json();
    let read = files_read(&report);
    // The 20 MB timer is past the 16 MiB read, and named; the rest are read.
    let notices = report["notices"].as_array().unwrap();
    assert!(
        notices.iter().any(|n| n
            .as_str()
            .unwrap()
            .starts_with("units/huge.timer: not read")),
        "{notices:?}"
    );
    assert_eq!(
        read,
        [
            ".github/workflows/broken.yml",
            "etc/cron.d/binary",
            "units/nul.timer"
        ]
    );
    let rules: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().into(),
                f["rule"].as_str().unwrap().into(),
            )
        })
        .collect();
    for path in [
        ".github/workflows/broken.yml",
        "etc/cron.d/binary",
        "units/nul.timer",
    ] {
        assert!(
            rules.contains(&(path.into(), "not-read".into())),
            "{path}: {rules:?}"
        );
    }
    // The crontab's first line starts with bytes that are not UTF-8, so it
    // is named, not read; its last line is read.
    assert_eq!(report["schedules"], 1);
}
