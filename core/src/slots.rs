//! Slots: a cycle cut into as many slots as both the cycle and the buckets allow.
//!
//! Ids fall into a fixed number of buckets (say, by their last bytes). To
//! run every bucket once per cycle with each slot holding the same number of
//! buckets and lasting a whole number of seconds, the slot count must divide
//! both: n_slots = gcd(cycle seconds, buckets). For an 8-hour cycle and 65,535
//! buckets that is gcd(28,800, 65,535) = 15 slots of 1,920 s.

use crate::field::Field;
use crate::panel_params;

panel_params! {
    /// Parameters of the Slots panel.
    pub struct SlotParams {
        /// The cycle length in seconds.
        pub cycle: u32 = 28_800, Field::number("cyc", "Cycle", "s", (60.0, 604_800.0), 60.0).log();
        /// How many buckets the ids fall into.
        pub buckets: u32 = 65_535, Field::number("bk", "Buckets", "buckets", (1.0, 65_536.0), 1.0).log();
    }
}

impl SlotParams {
    pub fn slot_count(&self) -> u32 {
        gcd(self.cycle, self.buckets)
    }

    pub fn slot_seconds(&self) -> u32 {
        self.cycle / self.slot_count()
    }

    pub fn buckets_per_slot(&self) -> u32 {
        self.buckets / self.slot_count()
    }
}

/// Greatest common divisor by Euclid's algorithm.
pub fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_eight_hour_cycle_with_65535_buckets_has_15_slots() {
        let params = SlotParams::default();
        assert_eq!(params.slot_count(), 15);
        assert_eq!(params.slot_seconds(), 1_920);
        assert_eq!(params.buckets_per_slot(), 4_369);
    }

    #[test]
    fn gcd_of_coprime_and_equal_numbers() {
        assert_eq!(gcd(28_800, 256), 128);
        assert_eq!(gcd(3_599, 256), 1);
        assert_eq!(gcd(60, 60), 60);
    }
}
