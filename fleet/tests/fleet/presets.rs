use std::collections::HashSet;

use stampede_core::key_numbers::KeyNumber;
use stampede_core::panels::Panel;
use stampede_core::panels::State;
use stampede_core::panels::fleet;
use stampede_core::panels::run;
use stampede_fleet::panel::FleetReport;

/// The key numbers of a preset's state: the Fleet panel reads its sample,
/// fixes and probes it; every other panel runs.
fn key_numbers(state: &State) -> Vec<KeyNumber> {
    if state.panel == Panel::Fleet {
        let params = &state.fleet;
        let report = FleetReport::new(&params.sample.text(), params, state.seed).unwrap();
        return report.key_numbers(params);
    }
    run::report(state)
        .unwrap_or_else(|e| panic!("{e}"))
        .key_numbers
}

#[test]
fn every_preset_is_a_valid_state_that_runs_and_shows_its_numbers() {
    for panel in Panel::ALL {
        for preset in panel.presets() {
            let (state, notices) = preset.state(panel, 42);
            assert!(notices.is_empty(), "{}: {notices:?}", preset.slug);
            assert_eq!((state.panel, state.seed), (panel, 42));
            let numbers = key_numbers(&state);
            let keys: HashSet<_> = numbers.iter().map(|n| n.key).collect();
            assert!(numbers.len() >= 2, "{}: {numbers:?}", preset.slug);
            assert_eq!(keys.len(), numbers.len(), "{}: keys repeat", preset.slug);
        }
    }
}

#[test]
fn the_charted_panels_teach_with_at_least_three_presets_each() {
    let mut slugs = HashSet::new();
    for panel in [
        Panel::Poisson,
        Panel::Jitter,
        Panel::Backoff,
        Panel::HashSpread,
        Panel::Slots,
    ] {
        let listed = panel.presets();
        assert!(listed.len() >= 3, "{panel:?} has {}", listed.len());
        for preset in listed {
            assert!(slugs.insert(preset.slug), "{} twice", preset.slug);
            // One sentence: a capital letter, one final full stop.
            let lesson = preset.lesson;
            assert!(lesson.ends_with('.'), "{lesson}");
            assert!(!lesson[..lesson.len() - 1].contains(". "), "{lesson}");
        }
    }
}

#[test]
fn a_preset_keeps_the_seed_and_resets_what_it_does_not_name() {
    let preset = &Panel::Poisson.presets()[1];
    let (state, _) = preset.state(Panel::Poisson, 7);
    assert_eq!(state.seed, 7);
    assert_eq!(state.poisson.days, 1);
}

/// The numbers written in `text` outside backticks (which quote specs and
/// code), such as `1,915,200`, `3.17` or `00:00`; the Learn steps' text is
/// checked with it too.
pub fn numbers_in(text: &str) -> Vec<String> {
    let prose: String = text.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    prose
        .split(|c: char| !(c.is_ascii_digit() || matches!(c, ',' | '.' | ':')))
        .map(|word| word.trim_matches(|c: char| !c.is_ascii_digit()))
        .filter(|word| !word.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn every_number_in_a_fleet_lesson_is_one_the_panel_shows() {
    for preset in fleet::PRESETS {
        let (state, notices) = preset.state(Panel::Fleet, 1);
        assert!(notices.is_empty(), "{}: {notices:?}", preset.slug);
        let params = &state.fleet;
        let report = FleetReport::new(&params.sample.text(), params, 1).unwrap();
        let mut shown = String::new();
        for number in report.key_numbers(params) {
            shown.push_str(&format!(
                "{} {} ",
                number.value,
                number.theory.unwrap_or_default()
            ));
        }
        shown.push_str(&format!(
            "{} {} ",
            report.fix.changed,
            report.fix.kept.len()
        ));
        if let Some(probe) = &report.probe {
            shown.push_str(&format!("{} {} ", probe.moved.len(), probe.compared));
        }
        let shown = numbers_in(&shown);
        for number in numbers_in(preset.lesson) {
            assert!(
                shown.contains(&number),
                "{}: {number} is not shown: {shown:?}",
                preset.slug
            );
        }
        let lesson = preset.lesson;
        assert!(lesson.ends_with('.'), "{lesson}");
        assert!(!lesson[..lesson.len() - 1].contains(". "), "{lesson}");
    }
    assert_eq!(fleet::PRESETS.len(), 5);
}
