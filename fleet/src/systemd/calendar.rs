//! systemd's `OnCalendar=` expressions, read as systemd 252 reads them.
//!
//! Followed: `src/shared/calendarspec.c` (and `parse_fractional_part_u`
//! in `src/basic/parse-util.c`) at tag v252.31 of systemd-stable, the
//! code Debian 12's 252.39 builds; the vectors in
//! `fleet/tests/data/systemd_calendar.tsv` come from that build.
//!
//! An expression is `[WEEKDAYS] [DATE] [TIME]`, or one of the shorthands
//! `minutely` … `semiannually`, or `@UNIX-SECONDS`. Each of year, month,
//! day, hour, minute and second is a list of items `a`, `a..b`, `a/r` or
//! `a..b/r` (`*` is any value; seconds may have six decimals); `~` in the
//! date counts days back from the month's end (`*-02~01` is February's
//! last day). A missing time is `00:00:00`, missing seconds are `:00`.
//! Where it elapses is [`super::elapse`]'s part.
//!
//! Time zones: results are in UTC, and the machine's local zone is taken
//! as UTC, so an expression without a zone, with ` UTC` or with a zone
//! that is UTC (`Etc/UTC`, `GMT`, …) reads the same; any other zone is
//! refused.

use crate::time::{MICROS_PER_SECOND, civil_from_days};

/// The years `calendarspec.c` accepts and walks through.
const FIRST_YEAR: i64 = 1970;
pub(super) const LAST_YEAR: i64 = 2199;
/// `CALENDARSPEC_COMPONENTS_MAX`: a list holds at most this many items
/// after its first.
const MOST_MORE_ITEMS: usize = 240;
/// The latest instant an expression can name: 2199-12-31T23:59:59Z.
pub const LAST_SECOND: i64 = 7_258_118_399;

/// One item of a component's list: `start`, `start..stop`, `start/repeat`
/// or `start..stop/repeat`. Seconds are in microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CalendarItem {
    pub start: i64,
    pub stop: Option<i64>,
    /// 0 for a single value.
    pub repeat: i64,
}

impl CalendarItem {
    fn single(value: i64) -> Self {
        Self {
            start: value,
            stop: None,
            repeat: 0,
        }
    }
}

/// An `OnCalendar=` expression, read. An empty list allows every value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CalendarSpec {
    /// Bit d for Monday + d; `None` for every day.
    pub weekdays: Option<u8>,
    /// Days count back from the end of the month (`~`).
    pub end_of_month: bool,
    pub years: Vec<CalendarItem>,
    pub months: Vec<CalendarItem>,
    pub days: Vec<CalendarItem>,
    pub hours: Vec<CalendarItem>,
    pub minutes: Vec<CalendarItem>,
    /// Seconds, in microseconds.
    pub seconds: Vec<CalendarItem>,
}

/// Zones whose time is UTC, read as UTC.
const UTC_ZONES: [&str; 18] = [
    "UTC",
    "Etc/UTC",
    "UCT",
    "Etc/UCT",
    "Universal",
    "Etc/Universal",
    "Zulu",
    "Etc/Zulu",
    "GMT",
    "Etc/GMT",
    "GMT0",
    "Etc/GMT0",
    "GMT+0",
    "Etc/GMT+0",
    "GMT-0",
    "Etc/GMT-0",
    "Greenwich",
    "Etc/Greenwich",
];

const WEEKDAY_NAMES: [(&str, u8); 14] = [
    ("Monday", 0),
    ("Mon", 0),
    ("Tuesday", 1),
    ("Tue", 1),
    ("Wednesday", 2),
    ("Wed", 2),
    ("Thursday", 3),
    ("Thu", 3),
    ("Friday", 4),
    ("Fri", 4),
    ("Saturday", 5),
    ("Sat", 5),
    ("Sunday", 6),
    ("Sun", 6),
];

/// Reads an `OnCalendar=` expression as systemd 252 does, or says why
/// systemd would refuse it.
pub fn parse(text: &str) -> Result<CalendarSpec, String> {
    let body = without_zone(text)?;
    if body.is_empty() {
        return Err("is empty".into());
    }
    let mut spec = match shorthand(body) {
        Some(spec) => spec,
        None => {
            let mut spec = CalendarSpec::default();
            let mut cursor = Cursor::new(body);
            spec.weekdays = cursor.weekdays()?;
            if !cursor.date(&mut spec)? {
                cursor.time(&mut spec)?;
            }
            if !cursor.at_end() {
                return Err(format!(
                    "has \"{}\" where it should end",
                    stampede_core::field::shorten(cursor.rest_text())
                ));
            }
            spec
        }
    };
    spec.normalize();
    spec.validate()?;
    Ok(spec)
}

/// The expression without a trailing zone that is UTC; other zones are
/// refused. ` UTC` is matched in any case, as systemd matches it.
fn without_zone(text: &str) -> Result<&str, String> {
    let bytes = text.as_bytes();
    if bytes.len() >= 4 && bytes[bytes.len() - 4..].eq_ignore_ascii_case(b" UTC") {
        return Ok(&text[..text.len() - 4]);
    }
    let Some(space) = text.rfind(' ') else {
        return Ok(text);
    };
    let word = &text[space + 1..];
    if UTC_ZONES.contains(&word) {
        return Ok(&text[..space]);
    }
    if looks_like_zone(word) {
        return Err(format!(
            "time zone \"{}\": only UTC is read here (results are in UTC)",
            stampede_core::field::shorten(word)
        ));
    }
    Ok(text)
}

/// `Area/City`, or a capitalised word such as `CET` that is not a weekday.
fn looks_like_zone(word: &str) -> bool {
    let named = word
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/_+-".contains(&b));
    let weekday = WEEKDAY_NAMES.iter().any(|(name, _)| {
        word.as_bytes()
            .get(..3)
            .is_some_and(|start| start.eq_ignore_ascii_case(&name.as_bytes()[..3]))
    });
    named && !weekday && (word.contains('/') || word.starts_with(|c: char| c.is_ascii_uppercase()))
}

fn zeros() -> Vec<CalendarItem> {
    vec![CalendarItem::single(0)]
}

fn singles(values: &[i64]) -> Vec<CalendarItem> {
    values
        .iter()
        .map(|&value| CalendarItem::single(value))
        .collect()
}

/// The shorthands, matched in any case: each fixes the components below
/// its period to their first value.
fn shorthand(text: &str) -> Option<CalendarSpec> {
    let lower = text.to_ascii_lowercase();
    let (months, days, weekdays, from_hour, from_minute): (&[i64], &[i64], _, bool, bool) =
        match lower.as_str() {
            "minutely" => (&[], &[], None, false, false),
            "hourly" => (&[], &[], None, false, true),
            "daily" => (&[], &[], None, true, true),
            "weekly" => (&[], &[], Some(1), true, true),
            "monthly" => (&[], &[1], None, true, true),
            "annually" | "yearly" | "anually" => (&[1], &[1], None, true, true),
            "quarterly" => (&[1, 4, 7, 10], &[1], None, true, true),
            "biannually" | "bi-annually" | "semiannually" | "semi-annually" => {
                (&[1, 7], &[1], None, true, true)
            }
            _ => return None,
        };
    Some(CalendarSpec {
        weekdays,
        end_of_month: false,
        years: Vec::new(),
        months: singles(months),
        days: singles(days),
        hours: if from_hour { zeros() } else { Vec::new() },
        minutes: if from_minute { zeros() } else { Vec::new() },
        seconds: zeros(),
    })
}

/// Where reading an expression has got to.
struct Cursor<'a> {
    text: &'a [u8],
    at: usize,
}

fn unreadable(what: &str) -> String {
    format!("is not a calendar expression systemd reads ({what})")
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            text: text.as_bytes(),
            at: 0,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn peek_second(&self) -> Option<u8> {
        self.text.get(self.at + 1).copied()
    }

    fn at_end(&self) -> bool {
        self.at >= self.text.len()
    }

    fn rest_text(&self) -> &str {
        std::str::from_utf8(&self.text[self.at..]).unwrap_or("…")
    }

    fn skip_spaces(&mut self) {
        while self.peek() == Some(b' ') {
            self.at += 1;
        }
    }

    fn at_end_or_space(&self) -> bool {
        matches!(self.peek(), None | Some(b' '))
    }

    /// `Mon,Wed`, `Mon..Fri` or `Mon-Fri` and lists of these, then blanks.
    /// `None` when the expression starts with no weekday.
    fn weekdays(&mut self) -> Result<Option<u8>, String> {
        let mut bits = 0u8;
        let mut range_from: Option<u8> = None;
        let mut first = true;
        loop {
            let rest = &self.text[self.at..];
            let found = WEEKDAY_NAMES.iter().find(|(name, _)| {
                rest.len() >= name.len() && rest[..name.len()].eq_ignore_ascii_case(name.as_bytes())
            });
            let Some(&(name, day)) = found else {
                return if first {
                    Ok(None)
                } else {
                    Err(unreadable("a weekday is missing after a separator"))
                };
            };
            if !matches!(rest.get(name.len()), None | Some(b'-' | b'.' | b',' | b' ')) {
                return Err(unreadable("a weekday runs into other text"));
            }
            bits |= 1 << day;
            if let Some(from) = range_from {
                if from > day {
                    return Err(unreadable("a weekday range runs backwards"));
                }
                for between in from + 1..day {
                    bits |= 1 << between;
                }
            }
            self.at += name.len();
            match self.peek() {
                None => return Ok(Some(bits)),
                Some(b' ') => {
                    self.skip_spaces();
                    return Ok(Some(bits));
                }
                Some(b'.') => {
                    if range_from.is_some() || self.peek_second() != Some(b'.') {
                        return Err(unreadable("a weekday range needs `..` between two days"));
                    }
                    range_from = Some(day);
                    self.at += 2;
                }
                Some(b'-') => {
                    if range_from.is_some() {
                        return Err(unreadable("a weekday range needs two days"));
                    }
                    range_from = Some(day);
                    self.at += 1;
                }
                _ => {
                    range_from = None;
                    self.at += 1;
                }
            }
            // A trailing comma is fine; an open range is not.
            if self.at_end_or_space() {
                self.skip_spaces();
                return match range_from {
                    None => Ok(Some(bits)),
                    Some(_) => Err(unreadable("a weekday range is open")),
                };
            }
            first = false;
        }
    }

    /// `[YEAR-]MONTH-DAY` (with `~` for days from the month's end) or
    /// `@SECONDS`. Returns whether the expression is complete (`@`), and
    /// leaves a time (`10:00`) unread.
    fn date(&mut self, spec: &mut CalendarSpec) -> Result<bool, String> {
        if self.at_end() {
            return Ok(false);
        }
        if self.peek() == Some(b'@') {
            self.at += 1;
            self.timestamp(spec)?;
            return Ok(true);
        }
        let start = self.at;
        let first = self.list(false)?;
        if matches!(self.peek(), None | Some(b':')) {
            self.at = start;
            return Ok(false);
        }
        self.date_separator(spec)?;
        let second = self.list(false)?;
        if self.at_end_or_space() {
            self.skip_spaces();
            spec.months = first;
            spec.days = second;
            return Ok(false);
        }
        if spec.end_of_month {
            return Err(unreadable("`~` goes between the month and the day"));
        }
        self.date_separator(spec)?;
        let third = self.list(false)?;
        if !self.at_end_or_space() {
            return Err(unreadable("a date has at most three parts"));
        }
        self.skip_spaces();
        spec.years = first;
        spec.months = second;
        spec.days = third;
        Ok(false)
    }

    fn date_separator(&mut self, spec: &mut CalendarSpec) -> Result<(), String> {
        match self.peek() {
            Some(b'~') => spec.end_of_month = true,
            Some(b'-') => {}
            _ => return Err(unreadable("date parts are separated by `-` or `~`")),
        }
        self.at += 1;
        Ok(())
    }

    /// `@SECONDS`, read as `strtoul` reads it, as one instant.
    fn timestamp(&mut self, spec: &mut CalendarSpec) -> Result<(), String> {
        while self.peek().is_some_and(|b| b" \t\n\x0b\x0c\r".contains(&b)) {
            self.at += 1;
        }
        let negative = match self.peek() {
            Some(b'-') => {
                self.at += 1;
                true
            }
            Some(b'+') => {
                self.at += 1;
                false
            }
            _ => false,
        };
        let magnitude = self.digits()?;
        // strtoul negates in unsigned arithmetic; time_t then reads the
        // bits as signed, so a minus sign lands before 1970.
        let seconds = if negative {
            magnitude.wrapping_neg()
        } else {
            magnitude
        } as i64;
        if !(0..=LAST_SECOND).contains(&seconds) {
            return Err(format!("@{seconds} is outside the years 1970 to 2199"));
        }
        let days = seconds.div_euclid(86_400);
        let date = civil_from_days(days);
        let of_day = seconds.rem_euclid(86_400);
        spec.years = singles(&[date.year]);
        spec.months = singles(&[i64::from(date.month)]);
        spec.days = singles(&[i64::from(date.day)]);
        spec.hours = singles(&[of_day / 3600]);
        spec.minutes = singles(&[of_day / 60 % 60]);
        spec.seconds = singles(&[of_day % 60 * MICROS_PER_SECOND]);
        Ok(())
    }

    /// One or more decimal digits as an unsigned 64-bit number.
    fn digits(&mut self) -> Result<u64, String> {
        let begin = self.at;
        let mut value: u64 = 0;
        let mut overflow = false;
        while let Some(digit @ b'0'..=b'9') = self.peek() {
            match value
                .checked_mul(10)
                .and_then(|tens| tens.checked_add(u64::from(digit - b'0')))
            {
                Some(next) => value = next,
                None => overflow = true,
            }
            self.at += 1;
        }
        if self.at == begin {
            return Err(unreadable("a number is expected"));
        }
        if overflow {
            return Err("has a number too large to read".into());
        }
        Ok(value)
    }

    /// `HOUR:MINUTE[:SECOND]`, or nothing for midnight.
    fn time(&mut self, spec: &mut CalendarSpec) -> Result<(), String> {
        if self.at_end() {
            spec.hours = zeros();
            spec.minutes = zeros();
            spec.seconds = zeros();
            return Ok(());
        }
        let hours = self.list(false)?;
        self.expect_colon()?;
        let minutes = self.list(false)?;
        let seconds = if self.at_end() {
            zeros()
        } else {
            self.expect_colon()?;
            self.list(true)?
        };
        if !self.at_end() {
            return Err(unreadable("a time has at most three parts"));
        }
        spec.hours = hours;
        spec.minutes = minutes;
        spec.seconds = seconds;
        Ok(())
    }

    fn expect_colon(&mut self) -> Result<(), String> {
        if self.peek() != Some(b':') {
            return Err(unreadable("time parts are separated by `:`"));
        }
        self.at += 1;
        Ok(())
    }

    /// `*` or a comma-separated list of items. `*` is an empty list,
    /// except for seconds, where it is every whole second.
    fn list(&mut self, seconds: bool) -> Result<Vec<CalendarItem>, String> {
        if self.peek() == Some(b'*') {
            self.at += 1;
            return Ok(if seconds {
                vec![CalendarItem {
                    start: 0,
                    stop: None,
                    repeat: MICROS_PER_SECOND,
                }]
            } else {
                Vec::new()
            });
        }
        let mut items = Vec::new();
        loop {
            if items.len() > MOST_MORE_ITEMS {
                return Err(format!(
                    "has a list of more than {} items",
                    MOST_MORE_ITEMS + 1
                ));
            }
            items.push(self.item(seconds)?);
            if self.peek() != Some(b',') {
                return Ok(items);
            }
            self.at += 1;
        }
    }

    /// `a`, `a..b`, `a/r` or `a..b/r`.
    fn item(&mut self, seconds: bool) -> Result<CalendarItem, String> {
        let start = self.number(seconds)?;
        let mut stop = None;
        let mut repeat = 0;
        if self.peek() == Some(b'.') && self.peek_second() == Some(b'.') {
            self.at += 2;
            stop = Some(self.number(seconds)?);
            repeat = if seconds { MICROS_PER_SECOND } else { 1 };
        }
        if self.peek() == Some(b'/') {
            self.at += 1;
            repeat = self.number(seconds)?;
            if repeat == 0 {
                return Err("has a repeat of 0".into());
            }
        } else {
            if start > i64::from(i32::MAX) - repeat {
                return Err("has a number too large to read".into());
            }
            // Without a repeat, seconds step by a whole second, so a
            // range shorter than that is refused.
            if seconds && stop.is_some_and(|stop| start + repeat > stop) {
                return Err(unreadable("a range of seconds is shorter than 1 s"));
            }
        }
        if !matches!(self.peek(), None | Some(b' ' | b',' | b'-' | b'~' | b':')) {
            return Err(unreadable("a number runs into other text"));
        }
        Ok(CalendarItem {
            start,
            stop,
            repeat,
        })
    }

    /// A whole number; for seconds, in microseconds, with up to six
    /// decimals (a seventh of 5 or more rounds up, the rest are ignored).
    fn number(&mut self, seconds: bool) -> Result<i64, String> {
        if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
            return Err(unreadable("a number is expected"));
        }
        let mut value = self.digits()?;
        if seconds {
            value = value
                .checked_mul(MICROS_PER_SECOND as u64)
                .ok_or("has a number too large to read")?;
            if self.peek() == Some(b'.') && self.peek_second() != Some(b'.') {
                self.at += 1;
                value = value
                    .checked_add(self.fraction()?)
                    .ok_or("has a number too large to read")?;
            }
        }
        if value > i32::MAX as u64 {
            return Err("has a number too large to read".into());
        }
        Ok(value as i64)
    }

    /// The decimals after a point, in millionths.
    fn fraction(&mut self) -> Result<u64, String> {
        let mut millionths = 0u64;
        let mut read = 0;
        while read < 6 {
            match self.peek() {
                Some(digit @ b'0'..=b'9') => {
                    millionths = millionths * 10 + u64::from(digit - b'0');
                    self.at += 1;
                    read += 1;
                }
                _ if read == 0 => return Err(unreadable("a decimal point needs digits")),
                _ => {
                    millionths *= 10u64.pow(6 - read);
                    break;
                }
            }
        }
        if matches!(self.peek(), Some(b'5'..=b'9')) {
            millionths += 1;
        }
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
        Ok(millionths)
    }
}

impl CalendarSpec {
    /// What `calendar_spec_normalize()` does before validating.
    fn normalize(&mut self) {
        if self.weekdays.is_some_and(|bits| bits == 0 || bits >= 0x7f) {
            self.weekdays = None;
        }
        if self.days.is_empty() {
            self.end_of_month = false;
        }
        // Two-digit years: 12 is 2012, 89 is 1989.
        let full_year = |year: i64| match year {
            0..70 => year + 2000,
            70..100 => year + 1900,
            _ => year,
        };
        for item in &mut self.years {
            item.start = full_year(item.start);
            item.stop = item.stop.map(full_year);
        }
        for list in self.lists_mut() {
            for item in list.iter_mut() {
                normalize_item(item);
            }
        }
    }

    fn lists_mut(&mut self) -> [&mut Vec<CalendarItem>; 6] {
        [
            &mut self.years,
            &mut self.months,
            &mut self.days,
            &mut self.hours,
            &mut self.minutes,
            &mut self.seconds,
        ]
    }

    /// What `calendar_spec_valid()` checks.
    fn validate(&self) -> Result<(), String> {
        let checks = [
            ("year", &self.years, FIRST_YEAR, LAST_YEAR, false),
            ("month", &self.months, 1, 12, false),
            ("day", &self.days, 1, 31, self.end_of_month),
            ("hour", &self.hours, 0, 23, false),
            ("minute", &self.minutes, 0, 59, false),
            (
                "second",
                &self.seconds,
                0,
                60 * MICROS_PER_SECOND - 1,
                false,
            ),
        ];
        for (name, items, low, high, from_end) in checks {
            if !items
                .iter()
                .all(|item| item_valid(item, low, high, from_end))
            {
                return Err(format!(
                    "has a {name} outside what systemd accepts, or a repeat that never fires"
                ));
            }
        }
        Ok(())
    }
}

/// Shortens `stop` to the last value the repeat reaches, and makes an
/// item whose repeat can never fire a single value.
fn normalize_item(item: &mut CalendarItem) {
    if let Some(stop) = item.stop {
        if stop > item.start && item.repeat > 0 {
            let stop = stop - (stop - item.start) % item.repeat;
            item.stop = Some(stop);
            if item.start + item.repeat > stop {
                item.repeat = 0;
                item.stop = None;
            }
        }
        if item.stop == Some(item.start) {
            item.repeat = 0;
            item.stop = None;
        }
    }
}

/// `chain_valid()` for one item: in range, and a repeat that fires at
/// least once. Days from the month's end may count back 28 at most.
fn item_valid(item: &CalendarItem, low: i64, high: i64, from_end: bool) -> bool {
    let high = if from_end { high - 3 } else { high };
    if !(low..=high).contains(&item.start) || item.repeat > high - low {
        return false;
    }
    match item.stop {
        Some(stop) => (low..=high).contains(&stop) && item.start + item.repeat <= stop,
        None if from_end => item.start - item.repeat >= low,
        None => item.start + item.repeat <= high,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_other_than_utc_are_refused_by_name() {
        assert!(parse("daily utc").is_ok());
        assert!(parse("daily Etc/UTC").is_ok());
        assert!(
            parse("daily Europe/Berlin")
                .unwrap_err()
                .contains("Europe/Berlin")
        );
        assert!(parse("Mon 10:00 CET").unwrap_err().contains("CET"));
        assert!(!parse("Mon Tue").unwrap_err().contains("time zone"));
    }

    #[test]
    fn lists_stop_at_241_items() {
        let items = |count: usize| vec!["0"; count].join(",");
        assert!(parse(&format!("*:{}", items(241))).is_ok());
        assert!(parse(&format!("*:{}", items(242))).is_err());
    }

    #[test]
    fn shorthands_fix_what_is_below_their_period() {
        assert_eq!(parse("DAILY").unwrap().hours, zeros());
        assert_eq!(parse("weekly").unwrap().weekdays, Some(1));
        assert!(parse("midnight").is_err());
    }
}
