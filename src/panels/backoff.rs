//! Backoff: how long clients wait before retrying, and why they need jitter.

use leptos::prelude::*;
use stampede_core::units::duration;

use super::{coming, key_number};
use crate::store::Store;

pub fn explanation() -> impl IntoView {
    view! {
        <p class="explain">
            "A client whose call failed waits before it tries again, and waits
            longer after each failure so a struggling service gets room to
            recover. Capped exponential backoff waits min(cap, base · 2^(k−1))
            before retry k. Without jitter, every client that failed together
            retries together, and the outage returns in waves."
        </p>
    }
}

pub fn figure() -> impl IntoView {
    let state = Store::get().state;
    let params = move || state.with(|s| s.backoff.clone());
    view! {
        <dl class="key-numbers">
            {key_number(
                "waits",
                "Waits before each retry",
                move || {
                    let waits: Vec<String> = params().capped_delays().into_iter().map(duration).collect();
                    waits.join(", ")
                },
                "min(cap, base · 2^(k−1))",
            )}
            {key_number(
                "capped-at",
                "Cap reached at",
                move || match params().first_capped_attempt() {
                    Some(attempt) => format!("retry {attempt}"),
                    None => "never".to_string(),
                },
                "first k with base · 2^(k−1) ≥ cap",
            )}
            {key_number(
                "total-wait",
                "Total wait, all retries",
                move || duration(params().capped_delays().iter().sum()),
                "sum of the waits",
            )}
        </dl>
        {coming("a fleet's calls per second after an outage under several strategies, and the spread of each retry's delay.")}
    }
}
