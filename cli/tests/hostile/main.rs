//! Hostile input, generated from a fixed seed: several hundred cases over
//! every format and option of `stampede fleet` and `stampede run
//! --arrivals`, each run as a user runs the binary, under the limits of a
//! reader's machine: 5 s of wall time and 2 GiB of address space.
//!
//! Every case must end by itself with exit code 0, 1 (only under
//! `--strict`) or 2 with a message, never a signal or a panic. A read must
//! account for every line of its input (LF, CRLF and CR-only line ends all
//! end a line; a UTF-8 BOM is not text), and every start printed is
//! RFC 3339. The few huge inputs must peak at no more than four times their
//! size in memory.
//!
//! The suite runs in release (`scripts/test` runs it so): the limits are a
//! release build's. A failing case is written to `CARGO_TARGET_TMPDIR` and
//! runs alone with `HOSTILE_CASE=NAME cargo test --release -p stampede-cli
//! --test hostile -- --nocapture`.

mod cases;
mod generate;
mod named;
mod run;

use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use cases::{Case, Input};
use generate::{Draw, GENERATED, SEED, generated};
use run::{Outcome, run};

const TIME_LIMIT: Duration = Duration::from_secs(5);
const MEMORY_LIMIT_BYTES: u64 = 2 << 30;

/// What is wrong with how the binary met `case`; empty when nothing is.
fn problems(case: &Case, outcome: &Outcome) -> Vec<String> {
    let mut found = Vec::new();
    if outcome.timed_out {
        found.push(format!("took more than {} s", TIME_LIMIT.as_secs()));
    }
    match outcome.ended {
        Err(signal) if !outcome.timed_out => found.push(format!(
            "ended by signal {signal} (an abort is memory past {} GiB)",
            MEMORY_LIMIT_BYTES >> 30
        )),
        Ok(0 | 2) | Err(_) => {}
        Ok(1) if case.has("--strict") => {}
        Ok(code) => found.push(format!("exit code {code}")),
    }
    if outcome.stderr.contains("panicked") {
        found.push("panicked".into());
    }
    if outcome.ended == Ok(2) && outcome.stderr.trim().is_empty() {
        found.push("refused without a message".into());
    }
    if let Input::HugeStdin(_) = case.input
        && outcome.peak_bytes > 4 * outcome.input_bytes
    {
        found.push(format!(
            "peaked at {} MB for {} MB of input, more than 4 times",
            outcome.peak_bytes >> 20,
            outcome.input_bytes >> 20
        ));
    }
    if outcome.ended == Ok(0) && case.args[0] == "fleet" {
        if case.has("--starts") {
            let text = String::from_utf8_lossy(&outcome.stdout);
            if let Some(line) = text.lines().find(|line| !is_rfc3339_start(line)) {
                found.push(format!("a start not in RFC 3339: {line:?}"));
            }
        } else if !case.has("--fix") {
            found.extend(account_problems(case, outcome));
        }
    }
    found
}

/// `LINE<TAB>ID<TAB>START` with START as `YYYY-MM-DDTHH:MM:SS[.f]Z`.
fn is_rfc3339_start(line: &str) -> bool {
    let Some(start) = line.rsplit('\t').next() else {
        return false;
    };
    let bytes = start.as_bytes();
    let digits_at = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];
    bytes.len() >= 20
        && digits_at.iter().all(|&i| bytes[i].is_ascii_digit())
        && &start[4..5] == "-"
        && &start[7..8] == "-"
        && &start[10..11] == "T"
        && start.ends_with('Z')
        && (bytes.len() == 20
            || (bytes[19] == b'.' && bytes[20..bytes.len() - 1].iter().all(u8::is_ascii_digit)))
}

/// Where every line of stdin went, as `stampede fleet` prints it.
#[derive(Deserialize)]
struct Account {
    lines: u64,
    read: u64,
    ignored: u64,
    skipped: u64,
}

/// Every line of the input read, ignored or skipped, by the JSON's count.
fn account_problems(case: &Case, outcome: &Outcome) -> Vec<String> {
    #[derive(Deserialize)]
    struct Printed {
        input: Account,
    }
    // Only the account is read: the starts may run to millions.
    let Ok(Printed { input }) = serde_json::from_slice(&outcome.stdout) else {
        return vec!["stdout is not JSON with an input account".into()];
    };
    let mut found = Vec::new();
    if input.read + input.ignored + input.skipped != input.lines {
        found.push(format!(
            "the account does not add up: {} read, {} ignored, {} skipped of {} lines",
            input.read, input.ignored, input.skipped, input.lines
        ));
    }
    // A link's text is not the case's input.
    if let Some(expected) = outcome.input_lines.filter(|_| !case.has("--link"))
        && expected as u64 != input.lines
    {
        found.push(format!(
            "{} lines counted, {expected} in the input",
            input.lines
        ));
    }
    found
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the limits are a release build's: cargo test --release -p stampede-cli --test hostile"
)]
fn hostile_input_ends_within_limits_and_loses_nothing() {
    let only = std::env::var("HOSTILE_CASE").ok();
    let mut draw = Draw(SEED);
    let cases = named::named()
        .into_iter()
        .chain((0..GENERATED).map(|n| generated(n, &mut draw)))
        .filter(|case| only.as_ref().is_none_or(|name| &case.name == name));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hostile");
    fs::create_dir_all(&dir).unwrap();

    let mut failures = Vec::new();
    let mut slowest = (0.0, String::new());
    let mut heaviest = (0, String::new());
    let mut ran = 0;
    for case in cases {
        ran += 1;
        let outcome = run(&case, &dir);
        if outcome.seconds > slowest.0 {
            slowest = (outcome.seconds, case.name.clone());
        }
        if outcome.peak_bytes > heaviest.0 {
            heaviest = (outcome.peak_bytes, case.name.clone());
        }
        let found = problems(&case, &outcome);
        if only.is_some() || !found.is_empty() {
            println!(
                "{}: {:.2} s, {} MB, exit {:?}; {}\n  args: {:?}\n  stderr: {}",
                case.name,
                outcome.seconds,
                outcome.peak_bytes >> 20,
                outcome.ended,
                found.join("; "),
                case.args,
                outcome.stderr.chars().take(600).collect::<String>()
            );
        }
        if found.is_empty() {
            fs::remove_file(dir.join(format!("{}.in", case.name))).unwrap();
        } else {
            failures.push(format!("{}: {}", case.name, found.join("; ")));
        }
    }
    assert!(only.is_some() || ran >= 300, "{ran} cases");
    println!(
        "hostile: {ran} cases; slowest {} in {:.2} s; most memory {} at {} MB",
        slowest.1,
        slowest.0,
        heaviest.1,
        heaviest.0 >> 20
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases failed (inputs in {}):\n{}",
        failures.len(),
        ran,
        dir.display(),
        failures.join("\n")
    );
}
