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

use super::super::file::System;
use super::NativeTranslation;

/// The comment that names the job of the triggers after it.
pub const JOB_MARK: &str = "// job:";

/// The name a trigger before any [`JOB_MARK`] is read as.
pub const DEFAULT_JOB: &str = "Jenkinsfile";

/// A Groovy token, as far as triggers need one.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Word(String),
    Punct(char),
    /// A string's text, cut into the lines of the spec it holds. `built`
    /// when it interpolates.
    Text {
        lines: Vec<SpecText>,
        built: bool,
    },
    Job(String),
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
pub fn translate(text: &str) -> NativeTranslation {
    let mut out = NativeTranslation::default();
    let tokens = tokens(text);
    let mut job: Option<&str> = None;
    for (index, (line, token)) in tokens.iter().enumerate() {
        match token {
            Token::Job(name) => job = Some(name.as_str()).filter(|name| !name.is_empty()),
            Token::Word(word) if word == "cron" => {
                let after_dot = index > 0 && tokens[index - 1].1 == Token::Punct('.');
                if !after_dot {
                    trigger(&tokens[index + 1..], *line, job, &mut out);
                }
            }
            _ => {}
        }
    }
    out
}

/// Reads the trigger whose `cron` word is on `line` and whose tokens
/// follow in `rest`.
fn trigger(rest: &[(usize, Token)], line: usize, job: Option<&str>, out: &mut NativeTranslation) {
    let mut rest = rest.iter().map(|(_, token)| token).peekable();
    let called = rest.next_if_eq(&&Token::Punct('(')).is_some();
    if called
        && rest
            .next_if(|token| **token == Token::Word("spec".into()))
            .is_some()
    {
        rest.next_if_eq(&&Token::Punct(':'));
    }
    let (lines, built) = match rest.next() {
        Some(Token::Text { lines, built }) => (lines, *built),
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
    let spec_lines = lines.iter().map(|spec| SpecLine {
        line: spec.line,
        text: spec.text.clone(),
        source: Some(spec.source.clone()),
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
fn tokens(text: &str) -> Vec<(usize, Token)> {
    let chars: Vec<char> = text.chars().collect();
    // The byte each character starts at, and the text's end.
    let bytes: Vec<usize> = text
        .char_indices()
        .map(|(at, _)| at)
        .chain([text.len()])
        .collect();
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut at = 0;
    while let Some(&c) = chars.get(at) {
        let next = chars.get(at + 1).copied();
        if c == '\n' {
            line += 1;
            at += 1;
        } else if c.is_whitespace() {
            at += 1;
        } else if c == '/' && next == Some('/') {
            let end = chars[at..]
                .iter()
                .position(|&c| c == '\n')
                .map_or(chars.len(), |end| at + end);
            let comment: String = chars[at..end].iter().collect();
            if let Some(name) = comment.trim_end().strip_prefix(JOB_MARK) {
                tokens.push((line, Token::Job(name.trim().to_string())));
            }
            at = end;
        } else if c == '/' && next == Some('*') {
            at += 2;
            while at < chars.len() && !(chars[at] == '*' && chars.get(at + 1) == Some(&'/')) {
                line += usize::from(chars[at] == '\n');
                at += 1;
            }
            at += 2;
        } else if c == '\'' || c == '"' {
            let (token, end, end_line) = string(&chars, &bytes, at, line);
            tokens.push((line, token));
            at = end;
            line = end_line;
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let end = chars[at..]
                .iter()
                .position(|&c| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .map_or(chars.len(), |end| at + end);
            tokens.push((line, Token::Word(chars[at..end].iter().collect())));
            at = end;
        } else {
            tokens.push((line, Token::Punct(c)));
            at += 1;
        }
    }
    tokens
}

/// The string starting at `chars[at]` on `line`: its token, the index
/// after it and the line it ends on. An unterminated string runs to the
/// end of the text. `bytes` holds the byte each character starts at.
fn string(chars: &[char], bytes: &[usize], at: usize, mut line: usize) -> (Token, usize, usize) {
    let quote = chars[at];
    let triple = chars.get(at + 1) == Some(&quote) && chars.get(at + 2) == Some(&quote);
    let mut at = at + if triple { 3 } else { 1 };
    let byte = |at: usize| bytes[at.min(chars.len())];
    let new_line = |line: usize, from: usize| SpecText {
        line,
        text: String::new(),
        source: byte(from)..byte(from),
    };
    let mut lines = vec![new_line(line, at)];
    let mut built = false;
    let closes = |at: usize| {
        chars.get(at) == Some(&quote)
            && (!triple || (chars.get(at + 1) == Some(&quote) && chars.get(at + 2) == Some(&quote)))
    };
    while at < chars.len() && !closes(at) {
        let c = chars[at];
        at += 1;
        let Some(current) = lines.last_mut() else {
            break;
        };
        current.source.end = byte(at - 1);
        let current = &mut current.text;
        match c {
            '\\' => {
                let escaped = chars.get(at).copied();
                at += 1;
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
            '$' if quote == '"' => {
                let next = chars.get(at).copied();
                built |=
                    next.is_some_and(|next| next == '{' || next.is_alphabetic() || next == '_');
                current.push(c);
            }
            _ => current.push(c),
        }
    }
    if let Some(last) = lines.last_mut() {
        last.source.end = last.source.end.max(byte(at));
    }
    let end = if at < chars.len() {
        at + if triple { 3 } else { 1 }
    } else {
        at
    };
    (Token::Text { lines, built }, end.min(chars.len()), line)
}

#[cfg(test)]
mod tests {
    use super::*;

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
