//! Learn: one story through the panels, a step at a time.
//!
//! Each [`Step`] is a panel at a preset: its parameters as a query, the one
//! figure it shows, at most three of its controls, the key numbers its text
//! speaks of, and a few short paragraphs. The page at `p=learn&step=N` is that
//! panel's state, and the codec ([`super::state`]) writes the step beside the
//! panel's own keys, so a step's link restores every value the reader moved.
//!
//! The text is checked against the numbers: every number a step's
//! paragraphs write (outside backticks) is one its key numbers or controls
//! show at the default seed, which a core test asserts.

use super::Panel;
use super::state::State;

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
    /// The slug of the one figure the step draws.
    pub figure: &'static str,
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

    /// Its paragraphs; `backticked` stretches are code. They are kept apart
    /// from the steps, which the URL codec reads, so that what links the
    /// codec alone (the workers, the docs module) carries none of the prose.
    pub fn text(&self) -> &'static [&'static str] {
        TEXT[self.number() - 1]
    }

    /// The state showing this step from `seed`: the panel at the step's
    /// parameters over the defaults.
    pub fn state(&self, seed: u64) -> State {
        State::from_page_query(&format!("v=1&p=learn&step={}&s={seed}", self.number())).0
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
        figure: "depth",
        controls: &["n", "w"],
        numbers: &["max-depth", "mean-wait", "p95-wait"],
    },
    Step {
        slug: "jitter",
        title: "Jitter",
        panel: Panel::Jitter,
        query: "n=5000&rps=50&hi=2",
        figure: "arrivals",
        controls: &["hi", "rps"],
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
        figure: "timeline",
        controls: &["n"],
        numbers: &["mean-gap", "median-gap", "p95-gap", "busiest-minute"],
    },
    Step {
        slug: "retries",
        title: "Retries",
        panel: Panel::Backoff,
        query: "st=exponential&vs=full",
        figure: "calls",
        controls: &["st", "cp"],
        numbers: &["peak", "load", "healthy", "gave-up", "verdict"],
    },
    Step {
        slug: "hash",
        title: "Deterministic spreading",
        panel: Panel::HashSpread,
        query: "",
        figure: "strip",
        controls: &["n"],
        numbers: &["keys", "moved-on-growth", "largest-gap"],
    },
    Step {
        slug: "slots",
        title: "Slots",
        panel: Panel::Slots,
        query: "cyc=28800&bk=255&lb=1&kj=2",
        figure: "ring",
        controls: &["cyc", "bk", "kj"],
        numbers: &[
            "slots",
            "slot-length",
            "buckets-per-slot",
            "kind-distance",
            "sql-unscheduled",
        ],
    },
    Step {
        slug: "fleet",
        title: "Your fleet",
        panel: Panel::Fleet,
        query: "smp=jenkins-h",
        figure: "fix",
        controls: &["smp"],
        numbers: &["jobs", "peak-minute", "peak-after"],
    },
    Step {
        slug: "prove",
        title: "Prove it",
        panel: Panel::Queue,
        query: "st=herd&vs=jitter,hash,slots&hz=4&repl=20",
        figure: "depth-band",
        controls: &["w", "repl"],
        numbers: &["p95_wait_s"],
    },
];

/// Each step's paragraphs, in the order of [`STEPS`].
const TEXT: [&[&str]; 8] = [
    // The herd
    &[
        "A scheduler often makes a pile of work in one go. Here 2,000 accounts sync every hour, and one crontab line makes every sync due at the top of the hour. 4 workers take them a job at a time.",
        "The queue jumps to 1,996 jobs waiting, all but the 4 that start at once, then drains as fast as the workers can go. The mean job waits 20 min 46 s and the p95 job 39 min 22 s, while the same workers sit idle for the rest of the hour.",
        "Drag the workers: more of them drain the pile sooner, but every job is still due at the same second. That spike, felt by the workers and by whatever the jobs call, is the herd.",
    ],
    // Jitter
    &[
        "Give every job its own random delay, drawn evenly between zero and a maximum, and the herd becomes a stream. 5,000 jobs spread over 2 min arrive at 41.7 a second on average, under a downstream limit of 50 a second.",
        "An average is not a peak. Random starts clump, so the busiest second takes 60 jobs and 7 of 120 seconds go over the limit. The limit alone asks for N / L = 1 min 40 s; the smallest window that keeps every second under it on 95 % of nights is 2 min 48 s.",
        "Drag the maximum delay to 2.8 minutes: at most one night in twenty still has a second over the limit. Drag the limit to the one your downstream states.",
    ],
    // What random looks like
    &[
        "Random is not the same as even. 300 events a day at independent random times, a Poisson process, come one every 4 min 48 s on average, yet half of the gaps are shorter than 3 min 34 s and one in twenty is longer than 13 min 51 s.",
        "The timeline shows clumps and long quiet stretches: the busiest minute holds 3 events where the average minute holds 0.208. Jitter draws its delays at random too, which is why the busiest second of a jittered window sits above its average rate.",
    ],
    // Retries
    &[
        "A dependency with a capacity of 1,000 calls a second fails for a minute, and 10,000 clients retry with exponential backoff and no jitter. They failed at the same moments, so they retry at the same moments.",
        "When it comes back they arrive together: 10,000 calls in one second, 10× its capacity. It fails again, and it is healthy again only at 3 min 4 s; by then 7,000 clients have given up.",
        "Full jitter draws each wait evenly between zero and the exponential one. The same clients then stay under the capacity once it is back, and 87.2 % of them succeed against 30 % without jitter. Neither reaches the 99 % the verdict asks of a strategy before it ranks it by load or recovery, so it ranks them by how many succeed. Switch the strategy to compare.",
    ],
    // Deterministic spreading
    &[
        "A delay need not be drawn at all. Hash the job's id, reduce the hash to an offset in the window, and the job runs at that offset every day: stable across restarts and deploys, and the same on every machine.",
        "Add 10 % more ids and 0 % of the old ones move, since each offset depends on its id alone. A delay drawn again at each deploy moves every job, and an even spread by rank moves 99.2 % of them.",
        "A good hash is as even as random placement: over a day, the largest gap between 1,000 ids is 10 min 33 s where random placement expects 10 min 47 s.",
    ],
    // Slots
    &[
        "Slots make the load flat and predictable. Give every id one of 255 buckets, here from its last byte, and cut an eight-hour cycle into gcd(cycle, buckets) = 15 slots of 32 min; each slot holds 17 buckets and runs the accounts in them.",
        "Reciprocal kinds of job, such as payments and the reports that read them, start from different places on the ring: 2 kinds sit 7 slots apart, as near the ideal n / K = 7.5 as whole slots go.",
        "The trap: the same 15 slots picked in SQL as `bucket / (256 / 15)` round the divisor down to 17, so one raw value lands past the last slot, and 42 accounts are never run. Drag the buckets to see which counts divide evenly.",
    ],
    // Your fleet
    &[
        "Real schedulers spread work if asked. Here a Jenkins instance runs 230 jobs: most on `H H * * *`, which hashes each job's name to its own hour and minute, and 30 on `0 0 * * *`.",
        "The 30 fixed jobs make the busiest minute: 30 starts at Mon 00:00. The fix rewrites them with `H`, and the busiest minute falls to 3 starts. Pick another sample fleet, or open the full panel and paste your own.",
    ],
    // Prove it
    &[
        "One seeded run is one sample. To know whether a strategy really helps, run every one of them under 20 seeds and read each difference with its 95 % interval.",
        "Against the herd, every spread cuts the p95 wait: uniform jitter by 39 min 36 s ± 5.85 s. Between slots and hash spread there is no difference in the p95 wait within noise, so choose between them for stability and predictability, not speed.",
    ],
];
