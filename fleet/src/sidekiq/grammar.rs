//! fugit 1.5.2's cron grammar (the `Parser` module of
//! `lib/fugit/cron.rb`), one piece at a time: each pattern it reads a
//! value, a step, a `#n`, a `%m+k` or a zone with matches here as the
//! Ruby regular expression matches at that point, and a list or a string
//! takes what fugit's parser (raabro, a PEG) takes, choices in its order
//! and without going back on one made. What the pieces mean is
//! [`super::fugit`]'s.

use std::ops::Range;

/// The field kinds, by the pattern fugit reads their values with.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Second,
    Minute,
    Hour,
    MonthDay,
    Month,
    WeekDay,
}

impl Kind {
    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Second => "second",
            Self::Minute => "minute",
            Self::Hour => "hour",
            Self::MonthDay => "day of month",
            Self::Month => "month",
            Self::WeekDay => "day of week",
        }
    }

    pub(super) fn range(self) -> (i32, i32) {
        match self {
            Self::Second | Self::Minute => (0, 59),
            Self::Hour => (0, 23),
            Self::MonthDay => (1, 31),
            Self::Month => (1, 12),
            Self::WeekDay => (0, 6),
        }
    }
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const DAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

/// One list element as fugit's parser gives it: from, to, step, `#n`,
/// `%m+k`.
#[derive(Default)]
pub(super) struct Element {
    pub(super) from: Option<i32>,
    pub(super) to: Option<i32>,
    pub(super) step: Option<u32>,
    pub(super) nth: Option<i32>,
    pub(super) modulo: Option<(u64, u64)>,
}

fn digit(bytes: &[u8], at: usize, range: std::ops::RangeInclusive<u8>) -> bool {
    bytes.get(at).is_some_and(|b| range.contains(b))
}

/// The position of `name` among `names` when `text` starts with it, in
/// any case.
fn name_at(text: &[u8], names: &[&str]) -> Option<usize> {
    let head = text.get(..3)?;
    names
        .iter()
        .position(|name| head.eq_ignore_ascii_case(name.as_bytes()))
}

/// The length and value of the bound `kind` reads at the start of `text`,
/// as fugit's patterns for it match there.
fn bound(kind: Kind, text: &[u8]) -> Option<(usize, i32)> {
    let number = |len: usize| -> Option<(usize, i32)> {
        Some((len, std::str::from_utf8(&text[..len]).ok()?.parse().ok()?))
    };
    match kind {
        Kind::Second | Kind::Minute => {
            if digit(text, 0, b'0'..=b'5') && digit(text, 1, b'0'..=b'9') {
                number(2)
            } else if digit(text, 0, b'0'..=b'9') {
                number(1)
            } else {
                None
            }
        }
        Kind::Hour => {
            let two = (digit(text, 0, b'2'..=b'2') && digit(text, 1, b'0'..=b'4'))
                || (digit(text, 0, b'0'..=b'1') && digit(text, 1, b'0'..=b'9'));
            if two {
                number(2)
            } else if digit(text, 0, b'0'..=b'9') {
                number(1)
            } else {
                None
            }
        }
        Kind::MonthDay => {
            let signed = usize::from(text.first() == Some(&b'-'));
            let at = signed;
            let len = if (digit(text, at, b'3'..=b'3') && digit(text, at + 1, b'0'..=b'1'))
                || (digit(text, at, b'1'..=b'2') && digit(text, at + 1, b'0'..=b'9'))
                || (digit(text, at, b'0'..=b'0') && digit(text, at + 1, b'1'..=b'9'))
            {
                2
            } else if digit(text, at, b'1'..=b'9') {
                1
            } else if signed == 0 && text.len() >= 4 && text[..4].eq_ignore_ascii_case(b"last") {
                return Some((4, -1));
            } else if signed == 0 && text.first().is_some_and(|b| b.eq_ignore_ascii_case(&b'l')) {
                return Some((1, -1));
            } else {
                return None;
            };
            number(signed + len)
        }
        Kind::Month => {
            if digit(text, 0, b'1'..=b'1') && digit(text, 1, b'0'..=b'2')
                || digit(text, 0, b'0'..=b'0') && digit(text, 1, b'1'..=b'9')
            {
                number(2)
            } else if digit(text, 0, b'1'..=b'9') {
                number(1)
            } else {
                name_at(text, &MONTHS).map(|at| (3, at as i32 + 1))
            }
        }
        Kind::WeekDay => {
            if digit(text, 0, b'0'..=b'7') {
                number(1)
            } else {
                name_at(text, &DAYS).map(|at| (3, at as i32))
            }
        }
    }
}

/// `/n`, one or two digits, at the start of `text`.
fn slash(text: &[u8]) -> Option<(usize, u32)> {
    if text.first() != Some(&b'/') || !digit(text, 1, b'0'..=b'9') {
        return None;
    }
    let len = if digit(text, 2, b'0'..=b'9') { 3 } else { 2 };
    Some((len, std::str::from_utf8(&text[1..len]).ok()?.parse().ok()?))
}

/// The digits at the start of `text`, and their value (saturated).
fn digits(text: &[u8]) -> (usize, u64) {
    let len = text.iter().take_while(|b| b.is_ascii_digit()).count();
    let value = text[..len].iter().fold(0u64, |value, b| {
        value.saturating_mul(10).saturating_add(u64::from(b - b'0'))
    });
    (len, value)
}

/// A day-of-week `#n` or `%m+k` after the weekday at the start of `text`.
fn week_mark(text: &[u8], element: &mut Element) -> usize {
    match text.first() {
        Some(b'#') => {
            let rest = &text[1..];
            let signed = rest.first() == Some(&b'-');
            if digit(rest, usize::from(signed), b'1'..=b'5') {
                let value = i32::from(rest[usize::from(signed)] - b'0');
                element.nth = Some(if signed { -value } else { value });
                return 2 + usize::from(signed);
            }
            if rest.len() >= 4 && rest[..4].eq_ignore_ascii_case(b"last") {
                element.nth = Some(-1);
                return 5;
            }
            if rest.first().is_some_and(|b| b.eq_ignore_ascii_case(&b'l')) {
                element.nth = Some(-1);
                return 2;
            }
            0
        }
        Some(b'%') => {
            let (len, modulo) = digits(&text[1..]);
            if len == 0 {
                return 0;
            }
            let mut used = 1 + len;
            let mut plus = 0;
            if text.get(used) == Some(&b'+') {
                let (more, value) = digits(&text[used + 1..]);
                if more > 0 {
                    used += 1 + more;
                    plus = value;
                }
            }
            element.modulo = Some((modulo, plus));
            used
        }
        _ => 0,
    }
}

/// One element of a `kind` list at the start of `text`, and its length.
fn element(kind: Kind, text: &[u8]) -> Option<(usize, Element)> {
    let mut element = Element::default();
    if kind == Kind::WeekDay
        && let Some((len, day)) = bound(kind, text)
    {
        let marked = week_mark(&text[len..], &mut element);
        if marked > 0 {
            element.from = Some(day);
            return Some((len + marked, element));
        }
    }
    if let Some((len, step)) = slash(text) {
        element.step = Some(step);
        return Some((len, element));
    }
    let mut at = if text.first() == Some(&b'*') {
        1
    } else {
        let (len, from) = bound(kind, text)?;
        element.from = Some(from);
        if text.get(len) == Some(&b'-')
            && let Some((more, to)) = bound(kind, &text[len + 1..])
        {
            element.to = Some(to);
            len + 1 + more
        } else {
            len
        }
    };
    if let Some((len, step)) = slash(&text[at..]) {
        element.step = Some(step);
        at += len;
    }
    Some((at, element))
}

/// A comma-separated `kind` list at the start of `text`.
fn list(kind: Kind, text: &[u8]) -> Option<(usize, Vec<Element>)> {
    let (mut at, first) = element(kind, text)?;
    let mut elements = vec![first];
    while text.get(at) == Some(&b',') {
        let Some((len, next)) = element(kind, &text[at + 1..]) else {
            break;
        };
        elements.push(next);
        at += 1 + len;
    }
    Some((at, elements))
}

fn blanks(text: &[u8]) -> usize {
    text.iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count()
}

/// A zone at the start of `text` (its blanks first): an offset such as
/// `+09:00`, or a name such as `Europe/Paris`, as fugit's patterns take
/// them.
fn zone_text(text: &[u8]) -> Option<Range<usize>> {
    let spaces = text.iter().take_while(|&&b| b == b' ').count();
    if spaces == 0 {
        return None;
    }
    let rest = &text[spaces..];
    if matches!(rest.first(), Some(b'+' | b'-'))
        && (digit(rest, 1, b'0'..=b'1') && digit(rest, 2, b'0'..=b'9')
            || digit(rest, 1, b'2'..=b'2') && digit(rest, 2, b'0'..=b'4'))
    {
        let colon = usize::from(rest.get(3) == Some(&b':'));
        let minutes = rest.get(3 + colon..5 + colon);
        if matches!(minutes, Some(b"00" | b"15" | b"30" | b"45")) {
            return Some(spaces..spaces + 5 + colon);
        }
    }
    let part = |from: usize, underscore: bool| {
        if !rest.get(from).is_some_and(u8::is_ascii_uppercase) {
            return 0;
        }
        let tail = rest[from + 1..]
            .iter()
            .take_while(|&&b| {
                b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || underscore && b == b'_'
            })
            .count();
        if tail == 0 { 0 } else { 1 + tail }
    };
    let mut len = part(0, false);
    if len == 0 {
        return None;
    }
    for _ in 0..2 {
        if rest.get(len) != Some(&b'/') {
            break;
        }
        match part(len + 1, true) {
            0 => break,
            more => len += 1 + more,
        }
    }
    Some(spaces..spaces + len)
}

/// A string's fields as fugit's grammar splits them.
pub(super) struct Fields {
    /// How much of the text they take.
    pub(super) len: usize,
    pub(super) lists: Vec<Vec<Element>>,
    pub(super) zone: Option<Range<usize>>,
}

/// The lists of a string of `count` fields and the zone after them, when
/// `text` starts with one.
pub(super) fn fields(text: &[u8], count: usize) -> Option<Fields> {
    const KINDS: [Kind; 6] = [
        Kind::Second,
        Kind::Minute,
        Kind::Hour,
        Kind::MonthDay,
        Kind::Month,
        Kind::WeekDay,
    ];
    let mut at = 0;
    let mut lists = Vec::new();
    for (index, &kind) in KINDS[6 - count..].iter().enumerate() {
        if index > 0 {
            match blanks(&text[at..]) {
                0 => return None,
                gap => at += gap,
            }
        }
        let (len, list) = list(kind, &text[at..])?;
        lists.push(list);
        at += len;
    }
    let zone = zone_text(&text[at..]).map(|range| at + range.start..at + range.end);
    Some(Fields {
        len: zone.as_ref().map_or(at, |zone| zone.end),
        lists,
        zone,
    })
}
