//! The check's reports: text for a terminal, JSON (which a baseline can
//! read back), SARIF 2.1.0 for code scanning, GitHub workflow commands and
//! step summary, GitLab Code Quality and JUnit XML. Each is rendered whole
//! and then written: a file by a rename into place, so a failed run never
//! leaves half a report.

mod github;
mod gitlab;
mod junit;
mod sarif;
mod text;

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use stampede_core::units::count;
use stampede_fleet::check::{CheckReport, Finding, Level};

use super::Stop;
use super::baseline::{Baseline, State};

/// A report's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Sarif,
    Github,
    Gitlab,
    Junit,
}

const FORMATS: [(&str, Format); 6] = [
    ("text", Format::Text),
    ("json", Format::Json),
    ("sarif", Format::Sarif),
    ("github", Format::Github),
    ("gitlab", Format::Gitlab),
    ("junit", Format::Junit),
];

/// A report to write, and where: a file, or stdout.
#[derive(Clone, Debug)]
pub struct Output {
    format: Format,
    file: Option<PathBuf>,
}

impl Default for Output {
    fn default() -> Self {
        Self {
            format: Format::Text,
            file: None,
        }
    }
}

/// `--output`'s value: FORMAT or FORMAT=FILE.
pub fn parse_output(text: &str) -> Result<Output, String> {
    let (name, file) = match text.split_once('=') {
        Some((name, file)) if !file.is_empty() => (name, Some(PathBuf::from(file))),
        Some((name, _)) => return Err(format!("\"{name}=\" names no file")),
        None => (text, None),
    };
    let format = FORMATS
        .iter()
        .find(|(slug, _)| *slug == name)
        .map(|&(_, format)| format)
        .ok_or_else(|| {
            let names: Vec<&str> = FORMATS.iter().map(|(slug, _)| *slug).collect();
            format!("\"{name}\" is not one of {}", names.join(", "))
        })?;
    Ok(Output { format, file })
}

/// A check's findings with how each compares with the baseline, and
/// which fail.
pub struct Reported {
    pub report: CheckReport,
    pub states: Vec<State>,
    pub fail_on: Level,
    /// Whether a baseline was given, so the states mean something.
    pub with_baseline: bool,
}

impl Reported {
    pub fn new(
        report: CheckReport,
        baseline: &Baseline,
        fail_on: Level,
        with_baseline: bool,
    ) -> Self {
        let states = report.findings.iter().map(|f| baseline.state(f)).collect();
        Self {
            report,
            states,
            fail_on,
            with_baseline,
        }
    }

    /// Whether finding `index` fails the check: at or above the level,
    /// and new or worse than the baseline.
    pub fn failing(&self, index: usize) -> bool {
        self.report.findings[index].level >= self.fail_on && self.states[index] != State::Unchanged
    }

    pub fn fails(&self) -> bool {
        (0..self.report.findings.len()).any(|index| self.failing(index))
    }

    /// The findings with their states, most important first: failing,
    /// then by level, then by file and line.
    pub fn by_importance(&self) -> Vec<(usize, &Finding)> {
        let mut order: Vec<(usize, &Finding)> = self.report.findings.iter().enumerate().collect();
        order.sort_by_key(|&(index, finding)| {
            (!self.failing(index), std::cmp::Reverse(finding.level))
        });
        order
    }

    /// "3 errors, 1 warning and 0 notes; 2 fail (at error and above, new
    /// or worse than the baseline)".
    pub fn tally(&self) -> String {
        let of = |level: Level| {
            self.report
                .findings
                .iter()
                .filter(|f| f.level == level)
                .count()
        };
        let failing = (0..self.report.findings.len())
            .filter(|&i| self.failing(i))
            .count();
        let against = if self.with_baseline {
            ", new or worse than the baseline"
        } else {
            ""
        };
        format!(
            "{} {}, {} {} and {} {}; {} {} (at {} and above{against})",
            count(of(Level::Error) as u64),
            plural(of(Level::Error), "error", "errors"),
            count(of(Level::Warning) as u64),
            plural(of(Level::Warning), "warning", "warnings"),
            count(of(Level::Note) as u64),
            plural(of(Level::Note), "note", "notes"),
            count(failing as u64),
            plural(failing, "fails", "fail"),
            self.fail_on.slug(),
        )
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// Renders every output and writes it: files first, each whole or not at
/// all, then the one output to stdout.
pub fn write_all(outputs: &[Output], reported: &Reported) -> Result<(), Stop> {
    if outputs
        .iter()
        .filter(|output| output.file.is_none())
        .count()
        > 1
    {
        return Err(
            "--output: only one report can go to stdout; give the others a file, as FORMAT=FILE"
                .into(),
        );
    }
    let mut to_stdout = None;
    for output in outputs {
        let rendered = render(output.format, reported)?;
        match &output.file {
            Some(path) => write_file(path, &rendered)?,
            None => to_stdout = Some(rendered),
        }
    }
    if let Some(rendered) = to_stdout {
        let mut stdout = std::io::stdout().lock();
        match stdout
            .write_all(rendered.as_bytes())
            .and_then(|()| stdout.flush())
        {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                return Err(format!("cannot write to stdout: {e}").into());
            }
            _ => {}
        }
    }
    Ok(())
}

fn render(format: Format, reported: &Reported) -> Result<String, Stop> {
    Ok(match format {
        Format::Text => text::render(reported),
        Format::Json => json(reported)?,
        Format::Sarif => sarif::render(reported)?,
        Format::Github => github::render(reported)?,
        Format::Gitlab => gitlab::render(reported)?,
        Format::Junit => junit::render(reported),
    })
}

/// The JSON report: the check's report with each finding's state against
/// the baseline, and whether the check fails. A baseline reads it back.
fn json(reported: &Reported) -> Result<String, Stop> {
    #[derive(Serialize)]
    struct Json<'a> {
        tool: &'static str,
        version: &'static str,
        fail_on: Level,
        failed: bool,
        #[serde(flatten)]
        report: &'a CheckReport,
        baseline: Option<&'a [State]>,
    }
    let json = Json {
        tool: "stampede check",
        version: env!("CARGO_PKG_VERSION"),
        fail_on: reported.fail_on,
        failed: reported.fails(),
        report: &reported.report,
        baseline: reported.with_baseline.then_some(&reported.states[..]),
    };
    let mut text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    text.push('\n');
    Ok(text)
}

/// Writes `text` to `path`, whole or not at all.
fn write_file(path: &Path, text: &str) -> Result<(), Stop> {
    crate::whole_file::write_whole(path, |out| out.write_all(text.as_bytes()))
        .map_err(|failure| format!("--output {}: {failure}", path.display()).into())
}

/// The busiest minute of each hour as a week's heatmap: a row a day, a
/// character an hour, darker for more starts, and the scale under it.
pub fn heatmap(report: &CheckReport) -> String {
    const SHADES: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let most = report.busiest_by_hour.iter().copied().fold(0.0, f64::max);
    let mut out = String::from("           0     6     12    18    24 (hour, UTC)\n");
    for (day, hours) in report.busiest_by_hour.chunks(24).enumerate() {
        let at = report.from + day as i64 * 86_400;
        let name = jiff::Timestamp::from_second(at)
            .map(|ts| ts.strftime("%a %m-%d").to_string())
            .unwrap_or_default();
        let cells: String = hours
            .iter()
            .map(|&starts| {
                let shade = if most > 0.0 {
                    (starts / most * 8.0).ceil() as usize
                } else {
                    0
                };
                SHADES[shade.min(8)]
            })
            .collect();
        out.push_str(&format!("{name:>9}  {cells}\n"));
    }
    let what = if report.drawn {
        " (90th percentile across draws)"
    } else {
        ""
    };
    out.push_str(&format!(
        "█ = {most} starts in the hour's busiest minute{what}\n"
    ));
    out
}
