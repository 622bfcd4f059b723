//! Slots: a cycle cut into gcd(cycle, buckets) equal slots.

use leptos::prelude::*;
use stampede_core::units::{count, duration};

use super::{coming, key_number};
use crate::store::Store;

pub fn explanation() -> impl IntoView {
    view! {
        <p class="explain">
            "Ids fall into a fixed number of buckets, for example by their last
            bytes. To run every bucket once per cycle, with each slot holding
            the same number of buckets and lasting a whole number of seconds,
            the number of slots must divide both the cycle and the bucket count:
            slots = gcd(cycle seconds, buckets)."
        </p>
    }
}

pub fn figure() -> impl IntoView {
    let state = Store::get().state;
    let params = move || state.with(|s| s.slots.clone());
    view! {
        <dl class="key-numbers">
            {key_number(
                "slots",
                "Slots",
                move || {
                    let p = params();
                    format!(
                        "gcd({}, {}) = {}",
                        count(u64::from(p.cycle)),
                        count(u64::from(p.buckets)),
                        count(u64::from(p.slot_count())),
                    )
                },
                "gcd(cycle, buckets)",
            )}
            {key_number(
                "slot-length",
                "Slot length",
                move || duration(f64::from(params().slot_seconds())),
                "cycle / slots",
            )}
            {key_number(
                "buckets-per-slot",
                "Buckets per slot",
                move || count(u64::from(params().buckets_per_slot())),
                "buckets / slots",
            )}
        </dl>
        {coming("the cycle drawn as a donut of slots, the bucket of each id, and reciprocal job kinds kept apart.")}
    }
}
