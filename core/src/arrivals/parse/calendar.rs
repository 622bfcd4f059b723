//! The fields of an RFC 3339 timestamp checked one by one, so that a row
//! no calendar or zone could have is refused naming the field at fault.
//!
//! jiff refuses impossible dates and clock times but says so in its own
//! words, and reads offsets up to ±25:59, which moves a row by hours: no
//! zone has ever been beyond ±14:00 (Kiribati's Line Islands). A text not
//! laid out as `YYYY-MM-DD[T ]HH:MM[:SS][.f](Z|±HH[:MM[:SS]])` is left to
//! jiff, which refuses it as a whole.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::RowRefusal;

/// The widest offset from UTC any zone uses, in seconds.
pub const WIDEST_OFFSET_S: i32 = 14 * 3_600;

/// A field of a date or a clock time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TimeField {
    Month,
    Day,
    Hour,
    Minute,
    /// Up to 60, a leap second.
    Second,
}

impl TimeField {
    /// The least and the most any calendar gives it.
    pub fn range(self) -> (u8, u8) {
        match self {
            Self::Month => (1, 12),
            Self::Day => (1, 31),
            Self::Hour => (0, 23),
            Self::Minute => (0, 59),
            Self::Second => (0, 60),
        }
    }
}

impl fmt::Display for TimeField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Month => "month",
            Self::Day => "day",
            Self::Hour => "hour",
            Self::Minute => "minute",
            Self::Second => "second",
        })
    }
}

/// An offset from UTC in seconds, as "+25:00" or "-14:30:15".
pub(super) struct Offset(pub(super) i32);

impl fmt::Display for Offset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { '-' } else { '+' };
        let s = self.0.unsigned_abs();
        write!(f, "{sign}{:02}:{:02}", s / 3_600, s / 60 % 60)?;
        match s % 60 {
            0 => Ok(()),
            seconds => write!(f, ":{seconds:02}"),
        }
    }
}

/// The first field of `text` that no calendar or zone has, when `text` is
/// laid out as RFC 3339; None when every field is possible or the layout
/// is another, for jiff to judge.
pub(super) fn impossible_field(text: &str) -> Option<RowRefusal> {
    let mut at = Cursor(text.as_bytes());
    let year = at.digits(4)?;
    at.byte(b"-")?;
    let month = at.digits(2)?;
    at.byte(b"-")?;
    let day = at.digits(2)?;
    at.byte(b"Tt ")?;
    let hour = at.digits(2)?;
    at.byte(b":")?;
    let minute = at.digits(2)?;
    let second = at.byte(b":").and_then(|()| at.digits(2)).unwrap_or(0);
    if at.byte(b".,").is_some() {
        while at.digits(1).is_some() {}
    }
    let outside = |field: TimeField, value: u32| {
        let (least, most) = field.range();
        (!(u32::from(least)..=u32::from(most)).contains(&value)).then_some(
            RowRefusal::NoSuchField {
                field,
                value: value as u8,
            },
        )
    };
    let refusal = outside(TimeField::Month, month)
        .or_else(|| outside(TimeField::Day, day))
        .or_else(|| {
            let last = days_in(year, month);
            (day > last).then_some(RowRefusal::NoSuchDay {
                year: year as u16,
                month: month as u8,
                day: day as u8,
            })
        })
        .or_else(|| outside(TimeField::Hour, hour))
        .or_else(|| outside(TimeField::Minute, minute))
        .or_else(|| outside(TimeField::Second, second));
    refusal.or_else(|| {
        let offset = at.offset()?;
        (offset.abs() > WIDEST_OFFSET_S).then_some(RowRefusal::OffsetBeyondZones(offset))
    })
}

/// The days of `month` (1 to 12) in `year`, Gregorian.
pub(super) fn days_in(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The bytes still to read.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    /// `n` ASCII digits as a number.
    fn digits(&mut self, n: usize) -> Option<u32> {
        let (head, rest) = self.0.split_at_checked(n)?;
        let mut value = 0;
        for &b in head {
            value = value * 10 + u32::from(b.checked_sub(b'0').filter(|d| *d <= 9)?);
        }
        self.0 = rest;
        Some(value)
    }

    /// One byte of `any`.
    fn byte(&mut self, any: &[u8]) -> Option<()> {
        let bytes: &'a [u8] = self.0;
        let (&first, rest) = bytes.split_first()?;
        any.contains(&first).then(|| self.0 = rest)
    }

    /// A numeric offset in seconds, "±HH[[:]MM[[:]SS]]"; None for "Z" or
    /// anything else.
    fn offset(&mut self) -> Option<i32> {
        let sign = match self.0.first()? {
            b'+' => 1,
            b'-' => -1,
            _ => return None,
        };
        self.0 = &self.0[1..];
        let mut seconds = self.digits(2)? * 3_600;
        for scale in [60, 1] {
            let _ = self.byte(b":");
            match self.digits(2) {
                Some(part) => seconds += part * scale,
                None => break,
            }
        }
        Some(sign * seconds as i32)
    }
}
