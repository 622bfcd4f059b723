//! The Learn steps' paragraphs, written from what the step's page shows.
//!
//! A paragraph states a measured number only as the key number the page
//! prints beside it, and a number that follows from the parameters alone
//! (a mean duration, an average rate, a slot count) from those parameters,
//! so the text holds at any value a reader drags to. Where a sentence is
//! true only in some states, the state picks the sentence.

use std::sync::Arc;

use crate::backoff::RetryStrategy;
use crate::field::PanelParams;
use crate::hash_spread::expected_largest_gap;
use crate::jitter::JitterParams;
use crate::key_numbers::KeyNumber;
use crate::panels::State;
use crate::panels::backoff::NO_CALL_ONCE_BACK;
use crate::panels::fleet::Sample;
use crate::panels::queue::mean_duration;
use crate::panels::queue_replication::{Difference, Replicated};
use crate::queue::QueueStrategy;
use crate::slots::Layout;
use crate::units::{count, counted, duration, significant};

use crate::panels::learn::Step;

/// What a step's page shows for one state, from which its paragraphs are
/// written: the panel's key numbers, and the Queue's replications once
/// they are done.
#[derive(Clone, Debug, PartialEq)]
pub struct StepFacts {
    pub state: State,
    pub numbers: Vec<KeyNumber>,
    pub replicated: Option<Arc<Replicated>>,
}

impl StepFacts {
    /// The value of key number `key` as the page prints it; `None` when the
    /// panel has not computed it (a fleet's fix still on its way).
    fn value(&self, key: &str) -> Option<&str> {
        self.numbers
            .iter()
            .find(|number| number.key == key)
            .map(|number| number.value.as_str())
    }

    /// The value of a key number every run of the step's panel prints.
    fn printed(&self, key: &str) -> &str {
        self.value(key).unwrap_or("…")
    }
}

impl Step {
    /// The step's paragraphs for `facts`; `backticked` stretches are code.
    /// Found by the step's slug rather than held by the step, so that what
    /// links the steps alone (the URL codec in the workers and the docs
    /// module) links none of the prose.
    pub fn paragraphs(&self, facts: &StepFacts) -> Vec<String> {
        let write = match self.slug {
            "herd" => herd,
            "jitter" => jitter,
            "random" => random,
            "retries" => retries,
            "hash" => hash,
            "slots" => slots,
            "fleet" => fleet,
            _ => prove,
        };
        write(facts)
    }
}

fn herd(facts: &StepFacts) -> Vec<String> {
    let params = &facts.state.queue;
    let (n, w) = (u64::from(params.accounts), u64::from(params.workers));
    let mean = mean_duration(params);
    let load = n as f64 * mean / (w as f64 * f64::from(params.cycle_seconds()));
    let mut text = vec![format!(
        "A scheduler often makes a pile of work in one go. Here {} every hour, and one \
         crontab line makes every sync due at the top of the hour. {} them a job at a time.",
        if n == 1 {
            "1 account syncs".into()
        } else {
            format!("{} accounts sync", count(n))
        },
        if w == 1 {
            "1 worker takes".into()
        } else {
            format!("{} workers take", count(w))
        },
    )];
    text.push(if n > w {
        format!(
            "{} at once and the rest wait: the queue jumps to {} jobs waiting, then drains \
             as fast as the workers go. The mean job waits {}, and the p95 wait is {}. That \
             pile, felt by the workers and by whatever the jobs call, is the herd.",
            if w == 1 { "1 starts".into() } else { format!("{} start", count(w)) },
            facts.printed("max-depth"),
            facts.printed("mean-wait"),
            facts.printed("p95-wait"),
        )
    } else {
        format!(
            "With at least as many workers as jobs, every job starts the moment it is due: the mean wait \
             is {}. Drag the accounts above the workers to see the pile form.",
            facts.printed("mean-wait"),
        )
    });
    let utilization = facts.printed("utilization");
    text.push(format!(
        "{} A job takes {} on average: durations are drawn around the Queue panel's mean, \
         with negative draws folded back, which lifts the mean a little.",
        if n <= w {
            format!("The workers' utilization is {utilization}.")
        } else if load < 0.9 {
            format!(
                "Yet the workers' utilization is {utilization}: the hour has room for every \
                 job, so the wait comes from the timing, not the capacity."
            )
        } else if load < 1.0 {
            format!(
                "The workers' utilization is {utilization}: near full, so even spread out the \
                 jobs would queue."
            )
        } else {
            format!(
                "The workers' utilization is {utilization}: an hour's jobs take them longer \
                 than the hour, so the queue never empties, whatever the timing. Add workers \
                 before spreading."
            )
        },
        duration(mean),
    ));
    text
}

fn jitter(facts: &StepFacts) -> Vec<String> {
    let params = &facts.state.jitter;
    let (n, limit) = (u64::from(params.jobs), params.limit_per_second);
    if params.max_delay <= 0.0 {
        return vec![
            format!(
                "With no delay, {} start at the same second: {} against a downstream \
                 limit of {} a second.",
                counted(n, "job", "jobs"),
                facts.printed("peak-second"),
                count(u64::from(limit)),
            ),
            "Give every job its own random delay, drawn evenly between zero and a maximum: drag \
             the maximum delay up and the herd becomes a stream."
                .into(),
        ];
    }
    // As the control writes it, in its own unit.
    let window = format!(
        "{} min",
        params
            .value(JitterParams::MAX_DELAY.key)
            .unwrap_or_default()
    );
    let flat = n as f64 / (params.max_delay * 60.0);
    vec![
        format!(
            "Give every job its own random delay, drawn evenly between zero and a maximum, and \
             the herd becomes a stream. {} spread over {window} {} at {} on average, \
             {} a downstream limit of {} a second.",
            counted(n, "job", "jobs"),
            if n == 1 { "arrives" } else { "arrive" },
            facts.printed("flat-rate"),
            if flat > f64::from(limit) {
                "above"
            } else {
                "under"
            },
            count(u64::from(limit)),
        ),
        format!(
            "An average is not a peak. Random starts clump: the busiest second takes {}, and {} \
             seconds go over the limit. The limit alone asks for a window of N / L = {}. The \
             smallest window that keeps every second under it, over many nights: {}.",
            facts.printed("peak-second"),
            facts.printed("seconds-over"),
            facts.printed("at-limit"),
            facts.printed("fit-window"),
        ),
        "Drag the maximum delay to watch the busiest second fall as the window grows, and the \
         limit to the one your downstream states."
            .into(),
    ]
}

fn random(facts: &StepFacts) -> Vec<String> {
    let params = &facts.state.poisson;
    let n = u64::from(params.per_day);
    let events = if n == 1 {
        "1 event a day comes".into()
    } else {
        format!("{} events a day come", count(n))
    };
    if n * u64::from(params.days) < FEWEST_EVENTS_FOR_GAPS {
        return vec![format!(
            "Random is not the same as even. {events} at independent random times, a Poisson \
             process: too few for their gaps to show a pattern. Drag the events up."
        )];
    }
    vec![
        format!(
            "Random is not the same as even. {events} at independent random times, a Poisson \
             process, one every {} on average, yet half of the gaps are shorter than {} and one \
             in twenty is longer than {}.",
            duration(86_400.0 / n as f64),
            facts.printed("median-gap"),
            facts.printed("p95-gap"),
        ),
        format!(
            "The timeline shows clumps and long quiet stretches: the busiest minute has {}, \
             where the average minute has {}. Jitter draws its delays at random too, which is \
             why the busiest second of a jittered window sits above its average rate.",
            facts.printed("busiest-minute"),
            significant(n as f64 / 1440.0, 3),
        ),
    ]
}

/// Fewer events than this over the horizon leave too few gaps to read
/// quantiles from.
const FEWEST_EVENTS_FOR_GAPS: u64 = 20;

fn retries(facts: &StepFacts) -> Vec<String> {
    let params = &facts.state.backoff;
    let strategy = params.strategy;
    let jittered = !matches!(
        strategy,
        RetryStrategy::Constant | RetryStrategy::Linear | RetryStrategy::Exponential
    );
    vec![
        format!(
            "A dependency with a capacity of {} a second is down for {}, and {} \
             retry with {}. {}",
            counted(u64::from(params.capacity), "call", "calls"),
            duration(params.outage),
            counted(u64::from(params.clients), "client", "clients"),
            strategy_words(strategy),
            if jittered {
                "Each client draws its own waits, so their retries spread out."
            } else {
                "They failed at the same moments, so they retry at the same moments."
            }
        ),
        if facts.value("peak") == Some(NO_CALL_ONCE_BACK) {
            format!(
                "No client calls once it is back: every one gave up during the outage. In all, \
                 {}.",
                facts.printed("succeeded"),
            )
        } else {
            format!(
                "Once it is back, calls peak at {}: {}. It is healthy again at {}. In all, {}.",
                facts.printed("peak"),
                facts.printed("load"),
                facts.printed("healthy"),
                facts.printed("succeeded"),
            )
        },
        "The verdict sets the strategy beside the ones it is compared with: first whether a \
         strategy gets enough of its clients through, only then how soon the dependency \
         recovers. Switch the strategy to compare."
            .into(),
    ]
}

fn strategy_words(strategy: RetryStrategy) -> String {
    match strategy {
        RetryStrategy::Exponential => "exponential backoff and no jitter".into(),
        RetryStrategy::FullJitter => {
            "full jitter, each wait drawn evenly between zero and the exponential one".into()
        }
        other => format!("the {} strategy", other.label()),
    }
}

fn hash(facts: &StepFacts) -> Vec<String> {
    let params = &facts.state.hash_spread;
    let n = params.keys;
    vec![
        "A delay need not be drawn at all. Hash the job's id, reduce the hash to an offset in \
         the window, and the job runs at that offset every day: stable across restarts and \
         deploys, and the same on every machine."
            .into(),
        format!(
            "Add 10 % more ids and {} of the old ones move, since each offset depends on its id \
             alone. A delay drawn again at each deploy moves every job; the line beside it gives \
             what an even spread by rank moves.",
            facts.printed("moved-on-growth"),
        ),
        if n > 1 {
            format!(
                "A good hash is as even as random placement: the largest gap between {} ids is \
                 {}, where random placement expects {} on average.",
                count(u64::from(n)),
                facts.printed("largest-gap"),
                duration(expected_largest_gap(params.window, n)),
            )
        } else {
            "A good hash is as even as random placement: add ids to set the largest gap \
             between them beside what random placement expects."
                .into()
        },
    ]
}

fn slots(facts: &StepFacts) -> Vec<String> {
    let params = &facts.state.slots;
    let Ok(layout) = Layout::new(params.cycle, params.buckets, params.id_bytes) else {
        return Vec::new();
    };
    let (n, raw) = (layout.slots(), params.id_bytes.raw_values());
    let kinds = params.kinds;
    let mut text = vec![format!(
        "Slots make the load flat and predictable. Give every id {}, here by its last byte \
         mod the buckets, and cut a cycle of {} into gcd(cycle, buckets) = {} of {}; each slot \
         runs the accounts in its buckets.",
        match params.buckets {
            1 => "the one bucket".to_string(),
            buckets => format!("one of {} buckets", count(u64::from(buckets))),
        },
        duration(f64::from(params.cycle)),
        counted(u64::from(n), "slot", "slots"),
        duration(f64::from(layout.slot_seconds())),
    )];
    let extra = raw % params.buckets;
    if extra != 0 {
        let per_slot = raw_values_per_slot(&layout, raw);
        let (fewest, most) = (per_slot.iter().min(), per_slot.iter().max());
        text.push(format!(
            "A byte has 256 values, which {} buckets do not divide, so bucket = raw mod {} gives \
             {} of them one raw value more than the others. The raw values per slot are {}, and \
             accounts follow raw values: {}.",
            count(u64::from(params.buckets)),
            count(u64::from(params.buckets)),
            count(u64::from(extra)),
            facts.printed("raw-per-slot"),
            match (fewest, most) {
                (Some(&fewest), Some(&most)) if most == 2 * fewest => {
                    "a fuller slot gets twice the accounts of another".to_string()
                }
                (Some(&fewest), Some(&most)) => format!(
                    "a fuller slot gets {} for every {} another gets",
                    count(u64::from(most)),
                    count(u64::from(fewest))
                ),
                _ => String::new(),
            },
        ));
    }
    text.push(if kinds > n {
        format!(
            "Reciprocal kinds of job, such as payments and the reports that read them, should \
             start from different places on the ring, but {kinds} kinds on {} must share: \
             add slots or drop kinds.",
            counted(u64::from(n), "slot", "slots"),
        )
    } else if kinds > 1 {
        format!(
            "Reciprocal kinds of job, such as payments and the reports that read them, start \
             from different places on the ring: {kinds} kinds sit {} apart at the closest, \
             against the ideal n / K = {} slots.",
            facts.printed("kind-distance"),
            significant(f64::from(n) / f64::from(kinds), 3),
        )
    } else {
        "Reciprocal kinds of job, such as payments and the reports that read them, start from \
         different places on the ring: add kinds to see where each goes."
            .into()
    });
    text.push(if raw % n == 0 {
        format!(
            "The trap: picking a slot in SQL from the raw byte, as `raw / (256 / n)`, is safe \
             here, since 256 splits evenly into {}. Drag the buckets to a count whose slots do \
             not.",
            counted(u64::from(n), "slot", "slots"),
        )
    } else {
        format!(
            "The trap: pick the same {n} slots in SQL from the raw byte, as \
             `raw / (256 / {n})`, and integer division rounds the divisor down to {}, so {} \
             past the last slot, where no per-slot job looks: {} accounts are never run.",
            raw / n,
            if raw % n == 1 {
                "one raw value lands".to_string()
            } else {
                format!("{} raw values land", raw % n)
            },
            facts.printed("sql-unscheduled"),
        )
    });
    text
}

fn fleet(facts: &StepFacts) -> Vec<String> {
    let sample = facts.state.fleet.sample;
    let what = match sample {
        Sample::Own => {
            return vec![
                "Real schedulers spread work if asked. Open the full panel and paste your own \
                 fleet, or pick a sample fleet here."
                    .into(),
            ];
        }
        Sample::MinuteZero => "a crontab where every job starts at minute 0",
        Sample::JenkinsH => {
            "a Jenkins instance where most jobs run on `H H * * *`, which hashes each job's \
             name to its own hour and minute, and the rest on `0 0 * * *`"
        }
        Sample::SystemdTimer => "one systemd timer on many machines, with and without a delay",
        Sample::Prometheus => "Prometheus scraping its targets, each at its own offset",
        Sample::Kubernetes => "a cluster's Kubernetes CronJobs",
        Sample::GithubActions => "GitHub Actions workflows across repositories",
        Sample::QuartzJobs => "a Java service's Quartz triggers, written alike",
        Sample::SpringJobs => "a Spring application's scheduled tasks, written alike",
        Sample::EventBridge => {
            "a CloudFormation template's EventBridge schedules, most without a window"
        }
        Sample::AnacronRhel => {
            "RHEL's anacrontab on many hosts, every cron.daily in one early window"
        }
        Sample::AnacronDebian => "Debian's anacrontab on many hosts, each run by its morning timer",
        Sample::ApschedulerJobs => "a Python service's APScheduler jobs, added alike",
        Sample::SidekiqJobs => {
            "a Rails application's sidekiq-cron jobs, most on the hour, each enqueued at the \
             first poll of one Sidekiq process"
        }
    };
    let mut text = vec![format!(
        "Real schedulers spread work if asked. This sample, {} jobs in all, is {what}.",
        facts.printed("jobs"),
    )];
    text.push(match facts.value("peak-after") {
        Some(after) => format!(
            "Its busiest minute has {}. The panel's fix rewrites what it can in each system's \
             own syntax; after it, the busiest minute has {after}. Pick another sample fleet, or \
             open the full panel and paste your own.",
            facts.printed("peak-minute"),
        ),
        None => format!(
            "Its busiest minute has {}; the fix is on its way.",
            facts.printed("peak-minute"),
        ),
    });
    text
}

fn prove(facts: &StepFacts) -> Vec<String> {
    let runs = facts.state.queue.replications;
    if runs == 0 {
        return vec![
            "One seeded run is one sample, and with no replications there is nothing to set it \
             against. Drag the replications up to run every strategy under many seeds and read \
             each difference with its interval."
                .into(),
        ];
    }
    let mut text = vec![format!(
        "One seeded run is one sample. To know whether a strategy really helps, run every one \
         of them under {} and read each difference with its 95 % interval.",
        counted(u64::from(runs), "seed", "seeds"),
    )];
    let Some(replicated) = &facts.replicated else {
        text.push("The runs are under way.".into());
        return text;
    };
    let p95: Vec<&Difference> = replicated
        .differences
        .iter()
        .filter(|difference| difference.key == "p95_wait_s")
        .collect();
    let against_herd: Vec<&Difference> = p95
        .iter()
        .copied()
        .filter(|difference| difference.before == 0)
        .collect();
    let cuts = |difference: &&Difference| {
        difference.interval.mean < 0.0 && !difference.interval.spans_zero()
    };
    text.push(if against_herd.iter().all(cuts) {
        let cuts: Vec<String> = against_herd
            .iter()
            .map(|difference| {
                let lane = &replicated.lanes[difference.after].label;
                format!("{lane} by {}", difference.amount())
            })
            .collect();
        format!(
            "Against the herd, every spread cuts the p95 wait: {}.",
            cuts.join(", ")
        )
    } else if against_herd
        .iter()
        .all(|difference| difference.interval.spans_zero())
    {
        "Against the herd, no spread changes the p95 wait within noise at these settings.".into()
    } else {
        let texts: Vec<&str> = against_herd.iter().map(|d| d.text.as_str()).collect();
        format!("Against the herd: {}.", texts.join("; "))
    });
    let spreads = p95.iter().find(|difference| {
        let names =
            [difference.before, difference.after].map(|lane| replicated.lanes[lane].slug.as_str());
        names.contains(&QueueStrategy::Hash.slug()) && names.contains(&QueueStrategy::Slots.slug())
    });
    if let Some(spreads) = spreads {
        text.push(if spreads.interval.spans_zero() {
            format!(
                "{}, so choose between them for stability and predictability, not speed.",
                spreads.text
            )
        } else {
            format!(
                "{}: at these settings one of them is faster, by a margin the interval bounds.",
                spreads.text
            )
        });
    }
    text
}

/// How many of the `raw` values each slot's buckets take.
fn raw_values_per_slot(layout: &Layout, raw: u32) -> Vec<u32> {
    let mut per_slot = vec![0; layout.slots() as usize];
    for value in 0..raw {
        per_slot[layout.even_slot(value) as usize] += 1;
    }
    per_slot
}
