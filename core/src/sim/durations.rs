//! Sync durations drawn once and read again.
//!
//! A run draws each sync's duration from its seed's own stream as the sync
//! starts, so the k-th sync to start gets the k-th draw whatever the
//! schedule, the accounts or the workers. Every lane of a run therefore
//! draws the same durations, and so does the next run when only those
//! changed, as in a drag of the Workers slider. [`SyncDurations`] keeps the
//! draws; a run handed them reads them rather than drawing again, and its
//! result is the same to the bit.
//!
//! Drawing a lognormal duration (a logarithm, a cosine and an exponential)
//! is about a third of a run's time.

use crate::dist::Dist;
use crate::rng::{Purpose, SeededRng, seeded};
use crate::scheduler::{Micros, micros};

const DURATIONS: Purpose = Purpose::new("sim.durations");

/// The most draws kept, 8 MB: more than a run on the page makes. A run
/// that starts more syncs goes on drawing, and its draws are not reused.
const MOST_KEPT: usize = 1 << 20;

/// One seed's sync durations of one distribution, in the order syncs start.
#[derive(Clone, Debug)]
pub struct SyncDurations {
    dist: Dist,
    seed: u64,
    /// The stream, after the draws kept.
    draws: SeededRng,
    kept: Vec<Micros>,
    /// Whether the stream has gone past the draws kept.
    past_kept: bool,
}

impl SyncDurations {
    /// `dist`'s durations under `seed`, none drawn yet.
    pub fn new(dist: &Dist, seed: u64) -> Self {
        Self {
            dist: dist.clone(),
            seed,
            draws: seeded(seed, DURATIONS),
            kept: Vec::new(),
            past_kept: false,
        }
    }

    /// `kept` if it holds `dist`'s draws from `seed`, every one drawn, else
    /// a new set.
    pub fn reuse(kept: Option<Self>, dist: &Dist, seed: u64) -> Self {
        match kept {
            Some(kept) if kept.seed == seed && kept.dist == *dist && !kept.past_kept => kept,
            _ => Self::new(dist, seed),
        }
    }

    /// Draws up to `most` more durations ahead of the runs that will read
    /// them, as many as are kept at most: a worker waiting for its run
    /// calls it, so that the run finds them drawn. Returns whether more
    /// is left.
    pub fn draw_ahead(&mut self, most: usize) -> bool {
        let next = MOST_KEPT.min(self.kept.len().saturating_add(most));
        self.kept.reserve_exact(MOST_KEPT - self.kept.len());
        for index in self.kept.len()..next {
            self.get(index);
        }
        next < MOST_KEPT
    }

    /// The duration of the `index`-th sync to start. A run reads them in
    /// order from 0, so a draw past those kept is the stream's next.
    pub(super) fn get(&mut self, index: usize) -> Micros {
        if let Some(&kept) = self.kept.get(index) {
            return kept;
        }
        let duration = micros(self.dist.sample(&mut self.draws));
        if self.kept.len() < MOST_KEPT {
            self.kept.push(duration);
        } else {
            self.past_kept = true;
        }
        duration
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lognormal() -> Dist {
        crate::dist::fit_mean_p90(5.0, 8.0).unwrap().dist().clone()
    }

    #[test]
    fn kept_draws_are_the_stream_read_again() {
        let mut fresh = seeded(7, DURATIONS);
        let expected: Vec<Micros> = (0..1_000)
            .map(|_| micros(lognormal().sample(&mut fresh)))
            .collect();
        let mut durations = SyncDurations::new(&lognormal(), 7);
        let first: Vec<Micros> = (0..600).map(|i| durations.get(i)).collect();
        assert_eq!(first, expected[..600]);
        let mut again = SyncDurations::reuse(Some(durations), &lognormal(), 7);
        let second: Vec<Micros> = (0..1_000).map(|i| again.get(i)).collect();
        assert_eq!(second, expected);
    }

    #[test]
    fn draws_of_another_seed_or_distribution_are_not_reused() {
        let mut durations = SyncDurations::new(&lognormal(), 7);
        let first = durations.get(0);
        let other_seed = SyncDurations::reuse(Some(durations.clone()), &lognormal(), 8);
        assert!(other_seed.kept.is_empty());
        let constant = Dist::constant(1.0).unwrap();
        let mut other_dist = SyncDurations::reuse(Some(durations.clone()), &constant, 7);
        assert_eq!(other_dist.get(0), 1_000_000);
        let mut same = SyncDurations::reuse(Some(durations), &lognormal(), 7);
        assert_eq!(same.get(0), first);
    }

    #[test]
    fn draws_made_ahead_are_the_stream_read_again() {
        let mut fresh = SyncDurations::new(&lognormal(), 7);
        let expected: Vec<Micros> = (0..MOST_KEPT + 10).map(|i| fresh.get(i)).collect();
        let mut ahead = SyncDurations::new(&lognormal(), 7);
        assert!(ahead.draw_ahead(1_000));
        assert_eq!(ahead.kept, expected[..1_000]);
        while ahead.draw_ahead(300_000) {}
        assert_eq!(ahead.kept.len(), MOST_KEPT);
        // All kept and none past them: read again, and on past them.
        let mut again = SyncDurations::reuse(Some(ahead), &lognormal(), 7);
        let read: Vec<Micros> = (0..MOST_KEPT + 10).map(|i| again.get(i)).collect();
        assert!(read == expected);
    }

    #[test]
    fn draws_past_the_most_kept_are_drawn_and_not_reused() {
        let mut durations = SyncDurations::new(&Dist::constant(2.0).unwrap(), 1);
        for index in 0..=MOST_KEPT {
            assert_eq!(durations.get(index), 2_000_000);
        }
        assert_eq!(durations.kept.len(), MOST_KEPT);
        let again = SyncDurations::reuse(Some(durations), &Dist::constant(2.0).unwrap(), 1);
        assert!(again.kept.is_empty());
    }
}
