//! Puppet cron lines: `fqdn_rand` evaluated for a node, then read as cron.
//!
//! Followed: Debian 12's puppet 7.23.0 (`puppet/parser/functions/fqdn_rand.rb`,
//! `Puppet::Util.deterministic_rand_int`, `Puppet::Util::Platform.fips_enabled?`),
//! Ruby 3.1.2's `Random#rand` (`random.c`: `rand_int`, `limited_rand`,
//! `limited_big_rand`) and the field limits of the `cron` type in
//! puppetlabs-cron_core v2.0.2 (`lib/puppet/type/cron.rb`).
//!
//! ```text
//! fqdn_rand(N, seed, downcase)
//!   = Random.new(hex(MD5("fqdn:N:seed"))).rand(N)
//! ```
//!
//! - `fqdn` is the node's `networking.fqdn` fact, downcased (Ruby's
//!   `String#downcase`, full Unicode mapping without context, so a final
//!   `Σ` becomes `σ`) when the third argument is `true`. `N` is written in
//!   decimal whatever its literal (`0x3c`, `074` and `'60'` all join as
//!   `60`); a missing or empty seed leaves the string ending in `:`.
//! - The 128-bit digest, read as one big-endian integer, seeds Ruby's
//!   MT19937 through `init_by_array` ([`RubyRandom`]). On a FIPS-enabled
//!   host (`/proc/sys/crypto/fips_enabled` is `1`) Puppet takes SHA-256
//!   instead; the line option `FIPS=yes` says so.
//! - `rand(N)` for `N - 1 < 2³²` keeps the first 32-bit output whose low
//!   bits (under the smallest mask covering `N - 1`) are at most `N - 1`.
//!   A wider `N` draws the high word first, retrying as soon as it exceeds
//!   the high word of `N - 1`, then the low word, retrying when the whole
//!   exceeds `N - 1`.
//! - `N` must be at least 1 (Ruby raises on 0 and below) and at most
//!   2⁶³ − 1, Puppet's largest Integer.
//!
//! A Puppet `cron` resource writes the number into the crontab, after
//! checking it against the field (minute 0-59, hour 0-23, day of month
//! 1-31, month 1-12, day of week 0-7): a value outside fails the resource,
//! so such a line is refused here, naming the field. `fqdn_rand(12)` in
//! the month field is refused for the nodes it gives 0.
//!
//! A call stands for one whole field or one list item (`fqdn_rand(30),45`).
//! Its arguments are Puppet literals: `N` an Integer (decimal, `0x` hex,
//! `0` octal) or a string of digits; the seed a quoted string (single
//! quotes keep every escape but `\\` and `\'`; double quotes read `\\`,
//! `\"`, `\'`, `\n`, `\r`, `\t`, `\s`, `\$`, `\uXXXX`, `\u{X…}` and keep
//! any other backslash) or an Integer; downcase `true` or `false`. Variables
//! and expressions are not read. Once every call is replaced by its value
//! the spec is read as Vixie cron ([`cron::parse`]).

use md5::{Digest, Md5};
use sha2::Sha256;

use crate::cron::{self, Schedule};
use crate::jenkins::FIELD_NAMES;
use crate::line::{FleetLine, Refusal};
use stampede_core::error::InvalidInput;
use stampede_core::ruby::RubyRandom;

/// The digest Puppet seeds `fqdn_rand` from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FqdnRandDigest {
    /// Every host that is not FIPS-enabled.
    Md5,
    /// A FIPS-enabled host.
    Sha256,
}

/// The limits Puppet's `cron` type puts on each field's numbers.
const CRON_TYPE_LIMITS: [(u64, u64); 5] = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)];

/// The name Puppet calls the function by.
const FUNCTION: &str = "fqdn_rand";

/// Puppet's largest Integer.
const MOST_INTEGER: u64 = i64::MAX as u64;

/// A puppet fleet line: the id is the node's FQDN, `FIPS=yes` picks SHA-256.
pub fn read_line(line: &FleetLine) -> Result<Schedule, Refusal> {
    let digest = match line.options.own("FIPS") {
        None | Some("no") => FqdnRandDigest::Md5,
        Some("yes") => FqdnRandDigest::Sha256,
        Some(other) => {
            return Err(Refusal::new(
                "FIPS",
                format!(
                    "\"{}\" is not yes or no",
                    stampede_core::field::shorten(other)
                ),
            ));
        }
    };
    schedule(&line.id, &line.spec, digest)
        .map_err(|refusal| Refusal::new("spec", refusal.to_string()))
}

/// A cron spec with `fqdn_rand` calls, as Puppet writes it for `fqdn`.
pub fn schedule(fqdn: &str, spec: &str, digest: FqdnRandDigest) -> Result<Schedule, InvalidInput> {
    cron::parse(&crontab_text(fqdn, spec, digest)?)
}

/// What a single call, `call` being its whole text, returns on `fqdn`.
pub fn fqdn_rand(fqdn: &str, call: &str, digest: FqdnRandDigest) -> Result<u64, InvalidInput> {
    let refuse = |reason: String| InvalidInput::new("spec", reason);
    let mut reader = CallReader { text: call, at: 0 };
    let read = reader.call().map_err(refuse)?;
    if reader.at != call.len() {
        return Err(refuse(format!("has text after the {FUNCTION} call")));
    }
    Ok(read.value(fqdn, digest))
}

/// The spec with every call replaced by its value, each checked against
/// its field's limits.
fn crontab_text(fqdn: &str, spec: &str, digest: FqdnRandDigest) -> Result<String, InvalidInput> {
    let mut out = String::with_capacity(spec.len());
    // Fields begun so far: the one being written is `fields - 1`.
    let mut fields = 0usize;
    let mut reader = CallReader { text: spec, at: 0 };
    while let Some(next) = reader.rest().chars().next() {
        let begins_field = out.chars().last().is_none_or(char::is_whitespace);
        if !reader.rest().starts_with(FUNCTION) {
            if begins_field && !next.is_whitespace() {
                fields += 1;
            }
            out.push(next);
            reader.at += next.len_utf8();
            continue;
        }
        if begins_field {
            fields += 1;
        }
        let field = fields - 1;
        let refuse = |reason: String| {
            InvalidInput::new(FIELD_NAMES.get(field).copied().unwrap_or("spec"), reason)
        };
        let whole = format!("{FUNCTION}(…) must be a whole field or list item");
        if !begins_field && !out.ends_with(',') {
            return Err(refuse(whole));
        }
        let start = reader.at;
        let value = reader.call().map_err(refuse)?.value(fqdn, digest);
        if reader
            .rest()
            .chars()
            .next()
            .is_some_and(|c| !c.is_whitespace() && c != ',')
        {
            return Err(refuse(whole));
        }
        if let Some(&(low, high)) = CRON_TYPE_LIMITS.get(field)
            && !(low..=high).contains(&value)
        {
            return Err(refuse(format!(
                "{} gives {value} on this node, outside {low}-{high}; Puppet's cron type refuses it",
                stampede_core::field::shorten(&spec[start..reader.at])
            )));
        }
        out.push_str(&value.to_string());
    }
    Ok(out)
}

/// One call's arguments, as the function receives them.
#[derive(Debug, PartialEq, Eq)]
struct FqdnRandCall {
    max: u64,
    seed: String,
    downcase: bool,
}

impl FqdnRandCall {
    fn value(&self, fqdn: &str, digest: FqdnRandDigest) -> u64 {
        let fqdn = if self.downcase {
            // Ruby's downcase maps each character alone: no final sigma.
            fqdn.chars().flat_map(char::to_lowercase).collect()
        } else {
            fqdn.to_string()
        };
        let joined = format!("{fqdn}:{}:{}", self.max, self.seed);
        let mut random = match digest {
            FqdnRandDigest::Md5 => RubyRandom::new(&Md5::digest(joined.as_bytes())),
            FqdnRandDigest::Sha256 => RubyRandom::new(&Sha256::digest(joined.as_bytes())),
        };
        ruby_rand(&mut random, self.max)
    }
}

/// Ruby's `Random#rand(max)` for `1 <= max <= 2⁶³ − 1`.
fn ruby_rand(random: &mut RubyRandom, max: u64) -> u64 {
    let limit = max - 1;
    if let Ok(max) = u32::try_from(max) {
        return u64::from(random.rand_below(max));
    }
    if limit <= u64::from(u32::MAX) {
        // The mask is every bit, so the first output is kept.
        return u64::from(random.next_u32());
    }
    let high_mask = u32::MAX >> ((limit >> 32) as u32).leading_zeros();
    loop {
        let high = u64::from(random.next_u32() & high_mask) << 32;
        if high > limit {
            continue;
        }
        let value = high | u64::from(random.next_u32());
        if value <= limit {
            return value;
        }
    }
}

/// Reads `fqdn_rand(…)` calls from `text`, from byte `at` on.
struct CallReader<'a> {
    text: &'a str,
    at: usize,
}

impl CallReader<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn skip_blanks(&mut self) {
        // Puppet's lexer skips ASCII blanks only.
        let rest = self.rest();
        self.at += rest.len() - rest.trim_start_matches([' ', '\t', '\r', '\n']).len();
    }

    /// Consumes `c` (after blanks) if it comes next.
    fn eat(&mut self, c: char) -> bool {
        self.skip_blanks();
        let found = self.rest().starts_with(c);
        if found {
            self.at += c.len_utf8();
        }
        found
    }

    /// `fqdn_rand(N[, seed[, downcase]][,])`.
    fn call(&mut self) -> Result<FqdnRandCall, String> {
        if !self.rest().starts_with(FUNCTION) {
            return Err(format!("expected a call to {FUNCTION}"));
        }
        self.at += FUNCTION.len();
        if !self.rest().starts_with('(') {
            return Err(format!(
                "{FUNCTION} must be followed by ( and its arguments"
            ));
        }
        self.at += 1;
        let max = self.max()?;
        let mut call = FqdnRandCall {
            max,
            seed: String::new(),
            downcase: false,
        };
        if self.eat(',') && !self.closes() {
            call.seed = self.seed()?;
            if self.eat(',') && !self.closes() {
                call.downcase = self.boolean()?;
                self.eat(',');
            }
        }
        if !self.eat(')') {
            return Err(format!(
                "{FUNCTION}( has no closing ) after at most three arguments"
            ));
        }
        Ok(call)
    }

    /// Whether `)` comes next (after blanks), left unconsumed.
    fn closes(&mut self) -> bool {
        self.skip_blanks();
        self.rest().starts_with(')')
    }

    /// `N`: an Integer literal or a quoted string of digits, 1 to 2⁶³ − 1.
    fn max(&mut self) -> Result<u64, String> {
        self.skip_blanks();
        let max = match self.rest().chars().next() {
            Some(quote @ ('\'' | '"')) => {
                let text = self.string(quote)?;
                if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(format!(
                        "{FUNCTION}'s N \"{}\" is not a string of digits",
                        stampede_core::field::shorten(&text)
                    ));
                }
                // Ruby's `to_i` reads any digits, beyond Puppet's Integer too.
                text.trim_start_matches('0')
                    .parse::<u64>()
                    .unwrap_or(u64::MAX)
            }
            _ => self.integer()?,
        };
        if max == 0 {
            return Err(format!(
                "{FUNCTION}(0) fails in Puppet: rand(0) is an invalid argument"
            ));
        }
        if max > MOST_INTEGER {
            return Err(format!(
                "{FUNCTION}'s N is larger than {MOST_INTEGER}, Puppet's largest Integer"
            ));
        }
        Ok(max)
    }

    /// A seed: a quoted string or an Integer, as Puppet joins it.
    fn seed(&mut self) -> Result<String, String> {
        match self.rest().chars().next() {
            Some(quote @ ('\'' | '"')) => self.string(quote),
            _ => Ok(self.integer()?.to_string()),
        }
    }

    fn boolean(&mut self) -> Result<bool, String> {
        for (word, value) in [("true", true), ("false", false)] {
            if self.rest().starts_with(word) && !self.name_continues(word.len()) {
                self.at += word.len();
                return Ok(value);
            }
        }
        Err(format!("{FUNCTION}'s third argument must be true or false"))
    }

    /// Whether the text `skip` bytes on continues a name or number.
    fn name_continues(&self, skip: usize) -> bool {
        self.rest()[skip..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    }

    /// A Puppet Integer literal: decimal, `0x` hex or `0` octal, within
    /// Puppet's 64-bit range.
    fn integer(&mut self) -> Result<u64, String> {
        let rest = self.rest();
        let (radix, skip) = if rest.starts_with("0x") || rest.starts_with("0X") {
            (16, 2)
        } else if rest.starts_with('0') {
            (8, 0)
        } else {
            (10, 0)
        };
        let digits = rest[skip..]
            .bytes()
            .take_while(u8::is_ascii_alphanumeric)
            .count();
        let text = &rest[skip..skip + digits];
        let refuse = || {
            let given: String = rest
                .chars()
                .take_while(|&c| !c.is_whitespace() && c != ',' && c != ')')
                .take(25)
                .collect();
            format!(
                "{FUNCTION} takes an Integer or a quoted string here, not \"{}\"",
                stampede_core::field::shorten(&given)
            )
        };
        if text.is_empty() || self.name_continues(skip + digits) {
            return Err(refuse());
        }
        let value = match u64::from_str_radix(text, radix) {
            Ok(value) => value,
            Err(why) if *why.kind() == std::num::IntErrorKind::PosOverflow => u64::MAX,
            Err(_) => return Err(refuse()),
        };
        if value > MOST_INTEGER {
            return Err(format!(
                "{} is larger than {MOST_INTEGER}, Puppet's largest Integer",
                stampede_core::field::shorten(text)
            ));
        }
        self.at += skip + digits;
        Ok(value)
    }

    /// A quoted string from its opening quote, escapes read as Puppet
    /// reads them.
    fn string(&mut self, quote: char) -> Result<String, String> {
        self.at += 1;
        let mut text = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((offset, c)) = chars.next() {
            match c {
                _ if c == quote => {
                    self.at += offset + 1;
                    return Ok(text);
                }
                '\\' => {
                    let Some((_, escaped)) = chars.next() else {
                        break;
                    };
                    match (quote, escaped) {
                        (_, '\\') => text.push('\\'),
                        (_, _) if escaped == quote => text.push(quote),
                        ('"', '\'') => text.push('\''),
                        ('"', 'n') => text.push('\n'),
                        ('"', 'r') => text.push('\r'),
                        ('"', 't') => text.push('\t'),
                        ('"', 's') => text.push(' '),
                        ('"', '$') => text.push('$'),
                        ('"', 'u') => text.push(unicode_escape(&mut chars)?),
                        _ => {
                            text.push('\\');
                            text.push(escaped);
                        }
                    }
                }
                '$' if quote == '"'
                    && chars.clone().next().is_some_and(|(_, next)| {
                        next.is_alphanumeric() || matches!(next, '_' | ':' | '{')
                    }) =>
                {
                    return Err(format!(
                        "{FUNCTION}'s seed interpolates a variable, which is not read here"
                    ));
                }
                _ => text.push(c),
            }
        }
        Err(format!("{FUNCTION}'s string has no closing {quote}"))
    }
}

/// The character of `\uXXXX` or `\u{X…}` (1 to 6 hex digits), after `\u`.
fn unicode_escape(chars: &mut std::str::CharIndices<'_>) -> Result<char, String> {
    let bad = || format!("{FUNCTION}'s seed has a \\u escape that is not \\uXXXX or \\u{{X…}}");
    let braced = chars.clone().next().is_some_and(|(_, c)| c == '{');
    let hex: String = if braced {
        chars.next();
        let hex: String = chars
            .clone()
            .map(|(_, c)| c)
            .take_while(|&c| c != '}')
            .take(7)
            .collect();
        if !(1..=6).contains(&hex.len()) {
            return Err(bad());
        }
        chars.nth(hex.len());
        hex
    } else {
        (0..4)
            .filter_map(|_| chars.next())
            .map(|(_, c)| c)
            .collect()
    };
    if !(braced || hex.len() == 4) || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(bad());
    }
    u32::from_str_radix(&hex, 16)
        .ok()
        .and_then(char::from_u32)
        .ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(text: &str) -> Result<FqdnRandCall, String> {
        CallReader { text, at: 0 }.call()
    }

    #[test]
    fn literals_read_as_puppet_passes_them() {
        let read = call("fqdn_rand( 0x3C , \"a\\sb\\u{e9}\\q\" , true , )").unwrap();
        assert_eq!(read.max, 60);
        assert_eq!(read.seed, "a bé\\q");
        assert!(read.downcase);
        assert_eq!(call("fqdn_rand('060', 017)").unwrap().seed, "15");
        assert_eq!(
            call("fqdn_rand(60, 'it\\'s \\n')").unwrap().seed,
            "it's \\n"
        );
    }

    #[test]
    fn wide_draws_take_the_high_word_first() {
        // Every output is accepted at 2^32, so the draw is the first output.
        let mut random = RubyRandom::new(&[7]);
        let first = random.clone().next_u32();
        assert_eq!(ruby_rand(&mut random, 1 << 32), u64::from(first));
    }
}
