//! Native crontabs read as fleet lines: every line and refusal numbered as
//! in the crontab, the format told from the text when not given, and the
//! environment read as the daemon named reads it. What cronie and Debian's
//! cron do with `TZ=`, `CRON_TZ=` and `RANDOM_DELAY=` is taken from their
//! source (see the crontab reader's module doc); no daemon runs here, so
//! the expected values are worked out from that source by hand.

use proptest::prelude::*;
use stampede_core::fleet_format::FleetFormat;
use stampede_fleet::cron::{self, Horizon};
use stampede_fleet::file::{self, FleetFile, SkippedLine, System};
use stampede_fleet::import::crontab::{self, CrontabForm};
use stampede_fleet::import::{self};
use stampede_fleet::{self as fleet_expand, FleetNotice};

const USER: &str = "# m h dom mon dow command
MAILTO=ops@example.com
SHELL=/bin/bash

*/15 * * * * /usr/local/bin/poll --fast
@hourly\tcurl -s https://example.com/ping
@reboot /usr/bin/start-agent
CRON_TZ=UTC
30 2 * * 1-5 backup.sh\t--all
0 25 * * * broken-hour.sh
0 * * *
CRON_TZ=Europe/Berlin
0 9 * * * report.sh
CRON_TZ=
@weekly  rotate-logs
";

const SYSTEM: &str = "SHELL=/bin/sh
PATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin
TZ=\"Etc/UTC\"
# run-parts
17 *\t* * *\troot    cd / && run-parts --report /etc/cron.hourly
@daily www-data /usr/bin/php /var/www/cron.php
@reboot root /sbin/fsck-later
5 4 * * sun
";

/// A line's zone: the option that gives it, and the zone.
type ZoneOption<'a> = Option<(&'a str, &'a str)>;

/// Each read line as (line, id, spec, zone).
fn lines(read: &FleetFile) -> Vec<(usize, &str, &str, ZoneOption<'_>)> {
    read.lines
        .iter()
        .inspect(|line| assert_eq!(line.system, System::Cron))
        .map(|line| {
            let option = |key| line.options.own(key).map(|zone| (key, zone));
            let zone = option("CRON_TZ").or(option("TZ"));
            (line.line, line.id.as_str(), line.spec.as_str(), zone)
        })
        .collect()
}

/// The lines of `notes`.
fn note_lines(notes: &[FleetNotice]) -> Vec<usize> {
    notes.iter().map(|note| note.line).collect()
}

fn skipped(read: &FleetFile) -> Vec<(usize, &str)> {
    read.skipped
        .iter()
        .map(|s| (s.line, s.field.as_str()))
        .collect()
}

#[test]
fn a_user_crontab_becomes_fleet_lines_numbered_as_written() {
    let read = crontab::read(USER, CrontabForm::User).0;
    assert_eq!(
        lines(&read),
        [
            (5, "/usr/local/bin/poll --fast", "*/15 * * * *", None),
            (6, "curl -s https://example.com/ping", "@hourly", None),
            (
                9,
                "backup.sh --all",
                "30 2 * * 1-5",
                Some(("CRON_TZ", "UTC"))
            ),
            (
                13,
                "report.sh",
                "0 9 * * *",
                Some(("CRON_TZ", "Europe/Berlin"))
            ),
            (15, "rotate-logs", "@weekly", None),
        ]
    );
    assert_eq!(skipped(&read), [(7, "spec"), (10, "spec"), (11, "spec")]);
    assert!(read.skipped[0].reason.contains("@reboot"));
    assert!(read.skipped[2].reason.contains("4 of the 5"));
}

#[test]
fn a_system_crontab_names_the_user_in_each_id() {
    let (read, notes) = crontab::read(SYSTEM, CrontabForm::System);
    assert_eq!(
        lines(&read),
        [
            (
                5,
                "root: cd / && run-parts --report /etc/cron.hourly",
                "17 * * * *",
                None
            ),
            (
                6,
                "www-data: /usr/bin/php /var/www/cron.php",
                "@daily",
                None
            ),
        ]
    );
    assert_eq!(skipped(&read), [(7, "spec"), (8, "user")]);
    assert_eq!(note_lines(&notes), [3]);
    assert_eq!(
        read.skipped[..],
        [
            SkippedLine {
                line: 7,
                field: "spec".into(),
                reason: "@reboot runs at boot, not at a time of day, so the line is skipped".into(),
            },
            SkippedLine {
                line: 8,
                field: "user".into(),
                reason: "is missing; a system crontab gives the user after the schedule".into(),
            },
        ]
    );
}

/// A crontab that sets every setting a daemon might schedule by.
const ZONES: &str = "TZ=America/New_York
0 6 * * * morning.sh
CRON_TZ=Asia/Tokyo
RANDOM_DELAY=30
0 9 * * * tokyo.sh
CRON_TZ=
0 12 * * * noon.sh
";

#[test]
fn cronie_schedules_by_cron_tz_and_tells_that_tz_reaches_only_the_commands() {
    let (read, notes) = crontab::read(ZONES, CrontabForm::User);
    assert_eq!(
        lines(&read),
        [
            (2, "morning.sh", "0 6 * * *", None),
            (5, "tokyo.sh", "0 9 * * *", Some(("CRON_TZ", "Asia/Tokyo"))),
            (7, "noon.sh", "0 12 * * *", None),
        ]
    );
    // TZ= is read, for the commands, with a note: no line is skipped.
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    assert_eq!(note_lines(&notes), [1]);
    let reason = &notes[0].message;
    assert!(
        reason.contains("src/cron.c, find_jobs, cronie 1.7.2"),
        "{reason}"
    );
    assert!(reason.contains("# machine-tz:"), "{reason}");
    let delays: Vec<_> = read
        .lines
        .iter()
        .map(|line| line.options.own("RANDOM_DELAY"))
        .collect();
    assert_eq!(delays, [None, Some("30"), Some("30")]);

    // The machine's zone, given below the lines, is every line's clock
    // but the one in its own zone.
    let machine = format!("{ZONES}# machine-tz: Europe/Berlin\n");
    let read = crontab::read(&machine, CrontabForm::User).0;
    let zones: Vec<_> = lines(&read).into_iter().map(|line| line.3).collect();
    assert_eq!(
        zones,
        [
            Some(("TZ", "Europe/Berlin")),
            Some(("CRON_TZ", "Asia/Tokyo")),
            Some(("TZ", "Europe/Berlin")),
        ]
    );
    assert_eq!(
        crontab::read(&format!("{machine}# Daemon: CRONIE\n"), CrontabForm::User)
            .0
            .lines,
        read.lines
    );
}

#[test]
fn debians_cron_schedules_every_line_on_the_machines_clock() {
    let text = format!("# daemon: debian\n# machine-tz: Europe/Berlin\n{ZONES}");
    let (read, notes) = crontab::read(&text, CrontabForm::User);
    let berlin = Some(("TZ", "Europe/Berlin"));
    assert_eq!(
        lines(&read),
        [
            (4, "morning.sh", "0 6 * * *", berlin),
            (7, "tokyo.sh", "0 9 * * *", berlin),
            (9, "noon.sh", "0 12 * * *", berlin),
        ]
    );
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    assert_eq!(note_lines(&notes), [3, 5, 6, 8]);
    assert!(
        notes[..2]
            .iter()
            .all(|note| note.message.contains("cron.c, find_jobs, cron 3.0pl1-162"))
    );
    assert!(
        read.lines
            .iter()
            .all(|line| line.options.own("RANDOM_DELAY").is_none())
    );
}

#[test]
fn the_comments_reach_the_crontab_reader_in_a_paste() {
    let text = "# daemon: debian\n# machine-tz: Europe/Paris\nCRON_TZ=Asia/Tokyo\n0 9 * * * job\n";
    let imported = import::import(text, FleetFormat::Auto);
    let read = imported.file;
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    assert_eq!(note_lines(&imported.notes), [3]);
    assert_eq!(
        lines(&read),
        [(4, "job", "0 9 * * *", Some(("TZ", "Europe/Paris")))]
    );
}

#[test]
fn a_daemon_not_read_or_a_contradiction_is_skipped_on_its_line() {
    let text = "# daemon: systemd-cron\n\
                # daemon: fcron\n\
                # daemon: debian\n\
                # daemon: debian\n\
                # daemon: cronie\n\
                # machine-tz: UTC\n\
                # machine-tz: Asia/Tokyo\n\
                # an ordinary comment: with a colon\n\
                CRON_TZ=Asia/Tokyo\n\
                0 9 * * * job\n";
    let read = crontab::read(text, CrontabForm::User).0;
    assert_eq!(
        skipped(&read),
        [
            (1, "daemon"),
            (2, "daemon"),
            (5, "daemon"),
            (7, "machine-tz"),
        ]
    );
    assert!(read.skipped[0].reason.contains("cron-*.timer"));
    assert!(read.skipped[1].reason.contains("\"fcron\""));
    assert!(read.skipped[2].reason.contains("line 3"));
    assert_eq!(
        lines(&read),
        [(10, "job", "0 9 * * *", Some(("TZ", "UTC")))]
    );
}

#[test]
fn random_delay_is_read_as_cronies_strtol_reads_it() {
    let delay = |value: &str| {
        let read = crontab::read(
            &format!("RANDOM_DELAY={value}\n0 9 * * * job\n"),
            CrontabForm::User,
        )
        .0;
        let option = read.lines[0]
            .options
            .own("RANDOM_DELAY")
            .map(str::to_string);
        (option, skipped(&read).first().map(|s| s.1.to_string()))
    };
    let given = |minutes: &str| (Some(minutes.to_string()), None);
    assert_eq!(delay("15"), given("15"));
    assert_eq!(delay(" 90min"), given("90"));
    assert_eq!(delay("+1440"), given("1440"));
    assert_eq!(delay("\"45\""), given("45"));
    // No number, 0 and -0 delay nothing and say nothing.
    for none in ["", "0", "-0", "soon"] {
        assert_eq!(delay(none), (None, None), "{none:?}");
    }
    // cronie logs these as bad and delays nothing.
    for bad in ["1441", "-5", "99999999999999999999999"] {
        assert_eq!(delay(bad), (None, Some("RANDOM_DELAY".into())), "{bad:?}");
    }
}

#[test]
fn every_delayed_line_waits_its_share_of_one_scale_drawn_per_seed() {
    // 2026-01-05 00:00Z, a Monday; every line is due at 09:00.
    let from = 1_767_571_200;
    let text = "RANDOM_DELAY=1440\n0 9 * * * whole-day\n\
                RANDOM_DELAY=60\n0 9 * * * hour\n\
                0 9 * * * also-hour\n\
                RANDOM_DELAY=0\n0 9 * * * on-time\n";
    let read = crontab::read(text, CrontabForm::User).0;
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    let two_days = Horizon::hours(48).unwrap();
    let mut scales = Vec::new();
    for seed in 0..20 {
        let expansion = fleet_expand::expand(&read.lines, from, two_days, seed).unwrap();
        let scale = cron::daemon_scale(seed);
        assert!((0.0..1.0).contains(&scale));
        scales.push(scale);
        // Each start's minute of the day, once for each distinct one.
        let minutes_of_day = |id: &str| {
            let mut minutes: Vec<i64> = expansion
                .starts
                .iter()
                .filter(|start| start.id == id)
                .map(|start| (start.at_micros / 1_000_000 - from) / 60 % 1440)
                .collect();
            minutes.dedup();
            minutes
        };
        // (int)(val * RandomScale) minutes after 09:00.
        let whole_day = (1440.0 * scale) as i64;
        let hour = (60.0 * scale) as i64;
        let at = |delay: i64| vec![(9 * 60 + delay) % 1440];
        assert_eq!(minutes_of_day("whole-day"), at(whole_day), "seed {seed}");
        assert_eq!(minutes_of_day("hour"), at(hour), "seed {seed}");
        assert_eq!(minutes_of_day("also-hour"), at(hour), "seed {seed}");
        assert_eq!(minutes_of_day("on-time"), at(0), "seed {seed}");
        let told: Vec<_> = expansion
            .notices
            .iter()
            .map(|notice| (notice.line, notice.message.as_str()))
            .collect();
        assert_eq!(told.len(), 3, "{told:?}");
        assert!(
            told[0]
                .1
                .starts_with(&format!("each start is {whole_day} min late"))
        );
        assert!(told[0].1.contains("once when the daemon starts"));
        assert!(told[0].1.contains(&format!("{}%", (scale * 100.0) as u32)));
    }
    // Twenty seeds draw twenty scales spread over [0, 1).
    scales.sort_by(f64::total_cmp);
    scales.dedup();
    assert_eq!(scales.len(), 20);
    assert!(scales[0] < 0.25 && scales[19] > 0.75, "{scales:?}");
}

#[test]
fn a_random_delay_option_outside_cronies_range_is_refused() {
    let read = file::parse("cron\tjob\t0 9 * * *\tRANDOM_DELAY=1441\n");
    assert_eq!(skipped(&read), [(1, "RANDOM_DELAY")]);
    let read = file::parse("cron\tjob\t0 9 * * *\tRANDOM_DELAY=10\n");
    assert!(read.skipped.is_empty());
}

#[test]
fn the_form_and_the_format_are_detected() {
    assert_eq!(crontab::detect_form(USER), CrontabForm::User);
    assert_eq!(crontab::detect_form(SYSTEM), CrontabForm::System);
    assert_eq!(
        crontab::read(SYSTEM, CrontabForm::Auto).0,
        crontab::read(SYSTEM, CrontabForm::System).0
    );
    assert_eq!(
        import::read(USER, FleetFormat::Auto),
        crontab::read(USER, CrontabForm::User).0
    );
    assert_eq!(import::detect(USER), FleetFormat::Crontab);
    assert_eq!(import::detect(SYSTEM), FleetFormat::Crontab);

    let fleet = "# a fleet\n\ncron\tnightly\t30 2 * * *\njenkins\tbuild\tH * * * *\n";
    assert_eq!(import::detect(fleet), FleetFormat::Fleet);
    let read = import::read(fleet, FleetFormat::Auto);
    assert_eq!(read.lines.len(), 2);
    assert_eq!(read.lines[0].line, 3);
    // A system name followed by a space is a crontab's command, not a field.
    assert_eq!(
        import::detect("cron nightly 30 2 * * *"),
        FleetFormat::Crontab
    );
    assert_eq!(
        FleetFormat::from_slug("crontab"),
        Some(FleetFormat::Crontab)
    );
}

proptest! {
    #[test]
    fn reading_never_panics_and_numbers_within_the_text(
        text in prop_oneof![
            any::<String>(),
            proptest::collection::vec(
                "[ \t]*(#|@reboot|@daily|[A-Z_]{1,8} ?= ?\"?[A-Za-z/]*|[0-9*/,-]{1,4}( [0-9*/,-]{1,4}){0,5})[ \t]*(root|/bin/x|[a-z]{0,5})?[ \t\r]*[a-z /\t]{0,8}",
                0..8,
            )
            .prop_map(|lines| lines.join("\n")),
        ],
        form in prop_oneof![Just(CrontabForm::Auto), Just(CrontabForm::User), Just(CrontabForm::System)],
    ) {
        let count = text.lines().count();
        let read = crontab::read(&text, form).0;
        for line in &read.lines {
            prop_assert!((1..=count).contains(&line.line));
            prop_assert!(!line.id.contains('\t'));
        }
        for skipped in &read.skipped {
            prop_assert!((1..=count).contains(&skipped.line));
            prop_assert!(!skipped.reason.is_empty());
        }
        let _ = import::read(&text, FleetFormat::Auto);
    }
}
