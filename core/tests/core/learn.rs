use std::collections::HashSet;

use stampede_core::key_numbers::KeyNumber;
use stampede_core::panels::Panel;
use stampede_core::panels::fleet::FleetReport;
use stampede_core::panels::learn::{STEPS, Step, step};
use stampede_core::panels::queue_replication::replicate;
use stampede_core::panels::run;
use stampede_core::panels::state::State;
use stampede_core::units::count;

use crate::presets::numbers_in;

/// The key numbers a step's panel prints, and for the Queue's
/// replications the lanes' differences in words on the figures named by `keys`.
fn printed(state: &State, keys: &[&str]) -> (Vec<KeyNumber>, Vec<String>) {
    if state.panel == Panel::Fleet {
        let params = &state.fleet;
        let report = FleetReport::new(&params.sample.text(), params, state.seed).unwrap();
        return (report.key_numbers(params), Vec::new());
    }
    let numbers = run::run(state).unwrap().key_numbers(state);
    let mut words = Vec::new();
    if state.panel == Panel::Queue && state.queue.replications > 0 {
        let replicated = replicate(&state.queue, state.seed).unwrap();
        words.extend(
            replicated
                .differences
                .iter()
                .filter(|difference| keys.contains(&difference.key.as_str()))
                .map(|difference| difference.text.clone()),
        );
    }
    (numbers, words)
}

/// Everything the step's page shows in words and numbers: its chosen key
/// numbers (label, value and theory), its controls' values as typed and as
/// counted, and the replications' differences it names.
fn shown(step: &Step, state: &State) -> String {
    let (numbers, words) = printed(state, step.numbers);
    let mut shown = String::new();
    for key in step.numbers {
        let Some(number) = numbers.iter().find(|number| number.key == *key) else {
            assert!(!words.is_empty(), "{}: no key number {key}", step.slug);
            continue;
        };
        let theory = number.theory.clone().unwrap_or_default();
        shown.push_str(&format!("{} {} {theory} ", number.label, number.value));
    }
    let params = state.params(state.panel);
    for key in step.controls {
        let value = params.value(key).unwrap();
        shown.push_str(&format!("{value} "));
        if let Ok(whole) = value.parse::<u64>() {
            shown.push_str(&format!("{} ", count(whole)));
        }
    }
    shown.push_str(&words.join(" "));
    shown
}

#[test]
fn every_number_a_step_writes_is_one_its_page_shows_at_the_default_seed() {
    for step in STEPS {
        let state = step.state(1);
        let shown = numbers_in(&shown(step, &state));
        for paragraph in step.text() {
            for number in numbers_in(paragraph) {
                assert!(
                    shown.contains(&number),
                    "{}: {number} is not shown: {shown:?}",
                    step.slug
                );
            }
        }
    }
}

#[test]
fn every_step_is_a_valid_state_of_its_panel_with_its_figure_and_few_controls() {
    assert!((8..=10).contains(&STEPS.len()));
    let mut slugs = HashSet::new();
    for (index, step) in STEPS.iter().enumerate() {
        assert!(slugs.insert(step.slug), "{} twice", step.slug);
        assert_eq!(step.number(), index + 1);
        let (state, notices) = State::from_page_query(&format!("p=learn&step={}", index + 1));
        assert!(notices.is_empty(), "{}: {notices:?}", step.slug);
        assert_eq!(state, step.state(1));
        assert_eq!(
            (state.panel, state.learn_step),
            (step.panel, Some(index + 1))
        );
        assert!(step.panel.figure(step.figure).is_some(), "{}", step.slug);
        assert!(step.controls.len() <= 3, "{}", step.slug);
        let fields = state.params(step.panel).fields();
        for key in step.controls {
            assert!(fields.iter().any(|f| f.key == *key), "{}: {key}", step.slug);
        }
        assert!(!step.text().is_empty());
    }
}

#[test]
fn a_step_link_restores_the_step_and_the_values_moved_on_it() {
    let mut state = step(2).unwrap().state(7);
    assert!(state.set("hi", "2.5").is_empty());
    let query = state.to_query();
    assert!(query.starts_with("v=1&p=learn&step=2&s=7&"), "{query}");
    let (restored, notices) = State::from_page_query(&query);
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(restored, state);
    assert_eq!(restored.jitter.max_delay, 2.5);
    // What the step does not name keeps the step's own value.
    let (bare, _) = State::from_page_query("p=learn&step=2&hi=3");
    assert_eq!((bare.jitter.jobs, bare.jitter.max_delay), (5_000, 3.0));
}

#[test]
fn a_step_out_of_range_or_unreadable_shows_the_nearest_and_says_so() {
    let last = STEPS.len();
    for (raw, shown) in [("0", 1), ("99", last), ("two", 1), ("-3", 1)] {
        let (state, notices) = State::from_page_query(&format!("p=learn&step={raw}"));
        assert_eq!(state.learn_step, Some(shown), "{raw}");
        assert_eq!(notices.len(), 1, "{raw}: {notices:?}");
        assert_eq!(notices[0].key, "step");
    }
    let (state, notices) = State::from_page_query("p=learn");
    assert_eq!((state.learn_step, notices.len()), (Some(1), 0));
    assert_eq!(state.panel, STEPS[0].panel);
}
