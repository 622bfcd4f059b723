//! Jenkins' `H` against Jenkins itself: every vector in `jenkins_h.tsv` was
//! printed by Jenkins' own `CronTab` (see `make_jenkins_vectors.sh`).

use proptest::prelude::*;
use stampede_fleet::cron::{DayRule, Schedule};
use stampede_fleet::jenkins::{self, FIELD_NAMES, JavaRandom};

const VECTORS: &str = include_str!("../data/jenkins_h.tsv");

fn rows(kind: &str) -> Vec<Vec<String>> {
    crate::vector_rows(VECTORS, kind)
}

/// Jenkins' raw fields, hex, kept to the values a calendar can take.
fn expected(hex: &[String]) -> Schedule {
    let field = |i: usize| u64::from_str_radix(&hex[i], 16).unwrap();
    Schedule {
        minutes: field(0) & ((1 << 60) - 1),
        hours: field(1) as u32 & 0xFF_FFFF,
        days_of_month: field(2) as u32 & 0xFFFF_FFFE,
        months: field(3) as u16 & 0x1FFE,
        days_of_week: field(4) as u8 & 0x7F,
        days: DayRule::Both,
    }
}

#[test]
fn jenkins_java_random_matches_java() {
    let rows = rows("random");
    assert!(rows.len() >= 80);
    for row in rows {
        let mut random = JavaRandom::new(row[1].parse().unwrap());
        let bound: i32 = row[2].parse().unwrap();
        let drawn: Vec<String> = (0..10)
            .map(|_| random.next_int(bound).to_string())
            .collect();
        assert_eq!(drawn.join(","), row[3], "seed {} bound {bound}", row[1]);
    }
}

#[test]
fn jenkins_hash_seed_matches_hash_from() {
    let rows = rows("seed");
    assert!(rows.len() >= 10);
    for row in rows {
        assert_eq!(
            jenkins::hash_seed(&row[1]),
            row[2].parse::<i64>().unwrap(),
            "{:?}",
            row[1]
        );
    }
}

#[test]
fn jenkins_schedule_matches_crontab() {
    let rows = rows("spec");
    assert!(rows.len() >= 100);
    for row in rows {
        let (job, spec) = (&row[1], &row[2]);
        let got = jenkins::schedule(job, spec);
        if row[3] == "refused" {
            assert!(
                got.is_err(),
                "{job:?} {spec:?} should be refused, got {got:?}"
            );
        } else {
            assert_eq!(
                got.as_ref().ok(),
                Some(&expected(&row[3..8])),
                "{job:?} {spec:?}: {got:?}"
            );
        }
    }
}

#[test]
fn jenkins_schedule_lines_matches_crontab_list() {
    let rows = rows("lines");
    assert!(rows.len() >= 10);
    for row in rows {
        let (job, text) = (&row[1], &row[2]);
        let got = jenkins::schedule_lines(job, text);
        if text.starts_with("TZ=") {
            assert_eq!(got.unwrap_err().field, "time zone");
        } else if row[3] == "refused" {
            assert!(got.is_err(), "{job:?} {text:?} should be refused");
        } else {
            let groups = row[3..].join("\t");
            let want: Vec<Schedule> = groups
                .split(';')
                .map(|group| expected(&group.split('\t').map(String::from).collect::<Vec<_>>()))
                .collect();
            assert_eq!(got.unwrap(), want, "{job:?} {text:?}");
        }
    }
}

#[test]
fn jenkins_refusals_name_the_field_and_why() {
    let refusal = |spec: &str| jenkins::schedule("job", spec).unwrap_err();
    assert_eq!(refusal("60 * * * *").field, "minute");
    assert_eq!(refusal("H 24 * * *").field, "hour");
    assert_eq!(refusal("H H 0 * *").field, "day of month");
    assert_eq!(refusal("H H * 13 *").field, "month");
    assert_eq!(refusal("H H * * 8").field, "day of week");
    assert_eq!(refusal("* * * *").field, "day of week");
    assert!(refusal("H/0 * * * *").reason.contains("positive"));
}

fn field_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("H".to_string()),
            Just("*".to_string()),
            Just("-".to_string()),
            Just("/".to_string()),
            Just(",".to_string()),
            Just("(".to_string()),
            Just(")".to_string()),
            Just(" ".to_string()),
            Just("@".to_string()),
            Just("daily".to_string()),
            Just("2147483647".to_string()),
            (0u32..80).prop_map(|n| n.to_string()),
        ],
        0..24,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn jenkins_any_text_never_panics_and_refusals_name_a_field(spec in "\\PC{0,40}") {
        if let Err(refusal) = jenkins::schedule("job", &spec) {
            prop_assert!(FIELD_NAMES.contains(&refusal.field), "{refusal}");
            prop_assert!(!refusal.reason.is_empty());
        }
    }

    #[test]
    fn jenkins_cron_like_text_never_panics_and_refusals_name_a_field(spec in field_text(), job in "\\PC{0,12}") {
        match jenkins::schedule(&job, &spec) {
            Ok(schedule) => prop_assert!(schedule.days_of_week < 0x80),
            Err(refusal) => prop_assert!(FIELD_NAMES.contains(&refusal.field), "{refusal}"),
        }
    }
}

#[test]
fn a_fleets_jenkins_lines_start_at_their_hashed_minute() {
    use stampede_fleet::{self, cron::Horizon, file};
    let read = file::parse("jenkins\tteam/nightly build\tH H * * *\njenkins\tteam/docs\t@hourly\n");
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    // Two days from 2026-01-01T00:00:00Z.
    let from = 1_767_225_600;
    let expanded =
        stampede_fleet::expand(&read.lines, from, Horizon::hours(48).unwrap(), 0).unwrap();
    assert!(expanded.notices.is_empty(), "{:?}", expanded.notices);
    let nightly = jenkins::schedule("team/nightly build", "H H * * *").unwrap();
    let (minute, hour) = (
        nightly.minutes.trailing_zeros(),
        nightly.hours.trailing_zeros(),
    );
    let nightly_starts: Vec<i64> = expanded
        .starts
        .iter()
        .filter(|start| start.line == 1)
        .map(|start| start.at_micros / 1_000_000)
        .collect();
    let daily = i64::from(hour * 3600 + minute * 60);
    assert_eq!(nightly_starts, [from + daily, from + 86_400 + daily]);
    assert_eq!(
        expanded
            .starts
            .iter()
            .filter(|start| start.line == 2)
            .count(),
        48
    );
}
