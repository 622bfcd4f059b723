//! Poisson: N events a day at random, memoryless times.

use leptos::prelude::*;
use stampede_core::units::{duration, rate};

use super::{coming, key_number};
use crate::store::Store;

pub fn explanation() -> impl IntoView {
    view! {
        <p class="explain">
            "When events happen independently at a steady average rate, the wait
            to the next one follows the exponential distribution. For N events a
            day the rate is λ = N / 86,400 s, the mean gap is 1/λ, and half of all
            gaps are shorter than ln 2 / λ: short gaps are common and long ones
            rare, so even a calm schedule has little bursts."
        </p>
        <p class="explain">
            "A daily window limits when events may run. Scaling packs all N into
            the window (λ = N / window length); deferring keeps the daily rate and
            holds events outside the window until it opens."
        </p>
    }
}

pub fn figure() -> impl IntoView {
    let state = Store::get().state;
    let params = move || state.with(|s| s.poisson.clone());
    view! {
        <dl class="key-numbers">
            {key_number(
                "rate",
                "Rate in the window",
                move || rate(params().rate_per_second()),
                "λ = N / window (scale) or N / 86,400 s (defer)",
            )}
            {key_number(
                "mean-gap",
                "Mean gap",
                move || duration(1.0 / params().rate_per_second()),
                "1 / λ",
            )}
            {key_number(
                "median-gap",
                "Median gap",
                move || duration(params().gap_quantile(0.5)),
                "ln 2 / λ",
            )}
            {key_number(
                "p95-gap",
                "95th percentile gap",
                move || duration(params().gap_quantile(0.95)),
                "ln 20 / λ",
            )}
            {key_number(
                "window",
                "Window length",
                move || duration(f64::from(params().window_seconds())),
                "end − start, wrapping past midnight",
            )}
        </dl>
        {coming("a one-day timeline of events, the gap histogram against the exponential curve, events per hour of day, and a token bucket in front.")}
    }
}
