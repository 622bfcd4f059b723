//! The Backoff panel: its parameters and their checks, the compared
//! strategies in URLs, the key numbers and the presets' lessons.

use proptest::prelude::*;
use stampede_core::backoff::{
    AWS_QUOTA_CAPACITY, AWS_RETRY_COST, Backoff, BackoffParams, BackoffRun, DependencyModel, Fleet,
    RetryStrategy, delay_bands, exponential, run, simulate_fleet, simulate_fleets,
};
use stampede_core::error::InvalidInput;
use stampede_core::field::{ChoiceSet, PanelParams};
use stampede_core::panels::Panel;
use stampede_core::panels::State;
use stampede_core::panels::backoff::{PRESETS, key_numbers};

use super::backoff::doubling;
use super::backoff_fleet::assert_consistent;

// ---------------------------------------------------------------------------
// Parameters and bad input

#[test]
fn the_panel_defaults_run_and_settle() {
    let params = BackoffParams {
        dependency: DependencyModel::Unlimited,
        ..Default::default()
    };
    let result = run(&params, 1).unwrap();
    for strategy in &result.fleets {
        assert_eq!(strategy.bands.len(), 8);
    }
    let strategies: Vec<RetryStrategy> = result.fleets.iter().map(|f| f.strategy).collect();
    assert_eq!(
        strategies,
        [
            RetryStrategy::Exponential,
            RetryStrategy::FullJitter,
            RetryStrategy::Decorrelated
        ]
    );
    assert_eq!(result.fleets[0].fleet.calls, 7 * 10_000);
    let mut crossed = BackoffParams {
        base: 30.0,
        cap: 5.0,
        ..params.clone()
    };
    assert_eq!(crossed.settle()[0].key, "c");
    assert_eq!(crossed.cap, 30.0);
    // A million clients with 100 retries would make 101 million calls for
    // each of the three strategies.
    let mut huge = BackoffParams {
        clients: 1_000_000,
        retries: 100,
        ..params.clone()
    };
    let notices = huge.settle();
    assert_eq!(notices[0].key, "m");
    assert!(notices[0].message.contains("3 strategies"), "{notices:?}");
    assert_eq!(huge.clients, 33_003);
    assert!(huge.settle().is_empty());
    assert!(run(&huge, 1).is_ok());
    // Alone, a strategy gets the whole budget.
    let mut alone = BackoffParams {
        clients: 1_000_000,
        retries: 100,
        compared: ChoiceSet::new([]),
        ..params
    };
    alone.settle();
    assert_eq!(alone.clients, 99_009);
    // Under capacity the jittered fleets are simulated as at most 10,000
    // clients, so a million fit.
    let mut capacity = BackoffParams {
        clients: 1_000_000,
        retries: 100,
        ..BackoffParams::default()
    };
    assert!(capacity.settle().is_empty());
    assert_eq!(capacity.independent_strategies(), 0);
}

fn field<T>(result: Result<T, InvalidInput>) -> &'static str {
    result.map(|_| ()).unwrap_err().field
}

#[test]
fn bad_input_names_its_field() {
    let new = |base, factor, cap| Backoff::new(RetryStrategy::FullJitter, base, factor, cap);
    assert_eq!(field(new(f64::NAN, 2.0, 60.0)), "base");
    assert_eq!(field(new(-1.0, 2.0, 60.0)), "base");
    assert_eq!(field(new(0.0, 2.0, 60.0)), "base");
    assert_eq!(field(new(1e9, 2.0, 1e9)), "base");
    assert_eq!(field(new(1.0, 0.5, 60.0)), "factor");
    assert_eq!(field(new(1.0, f64::INFINITY, 60.0)), "factor");
    assert_eq!(field(new(1.0, 2.0, f64::NAN)), "cap");
    assert_eq!(field(new(10.0, 2.0, 5.0)), "cap");

    let good = doubling(RetryStrategy::FullJitter);
    assert_eq!(field(simulate_fleet(&good, 0, 60.0, 5, 1)), "clients");
    assert_eq!(
        field(simulate_fleet(&good, 1_000_001, 60.0, 5, 1)),
        "clients"
    );
    assert_eq!(field(simulate_fleet(&good, 10, f64::NAN, 5, 1)), "outage");
    assert_eq!(field(simulate_fleet(&good, 10, -1.0, 5, 1)), "outage");
    assert_eq!(field(simulate_fleet(&good, 10, 1e12, 5, 1)), "outage");
    assert_eq!(field(simulate_fleet(&good, 10, 60.0, 101, 1)), "retries");
    assert_eq!(
        field(simulate_fleet(&good, 200_000, 60.0, 50, 1)),
        "clients × (retries + 1) × strategies"
    );
    // 100,000 clients making 51 calls fit once, not twice.
    assert!(simulate_fleets(&[good], 100_000, 60.0, 50, 1).is_ok());
    assert_eq!(
        field(simulate_fleets(&[good, good], 100_000, 60.0, 50, 1)),
        "clients × (retries + 1) × strategies"
    );
    assert_eq!(field(simulate_fleets(&[], 10, 60.0, 5, 1)), "strategies");
    assert_eq!(field(delay_bands(&good, 101, 10, 1)), "retries");
    assert_eq!(field(delay_bands(&good, 5, 0, 1)), "draws");
    assert_eq!(field(delay_bands(&good, 5, 100_001, 1)), "draws");
}

fn any_number() -> impl proptest::strategy::Strategy<Value = f64> {
    prop_oneof![
        any::<f64>(),
        -1.0..100.0f64,
        0.001..4_000.0f64,
        Just(0.0),
        Just(f64::NAN),
        Just(f64::INFINITY),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_parameters_never_panic(
        strategy in prop::sample::select(RetryStrategy::ALL),
        base in any_number(),
        factor in any_number(),
        cap in any_number(),
        outage in any_number(),
        clients in prop_oneof![0..300u32, Just(1_000_001)],
        retries in 0..110u32,
        seed in any::<u64>(),
    ) {
        let Ok(backoff) = Backoff::new(strategy, base, factor, cap) else { return Ok(()) };
        if let Ok(fleet) = simulate_fleet(&backoff, clients, outage, retries, seed) {
            assert_consistent(&fleet, clients, outage);
        }
        if let Ok(bands) = delay_bands(&backoff, retries, 50, seed) {
            prop_assert_eq!(bands.len(), retries as usize);
            for band in bands {
                prop_assert!(band.min <= band.median && band.median <= band.p90 && band.p90 <= band.max);
                prop_assert!(band.min >= 0.0 && band.max.is_finite());
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Comparing strategies

/// The state a Backoff URL with `query` decodes to, and the notices'
/// messages by key.
pub(crate) fn decoded(query: &str) -> (BackoffParams, Vec<String>) {
    let (state, notices) = State::from_query(&format!("p=backoff&{query}"));
    let messages = notices.iter().map(ToString::to_string).collect();
    (state.backoff, messages)
}

fn compared(params: &BackoffParams) -> &[RetryStrategy] {
    params.compared.as_slice()
}

#[test]
fn the_compared_strategies_are_read_as_a_list_of_slugs() {
    let (params, notices) = decoded("vs=%20equal%20,,sidekiq,");
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(
        compared(&params),
        [RetryStrategy::EqualJitter, RetryStrategy::Sidekiq]
    );
    let (params, notices) = decoded("vs=");
    assert!(notices.is_empty() && compared(&params).is_empty());
    // The default compares two jittered strategies and writes them out.
    let default = State::new(Panel::Backoff).to_query();
    assert!(default.contains("&vs=full,decorrelated&"), "{default}");
}

#[test]
fn an_unknown_slug_or_too_many_refuse_the_whole_list() {
    let (params, notices) = decoded("vs=full,jittery");
    assert_eq!(
        compared(&params),
        [RetryStrategy::FullJitter, RetryStrategy::Decorrelated]
    );
    assert_eq!(notices.len(), 1);
    assert!(
        notices[0].starts_with("Compare with (vs): \"jittery\" is not one of constant, linear,"),
        "{notices:?}"
    );
    let (params, notices) = decoded("vs=linear,equal,sidekiq,aws,celery");
    assert_eq!(
        compared(&params),
        [RetryStrategy::FullJitter, RetryStrategy::Decorrelated]
    );
    assert_eq!(
        notices,
        ["Compare with (vs): lists 5 options, and at most 4 fit; using full,decorrelated"]
    );
}

#[test]
fn a_repeated_slug_is_kept_once_with_a_notice() {
    let (params, notices) = decoded("vs=aws,celery,aws,aws");
    assert_eq!(
        compared(&params),
        [RetryStrategy::Aws, RetryStrategy::Celery]
    );
    assert_eq!(
        notices,
        ["Compare with (vs): lists aws more than once; using aws,celery"]
    );
    // Repeats do not count towards the three.
    let (params, notices) = decoded("vs=full,full,equal,linear");
    assert_eq!(compared(&params).len(), 3);
    assert_eq!(notices.len(), 1);
}

#[test]
fn the_main_strategy_in_the_list_is_drawn_once_as_the_main_one() {
    let (params, notices) = decoded("st=full&vs=equal,full");
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(
        params.strategies(),
        [RetryStrategy::FullJitter, RetryStrategy::EqualJitter]
    );
    let result = run(&params, 1).unwrap();
    let labels: Vec<&str> = result.fleets.iter().map(|f| f.label).collect();
    assert_eq!(labels, ["Full jitter", "Equal jitter"]);
    // It still takes one of the three places in the list.
    let (params, _) = decoded("st=full&vs=full,equal,linear");
    assert_eq!(params.strategies().len(), 3);
    // And the call budget counts the strategies drawn, not the ones listed.
    let (params, notices) = decoded("st=full&vs=full&m=1000000&k=100&dep=unlimited");
    assert_eq!((params.clients, notices.len()), (99_009, 1));
}

#[test]
fn compared_fleets_share_seed_and_bins() {
    // Sidekiq's fleet succeeds at its 7th retry, after about 2,500 s, which
    // takes 2 s bins; the exponential one gives up at 423 s and alone would
    // get 1 s bins. Together both get the wider bins, and each is the fleet
    // it would be alone, binned alike.
    let (params, _) = decoded("st=exponential&vs=sidekiq&d=1500&k=12&m=2000&dep=unlimited");
    let result = run(&params, 3).unwrap();
    let [plain, sidekiq] = &result.fleets[..] else {
        panic!("{} fleets", result.fleets.len());
    };
    let alone = |strategy| simulate_fleet(&doubling(strategy), 2_000, 1500.0, 12, 3).unwrap();
    let (plain_alone, sidekiq_alone) = (
        alone(RetryStrategy::Exponential),
        alone(RetryStrategy::Sidekiq),
    );
    assert_eq!(plain_alone.timeline.bin_seconds, 1.0);
    assert_eq!(sidekiq_alone.timeline.bin_seconds, 2.0);
    for strategy in [plain, sidekiq] {
        assert_eq!(strategy.fleet.timeline.bin_seconds, 2.0);
        assert_eq!(
            strategy.fleet.timeline.calls.len(),
            sidekiq_alone.timeline.calls.len()
        );
    }
    assert_eq!(sidekiq.fleet, sidekiq_alone);
    assert_eq!(plain.fleet.calls, plain_alone.calls);
    assert_eq!(plain.fleet.last_success, plain_alone.last_success);
    // Calls at 0, 1, 3, 7, 15, 31, 63 s and every 60 s after, the last at
    // 423 s: 2 s bins pair 0 with 1, and 422 s begins bin 211.
    assert_eq!(plain.fleet.timeline.calls[0], 4_000);
    assert_eq!(plain.fleet.timeline.calls[211], 2_000);
    assert_eq!(plain.fleet.gave_up, 2_000);
}

// ---------------------------------------------------------------------------
// Key numbers

/// A key number as (key, value, theory).
type Shown = (&'static str, String, Option<String>);

/// The run for `query` and `seed`, and its key numbers.
fn numbers(query: &str, seed: u64) -> (BackoffRun, Vec<Shown>) {
    let (params, _) = decoded(query);
    let result = run(&params, seed).unwrap();
    let numbers = key_numbers(&params, &result)
        .into_iter()
        .map(|number| (number.key, number.value, number.theory))
        .collect();
    (result, numbers)
}

#[test]
fn without_jitter_the_key_numbers_are_exact() {
    // Every client calls at 0, 1, 3, 7, 15, 31 and 63 s; the dependency is
    // back at 60 s and serves every call.
    let query = "dep=unlimited&vs=";
    let (_, numbers) = numbers(query, 1);
    let waits = "1 s, 2 s, 4 s, 8 s, 16 s, 32 s, 1 min, 1 min";
    let expected = [
        ("waits", waits.into(), Some(format!("e(n): {waits}"))),
        (
            "peak",
            "10,000 /s at 1 min 3 s".into(),
            Some("all M in one bin: 10,000 /s".into()),
        ),
        ("load", "no capacity limit".into(), None),
        (
            "healthy",
            "1 min".into(),
            Some("at the earliest, the outage's end D = 1 min".into()),
        ),
        ("calls", "70,000".into(), None),
        (
            "wasted",
            "60,000: 60,000 in the outage, 0 over capacity".into(),
            None,
        ),
        (
            "succeeded",
            "100 % succeeded (10,000 of 10,000)".into(),
            None,
        ),
        ("recovered", "1 min 3 s".into(), None),
        ("recovered-99", "1 min 3 s".into(), None),
        (
            "success-time",
            "1 min 3 s / 1 min 3 s over the 10,000 that succeeded".into(),
            None,
        ),
        ("completion", "1 min 3 s / 1 min 3 s".into(), None),
        ("gave-up", "0".into(), None),
        (
            "verdict",
            "Exponential, no jitter is the only strategy drawn: healthy again at D = 1 min, \
             as it serves every call."
                .into(),
            None,
        ),
    ];
    assert_eq!(numbers, expected);
    // The other seeds draw the same, since nothing is random.
    assert_eq!(self::numbers(query, 99).1, expected);
}

#[test]
fn full_jitter_waits_half_the_exponential_wait_in_the_median() {
    let (result, numbers) = numbers("st=full&k=12", 5);
    let theory = "e(n)/2: 0.5 s, 1 s, 2 s, 4 s, 8 s, 16 s, 30 s, 30 s, 30 s, 30 s, …";
    assert_eq!(numbers[0].2.as_deref(), Some(theory));
    // The median of 10,000 draws of U(0, e) has sd e / 200 (see the bands'
    // test); four of them bound it.
    for band in &result.fleets[0].bands {
        let half = exponential(1.0, 2.0, 60.0, band.retry) / 2.0;
        assert!((band.median - half).abs() < 4.0 * half / 100.0, "{band:?}");
    }
    // A jittered peak has no closed form here, so no theory beside it.
    assert_eq!(numbers[1].2, None);
}

#[test]
fn a_fleet_that_gives_up_has_no_peak_and_never_recovers() {
    // The AWS SDK's eight waits add up to at most 0.05·(2⁸ − 1) = 12.75 s.
    let (_, numbers) = numbers("st=aws&vs=", 1);
    let value = |key| {
        numbers
            .iter()
            .find(|number| number.0 == key)
            .map(|number| number.1.as_str())
    };
    assert_eq!(value("peak"), Some("none: no call from D on"));
    assert_eq!(value("load"), Some("none: no call from D on"));
    assert_eq!(value("recovered"), Some("never"));
    assert_eq!(
        value("recovered-99"),
        Some("0 % succeeded (0 of 10,000); the 99 % mark was never reached")
    );
    assert_eq!(value("success-time"), Some("none succeeded"));
    assert_eq!(value("gave-up"), Some("10,000"));
}

#[test]
fn short_of_99_percent_the_key_numbers_say_how_many_succeeded() {
    let (_, numbers) = numbers("st=full&vs=", 1);
    let value = |key| {
        numbers
            .iter()
            .find(|number| number.0 == key)
            .map(|number| number.1.clone())
    };
    assert_eq!(
        value("recovered-99").as_deref(),
        Some("87.2 % succeeded (8,725 of 10,000); the 99 % mark was never reached")
    );
    assert_eq!(value("recovered").as_deref(), Some("1 min 59 s"));
    assert_eq!(
        value("success-time").as_deref(),
        Some("1 min 18 s / 1 min 52 s over the 8,725 that succeeded")
    );
}

// ---------------------------------------------------------------------------
// Presets

/// The run a preset shows with seed 1, the page's default.
fn preset_run(slug: &str) -> BackoffRun {
    let preset = PRESETS.iter().find(|preset| preset.slug == slug).unwrap();
    let (state, notices) = preset.state(Panel::Backoff, 1);
    assert!(notices.is_empty(), "{slug}: {notices:?}");
    run(&state.backoff, state.seed).unwrap()
}

fn fleet_of(run: &BackoffRun, strategy: RetryStrategy) -> &Fleet {
    &run.fleets
        .iter()
        .find(|f| f.strategy == strategy)
        .unwrap()
        .fleet
}

/// The key numbers of `strategy`'s fleet in the run of preset `slug` at
/// seed 1, by key: the preset's parameters with that strategy as the main
/// one, as the key numbers describe the main fleet.
fn preset_numbers(slug: &str, strategy: RetryStrategy) -> Vec<(&'static str, String)> {
    let preset = PRESETS.iter().find(|preset| preset.slug == slug).unwrap();
    let (state, notices) = preset.state(Panel::Backoff, 1);
    assert!(notices.is_empty(), "{slug}: {notices:?}");
    let params = BackoffParams {
        strategy,
        ..state.backoff
    };
    let result = run(&params, state.seed).unwrap();
    let numbers = key_numbers(&params, &result);
    numbers.into_iter().map(|n| (n.key, n.value)).collect()
}

/// Asserts that each (key, value) is among `numbers`, and that the lesson of
/// `slug` quotes `quoted`.
fn assert_shows(slug: &str, strategy: RetryStrategy, shown: &[(&str, &str)], quoted: &[&str]) {
    let numbers = preset_numbers(slug, strategy);
    for (key, value) in shown {
        let found = numbers.iter().find(|number| number.0 == *key);
        assert_eq!(
            found.map(|number| number.1.as_str()),
            Some(*value),
            "{slug}, {strategy:?}, {key}"
        );
    }
    let lesson = PRESETS.iter().find(|p| p.slug == slug).unwrap().lesson;
    for quote in quoted {
        assert!(
            lesson.contains(quote),
            "{slug}: {quote:?} not in {lesson:?}"
        );
    }
}

#[test]
fn the_presets_come_in_the_order_of_their_lessons() {
    let slugs: Vec<&str> = PRESETS.iter().map(|preset| preset.slug).collect();
    assert_eq!(
        slugs,
        [
            "no-jitter",
            "metastable",
            "jitter-kinds",
            "sidekiq-25",
            "libraries",
            "retry-quota",
            "circuit-breaker"
        ]
    );
}

#[test]
fn the_herd_presets_show_the_outage_outlasted() {
    assert_shows(
        "no-jitter",
        RetryStrategy::Exponential,
        &[
            ("peak", "10,000 /s at 1 min 3 s"),
            ("healthy", "1 min"),
            ("waits", "1 s, 2 s, 4 s, 8 s, 16 s, 32 s, 1 min, 1 min"),
        ],
        &["10,000 calls", "60 s", "1 min 3 s"],
    );

    let metastable = preset_run("metastable");
    let herd = fleet_of(&metastable, RetryStrategy::Exponential);
    // 1,000 of the 10,000 served at each return, the rest refused.
    for (second, calls) in [(63, 10_000), (123, 9_000), (183, 8_000)] {
        assert_eq!(herd.timeline.calls[second], calls);
    }
    assert_shows(
        "metastable",
        RetryStrategy::Exponential,
        &[
            ("peak", "10,000 /s at 1 min 3 s"),
            ("load", "10× the capacity of 1,000 /s"),
            ("healthy", "3 min 4 s"),
            ("gave-up", "7,000"),
        ],
        &[
            "1,000 calls",
            "10,000 clients",
            "1 min 3 s, 10× capacity",
            "9,000",
            "2 min 3 s and 3 min 3 s",
            "3 min 4 s",
            "7,000",
        ],
    );
    assert_shows(
        "metastable",
        RetryStrategy::FullJitter,
        &[
            ("load", "0.295× the capacity of 1,000 /s"),
            ("healthy", "1 min"),
        ],
        &["0.295× capacity", "healthy at 1 min"],
    );
}

#[test]
fn the_jitter_and_library_presets_show_what_their_lessons_say() {
    for (strategy, load, gave_up) in [
        (RetryStrategy::FullJitter, "0.295×", "1,275"),
        (RetryStrategy::EqualJitter, "0.389×", "0"),
        (RetryStrategy::Decorrelated, "0.263×", "4,232"),
    ] {
        let load = format!("{load} the capacity of 1,000 /s");
        assert_shows(
            "jitter-kinds",
            strategy,
            &[("load", &load), ("healthy", "1 min"), ("gave-up", gave_up)],
            &["0.263×", "0.389×", "1 min", "8 retries", "1,275", "4,232"],
        );
    }

    // Sidekiq's clients all succeed, within minutes of each other.
    let sidekiq = preset_run("sidekiq-25");
    let fleet = fleet_of(&sidekiq, RetryStrategy::Sidekiq);
    let spread = fleet.last_success.unwrap() - fleet.success_p50.unwrap();
    assert!(spread < 15.0 * 60.0, "{spread}");
    assert_shows(
        "sidekiq-25",
        RetryStrategy::Sidekiq,
        &[("load", "0.07× the capacity of 1,000 /s"), ("gave-up", "0")],
        &["6-hour", "0.07× capacity"],
    );
    assert_shows(
        "sidekiq-25",
        RetryStrategy::ActiveJob,
        &[("load", "0.015× the capacity of 1,000 /s")],
        &["over four times", "0.015×"],
    );

    // The AWS SDK gives up within 12.75 s.
    let libraries = preset_run("libraries");
    assert!(fleet_of(&libraries, RetryStrategy::Aws).completion_p99 <= 12.75);
    assert_shows(
        "libraries",
        RetryStrategy::Aws,
        &[("gave-up", "10,000")],
        &["12.75 s", "8 retries", "10,000 clients"],
    );
    assert_shows(
        "libraries",
        RetryStrategy::Sidekiq,
        &[("gave-up", "0"), ("recovered", "1 min 58 s")],
        &[],
    );
    assert_shows(
        "libraries",
        RetryStrategy::ActiveJob,
        &[
            ("gave-up", "0"),
            ("recovered", "1 min 59 s"),
            ("load", "0.881× the capacity of 1,000 /s"),
        ],
        &["by 1 min 59 s", "0.881× capacity"],
    );
}

#[test]
fn the_shared_budget_presets_show_what_their_lessons_say() {
    // ⌊500 / 14⌋ = 35 retries.
    assert_eq!(AWS_QUOTA_CAPACITY / AWS_RETRY_COST, 35);
    assert_shows(
        "retry-quota",
        RetryStrategy::AwsQuota,
        &[
            ("calls", "10,035"),
            ("succeeded", "0 % succeeded (0 of 10,000)"),
            ("healthy", "1 s"),
        ],
        &[
            "500 tokens",
            "35 retries at 14",
            "10,000 requests",
            "1-second",
            "10,035 calls",
            "0 % succeeded",
            "healthy at 1 s",
        ],
    );
    assert_shows(
        "retry-quota",
        RetryStrategy::Aws,
        &[
            ("calls", "83,858"),
            ("load", "9.27× the capacity of 1,000 /s"),
            ("succeeded", "82.3 % succeeded (8,226 of 10,000)"),
        ],
        &["83,858 calls", "9.27× capacity", "82.3 %"],
    );

    assert_shows(
        "circuit-breaker",
        RetryStrategy::Breaker,
        &[
            (
                "wasted",
                "84,402: 31 in the outage, 1,937 over capacity, 82,434 turned away by the breaker",
            ),
            ("gave-up", "5,313"),
        ],
        &["100 calls", "82,434", "1,937", "5,313"],
    );
    assert_shows(
        "circuit-breaker",
        RetryStrategy::FullJitter,
        &[
            (
                "wasted",
                "81,306: 76,005 in the outage, 5,301 over capacity",
            ),
            ("gave-up", "3,641"),
        ],
        &["5,301", "3,641"],
    );
}
