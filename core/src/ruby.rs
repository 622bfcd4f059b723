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
//! costs 1,247 dependent multiply steps, and the offset needs only the
//! first output or two. So the generator here is written out rather than
//! taken from the `rand_mt` crate, whose outputs match but which repeats the
//! constant part of `init_by_array` (the state of `init_genrand(19650218)`,
//! computed here once) and twists all 624 words before its first output.
//! Here the state is twisted one word at a time, just before its output is
//! tempered: exactly the reference sequence, without the work a draw of one
//! number does not need. [`heads`] and [`rand_below_many`] also seed runs of
//! equal-length keys side by side, each step one vector instruction over
//! every lane, and read the first outputs straight from the seeded state
//! without making generators. The slot plan's million UUID seeds then take
//! about 0.1 s natively with AVX2, 0.4 s with x86-64's baseline SSE2 and
//! 1.25 s in wasm, which has no vector path here.
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
/// How many seeds [`heads`] seeds side by side without AVX2. Natively, four
/// vector registers of x86-64's baseline SSE2, as many lanes as keep it
/// busy. Wasm steps one lane at a time, and four chains overlap there while
/// staying in the engine's registers: in V8 a million seeds take 1.25 s
/// with four lanes against 1.8 s with sixteen.
pub const LANES: usize = if cfg!(target_arch = "wasm32") { 4 } else { 16 };
/// How many seeds [`heads`] seeds side by side with AVX2: eight of its
/// registers, enough independent chains to hide the latency of its multiply.
#[cfg(target_arch = "x86_64")]
const AVX2_LANES: usize = 64;

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
            key => {
                let mut states = [[0; 1]; N];
                by_array_states([key], &mut states);
                states.map(|[word]| word)
            }
        };
        Self { state, next: 0 }
    }

    /// The next 32-bit output, Ruby's `genrand_int32`.
    pub fn next_u32(&mut self) -> u32 {
        let i = self.next;
        // Twisting word i in place needs words i and i + 1 of the old round
        // and word i + M (mod N), which is old below N and already new past
        // it — the order the reference's whole-state loop also follows.
        self.state[i] = twisted(
            self.state[i],
            self.state[(i + 1) % N],
            self.state[(i + M) % N],
        );
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

/// The [`Head`] of `Random.new(seed)` for every seed, in order.
///
/// Seeding is one long chain of dependent multiplications, so each run of
/// [`LANES`] consecutive seeds (more with AVX2) whose keys have the same
/// number of words (UUIDs nearly always do) is seeded side by side, a short
/// run padded with copies of its first key. Output k < N − M of a fresh
/// generator twists only words k, k + 1 and k + M of its seeded state, so
/// the heads are read straight from the lanes' state, one buffer for every
/// run, and no generator is made.
pub fn heads<S: AsRef<[u8]>>(seeds: &[S]) -> Vec<Head> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2, the function's one requirement, was just detected.
        return unsafe { heads_avx2(seeds) };
    }
    heads_side_by_side::<S, LANES>(seeds)
}

/// [`heads`] on processors with AVX2, whose one-instruction 32-bit multiply
/// steps eight lanes at once; SSE2, x86-64's baseline, takes six
/// instructions to multiply four.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn heads_avx2<S: AsRef<[u8]>>(seeds: &[S]) -> Vec<Head> {
    heads_side_by_side::<S, AVX2_LANES>(seeds)
}

/// The body of [`heads`] with `L` lanes, inlined into each variant so it is
/// compiled for that variant's instructions.
#[inline(always)]
fn heads_side_by_side<S: AsRef<[u8]>, const L: usize>(seeds: &[S]) -> Vec<Head> {
    let mut heads = Vec::with_capacity(seeds.len());
    let mut state = Box::new([[0u32; L]; N]);
    let mut words = Vec::new();
    let mut lengths = [0; L];
    for run in seeds.chunks(L) {
        words.clear();
        for (length, seed) in lengths.iter_mut().zip(run) {
            *length = push_seed_words(seed.as_ref(), &mut words);
        }
        let length = lengths[0];
        if length > 1 && lengths[..run.len()].iter().all(|&other| other == length) {
            let keys = std::array::from_fn(|lane| {
                let key = if lane < run.len() { lane } else { 0 };
                &words[key * length..][..length]
            });
            by_array_states(keys, &mut state);
            heads.extend((0..run.len()).map(|lane| {
                Head(std::array::from_fn(|k| {
                    temper(twisted(
                        state[k][lane],
                        state[k + 1][lane],
                        state[k + M][lane],
                    ))
                }))
            }));
        } else {
            heads.extend(run.iter().map(|seed| RubyRandom::new(seed.as_ref()).head()));
        }
    }
    heads
}

/// `Random.new(seed).rand(limit)` for every seed and each of `limits`, in
/// order: from the seeds' [`heads`], seeding a whole generator only for
/// the rare seed whose head runs out.
pub fn rand_below_many<S: AsRef<[u8]>, const K: usize>(
    seeds: &[S],
    limits: [u32; K],
) -> Vec<[u32; K]> {
    // Heads a chunk at a time, so they are still in cache when read.
    const CHUNK: usize = 256 * LANES;
    let mut offsets = Vec::with_capacity(seeds.len());
    for chunk in seeds.chunks(CHUNK) {
        offsets.extend(heads(chunk).iter().zip(chunk).map(|(head, seed)| {
            limits.map(|limit| {
                head.rand_below(limit)
                    .unwrap_or_else(|| RubyRandom::new(seed.as_ref()).rand_below(limit))
            })
        }));
    }
    offsets
}

/// The seed's 32-bit words, least significant first, as `init_genrand` (one
/// word) or `init_by_array` (more) receive them: no leading zero words, and
/// a leading word of exactly 1 dropped when other words remain.
fn seed_words(seed_be: &[u8]) -> Vec<u32> {
    let mut words = Vec::new();
    push_seed_words(seed_be, &mut words);
    words
}

/// [`seed_words`] appended to `words`, so many keys can share one buffer;
/// how many there are.
fn push_seed_words(seed_be: &[u8], words: &mut Vec<u32>) -> usize {
    let start = words.len();
    let first_nonzero = seed_be
        .iter()
        .position(|&byte| byte != 0)
        .unwrap_or(seed_be.len());
    let magnitude = &seed_be[first_nonzero..];
    words.extend(magnitude.rchunks(4).map(|chunk| {
        chunk
            .iter()
            .fold(0u32, |word, &byte| word << 8 | u32::from(byte))
    }));
    if words.len() - start > 1 && words.last() == Some(&1) {
        words.pop();
    }
    words.len() - start
}

/// The reference `init_by_array` for `L` keys of one and the same length
/// (at least one word) at once, into `state`: word i of lane l becomes word
/// i of key l's seeded state. Every word of `state` is written before it is
/// read, so it may hold anything on entry.
///
/// Both loops are one chain of dependent steps per key, each a multiply; the
/// keys' chains are independent, so each step works on all lanes and the
/// compiler turns it into vector instructions, those of its caller's
/// variant once inlined.
#[inline(always)]
fn by_array_states<const L: usize>(keys: [&[u32]; L], state: &mut [[u32; L]; N]) {
    let length = keys[0].len();
    // What step j adds in each lane, gathered so a step reads one array.
    let addends: Vec<[u32; L]> = (0..length)
        .map(|j| keys.map(|key| key[j].wrapping_add(j as u32)))
        .collect();
    let base = init_by_array_base();
    let mut previous = [base[0]; L];
    let mut addend = addends.iter().cycle();
    // The first pass over words 1 to N − 1 finds every word still as
    // `init_genrand` left it, the same in all lanes.
    for (i, added) in (1..N).zip(&mut addend) {
        previous = std::array::from_fn(|lane| {
            let mixed = mix(previous[lane]).wrapping_mul(1_664_525);
            (base[i] ^ mixed).wrapping_add(added[lane])
        });
        state[i] = previous;
    }
    // The reference wraps from word N − 1 to word 1, carrying the last word
    // into word 0; the first loop takes N steps, or one a key word.
    state[0] = previous;
    let mut i = 1;
    for added in addend.take(N.max(length) - (N - 1)) {
        previous = std::array::from_fn(|lane| {
            let mixed = mix(previous[lane]).wrapping_mul(1_664_525);
            (state[i][lane] ^ mixed).wrapping_add(added[lane])
        });
        state[i] = previous;
        i += 1;
        if i == N {
            state[0] = previous;
            i = 1;
        }
    }
    for _ in 0..N - 1 {
        previous = std::array::from_fn(|lane| {
            let mixed = mix(previous[lane]).wrapping_mul(1_566_083_941);
            (state[i][lane] ^ mixed).wrapping_sub(i as u32)
        });
        state[i] = previous;
        i += 1;
        if i == N {
            state[0] = previous;
            i = 1;
        }
    }
    // The reference sets the top bit so the state can never be all zeros.
    state[0] = [UPPER_MASK; L];
}

/// What both seeding loops multiply: a word with its top two bits folded in.
fn mix(word: u32) -> u32 {
    word ^ (word >> 30)
}

/// The twist of one word: its top bit and the next word's other bits,
/// shifted and conditionally mixed with the matrix, onto the word M on.
fn twisted(word: u32, next: u32, far: u32) -> u32 {
    let mixed = (word & UPPER_MASK) | (next & LOWER_MASK);
    far ^ (mixed >> 1) ^ if mixed & 1 == 1 { MATRIX_A } else { 0 }
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
        let mut states = [[0; 1]; N];
        by_array_states([&[0x123, 0x234, 0x345, 0x456][..]], &mut states);
        let mut by_array = RubyRandom {
            state: states.map(|[word]| word),
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
    fn every_width_of_heads_gives_each_generators_head() {
        // 16-byte seeds, with a one-word one now and then in the middle, so
        // each width sees full runs, mixed runs and a partial run at the end.
        let seeds: Vec<Vec<u8>> = (0..300u32)
            .map(|i| {
                let word = i.wrapping_mul(2_654_435_761);
                let bytes = [word, !word, word.rotate_left(13), i].map(u32::to_be_bytes);
                if (150..250).contains(&i) && i % 20 == 3 {
                    bytes[0].to_vec()
                } else {
                    bytes.concat()
                }
            })
            .collect();
        let each: Vec<Head> = seeds
            .iter()
            .map(|seed| RubyRandom::new(seed).head())
            .collect();
        assert_eq!(heads_side_by_side::<_, LANES>(&seeds), each);
        assert_eq!(heads(&seeds), each);
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
