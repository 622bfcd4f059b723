//! Interacting clients: when they share the dependency's capacity or a
//! budget, what one client's call does depends on every call before it, so
//! the fleet's calls are taken in time order from one [`CallQueue`], each
//! from a cohort of alike clients, and the dependency serves them second by
//! second.

use super::super::{Backoff, Dependency, MAX_SIMULATED, RetryStrategy};
use super::call_queue::CallQueue;
use super::dependency::{SecondCounts, Service};
use super::shared::{Breaker, RetryQuota};
use super::{Burst, Client, Finished, Fleet, Retrying, Timeline, client_rng, nearest_rank};

/// Outages longer than this send every call through the queue rather than
/// counting the calls before D second by second.
const MAX_EARLY_SECONDS: f64 = 200_000.0;

/// Clients that call together: one simulated client standing for `weight`
/// alike ones.
struct Cohort {
    client: Client,
    weight: u64,
}

/// When clients stopped calling, as (time, clients), in time order.
type Stops = Vec<(f64, u64)>;

/// The value of rank `rank` (from 0) among the stops, each counted as
/// often as its clients; the last one past the end.
fn stop_at_rank(stops: &[(f64, u64)], rank: u64) -> f64 {
    let mut below = 0;
    for &(at, clients) in stops {
        below += clients;
        if rank < below {
            return at;
        }
    }
    stops.last().map_or(0.0, |&(at, _)| at)
}

/// The type-7 quantile p of the stops, each counted as often as its clients,
/// as [`quantiles_unsorted`] gives it for the clients one by one.
fn stop_quantile(stops: &[(f64, u64)], clients: u64, p: f64) -> f64 {
    let h = (clients.saturating_sub(1)) as f64 * p;
    let below = h.floor();
    let low = stop_at_rank(stops, below as u64);
    let high = stop_at_rank(stops, h.ceil() as u64);
    low + (h - below) * (high - low)
}

/// One strategy's fleet against `dependency`, its clients interacting
/// through the dependency's capacity or the strategy's shared budget: the
/// fleet without its timeline, and its calls per second.
pub(super) fn simulate_interacting(
    backoff: Backoff,
    clients: u32,
    dependency: Dependency,
    retries: u32,
    seed: u64,
) -> (Finished, SecondCounts) {
    let mut fleet = Interacting::new(backoff, dependency, retries);
    fleet.start(clients, seed);
    fleet.take_calls();
    fleet.finish(clients, dependency)
}

/// An interacting fleet as the simulation goes: its cohorts, the calls they
/// are yet to make, and what the calls made so far did.
struct Interacting {
    retrying: Retrying,
    /// A, the retries a client makes after its first call.
    retries: u32,
    service: Service,
    /// The fleet's retry quota, for [`RetryStrategy::AwsQuota`].
    quota: Option<RetryQuota>,
    /// The fleet's circuit breaker, for [`RetryStrategy::Breaker`].
    breaker: Option<Breaker>,
    queue: CallQueue,
    /// Cohort i is simulated client i.
    cohorts: Vec<Cohort>,
    /// Every call, each cohort's counted by its weight.
    calls: u64,
    /// When the last call was made.
    last: f64,
    /// Clients that gave up before D, replayed without the queue.
    early_stops: Stops,
    successes: Stops,
    /// Clients that stopped from the queue, whether they succeeded or gave up.
    later_stops: Stops,
    rejected: u64,
    gave_up: u64,
}

impl Interacting {
    fn new(backoff: Backoff, dependency: Dependency, retries: u32) -> Self {
        Self {
            retrying: Retrying::new(backoff, dependency.outage, retries),
            retries,
            service: Service::new(dependency),
            quota: (backoff.strategy == RetryStrategy::AwsQuota && backoff.shares_a_budget())
                .then(RetryQuota::full),
            breaker: (backoff.strategy == RetryStrategy::Breaker).then(Breaker::default),
            queue: CallQueue::new(),
            cohorts: Vec::new(),
            calls: 0,
            last: 0.0,
            early_stops: Stops::new(),
            successes: Stops::new(),
            later_stops: Stops::new(),
            rejected: 0,
            gave_up: 0,
        }
    }

    /// Sets out the `clients` as cohorts, each queued at its first call:
    /// at 0, or, where the calls before D can be replayed, at its first call
    /// from D on.
    fn start(&mut self, clients: u32, seed: u64) {
        let backoff = self.retrying.backoff;
        let (simulated, weight) = if backoff.strategy.is_jitterless() {
            (1, clients)
        } else {
            let simulated = clients.min(MAX_SIMULATED);
            (simulated, clients / simulated)
        };
        // The first M mod N simulated clients stand for one more.
        let heavier = clients - simulated * weight;
        // Calls before D fail whatever the other clients do, unless a budget
        // the clients share hangs on their order.
        let replay_before_outage =
            !backoff.shares_a_budget() && self.service.outage <= MAX_EARLY_SECONDS;
        self.cohorts.reserve_exact(simulated as usize);
        for index in 0..simulated {
            let weight = u64::from(weight + u32::from(index < heavier));
            let mut client = Client::new(client_rng(seed, index), backoff.base);
            let first_queued = if replay_before_outage {
                self.replay_before_outage(&mut client, weight)
            } else {
                Some(0.0)
            };
            if let Some(at) = first_queued {
                self.queue.push(at, index);
            }
            self.cohorts.push(Cohort { client, weight });
        }
        self.gave_up = self.early_stops.iter().map(|&(_, clients)| clients).sum();
        self.early_stops
            .sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    }

    /// Counts the calls before D of `client`, standing for `weight` alike
    /// ones, all failing; returns its first call from D on, or `None` when
    /// it gave up before.
    fn replay_before_outage(&mut self, client: &mut Client, weight: u64) -> Option<f64> {
        let outage = self.service.outage;
        let (mut calls, mut last) = (self.calls, self.last);
        let mut at = 0.0;
        let first_from_outage = loop {
            if at >= outage {
                break Some(at);
            }
            calls += weight;
            self.service.failed_in_outage += weight;
            self.service.counts.add_early(at, weight);
            // A comparison, not f64::max, which is a call to fmax in wasm.
            if at > last {
                last = at;
            }
            match client.wait(&self.retrying) {
                Some(wait) => at += wait,
                None => {
                    self.early_stops.push((at, weight));
                    break None;
                }
            }
        };
        (self.calls, self.last) = (calls, last);
        first_from_outage
    }

    /// Takes the queued calls in time order: the dependency, through the
    /// breaker if there is one, serves some; the rest retry as one cohort,
    /// as far as their retries and the quota allow, or give up.
    fn take_calls(&mut self) {
        while let Some((at, index)) = self.queue.pop() {
            let cohort = &mut self.cohorts[index as usize];
            let units = cohort.weight;
            self.calls += units;
            self.last = at;
            let (served, turned_away) = match &mut self.breaker {
                Some(breaker) => breaker.pass(at, units, &mut self.service),
                None => (self.service.serve(at, units), 0),
            };
            self.rejected += turned_away;
            if served > 0 {
                self.successes.push((at, served));
                self.later_stops.push((at, served));
                if let Some(quota) = &mut self.quota {
                    quota.release(served, cohort.client.retries);
                }
            }
            let failed = units - served;
            let mut retrying_units = if cohort.client.retries < self.retries {
                failed
            } else {
                0
            };
            if let Some(quota) = &mut self.quota {
                retrying_units = quota.acquire(retrying_units);
            }
            if failed > retrying_units {
                self.gave_up += failed - retrying_units;
                self.later_stops.push((at, failed - retrying_units));
            }
            if retrying_units > 0
                && let Some(wait) = cohort.client.wait(&self.retrying)
            {
                cohort.weight = retrying_units;
                self.queue.push(at + wait, index);
            }
        }
    }

    /// How the fleet of `clients` against `dependency` ended, once every
    /// call is taken, and its calls per second.
    fn finish(self, clients: u32, dependency: Dependency) -> (Finished, SecondCounts) {
        let Self {
            service,
            calls,
            last,
            early_stops,
            successes,
            later_stops,
            rejected,
            gave_up,
            ..
        } = self;
        let clients = u64::from(clients);
        let succeeded = clients - gave_up;
        let mut stops = early_stops;
        stops.extend(later_stops);
        let success_at = |rank: u64| stop_at_rank(&successes, rank - 1);
        let needed = nearest_rank(clients, 99);
        let [success_p50, success_p99] = [50, 99]
            .map(|percent| (succeeded > 0).then(|| success_at(nearest_rank(succeeded, percent))));
        let fleet = Fleet {
            timeline: Timeline::UNBINNED,
            peak_after_outage: Burst::UNBINNED,
            calls,
            failed_in_outage: service.failed_in_outage,
            refused: service.refused,
            rejected,
            healthy_at: service
                .last_refusal
                .map_or(dependency.outage, |second| (second + 1) as f64),
            peak_load: dependency
                .capacity
                .map(|capacity| service.busiest as f64 / f64::from(capacity)),
            succeeded: succeeded as u32,
            gave_up: gave_up as u32,
            last_success: successes.last().map(|&(at, _)| at),
            success_99: (needed <= succeeded).then(|| success_at(needed)),
            completion_p50: stop_quantile(&stops, clients, 0.5),
            completion_p99: stop_quantile(&stops, clients, 0.99),
            success_p50,
            success_p99,
        };
        (Finished { fleet, last }, service.counts)
    }
}
