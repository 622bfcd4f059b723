//! croniter's `H` against croniter itself: every vector in
//! `croniter_h.tsv` was printed by PyPI croniter (see `make_croniter_h.py`).

use proptest::prelude::*;
use stampede_core::fleet;
use stampede_core::fleet::cron::{DayRule, Horizon};
use stampede_core::fleet::croniter;
use stampede_core::fleet::file;
use stampede_core::fleet::jenkins::FIELD_NAMES;

const VECTORS: &str = include_str!("../data/croniter_h.tsv");
/// 2024-02-26T00:00:00Z, the instant the vectors start from.
const FROM: i64 = 1_708_905_600;

fn week() -> Horizon {
    Horizon::hours(7 * 24).unwrap()
}

fn rows() -> Vec<(&'static str, &'static str, &'static str)> {
    VECTORS
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let mut columns = line.split('\t');
            let mut next = || columns.next().unwrap();
            (next(), next(), next())
        })
        .collect()
}

#[test]
fn croniter_schedules_match_croniter() {
    let rows = rows();
    assert!(rows.len() >= 100);
    for (id, spec, want) in rows {
        let got = croniter::schedule(id, spec);
        if want == "refused" {
            assert!(got.is_err(), "{id:?} {spec:?} should be refused: {got:?}");
            continue;
        }
        let schedule = got.unwrap_or_else(|refusal| panic!("{id:?} {spec:?}: {refusal}"));
        let want: Vec<i64> = want
            .split(',')
            .filter(|at| !at.is_empty())
            .map(|at| at.parse().unwrap())
            .collect();
        // The hashed `@` forms also fire at a hashed second, which a
        // minute schedule drops; every other start is on a whole minute.
        if !spec.starts_with('@') {
            assert!(want.iter().all(|at| at % 60 == 0), "{spec:?}");
        }
        let want: Vec<i64> = want.iter().map(|at| at - at.rem_euclid(60)).collect();
        let got: Vec<i64> = schedule.starts(FROM, week()).collect();
        assert_eq!(got, want, "{id:?} {spec:?}");
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
    let fleet = file::parse(&text);
    assert_eq!(fleet.lines.len(), 2 + aliases.len());
    assert_eq!(fleet.skipped.len(), 1);
    assert_eq!(fleet.skipped[0].line, 3);
    let expansion = fleet::expand(&fleet.lines, FROM, week(), 0).unwrap();
    assert!(expansion.notices.is_empty(), "{:?}", expansion.notices);
    let vectors = rows();
    for line in &fleet.lines {
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
    assert_eq!(field("* * * * * *"), "day of week");
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
            prop_assert!(FIELD_NAMES.contains(&refusal.field), "{:?}", refusal);
        }
    }
}
