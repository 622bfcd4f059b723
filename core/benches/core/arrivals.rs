use std::fmt::Write;
use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use stampede_core::arrivals;

const ROWS: u32 = 1_000_000;

/// A million arrivals a day long: RFC 3339 with milliseconds, one a line,
/// and CSV with epoch milliseconds, a duration, an account and a kind.
fn million_rows() -> [(&'static str, String); 2] {
    let start_ms: u64 = 1_767_225_600_000;
    let at = |row: u32| start_ms + u64::from(row) * 86_400_000 / u64::from(ROWS);
    let mut lines = String::new();
    let mut csv = String::from("timestamp,duration,account,kind\n");
    for row in 0..ROWS {
        let ms = at(row);
        let stamp = jiff::Timestamp::from_millisecond(ms as i64).unwrap();
        writeln!(lines, "{stamp}").unwrap();
        writeln!(csv, "{ms},{}.5,acct-{},sync", row % 7, row % 5_000).unwrap();
    }
    [("rfc3339 lines", lines), ("csv epoch ms", csv)]
}

/// The budget is 1 s for a million rows in the browser's worker.
fn parse_a_million_rows(c: &mut Criterion) {
    let mut group = c.benchmark_group("arrivals: parse 1M rows");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for (name, text) in million_rows() {
        group.bench_function(name, |b| {
            b.iter(|| arrivals::parse(black_box(&text)).unwrap())
        });
    }
    group.finish();
}

fn describe_a_million_arrivals(c: &mut Criterion) {
    let [_, (_, csv)] = million_rows();
    let trace = arrivals::parse(&csv).unwrap();
    let mut group = c.benchmark_group("arrivals: describe 1M");
    group.sample_size(10);
    group.bench_function("describe", |b| {
        b.iter(|| arrivals::describe(black_box(&trace.times_us)))
    });
    group.bench_function("diagnose", |b| {
        b.iter(|| arrivals::diagnose(black_box(&trace.times_us), 1))
    });
    group.finish();
}

criterion::criterion_group!(benches, parse_a_million_rows, describe_a_million_arrivals);
