//! Quartz cron expressions against Quartz itself: every row of
//! `quartz_starts.tsv` was printed by Quartz 2.3.2's own `CronExpression`
//! (see `make_quartz_vectors.sh`).

use stampede_fleet::quartz::{self, QuartzCron, Search};
use stampede_fleet::time::{MICROS_PER_SECOND, Window};

use crate::listed;

const VECTORS: &str = include_str!("../data/quartz_starts.tsv");

fn rows(kind: &str) -> Vec<Vec<String>> {
    crate::vector_rows(VECTORS, kind)
}

/// The fire times of `spec` after `start`, as many as `count`, and how the
/// search after the last of them ends.
fn fire_times(spec: &str, start: i64, count: usize) -> (Vec<i64>, Search) {
    let cron = quartz::read(spec).unwrap_or_else(|refusal| panic!("{spec:?}: {refusal}"));
    let mut found = Vec::new();
    let mut after = start;
    loop {
        let search = cron.next_after(after);
        match search {
            Search::Fires(at) if found.len() < count => {
                found.push(at);
                after = at;
            }
            _ => return (found, search),
        }
    }
}

#[test]
fn every_fire_time_matches_quartz() {
    let rows = rows("fires");
    assert!(rows.len() >= 150, "{} rows", rows.len());
    for row in rows {
        let (spec, start, expected) = (&row[1], row[2].parse().unwrap(), listed(&row[3]));
        let (found, after) = fire_times(spec, start, expected.len());
        assert_eq!(found, expected, "{spec:?} after {start}");
        if expected.len() < 40 {
            assert_eq!(after, Search::Never, "{spec:?} after {start}");
        }
    }
}

#[test]
fn every_fire_time_in_a_zone_matches_quartz() {
    crate::zoned_rows_match(VECTORS, read_in, fires_after);
}

/// `spec` read, in `zone` when given.
fn read_in(spec: &str, zone: impl Into<Option<jiff::tz::TimeZone>>) -> QuartzCron {
    let cron = quartz::read(spec).unwrap();
    match zone.into() {
        Some(zone) => cron.in_zone(zone),
        None => cron,
    }
}

/// The next fire time after `after`, if the search finds one.
fn fires_after(cron: &QuartzCron, after: i64) -> Option<i64> {
    match cron.next_after(after) {
        Search::Fires(at) => Some(at),
        Search::Never | Search::Endless => None,
    }
}

#[test]
fn a_window_holds_each_fire_time_the_search_gives_in_it() {
    let place =
        |cron: &QuartzCron, window, out: &mut Vec<i64>, most| cron.push_starts(window, out, most);
    crate::windows_match_searches(VECTORS, read_in, fires_after, place);
}

#[test]
fn a_search_quartz_never_returns_from_ends_the_starts() {
    let rows = rows("endless");
    assert!(rows.len() >= 6);
    for row in rows {
        let (spec, start, expected) = (&row[1], row[2].parse().unwrap(), listed(&row[3]));
        let (found, after) = fire_times(spec, start, usize::MAX);
        assert_eq!(
            (found, after),
            (expected, Search::Endless),
            "{spec:?} after {start}"
        );
    }
    let cron = quartz::read("0 0 0 L-29W * ?").unwrap();
    let why = cron
        .stops_searching(&[1_767_312_000 * MICROS_PER_SECOND])
        .unwrap();
    assert!(
        why.starts_with("it fires no more after 2026-01-02"),
        "{why}"
    );
    assert!(
        cron.never_runs(1_767_312_000)
            .unwrap()
            .contains("without end")
    );
}

#[test]
fn every_refusal_matches_quartz() {
    let rows = rows("refused");
    assert!(rows.len() >= 20);
    for row in rows {
        let refusal = quartz::read(&row[1]).expect_err(&row[1]);
        assert_eq!(
            quartz_part(&refusal.reason),
            quartz_part(&row[2]),
            "{:?}",
            row[1]
        );
    }
}

/// Where Java's own exception stopped the parser, Quartz's message goes on
/// with Java's wording of it: the exception's name is the part that is
/// Quartz's.
fn quartz_part(message: &str) -> &str {
    match message.split_once(" (java.") {
        Some((wrapped, rest)) => {
            let name = rest.split([':', ')']).next().unwrap_or_default();
            &message[..wrapped.len() + " (java.".len() + name.len()]
        }
        None => message,
    }
}

#[test]
fn a_spec_quartz_reads_but_cannot_place_is_refused() {
    let rows = rows("fails");
    assert!(!rows.is_empty());
    for row in rows {
        let refusal = quartz::read(&row[1]).expect_err(&row[1]);
        assert!(
            refusal.reason.contains("fails when asked"),
            "{:?}: {}",
            row[1],
            refusal.reason
        );
    }
}

#[test]
fn a_window_holds_the_fire_times_quartz_gives_in_it() {
    let cron = quartz::read("0 0/20 9-10 ? * MON-FRI").unwrap();
    // Monday 2026-01-05 09:20 UTC to Tuesday 09:40, half-open.
    let from = 1_767_571_200 + 9 * 3600 + 20 * 60;
    let window = Window {
        from: from * MICROS_PER_SECOND,
        end: (from + 86_400 + 20 * 60) * MICROS_PER_SECOND,
    };
    let mut out = Vec::new();
    assert!(!cron.push_starts(window, &mut out, 100));
    let minutes: Vec<i64> = out
        .iter()
        .map(|at| (at / MICROS_PER_SECOND - from) / 60)
        .collect();
    assert_eq!(minutes, [0, 20, 40, 60, 80, 1420, 1440]);
    let mut few = Vec::new();
    assert!(cron.push_starts(window, &mut few, 3));
    assert_eq!(few, out[..3]);
}
