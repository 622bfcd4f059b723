//! Benchmarks of the fleet, one module per topic, in one binary:
//! `cargo bench -p stampede-fleet`.

mod expand;
mod linear;
mod paste;

criterion::criterion_main!(expand::benches, linear::benches, paste::benches);
