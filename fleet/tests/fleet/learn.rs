use std::collections::HashSet;
use std::sync::Arc;

use stampede_core::field::Kind;
use stampede_core::panels::Panel;
use stampede_core::panels::State;
use stampede_core::panels::learn::{STEPS, Step, step};
use stampede_core::panels::queue_replication::replicate;
use stampede_core::panels::run;
use stampede_core::panels::story::StepFacts;
use stampede_core::units::count;
use stampede_fleet::panel::FleetReport;

use crate::presets::numbers_in;

/// What the step's page shows at `state`: its panel's key numbers, and
/// the Queue's replications when it asks for them.
fn facts(state: &State) -> StepFacts {
    let numbers = if state.panel == Panel::Fleet {
        let params = &state.fleet;
        let report = FleetReport::new(&params.sample.text(), params, state.seed).unwrap();
        report.key_numbers(params)
    } else {
        run::report(state).unwrap().key_numbers
    };
    let replicated = (state.panel == Panel::Queue && state.queue.replications > 0)
        .then(|| Arc::new(replicate(&state.queue, state.seed).unwrap()));
    StepFacts {
        state: state.clone(),
        numbers,
        replicated,
    }
}

/// Everything the step's page shows in words and numbers: its chosen key
/// numbers (label, value and theory), its controls' values as typed, as
/// counted and as labelled, and the replications' differences.
fn shown(step: &Step, facts: &StepFacts) -> String {
    let mut shown = String::new();
    for key in step.numbers {
        let Some(number) = facts.numbers.iter().find(|number| number.key == *key) else {
            continue;
        };
        let theory = number.theory.clone().unwrap_or_default();
        shown.push_str(&format!("{} {} {theory} ", number.label, number.value));
    }
    let params = facts.state.params(step.panel);
    for key in step.controls {
        let value = params.value(key).unwrap();
        shown.push_str(&format!("{value} "));
        if let Ok(whole) = value.parse::<u64>() {
            shown.push_str(&format!("{} ", count(whole)));
        }
        let field = params.fields().iter().find(|f| f.key == *key).unwrap();
        if let Some(readout) = value.parse().ok().and_then(|x| field.readout(x)) {
            shown.push_str(&format!("{readout} "));
        }
        if let Kind::Choice(options) = field.kind {
            let chosen = options.iter().find(|option| option.slug == value).unwrap();
            shown.push_str(&format!("{} ", chosen.label));
        }
    }
    if let Some(replicated) = &facts.replicated {
        for difference in &replicated.differences {
            shown.push_str(&format!("{} ", difference.text));
        }
    }
    shown
}

/// Five or more values across a control's range, its ends included, each
/// as the URL writes it: evenly or, on a log slider, geometrically; every
/// option of a choice.
fn grid(kind: Kind) -> Vec<String> {
    match kind {
        Kind::Number {
            min,
            max,
            step,
            log,
        } => {
            let low = if log && min <= 0.0 { step } else { min };
            let mut values = vec![min];
            for i in 1..5 {
                let t = f64::from(i) / 5.0;
                let x = if log {
                    low * (max / low).powf(t)
                } else {
                    min + (max - min) * t
                };
                values.push((x / step).round() * step);
            }
            values.push(max);
            let decimals = (-step.log10().floor()).max(0.0) as usize;
            values.iter().map(|x| format!("{x:.decimals$}")).collect()
        }
        Kind::Choice(options) => options.iter().map(|o| o.slug.to_string()).collect(),
        other => panic!("no grid for {other:?}"),
    }
}

/// Asserts every number each paragraph writes is one the page shows, and
/// that no key number the text names is missing.
fn assert_text_follows(step: &Step, state: &State, at: &str) {
    let facts = facts(state);
    let paragraphs = step.paragraphs(&facts);
    assert!(!paragraphs.is_empty(), "{} at {at}: no text", step.slug);
    let shown = numbers_in(&shown(step, &facts));
    for paragraph in &paragraphs {
        assert!(
            !paragraph.contains('…'),
            "{} at {at}: a key number is missing: {paragraph}",
            step.slug
        );
        for number in numbers_in(paragraph) {
            assert!(
                shown.contains(&number),
                "{} at {at}: {number} is not shown in {shown:?}\n{paragraph}",
                step.slug
            );
        }
    }
}

#[test]
fn every_number_a_step_writes_is_one_its_page_shows_across_its_controls() {
    for step in STEPS {
        let defaults = step.state(1);
        assert_text_follows(step, &defaults, "the defaults");
        let fields = defaults.params(step.panel).fields();
        for key in step.controls {
            let field = fields.iter().find(|f| f.key == *key).unwrap();
            let values = grid(field.kind);
            assert!(values.len() >= 5 || matches!(field.kind, Kind::Choice(_)));
            for value in values {
                let mut state = defaults.clone();
                state.set(key, &value);
                assert_text_follows(step, &state, &format!("{key}={value}"));
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
        assert!(step.panel.figures().contains(&step.figure), "{}", step.slug);
        assert!(step.controls.len() <= 3, "{}", step.slug);
        let fields = state.params(step.panel).fields();
        for key in step.controls {
            assert!(fields.iter().any(|f| f.key == *key), "{}: {key}", step.slug);
        }
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

#[test]
fn a_step_link_moves_only_the_steps_controls_and_says_what_it_kept() {
    let (state, notices) = State::from_page_query("p=learn&step=6&lb=2&bk=192&cyc=43200");
    assert_eq!(
        (state.slots.id_bytes.raw_values(), state.slots.buckets),
        (256, 192)
    );
    assert_eq!(state.slots.cycle, 43_200);
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0].key, "lb");
    // A link the page writes, whose other values settled with its controls,
    // comes back as it was, without a notice.
    let mut moved = step(1).unwrap().state(3);
    moved.set("n", "1000000");
    let (restored, notices) = State::from_page_query(&moved.to_query());
    assert_eq!((restored, notices.len()), (moved, 0));
}
