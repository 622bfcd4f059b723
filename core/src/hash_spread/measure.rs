//! How even and how stable a set of offsets is: χ² over the buckets, the
//! largest gap and the ids sharing a second against what a uniform spread
//! expects, and the share of offsets that move when ids are added or the
//! window changes.

use super::placement::{offsets_by_rank, ranks_in_order, sorted_order};
use super::{Known, Placement, STRIP_BINS};
use crate::error::InvalidInput;
use crate::stats;

/// Pearson's χ² of the bucket counts against uniform.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Uniformity {
    pub chi_square: f64,
    pub degrees_of_freedom: u32,
    /// P(χ² ≥ the statistic) if the offsets were uniform.
    pub p_value: f64,
}

/// The longest stretch of the window in which no key starts.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Gap {
    /// The offset the gap starts at; the next offset is `length` seconds
    /// later, around the end of the window if need be.
    pub start: u32,
    pub length: u32,
    /// W·H_N / N, the average largest gap of N uniform points.
    pub expected: f64,
}

/// Keys whose offset equals another key's.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Collisions {
    pub distinct_offsets: u32,
    /// Keys that share their offset with at least one other key.
    pub keys_sharing: u32,
    /// The most keys on one offset.
    pub most_on_one_offset: u32,
    /// N·(1 − (1 − 1/W)^(N−1)), what a uniform hash gives on average.
    pub expected_keys_sharing: f64,
}

/// How many keys a change moves.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Movement {
    /// Share of the keys whose offset changed.
    pub moved: f64,
    /// Share whose offset changed by more than one bucket width.
    pub moved_beyond_bucket: f64,
}

/// What moves when the key set grows or the window changes, for the mode
/// and for the rank-based even spread.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Stability {
    /// Keys appended to the set.
    pub added_keys: u32,
    pub on_growth: Movement,
    pub rank_on_growth: Movement,
    pub second_window: u32,
    pub on_window_change: Movement,
    pub rank_on_window_change: Movement,
}

/// Keys per strip bin (see [`HashSpreadRun::strip_counts`]).
pub(super) fn strip_counts(offsets: &[u32], window: u32) -> Vec<u32> {
    let bins = window.min(STRIP_BINS);
    let mut counts = vec![0u32; bins as usize];
    for &offset in offsets {
        counts[(u64::from(offset) * u64::from(bins) / u64::from(window)) as usize] += 1;
    }
    counts
}

/// Keys per bucket of width `bucket_width`.
pub(super) fn count_buckets(offsets: &[u32], bucket_width: u32, buckets: u32) -> Vec<u32> {
    let mut counts = vec![0u32; buckets as usize];
    for &offset in offsets {
        counts[(offset / bucket_width) as usize] += 1;
    }
    counts
}

/// The width of bucket `index`: b, or what is left of W for the last one.
pub(super) fn bucket_seconds(index: usize, window: u32, bucket_width: u32) -> f64 {
    let start = index as u64 * u64::from(bucket_width);
    (u64::from(window) - start).min(u64::from(bucket_width)) as f64
}

pub(super) fn uniformity(counts: &[u32], window: u32, bucket_width: u32) -> Uniformity {
    let total: f64 = counts.iter().map(|&c| f64::from(c)).sum();
    let chi_square = stats::chi_square(counts, |index| {
        total * bucket_seconds(index, window, bucket_width) / f64::from(window)
    });
    let degrees_of_freedom = counts.len().saturating_sub(1) as u32;
    Uniformity {
        chi_square,
        degrees_of_freedom,
        p_value: stats::chi_square_p_value(chi_square, degrees_of_freedom),
    }
}

pub(super) fn max_min_ratio(counts: &[u32], window: u32, bucket_width: u32) -> Option<f64> {
    let densities = counts
        .iter()
        .enumerate()
        .map(|(index, &count)| f64::from(count) / bucket_seconds(index, window, bucket_width));
    let (min, max) = densities.fold((f64::INFINITY, 0.0f64), |(min, max), density| {
        (min.min(density), max.max(density))
    });
    (min > 0.0).then(|| max / min)
}

/// W·H_N / N: the largest gap N points placed uniformly at random on a
/// ring of W seconds leave, on average.
pub fn expected_largest_gap(window: u32, count: u32) -> f64 {
    let harmonic: f64 = (1..=count).map(|k| 1.0 / f64::from(k)).sum();
    f64::from(window) * harmonic / f64::from(count.max(1))
}

/// The largest gap between consecutive sorted offsets, the last wrapping
/// around to the first; the earliest of equal gaps.
pub(super) fn largest_gap(sorted: &[u32], window: u32) -> Gap {
    let expected = expected_largest_gap(window, sorted.len() as u32);
    let (Some(&first), Some(&last)) = (sorted.first(), sorted.last()) else {
        return Gap {
            start: 0,
            length: window,
            expected,
        };
    };
    let wrap = Gap {
        start: last,
        length: window - last + first,
        expected,
    };
    sorted
        .windows(2)
        .map(|pair| (pair[0], pair[1] - pair[0]))
        .fold(wrap, |best, (start, length)| {
            if length > best.length || (length == best.length && start < best.start) {
                Gap {
                    start,
                    length,
                    expected,
                }
            } else {
                best
            }
        })
}

pub(super) fn collisions(sorted: &[u32], window: u32) -> Collisions {
    let (mut distinct_offsets, mut keys_sharing, mut most_on_one_offset) = (0u32, 0u32, 0u32);
    for group in sorted.chunk_by(|a, b| a == b) {
        let size = group.len() as u32;
        distinct_offsets += 1;
        most_on_one_offset = most_on_one_offset.max(size);
        if size > 1 {
            keys_sharing += size;
        }
    }
    let n = sorted.len() as f64;
    // (1 − 1/W)^(N−1) through log1p and expm1, which keep their precision
    // when 1/W is tiny.
    let alone = libm::expm1((n - 1.0).max(0.0) * libm::log1p(-1.0 / f64::from(window)));
    Collisions {
        distinct_offsets,
        keys_sharing,
        most_on_one_offset,
        expected_keys_sharing: -n * alone,
    }
}

/// What moves when `added` keys join `keys`, and when the window becomes
/// `second_window`, under `placement` and under the rank spread.
pub fn stability<K: AsRef<str>>(
    placement: Placement,
    keys: &[K],
    added: &[K],
    second_window: u32,
    bucket_width: u32,
) -> Result<Stability, InvalidInput> {
    let offsets = placement.place(keys)?;
    stability_of(
        placement,
        keys,
        &offsets,
        added,
        Known::default(),
        second_window,
        bucket_width,
    )
}

/// [`stability`] given the keys' `offsets` under `placement`, and what is
/// `known` of `keys` then `added`, digests under `placement` first.
pub(super) fn stability_of<K: AsRef<str>>(
    placement: Placement,
    keys: &[K],
    offsets: &[u32],
    added: &[K],
    known: Known,
    second_window: u32,
    bucket_width: u32,
) -> Result<Stability, InvalidInput> {
    let grown: Vec<&str> = keys.iter().chain(added).map(AsRef::as_ref).collect();
    let window = placement.window;
    // One sort serves both rankings: the grown keys' order, less the added
    // ones, is the keys' own.
    let grown_order = match known.order {
        Some(order) => order,
        None => &sorted_order(&grown),
    };
    let [digests, _] = known.digests;
    let key_ranks = ranks_in_order(grown_order, keys.len());
    let by_rank = offsets_by_rank(&key_ranks, window);
    let grown_by_rank = offsets_by_rank(&ranks_in_order(grown_order, grown.len()), window);
    let resized = Placement {
        window: second_window,
        ..placement
    };
    Ok(Stability {
        added_keys: added.len() as u32,
        on_growth: movement(
            offsets,
            &placement.place_given(&grown, digests)?,
            bucket_width,
        ),
        rank_on_growth: movement(&by_rank, &grown_by_rank, bucket_width),
        second_window,
        on_window_change: movement(offsets, &resized.place_given(keys, digests)?, bucket_width),
        rank_on_window_change: movement(
            &by_rank,
            &offsets_by_rank(&key_ranks, second_window),
            bucket_width,
        ),
    })
}

/// How many of the `before` offsets differ from the first offsets of `after`.
pub(super) fn movement(before: &[u32], after: &[u32], bucket_width: u32) -> Movement {
    let (mut moved, mut beyond) = (0u32, 0u32);
    for (&old, &new) in before.iter().zip(after) {
        moved += u32::from(old != new);
        beyond += u32::from(old.abs_diff(new) > bucket_width);
    }
    let share = |count: u32| {
        if before.is_empty() {
            0.0
        } else {
            f64::from(count) / before.len() as f64
        }
    };
    Movement {
        moved: share(moved),
        moved_beyond_bucket: share(beyond),
    }
}
