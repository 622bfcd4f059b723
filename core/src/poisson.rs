//! Poisson schedules: N events a day at random, memoryless times.
//!
//! Events that arrive independently at a steady average rate λ form a
//! Poisson process; the gap to the next event is exponential with mean 1/λ.
//! "N a day" means λ = N / 86,400 s. Half of all gaps are shorter than
//! ln 2 / λ, 95 % shorter than ln 20 / λ, 99 % shorter than ln 100 / λ.
//!
//! A daily window [start, end) in local time (UTC + offset) limits when
//! events may run; end before start wraps past midnight, and equal ends mean
//! all day. Policy `scale` raises λ to N / window length, so all N fall
//! inside the window; `defer` keeps the daily λ and moves every event drawn
//! outside the window to the window's next opening, which then bursts.
//!
//! Several tenants, each with its own N and window, merge into one stream.
//! A token bucket in front (capacity C, refilled at r tokens a second) lets
//! an event through when it holds a token; otherwise the event is dropped,
//! or waits for the next token, in arrival order.
//!
//! ```
//! use stampede_core::poisson::{PoissonParams, run};
//!
//! // The defaults: 300 events a day, all day, one day.
//! let day = run(&PoissonParams::default(), 1).unwrap();
//! assert_eq!(1.0 / day.rate_per_second, 288.0);
//! assert_eq!(day.per_hour[0].iter().sum::<u32>() as usize, day.run_times.len());
//! ```

use std::fmt;

use crate::choice_enum;
use crate::dist::{self, Dist};
use crate::error::{InvalidInput, count_at_most, positive, within};
use crate::rng::{Purpose, SeededRng, seeded};
use crate::stats;
use crate::units::SECONDS_PER_DAY;

/// The most events a run may expect (N summed over tenants × days), so a
/// run stays within a frame's budget and no input can freeze the tab.
pub const MAX_EXPECTED_EVENTS: u64 = 2_000_000;
/// The most tenants besides the first.
pub const MAX_EXTRA_TENANTS: usize = 8;

const GAPS: Purpose = Purpose::new("poisson.gaps");
/// The most draws [`PoissonCache::ready_ahead`] makes, 8 MB: those of a
/// day at a million events, the top of the panel's slider.
pub const READIED_DRAWS: usize = 1 << 20;

choice_enum! {
    /// What happens to the rate when events may only run inside a window.
    pub enum WindowPolicy {
        /// λ = N / window length: all N events fall inside the window.
        Scale = ("scale", "Scale the rate to the window"),
        /// λ = N / day; events outside the window wait for it to open.
        Defer = ("defer", "Defer to the window's opening"),
    }
}

choice_enum! {
    /// What a token bucket does with an event that finds it empty.
    pub enum BucketPolicy {
        Drop = ("drop", "Drop the event"),
        Wait = ("wait", "Wait for a token"),
    }
}

/// One source of events: N a day inside its daily window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tenant {
    pub per_day: u32,
    /// Local hour in [0, 24] at which the window opens.
    pub window_start: f64,
    /// Local hour in [0, 24] at which the window closes.
    pub window_end: f64,
}

impl Tenant {
    /// The window as (opening second of the local day, length in seconds);
    /// a window whose ends coincide spans the whole day.
    pub fn window(&self) -> (u32, u32) {
        let start = hour_to_seconds(self.window_start);
        let end = hour_to_seconds(self.window_end);
        let length = match (end + SECONDS_PER_DAY - start) % SECONDS_PER_DAY {
            0 => SECONDS_PER_DAY,
            length => length,
        };
        (start, length)
    }

    /// λ in events per second while the window is open.
    pub fn rate_per_second(&self, policy: WindowPolicy) -> f64 {
        let span = match policy {
            WindowPolicy::Scale => self.window().1,
            WindowPolicy::Defer => SECONDS_PER_DAY,
        };
        f64::from(self.per_day) / f64::from(span)
    }
}

/// Seconds since midnight of a local hour in [0, 24].
fn hour_to_seconds(hour: f64) -> u32 {
    (hour * 3600.0).round() as u32 % SECONDS_PER_DAY
}

/// The tenants after the first, written `N@start-end` (or `N` for all day)
/// and separated by commas: `1000@22-6, 50`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExtraTenants(pub Vec<Tenant>);

impl fmt::Display for Tenant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.window().1 == SECONDS_PER_DAY {
            write!(f, "{}", self.per_day)
        } else {
            write!(
                f,
                "{}@{}-{}",
                self.per_day, self.window_start, self.window_end
            )
        }
    }
}

/// The tenants, their windows, the horizon and an optional token bucket.
#[derive(Clone, Debug, PartialEq)]
pub struct PoissonParams {
    /// N, the average number of events a day of the first tenant.
    pub per_day: u32,
    /// Local hour at which the daily window opens.
    pub window_start: f64,
    /// Local hour at which the daily window closes.
    pub window_end: f64,
    pub policy: WindowPolicy,
    /// Local time = UTC + this many hours.
    pub utc_offset: f64,
    pub days: u32,
    pub extra_tenants: ExtraTenants,
    /// Token bucket capacity; 0 means no bucket.
    pub bucket_capacity: u32,
    pub bucket_refill: f64,
    pub bucket_policy: BucketPolicy,
}

impl PoissonParams {
    /// The first tenant, from N and the window, then the extra tenants.
    pub fn tenants(&self) -> Vec<Tenant> {
        let first = Tenant {
            per_day: self.per_day,
            window_start: self.window_start,
            window_end: self.window_end,
        };
        std::iter::once(first)
            .chain(self.extra_tenants.0.iter().copied())
            .collect()
    }

    /// N summed over the tenants.
    pub fn total_per_day(&self) -> u64 {
        self.tenants().iter().map(|t| u64::from(t.per_day)).sum()
    }

    /// Length of the first tenant's daily window in seconds.
    pub fn window_seconds(&self) -> u32 {
        self.tenants()[0].window().1
    }

    /// λ of the merged stream while every window is open, in events per second.
    pub fn rate_per_second(&self) -> f64 {
        self.tenants()
            .iter()
            .map(|t| t.rate_per_second(self.policy))
            .sum()
    }

    /// The first tenant's window as stretches of the local day in seconds:
    /// one, or two when it wraps past midnight.
    pub fn window_spans(&self) -> Vec<(f64, f64)> {
        let (open, length) = self.tenants()[0].window();
        let (open, end) = (f64::from(open), f64::from(open + length));
        let day = f64::from(SECONDS_PER_DAY);
        if end <= day {
            vec![(open, end)]
        } else {
            vec![(open, day), (0.0, end - day)]
        }
    }

    /// The gap that a share `p` of all gaps stays below: −ln(1 − p) / λ.
    pub fn gap_quantile(&self, p: f64) -> f64 {
        -(1.0 - p).ln() / self.rate_per_second()
    }
}

/// A token bucket's effect on a run.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct BucketOutcome {
    /// Ran at once, finding a token.
    pub accepted: u32,
    /// Found no token and were dropped.
    pub rejected: u32,
    /// Found no token and ran when one came.
    pub delayed: u32,
    /// Seconds added by waiting, summed over all delayed events.
    pub added_delay: f64,
    pub max_delay: f64,
}

/// A gap quantile as measured beside its theory value.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct GapQuantile {
    pub p: f64,
    pub measured: f64,
    /// −ln(1 − p) / λ.
    pub theory: f64,
}

/// Everything a Poisson run produced.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PoissonRun {
    /// Seconds since UTC midnight of the first day at which each event ran,
    /// in order; dropped events are not here.
    pub run_times: Vec<f64>,
    /// Gaps between consecutive run times: one fewer than the run times.
    pub gap_count: usize,
    /// The mean of those gaps, if there are any.
    pub mean_gap: Option<f64>,
    /// p50, p95 and p99 of the gaps beside −ln(1 − p) / λ.
    pub gap_quantiles: [GapQuantile; 3],
    /// λ of the merged stream while every window is open.
    pub rate_per_second: f64,
    /// Events that ran, per tenant, per local hour of the day (summed over days).
    pub per_hour: Vec<[u32; 24]>,
    /// The minute (its start, in seconds since the start) with the most events, and how many.
    pub busiest_minute: Option<(f64, u32)>,
    /// Events drawn outside their window and moved to its opening.
    pub deferred: u32,
    /// Seconds those events waited for their window, summed.
    pub deferred_wait: f64,
    /// What the token bucket did, if there is one.
    pub bucket: Option<BucketOutcome>,
    /// Events in each minute of the local day, over the run's first 24 hours.
    pub first_day_per_minute: Vec<u32>,
    /// The gaps binned, with the exponential curve to compare.
    pub gap_histogram: GapHistogram,
}

/// Gaps counted in equal bins from 0, beside the counts an exponential
/// with the run's λ predicts.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GapHistogram {
    pub bin_seconds: f64,
    pub counts: Vec<u32>,
    /// Gaps longer than the last bin reaches.
    pub beyond: u32,
    /// (gap, expected gaps per bin): n · bin · λe^(−λ·gap), a smooth curve.
    pub expected: Vec<(f64, f64)>,
}

/// Bins of the gap histogram; it reaches to the larger of the measured and
/// the theoretical 99th percentile.
const GAP_BINS: usize = 40;
/// Points on the expected curve.
const CURVE_POINTS: usize = 120;

impl GapHistogram {
    fn new(gaps: &[f64], rate: f64, p99: &GapQuantile) -> Self {
        let reach = p99.measured.max(p99.theory);
        let reach = if reach.is_finite() && reach > 0.0 {
            reach
        } else {
            1.0
        };
        let bin_seconds = reach / GAP_BINS as f64;
        let mut counts = vec![0u32; GAP_BINS];
        let per_bin = 1.0 / bin_seconds;
        for &gap in gaps {
            let bin = stats::bin_index_by_reciprocal(gap, bin_seconds, per_bin, GAP_BINS as f64);
            if (0.0..GAP_BINS as f64).contains(&bin) {
                counts[bin as usize] = counts[bin as usize].saturating_add(1);
            }
        }
        let binned: u32 = counts.iter().sum();
        let scale = gaps.len() as f64 * bin_seconds * rate;
        let expected = (0..=CURVE_POINTS)
            .map(|i| {
                let gap = reach * i as f64 / CURVE_POINTS as f64;
                (gap, scale * libm::exp(-rate * gap))
            })
            .collect();
        Self {
            bin_seconds,
            counts,
            beyond: gaps.len() as u32 - binned,
            expected,
        }
    }
}

/// The drawn events before the bucket, as two columns: when each asks to
/// run, and whose it is. The times become the run's times without a copy.
struct Arrivals {
    times: Vec<f64>,
    tenants: Vec<u8>,
}

impl Arrivals {
    fn with_capacity(capacity: usize) -> Self {
        Self {
            times: Vec::with_capacity(capacity),
            tenants: Vec::with_capacity(capacity),
        }
    }

    fn push(&mut self, time: f64, tenant: u8) {
        self.times.push(time);
        self.tenants.push(tenant);
    }

    /// Puts the events in time order; equal times keep their order, as each
    /// is sorted with its place. (A stable sort would do the same, but its
    /// code weighs about 0.2 KB more in the docs module.)
    fn sort_by_time(&mut self) {
        let mut placed: Vec<(f64, u32)> = self.times.iter().copied().zip(0..).collect();
        placed.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let tenants = &self.tenants;
        (self.times, self.tenants) = placed
            .into_iter()
            .map(|(time, place)| (time, tenants[place as usize]))
            .unzip();
    }
}

/// Runs the schedule `params` describes with `seed`.
pub fn run(params: &PoissonParams, seed: u64) -> Result<PoissonRun, InvalidInput> {
    PoissonCache::default().run(params, seed)
}

/// Each tenant's unit-rate exponential draws ([`dist::unit_exponential`]),
/// kept between runs: a tenant's gaps are its draws divided by its rate, so
/// a run with another N, window or horizon draws only past the last one.
#[derive(Debug, Default)]
pub struct PoissonCache {
    seed: u64,
    streams: Vec<Stream>,
}

/// One tenant's stream: its draws so far, and its generator after them.
#[derive(Debug)]
struct Stream {
    rng: SeededRng,
    draws: Vec<f64>,
}

impl Stream {
    /// Tenant `index`'s stream under `seed`, nothing drawn yet.
    fn new(seed: u64, index: usize) -> Self {
        Self {
            rng: seeded(seed, GAPS.indexed(index as u64)),
            draws: Vec::new(),
        }
    }

    /// Draws until the stream holds `count` draws. Drawn in one loop ahead
    /// of the events, the generator's steps and logarithms do not wait on
    /// the running sum of the gaps, nor it on them.
    fn draw_up_to(&mut self, count: usize) {
        let missing = count.saturating_sub(self.draws.len());
        let rng = &mut self.rng;
        self.draws
            .extend((0..missing).map(|_| dist::unit_exponential(rng)));
    }
}

impl PoissonCache {
    /// [`run`], reusing the draws of earlier runs.
    pub fn run(&mut self, params: &PoissonParams, seed: u64) -> Result<PoissonRun, InvalidInput> {
        self.keep_seed(seed);
        run_with(&mut self.streams, params, seed)
    }

    /// Draws up to `most` more of the first tenant's draws under `seed`,
    /// up to [`READIED_DRAWS`]: a page calls it while idle, so that a drag
    /// up N finds its draws made. The runs are the same either way.
    /// Returns whether more is left.
    pub fn ready_ahead(&mut self, seed: u64, most: usize) -> bool {
        self.keep_seed(seed);
        if self.streams.is_empty() {
            self.streams.push(Stream::new(seed, 0));
        }
        let stream = &mut self.streams[0];
        // Once, rather than copied over at each doubling.
        stream
            .draws
            .reserve_exact(READIED_DRAWS.saturating_sub(stream.draws.len()));
        let next = READIED_DRAWS.min(stream.draws.len().saturating_add(most));
        stream.draw_up_to(next);
        next < READIED_DRAWS
    }

    fn keep_seed(&mut self, seed: u64) {
        if seed != self.seed {
            (self.seed, self.streams) = (seed, Vec::new());
        }
    }
}

fn run_with(
    streams: &mut Vec<Stream>,
    params: &PoissonParams,
    seed: u64,
) -> Result<PoissonRun, InvalidInput> {
    let tenants = checked_tenants(params)?;
    let offset = params.utc_offset * 3600.0;
    // Room for every event up front: growing by doubling would copy a
    // million arrivals over and over, and touch fresh memory each time.
    let expected = likely_most(params.total_per_day() * u64::from(params.days));
    let mut drawn = Drawn {
        arrivals: Arrivals::with_capacity(expected),
        deferred: 0,
        deferred_wait: 0.0,
    };
    for (index, tenant) in tenants.iter().enumerate() {
        let rate = positive("events a day", tenant.rate_per_second(params.policy))?;
        // Refuses a rate no exponential may have, as a drawn one would.
        Dist::exponential(rate)?;
        if streams.len() == index {
            streams.push(Stream::new(seed, index));
        }
        let stream = &mut streams[index];
        stream.draw_up_to(likely_most(
            u64::from(tenant.per_day) * u64::from(params.days),
        ));
        let draw = Drawer {
            rate,
            stream,
            next: 0,
        };
        drawn.tenant(draw, tenant, index as u8, params);
    }
    let Drawn {
        mut arrivals,
        deferred,
        deferred_wait,
    } = drawn;
    // Everything after this reads the events in time order. One tenant's
    // come so but for a rounding at a deferred window's opening; the sort
    // keeps equal times in tenant order.
    if tenants.len() > 1 || !arrivals.times.is_sorted() {
        arrivals.sort_by_time();
    }

    let bucket = (params.bucket_capacity > 0)
        .then(|| {
            let refill = positive("bucket refill", params.bucket_refill)?;
            Ok(apply_bucket(
                &mut arrivals,
                f64::from(params.bucket_capacity),
                refill,
                params.bucket_policy,
            ))
        })
        .transpose()?;

    let rate_per_second = params.rate_per_second();
    let per_hour = per_hour(&arrivals, tenants.len(), offset);
    let run_times = arrivals.times;
    let mut gaps: Vec<f64> = run_times.windows(2).map(|w| w[1] - w[0]).collect();
    let mean_gap = stats::mean(&gaps);
    let ps = [0.5, 0.95, 0.99];
    // This reorders the gaps, which the histogram only counts.
    let measured = stats::quantiles_unsorted(&mut gaps, ps).unwrap_or([f64::NAN; 3]);
    let gap_quantiles = [0, 1, 2].map(|i| GapQuantile {
        p: ps[i],
        measured: measured[i],
        theory: -(1.0 - ps[i]).ln() / rate_per_second,
    });
    let gap_histogram = GapHistogram::new(&gaps, rate_per_second, &gap_quantiles[2]);
    Ok(PoissonRun {
        first_day_per_minute: first_day_per_minute(&run_times, offset),
        gap_histogram,
        busiest_minute: busiest_minute(&run_times),
        per_hour,
        run_times,
        gap_count: gaps.len(),
        mean_gap,
        gap_quantiles,
        rate_per_second,
        deferred,
        deferred_wait,
        bucket,
    })
}

/// A count a Poisson number of events with mean `expected` stays under
/// but for one time in about 30,000: the mean and four standard deviations.
fn likely_most(expected: u64) -> usize {
    (expected as f64 + 4.0 * (expected as f64).sqrt()).ceil() as usize + 16
}

/// The tenants of `params`, once the run's bounds are checked.
fn checked_tenants(params: &PoissonParams) -> Result<Vec<Tenant>, InvalidInput> {
    within("UTC offset", params.utc_offset, -24.0, 24.0)?;
    count_at_most("horizon", u64::from(params.days), 366)?;
    count_at_most(
        "events a day × days",
        params.total_per_day() * u64::from(params.days),
        MAX_EXPECTED_EVENTS,
    )?;
    let tenants = params.tenants();
    count_at_most(
        "tenants",
        tenants.len() as u64,
        MAX_EXTRA_TENANTS as u64 + 1,
    )?;
    Ok(tenants)
}

/// The arrivals drawn so far, tenant after tenant, and what deferring to
/// the window cost.
struct Drawn {
    arrivals: Arrivals,
    deferred: u32,
    deferred_wait: f64,
}

impl Drawn {
    /// Adds the events of one tenant over the horizon, placed in its window
    /// as the policy says.
    fn tenant(&mut self, mut draw: Drawer, tenant: &Tenant, index: u8, params: &PoissonParams) {
        let offset = params.utc_offset * 3600.0;
        let horizon = f64::from(params.days) * f64::from(SECONDS_PER_DAY);
        let (open, length) = tenant.window();
        let (open, length) = (f64::from(open), f64::from(length));
        let day = f64::from(SECONDS_PER_DAY);
        // Local time runs from the offset; the day's window sits at `open`.
        let (first, last) = (offset, offset + horizon);
        let arrivals = &mut self.arrivals;
        let mut push = |local: f64| arrivals.push(local - offset, index);
        if length == day {
            draw.events_between(first, last, &mut push);
        } else if params.policy == WindowPolicy::Scale {
            // Each window's stretch inside the horizon gets its own Poisson
            // events; the process is memoryless, so restarting at each opening
            // changes nothing about the gaps inside a window.
            let mut window_open = ((first - open) / day).floor() * day + open;
            while window_open < last {
                let from = window_open.max(first);
                let to = (window_open + length).min(last);
                if from < to {
                    draw.events_between(from, to, &mut push);
                }
                window_open += day;
            }
        } else {
            let (deferred, deferred_wait) = (&mut self.deferred, &mut self.deferred_wait);
            draw.events_between(first, last, &mut |local| {
                let days_since_opening = ((local - open) / day).floor();
                if local - open - days_since_opening * day < length {
                    push(local);
                } else {
                    // Built from whole days, so the burst lands exactly on the opening.
                    let next_opening = (days_since_opening + 1.0) * day + open;
                    *deferred += 1;
                    *deferred_wait += next_opening - local;
                    push(next_opening);
                }
            });
        }
    }
}

/// Events per local hour of the day, one row per tenant, of `arrivals` in
/// time order.
///
/// This and the two counts after it go by runs: in time order, the events
/// of one hour or one minute sit together, and [`for_each_run`] finds
/// where each run ends in a few steps rather than looking at every event.
fn per_hour(arrivals: &Arrivals, tenants: usize, offset: f64) -> Vec<[u32; 24]> {
    let mut per_hour = vec![[0u32; 24]; tenants];
    for_each_run(
        &arrivals.times,
        Class::LocalHour(offset),
        &mut |hour, run| {
            let hour = hour as usize;
            if tenants == 1 {
                per_hour[0][hour] += run.len() as u32;
            } else {
                for &tenant in &arrivals.tenants[run] {
                    per_hour[usize::from(tenant)][hour] += 1;
                }
            }
        },
    );
    per_hour
}

/// Events in each local minute of the first day, of `run_times` in time
/// order.
fn first_day_per_minute(run_times: &[f64], offset: f64) -> Vec<u32> {
    let day = f64::from(SECONDS_PER_DAY);
    let mut per_minute = vec![0u32; 1440];
    let first_day = &run_times[..run_times.partition_point(|&t| t < day)];
    for_each_run(first_day, Class::LocalMinute(offset), &mut |minute, run| {
        if (0.0..1440.0).contains(&minute) {
            let count = &mut per_minute[minute as usize];
            *count = count.saturating_add(run.len() as u32);
        }
    });
    per_minute
}

/// Draws one tenant's exponential gaps.
struct Drawer<'a> {
    rate: f64,
    stream: &'a mut Stream,
    /// How many of the stream's draws this run has used.
    next: usize,
}

impl Drawer<'_> {
    /// Calls `event` at each time of a Poisson process on [from, to).
    fn events_between(&mut self, from: f64, to: f64, event: &mut impl FnMut(f64)) {
        let mut time = from + self.gap();
        while time < to {
            event(time);
            time += self.gap();
        }
    }

    /// The next exponential gap: the stream's next draw over the rate, as
    /// [`Dist::sample`] would draw it.
    fn gap(&mut self) -> f64 {
        self.next += 1;
        if self.next > self.stream.draws.len() {
            self.stream.draw_up_to(self.next);
        }
        self.stream.draws[self.next - 1] / self.rate
    }
}

/// Passes `arrivals` (in time order) through a token bucket that starts
/// full. Dropped events leave the list; waiting ones move to when their
/// token comes, behind the ones before them.
fn apply_bucket(
    arrivals: &mut Arrivals,
    capacity: f64,
    refill: f64,
    policy: BucketPolicy,
) -> BucketOutcome {
    let mut outcome = BucketOutcome::default();
    let mut tokens = capacity;
    let mut clock = f64::NEG_INFINITY;
    let Arrivals { times, tenants } = arrivals;
    let mut kept = 0;
    for index in 0..times.len() {
        let asked = times[index];
        let at = asked.max(clock);
        if clock.is_finite() {
            tokens = (tokens + (at - clock) * refill).min(capacity);
        }
        clock = at;
        let ran = if tokens >= 1.0 {
            tokens -= 1.0;
            if at > asked {
                record_delay(&mut outcome, at - asked);
            } else {
                outcome.accepted += 1;
            }
            at
        } else {
            match policy {
                BucketPolicy::Drop => {
                    outcome.rejected += 1;
                    continue;
                }
                BucketPolicy::Wait => {
                    let ready = at + (1.0 - tokens) / refill;
                    tokens = 0.0;
                    clock = ready;
                    record_delay(&mut outcome, ready - asked);
                    ready
                }
            }
        };
        times[kept] = ran;
        tenants[kept] = tenants[index];
        kept += 1;
    }
    times.truncate(kept);
    tenants.truncate(kept);
    outcome
}

fn record_delay(outcome: &mut BucketOutcome, delay: f64) {
    outcome.delayed += 1;
    outcome.added_delay += delay;
    outcome.max_delay = outcome.max_delay.max(delay);
}

/// The minute with the most events (the earliest of equals), by the start
/// of the minute counted from the start of the run, of `run_times` in time
/// order. Counted over the minutes that hold events, not a dense
/// histogram: a slow bucket's waits stretch a run over decades of minutes.
fn busiest_minute(run_times: &[f64]) -> Option<(f64, u32)> {
    let mut busiest: Option<(f64, u32)> = None;
    for_each_run(run_times, Class::Minute, &mut |minute, run| {
        let count = run.len() as u32;
        if busiest.is_none_or(|(_, most)| count > most) {
            busiest = Some((minute * 60.0, count));
        }
    });
    busiest
}

/// What the events of a run share.
#[derive(Clone, Copy)]
enum Class {
    /// The local hour of the day, at UTC + this many seconds.
    LocalHour(f64),
    /// The local minute of the day, at UTC + this many seconds.
    LocalMinute(f64),
    /// The minute from the start of the run.
    Minute,
}

impl Class {
    /// The class of the event at `time`, a whole number.
    fn of(self, time: f64) -> f64 {
        match self {
            Self::LocalHour(offset) => {
                ((second_of_day(time + offset) / 3600.0) as usize).min(23) as f64
            }
            Self::LocalMinute(offset) => stats::bin_index(second_of_day(time + offset), 0.0, 60.0),
            Self::Minute => (time / 60.0).floor(),
        }
    }

    /// How far apart, in seconds, two events of the class can be and still
    /// be in one run: an hour or a minute of the day comes round again the
    /// next day, so a run of one spans less than half a day.
    fn reach(self) -> f64 {
        match self {
            Self::LocalHour(_) | Self::LocalMinute(_) => 12.0 * 3600.0,
            Self::Minute => f64::INFINITY,
        }
    }
}

/// Calls `each` with every run of `times` (in time order) that `class` puts
/// in one class, in order, with the run's indices. Within its reach a
/// class never decreases, but for dropping back at a local midnight, and
/// never returns to a class it left.
///
/// Each run's end is found by probing 1, 2, 4, … events on, then halving
/// the last gap: about 2·log₂ L classes for a run of L events. `each` is
/// called once a run, so it is a trait object, and one copy of this loop
/// serves all three counts.
fn for_each_run(times: &[f64], class: Class, each: &mut dyn FnMut(f64, std::ops::Range<usize>)) {
    let mut start = 0;
    while let Some(&first) = times.get(start) {
        let held = class.of(first);
        // Those past the reach are out by their time alone, so the events
        // in the run make a prefix of the rest.
        let in_run = |time: f64| time - first < class.reach() && class.of(time) == held;
        // Every index below `known` is in the run.
        let mut known = start + 1;
        let mut step = 1;
        let probe = loop {
            let probe = known + step - 1;
            if probe >= times.len() || !in_run(times[probe]) {
                break probe.min(times.len());
            }
            known = probe + 1;
            step *= 2;
        };
        let end = known + times[known..probe].partition_point(|&time| in_run(time));
        each(held, start..end);
        start = end;
    }
}

/// `local.rem_euclid(day)`, the second of the local day, without the
/// remainder's slow division for a time already inside the day, where the
/// remainder is the time itself.
fn second_of_day(local: f64) -> f64 {
    let day = f64::from(SECONDS_PER_DAY);
    if (0.0..day).contains(&local) {
        local
    } else {
        local.rem_euclid(day)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_hundred_a_day_is_one_every_288_seconds() {
        let params = PoissonParams::default();
        assert_eq!(1.0 / params.rate_per_second(), 288.0);
        assert!((params.gap_quantile(0.5) - 288.0 * 2f64.ln()).abs() < 1e-9);
    }

    #[test]
    fn a_horizon_too_long_for_the_rate_is_shortened() {
        use crate::field::PanelParams;
        let mut params = PoissonParams {
            per_day: 1_000_000,
            days: 30,
            ..Default::default()
        };
        let notices = params.settle();
        assert_eq!((params.days, notices[0].key), (2, "d"));
        assert!(run(&PoissonParams { days: 3, ..params }, 1).is_err());
    }

    #[test]
    fn windows_wrap_past_midnight() {
        let office = PoissonParams {
            window_start: 9.0,
            window_end: 17.0,
            ..Default::default()
        };
        assert_eq!(office.window_seconds(), 8 * 3600);
        let night = PoissonParams {
            window_start: 22.0,
            window_end: 6.0,
            ..Default::default()
        };
        assert_eq!(night.window_seconds(), 8 * 3600);
        assert_eq!(PoissonParams::default().window_seconds(), SECONDS_PER_DAY);
    }

    #[test]
    fn scaling_packs_the_day_into_the_window_and_defer_does_not() {
        let scaled = PoissonParams {
            window_start: 9.0,
            window_end: 17.0,
            ..Default::default()
        };
        assert_eq!(scaled.rate_per_second(), 300.0 / 28_800.0);
        let deferred = PoissonParams {
            policy: WindowPolicy::Defer,
            ..scaled
        };
        assert_eq!(deferred.rate_per_second(), 300.0 / 86_400.0);
    }
}
