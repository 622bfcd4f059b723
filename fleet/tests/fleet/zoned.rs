//! Cron lines in a zone against simulations: every vector in
//! `cron_zoned.tsv` was made by `make_cron_zoned.py`, which steps cronie's
//! main loop minute by minute over Python's zoneinfo for `TZ=` (the
//! machine's clock) and matches every real minute on the zone's wall clock
//! for `CRON_TZ=` (the job's own zone). The notices of zone changes are
//! checked against the changes CPython's zoneinfo finds
//! (`zone_changes.tsv`, made by `make_zone_changes.py`); what cron does
//! with a skipped or repeated minute is checked by hand against cronie's
//! source, as no cron daemon runs here.

use proptest::prelude::*;
use stampede_fleet::cron::{self, Horizon};
use stampede_fleet::file;
use stampede_fleet::{self, Start};

const VECTORS: &str = include_str!("../data/cron_zoned.tsv");
const ZONE_CHANGES: &str = include_str!("../data/zone_changes.tsv");

fn seconds(starts: &[Start<'_>]) -> Vec<i64> {
    starts
        .iter()
        .map(|start| start.at_micros / 1_000_000)
        .collect()
}

#[test]
fn zoned_lines_start_where_crons_loop_runs_them() {
    let mut rows = 0;
    for row in VECTORS.lines().filter(|line| !line.starts_with('#')) {
        let columns: Vec<&str> = row.split('\t').collect();
        let [option, spec, zone, from, hours, want] = columns[..] else {
            panic!("bad row {row:?}");
        };
        let read = file::parse(&format!("cron\tjob\t{spec}\t{option}={zone}\n"));
        assert!(read.skipped.is_empty(), "{row}: {:?}", read.skipped);
        let horizon = Horizon::hours(hours.parse().unwrap()).unwrap();
        let expansion =
            stampede_fleet::expand(&read.lines, from.parse().unwrap(), horizon, 0).unwrap();
        let want: Vec<i64> = want
            .split(',')
            .filter(|at| !at.is_empty())
            .map(|at| at.parse().unwrap())
            .collect();
        assert_eq!(
            seconds(&expansion.starts),
            want,
            "{spec:?} in {zone} from {from}"
        );
        rows += 1;
    }
    assert!(rows >= 100);
}

#[test]
fn a_skipped_fixed_time_job_runs_at_the_jump_and_a_repeated_one_once() {
    // Berlin, 30 March 2025: 02:00 CET becomes 03:00 CEST at 01:00Z.
    let spring = 1_743_206_400;
    let read = file::parse(
        "cron\tfixed\t30 2 * * *\tTZ=Europe/Berlin\n\
         cron\twild\t*/30 2 * * *\tTZ=Europe/Berlin\n",
    );
    let day = Horizon::hours(48).unwrap();
    let expansion = stampede_fleet::expand(&read.lines, spring, day, 0).unwrap();
    let fixed: Vec<i64> = expansion
        .starts
        .iter()
        .filter(|start| start.id == "fixed")
        .map(|start| start.at_micros / 1_000_000)
        .collect();
    assert_eq!(fixed, [1_743_211_800, 1_743_296_400]);
    // The wildcard job runs on the clock: no 02:xx that day, so two runs.
    let wild = expansion.starts.iter().filter(|s| s.id == "wild").count();
    assert_eq!(wild, 2);
    // 26 October 2025: 03:00 CEST becomes 02:00 CET; 02:30 comes twice.
    let autumn = 1_761_350_400;
    let expansion = stampede_fleet::expand(&read.lines, autumn, day, 0).unwrap();
    let fixed = expansion.starts.iter().filter(|s| s.id == "fixed").count();
    let wild = expansion.starts.iter().filter(|s| s.id == "wild").count();
    assert_eq!((fixed, wild), (2, 6));
}

#[test]
fn wildcard_time_is_read_as_cron_flags_it() {
    assert!(cron::time_is_wildcard("*/5 3 * * *"));
    assert!(cron::time_is_wildcard("0 * * * *"));
    assert!(cron::time_is_wildcard("@hourly"));
    assert!(!cron::time_is_wildcard("@daily"));
    assert!(!cron::time_is_wildcard("0-59/5 3 * * *"));
}

#[test]
fn the_jobs_own_zone_skips_a_skipped_time_and_repeats_a_repeated_one() {
    let read = file::parse("cron\tfixed\t30 2 * * *\tCRON_TZ=Europe/Berlin\n");
    let day = Horizon::hours(48).unwrap();
    let spring = stampede_fleet::expand(&read.lines, 1_743_206_400, day, 0).unwrap();
    assert_eq!(seconds(&spring.starts), [1_743_211_800]);
    let autumn = stampede_fleet::expand(&read.lines, 1_761_350_400, day, 0).unwrap();
    assert_eq!(
        seconds(&autumn.starts),
        [1_761_352_200, 1_761_438_600, 1_761_442_200]
    );
    let both = file::parse("cron\tjob\t0 9 * * *\tTZ=Europe/Paris\tCRON_TZ=Europe/Paris\n");
    assert_eq!(both.skipped[0].field, "CRON_TZ");
}

#[test]
fn an_unknown_zone_is_refused_by_name() {
    let read = file::parse("cron\tjob\t0 9 * * *\tTZ=Mars/Olympus_Mons\n");
    assert_eq!(read.skipped[0].field, "TZ");
    assert!(read.skipped[0].reason.contains("Mars/Olympus_Mons"));
}

/// The notices of a fleet's expansion over two days from `from`, as
/// (line, message).
fn notices(fleet: &str, from: i64) -> Vec<(usize, String)> {
    let read = file::parse(fleet);
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    let expansion =
        stampede_fleet::expand(&read.lines, from, Horizon::hours(48).unwrap(), 0).unwrap();
    expansion
        .notices
        .into_iter()
        .map(|notice| (notice.line, notice.message))
        .collect()
}

// Berlin, 2026: 02:00 CET becomes 03:00 CEST on 29 March, 03:00 CEST
// becomes 02:00 CET on 25 October (both at 01:00Z).
const SPRING_2026: i64 = 1_774_656_000;
const AUTUMN_2026: i64 = 1_792_800_000;

#[test]
fn a_skipped_or_repeated_local_minute_is_told_with_what_becomes_of_it() {
    let fleet = "cron\tfixed\t30 2 * * *\tTZ=Europe/Berlin\n\
                 cron\twild\t*/15 2 * * *\tTZ=Europe/Berlin\n\
                 cron\town\t30 2 * * *\tCRON_TZ=Europe/Berlin\n\
                 cron\tpair\t0,30 2 * * *\tCRON_TZ=Europe/Berlin\n\
                 cron\tclear\t30 4 * * *\tCRON_TZ=Europe/Berlin\n";
    assert_eq!(
        notices(fleet, SPRING_2026),
        [
            (
                1,
                "02:30 on 2026-03-29 does not exist in Europe/Berlin (clocks went forward); \
                 cron runs it at the change"
                    .to_string()
            ),
            (
                2,
                "02:00 to 02:45 (4 starts) on 2026-03-29 do not exist in Europe/Berlin \
                 (clocks went forward), so these starts are skipped"
                    .to_string()
            ),
            (
                3,
                "02:30 on 2026-03-29 does not exist in Europe/Berlin (clocks went forward), \
                 so this start is skipped"
                    .to_string()
            ),
            (
                4,
                "02:00 and 02:30 on 2026-03-29 do not exist in Europe/Berlin \
                 (clocks went forward), so these starts are skipped"
                    .to_string()
            ),
        ]
    );
    assert_eq!(
        notices(fleet, AUTUMN_2026),
        [
            (
                1,
                "02:30 on 2026-10-25 happens twice in Europe/Berlin (clocks went back); \
                 cron runs it once"
                    .to_string()
            ),
            (
                2,
                "02:00 to 02:45 (4 starts) on 2026-10-25 happen twice in Europe/Berlin \
                 (clocks went back), so these starts run twice"
                    .to_string()
            ),
            (
                3,
                "02:30 on 2026-10-25 happens twice in Europe/Berlin (clocks went back), \
                 so this start runs twice"
                    .to_string()
            ),
            (
                4,
                "02:00 and 02:30 on 2026-10-25 happen twice in Europe/Berlin \
                 (clocks went back), so these starts run twice"
                    .to_string()
            ),
        ]
    );
}

/// Every change of offset in eight zones from 2011 through 2025, as
/// CPython's zoneinfo finds it (`make_zone_changes.py`): a line due every
/// minute hears of it once, naming the local minutes zoneinfo says it
/// skips or repeats. What cron does with them is the source's, by hand.
#[test]
fn each_change_names_the_minutes_zoneinfo_says_it_skips_or_repeats() {
    let mut rows = 0;
    for row in ZONE_CHANGES.lines().filter(|line| !line.starts_with('#')) {
        let columns: Vec<&str> = row.split('\t').collect();
        let [zone, at, kind, date, first, last, minutes] = columns[..] else {
            panic!("bad row {row:?}");
        };
        let at: i64 = at.parse().unwrap();
        let from = at - at.rem_euclid(60) - 86_400;
        let verb = match kind {
            "gap" => "do not exist",
            _ => "happen twice",
        };
        let want = format!("{first} to {last} ({minutes} starts) on {date} {verb} in {zone} ");
        for clock in ["CRON_TZ", "TZ"] {
            let told = notices(&format!("cron\tjob\t* * * * *\t{clock}={zone}\n"), from);
            assert_eq!(told.len(), 1, "{row}: {told:?}");
            assert!(told[0].1.starts_with(&want), "{row}: {told:?}");
        }
        rows += 1;
    }
    assert!(rows >= 180);
}

#[test]
fn a_change_outside_the_horizon_or_between_starts_is_not_told() {
    let berlin = "cron\tfixed\t30 2 * * *\tTZ=Europe/Berlin\n";
    assert!(notices(berlin, SPRING_2026 - 7 * 86_400).is_empty());
    assert!(notices(berlin, SPRING_2026 + 2 * 86_400).is_empty());
    // New York changes at 02:00 local, two weeks before Berlin.
    let new_york = "cron\tfixed\t30 2 * * *\tCRON_TZ=America/New_York\n";
    assert!(notices(new_york, SPRING_2026).is_empty());
    assert_eq!(notices(new_york, SPRING_2026 - 20 * 86_400).len(), 1);
}

#[test]
fn each_change_is_told_once_however_many_starts_it_touches() {
    // Every minute for a month holding one change: one notice, the
    // sixty skipped minutes counted in it.
    let every_minute = "cron\tjob\t* * * * *\tCRON_TZ=Europe/Berlin\n";
    let read = file::parse(every_minute);
    let month = Horizon::hours(31 * 24).unwrap();
    let expansion = stampede_fleet::expand(&read.lines, SPRING_2026 - 86_400, month, 0).unwrap();
    let told: Vec<_> = expansion.notices.iter().map(|n| &n.message).collect();
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].starts_with("02:00 to 02:59 (60 starts) on 2026-03-29"));
}

proptest! {
    #[test]
    fn zoned_starts_are_in_order_and_in_the_horizon(
        zone in prop::sample::select(vec![
            "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Pacific/Apia",
            "America/Sao_Paulo", "Asia/Kathmandu", "Antarctica/Troll", "Pacific/Chatham",
        ]),
        spec in prop::sample::select(vec!["* * * * *", "*/7 2 * * *", "30 2 * * *", "0 0 * * *", "59 23 31 12 *"]),
        from in 1_200_000_000i64..1_800_000_000,
        hours in 1u32..200,
    ) {
        let from = from - from % 60;
        let read = file::parse(&format!("cron\tjob\t{spec}\tTZ={zone}\n"));
        let horizon = Horizon::hours(hours).unwrap();
        let expansion = stampede_fleet::expand(&read.lines, from, horizon, 0).unwrap();
        let starts = seconds(&expansion.starts);
        prop_assert!(starts.is_sorted());
        prop_assert!(starts.iter().all(|&at| at >= from && at < from + i64::from(hours) * 3600));
    }
}
