use stampede_core::ruby::{self, HEAD_OUTPUTS, RubyRandom, rand_below};

/// Rows of (seed bytes, limits, results) that Ruby 3.1 itself produced;
/// the file's header says how.
const RUBY_RAND: &str = include_str!("../data/ruby_rand.tsv");

struct Row {
    seed_be: Vec<u8>,
    limits: Vec<u64>,
    results: Vec<u64>,
}

/// Big-endian bytes of a hex magnitude of any length.
fn hex_bytes(hex: &str) -> Vec<u8> {
    let padded = if hex.len() % 2 == 1 {
        format!("0{hex}")
    } else {
        hex.to_string()
    };
    (0..padded.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&padded[i..i + 2], 16).unwrap())
        .collect()
}

fn numbers(list: &str) -> Vec<u64> {
    list.split(',').map(|n| n.parse().unwrap()).collect()
}

fn rows() -> Vec<Row> {
    let mut lines = RUBY_RAND.lines().filter(|line| !line.starts_with('#'));
    assert_eq!(lines.next(), Some("seed_hex\tlimits\tresults"));
    lines
        .map(|line| {
            let columns: Vec<&str> = line.split('\t').collect();
            let row = Row {
                seed_be: hex_bytes(columns[0]),
                limits: numbers(columns[1]),
                results: numbers(columns[2]),
            };
            assert_eq!(row.limits.len(), row.results.len(), "{line}");
            row
        })
        .collect()
}

/// One `r.rand(limit)`; `rand(2**32)` keeps every output, so it is the raw
/// 32-bit output, the one limit a `u32` cannot hold.
fn draw(generator: &mut RubyRandom, limit: u64) -> u64 {
    match u32::try_from(limit) {
        Ok(limit) => u64::from(generator.rand_below(limit)),
        Err(_) => {
            assert_eq!(limit, 1 << 32);
            u64::from(generator.next_u32())
        }
    }
}

#[test]
fn the_data_covers_what_the_talk_and_the_panel_use() {
    let rows = rows();
    assert!(rows.len() > 1_500);
    for limit in [
        1,
        2,
        3,
        60,
        3_600,
        28_800,
        86_400,
        604_800,
        1 << 31,
        u32::MAX as u64,
    ] {
        assert!(
            rows.iter().any(|row| row.limits.contains(&limit)),
            "{limit}"
        );
    }
    // UUID-sized seeds, and seeds longer than the 624-word state.
    assert!(rows.iter().filter(|row| row.seed_be.len() == 16).count() > 100);
    assert!(rows.iter().any(|row| row.seed_be.len() > 624 * 4));
    assert!(rows.iter().any(|row| row.results.len() > 624));
}

#[test]
fn every_row_matches_ruby() {
    for (index, row) in rows().iter().enumerate() {
        let mut generator = RubyRandom::new(&row.seed_be);
        let drawn: Vec<u64> = row
            .limits
            .iter()
            .map(|&limit| draw(&mut generator, limit))
            .collect();
        assert_eq!(drawn, row.results, "row {index}, seed {:02x?}", row.seed_be);
    }
}

#[test]
fn rand_below_is_the_first_draw_of_a_fresh_generator() {
    for row in rows() {
        let Ok(limit) = u32::try_from(row.limits[0]) else {
            continue;
        };
        assert_eq!(u64::from(rand_below(&row.seed_be, limit)), row.results[0]);
    }
}

#[test]
fn leading_zero_bytes_do_not_change_the_seed() {
    for limit in [2, 60, 28_800, u32::MAX] {
        assert_eq!(rand_below(&[0, 0, 0, 42], limit), rand_below(&[42], limit));
        assert_eq!(rand_below(&[], limit), rand_below(&[0; 16], limit));
        let uuid = [0x9f, 3, 0, 0xa1, 0, 0, 0x4c, 1, 0x80, 2, 3, 4, 5, 6, 7, 8];
        let mut padded = vec![0; 5];
        padded.extend_from_slice(&uuid);
        assert_eq!(rand_below(&padded, limit), rand_below(&uuid, limit));
    }
}

#[test]
fn a_zero_limit_gives_zero_like_a_limit_of_one() {
    for seed in [&[][..], &[42], &[0xff; 16]] {
        assert_eq!(rand_below(seed, 0), 0);
        assert_eq!(rand_below(seed, 1), 0);
        // Neither draws: the next output is the generator's first.
        let mut generator = RubyRandom::new(seed);
        assert_eq!(generator.rand_below(0), 0);
        assert_eq!(generator.rand_below(1), 0);
        assert_eq!(generator.next_u32(), RubyRandom::new(seed).next_u32());
    }
}

#[test]
fn every_offset_lies_inside_its_window() {
    let mut seed = [0u8; 16];
    for i in 0..2_000u32 {
        seed[12..].copy_from_slice(&i.to_be_bytes());
        let limit = 1 + i.wrapping_mul(2_654_435_761) % 100_000;
        assert!(rand_below(&seed, limit) < limit);
    }
}

#[test]
fn heads_and_draws_of_many_seeds_match_each_generators() {
    let rows = rows();
    let uuid_sized: Vec<&[u8]> = rows
        .iter()
        .map(|row| &row.seed_be[..])
        .filter(|seed| seed.len() == 16)
        .collect();
    // Lanes of equal key lengths, runs of mixed lengths, a partial run at
    // the end, and every seed of the data in file order.
    let every_seed: Vec<&[u8]> = rows.iter().map(|row| &row.seed_be[..]).collect();
    // 65,537 rejects nearly half of all outputs, so some heads run out.
    let limits = [0, 1, 60, 86_400, 65_537];
    for seeds in [&uuid_sized, &every_seed] {
        let heads = ruby::heads(seeds);
        let drawn = ruby::rand_below_many(seeds, limits);
        assert_eq!((heads.len(), drawn.len()), (seeds.len(), seeds.len()));
        for ((head, offsets), seed) in heads.iter().zip(&drawn).zip(seeds.iter()) {
            assert_eq!(*head, RubyRandom::new(seed).head());
            let each = limits.map(|limit| RubyRandom::new(seed).rand_below(limit));
            assert_eq!(*offsets, each, "{seed:02x?}");
        }
    }
    assert!(!uuid_sized.len().is_multiple_of(ruby::LANES));
    assert!(ruby::heads::<&[u8]>(&[]).is_empty());
}

#[test]
fn a_head_draws_what_its_generator_draws_or_says_it_cannot() {
    let rows = rows();
    // 65,537 rejects nearly half of all outputs, so some heads run out.
    let limits = [0, 1, 2, 60, 86_400, 65_537, u32::MAX];
    let mut ran_out = 0;
    for row in &rows {
        let head = RubyRandom::new(&row.seed_be).head();
        for limit in limits {
            let drawn = RubyRandom::new(&row.seed_be).rand_below(limit);
            match head.rand_below(limit) {
                Some(offset) => assert_eq!(offset, drawn, "{:02x?} {limit}", row.seed_be),
                None => ran_out += 1,
            }
        }
    }
    // Each of the rows' seeds runs out with probability about 2^-8 at
    // 65,537 and far less at the other limits.
    let expected = rows.len() as f64 / f64::from(1u32 << HEAD_OUTPUTS);
    assert!(
        (1..=(3.0 * expected) as usize).contains(&ran_out),
        "{ran_out} heads ran out, about {expected:.1} expected"
    );
}
