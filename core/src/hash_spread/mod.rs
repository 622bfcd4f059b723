//! Hash spread: an offset in the window derived from each task's id.
//!
//! A task with id k runs at offset(k) seconds into a recurring window of W
//! seconds. The offset depends on nothing but the id and W, so it is the
//! same on every run and machine, and adding tasks never moves the ones
//! already placed. With N ids a start falls on average every W / N seconds.
//!
//! Modes:
//! - a 32-bit hash h of the id's UTF-8 bytes (FarmHash Fingerprint32,
//!   MurmurHash3_x86_32, XXH32 or FNV-1a, see [`crate::hash`]), reduced to
//!   the window either by `mod`, h mod W, or by `mulshift`, ⌊h·W / 2³²⌋
//!   computed as (h·W) >> 32 in 64 bits. `mulshift` keeps a key's relative
//!   place when W changes, where `mod` scatters it anew; but `mulshift` uses
//!   only the high bits of h, and FNV-1a mixes a key's last bytes into those
//!   weakly, so sequential ids clump under FNV with `mulshift`;
//! - `ruby`: Ruby's `Random.new(seed).rand(W)` ([`crate::ruby::rand_below`]),
//!   with the id turned into the seed Integer by [`ruby_seed`]: a decimal
//!   id is that integer, a UUID is its 16 bytes read as one big-endian
//!   integer, and any other id is its UTF-8 bytes read the same way (what
//!   Ruby's `id.unpack1("H*").to_i(16)` gives; the empty id is 0). The
//!   reduction does not apply;
//! - `head`: the id's first four bytes read as a big-endian u32 (a UUID's
//!   first four bytes, else the first four UTF-8 bytes, zero-padded),
//!   reduced like a hash. It is the naive bucket a reader might take from
//!   an id's front; a UUIDv7 starts with its creation time, so ids made
//!   within a minute or so share it.
//!
//! Two functions run on the same ids, so a page shows them side by side;
//! with Ruby's among them at most [`MAX_RUBY_KEYS`] ids are placed, as its
//! seeding is slow. A look-up gives one id's hash, offset and time of day.
//!
//! A rank-based even spread is shown beside: sort the ids bytewise and give
//! the id of rank r (from 0) the offset ⌊r·W / N⌋. It is perfectly even,
//! but adding ids shifts the ranks, so nearly every id moves.
//!
//! The ids are N generated keys ([`crate::keys`]) or the reader's own, up to
//! [`keys::MAX_PASTED_IDS`] of them, read by [`keys::read_pasted`]. A link
//! carries the first of them that fit in [`MAX_URL_IDS_CHARS`] characters,
//! comma-separated; the page holds the rest, and says so.
//!
//! A page redraws as a slider moves, so [`HashSpreadCache`] keeps the generated ids
//! and what of each id does not depend on W, its hash or its first Ruby
//! outputs ([`ruby::Head`]), from run to run: a new N or W then hashes or
//! seeds only ids not seen before, and the result equals [`run`]'s.
//!
//! What a run measures, for buckets of width b (the last one shorter when b
//! does not divide W):
//! - each id's offset and its time of day, offset mod 86,400 s, and the
//!   offsets counted in up to [`STRIP_BINS`] narrow bins for a strip plot;
//! - counts per bucket and Pearson's χ² = Σ (observed − expected)² /
//!   expected against uniform, where a bucket of width w expects N·w / W
//!   keys, with (buckets − 1) degrees of freedom, and its p-value;
//! - the ratio of the fullest bucket to the emptiest, each as keys per
//!   second of bucket so a short last bucket compares fairly;
//! - the largest gap between consecutive offsets on the circle of the
//!   window (the last offset wraps to the first), beside the W·H_N / N
//!   that N uniform points leave on average (H_N = 1 + 1/2 + … + 1/N);
//! - the keys that share an offset with another key, beside the
//!   N·(1 − (1 − 1/W)^(N−1)) that a uniform hash gives on average;
//! - stability: the share of ids whose offset changes when ⌈N/10⌉ ids are
//!   added (0 for every mode; nearly all for the rank spread), and when the
//!   window changes to a second window (by default W plus one bucket). The
//!   added ids are the ones the chosen generator makes after its first N,
//!   less any already present (so pasted ids are never added twice).
//!
//! Offsets and hashes stay in u32 and u64 arithmetic throughout.
//!
//! ```
//! use stampede_core::hash_spread::{HashMode, Placement, Reduction};
//!
//! let placement = Placement {
//!     mode: HashMode::Murmur,
//!     reduction: Reduction::Mod,
//!     window: 3_600,
//! };
//! // Stable: an id's offset never changes, whatever else is placed.
//! let offset = placement.offset("account-42").unwrap();
//! assert!(offset < 3_600);
//! assert_eq!(placement.place(&["account-42", "account-7"]).unwrap()[0], offset);
//! ```

use std::collections::HashSet;

use crate::error::{InvalidInput, count_at_most};
use crate::keys::{self, KeyKind, KeyStream};
use crate::ruby;
use crate::speedup::Speedup;
use crate::units::SECONDS_PER_DAY;

mod measure;
mod placement;

pub use measure::{
    Collisions, Gap, Movement, Stability, Uniformity, expected_largest_gap, stability,
};
use measure::{
    collisions, count_buckets, largest_gap, max_min_ratio, stability_of, strip_counts, uniformity,
};
use placement::{for_ruby_seeds, sorted_order};

pub use placement::{HashMode, Placement, Reduction, place_by_rank, ruby_seed};

/// The most ids a run places: 400,000 UUIDs take about 0.8 s natively
/// (generated, hashed twice and checked for stability), so twice that in
/// a browser's WebAssembly stays within 2 s.
pub const MAX_PLACED_KEYS: u32 = 400_000;
/// The most buckets a run counts: a week in minutes.
pub const MAX_BUCKETS: u32 = 10_080;
/// How many keys FNV-1a hashes side by side (see [`crate::hash::fnv1a_32_lanes`]).
const FNV_LANES: usize = 4;
/// The most characters of pasted ids a link carries.
pub const MAX_URL_IDS_CHARS: usize = 2_000;
/// The most ids when either function is Ruby's, whose seeding costs about
/// 1,900 dependent steps an id: beyond this a redraw no longer feels live.
pub const MAX_RUBY_KEYS: u32 = 20_000;
/// The most ids [`HashSpreadCache::ready_ahead`] readies (and those the
/// stability check adds): as many as a run with Ruby's generator places,
/// about 40 ms of work in Chromium with Ruby's among the functions.
pub const READIED_KEYS: u32 = MAX_RUBY_KEYS;
/// How many bins the strip of every offset has at most: a few per pixel
/// column of a wide chart, so single keys still show as thin impulses.
pub const STRIP_BINS: u32 = 1_200;

/// The id a reader looks up; empty looks up the first id placed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LookupId(pub String);

/// The reader's own ids, written in a URL separated by commas (see
/// [`keys::read_pasted`] for how a paste is read).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PastedIds(pub Vec<String>);

/// The ids to place (generated or pasted), the window, the two functions
/// compared and the buckets that measure the spread.
#[derive(Clone, Debug, PartialEq)]
pub struct HashSpreadParams {
    /// N, how many ids to generate (pasted ids replace them).
    pub keys: u32,
    /// W, the recurring window in seconds.
    pub window: u32,
    pub key_kind: KeyKind,
    pub mode: HashMode,
    pub reduction: Reduction,
    /// The function drawn under the first, on the same ids.
    pub mode2: HashMode,
    pub reduction2: Reduction,
    /// b, the width of a bucket in the counts and the uniformity test.
    pub bucket_width: u32,
    /// The window the stability check changes to; 0 means W + b.
    pub second_window: u32,
    /// The reader's own ids; when there are any, they are placed instead
    /// of generated ones.
    pub ids: PastedIds,
    /// The id whose hash, offset and time of day the page spells out.
    pub lookup: LookupId,
}

impl HashSpreadParams {
    /// How many ids a run places: the pasted ones if any, else N.
    pub fn key_count(&self) -> u32 {
        if self.ids.0.is_empty() {
            self.keys
        } else {
            self.ids.0.len() as u32
        }
    }

    /// The average distance between neighbouring offsets: W / N seconds.
    pub fn mean_spacing_seconds(&self) -> f64 {
        f64::from(self.window) / f64::from(self.key_count())
    }

    /// The window the stability check changes to: the chosen one, or W + b.
    pub fn second_window_seconds(&self) -> u64 {
        match self.second_window {
            0 => u64::from(self.window) + u64::from(self.bucket_width),
            chosen => u64::from(chosen),
        }
    }

    pub fn placement(&self) -> Placement {
        Placement {
            mode: self.mode,
            reduction: self.reduction,
            window: self.window,
        }
    }

    /// The second function's placement, in the same window.
    pub fn second_placement(&self) -> Placement {
        Placement {
            mode: self.mode2,
            reduction: self.reduction2,
            window: self.window,
        }
    }

    /// The most ids a run takes: [`MAX_RUBY_KEYS`] when Ruby's generator is
    /// one of the functions, else [`MAX_PLACED_KEYS`].
    pub fn most_keys(&self) -> u32 {
        if self.uses_ruby() {
            MAX_RUBY_KEYS
        } else {
            MAX_PLACED_KEYS
        }
    }

    /// Whether either function is Ruby's, which caps the ids.
    pub fn uses_ruby(&self) -> bool {
        self.mode == HashMode::Ruby || self.mode2 == HashMode::Ruby
    }
}

/// How the second function spread the same ids.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Spread {
    /// The function's slugs, as the URL writes them.
    pub mode: &'static str,
    pub reduction: &'static str,
    /// Each id's offset, in the order of [`HashSpreadRun::keys`].
    pub offsets: Vec<u32>,
    /// Keys per strip bin; see [`HashSpreadRun::strip_counts`].
    pub strip_counts: Vec<u32>,
    pub bucket_counts: Vec<u32>,
    pub uniformity: Uniformity,
    pub max_min_ratio: Option<f64>,
    pub largest_gap: Gap,
    pub collisions: Collisions,
}

/// One id's place under the first function.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Lookup {
    pub id: String,
    /// Its 32-bit hash; `None` in Ruby mode, which draws instead.
    pub hash: Option<u32>,
    /// Seconds from the window's start.
    pub offset: u32,
    /// offset mod 86,400 s: when it runs if the window starts at midnight.
    pub time_of_day: u32,
    /// The id's offset under the second function.
    pub second_offset: u32,
}

/// Everything a Hash spread run produced.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct HashSpreadRun {
    /// The ids placed, generated or pasted, in order.
    pub keys: Vec<String>,
    /// Each id's offset in seconds from the window's start.
    pub offsets: Vec<u32>,
    /// Each offset modulo a day: its time of day in seconds when the window
    /// starts at midnight.
    pub times_of_day: Vec<u32>,
    pub window: u32,
    pub bucket_width: u32,
    /// Keys per bucket; bucket i holds offsets in [i·b, (i + 1)·b).
    pub bucket_counts: Vec<u32>,
    /// Keys per strip bin: min(W, [`STRIP_BINS`]) bins of W / bins seconds,
    /// offset o in bin ⌊o·bins / W⌋. Fine enough that one key is one
    /// impulse, coarse enough that a million still read as a band.
    pub strip_counts: Vec<u32>,
    pub uniformity: Uniformity,
    /// Keys per second in the fullest bucket over the emptiest; `None` when
    /// a bucket is empty.
    pub max_min_ratio: Option<f64>,
    pub largest_gap: Gap,
    pub collisions: Collisions,
    pub stability: Stability,
    pub second: Spread,
    pub lookup: Lookup,
}

/// Places the ids `params` asks for under `seed`: the pasted ones if there
/// are any, else N generated ones of the chosen kind.
pub fn run(params: &HashSpreadParams, seed: u64) -> Result<HashSpreadRun, InvalidInput> {
    if !params.ids.0.is_empty() {
        return run_with_ids(params, params.ids.0.clone(), seed);
    }
    let count = generated_count(params)?;
    let ids = keys::generate(params.key_kind, count + growth(count), seed)?;
    let (keys, added) = ids.split_at(count as usize);
    analyse(params, keys, added, Known::default())
}

/// How many ids `params` asks to generate, checked.
fn generated_count(params: &HashSpreadParams) -> Result<u32, InvalidInput> {
    count_at_most(
        "keys",
        u64::from(params.keys),
        u64::from(params.most_keys()),
    )?;
    if params.keys == 0 {
        return Err(InvalidInput::new("keys", "at least one id is needed"));
    }
    Ok(params.keys)
}

/// What [`run`] computed for generated ids, kept for the next run.
#[derive(Debug, Default)]
pub struct HashSpreadCache {
    generated: Option<GeneratedIds>,
}

/// The first ids of one kind under one seed (every longer list of them
/// starts with these), the digests of the first of them under the modes
/// last used, and the ids' sorted order once a run has needed it.
#[derive(Debug)]
struct GeneratedIds {
    kind: KeyKind,
    seed: u64,
    /// Where the ids after `keys` come from.
    stream: KeyStream,
    keys: Vec<String>,
    digests: Vec<Digests>,
    order: Option<Vec<usize>>,
}

/// What a [`HashSpreadCache`] already knows of a run's ids, the added ones after
/// them.
#[derive(Clone, Copy, Default)]
struct Known<'a> {
    /// Digests under the first and the second function.
    digests: [Option<&'a Digests>; 2],
    /// The sorted order of the ids, perhaps with more ids after them.
    order: Option<&'a [usize]>,
}

/// What placing ids in one mode takes from each id whatever the window, in
/// the ids' order: its 32-bit hash, or in Ruby mode its generator's first
/// outputs.
#[derive(Debug)]
enum Digests {
    Hashes(HashMode, Vec<u32>),
    RubyHeads(Vec<ruby::Head>),
}

impl Digests {
    fn new(mode: HashMode) -> Self {
        match mode {
            HashMode::Ruby => Self::RubyHeads(Vec::new()),
            hashed => Self::Hashes(hashed, Vec::new()),
        }
    }

    fn mode(&self) -> HashMode {
        match self {
            Self::Hashes(mode, _) => *mode,
            Self::RubyHeads(_) => HashMode::Ruby,
        }
    }

    fn len(&self) -> usize {
        match self {
            Self::Hashes(_, hashes) => hashes.len(),
            Self::RubyHeads(heads) => heads.len(),
        }
    }

    /// Appends the digests of `keys`.
    fn extend(&mut self, keys: &[String]) -> Result<(), InvalidInput> {
        match self {
            // Every mode but Ruby's hashes, so nothing is skipped.
            Self::Hashes(mode, hashes) => {
                hashes.extend(keys.iter().filter_map(|key| mode.hash(key)));
                Ok(())
            }
            Self::RubyHeads(heads) => {
                for_ruby_seeds(keys, |seeds| heads.extend(ruby::heads(seeds)))
            }
        }
    }
}

impl Speedup for HashSpreadCache {
    type Params = HashSpreadParams;
    type Run = HashSpreadRun;

    fn plain(params: &HashSpreadParams, seed: u64) -> Result<HashSpreadRun, InvalidInput> {
        run(params, seed)
    }

    /// [`run`], reusing the ids and digests of earlier runs.
    fn run(&mut self, params: &HashSpreadParams, seed: u64) -> Result<HashSpreadRun, InvalidInput> {
        if !params.ids.0.is_empty() {
            return run_with_ids(params, params.ids.0.clone(), seed);
        }
        let count = generated_count(params)?;
        let total = count + growth(count);
        let count = count as usize;
        let generated = self.generated(params.key_kind, seed, total)?;
        let total = total as usize;
        let modes = [params.mode, params.mode2];
        generated.digest_all(modes, total)?;
        let GeneratedIds {
            keys,
            digests,
            order,
            ..
        } = generated;
        let order = order.get_or_insert_with(|| sorted_order(keys));
        let known = Known {
            digests: modes.map(|mode| digests.iter().find(|digests| digests.mode() == mode)),
            order: Some(order),
        };
        let (keys, added) = keys[..total].split_at(count);
        analyse(params, keys, added, known)
    }

    /// Readies up to `most` more of the ids that runs of `params`' kind of
    /// id, seed and functions may take, up to [`READIED_KEYS`] and the ids
    /// the stability check adds to them: each made and digested, and once
    /// all are, sorted. A page calls it while idle, so that a drag up N
    /// finds its ids ready; the runs are the same either way. Returns
    /// whether more is left; pasted ids need nothing, and ids a run
    /// refuses are not readied.
    fn ready_ahead(&mut self, params: &HashSpreadParams, seed: u64, most: u32) -> bool {
        self.ready_ids_ahead(params, seed, most).unwrap_or(false)
    }
}

impl HashSpreadCache {
    fn ready_ids_ahead(
        &mut self,
        params: &HashSpreadParams,
        seed: u64,
        most: u32,
    ) -> Result<bool, InvalidInput> {
        if !params.ids.0.is_empty() {
            return Ok(false);
        }
        let largest = params.most_keys().min(READIED_KEYS);
        let target = largest + growth(largest);
        let modes = [params.mode, params.mode2];
        let ready = self
            .generated
            .as_ref()
            .filter(|ids| ids.kind == params.key_kind && ids.seed == seed)
            .map_or(0, |ids| ids.ready(modes));
        let next = target.min(ready.saturating_add(most));
        let generated = self.generated(params.key_kind, seed, next)?;
        generated.digest_all(modes, next as usize)?;
        if next < target {
            return Ok(true);
        }
        let GeneratedIds { keys, order, .. } = generated;
        order.get_or_insert_with(|| sorted_order(keys));
        Ok(false)
    }

    /// At least `count` ids of `kind` under `seed`: those kept, if of that
    /// kind and seed, with their digests, then the stream's next ones.
    fn generated(
        &mut self,
        kind: KeyKind,
        seed: u64,
        count: u32,
    ) -> Result<&mut GeneratedIds, InvalidInput> {
        count_at_most("keys", u64::from(count), u64::from(keys::MAX_KEYS))?;
        let ids = match self.generated.take() {
            Some(ids) if ids.kind == kind && ids.seed == seed => ids,
            _ => GeneratedIds {
                kind,
                seed,
                stream: KeyStream::new(kind, seed),
                keys: Vec::new(),
                digests: Vec::new(),
                order: None,
            },
        };
        let ids = self.generated.insert(ids);
        let more = (count as usize).saturating_sub(ids.keys.len());
        if more > 0 {
            ids.keys.extend(ids.stream.by_ref().take(more));
            ids.order = None;
        }
        Ok(ids)
    }
}

impl GeneratedIds {
    /// How many of the first ids have their digests under both `modes`.
    fn ready(&self, modes: [HashMode; 2]) -> u32 {
        let digested = |mode| {
            self.digests
                .iter()
                .find(|digests| digests.mode() == mode)
                .map_or(0, Digests::len)
        };
        modes.map(digested).into_iter().min().unwrap_or(0) as u32
    }

    /// Keeps the digests under `modes` only, and makes those of the first
    /// `count` ids that have none.
    fn digest_all(&mut self, modes: [HashMode; 2], count: usize) -> Result<(), InvalidInput> {
        self.digests
            .retain(|digests| modes.contains(&digests.mode()));
        for mode in modes {
            self.digest(mode, count)?;
        }
        Ok(())
    }

    /// Makes the digests in `mode` of the first `count` ids that have none.
    fn digest(&mut self, mode: HashMode, count: usize) -> Result<(), InvalidInput> {
        let index = match self
            .digests
            .iter()
            .position(|digests| digests.mode() == mode)
        {
            Some(index) => index,
            None => {
                self.digests.push(Digests::new(mode));
                self.digests.len() - 1
            }
        };
        let digests = &mut self.digests[index];
        match self.keys.get(digests.len()..count) {
            Some(missing) => digests.extend(missing),
            None => Ok(()),
        }
    }
}

/// Places `ids` (a paste too long for the URL, say) with the rest of
/// `params`; the stability check appends generated ids of the chosen kind
/// that are not among them. Repeated ids are placed as given.
pub fn run_with_ids(
    params: &HashSpreadParams,
    ids: Vec<String>,
    seed: u64,
) -> Result<HashSpreadRun, InvalidInput> {
    let count = count_at_most("ids", ids.len() as u64, u64::from(params.most_keys()))? as u32;
    if count == 0 {
        return Err(InvalidInput::new("ids", "at least one id is needed"));
    }
    let candidates = keys::generate(params.key_kind, count + growth(count), seed)?;
    let present: HashSet<&str> = ids.iter().map(String::as_str).collect();
    let added: Vec<String> = candidates
        .into_iter()
        .skip(ids.len())
        .filter(|candidate| !present.contains(candidate.as_str()))
        .collect();
    analyse(params, &ids, &added, Known::default())
}

/// ⌈n / 10⌉, how many ids the stability check adds to n.
fn growth(n: u32) -> u32 {
    n.div_ceil(10)
}

/// The run for `keys`, `added` joining them in the stability check, and
/// what is already `known` of both.
fn analyse(
    params: &HashSpreadParams,
    keys: &[String],
    added: &[String],
    known: Known,
) -> Result<HashSpreadRun, InvalidInput> {
    let window = params.window;
    let bucket_width = params.bucket_width;
    if window == 0 {
        return Err(InvalidInput::new("window", "must be at least 1 s"));
    }
    if bucket_width == 0 {
        return Err(InvalidInput::new("bucket width", "must be at least 1 s"));
    }
    let buckets = count_at_most(
        "bucket width",
        u64::from(window.div_ceil(bucket_width)),
        u64::from(MAX_BUCKETS),
    )? as u32;
    let second_window = u32::try_from(params.second_window_seconds())
        .map_err(|_| InvalidInput::new("second window", "must be below 2³² s"))?;

    let placement = params.placement();
    let [digests, second_digests] = known.digests;
    let first = measure(placement, keys, digests, bucket_width, buckets)?;
    let second = measure(
        params.second_placement(),
        keys,
        second_digests,
        bucket_width,
        buckets,
    )?;
    let stability = stability_of(
        placement,
        keys,
        &first.offsets,
        added,
        Known {
            digests: [digests, None],
            ..known
        },
        second_window,
        bucket_width,
    )?;
    let lookup = look_up(params, &keys[0])?;
    let Spread {
        offsets,
        strip_counts,
        bucket_counts,
        uniformity,
        max_min_ratio,
        largest_gap,
        collisions,
        ..
    } = first;
    Ok(HashSpreadRun {
        times_of_day: offsets.iter().map(|o| o % SECONDS_PER_DAY).collect(),
        keys: keys.to_vec(),
        offsets,
        window,
        bucket_width,
        bucket_counts,
        strip_counts,
        uniformity,
        max_min_ratio,
        largest_gap,
        collisions,
        stability,
        second,
        lookup,
    })
}

/// Places `keys` by `placement` (from their `digests` if known) and
/// measures the spread.
fn measure(
    placement: Placement,
    keys: &[String],
    digests: Option<&Digests>,
    bucket_width: u32,
    buckets: u32,
) -> Result<Spread, InvalidInput> {
    let window = placement.window;
    let offsets = placement.place_given(keys, digests)?;
    let bucket_counts = count_buckets(&offsets, bucket_width, buckets);
    // Sorted as u64s: the docs module already holds that sort, and one of
    // u32s would add about 3 KB of wasm.
    let mut wide: Vec<u64> = offsets.iter().map(|&offset| offset.into()).collect();
    wide.sort_unstable();
    let sorted: Vec<u32> = wide.into_iter().map(|offset| offset as u32).collect();
    Ok(Spread {
        mode: placement.mode.slug(),
        reduction: placement.reduction.slug(),
        strip_counts: strip_counts(&offsets, window),
        uniformity: uniformity(&bucket_counts, window, bucket_width),
        max_min_ratio: max_min_ratio(&bucket_counts, window, bucket_width),
        largest_gap: largest_gap(&sorted, window),
        collisions: collisions(&sorted, window),
        offsets,
        bucket_counts,
    })
}

/// The look-up of the reader's id, or of `first_key` when none is given.
fn look_up(params: &HashSpreadParams, first_key: &str) -> Result<Lookup, InvalidInput> {
    let id = match params.lookup.0.as_str() {
        "" => first_key,
        chosen => chosen,
    };
    let for_lookup = |error: InvalidInput| InvalidInput::new("look-up id", error.reason);
    let placement = params.placement();
    let offset = placement.offset(id).map_err(for_lookup)?;
    Ok(Lookup {
        id: id.to_string(),
        hash: placement.mode.hash(id),
        offset,
        time_of_day: offset % SECONDS_PER_DAY,
        second_offset: params.second_placement().offset(id).map_err(for_lookup)?,
    })
}
