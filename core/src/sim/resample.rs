//! A replayed trace resampled in whole-hour blocks, for replications that
//! vary the arrivals as well as the draws.
//!
//! The trace is cut into whole hours from its first arrival. Each hour is
//! replaced by the arrivals of itself or of an hour next to it, drawn with
//! equal chance and moved to its place by whole hours (a local block
//! bootstrap). Whole hours keep what happens within an hour, such as a
//! burst at :00, and drawing only from neighbours keeps the shape of the
//! day, which drawing from every hour would scramble. The part hour at the
//! end stays as it is.

use rand::RngExt;

use super::ImportedJobs;
use crate::rng::{Purpose, seeded};
use crate::scheduler::MICROS_PER_SECOND;

const HOUR_BLOCKS: Purpose = Purpose::new("arrivals.hour_blocks");
const HOUR_US: u64 = 3_600 * MICROS_PER_SECOND;
/// Fewer whole hours leave nothing worth resampling.
pub const FEWEST_HOURS_RESAMPLED: u64 = 3;

impl ImportedJobs {
    /// Whole hours from the first arrival, which [`Self::resampled_by_hour`]
    /// redraws.
    pub fn whole_hours(&self) -> u64 {
        self.due_us.last().map_or(0, |&last| last / HOUR_US)
    }

    /// The jobs with each whole hour redrawn from itself and its
    /// neighbours under `seed`, each job keeping its own duration when it
    /// has one; unchanged below [`FEWEST_HOURS_RESAMPLED`] whole hours.
    pub fn resampled_by_hour(&self, seed: u64) -> Self {
        let hours = self.whole_hours();
        if hours < FEWEST_HOURS_RESAMPLED {
            return self.clone();
        }
        // The index of the first job of each hour, and the end.
        let starts: Vec<usize> = (0..=hours)
            .map(|hour| self.due_us.partition_point(|&due| due < hour * HOUR_US))
            .collect();
        let mut rng = seeded(seed, HOUR_BLOCKS);
        let mut due_us = Vec::with_capacity(self.due_us.len());
        let mut durations_us = self.durations_us.as_ref().map(|_| Vec::new());
        let mut take = |from: usize, to: usize, shift: i64| {
            due_us.extend(
                self.due_us[from..to]
                    .iter()
                    .map(|&due| due.saturating_add_signed(shift)),
            );
            if let (Some(taken), Some(all)) = (&mut durations_us, &self.durations_us) {
                taken.extend_from_slice(&all[from..to]);
            }
        };
        for hour in 0..hours {
            let lowest = hour.saturating_sub(1);
            let highest = (hour + 1).min(hours - 1);
            let source = rng.random_range(lowest..=highest);
            let shift = (hour as i64 - source as i64) * HOUR_US as i64;
            take(starts[source as usize], starts[source as usize + 1], shift);
        }
        take(starts[hours as usize], self.due_us.len(), 0);
        Self {
            due_us,
            durations_us,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs(due_s: &[u64]) -> ImportedJobs {
        ImportedJobs {
            due_us: due_s.iter().map(|s| s * MICROS_PER_SECOND).collect(),
            durations_us: Some(due_s.iter().map(|s| s + 1).collect()),
        }
    }

    #[test]
    fn each_hour_comes_from_a_neighbour_whole_and_in_order() {
        // Hour k holds k + 1 jobs at :00:0k, and a part hour follows.
        let mut due = Vec::new();
        for hour in 0..6_u64 {
            due.extend((0..=hour).map(|_| hour * 3_600 + hour));
        }
        due.extend([6 * 3_600 + 10, 6 * 3_600 + 20]);
        let trace = jobs(&due);
        assert_eq!(trace.whole_hours(), 6);
        let mut sources_seen = vec![Vec::new(); 6];
        for seed in 0..200 {
            let resampled = trace.resampled_by_hour(seed);
            assert!(resampled.due_us.is_sorted());
            let durations = resampled.durations_us.as_ref().unwrap();
            assert_eq!(durations.len(), resampled.due_us.len());
            for hour in 0..6_u64 {
                let within: Vec<usize> = (0..resampled.due_us.len())
                    .filter(|&k| resampled.due_us[k] / HOUR_US == hour)
                    .collect();
                // The block keeps its phase within the hour and its size,
                // so its size names its source.
                let source = within.len() as u64 - 1;
                assert!(source.abs_diff(hour) <= 1, "hour {hour} from {source}");
                for &k in &within {
                    assert_eq!(resampled.due_us[k] % HOUR_US, source * MICROS_PER_SECOND);
                    // Each job keeps its own duration (its due second + 1).
                    assert_eq!(durations[k], source * 3_600 + source + 1);
                }
                if !sources_seen[hour as usize].contains(&source) {
                    sources_seen[hour as usize].push(source);
                }
            }
            let tail = &resampled.due_us[resampled.due_us.len() - 2..];
            assert_eq!(tail, [6 * HOUR_US + 10_000_000, 6 * HOUR_US + 20_000_000]);
        }
        // Every neighbour is drawn in 200 tries.
        assert_eq!(sources_seen[0].len(), 2);
        assert!(sources_seen[1..5].iter().all(|seen| seen.len() == 3));
        assert_eq!(sources_seen[5].len(), 2);
    }

    #[test]
    fn a_short_trace_is_left_as_it_is() {
        let trace = jobs(&[0, 10, 3_700, 7_300]);
        assert_eq!(trace.whole_hours(), 2);
        assert_eq!(trace.resampled_by_hour(1), trace);
    }
}
