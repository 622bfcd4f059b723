//! What a trace of arrivals looks like: when in the day they come, the
//! busiest second and minute, and how far they are from Poisson.
//!
//! Poisson arrivals have exponential gaps (coefficient of variation 1)
//! and counts per bin whose variance equals their mean (Fano factor 1) at
//! every bin width. The gaps are tested against the exponential of the
//! same mean by Kolmogorov–Smirnov; the rate is estimated from the same
//! gaps, which makes the test's p-value conservative (Lilliefors): a
//! trace it calls Poisson surely looks it. Timestamps kept in whole
//! seconds (or milliseconds) would make many gaps exactly 0, so before the
//! test each arrival is spread uniformly within its second (millisecond),
//! with a fixed seed: that is exactly where a Poisson process, seen only
//! to the second, would have put it. A Fano factor that grows with the
//! bin width, from 1 s to 1 h, hints at bursts within bursts
//! (self-similar traffic).

use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::rng::{Purpose, seeded};
use crate::stats::{ks_p_value, ks_statistic};
use crate::units::{counted, duration, significant};

const SPREAD_IN_RESOLUTION: Purpose = Purpose::new("arrivals.spread_in_resolution");
const MICROS_PER_SECOND: i64 = 1_000_000;
/// The bin widths of the self-similarity hint, in seconds.
pub const FANO_WIDTHS: [u32; 5] = [1, 10, 60, 600, 3_600];
/// The fewest bins a Fano factor is computed over.
const MIN_BINS: u64 = 10;
/// Below this p-value the gaps are called not exponential.
const SIGNIFICANCE: f64 = 0.05;

/// The most arrivals in one bin and where the first such bin starts.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Busiest {
    /// Microseconds since the epoch.
    pub start_us: i64,
    pub arrivals: u64,
}

/// The gaps against the exponential of the same mean.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PoissonCheck {
    pub gaps: u64,
    pub ks_statistic: f64,
    pub p_value: f64,
    /// The resolution each arrival was spread within before the test, in
    /// seconds; 0 when the timestamps had finer ones.
    pub spread_within_s: f64,
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
    /// None below 3 gaps or when every gap is 0.
    pub poisson: Option<PoissonCheck>,
    /// At each of [`FANO_WIDTHS`].
    pub fano_by_width: Vec<FanoAt>,
}

/// Describes arrivals at `times_us` (microseconds, ascending, at least
/// one); `seed` spreads them within their resolution for the KS test.
pub fn describe(times_us: &[i64], seed: u64) -> Description {
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
        poisson: poisson_check(times_us, seed),
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

/// The coarsest of 1 s and 1 ms that every timestamp is a multiple of, in
/// microseconds; 0 when they are finer.
fn resolution_us(times_us: &[i64]) -> i64 {
    [MICROS_PER_SECOND, 1_000]
        .into_iter()
        .find(|&unit| times_us.iter().all(|at| at % unit == 0))
        .unwrap_or(0)
}

fn poisson_check(times_us: &[i64], seed: u64) -> Option<PoissonCheck> {
    if times_us.len() < 4 {
        return None;
    }
    let resolution = resolution_us(times_us);
    let mut spread = seeded(seed, SPREAD_IN_RESOLUTION);
    let mut times: Vec<f64> = times_us
        .iter()
        .map(|&at| {
            let within = if resolution == 0 {
                0.0
            } else {
                spread.random::<f64>() * resolution as f64
            };
            // Relative to the first, so seconds keep their microseconds.
            ((at - times_us[0]) as f64 + within) / MICROS_PER_SECOND as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let mut gaps: Vec<f64> = times.windows(2).map(|pair| pair[1] - pair[0]).collect();
    gaps.sort_by(f64::total_cmp);
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    if mean <= 0.0 {
        return None;
    }
    let d = ks_statistic(&gaps, |gap| 1.0 - (-gap / mean).exp());
    Some(PoissonCheck {
        gaps: gaps.len() as u64,
        ks_statistic: d,
        p_value: ks_p_value(d, gaps.len()),
        spread_within_s: resolution as f64 / MICROS_PER_SECOND as f64,
    })
}

impl Description {
    /// "Is this Poisson?", answered in a sentence.
    pub fn poisson_in_words(&self) -> String {
        let Some(check) = self.poisson else {
            return "Too few distinct arrivals to test whether they are Poisson.".into();
        };
        let figures = format!(
            "KS D = {}, p {} over {}",
            significant(check.ks_statistic, 3),
            p_in_words(check.p_value),
            counted(check.gaps, "gap", "gaps")
        );
        let spread = if check.spread_within_s > 0.0 {
            format!(
                " (each arrival spread within its {} first)",
                if check.spread_within_s >= 1.0 {
                    "second"
                } else {
                    "millisecond"
                }
            )
        } else {
            String::new()
        };
        if check.p_value >= SIGNIFICANCE {
            format!(
                "Consistent with Poisson: the gaps pass for exponential at the same rate{spread}; {figures}."
            )
        } else {
            format!(
                "Not Poisson: gaps this far from exponential at the same rate would come by chance {}{spread}; {figures}.",
                chance_in_words(check.p_value)
            )
        }
    }

    /// The self-similarity hint: how the Fano factor moves with the width.
    pub fn self_similarity_in_words(&self) -> String {
        let known: Vec<(u32, f64)> = self
            .fano_by_width
            .iter()
            .filter_map(|at| at.fano.map(|fano| (at.width_s, fano)))
            .collect();
        // Counts of a Poisson process give a Fano factor of 1 with a
        // standard error of about √(2 / (bins − 1)); three of them is
        // chance once in a few hundred traces.
        let bursty = |at: &FanoAt| {
            at.fano
                .is_some_and(|fano| fano > 1.0 + 3.0 * (2.0 / (at.bins - 1) as f64).sqrt())
        };
        let (Some(&(narrow_w, narrow)), Some(&(wide_w, wide))) = (known.first(), known.last())
        else {
            return "The trace spans too few bins to compare widths.".into();
        };
        let (peak_w, peak) =
            known.iter().copied().fold(
                (narrow_w, narrow),
                |best, at| if at.1 > best.1 { at } else { best },
            );
        let fano = |x: f64| significant(x, 2);
        if !self.fano_by_width.iter().any(bursty) {
            format!(
                "Counts vary as Poisson counts do at every width from {} to {} (Fano factor up to {}, within chance): no sign of bursts.",
                duration(f64::from(narrow_w)),
                duration(f64::from(wide_w)),
                fano(peak)
            )
        } else if known.windows(2).all(|pair| pair[1].1 >= pair[0].1 * 0.9) && wide >= 2.0 * narrow
        {
            format!(
                "The Fano factor grows with the width, from {} at {} to {} at {}: bursts within bursts, the mark of self-similar traffic.",
                fano(narrow),
                duration(f64::from(narrow_w)),
                fano(wide),
                duration(f64::from(wide_w))
            )
        } else {
            format!(
                "Bursty at some widths: the Fano factor peaks at {} over bins of {}.",
                fano(peak),
                duration(f64::from(peak_w))
            )
        }
    }
}

fn p_in_words(p: f64) -> String {
    if p < 1e-4 {
        "< 0.0001".into()
    } else {
        format!("= {}", significant(p, 2))
    }
}

fn chance_in_words(p: f64) -> String {
    if p < 1e-4 {
        "less than once in 10,000 traces".into()
    } else {
        format!("about once in {} traces", significant(1.0 / p, 2))
    }
}
