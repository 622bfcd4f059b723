//! Integration tests of stampede-fleet, one module per topic, in one binary.
//! Every panel's presets and Learn steps are checked here too: the Fleet
//! panel's run lives in this crate, above the core's other panels.

use stampede_fleet::time::{MICROS_PER_SECOND, Window};

mod anacron;
mod apscheduler;
mod chance;
mod croniter;
mod crontab;
mod eventbridge;
mod expand;
mod fix;
mod fix_native;
mod import;
mod jenkins;
mod learn;
mod limits;
mod link;
mod mixed;
mod presets;
mod prometheus;
mod puppet;
mod quartz;
mod sidekiq;
mod spring;
mod systemd;
mod temporal;
mod zoned;

/// The rows of a vector file whose first column is `kind`, each column
/// with its escapes (`\t`, `\n`, `\\`) read back; `#` lines are
/// the file's notes.
/// Checks that a scheduler's starts in `days` from Unix second `start`
/// (and from half a second into a minute after it) are the fire times its
/// search gives: `search(after)` is the next fire time after a second, or
/// `None` where the search ends; `place` is the scheduler's
/// `push_starts`.
pub fn window_matches_search(
    search: impl Fn(i64) -> Option<i64>,
    place: impl Fn(Window, &mut Vec<i64>, usize) -> bool,
    start: i64,
    days: i64,
    what: &str,
) {
    for from in [
        start * MICROS_PER_SECOND,
        (start + 30) * MICROS_PER_SECOND + 500_000,
    ] {
        let window = Window {
            from,
            end: from + days * 86_400 * MICROS_PER_SECOND,
        };
        let mut searched = Vec::new();
        let mut after =
            from.div_euclid(MICROS_PER_SECOND) - 1 + i64::from(from % MICROS_PER_SECOND != 0);
        while let Some(at) = search(after) {
            if at * MICROS_PER_SECOND >= window.end || searched.len() == 2_000 {
                break;
            }
            searched.push(at * MICROS_PER_SECOND);
            after = at;
        }
        // One start more than the search gave: a window that holds more
        // shows it, unless the search stopped at 2,000.
        let mut placed = Vec::new();
        let full = place(window, &mut placed, searched.len() + 1);
        if searched.len() == 2_000 {
            placed.truncate(2_000);
        } else {
            assert!(
                !full,
                "{what} from {from}: more starts than the search gives"
            );
        }
        assert_eq!(placed, searched, "{what} from {from} for {days} days");
    }
}

/// [`window_matches_search`] for each `fires` row of `vectors` (45 days
/// from its start) and each `zoned` row (a week from its start: from the
/// new year, on a steady clock, and from hours before a change, across
/// it). `read(spec, zone)` reads a row's spec; `search` and `place` are the
/// scheduler's.
pub fn windows_match_searches<T>(
    vectors: &str,
    read: impl Fn(&str, Option<jiff::tz::TimeZone>) -> T,
    search: impl Fn(&T, i64) -> Option<i64>,
    place: impl Fn(&T, Window, &mut Vec<i64>, usize) -> bool,
) {
    let check = |scheduled: &T, start: &str, days: i64, what: &str| {
        let search = |after| search(scheduled, after);
        let place = |window, out: &mut Vec<i64>, most| place(scheduled, window, out, most);
        window_matches_search(search, place, start.parse().unwrap(), days, what);
    };
    for row in vector_rows(vectors, "fires") {
        check(&read(&row[1], None), &row[2], 45, &row[1]);
    }
    for row in vector_rows(vectors, "zoned") {
        let zone = jiff::tz::db().get(&row[1]).unwrap();
        let what = format!("{:?} in {}", row[2], row[1]);
        check(&read(&row[2], Some(zone)), &row[3], 7, &what);
    }
}

/// Checks each `zoned` row of `vectors`: the first 40 fire times, each
/// the next after the one before, that `next` gives for the row's spec
/// read in its zone by `read`.
pub fn zoned_rows_match<T>(
    vectors: &str,
    read: impl Fn(&str, jiff::tz::TimeZone) -> T,
    next: impl Fn(&T, i64) -> Option<i64>,
) {
    let rows = vector_rows(vectors, "zoned");
    assert!(rows.len() >= 250, "{} rows", rows.len());
    for row in rows {
        let (zone, spec, start) = (&row[1], &row[2], row[3].parse().unwrap());
        let scheduled = read(spec, jiff::tz::db().get(zone).unwrap());
        let found: Vec<i64> =
            std::iter::successors(next(&scheduled, start), |&at| next(&scheduled, at))
                .take(40)
                .collect();
        assert_eq!(found, listed(&row[4]), "{spec:?} in {zone} after {start}");
    }
}

/// The Unix seconds of a vector row's comma-separated list.
pub fn listed(times: &str) -> Vec<i64> {
    times
        .split(',')
        .filter(|at| !at.is_empty())
        .map(|at| at.parse().unwrap())
        .collect()
}

pub fn vector_rows(vectors: &str, kind: &str) -> Vec<Vec<String>> {
    vectors
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| line.split('\t').map(unescape).collect::<Vec<_>>())
        .filter(|row| row[0] == kind)
        .collect()
}

fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}
