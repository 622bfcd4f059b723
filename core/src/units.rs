//! Numbers and durations written the way a reader says them.
//!
//! Durations pick the largest unit that keeps them readable (0.25 s, 48 s,
//! 4 min 48 s, 8 h, 1.5 days); counts get thousands separators. The app and
//! the command line print figures through these, so both read the same.
//!
//! ```
//! use stampede_core::units::{count, duration, percent};
//!
//! assert_eq!(duration(288.0), "4 min 48 s");
//! assert_eq!(count(1_234_567), "1,234,567");
//! assert_eq!(percent(0.973), "97.3 %");
//! ```

pub const SECONDS_PER_DAY: u32 = 86_400;

const UNIX_EPOCH: jiff::civil::Date = jiff::civil::date(1970, 1, 1);

/// The date in UTC of day number `days` (days since 1970-01-01), when it
/// falls in jiff's years, -9999 to 9999.
pub fn date_of_day(days: i64) -> Option<jiff::civil::Date> {
    let hours = days.checked_mul(24)?;
    let duration = jiff::SignedDuration::try_from_hours(hours)?;
    UNIX_EPOCH.checked_add(duration).ok()
}

/// The day number of `date`, days since 1970-01-01.
pub fn day_of_date(date: jiff::civil::Date) -> i64 {
    date.duration_since(UNIX_EPOCH).as_hours() / 24
}

/// A duration in seconds, e.g. "288 s", "4 min 48 s", "2 h 30 min".
pub fn duration(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "∞".into();
    }
    let s = seconds.abs();
    let sign = if seconds < 0.0 { "−" } else { "" };
    let text = if s < 60.0 {
        format!("{} s", significant(s, 3))
    } else if s < 3600.0 {
        let whole = s.round() as u64;
        two_units(whole / 60, "min", whole % 60, "s")
    } else if s < 86_400.0 {
        let minutes = (s / 60.0).round() as u64;
        two_units(minutes / 60, "h", minutes % 60, "min")
    } else {
        let days = significant(s / 86_400.0, 3);
        let unit = if days == "1" { "day" } else { "days" };
        format!("{days} {unit}")
    };
    format!("{sign}{text}")
}

/// A rate given per second, in the first of /s, /min, /h, /day that makes
/// it at least 1: 0.00347 /s reads "12.5 /h".
pub fn rate(per_second: f64) -> String {
    let units = [
        (1.0, "/s"),
        (60.0, "/min"),
        (3600.0, "/h"),
        (86_400.0, "/day"),
    ];
    let (scale, unit) = units
        .into_iter()
        .find(|(scale, _)| per_second * scale >= 1.0)
        .unwrap_or(units[3]);
    format!("{} {unit}", significant(per_second * scale, 3))
}

/// A time of day given in seconds since midnight, as a 24-hour clock: "09:00".
pub fn clock(seconds: f64) -> String {
    let minutes = (seconds / 60.0).round().rem_euclid(1440.0) as u32;
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

fn two_units(major: u64, major_unit: &str, minor: u64, minor_unit: &str) -> String {
    if minor == 0 {
        format!("{major} {major_unit}")
    } else {
        format!("{major} {major_unit} {minor} {minor_unit}")
    }
}

/// A count with its noun, singular for one: "1 bucket", "4,369 buckets".
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", count(n), if n == 1 { one } else { many })
}

/// A whole number with comma separators: 10,000.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `x` to `digits` significant digits, without trailing zeros; whole
/// numbers of 1,000 or more are written in full with separators.
pub fn significant(x: f64, digits: u32) -> String {
    if !x.is_finite() {
        return "∞".into();
    }
    if x.abs() >= 10f64.powi(digits as i32 - 1) && x.abs() >= 1000.0 {
        let rounded = count(x.abs().round() as u64);
        return if x < 0.0 {
            format!("−{rounded}")
        } else {
            rounded
        };
    }
    if x == 0.0 {
        return "0".into();
    }
    let magnitude = x.abs().log10().floor() as i32;
    let decimals = (digits as i32 - 1 - magnitude).max(0) as usize;
    let text = format!("{:.*}", decimals, x);
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    text.replace('-', "−")
}

/// Seconds as a 24-hour clock with seconds: "02:13:07".
pub fn clock_with_seconds(seconds: u32) -> String {
    let seconds = seconds % SECONDS_PER_DAY;
    format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// A share from 0 to 1 as a percentage to three significant digits: "97.3 %".
pub fn percent(share: f64) -> String {
    format!("{} %", significant(100.0 * share, 3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_numbers_are_the_dates_of_jiffs_years() {
        let leap = jiff::civil::date(2024, 2, 29);
        assert_eq!(day_of_date(leap), 19_782);
        assert_eq!(date_of_day(19_782), Some(leap));
        assert_eq!(date_of_day(-1), Some(jiff::civil::date(1969, 12, 31)));
        // 10000-01-01, past jiff's last year.
        assert_eq!(date_of_day(2_932_897), None);
        assert_eq!(date_of_day(i64::MAX), None);
    }

    #[test]
    fn one_of_a_thing_is_singular() {
        assert_eq!(counted(1, "bucket", "buckets"), "1 bucket");
        assert_eq!(counted(0, "bucket", "buckets"), "0 buckets");
        assert_eq!(counted(4369, "bucket", "buckets"), "4,369 buckets");
    }

    #[test]
    fn clock_reads_the_time_of_day() {
        assert_eq!(clock(9.0 * 3600.0), "09:00");
        assert_eq!(clock(86_400.0), "00:00");
        assert_eq!(clock(-60.0), "23:59");
    }

    #[test]
    fn durations_pick_a_readable_unit() {
        assert_eq!(duration(0.25), "0.25 s");
        assert_eq!(duration(48.0), "48 s");
        assert_eq!(duration(199.63), "3 min 20 s");
        assert_eq!(duration(288.0), "4 min 48 s");
        assert_eq!(duration(1920.0), "32 min");
        assert_eq!(duration(28_800.0), "8 h");
        assert_eq!(duration(9_000.0), "2 h 30 min");
        assert_eq!(duration(86_400.0), "1 day");
        assert_eq!(duration(129_600.0), "1.5 days");
        assert_eq!(duration(f64::INFINITY), "∞");
    }

    #[test]
    fn rates_pick_a_unit_that_makes_them_at_least_one() {
        assert_eq!(rate(300.0 / 86_400.0), "12.5 /h");
        assert_eq!(rate(10_000.0 / 1800.0), "5.56 /s");
        assert_eq!(rate(0.5), "30 /min");
        assert_eq!(rate(1.0 / 86_400.0), "1 /day");
        assert_eq!(rate(1e-7), "0.00864 /day");
    }

    #[test]
    fn counts_and_significant_digits() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(10_000), "10,000");
        assert_eq!(count(1_234_567), "1,234,567");
        assert_eq!(significant(333.333, 3), "333");
        assert_eq!(significant(0.0034722, 3), "0.00347");
        assert_eq!(significant(5.5556, 3), "5.56");
        assert_eq!(significant(2.0, 3), "2");
        assert_eq!(significant(65_535.0, 3), "65,535");
        assert_eq!(significant(-0.5, 2), "−0.5");
    }
}
