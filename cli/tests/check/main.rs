//! `stampede check` run as CI runs it, in the fixture repository
//! `repo/` beside this file: a file in every format the check reads, with
//! known findings. Every run starts its horizon on Monday 2026-11-23, so
//! nothing depends on today's date; a test that edits the repository edits
//! a copy of it in a temporary folder.
//!
//! The findings are written out with why each is right ([`findings`]);
//! then the exit codes ([`exits`]), each report's format, SARIF against
//! OASIS' schema ([`reports`]), the baseline ([`baseline`]) and
//! `stampede.toml` ([`config`]).

mod baseline;
mod config;
mod exits;
mod findings;
mod reports;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tempfile::TempDir;

/// Where every run's horizon starts: a Monday, midnight UTC.
const FROM: &str = "2026-11-23T00:00:00Z";

/// The budgets the fixture's findings are written for.
const BUDGETS: [&str; 4] = ["--max-starts-per-minute", "10", "--max-concurrent", "2"];

/// The fixture repository, read only.
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/check/repo")
}

/// A copy of the fixture repository to edit.
fn copy() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// What a run of `stampede check` gave.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}{}", self.stdout, self.stderr))
    }
}

/// `stampede check --from FROM ARGS…` in `dir`, with `env` set.
fn check_with_env(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_stampede"));
    command
        .current_dir(dir)
        .args(["check", "--from", FROM])
        .args(args)
        // A run inside GitHub Actions must not write to the job's summary.
        .env_remove("GITHUB_STEP_SUMMARY");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("the binary starts");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

fn check(dir: &Path, args: &[&str]) -> Run {
    check_with_env(dir, args, &[])
}

/// The JSON report of `args` in `dir`, whatever the exit code.
fn report(dir: &Path, args: &[&str]) -> Value {
    let run = check(dir, &[args, &["-o", "json"]].concat());
    assert!(matches!(run.code, Some(0 | 1)), "{}", run.stderr);
    run.json()
}

/// A report's findings as (path, line, rule).
fn places(report: &Value) -> Vec<(String, u64, String)> {
    findings_of(report)
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn findings_of(report: &Value) -> &Vec<Value> {
    report["findings"].as_array().expect("findings")
}

/// The paths of the files a report read, in its order.
fn files_read(report: &Value) -> Vec<&str> {
    report["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|file| file["path"].as_str().unwrap())
        .collect()
}

/// Appends `text` to the file at `path` under `dir`.
fn append(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    let mut content = fs::read_to_string(&path).unwrap();
    content.push_str(text);
    fs::write(path, content).unwrap();
}

/// Asserts that OASIS' SARIF 2.1.0 schema holds the file at `path`, by
/// `validate_sarif.py` beside this file and the validator `scripts/setup`
/// installs; without that validator the test fails, never skips.
fn assert_valid_sarif(path: &Path) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/check/validate_sarif.py");
    let output = Command::new("python3")
        .arg(script)
        .arg(path)
        .output()
        .expect("python3 runs the SARIF validator");
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0) => {}
        Some(3) => panic!("no SARIF validator: {stderr}"),
        code => panic!(
            "{} breaks the SARIF 2.1.0 schema ({code:?}):\n{stderr}",
            path.display()
        ),
    }
}
