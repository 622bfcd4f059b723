//! The scheduling core of Stampede.
//!
//! Everything the playground computes lives here, in pure Rust with no web
//! crates, so it builds for native and wasm32 alike and is tested natively.
//! It has two layers:
//!
//! - **Models**: seeded randomness ([`rng`]), distributions ([`dist`]),
//!   statistics ([`stats`]), hashes ([`hash`], [`ruby`]), ids ([`keys`]),
//!   and one module per idea: Poisson arrivals ([`poisson`]), jitter
//!   ([`jitter`]), retry backoff ([`backoff`]), offsets from ids
//!   ([`hash_spread`]), slots ([`slots`]), the event scheduler
//!   ([`scheduler`], [`recurrence`]), the queue simulation ([`sim`],
//!   [`queue`]) and a trace's arrivals ([`arrivals`]). A model never
//!   imports a panel. The fleet's models (a reader's own schedules) are a
//!   crate of their own on top of this one, `stampede-fleet`.
//! - **Panels** ([`panels`]): each panel's URL parameters, settle rules,
//!   presets and key numbers, the URL codec ([`panels::state`]) and the
//!   entry point that runs the open panel ([`panels::run`]).
//!
//! Below both sit the small shared pieces: [`error`], [`units`],
//! [`field`] (how a parameter is read from text),
//! [`clock`] (a time of day), [`multinomial`] (how full the busiest of
//! equal cells gets), [`key_numbers`], [`preset`], [`polyline`] (a chart's path thinned
//! to its corners), [`line_ends`] (what ends a line of pasted text) and
//! [`fleet_format`] (the formats a fleet's text is written in).

pub mod arrivals;
pub mod backoff;
pub mod clock;
pub mod dist;
pub mod error;
pub mod field;
pub mod fleet_format;
pub mod hash;
pub mod hash_spread;
pub mod jitter;
pub mod key_numbers;
pub mod keys;
pub mod line_ends;
pub mod multinomial;
pub mod panels;
pub mod poisson;
pub mod polyline;
pub mod preset;
pub mod queue;
pub mod recurrence;
pub mod replication;
pub mod rng;
pub mod ruby;
pub mod scheduler;
pub mod sim;
pub mod slots;
pub mod speedup;
pub mod stats;
pub mod units;
