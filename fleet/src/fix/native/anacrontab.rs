//! The fix written into an anacrontab: `RANDOM_DELAY`, the one option an
//! anacron fix sets. It is one setting for the jobs after it, so the jobs
//! fixed share one value: theirs when they agree, else the shortest. Each
//! `RANDOM_DELAY=` line gets it in place; when a job comes before the
//! first (or there is none), a `RANDOM_DELAY=` line is added before that
//! job, so every job reads it.

use stampede_core::error::InvalidInput;

use super::{apply_edits, line_bounds, refused, rewritten, shared_value, value_range};
use crate::import::anacrontab;

/// `text` with `RANDOM_DELAY` set as the rewritten lines ask.
pub fn rewrite(text: &str, fixes: &[super::LineFix]) -> Result<String, InvalidInput> {
    let mut values = Vec::new();
    let mut first_fixed = None;
    for (line, _, options) in rewritten(fixes) {
        for (key, value) in options {
            if key != "RandomDelay" {
                return Err(refused(
                    line,
                    format!("{key}= is not written into an anacrontab, only RANDOM_DELAY"),
                ));
            }
            values.push(value.as_str());
            first_fixed.get_or_insert(line);
        }
    }
    let Some(first_fixed) = first_fixed else {
        return Ok(text.to_string());
    };
    let delay = shared_value("RandomDelay", &values, |value| value.parse().ok())
        .map_err(|why| refused(first_fixed, why))?;
    let bounds = line_bounds(text);
    let first_job = anacrontab::translate(text)
        .lines
        .iter()
        .map(|line| line.line)
        .min()
        .unwrap_or(first_fixed);
    let mut edits = Vec::new();
    let mut set_before_jobs = false;
    for (index, &(start, end, _)) in bounds.iter().enumerate() {
        let body = &text[start..end];
        if !body.trim_start().starts_with("RANDOM_DELAY") {
            continue;
        }
        if let Some(range) = value_range(body) {
            edits.push((start + range.start..start + range.end, delay.to_string()));
            set_before_jobs |= index + 1 < first_job;
        }
    }
    if !set_before_jobs {
        let at = bounds
            .get(first_job - 1)
            .map_or(text.len(), |bounds| bounds.0);
        let ending = if text.contains("\r\n") { "\r\n" } else { "\n" };
        edits.push((at..at, format!("RANDOM_DELAY={delay}{ending}")));
    }
    apply_edits(text, edits)
}
