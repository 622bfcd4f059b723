//! GitLab's Code Quality report: a JSON array with an issue per finding,
//! its `check_name` the rule, its fingerprint (unique per issue, and the
//! same when the line moves), a severity and the file and line.

use serde_json::{Value, json};
use stampede_fleet::check::Level;

use super::Reported;
use crate::check::Stop;

pub fn render(reported: &Reported) -> Result<String, Stop> {
    let issues: Vec<Value> = reported
        .report
        .findings
        .iter()
        .map(|finding| {
            json!({
                "description": finding.message,
                "check_name": finding.rule.slug(),
                "fingerprint": finding.fingerprint,
                "severity": match finding.level {
                    Level::Error => "major",
                    Level::Warning => "minor",
                    Level::Note => "info",
                },
                "location": {
                    "path": finding.path,
                    "lines": { "begin": finding.line },
                },
            })
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&issues).map_err(|e| e.to_string())?;
    text.push('\n');
    Ok(text)
}
