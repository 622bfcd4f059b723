//! Learn: one story through the panels, a step at a time.
//!
//! Each [`Step`] is a panel at a preset: its parameters as a query, the one
//! figure it shows, at most three of its controls, the key numbers its text
//! speaks of, and a few short paragraphs. The page at `p=learn&step=N` is that
//! panel's state, and the codec ([`super::state`]) writes the step beside the
//! panel's own keys, so a step's link restores every value the reader moved.
//!
//! Its paragraphs ([`Step::paragraphs`], in [`super::story`]) are written from what the page shows at the
//! current parameters, so they follow every control the reader moves.

use super::Figure;
use super::Panel;
use super::{backoff, fleet, hash_spread, jitter, poisson, queue, slots};

/// One screen of the story.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// A stable name, for the page and its tests.
    pub slug: &'static str,
    pub title: &'static str,
    pub panel: Panel,
    /// The panel's parameters, as a query string of its keys; the rest keep
    /// their defaults.
    pub query: &'static str,
    /// The one figure the step draws.
    pub figure: Figure,
    /// The keys of the step's controls, at most three.
    pub controls: &'static [&'static str],
    /// The keys of the key numbers the step prints under its figure; for
    /// the Queue's replications, of the figures whose lanes it compares.
    pub numbers: &'static [&'static str],
}

impl Step {
    /// The step's number as its URL writes it, from 1.
    pub fn number(&self) -> usize {
        STEPS
            .iter()
            .position(|step| step.slug == self.slug)
            .map_or(1, |index| index + 1)
    }
}

/// The step numbered `number` (from 1), if there is one.
pub fn step(number: usize) -> Option<&'static Step> {
    number.checked_sub(1).and_then(|index| STEPS.get(index))
}

/// The story, in order.
pub const STEPS: &[Step] = &[
    Step {
        slug: "herd",
        title: "The herd",
        panel: Panel::Queue,
        query: "st=herd&vs=&n=2000&w=4&hz=2",
        figure: queue::DEPTH,
        controls: &["n", "w"],
        numbers: &["max-depth", "mean-wait", "p95-wait", "utilization"],
    },
    Step {
        slug: "jitter",
        title: "Jitter",
        panel: Panel::Jitter,
        query: "n=5000&rps=50&hi=2",
        figure: jitter::ARRIVALS,
        controls: &["n", "hi", "rps"],
        numbers: &[
            "herd",
            "peak-second",
            "seconds-over",
            "fit-window",
            "flat-rate",
        ],
    },
    Step {
        slug: "random",
        title: "What random looks like",
        panel: Panel::Poisson,
        query: "n=300",
        figure: poisson::TIMELINE,
        controls: &["n"],
        numbers: &["mean-gap", "median-gap", "p95-gap", "busiest-minute"],
    },
    Step {
        slug: "retries",
        title: "Retries",
        panel: Panel::Backoff,
        query: "st=exponential&vs=full",
        figure: backoff::CALLS,
        controls: &["st", "cp"],
        numbers: &["peak", "load", "healthy", "succeeded", "verdict"],
    },
    Step {
        slug: "hash",
        title: "Deterministic spreading",
        panel: Panel::HashSpread,
        query: "",
        figure: hash_spread::STRIP,
        controls: &["n"],
        numbers: &["keys", "moved-on-growth", "largest-gap"],
    },
    Step {
        slug: "slots",
        title: "Slots",
        panel: Panel::Slots,
        query: "cyc=28800&bk=255&lb=1&kj=2",
        figure: slots::RING,
        controls: &["cyc", "bk", "kj"],
        numbers: &[
            "slots",
            "slot-length",
            "raw-per-slot",
            "kind-distance",
            "sql-unscheduled",
        ],
    },
    Step {
        slug: "fleet",
        title: "Your fleet",
        panel: Panel::Fleet,
        query: "smp=jenkins-h",
        figure: fleet::FIX,
        controls: &["smp"],
        numbers: &["jobs", "peak-minute", "peak-after"],
    },
    Step {
        slug: "prove",
        title: "Prove it",
        panel: Panel::Queue,
        query: "st=herd&vs=jitter,hash,slots&hz=4&repl=20",
        figure: queue::DEPTH_BAND,
        controls: &["w", "repl"],
        numbers: &["p95_wait_s"],
    },
];
