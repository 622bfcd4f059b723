//! GitHub Actions' workflow commands: an `::error`, `::warning` or
//! `::notice` annotation per finding with its `file=` and `line=`, most
//! important first. GitHub shows at most 10 annotations of each level a
//! step, so no more are written; a plain line says how many are left out.
//! With a baseline, only new and worse findings are annotated. When
//! `$GITHUB_STEP_SUMMARY` names a file, the full table and the week's
//! heatmap are added to it, as the job's summary page shows them.

use std::fmt::Write as _;
use std::io::Write as _;

use stampede_fleet::check::{Finding, Level};

use super::{Reported, heatmap};
use crate::check::Stop;
use crate::check::baseline::State;

/// The most annotations of one level GitHub shows for a step.
const MOST_A_LEVEL: usize = 10;

/// The most rows of the summary's table, well within the summary's 1 MiB.
const MOST_ROWS: usize = 1_000;

pub fn render(reported: &Reported) -> Result<String, Stop> {
    let mut out = String::new();
    let mut shown = [0; 3];
    let mut left_out = 0;
    for (index, finding) in reported.by_importance() {
        if reported.with_baseline && reported.states[index] == State::Unchanged {
            continue;
        }
        let slot = &mut shown[finding.level as usize];
        if *slot == MOST_A_LEVEL {
            left_out += 1;
            continue;
        }
        *slot += 1;
        let _ = writeln!(out, "{}", annotation(finding));
    }
    if left_out > 0 {
        let _ = writeln!(
            out,
            "stampede: {left_out} more findings are not annotated (GitHub shows {MOST_A_LEVEL} of each level a step); the job summary lists them all"
        );
    }
    for notice in &reported.report.notices {
        let _ = writeln!(out, "::warning title=stampede check::{}", data(notice));
    }
    let _ = writeln!(out, "stampede: {}", reported.tally());
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|path| !path.is_empty()) {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&path)
            .map_err(|e| format!("$GITHUB_STEP_SUMMARY {}: {e}", path.to_string_lossy()))?;
        file.write_all(summary(reported).as_bytes())
            .map_err(|e| format!("$GITHUB_STEP_SUMMARY {}: {e}", path.to_string_lossy()))?;
    }
    Ok(out)
}

/// `::warning file=…,line=…,title=…::message`, escaped as the runner
/// reads it.
fn annotation(finding: &Finding) -> String {
    let command = match finding.level {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Note => "notice",
    };
    let mut message = finding.message.clone();
    if let Some(change) = &finding.suggestion {
        message.push_str(&format!(
            "\nSuggested change at line {}:",
            change.first_line
        ));
        for line in &change.removed {
            message.push_str(&format!("\n- {line}"));
        }
        for line in &change.added {
            message.push_str(&format!("\n+ {line}"));
        }
    }
    format!(
        "::{command} file={},line={},title={}::{}",
        property(&finding.path),
        finding.line,
        property(&format!("stampede {}", finding.rule.slug())),
        data(&message)
    )
}

/// A command's message, escaped.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property value, escaped.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

/// The job summary: the tally, the heatmap and a table of findings.
fn summary(reported: &Reported) -> String {
    let report = &reported.report;
    let mut out = String::from("## Stampede check\n\n");
    let _ = writeln!(out, "{}.\n", reported.tally());
    let _ = writeln!(
        out,
        "Busiest minute of each hour over the horizon:\n\n```text\n{}```\n",
        heatmap(report)
    );
    if report.findings.is_empty() {
        return out;
    }
    out.push_str("| file | line | level | rule | finding |\n| --- | --- | --- | --- | --- |\n");
    for (index, finding) in reported.by_importance().into_iter().take(MOST_ROWS) {
        let failing = if reported.failing(index) {
            " (fails)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {}{failing} | `{}` | {} |",
            finding.path.replace('|', "\\|"),
            finding.line,
            finding.level.slug(),
            finding.rule.slug(),
            finding.message.replace('|', "\\|").replace('\n', " ")
        );
    }
    if report.findings.len() > MOST_ROWS {
        let _ = writeln!(
            out,
            "\n{} more findings are in the other reports.",
            report.findings.len() - MOST_ROWS
        );
    }
    out
}
