//! Where the schedulers stop searching, each said where it happens, and
//! every instant written as RFC 3339 up to the last second of 9999.

use stampede_fleet::cron::Horizon;
use stampede_fleet::{expand, file, time};

fn notices_of(fleet: &str, from: &str, hours: u32) -> Vec<String> {
    let lines = file::parse(fleet).lines;
    let from = time::parse("from", from).unwrap();
    let expansion = expand(&lines, from, Horizon::hours(hours).unwrap(), 1).unwrap();
    expansion
        .notices
        .iter()
        .map(|notice| format!("{}: {}", notice.line, notice.message))
        .collect()
}

#[test]
fn a_horizon_past_a_schedulers_last_year_says_so_with_the_last_start() {
    let temporal = notices_of("temporal\tt\t0 0 * * *\n", "2100-12-31T00:00:00Z", 48);
    assert_eq!(
        temporal,
        [
            "1: Temporal places no start after 2100-12-31T23:59:59Z, and the horizon runs past it: \
          its last start is 2100-12-31T00:00:00Z"
        ]
    );
    let systemd = notices_of(
        "systemd\ts\t*-*-* 12:00:00\tAccuracySec=1us\n",
        "2199-12-31T00:00:00Z",
        48,
    );
    assert!(
        systemd.iter().any(|n| n
            == "1: systemd places no start after 2199-12-31T23:59:59Z, and the horizon runs past it: \
                its last start is 2199-12-31T12:00:00Z"),
        "{systemd:?}"
    );
    let interval = notices_of("prometheus\tp\t1h\tJob=x\n", "9999-12-30T00:00:00Z", 72);
    assert_eq!(interval.len(), 1, "{interval:?}");
    assert!(interval[0].starts_with("1: no start is placed after 9999-12-31T23:59:59Z"));
    // Within the years searched, nothing is said.
    assert!(notices_of("temporal\tt\t0 0 * * *\n", "2100-12-29T00:00:00Z", 48).is_empty());
}

#[test]
fn instants_past_the_last_timestamp_jiff_holds_are_still_rfc_3339() {
    let last_second_of_9999 = 253_402_300_799;
    assert_eq!(time::format(last_second_of_9999), "9999-12-31T23:59:59Z");
    assert_eq!(
        time::format_micros(253_402_207_260_000_000),
        "9999-12-30T22:01:00Z"
    );
    assert_eq!(
        time::format_micros(-62_135_596_800_000_000),
        "0001-01-01T00:00:00Z"
    );
    assert_eq!(time::format_micros(1_500_000), "1970-01-01T00:00:01.5Z");
}

#[test]
fn a_schedule_no_date_matches_is_named_as_never_running() {
    let fleet = "cron\ta\t0 0 30 2 *\ncron\tb\t0 0 31 4,6 *\ncron\tc\t0 0 29 2 *\n\
                 cron\td\t0 0 30 2 mon\njenkins\te\tH H 31 11 *\ncroniter\tf\t0 0 31 2 *\n\
                 systemd\tg\t*-02-30\ntemporal\th\t0 0 30 2 *\n";
    let notices = notices_of(fleet, "2026-01-01T00:00:00Z", 24);
    let never: Vec<&String> = notices
        .iter()
        .filter(|n| n.contains("never runs"))
        .collect();
    assert_eq!(
        never,
        [
            "1: \"0 0 30 2 *\" never runs: February has no 30th",
            "2: \"0 0 31 4,6 *\" never runs: April and June have no 31st",
            "5: \"H H 31 11 *\" never runs: November has no 31st",
            "6: \"0 0 31 2 *\" never runs: February has no 31st",
            "7: \"*-02-30\" never runs: no date from 2026-01-01 to the end of 2199, where systemd \
             stops looking, matches it",
            "8: \"0 0 30 2 *\" never runs: no date from 2026-01-01 to the end of 2100, where \
             Temporal stops looking, matches it",
        ]
    );
}

#[test]
fn the_fix_leaves_a_schedule_that_never_runs_as_written_and_says_why() {
    use stampede_fleet::fix::{self, FixChange};
    let lines = file::parse("cron\ta\t0 0 30 2 *\ncron\tb\t0 0 * * *\ncron\tc\t0 0 * * *\n").lines;
    let from = time::parse("from", "2026-01-01T00:00:00Z").unwrap();
    let kept_why = |fixes: &[fix::LineFix]| match &fixes[0].change {
        FixChange::Kept { why } => why.clone(),
        other => panic!("moved: {other:?}"),
    };
    let horizon = Horizon::hours(24).unwrap();
    let hashed = fix::fix_crowded(&lines, None, from, horizon, 1).unwrap();
    assert_eq!(kept_why(&hashed), "it never runs: February has no 30th");
    let levelled = stampede_fleet::level::level(&lines, &[], None, from, horizon, 1).unwrap();
    assert_eq!(
        kept_why(&levelled.fixes),
        "it never runs: February has no 30th"
    );
    assert_eq!(
        kept_why(&fix::fix_lines(&lines, None)),
        "it never runs: February has no 30th"
    );
}
