//! Every speed-up gives what its plain run gives, whatever came before: a
//! reader's session on the panel through the speed-up (a field moved each
//! step to a random place on its track, now and then a new seed, idle
//! moments readying ahead), each step checked against the plain run of
//! the same parameters. Written once, for any panel and its speed-up.

use std::fmt::Debug;

use proptest::prelude::*;
use proptest::sample::Index;
use stampede_core::field::{Field, Kind};
use stampede_core::panels::backoff::BackoffPanel;
use stampede_core::panels::hash_spread::HashSpreadPanel;
use stampede_core::panels::jitter::JitterPanel;
use stampede_core::panels::poisson::PoissonPanel;
use stampede_core::panels::slots::SlotsPanel;
use stampede_core::panels::{Panel, PanelSpec, State};
use stampede_core::speedup::Speedup;
use stampede_core::{backoff, hash_spread, jitter, poisson, slots};

/// One step of a session: the field moved and the place on its track it
/// moves to, then whether the seed changes and whether the page is idle.
#[derive(Clone, Debug)]
struct Step {
    field: Index,
    place: f64,
    new_seed: bool,
    idle: bool,
}

fn sessions() -> impl Strategy<Value = Vec<Step>> {
    let step = (
        any::<Index>(),
        0.0..1.0f64,
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.3),
    );
    // Places squared: most moves near the start of a track, where a run is
    // quick in a debug build, some anywhere on it.
    let step = step.prop_map(|(field, place, new_seed, idle)| Step {
        field,
        place: place * place,
        new_seed,
        idle,
    });
    prop::collection::vec(step, 1..7)
}

/// What `field`'s control at `place` (0 to 1) on its track writes in the
/// URL: a number where its slider puts it (log sliders spread their
/// decades), an option, a run of options; for text and lists, nothing or
/// the field's example.
fn value_at(field: &Field, place: f64) -> String {
    match field.kind {
        Kind::Number { .. } => {
            let (low, high, _) = field.slider_range().expect("a number has a slider");
            field.slider_value(low + (high - low) * place).to_string()
        }
        Kind::Choice(options) => {
            let index = ((place * options.len() as f64) as usize).min(options.len() - 1);
            options[index].slug.to_string()
        }
        Kind::Choices { options, max } => {
            let count = 1 + (place * max as f64) as usize % max;
            let first = (place * 997.0) as usize;
            let slugs = (first..first + count).map(|i| options[i % options.len()].slug);
            slugs.collect::<Vec<_>>().join(",")
        }
        Kind::Text { example, .. } | Kind::List { example, .. } => {
            (if place < 0.5 { "" } else { example }).to_string()
        }
    }
}

/// Units readied per idle moment: small, so a session readies a little at
/// a time, as a page does.
const SLICE: u32 = 5_000;

fn session_agrees<P, S>(panel: Panel, session: &[Step]) -> Result<(), TestCaseError>
where
    P: PanelSpec,
    S: Speedup<Params = P::Params, Run = P::Run>,
    P::Run: Debug,
{
    let mut state = State::default();
    let mut speedup = S::default();
    for step in session {
        let field = step.field.get(P::FIELDS);
        state.set_param(panel, field.key, &value_at(field, step.place));
        state.settle(panel);
        if step.new_seed {
            state.seed += 1;
        }
        let params = P::params(&state);
        // Compared as printed: a run with no gaps measures its quantiles
        // as NaN, which equals nothing, and `{:?}` tells every other f64
        // apart exactly.
        prop_assert_eq!(
            format!("{:?}", speedup.run(params, state.seed)),
            format!("{:?}", S::plain(params, state.seed)),
            "{} = {}, seed {}",
            field.key,
            value_at(field, step.place),
            state.seed
        );
        if step.idle {
            speedup.ready_ahead(params, state.seed, SLICE);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn poisson_speedup_gives_the_plain_runs(session in sessions()) {
        session_agrees::<PoissonPanel, poisson::PoissonCache>(Panel::Poisson, &session)?;
    }

    #[test]
    fn jitter_speedup_gives_the_plain_runs(session in sessions()) {
        session_agrees::<JitterPanel, jitter::JitterCache>(Panel::Jitter, &session)?;
    }

    #[test]
    fn backoff_speedup_gives_the_plain_runs(session in sessions()) {
        session_agrees::<BackoffPanel, backoff::BackoffCache>(Panel::Backoff, &session)?;
    }

    #[test]
    fn hash_spread_speedup_gives_the_plain_runs(session in sessions()) {
        session_agrees::<HashSpreadPanel, hash_spread::HashSpreadCache>(Panel::HashSpread, &session)?;
    }

    #[test]
    fn slots_speedup_gives_the_plain_runs(session in sessions()) {
        session_agrees::<SlotsPanel, slots::SlotsCache>(Panel::Slots, &session)?;
    }
}
