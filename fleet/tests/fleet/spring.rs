//! Spring cron expressions against Spring itself: every row of
//! `spring_starts.tsv` was printed by Spring Framework 7.0.9's own
//! `CronExpression`, compiled from its source, or by Spring 4.3's
//! `CronSequenceGenerator` (see `make_spring_vectors.sh`). Then the
//! reading of `@Scheduled` methods from Java and Kotlin sources.

use stampede_core::fleet_format::FleetFormat;
use stampede_fleet::import::{self, spring_scheduled};
use stampede_fleet::spring::{self, NextRun};

use crate::import::{lines, skipped};
use stampede_fleet::time::{MICROS_PER_SECOND, Window};

use crate::listed;

const VECTORS: &str = include_str!("../data/spring_starts.tsv");

fn rows(kind: &str) -> Vec<Vec<String>> {
    crate::vector_rows(VECTORS, kind)
}

/// Up to `count` fire times of `spec`, each the next after the one
/// before, from `start`, and whether the search then gave up.
fn fire_times(spec: &str, start: i64, count: usize) -> (Vec<i64>, bool) {
    let cron = spring::read(spec).unwrap_or_else(|refusal| panic!("{spec:?}: {refusal}"));
    next_times(&cron, start, count)
}

fn next_times(cron: &spring::SpringCron, start: i64, count: usize) -> (Vec<i64>, bool) {
    let mut found = Vec::new();
    let mut after = start;
    while found.len() < count {
        match cron.next_after(after) {
            Some(at) => {
                found.push(at);
                after = at;
            }
            None => return (found, true),
        }
    }
    (found, false)
}

#[test]
fn every_fire_time_matches_spring() {
    let rows = rows("fires");
    assert!(rows.len() >= 200, "{} rows", rows.len());
    for row in rows {
        let (spec, start, expected) = (&row[1], row[2].parse().unwrap(), listed(&row[3]));
        let (found, gave_up) = fire_times(spec, start, 40);
        assert_eq!(found, expected, "{spec:?} after {start}");
        assert_eq!(gave_up, expected.len() < 40, "{spec:?} after {start}");
    }
}

#[test]
fn every_fire_time_in_a_zone_matches_spring() {
    crate::zoned_rows_match(VECTORS, read_in, |cron, after| cron.next_after(after));
}

/// `spec` read, in `zone` when given.
fn read_in(spec: &str, zone: impl Into<Option<jiff::tz::TimeZone>>) -> spring::SpringCron {
    let cron = spring::read(spec).unwrap();
    match zone.into() {
        Some(zone) => cron.in_zone(zone),
        None => cron,
    }
}

#[test]
fn every_refusal_matches_spring() {
    let rows = rows("refused");
    assert!(rows.len() >= 30);
    for row in rows {
        let refusal = spring::read(&row[1]).expect_err(&row[1]);
        assert_eq!(refusal.field, "Spring");
        assert_eq!(refusal.reason, row[2], "{:?}", row[1]);
    }
}

#[test]
fn a_window_holds_each_fire_time_the_search_gives_in_it() {
    let search = |cron: &spring::SpringCron, after| match cron.search_after(after) {
        NextRun::Fires(at) => Some(at),
        _ => None,
    };
    let place = |cron: &spring::SpringCron, window, out: &mut Vec<i64>, most| {
        cron.push_starts(window, out, most)
    };
    crate::windows_match_searches(VECTORS, read_in, search, place);
}

#[test]
fn a_search_that_does_not_move_on_ends_the_starts_with_a_notice() {
    // Spring 7 gives 2026-01-29 00:00 for `L-30` from then on.
    let stuck = spring::read("0 0 0 L-30 * *").unwrap();
    let (found, _) = fire_times("0 0 0 L-30 * *", 1_767_225_600, 3);
    assert_eq!(found, [1_769_644_800; 3]);
    let week = |from: i64| Window {
        from: from * MICROS_PER_SECOND,
        end: (from + 7 * 86_400) * MICROS_PER_SECOND,
    };
    let mut starts = Vec::new();
    assert!(!stuck.push_starts(week(1_769_212_800), &mut starts, 100));
    assert_eq!(starts, [1_769_644_800 * MICROS_PER_SECOND]);
    let why = stuck.stops_searching(&starts).unwrap();
    assert!(why.starts_with("after 2026-01-29T00:00:00Z: "), "{why}");
    assert!(
        why.contains("gives back 2026-01-29T00:00:00Z, a time already past"),
        "{why}"
    );
    assert!(why.contains("due again at once"), "{why}");
    let later = stuck.never_runs(1_769_731_200).unwrap();
    assert!(later.contains("gives back 2026-01-29T00:00:00Z"), "{later}");

    let never = spring::read("0 0 0 30 2 *").unwrap();
    assert_eq!(never.search_after(1_767_225_600), NextRun::GivesUp);
    assert!(
        never
            .never_runs(1_767_225_600)
            .unwrap()
            .contains("not scheduled again")
    );
}

/// What the module says of Spring 4, checked against Spring 4.3 itself:
/// where its rows differ from Spring 7's, the spec has a macro, `L`, `W`
/// or `#`, a step over the days, a day range through Sunday, or days
/// that come months apart or never.
#[test]
fn spring_4_differs_only_where_the_module_says() {
    const FAR_APART: [&str; 6] = [
        "0 0 0 1 * MON",
        "0 0 0 13 * FRI",
        "0 0 0 29 2 MON",
        "0 0 0 30 2 *",
        "0 0 0 31 2,4,6,9,11 *",
        "0 0 0 31 4 *",
    ];
    let said = |spec: &str| {
        let spec = spec.to_uppercase();
        spec.contains(['@', 'L', 'W', '#'])
            || spec.ends_with("*/2")
            || spec.contains(" */10 ")
            || spec.contains("MON-SUN")
            || spec.contains(" 7-")
            || FAR_APART.contains(&spec.as_str())
    };
    let fires = rows("fires");
    let spring_7_gives = |row: &[String]| fires.iter().any(|fired| fired[1..4] == row[1..4]);
    let mut differing = Vec::new();
    for row in rows("spring4") {
        if !spring_7_gives(&row) {
            differing.push(row[1].clone());
        }
    }
    for row in rows("spring4-refused")
        .into_iter()
        .chain(rows("spring4-fails"))
    {
        if spring::read(&row[1]).is_ok() {
            differing.push(row[1].clone());
        }
    }
    assert!(differing.len() >= 30, "{differing:?}");
    let unsaid: Vec<_> = differing.iter().filter(|spec| !said(spec)).collect();
    assert!(unsaid.is_empty(), "{unsaid:?}");
}

/// A Spring component: tasks in UTC, in the server's zone, in Paris,
/// from a property's default, twice on one method; and the tasks that
/// are skipped, each for its own reason.
const REPORT_JOBS: &str = r#"package com.example.jobs;

import org.springframework.scheduling.annotation.Scheduled;

@Component
public class ReportJobs {
    private static final String NIGHTLY = "0 0 2 * * *";
    private final Logger log = LoggerFactory.getLogger(ReportJobs.class);

    // @Scheduled(cron = "0 0 * * * *") ran every hour before.
    @Scheduled(cron = "0 0 * * * *", zone = "UTC")
    public void hourly() { log.info("@Scheduled(cron = \"1 * * * * *\")"); }

    @Scheduled(cron = "0 */15 * * * MON-FRI")
    public void quarterly() {}

    @Scheduled(cron = "${reports.cron:0 30 1 * * *}", zone = "Etc/UTC")
    public void fromProperty() {}

    @Scheduled(cron = "${reports.weekly}")
    public void weekly() {}

    @Scheduled(cron = NIGHTLY, zone = "UTC")
    public void nightly() {}

    @Scheduled(cron = "0 0 9 * * *", zone = "Europe/Paris")
    public void paris() {}

    @Scheduled(fixedRate = 60_000)
    public void poll() {}

    @Scheduled(cron = "-")
    public void off() {}

    @Scheduled(
        cron = "0 0 3 * * SUN",
        zone = "UTC")
    @Scheduled(cron = "0 0 4 * * SUN", zone = "UTC")
    void twice() {}
}
"#;

#[test]
fn scheduled_methods_read_as_spring_lines_and_the_rest_are_named() {
    let translation = spring_scheduled::translate(REPORT_JOBS);
    assert_eq!(
        translation.fleet_text(),
        "spring\tReportJobs.hourly\t0 0 * * * *\n\
         spring\tReportJobs.quarterly\t0 */15 * * * MON-FRI\n\
         spring\tReportJobs.fromProperty\t0 30 1 * * *\n\
         spring\tReportJobs.paris\t0 0 9 * * *\tZone=Europe/Paris\n\
         spring\tReportJobs.twice\t0 0 3 * * SUN\n\
         spring\tReportJobs.twice#2\t0 0 4 * * SUN\n"
    );
    assert_eq!(lines(&translation), [11, 14, 17, 26, 36, 38]);
    assert_eq!(
        skipped(&translation),
        [(20, "cron"), (23, "cron"), (29, "cron"), (32, "cron")]
    );
    let notes: Vec<usize> = translation.notes.iter().map(|note| note.line).collect();
    assert_eq!(notes, [14, 17]);
    // The fix writes in place where the expression is written: the
    // default's bytes for the property.
    for line in &translation.lines {
        let source = line.source.clone().unwrap();
        let spec = line.fleet.split('\t').nth(2);
        assert_eq!(spec, Some(&REPORT_JOBS[source]), "{}", line.fleet);
    }
    assert_eq!(import::detect(REPORT_JOBS), FleetFormat::SpringScheduled);
}

#[test]
fn a_line_with_a_zone_runs_on_its_wall_clock() {
    use stampede_fleet::file;
    use stampede_fleet::plan::LinePlan;
    let plan = |text: &str| {
        let read = file::parse(text);
        assert!(read.skipped.is_empty(), "{:?}", read.skipped);
        LinePlan::read(&read.lines[0], 1).unwrap()
    };
    // 09:00 in Paris is 08:00 UTC in January.
    let day = Window {
        from: 1_767_225_600 * MICROS_PER_SECOND,
        end: (1_767_225_600 + 86_400) * MICROS_PER_SECOND,
    };
    let mut starts = Vec::new();
    plan("spring\tj\t0 0 9 * * *\tZone=Europe/Paris").push_starts(day, &mut starts, 10);
    assert_eq!(starts, [(1_767_225_600 + 8 * 3600) * MICROS_PER_SECOND]);
    plan("spring\tj\t0 0 9 * * *\tZone=UTC");
    let refused = file::parse("spring\tj\t0 0 9 * * *\tZone=Mars/Olympus").skipped;
    assert_eq!(refused[0].field, "Zone");
}

/// A crontab, then a Kotlin source after a `# file:` line, pasted together.
const CRONTAB_AND_KOTLIN: &str = r#"0 * * * * /usr/bin/backup
# file: src/main/kotlin/Jobs.kt
package com.example

@Component
class Jobs(private val reports: Reports) {
    @Scheduled(cron = "0 0 * * * *", zone = "Europe/Berlin")
    fun hourly() = reports.run("hourly")

    // @Scheduled(cron = "0 0 1 * * *")
    @Scheduled(cron = "0 0 2 * * *", zone = "UTC")
    fun nightly() {
        reports.run("${'$'}{nightly}")
    }
}
"#;

#[test]
fn a_kotlin_source_pasted_after_a_crontab_reads_as_spring() {
    let imported = import::import(CRONTAB_AND_KOTLIN, FleetFormat::Auto);
    let formats: Vec<FleetFormat> = imported.parts.iter().map(|part| part.format).collect();
    assert_eq!(
        formats,
        [FleetFormat::Crontab, FleetFormat::SpringScheduled]
    );
    let lines: Vec<(usize, &str, &str)> = imported
        .file
        .lines
        .iter()
        .map(|line| (line.line, line.id.as_str(), line.spec.as_str()))
        .collect();
    assert_eq!(
        lines,
        [
            (1, "/usr/bin/backup", "0 * * * *"),
            (7, "Jobs.hourly", "0 0 * * * *"),
            (11, "Jobs.nightly", "0 0 2 * * *"),
        ]
    );
    assert_eq!(
        imported.file.lines[1].options.own("Zone"),
        Some("Europe/Berlin")
    );
    assert!(
        imported.file.skipped.is_empty(),
        "{:?}",
        imported.file.skipped
    );
}

#[test]
fn a_long_expression_not_written_as_a_string_is_named_short() {
    let constant = "A".repeat(100_000);
    let text = format!("class J {{\n  @Scheduled(cron = {constant})\n  void run() {{}}\n}}\n");
    let translation = spring_scheduled::translate(&text);
    let reason = &translation.skipped[0].reason;
    assert!(reason.len() < 300, "{} bytes", reason.len());
    assert!(reason.starts_with("the expression is AAA"), "{reason}");
}
