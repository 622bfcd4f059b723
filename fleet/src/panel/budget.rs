//! What the page reads without asking: a fleet's size, measured in one
//! pass before any work starts, so a link or a paste that could keep the
//! reader waiting for minutes is named instead, and read only on request.
//!
//! Every reader works line by line, so the bytes bound the work of the
//! whole text and the longest line the work of any one line. Real fleets
//! stay far below both limits: the samples' lines are under 200 bytes, and
//! the most a link may hold is [`MOST_TEXT_BYTES`]. A single line of a
//! megabyte of digits is no schedule, and no reader is written for it.

use std::fmt;

use crate::link::MOST_TEXT_BYTES;
use stampede_core::units::{count, counted};

/// The longest line read without asking: 4 KiB, some twenty times the
/// longest line of a crontab, a Jenkinsfile or a Temporal schedule in
/// JSON written by hand or by a tool.
pub const MOST_LINE_BYTES: usize = 4_096;

/// A text's size: its bytes, its lines and its longest line's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextSize {
    pub bytes: usize,
    pub lines: usize,
    pub longest_line: usize,
}

impl TextSize {
    /// Measures `text`, whose lines end in LF, CRLF or CR.
    pub fn of(text: &str) -> Self {
        let (mut lines, mut longest_line, mut line) = (0, 0, 0);
        let mut bytes = text.bytes().peekable();
        while let Some(byte) = bytes.next() {
            match byte {
                b'\r' | b'\n' => {
                    if byte == b'\r' && bytes.peek() == Some(&b'\n') {
                        bytes.next();
                    }
                    lines += 1;
                    longest_line = longest_line.max(line);
                    line = 0;
                }
                _ => line += 1,
            }
        }
        if line > 0 {
            lines += 1;
            longest_line = longest_line.max(line);
        }
        Self {
            bytes: text.len(),
            lines,
            longest_line,
        }
    }
}

/// A text past the budget: its size, and which limit it passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OverBudget(pub TextSize);

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let TextSize {
            bytes,
            lines,
            longest_line,
        } = self.0;
        let size = format!(
            "this fleet is {} in {}, the longest of {}",
            kilobytes(bytes),
            counted(lines as u64, "line", "lines"),
            counted(longest_line as u64, "byte", "bytes"),
        );
        if bytes > MOST_TEXT_BYTES {
            write!(
                f,
                "{size}: more than the {} the page reads without asking, and it could keep the page busy for minutes",
                kilobytes(MOST_TEXT_BYTES)
            )
        } else {
            write!(
                f,
                "{size}: no schedule needs a line of more than {} bytes, and reading one this long could keep the page busy for minutes",
                count(MOST_LINE_BYTES as u64)
            )
        }
    }
}

impl std::error::Error for OverBudget {}

/// `bytes` in KB of 1,024 bytes, rounded up, so no text reads as 0 KB.
fn kilobytes(bytes: usize) -> String {
    format!("{} KB", count(bytes.div_ceil(1024) as u64))
}

/// Whether the page may read `text` without asking.
pub fn check(text: &str) -> Result<TextSize, OverBudget> {
    let size = TextSize::of(text);
    if size.bytes > MOST_TEXT_BYTES || size.longest_line > MOST_LINE_BYTES {
        Err(OverBudget(size))
    } else {
        Ok(size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines_by_every_line_end() {
        let size = TextSize::of("a\r\nbb\rccc\n\ndddd");
        assert_eq!(size.lines, 5);
        assert_eq!(size.longest_line, 4);
        assert_eq!(TextSize::of("").lines, 0);
        assert_eq!(TextSize::of("x\n").lines, 1);
    }

    #[test]
    fn passes_a_large_real_fleet_and_names_a_line_of_digits() {
        let crontab: String = (0..10_000)
            .map(|i| format!("0 {} * * * /opt/jobs/report-{i:05}.sh\n", i % 24))
            .collect();
        assert!(check(&crontab).is_ok());
        let digits = "9".repeat(MOST_TEXT_BYTES);
        let why = check(&digits).unwrap_err().to_string();
        assert_eq!(
            why,
            "this fleet is 1,024 KB in 1 line, the longest of 1,048,576 bytes: no schedule needs a line of more than 4,096 bytes, and reading one this long could keep the page busy for minutes"
        );
        let long = "* * * * * x\n".repeat(MOST_TEXT_BYTES / 12 + 1);
        assert!(
            check(&long)
                .unwrap_err()
                .to_string()
                .contains("more than the 1,024 KB the page reads without asking")
        );
    }
}
