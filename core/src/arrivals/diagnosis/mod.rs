//! Is a trace Poisson, and if not, what is left? A real trace's rate
//! follows the day, so one constant rate is the wrong yardstick: the rate
//! is estimated from the trace ([`super::rate`]) and time is stretched by
//! it (time-rescaling). Under a Poisson process at that varying rate the
//! stretched gaps are exponential with mean 1, which Kolmogorov–Smirnov
//! tests. Then each departure is named only on its own evidence: a burst
//! at the same moment of every period ([`super::burst`]), a daily cycle
//! (hours of the day busier than chance), overdispersion (counts vary
//! more than Poisson's around the local rate) and self-similarity (that
//! excess growing as a power of the bin width).

use rand::RngExt;
use serde::{Deserialize, Serialize};
use statrs::function::erf::erfc;

mod words;

use super::burst::{self, PeriodicBurst};
use super::rate::Rate;
use crate::rng::{Purpose, seeded};
use crate::stats::{chi_square_p_value, ks_p_value, ks_statistic};

const SPREAD_IN_RESOLUTION: Purpose = Purpose::new("arrivals.spread_in_resolution");

/// Below this p-value the stretched gaps are called not exponential.
const SIGNIFICANCE: f64 = 0.05;
/// Below this the hours of the day are called different, and counts
/// overdispersed.
const STRONG: f64 = 0.001;
/// Overdispersion is named only when counts vary at least this many times
/// as much as Poisson's, however sure the test: a million arrivals find
/// a trace's every small imperfection.
const OVERDISPERSED_AT_LEAST: f64 = 1.1;
/// The fewest arrivals worth diagnosing.
const FEWEST_ARRIVALS: usize = 20;
/// Bin widths the Fano factor is taken at, in seconds, up to a tenth of
/// the rate's bins (wider ones would mostly see the rate's own error).
pub const DISPERSION_WIDTHS: [f64; 12] = [
    1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1_200.0, 3_600.0,
];
/// The fewest whole bins a Fano factor is taken over.
const FEWEST_BINS: f64 = 20.0;
/// t quantiles at 97.5 % for 1 to 10 degrees of freedom.
const T_975: [f64; 10] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
];

/// The stretched gaps against the exponential of mean 1.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RescaledCheck {
    pub gaps: u64,
    pub ks_statistic: f64,
    pub p_value: f64,
    /// The resolution each arrival was spread within first, in seconds; 0
    /// when the timestamps had finer ones.
    pub spread_within_s: f64,
    /// The same gaps unstretched, against the exponential of their mean.
    pub constant_rate_ks_statistic: f64,
    pub constant_rate_p_value: f64,
}

/// Arrivals per second in each hour of the day, and whether they differ
/// more than chance allows.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DailyCycle {
    pub peak_hour: u8,
    pub peak_per_s: f64,
    pub trough_hour: u8,
    pub trough_per_s: f64,
    /// Of the chi-square test of the hours' counts against their share of
    /// the time, its statistic divided by the overdispersion (if above 1).
    pub p_value: f64,
    pub cycles: bool,
}

/// Counts per bin of one width against the local rate (and burst).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dispersion {
    pub width_s: f64,
    pub bins: u64,
    /// Σ (count − expected)² / expected over the degrees of freedom: 1 for
    /// Poisson at the local rate.
    pub fano: f64,
    pub p_value: f64,
}

/// The Fano factor's growth with the bin width, F(w) ∝ w^α by least
/// squares on log–log, with α's 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FanoGrowth {
    pub alpha: f64,
    pub low: f64,
    pub high: f64,
    pub from_s: f64,
    pub to_s: f64,
    /// The Fano factor at the narrowest width and at the widest.
    pub fano_from: f64,
    pub fano_to: f64,
    /// The slope over the three widest widths: a power law keeps growing
    /// there, where bursts of one size level off.
    pub tail_alpha: f64,
    /// The interval is above 0, the factor never falls by more than a
    /// tenth from one width to the next, at least doubles overall, and
    /// still grows at the widest widths at half the overall pace or more.
    pub self_similar: bool,
}

/// A trace diagnosed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Diagnosis {
    /// The width of the bins the rate was estimated over, in seconds.
    pub rate_bin_s: f64,
    pub rescaled: Option<RescaledCheck>,
    pub burst: Option<PeriodicBurst>,
    /// None when the trace spans less than 23 hours.
    pub daily_cycle: Option<DailyCycle>,
    /// At one minute (or the widest width under a tenth of the rate's bins).
    pub overdispersion: Option<Dispersion>,
    pub dispersion_by_width: Vec<Dispersion>,
    /// None over fewer than four widths.
    pub scaling: Option<FanoGrowth>,
    /// The verdict first, then each finding, for the reader.
    pub sentences: Vec<String>,
}

/// Diagnoses arrivals at `times_us` (microseconds, ascending); `seed`
/// spreads them within their resolution.
pub fn diagnose(times_us: &[i64], seed: u64) -> Diagnosis {
    let (times, spread_within_s) = spread(times_us, seed);
    let span = times.last().copied().unwrap_or(0.0) - times.first().copied().unwrap_or(0.0);
    if times.len() < FEWEST_ARRIVALS || span <= 0.0 {
        return Diagnosis {
            rate_bin_s: 0.0,
            rescaled: None,
            burst: None,
            daily_cycle: None,
            overdispersion: None,
            dispersion_by_width: Vec::new(),
            scaling: None,
            sentences: vec![format!(
                "Too few arrivals to tell whether they are Poisson: it takes {FEWEST_ARRIVALS} at different times."
            )],
        };
    }
    let rate = Rate::estimate(&times);
    let rescaled = rescaled_check(&times, &rate, spread_within_s);
    let burst = burst::find(&times, &rate);
    let dispersion_by_width: Vec<Dispersion> = DISPERSION_WIDTHS
        .into_iter()
        .filter(|&width| width <= rate.width_s / 10.0)
        .filter_map(|width| dispersion(&times, &rate, burst.as_ref(), width))
        .collect();
    let overdispersion = dispersion_by_width
        .iter()
        .rev()
        .find(|at| at.width_s <= 60.0)
        .copied();
    let widest_fano = dispersion_by_width.last().map_or(1.0, |at| at.fano);
    let daily_cycle = daily_cycle(times_us, burst.as_ref(), widest_fano);
    let scaling = scaling(&dispersion_by_width);
    let mut diagnosis = Diagnosis {
        rate_bin_s: rate.width_s,
        rescaled,
        burst,
        daily_cycle,
        overdispersion,
        dispersion_by_width,
        scaling,
        sentences: Vec::new(),
    };
    diagnosis.sentences = words::sentences(&diagnosis);
    diagnosis
}

impl Diagnosis {
    /// Whether the stretched gaps pass for exponential.
    pub fn poisson_at_own_rate(&self) -> bool {
        self.rescaled
            .is_some_and(|check| check.p_value >= SIGNIFICANCE)
    }

    pub fn overdispersed(&self) -> bool {
        self.overdispersion
            .is_some_and(|at| at.p_value < STRONG && at.fano >= OVERDISPERSED_AT_LEAST)
    }
}

/// The coarsest of 1 s and 1 ms that every timestamp is a multiple of, in
/// microseconds; 0 when they are finer.
fn resolution_us(times_us: &[i64]) -> i64 {
    [1_000_000, 1_000]
        .into_iter()
        .find(|&unit| times_us.iter().all(|at| at % unit == 0))
        .unwrap_or(0)
}

/// The arrivals in seconds since midnight UTC of the first one's day (so
/// phases within a minute, hour or day read off directly), ascending, and
/// the resolution they were spread within. Timestamps kept to the second
/// would make many gaps exactly 0; each is spread uniformly within its
/// second (millisecond) with a fixed seed, which is where a Poisson
/// process seen only to the second would have put it.
fn spread(times_us: &[i64], seed: u64) -> (Vec<f64>, f64) {
    let resolution = resolution_us(times_us);
    let origin = times_us
        .first()
        .map_or(0, |first| first.div_euclid(86_400_000_000) * 86_400_000_000);
    let mut draws = seeded(seed, SPREAD_IN_RESOLUTION);
    let mut times: Vec<f64> = times_us
        .iter()
        .map(|&at| {
            let within = if resolution == 0 {
                0.0
            } else {
                draws.random::<f64>() * resolution as f64
            };
            ((at - origin) as f64 + within) / 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times, resolution as f64 / 1e6)
}

fn rescaled_check(times: &[f64], rate: &Rate, spread_within_s: f64) -> Option<RescaledCheck> {
    let mut cumulative = rate.cumulative();
    let stretched: Vec<f64> = times.iter().map(|&at| cumulative.at(at)).collect();
    let ks = |mut gaps: Vec<f64>| {
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        if mean <= 0.0 {
            return None;
        }
        gaps.sort_unstable_by(f64::total_cmp);
        let d = ks_statistic(&gaps, |gap| 1.0 - (-gap / mean).exp());
        Some((d, ks_p_value(d, gaps.len())))
    };
    let (d, p_value) = ks(stretched.windows(2).map(|pair| pair[1] - pair[0]).collect())?;
    let (constant_d, constant_p) = ks(times.windows(2).map(|pair| pair[1] - pair[0]).collect())?;
    Some(RescaledCheck {
        gaps: times.len() as u64 - 1,
        ks_statistic: d,
        p_value,
        spread_within_s,
        constant_rate_ks_statistic: constant_d,
        constant_rate_p_value: constant_p,
    })
}

/// Counts per whole bin of `width` against the rate (and the burst, once
/// named): Pearson's statistic over its degrees of freedom. Only bins
/// with an arrival are visited (a trace may span years of seconds); the
/// empty ones add their expected count, which the total gives.
fn dispersion(
    times: &[f64],
    rate: &Rate,
    burst: Option<&PeriodicBurst>,
    width: f64,
) -> Option<Dispersion> {
    let (first, last) = (times[0], times[times.len() - 1]);
    let (first_bin, end_bin) = ((first / width).ceil(), (last / width).floor());
    let bins = end_bin - first_bin;
    if bins < FEWEST_BINS {
        return None;
    }
    let mut cumulative = rate.cumulative();
    let mut expected_to = |t: f64| cumulative.at(t) + burst.map_or(0.0, |b| burst::moved_by(b, t));
    let total = -expected_to(first_bin * width) + expected_to(end_bin * width);
    // A bin the model gives next to nothing (a burst's neighbour at night)
    // must not blow the sum up on one stray arrival.
    let floor = 0.01 * total / bins;
    let mut statistic = total;
    let mut run: Option<(f64, u64)> = None;
    let mut close = |bin: f64, count: u64, expected_to: &mut dyn FnMut(f64) -> f64| {
        let expected = expected_to((bin + 1.0) * width) - expected_to(bin * width);
        let difference = count as f64 - expected.max(floor);
        statistic += difference * difference / expected.max(floor) - expected;
    };
    let from = times.partition_point(|&at| at < first_bin * width);
    for &at in &times[from..] {
        let bin = (at / width).floor();
        if bin >= end_bin {
            break;
        }
        match &mut run {
            Some((current, count)) if *current == bin => *count += 1,
            _ => {
                if let Some((previous, count)) = run {
                    close(previous, count, &mut expected_to);
                }
                run = Some((bin, 1));
            }
        }
    }
    if let Some((previous, count)) = run {
        close(previous, count, &mut expected_to);
    }
    // The rate came from these same counts: interpolated between bin
    // middles it takes up about 5/6 of a bin's share of its own count.
    let freedom = bins * (1.0 - 5.0 / 6.0 * width / rate.width_s);
    let fano = statistic / freedom;
    Some(Dispersion {
        width_s: width,
        bins: bins as u64,
        fano,
        p_value: chi_square_upper_tail(statistic, freedom),
    })
}

/// P(χ² ≥ `statistic`) by Wilson and Hilferty's cube root, which holds to
/// a few per cent at the hundreds of degrees of freedom and more these
/// tests have, without a gamma function over millions.
fn chi_square_upper_tail(statistic: f64, freedom: f64) -> f64 {
    if freedom < 100.0 {
        return chi_square_p_value(statistic, freedom.round().max(1.0) as u32);
    }
    let spread = 2.0 / (9.0 * freedom);
    let z = ((statistic / freedom).cbrt() - (1.0 - spread)) / spread.sqrt();
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// Arrivals per second in each hour of the day (UTC), against each hour's
/// share of the time the trace covers; None under 23 hours (a day's log
/// from its first arrival to its last). A daily burst's extra arrivals are
/// taken out first, and the statistic is divided by the overdispersion
/// seen at the widest width, so bursty counts alone do not make a cycle.
fn daily_cycle(times_us: &[i64], burst: Option<&PeriodicBurst>, fano: f64) -> Option<DailyCycle> {
    const DAY: i64 = 86_400_000_000;
    const HOUR: i64 = 3_600_000_000;
    let (first, last) = (*times_us.first()?, *times_us.last()?);
    if last - first < 23 * HOUR {
        return None;
    }
    let mut counts = [0.0; 24];
    for &at in times_us {
        counts[at.div_euclid(HOUR).rem_euclid(24) as usize] += 1.0;
    }
    if let Some(b) = burst.filter(|b| b.period_s == 86_400.0) {
        let hour = (b.phase_start_s / 3_600.0) as usize;
        counts[hour] = (counts[hour] - b.extra_per_period * b.periods as f64).max(0.0);
    }
    // Time from the epoch to `t` that fell in hour `h` of the day.
    let in_hour =
        |t: i64, h: i64| t.div_euclid(DAY) * HOUR + (t.rem_euclid(DAY) - h * HOUR).clamp(0, HOUR);
    let covered: Vec<(usize, f64)> = (0..24)
        .map(|h| {
            (
                h,
                (in_hour(last, h as i64) - in_hour(first, h as i64)) as f64 / 1e6,
            )
        })
        .filter(|&(_, seconds)| seconds > 0.0)
        .collect();
    let total_time: f64 = covered.iter().map(|c| c.1).sum();
    let total: f64 = covered.iter().map(|&(h, _)| counts[h]).sum();
    let statistic: f64 = covered
        .iter()
        .map(|&(h, seconds)| {
            let expected = total * seconds / total_time;
            (counts[h] - expected).powi(2) / expected
        })
        .sum();
    let per_s = |&(h, seconds): &(usize, f64)| counts[h] / seconds;
    let peak = covered
        .iter()
        .max_by(|a, b| per_s(a).total_cmp(&per_s(b)))?;
    let trough = covered
        .iter()
        .min_by(|a, b| per_s(a).total_cmp(&per_s(b)))?;
    let p_value = chi_square_p_value(statistic / fano.max(1.0), covered.len() as u32 - 1);
    Some(DailyCycle {
        peak_hour: peak.0 as u8,
        peak_per_s: per_s(peak),
        trough_hour: trough.0 as u8,
        trough_per_s: per_s(trough),
        p_value,
        cycles: p_value < STRONG,
    })
}

/// Least squares of ln F on ln w, with the slope's 95 % interval from its
/// standard error and Student's t.
fn scaling(by_width: &[Dispersion]) -> Option<FanoGrowth> {
    let points: Vec<(f64, f64)> = by_width
        .iter()
        .filter(|at| at.fano > 0.0)
        .map(|at| (at.width_s.ln(), at.fano.ln()))
        .collect();
    let k = points.len();
    if k < 4 {
        return None;
    }
    let (alpha, standard_error) = least_squares(&points);
    let half = T_975[(k - 3).min(T_975.len() - 1)] * standard_error;
    let (low, high) = (alpha - half, alpha + half);
    let (tail_alpha, _) = least_squares(&points[k - 3..]);
    let fanos: Vec<f64> = by_width.iter().map(|at| at.fano).collect();
    let steady = fanos.windows(2).all(|pair| pair[1] >= 0.9 * pair[0]);
    let doubles = fanos[fanos.len() - 1] >= 2.0 * fanos[0];
    Some(FanoGrowth {
        alpha,
        low,
        high,
        tail_alpha,
        from_s: by_width[0].width_s,
        to_s: by_width[by_width.len() - 1].width_s,
        fano_from: fanos[0],
        fano_to: fanos[fanos.len() - 1],
        self_similar: low > 0.0 && steady && doubles && tail_alpha >= alpha / 2.0,
    })
}

/// The slope of y on x by least squares, and its standard error.
fn least_squares(points: &[(f64, f64)]) -> (f64, f64) {
    let k = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / k;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / k;
    let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    let slope = sxy / sxx;
    let residual: f64 = points
        .iter()
        .map(|p| (p.1 - mean_y - slope * (p.0 - mean_x)).powi(2))
        .sum();
    (slope, (residual / (k - 2.0) / sxx).sqrt())
}
