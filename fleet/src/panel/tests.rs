use super::*;
use stampede_core::fleet_format::FleetFormat;
use stampede_core::panels::fleet::*;

fn params(sample: Sample) -> FleetParams {
    FleetParams {
        sample,
        ..FleetParams::default()
    }
}

fn own(text: &str) -> (String, FleetParams) {
    (text.to_string(), params(Sample::Own))
}

#[test]
fn a_small_fleet_reads_into_minutes_seconds_and_named_cells() {
    let (text, params) = own("cron\tbackup\t0 0 * * *\n\
         cron\treport\t0 0 * * *\n\
         cron\thourly\t0 * * * *\n\
         jenkins\tnightly\t@midnight\n\
         bogus line\n");
    let read = read(&text, &params, 1).unwrap();
    assert_eq!(read.format, "fleet");
    assert_eq!(read.summary, "4 jobs from a fleet file; 1 line skipped");
    assert_eq!(read.skipped.len(), 1);
    assert_eq!(read.skipped[0].line, 5);
    let load = &read.load;
    assert_eq!(load.starts.len(), WEEK_MINUTES as usize);
    assert_eq!(load.busiest_second.len(), WEEK_MINUTES as usize);
    // Two lines at midnight each day, the hourly one every hour, and
    // Jenkins' `@midnight` somewhere in the first three hours.
    assert_eq!(load.total_starts, 7 * 2 + 7 * 24 + 7);
    assert_eq!((load.peak_minute, load.peak_starts), (Some(0), 3));
    assert_eq!(load.busiest_second[0], 3);
    assert_eq!(load.peak_second_starts, 3);
    assert_eq!(load.shared_minutes, 7);
    assert_eq!(load.running, None);
    let cells = &load.by_minute;
    assert_eq!(cells.first.len(), WEEK_MINUTES as usize + 1);
    assert_eq!(cells.distinct[0], 3);
    // Named by starts, then fleet order.
    assert_eq!(
        cells.jobs[cells.first[0] as usize..cells.first[1] as usize],
        [0, 1, 2]
    );
    let hours = &load.by_hour;
    assert_eq!(hours.first.len(), 169);
    let first_hour = hours.first[0] as usize..hours.first[1] as usize;
    assert_eq!(
        hours.distinct[0],
        3 + u32::from(hours.jobs[first_hour.clone()].contains(&3))
    );
    assert!(hours.starts[first_hour].iter().all(|&starts| starts == 1));
    assert!(link(&text, params.sample).is_some_and(|link| link.is_ok()));
}

#[test]
fn empty_text_is_no_fleet_yet_not_an_error() {
    let (text, params) = own("\n# nothing here\n");
    let read = read(&text, &params, 1).unwrap();
    assert!(
        read.summary.starts_with("No schedules yet"),
        "{}",
        read.summary
    );
    assert!(read.jobs.is_empty());
    assert_eq!(read.load.total_starts, 0);
    assert_eq!(read.load.peak_minute, None);
    let one = super::read("0 3 * * * /bin/true\n", &params, 1).unwrap();
    assert_eq!(one.summary, "1 job from a crontab");
}

#[test]
fn every_sample_reads_whole_and_carries_its_name_not_a_link() {
    for &sample in Sample::ALL {
        if sample == Sample::Own {
            assert_eq!(sample.text(), "");
            continue;
        }
        let text = sample.text();
        assert_eq!(text, sample.text(), "{sample:?} is deterministic");
        let read = read(&text, &params(sample), 1).unwrap();
        assert!(read.skipped.is_empty(), "{sample:?}: {:?}", read.skipped);
        assert!(!read.jobs.is_empty(), "{sample:?}");
        assert_eq!(read.load.stopped_at_line, None, "{sample:?}");
        assert_eq!(link(&text, sample), None, "{sample:?}");
    }
    let durations = Sample::ALL
        .iter()
        .filter(|sample| {
            let read = read(&sample.text(), &params(**sample), 1).unwrap();
            read.load.running.is_some()
        })
        .count();
    assert!(durations >= 2, "{durations} samples give durations");
}

#[test]
fn the_fixed_text_read_back_gives_the_fixs_load() {
    for &sample in Sample::ALL {
        for method in [FixMethod::Hash, FixMethod::Level] {
            let params = FleetParams {
                fix: method,
                ..params(sample)
            };
            let text = sample.text();
            let fixed = fix(&text, &params, 1).unwrap();
            let again = read(&fixed.fixed_text, &params, 1).unwrap();
            assert_eq!(
                again.load.peak_starts, fixed.load.peak_starts,
                "{sample:?} {method:?}"
            );
            assert_eq!(
                again.load.starts, fixed.load.starts,
                "{sample:?} {method:?}"
            );
            let before = read(&text, &params, 1).unwrap();
            assert!(
                fixed.load.peak_starts <= before.load.peak_starts,
                "{sample:?} {method:?}"
            );
            let changed_rows = fixed
                .diff
                .iter()
                .filter(|row| row.kind != DiffKind::Same)
                .count();
            assert_eq!(
                changed_rows == 0,
                fixed.fixed_text == text,
                "{sample:?} {method:?}"
            );
            assert_eq!(fixed.changed as usize + fixed.kept.len(), before.jobs.len());
        }
    }
}

#[test]
fn the_diff_rows_are_hunks_with_two_rows_of_context() {
    let (text, params) = own(&(0..20)
        .map(|i| format!("{},{} 3 * * * /bin/job-{i}\n", i + 1, i + 31))
        .collect::<String>());
    let mut text = text;
    text.push_str("0 0 * * * /bin/midnight\n0 0 * * * /bin/midnight-2\n");
    let fixed = fix(&text, &params, 1).unwrap();
    // Only the two midnight lines move (the others chose their minutes and
    // share none), so one hunk: two rows before them and none after.
    let kinds: Vec<DiffKind> = fixed.diff.iter().map(|row| row.kind).collect();
    assert_eq!(
        kinds,
        [
            DiffKind::Same,
            DiffKind::Same,
            DiffKind::Removed,
            DiffKind::Removed,
            DiffKind::Added,
            DiffKind::Added
        ]
    );
    assert_eq!(fixed.diff[2].before_line, Some(21));
    assert_eq!(fixed.changed, 2);
    assert_eq!(fixed.kept.len(), 20);
}

mod teaching {
    //! The facts "How it works" quotes, computed and pinned.

    use super::*;
    use crate::cron::Horizon;
    use crate::file::{self, System};
    use crate::stability::{FleetChange, StabilityPlacing, stability};

    /// The busiest minute and the minutes used of 100 jobs named
    /// `sync-customer-001` to `-100` on `spec` in `system`'s syntax, over
    /// the first `minutes` of a day.
    fn clump(system: System, spec: &str, minutes: u32) -> (u32, usize) {
        let text: String = (1..=100)
            .map(|i| format!("{}\tsync-customer-{i:03}\t{spec}\n", system.slug()))
            .collect();
        let lines = file::parse(&text).lines;
        let horizon = Horizon::minutes(minutes).unwrap();
        let expansion = crate::expand(&lines, WeekStart::DEFAULT.0, horizon, 1).unwrap();
        let per_minute = &expansion.starts_per_minute;
        let used = per_minute.iter().filter(|&&starts| starts > 0).count();
        (per_minute.iter().copied().max().unwrap_or(0), used)
    }

    /// Uniform placement's expected minutes used: `m (1 − (1 − 1/m)^n)`.
    fn expected_used(minutes: f64, jobs: i32) -> f64 {
        minutes * (1.0 - (1.0 - 1.0 / minutes).powi(jobs))
    }

    /// A shared prefix does not clump `H`: Jenkins hashes the whole name
    /// with MD5 and croniter with CRC-32, and both land about as uniform
    /// placement would (48.8 minutes of 60 and 96.6 of 1,440 expected,
    /// a busiest minute of 5 most often in an hour, 2 in a day; Jenkins'
    /// 7 is within chance, about 1 time in 12). croniter's `H H` is the
    /// exception, for another reason: one CRC gives both fields, minute
    /// `crc mod 60` and hour `(crc >> 1) mod 24`, so only 240 of the 1,440
    /// (minute, hour) pairs can come out, and 100 jobs expect 81.9
    /// different ones ([`croniter_h_h_places_jobs_on_240_of_the_days_minutes`]).
    #[test]
    fn h_without_a_range_spreads_names_sharing_a_prefix() {
        assert_eq!(clump(System::Jenkins, "H * * * *", 60), (7, 47));
        assert_eq!(clump(System::Croniter, "H * * * *", 60), (5, 51));
        assert_eq!(clump(System::Jenkins, "H H * * *", 1440), (2, 97));
        assert_eq!(clump(System::Croniter, "H H * * *", 1440), (2, 88));
        assert!((expected_used(60.0, 100) - 48.83).abs() < 0.01);
        assert!((expected_used(1440.0, 100) - 96.64).abs() < 0.01);
        assert!((expected_used(240.0, 100) - 81.92).abs() < 0.01);
    }

    /// croniter's `H H * * *` places a job at minute `crc mod 60` and hour
    /// `(crc >> 1) mod 24` of one CRC, which ties the two: a job's minute
    /// modulo 12, halved, is its hour modulo 6, so exactly 240 of the
    /// 1,440 (minute, hour) pairs come out. Checked on the placed starts
    /// of 10,000 jobs, through the fleet file, the croniter reader and the
    /// expansion. (The pairs were once counted from a loop over CRCs,
    /// which rustc up to 1.97.0 miscompiles at opt-level 2 and 3 when
    /// written as an iterator: rust-lang/rust#159035.)
    #[test]
    fn croniter_h_h_places_jobs_on_240_of_the_days_minutes() {
        let text: String = (0..10_000)
            .map(|i| format!("croniter\tjob-{i}\tH H * * *\n"))
            .collect();
        let lines = file::parse(&text).lines;
        assert_eq!(lines.len(), 10_000);
        let day = Horizon::minutes(1440).unwrap();
        let expansion = crate::expand(&lines, WeekStart::DEFAULT.0, day, 1).unwrap();
        assert_eq!(expansion.starts.len(), 10_000);
        let pairs: std::collections::BTreeSet<(i64, i64)> = expansion
            .starts
            .iter()
            .map(|start| {
                let minute_of_day = (start.at_micros / 1_000_000 - WeekStart::DEFAULT.0) / 60;
                (minute_of_day % 60, minute_of_day / 60)
            })
            .collect();
        assert_eq!(pairs.len(), 240);
        let off_the_draw: Vec<_> = pairs
            .iter()
            .filter(|(minute, hour)| minute % 12 / 2 != hour % 6)
            .collect();
        assert!(off_the_draw.is_empty(), "{off_the_draw:?}");
    }

    /// The systemd sample: a new machine id moves every timer (the fixed
    /// delay hashes it, the others draw anew at the restart), a reboot
    /// only the 25 without `FixedRandomDelay=yes`.
    #[test]
    fn a_fixed_delay_moves_with_the_machine_id_and_never_at_a_reboot() {
        let lines = crate::import::import(&Sample::SystemdTimer.text(), FleetFormat::Auto)
            .file
            .lines;
        let week = Horizon::minutes(WEEK_MINUTES).unwrap();
        // Lines 2 to 26 hold the 25 timers with a fixed delay.
        let moved = |change| {
            let moved = stability(
                &lines,
                &change,
                StabilityPlacing::AsWritten,
                WeekStart::DEFAULT.0,
                week,
            )
            .unwrap()
            .moved;
            let fixed = moved.iter().filter(|job| job.line <= 26).count();
            (fixed, moved.len() - fixed)
        };
        assert_eq!(
            moved(FleetChange::MachineId(NEW_MACHINE_ID.into())),
            (25, 25)
        );
        assert_eq!(moved(FleetChange::Grow { percent: 0 }), (0, 25));
    }

    /// Prometheus' sample spreads within each interval: the busiest second
    /// holds 9 scrapes against a flat 3.17 a second, the busiest minute
    /// 202 against 190 on average; Kubernetes' busiest minute falls from
    /// 13 to 2 with the fix.
    #[test]
    fn prometheus_spreads_and_kubernetes_needs_the_fix() {
        let prometheus = read(&Sample::Prometheus.text(), &params(Sample::Prometheus), 1).unwrap();
        let load = &prometheus.load;
        assert_eq!((load.peak_second_starts, load.total_starts), (9, 1_915_200));
        assert_eq!(load.peak_starts, 202);
        assert_eq!(load.total_starts / u64::from(WEEK_MINUTES), 190);
        let k8s = params(Sample::Kubernetes);
        let text = Sample::Kubernetes.text();
        assert_eq!(read(&text, &k8s, 1).unwrap().load.peak_starts, 13);
        assert_eq!(fix(&text, &k8s, 1).unwrap().load.peak_starts, 2);
    }
}

/// Every stage on `text` in every format and with every probe: a result or
/// a refusal, never a panic.
fn every_stage(text: &str, params: &FleetParams) {
    for &format in FleetFormat::ALL {
        let params = FleetParams {
            format,
            ..params.clone()
        };
        let _ = read(text, &params, 1);
        let _ = fix(text, &params, 1);
    }
    for &probe_kind in Probe::ALL {
        let params = FleetParams {
            probe: probe_kind,
            ..params.clone()
        };
        let _ = probe(text, &params, 1);
    }
}

#[test]
fn hostile_text_gives_results_or_refusals_never_a_panic() {
    let (_, params) = own("");
    let binary: String = (0..4096u32)
        .map(|i| char::from_u32(i * 7919 % 0x2FFF).unwrap_or('\u{FFFD}'))
        .collect();
    every_stage(&binary, &params);
    every_stage(
        "\0\t\t\n\u{feff}cron\t\u{0}\t* * * * *\t=\n[Timer]\n{",
        &params,
    );
    let long_line = format!("cron\tlong\t0 0 * * *\tDuration={}\n", "9".repeat(1 << 20));
    every_stage(&long_line, &params);
    let read_long = read(&long_line, &params, 1).unwrap();
    assert_eq!(read_long.skipped.len(), 1);
    assert!(read_long.skipped[0].reason.chars().count() < 200);
}

#[test]
fn a_fleet_past_the_cap_stops_with_a_notice() {
    let (text, params) = own(&"* * * * * /bin/poll\n".repeat(100_000));
    let read = read(&text, &params, 1).unwrap();
    assert_eq!(read.jobs.len(), 100_000);
    assert_eq!(read.load.total_starts, crate::MOST_STARTS as u64);
    let stopped = read.load.stopped_at_line.unwrap();
    assert!(
        read.notices.iter().any(|notice| notice.line == stopped),
        "{:?}",
        read.notices
    );
    assert!(matches!(link(&text, params.sample), Some(Err(_))));
    // Every minute is as spread as it can be: the fix keeps every line.
    let fixed = fix(&text, &params, 1).unwrap();
    assert_eq!(fixed.changed, 0);
    assert!(fixed.diff.is_empty());
    let level = FleetParams {
        fix: FixMethod::Level,
        ..params.clone()
    };
    assert!(fix(&text, &level, 1).is_err());
    let grow = FleetParams {
        probe: Probe::Grow,
        ..params
    };
    assert!(probe(&text, &grow, 1).is_ok());
}

#[test]
fn an_impossible_week_keeps_the_default_with_a_notice() {
    let (state, notices) = stampede_core::panels::State::from_query("p=fleet&wk=9999-99-99");
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(state.fleet.week, WeekStart::DEFAULT);
    let text = Sample::MinuteZero.text();
    assert!(read(&text, &state.fleet, 1).is_ok());
    // The last week the calendar holds is refused, not overflowed.
    let (late, _) = stampede_core::panels::State::from_query("p=fleet&wk=9999-12-31");
    every_stage(&text, &late.fleet);
}

#[test]
fn notices_that_say_the_same_thing_are_one_with_their_lines() {
    let notice = |line: u32, message: &str| LineNotice {
        line,
        message: message.to_string(),
    };
    let notices = [
        notice(2, "drawn from the seed"),
        notice(3, "drawn from the seed"),
        notice(4, "drawn from the seed"),
        notice(7, "late by design"),
        notice(9, "drawn from the seed"),
        notice(10, "drawn from the seed"),
        notice(12, "drawn from the seed"),
    ];
    assert_eq!(
        grouped_notices(&notices),
        vec![
            ("lines 2–4, 9, 10 and 12".to_string(), "drawn from the seed"),
            ("line 7".to_string(), "late by design"),
        ]
    );
    assert_eq!(
        grouped_notices(&[notice(9, "a"), notice(10, "a")]),
        vec![("lines 9 and 10".to_string(), "a")]
    );
    // The jobs one line gives on many machines name it once.
    assert_eq!(
        grouped_notices(&[notice(12, "a"), notice(12, "a"), notice(12, "a")]),
        vec![("line 12".to_string(), "a")]
    );
    assert!(grouped_notices(&[]).is_empty());
}

#[test]
fn a_days_starts_become_arrivals_the_queue_reads_with_durations_when_all_have_one() {
    use stampede_core::arrivals;
    for (sample, durations) in [(Sample::MinuteZero, false), (Sample::SystemdTimer, true)] {
        let params = params(sample);
        let text = sample.text();
        let read = read(&text, &params, 1).unwrap();
        for day in [0, 6] {
            let csv = day_arrivals(&text, &params, 1, day).unwrap();
            let trace = arrivals::parse(&csv).unwrap();
            assert!(trace.refused.is_empty(), "{sample:?}: {:?}", trace.refused);
            let minutes = &read.load.starts[day as usize * 1440..(day as usize + 1) * 1440];
            let expected: u64 = minutes.iter().map(|&n| u64::from(n)).sum();
            assert_eq!(
                trace.times_us.len() as u64,
                expected,
                "{sample:?} day {day}"
            );
            let day_from = (params.week.0 + i64::from(day) * 86_400) * 1_000_000;
            assert!(
                trace
                    .times_us
                    .iter()
                    .all(|&at| (day_from..day_from + 86_400_000_000).contains(&at))
            );
            assert_eq!(trace.durations_s.is_some(), durations, "{sample:?}");
            assert!(trace.account_count > 1, "{sample:?}");
        }
    }
    // The systemd sample's timers run 20 minutes each.
    let params = params(Sample::SystemdTimer);
    let csv = day_arrivals(&Sample::SystemdTimer.text(), &params, 1, 0).unwrap();
    let trace = arrivals::parse(&csv).unwrap();
    assert!(trace.durations_s.unwrap().iter().all(|&d| d == 1_200.0));
}

#[test]
fn every_night_choice_is_the_hours_its_slug_names() {
    for choice in NightWindow::OPTIONS {
        let night = NightWindow::from_slug(choice.slug).unwrap();
        let named = NightHours::parse(choice.slug).ok();
        assert_eq!(night_hours(night), named, "{}", choice.slug);
    }
    assert_eq!(night_hours(NightWindow::OwnHour), None);
}
