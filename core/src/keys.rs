//! Keys: the task ids that a spread places, generated from the seed or pasted.
//!
//! Four generators make N keys, each the same for the same seed on every
//! machine:
//! - sequential integers `1`, `2`, …, `N`, as decimal text, like the bigint
//!   primary keys of a database table;
//! - UUIDv4 (RFC 9562): 16 random bytes with the version nibble set to 4
//!   and the variant bits to `10`;
//! - UUIDv7 (RFC 9562): a 48-bit big-endian count of Unix milliseconds,
//!   then the version nibble 7, the variant bits `10` and 74 random bits.
//!   The first key's clock reads [`UUID_V7_START_MS`] (2026-01-01T00:00:00Z)
//!   plus one step, and each later key's clock is its predecessor's plus a
//!   step drawn uniformly from 1 to [`UUID_V7_MAX_STEP_MS`] ms, so the
//!   clocks rise strictly and the keys sort in the order they were made;
//! - e-mail addresses `user1@example.com`, …, `userN@example.com`.
//!
//! Random bits come from the seeded PCG32 stream of the generator's own
//! purpose (`keys.uuid4`, `keys.uuid7`): four 32-bit outputs, each laid
//! down little-endian, make 16 bytes. Generation is sequential, so the
//! first N keys of a longer run are the N keys of a shorter one: a key set
//! grows by appending.
//!
//! A reader can also paste their own ids. [`parse_pasted`] takes one id per
//! line, or several on a line separated by commas: each is trimmed, empty
//! ones are dropped and a repeated id counts once. So ids cannot contain
//! commas or line breaks, which database ids, UUIDs and e-mail addresses
//! never do.

use std::collections::HashSet;

use rand::{Rng, RngExt};

use crate::choice_enum;
use crate::error::{InvalidInput, count_at_most};
use crate::rng::{Purpose, SeededRng, seeded};

/// The most keys one call generates: a million keys and the tenth more that
/// a stability check appends.
pub const MAX_KEYS: u32 = 1_100_000;
/// The most ids a paste may hold.
pub const MAX_PASTED_IDS: u32 = 100_000;
/// The most characters one pasted id may have.
pub const MAX_ID_CHARS: usize = 256;
/// The instant the UUIDv7 clock starts from: 2026-01-01T00:00:00Z in Unix
/// milliseconds.
pub const UUID_V7_START_MS: u64 = 1_767_225_600_000;
/// The longest step of the UUIDv7 clock between two keys, in milliseconds.
pub const UUID_V7_MAX_STEP_MS: u32 = 1_000;

const UUID_V4: Purpose = Purpose::new("keys.uuid4");
const UUID_V7: Purpose = Purpose::new("keys.uuid7");

choice_enum! {
    /// How generated keys look.
    pub enum KeyKind {
        /// `1`, `2`, …, `N`.
        Sequential = ("seq", "Sequential integers"),
        /// Random UUIDs, version 4.
        UuidV4 = ("uuid4", "UUIDv4 (random)"),
        /// Time-ordered UUIDs, version 7.
        UuidV7 = ("uuid7", "UUIDv7 (time-ordered)"),
        /// `user1@example.com`, …
        Email = ("email", "user{n}@example.com"),
    }
}

/// The first `count` keys of `kind` under `seed`.
pub fn generate(kind: KeyKind, count: u32, seed: u64) -> Result<Vec<String>, InvalidInput> {
    count_at_most("keys", u64::from(count), u64::from(MAX_KEYS))?;
    Ok(KeyStream::new(kind, seed).take(count as usize).collect())
}

/// The keys of `kind` under `seed`, one after another: [`generate`] takes
/// the first N, and a caller that keeps the stream takes the next ones later
/// without making the first again.
#[derive(Clone, Debug)]
pub struct KeyStream {
    kind: KeyKind,
    /// How many keys the stream has made.
    made: u32,
    rng: SeededRng,
    /// The last UUIDv7 key's clock.
    clock: u64,
}

impl KeyStream {
    pub fn new(kind: KeyKind, seed: u64) -> Self {
        let purpose = match kind {
            KeyKind::UuidV7 => UUID_V7,
            _ => UUID_V4,
        };
        Self {
            kind,
            made: 0,
            rng: seeded(seed, purpose),
            clock: UUID_V7_START_MS,
        }
    }
}

impl Iterator for KeyStream {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        self.made = self.made.checked_add(1)?;
        let n = self.made;
        Some(match self.kind {
            KeyKind::Sequential => n.to_string(),
            KeyKind::Email => format!("user{n}@example.com"),
            KeyKind::UuidV4 => uuid_text(uuid::Builder::from_random_bytes(random_bytes(
                &mut self.rng,
            ))),
            KeyKind::UuidV7 => {
                self.clock += u64::from(self.rng.random_range(1..=UUID_V7_MAX_STEP_MS));
                let bytes = random_bytes(&mut self.rng);
                let mut rest = [0u8; 10];
                rest.copy_from_slice(&bytes[..10]);
                uuid_text(uuid::Builder::from_unix_timestamp_millis(self.clock, &rest))
            }
        })
    }
}

/// 16 bytes from four PCG32 outputs, each little-endian.
fn random_bytes(rng: &mut SeededRng) -> [u8; 16] {
    let mut bytes = [0u8; 16];
    for chunk in bytes.chunks_exact_mut(4) {
        chunk.copy_from_slice(&rng.next_u32().to_le_bytes());
    }
    bytes
}

/// The lower-case hyphenated form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
fn uuid_text(builder: uuid::Builder) -> String {
    builder.into_uuid().hyphenated().to_string()
}

/// The 16 bytes of `key` when it is a UUID in any form the `uuid` crate
/// reads (hyphenated, 32 hex digits, braced or `urn:uuid:`), in either case.
pub fn uuid_bytes(key: &str) -> Option<[u8; 16]> {
    uuid::Uuid::try_parse(key).ok().map(|id| *id.as_bytes())
}

/// The ids in pasted text: one per line or separated by commas, trimmed,
/// empty ones dropped, repeats kept once in the order first seen.
///
/// Refuses, naming the field `ids`, more than [`MAX_PASTED_IDS`] ids or an
/// id longer than [`MAX_ID_CHARS`] characters. Any text is safe: the work
/// stops at the first id over a limit.
pub fn parse_pasted(text: &str) -> Result<Vec<String>, InvalidInput> {
    let mut seen = HashSet::new();
    let mut ids = Vec::new();
    let items = text
        .split(['\n', '\r', ','])
        .map(str::trim)
        .filter(|id| !id.is_empty());
    for id in items {
        if id.chars().nth(MAX_ID_CHARS).is_some() {
            let start: String = id.chars().take(16).collect();
            return Err(InvalidInput::new(
                "ids",
                format!("the id starting \"{start}…\" has more than {MAX_ID_CHARS} characters"),
            ));
        }
        if seen.insert(id) {
            if ids.len() as u32 == MAX_PASTED_IDS {
                return Err(InvalidInput::new(
                    "ids",
                    format!("more than {MAX_PASTED_IDS} ids"),
                ));
            }
            ids.push(id.to_string());
        }
    }
    Ok(ids)
}
