//! Native crontabs read as fleet lines: every line and refusal numbered as
//! in the crontab, and the format told from the text when not given.

use proptest::prelude::*;
use stampede_core::fleet::file::{FleetFile, SkippedLine, System};
use stampede_core::fleet::import::crontab::{self, CrontabForm};
use stampede_core::fleet::import::{self, FleetFormat};

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

fn skipped(read: &FleetFile) -> Vec<(usize, &str)> {
    read.skipped
        .iter()
        .map(|s| (s.line, s.field.as_str()))
        .collect()
}

#[test]
fn a_user_crontab_becomes_fleet_lines_numbered_as_written() {
    let read = crontab::read(USER, CrontabForm::User);
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
    let read = crontab::read(SYSTEM, CrontabForm::System);
    assert_eq!(
        lines(&read),
        [
            (
                5,
                "root: cd / && run-parts --report /etc/cron.hourly",
                "17 * * * *",
                Some(("TZ", "Etc/UTC"))
            ),
            (
                6,
                "www-data: /usr/bin/php /var/www/cron.php",
                "@daily",
                Some(("TZ", "Etc/UTC"))
            ),
        ]
    );
    assert_eq!(
        read.skipped,
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

#[test]
fn the_form_and_the_format_are_detected() {
    assert_eq!(crontab::detect_form(USER), CrontabForm::User);
    assert_eq!(crontab::detect_form(SYSTEM), CrontabForm::System);
    assert_eq!(
        crontab::read(SYSTEM, CrontabForm::Auto),
        crontab::read(SYSTEM, CrontabForm::System)
    );
    assert_eq!(
        import::read(USER, FleetFormat::Auto),
        crontab::read(USER, CrontabForm::User)
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
        let read = crontab::read(&text, form);
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
