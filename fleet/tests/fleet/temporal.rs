//! Temporal schedules against Temporal itself: every vector in
//! `temporal_starts.tsv` and `temporal_durations.tsv` was made with
//! Temporal's own cron and duration parsers, Go's `MarshalBinary` and
//! pyfarmhash (see `make_temporal_vectors.py`).

use proptest::prelude::*;
use stampede_fleet as fleet;
use stampede_fleet::cron::Horizon;
use stampede_fleet::file;
use stampede_fleet::temporal::TemporalSchedule;
use stampede_fleet::temporal::duration::temporal_duration_nanos;
use stampede_fleet::time::Window;

const STARTS: &str = include_str!("../data/temporal_starts.tsv");
const DURATIONS: &str = include_str!("../data/temporal_durations.tsv");
/// 2024-02-26T00:00:00Z.
const FROM: i64 = 1_708_905_600;

struct Row<'a> {
    namespace: &'a str,
    id: &'a str,
    spec: &'a str,
    jitter: Option<&'a str>,
    window: Window,
    want: &'a str,
}

fn rows() -> Vec<Row<'static>> {
    STARTS
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let columns: Vec<&str> = line.split('\t').collect();
            let seconds = |at: &str| at.parse::<i64>().unwrap() * 1_000_000;
            Row {
                namespace: columns[0],
                id: columns[1],
                spec: columns[2],
                jitter: Some(columns[3]).filter(|jitter| !jitter.is_empty()),
                window: Window {
                    from: seconds(columns[4]),
                    end: seconds(columns[5]),
                },
                want: columns[6],
            }
        })
        .collect()
}

fn starts(schedule: &TemporalSchedule, window: Window) -> Vec<i64> {
    let mut out = Vec::new();
    assert!(!schedule.push_starts(window, &mut out, usize::MAX));
    out
}

#[test]
fn temporal_starts_match_temporal() {
    let rows = rows();
    assert!(rows.len() >= 100);
    for row in rows {
        let got = TemporalSchedule::read(row.id, row.spec, row.jitter, Some(row.namespace));
        if let Some(field) = row.want.strip_prefix("refused ") {
            let refusal = got.expect_err(row.spec);
            assert_eq!(refusal.field, field, "{:?} {:?}", row.spec, row.jitter);
            continue;
        }
        let schedule = got.unwrap_or_else(|refusal| panic!("{:?}: {refusal:?}", row.spec));
        let want: Vec<i64> = row
            .want
            .split(',')
            .filter(|at| !at.is_empty())
            .map(|at| at.parse().unwrap())
            .collect();
        let got = starts(&schedule, row.window);
        assert_eq!(got, want, "{:?} {:?} {:?}", row.id, row.spec, row.jitter);
    }
}

#[test]
fn temporal_durations_match_temporal() {
    let rows: Vec<(&str, &str)> = DURATIONS
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| line.split_once('\t').unwrap())
        .collect();
    assert!(rows.len() >= 40);
    for (text, want) in rows {
        let got = temporal_duration_nanos(text);
        match want {
            "refused" => assert!(got.is_err(), "{text:?}: {got:?}"),
            nanos => assert_eq!(got, Ok(nanos.parse().unwrap()), "{text:?}"),
        }
    }
}

/// A window cut anywhere gives the same starts as the whole, so the starts
/// delayed into a window from before it are found.
#[test]
fn temporal_windows_split_anywhere() {
    let schedule =
        TemporalSchedule::read("sync", "every 90s offset 10s", Some("3h"), Some("ns")).unwrap();
    let whole = Window {
        from: FROM * 1_000_000,
        end: (FROM + 6 * 3600) * 1_000_000,
    };
    let all = starts(&schedule, whole);
    for cut in [1, 999_999, 45_000_123, 3600 * 1_000_000 + 7] {
        let cut = whole.from + cut;
        let mut parts = starts(&schedule, Window { end: cut, ..whole });
        parts.extend(starts(&schedule, Window { from: cut, ..whole }));
        assert_eq!(parts, all, "{cut}");
    }
    let mut out = Vec::new();
    assert!(schedule.push_starts(whole, &mut out, 5));
    assert_eq!(out, all[..5]);
}

#[test]
fn temporal_fleet_lines_expand_and_refuse() {
    let text = "temporal\tbilling/invoices\tevery 15m offset 7m\tJitter=10m\tNamespace=3a1f6d2e-8c4b-4f7a-9b1e-2d5c6e7f8a90\n\
                temporal\treport\t0 9 * * mon-fri\n\
                temporal\tno namespace\tevery 5m\tJitter=1m\n\
                temporal\tnew york\tCRON_TZ=America/New_York 0 9 * * *\n\
                temporal\tbad jitter\tevery 5m\tJitter=5 minutes\tNamespace=ns\n\
                temporal\tbad spec\t0 0 * * 1-8\n";
    let fleet = file::parse(text);
    assert_eq!(fleet.lines.len(), 2);
    let skipped: Vec<(usize, &str)> = fleet
        .skipped
        .iter()
        .map(|skipped| (skipped.line, skipped.field.as_str()))
        .collect();
    assert_eq!(
        skipped,
        [(3, "Namespace"), (4, "spec"), (5, "Jitter"), (6, "spec")]
    );
    let expansion = fleet::expand(&fleet.lines, FROM, Horizon::hours(24).unwrap(), 0).unwrap();
    assert!(expansion.notices.is_empty(), "{:?}", expansion.notices);
    let vectors = rows();
    let want = vectors
        .iter()
        .find(|row| row.spec == "every 15m offset 7m" && row.jitter == Some("10m"))
        .unwrap();
    assert_eq!(want.namespace, "3a1f6d2e-8c4b-4f7a-9b1e-2d5c6e7f8a90");
    let schedule = TemporalSchedule::read(
        "billing/invoices",
        "every 15m offset 7m",
        Some("10m"),
        Some(want.namespace),
    )
    .unwrap();
    let from = FROM * 1_000_000;
    let got: Vec<i64> = expansion
        .starts
        .iter()
        .filter(|start| start.id == "billing/invoices")
        .map(|start| start.at_micros)
        .collect();
    let end = (FROM + 86_400) * 1_000_000;
    assert_eq!(got, starts(&schedule, Window { from, end }));
    // Besides the quarter hours, one weekday 09:00.
    assert_eq!(expansion.starts.len(), got.len() + 1);
}

/// Temporal ANDs the day fields, where Vixie cron would OR them: the 1st
/// and the 15th only when they are Mondays.
#[test]
fn temporal_days_must_match_both_fields() {
    let schedule = TemporalSchedule::read("job", "0 0 1,15 * mon", None, None).unwrap();
    let from = 1_704_067_200; // 2024-01-01, a Monday
    let got = starts(
        &schedule,
        Window {
            from: from * 1_000_000,
            end: (from + 366 * 86_400) * 1_000_000,
        },
    );
    // 2024-01-01, 01-15, 04-01, 04-15, 07-01 and 07-15.
    let days: Vec<i64> = got
        .iter()
        .map(|at| (at / 1_000_000 - from) / 86_400)
        .collect();
    assert_eq!(days, [0, 14, 91, 105, 182, 196]);
}

fn near_valid_spec() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("every ".to_string()),
            Just("@every ".to_string()),
            Just(" offset ".to_string()),
            Just("TZ=UTC ".to_string()),
            Just("CRON_TZ=".to_string()),
            Just("@daily".to_string()),
            Just("*".to_string()),
            Just("/".to_string()),
            Just("-".to_string()),
            Just("+".to_string()),
            Just(",".to_string()),
            Just(".".to_string()),
            Just("#".to_string()),
            Just(" ".to_string()),
            Just("\u{a0}".to_string()),
            Just("d".to_string()),
            Just("h".to_string()),
            Just("ms".to_string()),
            Just("µs".to_string()),
            Just("mon".to_string()),
            Just("İ".to_string()),
            Just("janu".to_string()),
            Just("99999999999999999999".to_string()),
            (0u32..2200).prop_map(|n| n.to_string()),
        ],
        0..20,
    )
    .prop_map(|parts| parts.concat())
}

fn check(spec: &str, jitter: Option<&str>, from: i64) -> Result<(), TestCaseError> {
    match TemporalSchedule::read("job", spec, jitter, Some("ns")) {
        Err(refusal) => {
            prop_assert!(
                ["spec", "Jitter"].contains(&refusal.field.as_str()),
                "{refusal:?}"
            );
            prop_assert!(!refusal.reason.is_empty());
        }
        Ok(schedule) => {
            let window = Window {
                from,
                end: from + 31 * 86_400 * 1_000_000,
            };
            let mut out = Vec::new();
            schedule.push_starts(window, &mut out, 10_000);
            prop_assert!(out.is_sorted());
            prop_assert!(out.iter().all(|at| (window.from..window.end).contains(at)));
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn temporal_text_never_panics(spec in ".{0,40}", jitter in ".{0,12}") {
        check(&spec, Some(&jitter), FROM * 1_000_000)?;
    }

    #[test]
    fn temporal_near_valid_specs_never_panic(
        spec in near_valid_spec(),
        jitter in near_valid_spec(),
        from in prop_oneof![-62_135_596_800i64..253_402_300_799, -86_400i64..4_134_000_000],
    ) {
        check(&spec, Some(&jitter), from * 1_000_000)?;
        check(&spec, None, from * 1_000_000)?;
    }
}
