//! The next elapse of an `OnCalendar=` expression after an instant,
//! exactly as systemd 252's `find_next()` in `src/shared/calendarspec.c`
//! (systemd-stable tag v252.31) computes it.
//!
//! The walk goes down from the year: each component jumps to the earliest
//! value one of its items allows at or after the current one,
//!
//! ```text
//! value(a/r) = a + r · ⌈(v − a) / r⌉   (while ≤ b for a..b/r),
//! ```
//!
//! clearing the smaller components when it moves. A value past its field
//! (the 31st of April, second 61) is carried into the one above, as
//! `timegm()` carries it, and the walk starts over: at most 1000 times, and
//! never past 2199-12-31. The fraction of a second a carried second had
//! is kept, as systemd keeps it, so `*:*:0/7.25` never fires on a whole
//! minute after the first.

use super::calendar::{CalendarItem, CalendarSpec, LAST_YEAR};
use crate::time::MICROS_PER_SECOND;
use crate::time::{BrokenDown, weekday};

/// `MAX_CALENDAR_ITERATIONS`: the walk gives up after this many restarts.
const MOST_WALK_STEPS: usize = 1000;

impl BrokenDown {
    fn clear_from_day(&mut self) {
        self.day = 1;
        self.clear_from_hour();
    }
}

/// What `tm_within_bounds()` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bounds {
    /// Past 2199, before 1970, or normalised backwards.
    Outside,
    /// A field was past its range; the time now holds the normalised
    /// one, the field below the first that moved cleared.
    Carried,
    Within,
}

fn within_bounds(time: &mut BrokenDown) -> Bounds {
    if time.year > LAST_YEAR || time.to_seconds() < 0 {
        return Bounds::Outside;
    }
    let mut carried = time.normalized();
    let order = if carried.year != time.year {
        let order = carried.year.cmp(&time.year);
        carried.month = 0;
        order
    } else if carried.month != time.month {
        let order = carried.month.cmp(&time.month);
        carried.day = 1;
        order
    } else if carried.day != time.day {
        let order = carried.day.cmp(&time.day);
        carried.hour = 0;
        order
    } else if carried.hour != time.hour {
        let order = carried.hour.cmp(&time.hour);
        carried.minute = 0;
        order
    } else if carried.minute != time.minute {
        let order = carried.minute.cmp(&time.minute);
        carried.second = 0;
        order
    } else {
        carried.second.cmp(&time.second)
    };
    match order {
        std::cmp::Ordering::Less => Bounds::Outside,
        std::cmp::Ordering::Greater => {
            *time = carried;
            Bounds::Carried
        }
        std::cmp::Ordering::Equal => Bounds::Within,
    }
}

/// The earliest value at or after `value` that one of `items` allows
/// (`value` itself for an empty list), or `None`. `month_days` is given
/// when the items count days back from the end of a month that long.
fn earliest(items: &[CalendarItem], value: i64, month_days: Option<i64>) -> Option<i64> {
    if items.is_empty() {
        return Some(value);
    }
    let mut best: Option<i64> = None;
    for item in items {
        let (start, stop) = match month_days {
            // Counting back turns `a..b` into `end − b + 1 .. end − a + 1`.
            Some(days) => match item.stop {
                Some(stop) => (days + 1 - stop, Some(days + 1 - item.start)),
                None => (days + 1 - item.start, None),
            },
            None => (item.start, item.stop),
        };
        let candidate = if start >= value {
            Some(start)
        } else if item.repeat > 0 {
            let steps = (value - start + item.repeat - 1) / item.repeat;
            let reached = start + item.repeat * steps;
            stop.is_none_or(|stop| reached <= stop).then_some(reached)
        } else {
            None
        };
        if let Some(candidate) = candidate {
            best = Some(best.map_or(candidate, |best| best.min(candidate)));
        }
    }
    best
}

impl CalendarSpec {
    /// The first elapse strictly after `after` (Unix microseconds, not
    /// before 1970), or `None` when there is none by the end of 2199 or the
    /// walk gives up, as `calendar_spec_next_usec()` returns.
    pub fn next_elapse(&self, after: i64) -> Option<i64> {
        let after = after.max(0) + 1;
        let start = BrokenDown::from_seconds(after / MICROS_PER_SECOND);
        let (time, micros) = self.walk(start, after % MICROS_PER_SECOND)?;
        Some(time.to_seconds() * MICROS_PER_SECOND + micros)
    }

    fn matches_weekday(&self, time: BrokenDown) -> bool {
        let Some(bits) = self.weekdays else {
            return true;
        };
        let days = time.to_seconds().div_euclid(86_400);
        // Bit 0 is Monday; `weekday()` counts from Sunday.
        let from_monday = (weekday(days) + 6) % 7;
        bits & (1 << from_monday) != 0
    }

    /// `find_next()`: the earliest matching time at or after `time` plus
    /// `micros`, walking down from the year and starting over whenever a
    /// field carries into the one above.
    fn walk(&self, mut time: BrokenDown, mut micros: i64) -> Option<(BrokenDown, i64)> {
        for _ in 0..MOST_WALK_STEPS {
            time = time.normalized();
            let year = earliest(&self.years, time.year, None)?;
            if year != time.year {
                time = BrokenDown {
                    year,
                    month: 0,
                    day: 1,
                    hour: 0,
                    minute: 0,
                    second: 0,
                };
                micros = 0;
            }
            if within_bounds(&mut time) != Bounds::Within {
                return None;
            }
            match self.date_step(&mut time, &mut micros) {
                Step::Matched => {}
                Step::Again => continue,
            }
            match self.time_step(&mut time, &mut micros) {
                Step::Matched => return Some((time, micros)),
                Step::Again => continue,
            }
        }
        None
    }

    /// Month, day and weekday.
    fn date_step(&self, time: &mut BrokenDown, micros: &mut i64) -> Step {
        let Some(month) = earliest(&self.months, time.month + 1, None) else {
            time.year += 1;
            time.month = 0;
            time.clear_from_day();
            *micros = 0;
            return Step::Again;
        };
        if month != time.month + 1 {
            time.month = month - 1;
            time.clear_from_day();
            *micros = 0;
        }
        match within_bounds(time) {
            Bounds::Outside => {
                time.year += 1;
                time.month = 0;
                time.clear_from_day();
                *micros = 0;
                return Step::Again;
            }
            Bounds::Carried => return Step::Again,
            Bounds::Within => {}
        }
        let month_days = self.end_of_month.then(|| time.days_in_month());
        let next_month = |time: &mut BrokenDown, micros: &mut i64| {
            time.month += 1;
            time.clear_from_day();
            *micros = 0;
            Step::Again
        };
        let Some(day) = earliest(&self.days, time.day, month_days) else {
            return next_month(time, micros);
        };
        if day != time.day {
            time.day = day;
            time.clear_from_hour();
            *micros = 0;
        }
        match within_bounds(time) {
            Bounds::Outside => return next_month(time, micros),
            Bounds::Carried => return Step::Again,
            Bounds::Within => {}
        }
        if !self.matches_weekday(*time) {
            time.day += 1;
            time.clear_from_hour();
            *micros = 0;
            return Step::Again;
        }
        Step::Matched
    }

    /// Hour, minute and second.
    fn time_step(&self, time: &mut BrokenDown, micros: &mut i64) -> Step {
        let next_day = |time: &mut BrokenDown, micros: &mut i64| {
            time.day += 1;
            time.clear_from_hour();
            *micros = 0;
            Step::Again
        };
        let Some(hour) = earliest(&self.hours, time.hour, None) else {
            return next_day(time, micros);
        };
        if hour != time.hour {
            time.hour = hour;
            time.clear_from_minute();
            *micros = 0;
        }
        match within_bounds(time) {
            Bounds::Outside => return next_day(time, micros),
            Bounds::Carried => return Step::Again,
            Bounds::Within => {}
        }
        let next_hour = |time: &mut BrokenDown, micros: &mut i64| {
            time.hour += 1;
            time.clear_from_minute();
            *micros = 0;
            Step::Again
        };
        let Some(minute) = earliest(&self.minutes, time.minute, None) else {
            return next_hour(time, micros);
        };
        if minute != time.minute {
            time.minute = minute;
            time.second = 0;
            *micros = 0;
        }
        match within_bounds(time) {
            Bounds::Outside => return next_hour(time, micros),
            Bounds::Carried => return Step::Again,
            Bounds::Within => {}
        }
        let next_minute = |time: &mut BrokenDown, micros: &mut i64| {
            time.minute += 1;
            time.second = 0;
            *micros = 0;
            Step::Again
        };
        let in_micros = time.second * MICROS_PER_SECOND + *micros;
        let Some(second) = earliest(&self.seconds, in_micros, None) else {
            return next_minute(time, micros);
        };
        time.second = second / MICROS_PER_SECOND;
        // Kept across a carry into the next minute, as systemd keeps it.
        *micros = second % MICROS_PER_SECOND;
        match within_bounds(time) {
            Bounds::Outside => next_minute(time, micros),
            Bounds::Carried => Step::Again,
            Bounds::Within => Step::Matched,
        }
    }
}

/// Whether a step of the walk matched, or the walk starts over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Matched,
    Again,
}

#[cfg(test)]
mod tests {
    use super::super::calendar::parse;
    use super::*;

    fn next(spec: &str, after: i64) -> Option<i64> {
        parse(spec).unwrap().next_elapse(after)
    }

    /// 2024-02-26T00:00:00Z, a Monday, in microseconds.
    const MONDAY: i64 = 1_708_905_600_000_000;
    const HOUR: i64 = 3_600_000_000;

    #[test]
    fn shorthands_elapse_at_the_start_of_their_period() {
        assert_eq!(next("hourly", MONDAY), Some(MONDAY + HOUR));
        assert_eq!(next("DAILY", MONDAY - 1), Some(MONDAY));
        assert_eq!(next("weekly", MONDAY), Some(MONDAY + 7 * 24 * HOUR));
    }

    #[test]
    fn the_next_elapse_is_strictly_after() {
        assert_eq!(next("*:*:*", MONDAY), Some(MONDAY + 1_000_000));
        assert_eq!(next("10:00", MONDAY), Some(MONDAY + 10 * HOUR));
    }

    #[test]
    fn days_count_back_from_the_end_of_the_month() {
        // 2024 is a leap year: February's last day is the 29th.
        assert_eq!(next("*-02~01", MONDAY), Some(MONDAY + 3 * 24 * HOUR));
    }

    #[test]
    fn a_carried_second_keeps_its_fraction() {
        // 00:00:58 + 7.25 s is 00:01:05.25: the walk restarts at 00:01:00
        // with 0.25 s left over, so 00:01:00 itself is passed by.
        let last = MONDAY + 58 * 1_000_000;
        assert_eq!(next("*:*:0/7.25", last), Some(MONDAY + 67_250_000));
    }

    #[test]
    fn impossible_dates_never_elapse() {
        assert_eq!(next("*-02-30", MONDAY), None);
        assert_eq!(next("2-30", MONDAY), None);
        let end_of_2199 = BrokenDown::from_seconds(7_258_118_399).to_seconds();
        assert_eq!(next("daily", end_of_2199 * MICROS_PER_SECOND), None);
    }
}
