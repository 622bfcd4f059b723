//! The fix written back into each native format: the exact text of a
//! small case, the rewritten text read again giving the fixed lines, and
//! every byte the fix does not set kept.

use proptest::prelude::*;
use stampede_core::fleet_format::FleetFormat;
use stampede_core::panels::fleet::Sample;
use stampede_fleet::file::FleetLine;
use stampede_fleet::fix::{self, FixChange, LineFix, native};
use stampede_fleet::import::{self};
use stampede_fleet::temporal::duration::temporal_duration_nanos;

/// The paste read, its fixes, and the paste rewritten.
fn fixed(text: &str, format: FleetFormat) -> (Vec<FleetLine>, Vec<LineFix>, String) {
    let read = import::read(text, format);
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    let fixes = fix::fix_lines(&read.lines, None);
    let written = native::rewrite(text, format, &fixes).unwrap();
    (read.lines, fixes, written)
}

fn rewritten_lines(fixes: &[LineFix]) -> Vec<usize> {
    fixes
        .iter()
        .filter(|fix| matches!(fix.change, FixChange::Rewritten { .. }))
        .map(|fix| fix.line)
        .collect()
}

/// A line as the fix sees it: system, id, spec, options sorted, with
/// durations in `duration_keys` in nanoseconds so `24h` and `86400s` agree.
fn seen(
    line: &FleetLine,
    duration_keys: &[&str],
) -> (String, String, String, Vec<(String, String)>) {
    let mut options: Vec<(String, String)> = line
        .options
        .own
        .iter()
        .map(|(key, value)| match temporal_duration_nanos(value) {
            Ok(nanos) if duration_keys.contains(&key.as_str()) => (key.clone(), nanos.to_string()),
            _ => (key.clone(), value.clone()),
        })
        .collect();
    options.sort();
    let system = line.system.slug().to_string();
    (system, line.id.clone(), line.spec.clone(), options)
}

/// The rewritten text, read again, gives the fixed lines.
fn assert_rereads_as_fixed(
    written: &str,
    format: FleetFormat,
    lines: &[FleetLine],
    fixes: &[LineFix],
    duration_keys: &[&str],
) {
    let reread = import::read(written, format);
    assert!(reread.skipped.is_empty(), "{:?}", reread.skipped);
    let want: Vec<_> = fix::apply(lines, fixes)
        .iter()
        .map(|line| seen(line, duration_keys))
        .collect();
    let got: Vec<_> = reread
        .lines
        .iter()
        .map(|line| seen(line, duration_keys))
        .collect();
    assert_eq!(got, want);
}

/// Every line of `text` but those numbered in `changed` is in `written`,
/// byte for byte and in order, and `written` has no other line but those
/// `added` accepts.
fn assert_kept(text: &str, written: &str, changed: &[usize], added: impl Fn(&str) -> bool) {
    let mut new = written.split_inclusive('\n').filter(|line| !added(line));
    for (index, old) in text.split_inclusive('\n').enumerate() {
        let now = new.next();
        if !changed.contains(&(index + 1)) {
            assert_eq!(now, Some(old), "line {}", index + 1);
        }
    }
    assert_eq!(new.next(), None);
}

/// Written with `\n` line endings; the test reads it with `\r\n`.
const JENKINSFILE: &str = r#"// job: ops/nightly
pipeline {
  triggers {
    cron(spec: "0 0 * * *") // nightly
    cron '0  3 * * 1-5'
    cron("""
TZ=UTC
  */15 * * * *
H H * * 0""")
    cron("0 4 * * *\n0 5 * * *")
  }
}
"#;

#[test]
fn a_jenkinsfile_gets_h_inside_each_string() {
    let text = JENKINSFILE.replace('\n', "\r\n");
    let (lines, fixes, written) = fixed(&text, FleetFormat::Jenkins);
    let want = r#"// job: ops/nightly
pipeline {
  triggers {
    cron(spec: "H 0 * * *") // nightly
    cron 'H  3 * * 1-5'
    cron("""
TZ=UTC
  H/15 * * * *
H H * * 0""")
    cron("H 4 * * *\nH 5 * * *")
  }
}
"#;
    assert_eq!(written, want.replace('\n', "\r\n"));
    assert_eq!(rewritten_lines(&fixes), [4, 5, 8, 10, 10]);
    assert_rereads_as_fixed(&written, FleetFormat::Jenkins, &lines, &fixes, &[]);
    assert_kept(&text, &written, &[4, 5, 8, 10], |_| false);
}

const CRON_JOBS: &str = r#"apiVersion: batch/v1
kind: CronJob
metadata:
  name: backup
  namespace: ops
spec:
  schedule: "0 0 * * *"   # nightly
  timeZone: Etc/UTC
---
kind: List
items:
  - kind: CronJob
    metadata: {name: report}
    spec: {schedule: 0 * * * *, suspend: false}
  - kind: CronJob
    metadata: {name: sync}
    spec:
      schedule: '*/15 * * * *'
  - kind: CronJob
    metadata: {name: poll}
    spec:
      schedule: "* * * * *"
"#;

#[test]
fn cron_jobs_get_a_new_schedule_in_their_own_quotes() {
    let (lines, fixes, written) = fixed(CRON_JOBS, FleetFormat::Kubernetes);
    let want = CRON_JOBS
        .replace("\"0 0 * * *\"   #", "\"35 0 * * *\"   #")
        .replace("{schedule: 0 * * * *,", "{schedule: 49 * * * *,")
        .replace("'*/15 * * * *'", "'11-59/15 * * * *'");
    assert_eq!(written, want);
    assert_eq!(rewritten_lines(&fixes), [7, 14, 18]);
    assert_rereads_as_fixed(&written, FleetFormat::Kubernetes, &lines, &fixes, &[]);
    assert_kept(CRON_JOBS, &written, &[7, 14, 18], |_| false);
}

const WORKFLOWS: &str = r#"# file: nightly.yml
on:
  schedule:
    - cron: 0 0 * * *
    - cron: '30 5 * * 1'  # Mondays
  workflow_dispatch:
jobs: {}
# file: often.yml
"on": {schedule: [{cron: "*/10 * * * *"}]}
"#;

#[test]
fn workflows_get_a_new_cron_in_their_own_quotes() {
    let (lines, fixes, written) = fixed(WORKFLOWS, FleetFormat::GithubActions);
    let want = WORKFLOWS
        .replace("cron: 0 0 * * *", "cron: 56 0 * * *")
        .replace("'30 5 * * 1'", "'56 5 * * 1'")
        .replace("\"*/10 * * * *\"", "\"8-59/10 * * * *\"");
    assert_eq!(written, want);
    assert_rereads_as_fixed(&written, FleetFormat::GithubActions, &lines, &fixes, &[]);
    assert_kept(WORKFLOWS, &written, &[4, 5, 9], |_| false);
}

#[test]
fn sidekiq_jobs_get_a_new_cron_in_their_own_quotes() {
    let text = Sample::SidekiqJobs.text();
    let (lines, fixes, written) = fixed(&text, FleetFormat::SidekiqCron);
    let changed = rewritten_lines(&fixes);
    assert!(changed.len() >= 16, "{changed:?}");
    // Only `cron:` lines change, each keeping its double quotes.
    for (old, new) in text.lines().zip(written.lines()) {
        if old != new {
            assert!(
                old.starts_with("  cron: \"") && new.starts_with("  cron: \""),
                "{new}"
            );
        }
    }
    assert_rereads_as_fixed(&written, FleetFormat::SidekiqCron, &lines, &fixes, &[]);
    assert_kept(&text, &written, &changed, |_| false);
}

#[test]
fn quartz_triggers_get_a_new_expression_in_place() {
    expressions_move_in_place(Sample::QuartzJobs, FleetFormat::QuartzXml, |line| {
        let inner = line.trim().strip_prefix("<cron-expression>")?;
        inner.strip_suffix("</cron-expression>")
    });
}

#[test]
fn spring_tasks_get_a_new_expression_in_place() {
    expressions_move_in_place(Sample::SpringJobs, FleetFormat::SpringScheduled, |line| {
        let inner = line.trim().strip_prefix("@Scheduled(cron = \"")?;
        inner.split_once('"').map(|(expression, _)| expression)
    });
}

#[test]
fn apscheduler_jobs_get_a_new_minute_in_their_calls() {
    let text = Sample::ApschedulerJobs.text();
    let format = FleetFormat::Apscheduler;
    let (lines, fixes, written) = fixed(&text, format);
    assert!(rewritten_lines(&fixes).len() >= 20, "{fixes:?}");
    assert_rereads_as_fixed(&written, format, &lines, &fixes, &[]);
    // Only the minute changes, in its own quoting; the jitter, the zone
    // and the interval jobs stay.
    let without_minute = |line: &str| -> String {
        let line = line.replace("'0 6", "'M 6");
        match line.find("minute=") {
            Some(at) => {
                let end = line[at..].find([',', ')']).map_or(line.len(), |i| at + i);
                format!("{}{}", &line[..at], &line[end..])
            }
            None => line,
        }
    };
    for (before, after) in text.lines().zip(written.lines()) {
        if before.contains("'interval'") {
            assert_eq!(before, after);
        }
        if before.contains("from_crontab") {
            // The crontab's fields but its minute.
            let rest = |line: &str| -> Option<String> {
                let spec = line.split('\'').nth(1)?;
                Some(spec.split(' ').skip(1).collect::<Vec<_>>().join(" "))
            };
            assert_eq!(rest(before), rest(after), "{after}");
        } else {
            assert_eq!(
                without_minute(before),
                without_minute(after),
                "{before} → {after}"
            );
        }
    }
}

/// `sample`'s fix in `format`: only the expressions change (`expression`
/// finds one in a line), the file is the same line for line outside
/// them, and each new one keeps its second, hour and days.
fn expressions_move_in_place(
    sample: Sample,
    format: FleetFormat,
    expression: fn(&str) -> Option<&str>,
) {
    let text = sample.text();
    let (lines, fixes, written) = fixed(&text, format);
    assert!(rewritten_lines(&fixes).len() >= 20, "{fixes:?}");
    assert_rereads_as_fixed(&written, format, &lines, &fixes, &[]);
    for (before, after) in text.lines().zip(written.lines()) {
        if before != after {
            let fields = |line: &str| -> Vec<String> {
                let spec = expression(line).unwrap_or_else(|| panic!("{line}"));
                spec.split(' ').map(String::from).collect()
            };
            let (old, new) = (fields(before), fields(after));
            assert_eq!(
                (&old[0], &old[2..]),
                (&new[0], &new[2..]),
                "{before} → {after}"
            );
        }
    }
}

#[test]
fn a_plain_schedule_is_quoted_when_the_new_spec_needs_it() {
    let text = "on:\n  schedule:\n    - cron: 0 0 * * *\n";
    let fixes = [LineFix {
        line: 3,
        change: FixChange::Rewritten {
            spec: "*/5 * * * *".into(),
            options: Vec::new(),
        },
    }];
    let written = native::rewrite(text, FleetFormat::GithubActions, &fixes).unwrap();
    assert_eq!(written, "on:\n  schedule:\n    - cron: \"*/5 * * * *\"\n");
    let reread = import::read(&written, FleetFormat::GithubActions);
    assert_eq!(reread.lines[0].spec, "*/5 * * * *");
}

/// Three units on two machines; the last ends without a line break.
const TIMERS: &str = "# machines: 0123456789abcdef0123456789abcdef fedcba9876543210fedcba9876543210
# file: backup.timer
[Unit]
Description=Backup

[Timer]
OnCalendar=daily
Persistent=true

[Install]
WantedBy=timers.target
# file: logs.timer
[Timer]
RandomizedDelaySec = 30min
  OnCalendar=*-*-* *:00:00
# file: often.timer
[Timer]
OnCalendar=*:0/15
FixedRandomDelay = no
OnCalendar=*-*-* 00:00:00";

#[test]
fn timers_get_their_options_set_in_their_own_unit() {
    let (lines, fixes, written) = fixed(TIMERS, FleetFormat::Systemd);
    // Two machines: each line of a unit comes twice, with the same fix.
    assert_eq!(rewritten_lines(&fixes), [7, 7, 15, 15, 18, 18, 20, 20]);
    let want = TIMERS
        .replace(
            "daily\n",
            "daily\nRandomizedDelaySec=1h\nFixedRandomDelay=yes\n",
        )
        .replace("*:00:00\n", "*:00:00\n  FixedRandomDelay=yes\n")
        .replace("0/15\n", "0/15\nRandomizedDelaySec=15m\n")
        .replace("= no", "= yes");
    assert_eq!(written, want);
    // The unit's two calendars share the shorter delay, 15m, which the
    // midnight calendar's fix (1d) is read back with.
    let mut fixes = fixes;
    for fix in &mut fixes {
        if let FixChange::Rewritten { options, .. } = &mut fix.change
            && fix.line == 20
        {
            options[0].1 = "15m".into();
        }
    }
    assert_rereads_as_fixed(&written, FleetFormat::Systemd, &lines, &fixes, &[]);
    let added = |line: &str| {
        [
            "RandomizedDelaySec=1h\n",
            "FixedRandomDelay=yes\n",
            "  FixedRandomDelay=yes\n",
            "RandomizedDelaySec=15m\n",
        ]
        .contains(&line)
    };
    assert_kept(TIMERS, &written, &[19], added);
}

#[test]
fn a_timer_setting_in_force_is_replaced_where_it_stands() {
    let text = "[Timer]\r\nRandomizedDelaySec=0\r\nOnCalendar=hourly\r\nFixedRandomDelay = no\r\n";
    let (lines, fixes, written) = fixed(text, FleetFormat::Systemd);
    assert_eq!(
        written,
        "[Timer]\r\nRandomizedDelaySec=1h\r\nOnCalendar=hourly\r\nFixedRandomDelay = yes\r\n"
    );
    assert_rereads_as_fixed(&written, FleetFormat::Systemd, &lines, &fixes, &[]);
}

const SCHEDULES: &str = r#"[
  {
    "scheduleId": "nightly",
    "namespaceId": "ns-1",
    "schedule": {
      "spec": {
        "cronString": [
          "0 0 * * *"
        ]
      },
      "state": {}
    }
  },
  {
    "scheduleId": "hourly",
    "namespaceId": "ns-1",
    "spec": {"interval": [{"interval": "3600s"}], "jitter": "0s"}
  },
  {
    "scheduleId": "spread",
    "namespaceId": "ns-1",
    "spec": {"interval": [{"interval": "900s"}], "jitter": "60s"}
  }
]
"#;

#[test]
fn temporal_schedules_get_a_jitter_in_seconds() {
    let (lines, fixes, written) = fixed(SCHEDULES, FleetFormat::Temporal);
    assert_eq!(rewritten_lines(&fixes), [8, 17]);
    let want = SCHEDULES
        .replace(
            "      \"spec\": {\n        \"cronString\"",
            "      \"spec\": {\n        \"jitter\": \"3600s\",\n        \"cronString\"",
        )
        .replace("\"jitter\": \"0s\"", "\"jitter\": \"3600s\"");
    assert_eq!(written, want);
    assert_rereads_as_fixed(&written, FleetFormat::Temporal, &lines, &fixes, &["Jitter"]);
    let added = |line: &str| line.trim_start().starts_with("\"jitter\": \"3600s\"");
    assert_kept(SCHEDULES, &written, &[17], added);
}

#[test]
fn a_compact_temporal_spec_gets_its_jitter_on_the_line() {
    let text = "{\"scheduleId\": \"s\", \"namespaceId\": \"n\",\n \"spec\": {\"cronString\": [\"25 0 * * *\"]}}\n";
    let (lines, fixes, written) = fixed(text, FleetFormat::Temporal);
    assert_eq!(
        written,
        "{\"scheduleId\": \"s\", \"namespaceId\": \"n\",\n \"spec\": {\"jitter\": \"3600s\", \"cronString\": [\"25 0 * * *\"]}}\n"
    );
    assert_rereads_as_fixed(&written, FleetFormat::Temporal, &lines, &fixes, &["Jitter"]);
}

#[test]
fn a_temporal_spec_in_yaml_blocks_is_refused_naming_the_format() {
    let text = "scheduleId: s\nnamespaceId: n\nspec:\n  cronString:\n    - 0 0 * * *\n";
    let read = import::read(text, FleetFormat::Temporal);
    let fixes = fix::fix_lines(&read.lines, None);
    let refusal = native::rewrite(text, FleetFormat::Temporal, &fixes).unwrap_err();
    assert!(
        refusal.reason.contains("Temporal schedule JSON"),
        "{}",
        refusal.reason
    );
    assert!(
        refusal.reason.contains("not a JSON object"),
        "{}",
        refusal.reason
    );
}

#[test]
fn prometheus_is_written_back_as_it_was() {
    let text = "# server: prom-1.example.com\nscrape_configs:\n  - job_name: node\n    scrape_interval: 15s\n    static_configs:\n      - targets: ['10.0.0.1:9100', '10.0.0.2:9100']\n";
    let (lines, fixes, written) = fixed(text, FleetFormat::Prometheus);
    assert_eq!(lines.len(), 2);
    assert!(rewritten_lines(&fixes).is_empty());
    assert_eq!(written, text);
}

/// Lines of each format's own shapes, and some that are none.
fn native_text() -> impl Strategy<Value = String> {
    let line = prop::sample::select(vec![
        "// job: a/b",
        "cron('0 0 * * *')",
        "cron \"0 * * * *\\n*/5 * * * *\"",
        "cron('''",
        "0 3 * * *''')",
        "kind: CronJob",
        "metadata: {name: x}",
        "spec:",
        "  schedule: 0 0 * * *",
        "  schedule: '0 * * * *'",
        "on:",
        "  schedule:",
        "    - cron: \"*/15 * * * *\"",
        "# file: a.timer",
        "# machines: 0123456789abcdef0123456789abcdef",
        "[Timer]",
        "OnCalendar=daily",
        "RandomizedDelaySec=1h \\",
        "FixedRandomDelay=no",
        "{\"scheduleId\": \"s\", \"spec\": {\"cronString\": [\"0 0 * * *\"]}}",
        "{\"scheduleId\": \"s\", \"spec\": {\"jitter\": 5, \"interval\": [{\"interval\": \"1h\"}]}}",
        "[{\"scheduleId\": \"t\",",
        " \"spec\": {\"cronString\": [\"0 * * * *\", \"0 0 * * *\"]}}]",
        "scrape_configs:",
        "",
        "é\t\"'",
    ]);
    prop::collection::vec(prop_oneof![line.prop_map(String::from), ".{0,20}"], 0..12)
        .prop_map(|lines| lines.join("\n"))
}

fn any_change() -> impl Strategy<Value = FixChange> {
    let spec = prop::sample::select(vec![
        "H H * * *",
        "17 5 * * *",
        "*/5 * * * *",
        "@daily",
        "daily",
        "a: b #c",
        "'\"\\$",
        "x\ny",
        "",
    ]);
    let option = (
        prop::sample::select(vec![
            "RandomizedDelaySec",
            "FixedRandomDelay",
            "Jitter",
            "TZ",
        ]),
        prop::sample::select(vec!["1h", "15m", "yes", "86400s", "-1s", "x", ""]),
    );
    prop_oneof![
        Just(FixChange::kept("it stays")),
        (spec, prop::collection::vec(option, 0..3)).prop_map(|(spec, options)| {
            FixChange::Rewritten {
                spec: spec.to_string(),
                options: options
                    .into_iter()
                    .map(|(key, value)| (key.to_string(), value.to_string()))
                    .collect(),
            }
        }),
    ]
}

proptest! {
    #[test]
    fn any_text_in_any_format_rewrites_without_panic(
        text in native_text(),
        changes in prop::collection::vec((1usize..14, any_change()), 0..8),
    ) {
        let fixes: Vec<LineFix> = changes
            .into_iter()
            .map(|(line, change)| LineFix { line, change })
            .collect();
        for format in FleetFormat::ALL {
            let _ = native::rewrite(&text, *format, &fixes);
        }
        // Its own fixes, where written, keep every line the fix leaves.
        for format in FleetFormat::ALL {
            let read = import::read(&text, *format);
            let fixes = fix::fix_lines(&read.lines, None);
            if rewritten_lines(&fixes).is_empty() {
                prop_assert_eq!(native::rewrite(&text, *format, &fixes).ok(), Some(text.clone()));
            }
        }
    }
}
