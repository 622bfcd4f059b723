//! A baseline: an earlier run's findings, from its JSON or SARIF report,
//! so that a repository with known findings fails only on new or worse
//! ones. A finding is matched by rule and fingerprint (its line's text,
//! not its number, so a moved line still matches) and is worse when its
//! level is higher or its value (starts in the minute, jobs at once) is.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use stampede_fleet::check::{Finding, Level};

use super::Stop;

/// The key SARIF's `partialFingerprints` holds a finding's fingerprint under.
pub const FINGERPRINT_KEY: &str = "stampede/v1";

/// How a finding compares with the baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    New,
    Worse,
    Unchanged,
}

/// The findings of an earlier run, by rule and fingerprint.
#[derive(Default)]
pub struct Baseline {
    known: HashMap<(String, String), (Level, Option<f64>)>,
}

impl Baseline {
    pub fn read(path: &Path) -> Result<Self, Stop> {
        let name = path.display();
        let text = std::fs::read_to_string(path).map_err(|e| format!("--baseline {name}: {e}"))?;
        let json: Value =
            serde_json::from_str(&text).map_err(|e| format!("--baseline {name}: {e}"))?;
        let entries = if json.get("runs").is_some() {
            sarif_entries(&json)
        } else {
            json_entries(&json)
        };
        let entries = entries.ok_or_else(|| {
            format!("--baseline {name}: neither a `stampede check` JSON report nor a SARIF one")
        })?;
        Ok(Self {
            known: entries.into_iter().collect(),
        })
    }

    /// How `finding` compares with this baseline.
    pub fn state(&self, finding: &Finding) -> State {
        let key = (finding.rule.slug().to_string(), finding.fingerprint.clone());
        match self.known.get(&key) {
            None => State::New,
            Some(&(level, value)) => {
                let higher = finding.level > level;
                let more =
                    matches!((finding.value, value), (Some(now), Some(then)) if now > then + 1e-9);
                if higher || more {
                    State::Worse
                } else {
                    State::Unchanged
                }
            }
        }
    }
}

type Entry = ((String, String), (Level, Option<f64>));

fn json_entries(json: &Value) -> Option<Vec<Entry>> {
    json.get("findings")?
        .as_array()?
        .iter()
        .map(|finding| {
            let text = |key: &str| finding.get(key)?.as_str().map(str::to_string);
            let level = Level::from_slug(&text("level")?)?;
            let value = finding.get("value").and_then(Value::as_f64);
            Some(((text("rule")?, text("fingerprint")?), (level, value)))
        })
        .collect()
}

fn sarif_entries(json: &Value) -> Option<Vec<Entry>> {
    let mut entries = Vec::new();
    for run in json.get("runs")?.as_array()? {
        for result in run.get("results")?.as_array()? {
            let rule = result.get("ruleId")?.as_str()?.to_string();
            let fingerprint = result
                .get("partialFingerprints")?
                .get(FINGERPRINT_KEY)?
                .as_str()?
                .to_string();
            let level = result
                .get("level")
                .and_then(Value::as_str)
                .map_or(Some(Level::Warning), Level::from_slug)?;
            let value = result.pointer("/properties/value").and_then(Value::as_f64);
            entries.push(((rule, fingerprint), (level, value)));
        }
    }
    Some(entries)
}
