//! The ids, digests and order a Hash spread cache keeps, and readies
//! ahead, give the runs a fresh cache gives.

use stampede_core::hash_spread::{HashSpreadCache, HashSpreadParams, Placement, READIED_KEYS, run};
use stampede_core::panels::State;

#[test]
fn a_run_cache_gives_what_a_fresh_run_gives() {
    // A reader's path through the panel: N up and down, a new window (65,580
    // s rejects about half of Ruby's outputs, so some ids need more than
    // their head), the functions swapped, every function and reduction,
    // other kinds of id, another seed, pasted ids, and back.
    let steps = [
        "s=1&n=500",
        "s=1&n=3000",
        "s=1&n=800",
        "s=1&n=3000&w=65580",
        "s=1&n=3000&w=65580&fn=ruby&fn2=farm",
        "s=1&n=4000&fn=ruby&w=3600&rd=mulshift",
        "s=1&n=2000&kk=seq&fn=ruby",
        "s=1&n=1000&kk=seq",
        "s=1&n=1500&kk=seq&fn=fnv&rd=mulshift&fn2=head",
        "s=1&n=2500&kk=email&fn=murmur&fn2=xxh&w=3600&rd2=mulshift",
        "s=1&n=2000&kk=email&fn=murmur&fn2=fnv",
        "s=2&n=1000",
        "s=2&n=3000&fn=ruby&w=65580",
        "s=2&ids=1,2,x",
        "s=2&n=3500&fn=ruby&w=65580",
        "s=1&n=0",
    ];
    let mut cache = HashSpreadCache::default();
    for step in steps {
        let (state, _) = State::from_query(&format!("v=1&p=hash&{step}"));
        let reused = cache.run(&state.hash_spread, state.seed);
        if READIED_AT.contains(&step) {
            assert_readied_runs_are_fresh_runs(&state, step);
        }
        assert_eq!(reused, run(&state.hash_spread, state.seed), "{step}");
        // Offsets from kept heads equal those of generators seeded afresh.
        if let Ok(reused) = reused {
            let params = &state.hash_spread;
            let placed = |placement: Placement| placement.place(&reused.keys).unwrap();
            assert_eq!(reused.offsets, placed(params.placement()), "{step}");
            assert_eq!(
                reused.second.offsets,
                placed(params.second_placement()),
                "{step}"
            );
        }
    }
}

/// Steps whose parameters a cache also readies ahead: Ruby's generator as
/// the second function, as the first on sequential ids, two hashes on
/// emails, and pasted ids.
const READIED_AT: [&str; 4] = [
    "s=1&n=500",
    "s=1&n=2000&kk=seq&fn=ruby",
    "s=1&n=2500&kk=email&fn=murmur&fn2=xxh&w=3600&rd2=mulshift",
    "s=2&ids=1,2,x",
];

/// A cache readied ahead, in slices and in full, gives at each N up to the
/// readied ids and past them what a fresh run gives.
fn assert_readied_runs_are_fresh_runs(state: &State, step: &str) {
    let params = &state.hash_spread;
    let at = |keys: u32| HashSpreadParams {
        keys: keys.min(params.most_keys()),
        ..params.clone()
    };
    let mut cache = HashSpreadCache::default();
    let mut slices = 0;
    while cache.ready_ahead(params, state.seed, 5_000).unwrap() {
        slices += 1;
        // Runs between slices, within the ids readied so far and past them.
        for keys in [slices * 1_000, slices * 7_000] {
            let params = at(keys);
            assert_eq!(
                cache.run(&params, state.seed),
                run(&params, state.seed),
                "{step} at {keys}"
            );
        }
    }
    assert!(!cache.ready_ahead(params, state.seed, 5_000).unwrap());
    for keys in [params.keys, READIED_KEYS, READIED_KEYS + 1_000] {
        let params = at(keys);
        assert_eq!(
            cache.run(&params, state.seed),
            run(&params, state.seed),
            "{step} at {keys}"
        );
    }
}
