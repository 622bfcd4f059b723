//! Puppet's `fqdn_rand` against Puppet itself: every vector in
//! `puppet_fqdn_rand.tsv` was printed by Debian's puppet 7.23.0 (see
//! `make_puppet_fqdn_rand.sh`).

use proptest::prelude::*;
use stampede_fleet as fleet;
use stampede_fleet::cron::{self, Horizon};
use stampede_fleet::file;
use stampede_fleet::jenkins::FIELD_NAMES;
use stampede_fleet::puppet::{self, FqdnRandDigest};

const VECTORS: &str = include_str!("../data/puppet_fqdn_rand.tsv");
/// 2024-02-26T00:00:00Z, a Monday.
const FROM: i64 = 1_708_905_600;

struct Row {
    digest: FqdnRandDigest,
    fqdn: &'static str,
    call: &'static str,
    /// `None` where Puppet fails.
    value: Option<u64>,
}

fn rows() -> Vec<Row> {
    VECTORS
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let columns: Vec<&str> = line.split('\t').collect();
            let [fips, fqdn, call, value] = columns[..] else {
                panic!("{line:?} has not 4 columns");
            };
            Row {
                digest: match fips {
                    "no" => FqdnRandDigest::Md5,
                    "yes" => FqdnRandDigest::Sha256,
                    other => panic!("fips {other:?}"),
                },
                fqdn,
                call,
                value: (value != "refused").then(|| value.parse().unwrap()),
            }
        })
        .collect()
}

#[test]
fn fqdn_rand_matches_puppet() {
    let rows = rows();
    assert!(rows.len() >= 100);
    for row in rows {
        let got = puppet::fqdn_rand(row.fqdn, row.call, row.digest);
        match row.value {
            Some(want) => assert_eq!(got, Ok(want), "{} {}", row.fqdn, row.call),
            None => assert!(
                got.is_err(),
                "{} {} should fail: {got:?}",
                row.fqdn,
                row.call
            ),
        }
    }
}

/// Each vector's call in the field its value fits, or refused in the
/// minute field when it does not: Puppet's cron type checks the number.
#[test]
fn calls_in_fields_write_their_values() {
    for row in rows() {
        let Some(value) = row.value else { continue };
        let spec = format!("{} 3 * * *", row.call);
        let got = puppet::schedule(row.fqdn, &spec, row.digest);
        if value > 59 {
            let refusal = got.unwrap_err();
            assert_eq!(refusal.field, "minute", "{spec}");
            assert!(refusal.reason.contains(&value.to_string()), "{refusal}");
            continue;
        }
        let want = cron::parse(&format!("{value} 3 * * *")).unwrap();
        assert_eq!(got, Ok(want), "{} {spec}", row.fqdn);
    }
}

#[test]
fn puppet_fleet_lines_start_where_puppet_writes_them() {
    let text = "puppet\tweb01.example.com\tfqdn_rand(60) fqdn_rand(24) * * *\n\
                puppet\tweb01.example.com\tfqdn_rand(60) 3 * * *\tFIPS=yes\n\
                puppet\tcafé.example.fr\tfqdn_rand(60, 'a b, c (d)'),45 */6 * * 1-5\n\
                puppet\tweb01.example.com\tfqdn_rand(60) * * * *\tFIPS=maybe\n\
                puppet\tweb01.example.com\tfqdn_rand(60 * * * *\n";
    let fleet = file::parse(text);
    assert_eq!(fleet.lines.len(), 3, "{:?}", fleet.skipped);
    assert_eq!(
        fleet
            .skipped
            .iter()
            .map(|skipped| (skipped.line, skipped.field.as_str()))
            .collect::<Vec<_>>(),
        [(4, "FIPS"), (5, "spec")]
    );
    let horizon = Horizon::hours(48).unwrap();
    let expansion = fleet::expand(&fleet.lines, FROM, horizon, 0).unwrap();
    assert!(expansion.notices.is_empty(), "{:?}", expansion.notices);
    let starts_of = |line: usize| -> Vec<i64> {
        expansion
            .starts
            .iter()
            .filter(|start| start.line == line)
            .map(|start| start.at_micros)
            .collect()
    };
    let micros = |day: i64, hour: i64, minute: i64| {
        (FROM + day * 86_400 + hour * 3600 + minute * 60) * 1_000_000
    };
    // Puppet: fqdn_rand(60) is 37 and fqdn_rand(24) is 2 on
    // web01.example.com; fqdn_rand(60) is 30 there on a FIPS host.
    let hour = 2;
    assert_eq!(starts_of(1), [micros(0, hour, 37), micros(1, hour, 37)]);
    assert_eq!(starts_of(2), [micros(0, 3, 30), micros(1, 3, 30)]);
    // Puppet: 34 on café.example.fr; Monday and Tuesday every six hours.
    let want: Vec<i64> = (0..2)
        .flat_map(|day| (0..24).step_by(6).map(move |hour| (day, hour)))
        .flat_map(|(day, hour)| [micros(day, hour, 34), micros(day, hour, 45)])
        .collect();
    assert_eq!(starts_of(3), want);
}

#[test]
fn puppet_refusals_name_the_field() {
    let field = |spec: &str| {
        puppet::schedule("web01.example.com", spec, FqdnRandDigest::Md5)
            .unwrap_err()
            .field
    };
    // Puppet: fqdn_rand(12, 'month') is 0 on WEB01.Example.COM, no month.
    let month = puppet::schedule(
        "WEB01.Example.COM",
        "0 0 1 fqdn_rand(12, 'month') *",
        FqdnRandDigest::Md5,
    );
    assert_eq!(month.unwrap_err().field, "month");
    assert_eq!(field("fqdn_rand(0) * * * *"), "minute");
    assert_eq!(field("0 fqdn_rand(-5) * * *"), "hour");
    let huge = puppet::schedule(
        "a",
        "0 fqdn_rand(99999999999999999999) * * *",
        FqdnRandDigest::Md5,
    );
    assert!(huge.unwrap_err().reason.contains("largest Integer"));
    assert_eq!(field("0 fqdn_rand(9223372036854775808) * * *"), "hour");
    assert_eq!(field("0 fqdn_rand(\u{3000}60) * * *"), "hour");
    assert_eq!(field("0 0 fqdn_rand(1000000) * *"), "day of month");
    assert_eq!(field("0 0 * fqdn_rand(60 *"), "month");
    assert_eq!(field("0 0 * * fqdn_rand(7, 'x'"), "day of week");
    assert_eq!(field("0 0 * * fqdn_rand(7, \"$node\")"), "day of week");
    assert_eq!(field("0 0 * * fqdn_rand(7, x)"), "day of week");
    assert_eq!(field("0 0 * * fqdn_rand(7, 'x', maybe)"), "day of week");
    assert_eq!(field("0 0 * * 1 fqdn_rand(7)"), "spec");
    assert_eq!(field("*/fqdn_rand(7) * * * *"), "minute");
    assert_eq!(field("fqdn_rand(7)-30 * * * *"), "minute");
    assert_eq!(field("fqdn_rand 7 * * * *"), "minute");
    assert_eq!(field("fqdn_rand(60)) * * * *"), "minute");
}

fn spec_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("fqdn_rand(".to_string()),
            Just("fqdn_rand".to_string()),
            Just("(".to_string()),
            Just(")".to_string()),
            Just(",".to_string()),
            Just(" ".to_string()),
            Just("'".to_string()),
            Just("\"".to_string()),
            Just("\\".to_string()),
            Just("\\u{".to_string()),
            Just("\\u".to_string()),
            Just("}".to_string()),
            Just("$".to_string()),
            Just("*".to_string()),
            Just("/".to_string()),
            Just("-".to_string()),
            Just("0x".to_string()),
            Just("true".to_string()),
            Just("é".to_string()),
            Just("@daily".to_string()),
            Just("99999999999999999999999".to_string()),
            Just("9223372036854775807".to_string()),
            (0u64..100).prop_map(|n| n.to_string()),
            "[0-9a-fA-F]{1,8}",
        ],
        0..24,
    )
    .prop_map(|parts| parts.concat())
}

fn five_fields() -> impl Strategy<Value = String> {
    let call = (1u64..100, prop::option::of("[a-z ]{0,6}")).prop_map(|(n, seed)| match seed {
        Some(seed) => format!("fqdn_rand({n}, '{seed}')"),
        None => format!("fqdn_rand({n})"),
    });
    let field = prop_oneof![
        call,
        Just("*".to_string()),
        (0u32..40).prop_map(|n| n.to_string())
    ];
    prop::collection::vec(field, 5).prop_map(|fields| fields.join(" "))
}

fn names_a_field(field: &str) -> bool {
    FIELD_NAMES.contains(&field) || field == "spec"
}

proptest! {
    #[test]
    fn puppet_never_panics_and_refusals_name_a_field(
        fqdn in ".{0,12}",
        spec in spec_text(),
        text in ".{0,40}",
    ) {
        for spec in [&spec, &text] {
            for digest in [FqdnRandDigest::Md5, FqdnRandDigest::Sha256] {
                if let Err(refusal) = puppet::schedule(&fqdn, spec, digest) {
                    prop_assert!(names_a_field(refusal.field), "{:?}", refusal);
                }
                if let Err(refusal) = puppet::fqdn_rand(&fqdn, spec, digest) {
                    prop_assert!(names_a_field(refusal.field), "{:?}", refusal);
                }
            }
        }
    }

    #[test]
    fn near_valid_specs_read_or_name_a_field(fqdn in ".{1,12}", spec in five_fields()) {
        match puppet::schedule(&fqdn, &spec, FqdnRandDigest::Md5) {
            Ok(schedule) => prop_assert!(schedule.minutes != 0),
            Err(refusal) => prop_assert!(names_a_field(refusal.field), "{:?}", refusal),
        }
    }
}
