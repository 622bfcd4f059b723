//! croniter's `H` and seconds against croniter itself: every vector in
//! `croniter_h.tsv` and `croniter_seconds.tsv` was printed by PyPI
//! croniter (see `make_croniter_h.py` and `make_croniter_seconds.py`).

use proptest::prelude::*;
use stampede_fleet as fleet;
use stampede_fleet::cron::{DayRule, Horizon};
use stampede_fleet::croniter;
use stampede_fleet::file;
use stampede_fleet::time::{MICROS_PER_SECOND, Window};

const VECTORS: &str = include_str!("../data/croniter_h.tsv");
/// 2024-02-26T00:00:00Z, the instant the vectors start from.
const FROM: i64 = 1_708_905_600;

const SECONDS_VECTORS: &str = include_str!("../data/croniter_seconds.tsv");
/// 2024-02-29T23:59:50Z, the instant the six-field vectors start from.
const SECONDS_FROM: i64 = 1_709_251_190;
/// The most starts a six-field vector lists, within 31 days.
const SECONDS_MOST: usize = 30;

fn week() -> Horizon {
    Horizon::hours(7 * 24).unwrap()
}

fn rows() -> Vec<(&'static str, &'static str, &'static str)> {
    table(VECTORS)
}

fn seconds_rows() -> Vec<(&'static str, &'static str, &'static str)> {
    table(SECONDS_VECTORS)
}

fn table(vectors: &'static str) -> Vec<(&'static str, &'static str, &'static str)> {
    vectors
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let mut columns = line.split('\t');
            let mut next = || columns.next().unwrap();
            (next(), next(), next())
        })
        .collect()
}

/// Unix seconds, comma-separated, as Unix microseconds.
fn micros(starts: &str) -> Vec<i64> {
    starts
        .split(',')
        .filter(|at| !at.is_empty())
        .map(|at| at.parse::<i64>().unwrap() * MICROS_PER_SECOND)
        .collect()
}

/// Checks every row: refused where croniter refuses, else the first
/// `most` starts in `[from, from + seconds)` to the microsecond. Returns
/// how many rows matched.
fn check_rows(rows: &[(&str, &str, &str)], from: i64, seconds: i64, most: usize) -> usize {
    let window = Window {
        from: from * MICROS_PER_SECOND,
        end: (from + seconds) * MICROS_PER_SECOND,
    };
    let mut matched = 0;
    for &(id, spec, want) in rows {
        let got = croniter::read(id, spec);
        if want == "refused" {
            assert!(got.is_err(), "{id:?} {spec:?} should be refused: {got:?}");
        } else {
            let schedule = got.unwrap_or_else(|refusal| panic!("{id:?} {spec:?}: {refusal}"));
            let mut starts = Vec::new();
            schedule.push_starts(window, &mut starts, most);
            assert_eq!(starts, micros(want), "{id:?} {spec:?}");
        }
        matched += 1;
    }
    matched
}

#[test]
fn croniter_schedules_match_croniter() {
    let rows = rows();
    assert!(rows.len() >= 100);
    assert_eq!(check_rows(&rows, FROM, 7 * 86_400, usize::MAX), rows.len());
}

#[test]
fn croniter_six_field_schedules_match_croniter_to_the_second() {
    let rows = seconds_rows();
    assert_eq!(rows.len(), 353);
    assert!(rows.iter().filter(|row| row.2 == "refused").count() >= 50);
    let hashed_seconds = rows
        .iter()
        .filter(|(_, spec, want)| {
            spec.split(' ').nth(5).is_some_and(|s| s.starts_with('H')) && *want != "refused"
        })
        .count();
    assert!(hashed_seconds >= 150, "{hashed_seconds}");
    let matched = check_rows(&rows, SECONDS_FROM, 31 * 86_400, SECONDS_MOST);
    assert_eq!(matched, rows.len());
}

/// Any window and any room give the starts of the whole horizon that fall
/// in the window, cut where the room ends.
#[test]
fn croniter_starts_in_a_window_are_the_horizons_starts_in_it() {
    let day = 86_400 * MICROS_PER_SECOND;
    let from = SECONDS_FROM * MICROS_PER_SECOND;
    for spec in [
        "* * * * * *",
        "*/7 * * * * 50-10/7",
        "0 0 * * * 59",
        "H H * * * H/20",
    ] {
        let schedule = croniter::read("job", spec).unwrap();
        let whole = Window {
            from,
            end: from + day,
        };
        let mut all = Vec::new();
        assert!(!schedule.push_starts(whole, &mut all, usize::MAX));
        for (cut_from, cut_end) in [
            (0, 1),
            (1, 59_999_999),
            (59_999_999, 61_000_001),
            (3_599_500_000, day),
        ] {
            let window = Window {
                from: from + cut_from,
                end: from + cut_end,
            };
            let inside: Vec<i64> = all
                .iter()
                .copied()
                .filter(|at| (window.from..window.end).contains(at))
                .collect();
            for most in [0, 1, 2, 59, 61, usize::MAX] {
                let mut got = vec![-1];
                let left_out = schedule.push_starts(window, &mut got, most.saturating_add(1));
                let kept = inside.len().min(most);
                assert_eq!(
                    got[1..],
                    inside[..kept],
                    "{spec:?} {cut_from} {cut_end} {most}"
                );
                assert_eq!(
                    left_out,
                    kept < inside.len(),
                    "{spec:?} {cut_from} {cut_end} {most}"
                );
            }
        }
    }
}

#[test]
fn croniter_fleet_lines_expand_through_croniter_to_the_second() {
    let mut text = String::from(
        "croniter\tnightly backup/db\tH H * * *\n\
         croniter\tcafé ☕ rapport\tH(0-29) H(9-17) * * *\n\
         croniter\tbad\tH(59-0) * * * *\n",
    );
    // Every `@` form in the vectors, which croniter starts at a hashed second.
    let aliases: Vec<_> = rows()
        .into_iter()
        .filter(|(_, spec, want)| spec.starts_with('@') && *want != "refused")
        // A fleet file trims its ids and separates fields with tabs.
        .filter(|(id, _, _)| !id.is_empty() && id.trim() == *id && !id.contains('\t'))
        .collect();
    assert!(aliases.len() >= 7);
    for (id, spec, _) in &aliases {
        text.push_str(&format!("croniter\t{id}\t{spec}\n"));
    }
    // Six-field lines, each with its id and spec as in the vectors.
    let seconds_vectors = seconds_rows();
    let six_fields: Vec<_> = seconds_vectors
        .iter()
        .filter(|(id, spec, _)| {
            *id == "nightly backup/db"
                || (*id == "job" && ["* * * * * 0,15,30,45", "59 23 * * * 59"].contains(spec))
        })
        .filter(|(_, _, want)| *want != "refused")
        .collect();
    assert!(six_fields.len() >= 15);
    for (id, spec, _) in &six_fields {
        text.push_str(&format!("croniter\t{id}\t{spec}\n"));
    }
    let fleet = file::parse(&text);
    assert_eq!(fleet.lines.len(), 2 + aliases.len() + six_fields.len());
    assert_eq!(fleet.skipped.len(), 1);
    assert_eq!(fleet.skipped[0].line, 3);
    let (lines, six_field_lines) = fleet.lines.split_at(fleet.lines.len() - six_fields.len());
    let expansion = fleet::expand(lines, FROM, week(), 0).unwrap();
    assert!(expansion.notices.is_empty(), "{:?}", expansion.notices);
    let vectors = rows();
    for line in lines {
        let (_, _, want) = vectors
            .iter()
            .find(|(id, spec, _)| *id == line.id && *spec == line.spec)
            .unwrap();
        let got: Vec<String> = expansion
            .starts
            .iter()
            .filter(|start| start.line == line.line)
            .map(|start| (start.at_micros / 1_000_000).to_string())
            .collect();
        assert_eq!(got.join(","), *want, "{}", line.id);
    }
    let expansion = fleet::expand(
        six_field_lines,
        SECONDS_FROM,
        Horizon::hours(31 * 24).unwrap(),
        0,
    )
    .unwrap();
    assert!(expansion.notices.is_empty(), "{:?}", expansion.notices);
    for (line, (_, _, want)) in six_field_lines.iter().zip(&six_fields) {
        let got: Vec<i64> = expansion
            .starts
            .iter()
            .filter(|start| start.line == line.line)
            .map(|start| start.at_micros)
            .take(SECONDS_MOST)
            .collect();
        assert_eq!(got, micros(want), "{} {}", line.id, line.spec);
    }
}

/// Where croniter parts from Vixie: a day field is restricted unless it
/// expands to every day, so `*/2` restricts and the days combine by OR.
#[test]
fn croniter_judges_day_fields_by_their_values() {
    let days = |spec: &str| croniter::schedule("job", spec).unwrap().days;
    assert_eq!(days("0 0 */2 * 1"), DayRule::EitherWhenBothRestricted);
    assert_eq!(days("0 0 * * 1"), DayRule::Both);
    assert_eq!(days("0 0 ? * H"), DayRule::Both);
    // Every day listed, and the other field has a `*`: unrestricted.
    assert_eq!(days("0 0 1-31 * */2"), DayRule::Both);
    assert_eq!(days("0 0 1-31 * 1"), DayRule::EitherWhenBothRestricted);
}

#[test]
fn croniter_refusals_name_the_field() {
    let field = |spec: &str| croniter::schedule("job", spec).unwrap_err().field;
    assert_eq!(field("H(0-60) * * * *"), "minute");
    assert_eq!(field("H H(5-5) * * *"), "hour");
    assert_eq!(field("H H L * *"), "day of month");
    assert_eq!(field("H H * 13 *"), "month");
    assert_eq!(field("H H * * 1#2"), "day of week");
    assert_eq!(field("R * * * *"), "minute");
    assert_eq!(field("* * * *"), "day of week");
    assert_eq!(field("* * * * * 60"), "second");
    assert_eq!(field("* * * * * H(0-60)"), "second");
    assert_eq!(field("* * * * * ?"), "second");
    // croniter reads a seventh field as the year; years are not read here.
    assert_eq!(field("* * * * * * 2024"), "second");
    assert_eq!(field("0 0 1 1 * 0 *"), "second");
}

fn field_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("H".to_string()),
            Just("h".to_string()),
            Just("R".to_string()),
            Just("*".to_string()),
            Just("?".to_string()),
            Just("-".to_string()),
            Just("/".to_string()),
            Just(",".to_string()),
            Just("(".to_string()),
            Just(")".to_string()),
            Just(" ".to_string()),
            Just("\x0b".to_string()),
            Just("@daily".to_string()),
            Just("L".to_string()),
            Just("W".to_string()),
            Just("#".to_string()),
            Just("jan".to_string()),
            Just("sun".to_string()),
            Just("é".to_string()),
            Just("99999999999999999999999".to_string()),
            (0u32..80).prop_map(|n| n.to_string()),
        ],
        0..24,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn croniter_never_panics_and_refusals_name_a_field(
        id in ".{0,12}",
        spec in field_text(),
    ) {
        if let Err(refusal) = croniter::schedule(&id, &spec) {
            prop_assert!((0..6).any(|field| croniter::field_name(field) == refusal.field), "{:?}", refusal);
        }
    }
}
