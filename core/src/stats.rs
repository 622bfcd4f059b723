//! Small statistics shared by the simulations and their tests.
//!
//! - Quantile of sorted values, "type 7": for p in [0, 1] and n values,
//!   h = (n − 1)·p and the result interpolates linearly between the values
//!   at positions ⌊h⌋ and ⌈h⌉ (0-based).
//! - Histogram: bin k counts values in [origin + k·w, origin + (k + 1)·w).
//! - One-sample Kolmogorov–Smirnov: D is the largest distance between the
//!   sample's step cdf and the claimed cdf F; for n values sorted
//!   x₁ ≤ … ≤ xₙ, D = maxᵢ max(i/n − F(xᵢ), F(xᵢ) − (i − 1)/n). Its p-value
//!   uses the asymptotic Kolmogorov distribution
//!   Q(λ) = 2 Σ_{k≥1} (−1)^(k−1) e^(−2k²λ²) at Stephens' small-sample
//!   λ = (√n + 0.12 + 0.11/√n)·D.
//! - Chi-square: Pearson's statistic Σ (observed − expected)² / expected
//!   and its upper-tail probability.
//!
//! ```
//! use stampede_core::stats::quantile_sorted;
//!
//! assert_eq!(quantile_sorted(&[1.0, 2.0, 3.0, 4.0], 0.5), Some(2.5));
//! ```

use std::f64::consts::PI;

use statrs::distribution::{ChiSquared, ContinuousCDF};

/// The type-7 quantile of values sorted ascending; `None` for an empty
/// slice or p outside [0, 1]. Unsorted input gives a meaningless number.
pub fn quantile_sorted(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() || !(0.0..=1.0).contains(&p) {
        return None;
    }
    let h = (sorted.len() - 1) as f64 * p;
    let below = h.floor();
    let (low, high) = (sorted[below as usize], sorted[h.ceil() as usize]);
    Some(low + (h - below) * (high - low))
}

/// The type-7 quantile of `values` in any order, found by selection in
/// O(n) instead of an O(n log n) sort; `values` is reordered. Same result
/// and `None` cases as [`quantile_sorted`].
pub fn quantile_unsorted(values: &mut [f64], p: f64) -> Option<f64> {
    quantiles_unsorted(values, [p]).map(|[quantile]| quantile)
}

/// [`quantile_unsorted`] at each of `ps`, which ascend: each is selected
/// among the values the one before left above it, so several cost little
/// more than one. `None` when any p would give `None`, or `ps` descend.
pub fn quantiles_unsorted<const N: usize>(values: &mut [f64], ps: [f64; N]) -> Option<[f64; N]> {
    let positions = type7_positions(values.len(), ps)?;
    // Selected among keys, as in [`place_order_statistics`].
    let mut keys = total_order_keys(values);
    // keys[unplaced..] hold the order statistics from `unplaced` on.
    let mut unplaced = 0;
    let mut low = 0;
    let quantiles = positions.map(|(h, below)| {
        let k = below as usize;
        if k >= unplaced {
            low = *keys[unplaced..].select_nth_unstable(k - unplaced).1;
            unplaced = k + 1;
        }
        // The next order statistic is the smallest of what lies above.
        let high = keys[k + 1..].iter().copied().min().unwrap_or(low);
        let [low, high] = [low, high].map(from_total_order_key);
        low + (h - below) * (high - low)
    });
    write_total_order_keys(values, keys);
    Some(quantiles)
}

/// Where type 7 reads each of `ps` among `len` values: h = (len − 1)·p
/// and ⌊h⌋, the rank of the lower order statistic. `None` as
/// [`quantiles_unsorted`] gives it.
fn type7_positions<const N: usize>(len: usize, ps: [f64; N]) -> Option<[(f64, f64); N]> {
    let ascending = ps.is_sorted_by(|a, b| a <= b);
    if len == 0 || !ascending || !ps.iter().all(|p| (0.0..=1.0).contains(p)) {
        return None;
    }
    let last = (len - 1) as f64;
    Some(ps.map(|p| {
        let h = last * p;
        (h, h.floor())
    }))
}

/// Type-7 quantiles, the same numbers [`quantiles_unsorted`] gives, of
/// values read twice and never held all at once: the first pass counts
/// them in coarse buckets by size, the second gathers only the buckets
/// that hold the order statistics the quantiles read, and selection runs
/// among those few.
///
/// Exact for any scale: a bucket is ⌊v·s⌋ for a positive s, clamped, which
/// never decreases as v grows, so the value of rank k lies in the bucket
/// where the running count passes k. The scale only sets how few are
/// gathered: with `typical` the values' mean, about 1/256 of exponential
/// ones near their median.
///
/// ```
/// use stampede_core::stats::{TwoPassQuantiles, quantiles_unsorted};
///
/// let values = [3.0, 0.5, 8.0, 1.0, 2.0, 13.0, 5.0];
/// let mut counts = TwoPassQuantiles::new(4.0);
/// values.iter().for_each(|&v| counts.count(v));
/// let quantiles = counts.quantiles(values, [0.5, 0.9]);
/// assert_eq!(quantiles, quantiles_unsorted(&mut values.clone(), [0.5, 0.9]));
/// assert_eq!(quantiles, Some([3.0, 10.000000000000002]));
/// ```
#[derive(Clone, Debug)]
pub struct TwoPassQuantiles {
    per_unit: f64,
    counts: Vec<usize>,
    len: usize,
}

impl TwoPassQuantiles {
    const BUCKETS: usize = 4096;
    const BUCKETS_PER_TYPICAL: f64 = 256.0;

    /// Nothing counted yet, buckets sized for values near `typical`; any
    /// other number (zero, NaN) only makes the second pass gather more.
    pub fn new(typical: f64) -> Self {
        let per_unit = Self::BUCKETS_PER_TYPICAL / typical;
        Self {
            per_unit: if per_unit.is_finite() && per_unit > 0.0 {
                per_unit
            } else {
                1.0
            },
            counts: vec![0; Self::BUCKETS],
            len: 0,
        }
    }

    /// The first pass: one value.
    #[inline]
    pub fn count(&mut self, value: f64) {
        let bucket = self.bucket(value);
        self.counts[bucket] += 1;
        self.len += 1;
    }

    /// The second pass: the quantiles at `ps` (ascending, in [0, 1]) of
    /// `values`, which must be the values counted, in any order. `None` as
    /// [`quantiles_unsorted`] gives it, or when `values` are not those.
    pub fn quantiles<const N: usize>(
        &self,
        values: impl IntoIterator<Item = f64>,
        ps: [f64; N],
    ) -> Option<[f64; N]> {
        let positions = type7_positions(self.len, ps)?;
        let mut wanted = vec![false; Self::BUCKETS];
        // Ranks ascend, so one walk up the buckets finds each one's bucket
        // (where the running count passes it), marks it wanted, and gives
        // its rank among the gathered: less the values of the buckets
        // below it that are left out.
        let (mut bucket, mut start, mut left_out, mut gathering) = (0, 0, 0, 0);
        let mut gathered_rank = |rank: usize| {
            while start + self.counts[bucket] <= rank {
                if !wanted[bucket] {
                    left_out += self.counts[bucket];
                }
                start += self.counts[bucket];
                bucket += 1;
            }
            if !wanted[bucket] {
                wanted[bucket] = true;
                gathering += self.counts[bucket];
            }
            rank - left_out
        };
        // Each quantile's order statistics among the gathered: ⌊h⌋ and the
        // next, or ⌊h⌋ again at the end.
        let places = positions.map(|(_, below)| {
            let k = below as usize;
            let low = gathered_rank(k);
            [
                low,
                if k + 1 < self.len {
                    gathered_rank(k + 1)
                } else {
                    low
                },
            ]
        });
        let mut gathered = Vec::with_capacity(gathering);
        for value in values {
            if wanted[self.bucket(value)] {
                gathered.push(value);
            }
        }
        if gathered.len() != gathering {
            return None;
        }
        place_order_statistics(&mut gathered, places.as_flattened());
        Some(std::array::from_fn(|i| {
            let ((h, below), [low, high]) = (positions[i], places[i]);
            let (low, high) = (gathered[low], gathered[high]);
            low + (h - below) * (high - low)
        }))
    }

    #[inline]
    fn bucket(&self, value: f64) -> usize {
        // A NaN with its sign clear sorts above every number, and goes
        // last; the cast puts any other NaN and every number below zero
        // first, where they sort.
        if value.is_nan() && value.is_sign_positive() {
            return Self::BUCKETS - 1;
        }
        ((value * self.per_unit) as usize).min(Self::BUCKETS - 1)
    }
}

/// Moves the order statistic of each of `ranks` (from 0, ascending) to its
/// place in `values`, where a sort would put it, each selected among the
/// values the one before left above it, so several cost little more than
/// one; ranks out of order or past the end are skipped. `values` is
/// reordered.
pub fn place_order_statistics(values: &mut [f64], ranks: &[usize]) {
    // Selected among keys, which order as the values do under
    // [`f64::total_cmp`]: the docs module already holds a selection of
    // u64s (the queue's wait percentiles), and one of f64s would add
    // about 3 KB of wasm.
    let mut keys = total_order_keys(values);
    let mut placed = 0;
    for &rank in ranks {
        if (placed..keys.len()).contains(&rank) {
            keys[placed..].select_nth_unstable(rank - placed);
            placed = rank + 1;
        }
    }
    write_total_order_keys(values, keys);
}

/// Sorts `values` as [`f64::total_cmp`] orders them, by sorting their
/// keys: the docs module already holds a sort of u64s, and one of f64s
/// would weigh about 1 KB more.
pub fn sort_as_total_cmp(values: &mut [f64]) {
    let mut keys = total_order_keys(values);
    keys.sort_unstable();
    write_total_order_keys(values, keys);
}

const SIGN: u64 = 1 << 63;

/// Each value's bits, flipped so that unsigned order is the order of
/// [`f64::total_cmp`].
fn total_order_keys(values: &[f64]) -> Vec<u64> {
    values
        .iter()
        .map(|value| {
            let bits = value.to_bits();
            if bits & SIGN == 0 { bits | SIGN } else { !bits }
        })
        .collect()
}

/// The value whose key [`total_order_keys`] gives is `key`.
fn from_total_order_key(key: u64) -> f64 {
    f64::from_bits(if key & SIGN == 0 { !key } else { key & !SIGN })
}

/// Writes the values of `keys` over `values`, in the keys' order.
fn write_total_order_keys(values: &mut [f64], keys: Vec<u64>) {
    for (value, key) in values.iter_mut().zip(keys) {
        *value = from_total_order_key(key);
    }
}

/// Counts of `values` in `bins` bins of width `bin_width` starting at
/// `origin`: bin k holds [origin + k·w, origin + (k + 1)·w), each edge as
/// that f64 expression evaluates. Values outside every bin, NaN and
/// infinities are ignored; a width that is not positive and finite, or an
/// origin that is not finite, counts nothing.
pub fn histogram(
    values: impl IntoIterator<Item = f64>,
    origin: f64,
    bin_width: f64,
    bins: usize,
) -> Vec<u32> {
    let mut counts = vec![0u32; bins];
    if !(origin.is_finite() && bin_width.is_finite() && bin_width > 0.0) {
        return counts;
    }
    for value in values {
        let bin = bin_index(value, origin, bin_width);
        if bin >= 0.0 && bin < bins as f64 {
            counts[bin as usize] = counts[bin as usize].saturating_add(1);
        }
    }
    counts
}

/// The bin k, as an f64, whose [origin + k·w, origin + (k + 1)·w) holds
/// `value`, each edge as that f64 expression evaluates; NaN for NaN.
pub fn bin_index(value: f64, origin: f64, bin_width: f64) -> f64 {
    // The division can round a value on an edge into the neighbouring bin;
    // the edges themselves decide.
    let guess = ((value - origin) / bin_width).floor();
    on_edges(value, guess, |k| origin + k * bin_width)
}

/// The bin `guess`, at most one bin off, moved to the one whose edges
/// (`edge(k)` to `edge(k + 1)`) hold `value`.
#[inline(always)]
fn on_edges(value: f64, guess: f64, edge: impl Fn(f64) -> f64) -> f64 {
    if value < edge(guess) {
        guess - 1.0
    } else if value >= edge(guess + 1.0) {
        guess + 1.0
    } else {
        guess
    }
}

/// [`histogram`] from 0 for many values in a few bins: the edges are
/// worked out once, and each value's bin is guessed by a multiplication by
/// 1 / width, then checked against the two edges around the guess, as
/// [`bin_index_by_reciprocal`] argues. About twice as fast as it in
/// Chromium, where its conversions and products cost more than two loads.
///
/// ```
/// use stampede_core::stats::{BinsFromZero, histogram};
///
/// let values = [0.0, 0.3, 0.7, 0.9, 1.4, 2.1, -0.5, f64::NAN];
/// let mut bins = BinsFromZero::new(0.7, 3);
/// values.iter().for_each(|&v| bins.count(v));
/// assert_eq!(bins.counts(), histogram(values, 0.0, 0.7, 3));
/// assert_eq!(bins.counts(), [2, 2, 1]);
/// ```
#[derive(Clone, Debug)]
pub struct BinsFromZero {
    per_width: f64,
    /// Edge k is `0.0 + k·w` as [`bin_index`] evaluates it, one past the
    /// last bin's end so that a guess of the last bin can be checked.
    edges: Vec<f64>,
    counts: Vec<u32>,
}

impl BinsFromZero {
    /// `bins` empty bins of width `bin_width`, which must lie between
    /// 1e−300 and 1e300, or nothing is counted.
    pub fn new(bin_width: f64, bins: usize) -> Self {
        let edges = if (1e-300..=1e300).contains(&bin_width) {
            (0..bins + 2).map(|k| 0.0 + k as f64 * bin_width).collect()
        } else {
            Vec::new()
        };
        Self {
            per_width: 1.0 / bin_width,
            edges,
            counts: vec![0; bins],
        }
    }

    #[inline]
    pub fn count(&mut self, value: f64) {
        // At most one bin off (see [`bin_index_by_reciprocal`]); NaN and
        // numbers below zero cast to 0, and fail the first edge.
        let guess = (value * self.per_width) as usize;
        let (Some(&low), Some(&high)) =
            (self.edges.get(guess), self.edges.get(guess.wrapping_add(1)))
        else {
            return;
        };
        let bin = if value >= high {
            guess + 1
        } else if value >= low {
            guess
        } else {
            guess.wrapping_sub(1)
        };
        if let Some(count) = self.counts.get_mut(bin) {
            *count = count.saturating_add(1);
        }
    }

    /// The counts so far, bin by bin.
    pub fn counts(&self) -> &[u32] {
        &self.counts
    }

    pub fn into_counts(self) -> Vec<u32> {
        self.counts
    }
}

/// `bin_index(value, 0.0, bin_width)`, the same number, found for a bin
/// in [0, `below`) with a multiplication by `per_width` = 1 / bin_width
/// (as f64 rounds it) where [`bin_index`] divides: a hot loop's saving.
/// Other values go to [`bin_index`]. `below` must be at most 2^50 and
/// `bin_width` between 1e−300 and 1e300, so that its reciprocal is normal.
///
/// Why the same: edge k rounds k·w by at most 2^−53 of itself, so a value
/// in bin k has value/w within (k + 1)·2^−53 of [k, k + 1), and both the
/// rounded quotient and value·per_width (two more roundings) have whole
/// parts k − 1, k or k + 1; the edge tests [`bin_index`] makes then give k
/// from either. Always inlined, as it is meant for hot loops, which a
/// size-first build would otherwise make call it.
#[inline(always)]
pub fn bin_index_by_reciprocal(value: f64, bin_width: f64, per_width: f64, below: f64) -> f64 {
    let guess = value * per_width;
    // Zeros too go to `bin_index`, which keeps the sign of a −0.
    if !(guess > 0.0 && guess < below) {
        return bin_index(value, 0.0, bin_width);
    }
    on_edges(value, (guess as u64) as f64, |k| 0.0 + k * bin_width)
}

/// `values` merged in runs of `group` = ⌈len / at_most⌉ neighbours, each
/// run keeping its largest: a series thinned to at most `at_most` points
/// that still shows every peak. Returns the group size and the maxima.
pub fn max_per_group(values: &[f64], at_most: usize) -> (usize, Vec<f64>) {
    let group = values.len().div_ceil(at_most.max(1)).max(1);
    let maxima = values
        .chunks(group)
        .map(|run| run.iter().copied().fold(f64::NEG_INFINITY, f64::max))
        .collect();
    (group, maxima)
}

/// The one-sample Kolmogorov–Smirnov statistic D of values sorted
/// ascending against `cdf`; 0 for an empty sample.
pub fn ks_statistic(sorted: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let n = sorted.len() as f64;
    sorted
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let claimed = cdf(x);
            (((i + 1) as f64 / n) - claimed).max(claimed - i as f64 / n)
        })
        .fold(0.0, f64::max)
}

/// The probability that a sample of `n` values drawn from the claimed
/// distribution has a KS statistic of at least `d`; 1 for an empty sample,
/// NaN for a NaN statistic.
pub fn ks_p_value(d: f64, n: usize) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let root_n = (n as f64).sqrt();
    kolmogorov_survival((root_n + 0.12 + 0.11 / root_n) * d).clamp(0.0, 1.0)
}

/// Q(λ) = P(K > λ) for the Kolmogorov distribution.
fn kolmogorov_survival(lambda: f64) -> f64 {
    // Six terms of either series reach f64 precision: both converge slowest
    // at λ = 1.18, where their first neglected terms, e^(−2·7²·λ²) and
    // e^(−13²·π²/(8λ²)), are about 1e−59 and 1e−65.
    let terms = 1..=6;
    if lambda <= 0.0 {
        1.0
    } else if lambda < 1.18 {
        // The alternating series converges slowly for small λ; the
        // equivalent Jacobi theta form converges fast there:
        // 1 − Q(λ) = (√(2π)/λ) Σ_{k≥1} e^(−(2k−1)²π²/(8λ²)).
        let sum: f64 = terms
            .map(|k| {
                let odd = f64::from(2 * k - 1);
                (-odd * odd * PI * PI / (8.0 * lambda * lambda)).exp()
            })
            .sum();
        1.0 - (2.0 * PI).sqrt() / lambda * sum
    } else {
        let sum: f64 = terms
            .map(|k| {
                let sign = if k % 2 == 1 { 1.0 } else { -1.0 };
                let k = f64::from(k);
                sign * (-2.0 * k * k * lambda * lambda).exp()
            })
            .sum();
        2.0 * sum
    }
}

/// Pearson's statistic Σ (observed − expected)² / expected, with
/// `expected(k)` the count bin k should hold.
pub fn chi_square(observed: &[u32], expected: impl Fn(usize) -> f64) -> f64 {
    observed
        .iter()
        .enumerate()
        .map(|(bin, &count)| {
            let expected = expected(bin);
            let difference = f64::from(count) - expected;
            difference * difference / expected
        })
        .sum()
}

/// P(χ² with `degrees_of_freedom` ≥ `statistic`). With 0 degrees of
/// freedom χ² is always 0: 1 for a statistic ≤ 0, else 0.
pub fn chi_square_p_value(statistic: f64, degrees_of_freedom: u32) -> f64 {
    match ChiSquared::new(f64::from(degrees_of_freedom)) {
        Ok(chi_square) => chi_square.sf(statistic),
        Err(_) => f64::from(u8::from(statistic <= 0.0)),
    }
}
