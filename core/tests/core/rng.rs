use rand::{Rng, RngExt};
use stampede_core::rng::{Purpose, seeded};

include!("../golden/rng.rs");

#[test]
fn pcg32_matches_the_reference_implementation() {
    let mut rng = rand_pcg::Pcg32::new(42, 54);
    let words: Vec<u32> = (0..6).map(|_| rng.next_u32()).collect();
    assert_eq!(words, PCG32_REFERENCE);
}

#[test]
fn seeded_streams_draw_the_golden_values() {
    for case in &GOLDEN_DRAWS {
        let purpose = Purpose::new(case.purpose);
        assert_eq!(purpose.stream(), case.stream, "stream of {}", case.purpose);
        let mut rng = seeded(case.seed, purpose);
        let words = [(); 4].map(|_| rng.next_u32());
        assert_eq!(words, case.words, "words of {}", case.purpose);
        let unit = [(); 2].map(|_| rng.random::<f64>());
        assert_eq!(unit, case.unit, "unit draws of {}", case.purpose);
        assert_eq!(rng.random_range(0..1000u32), case.below_1000);
    }
}

#[test]
fn purposes_of_one_seed_draw_different_streams() {
    let mut gaps = seeded(7, Purpose::new("poisson.gaps"));
    let mut delays = seeded(7, Purpose::new("jitter.delays"));
    let a: Vec<u32> = (0..8).map(|_| gaps.next_u32()).collect();
    let b: Vec<u32> = (0..8).map(|_| delays.next_u32()).collect();
    assert_ne!(a, b);
}
