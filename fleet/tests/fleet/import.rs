//! The importers of Jenkinsfiles, systemd timers, prometheus.yml,
//! Kubernetes CronJobs, GitHub Actions workflows and Temporal schedule
//! JSON: the fleet text each writes, the native lines it skips, and
//! hostile text.

use proptest::prelude::*;

use stampede_core::fleet_format::FleetFormat;
use stampede_fleet::file::SkippedLine;
use stampede_fleet::import::{
    self, NativeTranslation, github_actions, jenkins, kubernetes, prometheus, quartz_xml, systemd,
    temporal,
};
use stampede_fleet::plan::LinePlan;
use stampede_fleet::time::{MICROS_PER_SECOND, Window};

/// The skipped lines as `(line, field)`.
pub fn skipped(translation: &NativeTranslation) -> Vec<(usize, &str)> {
    translation
        .skipped
        .iter()
        .map(|skipped| (skipped.line, skipped.field.as_str()))
        .collect()
}

/// The native line of each fleet line.
pub fn lines(translation: &NativeTranslation) -> Vec<usize> {
    translation.lines.iter().map(|line| line.line).collect()
}

const JENKINSFILES: &str = "\
// job: shop/nightly build
pipeline {
  agent any
  triggers {
    cron('H 2 * * *')
    // cron('H 3 * * *') is commented out
  }
}
// job: ops/Ünïcode job
pipeline {
  triggers { cron \"H/15 * * * 1-5\" }
  /* cron('0 0 * * *') */
}
// job: ops/several
properties([pipelineTriggers([cron(spec: '''
  # every weekday morning
  H 6 * * 1-5

  H 18 * * 1-5
''')])])
// job: ops/escaped
triggers { cron('@daily\\nH H(0-7) * * *') }
// job: ops/built
triggers { cron(\"${env.SPEC}\") }
triggers { cron(env.SPEC) }
// job: ops/zoned
triggers { cron('''TZ=Europe/Paris
H 1 * * *''') }
";

#[test]
fn jenkinsfiles_give_one_line_per_spec_line_named_by_their_job() {
    let translation = jenkins::translate(JENKINSFILES);
    assert_eq!(
        translation.fleet_text(),
        "jenkins\tshop/nightly build\tH 2 * * *\n\
         jenkins\tops/Ünïcode job\tH/15 * * * 1-5\n\
         jenkins\tops/several\tH 6 * * 1-5\n\
         jenkins\tops/several\tH 18 * * 1-5\n\
         jenkins\tops/escaped\t@daily\n\
         jenkins\tops/escaped\tH H(0-7) * * *\n"
    );
    assert_eq!(lines(&translation), [5, 11, 17, 19, 22, 22]);
    assert_eq!(
        skipped(&translation),
        [(24, "spec"), (25, "spec"), (28, "TZ")]
    );
    assert!(translation.notes.is_empty());
    let read = import::read(JENKINSFILES, FleetFormat::Auto);
    assert_eq!(read.lines.len(), 6);
    assert_eq!(read.lines[1].line, 11);
}

#[test]
fn a_jenkinsfile_without_a_job_line_is_read_as_jenkinsfile_with_a_note() {
    let text = "pipeline {\n  triggers { cron('H * * * *') }\n}\n";
    let translation = jenkins::translate(text);
    assert_eq!(
        translation.fleet_text(),
        "jenkins\tJenkinsfile\tH * * * *\n"
    );
    assert_eq!(translation.notes.len(), 1);
    assert_eq!(translation.notes[0].line, 2);
    assert_eq!(import::detect(text), FleetFormat::Jenkins);
    let imported = import::import(text, FleetFormat::Auto);
    assert_eq!(imported.notes.len(), 1);
}

const TIMERS: &str = "\
# machines: 0123456789abcdef0123456789abcdef fedcba9876543210fedcba9876543210
# machines: not-an-id
# file: backup.timer
[Unit]
Description=Nightly backup
OnCalendar=ignored outside [Timer]

[Timer]
OnCalendar=*-*-* 02:00:00
OnCalendar=Mon..Fri \\
  18:30
RandomizedDelaySec=1h
FixedRandomDelay=yes
OnBootSec=15min
; a comment
# file: clean up.timer
[Timer]
OnCalendar=hourly
OnCalendar=
OnCalendar=daily
RandomizedOffsetSec=30m
RandomizedDelaySec=5m
RandomizedDelaySec=
";

#[test]
fn timers_give_one_line_per_calendar_and_machine() {
    let translation = systemd::translate(TIMERS);
    // systemd joins a continued line with the backslash made a space.
    let a = "MachineID=0123456789abcdef0123456789abcdef";
    let b = "MachineID=fedcba9876543210fedcba9876543210";
    let backup = "RandomizedDelaySec=1h\tFixedRandomDelay=yes";
    assert_eq!(
        translation.fleet_text(),
        format!(
            "systemd\tbackup.timer\t*-*-* 02:00:00\t{backup}\t{a}\n\
             systemd\tbackup.timer\t*-*-* 02:00:00\t{backup}\t{b}\n\
             systemd\tbackup.timer\tMon..Fri  18:30\t{backup}\t{a}\n\
             systemd\tbackup.timer\tMon..Fri  18:30\t{backup}\t{b}\n\
             systemd\tclean up.timer\tdaily\tRandomizedOffsetSec=30m\t{a}\n\
             systemd\tclean up.timer\tdaily\tRandomizedOffsetSec=30m\t{b}\n"
        )
    );
    assert_eq!(lines(&translation), [9, 9, 10, 10, 20, 20]);
    assert_eq!(skipped(&translation), [(2, "MachineID"), (14, "OnBootSec")]);
    assert_eq!(import::detect(TIMERS), FleetFormat::Systemd);
    let read = import::read(TIMERS, FleetFormat::Systemd);
    assert_eq!(read.lines.len(), 6);
    assert_eq!(
        read.lines[4].options.own("MachineID"),
        Some("0123456789abcdef0123456789abcdef")
    );
}

#[test]
fn a_timer_without_machines_or_a_name_gives_one_line_with_a_note() {
    let text = "[Timer]\nOnCalendar=weekly\n";
    let translation = systemd::translate(text);
    assert_eq!(translation.fleet_text(), "systemd\tunnamed.timer\tweekly\n");
    assert_eq!(translation.notes[0].line, 2);
}

const PROMETHEUS: &str = "\
# server: prom-1.example.com
global:
  scrape_interval: 30s
  external_labels:
    region: eu-west
    replica: \"1\"
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['a.example.com:9100', \"b.example.com:9100\"]
        labels:
          team: infra
      - targets:
          - c.example.com:9100
  - job_name: blackbox probe
    scrape_interval: 1m
    scheme: https
    metrics_path: probe
    params:
      module: [http 2xx]
      a: ['x&y']
    static_configs:
      - targets: [blackbox:9115]
  - job_name: pods
    kubernetes_sd_configs:
      - role: pod
  - job_name: relabelled
    relabel_configs:
      - target_label: x
    static_configs:
      - targets: [d:1]
";

#[test]
fn prometheus_gives_one_line_per_static_target() {
    let translation = prometheus::translate(PROMETHEUS);
    let tail = "ExternalLabels=region=eu-west,replica=1\tServer=prom-1.example.com";
    assert_eq!(
        translation.fleet_text(),
        format!(
            "prometheus\ta.example.com:9100\t30s\tJob=node\tLabels=team=infra\tURL=http://a.example.com:9100/metrics\t{tail}\n\
             prometheus\tb.example.com:9100\t30s\tJob=node\tLabels=team=infra\tURL=http://b.example.com:9100/metrics\t{tail}\n\
             prometheus\tc.example.com:9100\t30s\tJob=node\tURL=http://c.example.com:9100/metrics\t{tail}\n\
             prometheus\tblackbox:9115\t1m\tJob=blackbox probe\tURL=https://blackbox:9115/probe?a=x%26y&module=http+2xx\t{tail}\n"
        )
    );
    assert_eq!(lines(&translation), [10, 10, 14, 23]);
    assert_eq!(
        skipped(&translation),
        [(25, "kubernetes_sd_configs"), (28, "relabel_configs")]
    );
    assert_eq!(import::detect(PROMETHEUS), FleetFormat::Prometheus);
}

#[test]
fn prometheus_without_a_global_section_scrapes_every_minute() {
    let text = "scrape_configs:\n- job_name: x\n  static_configs:\n  - targets: [h:1]\n";
    assert_eq!(
        prometheus::translate(text).fleet_text(),
        "prometheus\th:1\t1m\tJob=x\tURL=http://h:1/metrics\n"
    );
}

#[test]
fn prometheus_passes_on_timeouts_histogram_settings_and_the_version() {
    let text = "\
# version: 3.13
global:
  scrape_interval: 5s
  scrape_timeout: 2s
  scrape_native_histograms: true
scrape_configs:
  - job_name: a
    static_configs: [{targets: [a:1]}]
  - job_name: b
    scrape_interval: 1m
    scrape_timeout: 30s
    always_scrape_classic_histograms: yes
    scrape_native_histograms: false
    static_configs: [{targets: [b:1]}]
  - job_name: c
    scrape_interval: 1s
    scrape_timeout: 0s
    static_configs: [{targets: [c:1]}]
  - job_name: d
    convert_classic_histograms_to_nhcb: 'true'
    static_configs: [{targets: [d:1]}]
";
    let translation = prometheus::translate(text);
    assert_eq!(
        translation.fleet_text(),
        "prometheus\ta:1\t5s\tJob=a\tURL=http://a:1/metrics\tTimeout=2s\tScrapeNativeHistograms=true\tVersion=3.13\n\
         prometheus\tb:1\t1m\tJob=b\tURL=http://b:1/metrics\tTimeout=30s\tAlwaysScrapeClassicHistograms=true\tVersion=3.13\n\
         prometheus\tc:1\t1s\tJob=c\tURL=http://c:1/metrics\tScrapeNativeHistograms=true\tVersion=3.13\n"
    );
    assert_eq!(
        skipped(&translation),
        [(20, "convert_classic_histograms_to_nhcb")]
    );
    // Every line given is one the fleet reader takes.
    let imported = translation.read();
    assert_eq!(
        (imported.file.lines.len(), imported.file.skipped.len()),
        (3, 1)
    );
}

#[test]
fn prometheus_jobs_inherit_a_short_global_intervals_timeout() {
    let text = "global: {scrape_interval: 5s}\n\
                scrape_configs: [{job_name: x, scrape_interval: 30s, static_configs: [{targets: [h:1]}]}]\n";
    assert_eq!(
        prometheus::translate(text).fleet_text(),
        "prometheus\th:1\t30s\tJob=x\tURL=http://h:1/metrics\tTimeout=5s\n"
    );
}

#[test]
fn prometheus_global_settings_prometheus_refuses_skip_the_file() {
    let jobs = "scrape_configs: [{job_name: x, static_configs: [{targets: [h:1]}]}]\n";
    for (global, field) in [
        (
            "global: {scrape_interval: 5s, scrape_timeout: 6s}",
            "global.scrape_timeout",
        ),
        (
            "global: {scrape_native_histograms: [x]}",
            "global.scrape_native_histograms",
        ),
    ] {
        let translation = prometheus::translate(&format!("{global}\n{jobs}"));
        assert!(translation.lines.is_empty(), "{global}");
        assert_eq!(skipped(&translation), [(1, field)]);
    }
}

const CRON_JOBS: &str = "\
apiVersion: batch/v1
kind: CronJob
metadata:
  name: report
  namespace: billing
spec:
  schedule: \"0 */2 * * *\"
  timeZone: Europe/Berlin
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: cleanup
spec:
  schedule: '30 4 */2 ? *'
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: not-a-cronjob
---
apiVersion: v1
kind: List
items:
  - apiVersion: batch/v1
    kind: CronJob
    metadata: {name: paused, namespace: ops}
    spec: {schedule: '@hourly', suspend: true}
  - kind: CronJob
    metadata: {name: every, namespace: ops}
    spec: {schedule: '@every 5m'}
  - kind: CronJob
    metadata: {name: nightly, namespace: ops}
    spec: {schedule: '@midnight'}
";

#[test]
fn cron_jobs_give_one_line_each_as_robfig_reads_them() {
    let translation = kubernetes::translate(CRON_JOBS);
    assert_eq!(
        translation.fleet_text(),
        "cron\tbilling/report\t0 */2 * * *\tCRON_TZ=Europe/Berlin\n\
         cron\tdefault/cleanup\t30 4 1-31/2 * *\n\
         cron\tops/nightly\t@midnight\n"
    );
    assert_eq!(lines(&translation), [7, 15, 34]);
    assert_eq!(
        skipped(&translation),
        [(28, "spec.suspend"), (31, "spec.schedule")]
    );
    assert_eq!(import::detect(CRON_JOBS), FleetFormat::Kubernetes);
    let read = import::read(CRON_JOBS, FleetFormat::Kubernetes);
    assert_eq!(read.lines.len(), 3);
    assert_eq!(read.skipped.len(), 2);
}

const WORKFLOWS: &str = "\
# file: nightly.yml
name: Nightly build
on:
  schedule:
    - cron: '0 3 * * *'
    - cron: \"*/30 9-17 * * 1-5\"
  workflow_dispatch:
jobs:
  build:
    runs-on: ubuntu-latest
# file: stale.yml
on:
  schedule:
    - cron: 30 1 * * 0
    - cron: [1]
    - other: x
# file: push-only.yml
on: [push]
";

#[test]
fn workflows_give_one_line_per_cron_with_githubs_note() {
    let translation = github_actions::translate(WORKFLOWS);
    assert_eq!(
        translation.fleet_text(),
        "cron\tNightly build\t0 3 * * *\n\
         cron\tNightly build\t*/30 9-17 * * 1-5\n\
         cron\tstale.yml\t30 1 * * 0\n"
    );
    assert_eq!(lines(&translation), [5, 6, 14]);
    assert_eq!(
        skipped(&translation),
        [(15, "on.schedule.cron"), (16, "on.schedule.cron")]
    );
    assert_eq!(import::detect(WORKFLOWS), FleetFormat::GithubActions);
    let imported = import::import(WORKFLOWS, FleetFormat::Auto);
    assert_eq!(imported.file.lines.len(), 3);
    let noted: Vec<usize> = imported.notes.iter().map(|note| note.line).collect();
    assert_eq!(noted, [5, 6, 14]);
    assert!(
        imported
            .notes
            .iter()
            .all(|note| note.message == github_actions::DELAY_NOTE)
    );
}

const DESCRIBED: &str = r#"{
  "scheduleId": "daily-report",
  "namespaceId": "6f3a5b8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
  "schedule": {
    "spec": {
      "structuredCalendar": [
        {
          "second": [{}],
          "minute": [{"start": 30}],
          "hour": [{"start": 2}, {"start": 8, "end": 20, "step": 6}],
          "dayOfMonth": [{"start": 1, "end": 31}],
          "month": [{"start": 1, "end": 12}],
          "dayOfWeek": [{"start": 1, "end": 5}]
        },
        {"second": [{}], "minute": [{}], "hour": [], "dayOfMonth": [{"start": 1}], "month": [{"start": 1}], "dayOfWeek": [{"end": 6}]}
      ],
      "interval": [{"interval": "3600s", "phase": "300s"}, {"interval": "86400s"}],
      "cronString": ["@every 90m"],
      "calendar": [{"hour": "9", "dayOfWeek": "Mon-Fri"}],
      "jitter": "30s",
      "timezoneName": "UTC"
    },
    "state": {"paused": false}
  },
  "info": {"actionCount": "3"}
}"#;

#[test]
fn described_schedules_give_one_line_per_spec_entry() {
    let translation = temporal::translate(DESCRIBED);
    let tail = "Jitter=30s\tNamespace=6f3a5b8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
    assert_eq!(
        translation.fleet_text(),
        format!(
            "temporal\tdaily-report\tTZ=UTC 0 30 2,8-20/6 1-31 1-12 1-5 *\t{tail}\n\
             temporal\tdaily-report\tevery 3600s offset 300s\t{tail}\n\
             temporal\tdaily-report\tevery 86400s\t{tail}\n\
             temporal\tdaily-report\tTZ=UTC @every 90m\t{tail}\n\
             temporal\tdaily-report\tTZ=UTC 0 0 9 * * Mon-Fri *\t{tail}\n"
        )
    );
    assert_eq!(lines(&translation), [7, 17, 17, 18, 19]);
    assert_eq!(skipped(&translation), [(15, "structuredCalendar")]);
    assert_eq!(import::detect(DESCRIBED), FleetFormat::Temporal);
    let read = import::read(DESCRIBED, FleetFormat::Auto);
    assert_eq!(read.lines.len(), 5, "{:?}", read.skipped);
}

#[test]
fn schedules_come_as_arrays_or_one_object_a_line() {
    let list = r#"[
  {"scheduleId": "a", "info": {"spec": {"interval": [{"interval": "60s"}]}}},
  {"info": {"spec": {}}},
  {"scheduleId": "p", "schedule": {"spec": {"cronString": ["@daily"]}, "state": {"paused": true}}}
]"#;
    let translation = temporal::translate(list);
    assert_eq!(translation.fleet_text(), "temporal\ta\tevery 60s\n");
    assert_eq!(
        skipped(&translation),
        [(3, "scheduleId"), (4, "state.paused")]
    );
    let lines_of_json = "{\"scheduleId\": \"x\", \"spec\": {\"cronString\": [\"0 * * * *\"]}}\n\n\
                         {\"scheduleId\": \"y\", \"spec\": {\"interval\": [{\"interval\": \"2m\", \"phase\": \"0s\"}]}}\n\
                         {broken\n";
    let translation = temporal::translate(lines_of_json);
    assert_eq!(
        translation.fleet_text(),
        "temporal\tx\t0 * * * *\ntemporal\ty\tevery 2m\n"
    );
    assert_eq!(lines(&translation), [1, 3]);
    assert_eq!(skipped(&translation), [(4, "json")]);
}

#[test]
fn every_format_has_a_slug_and_auto_tells_them_apart() {
    let slugs: Vec<&str> = FleetFormat::OPTIONS
        .iter()
        .map(|option| option.slug)
        .collect();
    assert_eq!(
        slugs,
        [
            "auto",
            "fleet",
            "crontab",
            "jenkins",
            "jenkins-xml",
            "quartz-xml",
            "spring",
            "apscheduler",
            "systemd",
            "prometheus",
            "k8s",
            "gha",
            "temporal",
            "eventbridge",
            "anacrontab",
            "sidekiq"
        ]
    );
    assert_eq!(import::detect("0 * * * * /bin/x\n"), FleetFormat::Crontab);
    assert_eq!(import::detect(QUARTZ_JOBS), FleetFormat::QuartzXml);
    assert_eq!(import::detect("<project/>\n"), FleetFormat::JenkinsXml);
    assert_eq!(import::detect("cron\tx\t* * * * *\n"), FleetFormat::Fleet);
}

/// A Quartz job file: a cron trigger in UTC, one in the JVM's zone, one
/// in Paris, one with an entity in its expression, and a simple trigger.
const QUARTZ_JOBS: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<job-scheduling-data xmlns="http://www.quartz-scheduler.org/xml/JobSchedulingData" version="2.0">
  <schedule>
    <trigger>
      <cron>
        <name>nightly</name>
        <group>reports</group>
        <cron-expression>0 0 2 ? * MON-FRI</cron-expression>
        <time-zone>UTC</time-zone>
      </cron>
    </trigger>
    <trigger>
      <cron>
        <name>hourly</name>
        <cron-expression> 0 0 * ? * * </cron-expression>
      </cron>
    </trigger>
    <trigger>
      <cron>
        <name>paris</name>
        <cron-expression>0 0 9 ? * *</cron-expression>
        <time-zone>Europe/Paris</time-zone>
      </cron>
    </trigger>
    <trigger>
      <cron>
        <name>entity</name>
        <cron-expression>0 0 3 &#63; * *</cron-expression>
        <time-zone>GMT</time-zone>
      </cron>
    </trigger>
    <trigger>
      <simple>
        <name>every-minute</name>
        <repeat-interval>60000</repeat-interval>
      </simple>
    </trigger>
  </schedule>
</job-scheduling-data>
"#;

#[test]
fn a_quartz_job_file_reads_its_cron_triggers_and_names_the_rest() {
    let translation = quartz_xml::translate(QUARTZ_JOBS);
    assert_eq!(
        translation.fleet_text(),
        "quartz\treports.nightly\t0 0 2 ? * MON-FRI\nquartz\tDEFAULT.hourly\t0 0 * ? * *\n\
         quartz\tDEFAULT.paris\t0 0 9 ? * *\tZone=Europe/Paris\n\
         quartz\tDEFAULT.entity\t0 0 3 ? * *\n"
    );
    assert_eq!(lines(&translation), [8, 15, 21, 28]);
    assert_eq!(skipped(&translation), [(33, "trigger")]);
    let notes: Vec<usize> = translation.notes.iter().map(|note| note.line).collect();
    assert_eq!(notes, [15]);
    // The fix writes in place only where the expression is plain text.
    let sources: Vec<bool> = translation
        .lines
        .iter()
        .map(|line| line.source.is_some())
        .collect();
    assert_eq!(sources, [true, true, true, false]);
    let other = quartz_xml::translate("<job-scheduling-data><schedule></schedule>");
    assert_eq!(skipped(&other), [(1, "xml")]);
}

/// The text of the paste a skipped line names, for a check that it is in
/// the text.
fn within(text: &str, skipped: &SkippedLine) -> bool {
    (1..=text.lines().count().max(1)).contains(&skipped.line)
}

/// Near-valid native text: fragments of every format, shuffled into lines.
fn near_valid() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("// job: a/b".to_string()),
        Just("cron('''H 2 * * *".to_string()),
        Just("triggers { cron \"H/5 * * * *\" }".to_string()),
        Just("'''".to_string()),
        Just("[Timer]".to_string()),
        Just("OnCalendar=daily".to_string()),
        Just("# file: x.timer".to_string()),
        Just("# machines: 0123456789abcdef0123456789abcdef".to_string()),
        Just("kind: CronJob".to_string()),
        Just("spec:".to_string()),
        Just("  schedule: '* * * * *'".to_string()),
        Just("---".to_string()),
        Just("scrape_configs:".to_string()),
        Just("- job_name: j".to_string()),
        Just("  static_configs: [{targets: [a, *x]}]".to_string()),
        Just("on:".to_string()),
        Just("  schedule: [{cron: &x '1 * * * *'}]".to_string()),
        Just(
            "{\"scheduleId\": \"s\", \"spec\": {\"interval\": [{\"interval\": \"1m\"}]}}"
                .to_string()
        ),
        Just("[{".to_string()),
        Just("@Scheduled(cron = \"0 0 * * * *\", zone = \"UTC\") void a() {}".to_string()),
        Just("@Scheduled(fixedRate = 1) @Scheduled(cron = \"${x:".to_string()),
        "[ -~]{0,12}".prop_map(|text| text),
    ];
    proptest::collection::vec(fragment, 0..12).prop_map(|lines| lines.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn no_text_panics_and_every_skipped_line_is_in_it(
        text in prop_oneof![any::<String>(), near_valid()],
    ) {
        for format in FleetFormat::ALL {
            let imported = import::import(&text, *format);
            for skipped in &imported.file.skipped {
                prop_assert!(within(&text, skipped), "{format:?} {skipped:?}");
                prop_assert!(!skipped.field.is_empty() && !skipped.reason.is_empty());
            }
            for line in &imported.file.lines {
                prop_assert!((1..=text.lines().count()).contains(&line.line));
            }
        }
    }
}

#[test]
fn hostile_yaml_and_json_stop_with_a_line() {
    let deep = format!("a: {}1{}\n", "[".repeat(50_000), "]".repeat(50_000));
    let mut laughs = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..12 {
        let items = vec![format!("*a{}", level - 1); 10].join(", ");
        laughs.push_str(&format!("a{level}: &a{level} [{items}]\n"));
    }
    let nested_blocks: String = (0..200)
        .map(|depth| format!("{}k:\n", "  ".repeat(depth)))
        .collect();
    for text in [
        deep,
        laughs,
        nested_blocks,
        "[".repeat(200_000),
        "{\"a\":".repeat(100_000),
    ] {
        for format in [
            FleetFormat::Prometheus,
            FleetFormat::Kubernetes,
            FleetFormat::GithubActions,
            FleetFormat::Temporal,
        ] {
            let imported = import::import(&text, format);
            assert!(imported.file.lines.is_empty());
            assert!(
                imported
                    .file
                    .skipped
                    .iter()
                    .all(|skipped| within(&text, skipped)),
                "{format:?}"
            );
        }
    }
}

#[test]
fn a_huge_paste_is_capped() {
    let text = format!(
        "# machines: {}\n[Timer]\n{}",
        vec!["0123456789abcdef0123456789abcdef"; 1000].join(" "),
        "OnCalendar=daily\n".repeat(200)
    );
    let translation = systemd::translate(&text);
    assert_eq!(translation.lines.len(), import::MOST_IMPORTED_LINES);
    assert_eq!(translation.skipped.len(), 1);
    assert_eq!(translation.skipped[0].field, "lines");
}

/// CronJob YAML in every scalar style, and what PyYAML read from it
/// (`make_import_cronjobs.py`): line, id, schedule and zone of each.
const CRONJOB_YAML: &str = include_str!("../data/import_cronjobs.yaml");
const CRONJOB_ROWS: &str = include_str!("../data/import_cronjobs.tsv");

#[test]
fn cron_jobs_read_as_pyyaml_reads_them() {
    let translation = kubernetes::translate(CRONJOB_YAML);
    assert!(translation.skipped.is_empty(), "{:?}", translation.skipped);
    let rows: Vec<&str> = CRONJOB_ROWS
        .lines()
        .filter(|row| !row.starts_with('#'))
        .collect();
    assert!(rows.len() >= 100);
    assert_eq!(translation.lines.len(), rows.len());
    for (row, got) in rows.iter().zip(&translation.lines) {
        let columns: Vec<&str> = row.split('\t').collect();
        let [line, id, schedule, zone] = columns[..] else {
            panic!("bad row {row:?}");
        };
        let mut want = format!("cron\t{id}\t{schedule}");
        if zone != "-" {
            want.push_str(&format!("\tCRON_TZ={zone}"));
        }
        assert_eq!(got.line.to_string(), line, "{row:?}");
        assert_eq!(got.fleet, want, "{row:?}");
    }
    let read = translation.read();
    assert_eq!(read.file.lines.len(), rows.len(), "{:?}", read.file.skipped);
}

/// Targets and the URL Go's net/url writes for each
/// (`make_import_prometheus.sh`).
const PROMETHEUS_URLS: &str = include_str!("../data/import_prometheus.tsv");

#[test]
fn scrape_urls_are_written_as_go_writes_them() {
    let rows: Vec<&str> = PROMETHEUS_URLS
        .lines()
        .filter(|row| !row.starts_with('#'))
        .collect();
    assert!(rows.len() >= 100);
    for row in rows {
        let columns: Vec<&str> = row.split('\t').collect();
        let [scheme, address, path, params, url] = columns[..] else {
            panic!("bad row {row:?}");
        };
        // The JSON columns paste into YAML as they are.
        let config = format!(
            "scrape_configs:\n- job_name: j\n  scheme: {scheme}\n  metrics_path: {path}\n  \
             params: {params}\n  static_configs:\n  - targets: [{address}]\n"
        );
        let translation = prometheus::translate(&config);
        assert_eq!(
            translation.lines.len(),
            1,
            "{row:?} {:?}",
            translation.skipped
        );
        let fleet = &translation.lines[0].fleet;
        let written = fleet
            .split('\t')
            .find_map(|field| field.strip_prefix("URL="))
            .unwrap();
        assert_eq!(written, url, "{row:?}");
    }
}

/// Calendars as a Temporal server describes them, with their first times
/// by Temporal's own calendar.go (`make_import_temporal.py`).
const TEMPORAL_CALENDARS: &str = include_str!("../data/import_temporal.tsv");

/// The starts, in Unix seconds, of the one line `json` translates to, up
/// to `last`.
fn temporal_times(json: &str, last: i64) -> Vec<i64> {
    let read = temporal::translate(json).read();
    assert_eq!(read.file.lines.len(), 1, "{json} {:?}", read.file.skipped);
    let plan = LinePlan::read(&read.file.lines[0], 0).unwrap();
    let mut starts = Vec::new();
    let window = Window {
        from: 1_708_905_600 * MICROS_PER_SECOND,
        end: (last + 1) * MICROS_PER_SECOND,
    };
    plan.push_starts(window, &mut starts, usize::MAX);
    starts.iter().map(|at| at / MICROS_PER_SECOND).collect()
}

#[test]
fn described_calendars_place_the_times_temporal_places() {
    let rows: Vec<&str> = TEMPORAL_CALENDARS
        .lines()
        .filter(|row| !row.starts_with('#'))
        .collect();
    assert!(rows.len() >= 100);
    for row in rows {
        let columns: Vec<&str> = row.split('\t').collect();
        let [kind, input, structured, times] = columns[..] else {
            panic!("bad row {row:?}");
        };
        let want: Vec<i64> = times.split(',').map(|at| at.parse().unwrap()).collect();
        let last = *want.last().unwrap();
        let described = format!(
            "{{\"scheduleId\": \"s\", \"schedule\": {{\"spec\": {{\"structuredCalendar\": [{structured}]}}}}}}"
        );
        assert_eq!(temporal_times(&described, last), want, "{row}");
        if kind == "calendar" {
            let given = format!("{{\"scheduleId\": \"s\", \"spec\": {{\"calendar\": [{input}]}}}}");
            assert_eq!(temporal_times(&given, last), want, "{row}");
        }
    }
}
