//! The hand-written TypeScript types against what the module really takes
//! and returns: each parameter interface lists exactly its panel's URL keys
//! and the seed, and each result interface exactly the keys its object has.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use stampede_core::hash_spread::{HashMode, Reduction};
use stampede_core::panels::Panel;
use stampede_core::panels::State;
use stampede_core::panels::state::SEED_FIELD;

use stampede_core::panels::run;

use super::{NoticeOut, RunOutcome};

#[path = "shape.rs"]
mod shape;

use shape::Nested;

const TYPES: &str = include_str!("types.d.ts");

/// The member names of each interface in the types, by interface.
fn interfaces() -> BTreeMap<&'static str, BTreeSet<&'static str>> {
    shape::interfaces(TYPES)
}

fn assert_shape(name: &str, value: &Value, nested: &[Nested]) {
    shape::assert_shape(TYPES, name, value, nested);
}

/// The interface a panel's parameters and result are declared as; `None`
/// for the Fleet panel, which reads a fleet's text and is not in this module.
fn declared(panel: Panel) -> Option<(Option<&'static str>, &'static str)> {
    match panel {
        Panel::Poisson => Some((Some("PoissonParams"), "PoissonRun")),
        Panel::Jitter => Some((Some("JitterParams"), "JitterRun")),
        Panel::Backoff => Some((Some("BackoffParams"), "BackoffRun")),
        // `run()` takes this panel's parameters, in a URL.
        Panel::HashSpread => Some((None, "HashSpreadRun")),
        Panel::Slots => Some((Some("SlotsParams"), "SlotRun")),
        // `run()` takes this panel's parameters, in a URL.
        Panel::Queue => Some((None, "QueueRun")),
        Panel::Fleet => None,
    }
}

#[test]
fn parameter_types_list_every_url_key_and_the_seed() {
    let interfaces = interfaces();
    for panel in Panel::ALL {
        let Some((Some(params), _)) = declared(panel) else {
            continue;
        };
        let state = State::new(panel);
        let mut keys: BTreeSet<&str> = state.params(panel).fields().iter().map(|f| f.key).collect();
        keys.insert(SEED_FIELD.key);
        assert_eq!(interfaces[params], keys, "the keys of {params}");
    }
}

#[test]
fn result_types_list_every_key_of_the_results() {
    let nested: &[Nested] = &[
        ("PoissonRun", "GapQuantile", |v| &v["gap_quantiles"][0]),
        ("PoissonRun", "BucketOutcome", |v| &v["bucket"]),
        ("PoissonRun", "GapHistogram", |v| &v["gap_histogram"]),
        ("JitterRun", "WindowFit", |v| &v["window_fit"]),
        ("BackoffRun", "StrategyFleet", |v| &v["fleets"][0]),
        ("BackoffRun", "Verdict", |v| &v["verdict"]),
        ("Verdict", "Ranked", |v| &v["ranking"][0]),
        ("Verdict", "Flip", |v| &v["flip"]),
        ("StrategyFleet", "Band", |v| &v["bands"][0]),
        ("StrategyFleet", "Fleet", |v| &v["fleet"]),
        ("Fleet", "Timeline", |v| &v["timeline"]),
        ("Fleet", "Burst", |v| &v["peak_after_outage"]),
        ("HashSpreadRun", "Uniformity", |v| &v["uniformity"]),
        ("HashSpreadRun", "Gap", |v| &v["largest_gap"]),
        ("HashSpreadRun", "Collisions", |v| &v["collisions"]),
        ("HashSpreadRun", "Stability", |v| &v["stability"]),
        ("HashSpreadRun", "Spread", |v| &v["second"]),
        ("HashSpreadRun", "Lookup", |v| &v["lookup"]),
        ("Spread", "Uniformity", |v| &v["uniformity"]),
        ("Spread", "Gap", |v| &v["largest_gap"]),
        ("Spread", "Collisions", |v| &v["collisions"]),
        ("Stability", "Movement", |v| &v["on_growth"]),
        ("SlotRun", "EuclidStep", |v| &v["euclid"][0]),
        ("SlotRun", "Mapping", |v| &v["even"]),
        ("SlotRun", "SlotPlan", |v| &v["plan"]),
        ("SlotRun", "Reciprocals", |v| &v["kinds"]),
        ("SlotRun", "CostBalance", |v| &v["costs"]),
        ("CostBalance", "SlotLoad", |v| &v["hashed"]),
        ("SlotRun", "AccountPlacement", |v| &v["accounts"][0]),
        ("QueueRun", "Lane", |v| &v["lanes"][0]),
        ("Lane", "SimRun", |v| &v["run"]),
        ("SimRun", "Summary", |v| &v["summary"]),
    ];
    for panel in Panel::ALL {
        let Some((_, result_type)) = declared(panel) else {
            continue;
        };
        let mut state = State::new(panel);
        // A bucket, so that the optional bucket outcome is an object to check.
        state.poisson.bucket_capacity = 10;
        // With Backoff's flip searched, as the command line prints it, so
        // that the Flip the types declare is checked too.
        let result = serde_json::to_value(run::report(&state).unwrap().run).unwrap();
        assert_eq!(result["panel"], panel.slug());
        assert_shape(result_type, &result, nested);
    }
}

#[test]
fn the_outcome_of_run_has_its_declared_shape() {
    let (state, notices) = State::from_query("p=jitter&n=abc");
    let result = run::run(&state).unwrap();
    let outcome = RunOutcome {
        result: &result,
        notices: notices.iter().map(NoticeOut::from).collect(),
    };
    let value = serde_json::to_value(&outcome).unwrap();
    let notice: &[Nested] = &[("RunOutcome", "Notice", |v| &v["notices"][0])];
    assert_shape("RunOutcome", &value, notice);
}

#[test]
fn spread_takes_and_returns_its_declared_shape() {
    let declared: BTreeSet<&str> = super::SPREAD_OPTIONS.into_iter().collect();
    assert_eq!(interfaces()["SpreadOptions"], declared);
    let placement = run::placement(HashMode::Ruby, Reduction::Mod, 60).unwrap();
    let placed = run::place_key(&placement, "42".into()).unwrap();
    assert_shape("KeyOffset", &serde_json::to_value(placed).unwrap(), &[]);
}
