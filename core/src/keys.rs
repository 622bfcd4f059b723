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
//! A reader can also paste their own ids. [`read_pasted`] takes ids
//! separated by commas or whitespace, so a column copied from a spreadsheet
//! (one per line), a CSV row or a list typed with spaces all read the same;
//! ids therefore cannot contain commas or whitespace, which database ids,
//! UUIDs and e-mail addresses never do. It never refuses a paste: an id it
//! cannot use is dropped, and the reading says how many for each reason.
//!
//! ```
//! use stampede_core::keys::{KeyKind, generate, read_pasted};
//!
//! assert_eq!(generate(KeyKind::Sequential, 3, 1).unwrap(), ["1", "2", "3"]);
//! let pasted = read_pasted("a1, b2\nb2");
//! assert_eq!(pasted.ids, ["a1", "b2"]);
//! assert_eq!(pasted.dropped(), 1);
//! ```

use std::collections::HashSet;

use rand::{Rng, RngExt};

use crate::choice_enum;
use crate::error::{InvalidInput, count_at_most};
use crate::field::shorten;
use crate::rng::{Purpose, SeededRng, seeded};
use crate::units;

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

/// What [`read_pasted`] made of a paste: the ids it kept, in the order
/// first seen, and those it dropped, by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdsRead {
    pub ids: Vec<String>,
    /// Ids seen earlier in the paste; the first of each is kept.
    pub repeated: Dropped,
    /// Ids longer than [`MAX_ID_CHARS`] characters.
    pub too_long: Dropped,
    /// New ids after the first [`MAX_PASTED_IDS`].
    pub past_limit: Dropped,
}

/// The ids dropped for one reason: how many, and the first of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dropped {
    pub count: u64,
    pub first: Option<String>,
}

impl Dropped {
    fn add(&mut self, id: &str) {
        self.count += 1;
        self.first.get_or_insert_with(|| shorten(id));
    }
}

/// The ids in pasted text, separated by commas or whitespace (runs of
/// separators count as one). An id longer than [`MAX_ID_CHARS`]
/// characters, a repeat, or a new id after the first [`MAX_PASTED_IDS`] is
/// dropped and counted. Any text is safe: the work is one pass over it,
/// holding at most [`MAX_PASTED_IDS`] ids.
pub fn read_pasted(text: &str) -> IdsRead {
    let mut read = IdsRead::default();
    let mut seen = HashSet::new();
    let pieces = text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|piece| !piece.is_empty());
    for id in pieces {
        if id.chars().nth(MAX_ID_CHARS).is_some() {
            read.too_long.add(id);
        } else if seen.contains(id) {
            read.repeated.add(id);
        } else if read.ids.len() as u32 == MAX_PASTED_IDS {
            read.past_limit.add(id);
        } else {
            seen.insert(id);
            read.ids.push(id.to_string());
        }
    }
    read
}

impl IdsRead {
    /// How many ids were dropped, for every reason.
    pub fn dropped(&self) -> u64 {
        self.repeated.count + self.too_long.count + self.past_limit.count
    }

    /// "1,998 ids read, 3 dropped: 2 repeated (first "42"), 1 longer than
    /// 256 characters (first "xxxxxxxx…")", or "2,000 ids read".
    pub fn summary(&self) -> String {
        let read = ids_count(self.ids.len() as u64);
        if self.dropped() == 0 {
            return format!("{read} read");
        }
        let reasons = [
            (&self.repeated, "repeated".to_string()),
            (
                &self.too_long,
                format!("longer than {MAX_ID_CHARS} characters"),
            ),
            (
                &self.past_limit,
                format!("past the limit of {}", ids_count(u64::from(MAX_PASTED_IDS))),
            ),
        ];
        let reasons: Vec<String> = reasons
            .into_iter()
            .filter(|(dropped, _)| dropped.count > 0)
            .map(|(dropped, why)| {
                let first = dropped.first.as_deref().unwrap_or_default();
                format!("{} {why} (first \"{first}\")", units::count(dropped.count))
            })
            .collect();
        format!(
            "{read} read, {} dropped: {}",
            units::count(self.dropped()),
            reasons.join(", ")
        )
    }
}

/// "1 id", "2,000 ids".
pub fn ids_count(n: u64) -> String {
    if n == 1 {
        "1 id".to_string()
    } else {
        format!("{} ids", units::count(n))
    }
}
