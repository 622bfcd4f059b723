//! systemd time spans, as `RandomizedDelaySec=` takes them: `90`, `90s`,
//! `5min`, `1h 30min`, `1.5h`, `2w`, `500ms`, `3us`.
//!
//! Followed: `parse_time()` and `extract_multiplier()` in
//! `src/basic/time-util.c`, systemd-stable tag v252.31. The span is a sum
//! of numbers, each with an optional unit (seconds when none) and
//! optional decimals, each decimal worth a tenth of the one before it in
//! whole microseconds (so `0.3333333s` is 333,333 µs):
//!
//! ```text
//! span = Σ n · unit + Σ digitₖ · ⌊unit / 10ᵏ⌋
//! ```
//!
//! A month is 30.44 days and a year 365.25 days, as systemd counts them.

/// Microseconds in each unit, longest names first where one is a prefix
/// of another, in the order systemd tries them.
const UNITS: [(&str, u64); 30] = [
    ("seconds", SECOND),
    ("second", SECOND),
    ("sec", SECOND),
    ("s", SECOND),
    ("minutes", MINUTE),
    ("minute", MINUTE),
    ("min", MINUTE),
    ("months", MONTH),
    ("month", MONTH),
    ("M", MONTH),
    ("msec", 1000),
    ("ms", 1000),
    ("m", MINUTE),
    ("hours", HOUR),
    ("hour", HOUR),
    ("hr", HOUR),
    ("h", HOUR),
    ("days", DAY),
    ("day", DAY),
    ("d", DAY),
    ("weeks", 7 * DAY),
    ("week", 7 * DAY),
    ("w", 7 * DAY),
    ("years", YEAR),
    ("year", YEAR),
    ("y", YEAR),
    ("usec", 1),
    ("us", 1),
    ("\u{3bc}s", 1),
    ("\u{b5}s", 1),
];

const SECOND: u64 = 1_000_000;
const MINUTE: u64 = 60 * SECOND;
const HOUR: u64 = 60 * MINUTE;
const DAY: u64 = 24 * HOUR;
const MONTH: u64 = 2_629_800 * SECOND;
const YEAR: u64 = 31_557_600 * SECOND;
/// `USEC_INFINITY`: no sum may reach it.
const INFINITY: u64 = u64::MAX;

fn is_blank(byte: u8) -> bool {
    b" \t\n\r".contains(&byte)
}

/// A time span in microseconds, read as `parse_sec()` reads it;
/// `infinity` is refused, since a delay here must end.
pub fn parse_span(text: &str) -> Result<u64, String> {
    let fail = || {
        format!(
            "\"{}\" is not a time span like 90s, 5min or 1h 30min",
            stampede_core::field::shorten(text)
        )
    };
    let bytes = text.as_bytes();
    let mut at = bytes.iter().take_while(|&&b| is_blank(b)).count();
    if let Some(rest) = bytes[at..].strip_prefix(b"infinity") {
        return Err(if rest.iter().all(|&b| is_blank(b)) {
            "is infinite; a delay here must be finite".to_string()
        } else {
            fail()
        });
    }
    let mut total: u64 = 0;
    let mut something = false;
    loop {
        at += bytes[at..].iter().take_while(|&&b| is_blank(b)).count();
        if at == bytes.len() {
            return if something { Ok(total) } else { Err(fail()) };
        }
        if bytes[at] == b'-' {
            return Err(format!(
                "\"{}\" is negative",
                stampede_core::field::shorten(text)
            ));
        }
        let (whole, end) = leading_integer(bytes, at).map_err(|()| fail())?;
        let has_point = bytes.get(end) == Some(&b'.');
        let after_number = if has_point {
            end + 1
                + bytes[end + 1..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count()
        } else if end == at {
            return Err(fail());
        } else {
            end
        };
        let unit_at = after_number
            + bytes[after_number..]
                .iter()
                .take_while(|&&b| is_blank(b))
                .count();
        let (multiplier, after_unit) = UNITS
            .iter()
            .find(|(name, _)| bytes[unit_at..].starts_with(name.as_bytes()))
            .map_or((SECOND, unit_at), |&(name, micros)| {
                (micros, unit_at + name.len())
            });
        // `12.34.56` is refused; `12.34 .56` and `12.34s.56` are two terms.
        if after_unit == after_number && after_unit != bytes.len() {
            return Err(fail());
        }
        at = after_unit;
        let too_long = || format!("\"{}\" is too long", stampede_core::field::shorten(text));
        if whole >= INFINITY / multiplier {
            return Err(too_long());
        }
        let part = whole * multiplier;
        if part >= INFINITY - total {
            return Err(too_long());
        }
        total += part;
        something = true;
        if has_point {
            let mut worth = multiplier / 10;
            let digits = bytes[end + 1..].iter().take_while(|b| b.is_ascii_digit());
            let mut any = false;
            for &digit in digits {
                let part = u64::from(digit - b'0') * worth;
                if part >= INFINITY - total {
                    return Err(too_long());
                }
                total += part;
                worth /= 10;
                any = true;
            }
            // `3.`, `3. 1` and `3.sec` are refused.
            if !any {
                return Err(fail());
            }
        }
    }
}

/// `strtoll()` at `at`: C blanks, a sign and digits. Returns the value
/// and where it ends (`at` when nothing was read); a value below zero or
/// past `i64` is refused.
fn leading_integer(bytes: &[u8], at: usize) -> Result<(u64, usize), ()> {
    let mut end = at
        + bytes[at..]
            .iter()
            .take_while(|&&b| b" \t\n\x0b\x0c\r".contains(&b))
            .count();
    let negative = match bytes.get(end) {
        Some(b'-') => {
            end += 1;
            true
        }
        Some(b'+') => {
            end += 1;
            false
        }
        _ => false,
    };
    let digits = bytes[end..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 {
        return Ok((0, at));
    }
    let mut value: u64 = 0;
    for &digit in &bytes[end..end + digits] {
        value = value
            .checked_mul(10)
            .and_then(|tens| tens.checked_add(u64::from(digit - b'0')))
            .filter(|&value| value <= i64::MAX as u64)
            .ok_or(())?;
    }
    if negative && value > 0 {
        return Err(());
    }
    Ok((value, end + digits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_decimals_add_up() {
        assert_eq!(parse_span("90"), Ok(90 * SECOND));
        assert_eq!(parse_span("1h 30min"), Ok(90 * MINUTE));
        assert_eq!(parse_span("1h30m"), Ok(90 * MINUTE));
        assert_eq!(parse_span("1.5h"), Ok(90 * MINUTE));
        assert_eq!(parse_span("0.3333333s"), Ok(333_333));
        assert_eq!(parse_span("2M"), Ok(2 * MONTH));
        assert_eq!(parse_span("3\u{b5}s"), Ok(3));
        assert_eq!(parse_span(".5s"), Ok(SECOND / 2));
        assert_eq!(parse_span("+5"), Ok(5 * SECOND));
    }

    #[test]
    fn malformed_spans_are_refused() {
        for text in [
            "",
            " ",
            "-1",
            "5.",
            "3.sec",
            "12.34.56",
            "1x",
            "infinity",
            "99999999999999y",
        ] {
            assert!(parse_span(text).is_err(), "{text:?}");
        }
    }
}
