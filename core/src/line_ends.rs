//! Text as a reader's editor shows it, before any reader splits it.
//!
//! LF, CRLF and a CR alone (classic Mac files, some spreadsheet exports)
//! each end a line, and a UTF-8 byte order mark is not text. The readers
//! split lines with [`str::lines`], which knows LF and CRLF, so
//! [`normalise`] drops the mark and turns each lone CR into LF once, at
//! the entry, and every line number stays the one the reader's editor
//! shows. [`Normalised::restore`] puts a text written back from the
//! normalised one into the input's own form.
//!
//! ```
//! use stampede_core::line_ends::normalise;
//!
//! let read = normalise("\u{feff}0 1 * * * a\r0 2 * * * b\r");
//! assert_eq!(read.text.lines().count(), 2);
//! assert_eq!(read.restore(read.text.to_string()), "\u{feff}0 1 * * * a\r0 2 * * * b\r");
//! ```

use std::borrow::Cow;

const BOM: char = '\u{feff}';

/// A text with its mark dropped and its lone CRs made LF.
pub struct Normalised<'a> {
    pub text: Cow<'a, str>,
    bom: bool,
    /// The lines (from 0) that ended in a CR alone, in order.
    lone_cr_lines: Vec<usize>,
}

/// `text` with a leading BOM dropped and each CR not followed by LF made
/// LF.
pub fn normalise(text: &str) -> Normalised<'_> {
    let bom = text.starts_with(BOM);
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let bytes = text.as_bytes();
    let lone_cr = |at: usize| bytes[at] == b'\r' && bytes.get(at + 1) != Some(&b'\n');
    if !(0..bytes.len()).any(lone_cr) {
        return Normalised {
            text: Cow::Borrowed(text),
            bom,
            lone_cr_lines: Vec::new(),
        };
    }
    let mut owned = bytes.to_vec();
    let mut lone_cr_lines = Vec::new();
    let mut line = 0;
    for (at, byte) in owned.iter_mut().enumerate() {
        if lone_cr(at) {
            *byte = b'\n';
            lone_cr_lines.push(line);
        }
        line += usize::from(*byte == b'\n');
    }
    // Only an ASCII byte changed for another.
    let text = String::from_utf8(owned).expect("still UTF-8");
    Normalised {
        text: Cow::Owned(text),
        bom,
        lone_cr_lines,
    }
}

impl Normalised<'_> {
    /// `written`, a text written from the normalised one, in the input's
    /// form: its mark again, and a CR alone again at the end of each line
    /// that had one. Where the writing added or removed lines, the line
    /// ends are the input's only if all of them were lone CRs; otherwise
    /// those lines end in LF.
    pub fn restore(&self, written: String) -> String {
        let mut written = written.into_bytes();
        let line_ends = |bytes: &[u8]| bytes.iter().filter(|&&b| b == b'\n').count();
        let ends_read = line_ends(self.text.as_bytes());
        let same_lines = line_ends(&written) == ends_read;
        let cr_only = !self.lone_cr_lines.is_empty() && self.lone_cr_lines.len() == ends_read;
        if same_lines || cr_only {
            let mut ends = self.lone_cr_lines.iter().peekable();
            let mut line = 0;
            for byte in &mut written {
                if *byte != b'\n' {
                    continue;
                }
                if cr_only || ends.next_if_eq(&&line).is_some() {
                    *byte = b'\r';
                }
                line += 1;
            }
        }
        // Only an ASCII byte changed for another.
        let written = String::from_utf8(written).expect("still UTF-8");
        if self.bom {
            format!("{BOM}{written}")
        } else {
            written
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_end_ends_a_line_and_the_mark_is_not_text() {
        for (text, lines) in [
            ("a\nb\nc", vec!["a", "b", "c"]),
            ("a\r\nb\r\nc\r\n", vec!["a", "b", "c"]),
            ("a\rb\rc\r", vec!["a", "b", "c"]),
            ("a\r\nb\rc\n\rd", vec!["a", "b", "c", "", "d"]),
            ("\u{feff}a\nb", vec!["a", "b"]),
            ("\u{feff}", vec![]),
        ] {
            let read = normalise(text);
            assert_eq!(read.text.lines().collect::<Vec<_>>(), lines, "{text:?}");
        }
    }

    #[test]
    fn a_text_written_back_keeps_the_inputs_form() {
        for text in ["a\rb\r", "\u{feff}a\r\nb\r\n", "a\nb", "\u{feff}a\rb"] {
            let read = normalise(text);
            assert_eq!(read.restore(read.text.to_string()), text);
        }
        // Mixed: each line keeps its own end while the lines stay.
        let read = normalise("a\r\nb\rc\n\r");
        assert_eq!(read.restore(read.text.to_string()), "a\r\nb\rc\n\r");
        assert_eq!(read.restore("A\r\nB\nC\n\n".into()), "A\r\nB\rC\n\r");
        // A line added: the lone CR is now LF.
        assert_eq!(read.restore("a\r\nb\nx\nc\n\n".into()), "a\r\nb\nx\nc\n\n");
    }

    #[test]
    fn a_text_without_either_is_borrowed() {
        assert!(matches!(normalise("a\r\nb\n").text, Cow::Borrowed(_)));
    }
}
