//! Integration tests of stampede-core, one module per topic, in one binary.

mod codec;
mod rng;
