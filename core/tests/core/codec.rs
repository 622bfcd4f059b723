use proptest::prelude::*;
use stampede_core::field::{Field, Kind};
use stampede_core::panels::Panel;
use stampede_core::panels::State;
use stampede_core::panels::state::{RESERVED_KEYS, Theme, View};

/// A raw value for `field` from a uniform `u` in [0, 1): a number snapped to
/// the field's step, one of its choices, a few of its choices, or its
/// example text or nothing.
fn raw_value(field: &Field, u: f64) -> String {
    match field.kind {
        Kind::Number { min, max, step, .. } => {
            let steps = ((max - min) / step).floor();
            (min + (u * (steps + 1.0)).floor().min(steps) * step).to_string()
        }
        Kind::Choice(options) => options[(u * options.len() as f64) as usize]
            .slug
            .to_string(),
        // A run of up to `max` neighbouring options, from none to all it may hold.
        Kind::Choices { options, max } => {
            let start = (u * options.len() as f64) as usize;
            let taken = (start % (max + 1)).min(options.len());
            let slugs: Vec<&str> = options
                .iter()
                .cycle()
                .skip(start)
                .take(taken)
                .map(|o| o.slug)
                .collect();
            slugs.join(",")
        }
        // A text field's example is valid by construction.
        Kind::Text { example, .. } if u < 0.5 => example.to_string(),
        Kind::Text { .. } => String::new(),
        Kind::List { example, .. } if u < 0.5 => example.to_string(),
        Kind::List { .. } => String::new(),
    }
}

fn any_panel() -> impl Strategy<Value = Panel> {
    prop::sample::select(Panel::ALL.to_vec())
}

/// A valid state: a panel, its fields set from random values, a seed, a view.
fn any_state() -> impl Strategy<Value = State> {
    (
        any_panel(),
        prop::collection::vec(0.0..1.0f64, 8),
        any::<u64>(),
        any::<(bool, bool)>(),
        any::<prop::sample::Index>(),
        prop::sample::select(Theme::ALL.to_vec()),
    )
        .prop_map(|(panel, draws, seed, (embed, controls), figure, theme)| {
            let mut state = State::new(panel);
            state.seed = seed;
            let figures = panel.figures();
            // Every figure, and none (the whole panel), equally often.
            let figure = figures.get(figure.index(figures.len() + 1));
            state.view = View {
                embed,
                controls,
                figure,
                theme,
            };
            let params = state.params_mut(panel);
            for (field, u) in params.fields().iter().zip(draws) {
                params.set(field.key, &raw_value(field, u));
            }
            params.settle();
            state
        })
}

/// After decoding, nothing is left for the settling rules to repair.
fn is_settled(state: &State) -> bool {
    let mut copy = state.clone();
    copy.params_mut(state.panel).settle().is_empty()
}

proptest! {
    #[test]
    fn valid_states_survive_the_round_trip(state in any_state()) {
        let query = state.to_query();
        let (decoded, notices) = State::from_query(&query);
        prop_assert!(notices.is_empty(), "{query}: {notices:?}");
        prop_assert_eq!(decoded, state);
    }

    #[test]
    fn a_link_to_a_panel_keeps_its_values_and_the_seed(
        state in any_state(),
        to in any_panel(),
        step in prop::option::of(1usize..4),
    ) {
        let mut state = state;
        state.learn_step = step;
        let query = state.to_query_on(to);
        let (decoded, notices) = State::from_query(&query);
        prop_assert!(notices.is_empty(), "{query}: {notices:?}");
        prop_assert_eq!((decoded.panel, decoded.seed, decoded.learn_step), (to, state.seed, None));
        // Out of Learn the panel's values are the state's; from a step, its defaults.
        let expected = if step.is_some() { State::new(to) } else { state.clone() };
        for field in decoded.params(to).fields() {
            prop_assert_eq!(
                decoded.params(to).value(field.key),
                expected.params(to).value(field.key),
                "{}", field.key
            );
        }
    }

    #[test]
    fn any_real_number_survives_the_round_trip(panel in any_panel(), index in 0usize..8, x in -1e7..1e7f64) {
        let mut state = State::new(panel);
        let Some(field) = state.params(panel).fields().get(index).copied() else { return Ok(()) };
        state.set(field.key, &x.to_string());
        let (decoded, _) = State::from_query(&state.to_query());
        prop_assert_eq!(decoded, state);
    }

    #[test]
    fn garbage_queries_decode_to_valid_states(query in ".{0,200}") {
        let (state, _) = State::from_query(&query);
        prop_assert!(state.is_valid());
        prop_assert!(is_settled(&state));
    }

    #[test]
    fn bad_values_for_real_keys_decode_to_valid_states(
        panel in any_panel(),
        values in prop::collection::vec(prop_oneof![
            ".{0,12}",
            "-?[0-9]{1,25}(\\.[0-9]{0,5})?",
            Just("NaN".to_string()),
            Just("inf".to_string()),
            Just("-1e308".to_string()),
            Just("1e999".to_string()),
        ], 8),
    ) {
        let keys = State::new(panel).params(panel).fields().iter().map(|f| f.key);
        let mut query = form_urlencoded::Serializer::new(format!("p={}&", panel.slug()));
        for (key, value) in keys.chain(["s", "v", "embed", "controls", "fig", "theme"]).zip(&values) {
            query.append_pair(key, value);
        }
        let (state, notices) = State::from_query(&query.finish());
        prop_assert!(state.is_valid());
        prop_assert!(is_settled(&state));
        prop_assert_eq!(state.panel, panel);
        let known: Vec<&str> = state.params(panel).fields().iter().map(|f| f.key).chain(RESERVED_KEYS).collect();
        for notice in notices {
            prop_assert!(known.contains(&notice.key), "{notice}");
        }
    }
}

#[test]
fn the_default_state_is_written_out_in_full() {
    assert_eq!(
        State::new(Panel::Poisson).to_query(),
        "v=1&p=poisson&s=1&n=300&ws=0&we=24&wp=scale&tz=0&d=1&t=&bc=0&br=1&bp=drop"
    );
    for panel in Panel::ALL {
        let (decoded, notices) = State::from_query(&State::new(panel).to_query());
        assert_eq!(decoded, State::new(panel));
        assert!(notices.is_empty());
    }
}

#[test]
fn an_empty_query_is_the_default_state() {
    assert_eq!(State::from_query(""), (State::new(Panel::Poisson), vec![]));
    assert_eq!(State::from_query("?"), (State::new(Panel::Poisson), vec![]));
}

#[test]
fn keys_are_unique_and_never_reserved() {
    for panel in Panel::ALL {
        let fields = State::new(panel).params(panel).fields();
        for (i, field) in fields.iter().enumerate() {
            assert!(
                !RESERVED_KEYS.contains(&field.key),
                "{} uses {}",
                panel.slug(),
                field.key
            );
            assert!(
                fields[..i].iter().all(|f| f.key != field.key),
                "{} repeats {}",
                panel.slug(),
                field.key
            );
        }
    }
}

#[test]
fn each_adjustment_names_its_key_and_reason() {
    let (state, notices) = State::from_query("v=1&p=poisson&n=abc&ws=99&wp=sideways&zzz=1&s=-5");
    assert_eq!(state.poisson.per_day, 300);
    assert_eq!(state.poisson.window_start, 24.0);
    assert_eq!(state.seed, 0);
    let text: Vec<String> = notices.iter().map(ToString::to_string).collect();
    assert_eq!(
        text,
        [
            "Seed (s): -5 is below the minimum 0; using 0",
            "Events a day (n): \"abc\" is not a number; using 300",
            "Window start (ws): 99 is above the maximum 24; using 24",
            "Window policy (wp): \"sideways\" is not one of scale, defer; using scale",
        ]
    );
}

#[test]
fn numbers_must_be_finite_and_whole_where_counted() {
    for raw in ["NaN", "inf", "-inf", "1e999", "", "0x10", "3,000"] {
        let (state, notices) = State::from_query(&format!("p=jitter&n={raw}"));
        assert_eq!(state.jitter.jobs, 10_000, "{raw}");
        assert_eq!(notices.len(), 1, "{raw}");
    }
    let (state, notices) = State::from_query("p=jitter&n=2500.4");
    assert_eq!(state.jitter.jobs, 2500);
    assert_eq!(
        notices[0].to_string(),
        "Jobs (n): 2500.4 is not a whole number; using 2500"
    );
}

#[test]
fn unknown_panels_versions_and_flags_are_reported() {
    let (state, notices) = State::from_query("v=9&p=nope&embed=yes&controls=1&s=abc");
    assert_eq!(state.panel, Panel::Poisson);
    assert_eq!(
        state.view,
        View {
            embed: false,
            controls: true,
            ..View::default()
        }
    );
    let keys: Vec<&str> = notices.iter().map(|n| n.key).collect();
    assert_eq!(keys, ["v", "p", "embed", "s"]);
}

#[test]
fn an_embed_names_one_figure_of_its_panel_and_a_theme() {
    let (state, notices) = State::from_query("p=queue&embed=1&fig=depth&theme=dark");
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(state.view.figure.map(|f| f.title), Some("Jobs waiting"));
    assert_eq!(state.view.theme, Theme::Dark);
    assert!(state.view.shows("depth") && !state.view.shows("busy"));
    assert!(state.to_query().ends_with("&embed=1&fig=depth&theme=dark"));

    // A figure of another panel, or an unknown theme, falls back and says so.
    let (state, notices) = State::from_query("p=jitter&fig=depth&theme=sepia");
    assert_eq!(state.view.figure, None);
    assert_eq!(state.view.theme, Theme::Auto);
    let texts: Vec<String> = notices.iter().map(ToString::to_string).collect();
    assert_eq!(
        texts,
        [
            "Figure (fig): \"depth\" is not a figure of Jitter; showing all of them",
            "Theme (theme): \"sepia\" is not auto, light or dark; using auto",
        ]
    );
}

#[test]
fn every_panel_names_its_figures_once() {
    for panel in Panel::ALL {
        let slugs: Vec<&str> = panel.figures().iter().map(|f| f.slug).collect();
        assert_eq!(slugs[0], "numbers", "{panel:?}");
        for (index, slug) in slugs.iter().enumerate() {
            assert!(!slugs[..index].contains(slug), "{panel:?}: {slug} twice");
        }
    }
}

#[test]
fn a_huge_value_is_quoted_short_in_its_notice() {
    // A shared URL may carry 100 KB in one value; its notice quotes the
    // start, not all of it, so it cannot push the panel off the page.
    let huge = |text: &str| text.repeat(100 * 1024 / text.len());
    let queries = [
        format!("p={}", huge("x")),
        format!("v={}", huge("9")),
        format!("embed={}", huge("1")),
        format!("s={}", huge("7")),
        format!("s=-{}", huge("7")),
        format!("s={}", huge("z")),
        format!("p=poisson&n=-{}1", huge("0")),
        format!("p=poisson&n={}", huge("x")),
        format!("p=queue&st={}", huge("z")),
        format!("p=poisson&t={}", huge("x")),
        format!("p=poisson&t=5@{}-6", huge("x")),
    ];
    for query in queries {
        let (_, notices) = State::from_query(&query);
        assert_eq!(notices.len(), 1, "{}", &query[..12]);
        let text = notices[0].to_string();
        assert!(text.len() < 200, "{}: {} bytes", &query[..12], text.len());
        assert!(text.contains("…"), "{text}");
    }
}

#[test]
fn seeds_span_all_of_u64_and_clamp_beyond() {
    let (state, notices) = State::from_query("s=18446744073709551615");
    assert_eq!((state.seed, notices.len()), (u64::MAX, 0));
    let (state, notices) = State::from_query("s=99999999999999999999999");
    assert_eq!((state.seed, notices.len()), (u64::MAX, 1));
}

#[test]
fn the_last_of_repeated_keys_wins_and_encoding_is_undone() {
    let (state, notices) = State::from_query("p=jitter&n=5&n=7&hi=%32%30");
    assert!(notices.is_empty());
    assert_eq!((state.jitter.jobs, state.jitter.max_delay), (7, 20.0));
}

#[test]
fn crossed_settings_are_repaired_with_a_notice() {
    let (state, notices) = State::from_query("p=jitter&lo=30&hi=10");
    assert_eq!(
        (state.jitter.min_delay, state.jitter.max_delay),
        (30.0, 30.5)
    );
    assert_eq!(notices[0].key, "hi");
    let (state, notices) = State::from_query("p=backoff&b=30&c=5");
    assert_eq!(state.backoff.cap, 30.0);
    assert_eq!(notices[0].key, "c");
}

#[test]
fn lists_stay_readable_in_the_url_and_awkward_characters_are_escaped() {
    let (state, notices) = State::from_query("p=poisson&t=1000@22-6,%2050");
    assert!(notices.is_empty(), "{notices:?}");
    assert!(
        state.to_query().contains("&t=1000@22-6,50&"),
        "{}",
        state.to_query()
    );
    let (state, notices) = State::from_query("p=poisson&t=1%26x%3D2");
    assert_eq!(notices[0].key, "t");
    assert!(state.to_query().contains("&t=&"));
}
