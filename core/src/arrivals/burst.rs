//! A burst that comes back at the same moment of every minute, hour or
//! day: arrivals folded by their phase within each candidate period, the
//! fullest short window against what the estimated rate would put there,
//! then checked period by period, so one wild hour is not taken for a
//! habit.

use serde::{Deserialize, Serialize};

use super::rate::Rate;

/// Candidate periods, in seconds.
const PERIODS: [f64; 5] = [60.0, 300.0, 900.0, 3_600.0, 86_400.0];
/// A period is folded only when the trace spans at least this many.
const FEWEST_PERIODS: f64 = 4.0;
/// Phase bins per period: 1 s in an hour, 24 s in a day.
const PHASES: usize = 3_600;
/// Window lengths tried, in phase bins (up to a tenth of the period).
const LENGTHS: [usize; 24] = [
    1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 120, 150, 180, 240, 300, 360,
];
/// The window's likelihood-ratio z against Poisson at the rate must reach
/// this: about 400,000 windows are tried, and z = 6 (one-sided p ≈ 1e−9)
/// keeps a chance find under once in a thousand traces.
const Z_AT_LEAST: f64 = 6.0;

/// Extra arrivals in one short window of every period.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeriodicBurst {
    pub period_s: f64,
    /// The window, as offsets into the period (from midnight UTC for a
    /// day, from the whole hour for an hour).
    pub phase_start_s: f64,
    pub phase_end_s: f64,
    /// Arrivals in the window beyond what the rate would put there, on
    /// average over the periods the trace covers.
    pub extra_per_period: f64,
    /// What the rate alone would put in the window, on average a period.
    pub expected_per_period: f64,
    /// Periods whose window overlaps the trace and which hold an arrival, and how many of them show the burst (at least twice the
    /// rate's share, plus one).
    pub periods: u64,
    pub periods_with_burst: u64,
    /// Likelihood-ratio z of the folded window against Poisson at the rate.
    pub z: f64,
}

/// The named burst in `times` (seconds since midnight UTC of the first's
/// day, ascending), if any.
pub(super) fn find(times: &[f64], rate: &Rate) -> Option<PeriodicBurst> {
    let (first, last) = (times[0], times[times.len() - 1]);
    let mut candidates: Vec<(f64, usize, usize, f64)> = PERIODS
        .into_iter()
        .filter(|period| last - first >= FEWEST_PERIODS * period)
        .filter_map(|period| fullest_window(times, rate, period))
        .filter(|candidate| candidate.3 >= Z_AT_LEAST)
        .collect();
    candidates.sort_by(|a, b| b.3.total_cmp(&a.3));
    candidates
        .into_iter()
        .find_map(|(period, start, length, z)| {
            let delta = period / PHASES as f64;
            let burst = period_by_period(
                times,
                rate,
                period,
                start as f64 * delta,
                length as f64 * delta,
            );
            (burst.periods > 0 && 2 * burst.periods_with_burst >= burst.periods)
                .then_some(PeriodicBurst { z, ..burst })
        })
}

/// The window of one period's fold with the largest z among those holding
/// at least twice their expected arrivals: (period, start bin, length in
/// bins, z).
fn fullest_window(times: &[f64], rate: &Rate, period: f64) -> Option<(f64, usize, usize, f64)> {
    let delta = period / PHASES as f64;
    let mut observed = vec![0_u64; PHASES];
    for &at in times {
        observed[((at.rem_euclid(period) / delta) as usize).min(PHASES - 1)] += 1;
    }
    let expected = expected_fold(rate, period);
    // Prefix sums over the fold twice round, so windows may wrap.
    let mut seen = vec![0_u64; 2 * PHASES + 1];
    let mut owed = vec![0.0; 2 * PHASES + 1];
    for i in 0..2 * PHASES {
        seen[i + 1] = seen[i] + observed[i % PHASES];
        owed[i + 1] = owed[i] + expected[i % PHASES];
    }
    let mut best: Option<(f64, usize, usize, f64)> = None;
    for length in LENGTHS {
        for start in 0..PHASES {
            let o = (seen[start + length] - seen[start]) as f64;
            let e = owed[start + length] - owed[start];
            if e <= 0.0 || o < 2.0 * e {
                continue;
            }
            let z = likelihood_ratio_z(o, e);
            if best.is_none_or(|b| z > b.3) {
                best = Some((period, start, length, z));
            }
        }
    }
    best
}

/// The arrivals the rate would put in each phase bin of `period`, summed
/// over the trace: each rate bin adds its rate over the phases it covers.
fn expected_fold(rate: &Rate, period: f64) -> Vec<f64> {
    let delta = period / PHASES as f64;
    let mut exact = vec![0.0; PHASES + 1];
    let mut steps = vec![0.0; PHASES + 1];
    let mut everywhere = 0.0;
    // Adds `per_second` over [from, to) within one period.
    let mut add = |from: f64, to: f64, per_second: f64| {
        let (i, j) = ((from / delta) as usize, (to / delta) as usize);
        if i == j {
            exact[i] += per_second * (to - from);
            return;
        }
        exact[i] += per_second * ((i + 1) as f64 * delta - from);
        exact[j] += per_second * (to - j as f64 * delta);
        steps[i + 1] += per_second * delta;
        steps[j] -= per_second * delta;
    };
    for (start, end, per_second) in rate.bins() {
        let length = end - start;
        let whole = (length / period).floor();
        everywhere += per_second * delta * whole;
        let from = start.rem_euclid(period);
        let to = from + (length - whole * period);
        if to <= period {
            add(from, to, per_second);
        } else {
            add(from, period, per_second);
            add(0.0, to - period, per_second);
        }
    }
    let mut step = 0.0;
    (0..PHASES)
        .map(|i| {
            step += steps[i];
            everywhere + step + exact[i]
        })
        .collect()
}

/// The window [start, start + length) of each period, counted period by
/// period against the rate there.
fn period_by_period(
    times: &[f64],
    rate: &Rate,
    period: f64,
    start: f64,
    length: f64,
) -> PeriodicBurst {
    let (first, last) = (times[0], times[times.len() - 1]);
    let (mut periods, mut with_burst) = (0_u64, 0_u64);
    let (mut observed, mut expected) = (0.0, 0.0);
    let mut close = |k: f64, count: u64| {
        let opens = k * period + start;
        if opens + length <= first || opens >= last {
            return;
        }
        let e = rate.at(opens + length / 2.0) * length;
        periods += 1;
        with_burst += u64::from(count as f64 >= 2.0 * e + 1.0);
        observed += count as f64;
        expected += e;
    };
    let mut run: Option<(f64, u64)> = None;
    for &at in times {
        let k = ((at - start) / period).floor();
        let within = at - start - k * period < length;
        match &mut run {
            Some((current, count)) if *current == k => *count += u64::from(within),
            _ => {
                if let Some((previous, count)) = run {
                    close(previous, count);
                }
                run = Some((k, u64::from(within)));
            }
        }
    }
    if let Some((previous, count)) = run {
        close(previous, count);
    }
    let per_period = |x: f64| x / periods.max(1) as f64;
    PeriodicBurst {
        period_s: period,
        phase_start_s: start,
        phase_end_s: start + length,
        extra_per_period: per_period(observed - expected),
        expected_per_period: per_period(expected),
        periods,
        periods_with_burst: with_burst,
        z: 0.0,
    }
}

/// The signed root of Poisson's likelihood ratio for `observed` arrivals
/// where `expected` were due: about normal under Poisson, and far better
/// than (o − e)/√e in the tail a burst sits in.
fn likelihood_ratio_z(observed: f64, expected: f64) -> f64 {
    let g = if observed > 0.0 {
        2.0 * (observed * (observed / expected).ln() - (observed - expected))
    } else {
        2.0 * expected
    };
    g.max(0.0).sqrt().copysign(observed - expected)
}

/// The arrivals a named burst adds from the origin to `t`, less the same
/// number spread evenly over its period: the rate, estimated with the
/// burst inside it, plus this puts the burst where it comes.
pub(super) fn moved_by(burst: &PeriodicBurst, t: f64) -> f64 {
    let (period, start) = (burst.period_s, burst.phase_start_s);
    let length = burst.phase_end_s - start;
    let since = t - start;
    let in_windows = (since / period).floor() * length + since.rem_euclid(period).min(length);
    burst.extra_per_period * (in_windows / length - t / period)
}
