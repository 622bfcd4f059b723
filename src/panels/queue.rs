//! Queue: whether the workers keep up with the arrivals.

use leptos::prelude::*;
use stampede_core::units::significant;

use super::{coming, key_number};
use crate::store::Store;

pub fn explanation() -> impl IntoView {
    view! {
        <p class="explain">
            "Jobs arrive at λ per second, each keeps a worker busy for E[S]
            seconds on average, and c workers share them. The utilization
            ρ = λ · E[S] / c is the share of time the workers are busy. Below 1
            the queue drains between bursts, and it grows fast as ρ nears 1; at
            1 or above it grows without bound."
        </p>
    }
}

pub fn figure() -> impl IntoView {
    let state = Store::get().state;
    let params = move || state.with(|s| s.queue.clone());
    view! {
        <dl class="key-numbers">
            {key_number(
                "utilization",
                "Utilization",
                move || {
                    let rho = params().utilization();
                    let verdict = if rho < 1.0 { "keeps up" } else { "falls behind" };
                    format!("ρ = {} ({verdict})", significant(rho, 3))
                },
                "λ · E[S] / c",
            )}
            {key_number(
                "offered-load",
                "Busy workers on average",
                move || {
                    let p = params();
                    significant(p.utilization() * f64::from(p.workers), 3)
                },
                "λ · E[S]",
            )}
        </dl>
        {coming("a discrete-event simulation of the workers, with the live queue depth under each scheduling strategy.")}
    }
}
