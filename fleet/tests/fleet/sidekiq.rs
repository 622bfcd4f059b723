//! sidekiq-cron lines against the real fugit 1.5.2 and sidekiq-cron 1.8.0
//! (`fleet/tests/data/make_sidekiq_vectors.rb`), and the poll law
//! against its closed form.

use stampede_core::fleet_format::FleetFormat;
use stampede_fleet::file;
use stampede_fleet::import;
use stampede_fleet::line::System;
use stampede_fleet::plan::LinePlan;
use stampede_fleet::sidekiq::{enqueues, fugit};
use stampede_fleet::time::{MICROS_PER_SECOND, Window};

use crate::{listed, vector_rows};

const VECTORS: &str = include_str!("../data/sidekiq_starts.tsv");

#[test]
fn next_times_are_fugits() {
    let rows = vector_rows(VECTORS, "next");
    assert!(rows.len() >= 400, "{} rows", rows.len());
    for row in rows {
        let cron = fugit::read(&row[1]).unwrap_or_else(|e| panic!("{:?}: {}", row[1], e.reason));
        let mut at: i64 = row[2].parse().unwrap();
        let mut found = Vec::new();
        for _ in 0..12 {
            at = cron
                .next_time(at)
                .unwrap_or_else(|why| panic!("{:?}: {why}", row[1]));
            found.push(at);
        }
        assert_eq!(found, listed(&row[3]), "{:?} from {}", row[1], row[2]);
    }
}

#[test]
fn fugit_gives_up_where_it_gives_up() {
    for row in vector_rows(VECTORS, "raises") {
        let cron = fugit::read(&row[1]).unwrap();
        let mut at: i64 = row[2].parse().unwrap();
        let failed = (0..12).any(|_| match cron.next_time(at) {
            Ok(next) => {
                at = next;
                false
            }
            Err(_) => true,
        });
        assert!(failed, "{:?} from {}", row[1], row[2]);
    }
}

#[test]
fn strings_sidekiq_cron_refuses_are_refused() {
    let rows = vector_rows(VECTORS, "refused");
    assert!(rows.len() >= 25, "{} rows", rows.len());
    for row in rows {
        let refusal = fugit::read(&row[1]).expect_err(&row[1]);
        assert_eq!(refusal.field, "spec");
        assert!(refusal.reason.contains("fugit"), "{}", refusal.reason);
    }
    // fugit's natural language, which sidekiq-cron takes, is not read.
    assert!(fugit::read("every day at noon").is_err());
}

#[test]
fn polls_enqueue_what_sidekiq_cron_enqueues() {
    let rows = vector_rows(VECTORS, "polls");
    assert!(rows.len() >= 9, "{} rows", rows.len());
    for row in rows {
        let cron = fugit::read(&row[1]).unwrap();
        let mut found = Vec::new();
        enqueues(&cron, listed(&row[3]), |poll, time| {
            found.push(format!("{poll}:{time}"));
        });
        assert_eq!(
            found.join(","),
            row[4],
            "{:?} polled every {} s",
            row[1],
            row[2]
        );
    }
}

/// The residual life's distribution function for gaps uniform on
/// `[avg/2, 3·avg/2]`: `∫₀ˣ (1 − F(y)) dy / avg`, worked out by hand.
fn residual_cdf(x: f64, average: f64) -> f64 {
    let (low, high) = (average / 2.0, average * 1.5);
    if x <= low {
        x / average
    } else if x >= high {
        1.0
    } else {
        (low + (average * average - (high - x) * (high - x)) / (2.0 * average)) / average
    }
}

#[test]
fn delays_follow_the_residual_life_of_the_polls() {
    for (spec, average) in [
        ("0 0 * * *", 30.0),
        ("30 15 4 * * *", 30.0),
        ("0 */6 * * *", 40.0),
    ] {
        let text = format!("sidekiq-cron\tjob\t{spec}\tPoll={average}\n");
        let line = &file::parse(&text).lines[0];
        let cron = fugit::read(spec).unwrap();
        let from = 1_704_067_200; // 2024-01-01T00:00:00Z
        let window = Window {
            from: from * MICROS_PER_SECOND,
            end: (from + 30 * 86_400) * MICROS_PER_SECOND,
        };
        let mut delays = Vec::new();
        for seed in 0..100 {
            let mut starts = Vec::new();
            LinePlan::read(line, seed)
                .unwrap()
                .push_starts(window, &mut starts, usize::MAX);
            let times: Vec<i64> =
                std::iter::successors(cron.next_match(from - 1, from + 30 * 86_400), |&at| {
                    cron.next_match(at, from + 30 * 86_400 - 100)
                })
                .collect();
            assert_eq!(starts.len(), times.len(), "{spec} seed {seed}");
            for (start, time) in starts.iter().zip(&times) {
                let delay = (start - time * MICROS_PER_SECOND) as f64 / MICROS_PER_SECOND as f64;
                // A poll finds a time from the next whole second on.
                assert!(
                    (1.0..=1.0 + 1.5 * average).contains(&delay),
                    "{spec}: {delay}"
                );
                delays.push(delay - 1.0);
            }
        }
        delays.sort_by(f64::total_cmp);
        let n = delays.len() as f64;
        let distance = delays
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let f = residual_cdf(x, average);
                (f - i as f64 / n).abs().max((f - (i + 1) as f64 / n).abs())
            })
            .fold(0.0, f64::max);
        // Kolmogorov–Smirnov at the 0.1 % level.
        assert!(
            distance < 1.95 / n.sqrt(),
            "{spec}: D = {distance} over {n} delays"
        );
    }
}

#[test]
fn lines_of_one_process_share_its_polls() {
    let fleet = file::parse(
        "sidekiq-cron\ta\t0 0 * * *\n\
         sidekiq-cron\tb\t0 0 * * *\n\
         sidekiq-cron\tc\t0 0 * * *\tProcess=other\n",
    );
    let window = Window {
        from: 1_704_067_200 * MICROS_PER_SECOND,
        end: (1_704_067_200 + 86_400) * MICROS_PER_SECOND,
    };
    let starts: Vec<Vec<i64>> = fleet
        .lines
        .iter()
        .map(|line| {
            let mut out = Vec::new();
            LinePlan::read(line, 7)
                .unwrap()
                .push_starts(window, &mut out, 10);
            out
        })
        .collect();
    assert_eq!(starts[0], starts[1]);
    assert_ne!(starts[0], starts[2]);
}

#[test]
fn bad_options_are_refused_by_name() {
    for (options, field) in [("Poll=0", "Poll"), ("Poll=601", "Poll"), ("Poll=x", "Poll")] {
        let fleet = file::parse(&format!("sidekiq-cron\tjob\t0 0 * * *\t{options}\n"));
        let refusal = match fleet.lines.first() {
            Some(line) => LinePlan::read(line, 0).unwrap_err(),
            None => {
                assert_eq!(fleet.skipped[0].field, field);
                continue;
            }
        };
        assert_eq!(refusal.field, field, "{options}");
    }
}

#[test]
fn a_sleep_longer_than_a_minute_can_step_over_a_time() {
    let line = &file::parse("sidekiq-cron\tjob\t0 * * * *\tPoll=90\n").lines[0];
    let window = Window {
        from: 1_704_067_200 * MICROS_PER_SECOND,
        end: (1_704_067_200 + 7 * 86_400) * MICROS_PER_SECOND,
    };
    let mut starts = Vec::new();
    LinePlan::read(line, 3)
        .unwrap()
        .push_starts(window, &mut starts, usize::MAX);
    // Sleeps of 45 to 135 s miss the minute after a time now and then.
    assert!((100..168).contains(&starts.len()), "{}", starts.len());
}

/// A schedule.yml in sidekiq-cron's hash form, with the panel's comments.
const SCHEDULE: &str = r#"# poll: 10
# process: worker-1
hourly_sync:
  cron: "0 * * * *"
  class: "SyncJob"
  queue: default
nightly_report:
  class: ReportJob
  cron: '0 3 * * *'
  args: [full]
paused:
  cron: "*/5 * * * *"
  class: PausedJob
  status: disabled
no_time:
  class: NoTimeJob
odd:
  cron: [0, "*"]
  class: OddJob
"#;

#[test]
fn a_schedule_hash_gives_a_line_per_job_on_its_cron() {
    assert_eq!(import::detect(SCHEDULE), FleetFormat::SidekiqCron);
    let read = import::read(SCHEDULE, FleetFormat::SidekiqCron);
    let got: Vec<_> = read
        .lines
        .iter()
        .map(|line| (line.line, line.id.as_str(), line.spec.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (4, "hourly_sync", "0 * * * *"),
            (9, "nightly_report", "0 3 * * *")
        ]
    );
    for line in &read.lines {
        assert_eq!(line.system, System::SidekiqCron);
        assert_eq!(line.options.own("Poll"), Some("10"));
        assert_eq!(line.options.own("Process"), Some("worker-1"));
    }
    let skipped: Vec<_> = read
        .skipped
        .iter()
        .map(|skipped| (skipped.line, skipped.field.as_str()))
        .collect();
    assert_eq!(skipped, [(12, "status"), (15, "cron"), (18, "cron")]);
}

#[test]
fn a_schedule_list_names_each_job_by_its_name() {
    let text = "- name: hourly_sync\n  cron: \"0 * * * *\"\n  class: SyncJob\n\
                - cron: \"5 * * * *\"\n  class: NamelessJob\n";
    assert_eq!(import::detect(text), FleetFormat::SidekiqCron);
    let read = import::read(text, FleetFormat::Auto);
    assert_eq!(read.lines.len(), 1);
    assert_eq!(
        (read.lines[0].line, read.lines[0].id.as_str()),
        (2, "hourly_sync")
    );
    assert_eq!(read.lines[0].options.own("Poll"), None);
    assert_eq!(
        (read.skipped[0].line, read.skipped[0].field.as_str()),
        (4, "name")
    );
}

#[test]
fn a_schedule_is_told_from_other_yaml() {
    let workflow = "on:\n  schedule:\n    - cron: '0 0 * * *'\njobs: {}\n";
    assert_eq!(import::detect(workflow), FleetFormat::GithubActions);
    // A job named `jobs` is still a job.
    let named_jobs = "jobs:\n  cron: \"0 * * * *\"\n  class: JobsJob\n";
    assert_eq!(import::detect(named_jobs), FleetFormat::SidekiqCron);
    let read = import::import(
        &format!("0 * * * * /bin/x\n---\n{named_jobs}"),
        FleetFormat::Auto,
    );
    let formats: Vec<_> = read.parts.iter().map(|part| part.format).collect();
    assert_eq!(formats, [FleetFormat::Crontab, FleetFormat::SidekiqCron]);
    assert!(read.file.skipped.is_empty(), "{:?}", read.file.skipped);
}
