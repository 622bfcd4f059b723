//! Backoff: how long clients wait before retrying, and why they need jitter.

use leptos::prelude::*;
use stampede_core::backoff::{self, BackoffRun};
use stampede_core::units::{count, duration, significant};

use super::{coming, key_number};
use crate::store::Store;

/// The waits listed one by one; a longer run ends in "…".
const LISTED_WAITS: usize = 10;

pub fn explanation() -> impl IntoView {
    view! {
        <p class="explain">
            "A client whose call failed waits before it tries again, and waits
            longer after each failure so a struggling service gets room to
            recover. Exponential backoff waits min(cap, base · factor^(n−1))
            before retry n. Full jitter waits a random share of that, equal
            jitter at least half of it, and decorrelated jitter a random time
            between the base and three times its previous wait. The presets
            follow Sidekiq, Celery, Active Job and the AWS SDK, each with its
            own formula and constants."
        </p>
        <p class="explain">
            "M clients fail together when a dependency goes down for D seconds.
            Without jitter they also wait together, so every retry reaches the
            dependency as a spike of all M calls at once; jitter spreads them
            out."
        </p>
    }
}

pub fn figure() -> impl IntoView {
    let state = Store::get().state;
    let run = Memo::new(move |_| state.with(|s| backoff::run(&s.backoff, s.seed)));
    // Parameters come settled from the store, so an error here is a bug
    // worth showing rather than hiding.
    let shown = move |figure: fn(&BackoffRun) -> String| {
        move || {
            run.with(|run| match run {
                Ok(run) => figure(run),
                Err(error) => error.to_string(),
            })
        }
    };
    view! {
        <dl class="key-numbers">
            {key_number(
                "waits",
                "Median wait before each retry",
                shown(|run| {
                    let mut waits: Vec<String> = run
                        .bands
                        .iter()
                        .take(LISTED_WAITS)
                        .map(|band| duration(band.median))
                        .collect();
                    if run.bands.len() > LISTED_WAITS {
                        waits.push("…".into());
                    }
                    waits.join(", ")
                }),
                "median of 10,000 draws per retry",
            )}
            {key_number(
                "peak",
                "Peak calls per second once back",
                shown(|run| {
                    let peak = run.fleet.peak_after_outage;
                    format!("{} /s at {}", significant(peak.per_second, 3), duration(peak.at))
                }),
                "busiest bin from D on; all M at once without jitter",
            )}
            {key_number(
                "calls",
                "Calls in all",
                shown(|run| count(run.fleet.calls)),
                "first calls plus retries",
            )}
            {key_number(
                "recovered",
                "Last client succeeds at",
                shown(|run| run.fleet.last_success.map_or("never".into(), duration)),
                "first call at or after D, for the slowest client",
            )}
            {key_number(
                "recovered-99",
                "99 % succeeded by",
                shown(|run| run.fleet.success_99.map_or("never".into(), duration)),
                "the ⌈0.99 · M⌉-th success",
            )}
            {key_number(
                "completion",
                "Clients done, p50 / p99",
                shown(|run| {
                    format!(
                        "{} / {}",
                        duration(run.fleet.completion_p50),
                        duration(run.fleet.completion_p99)
                    )
                }),
                "when a client stops calling",
            )}
            {key_number(
                "gave-up",
                "Clients that gave up",
                shown(|run| count(u64::from(run.fleet.gave_up))),
                "every allowed retry came before D",
            )}
        </dl>
        {coming("calls per second over time for the fleet, and each retry's delay band (min, median, p90, max).")}
    }
}
