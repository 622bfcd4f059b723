//! The scheduling core of Stampede.
//!
//! Everything the playground computes lives here, in pure Rust with no web
//! crates, so it builds for native and wasm32 alike and is tested natively:
//! seeded randomness ([`rng`]), the parameters of each panel and their
//! derived figures, and the URL codec ([`state`]) that turns a query string
//! into validated parameters and back. The web app only draws and wires.

pub mod backoff;
pub mod decimal;
pub mod dist;
pub mod error;
pub mod field;
pub mod hash;
pub mod jitter;
pub mod key_numbers;
pub mod keys;
pub mod poisson;
pub mod presets;
pub mod queue;
pub mod recurrence;
pub mod rng;
pub mod ruby;
pub mod run;
pub mod scheduler;
pub mod sim;
pub mod slots;
pub mod snippet;
pub mod spread;
pub mod state;
pub mod stats;
pub mod units;
