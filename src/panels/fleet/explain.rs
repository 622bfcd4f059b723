//! "How it works" for the Fleet panel: each system's rule for placing a
//! start, with its formula and the version followed.

use leptos::prelude::*;

pub fn explanation() -> impl IntoView {
    view! {
        <p class="explain">
            "Paste the schedules a fleet runs, and the panel expands them over one week, minute by
            minute, the way each scheduler itself would place them."
        </p>
    }
}
