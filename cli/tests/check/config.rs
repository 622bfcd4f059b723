//! `stampede.toml` in the repository's root: its budgets, zone, durations
//! and ignores apply, and a flag given on the command line wins over it.

use std::fs;

use serde_json::Value;

use super::{copy, findings_of, places, report};

/// Budgets, the machines' zone, how long the APScheduler job runs, and
/// two folders' crowded minutes left to their owners.
const SETTINGS: &str = r#"
max-starts-per-minute = 10
max-concurrent = 4
zone = "Europe/Berlin"

[durations]
py-sync = "3h"

[[ignore]]
rule = "starts-per-minute"
paths = ["k8s/*.yaml", "src/**"]
"#;

fn message<'r>(report: &'r Value, path: &str, line: u64, rule: &str) -> Option<&'r str> {
    findings_of(report)
        .iter()
        .find(|f| f["path"] == path && f["line"] == line && f["rule"] == rule)
        .map(|f| f["message"].as_str().unwrap())
}

#[test]
fn the_settings_file_applies() {
    let dir = copy();
    fs::write(dir.path().join("stampede.toml"), SETTINGS).unwrap();
    let report = report(dir.path(), &[]);
    let found = places(&report);
    let has = |path: &str, line: u64, rule: &str| found.contains(&(path.into(), line, rule.into()));
    // The budget of 10 starts, except where ignored.
    assert!(has("ops/crontab", 3, "starts-per-minute"));
    assert!(!has("k8s/cronjobs.yaml", 7, "starts-per-minute"));
    assert!(!has(
        "src/main/java/com/example/Tasks.java",
        8,
        "starts-per-minute"
    ));
    // Berlin's 09:00 is 08:00 UTC in November.
    let friday = message(&report, "ops/crontab", 6, "starts-per-minute").unwrap();
    assert!(
        friday.starts_with("starts in Fri 2026-11-27 08:00 UTC"),
        "{friday}"
    );
    // The job runs 3 h from each hour: at 03:00 its runs from 01:00, 02:00
    // and 03:00 join db.fleet's three and 13 more starts, 20 over 4.
    let sync = message(&report, "workers/scheduler.py", 4, "concurrent-jobs").unwrap();
    assert!(sync.starts_with("runs for 3 h and is running in Mon 2026-11-23 03:00 UTC, when 20 jobs run at once, over the budget of 4"), "{sync}");
}

#[test]
fn flags_win_over_the_settings_file() {
    let dir = copy();
    fs::write(dir.path().join("stampede.toml"), SETTINGS).unwrap();
    let utc = report(dir.path(), &["--zone", "UTC"]);
    let friday = message(&utc, "ops/crontab", 6, "starts-per-minute").unwrap();
    assert!(
        friday.starts_with("starts in Fri 2026-11-27 09:00 UTC"),
        "{friday}"
    );
    // The busiest minute's 16 starts are not over 16.
    let budgets = ["--max-starts-per-minute", "16", "--max-concurrent", "100"];
    let rules: Vec<String> = places(&report(dir.path(), &budgets))
        .into_iter()
        .map(|(.., rule)| rule)
        .collect();
    assert!(
        !rules
            .iter()
            .any(|rule| rule == "starts-per-minute" || rule == "concurrent-jobs"),
        "{rules:?}"
    );
    assert!(rules.iter().any(|rule| rule == "never-runs"), "{rules:?}");
}

#[test]
fn fail_on_and_a_named_settings_file() {
    let dir = copy();
    fs::write(dir.path().join("ci.toml"), "fail-on = \"warning\"\n").unwrap();
    // Only warnings in the timer: they fail at the file's level, not at the flag's.
    let with_file = super::check(dir.path(), &["--config", "ci.toml", "systemd/backup.timer"]);
    assert_eq!(with_file.code, Some(1), "{}", with_file.stdout);
    let flag = [
        "--config",
        "ci.toml",
        "--fail-on",
        "error",
        "systemd/backup.timer",
    ];
    assert_eq!(super::check(dir.path(), &flag).code, Some(0));
}
