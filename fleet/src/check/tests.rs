//! The check's parts held to what they claim to follow: `jenkins_hashify`
//! to Jenkins' own test cases, the marks to the comments a file can hold,
//! each suggestion to the finding whose line it changes, and the budget
//! judged across draws to the binomial law its draws follow.

use std::collections::BTreeMap;

use stampede_core::fleet_format::FleetFormat;

use super::read::FileRead;
use super::rules::jenkins_hashify;
use super::suggest::Suggestion;
use super::{CheckOptions, Finding, Rule, SourceFile, check, marks};
use crate::cron::Horizon;

/// 2026-11-23T00:00:00Z, a Monday.
const FROM: i64 = 1_795_392_000;

fn options() -> CheckOptions {
    CheckOptions {
        from: FROM,
        horizon: Horizon::hours(168).unwrap(),
        seed: 1,
        max_starts_per_minute: None,
        max_concurrent: None,
        zone: None,
        durations: BTreeMap::new(),
        night: None,
    }
}

fn budget(starts: u32) -> CheckOptions {
    CheckOptions {
        max_starts_per_minute: Some(starts),
        ..options()
    }
}

fn source(path: &str, format: FleetFormat, text: &str) -> SourceFile {
    SourceFile {
        path: path.into(),
        text: text.into(),
        format,
    }
}

fn findings(files: &[SourceFile], options: &CheckOptions) -> Vec<Finding> {
    check(files, options).unwrap().findings
}

/// (path, line, rule) of each finding.
fn places(files: &[SourceFile], options: &CheckOptions) -> Vec<(String, usize, Rule)> {
    findings(files, options)
        .into_iter()
        .map(|f| (f.path, f.line, f.rule))
        .collect()
}

fn place(path: &str, line: usize, rule: Rule) -> (String, usize, Rule) {
    (path.into(), line, rule)
}

// --- Jenkins' hashify -------------------------------------------------------

/// The specs of Jenkins' `CronTabTest.checkSanity` (jenkinsci/jenkins,
/// core/src/test/java/hudson/scheduler/CronTabTest.java at commit
/// f9ad8fabdc44ad52b3515dde78d409c0c90ffda3): each one it expects
/// "Spread load evenly by using ‘A’ rather than ‘B’" for, with the A it
/// expects, and each one it expects no such advice for that `hashify`
/// itself leaves alone.
#[test]
fn hashify_gives_what_jenkins_tests_expect() {
    for (spec, hashed) in [
        ("*/15 * * * *", "H/15 * * * *"),
        ("0,15,30,45 * * * *", "H/15 * * * *"),
        ("0 * * * *", "H * * * *"),
        ("5 * * * *", "H * * * *"),
        ("0 3 * * *", "H 3 * * *"),
        ("00 22 * * 6", "H 22 * * 6"),
    ] {
        assert_eq!(jenkins_hashify(spec).as_deref(), Some(hashed), "{spec}");
    }
    for spec in [
        "@hourly",
        "H H(0-2) * * *",
        "H/15 * 1 1 *",
        "0 3 H/15 * *",
        "0 3 H/3 * *",
        "* * * * *",
        "* 0 * * *",
        "* 6,18 * * *",
        "* * 3 * *",
    ] {
        assert_eq!(jenkins_hashify(spec), None, "{spec}");
    }
}

/// The branches of `CronTab.hashify` itself (same file's CronTab.java):
/// `0,n,2n,…` only when it lists every multiple of n below 60, a fixed
/// minute only with fields after it, `*/n` whatever follows.
#[test]
fn hashify_takes_only_a_whole_list_of_multiples() {
    for (spec, hashed) in [
        ("0,30 * * * *", Some("H/30 * * * *")),
        ("0,20,40 * * * *", Some("H/20 * * * *")),
        ("0,15,30 * * * *", None),
        ("0,15,30,45,60 * * * *", None),
        ("0,015,030,045 * * * *", None),
        ("0,00 * * * *", None),
        ("10-20 * * * *", None),
        ("0", None),
        ("*/5", Some("H/5")),
        ("*/1 * * * *", Some("H/1 * * * *")),
    ] {
        assert_eq!(jenkins_hashify(spec).as_deref(), hashed, "{spec}");
    }
}

/// Jenkins' `checkSanity` asks "every minute?" of a spec that runs every
/// minute and warns of short day-of-month cycles before it ever hashes
/// (`*/1` hashes to `H/1`, the same every minute): the rule gives Jenkins'
/// advice only where Jenkins gives it.
#[test]
fn jenkins_spread_only_where_jenkins_advises_it() {
    let text =
        "pipeline {\n  triggers {\n    cron('''*/1 * * * *\n0 3 */5 * *\n0 3 * * *''')\n  }\n}\n";
    let files = [source("ci/Jenkinsfile", FleetFormat::Jenkins, text)];
    let spread: Vec<_> = places(&files, &options())
        .into_iter()
        .filter(|(_, _, rule)| *rule == Rule::JenkinsSpread)
        .collect();
    assert_eq!(spread, [place("ci/Jenkinsfile", 5, Rule::JenkinsSpread)]);
}

// --- Marks ------------------------------------------------------------------

/// Whether line `line` of `text` (read as `format`) is marked to be left
/// out of `rule`.
fn ignored(format: FleetFormat, text: &str, line: usize, rule: Rule) -> bool {
    let file = source("marked", format, text);
    let read = FileRead::new(&file, &options());
    marks::ignores(&read, line + read.shift, rule)
}

#[test]
fn a_mark_names_rules_or_all_of_them() {
    let crontab = FleetFormat::Crontab;
    let two = "0 0 30 2 * /opt/report # stampede: ignore never-runs, day-fields-or\n";
    assert!(ignored(crontab, two, 1, Rule::NeverRuns));
    assert!(ignored(crontab, two, 1, Rule::DayFieldsOr));
    assert!(!ignored(crontab, two, 1, Rule::StartsPerMinute));
    let all = "# stampede: ignore\n0 * * * * /opt/sync\n";
    for &rule in Rule::ALL {
        assert!(ignored(crontab, all, 2, rule), "{rule:?}");
    }
}

#[test]
fn a_mark_is_read_in_any_comment_syntax() {
    let jenkinsfile = "pipeline {\n  triggers {\n    // stampede: ignore jenkins-spread\n    cron('0 * * * *')\n  }\n}\n";
    assert!(ignored(
        FleetFormat::Jenkins,
        jenkinsfile,
        4,
        Rule::JenkinsSpread
    ));
    let xml = "<project>\n  <triggers>\n    <hudson.triggers.TimerTrigger>\n      <!-- stampede: ignore starts-per-minute -->\n      <spec>0 * * * *</spec>\n    </hudson.triggers.TimerTrigger>\n  </triggers>\n</project>\n";
    // `-->` ends the list of rules, rather than making it name none (all).
    assert!(ignored(
        FleetFormat::JenkinsXml,
        xml,
        5,
        Rule::StartsPerMinute
    ));
    assert!(!ignored(
        FleetFormat::JenkinsXml,
        xml,
        5,
        Rule::JenkinsSpread
    ));
    let java = "class Tasks {\n    /*\n     * stampede: ignore starts-per-minute\n     */\n    @Scheduled(cron = \"0 0 * * * *\")\n    void sync() {}\n}\n";
    assert!(ignored(
        FleetFormat::SpringScheduled,
        java,
        5,
        Rule::StartsPerMinute
    ));
}

#[test]
fn a_mark_reaches_down_through_its_comment_block_and_no_further() {
    let crontab = FleetFormat::Crontab;
    let block = "# stampede: ignore never-runs because\n# it runs in leap years only\n0 0 30 2 * /opt/report\n";
    assert!(ignored(crontab, block, 3, Rule::NeverRuns));
    // "because" is no rule: the list ends there instead of naming all.
    assert!(!ignored(crontab, block, 3, Rule::DayFieldsOr));
    let gap = "# stampede: ignore\n\n0 0 30 2 * /opt/report\n";
    assert!(!ignored(crontab, gap, 3, Rule::NeverRuns));
}

/// A schedule line ends a comment block, though it starts as a line of a
/// Java comment block does (`*`).
#[test]
fn a_mark_on_the_line_above_leaves_the_next_schedule_its_findings() {
    let text = "# stampede: ignore never-runs\n*/5 * * * * /opt/poll\n0 0 30 2 * /opt/report\n";
    assert!(ignored(FleetFormat::Crontab, text, 2, Rule::NeverRuns));
    assert!(!ignored(FleetFormat::Crontab, text, 3, Rule::NeverRuns));
    let files = [source("ops/crontab", FleetFormat::Crontab, text)];
    assert_eq!(
        places(&files, &options()),
        [place("ops/crontab", 3, Rule::NeverRuns)]
    );
}

#[test]
fn the_annotation_covers_its_document_only() {
    let yaml = "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: a\n  annotations:\n    stampede/ignore: \"starts-per-minute\"\nspec:\n  schedule: \"0 * * * *\"\n---\napiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: b\nspec:\n  schedule: \"0 * * * *\"\n";
    assert!(ignored(
        FleetFormat::Kubernetes,
        yaml,
        8,
        Rule::StartsPerMinute
    ));
    assert!(!ignored(FleetFormat::Kubernetes, yaml, 8, Rule::NeverRuns));
    assert!(!ignored(
        FleetFormat::Kubernetes,
        yaml,
        15,
        Rule::StartsPerMinute
    ));
}

#[test]
fn a_duration_mark_gives_the_line_its_run_time() {
    let file = source(
        "ops/crontab",
        FleetFormat::Crontab,
        "# stampede: duration 45m\n0 2 * * * /opt/backup\n0 3 * * * /opt/other\n",
    );
    let read = FileRead::new(&file, &options());
    assert_eq!(marks::duration(&read, 2), Some(45 * 60));
    assert_eq!(marks::duration(&read, 3), None);
}

// --- Suggestions ------------------------------------------------------------

/// The suggestion of the finding of `rule` at `line` of `path`.
fn suggestion(found: &[Finding], path: &str, line: usize, rule: Rule) -> Option<Suggestion> {
    found
        .iter()
        .find(|f| f.path == path && f.line == line && f.rule == rule)
        .unwrap_or_else(|| panic!("no {rule:?} at {path}:{line} in {found:#?}"))
        .suggestion
        .clone()
}

fn lines(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|text| text.to_string()).collect()
}

#[test]
fn lines_a_fix_adds_belong_to_the_timers_line() {
    let crowd = source("ops/crontab", FleetFormat::Crontab, "0 * * * * /opt/sync\n");
    let bare = source(
        "systemd/bare.timer",
        FleetFormat::Systemd,
        "[Timer]\nOnCalendar=hourly\n\n[Install]\nWantedBy=timers.target\n",
    );
    let delayed = source(
        "systemd/delayed.timer",
        FleetFormat::Systemd,
        "[Timer]\nOnCalendar=hourly\nRandomizedDelaySec=1m\n",
    );
    let found = findings(&[crowd, bare, delayed], &budget(1));
    let rule = Rule::StartsPerMinute;
    assert_eq!(
        suggestion(&found, "systemd/bare.timer", 2, rule),
        Some(Suggestion {
            first_line: 3,
            last_line: 2,
            removed: vec![],
            added: lines(&["RandomizedDelaySec=1h", "FixedRandomDelay=yes"]),
        })
    );
    assert_eq!(
        suggestion(&found, "systemd/delayed.timer", 2, rule),
        Some(Suggestion {
            first_line: 3,
            last_line: 2,
            removed: vec![],
            added: lines(&["FixedRandomDelay=yes"]),
        })
    );
}

#[test]
fn neighbouring_lines_get_a_suggestion_each() {
    let crontab = source(
        "ops/crontab",
        FleetFormat::Crontab,
        "0 * * * * /opt/sync\n0 * * * * /opt/export\n",
    );
    let found = findings(&[crontab], &budget(1));
    for (line, command) in [(1, "/opt/sync"), (2, "/opt/export")] {
        let change = suggestion(&found, "ops/crontab", line, Rule::StartsPerMinute).unwrap();
        assert_eq!((change.first_line, change.last_line), (line, line));
        assert_eq!(change.removed, [format!("0 * * * * {command}")]);
        assert_eq!(change.added.len(), 1);
        assert!(change.added[0].ends_with(command), "{change:?}");
        assert!(!change.added[0].starts_with("0 "), "{change:?}");
    }
}

/// A template's window is set a few lines away from the schedule's
/// expression, above it or below it as the template orders its keys; the
/// change still goes to that schedule's finding.
#[test]
fn a_templates_new_window_belongs_to_its_schedule() {
    let template = "Resources:\n  Ledger:\n    Type: AWS::Scheduler::Schedule\n    Properties:\n      ScheduleExpression: \"cron(0 * * * ? *)\"\n      FlexibleTimeWindow:\n        Mode: \"OFF\"\n  Payouts:\n    Type: AWS::Scheduler::Schedule\n    Properties:\n      FlexibleTimeWindow:\n        Mode: \"OFF\"\n      ScheduleExpression: \"cron(0 * * * ? *)\"\n";
    let files = [source(
        "infra/scheduler.yaml",
        FleetFormat::EventBridge,
        template,
    )];
    let found = findings(&files, &budget(1));
    let window = |line: usize| Suggestion {
        first_line: line,
        last_line: line,
        removed: lines(&["        Mode: \"OFF\""]),
        added: lines(&[
            "        Mode: \"FLEXIBLE\"",
            "        MaximumWindowInMinutes: 60",
        ]),
    };
    let path = "infra/scheduler.yaml";
    let rule = Rule::StartsPerMinute;
    assert_eq!(suggestion(&found, path, 5, rule), Some(window(7)));
    assert_eq!(suggestion(&found, path, 13, rule), Some(window(12)));
}

// --- Budgets across draws ---------------------------------------------------

/// 100 timers `daily` with `RandomizedDelaySec=10m` and no fixed delay,
/// each drawing its delay anew: every night each starts in one of the ten
/// minutes after midnight, each minute with p = 1/10, so a minute's starts
/// in one draw are X ~ Binomial(100, 0.1) (mean 10, sd 3).
///
/// The 90th percentile of 20 draws (type 7) lies between the 18th and
/// 19th smallest draw: it is at most 8 only when 18 of the 20 draws are,
/// and above 25 only when 2 of them are.
///
/// - Budget 8: P(X ≤ 8) = 0.3209, so P(18 of 20 draws ≤ 8) = 1.2e-7 per
///   minute, 8.4e-6 over the week's 70 minutes: every minute after
///   midnight is over, and every timer starts in one.
/// - Budget 25: P(X > 25) = 4.1e-6, so P(2 of 20 draws > 25) = 3.2e-9 per
///   minute, 2.2e-7 over the 70: none is over.
#[test]
fn a_drawn_budget_follows_the_binomial_law() {
    let fleet: String = (0..100)
        .map(|i| format!("systemd\tjob-{i:03}.timer\tdaily\tRandomizedDelaySec=10m\n"))
        .collect();
    let files = [source("timers.fleet", FleetFormat::Fleet, &fleet)];
    let over = |starts: u32| {
        let found = findings(&files, &budget(starts));
        assert!(found.iter().all(|f| f.rule == Rule::StartsPerMinute));
        found.len()
    };
    assert_eq!(over(8), 100);
    assert_eq!(over(25), 0);
}

/// A timer's delays are drawn from a stream of its own line, not of where
/// the line falls among every file's lines: comments added to another
/// file leave its draws, and so the load and the findings, as they were.
#[test]
fn a_lines_draws_do_not_hang_on_other_files() {
    let crontab = "0 * * * * /opt/sync\n";
    // 60 timers over the hour: about one a minute, more on some draws.
    let timers: String = (0..60)
        .map(|i| format!("systemd\tjob-{i:02}.timer\thourly\tRandomizedDelaySec=1h\n"))
        .collect();
    let run = |crontab: &str| {
        let files = [
            source("ops/crontab", FleetFormat::Crontab, crontab),
            source("timers.fleet", FleetFormat::Fleet, &timers),
        ];
        let day = CheckOptions {
            horizon: Horizon::hours(24).unwrap(),
            ..budget(2)
        };
        let report = check(&files, &day).unwrap();
        let timers: Vec<Finding> = report
            .findings
            .into_iter()
            .filter(|f| f.path == "timers.fleet")
            .collect();
        (report.busiest_by_hour, timers)
    };
    let (load, found) = run(crontab);
    assert!(!found.is_empty());
    assert_eq!(run(&format!("# moved\n\n# down\n{crontab}")), (load, found));
}

// --- Marks that cannot be read ---------------------------------------------

#[test]
fn a_mark_naming_no_rule_ignores_nothing_and_is_reported() {
    let text = "# stampede: ignore start-per-minute\n0 0 30 2 * /opt/report\n\
                # stampede: duration soon\n0 1 * * * /opt/sync\n\
                # stampede: silence\n0 2 * * * /opt/audit\n";
    let files = [source("crontab", FleetFormat::Crontab, text)];
    let found = findings(&files, &options());
    let at = |line: usize, rule: Rule| found.iter().find(|f| f.line == line && f.rule == rule);
    // The misspelt id does not drop the line's findings…
    assert!(at(2, Rule::NeverRuns).is_some());
    // …and each mark that cannot be read is named, as a note.
    let misspelt = at(1, Rule::BadMark).expect("the misspelt id is reported");
    assert!(
        misspelt
            .message
            .contains("\"start-per-minute\" is not a rule")
    );
    assert!(misspelt.message.contains("starts-per-minute"));
    assert!(at(3, Rule::BadMark).is_some_and(|f| f.message.contains("duration soon")));
    assert!(at(5, Rule::BadMark).is_some_and(|f| f.message.contains("`stampede: silence`")));
    assert!(
        found
            .iter()
            .all(|f| f.rule != Rule::BadMark || f.level == super::Level::Note)
    );
}

#[test]
fn a_kubernetes_annotation_naming_no_rule_is_reported() {
    let yaml = "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: report\n  annotations:\n    \
                stampede/ignore: \"never-run\"\nspec:\n  schedule: \"0 0 30 2 *\"\n";
    let files = [source("cronjobs.yaml", FleetFormat::Kubernetes, yaml)];
    let found = places(&files, &options());
    assert!(
        found.contains(&place("cronjobs.yaml", 6, Rule::BadMark)),
        "{found:?}"
    );
    assert!(
        found.contains(&place("cronjobs.yaml", 8, Rule::NeverRuns)),
        "{found:?}"
    );
}

#[test]
fn a_concurrency_budget_with_no_duration_says_it_was_not_checked() {
    let files = [source(
        "crontab",
        FleetFormat::Crontab,
        "0 * * * * /a\n0 * * * * /b\n",
    )];
    let report = check(
        &files,
        &CheckOptions {
            max_concurrent: Some(1.0),
            ..options()
        },
    )
    .unwrap();
    assert!(report.findings.is_empty());
    assert_eq!(report.notices.len(), 1);
    assert!(report.notices[0].contains("no schedule has a known duration"));
}

/// Every line of a large crontab starting in one crowded minute gets its
/// own suggestion, each replacing its own line, from one rewrite of the
/// file rather than one per line. A line whose hashed minute is 0 (about
/// 1 in 60) is already where the fix would put it, so it has none.
#[test]
fn every_line_of_a_large_crontab_gets_its_own_suggestion() {
    let text: String = (0..3_000)
        .map(|i| format!("0 * * * * /opt/jobs/job-{i}\n"))
        .collect();
    let files = [source("crontab", FleetFormat::Crontab, &text)];
    let found = findings(&files, &budget(10));
    assert_eq!(found.len(), 3_000);
    let suggested: Vec<&Finding> = found.iter().filter(|f| f.suggestion.is_some()).collect();
    assert!(suggested.len() > 2_900, "{} suggestions", suggested.len());
    for finding in suggested {
        let change = finding.suggestion.as_ref().unwrap();
        assert_eq!(
            (change.first_line, change.last_line),
            (finding.line, finding.line)
        );
        assert_eq!(
            change.removed,
            [format!("0 * * * * /opt/jobs/job-{}", finding.line - 1)]
        );
    }
}
