//! Poisson schedules: N events a day at random, memoryless times.
//!
//! Events that arrive independently at a steady average rate λ form a
//! Poisson process; the gap to the next event is exponential with mean 1/λ.
//! "N a day" means λ = N / 86,400 s. Half of all gaps are shorter than
//! ln 2 / λ, 95 % shorter than ln 20 / λ.
//!
//! A daily window [start, end) limits when events may run (end before start
//! wraps past midnight; equal ends mean all day). Policy `scale` raises λ to
//! N / window length so all N fall inside it; `defer` keeps the daily λ and
//! moves events outside the window to its next opening.

use crate::choice_enum;
use crate::field::Field;
use crate::panel_params;

pub const SECONDS_PER_DAY: u32 = 86_400;

choice_enum! {
    /// What happens to the rate when events may only run inside a window.
    pub enum WindowPolicy {
        /// λ = N / window length: all N events fall inside the window.
        Scale = ("scale", "Scale the rate to the window"),
        /// λ = N / day; events outside the window wait for it to open.
        Defer = ("defer", "Defer to the window's opening"),
    }
}

panel_params! {
    /// Parameters of the Poisson panel.
    pub struct PoissonParams {
        /// N, the average number of events a day.
        pub per_day: u32 = 300, Field::number("n", "Events a day", "/day", (1.0, 1_000_000.0), 1.0).log();
        /// Local hour at which the daily window opens.
        pub window_start: f64 = 0.0, Field::number("ws", "Window start", "h", (0.0, 24.0), 0.25);
        /// Local hour at which the daily window closes.
        pub window_end: f64 = 24.0, Field::number("we", "Window end", "h", (0.0, 24.0), 0.25);
        pub policy: WindowPolicy = WindowPolicy::Scale, Field::choice("wp", "Window policy", WindowPolicy::OPTIONS);
    }
}

impl PoissonParams {
    /// Length of the daily window in whole seconds; a window whose ends
    /// coincide (such as 0 to 24) spans the whole day.
    pub fn window_seconds(&self) -> u32 {
        let start = hour_to_seconds(self.window_start);
        let end = hour_to_seconds(self.window_end);
        match (end + SECONDS_PER_DAY - start) % SECONDS_PER_DAY {
            0 => SECONDS_PER_DAY,
            length => length,
        }
    }

    /// λ in events per second while the window is open.
    pub fn rate_per_second(&self) -> f64 {
        let span = match self.policy {
            WindowPolicy::Scale => self.window_seconds(),
            WindowPolicy::Defer => SECONDS_PER_DAY,
        };
        f64::from(self.per_day) / f64::from(span)
    }

    /// The gap that a share `p` of all gaps stays below: −ln(1 − p) / λ.
    pub fn gap_quantile(&self, p: f64) -> f64 {
        -(1.0 - p).ln() / self.rate_per_second()
    }
}

/// Seconds since midnight of a local hour in [0, 24].
fn hour_to_seconds(hour: f64) -> u32 {
    (hour * 3600.0).round() as u32 % SECONDS_PER_DAY
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
