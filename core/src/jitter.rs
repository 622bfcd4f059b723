//! Jitter: random delays that break up a bulk enqueue.
//!
//! When N jobs are enqueued at the same instant, they all hit the downstream
//! at once: the thundering herd. Giving each job its own random delay drawn
//! uniformly from [min, max) spreads them out; the downstream then sees a
//! flat rate of N / (max − min), and the last job runs by t0 + max. A fixed
//! delay only moves the herd later. Other shapes trade the flat rate for an
//! early bulk (exponential) or a hump (normal).
//!
//! A downstream's limit is stated per second, as APIs state theirs: L
//! calls a second. Everything over it is counted per whole second from t0,
//! Σ max(0, count − L), however coarsely a chart bins. Even at its limit it
//! needs N / L to take all N, so no window shorter than that can fit. With
//! uniform jitter over W seconds each second holds Binomial(N, 1/W) jobs,
//! and the busiest of the W sits several spreads above the flat rate: the
//! window that fits is wider than N / L. [`WindowFit`] finds it twice,
//! measured on this seed's draws and from that binomial maximum.
//!
//! The charts count arrivals on one time axis for a run and its herd, in
//! bins of 1 s, 10 s, 1 min or 10 min: the narrowest that keeps the axis
//! to at most 600 bins.
//!
//! ```
//! use stampede_core::jitter::{JitterParams, run};
//!
//! // 5,000 jobs against a downstream that takes 50 a second.
//! let params = JitterParams {
//!     jobs: 5_000,
//!     limit_per_second: 50,
//!     ..Default::default()
//! };
//! let fit = run(&params, 1).unwrap().window_fit;
//! assert_eq!(fit.floor_seconds, 100.0); // N / L
//! assert!(fit.window_seconds.unwrap() > fit.floor_seconds);
//! ```

use rand::RngExt;
use statrs::distribution::{Binomial, DiscreteCDF};

use crate::choice_enum;
use crate::clock::ClockTime;
use crate::dist::{Dist, Peak};
use crate::error::{InvalidInput, count_at_most, positive, within};
use crate::multinomial::chance_max_at_most;
use crate::rng::{Purpose, seeded};
use crate::speedup::Speedup;
use crate::stats;

const DELAYS: Purpose = Purpose::new("jitter.delays");
const MAX_JOBS: u64 = 1_000_000;
pub const MAX_DELAY_MINUTES: f64 = 1440.0;
/// Delays move in tenths of a minute: 6 s, so a window is whole seconds.
pub const DELAY_STEP_MINUTES: f64 = 0.1;
/// Steps in a minute: a delay of k steps is k / 10 min, divided rather than
/// multiplied by 0.1 so that it is the f64 a URL's "17.9" reads as.
const STEPS_PER_MINUTE: f64 = 10.0;
/// Steps in the longest delay.
const DELAY_STEPS: u32 = 14_400;

choice_enum! {
    /// How each job's delay is drawn.
    pub enum JitterStrategy {
        /// Every job runs at t0: the herd.
        NoDelay = ("none", "None: all at once"),
        /// Every job waits the same fixed delay: the herd, later.
        Fixed = ("fixed", "Fixed delay"),
        /// Uniform in [min, max): a flat rate.
        Uniform = ("uniform", "Uniform"),
        /// Exponential with the mean, cut at max.
        Exponential = ("exponential", "Exponential"),
        /// Normal around the mean, clipped to [min, max].
        Normal = ("normal", "Normal"),
        /// Two normal peaks at a quarter and three quarters of [min, max].
        TwoPeak = ("twopeak", "Two peaks"),
    }
}

choice_enum! {
    /// The share of nights on which a recommended window keeps every
    /// second within the limit.
    pub enum Confidence {
        Half = ("50", "50 % of nights"),
        Ninety = ("90", "90 % of nights"),
        NinetyFive = ("95", "95 % of nights"),
        NinetyNine = ("99", "99 % of nights"),
    }
}

impl Confidence {
    /// The share as a fraction: 0.95.
    pub fn share(self) -> f64 {
        match self {
            Self::Half => 0.5,
            Self::Ninety => 0.9,
            Self::NinetyFive => 0.95,
            Self::NinetyNine => 0.99,
        }
    }
}

/// A bulk enqueue of N jobs, the delay each draws, and the downstream they
/// call.
#[derive(Clone, Debug, PartialEq)]
pub struct JitterParams {
    /// N, the jobs enqueued at the same instant.
    pub jobs: u32,
    pub strategy: JitterStrategy,
    /// Shortest delay, in minutes.
    pub min_delay: f64,
    /// Longest delay, in minutes (exclusive for uniform).
    pub max_delay: f64,
    /// The one delay every job waits under the fixed strategy, in minutes.
    pub fixed_delay: f64,
    /// The mean of the exponential and normal shapes, in minutes.
    pub mean_delay: f64,
    /// Spread of the normal shapes, in minutes.
    pub sd: f64,
    /// L, the calls a second the downstream accepts.
    pub limit_per_second: u32,
    /// The share of nights the window it recommends must hold on.
    pub confidence: Confidence,
    /// The time of day of the enqueue, which the snippets schedule.
    pub start: ClockTime,
}

impl JitterParams {
    /// Width of the delay range, in minutes.
    pub fn spread_minutes(&self) -> f64 {
        self.max_delay - self.min_delay
    }

    /// The rate a uniform delay gives the downstream: N / (max − min), per second.
    pub fn flat_rate_per_second(&self) -> f64 {
        f64::from(self.jobs) / (self.spread_minutes() * 60.0)
    }
}

/// Everything a bulk enqueue with jitter produced. Times are seconds after t0.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct JitterRun {
    /// When each job runs, in enqueue order.
    pub run_at: Vec<f64>,
    /// Jobs starting in each second from t0.
    pub per_second: Vec<u32>,
    /// The busiest second's start and count (the earliest of equals).
    pub peak_second: (f64, u32),
    /// Seconds in which more than L jobs start.
    pub seconds_over_limit: u32,
    /// Jobs beyond the limit, summed over seconds: Σ max(0, count − L).
    pub over_limit: u64,
    /// When the last job runs.
    pub last_run: f64,
    /// N / (max − min) per second, for the uniform strategy.
    pub flat_rate_per_second: Option<f64>,
    /// For the uniform strategy, the share of nights on which this window
    /// keeps every second at or under L.
    pub nights_within_limit: Option<f64>,
    /// The narrowest uniform window that keeps every second within L.
    pub window_fit: WindowFit,
}

/// The narrowest uniform window [min, max) that keeps every second at or
/// under the limit L for N jobs, on a chosen share of nights. Windows are
/// whole seconds, in steps of [`DELAY_STEP_MINUTES`] above the min delay.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct WindowFit {
    /// The share of nights the window must hold on, such as 0.95.
    pub confidence: f64,
    /// The smallest max delay, in minutes, whose window holds on at least
    /// that share of nights while one step less does not; `None` when even
    /// 1,440 minutes do not.
    pub max_delay: Option<f64>,
    /// That window, max − min, in seconds.
    pub window_seconds: Option<f64>,
    /// The share of nights that window holds on, and one step less.
    pub chance: Option<f64>,
    pub chance_one_step_less: Option<f64>,
    /// The smallest window that this seed's draws, one night, fit in.
    pub one_night_seconds: Option<f64>,
    /// N / L: no window shorter can take all N at the limit.
    pub floor_seconds: f64,
}

/// Draws every job's delay for `params` with `seed` and counts what the
/// downstream sees.
pub fn run(params: &JitterParams, seed: u64) -> Result<JitterRun, InvalidInput> {
    let run_at = draw(params, seed)?;
    Ok(counted(params, run_at, fit_window(params, seed)))
}

/// Keeps the last [`WindowFit`], which does not depend on the max delay,
/// so that dragging the max delay recounts only the run.
#[derive(Debug, Default)]
pub struct JitterCache {
    fit: Option<(FitInputs, WindowFit)>,
}

/// What a [`WindowFit`] depends on.
#[derive(Clone, Copy, Debug, PartialEq)]
struct FitInputs {
    jobs: u32,
    min_delay: f64,
    limit_per_second: u32,
    confidence: Confidence,
    seed: u64,
}

impl Speedup for JitterCache {
    type Params = JitterParams;
    type Run = JitterRun;

    fn plain(params: &JitterParams, seed: u64) -> Result<JitterRun, InvalidInput> {
        run(params, seed)
    }

    /// [`run`], reusing the window fit when only the delays' shape or the
    /// max delay changed.
    fn run(&mut self, params: &JitterParams, seed: u64) -> Result<JitterRun, InvalidInput> {
        let run_at = draw(params, seed)?;
        let inputs = FitInputs {
            jobs: params.jobs,
            min_delay: params.min_delay,
            limit_per_second: params.limit_per_second,
            confidence: params.confidence,
            seed,
        };
        let window_fit = match self.fit {
            Some((kept, fit)) if kept == inputs => fit,
            _ => fit_window(params, seed),
        };
        self.fit = Some((inputs, window_fit));

        Ok(counted(params, run_at, window_fit))
    }
}

/// What the downstream sees of the starts `run_at`, second by second.
fn counted(params: &JitterParams, run_at: Vec<f64>, window_fit: WindowFit) -> JitterRun {
    let last_run = run_at.iter().copied().fold(0.0, f64::max);
    let seconds = last_run.floor() as usize + 1;
    let per_second = stats::histogram(run_at.iter().copied(), 0.0, 1.0, seconds);
    let (peak_index, peak_count) = busiest(&per_second);
    let limit = params.limit_per_second;
    let over = per_second.iter().filter(|&&c| c > limit);
    let seconds_over_limit = over.clone().count() as u32;
    let over_limit = over.map(|&c| u64::from(c - limit)).sum();
    let uniform = params.strategy == JitterStrategy::Uniform;
    JitterRun {
        run_at,
        per_second,
        peak_second: (peak_index as f64, peak_count),
        seconds_over_limit,
        over_limit,
        last_run,
        flat_rate_per_second: uniform.then(|| params.flat_rate_per_second()),
        nights_within_limit: uniform.then(|| {
            let window = (params.spread_minutes() * 60.0).round() as u64;
            chance_max_at_most(params.jobs.into(), window, limit.into())
        }),
        window_fit,
    }
}

/// The fullest of `counts` and its index, the earliest of equals.
fn busiest(counts: &[u32]) -> (usize, u32) {
    counts
        .iter()
        .copied()
        .enumerate()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .unwrap_or((0, 0))
}

/// Every job's start in seconds after t0, in enqueue order, after checking
/// the parameters.
fn draw(params: &JitterParams, seed: u64) -> Result<Vec<f64>, InvalidInput> {
    count_at_most("jobs", u64::from(params.jobs), MAX_JOBS)?;
    let (lo, hi) = (params.min_delay, params.max_delay);
    within("min delay", lo, 0.0, MAX_DELAY_MINUTES)?;
    if !(hi > lo && hi <= MAX_DELAY_MINUTES) {
        return Err(InvalidInput::new(
            "max delay",
            format!("{hi} must lie in ({lo}, 1440]"),
        ));
    }
    let fixed = within("fixed delay", params.fixed_delay, 0.0, MAX_DELAY_MINUTES)?;
    let mean = within("mean delay", params.mean_delay, 0.0, MAX_DELAY_MINUTES)?;
    let sd = positive("std deviation", params.sd)?;
    if params.limit_per_second == 0 {
        return Err(InvalidInput::new(
            "downstream limit",
            "must take at least 1 job a second",
        ));
    }
    let width = hi - lo;
    let shape = match params.strategy {
        JitterStrategy::Normal => Some(Dist::normal(mean, sd)?),
        JitterStrategy::TwoPeak => Some(Dist::two_peak(
            Peak {
                mean: lo + width / 4.0,
                sd,
            },
            Peak {
                mean: lo + width * 3.0 / 4.0,
                sd,
            },
            0.5,
        )?),
        _ => None,
    };
    // Inverse transform of the exponential cut at max: F(max) = 1 − e^(−max/mean).
    let exponential_mass = -libm::expm1(-hi / mean);
    let mut rng = seeded(seed, DELAYS);
    let mut draw_minutes = || match params.strategy {
        JitterStrategy::NoDelay => 0.0,
        JitterStrategy::Fixed => fixed,
        JitterStrategy::Uniform => uniform_minutes(lo, width, rng.random::<f64>()),
        JitterStrategy::Exponential if mean == 0.0 => 0.0,
        JitterStrategy::Exponential => -mean * libm::log1p(-rng.random::<f64>() * exponential_mass),
        JitterStrategy::Normal | JitterStrategy::TwoPeak => shape
            .as_ref()
            .map_or(lo, |shape| shape.sample(&mut rng).clamp(lo, hi)),
    };
    Ok((0..params.jobs).map(|_| draw_minutes() * 60.0).collect())
}

/// A uniform delay in minutes from one draw u: the run and the window fit
/// share this expression, so the fit counts exactly the seconds a run would.
fn uniform_minutes(min: f64, width: f64, u: f64) -> f64 {
    min + u * width
}

/// The narrowest window for N jobs under L, on the share of nights
/// `params.confidence` asks for and on this seed's one night; see
/// [`WindowFit`].
///
/// The share of nights a window W holds on is the chance that no second
/// of W holds more than L of N uniform starts, by
/// [`chance_max_at_most`]. It grows with W, so the smallest W is found by
/// bisection. One night's draws do not grow steadily better with W (a
/// wider window can put two close draws into one second), so its window
/// is found by trying each step upwards, from where fewer than one night
/// in 10¹² fits: below it no step is worth counting.
pub fn fit_window(params: &JitterParams, seed: u64) -> WindowFit {
    let (jobs, limit) = (params.jobs, params.limit_per_second.max(1));
    let floor_seconds = f64::from(jobs) / f64::from(limit);
    let lo = params.min_delay;
    let max_delay_at = |step: u32| f64::from(step) / STEPS_PER_MINUTE;
    let window_at = |step: u32| ((max_delay_at(step) - lo) * 60.0).round();
    let chance_at =
        |step: u32| chance_max_at_most(jobs.into(), window_at(step) as u64, limit.into());
    // The first step above the min delay, and the last that counting rules
    // out: a window under N / L − 2 whole seconds cannot take N.
    let first = (lo * STEPS_PER_MINUTE).floor() as u32 + 1;
    let ruled_out = ((lo + (floor_seconds - 2.0) / 60.0) * STEPS_PER_MINUTE).floor();
    let overruns = (ruled_out.max(f64::from(first) - 1.0) as u32).min(DELAY_STEPS);
    let confidence = params.confidence.share();
    let holds = |step: u32| chance_at(step) >= confidence;
    let step = (first <= DELAY_STEPS && holds(DELAY_STEPS))
        .then(|| first_fitting(overruns, DELAY_STEPS, holds));
    let worth_counting = |step: u32| chance_at(step) >= 1e-12;
    let one_night_step = (first <= DELAY_STEPS && worth_counting(DELAY_STEPS))
        .then(|| {
            let from = first_fitting(overruns, DELAY_STEPS, worth_counting);
            let night = OneNight::new(params, seed);
            (from..=DELAY_STEPS).find(|&step| night.fits(max_delay_at(step)))
        })
        .flatten();
    WindowFit {
        confidence,
        max_delay: step.map(max_delay_at),
        window_seconds: step.map(window_at),
        chance: step.map(chance_at),
        chance_one_step_less: step.map(|step| chance_at(step - 1)),
        one_night_seconds: one_night_step.map(window_at),
        floor_seconds,
    }
}

/// One night's uniform draws, sorted, so that a window's busiest second
/// is found by walking its seconds rather than counting every draw.
struct OneNight {
    draws: Vec<f64>,
    min_delay: f64,
    limit: usize,
}

impl OneNight {
    fn new(params: &JitterParams, seed: u64) -> Self {
        let mut rng = seeded(seed, DELAYS);
        let mut draws: Vec<f64> = (0..params.jobs).map(|_| rng.random::<f64>()).collect();
        stats::sort_as_total_cmp(&mut draws);
        Self {
            draws,
            min_delay: params.min_delay,
            limit: params.limit_per_second as usize,
        }
    }

    /// Whether every second from t0 holds at most L of the starts with
    /// this max delay, counted as a run counts them. A start's second only
    /// grows with its draw, so a second holds more than L exactly when
    /// some sorted draw shares its second with the draw L places on.
    fn fits(&self, max_delay: f64) -> bool {
        let last = (max_delay * 60.0).floor() as usize;
        let width = max_delay - self.min_delay;
        let second = |u: f64| {
            ((uniform_minutes(self.min_delay, width, u) * 60.0).floor() as usize).min(last)
        };
        let (draws, limit) = (&self.draws, self.limit);
        let mut i = 0;
        while i + limit < draws.len() {
            let here = second(draws[i]);
            if second(draws[i + limit]) == here {
                return false;
            }
            // The next second's first draw lies within the next L.
            i += 1 + draws[i + 1..=i + limit].partition_point(|&u| second(u) == here);
        }
        true
    }
}

/// Bisects between `overruns`, known not to fit, and `fitting`, known to,
/// for a value that fits while the one below it does not.
fn first_fitting(mut overruns: u32, mut fitting: u32, mut fits: impl FnMut(u32) -> bool) -> u32 {
    while fitting - overruns > 1 {
        let middle = overruns + (fitting - overruns) / 2;
        if fits(middle) {
            fitting = middle;
        } else {
            overruns = middle;
        }
    }
    fitting
}

/// The expected largest of `seconds` counts, each Binomial(N, 1/seconds):
/// Σₖ P(max > k) = Σₖ (1 − F(k)^W), taking the counts as independent (the
/// multinomial's slight negative correlation makes the true value a
/// little lower).
pub fn expected_busiest_second(jobs: u32, seconds: u32) -> f64 {
    let n = u64::from(jobs);
    if seconds <= 1 {
        return f64::from(jobs);
    }
    let bins = f64::from(seconds);
    let Ok(binomial) = Binomial::new(1.0 / bins, n) else {
        return f64::from(jobs);
    };
    let mean = f64::from(jobs) / bins;
    let spread = (mean * (1.0 - 1.0 / bins)).sqrt();
    // Far below the mean every one of the W counts exceeds k: terms of 1.
    let start = (mean - 12.0 * spread - 1.0).max(0.0).floor() as u64;
    let mut total = start as f64;
    for k in start..n {
        let above = binomial.sf(k);
        let term = -libm::expm1(bins * libm::log1p(-above));
        total += term;
        if k as f64 > mean && term < 1e-9 {
            break;
        }
    }
    total
}

/// The same enqueue without any delay: the herd that jitter breaks up, as
/// counted beside `run`, whose window fit it shares.
pub fn herd(params: &JitterParams, run: &JitterRun) -> JitterRun {
    let all_at_once = JitterParams {
        strategy: JitterStrategy::NoDelay,
        ..params.clone()
    };
    counted(&all_at_once, vec![0.0; run.run_at.len()], run.window_fit)
}

/// The most bins a time axis is cut into: enough to show the shape, few
/// enough to count and draw within a frame.
const MOST_BINS: f64 = 600.0;

/// Bin widths a reader can say, narrowest first, each with the unit its
/// axis reads best in: (bin seconds, bin name, unit seconds, unit name).
const BIN_LADDER: [(u32, &str, u32, &str); 4] = [
    (1, "second", 1, "s"),
    (10, "10 s", 60, "min"),
    (60, "minute", 60, "min"),
    (600, "10 min", 3600, "h"),
];

/// A time axis from t0 cut into equal bins, shared by a run and the herd
/// so both are counted and drawn on the same scale.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct TimeAxis {
    pub bin_seconds: u32,
    /// The bin as a reader says it: jobs per "10 s".
    pub bin_name: &'static str,
    pub bins: u32,
    /// The unit the axis is labelled in, in seconds, and its symbol.
    pub unit_seconds: u32,
    pub unit_name: &'static str,
}

impl TimeAxis {
    /// The axis for `run`: from t0 to the later of t0 + max and the last
    /// job, in the narrowest bin that keeps it to at most 600 bins (and, for
    /// a range of 30 s or more, at least 30).
    pub fn for_run(params: &JitterParams, run: &JitterRun) -> Self {
        let range_end = params.max_delay * 60.0;
        let span = range_end.max(run.last_run);
        let (bin_seconds, bin_name, unit_seconds, unit_name) = BIN_LADDER
            .into_iter()
            .find(|&(width, ..)| span / f64::from(width) < MOST_BINS)
            .unwrap_or(BIN_LADDER[BIN_LADDER.len() - 1]);
        let width = f64::from(bin_seconds);
        // A clipped delay can land exactly on t0 + max; its bin must be on the axis.
        let bins = (range_end / width)
            .ceil()
            .max((run.last_run / width).floor() + 1.0);
        Self {
            bin_seconds,
            bin_name,
            bins: bins as u32,
            unit_seconds,
            unit_name,
        }
    }

    /// Where the axis ends, in seconds after t0.
    pub fn end(&self) -> f64 {
        f64::from(self.bins) * f64::from(self.bin_seconds)
    }
}

impl JitterRun {
    /// Jobs starting in each bin of `axis`, summed from the per-second counts.
    pub fn arrivals(&self, axis: &TimeAxis) -> Vec<u32> {
        let mut counts = vec![0u32; axis.bins as usize];
        let per_bin = self.per_second.chunks(axis.bin_seconds.max(1) as usize);
        for (total, seconds) in counts.iter_mut().zip(per_bin) {
            *total = seconds.iter().sum();
        }
        counts
    }

    /// The cumulative completion curve: (t, jobs started before t) at t0
    /// and at the end of every bin of `axis`, so at most 601 points.
    pub fn completion(&self, axis: &TimeAxis) -> Vec<(f64, f64)> {
        let width = f64::from(axis.bin_seconds);
        let mut started = 0u64;
        let mut points = Vec::with_capacity(axis.bins as usize + 1);
        points.push((0.0, 0.0));
        for (index, count) in self.arrivals(axis).into_iter().enumerate() {
            started += u64::from(count);
            points.push(((index + 1) as f64 * width, started as f64));
        }
        points
    }
}

impl JitterParams {
    /// The downstream limit L converted to a bin `seconds` wide.
    pub fn limit_per(&self, seconds: f64) -> f64 {
        f64::from(self.limit_per_second) * seconds
    }

    /// Seconds the downstream needs to take all N at its limit: N / L.
    pub fn drain_seconds(&self) -> f64 {
        f64::from(self.jobs) / self.limit_per(1.0)
    }

    /// The fastest the downstream could take the jobs, min(N, L·t), from
    /// t0 to `until` seconds: a ramp, then flat once all N are in.
    pub fn fastest_at_limit(&self, until: f64) -> Vec<(f64, f64)> {
        let jobs = f64::from(self.jobs);
        let drained = self.drain_seconds();
        let mut points = vec![(0.0, 0.0)];
        if drained < until {
            points.push((drained, jobs));
        }
        points.push((until, self.limit_per(until).min(jobs)));
        points
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::PanelParams;

    #[test]
    fn ten_thousand_jobs_over_thirty_minutes_is_about_5_6_a_second() {
        let rate = JitterParams::default().flat_rate_per_second();
        assert!((rate - 5.5556).abs() < 0.0001, "{rate}");
    }

    #[test]
    fn an_empty_range_is_widened() {
        let mut params = JitterParams {
            min_delay: 20.0,
            max_delay: 10.0,
            ..Default::default()
        };
        let notices = params.settle();
        assert_eq!((params.min_delay, params.max_delay), (20.0, 20.5));
        assert_eq!(notices[0].key, "hi");
        let mut at_top = JitterParams {
            min_delay: 1440.0,
            max_delay: 1440.0,
            ..Default::default()
        };
        assert_eq!(at_top.settle()[0].key, "lo");
        assert!(at_top.spread_minutes() > 0.0);
    }
}
