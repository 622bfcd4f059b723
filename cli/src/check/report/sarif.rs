//! SARIF 2.1.0 (OASIS), as code scanning reads it: one run whose driver
//! lists every rule, and a result per finding with its stable `ruleId`,
//! its file as a relative `artifactLocation.uri`, its line as
//! `region.startLine`, its fingerprint under `partialFingerprints` (so a
//! moved line is the same result), its state against a baseline, and the
//! suggested change as a `fix` replacing whole lines.

use serde_json::{Value, json};
use stampede_fleet::check::suggest::Suggestion;
use stampede_fleet::check::{Finding, Rule};

use super::Reported;
use crate::check::Stop;
use crate::check::baseline::{FINGERPRINT_KEY, State};

pub fn render(reported: &Reported) -> Result<String, Stop> {
    let rules: Vec<Value> = Rule::ALL
        .iter()
        .map(|rule| {
            json!({
                "id": rule.slug(),
                "name": rule.slug(),
                "shortDescription": { "text": rule.label() },
                "fullDescription": { "text": rule.help() },
                "defaultConfiguration": { "level": rule.level().slug() },
            })
        })
        .collect();
    let results: Vec<Value> = reported
        .report
        .findings
        .iter()
        .enumerate()
        .map(|(index, finding)| {
            result(
                finding,
                reported.with_baseline.then_some(reported.states[index]),
            )
        })
        .collect();
    let sarif = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "stampede",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "utf16CodeUnits",
            "invocations": [{
                "executionSuccessful": true,
                "toolExecutionNotifications": reported.report.notices.iter()
                    .map(|notice| json!({ "level": "warning", "message": { "text": notice } }))
                    .collect::<Vec<_>>(),
            }],
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&sarif).map_err(|e| e.to_string())?;
    text.push('\n');
    Ok(text)
}

fn result(finding: &Finding, state: Option<State>) -> Value {
    let location = json!({ "uri": finding.path });
    let mut result = json!({
        "ruleId": finding.rule.slug(),
        "ruleIndex": Rule::ALL.iter().position(|rule| *rule == finding.rule),
        "level": finding.level.slug(),
        "message": { "text": finding.message },
        "locations": [{ "physicalLocation": {
            "artifactLocation": location,
            "region": { "startLine": finding.line },
        }}],
        "partialFingerprints": { FINGERPRINT_KEY: finding.fingerprint },
    });
    let mut properties = serde_json::Map::new();
    if let Some(value) = finding.value {
        properties.insert("value".into(), json!(value));
    }
    if let Some(job) = &finding.job {
        properties.insert("job".into(), json!(job));
    }
    if !properties.is_empty() {
        result["properties"] = Value::Object(properties);
    }
    if let Some(state) = state {
        result["baselineState"] = json!(match state {
            State::New => "new",
            State::Worse => "updated",
            State::Unchanged => "unchanged",
        });
    }
    if let Some(change) = &finding.suggestion {
        result["fixes"] = json!([{
            "description": { "text": "Spread the line as `stampede fleet --fix` does" },
            "artifactChanges": [{
                "artifactLocation": location,
                "replacements": [replacement(change)],
            }],
        }]);
    }
    result
}

/// The change as a replacement of whole lines: the replaced lines up to
/// the end of the last one's text (its line break stays), or, when lines
/// are only added, an empty region at the start of the line they go before.
fn replacement(change: &Suggestion) -> Value {
    if change.removed.is_empty() {
        let mut added = change.added.join("\n");
        added.push('\n');
        return json!({
            "deletedRegion": {
                "startLine": change.first_line, "startColumn": 1,
                "endLine": change.first_line, "endColumn": 1,
            },
            "insertedContent": { "text": added },
        });
    }
    let last = change
        .removed
        .last()
        .map_or(0, |line| line.encode_utf16().count());
    json!({
        "deletedRegion": {
            "startLine": change.first_line, "startColumn": 1,
            "endLine": change.last_line, "endColumn": last + 1,
        },
        "insertedContent": { "text": change.added.join("\n") },
    })
}
