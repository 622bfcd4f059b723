//! How an id becomes an offset in the window: a 32-bit hash of its UTF-8
//! bytes reduced to the window (mod W, or the multiply-shift ⌊h·W / 2³²⌋),
//! a Ruby generator seeded from the id, or, for comparison, its rank among
//! the ids sorted.

use super::{Digests, FNV_LANES};
use crate::choice_enum;
use crate::error::InvalidInput;
use crate::keys::MAX_ID_CHARS;
use crate::{hash, keys, ruby};

choice_enum! {
    /// How an id becomes an offset.
    pub enum HashMode {
        Farm = ("farm", "FarmHash Fingerprint32"),
        Murmur = ("murmur", "MurmurHash3 x86_32"),
        Xxh = ("xxh", "xxHash32"),
        Fnv = ("fnv", "FNV-1a 32"),
        /// `Random.new(id).rand(window)`, as in the slot-scheduling talk.
        Ruby = ("ruby", "Ruby Random.new(id).rand(window)"),
        /// The id's first four bytes, no hashing at all.
        Head = ("head", "first 4 bytes of the id"),
    }
}

choice_enum! {
    /// How a 32-bit hash becomes an offset below the window.
    pub enum Reduction {
        /// h mod W.
        Mod = ("mod", "hash mod window"),
        /// (h·W) >> 32.
        MulShift = ("mulshift", "(hash × window) >> 32"),
    }
}

impl HashMode {
    /// The 32-bit hash of `key`'s UTF-8 bytes; `None` for [`HashMode::Ruby`],
    /// which draws the offset instead of hashing.
    pub fn hash(self, key: &str) -> Option<u32> {
        let bytes = key.as_bytes();
        match self {
            HashMode::Farm => Some(hash::farm_fingerprint32(bytes)),
            HashMode::Murmur => Some(hash::murmur3_x86_32(bytes)),
            HashMode::Xxh => Some(hash::xxh32(bytes)),
            HashMode::Fnv => Some(hash::fnv1a_32(bytes)),
            HashMode::Ruby => None,
            HashMode::Head => Some(head32(key)),
        }
    }
}

/// The first four bytes of `key` as a big-endian u32: a UUID's own bytes,
/// else its UTF-8 bytes, zero-padded when shorter.
pub(super) fn head32(key: &str) -> u32 {
    let mut head = [0u8; 4];
    match keys::uuid_bytes(key) {
        Some(bytes) => head.copy_from_slice(&bytes[..4]),
        None => {
            let bytes = key.as_bytes();
            let taken = bytes.len().min(4);
            head[..taken].copy_from_slice(&bytes[..taken]);
        }
    }
    u32::from_be_bytes(head)
}

impl Reduction {
    /// `hash` brought below `window`; 0 for a window of 0, which has no
    /// offset inside it but its start.
    pub fn reduce(self, hash: u32, window: u32) -> u32 {
        match self {
            Reduction::Mod => hash.checked_rem(window).unwrap_or(0),
            Reduction::MulShift => ((u64::from(hash) * u64::from(window)) >> 32) as u32,
        }
    }
}

/// The non-negative Integer, as big-endian magnitude bytes, that seeds
/// Ruby's `Random` for `key` (see the module text). Refuses, naming `key`,
/// a decimal id of more than [`MAX_ID_CHARS`] digits, whose conversion
/// would cost time quadratic in its length.
pub fn ruby_seed(key: &str) -> Result<Vec<u8>, InvalidInput> {
    if !key.is_empty() && key.bytes().all(|byte| byte.is_ascii_digit()) {
        if key.len() > MAX_ID_CHARS {
            return Err(InvalidInput::new(
                "key",
                format!("a decimal id of more than {MAX_ID_CHARS} digits"),
            ));
        }
        return Ok(decimal_to_big_endian(key.as_bytes()));
    }
    Ok(match keys::uuid_bytes(key) {
        Some(bytes) => bytes.to_vec(),
        None => key.as_bytes().to_vec(),
    })
}

/// The big-endian bytes of a decimal number (empty for 0). Schoolbook
/// multiplication by ten; ids are short, so no bignum crate is needed.
pub(super) fn decimal_to_big_endian(digits: &[u8]) -> Vec<u8> {
    let mut little_endian: Vec<u8> = Vec::new();
    for digit in digits {
        let mut carry = u32::from(digit - b'0');
        for byte in &mut little_endian {
            let value = u32::from(*byte) * 10 + carry;
            *byte = value as u8;
            carry = value >> 8;
        }
        if carry > 0 {
            little_endian.push(carry as u8);
        }
    }
    little_endian.reverse();
    little_endian
}

/// How ids are placed in a window: the mode, the reduction (unused by
/// [`HashMode::Ruby`]) and the window W in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub mode: HashMode,
    pub reduction: Reduction,
    pub window: u32,
}

impl Placement {
    /// The offset of `key`, in [0, W) seconds (0 when W is 0). Fails only in
    /// Ruby mode, for an id [`ruby_seed`] refuses.
    pub fn offset(&self, key: &str) -> Result<u32, InvalidInput> {
        match self.mode.hash(key) {
            Some(hash) => Ok(self.reduction.reduce(hash, self.window)),
            None => Ok(ruby::rand_below(&ruby_seed(key)?, self.window)),
        }
    }

    /// The offset of each key, in order.
    pub fn place<K: AsRef<str>>(&self, keys: &[K]) -> Result<Vec<u32>, InvalidInput> {
        if self.mode == HashMode::Ruby {
            return self.draw_ruby(keys);
        }
        if self.mode != HashMode::Fnv {
            return keys.iter().map(|key| self.offset(key.as_ref())).collect();
        }
        let mut offsets = Vec::with_capacity(keys.len());
        let mut groups = keys.chunks_exact(FNV_LANES);
        for group in &mut groups {
            let inputs = std::array::from_fn(|lane| group[lane].as_ref().as_bytes());
            let hashes = hash::fnv1a_32_lanes::<FNV_LANES>(inputs);
            offsets.extend(hashes.map(|hash| self.reduction.reduce(hash, self.window)));
        }
        for key in groups.remainder() {
            offsets.push(self.offset(key.as_ref())?);
        }
        Ok(offsets)
    }
}

impl Placement {
    /// [`Self::place`], from the keys' `digests` when they are this mode's
    /// and cover every key.
    pub(super) fn place_given<K: AsRef<str>>(
        &self,
        keys: &[K],
        digests: Option<&Digests>,
    ) -> Result<Vec<u32>, InvalidInput> {
        let digests =
            digests.filter(|digests| digests.mode() == self.mode && digests.len() >= keys.len());
        match digests {
            None => self.place(keys),
            Some(Digests::Hashes(_, hashes)) => Ok(hashes[..keys.len()]
                .iter()
                .map(|&hash| self.reduction.reduce(hash, self.window))
                .collect()),
            Some(Digests::RubyHeads(heads)) => keys
                .iter()
                .zip(heads)
                .map(|(key, head)| match head.rand_below(self.window) {
                    Some(offset) => Ok(offset),
                    None => self.offset(key.as_ref()),
                })
                .collect(),
        }
    }

    /// Ruby mode for many keys.
    fn draw_ruby<K: AsRef<str>>(&self, keys: &[K]) -> Result<Vec<u32>, InvalidInput> {
        let mut offsets = Vec::with_capacity(keys.len());
        for_ruby_seeds(keys, |seeds| {
            let drawn = ruby::rand_below_many(seeds, [self.window]);
            offsets.extend(drawn.into_iter().map(|[offset]| offset));
        })?;
        Ok(offsets)
    }
}

/// Hands the keys' Ruby seeds ([`ruby_seed`]), in order, to `each`, a chunk
/// at a time so that only a chunk's seeds are held at once.
pub(super) fn for_ruby_seeds<K: AsRef<str>>(
    keys: &[K],
    mut each: impl FnMut(&[Vec<u8>]),
) -> Result<(), InvalidInput> {
    const CHUNK: usize = 256 * ruby::LANES;
    for chunk in keys.chunks(CHUNK) {
        let seeds = chunk
            .iter()
            .map(|key| ruby_seed(key.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        each(&seeds);
    }
    Ok(())
}

/// The rank-based even spread: the key of rank r among the keys sorted
/// bytewise (ties by position) gets ⌊r·W / N⌋.
pub fn place_by_rank<K: AsRef<str>>(keys: &[K], window: u32) -> Vec<u32> {
    offsets_by_rank(&ranks_in_order(&sorted_order(keys), keys.len()), window)
}

/// The keys' positions, sorted by key bytewise, ties by position.
///
/// Each key's first eight bytes, read as one big-endian number and
/// zero-padded, order as the bytes do because zero is the least byte, so
/// they are compared first and whole keys only where those are equal. Ids
/// such as UUIDs rarely share them, so the sort is mostly of integers.
pub(super) fn sorted_order<K: AsRef<str>>(keys: &[K]) -> Vec<usize> {
    // Sorted as `&str`s whatever the keys are, so that the docs module,
    // which sorts both `String`s and `&str`s, holds one copy of the sort.
    let keys: Vec<&str> = keys.iter().map(AsRef::as_ref).collect();
    sorted_str_order(&keys)
}

/// [`sorted_order`] of `&str`s.
fn sorted_str_order(keys: &[&str]) -> Vec<usize> {
    let mut order: Vec<(u64, usize)> = keys
        .iter()
        .enumerate()
        .map(|(index, key)| {
            let key = key.as_bytes();
            let mut head = [0u8; 8];
            let length = key.len().min(head.len());
            head[..length].copy_from_slice(&key[..length]);
            (u64::from_be_bytes(head), index)
        })
        .collect();
    order.sort_unstable_by(|&(head_a, a), &(head_b, b)| {
        head_a
            .cmp(&head_b)
            .then_with(|| keys[a].cmp(keys[b]))
            .then(a.cmp(&b))
    });
    order.into_iter().map(|(_, index)| index).collect()
}

/// The ranks of the first `count` keys among themselves, from `order`, the
/// sorted order of those keys and possibly more after them: dropping the
/// later ones keeps the order of the rest.
pub(super) fn ranks_in_order(order: &[usize], count: usize) -> Vec<u64> {
    let mut ranks = vec![0; count];
    let kept = order.iter().filter(|&&index| index < count);
    for (rank, &index) in (0u64..).zip(kept) {
        ranks[index] = rank;
    }
    ranks
}

/// ⌊r·W / N⌋ for each rank r of N.
pub(super) fn offsets_by_rank(ranks: &[u64], window: u32) -> Vec<u32> {
    let count = ranks.len() as u64;
    ranks
        .iter()
        .map(|rank| (rank * u64::from(window) / count) as u32)
        .collect()
}
