//! Integration tests of stampede-core, one module per topic, in one binary.

mod backoff;
mod backoff_fleet;
mod backoff_panel;
mod codec;
mod dist;
mod fleet;
mod fleet_croniter;
mod fleet_crontab;
mod fleet_jenkins;
mod fuzz;
mod hash;
mod hash_spread;
mod jitter;
mod keys;
mod layout;
mod poisson;
mod presets;
mod queue;
mod rng;
mod ruby;
mod scheduler;
mod sim;
mod sim_downstream;
mod slots;
mod snippet;
mod stats;
