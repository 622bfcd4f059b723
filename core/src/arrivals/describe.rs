//! What a trace of arrivals looks like: when in the day they come, the
//! busiest second and minute, the gaps' coefficient of variation and the
//! Fano factor of raw counts per bin (variance over mean, 1 for Poisson at
//! one constant rate). These are figures, not a verdict: a rate that
//! follows the day raises them too; [`super::diagnose`] says what they
//! mean.

use serde::{Deserialize, Serialize};

const MICROS_PER_SECOND: i64 = crate::scheduler::MICROS_PER_SECOND as i64;
/// The bin widths of the raw Fano factors, in seconds.
pub const FANO_WIDTHS: [u32; 5] = [1, 10, 60, 600, 3_600];
/// The fewest bins a Fano factor is computed over.
const MIN_BINS: u64 = 10;

/// The most arrivals in one bin and where the first such bin starts.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Busiest {
    /// Microseconds since the epoch.
    pub start_us: i64,
    pub arrivals: u64,
}

/// The Fano factor of counts per bin of one width.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FanoAt {
    pub width_s: u32,
    /// Whole bins between the first arrival and the last.
    pub bins: u64,
    /// None over fewer than 10 whole bins, or none with an arrival.
    pub fano: Option<f64>,
}

/// A trace described.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Description {
    pub arrivals: u64,
    pub first_us: i64,
    pub last_us: i64,
    /// Arrivals in each hour of the day, UTC.
    pub per_hour_of_day: [u64; 24],
    pub busiest_second: Busiest,
    pub busiest_minute: Busiest,
    /// Standard deviation of the gaps over their mean; None below 2 gaps
    /// or when every gap is 0.
    pub gap_cv: Option<f64>,
    /// Of counts per whole minute (UTC) from the first to the last.
    pub fano_per_minute: Option<f64>,
    /// At each of [`FANO_WIDTHS`].
    pub fano_by_width: Vec<FanoAt>,
}

/// Describes arrivals at `times_us` (microseconds, ascending, at least
/// one).
pub fn describe(times_us: &[i64]) -> Description {
    let first_us = times_us.first().copied().unwrap_or(0);
    let last_us = times_us.last().copied().unwrap_or(0);
    let mut per_hour_of_day = [0; 24];
    for &at in times_us {
        per_hour_of_day[at.div_euclid(3_600 * MICROS_PER_SECOND).rem_euclid(24) as usize] += 1;
    }
    let gaps: Vec<f64> = times_us
        .windows(2)
        .map(|pair| (pair[1] - pair[0]) as f64 / MICROS_PER_SECOND as f64)
        .collect();
    let per_minute = counts(times_us, 60);
    Description {
        arrivals: times_us.len() as u64,
        first_us,
        last_us,
        per_hour_of_day,
        busiest_second: counts(times_us, 1).busiest,
        busiest_minute: per_minute.busiest,
        gap_cv: coefficient_of_variation(&gaps),
        fano_per_minute: per_minute.fano,
        fano_by_width: FANO_WIDTHS
            .iter()
            .map(|&width_s| {
                let counts = counts(times_us, width_s);
                FanoAt {
                    width_s,
                    bins: counts.bins,
                    fano: counts.fano,
                }
            })
            .collect(),
    }
}

/// Counts per bin of one width, summed without a bin array (a trace may
/// span years of seconds): empty bins add nothing but their number.
struct BinCounts {
    busiest: Busiest,
    fano: Option<f64>,
    /// Whole bins between the first arrival and the last.
    bins: u64,
}

fn counts(times_us: &[i64], width_s: u32) -> BinCounts {
    let width = i64::from(width_s) * MICROS_PER_SECOND;
    let mut busiest = Busiest {
        start_us: 0,
        arrivals: 0,
    };
    // Only bins wholly inside [first, last] count toward the Fano factor:
    // the partial bins at either end would hold too few.
    let (first_whole, end_whole) = match (times_us.first(), times_us.last()) {
        (Some(first), Some(last)) => (-(-first).div_euclid(width), last.div_euclid(width)),
        _ => (0, 0),
    };
    let (mut whole_arrivals, mut sum_of_squares) = (0_u64, 0.0);
    let (mut run_bin, mut run) = (None, 0_u64);
    let mut close = |bin: i64, arrivals: u64| {
        if (first_whole..end_whole).contains(&bin) {
            whole_arrivals += arrivals;
            sum_of_squares += (arrivals as f64).powi(2);
        }
        if arrivals > busiest.arrivals {
            busiest = Busiest {
                start_us: bin * width,
                arrivals,
            };
        }
    };
    for &at in times_us {
        let bin = at.div_euclid(width);
        if run_bin != Some(bin) {
            if let Some(previous) = run_bin {
                close(previous, run);
            }
            (run_bin, run) = (Some(bin), 0);
        }
        run += 1;
    }
    if let Some(last) = run_bin {
        close(last, run);
    }
    let bins = (end_whole - first_whole).max(0) as u64;
    let fano = (bins >= MIN_BINS && whole_arrivals > 0).then(|| {
        let mean = whole_arrivals as f64 / bins as f64;
        let variance = (sum_of_squares - bins as f64 * mean * mean) / (bins - 1) as f64;
        variance / mean
    });
    BinCounts {
        busiest,
        fano,
        bins,
    }
}

fn coefficient_of_variation(gaps: &[f64]) -> Option<f64> {
    if gaps.len() < 2 {
        return None;
    }
    let n = gaps.len() as f64;
    let mean = gaps.iter().sum::<f64>() / n;
    let variance = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean > 0.0).then(|| variance.sqrt() / mean)
}
