//! Times each of the core's 32-bit hashes over the same million keys that
//! `bench/hash_peers.py` hands to the reference Python packages, so the two
//! can be set side by side.
//!
//! The keys are "user-1" to "user-1000000", built before any timing. Each
//! hash runs once untimed over all of them, then five timed passes; the
//! best pass is reported, as the least disturbed by other work on the
//! machine. A pass folds every hash into a checksum, their sum modulo 2³²,
//! which the Python side computes the same way: equal checksums show that
//! both sides returned the same million values. The first three hashes are
//! printed too, for the Python side to check a package before timing it.
//!
//! The output is one JSON line. `--quick` times a single pass.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use stampede_core::hash::{farm_fingerprint32, fnv1a_32, murmur3_x86_32, xxh32};

const KEYS: u32 = 1_000_000;
const SAMPLE: usize = 3;

/// A hash of a key's bytes, as the core's functions are.
type Hash32 = fn(&[u8]) -> u32;

/// The functions in the order they are printed, by the names the Python
/// side uses for them.
const FUNCTIONS: [(&str, Hash32); 4] = [
    ("farm_fingerprint32", farm_fingerprint32),
    ("murmur3_32", murmur3_x86_32),
    ("xxh32", xxh32),
    ("fnv1a_32", fnv1a_32),
];

fn checksum(keys: &[String], hash: Hash32) -> u32 {
    keys.iter().fold(0u32, |sum, key| {
        sum.wrapping_add(hash(black_box(key.as_bytes())))
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let timed_runs = match args.as_slice() {
        [] => 5,
        [flag] if flag == "--quick" => 1,
        _ => {
            eprintln!("usage: hash_peers [--quick]");
            return ExitCode::from(2);
        }
    };
    let keys: Vec<String> = (1..=KEYS).map(|i| format!("user-{i}")).collect();
    let mut entries = Vec::new();
    for (name, hash) in FUNCTIONS {
        let expected = checksum(&keys, hash);
        let mut best_seconds = f64::INFINITY;
        for _ in 0..timed_runs {
            let start = Instant::now();
            let sum = black_box(checksum(&keys, hash));
            best_seconds = best_seconds.min(start.elapsed().as_secs_f64());
            assert_eq!(
                sum, expected,
                "{name} must return the same hashes every pass"
            );
        }
        let sample: Vec<String> = keys[..SAMPLE]
            .iter()
            .map(|key| hash(key.as_bytes()).to_string())
            .collect();
        entries.push(format!(
            r#""{name}":{{"best_seconds":{best_seconds},"keys_per_second":{},"checksum":{expected},"sample":[{}]}}"#,
            f64::from(KEYS) / best_seconds,
            sample.join(","),
        ));
    }
    println!(
        r#"{{"keys":{KEYS},"first_key":"user-1","last_key":"user-{KEYS}","timed_runs":{timed_runs},"functions":{{{}}}}}"#,
        entries.join(",")
    );
    ExitCode::SUCCESS
}
