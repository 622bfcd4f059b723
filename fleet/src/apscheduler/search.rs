//! `CronTrigger.get_next_fire_time`'s search, on a date and time as
//! Python's `datetime` holds it in the trigger's zone: wall-clock fields
//! and `fold`, the flag that tells the two passes of a repeated time.
//!
//! Followed step by step from APScheduler 3.11's
//! `triggers/cron/__init__.py`: a field that allows a later value sets it
//! and resets the fields below it on the wall clock, keeping `fold`
//! (`_set_field_value`); a field that allows none carries into the field
//! above, the difference of wall clocks added to the instant
//! (`_increment_field_value`, through `datetime_utc_add`). A wall time
//! the zone skips or repeats is read as `zoneinfo` reads it: with `fold`
//! 0, the offset before the change; with 1, the one after. That is why a
//! job in the hour the clock repeats runs in both passes.
//!
//! Where APScheduler would search on to the year 9999 and find nothing
//! (`day='5th mon', week=53`), the search stops once it has been through
//! a whole cycle of the years the fields allow (the calendar's 400 years,
//! times a year step): every date past it was seen before.

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::{AmbiguousOffset, TimeZone};

use super::fields::{self, CronField};
use crate::time::{MICROS_PER_SECOND, SECONDS_PER_DAY, days_from_civil, wall_clock};

/// A wall-clock time in the trigger's zone and Python's `fold`.
#[derive(Clone, Copy, Debug)]
struct Wall {
    at: DateTime,
    fold: bool,
}

/// The eight fields, most significant first, and the zone they are read in.
#[derive(Clone, Debug, PartialEq)]
pub struct CronFields {
    pub fields: Vec<CronField>,
    /// `None` for UTC.
    pub zone: Option<TimeZone>,
}

/// Seconds since 1970 on the wall clock `at` shows.
fn local_seconds(at: DateTime) -> i64 {
    let days = days_from_civil(at.year().into(), at.month() as u32, at.day() as u32);
    days * SECONDS_PER_DAY
        + i64::from(at.hour()) * 3600
        + i64::from(at.minute()) * 60
        + i64::from(at.second())
}

impl CronFields {
    /// The minutes and hours the fields fire at, as a cron schedule whose
    /// days are left open.
    pub fn clock(&self) -> crate::cron::Schedule {
        crate::cron::Schedule::every_day(
            self.fields[fields::MINUTE].bits(),
            self.fields[fields::HOUR].bits() as u32,
        )
    }

    /// The offset, in seconds, a wall time with `fold` is read at.
    fn offset_of(&self, at: DateTime, fold: bool) -> i64 {
        let Some(zone) = &self.zone else {
            return 0;
        };
        let offset = match zone.to_ambiguous_timestamp(at).offset() {
            AmbiguousOffset::Unambiguous { offset } => offset,
            AmbiguousOffset::Gap { before, after } | AmbiguousOffset::Fold { before, after } => {
                if fold {
                    after
                } else {
                    before
                }
            }
        };
        i64::from(offset.seconds())
    }

    /// The Unix second a wall time stands for.
    fn instant(&self, wall: Wall) -> i64 {
        local_seconds(wall.at) - self.offset_of(wall.at, wall.fold)
    }

    /// The wall clock at Unix second `seconds` (`astimezone`), with the
    /// fold set on the second pass of a repeated time.
    fn wall_at(&self, seconds: i64) -> Option<Wall> {
        let Some(zone) = &self.zone else {
            return Some(Wall {
                at: wall_clock(seconds)?,
                fold: false,
            });
        };
        let offset = zone
            .to_offset(Timestamp::from_second(seconds).ok()?)
            .seconds();
        let at = wall_clock(seconds + i64::from(offset))?;
        let fold = matches!(
            zone.to_ambiguous_timestamp(at).offset(),
            AmbiguousOffset::Fold { after, .. } if after.seconds() == offset
        );
        Some(Wall { at, fold })
    }

    /// Whether Unix second `seconds` is on the second pass of a time the
    /// zone's clock shows twice.
    pub fn is_second_pass(&self, seconds: i64) -> bool {
        self.wall_at(seconds).is_some_and(|wall| wall.fold)
    }

    /// Unix second `nominal` plus `micros` as Python adds a `timedelta`
    /// to an aware `datetime`: on the wall clock, the sum read with fold
    /// 0. Across a change of offset the sum moves by the change too.
    pub fn add_on_wall(&self, nominal: i64, micros: i64) -> Option<i64> {
        if self.zone.is_none() {
            return Some(nominal * MICROS_PER_SECOND + micros);
        }
        let wall = self.wall_at(nominal)?;
        let local = local_seconds(wall.at) * MICROS_PER_SECOND + micros;
        let at = wall_clock(local.div_euclid(MICROS_PER_SECOND))?;
        Some(local - self.offset_of(at, false) * MICROS_PER_SECOND)
    }

    /// The first fire time at or after Unix second `start`, as the search
    /// from `datetime_ceil(start_date)` finds it; `None` past the year
    /// 9999, where APScheduler's years end.
    pub fn first_from(&self, start: i64) -> Option<i64> {
        let mut date = self.wall_at(start)?;
        // Past a cycle of the allowed years from where the search began
        // (and from the latest year a part starts), every date has been
        // seen before: APScheduler would search on to 9999 and find
        // nothing, so the search ends here.
        let (cycle, latest) = self.fields[fields::YEAR].year_cycle();
        let last_year = i64::from(date.at.year()).max(latest) + cycle;
        let mut at = 0;
        while at < self.fields.len() {
            if i64::from(date.at.year()) > last_year {
                return None;
            }
            let field = &self.fields[at];
            let current = fields::value(at, date.at);
            match field.next_value(date.at) {
                None => (date, at) = self.carry(date, at.checked_sub(1)?)?,
                Some(next) if next > current && field.is_real() => {
                    date = self.set(date, at, next)?;
                    at += 1;
                }
                Some(next) if next > current => (date, at) = self.carry(date, at)?,
                Some(_) => at += 1,
            }
        }
        Some(self.instant(date))
    }

    /// `_set_field_value`: field `at` set to `value`, those above kept,
    /// those below at their least, on the wall clock with the same fold.
    fn set(&self, date: Wall, at: usize, value: i64) -> Option<Wall> {
        let values = |index: usize| match index.cmp(&at) {
            std::cmp::Ordering::Less => fields::value(index, date.at),
            std::cmp::Ordering::Equal => value,
            std::cmp::Ordering::Greater => fields::min(index),
        };
        Some(Wall {
            at: civil(values)?,
            fold: date.fold,
        })
    }

    /// `_increment_field_value`: the field at `at` (or, for the week or
    /// the day of the week, the day) one more, carried up while a field
    /// is at its greatest; the fields below at their least. The wall
    /// clocks' difference is added to the instant. Gives the field that
    /// moved, or `None` when the year would pass 9999.
    fn carry(&self, date: Wall, at: usize) -> Option<(Wall, usize)> {
        let mut at = at;
        while !fields::is_real(at) || fields::value(at, date.at) == fields::max(at, date.at) {
            at = at.checked_sub(1)?;
        }
        let values = |index: usize| match index.cmp(&at) {
            std::cmp::Ordering::Less => fields::value(index, date.at),
            std::cmp::Ordering::Equal => fields::value(index, date.at) + 1,
            std::cmp::Ordering::Greater => fields::min(index),
        };
        let target = civil(values)?;
        let difference = local_seconds(target) - local_seconds(date.at);
        Some((self.wall_at(self.instant(date) + difference)?, at))
    }
}

/// The civil date and time of the date's own fields, by their place.
fn civil(value: impl Fn(usize) -> i64) -> Option<DateTime> {
    let small = |index: usize| i8::try_from(value(index)).ok();
    DateTime::new(
        i16::try_from(value(fields::YEAR)).ok()?,
        small(fields::MONTH)?,
        small(fields::DAY)?,
        small(fields::HOUR)?,
        small(fields::MINUTE)?,
        small(fields::SECOND)?,
        0,
    )
    .ok()
}
