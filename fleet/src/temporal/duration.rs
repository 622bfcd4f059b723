//! Durations as Temporal reads them: Go's `time.ParseDuration`, after
//! Temporal's `timestamp.ParseDuration` has rewritten every `<number>d` as
//! `<24 × number>h`.
//!
//! Go: an optional sign, then one or more `<number><unit>` terms, the units
//! `ns`, `us`, `µs`, `μs`, `ms`, `s`, `m`, `h`, in any order and repeated if
//! need be (`1h1h` is two hours); a number may have a fraction (`1.5h`,
//! `.5s`); plain `0` is zero; anything past ±2⁶³ − 1 ns (about 292 years)
//! is refused. Days: each match of `(\d+(\.\d*)?|\.\d+)d` is read as a
//! float, times 24, and written back with six decimals (`%f`), so `1.5d`
//! becomes `36.000000h`.

/// Nanoseconds in one of each unit Go reads.
const UNITS: [(&str, u64); 8] = [
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("μs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

/// A duration in nanoseconds as Temporal reads `text`, or why not.
pub fn temporal_duration_nanos(text: &str) -> Result<i64, String> {
    go_duration_nanos(&days_as_hours(text)).ok_or_else(|| {
        format!(
            "\"{}\" is not a duration like 90s, 1h30m, 1.5h, 500ms or 2d",
            stampede_core::field::shorten(text)
        )
    })
}

/// `text` with each `<number>d` rewritten as hours, as Temporal's
/// `reDays.ReplaceAllStringFunc` does: leftmost matches, scanned left to
/// right, each resuming after the one before.
fn days_as_hours(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut at) = (0, 0);
    while at < bytes.len() {
        let end = match days_match_at(bytes, at) {
            DaysMatch::Ends(end) => end,
            DaysMatch::NoneBefore(resume) => {
                at = resume;
                continue;
            }
        };
        out.push_str(&text[copied..at]);
        let number = &text[at..end - 1];
        match number.parse::<f64>() {
            // Go's ParseFloat refuses only what overflows; the match is
            // then left as it was, and the `d` left in it is refused below.
            Ok(days) if days.is_finite() => out.push_str(&format!("{:.6}h", 24.0 * days)),
            _ => out.push_str(&text[at..end]),
        }
        copied = end;
        at = end;
    }
    out.push_str(&text[copied..]);
    out
}

/// What [`days_match_at`] found.
enum DaysMatch {
    /// A match, which ends here.
    Ends(usize),
    /// No match starts before this byte.
    NoneBefore(usize),
}

/// Where a match of `(\d+(\.\d*)?|\.\d+)d` starting at `at` ends, if one
/// does. No backtracking can help: giving up digits leaves a digit, and
/// giving up the fraction leaves a `.`, where the `d` must be. Nor can a
/// match start later within the whole part scanned, as it would end where
/// this one failed; so the search resumes after it, and each run of
/// digits is scanned at most twice.
fn days_match_at(bytes: &[u8], at: usize) -> DaysMatch {
    let digits_from = |from: usize| {
        from + bytes[from..]
            .iter()
            .take_while(|byte| byte.is_ascii_digit())
            .count()
    };
    let mut end = digits_from(at);
    let mut resume = end;
    if end == at {
        if bytes[at] != b'.' {
            return DaysMatch::NoneBefore(at + 1);
        }
        end = digits_from(at + 1);
        if end == at + 1 {
            return DaysMatch::NoneBefore(at + 1);
        }
        // A match may start at the digits, with a fraction of its own.
        resume = at + 1;
    } else if bytes.get(end) == Some(&b'.') {
        // A match may still start within the fraction, with one of its
        // own (`1.2.3d` holds `2.3d`), but not within the whole part.
        resume = end + 1;
        end = digits_from(end + 1);
    }
    if bytes.get(end) == Some(&b'd') {
        DaysMatch::Ends(end + 1)
    } else {
        DaysMatch::NoneBefore(resume)
    }
}

/// Go's `time.ParseDuration` (Go 1.19), in nanoseconds.
pub fn go_duration_nanos(text: &str) -> Option<i64> {
    const LIMIT: u64 = 1 << 63;
    let (negative, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let first = rest.as_bytes()[0];
        if !(first == b'.' || first.is_ascii_digit()) {
            return None;
        }
        let (whole, after_whole) = leading_int(rest)?;
        let has_whole = after_whole.len() != rest.len();
        rest = after_whole;
        let (mut fraction, mut scale, mut has_fraction) = (0, 1.0, false);
        if let Some(after_point) = rest.strip_prefix('.') {
            let read;
            (fraction, scale, read) = leading_fraction(after_point);
            has_fraction = read.len() != after_point.len();
            rest = read;
        }
        if !has_whole && !has_fraction {
            return None;
        }
        let unit_len = rest
            .bytes()
            .take_while(|&byte| !(byte == b'.' || byte.is_ascii_digit()))
            .count();
        let unit_name = &rest[..unit_len];
        rest = &rest[unit_len..];
        let unit = UNITS
            .iter()
            .find(|(name, _)| *name == unit_name)
            .map(|&(_, nanos)| nanos)?;
        if whole > LIMIT / unit {
            return None;
        }
        let mut term = whole * unit;
        if fraction > 0 {
            // Go's own float step: exact to the nanosecond for an hour's
            // fraction, and rounded the same way on every platform.
            term += (fraction as f64 * (unit as f64 / scale)) as u64;
            if term > LIMIT {
                return None;
            }
        }
        // Go adds in a u64 that wraps: two terms of 2⁶³ ns sum to 0.
        total = total.wrapping_add(term);
        if total > LIMIT {
            return None;
        }
    }
    if negative {
        return Some((total as i64).wrapping_neg());
    }
    i64::try_from(total).ok()
}

/// The digits at the start of `text` as a number, and what follows them;
/// refused past 2⁶³.
fn leading_int(text: &str) -> Option<(u64, &str)> {
    let mut value: u64 = 0;
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    for byte in text[..digits].bytes() {
        if value > (1 << 63) / 10 {
            return None;
        }
        value = value * 10 + u64::from(byte - b'0');
        if value > 1 << 63 {
            return None;
        }
    }
    Some((value, &text[digits..]))
}

/// The digits of a fraction as a number and the power of ten it is over,
/// and what follows them. Digits past what a u64 holds are skipped.
fn leading_fraction(text: &str) -> (u64, f64, &str) {
    let (mut value, mut scale, mut overflowed) = (0u64, 1.0f64, false);
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    for byte in text[..digits].bytes() {
        if overflowed {
            continue;
        }
        if value > (i64::MAX as u64) / 10 {
            overflowed = true;
            continue;
        }
        let next = value * 10 + u64::from(byte - b'0');
        if next > 1 << 63 {
            overflowed = true;
            continue;
        }
        value = next;
        scale *= 10.0;
    }
    (value, scale, &text[digits..])
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: i64 = 1_000_000_000;

    #[test]
    fn go_durations_read_as_go_reads_them() {
        assert_eq!(go_duration_nanos("1h30m"), Some(5400 * SECOND));
        assert_eq!(go_duration_nanos("1.5h"), Some(5400 * SECOND));
        assert_eq!(go_duration_nanos(".5s"), Some(SECOND / 2));
        assert_eq!(go_duration_nanos("1h1h"), Some(7200 * SECOND));
        assert_eq!(go_duration_nanos("-0"), Some(0));
        assert_eq!(go_duration_nanos("2µs3μs"), Some(5000));
        assert_eq!(go_duration_nanos("-9223372036854775808ns"), Some(i64::MIN));
        for refused in [
            "",
            "0s0",
            "00",
            "1",
            "1d",
            ".s",
            "-",
            "1x",
            "9223372036854775808ns",
        ] {
            assert_eq!(go_duration_nanos(refused), None, "{refused:?}");
        }
    }

    #[test]
    fn days_become_hours_as_a_regular_expression_finds_them() {
        use proptest::prelude::*;
        let days = regex::Regex::new(r"(\d+(\.\d*)?|\.\d+)d").unwrap();
        let reference = |text: &str| {
            days.replace_all(text, |found: &regex::Captures| {
                let number = &found[0][..found[0].len() - 1];
                match number.parse::<f64>() {
                    Ok(days) if days.is_finite() => format!("{:.6}h", 24.0 * days),
                    _ => found[0].to_string(),
                }
            })
            .into_owned()
        };
        let config = ProptestConfig::with_cases(4_000);
        proptest!(config, |(text in "[0-9.dh]{0,24}")| {
            prop_assert_eq!(days_as_hours(&text), reference(&text));
        });
    }

    #[test]
    fn days_become_hours_with_six_decimals() {
        assert_eq!(days_as_hours("1.5d"), "36.000000h");
        assert_eq!(days_as_hours("1h.5d2d"), "1h12.000000h48.000000h");
        assert_eq!(days_as_hours("5.d"), "120.000000h");
        assert_eq!(days_as_hours("1.2.3d"), "1.55.200000h");
        assert_eq!(days_as_hours(".d.0.d"), ".d.0.000000h");
        assert_eq!(temporal_duration_nanos("2d"), Ok(48 * 3600 * SECOND));
        assert!(temporal_duration_nanos("d").is_err());
    }
}
