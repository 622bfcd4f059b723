//! Ruby mode: the numbers `Random.new(seed).rand(limit)` gives in Ruby, bit for bit.
//!
//! Ruby's `Random` is the 32-bit Mersenne Twister (MT19937). Seeding it with
//! a non-negative Integer (Ruby 3.1's `rand_init` and `rand_mt_init`):
//!
//! - the magnitude is cut into 32-bit words, least significant first, with no
//!   leading zero words (0 is the single word 0); a negative seed behaves as
//!   its absolute value;
//! - when there are two words or more and the most significant word is
//!   exactly 1, that word is dropped: Ruby's own random seeds carry such a
//!   word as a guard against losing leading zeros. So 2³² seeds like 0, and
//!   2³² + 5 like 5;
//! - one word w seeds with the reference `init_genrand(w)`; more words seed
//!   with `init_by_array(words)`, which mixes every word into the state.
//!
//! `rand(n)` for an Integer 1 ≤ n ≤ 2³² (`limited_rand` with limit n − 1)
//! takes mask = the smallest 2^k − 1 ≥ n − 1, then draws 32-bit outputs and
//! keeps the first whose low bits (output & mask) are below n. Each try
//! consumes one output and succeeds with probability above one half.
//! `rand(1)` is 0 and consumes nothing; `rand(0)` raises `ArgumentError` in
//! Ruby (here it is 0 as well, see [`rand_below`]).
//!
//! The talk's per-account offset is `Random.new(id).rand(window)`: seeding
//! costs about 1,900 dependent multiply steps, and the offset needs only the
//! first output or two. So the generator here is written out rather than
//! taken from the `rand_mt` crate, whose outputs match but which repeats the
//! constant part of `init_by_array` (the state of `init_genrand(19650218)`,
//! computed here once) and twists all 624 words before its
//! first output. Here the state is twisted one word at a time, just before
//! its output is tempered: exactly the reference sequence, without the work
//! a draw of one number does not need. [`RubyRandom::new_many`] also seeds
//! runs of equal-length keys side by side, so the processor overlaps their
//! chains; a million UUID seeds then take under a second natively (about
//! 3.4 s with `rand_mt`).
//!
//! ```
//! use stampede_core::ruby::rand_below;
//!
//! // Random.new(42).rand(3600) in Ruby 3.1.2.
//! assert_eq!(rand_below(&[42], 3600), 3174);
//! ```

use std::sync::OnceLock;

/// Words of state.
const N: usize = 624;
/// The twist's middle distance.
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;
/// How many seeds [`RubyRandom::new_many`] seeds side by side.
pub const LANES: usize = 16;

/// The state `init_genrand(19650218)` leaves, where `init_by_array` starts:
/// made once, on first use, as a stored 2.5 KB table of random-looking words
/// would not compress in the docs module's wasm.
fn init_by_array_base() -> &'static [u32; N] {
    static BASE: OnceLock<[u32; N]> = OnceLock::new();
    BASE.get_or_init(|| genrand_state(19_650_218))
}

/// The reference `init_genrand(seed)`: a linear-congruential fill of the state.
const fn genrand_state(seed: u32) -> [u32; N] {
    let mut state = [0u32; N];
    state[0] = seed;
    let mut i = 1;
    while i < N {
        let previous = state[i - 1];
        state[i] = 1_812_433_253u32
            .wrapping_mul(previous ^ (previous >> 30))
            .wrapping_add(i as u32);
        i += 1;
    }
    state
}

/// MT19937 seeded as Ruby's `Random.new(seed)` seeds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RubyRandom {
    state: [u32; N],
    /// The index of the next output; state words below it are already
    /// twisted for the current round, those from it on are not yet.
    next: usize,
}

impl RubyRandom {
    /// `Random.new(seed)` for the non-negative Integer whose big-endian
    /// magnitude bytes are `seed_be` (leading zeros allowed; empty is 0).
    pub fn new(seed_be: &[u8]) -> Self {
        let state = match seed_words(seed_be).as_slice() {
            [] => genrand_state(0),
            [word] => genrand_state(*word),
            key => by_array_states([key]).map(|[word]| word),
        };
        Self { state, next: 0 }
    }

    /// `new` of every seed, in order. Seeding is one long chain of
    /// dependent multiplications, so each run of [`LANES`] consecutive seeds
    /// whose keys have the same number of words (UUIDs nearly always do) is
    /// seeded side by side, their chains overlapping in the processor: two
    /// to three times faster than one by one.
    pub fn new_many<S: AsRef<[u8]>>(seeds: &[S]) -> Vec<Self> {
        let mut generators = Vec::with_capacity(seeds.len());
        for run in seeds.chunks(LANES) {
            let keys: Vec<Vec<u32>> = run.iter().map(|seed| seed_words(seed.as_ref())).collect();
            let words = keys[0].len();
            if run.len() == LANES && words > 1 && keys.iter().all(|key| key.len() == words) {
                let states = by_array_states::<LANES>(std::array::from_fn(|lane| &keys[lane][..]));
                generators.extend((0..LANES).map(|lane| Self {
                    state: std::array::from_fn(|i| states[i][lane]),
                    next: 0,
                }));
            } else {
                generators.extend(run.iter().map(|seed| Self::new(seed.as_ref())));
            }
        }
        generators
    }

    /// The next 32-bit output, Ruby's `genrand_int32`.
    pub fn next_u32(&mut self) -> u32 {
        let i = self.next;
        // Twisting word i in place needs words i and i + 1 of the old round
        // and word i + M (mod N), which is old below N and already new past
        // it — the order the reference's whole-state loop also follows.
        let upper = self.state[i] & UPPER_MASK;
        let lower = self.state[(i + 1) % N] & LOWER_MASK;
        let mixed = upper | lower;
        let twist = (mixed >> 1) ^ if mixed & 1 == 1 { MATRIX_A } else { 0 };
        self.state[i] = self.state[(i + M) % N] ^ twist;
        self.next = (i + 1) % N;
        temper(self.state[i])
    }

    /// `rand(limit)` for an Integer limit: uniform in `0..limit`. A limit of
    /// 0 or 1 gives 0 and draws nothing (Ruby raises for 0; see [`rand_below`]).
    pub fn rand_below(&mut self, limit: u32) -> u32 {
        // An endless stream of outputs always has one below the limit.
        first_below(limit, std::iter::repeat_with(|| self.next_u32())).unwrap_or(0)
    }

    /// The generator's first [`HEAD_OUTPUTS`] outputs.
    pub fn head(&mut self) -> Head {
        Head(std::array::from_fn(|_| self.next_u32()))
    }
}

/// How many outputs a [`Head`] keeps. `rand(limit)` rejects an output with
/// probability below one half, so all eight fail for fewer than 1 seed in
/// 256, and for about 1 in 5,500 with a limit of 86,400.
pub const HEAD_OUTPUTS: usize = 8;

/// The first outputs of a seeded generator: what `rand(limit)` draws for
/// nearly every limit, kept so that a new limit costs no new seeding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head([u32; HEAD_OUTPUTS]);

impl Head {
    /// `rand(limit)` of the generator the head came from, or `None` when
    /// every kept output is rejected and the answer lies further on.
    pub fn rand_below(&self, limit: u32) -> Option<u32> {
        first_below(limit, self.0.iter().copied())
    }
}

/// Ruby's `limited_rand(limit − 1)` over `outputs`: the first output whose
/// low bits (output & mask) are below `limit`, those bits; 0 for a limit of
/// 0 or 1, drawing nothing; `None` if the outputs run out first.
fn first_below(limit: u32, outputs: impl Iterator<Item = u32>) -> Option<u32> {
    let Some(max) = limit.checked_sub(1).filter(|&max| max > 0) else {
        return Some(0);
    };
    let mask = u32::MAX >> max.leading_zeros();
    outputs
        .map(|output| output & mask)
        .find(|&value| value <= max)
}

/// What Ruby's `Random.new(seed).rand(limit)` returns, for the non-negative
/// Integer `seed` whose big-endian magnitude bytes are `seed_be` (leading
/// zeros allowed; empty is 0).
///
/// `limit` 0 gives 0. Ruby raises `ArgumentError` for `rand(0)`; 0 is the
/// value of the nearest call Ruby accepts, `rand(1)`, and it is the only
/// offset inside a window of no length, so callers that spread work over a
/// window can pass a zero-length window without a special case.
pub fn rand_below(seed_be: &[u8], limit: u32) -> u32 {
    if limit <= 1 {
        return 0;
    }
    RubyRandom::new(seed_be).rand_below(limit)
}

/// The seed's 32-bit words, least significant first, as `init_genrand` (one
/// word) or `init_by_array` (more) receive them: no leading zero words, and
/// a leading word of exactly 1 dropped when other words remain.
fn seed_words(seed_be: &[u8]) -> Vec<u32> {
    let first_nonzero = seed_be
        .iter()
        .position(|&byte| byte != 0)
        .unwrap_or(seed_be.len());
    let magnitude = &seed_be[first_nonzero..];
    let mut words: Vec<u32> = magnitude
        .rchunks(4)
        .map(|chunk| {
            chunk
                .iter()
                .fold(0u32, |word, &byte| word << 8 | u32::from(byte))
        })
        .collect();
    if words.len() > 1 && words.last() == Some(&1) {
        words.pop();
    }
    words
}

/// The reference `init_by_array` for `L` keys of one and the same length
/// (at least one word) at once: word i of lane l is word i of key l's state.
fn by_array_states<const L: usize>(keys: [&[u32]; L]) -> [[u32; L]; N] {
    let length = keys[0].len();
    // What step j adds in each lane, gathered so a step reads one array.
    let addends: Vec<[u32; L]> = (0..length)
        .map(|j| keys.map(|key| key[j].wrapping_add(j as u32)))
        .collect();
    let mut state = init_by_array_base().map(|word| [word; L]);
    let mut i = 1;
    let mut j = 0;
    for _ in 0..N.max(length) {
        let (done, rest) = state.split_at_mut(i);
        let words = rest[0].iter_mut().zip(&done[i - 1]).zip(&addends[j]);
        for ((word, &p), &addend) in words {
            *word = (*word ^ (p ^ (p >> 30)).wrapping_mul(1_664_525)).wrapping_add(addend);
        }
        i += 1;
        j += 1;
        if i >= N {
            state[0] = state[N - 1];
            i = 1;
        }
        if j >= length {
            j = 0;
        }
    }
    for _ in 0..N - 1 {
        let (done, rest) = state.split_at_mut(i);
        for (word, &p) in rest[0].iter_mut().zip(&done[i - 1]) {
            *word = (*word ^ (p ^ (p >> 30)).wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
        }
        i += 1;
        if i >= N {
            state[0] = state[N - 1];
            i = 1;
        }
    }
    // The reference sets the top bit so the state can never be all zeros.
    state[0] = [UPPER_MASK; L];
    state
}

/// MT19937's output tempering.
fn temper(mut y: u32) -> u32 {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c_5680;
    y ^= (y << 15) & 0xefc6_0000;
    y ^ (y >> 18)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_words_drop_leading_zeros_and_the_guard_word() {
        assert_eq!(seed_words(&[]), Vec::<u32>::new());
        assert_eq!(seed_words(&[0, 0, 0]), Vec::<u32>::new());
        assert_eq!(seed_words(&[0, 0, 1, 2, 3]), vec![0x0001_0203]);
        assert_eq!(seed_words(&[1, 0, 0, 0, 5]), vec![5]);
        assert_eq!(seed_words(&[2, 0, 0, 0, 5]), vec![5, 2]);
        assert_eq!(seed_words(&[1, 0, 0, 0, 0, 0, 0, 0, 0]), vec![0, 0]);
    }

    #[test]
    fn the_reference_outputs_of_both_seedings() {
        // mt19937ar.c's published test: init_by_array({0x123, 0x234,
        // 0x345, 0x456}) first outputs 1067595299 955945823 477289528.
        let mut by_array = RubyRandom {
            state: by_array_states([&[0x123, 0x234, 0x345, 0x456][..]]).map(|[word]| word),
            next: 0,
        };
        let outputs: Vec<u32> = (0..3).map(|_| by_array.next_u32()).collect();
        assert_eq!(outputs, [1_067_595_299, 955_945_823, 477_289_528]);
        // init_genrand(5489), the reference default, starts 3499211612.
        let mut default = RubyRandom {
            state: genrand_state(5489),
            next: 0,
        };
        assert_eq!(default.next_u32(), 3_499_211_612);
    }

    #[test]
    fn outputs_continue_correctly_across_rounds() {
        // The 10,000th output of init_genrand(5489) is 4123659995 (C++11's
        // std::mt19937 conformance value).
        let mut generator = RubyRandom {
            state: genrand_state(5489),
            next: 0,
        };
        let last = (0..10_000).map(|_| generator.next_u32()).last();
        assert_eq!(last, Some(4_123_659_995));
    }
}
