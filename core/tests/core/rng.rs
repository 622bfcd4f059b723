use rand::Rng;
use stampede_core::rng::{Purpose, seeded};

include!("../golden/rng.rs");

#[test]
fn pcg32_matches_the_reference_implementation() {
    assert_pcg32_matches_reference();
}

#[test]
fn seeded_streams_draw_the_golden_values() {
    assert_golden_draws();
}

#[test]
fn purposes_of_one_seed_draw_different_streams() {
    let mut gaps = seeded(7, Purpose::new("poisson.gaps"));
    let mut delays = seeded(7, Purpose::new("jitter.delays"));
    let a: Vec<u32> = (0..8).map(|_| gaps.next_u32()).collect();
    let b: Vec<u32> = (0..8).map(|_| delays.next_u32()).collect();
    assert_ne!(a, b);
}
