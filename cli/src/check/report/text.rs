//! The report for a terminal: each finding as `path:line: level[rule]
//! message`, as compilers write them so editors can jump to the line,
//! its suggested change as a diff under it, then what was read and the
//! tally.

use std::fmt::Write;

use stampede_core::units::{count, counted};

use super::Reported;
use crate::check::baseline::State;

pub fn render(reported: &Reported) -> String {
    let report = &reported.report;
    let mut out = String::new();
    for (index, finding) in report.findings.iter().enumerate() {
        let state = match reported.states[index] {
            State::Unchanged if reported.with_baseline => " (in the baseline)",
            State::Worse => " (worse than in the baseline)",
            _ => "",
        };
        let _ = writeln!(
            out,
            "{}:{}: {}[{}] {}{state}",
            finding.path,
            finding.line,
            finding.level.slug(),
            finding.rule.slug(),
            finding.message
        );
        if let Some(change) = &finding.suggestion {
            let _ = writeln!(out, "  suggested change at line {}:", change.first_line);
            for line in &change.removed {
                let _ = writeln!(out, "  - {line}");
            }
            for line in &change.added {
                let _ = writeln!(out, "  + {line}");
            }
        }
    }
    if !report.findings.is_empty() {
        out.push('\n');
    }
    let files = report.files.len();
    let _ = write!(
        out,
        "{} read, {} over {} from {}",
        counted(files as u64, "file", "files"),
        counted(report.schedules as u64, "schedule", "schedules"),
        counted(u64::from(report.horizon_minutes / 60), "hour", "hours"),
        stampede_fleet::time::format(report.from),
    );
    match report.busiest_minute {
        Some((at, starts)) => {
            let what = if report.drawn {
                " (90th percentile across draws)"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                ": {} starts, the busiest minute {} with {starts}{what}.",
                count(report.starts as u64),
                stampede_fleet::time::format(at),
            );
        }
        None => out.push_str(": nothing starts.\n"),
    }
    for notice in &report.notices {
        let _ = writeln!(out, "note: {notice}.");
    }
    let _ = writeln!(out, "{}.", reported.tally());
    out
}
