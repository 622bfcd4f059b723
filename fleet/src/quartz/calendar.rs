//! Quartz's search for the next fire time (`CronExpression.getTimeAfter`),
//! step for step, on a calendar as lenient as Java's: a field may be set
//! out of its range (the 32nd of January, month 12), and the date it
//! stands for is worked out only when a field is read, as
//! `GregorianCalendar` does. The steps depend on that: setting the day
//! before the month gives another date than the other way round.

use std::collections::HashSet;

use super::{Field, LAST_SEARCHED_YEAR, MAX_YEAR, QuartzCron, Search, first_of_month};
use crate::time::{SECONDS_PER_DAY, civil_from_days, weekday};

/// `java.util.Calendar.SATURDAY` and `SUNDAY`, Sunday first from 1.
const SATURDAY: i64 = 7;
const SUNDAY: i64 = 1;

/// A UTC `GregorianCalendar`: fields as set, read through [`Self::complete`].
#[derive(Clone, Copy, Debug)]
struct Lenient {
    year: i64,
    /// 0-based, as Java's.
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
}

impl Lenient {
    fn at(seconds: i64) -> Self {
        let days = seconds.div_euclid(SECONDS_PER_DAY);
        let of_day = seconds.rem_euclid(SECONDS_PER_DAY);
        let date = civil_from_days(days);
        Self {
            year: date.year,
            month: i64::from(date.month) - 1,
            day: i64::from(date.day),
            hour: of_day / 3600,
            minute: of_day / 60 % 60,
            second: of_day % 60,
        }
    }

    /// The Unix second the fields stand for, each out-of-range field
    /// carried into the next larger one.
    fn seconds(&self) -> i64 {
        let days = first_of_month(self.year, self.month + 1) + self.day - 1;
        days * SECONDS_PER_DAY + self.hour * 3600 + self.minute * 60 + self.second
    }

    /// Brings every field into its range, as a read of any field does.
    fn complete(&mut self) -> &Self {
        *self = Self::at(self.seconds());
        self
    }

    /// `DAY_OF_WEEK`: 1 (Sunday) to 7.
    fn day_of_week(&mut self) -> i64 {
        let days = self.complete().seconds().div_euclid(SECONDS_PER_DAY);
        i64::from(weekday(days)) + 1
    }

    /// `setCalendarHour`: sets the hour and reads it back; in UTC the
    /// read only completes the fields.
    fn set_hour(&mut self, hour: i64) {
        self.hour = hour;
        self.complete();
    }

    /// Midnight, the way each step that moves the day starts it.
    fn start_day(&mut self) {
        self.second = 0;
        self.minute = 0;
        self.hour = 0;
    }

    /// `add(YEAR, 1)`: complete, move the year, keep the day within the
    /// month.
    fn add_year(&mut self) {
        self.complete();
        self.year += 1;
        self.day = self.day.min(last_day_of_month(self.month + 1, self.year));
        self.complete();
    }
}

fn last_day_of_month(month: i64, year: i64) -> i64 {
    first_of_month(year, month + 1) - first_of_month(year, month)
}

/// Where a day rule leaves the search: the day and month (1-based, either
/// perhaps out of range) it goes on from, and whether it moved there, so
/// the search starts that day over at midnight.
struct Step {
    day: i64,
    month: i64,
    moved: bool,
}

/// More steps than any search that ends takes: each step moves to the
/// next second, minute, hour, day, month or year that can match, and the
/// years end at [`LAST_SEARCHED_YEAR`].
const MOST_STEPS: u32 = 200_000;

/// The first fire time after Unix second `after`.
///
/// Each step is a function of the calendar's time alone, so a search that
/// comes back to a time it was at goes round for ever, as Quartz does:
/// once a step has gone back in time, the times are kept to notice it.
/// A search that falls back before where it started, or takes more steps
/// than one that ends, is counted endless too.
pub(super) fn time_after(cron: &QuartzCron, after: i64) -> Search {
    let base = after + 1;
    let mut cl = Lenient::at(base);
    let first = |field: Field| *cron.set(field).first().expect("read refuses empty fields");
    let next = |field: Field, from: i64| {
        cron.set(field)
            .range(from as i32..)
            .next()
            .map(|&value| i64::from(value))
    };
    let mut latest = base;
    let mut seen: Option<HashSet<i64>> = None;
    for _ in 0..MOST_STEPS {
        let now = cl.seconds();
        if now < base {
            return Search::Endless;
        }
        if now < latest {
            seen.get_or_insert_with(HashSet::new);
        }
        if let Some(seen) = &mut seen
            && !seen.insert(now)
        {
            return Search::Endless;
        }
        latest = latest.max(now);
        if cl.complete().year > LAST_SEARCHED_YEAR {
            return Search::Never;
        }
        let mut min = cl.minute;
        let sec = match next(Field::Second, cl.second) {
            Some(sec) => sec,
            None => {
                min += 1;
                cl.minute = min;
                i64::from(first(Field::Second))
            }
        };
        cl.second = sec;

        let mut min = cl.complete().minute;
        let mut hour = cl.hour;
        let mut t = -1;
        match next(Field::Minute, min) {
            Some(found) => {
                t = min;
                min = found;
            }
            None => {
                min = i64::from(first(Field::Minute));
                hour += 1;
            }
        }
        if min != t {
            cl.second = 0;
            cl.minute = min;
            cl.set_hour(hour);
            continue;
        }
        cl.minute = min;

        let mut hour = cl.complete().hour;
        let mut day = cl.day;
        let mut t = -1;
        match next(Field::Hour, hour) {
            Some(found) => {
                t = hour;
                hour = found;
            }
            None => {
                hour = i64::from(first(Field::Hour));
                day += 1;
            }
        }
        if hour != t {
            cl.second = 0;
            cl.minute = 0;
            cl.day = day;
            cl.set_hour(hour);
            continue;
        }
        cl.hour = hour;

        let day = cl.complete().day;
        let month = cl.month + 1;
        let step = if cron.set(Field::DayOfWeek).contains(&super::NONE) {
            day_of_month(cron, &mut cl, base, day, month, (sec, min, hour))
        } else {
            day_of_week(cron, &mut cl, day, month)
        };
        if step.moved {
            cl.start_day();
            cl.day = step.day;
            cl.month = step.month - 1;
            continue;
        }
        cl.day = step.day;

        let mut month = cl.complete().month + 1;
        let mut year = cl.year;
        let mut t = -1;
        if year > i64::from(MAX_YEAR) {
            return Search::Never;
        }
        match next(Field::Month, month) {
            Some(found) => {
                t = month;
                month = found;
            }
            None => {
                month = i64::from(first(Field::Month));
                year += 1;
            }
        }
        if month != t {
            cl.start_day();
            cl.day = 1;
            cl.month = month - 1;
            cl.year = year;
            continue;
        }
        cl.month = month - 1;

        let year = cl.complete().year;
        let Some(found) = next(Field::Year, year) else {
            return Search::Never;
        };
        if found != year {
            cl.start_day();
            cl.day = 1;
            cl.month = 0;
            cl.year = found;
            continue;
        }
        return Search::Fires(cl.seconds());
    }
    Search::Endless
}

/// The day-of-month part of a step. `time` is the second, minute and hour
/// found so far, which the `W` rules test against `base`.
fn day_of_month(
    cron: &QuartzCron,
    cl: &mut Lenient,
    base: i64,
    day: i64,
    month: i64,
    time: (i64, i64, i64),
) -> Step {
    let days = cron.set(Field::DayOfMonth);
    let first = days.first().map_or(0, |&day| i64::from(day));
    let year = cl.year;
    let mut month_tested = month;
    let (new_day, new_month) = if cron.last_day_of_month && !cron.nearest_weekday {
        let last = last_day_of_month(month, year) - i64::from(cron.last_day_offset);
        if day > last {
            let mut month = month + 1;
            if month > 12 {
                month = 1;
                month_tested = 3333;
                cl.add_year();
            }
            (1, month)
        } else {
            (last, month)
        }
    } else if cron.nearest_weekday {
        let wanted = if cron.last_day_of_month {
            last_day_of_month(month, year) - i64::from(cron.last_day_offset)
        } else {
            first
        };
        let weekday = nearest_weekday(wanted, month, year, time);
        if weekday.seconds() < base {
            let again = if cron.last_day_of_month { 1 } else { first };
            (again, month + 1)
        } else {
            (weekday.day_set, month)
        }
    } else {
        match days.range(day as i32..).next().map(|&day| i64::from(day)) {
            Some(found) if found <= last_day_of_month(month, year) => (found, month),
            _ => (first, month + 1),
        }
    };
    Step {
        day: new_day,
        month: new_month,
        moved: new_day != day || new_month != month_tested,
    }
}

/// The weekday nearest `day` of `month`, as Quartz's throwaway calendar
/// (`tcal`) finds it, with the fire time's clock.
struct Nearest {
    calendar: Lenient,
    day_set: i64,
}

impl Nearest {
    fn seconds(&self) -> i64 {
        self.calendar.seconds()
    }
}

fn nearest_weekday(day: i64, month: i64, year: i64, (sec, min, hour): (i64, i64, i64)) -> Nearest {
    let mut calendar = Lenient {
        year,
        month: month - 1,
        day,
        hour: 0,
        minute: 0,
        second: 0,
    };
    let last = last_day_of_month(month, year);
    let mut day_set = day;
    match calendar.day_of_week() {
        SATURDAY if day == 1 => day_set += 2,
        SATURDAY => day_set -= 1,
        SUNDAY if day == last => day_set -= 2,
        SUNDAY => day_set += 1,
        _ => {}
    }
    calendar.second = sec;
    calendar.minute = min;
    calendar.hour = hour;
    calendar.day = day_set;
    calendar.month = month - 1;
    Nearest { calendar, day_set }
}

/// The day-of-week part of a step: `nL`, `n#k` or plain days.
fn day_of_week(cron: &QuartzCron, cl: &mut Lenient, day: i64, month: i64) -> Step {
    let days = cron.set(Field::DayOfWeek);
    let first = days.first().map_or(0, |&day| i64::from(day));
    let today = cl.day_of_week();
    let last = last_day_of_month(month, cl.year);
    let next_month = Step {
        day: 1,
        month: month + 1,
        moved: true,
    };
    let ahead = |wanted: i64| match today.cmp(&wanted) {
        std::cmp::Ordering::Less => wanted - today,
        std::cmp::Ordering::Greater => wanted + 7 - today,
        std::cmp::Ordering::Equal => 0,
    };
    let stay = Step {
        day,
        month,
        moved: false,
    };
    if cron.last_day_of_week {
        let mut add = ahead(first);
        if day + add > last {
            return next_month;
        }
        while day + add + 7 <= last {
            add += 7;
        }
        return if add > 0 {
            Step {
                day: day + add,
                month,
                moved: true,
            }
        } else {
            stay
        };
    }
    if cron.nth_day_of_week != 0 {
        let add = ahead(first);
        let shifted = add > 0;
        let day = day + add;
        let week = day / 7 + i64::from(day % 7 > 0);
        let add = (i64::from(cron.nth_day_of_week) - week) * 7;
        let day = day + add;
        return if add < 0 || day > last {
            next_month
        } else if add > 0 || shifted {
            Step {
                day,
                month,
                moved: true,
            }
        } else {
            Step {
                day,
                month,
                moved: false,
            }
        };
    }
    let wanted = days
        .range(today as i32..)
        .next()
        .map_or(first, |&day| i64::from(day));
    let add = ahead(wanted);
    if day + add > last {
        next_month
    } else if add > 0 {
        Step {
            day: day + add,
            month,
            moved: true,
        }
    } else {
        stay
    }
}
