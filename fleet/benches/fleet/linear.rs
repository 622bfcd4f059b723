//! The fleet's readers, fix and leveller at 1×, 10× and 100× one input
//! size, each shaped as the hostile inputs that once took quadratic time:
//! linear work shows as times ten apart, step by step.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion};
use stampede_core::fleet_format::FleetFormat;
use stampede_fleet::cron::Horizon;
use stampede_fleet::fix::{self, native};
use stampede_fleet::import;
use stampede_fleet::level;

const SCALES: [usize; 3] = [1, 10, 100];

/// Times `run` over the input `make` gives at each of [`SCALES`] × `unit`.
fn scaled(c: &mut Criterion, name: &str, unit: usize, make: fn(usize) -> String, run: fn(&str)) {
    let mut group = c.benchmark_group(format!("fleet linear: {name}"));
    group.sample_size(10);
    for scale in SCALES {
        let text = make(unit * scale);
        group.bench_with_input(BenchmarkId::from_parameter(scale), &text, |b, text| {
            b.iter(|| run(black_box(text)))
        });
    }
    group.finish();
}

/// `n` cron lines at midnight, as a fleet file.
fn midnight_lines(n: usize) -> String {
    (0..n).map(|job| format!("0 0 * * * job{job}\n")).collect()
}

fn readers_fix_and_leveller(c: &mut Criterion) {
    scaled(
        c,
        "a Temporal interval of n nines",
        3_000,
        |n| format!("temporal\tt\tevery {}s\n", "9".repeat(n)),
        |text| drop(import::read(text, FleetFormat::Fleet)),
    );
    scaled(
        c,
        "a systemd setting continued over n lines",
        3_000,
        |n| {
            format!(
                "[Timer]\nOnCalendar=Mon \\\n{}2 00:00\n",
                "1,\\\n".repeat(n)
            )
        },
        |text| drop(import::read(text, FleetFormat::Systemd)),
    );
    scaled(
        c,
        "the fix of n crontab lines",
        2_000,
        midnight_lines,
        |text| {
            let read = import::read(text, FleetFormat::Crontab);
            let fixes = fix::fix_lines(&read.lines, None);
            native::rewrite(text, FleetFormat::Crontab, &fixes).unwrap();
        },
    );
    scaled(
        c,
        "the fix of a paste of n parts",
        50,
        |n| {
            let part =
                |i| format!("0 0 * * * job{i}\n[Timer]\nOnCalendar=daily\n# file: u{i}.timer\n");
            (0..n).map(part).collect()
        },
        |text| {
            let read = import::read(text, FleetFormat::Auto);
            let fixes = fix::fix_lines(&read.lines, None);
            native::rewrite(text, FleetFormat::Auto, &fixes).unwrap();
        },
    );
    scaled(
        c,
        "the leveller on n crontab lines",
        500,
        midnight_lines,
        |text| {
            let read = import::read(text, FleetFormat::Crontab);
            let day = Horizon::hours(24).unwrap();
            level::level(&read.lines, &[], None, 1_708_905_600, day, 0).unwrap();
        },
    );
}

criterion::criterion_group!(benches, readers_fix_and_leveller);
