//! Jenkinsfiles, read as `jenkins` fleet lines.
//!
//! A cron trigger is the word `cron` and a Groovy string, with or without
//! parentheses and the `spec:` name: `cron('H 2 * * *')`,
//! `triggers { cron "H/15 * * * *" }`, `cron(spec: '@daily')`. As in
//! Jenkins, a spec may hold several lines (a triple-quoted string, or
//! `\n` in a one-line one), each a spec of its own; blank lines and `#`
//! lines are passed over, and a `TZ=zone` line sets the zone of the lines
//! after it. Each spec line becomes one line, on the native line it sits
//! on. Comments are skipped, so a trigger commented out is not read; a
//! spec built at run time (`"${…}"`, a variable) is skipped with a notice.
//!
//! Several Jenkinsfiles go in one paste with a line `// job: folder/name`
//! before each: the job's full name, which Jenkins hashes into every `H`,
//! so it must be the name Jenkins knows the job by (folders included). A
//! trigger before any such line is read as job `Jenkinsfile`, with a note
//! that its `H` fields hash that name. Lines are placed in UTC, so a spec
//! line after a `TZ=` of another zone is skipped.

use std::ops::Range;

use super::NativeTranslation;
use crate::line::System;

/// The comment that names the job of the triggers after it.
pub const JOB_MARK: &str = "// job:";

/// The name a trigger before any [`JOB_MARK`] is read as.
pub const DEFAULT_JOB: &str = "Jenkinsfile";

/// A Groovy token, as far as triggers need one.
#[derive(Clone, Debug, PartialEq)]
enum Token<'a> {
    Word(&'a str),
    Punct(char),
    /// A string's text, cut into the lines of the spec it holds. `built`
    /// when it interpolates.
    Text {
        lines: Vec<SpecText>,
        built: bool,
    },
    Job(&'a str),
}

/// One line of a spec string.
#[derive(Clone, Debug, PartialEq)]
struct SpecText {
    /// The native line it starts on.
    line: usize,
    /// Its text, escapes read.
    text: String,
    /// The bytes it is written in, escapes as written.
    source: Range<usize>,
}

/// Translates Jenkinsfiles into fleet lines.
///
/// The tokens are read as they come, never held all at once: a paste of
/// Jenkinsfiles can be as large as the text a reader has, and only a
/// trigger's few tokens after `cron` are looked at ahead.
pub fn translate(text: &str) -> NativeTranslation {
    let mut out = NativeTranslation::default();
    let mut tokens = Tokens {
        text,
        at: 0,
        line: 1,
    };
    let mut job: Option<&str> = None;
    let mut after_dot = false;
    while let Some((line, token)) = tokens.next() {
        match token {
            Token::Job(name) => job = Some(name).filter(|name| !name.is_empty()),
            Token::Word("cron") if !after_dot => trigger(tokens.clone(), line, job, &mut out),
            _ => {}
        }
        after_dot = token == Token::Punct('.');
    }
    out
}

/// Reads the trigger whose `cron` word is on `line` and whose tokens
/// follow in `rest`.
fn trigger(rest: Tokens<'_>, line: usize, job: Option<&str>, out: &mut NativeTranslation) {
    let mut rest = rest.map(|(_, token)| token).peekable();
    let called = rest.next_if_eq(&Token::Punct('(')).is_some();
    if called && rest.next_if_eq(&Token::Word("spec")).is_some() {
        rest.next_if_eq(&Token::Punct(':'));
    }
    let (lines, built) = match rest.next() {
        Some(Token::Text { lines, built }) => (lines, built),
        _ if called => {
            out.skip(
                line,
                "spec",
                "the cron trigger's spec is not a string written in the file",
            );
            return;
        }
        // `cron` as a plain word, not a trigger.
        _ => return,
    };
    if built {
        out.skip(
            line,
            "spec",
            "the spec is built at run time (${…} or $name), so it cannot be read here",
        );
        return;
    }
    let spec_lines = lines.into_iter().map(|spec| SpecLine {
        line: spec.line,
        text: spec.text,
        source: Some(spec.source),
    });
    for spec_line in read_spec(spec_lines, job, out) {
        if job.is_none() {
            out.note(spec_line, format!("no \"{JOB_MARK} folder/name\" line names this job, so its H fields hash the name {DEFAULT_JOB}"));
        }
    }
}

/// One line of a timer's spec text.
pub(crate) struct SpecLine {
    /// Its line in the paste.
    pub(crate) line: usize,
    /// Its text, escapes read.
    pub(crate) text: String,
    /// The bytes it is written in, when a fix can write there.
    pub(crate) source: Option<Range<usize>>,
}

/// Reads the lines of one timer's spec as Jenkins does: blank and `#`
/// lines passed over, `TZ=` setting the zone of the lines after it, every
/// other line a spec of job `job` ([`DEFAULT_JOB`] when `None`). Returns
/// the lines that gave a fleet line.
pub(crate) fn read_spec(
    lines: impl IntoIterator<Item = SpecLine>,
    job: Option<&str>,
    out: &mut NativeTranslation,
) -> Vec<usize> {
    let mut zone: Option<String> = None;
    let mut read = Vec::new();
    for SpecLine { line, text, source } in lines {
        let spec = text.trim();
        if spec.is_empty() || spec.starts_with('#') {
            continue;
        }
        if let Some(given) = spec.strip_prefix("TZ=") {
            zone = Some(given.trim())
                .filter(|zone| !matches!(*zone, "UTC" | "Etc/UTC" | "GMT"))
                .map(str::to_string);
            continue;
        }
        if let Some(zone) = &zone {
            out.skip(
                line,
                "TZ",
                format!("jenkins lines are placed in UTC, so a spec in {zone} is not read"),
            );
            continue;
        }
        out.push_at(
            source,
            line,
            System::Jenkins,
            job.unwrap_or(DEFAULT_JOB),
            spec,
            &[],
        );
        read.push(line);
    }
    read
}

/// The tokens of Groovy text that triggers are made of, each with its
/// line; comments are dropped except [`JOB_MARK`] lines.
#[derive(Clone)]
struct Tokens<'a> {
    text: &'a str,
    /// The byte the next token is looked for at.
    at: usize,
    line: usize,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = (usize, Token<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let text = self.text;
        let bytes = text.as_bytes();
        loop {
            let c = text.get(self.at..)?.chars().next()?;
            let next = bytes.get(self.at + 1).copied();
            if c == '\n' {
                self.line += 1;
                self.at += 1;
            } else if c.is_whitespace() {
                self.at += c.len_utf8();
            } else if c == '/' && next == Some(b'/') {
                let end = text[self.at..]
                    .find('\n')
                    .map_or(text.len(), |end| self.at + end);
                let comment = &text[self.at..end];
                self.at = end;
                if let Some(name) = comment.trim_end().strip_prefix(JOB_MARK) {
                    return Some((self.line, Token::Job(name.trim())));
                }
            } else if c == '/' && next == Some(b'*') {
                let body = &text[self.at + 2..];
                let end = body.find("*/").map_or(body.len(), |end| end + 2);
                self.line += body.as_bytes()[..end.min(body.len())]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
                self.at += 2 + end;
            } else if c == '\'' || c == '"' {
                let line = self.line;
                let (token, end, end_line) = string(text, self.at, line);
                self.at = end;
                self.line = end_line;
                return Some((line, token));
            } else if c.is_alphanumeric() || c == '_' || c == '$' {
                let end = text[self.at..]
                    .char_indices()
                    .find(|&(_, c)| !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .map_or(text.len(), |(end, _)| self.at + end);
                let word = &text[self.at..end];
                self.at = end;
                return Some((self.line, Token::Word(word)));
            } else {
                self.at += c.len_utf8();
                return Some((self.line, Token::Punct(c)));
            }
        }
    }
}

/// The string whose quote is at byte `start` of `text`, on `line`: its
/// token, the byte after it and the line it ends on. An unterminated
/// string runs to the end of the text.
fn string(text: &str, start: usize, mut line: usize) -> (Token<'_>, usize, usize) {
    let bytes = text.as_bytes();
    let quote = bytes[start];
    let triple = bytes.get(start + 1) == Some(&quote) && bytes.get(start + 2) == Some(&quote);
    let mut at = start + if triple { 3 } else { 1 };
    let new_line = |line: usize, from: usize| SpecText {
        line,
        text: String::new(),
        source: from..from,
    };
    let mut lines = vec![new_line(line, at)];
    let mut built = false;
    let closes = |at: usize| {
        bytes.get(at) == Some(&quote)
            && (!triple || (bytes.get(at + 1) == Some(&quote) && bytes.get(at + 2) == Some(&quote)))
    };
    let char_at = |at: usize| text.get(at..).and_then(|rest| rest.chars().next());
    while let Some(c) = char_at(at).filter(|_| !closes(at)) {
        let Some(current) = lines.last_mut() else {
            break;
        };
        current.source.end = at;
        at += c.len_utf8();
        let current = &mut current.text;
        match c {
            '\\' => {
                let escaped = char_at(at);
                at += escaped.map_or(0, char::len_utf8);
                match escaped {
                    Some('n') => lines.push(new_line(line, at)),
                    Some('t') => current.push('\t'),
                    // A backslash before a line break joins the lines.
                    Some('\n') => line += 1,
                    Some(other) => current.push(other),
                    None => {}
                }
            }
            '\n' => {
                line += 1;
                lines.push(new_line(line, at));
            }
            '$' if quote == b'"' => {
                let next = char_at(at);
                built |=
                    next.is_some_and(|next| next == '{' || next.is_alphabetic() || next == '_');
                current.push(c);
            }
            _ => current.push(c),
        }
    }
    if let Some(last) = lines.last_mut() {
        last.source.end = last.source.end.max(at);
    }
    let end = if at < text.len() {
        at + if triple { 3 } else { 1 }
    } else {
        at
    };
    (Token::Text { lines, built }, end.min(text.len()), line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<(usize, Token<'_>)> {
        Tokens {
            text,
            at: 0,
            line: 1,
        }
        .collect()
    }

    #[test]
    fn strings_split_into_spec_lines() {
        let text = "cron('''\nH 2 * * *\n  H 3 * * *''')\n";
        let read = tokens(text);
        let Token::Text { lines, built } = &read[2].1 else {
            panic!("no string: {read:?}");
        };
        assert!(!built);
        let lines: Vec<(usize, &str, &str)> = lines
            .iter()
            .map(|spec| (spec.line, spec.text.as_str(), &text[spec.source.clone()]))
            .collect();
        assert_eq!(
            lines,
            [
                (1, "", ""),
                (2, "H 2 * * *", "H 2 * * *"),
                (3, "  H 3 * * *", "  H 3 * * *")
            ]
        );
        let text = "x = \"a\\nb\\t ${y}\"";
        let Token::Text { lines, built } = &tokens(text)[2].1 else {
            panic!("no string");
        };
        assert!(built);
        let lines: Vec<(&str, &str)> = lines
            .iter()
            .map(|spec| (spec.text.as_str(), &text[spec.source.clone()]))
            .collect();
        assert_eq!(lines, [("a", "a"), ("b\t ${y}", "b\\t ${y}")]);
    }
}
