//! The named cases: what readers reported, and each limit at its extreme.

use std::fmt::Write as _;

use stampede_fleet::link;

use crate::cases::Case;
use crate::generate::nines;

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
/// Every named case.
pub fn named() -> Vec<Case> {
    let mut cases = slow();
    cases.extend(large());
    cases.extend(lossy());
    cases
}

/// Quartz specs at the edges of its parser and its search, a line each:
/// `L-29W` and `L-30W` are searches Quartz 2.3.2 never returns from.
const QUARTZ_EDGES: &str = "0 0 * * * ?\n*/0 * * * * ?\n0 0 0 30 2 ?\n0 0 0 ? 2 2#5\n\
    0 0 0 L-30W * ?\n0 0 0 L-29W * ?\n0 0 0 ? * 0#1\nL 0 0 * * ?\n0 0 0 31W 2 ? 2126\n\
    0 0 0 ? * 7L 1970-2999\n0 0 0 1-4294967296 * ?\n? ? ? ? ? ?\n# # # # # #\n";

/// Spring specs at the edges of its parser and its search, a line each:
/// Spring 7 gives up on `30W` in February, and gives back a time already
/// past for `L-30`.
const SPRING_EDGES: &str = "0 0 * * * *\n*/0 * * * * *\n0 0 0 30W 2 *\n0 0 0 ? * MON#6\n\
    0 0 0 L-30 * *\n0 0 0 L-2147483648 * *\n0 0 0 ? * 1#2147483647\n@HOURLY\n\
    0 0 0 31W 2,4,6,9,11 *\n0 0 0 1-4294967296 * *\n? ? ? ? ? ?\n# # # # # #\n";
/// APScheduler specs that search to the year 9999 and back (`day=30` in
/// February, a fifth Monday in week 53), step by the second, refuse, or
/// hold numbers past any field.
const APSCHEDULER_EDGES: &str = "cron hour=3 minute=0\ncron month=2 day=30\n\
    cron day='5th mon' week=53\ncron second=*/1\ncron minute=*/0\ninterval seconds=0\n\
    interval weeks=99999\ncrontab 0 0 * * 7\ncron day='last sun' hour=2 minute=30\n\
    cron year=9999 month=12 day=31 hour=23 minute=59 second=59\n\
    cron hour=99999999999999999999999\ncron day_of_week=mon-fri/2 week=*/53\n";

const EVENTBRIDGE_EDGES: &str = "cron(* * * * ? *)\tWindow=1440\nrate(1 minute)\tWindow=1440\n\
    rate(1000000 days)\nrate(99999999999999999999 minutes)\ncron(0 0 ? * 1#6 *)\n\
    cron(0 0 L-30 * ? 2199)\ncron( )\nrate()\ncron(0 3 * * ? *)\tWindow=abc\n\
    cron(30 2 * * ? *)\tZone=America/New_York\tWindow=30\n\
    rate(5 minutes)\tStart=9999-12-31T23:59:59Z\ncron(0 0 ? * * *) trailing\n";

const ANACRON_EDGES: &str = "1 5\tRandomDelay=100000\tHours=0-24\n0 0\n@yearly 0\n\
    1 2147483647\n4294967295 5\n@monthly 45\tLast=9999-12-31\n\
    1 5\tRuns=0-23:59\tRunDelay=86400\n@annualy 5\n1 5\tPreferredHour=24\n\
    1 5\tHours=5-5\n@monthly 0\tLast=0001-01-01\n";

/// A CloudFormation template of `count` schedules, every one at 02:00.
fn eventbridge_template(count: usize) -> String {
    let mut text = String::from("Resources:\n");
    for i in 0..count {
        text.push_str(&format!(
            "  Job{i}:\n    Type: AWS::Scheduler::Schedule\n    Properties:\n      \
             ScheduleExpression: cron(0 2 * * ? *)\n      FlexibleTimeWindow:\n        Mode: \"OFF\"\n"
        ));
    }
    text
}

/// `count` lines of `system`, cycling through the specs `edges`.
fn edge_lines(system: &str, edges: &str, count: usize) -> String {
    edges
        .lines()
        .cycle()
        .take(count)
        .enumerate()
        .map(|(i, spec)| format!("{system}\tjob {i}\t{spec}\n"))
        .collect()
}

/// A sidekiq-cron `config/schedule.yml` of `count` jobs, most hourly at
/// minute 0, one in ten with seconds: every one shares its process's
/// polls and every cron scalar is written back.
fn sidekiq_schedule(count: usize) -> String {
    let mut text = String::from("# poll: 15\n");
    for i in 0..count {
        let cron = if i % 10 == 0 {
            "*/30 0 * * * *"
        } else {
            "0 * * * *"
        };
        let _ = write!(
            text,
            "job_{i}:\n  cron: \"{cron}\"\n  class: Job{i}\n  queue: default\n"
        );
    }
    text
}

/// Inputs that once took time quadratic in their size, or without end.
fn slow() -> Vec<Case> {
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
            "quartz-edges-4k-lines-fixed",
            &from_2026(&["--format", "fleet", "--fix"]),
            edge_lines("quartz", QUARTZ_EDGES, 4_000),
        ),
        Case::fleet(
            "spring-edges-4k-lines-fixed",
            &from_2026(&["--format", "fleet", "--fix"]),
            edge_lines("spring", SPRING_EDGES, 4_000),
        ),
        Case::fleet(
            "eventbridge-edges-4k-lines-fixed",
            &from_2026(&["--format", "fleet", "--fix"]),
            edge_lines("eventbridge", EVENTBRIDGE_EDGES, 4_000),
        ),
        Case::fleet(
            "eventbridge-template-20k-schedules-fixed",
            &from_2026(&["--fix"]),
            eventbridge_template(20_000),
        ),
        Case::fleet(
            "anacron-edges-4k-lines-a-month-fixed",
            &from_2026(&["--format", "fleet", "--fix", "--hours", "744"]),
            edge_lines("anacron", ANACRON_EDGES, 4_000),
        ),
        Case::fleet(
            "anacrontab-on-100k-hosts",
            &from_2026(&["--fix"]),
            "# hosts: 100000\nRANDOM_DELAY=45\nSTART_HOURS_RANGE=3-22\n1 5 cron.daily x\n7 25 cron.weekly x\n",
        ),
        Case::fleet(
            "apscheduler-edges-4k-lines-fixed",
            &from_2026(&["--format", "fleet", "--fix"]),
            edge_lines("apscheduler", APSCHEDULER_EDGES, 4_000),
        ),
        Case::fleet(
            "quartz-nines-300kb",
            &from_2026(&["--format", "fleet"]),
            format!("quartz\tq\t0 0 0 ? * {}#1\n", nines(300_000)),
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
    ]
}

/// Inputs large in bytes, lines or jobs.
fn large() -> Vec<Case> {
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
    vec![
        Case::fleet(
            "sidekiq-schedule-10k-jobs-fixed",
            &from_2026(&["--fix"]),
            sidekiq_schedule(10_000),
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
        Case::huge_fleet("cronjobs-100mb", &from_2026(&["--format", "k8s"]), || {
            let job = |i| {
                format!(
                    "---\napiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: job-{i}\nspec:\n  schedule: \"{} * * * *\"\n",
                    i % 60
                )
            };
            (0..HUGE_BYTES / job(0).len()).map(job).collect()
        }),
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
    ]
}

/// Inputs that once lost lines, dates or units without a word.
fn lossy() -> Vec<Case> {
    let digits_link = link::encode(&nines(link::MOST_TEXT_BYTES)).unwrap();
    let mut arrivals = String::new();
    for i in 0..1_000 {
        writeln!(arrivals, "{}", 1_767_225_600 + i * 7).unwrap();
    }
    arrivals.push_str("1e300\n");
    vec![
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
