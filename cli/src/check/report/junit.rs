//! JUnit XML, as CI servers show test results: a test case per finding,
//! failed when the finding fails the check, and one passed case per file
//! without findings.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::Reported;

pub fn render(reported: &Reported) -> String {
    let report = &reported.report;
    let with_findings: BTreeSet<&str> = report.findings.iter().map(|f| f.path.as_str()).collect();
    let clean: Vec<&str> = report
        .files
        .iter()
        .map(|file| file.path.as_str())
        .filter(|path| !with_findings.contains(path))
        .collect();
    let tests = report.findings.len() + clean.len();
    let failures = (0..report.findings.len())
        .filter(|&i| reported.failing(i))
        .count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"stampede check\" tests=\"{tests}\" failures=\"{failures}\">"
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"stampede check\" tests=\"{tests}\" failures=\"{failures}\">"
    );
    for (index, finding) in report.findings.iter().enumerate() {
        let _ = write!(
            out,
            "    <testcase classname=\"{}\" name=\"{} at line {}\">",
            escape(&finding.path),
            finding.rule.slug(),
            finding.line
        );
        let message = escape(&finding.message);
        let location = format!("{}:{}", escape(&finding.path), finding.line);
        if reported.failing(index) {
            let _ = write!(
                out,
                "<failure type=\"{}\" message=\"{message}\">{location}: {}: {message}</failure>",
                finding.rule.slug(),
                finding.level.slug()
            );
        } else {
            let _ = write!(
                out,
                "<system-out>{location}: {}: {message}</system-out>",
                finding.level.slug()
            );
        }
        out.push_str("</testcase>\n");
    }
    for path in clean {
        let _ = writeln!(
            out,
            "    <testcase classname=\"{}\" name=\"schedules\"/>",
            escape(path)
        );
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// Text as XML character data or an attribute value; characters XML 1.0
/// cannot hold at all become U+FFFD.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || matches!(c, '\u{fffe}' | '\u{ffff}') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}
