//! Quartz's search for the next fire time (`CronExpression.getTimeAfter`),
//! step for step, on a calendar as lenient as Java's ([`BrokenDown`]): a
//! field may be set out of its range (the 32nd of January, month 12), and
//! the date it stands for is worked out only when a field is read, as
//! `GregorianCalendar` does. The steps depend on that: setting the day
//! before the month gives another date than the other way round.
//!
//! The fields are the wall clock of the trigger's zone ([`Wall`]).

use std::collections::HashSet;

use jiff::Timestamp;
use jiff::tz::{AmbiguousOffset, TimeZone};

use super::{Field, LAST_SEARCHED_YEAR, MAX_YEAR, QuartzCron, Search};
use crate::time::{BrokenDown, SECONDS_PER_DAY, wall_clock, weekday};

/// The zone a calendar's fields are read in (`None` for UTC), and how
/// `GregorianCalendar` turns them into an instant: a time the clock skips
/// is read with the offset before the jump, so it lands after it; a time
/// the clock shows twice with the offset after the change, the later one.
#[derive(Clone, Copy)]
pub(super) struct Wall<'a>(pub(super) Option<&'a TimeZone>);

impl Wall<'_> {
    /// The Unix second the fields stand for (`getTime`).
    fn instant(self, cl: &BrokenDown) -> i64 {
        let wall = cl.to_seconds();
        let Some(zone) = self.0 else {
            return wall;
        };
        let offset = match wall_clock(wall).map(|at| zone.to_ambiguous_timestamp(at).offset()) {
            Some(AmbiguousOffset::Unambiguous { offset }) => offset,
            Some(AmbiguousOffset::Gap { before, .. }) => before,
            Some(AmbiguousOffset::Fold { after, .. }) => after,
            // Quartz stops searching long before jiff's years end.
            None => return wall,
        };
        wall - i64::from(offset.seconds())
    }

    /// The fields of Unix second `instant` (`setTime`).
    fn fields(self, instant: i64) -> BrokenDown {
        let offset = self.0.and_then(|zone| {
            let at = Timestamp::from_second(instant).ok()?;
            Some(i64::from(zone.to_offset(at).seconds()))
        });
        BrokenDown::from_seconds(instant + offset.unwrap_or(0))
    }

    /// Reads a field of the calendar: as Java's does, the read first
    /// brings every field into its range.
    fn complete(self, cl: &mut BrokenDown) -> BrokenDown {
        *cl = self.fields(self.instant(cl));
        *cl
    }

    /// `DAY_OF_WEEK`: 1 (Sunday) to 7.
    fn weekday_of(self, cl: &mut BrokenDown) -> i64 {
        let days = self.complete(cl).to_seconds().div_euclid(SECONDS_PER_DAY);
        i64::from(weekday(days)) + 1
    }

    /// `setCalendarHour`: sets the hour and reads it back; where the
    /// clock skips that hour, sets the next.
    fn set_hour(self, cl: &mut BrokenDown, hour: i64) {
        cl.hour = hour;
        if self.complete(cl).hour != hour && hour != 24 {
            cl.hour = hour + 1;
        }
    }

    /// `add(YEAR, 1)`: complete, move the year, keep the day within the
    /// month.
    fn add_year(self, cl: &mut BrokenDown) {
        self.complete(cl);
        cl.year += 1;
        cl.day = cl.day.min(cl.days_in_month());
        self.complete(cl);
    }
}

/// `java.util.Calendar.SATURDAY` and `SUNDAY`, Sunday first from 1.
const SATURDAY: i64 = 7;
const SUNDAY: i64 = 1;

/// How many days `month` (1 to 12) of `year` has.
fn last_day_of_month(month: i64, year: i64) -> i64 {
    let first = BrokenDown {
        year,
        month: month - 1,
        day: 1,
        hour: 0,
        minute: 0,
        second: 0,
    };
    first.days_in_month()
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
    let wall = Wall(cron.zone.as_ref());
    let complete = |cl: &mut BrokenDown| wall.complete(cl);
    let base = after + 1;
    let mut cl = wall.fields(base);
    let mut cycle = Cycle::new(base);
    for _ in 0..MOST_STEPS {
        if cycle.comes_back(wall.instant(&cl)) {
            return Search::Endless;
        }
        if complete(&mut cl).year > LAST_SEARCHED_YEAR {
            return Search::Never;
        }
        let (sec, carry) = at_or_after(cron, Field::Second, cl.second);
        cl.minute += carry;
        cl.second = sec;

        let min = complete(&mut cl).minute;
        let (found, carry) = at_or_after(cron, Field::Minute, min);
        if carry == 1 || found != min {
            cl.second = 0;
            cl.minute = found;
            let hour = cl.hour + carry;
            wall.set_hour(&mut cl, hour);
            continue;
        }

        let hour = complete(&mut cl).hour;
        let (found, carry) = at_or_after(cron, Field::Hour, hour);
        if carry == 1 || found != hour {
            cl.clear_from_minute();
            cl.day += carry;
            wall.set_hour(&mut cl, found);
            continue;
        }

        let day = complete(&mut cl).day;
        let month = cl.month + 1;
        let step = if cron.set(Field::DayOfWeek).contains(&super::NONE) {
            day_of_month(cron, wall, &mut cl, base, day, month, (sec, min, hour))
        } else {
            day_of_week(cron, wall, &mut cl, day, month)
        };
        if step.moved {
            cl.clear_from_hour();
            cl.day = step.day;
            cl.month = step.month - 1;
            continue;
        }
        cl.day = step.day;

        let month = complete(&mut cl).month + 1;
        if cl.year > i64::from(MAX_YEAR) {
            return Search::Never;
        }
        let (found, carry) = at_or_after(cron, Field::Month, month);
        if carry == 1 || found != month {
            cl.clear_from_hour();
            cl.day = 1;
            cl.month = found - 1;
            cl.year += carry;
            continue;
        }

        let year = complete(&mut cl).year;
        let Some(&found) = cron.set(Field::Year).range(year as i32..).next() else {
            return Search::Never;
        };
        if i64::from(found) != year {
            cl.clear_from_hour();
            cl.day = 1;
            cl.month = 0;
            cl.year = i64::from(found);
            continue;
        }
        return Search::Fires(wall.instant(&cl));
    }
    Search::Endless
}

/// The first value of `field` at or after `current`, with no carry; or,
/// past the last, its first value and a carry of one into the field above.
fn at_or_after(cron: &QuartzCron, field: Field, current: i64) -> (i64, i64) {
    let values = cron.set(field);
    match values.range(current as i32..).next() {
        Some(&value) => (i64::from(value), 0),
        None => {
            let first = values.first().expect("read refuses empty fields");
            (i64::from(*first), 1)
        }
    }
}

/// The times a search has been at, kept once it has gone back in time.
struct Cycle {
    base: i64,
    latest: i64,
    seen: Option<HashSet<i64>>,
}

impl Cycle {
    fn new(base: i64) -> Self {
        Self {
            base,
            latest: base,
            seen: None,
        }
    }

    /// Whether the search, now at `now`, has fallen back before where it
    /// started or come back to a time it was at.
    fn comes_back(&mut self, now: i64) -> bool {
        if now < self.base {
            return true;
        }
        if now < self.latest {
            self.seen.get_or_insert_with(HashSet::new);
        }
        self.latest = self.latest.max(now);
        self.seen.as_mut().is_some_and(|seen| !seen.insert(now))
    }
}

/// The day-of-month part of a step. `time` is the second, minute and hour
/// found so far, which the `W` rules test against `base`.
fn day_of_month(
    cron: &QuartzCron,
    wall: Wall,
    cl: &mut BrokenDown,
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
                wall.add_year(cl);
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
        let weekday = nearest_weekday(wall, wanted, month, year, time);
        if wall.instant(&weekday.calendar) < base {
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
    calendar: BrokenDown,
    day_set: i64,
}

fn nearest_weekday(
    wall: Wall,
    day: i64,
    month: i64,
    year: i64,
    (sec, min, hour): (i64, i64, i64),
) -> Nearest {
    let mut calendar = BrokenDown {
        year,
        month: month - 1,
        day,
        hour: 0,
        minute: 0,
        second: 0,
    };
    let last = last_day_of_month(month, year);
    let mut day_set = day;
    match wall.weekday_of(&mut calendar) {
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
fn day_of_week(cron: &QuartzCron, wall: Wall, cl: &mut BrokenDown, day: i64, month: i64) -> Step {
    let days = cron.set(Field::DayOfWeek);
    let first = days.first().map_or(0, |&day| i64::from(day));
    let today = wall.weekday_of(cl);
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
    // The day `add` days on in the month; the search starts it over
    // when it moved.
    let on = |add: i64, moved: bool| Step {
        day: day + add,
        month,
        moved,
    };
    if cron.last_day_of_week {
        let mut add = ahead(first);
        if day + add > last {
            return next_month;
        }
        while day + add + 7 <= last {
            add += 7;
        }
        return on(add, add > 0);
    }
    if cron.nth_day_of_week != 0 {
        let shift = ahead(first);
        let shifted_day = day + shift;
        let week = shifted_day / 7 + i64::from(shifted_day % 7 > 0);
        let add = (i64::from(cron.nth_day_of_week) - week) * 7;
        return if add < 0 || shifted_day + add > last {
            next_month
        } else {
            on(shift + add, add > 0 || shift > 0)
        };
    }
    let wanted = days
        .range(today as i32..)
        .next()
        .map_or(first, |&day| i64::from(day));
    let add = ahead(wanted);
    if day + add > last {
        next_month
    } else {
        on(add, add > 0)
    }
}
