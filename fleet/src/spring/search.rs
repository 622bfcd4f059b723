//! Spring's search for the next fire time, on a UTC date and time as
//! `java.time` holds it: each field moves the time to its next allowed
//! value (carrying into the field above, resetting those below), and
//! the expression runs its fields until none moves.
//!
//! Followed step by step from Spring Framework 7.0.9's `CronField.Type`,
//! `BitsCronField.nextOrSame`, `QuartzCronField` and
//! `CronExpression.nextOrSame`, with their limits of 366 attempts, so a
//! search Spring gives up on gives up here too.

use super::{DayRule, Field, SpringCron, Unit};
use crate::time::{SECONDS_PER_DAY, civil_from_days, days_from_civil};

/// Spring's `CronExpression.MAX_ATTEMPTS`.
pub const MAX_ATTEMPTS: u32 = 366;

/// A UTC date and time to the second, and whether a nanosecond is added:
/// Spring searches from one nanosecond after the last fire time, and its
/// last field rounds that up to the next whole second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct DateTime {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    nano: u32,
}

impl DateTime {
    fn from_seconds(seconds: i64) -> Self {
        let date = civil_from_days(seconds.div_euclid(SECONDS_PER_DAY));
        let of_day = seconds.rem_euclid(SECONDS_PER_DAY) as u32;
        Self {
            year: date.year,
            month: date.month,
            day: date.day,
            hour: of_day / 3600,
            minute: of_day / 60 % 60,
            second: of_day % 60,
            nano: 0,
        }
    }

    pub fn to_seconds(self) -> i64 {
        self.days() * SECONDS_PER_DAY + i64::from(self.hour * 3600 + self.minute * 60 + self.second)
    }

    fn days(self) -> i64 {
        days_from_civil(self.year, self.month, self.day)
    }

    fn days_in_month(self) -> u32 {
        days_in_month(self.year, self.month)
    }

    /// 1 (Monday) to 7 (Sunday), as `java.time` counts.
    fn day_of_week(self) -> u32 {
        (self.days() + 3).rem_euclid(7) as u32 + 1
    }

    fn get(self, unit: Unit) -> u32 {
        match unit {
            Unit::Nano => self.nano,
            Unit::Second => self.second,
            Unit::Minute => self.minute,
            Unit::Hour => self.hour,
            Unit::DayOfMonth => self.day,
            Unit::Month => self.month,
            Unit::DayOfWeek => self.day_of_week(),
        }
    }

    /// The unit's values on this date: the month's days vary.
    fn range(self, unit: Unit) -> (u32, u32) {
        match unit {
            Unit::DayOfMonth => (1, self.days_in_month()),
            _ => unit.range(),
        }
    }

    /// `Temporal.with(field, value)` for a value valid on this date.
    fn with(self, unit: Unit, value: u32) -> Self {
        let mut moved = self;
        match unit {
            Unit::Nano => moved.nano = value,
            Unit::Second => moved.second = value,
            Unit::Minute => moved.minute = value,
            Unit::Hour => moved.hour = value,
            Unit::DayOfMonth => moved.day = value,
            Unit::Month => {
                moved.month = value;
                moved.day = moved.day.min(moved.days_in_month());
            }
            Unit::DayOfWeek => {
                return self.plus_days(i64::from(value) - i64::from(self.day_of_week()));
            }
        }
        moved
    }

    fn plus_seconds(self, seconds: i64) -> Self {
        Self {
            nano: self.nano,
            ..Self::from_seconds(self.to_seconds() + seconds)
        }
    }

    fn plus_days(self, days: i64) -> Self {
        self.plus_seconds(days * SECONDS_PER_DAY)
    }

    /// Months added as `java.time` adds them: the day kept, or the new
    /// month's last if it is shorter.
    fn plus_months(self, months: i64) -> Self {
        let index = self.year * 12 + i64::from(self.month) - 1 + months;
        let (year, month) = (index.div_euclid(12), index.rem_euclid(12) as u32 + 1);
        Self {
            year,
            month,
            day: self.day.min(days_in_month(year, month)),
            ..self
        }
    }

    /// `unit.getBaseUnit().addTo(temporal, amount)`.
    fn plus(self, unit: Unit, amount: i64) -> Self {
        match unit {
            Unit::Nano => unreachable!("the nanosecond field never elapses"),
            Unit::Second => self.plus_seconds(amount),
            Unit::Minute => self.plus_seconds(amount * 60),
            Unit::Hour => self.plus_seconds(amount * 3600),
            Unit::DayOfMonth | Unit::DayOfWeek => self.plus_days(amount),
            Unit::Month => self.plus_months(amount),
        }
    }

    /// `Type.elapseUntil`: forward to the unit's value `goal`, or past the
    /// unit above when `goal` does not come first.
    fn elapse_until(self, unit: Unit, goal: u32) -> Self {
        let current = self.get(unit);
        let (min, max) = self.range(unit);
        let (goal, current, min, max) = (
            i64::from(goal),
            i64::from(current),
            i64::from(min),
            i64::from(max),
        );
        if current < goal {
            if (min..=max).contains(&goal) {
                self.with(unit, goal as u32)
            } else {
                self.plus(unit, max - current + 1)
            }
        } else {
            self.plus(unit, goal + max - current + 1 - min)
        }
    }

    /// `Type.rollForward`: one of the unit above later, at the unit's
    /// first value.
    fn roll_forward(self, unit: Unit) -> Self {
        let later = match unit {
            Unit::Nano => self.plus_seconds(1),
            Unit::Second => self.plus_seconds(60),
            Unit::Minute => self.plus_seconds(3600),
            Unit::Hour => self.plus_days(1),
            Unit::DayOfMonth => self.plus_months(1),
            Unit::Month => self.plus_months(12),
            Unit::DayOfWeek => self.plus_days(7),
        };
        later.with(unit, unit.range().0)
    }

    /// `Type.reset`: every unit below at its first value.
    fn reset(self, unit: Unit) -> Self {
        let mut reset = Self { nano: 0, ..self };
        if unit >= Unit::Minute {
            reset.second = 0;
        }
        if unit >= Unit::Hour {
            reset.minute = 0;
        }
        if matches!(unit, Unit::DayOfMonth | Unit::DayOfWeek | Unit::Month) {
            reset.hour = 0;
        }
        if unit == Unit::Month {
            reset.day = 1;
        }
        reset
    }

    fn at_midnight(self) -> Self {
        Self {
            hour: 0,
            minute: 0,
            second: 0,
            nano: 0,
            ..self
        }
    }

    fn with_last_day(self) -> Self {
        self.with(Unit::DayOfMonth, self.days_in_month())
    }
}

fn days_in_month(year: i64, month: u32) -> u32 {
    let (next_year, next_month) = if month == 12 {
        (year + 1, 1)
    } else {
        (year, month + 1)
    };
    (days_from_civil(next_year, next_month, 1) - days_from_civil(year, month, 1)) as u32
}

/// `BitsCronField.nextSetBit`: the least value in `bits` from `from` on.
fn next_set_bit(bits: u64, from: u32) -> Option<u32> {
    let left = bits & (u64::MAX << from);
    (left != 0).then(|| left.trailing_zeros())
}

/// `BitsCronField.nextOrSame`.
fn next_of_bits(unit: Unit, bits: u64, mut at: DateTime) -> Option<DateTime> {
    // Past the unit's last allowed value: on to the unit above, twice if
    // that has no allowed value either (a day of month a month lacks).
    let carry = |mut at: DateTime| {
        at = at.roll_forward(unit);
        match next_set_bit(bits, at.get(unit)) {
            Some(next) => (at, next),
            None => {
                at = at.roll_forward(unit);
                (at, next_set_bit(bits, 0).unwrap_or(u32::MAX))
            }
        }
    };
    let mut current = at.get(unit);
    let mut next = match next_set_bit(bits, current) {
        Some(next) => next,
        None => {
            let carried = carry(at);
            at = carried.0;
            carried.1
        }
    };
    if next == current {
        return Some(at);
    }
    let mut count = 0;
    current = at.get(unit);
    // Java's `count++ < MAX_ATTEMPTS`: the count goes up on each test.
    while current != next && {
        count += 1;
        count <= MAX_ATTEMPTS
    } {
        at = at.elapse_until(unit, next);
        current = at.get(unit);
        match next_set_bit(bits, current) {
            Some(found) => next = found,
            None => {
                (at, next) = carry(at);
                current = at.get(unit);
            }
        }
    }
    (count < MAX_ATTEMPTS).then(|| at.reset(unit))
}

/// `QuartzCronField.rollbackToMidnight`: the time kept when the rule
/// lands on the same day of the month, else midnight of the day it
/// lands on.
fn keep_or_midnight(from: DateTime, landed: DateTime) -> DateTime {
    if landed.day == from.day {
        from
    } else {
        landed.at_midnight()
    }
}

/// The date `rule` gives in `at`'s month (a `QuartzCronField`'s adjuster).
fn adjust(rule: DayRule, at: DateTime) -> Option<DateTime> {
    Some(match rule {
        DayRule::LastDay => keep_or_midnight(at, at.with_last_day()),
        DayRule::LastWeekday => {
            let last = at.with_last_day();
            let back = match last.day_of_week() {
                6 => 1,
                7 => 2,
                _ => 0,
            };
            keep_or_midnight(at, last.plus_days(-back))
        }
        DayRule::LastDayOffset(offset) => {
            keep_or_midnight(at, at.with_last_day().plus_days(i64::from(offset)))
        }
        DayRule::NearestWeekday(day) => return nearest_weekday(day, at),
        DayRule::LastInMonth(day_of_week) => {
            let last = at.with_last_day();
            let back = (i64::from(last.day_of_week()) - i64::from(day_of_week)).rem_euclid(7);
            keep_or_midnight(at, last.plus_days(-back))
        }
        DayRule::NthInMonth(ordinal, day_of_week) => {
            // The `k`-th weekday may fall in the next month; then the
            // month it fell in is tried, up to a year on.
            let mut at = at;
            for _ in 0..12 {
                let first = at.with(Unit::DayOfMonth, 1);
                let ahead = (i64::from(day_of_week) - i64::from(first.day_of_week())).rem_euclid(7);
                let landed = first.plus_days(ahead + (i64::from(ordinal) - 1) * 7);
                if landed.month == at.month {
                    return Some(keep_or_midnight(at, landed));
                }
                at = landed;
            }
            return None;
        }
    })
}

/// `QuartzCronField.weekdayNearestTo(day)`: the weekday nearest `day`
/// of the month, a Saturday moved to Friday, a Sunday to Monday, and a
/// Saturday the 1st to Monday the 3rd.
fn nearest_weekday(day: u32, mut at: DateTime) -> Option<DateTime> {
    let (current, day_of_week) = (at.day, at.day_of_week());
    let is_weekday = day_of_week < 6;
    if (current == day && is_weekday)
        || (day_of_week == 5 && current + 1 == day)
        || (day_of_week == 1 && current == day + 1)
        || (day_of_week == 1 && day == 1 && current == 3)
    {
        return Some(at);
    }
    for _ in 0..MAX_ATTEMPTS {
        if at.day == day {
            at = match at.day_of_week() {
                6 if day != 1 => at.plus_days(-1),
                6 => at.plus_days(2),
                7 => at.plus_days(1),
                _ => at,
            };
            return Some(at.at_midnight());
        }
        at = at.elapse_until(Unit::DayOfMonth, day);
    }
    None
}

/// `QuartzCronField.nextOrSame`: the rule's date, or, when that is
/// already past, the rule's date in the next month.
fn next_of_rule(unit: Unit, rule: DayRule, at: DateTime) -> Option<DateTime> {
    let found = adjust(rule, at)?;
    if found >= at {
        return Some(found);
    }
    adjust(rule, at.roll_forward(Unit::DayOfMonth)).map(|found| found.reset(unit))
}

impl Field {
    /// The field's `nextOrSame`: the first time from `at` it allows.
    fn next_or_same(&self, at: DateTime) -> Option<DateTime> {
        match self {
            Field::Bits(unit, bits) => next_of_bits(*unit, *bits, at),
            Field::Rule(unit, rule) => next_of_rule(*unit, *rule, at),
            // `CompositeCronField`: the earliest of its parts.
            Field::Any(parts) => parts.iter().filter_map(|part| part.next_or_same(at)).min(),
        }
    }
}

impl SpringCron {
    /// `CronExpression.next`: the first fire time after Unix second
    /// `after`, or `None` where Spring's search gives up (and the task
    /// is not scheduled again).
    pub fn next_after(&self, after: i64) -> Option<i64> {
        let mut at = DateTime {
            nano: 1,
            ..DateTime::from_seconds(after)
        };
        for _ in 0..MAX_ATTEMPTS {
            let found = self.next_or_same_once(at)?;
            if found == at {
                return Some(found.to_seconds());
            }
            at = found;
        }
        None
    }

    /// One pass of every field, the largest first, then the nanosecond.
    fn next_or_same_once(&self, mut at: DateTime) -> Option<DateTime> {
        for field in &self.fields {
            at = field.next_or_same(at)?;
        }
        next_of_bits(Unit::Nano, 1, at)
    }
}
