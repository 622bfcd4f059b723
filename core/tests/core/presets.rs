use std::collections::HashSet;

use stampede_core::panels::Panel;
use stampede_core::panels::presets;
use stampede_core::panels::run;

#[test]
fn every_preset_is_a_valid_state_that_runs_and_shows_its_numbers() {
    for panel in Panel::ALL {
        for preset in presets(panel) {
            let (state, notices) = preset.state(panel, 42);
            assert!(notices.is_empty(), "{}: {notices:?}", preset.slug);
            assert_eq!((state.panel, state.seed), (panel, 42));
            let result = run::run(&state).unwrap_or_else(|e| panic!("{}: {e}", preset.slug));
            let numbers = result.key_numbers(&state);
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
        let listed = presets(panel);
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
    let preset = &presets(Panel::Poisson)[1];
    let (state, _) = preset.state(Panel::Poisson, 7);
    assert_eq!(state.seed, 7);
    assert_eq!(state.poisson.days, 1);
}
