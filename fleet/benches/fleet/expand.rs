use std::fmt::Write;
use std::hint::black_box;

use criterion::Criterion;
use stampede_core::fleet_format::FleetFormat;
use stampede_core::panels::fleet::FleetParams;
use stampede_fleet::cron::Horizon;
use stampede_fleet::file;
use stampede_fleet::import;
use stampede_fleet::panel::report;

/// 10,000 cron lines, a mix of hourly, daily, weekday and stepped specs,
/// each with a duration, as a fleet file: 1,651,250 starts over a week.
fn ten_thousand_line_fleet() -> String {
    let specs = [
        "0 * * * *",
        "*/30 * * * *",
        "30 2 * * *",
        "0 9-17 * * mon-fri",
        "5/20 */3 * * *",
        "@daily",
        "0 0 1,15 * 1",
        "*/5 0-6 * * *",
    ];
    let mut text = String::new();
    for line in 0..10_000 {
        let spec = specs[line % specs.len()];
        writeln!(
            text,
            "cron\tjob {line}\t{spec}\tDuration={}m",
            1 + line % 30
        )
        .unwrap();
    }
    text
}

/// The fleet above expanded over a week and binned by minute, under the
/// cap.
fn ten_thousand_lines_over_a_week(c: &mut Criterion) {
    let text = ten_thousand_line_fleet();
    let read = file::parse(&text);
    let week = Horizon::hours(7 * 24).unwrap();
    let expansion = stampede_fleet::expand(&read.lines, 1_708_905_600, week, 0).unwrap();
    assert_eq!(expansion.starts.len(), 1_651_250);
    assert_eq!(expansion.stopped_at_line, None);
    c.bench_function("fleet: 10k cron lines over a week", |b| {
        b.iter(|| stampede_fleet::expand(black_box(&read.lines), 1_708_905_600, week, 0).unwrap())
    });
}

/// A system crontab of 10,000 lines, with environment lines and comments
/// among them, read into fleet lines with the form detected.
fn a_ten_thousand_line_crontab(c: &mut Criterion) {
    let mut text = String::from("SHELL=/bin/sh\nMAILTO=ops@example.com\n");
    for line in 0..10_000 {
        if line % 500 == 0 {
            writeln!(text, "# batch {}", line / 500).unwrap();
        }
        writeln!(
            text,
            "{} {} * * * root /usr/local/bin/sync --account {line}",
            line % 60,
            line % 24
        )
        .unwrap();
    }
    let read = import::read(&text, FleetFormat::Auto);
    assert_eq!(read.lines.len(), 10_000);
    c.bench_function("fleet: read a 10k-line crontab", |b| {
        b.iter(|| import::read(black_box(&text), FleetFormat::Auto))
    });
}

/// The Fleet panel's first stage on the same fleet: read, expanded over
/// the week and turned into every grid the page draws.
fn the_panel_reads_ten_thousand_lines(c: &mut Criterion) {
    let text = ten_thousand_line_fleet();
    let params = FleetParams::default();
    let read = report::read(&text, &params, 0).unwrap();
    // The panel's default week, from Monday 5 January 2026, holds no 1st
    // or 15th of a month.
    assert_eq!(read.load.total_starts, 1_650_000);
    c.bench_function("fleet panel: read 10k lines over a week", |b| {
        b.iter(|| report::read(black_box(&text), &params, 0).unwrap())
    });
    // The second stage: every line fixed, the text rewritten and diffed,
    // and the fixed fleet expanded again.
    c.bench_function("fleet panel: fix 10k lines over a week", |b| {
        b.iter(|| report::fix(black_box(&text), &params, 0).unwrap())
    });
}

criterion::criterion_group!(
    benches,
    ten_thousand_lines_over_a_week,
    a_ten_thousand_line_crontab,
    the_panel_reads_ten_thousand_lines
);
