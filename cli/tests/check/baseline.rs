//! A baseline from an earlier run's JSON or SARIF report: the repository
//! it was taken of passes against it, its lines moved or not, and a new
//! line fails with the findings it makes worse and no others.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde_json::Value;

use super::{BUDGETS, append, check, copy, findings_of};

/// (rule, fingerprint) → value, of each finding of a JSON report.
fn values(report: &Value) -> BTreeMap<(String, String), Option<f64>> {
    findings_of(report)
        .iter()
        .map(|f| {
            let key = (
                f["rule"].as_str().unwrap().into(),
                f["fingerprint"].as_str().unwrap().into(),
            );
            (key, f["value"].as_f64())
        })
        .collect()
}

/// The JSON report against `baseline`, and the exit code.
fn against(dir: &Path, baseline: &str) -> (Option<i32>, Value) {
    let args = [&BUDGETS[..], &["--baseline", baseline, "-o", "json"]].concat();
    let run = check(dir, &args);
    (run.code, run.json())
}

/// Each finding of a report against a baseline, with its state, as
/// (path, line, rule, state).
fn states(report: &Value) -> Vec<(String, u64, String, String)> {
    let states = report["baseline"].as_array().expect("baseline states");
    findings_of(report)
        .iter()
        .zip(states)
        .map(|(f, state)| {
            (
                f["path"].as_str().unwrap().into(),
                f["line"].as_u64().unwrap(),
                f["rule"].as_str().unwrap().into(),
                state.as_str().unwrap().into(),
            )
        })
        .collect()
}

#[test]
fn the_same_repository_passes_against_its_baseline() {
    for format in ["json", "sarif"] {
        let dir = copy();
        let base = format!("base.{format}");
        let taken = check(
            dir.path(),
            &[&BUDGETS[..], &["-o", &format!("{format}={base}")]].concat(),
        );
        assert_eq!(taken.code, Some(1), "{}", taken.stderr);
        let (code, report) = against(dir.path(), &base);
        assert_eq!(code, Some(0), "{format}");
        assert_eq!(report["failed"], false);
        assert!(
            states(&report)
                .iter()
                .all(|(.., state)| state == "unchanged")
        );
        let text = check(dir.path(), &[&BUDGETS[..], &["--baseline", &base]].concat());
        assert_eq!(text.code, Some(0));
        let heads: Vec<&str> = text
            .stdout
            .lines()
            .filter(|line| line.contains(": error[") || line.contains(": warning["))
            .collect();
        assert_eq!(heads.len(), 27, "{}", text.stdout);
        let known = |head: &&str| head.ends_with(" (in the baseline)");
        assert!(heads.iter().all(known), "{}", text.stdout);
        assert!(
            text.stdout
                .ends_with("; 0 fail (at error and above, new or worse than the baseline).\n")
        );
        // Lines moved down are the same findings.
        let crontab = dir.path().join("ops/crontab");
        let moved = format!("# moved\n\n{}", fs::read_to_string(&crontab).unwrap());
        fs::write(&crontab, moved).unwrap();
        assert_eq!(against(dir.path(), &base).0, Some(0), "{format}: moved");
    }
}

/// One more job at the top of the hour: a new finding, and every minute it
/// starts in one start busier, so each finding of the budgets it joins is
/// worse by exactly one; the rest are unchanged.
#[test]
fn a_new_crowded_line_fails_with_what_it_makes_worse() {
    for format in ["json", "sarif"] {
        let dir = copy();
        let base = format!("base.{format}");
        check(
            dir.path(),
            &[
                &BUDGETS[..],
                &[
                    "-o",
                    &format!("{format}={base}"),
                    "-o",
                    "json=base-values.json",
                ],
            ]
            .concat(),
        );
        let before: Value =
            serde_json::from_str(&fs::read_to_string(dir.path().join("base-values.json")).unwrap())
                .unwrap();
        append(dir.path(), "ops/crontab", "0 * * * * /opt/jobs/new-job\n");
        let (code, report) = against(dir.path(), &base);
        assert_eq!(code, Some(1), "{format}");
        assert_eq!(report["failed"], true);
        let states = states(&report);
        let new: Vec<_> = states.iter().filter(|(.., state)| state == "new").collect();
        assert_eq!(
            new,
            [&(
                "ops/crontab".into(),
                11,
                "starts-per-minute".into(),
                "new".into()
            )],
            "{format}"
        );
        let was = values(&before);
        for (finding, (path, line, rule, state)) in findings_of(&report).iter().zip(&states) {
            let key = (
                rule.clone(),
                finding["fingerprint"].as_str().unwrap().to_string(),
            );
            let Some(&then) = was.get(&key) else { continue };
            let now = finding["value"].as_f64();
            let budget = rule == "starts-per-minute" || rule == "concurrent-jobs";
            if budget {
                assert_eq!(state, "worse", "{path}:{line} {rule}");
                assert_eq!(now, then.map(|v| v + 1.0), "{path}:{line} {rule}");
            } else {
                assert_eq!(state, "unchanged", "{path}:{line} {rule}");
            }
        }
        let failing = states
            .iter()
            .filter(|(.., state)| state != "unchanged")
            .count();
        // The 20 budget findings and the new line's; never-runs is unchanged.
        assert_eq!(failing, 21, "{format}");
    }
}

/// A new line that crowds no minute: it alone fails.
#[test]
fn a_new_finding_alone_fails() {
    for format in ["json", "sarif"] {
        let dir = copy();
        let base = format!("base.{format}");
        check(
            dir.path(),
            &[&BUDGETS[..], &["-o", &format!("{format}={base}")]].concat(),
        );
        append(
            dir.path(),
            "ops/crontab",
            "0 0 31 4 * /opt/jobs/april-31st\n",
        );
        let (code, report) = against(dir.path(), &base);
        assert_eq!(code, Some(1), "{format}");
        let changed: Vec<_> = states(&report)
            .into_iter()
            .filter(|(.., state)| state != "unchanged")
            .collect();
        assert_eq!(
            changed,
            [("ops/crontab".into(), 11, "never-runs".into(), "new".into())],
            "{format}"
        );
        let github = check(
            dir.path(),
            &[&BUDGETS[..], &["--baseline", &base, "-o", "github"]].concat(),
        );
        let annotated: Vec<&str> = github
            .stdout
            .lines()
            .filter(|line| line.starts_with("::"))
            .collect();
        assert_eq!(annotated.len(), 1, "{}", github.stdout);
        assert!(
            annotated[0]
                .starts_with("::error file=ops/crontab,line=11,title=stampede never-runs::")
        );
    }
}
