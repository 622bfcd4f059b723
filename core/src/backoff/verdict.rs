//! The verdict on a run: every strategy ranked, and why the first wins.
//!
//! A strategy whose clients give up spares the dependency, so a ranking by
//! load or recovery alone would reward giving up. The verdict first asks
//! whether at least the floor's share of clients succeeded: those that
//! meet it rank by the chosen [`Objective`], two more figures breaking ties
//! in turn and then the order drawn; those short of it rank below, by how
//! many succeeded. One sentence names every strategy in order, and one more
//! says, from the figures, why the first comes before the second.

use super::flip::Flip;
use super::ranking::{client_p99, compare, figure, load, meets_floor};
use super::{AWS_QUOTA_CAPACITY, AWS_RETRY_COST, client_rng};
use super::{BackoffParams, Fleet, Objective, QuotaScope, RetryStrategy, StrategyFleet};
use crate::units::{count, duration, percent, significant};

/// One strategy's place in the ranking.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Ranked {
    pub strategy: RetryStrategy,
    /// Whether at least the floor's share of its clients succeeded.
    pub meets_floor: bool,
    /// The share of its clients that succeeded, from 0 to 1.
    pub succeeded: f64,
    /// What it is ranked by, in words: the objective's figure, or how many
    /// succeeded for one short of the floor.
    pub figure: String,
}

/// The strategies of a run ranked, and why the first wins.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Verdict {
    /// Every strategy drawn, best first: those that meet the floor by the
    /// objective, then the others by how many succeeded.
    pub ranking: Vec<Ranked>,
    /// One sentence naming every strategy in order, with the figures that
    /// decide.
    pub sentence: String,
    /// One sentence on why the first comes before the second, from the
    /// figures; empty with one strategy that meets the floor.
    pub why: String,
    /// One change of the parameters under which the second would rank
    /// before the first, found by running the two fleets again (see
    /// [`FlipSearch`](super::FlipSearch)); `None` when none of the changes
    /// tried does, with a single strategy, or while the page has not yet
    /// searched.
    pub flip: Option<Flip>,
}

/// "99 %": the floor as written.
fn floor_text(floor: f64) -> String {
    format!("{} %", significant(floor, 3))
}

/// The strategies of `fleets`, run with `seed`, ranked (see [`compare`];
/// ties in the order drawn), with the sentence that names them and the one
/// that says why.
pub(super) fn verdict(params: &BackoffParams, seed: u64, fleets: &[StrategyFleet]) -> Verdict {
    let mut ranked: Vec<&StrategyFleet> = fleets.iter().collect();
    // An insertion sort, stable, keeps the drawn order of ties; for five
    // strategies at most it weighs far less in the docs module than a
    // library sort.
    for end in 1..ranked.len() {
        let mut at = end;
        while at > 0 && compare(params, &ranked[at - 1].fleet, &ranked[at].fleet).is_gt() {
            ranked.swap(at - 1, at);
            at -= 1;
        }
    }
    let ranking = ranked
        .iter()
        .map(|strategy| Ranked {
            strategy: strategy.strategy,
            meets_floor: meets_floor(&strategy.fleet, params.floor),
            succeeded: strategy.fleet.succeeded_share(),
            figure: figure(params, &strategy.fleet),
        })
        .collect();
    Verdict {
        ranking,
        sentence: sentence(params, &ranked),
        why: why(params, seed, &ranked),
        flip: None,
    }
}

/// The first objective of the objective's order on which `a` and `b`
/// differ; `None` when they tie on all three.
fn decider(params: &BackoffParams, a: &Fleet, b: &Fleet) -> Option<Objective> {
    let order = params.objective.with_tie_breakers();
    order
        .into_iter()
        .find(|objective| objective.figure(a) != objective.figure(b))
}

/// One sentence naming every strategy of `ranked` in order: if none meets
/// the floor, that first; else those that do by the objective, then those
/// short of it by how many succeeded.
fn sentence(params: &BackoffParams, ranked: &[&StrategyFleet]) -> String {
    let floor = floor_text(params.floor);
    let objective = params.objective;
    let (meeting, short): (Vec<&StrategyFleet>, Vec<&StrategyFleet>) = ranked
        .iter()
        .partition(|strategy| meets_floor(&strategy.fleet, params.floor));
    let successes = |strategies: &[&StrategyFleet]| {
        let listed: Vec<String> = strategies
            .iter()
            .map(|s| format!("{} {}", s.label, percent(s.fleet.succeeded_share())))
            .collect();
        listed.join(", ")
    };
    let Some((first, rest)) = meeting.split_first() else {
        return match &short[..] {
            [] => String::new(),
            [only] => format!(
                "{} gets only {} of its clients through ({} of {}), short of the {floor} floor.",
                only.label,
                percent(only.fleet.succeeded_share()),
                count(u64::from(only.fleet.succeeded)),
                count(u64::from(only.fleet.succeeded) + u64::from(only.fleet.gave_up)),
            ),
            _ => format!(
                "None of the {} strategies gets {floor} of its clients through, so they rank by \
                 how many succeed, then by {}: {}.",
                short.len(),
                objective.name(),
                successes(&short)
            ),
        };
    };
    let mut text = if ranked.len() == 1 {
        format!(
            "{} is the only strategy drawn: {}",
            first.label,
            objective.describe(&first.fleet, params)
        )
    } else {
        format!(
            "Of those where at least {floor} of clients succeed, {} ranks first by {}: {}",
            first.label,
            objective.name(),
            objective.describe(&first.fleet, params)
        )
    };
    let mut before = first;
    for strategy in rest {
        let clause = match decider(params, &before.fleet, &strategy.fleet) {
            Some(decider) if decider == objective => objective.describe(&strategy.fleet, params),
            Some(decider) => format!(
                "level on {} but behind on {} ({}, against {})",
                objective.name(),
                decider.name(),
                decider.describe(&strategy.fleet, params),
                decider.describe(&before.fleet, params)
            ),
            None => "level on every figure compared, and drawn later".into(),
        };
        text.push_str(&format!("; then {}: {clause}", strategy.label));
        before = strategy;
    }
    if !short.is_empty() {
        text.push_str(&format!(
            "; below the {floor} floor, by how many succeed: {}",
            successes(&short)
        ));
    }
    text.push('.');
    text
}

/// Clients whose waits give the median span: enough for a figure said
/// with "about", and a few hundred microseconds of draws.
const SPAN_CLIENTS: u32 = 1_001;

/// How long the median client's retries last if every one fails: the sum
/// of its waits, over the first [`SPAN_CLIENTS`] clients' own draws.
fn span_seconds(params: &BackoffParams, seed: u64, strategy: &StrategyFleet) -> f64 {
    let Ok(backoff) = params.backoff(strategy.strategy) else {
        return 0.0;
    };
    let retries = backoff.retries_allowed(params.retries) as usize;
    let mut spans: Vec<f64> = (0..SPAN_CLIENTS)
        .map(|index| backoff.waits(client_rng(seed, index)).take(retries).sum())
        .collect();
    let middle = spans.len() / 2;
    *spans.select_nth_unstable_by(middle, f64::total_cmp).1
}

/// [`span_seconds`] in words, "about" one for a strategy with jitter.
fn span(params: &BackoffParams, seed: u64, strategy: &StrategyFleet) -> String {
    let about = if strategy.strategy.is_jitterless() {
        ""
    } else {
        "about "
    };
    format!("{about}{}", duration(span_seconds(params, seed, strategy)))
}

/// "8 retries".
fn retries(params: &BackoffParams, strategy: &StrategyFleet) -> String {
    let allowed = params
        .backoff(strategy.strategy)
        .map_or(params.retries, |backoff| {
            backoff.retries_allowed(params.retries)
        });
    match allowed {
        1 => "1 retry".into(),
        n => format!("{n} retries"),
    }
}

/// The share of a fleet's clients that gave up.
fn gave_up(fleet: &Fleet) -> String {
    percent(1.0 - fleet.succeeded_share())
}

/// Why the first of `ranked` comes before the second, from the figures.
fn why(params: &BackoffParams, seed: u64, ranked: &[&StrategyFleet]) -> String {
    let explain = Explain { params, seed };
    match ranked {
        [] => String::new(),
        [only] if meets_floor(&only.fleet, params.floor) => String::new(),
        [only] => explain.giving_up(only, None),
        [first, second, ..] => {
            let (a, b) = (&first.fleet, &second.fleet);
            if meets_floor(b, params.floor) || a.succeeded == b.succeeded {
                explain.by_objective(first, second)
            } else {
                explain.giving_up(second, Some(first))
            }
        }
    }
}

/// What the reasons are worked out from: the run's parameters, and its
/// seed for the clients' spans.
struct Explain<'a> {
    params: &'a BackoffParams,
    seed: u64,
}

impl Explain<'_> {
    fn span_seconds(&self, strategy: &StrategyFleet) -> f64 {
        span_seconds(self.params, self.seed, strategy)
    }

    /// "Full jitter's 8 retries span about 1 min 31 s".
    fn spans(&self, strategy: &StrategyFleet) -> String {
        format!(
            "{}'s {} span {}",
            strategy.label,
            retries(self.params, strategy),
            span(self.params, self.seed, strategy)
        )
    }

    /// Why clients of `strategy` gave up, beside `better` if given: a
    /// shared quota, a breaker, refusals for capacity, or else retries that
    /// end before the outage does.
    fn giving_up(&self, strategy: &StrategyFleet, better: Option<&StrategyFleet>) -> String {
        let params = self.params;
        let fleet = &strategy.fleet;
        let clients = u64::from(fleet.succeeded) + u64::from(fleet.gave_up);
        let name = strategy.label;
        let outage = duration(params.outage);
        let lost = gave_up(fleet);
        let against = better.map_or_else(String::new, |better| {
            format!(", against {} for {}", gave_up(&better.fleet), better.label)
        });
        if strategy.strategy == RetryStrategy::AwsQuota && params.quota == QuotaScope::Shared {
            return format!(
                "{name}'s {} clients share one retry quota of {AWS_QUOTA_CAPACITY} tokens, {} \
                 retries at {AWS_RETRY_COST} tokens each, so {lost} of them give up{against}.",
                count(clients),
                AWS_QUOTA_CAPACITY / AWS_RETRY_COST,
            );
        }
        if fleet.rejected > 0 {
            return format!(
                "{name}'s breaker turns {} calls away, each spending a retry, so {lost} of its \
                 clients run out{against}.",
                count(fleet.rejected),
            );
        }
        let outlasting = self.span_seconds(strategy) >= params.outage;
        if fleet.refused > 0 {
            let peak = match fleet.peak_load {
                Some(load) => format!(
                    "{}× the capacity of {} /s",
                    significant(load, 3),
                    count(u64::from(params.capacity))
                ),
                None => format!("{} calls a second", significant(load(fleet), 3)),
            };
            return format!(
                "{} for the median client, {} than the {outage} outage, and its busiest second \
                 from D on is {peak}, so {} refused calls spend retries and {lost} of its \
                 clients run out{against}.",
                self.spans(strategy),
                if outlasting { "longer" } else { "shorter" },
                count(fleet.refused),
            );
        }
        // Nothing refused: every client that gave up ran out of retries
        // before D.
        let median = |strategy: &StrategyFleet| {
            format!(
                "{} for the median client",
                span(params, self.seed, strategy)
            )
        };
        let beside = better.map_or_else(String::new, |better| {
            format!(
                ", against {} of {}'s ({})",
                gave_up(&better.fleet),
                better.label,
                median(better)
            )
        });
        format!(
            "{name}'s {} end before the {outage} outage does for {lost} of its clients ({}){beside}.",
            retries(params, strategy),
            median(strategy),
        )
    }

    /// Why `first` comes before `second` when both meet the floor, or both
    /// fall short with as many successes: on the figure that decides.
    fn by_objective(&self, first: &StrategyFleet, second: &StrategyFleet) -> String {
        let params = self.params;
        let (a, b) = (&first.fleet, &second.fleet);
        let (one, two) = (first.label, second.label);
        match decider(params, a, b) {
            None => {
                format!("{one} and {two} tie on every figure compared; {one} is drawn first.")
            }
            Some(Objective::Recovery) => format!(
                "{two}'s busiest second from D on is {}× the capacity, so the dependency refuses \
                 calls until {}, while {one}'s is {}× and it is healthy again at {}.",
                significant(b.peak_load.unwrap_or(0.0), 3),
                duration(b.healthy_at),
                significant(a.peak_load.unwrap_or(0.0), 3),
                duration(a.healthy_at)
            ),
            Some(Objective::Load) => format!(
                "{one}'s clients come back more spread out: {}, against {} for {two}.",
                Objective::Load.describe(a, params),
                Objective::Load
                    .describe(b, params)
                    .replace("its busiest", "the busiest"),
            ),
            Some(Objective::ClientP99) => format!(
                "{one} has 99 % of its clients through by {}, {two} {}.",
                duration(client_p99(a)),
                b.success_99
                    .map_or_else(|| "never".into(), |at| format!("only by {}", duration(at)))
            ),
            Some(Objective::GaveUp) => self.giving_up(second, Some(first)),
        }
    }
}
