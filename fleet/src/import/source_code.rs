//! A program's source as the importers of scheduled methods and jobs read
//! it (Spring's `@Scheduled` in Java or Kotlin, APScheduler's calls in
//! Python): which bytes are code rather than a comment or the inside of a
//! string, where lines start and where each bracket closes. An importer
//! then walks words and calls, and a comment or a string that looks like
//! a call is never taken for one.
//!
//! Each language says which bytes are code ([`SourceCode::new`] takes the
//! mask); the walking is the same for both.

use std::collections::HashMap;
use std::ops::Range;

/// A source and which of its bytes are code. The quotes of a string stay
/// code, so a value's bounds are seen; what is between them is not.
pub struct SourceCode<'a> {
    pub text: &'a str,
    is_code: Vec<bool>,
    /// Where each line starts.
    line_starts: Vec<usize>,
    /// Where each bracket of code that opens is closed, found in one
    /// pass, so a paste of unclosed calls costs no more than its length.
    closes: HashMap<usize, usize>,
    /// The bytes besides ASCII letters and digits an identifier holds.
    word_bytes: &'static [u8],
}

impl<'a> SourceCode<'a> {
    /// `text`, with `is_code` true for each byte of code.
    pub fn new(text: &'a str, is_code: Vec<bool>, word_bytes: &'static [u8]) -> Self {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let (mut closes, mut open) = (HashMap::new(), Vec::new());
        let bytes = text.as_bytes();
        for (at, &byte) in bytes.iter().enumerate().filter(|(at, _)| is_code[*at]) {
            match byte {
                b'(' | b'[' | b'{' => open.push(at),
                b')' | b']' | b'}' => {
                    if let Some(start) = open.pop() {
                        closes.insert(start, at);
                    }
                }
                _ => {}
            }
        }
        Self {
            text,
            is_code,
            line_starts,
            closes,
            word_bytes,
        }
    }

    /// Whether byte `at` is code.
    pub fn is_code(&self, at: usize) -> bool {
        self.is_code[at]
    }

    /// The line, from 1, byte `at` is on.
    pub fn line_at(&self, at: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= at)
    }

    /// The next identifier of code from byte `from`.
    pub fn next_word(&self, from: usize) -> Option<Range<usize>> {
        let bytes = self.text.as_bytes();
        let is_word = |i: usize| {
            self.is_code[i]
                && (bytes[i].is_ascii_alphanumeric() || self.word_bytes.contains(&bytes[i]))
        };
        let start = (from..bytes.len()).find(|&i| is_word(i))?;
        let end = (start..bytes.len())
            .find(|&i| !is_word(i))
            .unwrap_or(bytes.len());
        Some(start..end)
    }

    /// The next byte of code from `from` that is not blank.
    pub fn next_mark(&self, from: usize) -> Option<usize> {
        let bytes = self.text.as_bytes();
        (from..bytes.len()).find(|&i| self.is_code[i] && !bytes[i].is_ascii_whitespace())
    }

    /// The bytes inside the parentheses that open at the next mark of
    /// code from `from`, if it is `(`.
    pub fn arguments(&self, from: usize) -> Option<Range<usize>> {
        let open = self
            .next_mark(from)
            .filter(|&i| self.text.as_bytes()[i] == b'(')?;
        self.closes.get(&open).map(|&close| open + 1..close)
    }

    /// `arguments` cut at its commas outside brackets.
    pub fn split_arguments(&self, arguments: Range<usize>) -> Vec<Range<usize>> {
        let bytes = self.text.as_bytes();
        let (mut parts, mut depth, mut start) = (Vec::new(), 0u32, arguments.start);
        for i in arguments.clone() {
            if !self.is_code[i] {
                continue;
            }
            match bytes[i] {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                b',' if depth == 0 => {
                    parts.push(start..i);
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(start..arguments.end);
        parts
    }

    /// The inside of `value` when it is one string literal between any of
    /// `quotes`, after one of `prefixes` (such as Python's `r`) if any.
    pub fn string(
        &self,
        value: Range<usize>,
        quotes: &[u8],
        prefixes: &[u8],
    ) -> Option<Range<usize>> {
        let text = &self.text[value.clone()];
        let start = value.start + (text.len() - text.trim_start().len());
        let end = value.start + text.trim_end().len();
        let bytes = self.text.as_bytes();
        let start = start + usize::from(bytes.get(start).is_some_and(|b| prefixes.contains(b)));
        let quoted = end > start + 1
            && quotes.contains(&bytes[start])
            && bytes[end - 1] == bytes[start]
            && (start + 1..end - 1).all(|i| !self.is_code[i]);
        quoted.then_some(start + 1..end - 1)
    }
}

/// How long the one-line string or character literal `rest` starts with
/// is, its quotes included: to the closing quote, past escapes, or to the
/// line's end when it is not closed; and whether it closes.
pub fn quoted_len(rest: &[u8]) -> (usize, bool) {
    let quote = rest[0];
    let mut at = 1;
    while at < rest.len() {
        match rest[at] {
            b'\\' => at += 2,
            b'\n' => return (at, false),
            byte if byte == quote => return (at + 1, true),
            _ => at += 1,
        }
    }
    (rest.len(), false)
}
