//! Seeded randomness that draws the same numbers on every machine.
//!
//! Every random draw comes from PCG32 (PCG-XSH-RR with 64-bit state and
//! 32-bit output, `rand_pcg::Pcg32`). Its output depends only on its state
//! and stream, never on the platform or the width of `usize`, so the seed in
//! a shared URL reproduces the same picture on x86-64 and in the browser.
//!
//! PCG32 also offers 2^63 independent streams for one seed. Each purpose
//! (Poisson gaps, jitter delays, generated keys, ...) names its own stream,
//! so adding a draw for one purpose never shifts the numbers of another.
//!
//! ```
//! use stampede_core::dist::unit_exponential;
//! use stampede_core::rng::{Purpose, seeded};
//!
//! const GAPS: Purpose = Purpose::new("example.gaps");
//! // The same seed and purpose draw the same numbers, on any machine.
//! let first = unit_exponential(&mut seeded(7, GAPS));
//! assert_eq!(first, unit_exponential(&mut seeded(7, GAPS)));
//! ```

use rand_pcg::Pcg32;

/// The one generator type used for every random draw.
pub type SeededRng = Pcg32;

/// A named use of randomness; its name picks the PCG32 stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Purpose {
    name: &'static str,
    stream: u64,
}

impl Purpose {
    /// A purpose whose stream is the 64-bit FNV-1a hash of `name`, so streams
    /// stay fixed however purposes are added or reordered.
    pub const fn new(name: &'static str) -> Self {
        Self {
            name,
            stream: crate::hash::fnv1a_64(name.as_bytes()),
        }
    }

    /// The `index`-th of a family of streams for this purpose, one per
    /// tenant or client, so each member's draws stay the same however many
    /// members there are. Index 0 is the purpose's own stream.
    pub const fn indexed(self, index: u64) -> Self {
        Self {
            name: self.name,
            // An odd multiplier spreads neighbouring indices over all 64 bits.
            stream: self.stream ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        }
    }

    pub const fn name(&self) -> &'static str {
        self.name
    }

    pub const fn stream(&self) -> u64 {
        self.stream
    }
}

/// The generator for `purpose` under the user's `seed`.
pub fn seeded(seed: u64, purpose: Purpose) -> SeededRng {
    Pcg32::new(seed, purpose.stream)
}
