//! anacron jobs, placed by cronie 1.7.2's rules. No anacron runs here, so
//! the times below are worked out by hand from `anacron/main.c`,
//! `readtab.c` and `lock.c`, and the draws are held to the law the source
//! draws them by (`unbiased_rand`: each of 0 to RANDOM_DELAY alike).

use stampede_core::fleet_format::FleetFormat;
use stampede_fleet::cron::Horizon;
use stampede_fleet::file;
use stampede_fleet::fix::{self, FixChange, native};
use stampede_fleet::import::{self, anacrontab};
use stampede_fleet::time::MICROS_PER_SECOND;

/// Monday 2026-01-05 00:00 UTC.
const MONDAY: i64 = 1_767_571_200;
const DAY: i64 = 86_400;

/// The starts of one `anacron` line over `days` from Monday, in Unix
/// seconds.
fn starts(spec_and_options: &str, days: u32, seed: u64) -> Vec<i64> {
    let fleet = file::parse(&format!("anacron\tjob\t{spec_and_options}\n"));
    assert!(fleet.skipped.is_empty(), "{:?}", fleet.skipped);
    let horizon = Horizon::hours(24 * days).unwrap();
    let expansion = stampede_fleet::expand(&fleet.lines, MONDAY, horizon, seed).unwrap();
    expansion
        .starts
        .iter()
        .map(|start| start.at_micros / MICROS_PER_SECOND)
        .collect()
}

/// Seconds into the day.
fn of_day(at: i64) -> i64 {
    at.rem_euclid(DAY)
}

#[test]
fn a_daily_job_runs_once_a_day_at_the_first_hourly_run_in_its_hours() {
    // No draw: the 00:01 to 02:01 runs time the job at 00:06 to 02:06,
    // outside 3-22; the 03:01 run at 03:06.
    let got = starts("1 5\tHours=3-22", 7, 1);
    let want: Vec<i64> = (0..7)
        .map(|d| MONDAY + d * DAY + 3 * 3600 + 6 * 60)
        .collect();
    assert_eq!(got, want);
    // Without hours, the first run of the day: 00:01 + 5 min.
    let got = starts("1 5", 2, 1);
    assert_eq!(
        got.iter().map(|&at| of_day(at)).collect::<Vec<_>>(),
        [360, 360]
    );
    // PREFERRED_HOUR: the run whose time falls in that hour.
    let got = starts("1 5\tPreferredHour=9", 1, 1);
    assert_eq!(
        got.iter().map(|&at| of_day(at)).collect::<Vec<_>>(),
        [9 * 3600 + 360]
    );
    // A wait over a day is dropped: the job runs at the run's start.
    let got = starts("1 2000", 1, 1);
    assert_eq!(got.iter().map(|&at| of_day(at)).collect::<Vec<_>>(), [60]);
}

#[test]
fn periods_count_days_since_the_timestamp() {
    // Weekly with its timestamp on the Wednesday before: due Wednesday.
    let got = starts("7 25\tHours=3-22\tLast=2025-12-31", 14, 1);
    let days: Vec<i64> = got.iter().map(|at| (at - MONDAY) / DAY).collect();
    assert_eq!(days, [2, 9]);
    // @monthly from the 15th of December: December has 31 days, so it is
    // due on 15 January, 31 days on.
    let got = starts("@monthly 45\tLast=2025-12-15", 31, 1);
    let dates: Vec<String> = got
        .iter()
        .map(|&at| stampede_fleet::time::format(at)[..10].to_string())
        .collect();
    assert_eq!(dates, ["2026-01-15"]);
    // Every 3 days from the horizon's first.
    let got = starts("3 0", 9, 1);
    assert_eq!(
        got.iter().map(|at| (at - MONDAY) / DAY).collect::<Vec<_>>(),
        [0, 3, 6]
    );
}

#[test]
fn random_delay_draws_each_minute_alike_and_machines_apart() {
    // 4,600 machines' daily jobs on one day: RANDOM_DELAY=45 puts each at
    // 03:06 plus 0 to 45 minutes, each minute alike (expected 100 a
    // minute). Pearson's χ² with 45 degrees of freedom stays under 73.2,
    // its 0.5% critical value, but for one seed in 200.
    let mut text = String::new();
    for host in 0..4600 {
        text.push_str(&format!(
            "anacron\th{host}/cron.daily\t1 5\tRandomDelay=45\tHours=3-22\tMachine=h{host}\n"
        ));
    }
    let fleet = file::parse(&text);
    let expansion =
        stampede_fleet::expand(&fleet.lines, MONDAY, Horizon::hours(24).unwrap(), 9).unwrap();
    let mut counts = [0u32; 46];
    for start in &expansion.starts {
        let minute = (of_day(start.at_micros / MICROS_PER_SECOND) - (3 * 3600 + 6 * 60)) / 60;
        assert!((0..46).contains(&minute), "{minute}");
        counts[minute as usize] += 1;
    }
    let chi_square: f64 = counts
        .iter()
        .map(|&n| (f64::from(n) - 100.0).powi(2) / 100.0)
        .sum();
    assert!(chi_square < 73.2, "χ² {chi_square}: {counts:?}");
    // The jobs of one machine share a run's draw.
    let got = |id: &str| {
        let line = format!("anacron\t{id}\t1 5\tRandomDelay=45\tMachine=web-1\n");
        let fleet = file::parse(&line);
        stampede_fleet::expand(&fleet.lines, MONDAY, Horizon::hours(24).unwrap(), 9)
            .unwrap()
            .starts[0]
            .at_micros
    };
    assert_eq!(got("a"), got("b"));
}

#[test]
fn debian_s_timer_runs_anacron_at_half_past_from_seven() {
    // anacron.timer: 07..23:30 with up to 300 s late; the job 5 minutes on.
    for seed in 0..50 {
        let got = starts("1 5\tRuns=7-23:30\tRunDelay=300", 1, seed);
        let at = of_day(got[0]);
        assert!(
            (7 * 3600 + 35 * 60..7 * 3600 + 40 * 60).contains(&at),
            "{at}"
        );
    }
}

#[test]
fn what_anacron_refuses_is_refused_with_its_field() {
    for (text, field) in [
        ("1", "spec"),
        ("@hourly 5", "spec"),
        ("x 5", "spec"),
        ("1 5\tHours=22-3", "Hours"),
        ("1 5\tHours=3-25", "Hours"),
        ("1 5\tRuns=7-23", "Runs"),
        ("1 5\tPreferredHour=25", "PreferredHour"),
        ("1 5\tLast=yesterday", "Last"),
        ("1 99999999999", "spec"),
    ] {
        let fleet = file::parse(&format!("anacron\tjob\t{text}\n"));
        assert_eq!(fleet.skipped.len(), 1, "{text}");
        assert_eq!(fleet.skipped[0].field, field, "{text}: {:?}", fleet.skipped);
    }
}

const RHEL: &str = "# hosts: web-1 web-2\n\
SHELL=/bin/sh\n\
RANDOM_DELAY=45\n\
START_HOURS_RANGE=3-22\n\
\n\
1\t5\tcron.daily\t\tnice run-parts /etc/cron.daily\n\
7\t25\tcron.weekly\t\tnice run-parts /etc/cron.weekly\n\
@monthly 45\tcron.monthly\t\tnice run-parts /etc/cron.monthly\n\
@hourly 5\tcron.hourly\trun-parts /etc/cron.hourly\n\
START_HOURS_RANGE= 3-22\n\
not a job\n";

#[test]
fn an_anacrontab_reads_each_job_once_a_host_with_the_settings_that_reach_it() {
    assert_eq!(import::detect(RHEL), FleetFormat::Anacrontab);
    let translation = anacrontab::translate(RHEL);
    let fleet: Vec<&str> = translation.lines.iter().map(|l| l.fleet.as_str()).collect();
    assert_eq!(
        fleet[0],
        "anacron\tweb-1/cron.daily\t1 5\tRandomDelay=45\tHours=3-22\tMachine=web-1"
    );
    assert_eq!(
        fleet[1],
        "anacron\tweb-2/cron.daily\t1 5\tRandomDelay=45\tHours=3-22\tMachine=web-2"
    );
    assert_eq!(fleet.len(), 8);
    let skipped: Vec<(usize, &str)> = translation
        .skipped
        .iter()
        .map(|s| (s.line, s.field.as_str()))
        .collect();
    assert_eq!(skipped, [(10, "START_HOURS_RANGE"), (11, "line")]);
    // @hourly is no period anacron names: the fleet reader skips it.
    let read = import::read(RHEL, FleetFormat::Anacrontab);
    assert_eq!(read.lines.len(), 6);
    assert!(
        read.skipped
            .iter()
            .any(|s| s.line == 9 && s.reason.contains("@daily"))
    );
    // RANDOM_DELAY reaches only the jobs after it.
    let late = anacrontab::translate("1 5 early x\nRANDOM_DELAY=30\n1 5 late x\n");
    assert!(!late.lines[0].fleet.contains("RandomDelay"));
    assert!(late.lines[1].fleet.contains("RandomDelay=30"));
}

#[test]
fn the_fix_widens_random_delay_to_the_end_of_the_hour_or_the_night() {
    let read = import::read(RHEL, FleetFormat::Anacrontab);
    let fixes = fix::fix_lines(&read.lines, None);
    // From the 03:01 run to 03:59: 58 minutes, for every job alike, as
    // the one RANDOM_DELAY they share.
    let values: Vec<String> = fixes
        .iter()
        .filter_map(|f| match &f.change {
            FixChange::Rewritten { options, .. } => Some(options[0].1.clone()),
            FixChange::Kept { .. } => None,
        })
        .collect();
    assert_eq!(values, ["58"; 6]);
    let written = native::rewrite(RHEL, FleetFormat::Anacrontab, &fixes).unwrap();
    // The jobs share one RANDOM_DELAY.
    assert!(written.contains("RANDOM_DELAY=58\n"), "{written}");
    assert_eq!(written.lines().count(), RHEL.lines().count());
    let night = fix::NightHours::parse("0-5").ok();
    let fixes = fix::fix_lines(&read.lines, night);
    match &fixes[0].change {
        FixChange::Rewritten { options, .. } => assert_eq!(options[0].1, "178"),
        kept => panic!("{kept:?}"),
    }
    // Without a RANDOM_DELAY line, one is added before the first job.
    let text = "START_HOURS_RANGE=3-22\n1\t5\tcron.daily\trun-parts /etc/cron.daily\n";
    let read = import::read(text, FleetFormat::Anacrontab);
    let fixes = fix::fix_lines(&read.lines, None);
    let written = native::rewrite(text, FleetFormat::Anacrontab, &fixes).unwrap();
    assert_eq!(
        written,
        "START_HOURS_RANGE=3-22\nRANDOM_DELAY=58\n1\t5\tcron.daily\trun-parts /etc/cron.daily\n"
    );
}
