//! Calendar dates in UTC from day numbers, and back.
//!
//! A day number counts days since 1970-01-01 (negative before it). The
//! conversions are Howard Hinnant's `days_from_civil` and
//! `civil_from_days` ("chrono-Compatible Low-Level Date Algorithms",
//! <https://howardhinnant.github.io/date_algorithms.html>): the proleptic
//! Gregorian calendar is cut into 400-year eras of 146,097 days, and each
//! year is counted from March so the leap day falls at its end. Only UTC is
//! read here, so plain integer arithmetic is all a date needs.

pub const SECONDS_PER_DAY: i64 = 86_400;

/// A date in the proleptic Gregorian calendar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CivilDate {
    pub year: i64,
    /// 1 (January) to 12.
    pub month: u32,
    /// 1 to 31.
    pub day: u32,
}

/// The day number of `year-month-day`, days since 1970-01-01.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    // Years start in March, so January and February belong to the year before.
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = (i64::from(month) + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date of day number `days`.
pub fn civil_from_days(days: i64) -> CivilDate {
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    CivilDate { year, month, day }
}

/// The day of the week of day number `days`, 0 (Sunday) to 6:
/// 1970-01-01 was a Thursday.
pub fn weekday(days: i64) -> u32 {
    (days + 4).rem_euclid(7) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates_have_their_day_numbers() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(2024, 2, 29), 19_782);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        assert_eq!(weekday(days_from_civil(2024, 2, 29)), 4);
        assert_eq!(weekday(-1), 3);
    }

    #[test]
    fn day_numbers_round_trip_over_eight_centuries() {
        let first = days_from_civil(1600, 1, 1);
        let last = days_from_civil(2400, 12, 31);
        let mut expected = civil_from_days(first);
        for days in first..=last {
            let date = civil_from_days(days);
            assert_eq!(date, expected, "day {days}");
            assert_eq!(days_from_civil(date.year, date.month, date.day), days);
            expected = next_date(date);
        }
    }

    /// The date after `date`, by the leap-year rule written out.
    fn next_date(date: CivilDate) -> CivilDate {
        let leap = date.year % 4 == 0 && (date.year % 100 != 0 || date.year % 400 == 0);
        let length = match date.month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        match (date.day < length, date.month < 12) {
            (true, _) => CivilDate {
                day: date.day + 1,
                ..date
            },
            (false, true) => CivilDate {
                month: date.month + 1,
                day: 1,
                ..date
            },
            (false, false) => CivilDate {
                year: date.year + 1,
                month: 1,
                day: 1,
            },
        }
    }
}
