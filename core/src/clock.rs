//! A time of day as a reader writes it on a 24-hour clock: `02:00`.

use std::fmt;

use crate::field::{Field, FieldValue};

/// Minutes after midnight, written `HH:MM`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockTime(u16);

impl ClockTime {
    pub const MIDNIGHT: ClockTime = ClockTime(0);

    /// The time `hour`:`minute`, when both are on the clock.
    pub fn new(hour: u32, minute: u32) -> Option<Self> {
        (hour < 24 && minute < 60).then(|| Self((hour * 60 + minute) as u16))
    }

    pub fn hour(self) -> u32 {
        u32::from(self.0) / 60
    }

    pub fn minute(self) -> u32 {
        u32::from(self.0) % 60
    }

    /// Seconds after midnight.
    pub fn seconds(self) -> u64 {
        u64::from(self.0) * 60
    }
}

impl fmt::Display for ClockTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.encode())
    }
}

impl FieldValue for ClockTime {
    /// Reads `H`, `HH`, `H:MM` or `HH:MM`.
    fn parse(raw: &str, _field: &Field) -> Result<(Self, Option<String>), String> {
        let text = raw.trim();
        let (hour, minute) = text.split_once(':').unwrap_or((text, "00"));
        let number = |digits: &str| {
            (!digits.is_empty() && digits.len() <= 2 && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| digits.parse::<u32>().ok())
                .flatten()
        };
        number(hour)
            .zip(number(minute).filter(|_| minute.len() == 2))
            .and_then(|(hour, minute)| Self::new(hour, minute))
            .map(|time| (time, None))
            .ok_or_else(|| {
                format!(
                    "\"{}\" is not a time of day: write HH:MM, from 00:00 to 23:59",
                    crate::field::shorten(text)
                )
            })
    }

    fn encode(&self) -> String {
        crate::units::clock(self.seconds() as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELD: Field = Field::text("at", "Start", 5, "02:00");

    fn read(raw: &str) -> Result<String, String> {
        ClockTime::parse(raw, &FIELD).map(|(time, _)| time.to_string())
    }

    #[test]
    fn reads_the_ways_a_reader_writes_a_time() {
        assert_eq!(read("02:00"), Ok("02:00".into()));
        assert_eq!(read(" 2:30 "), Ok("02:30".into()));
        assert_eq!(read("14"), Ok("14:00".into()));
        assert_eq!(read("23:59"), Ok("23:59".into()));
        for bad in ["24:00", "2:60", "2:5", "-1", "", "2:00pm", "1:2:3", "٣:00"] {
            let why = read(bad).unwrap_err();
            assert!(why.contains("not a time of day"), "{bad}: {why}");
        }
    }
}
