//! The fleet file: one schedule a line, as a reader pastes it.
//!
//! ```text
//! SYSTEM<TAB>ID<TAB>SPEC[<TAB>Key=Value]...
//! cron→nightly backup→30 2 * * *→Duration=1h30m→Weight=2     (→ is a tab)
//! ```
//!
//! Tabs separate the fields, so an id or a spec may hold spaces, slashes
//! and any unicode. Blank lines and lines starting with `#` are ignored.
//! Every line may give `Duration=` (how long the job runs: `90s`, `5m`,
//! `1h30m`, `2h`, `1d`, or plain seconds) and `Weight=` (a positive
//! number); each system reads its own options besides
//! ([`crate::plan::option_keys`]).
//! Reading never fails as a whole: each line is either read or skipped
//! with the field that stopped it and why, so one typo costs one line.
//! What a line reads into ([`FleetLine`], [`Refusal`], …) is defined in
//! [`crate::line`], below the schedulers that refuse a spec, and named
//! here too.

use stampede_core::field::shorten;

use crate::plan::{self, LinePlan};

pub use crate::line::*;

/// Reads a fleet file. Never fails: unreadable lines land in `skipped`.
pub fn parse(text: &str) -> FleetFile {
    let mut file = FleetFile::default();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        match parse_line(line, raw) {
            Ok(_) if file.lines.len() == MOST_LINES => {
                file.skipped.push(past_most_lines(line));
                break;
            }
            Ok(read) => file.lines.push(read),
            Err(Refusal { field, reason }) => file.skipped.push(SkippedLine {
                line,
                field,
                reason,
            }),
        }
    }
    file
}

fn refuse(field: &str, reason: impl Into<String>) -> Refusal {
    Refusal::new(field, reason)
}

fn parse_line(line: usize, raw: &str) -> Result<FleetLine, Refusal> {
    let mut parts = raw.split('\t');
    let system_text = parts.next().unwrap_or("").trim();
    let system = System::from_slug(&system_text.to_ascii_lowercase()).ok_or_else(|| {
        let hint = if system_text.contains(' ') {
            "; separate SYSTEM, ID and SPEC with tabs"
        } else {
            ""
        };
        refuse(
            "system",
            format!(
                "{}{hint}",
                stampede_core::field::not_an_option(system_text, System::OPTIONS)
            ),
        )
    })?;
    let id = parts.next().map(str::trim).unwrap_or("");
    if id.is_empty() {
        return Err(refuse(
            "id",
            "is missing; each line needs SYSTEM<TAB>ID<TAB>SPEC",
        ));
    }
    let spec = parts.next().map(str::trim).unwrap_or("");
    if spec.is_empty() {
        return Err(refuse(
            "spec",
            "is missing; each line needs SYSTEM<TAB>ID<TAB>SPEC",
        ));
    }
    let options = parse_options(system, parts)?;
    let read = FleetLine {
        line,
        system,
        id: id.to_string(),
        spec: spec.to_string(),
        options,
    };
    // The spec and the system's own options are checked here, so a bad one
    // is skipped with its reason; expanding reads them again.
    LinePlan::read(&read, 0)?;
    Ok(read)
}

fn parse_options<'a>(
    system: System,
    parts: impl Iterator<Item = &'a str>,
) -> Result<LineOptions, Refusal> {
    let mut options = LineOptions::default();
    let mut seen: Vec<&str> = Vec::new();
    for part in parts.map(str::trim).filter(|part| !part.is_empty()) {
        let Some((key, value)) = part.split_once('=') else {
            return Err(refuse(&shorten(part), "is not Key=Value"));
        };
        let (key, value) = (key.trim(), value.trim());
        if seen.contains(&key) {
            return Err(refuse(key, "is given twice"));
        }
        seen.push(key);
        match key {
            "Duration" => {
                options.duration_seconds =
                    Some(parse_duration(value).map_err(|why| refuse(key, why))?)
            }
            "Weight" => options.weight = parse_weight(value).map_err(|why| refuse(key, why))?,
            key if plan::option_keys(system).contains(&key) => {
                options.own.push((key.to_string(), value.to_string()));
            }
            _ => {
                let mut known = vec!["Duration", "Weight"];
                known.extend(plan::option_keys(system));
                return Err(refuse(
                    &shorten(key),
                    format!(
                        "is not an option of {} lines (they read {})",
                        system.slug(),
                        known.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(options)
}

/// A duration such as `90s`, `5m`, `1h30m`, `2h`, `1d` or `90`, in seconds.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let fail = || {
        format!(
            "\"{}\" is not a duration like 90s, 5m, 1h30m or 2h",
            shorten(text)
        )
    };
    if text.is_empty() {
        return Err(fail());
    }
    let mut total: u64 = 0;
    let mut digits = String::new();
    // Each unit at most once and largest first, so `5m1h` is refused.
    let mut last_unit = u64::MAX;
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c {
            'd' => 86_400,
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return Err(fail()),
        };
        if digits.is_empty() || unit >= last_unit {
            return Err(fail());
        }
        let amount: u64 = digits.parse().map_err(|_| fail())?;
        total = amount
            .checked_mul(unit)
            .and_then(|part| total.checked_add(part))
            .ok_or_else(fail)?;
        digits.clear();
        last_unit = unit;
    }
    if !digits.is_empty() {
        // Plain digits are seconds; after a unit (`1h30`) they are
        // ambiguous, so they are refused rather than guessed.
        if last_unit != u64::MAX {
            return Err(fail());
        }
        let amount: u64 = digits.parse().map_err(|_| fail())?;
        total = total.checked_add(amount).ok_or_else(fail)?;
    }
    if total == 0 {
        return Err(format!("\"{}\" must be longer than 0 s", shorten(text)));
    }
    if total > MOST_DURATION_SECONDS {
        return Err(format!("\"{}\" is longer than 31 days", shorten(text)));
    }
    Ok(total)
}

fn parse_weight(text: &str) -> Result<f64, String> {
    match stampede_core::field::parse_finite(text) {
        Some(weight) if weight > 0.0 && weight <= MOST_WEIGHT => Ok(weight),
        Some(_) => Err(format!(
            "{} must be greater than 0 and at most {MOST_WEIGHT}",
            shorten(text)
        )),
        None => Err(format!("\"{}\" is not a number", shorten(text))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_their_units() {
        assert_eq!(parse_duration("90s"), Ok(90));
        assert_eq!(parse_duration("5m"), Ok(300));
        assert_eq!(parse_duration("1h30m"), Ok(5400));
        assert_eq!(parse_duration("2h"), Ok(7200));
        assert_eq!(parse_duration("90"), Ok(90));
        assert!(parse_duration("1h30").is_err());
        assert!(parse_duration("5m1h").is_err());
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("h").is_err());
        assert!(parse_duration("32d").is_err());
        assert!(parse_duration("99999999999999999999s").is_err());
    }
}
