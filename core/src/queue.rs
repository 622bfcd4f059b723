//! Queue: jobs arriving at workers, and whether the workers keep up.
//!
//! With jobs arriving at λ per second, each taking E[S] seconds on average,
//! and c workers, the utilization is ρ = λ · E[S] / c. Below 1 the queue
//! drains between bursts; at 1 or above it grows without bound.

use crate::field::Field;
use crate::panel_params;

panel_params! {
    /// Parameters of the Queue panel.
    pub struct QueueParams {
        /// c, the workers taking jobs from the queue.
        pub workers: u32 = 4, Field::number("w", "Workers", "workers", (1.0, 256.0), 1.0);
        /// Jobs arriving per minute.
        pub arrivals_per_minute: f64 = 30.0, Field::number("r", "Arrivals", "/min", (0.1, 10_000.0), 0.1).log();
        /// E[S], the mean job duration in seconds.
        pub mean_duration: f64 = 6.0, Field::number("d", "Mean job duration", "s", (0.01, 3600.0), 0.01).log();
    }
}

impl QueueParams {
    /// ρ = λ · E[S] / c.
    pub fn utilization(&self) -> f64 {
        self.arrivals_per_minute / 60.0 * self.mean_duration / f64::from(self.workers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_queue_is_three_quarters_busy() {
        assert_eq!(QueueParams::default().utilization(), 0.75);
    }
}
