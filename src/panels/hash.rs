//! Hash spread: each task's offset in the window, derived from its id.

use leptos::prelude::*;
use stampede_core::units::{count, duration, significant};

use super::{coming, key_number};
use crate::store::Store;

pub fn explanation() -> impl IntoView {
    view! {
        <p class="explain">
            "Instead of a random delay, a task can take its offset from its own
            id: offset = hash(id) mod window. The same id always lands in the
            same place, on every run and every machine, and a good hash spreads
            many ids evenly, about one every window / N seconds. Adding ids
            does not move the ones already placed."
        </p>
    }
}

pub fn figure() -> impl IntoView {
    let state = Store::get().state;
    let params = move || state.with(|s| s.hash.clone());
    view! {
        <dl class="key-numbers">
            {key_number(
                "spacing",
                "Mean spacing",
                move || duration(params().mean_spacing_seconds()),
                "window / N",
            )}
            {key_number(
                "per-hour",
                "Expected ids per hour",
                move || significant(3600.0 / params().mean_spacing_seconds(), 3),
                "N · 3,600 s / window",
            )}
            {key_number(
                "keys",
                "Ids placed",
                move || count(u64::from(params().key_count())),
                "N",
            )}
        </dl>
        {coming("the offsets of generated or pasted ids under several hashes, their spread per bucket with a uniformity test, and what moves when ids are added.")}
    }
}
