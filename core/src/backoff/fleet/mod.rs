//! The fleet after an outage: M clients that fail together at t = 0 and
//! retry against a dependency that comes back at D, and what each strategy's
//! fleet did, call by call, binned on one time axis for every strategy of a
//! run.
//!
//! Clients that share nothing are simulated one by one, each on its own
//! (`independent`); clients that share the dependency's capacity or a
//! budget are taken call by call in time order (`interacting`, with the
//! queue of calls in `call_queue`, the dependency's seconds in `dependency`,
//! and the retry quota and circuit breaker in `shared`).

mod call_queue;
mod dependency;
mod independent;
mod interacting;
mod shared;

pub use shared::{
    BREAKER_FAILURE_PERCENT, BREAKER_MIN_CALLS, BREAKER_OPEN_SECONDS, BREAKER_WINDOW_SECONDS,
};

use rand::RngExt;

use super::delays::retries_at_most;
use super::{Backoff, Dependency, MAX_CALLS, MAX_CAPACITY, MAX_CLIENTS, MAX_SECONDS, client_rng};
use crate::error::{InvalidInput, count_at_most, non_negative, within};
use crate::rng::SeededRng;

use dependency::SecondCounts;
pub(super) use independent::Clients;
use independent::{Setup, fine_bin_seconds};
use interacting::simulate_interacting;

/// A calls-per-second timeline has at most this many bins; longer runs get
/// wider bins.
const MAX_TIMELINE_BINS: f64 = 2_000.0;

/// Calls over time: bin k counts the calls made in
/// [k·bin_seconds, (k + 1)·bin_seconds).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Timeline {
    /// 1 s while the whole run fits in 2,000 bins, else the smallest of
    /// 2, 5, 10, 20, 50, … seconds that makes it fit.
    pub bin_seconds: f64,
    pub calls: Vec<u32>,
}

/// The busiest stretch of a timeline.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Burst {
    /// Calls in the bin over its width: with bins wider than a second, the
    /// bin's average.
    pub per_second: f64,
    /// The bin's start.
    pub at: f64,
}

impl Timeline {
    /// A fleet's timeline before [`in_shared_bins`] puts the calls of every
    /// fleet of the run in the same bins.
    const UNBINNED: Self = Self {
        bin_seconds: 1.0,
        calls: Vec::new(),
    };

    /// The busiest bin from the one holding `from` on (the earliest of
    /// equals).
    pub fn peak_from(&self, from: f64) -> Burst {
        let first = (from / self.bin_seconds) as usize;
        let (index, most) =
            self.calls
                .iter()
                .enumerate()
                .skip(first)
                .fold((first, 0), |best, (index, &calls)| {
                    if calls > best.1 { (index, calls) } else { best }
                });
        Burst {
            per_second: f64::from(most) / self.bin_seconds,
            at: index as f64 * self.bin_seconds,
        }
    }
}

impl Burst {
    /// A fleet's peak before [`in_shared_bins`] bins its calls.
    const UNBINNED: Self = Self {
        per_second: 0.0,
        at: 0.0,
    };
}

/// What a fleet of clients did after an outage. Times are seconds after the
/// failure at t = 0.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Fleet {
    /// Every call that reached the dependency, the M first calls at t = 0
    /// included: all calls but those a circuit breaker turned away.
    pub timeline: Timeline,
    /// The busiest bin from the one holding D on: the load that meets the
    /// dependency as it comes back. Without jitter it is the whole fleet.
    pub peak_after_outage: Burst,
    /// Every call, first calls included.
    pub calls: u64,
    /// Calls made during the outage, all of which failed.
    pub failed_in_outage: u64,
    /// Calls from D on that the dependency refused for capacity.
    pub refused: u64,
    /// Calls an open circuit breaker turned away before the dependency.
    pub rejected: u64,
    /// When the dependency is healthy again: the end of the last second from
    /// D on in which it refused a call for capacity, D if it never did.
    pub healthy_at: f64,
    /// The busiest whole second from D on, counting the calls made at or
    /// after D that reached the dependency, over K; `None` when unlimited.
    pub peak_load: Option<f64>,
    /// Clients whose last call succeeded.
    pub succeeded: u32,
    pub gave_up: u32,
    /// When the last client to succeed did; `None` when none did.
    pub last_success: Option<f64>,
    /// When 99 % of all clients had succeeded (the ⌈0.99·M⌉-th success);
    /// `None` when more than 1 % gave up.
    pub success_99: Option<f64>,
    /// Median and 99th percentile of when clients stopped calling, whether
    /// they succeeded or gave up.
    pub completion_p50: f64,
    pub completion_p99: f64,
    /// The time to success of the ⌈0.5·S⌉-th and ⌈0.99·S⌉-th of the S
    /// clients that succeeded; `None` when none did.
    pub success_p50: Option<f64>,
    pub success_p99: Option<f64>,
}

impl Fleet {
    /// Every call that failed: during the outage, over capacity, or turned
    /// away by a breaker.
    pub fn wasted(&self) -> u64 {
        self.failed_in_outage + self.refused + self.rejected
    }

    /// The share of the fleet's clients that succeeded, from 0 to 1.
    pub fn succeeded_share(&self) -> f64 {
        let clients = u64::from(self.succeeded) + u64::from(self.gave_up);
        self.succeeded as f64 / clients.max(1) as f64
    }
}

/// How the clients of one fleet call: the strategy, with the ceiling of
/// each retry's wait worked out once, against one outage.
#[derive(Debug)]
struct Retrying {
    backoff: Backoff,
    outage: f64,
    /// [`Backoff::ceiling`] of retries 1 to A.
    ceilings: Vec<f64>,
}

impl Retrying {
    fn new(backoff: Backoff, outage: f64, retries: u32) -> Self {
        Self {
            backoff,
            outage,
            ceilings: (1..=retries).map(|n| backoff.ceiling(n)).collect(),
        }
    }

    /// The times of the calls of the client drawing from `rng`: the first
    /// at 0, then one after each wait, until a call lands at or after the
    /// outage's end or the retries run out.
    fn calls(&self, rng: SeededRng) -> Calls<'_> {
        Calls {
            retrying: self,
            client: Client::new(rng, self.backoff.base),
            next: Some(0.0),
        }
    }
}

/// Where one client is in its retries.
#[derive(Clone, Debug)]
struct Client {
    rng: SeededRng,
    /// Retries made so far.
    retries: u32,
    /// The last wait, the base before the first.
    previous: f64,
}

impl Client {
    fn new(rng: SeededRng, base: f64) -> Self {
        Self {
            rng,
            retries: 0,
            previous: base,
        }
    }

    /// The wait before the next retry, or `None` when the retries have run
    /// out.
    // Here, in the calls' iterator and in the fine binning,
    // `inline(always)`: in a size-first build (the docs module's) the
    // inliner otherwise leaves a call per client call in the fleet's loop,
    // a sixth of a top move in Chromium.
    #[inline(always)]
    fn wait(&mut self, retrying: &Retrying) -> Option<f64> {
        let &ceiling = retrying.ceilings.get(self.retries as usize)?;
        self.retries += 1;
        // Drawn even where the strategy ignores it, as in
        // [`Backoff::waits`].
        let u = self.rng.random::<f64>();
        self.previous = retrying
            .backoff
            .delay_under(ceiling, self.retries, self.previous, u);
        Some(self.previous)
    }
}

/// One client's calls; see [`Retrying::calls`].
struct Calls<'a> {
    retrying: &'a Retrying,
    client: Client,
    next: Option<f64>,
}

impl Iterator for Calls<'_> {
    type Item = f64;

    #[inline(always)]
    fn next(&mut self) -> Option<f64> {
        let now = self.next?;
        self.next = if now < self.retrying.outage {
            self.client.wait(self.retrying).map(|wait| now + wait)
        } else {
            None
        };
        Some(now)
    }
}

/// `clients` clients (1 to [`MAX_CLIENTS`]) fail at t = 0 against a
/// dependency down for `outage` seconds (0 to [`MAX_SECONDS`]) and then
/// unlimited, and retry with `backoff` up to `retries` times (at most
/// [`MAX_RETRIES`](super::MAX_RETRIES)).
pub fn simulate_fleet(
    backoff: &Backoff,
    clients: u32,
    outage: f64,
    retries: u32,
    seed: u64,
) -> Result<Fleet, InvalidInput> {
    let mut fleets = simulate_fleets(
        std::slice::from_ref(backoff),
        clients,
        outage,
        retries,
        seed,
    )?;
    Ok(fleets.remove(0))
}

/// [`simulate_fleets_against`] a dependency down for `outage` seconds and
/// then unlimited.
pub fn simulate_fleets(
    backoffs: &[Backoff],
    clients: u32,
    outage: f64,
    retries: u32,
    seed: u64,
) -> Result<Vec<Fleet>, InvalidInput> {
    let dependency = Dependency::unlimited(outage);
    simulate_fleets_against(backoffs, clients, dependency, retries, seed)
}

/// The same fleet of clients once for each of `backoffs` (at least one)
/// against `dependency`, every timeline in the same bins, wide enough for
/// the longest run. Each strategy whose clients call independently (see
/// [`Dependency`]) makes up to M·(A + 1) calls, and all of them together at
/// most [`MAX_CALLS`]; K is 1 to [`MAX_CAPACITY`].
pub fn simulate_fleets_against(
    backoffs: &[Backoff],
    clients: u32,
    dependency: Dependency,
    retries: u32,
    seed: u64,
) -> Result<Vec<Fleet>, InvalidInput> {
    simulate_fleets_keeping(
        &mut Vec::new(),
        backoffs,
        clients,
        dependency,
        retries,
        seed,
    )
}

/// How a strategy's calls were counted: in the fine bins of the independent
/// clients kept at an index, or per second.
enum Counted {
    Fine(usize),
    PerSecond(SecondCounts),
}

/// [`simulate_fleets_against`], starting from the `kept` independent
/// clients of an earlier run where they fit, and leaving this run's there.
pub(super) fn simulate_fleets_keeping(
    kept: &mut Vec<Clients>,
    backoffs: &[Backoff],
    clients: u32,
    dependency: Dependency,
    retries: u32,
    seed: u64,
) -> Result<Vec<Fleet>, InvalidInput> {
    let (dependency, retries) = checked(backoffs, clients, dependency, retries)?;
    let fine_seconds = fine_bin_seconds(backoffs, dependency, retries, seed);
    let mut earlier = std::mem::take(kept);
    let finished: Vec<(Finished, Counted)> = backoffs
        .iter()
        .map(|&backoff| {
            let retries = backoff.retries_allowed(retries);
            if !dependency.keeps_independent(backoff.strategy, backoff.quota) {
                let (finished, counts) =
                    simulate_interacting(backoff, clients, dependency, retries, seed);
                return (finished, Counted::PerSecond(counts));
            }
            // Without jitter every client calls at the first one's times,
            // so one client stands for all of them.
            let (simulated, alike) = if backoff.strategy.is_jitterless() {
                (1, clients)
            } else {
                (clients, 1)
            };
            let setup = Setup {
                backoff,
                outage: dependency.outage,
                retries,
                seed,
                alike,
            };
            let mut run = Clients::kept_or_new(&mut earlier, setup, fine_seconds);
            run.resize(simulated);
            let finished = run.finish();
            kept.push(run);
            (finished, Counted::Fine(kept.len() - 1))
        })
        .collect();
    Ok(in_shared_bins(finished, kept, clients, dependency.outage))
}

/// The dependency and the retries of a run, checked: M from 1 to
/// [`MAX_CLIENTS`], D from 0 to [`MAX_SECONDS`], K from 1 to
/// [`MAX_CAPACITY`], A at most [`super::MAX_RETRIES`], at least one
/// strategy, and the calls of the independent ones within [`MAX_CALLS`].
fn checked(
    backoffs: &[Backoff],
    clients: u32,
    dependency: Dependency,
    retries: u32,
) -> Result<(Dependency, u32), InvalidInput> {
    count_at_most("clients", u64::from(clients), u64::from(MAX_CLIENTS))?;
    if clients == 0 {
        return Err(InvalidInput::new(
            "clients",
            "a fleet needs at least 1 client",
        ));
    }
    let outage = within(
        "outage",
        non_negative("outage", dependency.outage)?,
        0.0,
        MAX_SECONDS,
    )?;
    if let Some(capacity) = dependency.capacity {
        count_at_most("capacity", u64::from(capacity), u64::from(MAX_CAPACITY))?;
        if capacity == 0 {
            return Err(InvalidInput::new(
                "capacity",
                "must be at least 1 call a second",
            ));
        }
    }
    let dependency = Dependency {
        outage,
        ..dependency
    };
    let retries = retries_at_most(retries)?;
    if backoffs.is_empty() {
        return Err(InvalidInput::new(
            "strategies",
            "a run needs at least 1 strategy",
        ));
    }
    let independent =
        |backoff: &&Backoff| dependency.keeps_independent(backoff.strategy, backoff.quota);
    let most_calls = (u64::from(clients) * (u64::from(retries) + 1))
        .saturating_mul(backoffs.iter().filter(independent).count() as u64);
    count_at_most(
        "clients × (retries + 1) × strategies",
        most_calls,
        MAX_CALLS,
    )?;
    Ok((dependency, retries))
}

/// The fleets that `finished`, each with its timeline, all in the same bins,
/// as wide as the longest run needs: the independent clients' summed from
/// their fine bins in `kept`, the interacting ones' from their seconds.
fn in_shared_bins(
    finished: Vec<(Finished, Counted)>,
    kept: &[Clients],
    clients: u32,
    outage: f64,
) -> Vec<Fleet> {
    let horizon = finished.iter().map(|(run, _)| run.last).fold(0.0, f64::max);
    let bin_seconds = timeline_bin(horizon);
    let bins = (horizon / bin_seconds) as usize + 1;
    finished
        .into_iter()
        .map(|(Finished { fleet, .. }, counted)| {
            let calls = match counted {
                Counted::Fine(index) => kept[index].binned(bin_seconds, bins, clients),
                Counted::PerSecond(counts) => counts.binned(bin_seconds, bins),
            };
            let timeline = Timeline { bin_seconds, calls };
            Fleet {
                peak_after_outage: timeline.peak_from(outage),
                timeline,
                ..fleet
            }
        })
        .collect()
}

/// How one strategy's fleet ended, its timeline still empty.
struct Finished {
    fleet: Fleet,
    /// When its last client stopped calling.
    last: f64,
}

/// The rank of the ⌈percent·count / 100⌉-th of `count` values, at least the
/// first: in integers, so 100 clients need exactly 99 for 99 %.
fn nearest_rank(count: u64, percent: u64) -> u64 {
    (count * percent).div_ceil(100).max(1)
}

/// 1 s, or the smallest of 2, 5, 10, 20, 50, … s that keeps a run lasting
/// `horizon` seconds within the timeline's bins.
fn timeline_bin(horizon: f64) -> f64 {
    let mut decade = 1.0;
    loop {
        for step in [1.0, 2.0, 5.0] {
            let width = step * decade;
            if horizon / width < MAX_TIMELINE_BINS {
                return width;
            }
        }
        decade *= 10.0;
    }
}
