//! The dependency as a fleet's interacting calls find it: how many it
//! serves each second within its capacity, which fail in the outage, and
//! the calls per second it saw.

use super::super::Dependency;

/// Calls that reached the dependency, per whole second: those before D
/// replayed client by client, and those taken from the queue in time order.
#[derive(Debug, Default)]
pub(super) struct SecondCounts {
    /// Calls in second s at index s.
    pub(super) early: Vec<u64>,
    /// (second, calls) in ascending seconds.
    pub(super) taken: Vec<(u64, u64)>,
}

impl SecondCounts {
    pub(super) fn add_early(&mut self, at: f64, calls: u64) {
        let second = at as usize;
        if second >= self.early.len() {
            self.early.resize(second + 1, 0);
        }
        self.early[second] += calls;
    }

    pub(super) fn add_taken(&mut self, at: f64, calls: u64) {
        let second = at as u64;
        match self.taken.last_mut() {
            Some((last, count)) if *last == second => *count += calls,
            _ => self.taken.push((second, calls)),
        }
    }

    /// The calls in `bins` bins `bin_seconds` wide, a whole number of
    /// seconds, so each second lies in one bin.
    pub(super) fn binned(&self, bin_seconds: f64, bins: usize) -> Vec<u32> {
        let width = bin_seconds as u64;
        let mut counts = vec![0u32; bins];
        let early = self.early.iter().enumerate();
        let seconds = early.map(|(second, &calls)| (second as u64, calls));
        for (second, calls) in seconds.chain(self.taken.iter().copied()) {
            let bin = usize::try_from(second / width).unwrap_or(usize::MAX);
            if let Some(count) = counts.get_mut(bin) {
                *count = count.saturating_add(u32::try_from(calls).unwrap_or(u32::MAX));
            }
        }
        counts
    }
}

/// The dependency as a fleet's calls find it, second by second, and what it
/// did with them.
pub(super) struct Service {
    pub(super) outage: f64,
    /// K, or no limit as `u64::MAX`.
    pub(super) capacity: u64,
    /// The whole second of the last call from D on, and how many calls from
    /// D on reached the dependency in it.
    pub(super) second: u64,
    pub(super) load: u64,
    pub(super) busiest: u64,
    /// The last second in which a call was refused for capacity.
    pub(super) last_refusal: Option<u64>,
    pub(super) failed_in_outage: u64,
    pub(super) refused: u64,
    pub(super) counts: SecondCounts,
}

impl Service {
    pub(super) fn new(dependency: Dependency) -> Self {
        Self {
            outage: dependency.outage,
            capacity: dependency.capacity.map_or(u64::MAX, u64::from),
            second: 0,
            load: 0,
            busiest: 0,
            last_refusal: None,
            failed_in_outage: 0,
            refused: 0,
            counts: SecondCounts::default(),
        }
    }

    /// How many more calls made at `at` it serves.
    pub(super) fn room(&mut self, at: f64) -> u64 {
        if at < self.outage {
            return 0;
        }
        let second = at as u64;
        if second != self.second {
            self.second = second;
            self.load = 0;
        }
        self.capacity.saturating_sub(self.load)
    }

    /// `calls` calls made at `at` reach the dependency, no earlier than the
    /// last ones; returns how many it serves.
    pub(super) fn serve(&mut self, at: f64, calls: u64) -> u64 {
        self.counts.add_taken(at, calls);
        if at < self.outage {
            self.failed_in_outage += calls;
            return 0;
        }
        let room = self.room(at);
        self.load += calls;
        self.busiest = self.busiest.max(self.load);
        let served = calls.min(room);
        if served < calls {
            self.refused += calls - served;
            self.last_refusal = Some(self.second);
        }
        served
    }
}
