//! Sample fleets, one click each on the page.
//!
//! Each is written by code, in the format its system keeps schedules in,
//! with the names and times people pick, so each shows one lesson: a
//! crontab where everything starts at minute 0, Jenkins' `H` beside plain
//! midnights, one systemd timer on 50 machines with and without a fixed
//! delay, Prometheus' own spread, a cluster's CronJobs, GitHub Actions
//! workflows, a Java service's Quartz triggers, a Spring application's
//! `@Scheduled` tasks, a Python service's APScheduler jobs, a Rails
//! application's sidekiq-cron schedule, a CloudFormation template's EventBridge schedules, and the anacrontab of
//! 200 RHEL hosts and of 200 Debian ones. Every one reads with no line
//! skipped, which a test checks.

use std::fmt::Write;

use crate::choice_enum;
use crate::hash::farm_fingerprint32;

choice_enum! {
    /// A sample fleet, or the reader's own text.
    pub enum Sample {
        Own = ("own", "Your own"),
        MinuteZero = ("cron-minute-0", "crontab: 40 jobs at minute 0"),
        JenkinsH = ("jenkins-h", "Jenkins: 200 on H H, 30 at midnight"),
        SystemdTimer = ("systemd-50", "50 machines, one systemd timer"),
        Prometheus = ("prometheus-500", "Prometheus: 500 targets"),
        Kubernetes = ("k8s", "Kubernetes: 15 CronJobs"),
        GithubActions = ("gha", "GitHub Actions: 24 workflows"),
        QuartzJobs = ("quartz", "Quartz: 26 triggers"),
        SpringJobs = ("spring", "Spring: 24 tasks"),
        ApschedulerJobs = ("apscheduler", "APScheduler: 22 jobs"),
        SidekiqJobs = ("sidekiq", "sidekiq-cron: 20 jobs"),
        EventBridge = ("eventbridge", "EventBridge: 20 schedules"),
        AnacronRhel = ("anacron-rhel", "anacron: 200 RHEL hosts"),
        AnacronDebian = ("anacron-debian", "anacron: 200 Debian hosts"),
    }
}

impl Sample {
    /// The sample's text; empty for [`Sample::Own`].
    pub fn text(self) -> String {
        match self {
            Sample::Own => String::new(),
            Sample::MinuteZero => minute_zero(),
            Sample::JenkinsH => jenkins_h(),
            Sample::SystemdTimer => systemd_timer(),
            Sample::Prometheus => prometheus(),
            Sample::Kubernetes => kubernetes(),
            Sample::GithubActions => github_actions(),
            Sample::QuartzJobs => quartz_jobs(),
            Sample::SpringJobs => spring_jobs(),
            Sample::ApschedulerJobs => apscheduler_jobs(),
            Sample::SidekiqJobs => sidekiq_jobs(),
            Sample::EventBridge => eventbridge(),
            Sample::AnacronRhel => anacron_rhel(),
            Sample::AnacronDebian => anacron_debian(),
        }
    }
}

/// `names[i % len]`, so loops cycle through a list of names.
fn pick<'a>(names: &[&'a str], i: usize) -> &'a str {
    names[i % names.len()]
}

// `writeln!` into a `String` cannot fail; the results are dropped below.

/// A user crontab of 40 jobs, every one at minute 0: hourly, daily at the
/// hours people choose, midnight, and weekly on Monday.
fn minute_zero() -> String {
    const TASKS: [&str; 10] = [
        "backup-db --all",
        "rotate-logs",
        "sync-inventory",
        "send-digest",
        "refresh-cache",
        "export-metrics",
        "prune-tmp",
        "reindex-search",
        "renew-certs --quiet",
        "report-usage",
    ];
    let mut text = String::from("# m h dom mon dow command\nMAILTO=ops@example.com\n");
    for i in 0..40 {
        let spec = match i {
            0..12 => "0 * * * *".to_string(),
            12..28 => format!("0 {} * * *", 1 + (i - 12) % 8),
            28..34 => "0 0 * * *".to_string(),
            34..37 => "@daily".to_string(),
            _ => "0 0 * * 1".to_string(),
        };
        let _ = writeln!(
            text,
            "{spec} /opt/jobs/{} --shard {}",
            pick(&TASKS, i),
            i / TASKS.len() + 1
        );
    }
    text
}

/// A Jenkins instance as a fleet file: 200 jobs on `H H * * *` in team
/// folders, and 30 on `0 0 * * *`, each with how long it runs.
fn jenkins_h() -> String {
    const TEAMS: [&str; 8] = [
        "payments", "search", "web", "mobile", "data", "infra", "billing", "identity",
    ];
    const JOBS: [&str; 5] = [
        "nightly-build",
        "integration-tests",
        "dependency-audit",
        "docs-publish",
        "perf-baseline",
    ];
    let mut text = String::from("# Jenkins: job full name, cron trigger, typical run\n");
    for i in 0..230 {
        let spec = if i < 200 { "H H * * *" } else { "0 0 * * *" };
        let team = pick(&TEAMS, i);
        let job = pick(&JOBS, i / TEAMS.len());
        let _ = writeln!(
            text,
            "jenkins\t{team}/{job}-{}\t{spec}\tDuration={}m",
            i / (TEAMS.len() * JOBS.len()) + 1,
            5 + (i * 7) % 40
        );
    }
    text
}

/// The 32 hex digits of machine `i`'s `/etc/machine-id`: four FarmHash
/// fingerprints of its name, so they look random and never change.
fn machine_id(i: usize) -> String {
    (0..4)
        .map(|part| {
            format!(
                "{:08x}",
                farm_fingerprint32(format!("host-{i}/{part}").as_bytes())
            )
        })
        .collect()
}

/// One `backup.timer` (`OnCalendar=daily`, up to an hour's random delay)
/// on 50 machines: the first 25 with `FixedRandomDelay=yes`, the rest
/// without, each with its own machine id.
fn systemd_timer() -> String {
    let mut text = String::from("# backup.timer on 50 machines\n");
    for i in 0..50 {
        let fixed = if i < 25 { "\tFixedRandomDelay=yes" } else { "" };
        let _ = writeln!(
            text,
            "systemd\tbackup.timer\tdaily\tRandomizedDelaySec=1h{fixed}\tMachineID={}\tDuration=20m",
            machine_id(i)
        );
    }
    text
}

/// A `prometheus.yml` with 500 static targets in three jobs, scraped every
/// minute, 2 and 5 minutes: 1,915,200 scrapes a week, under the
/// expansion's cap of the fleet crate's `MOST_STARTS` (500 targets every
/// minute would be 5,040,000).
fn prometheus() -> String {
    let mut text = String::from(
        "# server: prom-1.example.com\nglobal:\n  scrape_interval: 1m\nscrape_configs:\n",
    );
    let jobs = [
        ("node", None, 60, 9100),
        ("postgres", Some("2m"), 140, 9187),
        ("blackbox", Some("5m"), 300, 9115),
    ];
    for (job, interval, targets, port) in jobs {
        let _ = writeln!(text, "  - job_name: {job}");
        if let Some(interval) = interval {
            let _ = writeln!(text, "    scrape_interval: {interval}");
        }
        let _ = writeln!(text, "    static_configs:\n      - targets:");
        for target in 0..targets {
            let _ = writeln!(text, "          - {job}-{target:03}.dc1.example.com:{port}");
        }
    }
    text
}

/// A cluster's CronJobs: schedules as people write them, several on the
/// same minute, one in its own time zone.
fn kubernetes() -> String {
    const JOBS: [(&str, &str, &str, Option<&str>); 15] = [
        ("billing", "invoice-run", "0 0 * * *", None),
        ("billing", "dunning-emails", "0 * * * *", None),
        ("billing", "ledger-export", "@daily", None),
        ("search", "reindex", "0 0 * * *", None),
        ("search", "warm-cache", "*/15 * * * *", None),
        ("search", "synonyms-sync", "0 * * * *", None),
        ("platform", "etcd-backup", "0 * * * *", None),
        ("platform", "cert-check", "0 0 * * *", None),
        ("platform", "image-gc", "0 3 * * *", None),
        ("data", "nightly-etl", "0 0 * * *", None),
        ("data", "hourly-rollup", "0 * * * *", None),
        ("data", "stream-compact", "*/15 * * * *", None),
        ("web", "sitemap", "@daily", None),
        ("web", "session-purge", "*/15 * * * *", None),
        ("eu", "gdpr-erasure", "0 2 * * *", Some("Europe/Berlin")),
    ];
    let mut text = String::new();
    for (i, (namespace, name, schedule, zone)) in JOBS.iter().enumerate() {
        if i > 0 {
            text.push_str("---\n");
        }
        let zone = zone.map_or(String::new(), |zone| format!("  timeZone: {zone}\n"));
        let _ = write!(
            text,
            "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: {name}\n  namespace: {namespace}\n\
             spec:\n  schedule: \"{schedule}\"\n{zone}  concurrencyPolicy: Forbid\n  jobTemplate:\n    spec:\n\
             \x20     template:\n        spec:\n          restartPolicy: OnFailure\n          containers:\n\
             \x20           - name: {name}\n              image: registry.example.com/{namespace}/{name}:1.4\n"
        );
    }
    text
}

/// Scheduled workflows across an organisation's repositories, most at
/// midnight or on the hour, as the examples people copy write them.
fn github_actions() -> String {
    const REPOS: [&str; 8] = [
        "api",
        "web",
        "mobile",
        "infra",
        "docs",
        "sdk-python",
        "sdk-go",
        "data",
    ];
    const WORKFLOWS: [(&str, &str); 3] = [
        ("nightly", "0 0 * * *"),
        ("stale-issues", "0 * * * *"),
        ("codeql", "30 1 * * 1"),
    ];
    let mut text = String::new();
    for repo in REPOS {
        for (i, (workflow, cron)) in WORKFLOWS.iter().enumerate() {
            // Not every repository runs every workflow.
            if (repo.len() + i) % 4 == 3 {
                continue;
            }
            let _ = write!(
                text,
                "# file: acme/{repo}/.github/workflows/{workflow}.yml\nname: acme/{repo} {workflow}\n\
                 on:\n  schedule:\n    - cron: '{cron}'\n  workflow_dispatch:\njobs:\n  run:\n\
                 \x20   runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n\
                 \x20     - run: make {workflow}\n"
            );
        }
    }
    text
}

/// A Java service's Quartz job file: 26 cron triggers as teams write
/// them, nightly reports at 02:00:00 on weekdays, hourly syncs on the
/// hour, pollers every 15 minutes and a month-end close on the last
/// weekday, each in UTC.
fn quartz_jobs() -> String {
    const TRIGGERS: [(&str, &str, usize); 4] = [
        ("reports", "0 0 2 ? * MON-FRI", 12),
        ("sync", "0 0 * ? * *", 8),
        ("poll", "0 0/15 * ? * *", 4),
        ("finance", "0 30 23 LW * ?", 2),
    ];
    const NAMES: [&str; 6] = [
        "orders",
        "invoices",
        "customers",
        "stock",
        "payouts",
        "audit",
    ];
    let mut text = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <job-scheduling-data xmlns=\"http://www.quartz-scheduler.org/xml/JobSchedulingData\" version=\"2.0\">\n\
         \x20 <schedule>\n",
    );
    for (group, cron, count) in TRIGGERS {
        for i in 0..count {
            let name = format!("{}-{}", pick(&NAMES, i), i / NAMES.len() + 1);
            let _ = write!(
                text,
                "    <job>\n      <name>{name}</name>\n      <group>{group}</group>\n      \
                 <job-class>com.example.{group}.{}Job</job-class>\n    </job>\n    <trigger>\n      \
                 <cron>\n        <name>{name}-trigger</name>\n        <group>{group}</group>\n        \
                 <job-name>{name}</job-name>\n        <job-group>{group}</job-group>\n        \
                 <cron-expression>{cron}</cron-expression>\n        \
                 <time-zone>UTC</time-zone>\n      </cron>\n    </trigger>\n",
                capitalized(pick(&NAMES, i))
            );
        }
    }
    text.push_str("  </schedule>\n</job-scheduling-data>\n");
    text
}

/// A Spring application's scheduled tasks, one Java component: 24
/// `@Scheduled` methods as teams write them, hourly on the hour, nightly
/// at 01:00:00, every 10 minutes and at 06:00 on weekdays, each in UTC.
fn spring_jobs() -> String {
    const TASKS: [(&str, &str, usize); 4] = [
        ("refresh", "0 0 * * * *", 10),
        ("export", "0 0 1 * * *", 8),
        ("poll", "0 */10 * * * *", 4),
        ("remind", "0 0 6 * * MON-FRI", 2),
    ];
    const NAMES: [&str; 6] = [
        "Orders",
        "Invoices",
        "Customers",
        "Stock",
        "Payouts",
        "Audit",
    ];
    let mut text = String::from(
        "package com.example.jobs;\n\n\
         import org.springframework.scheduling.annotation.Scheduled;\n\
         import org.springframework.stereotype.Component;\n\n\
         @Component\npublic class ScheduledTasks {\n",
    );
    for (verb, cron, count) in TASKS {
        for i in 0..count {
            let name = format!("{verb}{}{}", pick(&NAMES, i), i / NAMES.len() + 1);
            let _ = write!(
                text,
                "\n    @Scheduled(cron = \"{cron}\", zone = \"UTC\")\n    \
                 public void {name}() {{\n        jobs.run(\"{name}\");\n    }}\n"
            );
        }
    }
    text.push_str("}\n");
    text
}

/// A CloudFormation template's EventBridge Scheduler schedules: 20, most
/// with the window `OFF` as the console suggests, nightly at 02:00,
/// hourly on the hour, every 15 minutes from a start date, and weekday
/// mornings in Paris; two nightly ones already have a 30-minute window.
fn eventbridge() -> String {
    const SCHEDULES: [(&str, &str, usize); 4] = [
        ("Nightly", "cron(0 2 * * ? *)", 8),
        ("Hourly", "cron(0 * * * ? *)", 6),
        ("Sync", "rate(15 minutes)", 4),
        ("Morning", "cron(0 9 ? * MON-FRI *)", 2),
    ];
    const NAMES: [&str; 5] = ["Reports", "Billing", "Cleanup", "Search", "Ledger"];
    let mut text = String::from(
        "AWSTemplateFormatVersion: \"2010-09-09\"\nDescription: Scheduled jobs\nResources:\n",
    );
    for (kind, expression, count) in SCHEDULES {
        for i in 0..count {
            let name = format!("{kind}{}{}", pick(&NAMES, i), i / NAMES.len() + 1);
            let window = if kind == "Nightly" && i < 2 {
                "\n        Mode: FLEXIBLE\n        MaximumWindowInMinutes: 30"
            } else {
                "\n        Mode: \"OFF\""
            };
            let _ = write!(
                text,
                "  {name}:\n    Type: AWS::Scheduler::Schedule\n    Properties:\n      \
                 Name: {name}\n      ScheduleExpression: \"{expression}\"\n      \
                 FlexibleTimeWindow:{window}\n"
            );
            if kind == "Sync" {
                text.push_str("      StartDate: \"2024-01-01T00:00:00Z\"\n");
            }
            if kind == "Morning" {
                text.push_str("      ScheduleExpressionTimezone: Europe/Paris\n");
            }
            text.push_str(
                "      Target:\n        Arn: !GetAtt Worker.Arn\n        RoleArn: !GetAtt SchedulerRole.Arn\n",
            );
        }
    }
    text
}

/// cronie's own `/etc/anacrontab` (RHEL and Fedora ship it as is), on 200
/// hosts: every host runs `cron.daily` between 03:06 and 03:51.
fn anacron_rhel() -> String {
    "# hosts: 200\n\
     # /etc/anacrontab: configuration file for anacron\n\
     SHELL=/bin/sh\n\
     PATH=/sbin:/bin:/usr/sbin:/usr/bin\n\
     MAILTO=root\n\
     # the maximal random delay added to the base delay of the jobs\n\
     RANDOM_DELAY=45\n\
     # the jobs will be started during the following hours only\n\
     START_HOURS_RANGE=3-22\n\n\
     #period in days   delay in minutes   job-identifier   command\n\
     1\t5\tcron.daily\t\tnice run-parts /etc/cron.daily\n\
     7\t25\tcron.weekly\t\tnice run-parts /etc/cron.weekly\n\
     @monthly 45\tcron.monthly\t\tnice run-parts /etc/cron.monthly\n"
        .to_string()
}

/// Debian's `/etc/anacrontab` on 200 hosts, run by its `anacron.timer`
/// (`OnCalendar=*-*-* 07..23:30`, `RandomizedDelaySec=5m`).
fn anacron_debian() -> String {
    "# hosts: 200\n\
     # runs: 7-23:30\n\
     # run-delay: 300\n\
     # /etc/anacrontab: configuration file for anacron\n\
     # /etc/crontab's 06:25 line runs cron.daily only where anacron is not installed.\n\
     SHELL=/bin/sh\n\
     HOME=/root\n\
     LOGNAME=root\n\n\
     # These replace cron's entries\n\
     1\t5\tcron.daily\trun-parts --report /etc/cron.daily\n\
     7\t10\tcron.weekly\trun-parts --report /etc/cron.weekly\n\
     @monthly\t15\tcron.monthly\trun-parts --report /etc/cron.monthly\n"
        .to_string()
}

/// A Python service's APScheduler jobs, one module: 22 jobs as teams add
/// them, nightly at 03:00 with `add_job`, hourly on the hour with the
/// decorator, every 15 minutes with a 30 s jitter from the scheduler's
/// start, and at 06:00 "on weekdays" through `from_crontab`, whose `1-5`
/// APScheduler 3 reads from Monday 0: Tuesday to Saturday.
fn apscheduler_jobs() -> String {
    const NAMES: [&str; 5] = ["orders", "invoices", "customers", "stock", "payouts"];
    let mut text = String::from(
        "from apscheduler.schedulers.blocking import BlockingScheduler\n\
         from apscheduler.triggers.cron import CronTrigger\n\n\
         from jobs import tasks\n\n\
         sched = BlockingScheduler(timezone='UTC')\n\n",
    );
    for i in 0..10 {
        let name = format!("export_{}_{}", pick(&NAMES, i), i / NAMES.len() + 1);
        let _ = writeln!(
            text,
            "sched.add_job(tasks.{name}, 'cron', hour=3, minute=0, id='{name}', timezone='UTC')"
        );
    }
    for i in 0..8 {
        let name = format!("refresh_{}_{}", pick(&NAMES, i), i / NAMES.len() + 1);
        let _ = write!(
            text,
            "\n@sched.scheduled_job('cron', minute=0, timezone='UTC')\n\
             def {name}():\n    tasks.run('{name}')\n"
        );
    }
    text.push('\n');
    for i in 0..2 {
        let name = format!("poll_{}", pick(&NAMES, i));
        let _ = writeln!(
            text,
            "sched.add_job(tasks.{name}, 'interval', minutes=15, jitter=30, id='{name}')"
        );
    }
    for i in 0..2 {
        let name = format!("remind_{}", pick(&NAMES, i));
        let _ = writeln!(
            text,
            "sched.add_job(tasks.{name}, CronTrigger.from_crontab('0 6 * * 1-5', \
             timezone='UTC'), id='{name}')"
        );
    }
    text.push_str("\nsched.start()\n");
    text
}

/// A Rails application's `config/schedule.yml` of 20 sidekiq-cron jobs:
/// hourly and nightly ones at minute 0, a few every 5 minutes, and one
/// every 30 seconds, all enqueued by one Sidekiq process's poller.
fn sidekiq_jobs() -> String {
    const NAMES: [&str; 5] = ["orders", "invoices", "customers", "stock", "payouts"];
    let mut text =
        String::from("# config/schedule.yml, loaded by Sidekiq::Cron::Job.load_from_hash\n");
    let mut job = |name: String, cron: &str, class: String, queue: &str| {
        let _ = write!(
            text,
            "\n{name}:\n  cron: \"{cron}\"\n  class: \"{class}\"\n  queue: {queue}\n"
        );
    };
    for i in 0..10 {
        let noun = pick(&NAMES, i);
        let class = format!("Sync{}Job", capitalized(noun));
        job(
            format!("sync_{noun}_{}", i / NAMES.len() + 1),
            "0 * * * *",
            class,
            "default",
        );
    }
    for i in 0..6 {
        let noun = pick(&NAMES, i);
        let class = format!("Nightly{}ReportJob", capitalized(noun));
        job(
            format!("nightly_{noun}_report_{}", i / NAMES.len() + 1),
            "0 3 * * *",
            class,
            "low",
        );
    }
    for i in 0..3 {
        let noun = pick(&NAMES, i);
        let class = format!("Refresh{}CacheJob", capitalized(noun));
        job(
            format!("refresh_{noun}_cache"),
            "*/5 * * * *",
            class,
            "default",
        );
    }
    job(
        "heartbeat".into(),
        "*/30 * * * * *",
        "HeartbeatJob".into(),
        "critical",
    );
    text
}

/// `word` with its first letter upper case, as a Java class name starts.
fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}
