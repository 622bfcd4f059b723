//! Jitter: random delays that break up a bulk enqueue.

use leptos::prelude::*;
use stampede_core::units::{count, duration, significant};

use super::{coming, key_number};
use crate::store::Store;

pub fn explanation() -> impl IntoView {
    view! {
        <p class="explain">
            "Enqueue N jobs at the same moment and they all reach the database or
            API at once: a thundering herd. Give each job its own random delay,
            drawn uniformly between a min and a max, and the herd becomes a
            steady stream of N / (max − min) jobs per minute; the last one runs
            by the max delay. A fixed delay for every job only moves the herd
            later."
        </p>
    }
}

pub fn figure() -> impl IntoView {
    let state = Store::get().state;
    let params = move || state.with(|s| s.jitter.clone());
    view! {
        <dl class="key-numbers">
            {key_number(
                "flat-rate",
                "Rate with uniform jitter",
                move || format!("{} /min", significant(params().flat_rate_per_minute(), 3)),
                "N / (max − min)",
            )}
            {key_number(
                "herd",
                "Without jitter",
                move || format!("{} at once", count(u64::from(params().jobs))),
                "all N at t0",
            )}
            {key_number(
                "last-job",
                "Last job runs by",
                move || duration(params().max_delay * 60.0),
                "t0 + max",
            )}
        </dl>
        {coming("arrivals per second at the downstream against its rate limit, with and without jitter, and the cumulative completion curve.")}
    }
}
