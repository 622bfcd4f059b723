//! Benchmarks of the core, one module per topic, in one binary:
//! `cargo bench -p stampede-core`.

mod arrivals;
mod backoff;
mod hash_spread;
mod poisson;
mod scheduler;
mod sim;
mod slots;

criterion::criterion_main!(
    poisson::benches,
    backoff::benches,
    scheduler::benches,
    sim::benches,
    slots::benches,
    hash_spread::benches,
    arrivals::benches
);
