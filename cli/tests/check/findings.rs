//! The fixture's findings, each checked by hand, the marks that drop some
//! of them, and the fingerprints that follow a line as it moves.

use std::collections::BTreeSet;
use std::fs;

use serde_json::Value;

use super::{BUDGETS, append, copy, files_read, findings_of, fixture, places, report};

/// Every finding of the fixture under 10 starts a minute and 2 jobs at
/// once: (path, line, rule, the starts or jobs over the budget).
///
/// At the top of every hour 14 lines start: ops/crontab 3, 4, 5 and 10,
/// ci/Jenkinsfile, config/schedule.yml (sidekiq-cron),
/// infra/scheduler.yaml (EventBridge, its window off),
/// jenkins/jobs/nightly/config.xml, jobs/quartz_data.xml (`0 0 * ? * *`),
/// both CronJobs of k8s/cronjobs.yaml, Tasks.java (`0 0 * * * *`),
/// temporal/schedules.json and workers/scheduler.py (`minute=0`). db.fleet's
/// two lines at 02:00 make that minute the week's busiest, 16 starts, so
/// each hourly line is named there; nightly.yml at 03:00 and the Friday
/// line at 09:00 find 15. At 03:00 the backup (2 h from 02:00), the vacuum
/// (90 min from 02:00) and the reindex (1 h from 02:30) run while 15 jobs
/// start: 18 at once, and only lines with a duration are named. The timer
/// draws a delay of up to 2 h at each of its some 110 runs a week, so
/// each falls at the top of an hour, among the 14, with p ≈ 1/60: about
/// two a week, as in the seed's week. Anacron's machines start
/// between 03:06 and 03:51, in no crowded minute, and Prometheus' scrapes
/// count for no budget.
///
/// Left out: ops/crontab 10 (`stampede: ignore starts-per-minute` above
/// it) and the second CronJob (its `stampede/ignore` annotation).
const EXPECTED: &[(&str, u64, &str, Option<f64>)] = &[
    // `0 3 * * *`: 15 at 03:00, and minute 0 of an hour on GitHub.
    (
        ".github/workflows/nightly.yml",
        4,
        "starts-per-minute",
        Some(15.0),
    ),
    (
        ".github/workflows/nightly.yml",
        4,
        "github-top-of-hour",
        None,
    ),
    // `0 * * * *` where Jenkins asks for `H * * * *`.
    ("ci/Jenkinsfile", 4, "starts-per-minute", Some(16.0)),
    ("ci/Jenkinsfile", 4, "jenkins-spread", None),
    ("config/schedule.yml", 2, "starts-per-minute", Some(16.0)),
    ("db.fleet", 1, "starts-per-minute", Some(16.0)),
    ("db.fleet", 1, "concurrent-jobs", Some(18.0)),
    ("db.fleet", 2, "starts-per-minute", Some(16.0)),
    ("db.fleet", 2, "concurrent-jobs", Some(18.0)),
    // 02:30 holds one start; the reindex is named only for running at 03:00.
    ("db.fleet", 3, "concurrent-jobs", Some(18.0)),
    ("infra/scheduler.yaml", 7, "starts-per-minute", Some(16.0)),
    (
        "jenkins/jobs/nightly/config.xml",
        5,
        "starts-per-minute",
        Some(16.0),
    ),
    ("jenkins/jobs/nightly/config.xml", 5, "jenkins-spread", None),
    ("jobs/quartz_data.xml", 15, "starts-per-minute", Some(16.0)),
    ("k8s/cronjobs.yaml", 7, "starts-per-minute", Some(16.0)),
    ("ops/crontab", 3, "starts-per-minute", Some(16.0)),
    ("ops/crontab", 4, "starts-per-minute", Some(16.0)),
    ("ops/crontab", 5, "starts-per-minute", Some(16.0)),
    // `0 9 13 * 5`: Friday 27 November 09:00 (no 13th this week) makes 15,
    // and cron runs it on every Friday and every 13th, not Friday the 13th.
    ("ops/crontab", 6, "starts-per-minute", Some(15.0)),
    ("ops/crontab", 6, "day-fields-or", None),
    // `0 0 30 2 *`: February has no 30th.
    ("ops/crontab", 7, "never-runs", None),
    // `61 * * * *`: no minute 61.
    ("ops/crontab", 8, "not-read", None),
    (
        "src/main/java/com/example/Tasks.java",
        8,
        "starts-per-minute",
        Some(16.0),
    ),
    // A run at Tuesday 11:00 with the seed's draw; and `hourly` with
    // RandomizedDelaySec=2h, longer than the hour between runs.
    ("systemd/backup.timer", 5, "starts-per-minute", Some(14.0)),
    ("systemd/backup.timer", 5, "delay-over-period", None),
    (
        "temporal/schedules.json",
        6,
        "starts-per-minute",
        Some(16.0),
    ),
    ("workers/scheduler.py", 4, "starts-per-minute", Some(16.0)),
];

/// The files read: every one but `.github/workflows/ci.yml`, which has no
/// schedule.
const READ: &[&str] = &[
    ".github/workflows/nightly.yml",
    ".github/workflows/weekly.yml",
    "ci/Jenkinsfile",
    "config/schedule.yml",
    "db.fleet",
    "etc/anacrontab",
    "infra/scheduler.yaml",
    "jenkins/jobs/nightly/config.xml",
    "jobs/quartz_data.xml",
    "k8s/cronjobs.yaml",
    "monitoring/prometheus.yml",
    "ops/crontab",
    "src/main/java/com/example/Tasks.java",
    "systemd/backup.timer",
    "temporal/schedules.json",
    "workers/scheduler.py",
];

#[test]
fn the_fixture_gives_its_findings_at_their_lines() {
    let report = report(&fixture(), &BUDGETS);
    let found: Vec<(String, u64, String, Option<f64>)> = findings_of(&report)
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().into(),
                f["line"].as_u64().unwrap(),
                f["rule"].as_str().unwrap().into(),
                f["value"].as_f64(),
            )
        })
        .collect();
    let expected: Vec<(String, u64, String, Option<f64>)> = EXPECTED
        .iter()
        .map(|&(path, line, rule, value)| (path.into(), line, rule.into(), value))
        .collect();
    assert_eq!(found, expected);
    let read = files_read(&report);
    assert_eq!(read, READ);
    assert_eq!(
        report["busiest_minute"],
        serde_json::json!([1_795_399_200, 16.0])
    );
}

#[test]
fn levels_follow_the_rules() {
    let report = report(&fixture(), &BUDGETS);
    for finding in findings_of(&report) {
        let error = matches!(
            finding["rule"].as_str().unwrap(),
            "starts-per-minute" | "concurrent-jobs" | "never-runs"
        );
        let level = if error { "error" } else { "warning" };
        assert_eq!(finding["level"], level, "{finding}");
    }
}

#[test]
fn prometheus_scrapes_count_for_no_budget() {
    // Each target is scraped every minute: a budget of 1 would find both.
    let report = report(&fixture(), &["--max-starts-per-minute", "1"]);
    let paths: BTreeSet<String> = places(&report).into_iter().map(|(path, ..)| path).collect();
    assert!(!paths.contains("monitoring/prometheus.yml"), "{paths:?}");
    assert!(paths.contains("ops/crontab"), "{paths:?}");
}

/// The marked lines are left out by their marks and nothing else: without
/// the mark, each is found.
#[test]
fn marks_leave_out_their_lines() {
    let dir = copy();
    let crowded = |report: &Value, path: &str, line: u64| {
        places(report).contains(&(path.into(), line, "starts-per-minute".into()))
    };
    let before = report(dir.path(), &BUDGETS);
    assert!(!crowded(&before, "ops/crontab", 10));
    assert!(!crowded(&before, "k8s/cronjobs.yaml", 25));
    for (path, mark, plain) in [
        (
            "ops/crontab",
            "# stampede: ignore starts-per-minute",
            "# known",
        ),
        ("k8s/cronjobs.yaml", "stampede/ignore:", "owner:"),
    ] {
        let text = fs::read_to_string(dir.path().join(path)).unwrap();
        fs::write(dir.path().join(path), text.replace(mark, plain)).unwrap();
    }
    let after = report(dir.path(), &BUDGETS);
    assert!(crowded(&after, "ops/crontab", 10));
    assert!(crowded(&after, "k8s/cronjobs.yaml", 25));
}

/// (rule, fingerprint) → line, for one file's findings.
fn fingerprints(report: &Value, path: &str) -> Vec<(String, String, u64)> {
    findings_of(report)
        .iter()
        .filter(|f| f["path"] == path)
        .map(|f| {
            (
                f["rule"].as_str().unwrap().into(),
                f["fingerprint"].as_str().unwrap().into(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_moved_line_keeps_its_fingerprint() {
    let dir = copy();
    let before = report(dir.path(), &BUDGETS);
    let crontab = dir.path().join("ops/crontab");
    let text = fs::read_to_string(&crontab).unwrap();
    fs::write(
        &crontab,
        format!("# moved down\n\n# by three lines\n{text}"),
    )
    .unwrap();
    let after = report(dir.path(), &BUDGETS);
    let moved: Vec<_> = fingerprints(&before, "ops/crontab")
        .into_iter()
        .map(|(rule, fingerprint, line)| (rule, fingerprint, line + 3))
        .collect();
    assert_eq!(fingerprints(&after, "ops/crontab"), moved);
    assert_eq!(moved.len(), 7);
    assert_eq!(
        fingerprints(&after, "db.fleet"),
        fingerprints(&before, "db.fleet")
    );
}

#[test]
fn equal_lines_have_their_own_fingerprints() {
    let dir = copy();
    append(
        dir.path(),
        "ops/crontab",
        "0 * * * * /opt/jobs/sync-inventory\n",
    );
    let report = report(dir.path(), &BUDGETS);
    let twins: Vec<_> = fingerprints(&report, "ops/crontab")
        .into_iter()
        .filter(|(rule, _, line)| rule == "starts-per-minute" && [3, 11].contains(line))
        .collect();
    assert_eq!(twins.len(), 2, "{twins:?}");
    assert_ne!(twins[0].1, twins[1].1);
    let all: Vec<&str> = findings_of(&report)
        .iter()
        .map(|f| f["fingerprint"].as_str().unwrap())
        .collect();
    let unique: BTreeSet<&str> = all.iter().copied().collect();
    assert_eq!(unique.len(), all.len());
    assert!(
        all.iter()
            .all(|f| f.len() == 16 && f.bytes().all(|b| b.is_ascii_hexdigit()))
    );
}
