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

mod counts;

use std::fmt;

use crate::choice_enum;
use crate::dist::{self, Dist};
use crate::error::{InvalidInput, count_at_most, positive, within};
use crate::rng::{Purpose, SeededRng, seeded};
use crate::speedup::Speedup;
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
    fn new(
        gaps: impl Iterator<Item = f64>,
        gap_count: usize,
        rate: f64,
        p99: &GapQuantile,
    ) -> Self {
        let reach = p99.measured.max(p99.theory);
        let reach = if reach.is_finite() && reach > 0.0 {
            reach
        } else {
            1.0
        };
        let bin_seconds = reach / GAP_BINS as f64;
        let mut bins = stats::BinsFromZero::new(bin_seconds, GAP_BINS);
        gaps.for_each(|gap| bins.count(gap));
        let counts = bins.into_counts();
        let binned: u32 = counts.iter().sum();
        let scale = gap_count as f64 * bin_seconds * rate;
        let expected = (0..=CURVE_POINTS)
            .map(|i| {
                let gap = reach * i as f64 / CURVE_POINTS as f64;
                (gap, scale * libm::exp(-rate * gap))
            })
            .collect();
        Self {
            bin_seconds,
            counts,
            beyond: gap_count as u32 - binned,
            expected,
        }
    }
}

/// The drawn events before the bucket, as two columns: when each asks to
/// run, and whose it is, tenant after tenant. The times become the run's
/// times without a copy.
struct Arrivals {
    times: Vec<f64>,
    tenants: Vec<u8>,
    /// Where each tenant's events end, as drawn.
    ends: Vec<usize>,
}

impl Arrivals {
    fn with_capacity(capacity: usize) -> Self {
        Self {
            times: Vec::with_capacity(capacity),
            tenants: Vec::with_capacity(capacity),
            ends: Vec::new(),
        }
    }

    /// Marks the times pushed since the last call as `tenant`'s.
    fn claim(&mut self, tenant: u8) {
        self.tenants.resize(self.times.len(), tenant);
        self.ends.push(self.times.len());
    }

    /// Puts the events in time order, equal times in tenant order, as a
    /// stable sort would. A tenant's events come in order but for a
    /// rounding at a deferred window's opening, so each is put in order
    /// where it is not (times are never NaN, so `is_sorted` tells), and
    /// the tenants are merged.
    fn sort_by_time(&mut self) {
        let mut start = 0;
        let mut unread: Vec<std::ops::Range<usize>> = self
            .ends
            .iter()
            .map(|&end| {
                let events = &mut self.times[start..end];
                if !events.is_sorted() {
                    stats::sort_as_total_cmp(events);
                }
                let own = start..end;
                start = end;
                own
            })
            .collect();
        if unread.len() < 2 {
            return;
        }
        let mut times = Vec::with_capacity(self.times.len());
        let mut tenants = Vec::with_capacity(self.times.len());
        // Tenants are few: the next event is the earliest of their next
        // ones, the first tenant's of equals.
        while let Some(next) = unread
            .iter_mut()
            .filter(|events| events.start < events.end)
            .reduce(|earliest, events| {
                if self.times[events.start]
                    .total_cmp(&self.times[earliest.start])
                    .is_lt()
                {
                    events
                } else {
                    earliest
                }
            })
        {
            times.push(self.times[next.start]);
            tenants.push(self.tenants[next.start]);
            next.start += 1;
        }
        (self.times, self.tenants) = (times, tenants);
    }
}

/// Runs the schedule `params` describes with `seed`.
pub fn run(params: &PoissonParams, seed: u64) -> Result<PoissonRun, InvalidInput> {
    run_with(&mut Vec::new(), params, seed)
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

impl Speedup for PoissonCache {
    type Params = PoissonParams;
    type Run = PoissonRun;

    fn plain(params: &PoissonParams, seed: u64) -> Result<PoissonRun, InvalidInput> {
        run(params, seed)
    }

    /// [`run`], reusing the draws of earlier runs.
    fn run(&mut self, params: &PoissonParams, seed: u64) -> Result<PoissonRun, InvalidInput> {
        self.keep_seed(seed);
        run_with(&mut self.streams, params, seed)
    }

    /// Draws up to `most` more of the first tenant's draws under `seed`,
    /// up to [`READIED_DRAWS`], so that a drag up N finds its draws made.
    fn ready_ahead(&mut self, _params: &PoissonParams, seed: u64, most: u32) -> bool {
        let most = most as usize;
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
}

impl PoissonCache {
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
    // Everything after this reads the events in time order.
    arrivals.sort_by_time();

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
    let per_hour = counts::per_hour(&arrivals.times, &arrivals.tenants, tenants.len(), offset);
    let run_times = arrivals.times;
    // The gaps are read three times, never stored: a million of them
    // would be 8 MB written and read back.
    let gaps = || run_times.windows(2).map(|w| w[1] - w[0]);
    let gap_count = run_times.len().saturating_sub(1);
    let mut counted = stats::TwoPassQuantiles::new(match run_times[..] {
        [first, .., last] => (last - first) / gap_count as f64,
        _ => 1.0,
    });
    let sum: f64 = gaps().inspect(|&gap| counted.count(gap)).sum();
    let mean_gap = (gap_count > 0).then(|| sum / gap_count as f64);
    let ps = [0.5, 0.95, 0.99];
    let measured = counted.quantiles(gaps(), ps).unwrap_or([f64::NAN; 3]);
    let gap_quantiles = [0, 1, 2].map(|i| GapQuantile {
        p: ps[i],
        measured: measured[i],
        theory: -(1.0 - ps[i]).ln() / rate_per_second,
    });
    let gap_histogram = GapHistogram::new(gaps(), gap_count, rate_per_second, &gap_quantiles[2]);
    Ok(PoissonRun {
        first_day_per_minute: counts::first_day_per_minute(&run_times, offset),
        gap_histogram,
        busiest_minute: counts::busiest_minute(&run_times),
        per_hour,
        run_times,
        gap_count,
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
        let mut push = |local: f64| arrivals.times.push(local - offset);
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
        self.arrivals.claim(index);
    }
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
        let mut time = from;
        loop {
            // The draws made so far, read as a slice: the loop then checks
            // neither the index nor whether to draw.
            let drawn = &self.stream.draws[self.next..];
            for (used, &draw) in drawn.iter().enumerate() {
                time += draw / self.rate;
                if time >= to {
                    self.next += used + 1;
                    return;
                }
                event(time);
            }
            self.next += drawn.len();
            self.stream.draw_up_to(self.next + DRAWS_PAST_THE_LIKELY);
        }
    }
}

/// Draws made at once when a tenant's run outgrows its likely count.
const DRAWS_PAST_THE_LIKELY: usize = 1024;

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
    let Arrivals { times, tenants, .. } = arrivals;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrivals_sort_into_time_order_with_equal_times_in_tenant_order() {
        let mut arrivals = Arrivals::with_capacity(8);
        // The first tenant's out of order, as a rounding at an opening can
        // leave them.
        arrivals.times.extend([1.0, 5.0, 5.0, 4.0]);
        arrivals.claim(0);
        arrivals.times.extend([0.5, 5.0, 6.0]);
        arrivals.claim(1);
        arrivals.times.push(5.0);
        arrivals.claim(2);
        arrivals.sort_by_time();
        assert_eq!(arrivals.times, [0.5, 1.0, 4.0, 5.0, 5.0, 5.0, 5.0, 6.0]);
        assert_eq!(arrivals.tenants, [1, 0, 0, 0, 0, 1, 2, 1]);
    }

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
