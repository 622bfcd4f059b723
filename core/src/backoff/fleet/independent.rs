//! Independent clients: against an unlimited dependency and without a
//! shared budget, a client's calls depend on nobody else's, so each is
//! simulated on its own, its calls counted in fine bins that any timeline
//! bin of the run sums exactly. A run keeps them, so that the next run with
//! the same strategy, outage, retries and seed simulates only the clients
//! it adds or drops.

use super::super::{Backoff, Dependency};
use super::{Burst, Finished, Fleet, Retrying, Timeline, client_rng, nearest_rank, timeline_bin};
use crate::stats::{bin_index_by_reciprocal, histogram, place_order_statistics};

/// The width of the fine bins the independent clients of a run count their
/// calls in: the largest power of ten seconds within the timeline bin of
/// the first client's run.
///
/// The bins wait for the longest run, so each run of independent clients
/// first counts its calls in fine bins a power of ten seconds wide, which
/// divides every width the timeline can take from the first client's run
/// on; a timeline bin w is then the sum of w/g fine bins g, exactly, as
/// ⌊t/w⌋ = ⌊⌊t/g⌋/(w/g)⌋ when w/g is whole. A run whose fine bins would
/// outgrow [`MAX_FINE_BINS`] draws its calls again instead: every stream
/// replays exactly. Interacting clients count their calls per second,
/// and every width is a whole number of seconds.
pub(super) fn fine_bin_seconds(
    backoffs: &[Backoff],
    dependency: Dependency,
    retries: u32,
    seed: u64,
) -> f64 {
    let first_client_last = backoffs
        .iter()
        .filter(|backoff| dependency.keeps_independent(backoff.strategy, backoff.quota))
        .map(|&backoff| {
            let retries = backoff.retries_allowed(retries);
            let retrying = Retrying::new(backoff, dependency.outage, retries);
            retrying.calls(client_rng(seed, 0)).fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    power_of_ten_within(timeline_bin(first_client_last))
}

/// Most fine bins a run counts its calls in, 800 kB of them: ten times the
/// timeline's bins for a run ten times as long as the first client's.
const MAX_FINE_BINS: usize = 200_000;

/// The largest power of ten seconds that is at most `seconds` (1 s below).
fn power_of_ten_within(seconds: f64) -> f64 {
    let mut power = 1.0;
    while power * 10.0 <= seconds {
        power *= 10.0;
    }
    power
}

/// Calls counted in bins `width` seconds wide from 0; `None` once a call
/// lands beyond [`MAX_FINE_BINS`] of them.
#[derive(Debug)]
struct FineCounts {
    width: f64,
    /// 1 / width, for [`bin_index_by_reciprocal`]: every call is binned.
    per_width: f64,
    counts: Option<Vec<u32>>,
}

impl FineCounts {
    fn new(width: f64) -> Self {
        Self {
            width,
            per_width: 1.0 / width,
            counts: Some(Vec::new()),
        }
    }

    /// `bin_index(at, 0.0, width)`.
    #[inline(always)]
    fn bin(&self, at: f64) -> f64 {
        bin_index_by_reciprocal(at, self.width, self.per_width, MAX_FINE_BINS as f64)
    }

    #[inline(always)]
    fn add(&mut self, at: f64, calls: u32) {
        let bin = self.bin(at);
        let Some(counts) = &mut self.counts else {
            return;
        };
        if !(0.0..MAX_FINE_BINS as f64).contains(&bin) {
            self.counts = None;
            return;
        }
        let bin = bin as usize;
        if bin >= counts.len() {
            counts.resize(bin + 1, 0);
        }
        counts[bin] = counts[bin].saturating_add(calls);
    }

    /// Takes back calls that [`Self::add`] counted. Only a fleet that
    /// simulates every client drops clients, and its counts, at most
    /// [`MAX_CALLS`](crate::backoff::MAX_CALLS), never saturated.
    fn remove(&mut self, at: f64, calls: u32) {
        let bin = self.bin(at) as usize;
        if let Some(count) = self.counts.as_mut().and_then(|counts| counts.get_mut(bin)) {
            *count -= calls;
        }
    }
}

/// Whose calls a [`Clients`] holds: one strategy's, against one outage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Setup {
    pub(super) backoff: Backoff,
    pub(super) outage: f64,
    pub(super) retries: u32,
    pub(super) seed: u64,
    /// How many clients each simulated one stands for.
    pub(super) alike: u32,
}

/// What clients 0 to n − 1 of a fleet did, n being how many completions
/// there are: their calls in fine bins and when each stopped.
#[derive(Debug)]
pub(in crate::backoff) struct Clients {
    setup: Setup,
    retrying: Retrying,
    calls: u64,
    /// When each simulated client made its last call, in client order.
    completions: Vec<f64>,
    fine: FineCounts,
}

impl Clients {
    fn new(setup: Setup, fine_seconds: f64) -> Self {
        Self {
            setup,
            retrying: Retrying::new(setup.backoff, setup.outage, setup.retries),
            calls: 0,
            completions: Vec::new(),
            fine: FineCounts::new(fine_seconds),
        }
    }

    /// The clients in `earlier` that fit `setup` counted in fine bins
    /// `fine_seconds` wide, taken out of it, or new ones.
    pub(super) fn kept_or_new(earlier: &mut Vec<Self>, setup: Setup, fine_seconds: f64) -> Self {
        match earlier
            .iter()
            .position(|run| run.fits(&setup, fine_seconds))
        {
            Some(index) => earlier.swap_remove(index),
            None => Self::new(setup, fine_seconds),
        }
    }

    /// Whether these clients can grow or shrink into a fleet of `setup`
    /// counted in fine bins `fine_seconds` wide.
    fn fits(&self, setup: &Setup, fine_seconds: f64) -> bool {
        self.setup == *setup && self.fine.width == fine_seconds && self.fine.counts.is_some()
    }

    /// Simulates clients up to `simulated`, or drops those from it on,
    /// replaying their calls to count them out.
    pub(super) fn resize(&mut self, simulated: u32) {
        let Setup { seed, alike, .. } = self.setup;
        let had = self.completions.len() as u32;
        for index in had..simulated {
            let mut last = 0.0;
            for at in self.retrying.calls(client_rng(seed, index)) {
                self.calls += u64::from(alike);
                last = at;
                self.fine.add(at, alike);
            }
            self.completions.push(last);
        }
        for index in simulated..had {
            for at in self.retrying.calls(client_rng(seed, index)) {
                self.calls -= u64::from(alike);
                self.fine.remove(at, alike);
            }
        }
        self.completions.truncate(simulated as usize);
    }

    /// The calls of a fleet of `clients` in `bins` bins `bin_seconds`
    /// wide: summed from the fine bins, or drawn again when they overflowed.
    pub(super) fn binned(&self, bin_seconds: f64, bins: usize, clients: u32) -> Vec<u32> {
        let fine_per_bin = (bin_seconds / self.fine.width) as usize;
        match &self.fine.counts {
            Some(fine) => {
                let mut calls = vec![0u32; bins];
                for (fine_bin, &count) in fine.iter().enumerate() {
                    if let Some(bin) = calls.get_mut(fine_bin / fine_per_bin) {
                        *bin = bin.saturating_add(count);
                    }
                }
                calls
            }
            None => {
                let seed = self.setup.seed;
                let drawn =
                    (0..clients).flat_map(|index| self.retrying.calls(client_rng(seed, index)));
                histogram(drawn, 0.0, bin_seconds, bins)
            }
        }
    }

    /// How the fleet ended.
    pub(super) fn finish(&self) -> Finished {
        let Setup { outage, alike, .. } = self.setup;
        // Ranks count every client of the fleet; one simulated client stands
        // for `alike` of them only when it is the only one simulated, and
        // then holds every rank, so a rank r is the simulated client r / alike.
        let alike = alike as usize;
        let mut completions = self.completions.clone();
        let clients = completions.len() * alike;
        // A client stops at its first call from D on, or gives up before D,
        // so every success comes after every client that gave up: the k-th
        // success is the (gave_up + k)-th completion. Order statistics come
        // by selection, cheaper than a sort for a figure redrawn on every
        // change.
        // One pass for both, comparing rather than calling f64::max, which
        // is a call to fmax in wasm.
        let (gave_up, last) = completions.iter().fold((0, 0.0), |(gave_up, last), &at| {
            (
                gave_up + usize::from(at < outage),
                if at > last { at } else { last },
            )
        });
        let gave_up = gave_up * alike;
        let succeeded = clients - gave_up;
        // The k-th success of the fleet, as a simulated client's rank.
        let success = |k: u64| (gave_up + k as usize - 1) / alike;
        let needed = nearest_rank(clients as u64, 99);
        let success_99 = (needed <= succeeded as u64).then(|| success(needed));
        let [success_p50, success_p99] = [50, 99].map(|percent| {
            (succeeded > 0).then(|| success(nearest_rank(succeeded as u64, percent)))
        });
        // Type 7, as [`quantiles_unsorted`]: h = (n − 1)·p between ranks
        // ⌊h⌋ and ⌊h⌋ + 1.
        let last_rank = completions.len() - 1;
        let completion = [0.5, 0.99].map(|p| {
            let h = last_rank as f64 * p;
            (h.floor() as usize, h - h.floor())
        });
        let mut ranks: Vec<usize> = [success_99, success_p50, success_p99]
            .into_iter()
            .flatten()
            .chain(completion.iter().flat_map(|&(below, _)| [below, below + 1]))
            .collect();
        ranks.sort_unstable();
        place_order_statistics(&mut completions, &ranks);
        let at = |rank: Option<usize>| rank.map(|rank| completions[rank]);
        let [completion_p50, completion_p99] = completion.map(|(below, fraction)| {
            let low = completions[below];
            let high = completions.get(below + 1).copied().unwrap_or(low);
            low + fraction * (high - low)
        });
        let fleet = Fleet {
            timeline: Timeline::UNBINNED,
            peak_after_outage: Burst::UNBINNED,
            calls: self.calls,
            // Every call before D fails and every one from D on succeeds.
            failed_in_outage: self.calls - succeeded as u64,
            refused: 0,
            rejected: 0,
            healthy_at: outage,
            peak_load: None,
            succeeded: succeeded as u32,
            gave_up: gave_up as u32,
            last_success: (succeeded > 0).then_some(last),
            success_99: at(success_99),
            completion_p50,
            completion_p99,
            success_p50: at(success_p50),
            success_p99: at(success_p99),
        };
        Finished { fleet, last }
    }
}
