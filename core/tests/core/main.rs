//! Integration tests of stampede-core, one module per topic, in one binary.

mod backoff;
mod codec;
mod dist;
mod jitter;
mod poisson;
mod rng;
mod scheduler;
mod stats;
