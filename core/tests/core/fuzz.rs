//! The URL codec under hostile input: any byte string decodes to valid,
//! settled parameters and notices that name a real key, never a panic; what
//! it decodes writes back out to the same state; and every panel's settled
//! parameters pass the panel's own checks and caps.
//!
//! Case counts are fixed so the file stays within seconds in a debug build;
//! the runs in the last property shrink each panel's sizes first, since the
//! caps themselves are checked by formula (full-size runs belong in the
//! criterion benches).

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use stampede_core::field::{Field, Kind};
use stampede_core::panels::Panel;
use stampede_core::panels::State;
use stampede_core::panels::run;
use stampede_core::panels::state::RESERVED_KEYS;
use stampede_core::queue::{self, MAX_TOTAL_JOBS};
use stampede_core::{backoff, poisson, slots};

/// Every key any panel uses, then the state's own.
fn all_keys() -> Vec<&'static str> {
    let mut keys: Vec<&str> = Panel::ALL
        .into_iter()
        .flat_map(|panel| {
            State::new(panel)
                .params(panel)
                .fields()
                .iter()
                .map(|f| f.key)
        })
        .chain(RESERVED_KEYS)
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

fn all_fields() -> Vec<Field> {
    Panel::ALL
        .into_iter()
        .flat_map(|panel| State::new(panel).params(panel).fields().iter().copied())
        .collect()
}

/// Numbers at and past every edge a parser or a cast can trip on.
fn hostile_number() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "NaN",
            "-NaN",
            "inf",
            "-inf",
            "infinity",
            "1e308",
            "-1e308",
            "1e999",
            "1e-400",
            "-0",
            "0",
            "-1",
            "4294967295",
            "4294967296",
            "18446744073709551616",
            "99999999999999999999999999999",
            "0.5",
            "1.5e6",
            " 7 ",
            "+3",
            "0x10",
            "3,000",
            "1_000",
            "5abc",
            "",
        ])
        .prop_map(String::from),
        any::<f64>().prop_map(|x| x.to_string()),
        any::<i64>().prop_map(|x| x.to_string()),
        (-2e6..2e6f64).prop_map(|x| x.to_string()),
        (0u32..2_000_000).prop_map(|x| x.to_string()),
    ]
}

/// A value `field` accepts, or a near miss: its options, repeated or
/// joined, its example text, or its example stretched past its length.
fn near_value(field: Field) -> BoxedStrategy<String> {
    match field.kind {
        Kind::Number { min, max, .. } => prop_oneof![
            (min..=max).prop_map(|x| x.to_string()),
            Just(min.to_string()),
            Just(max.to_string()),
            Just((max * 10.0).to_string()),
            Just((min - 1.0).to_string()),
        ]
        .boxed(),
        Kind::Choice(options) | Kind::Choices { options, .. } => {
            let slugs: Vec<&'static str> = options.iter().map(|o| o.slug).collect();
            prop::collection::vec(prop::sample::select(slugs), 0..8)
                .prop_map(|picked| picked.join(","))
                .boxed()
        }
        Kind::List {
            link_chars: max_len,
            example,
            ..
        }
        | Kind::Text { max_len, example } => prop_oneof![
            Just(example.to_string()),
            (1..=max_len / example.len().max(1) + 2)
                .prop_map(move |times| vec![example; times].join(",")),
            "[0-9@.,\\- ]{0,200}",
            "[0-9]{1,3}@[0-9]{1,2}\\.[0-9]{1,17}-[0-9]{1,2}\\.[0-9]{1,17}",
        ]
        .boxed(),
    }
}

/// Text that percent-decoding, splitting and trimming can stumble over.
fn junk_text() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,40}",
        "[,%&=+ ]{0,20}",
        "(%[0-9A-Fa-f]{2}|%[g-z]{0,2}|%)+",
        "[a-z0-9,@.-]{0,300}",
        Just("1,".repeat(1_100)),
        Just("%FF%FE%00".to_string()),
        Just(",,,,".to_string()),
    ]
}

/// A key and its value: mostly a field of `panel` (any field when the panel
/// is unknown) with a value for it, else any key, the state's own or junk,
/// with a value for some other field.
fn any_pair(panel: Option<Panel>) -> impl Strategy<Value = (String, String)> {
    let own: Vec<Field> = match panel {
        Some(panel) => State::new(panel).params(panel).fields().to_vec(),
        None => all_fields(),
    };
    let value = |field: Field| prop_oneof![near_value(field), hostile_number(), junk_text()];
    let key = prop_oneof![
        3 => prop::sample::select(all_keys()).prop_map(String::from),
        1 => "[a-z0-9%]{0,6}",
    ];
    prop_oneof![
        3 => prop::sample::select(own)
            .prop_flat_map(move |field| (Just(field.key.to_string()), value(field))),
        1 => (key, prop::sample::select(all_fields()).prop_flat_map(value)),
    ]
}

fn any_panel_slug() -> impl Strategy<Value = String> {
    let slugs: Vec<String> = Panel::ALL.iter().map(|p| p.slug().to_string()).collect();
    prop_oneof![
        4 => prop::sample::select(slugs),
        1 => prop::sample::select(vec!["", "POISSON", "queue ", "%71ueue", "nope", "hash,slots"])
            .prop_map(String::from),
    ]
}

/// A query of real and junk keys with hostile values, the panel among them
/// (sometimes twice, sometimes missing), written escaped or raw.
fn hostile_query() -> impl Strategy<Value = String> {
    any_panel_slug()
        .prop_flat_map(|panel| {
            let pairs =
                prop::collection::vec((any_pair(Panel::from_slug(&panel)), any::<bool>()), 0..30);
            (Just(panel), pairs, 0usize..32, any::<bool>())
        })
        .prop_map(|(panel, pairs, panel_at, leading_mark)| {
            let mut parts: Vec<String> = pairs
                .iter()
                .map(|((key, value), escaped)| {
                    if *escaped {
                        form_urlencoded::Serializer::new(String::new())
                            .append_pair(key, value)
                            .finish()
                    } else {
                        format!("{key}={value}")
                    }
                })
                .collect();
            if panel_at <= parts.len() {
                parts.insert(panel_at, format!("p={panel}"));
            }
            let query = parts.join("&");
            if leading_mark {
                format!("?{query}")
            } else {
                query
            }
        })
}

/// Any bytes at all, as a browser would hand over text: lossily decoded.
fn any_bytes() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<u8>(), 0..400)
        .prop_map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}

/// Decodes `query` and checks what any decoding must satisfy.
fn check_decoding(query: &str) -> Result<State, TestCaseError> {
    let (state, notices) = State::from_query(query);
    prop_assert!(state.is_valid(), "{query:?} decoded to {state:?}");
    let known: Vec<&str> = state
        .params(state.panel)
        .fields()
        .iter()
        .map(|f| f.key)
        .chain(RESERVED_KEYS)
        .collect();
    for notice in &notices {
        prop_assert!(known.contains(&notice.key), "{query:?}: {notice}");
        prop_assert!(!notice.message.is_empty(), "{query:?}: {notice:?}");
    }
    let mut resettled = state.clone();
    let left = resettled.params_mut(state.panel).settle();
    prop_assert!(left.is_empty(), "{query:?} left {left:?}");
    let written = state.to_query();
    let (again, notices) = State::from_query(&written);
    prop_assert!(
        notices.is_empty(),
        "{query:?} wrote {written:?}: {notices:?}"
    );
    prop_assert_eq!(&again, &state, "{:?} wrote {:?}", query, written);
    Ok(state)
}

/// A copy of `state` with every size that sets how long a run takes cut to
/// a few hundred, the rest as decoded.
fn shrunk(state: &State) -> State {
    let mut small = state.clone();
    small.poisson.per_day = small.poisson.per_day.min(100);
    for tenant in &mut small.poisson.extra_tenants.0 {
        tenant.per_day = tenant.per_day.min(100);
    }
    small.jitter.jobs = small.jitter.jobs.min(500);
    small.backoff.clients = small.backoff.clients.min(50);
    small.hash_spread.keys = small.hash_spread.keys.min(200);
    small.slots.accounts = small.slots.accounts.min(300);
    small
}

/// The panel's own size caps hold at full size; what else its run checks
/// holds on a shrunk copy.
fn check_panel_accepts(state: &State) -> Result<(), TestCaseError> {
    match state.panel {
        Panel::Poisson => {
            let params = &state.poisson;
            let expected = params.total_per_day() * u64::from(params.days);
            prop_assert!(expected <= poisson::MAX_EXPECTED_EVENTS, "{params:?}");
        }
        Panel::Backoff => {
            let params = &state.backoff;
            // Only the strategies simulating every client spend the budget.
            let calls = u64::from(params.clients)
                * (u64::from(params.retries) + 1)
                * params.independent_strategies();
            prop_assert!(calls <= backoff::MAX_CALLS, "{params:?}");
        }
        Panel::HashSpread => {
            let params = &state.hash_spread;
            prop_assert!(params.keys <= params.most_keys(), "{params:?}");
            prop_assert!(params.ids.0.len() as u64 <= u64::from(params.most_keys()));
        }
        Panel::Slots => {
            let params = &state.slots;
            if params.delays == slots::DelaySource::Ruby {
                prop_assert!(params.accounts <= slots::MAX_RUBY_ACCOUNTS, "{params:?}");
            }
        }
        // Jitter's only size is its job count, which its field caps.
        Panel::Jitter => {}
        // The Fleet panel's size is its text, not its URL: `run` leaves it
        // to the fleet module, whose own tests feed it hostile text.
        Panel::Fleet => return Ok(()),
        Panel::Queue => {
            let jobs = queue::estimated_jobs(&state.queue);
            prop_assert!(
                jobs.as_ref().is_ok_and(|&jobs| jobs <= MAX_TOTAL_JOBS),
                "{jobs:?} for {:?}",
                state.queue
            );
            return Ok(());
        }
    }
    let small = shrunk(state);
    let result = run::run(&small);
    prop_assert!(result.is_ok(), "{:?} for {small:?}", result.err());
    Ok(())
}

/// A fixed seed and no saved failures: the same cases on every run, so a
/// failure reproduces; a reader widening the search changes the seed.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(20_240_601),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(2_000))]

    #[test]
    fn any_bytes_decode_to_a_valid_state_that_writes_back_unchanged(query in any_bytes()) {
        check_decoding(&query)?;
    }

    #[test]
    fn hostile_values_for_real_keys_decode_to_a_valid_state(query in hostile_query()) {
        check_decoding(&query)?;
    }
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn settled_parameters_pass_their_panels_own_checks(query in hostile_query()) {
        let state = check_decoding(&query)?;
        check_panel_accepts(&state)?;
    }
}

/// The costliest URL each capped panel accepts, as measured natively, is cut
/// to fit with a notice naming the field that gave way.
#[test]
fn the_costliest_urls_are_clamped_by_name() {
    let keys = |query: &str| {
        let (state, notices) = State::from_query(query);
        let keys: Vec<&str> = notices.iter().map(|n| n.key).collect();
        (state, keys)
    };
    // Nine tenants at a million a day expect 9 million events in one day.
    let (state, named) = keys(
        "p=poisson&n=1000000&d=30&t=1000000,1000000,1000000,1000000,1000000,1000000,1000000,1000000",
    );
    assert_eq!(named, ["t", "d"]);
    let params = &state.poisson;
    assert!(params.total_per_day() * u64::from(params.days) <= poisson::MAX_EXPECTED_EVENTS);
    assert!(params.extra_tenants.0.iter().all(|t| t.per_day == 125_000));
    // Hours to 16 places would write out far past the field's length.
    let long = ["1@0.1234567890123456-0.9876543210987654"; 5].join(",");
    let (state, named) = keys(&format!("p=poisson&t={long}"));
    assert_eq!(named, ["t"]);
    assert!(state.is_valid());

    let (state, named) = keys("p=hash&n=1000000&fn=murmur&fn2=farm&bw=60&w=604800");
    assert_eq!(named, ["n"]);
    assert_eq!(
        state.hash_spread.keys,
        stampede_core::hash_spread::MAX_PLACED_KEYS
    );

    // A week-long outage and 30 retries multiply the first attempts 31-fold;
    // the run would refuse the lanes, so the cap counts the retries.
    let (state, named) = keys(
        "p=queue&n=1000000&cyc=60&hz=2160&st=herd&by=retries&rt=full&rvs=exponential,constant,equal&od=10080&os=0&rk=30&w=10000&wmax=10000&rb=0.01&rc=0.01",
    );
    assert_eq!(named, ["hz", "n"]);
    let jobs = queue::estimated_jobs(&state.queue).unwrap();
    assert!(jobs <= MAX_TOTAL_JOBS, "{jobs}");
    // Ten thousand workers on 10 ms jobs: the costliest jobs to simulate.
    let (state, named) = keys(
        "p=queue&n=1000000&cyc=10080&hz=2160&st=jitter&vs=&w=10000&wmax=10000&dm=0.01&d90=7200",
    );
    assert_eq!(named, ["hz"]);
    let jobs = queue::estimated_jobs(&state.queue).unwrap();
    assert!(jobs <= MAX_TOTAL_JOBS, "{jobs}");
}
