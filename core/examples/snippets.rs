//! Prints the snippets that `core/tests/data/make_snippet_vectors.py` runs
//! in their own languages: every hash snippet for each mode, reduction and
//! window of [`HASH_WINDOWS`], and the tenacity snippet of each backoff
//! setup in [`TENACITY_SETUPS`].
//!
//! Each snippet is a line `### ` and tab-separated fields, then its code:
//! `### hash <mode> <reduction> <window> <key>` or
//! `### tenacity <strategy> <base> <factor> <cap> <retries>`.

use stampede_core::backoff::{BackoffParams, RetryStrategy};
use stampede_core::hash_spread::{HashMode, HashSpreadParams, Reduction};
use stampede_core::panels::snippet::{backoff, hash};

/// A short window, the default day and the longest week, where h·W needs
/// the most bits.
const HASH_WINDOWS: [u32; 3] = [3_600, 86_400, 604_800];

/// (strategy, base, factor, cap, retries): factors whose powers are exact
/// in f64, so Python's `**` and the core's squaring agree to the bit, and
/// caps that some retries reach.
const TENACITY_SETUPS: [(RetryStrategy, f64, f64, f64, u32); 11] = [
    (RetryStrategy::Constant, 1.5, 2.0, 60.0, 4),
    (RetryStrategy::Linear, 0.5, 2.0, 2.0, 6),
    (RetryStrategy::Exponential, 1.0, 2.0, 60.0, 8),
    (RetryStrategy::Exponential, 0.25, 1.5, 3.0, 10),
    (RetryStrategy::FullJitter, 1.0, 3.0, 100.0, 6),
    (RetryStrategy::EqualJitter, 0.5, 2.0, 10.0, 7),
    (RetryStrategy::Decorrelated, 1.0, 2.0, 30.0, 8),
    (RetryStrategy::Sidekiq, 1.0, 2.0, 60.0, 5),
    (RetryStrategy::Celery, 1.0, 2.0, 60.0, 12),
    (RetryStrategy::ActiveJob, 1.0, 2.0, 60.0, 5),
    (RetryStrategy::Aws, 1.0, 2.0, 60.0, 10),
];

fn main() {
    for &mode in HashMode::ALL {
        for &reduction in Reduction::ALL {
            for window in HASH_WINDOWS {
                let params = HashSpreadParams {
                    mode,
                    reduction,
                    window,
                    ..Default::default()
                };
                for snippet in hash::snippets(&params) {
                    println!(
                        "### hash\t{}\t{}\t{window}\t{}",
                        mode.slug(),
                        reduction.slug(),
                        snippet.key
                    );
                    print!("{}", snippet.code);
                }
            }
        }
    }
    for (strategy, base, factor, cap, retries) in TENACITY_SETUPS {
        let params = BackoffParams {
            strategy,
            base,
            factor,
            cap,
            retries,
            ..Default::default()
        };
        let tenacity = backoff::snippets(&params)
            .into_iter()
            .find(|snippet| snippet.key == "tenacity")
            .expect("every strategy has a tenacity snippet");
        println!(
            "### tenacity\t{}\t{base}\t{factor}\t{cap}\t{retries}",
            strategy.slug()
        );
        print!("{}", tenacity.code);
    }
}
