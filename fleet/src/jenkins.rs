//! Jenkins' cron `H`: a stable, per-job pseudo-random value in a field.
//!
//! Followed: Jenkins 2.579-SNAPSHOT, commit
//! `ff9430ee1dc6e319349a488650d914444fe141f3` (`hudson.scheduler.Hash`,
//! `BaseParser`, `CronTab`, `CronTabList` and the `Crontab*.g4` grammar).
//!
//! - Seed: MD5 of the job's full name in UTF-8; digest bytes 8..16 are
//!   XORed onto bytes 0..8, which are read big-endian as an `i64` and
//!   seed one `java.util.Random` ([`JavaRandom`]) per trigger spec.
//! - Draws: every `H` in the spec calls `nextInt(n)` on that one Random,
//!   left to right (minute, hour, day of month, month, day of week; list
//!   items in order). All lines of a multi-line spec share it too.
//! - `H` alone picks `lo + nextInt(hi - lo + 1)`; with a step `n > 1` it
//!   fires at `lo + nextInt(n)`, then every `n` up to `hi`. `H/1` is `H`.
//!   Plain `H` spans the field, except day of month (1-28, safe in every
//!   month) and day of week (0-6); `H(a-b)` spans `a-b`.
//! - `@yearly`/`@annually` = `H H H H *`, `@monthly` = `H H H * *`,
//!   `@weekly` = `H H * * H`, `@daily` = `H H * * *`,
//!   `@midnight` = `H H(0-2) * * *`, `@hourly` = `H * * * *`.
//! - Day of week runs 0-7, 7 folded onto 0 (Sunday). A day must match
//!   both day fields ([`DayRule::Both`]): `CronTab.check` ANDs them.

use md5::{Digest, Md5};

use crate::cron::{DayRule, Schedule};
use stampede_core::error::InvalidInput;

/// `java.util.Random`: the 48-bit linear congruential generator, drawn
/// exactly as Java draws it (plain u64 arithmetic, identical on wasm32).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JavaRandom {
    state: u64,
}

const LCG_MULTIPLIER: u64 = 0x5_DEEC_E66D;
const LCG_INCREMENT: u64 = 0xB;
const STATE_MASK: u64 = (1 << 48) - 1;

impl JavaRandom {
    /// `new Random(seed)`: the seed is scrambled with the multiplier.
    pub fn new(seed: i64) -> Self {
        Self {
            state: (seed as u64 ^ LCG_MULTIPLIER) & STATE_MASK,
        }
    }

    /// `next(bits)`: steps the state and returns its top `bits` bits
    /// (1 to 32), as Java's `int` cast leaves them.
    pub fn next_bits(&mut self, bits: u32) -> i32 {
        debug_assert!((1..=32).contains(&bits));
        self.state = self
            .state
            .wrapping_mul(LCG_MULTIPLIER)
            .wrapping_add(LCG_INCREMENT)
            & STATE_MASK;
        (self.state >> (48 - bits)) as u32 as i32
    }

    /// `nextInt(bound)`: uniform in `0..bound`. Powers of two take the top
    /// bits; other bounds reject the draws that would bias the remainder.
    ///
    /// # Panics
    /// If `bound` is not positive, where Java throws.
    pub fn next_int(&mut self, bound: i32) -> i32 {
        assert!(bound > 0, "bound must be positive");
        let r = self.next_bits(31);
        let m = bound - 1;
        if bound & m == 0 {
            return ((i64::from(bound) * i64::from(r)) >> 31) as i32;
        }
        let mut u = r;
        loop {
            let remainder = u % bound;
            // Java's int overflow here is the rejection test.
            if u.wrapping_sub(remainder).wrapping_add(m) >= 0 {
                return remainder;
            }
            u = self.next_bits(31);
        }
    }
}

/// The seed `Hash.from(job_full_name)` gives its Random.
pub fn hash_seed(job_full_name: &str) -> i64 {
    let digest = Md5::digest(job_full_name.as_bytes());
    let mut folded = [0u8; 8];
    for (i, byte) in folded.iter_mut().enumerate() {
        *byte = digest[i] ^ digest[i + 8];
    }
    i64::from_be_bytes(folded)
}

/// The five fields' names, as refusals name them.
pub const FIELD_NAMES: [&str; 5] = ["minute", "hour", "day of month", "month", "day of week"];
const LOWER_BOUNDS: [i32; 5] = [0, 0, 1, 1, 0];
const UPPER_BOUNDS: [i32; 5] = [59, 23, 31, 12, 7];
const DAY_OF_MONTH: usize = 2;
const DAY_OF_WEEK: usize = 4;

/// One line of a Jenkins trigger spec read for the job `job_full_name`,
/// exactly as `new CronTab(spec, Hash.from(job_full_name))` reads it (no
/// trimming; see [`schedule_lines`] for a whole spec).
pub fn schedule(job_full_name: &str, spec: &str) -> Result<Schedule, InvalidInput> {
    let mut random = JavaRandom::new(hash_seed(job_full_name));
    read_line(spec, &mut random)
}

/// A whole trigger spec as `CronTabList.create` reads it: lines split at
/// `\n` or `\r\n` and trimmed, blank and `#` lines skipped, and every line
/// drawing from the same Random, so two identical `H` lines differ.
/// A `TZ=` first line is refused: a [`Schedule`] has no time zone.
pub fn schedule_lines(job_full_name: &str, text: &str) -> Result<Vec<Schedule>, InvalidInput> {
    let mut random = JavaRandom::new(hash_seed(job_full_name));
    let mut schedules = Vec::new();
    for (index, raw) in text.split('\n').enumerate() {
        let line = java_trim(raw.strip_suffix('\r').unwrap_or(raw));
        if index == 0 && line.starts_with("TZ=") {
            return Err(InvalidInput::new(
                "time zone",
                "a TZ= line is not supported: schedules here are in one zone",
            ));
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let schedule = read_line(line, &mut random).map_err(|refusal| {
            InvalidInput::new(
                refusal.field,
                format!("line {}: {}", index + 1, refusal.reason),
            )
        })?;
        schedules.push(schedule);
    }
    Ok(schedules)
}

/// `String.trim()`: strips every char up to U+0020 from both ends.
fn java_trim(line: &str) -> &str {
    line.trim_matches(|c: char| c <= ' ')
}

fn read_line(spec: &str, random: &mut JavaRandom) -> Result<Schedule, InvalidInput> {
    let fields = Parser::new(spec, random).line()?;
    // Jenkins keeps day of week as an int and copies Sunday's 7 onto 0.
    let mut weekdays = fields[DAY_OF_WEEK] as u32;
    if weekdays & (1 << 7) != 0 {
        weekdays = (weekdays | 1) & !(1 << 7);
    }
    // Bits beyond a field's range (from Java's wrapping step arithmetic)
    // can never match a calendar value, so dropping them changes nothing.
    Ok(Schedule {
        minutes: fields[0] & ((1 << 60) - 1),
        hours: (fields[1] & 0xFF_FFFF) as u32,
        days_of_month: (fields[2] & 0xFFFF_FFFE) as u32,
        months: (fields[3] & 0x1FFE) as u16,
        days_of_week: (weekdays & 0x7F) as u8,
        days: DayRule::Both,
    })
}

/// A token of Jenkins' crontab lexer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    /// Digits, with their value if it fits Java's `int`.
    Number(Option<i32>),
    Spaces,
    Minus,
    Star,
    Slash,
    Comma,
    At,
    Hash,
    Open,
    Close,
    Word(&'static str),
}

/// The `@` shorthands and the specs Jenkins reads them as.
const SHORTHANDS: [(&str, &str); 7] = [
    ("yearly", "H H H H *"),
    ("annually", "H H H H *"),
    ("monthly", "H H H * *"),
    ("weekly", "H H * * H"),
    ("daily", "H H * * *"),
    ("midnight", "H H(0-2) * * *"),
    ("hourly", "H * * * *"),
];

struct Parser<'a> {
    text: &'a str,
    position: usize,
    field: usize,
    random: &'a mut JavaRandom,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, random: &'a mut JavaRandom) -> Self {
        Self {
            text,
            position: 0,
            field: 0,
            random,
        }
    }

    fn refuse(&self, reason: impl Into<String>) -> InvalidInput {
        InvalidInput::new(FIELD_NAMES[self.field], reason)
    }

    /// The next token and where it ends, without consuming it.
    fn peek(&self) -> Result<Option<(Token, usize)>, InvalidInput> {
        let rest = &self.text[self.position..];
        let Some(first) = rest.chars().next() else {
            return Ok(None);
        };
        let single = |token| Ok(Some((token, self.position + 1)));
        match first {
            '0'..='9' => {
                let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                let value = rest[..digits].parse::<i32>().ok();
                Ok(Some((Token::Number(value), self.position + digits)))
            }
            ' ' | '\t' => {
                let run = rest
                    .bytes()
                    .take_while(|b| *b == b' ' || *b == b'\t')
                    .count();
                Ok(Some((Token::Spaces, self.position + run)))
            }
            '-' => single(Token::Minus),
            '*' => single(Token::Star),
            '/' => single(Token::Slash),
            ',' => single(Token::Comma),
            '@' => single(Token::At),
            'H' => single(Token::Hash),
            '(' => single(Token::Open),
            ')' => single(Token::Close),
            _ => match SHORTHANDS.iter().find(|(word, _)| rest.starts_with(word)) {
                Some((word, _)) => Ok(Some((Token::Word(word), self.position + word.len()))),
                None => Err(self.refuse(format!("`{first}` is not part of Jenkins' cron syntax"))),
            },
        }
    }

    fn bump(&mut self) -> Result<Option<Token>, InvalidInput> {
        let next = self.peek()?;
        if let Some((_, end)) = next {
            self.position = end;
        }
        Ok(next.map(|(token, _)| token))
    }

    fn next_is(&self, token: Token) -> Result<bool, InvalidInput> {
        Ok(self.peek()?.is_some_and(|(next, _)| next == token))
    }

    fn expect(&mut self, token: Token, what: &str) -> Result<(), InvalidInput> {
        match self.bump()? {
            Some(found) if found == token => Ok(()),
            _ => Err(self.refuse(format!("expected {what}"))),
        }
    }

    fn number(&mut self) -> Result<i32, InvalidInput> {
        match self.bump()? {
            Some(Token::Number(Some(value))) => Ok(value),
            Some(Token::Number(None)) => Err(self.refuse("number too large")),
            _ => Err(self.refuse("expected a number")),
        }
    }

    /// `/n` if present; 1 (Jenkins' "no step") otherwise.
    fn step(&mut self) -> Result<i32, InvalidInput> {
        if self.next_is(Token::Slash)? {
            self.bump()?;
            self.number()
        } else {
            Ok(1)
        }
    }

    /// Five fields separated by blanks, or one `@` shorthand.
    fn line(&mut self) -> Result<[u64; 5], InvalidInput> {
        if self.next_is(Token::At)? {
            return self.shorthand();
        }
        let mut fields = [0; 5];
        for (field, bits) in fields.iter_mut().enumerate() {
            self.field = field;
            if field > 0 {
                self.expect(Token::Spaces, "a blank before this field")?;
            }
            *bits = self.list()?;
        }
        if self.bump()?.is_some() {
            return Err(self.refuse("unexpected text after the fifth field"));
        }
        Ok(fields)
    }

    /// `@word` reads as its spec, drawing from the same Random. Jenkins'
    /// grammar stops after the word: it lexes one more token (a bad one
    /// is refused) and ignores whatever follows.
    fn shorthand(&mut self) -> Result<[u64; 5], InvalidInput> {
        self.bump()?;
        let expansion = match self.bump()? {
            Some(Token::Word(word)) => SHORTHANDS.iter().find(|(name, _)| *name == word),
            _ => None,
        };
        let Some((_, spec)) = expansion else {
            return Err(self.refuse(
                "expected one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly",
            ));
        };
        self.peek()?;
        Parser::new(spec, &mut *self.random).line()
    }

    /// Terms joined by commas.
    fn list(&mut self) -> Result<u64, InvalidInput> {
        let mut bits = self.term()?;
        while self.next_is(Token::Comma)? {
            self.bump()?;
            bits |= self.term()?;
        }
        Ok(bits)
    }

    /// `n`, `a-b[/s]`, `*[/s]`, `H[/s]` or `H(a-b)[/s]`.
    fn term(&mut self) -> Result<u64, InvalidInput> {
        match self.bump()? {
            Some(Token::Number(value)) => {
                let start = value.ok_or_else(|| self.refuse("number too large"))?;
                if !self.next_is(Token::Minus)? {
                    self.range_check(start)?;
                    return Ok(1 << start);
                }
                self.bump()?;
                let end = self.number()?;
                let step = self.step()?;
                self.range(start, end, step)
            }
            Some(Token::Star) => {
                let step = self.step()?;
                self.range(LOWER_BOUNDS[self.field], UPPER_BOUNDS[self.field], step)
            }
            Some(Token::Hash) if self.next_is(Token::Open)? => {
                self.bump()?;
                let start = self.number()?;
                self.expect(Token::Minus, "`-` inside H(a-b)")?;
                let end = self.number()?;
                self.expect(Token::Close, "`)` after H(a-b")?;
                let step = self.step()?;
                self.hashed(start, end, step)
            }
            Some(Token::Hash) => {
                let step = self.step()?;
                let upper = match self.field {
                    // Every month has a 28th; Sunday is 0, not also 7.
                    DAY_OF_MONTH => 28,
                    DAY_OF_WEEK => 6,
                    field => UPPER_BOUNDS[field],
                };
                self.hashed(LOWER_BOUNDS[self.field], upper, step)
            }
            _ => Err(self.refuse("expected a number, `*` or `H`")),
        }
    }

    fn range_check(&self, value: i32) -> Result<(), InvalidInput> {
        let (lower, upper) = (LOWER_BOUNDS[self.field], UPPER_BOUNDS[self.field]);
        if (lower..=upper).contains(&value) {
            Ok(())
        } else {
            Err(self.refuse(format!("{value} is outside {lower}-{upper}")))
        }
    }

    /// `start-end/step`. The counter is a Java `int` and a shift takes its
    /// low six bits, so a step near 2^31 wraps onto low values as in Jenkins.
    fn range(&self, start: i32, end: i32, step: i32) -> Result<u64, InvalidInput> {
        self.range_check(start)?;
        self.range_check(end)?;
        if step <= 0 {
            return Err(self.refuse(format!("step must be positive, not {step}")));
        }
        if start > end {
            return Err(self.refuse(format!("range {start}-{end} is reversed")));
        }
        let mut bits = 0u64;
        let mut value = start;
        while value <= end {
            bits |= 1 << (value & 63);
            value = value.wrapping_add(step);
        }
        Ok(bits)
    }

    /// `H` over `start-end`: one value, or every `step` from a hashed offset.
    fn hashed(&mut self, start: i32, end: i32, step: i32) -> Result<u64, InvalidInput> {
        self.range_check(start)?;
        self.range_check(end)?;
        let width = end - start + 1;
        if step > width {
            return Err(self.refuse(format!("H range {start}-{end} does not fit step {step}")));
        }
        if step <= 0 {
            return Err(self.refuse(format!("step must be positive, not {step}")));
        }
        if step == 1 {
            return Ok(1 << (start + self.random.next_int(width)));
        }
        let mut bits = 0u64;
        let mut value = start + self.random.next_int(step);
        while value <= end {
            bits |= 1 << value;
            value += step;
        }
        Ok(bits)
    }
}
