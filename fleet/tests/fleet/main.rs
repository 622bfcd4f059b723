//! Integration tests of stampede-fleet, one module per topic, in one binary.
//! Every panel's presets and Learn steps are checked here too: the Fleet
//! panel's run lives in this crate, above the core's other panels.

use stampede_fleet::time::{MICROS_PER_SECOND, Window};

mod croniter;
mod crontab;
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
