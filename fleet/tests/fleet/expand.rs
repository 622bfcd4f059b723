//! The fleet file, Vixie cron and fleet expansion: starts checked by hand
//! and against croniter's, load figures on small fleets, and properties.

use proptest::prelude::*;
use stampede_fleet::MOST_STARTS;
use stampede_fleet::cron::{self, Horizon};
use stampede_fleet::file::{self, System};
use stampede_fleet::time::days_from_civil;

/// Monday 2024-02-26 00:00 UTC: the week after it crosses the leap day.
const MONDAY: i64 = 1_708_905_600;

/// Starts croniter 7.0.0 gave for each spec; the file's header says how.
const CRON_STARTS: &str = include_str!("../data/cron_starts.tsv");

fn at(year: i64, month: u32, day: u32, hour: i64, minute: i64) -> i64 {
    days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60
}

fn starts(spec: &str, from: i64, horizon: Horizon) -> Vec<i64> {
    cron::parse(spec).unwrap().starts(from, horizon).collect()
}

#[test]
fn cron_starts_match_croniter() {
    let week = Horizon::hours(7 * 24).unwrap();
    let mut specs = 0;
    for row in CRON_STARTS.lines().filter(|row| !row.starts_with('#')) {
        let [spec, count, list] = row.split('\t').collect::<Vec<_>>()[..] else {
            panic!("bad row {row:?}");
        };
        let expected: Vec<i64> = list
            .split(',')
            .filter(|n| !n.is_empty())
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(expected.len(), count.parse::<usize>().unwrap());
        assert_eq!(starts(spec, MONDAY, week), expected, "{spec}");
        specs += 1;
    }
    assert!(specs >= 100, "only {specs} specs");
}

#[test]
fn hand_checked_starts() {
    let day = Horizon::hours(24).unwrap();
    assert_eq!(starts("30 2 * * *", MONDAY, day), [at(2024, 2, 26, 2, 30)]);
    assert_eq!(
        starts("0 */8 * * *", MONDAY, day),
        [MONDAY, MONDAY + 8 * 3600, MONDAY + 16 * 3600]
    );
    // Only the leap day in a week.
    let week = Horizon::hours(7 * 24).unwrap();
    assert_eq!(starts("0 0 29 2 *", MONDAY, week), [at(2024, 2, 29, 0, 0)]);
    // A `from` between minutes starts binning at the next whole minute.
    let two = Horizon::minutes(2).unwrap();
    assert_eq!(
        starts("* * * * *", MONDAY + 30, two),
        [MONDAY + 60, MONDAY + 120]
    );
    // Before 1970 too.
    assert_eq!(
        starts(
            "@yearly",
            at(1969, 12, 31, 23, 0),
            Horizon::hours(2).unwrap()
        ),
        [0]
    );
}

/// Where Vixie and croniter part: Vixie decides whether a day field is
/// restricted by its first character alone.
#[test]
fn a_day_field_is_restricted_by_its_first_character() {
    let month = Horizon::hours(31 * 24).unwrap();
    // `*/2` counts as `*`: Mondays that are odd days (AND).
    assert_eq!(
        starts("0 0 */2 * 1", MONDAY, month),
        [at(2024, 3, 11, 0, 0), at(2024, 3, 25, 0, 0)]
    );
    // `10,*` does not start with `*`: every day of month OR Tuesday.
    let week = Horizon::hours(7 * 24).unwrap();
    assert_eq!(starts("0 12 10,* * 2", MONDAY, week).len(), 7);
    // `*,10` does: all days AND Tuesday.
    assert_eq!(
        starts("0 12 *,10 * 2", MONDAY, week),
        [at(2024, 2, 27, 12, 0)]
    );
}

#[test]
fn cron_refusals_say_why() {
    let refusal = cron::parse("@reboot").unwrap_err();
    assert_eq!(refusal.field, "spec");
    assert!(refusal.reason.contains("boot"));
    let refusal = cron::parse("0 0 * dec-jan *").unwrap_err();
    assert_eq!(refusal.field, "month");
    assert!(refusal.reason.contains("backwards"), "{}", refusal.reason);
    assert_eq!(cron::parse("0 0 * * 1/x").unwrap_err().field, "day of week");
}

#[test]
fn a_fleet_file_reads_good_lines_and_skips_bad_ones_with_reasons() {
    let text = "# my fleet\r\n\
        cron\tnightly backup/db ☕\t30 2 * * *\tDuration=1h30m\tWeight=2\r\n\
        \n\
        jenkins\tbuild\tH * * * *\n\
        cron\tparis\t0 9 * * *\tTZ=Europe/Atlantis\n\
        cron\tutc\t0 9 * * *\tTZ=UTC\n\
        jenkins\tzoned\tH 9 * * *\tTZ=UTC\n\
        cron\tbad\t61 * * * *\n\
        cron 0 * * * * spaces\n\
        cron\t\t0 * * * *\n\
        cron\tno spec\n\
        cron\tx\t0 * * * *\tWeight=-1\n\
        cron\tx\t0 * * * *\tColour=red\n";
    let read = file::parse(text);
    let lines: Vec<(usize, System, &str)> = read
        .lines
        .iter()
        .map(|line| (line.line, line.system, line.id.as_str()))
        .collect();
    assert_eq!(
        lines,
        [
            (2, System::Cron, "nightly backup/db ☕"),
            (4, System::Jenkins, "build"),
            (6, System::Cron, "utc"),
        ]
    );
    assert_eq!(
        file::parse("cron\tparis\t0 9 * * *\tTZ=Europe/Paris")
            .lines
            .len(),
        1
    );
    assert_eq!(read.lines[0].options.duration_seconds, Some(5400));
    assert_eq!(read.lines[0].options.weight, 2.0);
    let skipped: Vec<(usize, &str)> = read
        .skipped
        .iter()
        .map(|skip| (skip.line, skip.field.as_str()))
        .collect();
    assert_eq!(
        skipped,
        [
            (5, "TZ"),
            (7, "TZ"),
            (8, "spec"),
            (9, "system"),
            (10, "id"),
            (11, "spec"),
            (12, "Weight"),
            (13, "Colour"),
        ]
    );
    assert!(
        read.skipped[0]
            .reason
            .contains("\"Europe/Atlantis\" is not an IANA time zone")
    );
    assert!(read.skipped[2].reason.starts_with("minute:"));
}

#[test]
fn load_figures_of_a_small_fleet() {
    let read = file::parse(
        "cron\ta\t0 * * * *\tDuration=90s\n\
         cron\tb\t0 * * * *\tWeight=2\n\
         cron\tc\t1 * * * *\tDuration=2m\tWeight=0.5\n",
    );
    let hour = Horizon::hours(1).unwrap();
    let expansion = stampede_fleet::expand(&read.lines, MONDAY, hour, 0).unwrap();
    let starts: Vec<(usize, i64)> = expansion
        .starts
        .iter()
        .map(|s| (s.line, s.at_micros / 1_000_000))
        .collect();
    assert_eq!(starts, [(1, MONDAY), (2, MONDAY), (3, MONDAY + 60)]);
    assert_eq!(expansion.starts_per_minute.len(), 60);
    assert_eq!(expansion.starts_per_minute[..3], [2, 1, 0]);
    let running = expansion.running_per_minute.as_ref().unwrap();
    assert_eq!(running[..4], [3.0, 1.5, 0.5, 0.0]);
    let peak = expansion.running_peak.unwrap();
    assert_eq!((peak.minute, peak.running), (0, 3.0));
    let busiest = expansion.peak.as_ref().unwrap();
    assert_eq!((busiest.minute, busiest.starts), (0, 2));
    let ids: Vec<&str> = busiest.jobs.iter().map(|job| job.id).collect();
    assert_eq!(ids, ["a", "b"]);
    assert_eq!(expansion.shared.minutes, 1);
    assert_eq!(expansion.shared.starts, 2);
    assert_eq!(expansion.shared.most_in_a_minute, 2);
    let crowded: Vec<(u32, u32)> = expansion
        .crowded
        .iter()
        .map(|m| (m.minute, m.starts))
        .collect();
    assert_eq!(crowded, [(0, 2), (1, 1)]);
    assert!(expansion.notices.is_empty());
}

#[test]
fn a_line_made_by_hand_with_a_bad_spec_is_noted_not_expanded() {
    let mut read = file::parse("cron\ta\t0 * * * *\n");
    read.lines[0].spec = "61 * * * *".to_string();
    let expansion =
        stampede_fleet::expand(&read.lines, MONDAY, Horizon::hours(1).unwrap(), 0).unwrap();
    assert!(expansion.starts.is_empty());
    assert_eq!(expansion.notices.len(), 1);
    assert_eq!(expansion.notices[0].line, 1);
    assert!(
        expansion.notices[0]
            .message
            .starts_with("not expanded: spec: minute:"),
        "{}",
        expansion.notices[0].message
    );
}

#[test]
fn a_run_crossing_the_horizon_counts_to_its_end_only() {
    let read = file::parse("cron\tlong\t58 * * * *\tDuration=1h\n");
    let expansion =
        stampede_fleet::expand(&read.lines, MONDAY, Horizon::hours(1).unwrap(), 0).unwrap();
    let running = expansion.running_per_minute.unwrap();
    assert_eq!(running[57..], [0.0, 1.0, 1.0]);
    // No duration anywhere, no concurrency.
    let read = file::parse("cron\tshort\t58 * * * *\n");
    let expansion =
        stampede_fleet::expand(&read.lines, MONDAY, Horizon::hours(1).unwrap(), 0).unwrap();
    assert_eq!(expansion.running_per_minute, None);
}

#[test]
fn the_cap_stops_expansion_and_names_the_line() {
    let text = "cron\tevery minute\t* * * * *\n".repeat(2000);
    let read = file::parse(&text);
    let month = Horizon::hours(31 * 24).unwrap();
    let expansion = stampede_fleet::expand(&read.lines, MONDAY, month, 0).unwrap();
    assert_eq!(expansion.starts.len(), MOST_STARTS);
    // 44 lines of 44,640 starts each fit; the 45th reaches the cap.
    assert_eq!(expansion.stopped_at_line, Some(45));
    assert_eq!(expansion.notices.len(), 1);
    assert_eq!(expansion.notices[0].line, 45);
}

#[test]
fn horizons_and_froms_out_of_range_are_refused() {
    assert_eq!(Horizon::minutes(0).unwrap_err().field, "horizon");
    assert_eq!(Horizon::hours(31 * 24 + 1).unwrap_err().field, "horizon");
    let hour = Horizon::hours(1).unwrap();
    assert_eq!(
        stampede_fleet::expand(&[], i64::MAX, hour, 0)
            .unwrap_err()
            .field,
        "from"
    );
}

const CRON_FIELDS: [&str; 6] = [
    "minute",
    "hour",
    "day of month",
    "month",
    "day of week",
    "spec",
];

/// Text that looks like cron fields often enough to get past the first one.
fn cron_like() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("*".to_string()),
            (0u32..70).prop_map(|n| n.to_string()),
            "[0-9]{1,2}-[0-9]{1,2}",
            "\\*/[0-9]{1,2}",
            "[0-9]{1,2}(,[0-9]{1,2}){0,3}",
            "(mon|FRI|sun|jan|Dec)(-(sat|tue|mar))?",
            "[@a-z0-9*/,-]{0,6}",
        ],
        0..7,
    )
    .prop_map(|fields| fields.join(" "))
}

proptest! {
    #[test]
    fn the_cron_parser_never_panics_and_names_a_field(spec in prop_oneof![cron_like(), any::<String>()]) {
        if let Err(refusal) = cron::parse(&spec) {
            prop_assert!(CRON_FIELDS.contains(&refusal.field), "{}", refusal.field);
            prop_assert!(!refusal.reason.is_empty());
        }
    }

    #[test]
    fn smart_iteration_matches_checking_every_minute(
        spec in cron_like(),
        from in -100_000_000i64..4_000_000_000,
        minutes in 1u32..3000,
    ) {
        let Ok(schedule) = cron::parse(&spec) else { return Ok(()) };
        let horizon = Horizon::minutes(minutes).unwrap();
        let walked: Vec<i64> = schedule.starts(from, horizon).collect();
        let first = from.div_euclid(60) + i64::from(from.rem_euclid(60) != 0);
        let brute: Vec<i64> = (first..)
            .map(|minute| minute * 60)
            .take_while(|&at| at < from + horizon.in_seconds())
            .filter(|&at| {
                let minute = at.rem_euclid(3600) / 60;
                let hour = at.rem_euclid(86_400) / 3600;
                schedule.minutes & (1 << minute) != 0
                    && schedule.hours & (1 << hour) != 0
                    && schedule.fires_on_day(at.div_euclid(86_400))
            })
            .collect();
        prop_assert_eq!(walked, brute);
    }

    #[test]
    fn the_fleet_parser_never_panics_and_every_skip_names_line_and_field(
        text in prop_oneof![
            any::<String>(),
            proptest::collection::vec(
                "(cron|jenkins|systemd|x|#)?\t[a-z é/]{0,5}\t[0-9*/ ,-]{0,12}(\t(Duration|Weight|TZ|Q)=[0-9a-zA-Z/.-]{0,5}){0,2}",
                0..8,
            ).prop_map(|lines| lines.join("\n")),
        ],
    ) {
        let read = file::parse(&text);
        let count = text.lines().count();
        for skip in &read.skipped {
            prop_assert!((1..=count).contains(&skip.line));
            prop_assert!(!skip.field.is_empty());
            prop_assert!(!skip.reason.is_empty());
        }
        for line in &read.lines {
            prop_assert!((1..=count).contains(&line.line));
            prop_assert!(!line.id.contains('\t'));
        }
        let expansion = stampede_fleet::expand(&read.lines, MONDAY, Horizon::hours(24).unwrap(), 0).unwrap();
        prop_assert!(expansion.starts.len() <= MOST_STARTS);
        prop_assert!(expansion.starts.windows(2).all(|w| (w[0].at_micros, w[0].line) <= (w[1].at_micros, w[1].line)));
        let total: u32 = expansion.starts_per_minute.iter().sum();
        prop_assert_eq!(total as usize, expansion.starts.len());
    }
}
