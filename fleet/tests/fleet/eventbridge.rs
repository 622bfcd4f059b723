//! EventBridge Scheduler lines. The service is closed source and does not
//! run here, so no vectors come from it: the times below are worked out by
//! hand from the examples and rules of AWS's documentation (the
//! EventBridge Scheduler User Guide, "Schedule types"), and the moments
//! within a window are held to the uniform law the module says it draws.

use stampede_fleet::cron::Horizon;
use stampede_fleet::file;
use stampede_fleet::fix::{FixChange, fix_line};
use stampede_fleet::plan::LinePlan;
use stampede_fleet::time::MICROS_PER_SECOND;

/// Monday 2024-01-01 00:00 UTC.
const MONDAY: i64 = 1_704_067_200;
const MINUTE: i64 = 60;

/// The starts of one `eventbridge` line over `hours` from `from`, in Unix
/// microseconds, and the expansion's notices.
fn starts(spec_and_options: &str, from: i64, hours: u32, seed: u64) -> (Vec<i64>, Vec<String>) {
    let fleet = file::parse(&format!("eventbridge\tjob\t{spec_and_options}\n"));
    assert!(fleet.skipped.is_empty(), "{:?}", fleet.skipped);
    let expansion =
        stampede_fleet::expand(&fleet.lines, from, Horizon::hours(hours).unwrap(), seed).unwrap();
    let notices = expansion
        .notices
        .iter()
        .map(|n| n.message.clone())
        .collect();
    (
        expansion.starts.iter().map(|s| s.at_micros).collect(),
        notices,
    )
}

/// The minutes (Unix seconds of their first second) the starts fall in.
fn minutes(starts: &[i64]) -> Vec<i64> {
    starts
        .iter()
        .map(|at| at.div_euclid(MICROS_PER_SECOND * MINUTE) * MINUTE)
        .collect()
}

#[test]
fn the_documented_examples_start_in_their_minutes() {
    // Each example of AWS's cron table, over the first week of 2024
    // (Monday the 1st to Sunday the 7th), with the window OFF: each start
    // falls within the minute of its time.
    let day = |d: i64, hour: i64, minute: i64| MONDAY + (d * 24 + hour) * 3600 + minute * MINUTE;
    let week = 0..7;
    let weekdays = 0..5;
    let cases: Vec<(&str, Vec<i64>)> = vec![
        (
            "cron(0 10 * * ? *)",
            week.clone().map(|d| day(d, 10, 0)).collect(),
        ),
        (
            "cron(15 12 * * ? *)",
            week.clone().map(|d| day(d, 12, 15)).collect(),
        ),
        (
            "cron(0 18 ? * MON-FRI *)",
            weekdays.clone().map(|d| day(d, 18, 0)).collect(),
        ),
        ("cron(0 8 1 * ? *)", vec![day(0, 8, 0)]),
        // The first Monday of the month: the 1st.
        ("cron(0 9 ? * 2#1 *)", vec![day(0, 9, 0)]),
        (
            "cron(0/5 8-17 ? * MON-FRI *)",
            weekdays
                .clone()
                .flat_map(|d| {
                    (8..18).flat_map(move |h| (0..60).step_by(5).map(move |m| day(d, h, m)))
                })
                .collect(),
        ),
    ];
    for (spec, want) in cases {
        let (got, _) = starts(spec, MONDAY, 24 * 7, 3);
        assert_eq!(minutes(&got), want, "{spec}");
    }
    let (got, _) = starts("cron(0/15 * * * ? *)", MONDAY, 24, 3);
    assert_eq!(got.len(), 96);
    let (got, _) = starts("cron(0/10 * ? * MON-FRI *)", MONDAY, 24 * 7, 3);
    assert_eq!(got.len(), 5 * 144);
}

#[test]
fn a_flexible_window_spreads_starts_uniformly_within_it() {
    // Every minute for a day with a 15-minute window: each start lies in
    // the 15 minutes after its time, and the offsets, pooled, follow the
    // uniform law on [0, 15 min): the Kolmogorov–Smirnov distance of n =
    // 1,440 draws stays under 1.63 / √n (the 1% critical value) but for
    // one seed in a hundred. The first 14 minutes' times lie before the
    // horizon, so each start is matched to the time just before it in
    // steps of a minute from 14 minutes before.
    let (got, _) = starts("cron(* * * * ? *)\tWindow=15", MONDAY, 24, 11);
    let window = 15 * MINUTE * MICROS_PER_SECOND;
    assert!(got.windows(2).all(|pair| pair[0] <= pair[1]));
    assert!(got.iter().all(|&at| at >= MONDAY * MICROS_PER_SECOND));
    // 1,440 times in the day and 14 before it, less those drawn past
    // either end; a start's own time is unknown once windows overlap, so
    // the law is checked on a line with one time a day.
    assert!((1426..=1454).contains(&got.len()), "{}", got.len());
    let mut offsets = Vec::new();
    for seed in 0..1440 {
        let (got, _) = starts("cron(0 3 * * ? *)\tWindow=15", MONDAY, 24, seed);
        assert_eq!(got.len(), 1);
        let offset = got[0] - (MONDAY + 3 * 3600) * MICROS_PER_SECOND;
        assert!((0..window).contains(&offset), "{offset}");
        offsets.push(offset as f64 / window as f64);
    }
    offsets.sort_by(f64::total_cmp);
    let n = offsets.len() as f64;
    let distance = offsets
        .iter()
        .enumerate()
        .map(|(i, &x)| (x - i as f64 / n).abs().max(((i + 1) as f64 / n - x).abs()))
        .fold(0.0, f64::max);
    assert!(distance < 1.63 / n.sqrt(), "KS distance {distance}");
}

#[test]
fn the_law_is_named_and_the_range_drawn() {
    let fleet = file::parse("eventbridge\tnightly\tcron(0 3 * * ? *)\tWindow=30\n");
    let plan = LinePlan::read(&fleet.lines[0], 1).unwrap();
    let law = plan.drawn_delays().unwrap();
    assert!(law.contains("30 min") && law.contains("uniformly"), "{law}");
    let imported = stampede_fleet::import::import(
        "eventbridge\tnightly\tcron(0 3 * * ? *)\tWindow=30\n",
        stampede_core::fleet_format::FleetFormat::Fleet,
    );
    let expansion = imported
        .expand_with_draws(MONDAY, Horizon::hours(24).unwrap(), 1)
        .unwrap();
    let drawn = expansion.drawn.unwrap();
    // Twenty draws of one start within 03:00 to 03:30 reach minutes of it
    // and no other.
    assert!(
        drawn.reached.iter().all(|m| (180..210).contains(m)),
        "{:?}",
        drawn.reached
    );
    assert!(drawn.reached.len() > 5);
}

#[test]
fn a_zone_skips_the_time_its_clocks_skip_and_runs_a_repeated_time_once() {
    // New York: 2026-03-08 02:00 EST jumps to 03:00 EDT; 2026-11-01 02:00
    // EDT falls back to 01:00 EST. AWS: a time that does not exist is not
    // invoked, and a repeated time is invoked once.
    let march = 1_772_928_000; // 2026-03-08 00:00 UTC
    let (got, _) = starts(
        "cron(30 2 * * ? *)\tZone=America/New_York",
        march - 86_400,
        72,
        1,
    );
    let want = [
        march - 86_400 + (7 * 3600 + 1800), // the 7th, 02:30 EST
        march + 86_400 + (6 * 3600 + 1800), // the 9th, 02:30 EDT
    ];
    assert_eq!(minutes(&got), want);
    let november = 1_761_955_200; // 2026-11-01 00:00 UTC
    let (got, _) = starts("cron(30 1 * * ? *)\tZone=America/New_York", november, 24, 1);
    assert_eq!(got.len(), 1, "{got:?}");
}

#[test]
fn a_rate_steps_from_its_start_date_in_hours_that_do_not_bend() {
    let start = "2024-01-01T00:07:00Z";
    let (got, notices) = starts(&format!("rate(20 minutes)\tStart={start}"), MONDAY, 2, 1);
    let want: Vec<i64> = (0..6)
        .map(|k| MONDAY + 7 * MINUTE + k * 20 * MINUTE)
        .collect();
    assert_eq!(minutes(&got), want);
    assert!(
        notices.iter().all(|n| !n.contains("created")),
        "{notices:?}"
    );
    // A day is 24 hours, in a zone too: across New York's March change
    // the start moves on the wall clock, not in UTC.
    let march = 1_772_928_000;
    let (got, _) = starts(
        "rate(1 day)\tStart=2026-03-07T07:00:00Z\tZone=America/New_York",
        march - 86_400,
        72,
        1,
    );
    let want: Vec<i64> = (0..3)
        .map(|d| march - 86_400 + d * 86_400 + 7 * 3600)
        .collect();
    assert_eq!(minutes(&got), want);
    let (_, notices) = starts("rate(1 hour)", MONDAY, 2, 1);
    assert!(
        notices.iter().any(|n| n.contains("StartDate")),
        "{notices:?}"
    );
}

#[test]
fn what_aws_refuses_is_refused_with_its_field() {
    let refused = |text: &str, field: &str, says: &str| {
        let fleet = file::parse(&format!("eventbridge\tjob\t{text}\n"));
        assert!(fleet.lines.is_empty(), "{text}");
        let refusal = &fleet.skipped[0];
        assert_eq!(refusal.field, field, "{text}: {refusal:?}");
        assert!(refusal.reason.contains(says), "{text}: {}", refusal.reason);
    };
    refused("cron(0 10 * * *)", "spec", "6 fields");
    refused("cron(0 10 * * * *)", "spec", "? in the other");
    refused("cron(0 10 ? * ? *)", "spec", "? in the other");
    refused("cron(0 10 32 * ? *)", "spec", "cron(0 10 32 * ? *): ");
    refused("rate(0 minutes)", "spec", "from 1");
    refused("rate(5 weeks)", "spec", "minutes, hours or days");
    refused("rate(minutes)", "spec", "a value and a unit");
    refused("at(2026-01-01T00:00:00)", "spec", "cron(...) or rate(...)");
    refused("cron(0 3 * * ? *)\tWindow=0", "Window", "1 to 1440");
    refused("cron(0 3 * * ? *)\tWindow=1441", "Window", "1 to 1440");
    refused("rate(1 hour)\tStart=tomorrow", "Start", "RFC 3339");
    refused("cron(0 3 * * ? *)\tZone=Mars/Olympus", "Zone", "IANA");
}

#[test]
fn the_fix_sets_a_flexible_window_as_long_as_the_line_s_window() {
    let fix = |text: &str| {
        let fleet = file::parse(&format!("eventbridge\tjob\t{text}\n"));
        fix_line(&fleet.lines[0], None)
    };
    let window = |minutes: &str| FixChange::Rewritten {
        spec: String::new(),
        options: vec![("Window".into(), minutes.into())],
    };
    let options = |change: FixChange| match change {
        FixChange::Rewritten { options, .. } => window(&options[0].1),
        kept => kept,
    };
    assert_eq!(options(fix("cron(0 3 * * ? *)")), window("60"));
    assert_eq!(options(fix("cron(0/15 * * * ? *)")), window("15"));
    assert_eq!(options(fix("rate(5 minutes)")), window("5"));
    assert_eq!(options(fix("rate(1 day)")), window("60"));
    assert!(matches!(
        fix("cron(0 3 * * ? *)\tWindow=10"),
        FixChange::Kept { .. }
    ));
    assert!(matches!(fix("rate(1 minute)"), FixChange::Kept { .. }));
}

const TEMPLATE: &str = r#"AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Nightly:
    Type: AWS::Scheduler::Schedule
    Properties:
      Name: nightly-report
      GroupName: reports
      ScheduleExpression: "cron(0 2 * * ? *)"
      ScheduleExpressionTimezone: Europe/Paris
      FlexibleTimeWindow:
        Mode: "OFF"
      EndDate: "2030-01-01T00:00:00Z"
  Sync:
    Type: AWS::Scheduler::Schedule
    Properties:
      ScheduleExpression: rate(15 minutes)
      StartDate: "2024-01-01T00:05:00Z"
      FlexibleTimeWindow:
        Mode: FLEXIBLE
        MaximumWindowInMinutes: 10
  Computed:
    Type: AWS::Scheduler::Schedule
    Properties:
      ScheduleExpression: !Ref NightlyExpression
      FlexibleTimeWindow:
        Mode: "OFF"
  Paused:
    Type: AWS::Scheduler::Schedule
    Properties:
      ScheduleExpression: cron(0 3 * * ? *)
      State: DISABLED
      FlexibleTimeWindow:
        Mode: "OFF"
  OldRule:
    Type: AWS::Events::Rule
    Properties:
      ScheduleExpression: cron(0 4 * * ? *)
  Worker:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Hourly:
          Type: ScheduleV2
          Properties:
            ScheduleExpression: cron(0 * * * ? *)
        Legacy:
          Type: Schedule
          Properties:
            Schedule: rate(1 hour)
"#;

const TERRAFORM_JSON: &str = r#"{
  "resource": {
    "aws_scheduler_schedule": {
      "cleanup": {
        "name": "cleanup",
        "schedule_expression": "cron(30 1 * * ? *)",
        "flexible_time_window": [{"mode": "OFF"}]
      },
      "poll": [{
        "schedule_expression": "rate(5 minutes)",
        "start_date": "2024-01-01T00:00:00Z",
        "flexible_time_window": {"mode": "OFF"}
      }],
      "var": {
        "schedule_expression": "${var.expression}",
        "flexible_time_window": {"mode": "OFF"}
      }
    }
  }
}
"#;

#[test]
fn cloudformation_and_sam_schedules_read_with_their_options() {
    use stampede_core::fleet_format::FleetFormat;
    use stampede_fleet::import;
    assert_eq!(import::detect(TEMPLATE), FleetFormat::EventBridge);
    let translation = import::eventbridge::translate(TEMPLATE);
    let fleet: Vec<&str> = translation.lines.iter().map(|l| l.fleet.as_str()).collect();
    assert_eq!(
        fleet,
        [
            "eventbridge\treports/nightly-report\tcron(0 2 * * ? *)\tZone=Europe/Paris",
            "eventbridge\tSync\trate(15 minutes)\tWindow=10\tStart=2024-01-01T00:05:00Z",
            "eventbridge\tWorker/Hourly\tcron(0 * * * ? *)",
        ]
    );
    assert_eq!(crate::import::lines(&translation), [8, 16, 45]);
    let skipped: Vec<(usize, &str, &str)> = translation
        .skipped
        .iter()
        .map(|s| (s.line, s.field.as_str(), s.reason.as_str()))
        .collect();
    assert_eq!(skipped.len(), 4, "{skipped:?}");
    assert!(
        skipped[0].2.contains("!Ref") && skipped[0].0 == 24,
        "{skipped:?}"
    );
    assert!(
        skipped[1].2.contains("DISABLED") && skipped[1].0 == 30,
        "{skipped:?}"
    );
    assert!(
        skipped[2].2.contains("EventBridge rule") && skipped[2].0 == 37,
        "{skipped:?}"
    );
    assert!(
        skipped[3].2.contains("ScheduleV2") && skipped[3].0 == 47,
        "{skipped:?}"
    );
    assert!(translation.notes[0].message.contains("EndDate"));
    // Every line is accounted for.
    let imported = import::import(TEMPLATE, FleetFormat::Auto);
    assert_eq!(imported.file.lines.len(), 3);
}

#[test]
fn terraform_json_schedules_read_in_either_block_form() {
    use stampede_core::fleet_format::FleetFormat;
    use stampede_fleet::import;
    assert_eq!(import::detect(TERRAFORM_JSON), FleetFormat::EventBridge);
    let translation = import::eventbridge::translate(TERRAFORM_JSON);
    let fleet: Vec<&str> = translation.lines.iter().map(|l| l.fleet.as_str()).collect();
    assert_eq!(
        fleet,
        [
            "eventbridge\tcleanup\tcron(30 1 * * ? *)",
            "eventbridge\tpoll\trate(5 minutes)\tStart=2024-01-01T00:00:00Z",
        ]
    );
    assert_eq!(translation.skipped.len(), 1);
    assert!(translation.skipped[0].reason.contains("interpolation"));
}

#[test]
fn the_fix_writes_a_flexible_window_into_each_dialect() {
    use stampede_core::fleet_format::FleetFormat;
    use stampede_fleet::fix::{self, native};
    use stampede_fleet::import;
    for (text, fixed_lines) in [(TEMPLATE, 2), (TERRAFORM_JSON, 2)] {
        let read = import::read(text, FleetFormat::EventBridge);
        let fixes = fix::fix_lines(&read.lines, None);
        let written = native::rewrite(text, FleetFormat::EventBridge, &fixes).unwrap();
        let reread = import::read(&written, FleetFormat::EventBridge);
        // Lines added above move a line; all else reads as the fix says.
        let unnumbered = |lines: Vec<stampede_fleet::file::FleetLine>| -> Vec<_> {
            lines
                .into_iter()
                .map(|mut line| {
                    line.options.own.sort();
                    (line.id, line.spec, line.options)
                })
                .collect()
        };
        let want = unnumbered(fix::apply(&read.lines, &fixes));
        assert_eq!(unnumbered(reread.lines.clone()), want, "{written}");
        let windows = reread
            .lines
            .iter()
            .filter(|line| line.options.own("Window").is_some())
            .count();
        // The line with a window already keeps it; the others get one.
        assert_eq!(windows, read.lines.len(), "{written}");
        assert!(
            fixes
                .iter()
                .filter(|f| matches!(f.change, FixChange::Rewritten { .. }))
                .count()
                == fixed_lines
        );
        // Nothing else moves: the lines outside the windows are kept.
        let kept = |line: &&str| {
            !["FLEXIBLE", "OFF", "Maximum", "FlexibleTimeWindow:"]
                .iter()
                .any(|word| line.contains(word))
        };
        let before: Vec<&str> = text.lines().filter(kept).collect();
        let after: Vec<&str> = written.lines().filter(kept).collect();
        assert_eq!(after, before, "{written}");
    }
}

#[test]
fn a_window_is_added_where_none_is_given() {
    use stampede_core::fleet_format::FleetFormat;
    use stampede_fleet::fix::{self, native};
    use stampede_fleet::import;
    let yaml = "Resources:\n  A:\n    Type: AWS::Scheduler::Schedule\n    Properties:\n      ScheduleExpression: cron(0 * * * ? *)\n";
    let json = "{\"Resources\": {\"A\": {\"Type\": \"AWS::Scheduler::Schedule\", \"Properties\": {\"ScheduleExpression\": \"cron(0 * * * ? *)\"}}}}\n";
    let pretty = "{\n  \"resource\": {\"aws_scheduler_schedule\": {\"a\": {\n    \"schedule_expression\": \"cron(0 * * * ? *)\",\n    \"flexible_time_window\": {\"mode\": \"OFF\"}\n  }}}\n}\n";
    for text in [yaml, json, pretty] {
        let read = import::read(text, FleetFormat::EventBridge);
        let fixes = fix::fix_lines(&read.lines, None);
        let written = native::rewrite(text, FleetFormat::EventBridge, &fixes).unwrap();
        let reread = import::read(&written, FleetFormat::EventBridge);
        assert!(reread.skipped.is_empty(), "{written}");
        assert_eq!(
            reread.lines[0].options.own("Window"),
            Some("60"),
            "{written}"
        );
    }
}
