//! The fleet worker's read of the pastes the browser benchmark times
//! (`bigCrontab` and `bigMixed` in tests/e2e/bench.mjs), on the page's
//! parameters, so the budget's main cost is measured natively too.

use std::hint::black_box;

use criterion::Criterion;
use stampede_core::panels::fleet::{FleetParams, Sample};
use stampede_fleet::cron::Horizon;
use stampede_fleet::import;
use stampede_fleet::panel::report;

/// Lines in each paste, as the browser benchmark pastes.
const LINES: usize = 10_000;

/// The page's seed (`s=1`) in the browser benchmark's query.
const SEED: u64 = 1;

/// A crontab of 10,000 jobs, half hourly and half daily.
fn big_crontab() -> String {
    (0..LINES)
        .map(|i| {
            let minute = (i * 7) % 60;
            let when = if i % 2 == 1 {
                format!("{minute} * * * *")
            } else {
                format!("{minute} {} * * *", i % 24)
            };
            format!("{when} /opt/jobs/job-{i:05}.sh")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// 10,000 lines, a quarter each of a crontab, Jenkinsfiles (`H H * * *`),
/// systemd timers drawing `RandomizedDelaySec=5m` and CronJobs; and how
/// many jobs they hold.
fn big_mixed() -> (String, usize) {
    let quarter = LINES / 4;
    let mut lines: Vec<String> = Vec::new();
    let mut jobs = 0;
    let mut i = 0;
    while lines.len() < quarter {
        lines.push(format!(
            "{} {} * * * /opt/jobs/cron-{i:05}.sh",
            (i * 7) % 60,
            i % 24
        ));
        (i, jobs) = (i + 1, jobs + 1);
    }
    i = 0;
    while lines.len() < 2 * quarter {
        lines.push(format!("// job: team/build-{i}"));
        lines.extend(["pipeline {", "  triggers { cron('H H * * *') }", "}"].map(String::from));
        (i, jobs) = (i + 1, jobs + 1);
    }
    i = 0;
    while lines.len() < 3 * quarter {
        lines.push(format!("# file: sync-{i}.timer"));
        lines.push("[Timer]".into());
        lines.push(format!("OnCalendar=*-*-* {}:{:02}:00", i % 24, i % 60));
        lines.extend(["RandomizedDelaySec=5m", ""].map(String::from));
        (i, jobs) = (i + 1, jobs + 1);
    }
    i = 0;
    while lines.len() < LINES {
        lines.extend(["---", "apiVersion: batch/v1", "kind: CronJob"].map(String::from));
        lines.push(format!("metadata: {{name: report-{i}}}"));
        lines.push(format!("spec: {{schedule: \"{} * * * *\"}}", i % 60));
        (i, jobs) = (i + 1, jobs + 1);
    }
    (lines.join("\n"), jobs)
}

/// The panel's read of each paste, as the fleet worker runs it, and the
/// range across draws alone (`DrawnRange::of`, with no expansion to take
/// the fixed lines' counts from).
fn the_worker_reads_a_paste(c: &mut Criterion) {
    let params = FleetParams {
        sample: Sample::Own,
        ..FleetParams::default()
    };
    let week = Horizon::hours(7 * 24).unwrap();
    let (mixed, mixed_jobs) = big_mixed();
    for (name, text, jobs) in [
        ("crontab", big_crontab(), LINES),
        ("mixed", mixed, mixed_jobs),
    ] {
        let read = report::read(&text, &params, SEED).unwrap();
        assert_eq!(read.jobs.len(), jobs);
        assert_eq!(read.load.drawn.is_some(), name == "mixed");
        c.bench_function(&format!("fleet paste: read a 10k-line {name}"), |b| {
            b.iter(|| report::read(black_box(&text), &params, SEED).unwrap())
        });
        let lines = import::read(&text, params.format).lines;
        c.bench_function(&format!("fleet paste: draws of a 10k-line {name}"), |b| {
            b.iter(|| {
                stampede_fleet::chance::DrawnRange::of(black_box(&lines), params.week.0, week, SEED)
            })
        });
    }
}

criterion::criterion_group!(benches, the_worker_reads_a_paste);
