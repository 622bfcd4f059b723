//! Each report as the tool that reads it expects it: text as a compiler
//! writes it, SARIF by OASIS' schema and code scanning's fields, GitHub's
//! workflow commands and job summary, GitLab's Code Quality JSON and JUnit
//! XML, each matched finding by finding to the JSON report.

use std::fs;

use serde_json::Value;

use super::{
    BUDGETS, append, assert_valid_sarif, check, check_with_env, copy, findings_of, fixture, report,
};

/// The fixture's JSON report and a report of `format` of the same run,
/// written to a file in a copy.
fn both(format: &str, args: &[&str]) -> (Value, String) {
    let dir = copy();
    let to = format!("{format}={}", dir.path().join("out").display());
    let run = check(dir.path(), &[args, &["-o", "json", "-o", &to]].concat());
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let written = fs::read_to_string(dir.path().join("out")).unwrap();
    (run.json(), written)
}

#[test]
fn text_names_each_finding_as_a_compiler_does() {
    let run = check(&fixture(), &BUDGETS);
    let json = report(&fixture(), &BUDGETS);
    let heads: Vec<&str> = run
        .stdout
        .lines()
        .filter(|line| !line.starts_with(' '))
        .collect();
    // A line a finding, then a blank line, what was read and the tally.
    assert_eq!(heads.len(), findings_of(&json).len() + 3, "{}", run.stdout);
    for (finding, head) in findings_of(&json).iter().zip(&heads) {
        let start = format!(
            "{}:{}: {}[{}] ",
            finding["path"].as_str().unwrap(),
            finding["line"],
            finding["level"].as_str().unwrap(),
            finding["rule"].as_str().unwrap()
        );
        assert!(head.starts_with(&start), "{head} is not {start}…");
    }
    assert!(run.stdout.contains(
        "ops/crontab:3: error[starts-per-minute] starts in Mon 2026-11-23 02:00 UTC, a minute with 16 starts, over the budget of 10 a minute\n  suggested change at line 3:\n  - 0 * * * * /opt/jobs/sync-inventory\n  + "
    ));
    assert!(
        run.stdout
            .ends_with("\n21 errors, 6 warnings and 0 notes; 21 fail (at error and above).\n")
    );
}

#[test]
fn sarif_holds_to_the_schema_and_to_code_scannings_fields() {
    let (json, text) = both("sarif", &BUDGETS);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("check.sarif");
    fs::write(&file, &text).unwrap();
    assert_valid_sarif(&file);
    let sarif: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let run = &sarif["runs"][0];
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rule| rule["id"].as_str().unwrap())
        .collect();
    let results = run["results"].as_array().unwrap();
    let findings = findings_of(&json);
    assert_eq!(results.len(), findings.len());
    for (result, finding) in results.iter().zip(findings) {
        let rule = finding["rule"].as_str().unwrap();
        assert_eq!(result["ruleId"], rule);
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index], rule);
        assert_eq!(result["level"], finding["level"]);
        let location = &result["locations"][0]["physicalLocation"];
        let uri = location["artifactLocation"]["uri"].as_str().unwrap();
        assert_eq!(uri, finding["path"]);
        assert!(
            !uri.starts_with('/') && !uri.starts_with("./") && !uri.contains('\\'),
            "{uri}"
        );
        assert_eq!(location["region"]["startLine"], finding["line"]);
        assert_eq!(
            result["partialFingerprints"]["stampede/v1"],
            finding["fingerprint"]
        );
        assert_eq!(
            result["properties"]["value"].as_f64(),
            finding["value"].as_f64()
        );
        assert_eq!(
            result["fixes"].is_array(),
            finding["suggestion"].is_object()
        );
        assert!(result.get("baselineState").is_none());
    }
    // A fix replaces whole lines up to the end of the last one's text, or
    // inserts before a line's first column.
    let replacement = |path: &str, line: u64| {
        let result = results
            .iter()
            .find(|r| {
                let location = &r["locations"][0]["physicalLocation"];
                location["artifactLocation"]["uri"] == path
                    && location["region"]["startLine"] == line
            })
            .unwrap();
        result["fixes"][0]["artifactChanges"][0]["replacements"][0].clone()
    };
    let crontab = replacement("ops/crontab", 3);
    let region = &crontab["deletedRegion"];
    let replaced = "0 * * * * /opt/jobs/sync-inventory";
    assert_eq!(
        (&region["startLine"], &region["startColumn"]),
        (&3.into(), &1.into())
    );
    assert_eq!(
        (&region["endLine"], &region["endColumn"]),
        (&3.into(), &(replaced.len() + 1).into())
    );
    let inserted = crontab["insertedContent"]["text"].as_str().unwrap();
    assert!(inserted.ends_with(" * * * * /opt/jobs/sync-inventory") && !inserted.contains('\n'));
    let jitter = replacement("temporal/schedules.json", 6);
    let region = &jitter["deletedRegion"];
    assert_eq!(
        (&region["startLine"], &region["endLine"]),
        (&6.into(), &6.into())
    );
    assert_eq!(
        (&region["startColumn"], &region["endColumn"]),
        (&1.into(), &1.into())
    );
    assert_eq!(
        jitter["insertedContent"]["text"],
        "      \"jitter\": \"3600s\",\n"
    );
}

/// With a baseline every result has a state: the new line is `new`, the
/// findings it crowds more are `updated`, the rest `unchanged`.
#[test]
fn sarif_against_a_baseline_holds_to_the_schema() {
    let dir = copy();
    check(
        dir.path(),
        &[&BUDGETS[..], &["-o", "json=base.json"]].concat(),
    );
    append(dir.path(), "ops/crontab", "0 * * * * /opt/jobs/new-job\n");
    let args = [
        &BUDGETS[..],
        &["--baseline", "base.json", "-o", "sarif=out.sarif"],
    ]
    .concat();
    assert_eq!(check(dir.path(), &args).code, Some(1));
    let file = dir.path().join("out.sarif");
    assert_valid_sarif(&file);
    let sarif: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    let states: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|result| result["baselineState"].as_str().unwrap())
        .collect();
    for state in ["new", "updated", "unchanged"] {
        assert!(states.contains(&state), "{states:?}");
    }
}

/// `::error file=PATH,line=N,title=stampede RULE::MESSAGE`.
fn annotation(line: &str) -> (&str, &str, &str, &str, &str) {
    let (command, rest) = line[2..].split_once(' ').unwrap();
    let (properties, message) = rest.split_once("::").unwrap();
    let mut fields = properties.split(',');
    let mut field = |key: &str| {
        let field = fields.next().unwrap();
        field
            .strip_prefix(key)
            .unwrap_or_else(|| panic!("{field} is not {key}…"))
    };
    (
        command,
        field("file="),
        field("line="),
        field("title=stampede "),
        message,
    )
}

#[test]
fn github_annotates_errors_first_ten_a_level() {
    let json = report(&fixture(), &BUDGETS);
    let run = check(&fixture(), &[&BUDGETS[..], &["-o", "github"]].concat());
    assert_eq!(run.code, Some(1));
    let lines: Vec<&str> = run.stdout.lines().collect();
    let (annotations, rest) = lines.split_at(16);
    let commands: Vec<&str> = annotations.iter().map(|line| annotation(line).0).collect();
    assert_eq!(
        commands,
        [["error"; 10].as_slice(), &["warning"; 6]].concat()
    );
    assert_eq!(
        rest,
        [
            "stampede: 11 more findings are not annotated (GitHub shows 10 of each level a step); the job summary lists them all",
            "stampede: 21 errors, 6 warnings and 0 notes; 21 fail (at error and above)",
        ]
    );
    for line in annotations {
        let (command, path, number, rule, message) = annotation(line);
        let number: u64 = number.parse().unwrap();
        let finding = findings_of(&json)
            .iter()
            .find(|f| f["path"] == path && f["line"] == number && f["rule"] == rule)
            .unwrap_or_else(|| panic!("no finding for {line}"));
        assert_eq!(finding["level"], command);
        let first = finding["message"].as_str().unwrap();
        assert!(message.starts_with(first), "{message}");
        if finding["suggestion"].is_object() {
            let at = &finding["suggestion"]["first_line"];
            assert!(
                message[first.len()..]
                    .starts_with(&format!("%0ASuggested change at line {at}:%0A")),
                "{message}"
            );
        }
    }
}

#[test]
fn github_writes_the_job_summary() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    fs::write(&summary, "# Earlier step\n").unwrap();
    let args = [&BUDGETS[..], &["-o", "github"]].concat();
    let run = check_with_env(&fixture(), &args, &[("GITHUB_STEP_SUMMARY", &summary)]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let text = fs::read_to_string(&summary).unwrap();
    assert!(
        text.starts_with("# Earlier step\n## Stampede check\n\n21 errors, 6 warnings"),
        "{text}"
    );
    let heatmap = text
        .split("```text\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let days: Vec<&str> = heatmap
        .lines()
        .skip(1)
        .take(7)
        .map(|row| &row[..9])
        .collect();
    assert_eq!(
        days,
        [
            "Mon 11-23",
            "Tue 11-24",
            "Wed 11-25",
            "Thu 11-26",
            "Fri 11-27",
            "Sat 11-28",
            "Sun 11-29"
        ]
    );
    assert!(
        heatmap.contains("█ = 16 starts in the hour's busiest minute"),
        "{heatmap}"
    );
    let rows = text.lines().filter(|line| line.starts_with("| `")).count();
    assert!(
        text.contains("| file | line | level | rule | finding |\n| --- |"),
        "{text}"
    );
    assert_eq!(rows, 27);
    assert!(
        text.contains("| `ops/crontab` | 7 | error (fails) | `never-runs` |"),
        "{text}"
    );
}

#[test]
fn gitlab_code_quality_has_an_issue_per_finding() {
    let (json, text) = both("gitlab", &BUDGETS);
    let issues: Vec<Value> = serde_json::from_str(&text).unwrap();
    let findings = findings_of(&json);
    assert_eq!(issues.len(), findings.len());
    let mut fingerprints = std::collections::BTreeSet::new();
    for (issue, finding) in issues.iter().zip(findings) {
        assert_eq!(issue["description"], finding["message"]);
        assert_eq!(issue["check_name"], finding["rule"]);
        assert_eq!(issue["fingerprint"], finding["fingerprint"]);
        let severity = match finding["level"].as_str().unwrap() {
            "error" => "major",
            _ => "minor",
        };
        assert_eq!(issue["severity"], severity);
        assert_eq!(issue["location"]["path"], finding["path"]);
        assert_eq!(issue["location"]["lines"]["begin"], finding["line"]);
        assert!(fingerprints.insert(issue["fingerprint"].as_str().unwrap().to_string()));
    }
}

#[test]
fn junit_fails_a_case_per_failing_finding() {
    for (fail_on, failing) in [("error", 21), ("warning", 27)] {
        let (json, text) = both("junit", &[&BUDGETS[..], &["--fail-on", fail_on]].concat());
        let xml = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        let root = xml.root_element();
        assert_eq!(root.tag_name().name(), "testsuites");
        let cases: Vec<_> = root
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        let failures = cases
            .iter()
            .filter(|case| case.children().any(|n| n.has_tag_name("failure")))
            .count();
        assert_eq!(failures, failing);
        // A case per finding, and one for each of the 3 files without any.
        assert_eq!(cases.len(), findings_of(&json).len() + 3);
        for node in [root, root.first_element_child().unwrap()] {
            assert_eq!(
                node.attribute("failures"),
                Some(failing.to_string().as_str())
            );
            assert_eq!(
                node.attribute("tests"),
                Some(cases.len().to_string().as_str())
            );
        }
    }
}

#[test]
fn reports_go_to_files_and_one_to_stdout() {
    let dir = copy();
    let run = check(
        dir.path(),
        &[
            &BUDGETS[..],
            &["-o", "sarif=a.sarif", "-o", "gitlab=b.json", "-o", "text"],
        ]
        .concat(),
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with(".github/workflows/nightly.yml:4: error[starts-per-minute]")
    );
    assert_valid_sarif(&dir.path().join("a.sarif"));
    let issues: Vec<Value> =
        serde_json::from_str(&fs::read_to_string(dir.path().join("b.json")).unwrap()).unwrap();
    assert_eq!(
        issues.len(),
        findings_of(&report(dir.path(), &BUDGETS)).len()
    );
}

/// The book's example (docs/src/check.md) shows lines of the fixture's
/// real output, so a change to a message or a figure changes it too.
#[test]
fn the_books_example_is_the_fixtures_output() {
    let book = fs::read_to_string(fixture().join("../../../../docs/src/check.md")).unwrap();
    let example = book
        .split("```sh\n$ cd cli/tests/check/repo")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the example in docs/src/check.md");
    let run = check(&fixture(), &BUDGETS);
    let shown = example
        .lines()
        .skip(2)
        .filter(|line| !line.is_empty() && *line != "…");
    for line in shown {
        assert!(
            run.stdout.lines().any(|out| out == line),
            "not in the output: {line}"
        );
    }
}
