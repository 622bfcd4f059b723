//! Jitter: random delays that break up a bulk enqueue.
//!
//! When N jobs are enqueued at the same instant, they all hit the downstream
//! at once: the thundering herd. Giving each job its own random delay drawn
//! uniformly from [min, max) spreads them out; the downstream then sees a
//! flat rate of N / (max − min) jobs per unit of time, and the last job runs
//! by t0 + max. A fixed delay only moves the herd later. Other shapes trade
//! the flat rate for an early bulk (exponential) or a hump (normal).
//!
//! A downstream that takes R jobs a minute is overrun by Σ max(0, count − R)
//! jobs over the minutes from t0, and even at its limit it needs N / R to
//! take them all: the cumulative starts can never rise faster than
//! min(N, R·t). With uniform jitter each minute inside [min, max) holds
//! Binomial(N, 1 min / (max − min)) jobs, so the busiest one sits a couple
//! of standard deviations above the flat rate.
//!
//! The charts count arrivals on one time axis for a run and its herd, in
//! bins of 1 s, 10 s, 1 min or 10 min: the narrowest that keeps the axis
//! to at most 600 bins.

use rand::RngExt;

use crate::choice_enum;
use crate::dist::{Dist, Peak};
use crate::error::{InvalidInput, count_at_most, positive, within};
use crate::field::{Field, Notice};
use crate::key_numbers::KeyNumber;
use crate::panel_params;
use crate::presets::Preset;
use crate::rng::{Purpose, seeded};
use crate::stats;
use crate::units::{count, duration, significant};

const DELAYS: Purpose = Purpose::new("jitter.delays");
const MAX_JOBS: u64 = 1_000_000;
const MAX_DELAY_MINUTES: f64 = 1440.0;

choice_enum! {
    /// How each job's delay is drawn.
    pub enum Strategy {
        /// Every job runs at t0: the herd.
        NoDelay = ("none", "None: all at once"),
        /// Every job waits the mean delay: the herd, later.
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

panel_params! {
    /// Parameters of the Jitter panel.
    pub struct JitterParams {
        /// N, the jobs enqueued at the same instant.
        pub jobs: u32 = 10_000, Field::number("n", "Jobs", "jobs", (1.0, 1_000_000.0), 1.0).log();
        pub strategy: Strategy = Strategy::Uniform, Field::choice("js", "Delay", Strategy::OPTIONS);
        /// Shortest delay, in minutes.
        pub min_delay: f64 = 0.0, Field::number("lo", "Min delay", "min", (0.0, 1440.0), 0.5);
        /// Longest delay, in minutes (exclusive for uniform).
        pub max_delay: f64 = 30.0, Field::number("hi", "Max delay", "min", (0.0, 1440.0), 0.5);
        /// The fixed delay, and the mean of the exponential and normal shapes.
        pub mean_delay: f64 = 10.0, Field::number("m", "Mean delay", "min", (0.0, 1440.0), 0.5);
        /// Spread of the normal shapes.
        pub sd: f64 = 5.0, Field::number("sd", "Std deviation", "min", (0.1, 720.0), 0.1).log();
        /// What the downstream accepts per minute.
        pub limit_per_minute: u32 = 500, Field::number("r", "Downstream limit", "/min", (1.0, 1_000_000.0), 1.0).log();
    }
    settle_rules = keep_delays_apart;
}

/// The uniform range [min, max) must not be empty.
fn keep_delays_apart(params: &mut JitterParams) -> Vec<Notice> {
    let [_, _, min_field, max_field, ..] = JitterParams::FIELDS;
    if params.max_delay > params.min_delay {
        Vec::new()
    } else if params.min_delay < MAX_DELAY_MINUTES {
        params.max_delay = params.min_delay + 0.5;
        let why = format!("must be above the min delay; using {}", params.max_delay);
        vec![max_field.notice(why)]
    } else {
        (params.min_delay, params.max_delay) = (MAX_DELAY_MINUTES - 0.5, MAX_DELAY_MINUTES);
        vec![min_field.notice("must be below the max delay; using 1439.5")]
    }
}

impl JitterParams {
    /// Width of the delay range, in minutes.
    pub fn spread_minutes(&self) -> f64 {
        self.max_delay - self.min_delay
    }

    /// The rate a uniform delay gives the downstream: N / (max − min) per minute.
    pub fn flat_rate_per_minute(&self) -> f64 {
        f64::from(self.jobs) / self.spread_minutes()
    }
}

/// Everything a bulk enqueue with jitter produced. Times are seconds after t0.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct JitterRun {
    /// When each job runs, in enqueue order.
    pub run_at: Vec<f64>,
    /// Jobs starting in each second from t0.
    pub per_second: Vec<u32>,
    /// Jobs starting in each minute from t0.
    pub per_minute: Vec<u32>,
    /// The busiest minute's start and count (the earliest of equals).
    pub peak_minute: (f64, u32),
    /// Jobs beyond the limit, summed over minutes: Σ max(0, count − R).
    pub over_limit: u64,
    /// When the last job runs.
    pub last_run: f64,
    /// N / (max − min) per minute, for the uniform strategy.
    pub flat_rate_per_minute: Option<f64>,
}

/// Draws every job's delay for `params` with `seed` and counts what the
/// downstream sees.
pub fn run(params: &JitterParams, seed: u64) -> Result<JitterRun, InvalidInput> {
    count_at_most("jobs", u64::from(params.jobs), MAX_JOBS)?;
    let (lo, hi) = (params.min_delay, params.max_delay);
    within("min delay", lo, 0.0, MAX_DELAY_MINUTES)?;
    if !(hi > lo && hi <= MAX_DELAY_MINUTES) {
        return Err(InvalidInput::new(
            "max delay",
            format!("{hi} must lie in ({lo}, 1440]"),
        ));
    }
    // A fixed delay is the mean itself, so the mean bounds how many seconds the run counts.
    let mean = within("mean delay", params.mean_delay, 0.0, MAX_DELAY_MINUTES)?;
    let sd = positive("std deviation", params.sd)?;
    if params.limit_per_minute == 0 {
        return Err(InvalidInput::new(
            "downstream limit",
            "must take at least 1 job a minute",
        ));
    }
    let width = hi - lo;
    let shape = match params.strategy {
        Strategy::Normal => Some(Dist::normal(mean, sd)?),
        Strategy::TwoPeak => Some(Dist::two_peak(
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
        Strategy::NoDelay => 0.0,
        Strategy::Fixed => mean,
        Strategy::Uniform => lo + rng.random::<f64>() * width,
        Strategy::Exponential if mean == 0.0 => 0.0,
        Strategy::Exponential => -mean * libm::log1p(-rng.random::<f64>() * exponential_mass),
        Strategy::Normal | Strategy::TwoPeak => shape
            .as_ref()
            .map_or(lo, |shape| shape.sample(&mut rng).clamp(lo, hi)),
    };
    let run_at: Vec<f64> = (0..params.jobs).map(|_| draw_minutes() * 60.0).collect();

    let last_run = run_at.iter().copied().fold(0.0, f64::max);
    let seconds = last_run.floor() as usize + 1;
    let per_second = stats::histogram(run_at.iter().copied(), 0.0, 1.0, seconds);
    let per_minute = stats::histogram(run_at.iter().copied(), 0.0, 60.0, seconds.div_ceil(60));
    let (peak_index, peak_count) = per_minute
        .iter()
        .copied()
        .enumerate()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .unwrap_or((0, 0));
    let limit = params.limit_per_minute;
    let over_limit = per_minute
        .iter()
        .map(|&c| u64::from(c.saturating_sub(limit)))
        .sum();
    Ok(JitterRun {
        run_at,
        per_second,
        per_minute,
        peak_minute: (peak_index as f64 * 60.0, peak_count),
        over_limit,
        last_run,
        flat_rate_per_minute: (params.strategy == Strategy::Uniform)
            .then(|| params.flat_rate_per_minute()),
    })
}

/// The same enqueue without any delay: the herd that jitter breaks up.
pub fn herd(params: &JitterParams, seed: u64) -> Result<JitterRun, InvalidInput> {
    let all_at_once = JitterParams {
        strategy: Strategy::NoDelay,
        ..params.clone()
    };
    run(&all_at_once, seed)
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
    /// The downstream limit R converted to a bin `seconds` wide.
    pub fn limit_per(&self, seconds: f64) -> f64 {
        f64::from(self.limit_per_minute) * seconds / 60.0
    }

    /// Seconds the downstream needs to take all N at its limit: N / R.
    pub fn drain_seconds(&self) -> f64 {
        f64::from(self.jobs) / self.limit_per(1.0)
    }

    /// The fastest the downstream could take the jobs, min(N, R·t), from
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

/// The panel's "try this" presets.
pub const PRESETS: &[Preset] = &[
    Preset {
        slug: "herd",
        title: "10,000 jobs, no jitter",
        lesson: "All 10,000 jobs start in the same second, twenty times what the downstream takes in a minute, so 9,500 of them are over its limit.",
        query: "js=none&n=10000",
    },
    Preset {
        slug: "fixed-delay",
        title: "A fixed 10-minute delay just moves the herd",
        lesson: "The same spike of 10,000 jobs arrives ten minutes later, and the same 9,500 of them are over the limit.",
        query: "js=fixed&m=10",
    },
    Preset {
        slug: "uniform-30",
        title: "30-minute uniform jitter ≈ 333/min",
        lesson: "Spread evenly over 30 minutes the jobs arrive at about 333 a minute, and even the busiest minute stays well under the limit of 500.",
        query: "js=uniform&lo=0&hi=30",
    },
    Preset {
        slug: "exponential-vs-uniform",
        title: "Exponential vs uniform",
        lesson: "Over the same 30 minutes an exponential delay starts about 1,000 jobs in the first minute, three times the uniform rate and twice the limit, and only about 50 in the last.",
        query: "js=exponential&m=10&hi=30",
    },
    Preset {
        slug: "tight-limit",
        title: "A limit of 300/min needs more than 30 minutes",
        lesson: "Taking 300 a minute, the downstream needs 33 min 20 s for 10,000 jobs, so a uniform spread over 30 minutes still overruns it in nearly every minute.",
        query: "r=300",
    },
];

/// The figures the panel prints beside its charts.
pub fn key_numbers(params: &JitterParams, run: &JitterRun) -> Vec<KeyNumber> {
    let jobs = u64::from(params.jobs);
    let (peak_start, peak_count) = run.peak_minute;
    let peak = KeyNumber::new(
        "peak-minute",
        "Busiest minute",
        format!(
            "{} jobs at {}",
            count(u64::from(peak_count)),
            duration(peak_start)
        ),
        "most jobs starting within one minute [k, k + 1) from t0",
    );
    let peak = match busiest_minute_theory(params) {
        Some(theory) => peak.beside(theory),
        None => peak,
    };
    let over_limit = KeyNumber::new(
        "over-limit",
        "Jobs over the downstream limit",
        count(run.over_limit),
        "Σ max(0, jobs in a minute − R)",
    );
    let over_limit = match params.strategy {
        Strategy::NoDelay | Strategy::Fixed => over_limit.beside(format!(
            "all N in one minute, so N − R = {}",
            count(jobs.saturating_sub(u64::from(params.limit_per_minute)))
        )),
        _ => over_limit,
    };
    let range_end = duration(params.max_delay * 60.0);
    let last_job_theory = match params.strategy {
        Strategy::NoDelay => "t0 = 0 s".to_string(),
        Strategy::Fixed => format!("t0 + fixed delay = {}", duration(params.mean_delay * 60.0)),
        Strategy::Uniform => format!("just before t0 + max = {range_end}"),
        Strategy::Exponential | Strategy::Normal | Strategy::TwoPeak => {
            format!("no later than t0 + max = {range_end}")
        }
    };
    vec![
        peak,
        KeyNumber::new(
            "flat-rate",
            "Flat rate with uniform jitter",
            format!("{} /min", significant(params.flat_rate_per_minute(), 3)),
            "N / (max − min)",
        ),
        KeyNumber::new(
            "herd",
            "Without jitter",
            format!("{} at once", count(jobs)),
            "all N at t0",
        ),
        over_limit,
        KeyNumber::new(
            "at-limit",
            "Fastest the downstream can take them",
            duration(params.drain_seconds()),
            "N / R, at the limit from t0",
        ),
        KeyNumber::new(
            "last-job",
            "Last job runs at",
            duration(run.last_run),
            "the latest delay drawn",
        )
        .beside(last_job_theory),
    ]
}

/// What theory expects of the busiest minute, where it says something
/// simple: the whole herd for no or a fixed delay, and for uniform and
/// exponential delays the fullest minute's expected count N·p with its
/// binomial spread √(N·p·(1 − p)). Normal shapes clipped at the range's
/// ends pile jobs onto the ends, so they get no simple figure.
fn busiest_minute_theory(params: &JitterParams) -> Option<String> {
    let jobs = f64::from(params.jobs);
    let (lo, hi, mean) = (params.min_delay, params.max_delay, params.mean_delay);
    let by_chance = |share: f64| {
        let spread = (jobs * share * (1.0 - share)).sqrt();
        format!("± {} by chance", significant(spread, 2))
    };
    let all = count(u64::from(params.jobs));
    match params.strategy {
        Strategy::NoDelay => Some(format!("all N in the first minute = {all}")),
        Strategy::Fixed => Some(format!(
            "all N at t0 + fixed delay = {all} at {}",
            duration(mean.floor() * 60.0)
        )),
        Strategy::Uniform => {
            // The minute overlapping [min, max) the most holds that overlap's share.
            // Capped like the run's range, so no input makes this a long loop.
            let fullest = (lo.floor() as u32..hi.min(MAX_DELAY_MINUTES).ceil() as u32)
                .map(|minute| (f64::from(minute) + 1.0).min(hi) - f64::from(minute).max(lo))
                .fold(0.0, f64::max);
            let share = fullest / (hi - lo);
            Some(if fullest == 1.0 {
                format!(
                    "N / (max − min) = {} a minute, {}",
                    significant(params.flat_rate_per_minute(), 3),
                    by_chance(share)
                )
            } else {
                // A range narrower than a minute, or cut by the minute
                // edges, fills no whole minute at the flat rate.
                format!(
                    "N × the fullest minute's share of [min, max) = {}, {}",
                    significant(jobs * share, 3),
                    by_chance(share)
                )
            })
        }
        Strategy::Exponential if mean == 0.0 || hi <= 1.0 => {
            Some(format!("all N in the first minute = {all}"))
        }
        Strategy::Exponential => {
            // The density falls from t0, so the first minute is the fullest.
            let first = libm::expm1(-1.0 / mean) / libm::expm1(-hi / mean);
            Some(format!(
                "N(1 − e^(−1/mean)) / (1 − e^(−max/mean)) = {} in the first minute, {}",
                significant(jobs * first, 3),
                by_chance(first)
            ))
        }
        Strategy::Normal | Strategy::TwoPeak => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::PanelParams;

    #[test]
    fn ten_thousand_jobs_over_thirty_minutes_is_about_333_a_minute() {
        let rate = JitterParams::default().flat_rate_per_minute();
        assert!((rate - 333.33).abs() < 0.01, "{rate}");
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
