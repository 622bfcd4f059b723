//! Spring's search for the next fire time, on a date and time as
//! `java.time`'s `ZonedDateTime` holds it: each field moves the time to its next allowed
//! value (carrying into the field above, resetting those below), and
//! the expression runs its fields until none moves.
//!
//! In a zone, the fields are the zone's wall clock: a change to a date or
//! a field is resolved as `ZonedDateTime` resolves one (a skipped time
//! moved on by the jump, a repeated one at the offset it had), and time
//! units are added to the instant.
//!
//! Followed step by step from Spring Framework 7.0.9's `CronField.Type`,
//! `BitsCronField.nextOrSame`, `QuartzCronField` and
//! `CronExpression.nextOrSame`, with their limits of 366 attempts, so a
//! search Spring gives up on gives up here too.

use std::cmp::Ordering;

use jiff::Timestamp;
use jiff::tz::{AmbiguousOffset, TimeZone};

use super::{DayRule, Field, SpringCron, Unit};
use crate::time::{SECONDS_PER_DAY, civil_from_days, days_from_civil, wall_clock};

/// Spring's `CronExpression.MAX_ATTEMPTS`.
pub const MAX_ATTEMPTS: u32 = 366;

/// A date and time to the second on a zone's wall clock, its offset, and
/// whether a nanosecond is added: Spring searches from one nanosecond
/// after the last fire time, and its last field rounds that up to the
/// next whole second. Two are ordered, and equal, by the instant they
/// stand for.
#[derive(Clone, Copy, Debug)]
pub struct DateTime<'a> {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    nano: u32,
    /// Seconds east of UTC.
    offset: i32,
    /// `None` for UTC.
    zone: Option<&'a TimeZone>,
}

impl PartialEq for DateTime<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for DateTime<'_> {}

impl PartialOrd for DateTime<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for DateTime<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.to_seconds(), self.nano).cmp(&(other.to_seconds(), other.nano))
    }
}

impl<'a> DateTime<'a> {
    /// The wall clock of `zone` at Unix second `seconds`.
    fn at_instant(seconds: i64, nano: u32, zone: Option<&'a TimeZone>, fallback: i32) -> Self {
        let offset = zone.map_or(0, |zone| offset_at(zone, seconds).unwrap_or(fallback));
        Self::on_wall(seconds + i64::from(offset), nano, offset, zone)
    }

    /// The fields of wall-clock second `local` (seconds since 1970 on the
    /// zone's clock), at `offset`.
    fn on_wall(local: i64, nano: u32, offset: i32, zone: Option<&'a TimeZone>) -> Self {
        let date = civil_from_days(local.div_euclid(SECONDS_PER_DAY));
        let of_day = local.rem_euclid(SECONDS_PER_DAY) as u32;
        Self {
            year: date.year,
            month: date.month,
            day: date.day,
            hour: of_day / 3600,
            minute: of_day / 60 % 60,
            second: of_day % 60,
            nano,
            offset,
            zone,
        }
    }

    /// `ZonedDateTime.ofLocal`: wall-clock second `local` in the zone,
    /// keeping `preferred` where the clock shows it twice (else the
    /// earlier offset), moved on by the jump where the clock skips it.
    fn resolved(local: i64, nano: u32, preferred: i32, zone: Option<&'a TimeZone>) -> Self {
        let Some(zone) = zone else {
            return Self::on_wall(local, nano, 0, None);
        };
        let offsets = wall_clock(local).map(|civil| zone.to_ambiguous_timestamp(civil).offset());
        let (local, offset) = match offsets {
            Some(AmbiguousOffset::Unambiguous { offset }) => (local, offset.seconds()),
            Some(AmbiguousOffset::Gap { before, after }) => (
                local + i64::from(after.seconds() - before.seconds()),
                after.seconds(),
            ),
            Some(AmbiguousOffset::Fold { before, after }) => {
                let keeps = preferred == after.seconds();
                (local, if keeps { preferred } else { before.seconds() })
            }
            // Past the years a zone's rules are known for, the offset stays.
            None => (local, preferred),
        };
        Self::on_wall(local, nano, offset, Some(zone))
    }

    /// The same instant's wall clock with `edit` made to its fields,
    /// resolved as `ZonedDateTime` resolves a local change.
    fn edited(self, edit: impl FnOnce(&mut Self)) -> Self {
        let mut fields = self;
        edit(&mut fields);
        Self::resolved(fields.wall_seconds(), fields.nano, self.offset, self.zone)
    }

    fn wall_seconds(self) -> i64 {
        self.days() * SECONDS_PER_DAY + i64::from(self.hour * 3600 + self.minute * 60 + self.second)
    }

    /// The Unix second this stands for.
    pub fn to_seconds(self) -> i64 {
        self.wall_seconds() - i64::from(self.offset)
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
        match unit {
            // A nanosecond moves no wall-clock second into or out of a jump.
            Unit::Nano => Self {
                nano: value,
                ..self
            },
            Unit::Second => self.edited(|at| at.second = value),
            Unit::Minute => self.edited(|at| at.minute = value),
            Unit::Hour => self.edited(|at| at.hour = value),
            Unit::DayOfMonth => self.edited(|at| at.day = value),
            Unit::Month => self.edited(|at| {
                at.month = value;
                at.day = at.day.min(at.days_in_month());
            }),
            Unit::DayOfWeek => self.plus_days(i64::from(value) - i64::from(self.day_of_week())),
        }
    }

    /// Seconds added to the instant, as `java.time` adds time units.
    fn plus_seconds(self, seconds: i64) -> Self {
        Self::at_instant(
            self.to_seconds() + seconds,
            self.nano,
            self.zone,
            self.offset,
        )
    }

    /// Days added on the wall clock, as `java.time` adds date units.
    fn plus_days(self, days: i64) -> Self {
        Self::resolved(
            self.wall_seconds() + days * SECONDS_PER_DAY,
            self.nano,
            self.offset,
            self.zone,
        )
    }

    /// Months added as `java.time` adds them: the day kept, or the new
    /// month's last if it is shorter.
    fn plus_months(self, months: i64) -> Self {
        let index = self.year * 12 + i64::from(self.month) - 1 + months;
        let (year, month) = (index.div_euclid(12), index.rem_euclid(12) as u32 + 1);
        self.edited(|at| {
            at.year = year;
            at.month = month;
            at.day = at.day.min(days_in_month(year, month));
        })
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

    /// `Type.reset`: every unit below at its first value, one after
    /// another, each resolved on the zone's clock.
    fn reset(self, unit: Unit) -> Self {
        const BELOW: [Unit; 5] = [
            Unit::DayOfMonth,
            Unit::Hour,
            Unit::Minute,
            Unit::Second,
            Unit::Nano,
        ];
        let first = match unit {
            Unit::Nano => return self,
            Unit::Month => 0,
            Unit::DayOfMonth | Unit::DayOfWeek => 1,
            Unit::Hour => 2,
            Unit::Minute => 3,
            Unit::Second => 4,
        };
        BELOW[first..]
            .iter()
            .fold(self, |at, &below| at.with(below, below.range().0))
    }

    /// `with(NANO_OF_DAY, 0)`: midnight, as the zone's clock has it.
    fn at_midnight(self) -> Self {
        self.edited(|at| {
            at.hour = 0;
            at.minute = 0;
            at.second = 0;
            at.nano = 0;
        })
    }

    fn with_last_day(self) -> Self {
        self.with(Unit::DayOfMonth, self.days_in_month())
    }
}

/// The offset of `zone` at Unix second `seconds`, within jiff's years.
fn offset_at(zone: &TimeZone, seconds: i64) -> Option<i32> {
    let at = Timestamp::from_second(seconds).ok()?;
    Some(zone.to_offset(at).seconds())
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
fn next_of_bits<'a>(unit: Unit, bits: u64, mut at: DateTime<'a>) -> Option<DateTime<'a>> {
    // Past the unit's last allowed value: on to the unit above, twice if
    // that has no allowed value either (a day of month a month lacks).
    let carry = |mut at: DateTime<'a>| {
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
fn keep_or_midnight<'a>(from: DateTime<'a>, landed: DateTime<'a>) -> DateTime<'a> {
    if landed.day == from.day {
        from
    } else {
        landed.at_midnight()
    }
}

/// The date `rule` gives in `at`'s month (a `QuartzCronField`'s adjuster).
fn adjust(rule: DayRule, at: DateTime<'_>) -> Option<DateTime<'_>> {
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
fn nearest_weekday(day: u32, mut at: DateTime<'_>) -> Option<DateTime<'_>> {
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
fn next_of_rule(unit: Unit, rule: DayRule, at: DateTime<'_>) -> Option<DateTime<'_>> {
    let found = adjust(rule, at)?;
    if found >= at {
        return Some(found);
    }
    adjust(rule, at.roll_forward(Unit::DayOfMonth)).map(|found| found.reset(unit))
}

impl Field {
    /// The field's `nextOrSame`: the first time from `at` it allows.
    fn next_or_same<'a>(&self, at: DateTime<'a>) -> Option<DateTime<'a>> {
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
        let mut at = DateTime::at_instant(after, 1, self.zone.as_ref(), 0);
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
    fn next_or_same_once<'a>(&self, mut at: DateTime<'a>) -> Option<DateTime<'a>> {
        for field in &self.fields {
            at = field.next_or_same(at)?;
        }
        next_of_bits(Unit::Nano, 1, at)
    }
}
