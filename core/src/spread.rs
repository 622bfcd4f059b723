//! Hash spread: an offset in the window derived from each task's id.
//!
//! offset = hash32(id) mod window gives every task a fixed place in a
//! recurring window: stable across runs and machines, and spread evenly when
//! the hash is good. With N keys in a window of W seconds, a key starts on
//! average every W / N seconds.

use crate::field::Field;
use crate::panel_params;

panel_params! {
    /// Parameters of the Hash spread panel.
    pub struct SpreadParams {
        /// N, how many task ids to place.
        pub keys: u32 = 1_000, Field::number("n", "Keys", "ids", (1.0, 100_000.0), 1.0).log();
        /// W, the recurring window in seconds.
        pub window: u32 = 86_400, Field::number("w", "Window", "s", (60.0, 604_800.0), 60.0).log();
    }
}

impl SpreadParams {
    /// The average distance between neighbouring offsets: W / N seconds.
    pub fn mean_spacing_seconds(&self) -> f64 {
        f64::from(self.window) / f64::from(self.keys)
    }
}
