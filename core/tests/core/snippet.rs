use std::collections::HashSet;

use stampede_core::backoff::{Backoff, BackoffParams, RetryStrategy};
use stampede_core::hash::fnv1a_32;
use stampede_core::hash_spread::{HashMode, HashSpreadParams, Placement, Reduction};
use stampede_core::panels::snippet::{Snippet, backoff, hash};

/// Offsets from the hash snippets run in their own languages; the header
/// says how they were made.
const HASH_VECTORS: &str = include_str!("../data/snippet_vectors.tsv");
/// Waits from the tenacity snippets run in Python; the header says how.
const TENACITY_WAITS: &str = include_str!("../data/tenacity_waits.tsv");

/// The data rows of a vector file after checking its column names.
fn rows<'a>(text: &'a str, columns: &str) -> impl Iterator<Item = Vec<&'a str>> {
    let mut lines = text.lines().filter(|line| !line.starts_with('#'));
    assert_eq!(lines.next(), Some(columns));
    lines.map(|line| line.split('\t').collect())
}

fn by_slug<T: Copy>(all: &[T], slug: impl Fn(T) -> &'static str, wanted: &str) -> T {
    *all.iter()
        .find(|&&value| slug(value) == wanted)
        .unwrap_or_else(|| panic!("no {wanted}"))
}

fn from_hex(hex: &str) -> String {
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&hex[at..at + 2], 16).unwrap())
        .collect();
    String::from_utf8(bytes).unwrap()
}

fn hash_params(mode: HashMode, reduction: Reduction, window: u32) -> HashSpreadParams {
    HashSpreadParams {
        mode,
        reduction,
        window,
        ..Default::default()
    }
}

fn keyed<'a>(snippets: &'a [Snippet], key: &str) -> &'a Snippet {
    snippets
        .iter()
        .find(|snippet| snippet.key == key)
        .unwrap_or_else(|| panic!("no {key} snippet in {snippets:?}"))
}

#[test]
fn each_hash_snippet_run_in_its_language_gives_the_panels_offsets() {
    let mut covered = HashSet::new();
    let mut windows = HashSet::new();
    let columns = "language\tmode\treduction\twindow\tcode_fnv\tkey_hex\toffset";
    for row in rows(HASH_VECTORS, columns) {
        let mode = by_slug(HashMode::ALL, |mode| mode.slug(), row[1]);
        let reduction = by_slug(Reduction::ALL, |reduction| reduction.slug(), row[2]);
        let window: u32 = row[3].parse().unwrap();
        let snippets = hash::snippets(&hash_params(mode, reduction, window));
        let snippet = keyed(&snippets, row[0]);
        assert_eq!(
            fnv1a_32(snippet.code.as_bytes()).to_string(),
            row[4],
            "the {} snippet for {row:?} changed: run make_snippet_vectors.py",
            row[0]
        );
        let key = from_hex(row[5]);
        let placement = Placement {
            mode,
            reduction,
            window,
        };
        assert_eq!(
            placement.offset(&key).unwrap().to_string(),
            row[6],
            "{row:?} for {key:?}"
        );
        covered.insert((row[0].to_string(), mode, reduction, window));
        windows.insert(window);
    }
    // Every snippet of every mode and reduction was run, for each window.
    for &mode in HashMode::ALL {
        for &reduction in Reduction::ALL {
            for &window in &windows {
                for snippet in hash::snippets(&hash_params(mode, reduction, window)) {
                    let run = (snippet.key.to_string(), mode, reduction, window);
                    assert!(covered.contains(&run), "{run:?} never ran");
                }
            }
        }
    }
}

#[test]
fn each_hash_mode_has_snippets_where_its_function_exists() {
    let keys = |mode| {
        hash::snippets(&hash_params(mode, Reduction::Mod, 86_400))
            .iter()
            .map(|snippet| snippet.key)
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(HashMode::Ruby), ["ruby"]);
    assert_eq!(keys(HashMode::Head), ["sql", "python"]);
    for mode in [
        HashMode::Farm,
        HashMode::Murmur,
        HashMode::Xxh,
        HashMode::Fnv,
    ] {
        assert_eq!(keys(mode), ["python", "go"], "{mode:?}");
    }
}

#[test]
fn hash_snippets_carry_the_window_and_the_reduction() {
    for &mode in HashMode::ALL {
        let snippets = hash::snippets(&hash_params(mode, Reduction::MulShift, 7_200));
        for snippet in &snippets {
            let code = &snippet.code;
            assert!(code.contains("7200 s window"), "{code}");
            let reduced = match (mode, snippet.key) {
                (HashMode::Ruby, _) => "rand(7200)",
                (_, "go") => "(uint64(h) * 7200) >> 32",
                (_, "sql") => "(head * 7200) >> 32",
                _ => "(h * 7200) >> 32",
            };
            assert!(code.contains(reduced), "{mode:?} {code}");
        }
    }
    let fnv = hash::snippets(&hash_params(HashMode::Fnv, Reduction::Mod, 60));
    let python = &keyed(&fnv, "python").code;
    assert!(python.contains("2166136261") && python.contains("16777619"));
    assert!(python.contains("return h % 60"));
    assert!(keyed(&fnv, "go").code.contains("return h % 60"));
}

#[test]
fn each_tenacity_snippet_run_in_python_waits_as_the_panel_does() {
    let columns = "strategy\tbase\tfactor\tcap\tretries\tcode_fnv\tu\tretry\twait";
    let mut previous = 0.0;
    let mut strategies = HashSet::new();
    for row in rows(TENACITY_WAITS, columns) {
        let number = |at: usize| row[at].parse::<f64>().unwrap();
        let strategy = by_slug(RetryStrategy::ALL, |strategy| strategy.slug(), row[0]);
        let params = BackoffParams {
            strategy,
            base: number(1),
            factor: number(2),
            cap: number(3),
            retries: row[4].parse().unwrap(),
            ..Default::default()
        };
        let snippets = backoff::snippets(&params);
        assert_eq!(
            fnv1a_32(keyed(&snippets, "tenacity").code.as_bytes()).to_string(),
            row[5],
            "the tenacity snippet for {row:?} changed: run make_snippet_vectors.py"
        );
        let retry: u32 = row[7].parse().unwrap();
        if retry == 1 {
            previous = params.base;
        }
        let backoff = Backoff::new(strategy, params.base, params.factor, params.cap).unwrap();
        let wait = backoff.delay(retry, previous, number(6));
        assert_eq!(wait, number(8), "{row:?}");
        previous = wait;
        strategies.insert(strategy);
    }
    // The strategies that spend a shared budget wait as the one they
    // retry with, and tenacity writes them alike.
    for (budgeted, waits_as) in [
        (RetryStrategy::AwsQuota, RetryStrategy::Aws),
        (RetryStrategy::Breaker, RetryStrategy::FullJitter),
    ] {
        let tenacity = |strategy| {
            let params = BackoffParams {
                strategy,
                ..Default::default()
            };
            keyed(&backoff::snippets(&params), "tenacity").code.clone()
        };
        assert_eq!(tenacity(budgeted), tenacity(waits_as), "{budgeted:?}");
        strategies.insert(budgeted);
    }
    assert_eq!(strategies.len(), RetryStrategy::ALL.len());
}
