//! fugit 1.5.2's cron strings (`Fugit::Cron`, `lib/fugit/cron.rb`), the
//! syntax sidekiq-cron reads a job's `cron` in.
//!
//! [`read`] follows fugit's grammar (its `Parser` module) piece by piece,
//! so a string fugit refuses is refused here: five fields, or six with the
//! seconds first; `*`, values, ranges `a-b` (wrapping past the field's end
//! when `a > b`), steps `/n` of one or two digits, `a/n` (from `a` to the
//! field's end, but `a/1` is `a` alone), month and day names; day of month
//! `L`, `last` and negative days counted from the month's end; day of week
//! `d#n` (the n-th in the month, `#L` or `#-1` the last) and `d%m+k`
//! (weeks counted from 2019-01-01); the `@yearly`…`@noon` shortcuts,
//! written in lower case; a zone name or an offset at the end. One space
//! or tab run between fields, and none before or after. Then fugit's own
//! tidying: `*` anywhere in a list makes the field a wildcard except in
//! the day of week, where it is dropped, and month-day pairs that never
//! exist are dropped, a string left with none being refused.
//!
//! The days combine as fugit's `day_match?` does: when both day fields are
//! restricted, after that tidying (so `*/2` counts as restricted), either
//! may match, else both must.
//!
//! [`FugitCron::next_time`] walks a cursor as `Fugit::Cron#next_time`
//! does, in whole seconds on the zone's clock: to the next month's first
//! midnight, the next midnight, the next hour, minute or listed second, up
//! to 2,048 steps. Its steps are fixed lengths of seconds, so near a change
//! of the clocks it sees what fugit sees: `L` in a month whose last day
//! loses an hour is the day before (Paris, March 2024). The vectors in
//! `fleet/tests/data/sidekiq_starts.tsv` come from the real fugit.

use jiff::Timestamp;
use jiff::tz::{AmbiguousOffset, Offset, TimeZone};
use stampede_core::field::shorten;

use super::grammar::{Element, Fields, Kind, fields};
use crate::line::Refusal;
use crate::time::{SECONDS_PER_DAY, civil_from_days, days_from_civil, weekday};

/// How many steps fugit's search takes before it gives up
/// (`MAX_ITERATION_COUNT`).
const MOST_STEPS: u32 = 2048;

const WEEK: i64 = 7 * SECONDS_PER_DAY;

/// What a day-of-week entry asks of the day besides its weekday.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum WeekMark {
    /// Any such weekday.
    Any,
    /// The n-th in its month, from its end when negative (`#n`).
    Nth(i32),
    /// Weeks `w` with `(w + plus) % modulo == 0`, counted from 2019-01-01
    /// (`%modulo+plus`).
    Modulo(u64, u64),
}

/// A cron string read as fugit reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct FugitCron {
    /// Bit sets of the allowed values; `None` for any.
    seconds: Option<u64>,
    minutes: Option<u64>,
    hours: Option<u32>,
    months: Option<u16>,
    /// Days of the month, negative ones from its end (-1 the last).
    monthdays: Option<Vec<i32>>,
    /// Weekday (0 Sunday) and mark, in fugit's sorted order.
    weekdays: Option<Vec<(u32, WeekMark)>>,
    zone: Option<TimeZone>,
    /// Whether the string gives the seconds first (six fields).
    pub with_seconds: bool,
}

/// The shortcuts fugit takes, exactly as written (`SPECIALS`).
pub fn shortcut(spec: &str) -> Option<&'static str> {
    Some(match spec {
        "@yearly" | "@annually" => "0 0 1 1 *",
        "@monthly" => "0 0 1 * *",
        "@weekly" => "0 0 * * 0",
        "@daily" | "@midnight" => "0 0 * * *",
        "@noon" => "0 12 * * *",
        "@hourly" => "0 * * * *",
        _ => return None,
    })
}

fn refused(spec: &str, why: impl std::fmt::Display) -> Refusal {
    Refusal::new(
        "spec",
        format!("fugit reads no cron in \"{}\": {why}", shorten(spec)),
    )
}

/// Reads a cron string as `Fugit::Cron.parse` does, refusing what it
/// refuses or fails on.
pub fn read(spec: &str) -> Result<FugitCron, Refusal> {
    let text = shortcut(spec).unwrap_or(spec);
    if text.starts_with('@') {
        return Err(refused(
            spec,
            "the shortcuts are @yearly, @annually, @monthly, @weekly, @daily, @midnight, @noon and @hourly, in lower case",
        ));
    }
    let bytes = text.as_bytes();
    // fugit tries six fields first and keeps them once they read, even
    // when text is left after them.
    let Fields { len, lists, zone } = fields(bytes, 6)
        .or_else(|| fields(bytes, 5))
        .ok_or_else(|| {
            refused(
                spec,
                "expected 5 fields (minute hour day-of-month month day-of-week) or 6 (the seconds first), then a zone if any, one blank run apart",
            )
        })?;
    if len < bytes.len() {
        return Err(refused(
            spec,
            format!("\"{}\" is not read", shorten(&text[len..])),
        ));
    }
    let with_seconds = lists.len() == 6;
    let mut lists = lists.into_iter();
    let mut next = |kind: Kind| expand_list(spec, kind, &lists.next().unwrap_or_default());
    let seconds = if with_seconds {
        next(Kind::Second)?
    } else {
        Some(vec![0])
    };
    let minutes = next(Kind::Minute)?;
    let hours = next(Kind::Hour)?.map(|hours| {
        let mut hours: Vec<i32> = hours.into_iter().map(|h| h % 24).collect();
        hours.sort_unstable();
        hours.dedup();
        hours
    });
    let monthdays = next(Kind::MonthDay)?;
    let months = next(Kind::Month)?;
    let weekdays = weekdays(spec, &lists.next().unwrap_or_default())?;
    let zone = zone
        .map(|range| read_zone(spec, text[range].trim()))
        .transpose()?;
    let (months, monthdays) = existing_days(spec, months, monthdays)?;
    let set =
        |values: Option<Vec<i32>>| values.map(|v| v.iter().fold(0u64, |set, &x| set | 1 << x));
    Ok(FugitCron {
        seconds: set(seconds),
        minutes: set(minutes),
        hours: set(hours).map(|set| set as u32),
        months: set(months).map(|set| set as u16),
        monthdays,
        weekdays,
        zone,
        with_seconds,
    })
}

/// The zone a string names, as et-orbi finds it: an offset, or a name of
/// the time zone database.
fn read_zone(spec: &str, name: &str) -> Result<TimeZone, Refusal> {
    if let Some(sign) = name.strip_prefix(['+', '-']).map(|_| name.as_bytes()[0]) {
        let digits: String = name[1..].chars().filter(char::is_ascii_digit).collect();
        let hours: i32 = digits[..2].parse().unwrap_or(0);
        let minutes: i32 = digits[2..].parse().unwrap_or(0);
        let seconds = (hours * 3600 + minutes * 60) * if sign == b'-' { -1 } else { 1 };
        return Offset::from_seconds(seconds)
            .map(TimeZone::fixed)
            .map_err(|_| refused(spec, format!("{name} is not an offset")));
    }
    crate::zoned::time_zone(name, "spec")
        .map_err(|refusal| refused(spec, format!("its zone: {}", refusal.reason)))
}

/// One field's values, sorted and without repeats, as fugit's `expand`
/// and `compact` give them; `None` when `*` is among them.
fn expand_list(spec: &str, kind: Kind, list: &[Element]) -> Result<Option<Vec<i32>>, Refusal> {
    let mut values = Vec::new();
    for element in list {
        match expand(kind, element) {
            Ok(Some(more)) => values.extend(more),
            Ok(None) => return Ok(None),
            Err(why) => return Err(refused(spec, format!("its {}: {why}", kind.name()))),
        }
    }
    values.sort_unstable();
    values.dedup();
    Ok(Some(values))
}

/// One element's values; `None` for a wildcard.
fn expand(kind: Kind, element: &Element) -> Result<Option<Vec<i32>>, String> {
    let (min, max) = kind.range();
    let step = element.step.filter(|&step| step != 1);
    let to = element.to.or(step.map(|_| max));
    let from = match (element.from, to, step) {
        (None, None, None) => return Ok(None),
        (Some(from), None, _) => return Ok(Some(vec![from])),
        (from, _, _) => from.unwrap_or(min),
    };
    let to = match to {
        Some(to) if !(to < 0 && from > 0) => to,
        _ => max,
    };
    let step = step.unwrap_or(1);
    if step == 0 {
        return Err("a step of 0 divides by zero".into());
    }
    if (from < 0 && to > 0) || (to < 0 && from > 0) {
        return Err(format!(
            "{from} to {to}: a range from the month's end must end from it too"
        ));
    }
    let (low, high) = if from < 0 { (-max, -1) } else { (min, max) };
    let (mut at, mut to, mut all) = (from, to, Vec::new());
    loop {
        all.push(at);
        if at == to || all.len() > 2 * max as usize {
            break;
        }
        at += 1;
        if at > high {
            at = low;
            if to > high {
                to -= high + 1;
            }
        }
    }
    Ok(Some(all.into_iter().step_by(step as usize).collect()))
}

/// The day-of-week entries as fugit's `determine_weekdays` keeps them.
fn weekdays(spec: &str, list: &[Element]) -> Result<Option<Vec<(u32, WeekMark)>>, Refusal> {
    let mut days: Vec<(u32, WeekMark)> = Vec::new();
    for element in list {
        let mark = match (element.nth, element.modulo) {
            (Some(nth), _) => Some(WeekMark::Nth(nth)),
            (None, Some((0, _))) => {
                return Err(refused(spec, "its day of week: %0 divides by zero"));
            }
            (None, Some((modulo, plus))) => Some(WeekMark::Modulo(modulo, plus)),
            (None, None) => None,
        };
        let range: Vec<i32> = match (mark, element.step, element.from, element.to) {
            (Some(_), ..) => vec![element.from.unwrap_or(0)],
            (None, Some(step), from, to) => (from.unwrap_or(0)..=to.or(from).unwrap_or(6))
                .step_by(step.max(1) as usize)
                .collect(),
            (None, None, Some(from), Some(to)) => (from..=if from > to { to + 7 } else { to })
                .map(|day| day % 7)
                .collect(),
            (None, None, Some(from), None) => vec![from],
            (None, None, None, _) => Vec::new(),
        };
        days.extend(
            range
                .into_iter()
                .map(|day| (day as u32 % 7, mark.unwrap_or(WeekMark::Any))),
        );
    }
    days.sort_unstable();
    days.dedup();
    // Ruby cannot order an `#n` entry beside a `%m` one of the same day.
    if days.windows(2).any(|pair| {
        pair[0].0 == pair[1].0
            && matches!(
                (pair[0].1, pair[1].1),
                (WeekMark::Nth(_), WeekMark::Modulo(..)) | (WeekMark::Modulo(..), WeekMark::Nth(_))
            )
    }) {
        return Err(refused(
            spec,
            "its day of week mixes # and % for one day, which fugit cannot sort",
        ));
    }
    Ok((!days.is_empty()).then_some(days))
}

/// A field's values; `None` for any.
type Values = Option<Vec<i32>>;

/// Months and days with the pairs that never exist dropped, as fugit's
/// `compact_month_days` drops them (February taken at 29 days).
fn existing_days(spec: &str, months: Values, days: Values) -> Result<(Values, Values), Refusal> {
    const LONGEST: [i32; 13] = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let (Some(months), Some(days)) = (&months, &days) else {
        return Ok((months, days));
    };
    let (mut kept_months, mut kept_days) = (Vec::new(), Vec::new());
    for &month in months {
        for &day in days {
            if day <= LONGEST[month as usize] {
                kept_months.push(month);
                kept_days.push(day);
            }
        }
    }
    kept_months.dedup();
    let mut seen = Vec::new();
    kept_days.retain(|day| {
        !seen.contains(day) && {
            seen.push(*day);
            true
        }
    });
    if kept_months.is_empty() {
        return Err(refused(spec, "none of its months has any of its days"));
    }
    Ok((Some(kept_months), Some(kept_days)))
}

/// A second's fields on the cron's clock.
#[derive(Clone, Copy)]
struct Wall {
    year: i64,
    month: u32,
    day: u32,
    hour: i64,
    minute: i64,
    second: i64,
    weekday: u32,
    /// Seconds east of UTC.
    offset: i64,
}

impl FugitCron {
    /// The offset of the cron's clock at Unix second `at`.
    fn offset(&self, at: i64) -> i64 {
        match (&self.zone, Timestamp::from_second(at)) {
            (Some(zone), Ok(instant)) => i64::from(zone.to_offset(instant).seconds()),
            _ => 0,
        }
    }

    fn wall(&self, at: i64) -> Wall {
        let offset = self.offset(at);
        let local = at + offset;
        let days = local.div_euclid(SECONDS_PER_DAY);
        let of_day = local.rem_euclid(SECONDS_PER_DAY);
        let date = civil_from_days(days);
        Wall {
            year: date.year,
            month: date.month,
            day: date.day,
            hour: of_day / 3600,
            minute: of_day / 60 % 60,
            second: of_day % 60,
            weekday: weekday(days),
            offset,
        }
    }

    /// The instant of midnight starting `year-month-day` on the clock, or
    /// `None` when the clocks skip it.
    fn midnight(&self, year: i64, month: u32, day: u32) -> Option<i64> {
        let local = days_from_civil(year, month, day) * SECONDS_PER_DAY;
        let Some(zone) = &self.zone else {
            return Some(local);
        };
        let date =
            jiff::civil::Date::new(i16::try_from(year).ok()?, month as i8, day as i8).ok()?;
        match zone
            .to_ambiguous_timestamp(date.to_datetime(jiff::civil::Time::midnight()))
            .offset()
        {
            AmbiguousOffset::Unambiguous { offset }
            | AmbiguousOffset::Fold { before: offset, .. } => {
                Some(local - i64::from(offset.seconds()))
            }
            AmbiguousOffset::Gap { .. } => None,
        }
    }

    /// Midnight starting the month after `wall`'s (`inc_month`); where the
    /// clocks skip it, the first second after.
    fn next_month(&self, wall: Wall) -> i64 {
        let (year, month) = if wall.month == 12 {
            (wall.year + 1, 1)
        } else {
            (wall.year, wall.month + 1)
        };
        self.midnight(year, month, 1).unwrap_or_else(|| {
            let local = days_from_civil(year, month, 1) * SECONDS_PER_DAY;
            local - self.offset(local - SECONDS_PER_DAY)
        })
    }

    /// The next midnight from `at` as fugit's `inc_day` finds it: a day's
    /// worth of seconds on, then back or on to midnight when a change of
    /// the clocks left it elsewhere.
    fn next_day(&self, at: i64, wall: Wall) -> i64 {
        let at = at + (24 - wall.hour) * 3600 - wall.minute * 60 - wall.second;
        let there = self.wall(at);
        match there.hour {
            0 => at,
            hour if hour < 12 => self
                .midnight(there.year, there.month, there.day)
                .unwrap_or(at + (24 - hour) * 3600),
            hour => at + (24 - hour) * 3600,
        }
    }

    fn month_day_matches(&self, wall: Wall) -> bool {
        let Some(days) = &self.monthdays else {
            return true;
        };
        // fugit finds the month's last day a day's seconds before the next
        // month's midnight.
        let last = i64::from(self.wall(self.next_month(wall) - SECONDS_PER_DAY).day) + 1;
        days.iter().any(|&day| {
            let day = if day < 1 {
                last + i64::from(day)
            } else {
                i64::from(day)
            };
            day == i64::from(wall.day)
        })
    }

    /// How many weeks' seconds `at` may move by `direction` and stay in
    /// its month, counting itself (et-orbi's `count_weeks`).
    fn weeks_in_month(&self, at: i64, month: u32, direction: i64) -> i32 {
        let mut count = 0;
        let mut there = at;
        while self.wall(there).month == month && count < 6 {
            count += 1;
            there += direction * WEEK;
        }
        count
    }

    fn week_day_matches(&self, at: i64, wall: Wall) -> bool {
        let Some(days) = &self.weekdays else {
            return true;
        };
        // fugit looks at the first entry for the day only.
        match days.iter().find(|(day, _)| *day == wall.weekday) {
            None => false,
            Some((_, WeekMark::Any)) => true,
            Some((_, WeekMark::Nth(nth))) if *nth > 0 => {
                self.weeks_in_month(at, wall.month, -1) == *nth
            }
            Some((_, WeekMark::Nth(nth))) => -self.weeks_in_month(at, wall.month, 1) == *nth,
            Some((_, WeekMark::Modulo(modulo, plus))) => {
                let origin = self.midnight(2019, 1, 1).unwrap_or(1_546_300_800);
                let week = (at - origin).div_euclid(WEEK) + 1;
                (i128::from(week) + i128::from(*plus)).rem_euclid(i128::from(*modulo)) == 0
            }
        }
    }

    fn day_matches(&self, at: i64, wall: Wall) -> bool {
        if self.weekdays.is_some() && self.monthdays.is_some() {
            self.week_day_matches(at, wall) || self.month_day_matches(wall)
        } else {
            self.week_day_matches(at, wall) && self.month_day_matches(wall)
        }
    }

    /// The cursor's next position from `at`, or `None` when `at` matches.
    fn step(&self, at: i64) -> Option<i64> {
        let wall = self.wall(at);
        let has = |set: Option<u64>, value: i64| set.is_none_or(|set| set >> value & 1 == 1);
        if !has(self.months.map(u64::from), i64::from(wall.month)) {
            return Some(self.next_month(wall));
        }
        if !self.day_matches(at, wall) {
            return Some(self.next_day(at, wall));
        }
        if !has(self.hours.map(u64::from), wall.hour) {
            return Some(at + (60 - wall.minute) * 60 - wall.second);
        }
        if !has(self.minutes, wall.minute) {
            return Some(at + 60 - wall.second);
        }
        let seconds = self.seconds?;
        if seconds >> wall.second & 1 == 1 {
            return None;
        }
        let later = seconds & !((2u64 << wall.second) - 1);
        Some(match later {
            0 => at + 60 - wall.second + i64::from(seconds.trailing_zeros()),
            later => at + i64::from(later.trailing_zeros()) - wall.second,
        })
    }

    /// The first second after `after` and not after `until` whose fields
    /// match on the cron's clock: the times sidekiq-cron's poller finds
    /// (it asks fugit's `previous_time`, which has no rule of its own for
    /// a repeated hour, so such a time comes twice).
    pub fn next_match(&self, after: i64, until: i64) -> Option<i64> {
        let mut at = after + 1;
        while at <= until {
            match self.step(at) {
                None => return Some(at),
                Some(next) => at = next,
            }
        }
        None
    }

    /// Every matching second in `(after, until]`, ascending.
    pub fn times_between(&self, after: i64, until: i64) -> Vec<i64> {
        let mut times = Vec::new();
        let mut at = after;
        while let Some(time) = self.next_match(at, until) {
            times.push(time);
            at = time;
        }
        times
    }

    /// `Fugit::Cron#next_time` from Unix second `after`, given in UTC: the
    /// next time, or why fugit fails (more than 2,048 steps).
    pub fn next_time(&self, after: i64) -> Result<i64, String> {
        // fugit skips a time whose wall clock reads as `from` did (in
        // `from`'s own zone, UTC here) with another offset.
        let (mut from_wall, mut from_offset) = (after, self.offset(after));
        let mut at = after + 1;
        for _ in 0..MOST_STEPS {
            if at > crate::time::LATEST_FROM {
                break;
            }
            match self.step(at) {
                Some(next) => at = next,
                None => {
                    let wall = self.wall(at);
                    if at + wall.offset == from_wall && wall.offset != from_offset {
                        (from_wall, from_offset) = (at + wall.offset, wall.offset);
                        at += 1;
                        continue;
                    }
                    return Ok(at);
                }
            }
        }
        Err(format!("fugit gives up after {MOST_STEPS} steps"))
    }

    /// The minutes and hours it fires at (all of either for `*`), for the
    /// fix.
    pub fn clock(&self) -> crate::cron::Schedule {
        crate::cron::Schedule::every_day(
            self.minutes.unwrap_or((1 << 60) - 1),
            self.hours.unwrap_or((1 << 24) - 1),
        )
    }

    /// Whether it names a zone of its own.
    pub fn zoned(&self) -> bool {
        self.zone.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_fugit_expands_them() {
        let cron = read("5/1 22-2 L * 5-1").unwrap();
        assert_eq!(cron.minutes, Some(1 << 5));
        assert_eq!(cron.hours, Some(1 << 22 | 1 << 23 | 1 | 2 | 4));
        assert_eq!(cron.monthdays, Some(vec![-1]));
        let days: Vec<u32> = cron.weekdays.unwrap().iter().map(|d| d.0).collect();
        assert_eq!(days, [0, 1, 5, 6]);
        assert_eq!(read("0 0 * * *,1").unwrap().weekdays.unwrap().len(), 1);
        assert_eq!(read("0 0 1,* * *").unwrap().monthdays, None);
    }

    #[test]
    fn refusals_say_why() {
        for spec in [
            "0 0 30 2 *",
            "*/0 * * * *",
            "0 0 -1-5 * *",
            "0 0 * * 1%0",
            "@reboot",
        ] {
            let refusal = read(spec).unwrap_err();
            assert_eq!(refusal.field, "spec");
            assert!(refusal.reason.contains("fugit"), "{}", refusal.reason);
        }
    }
}
