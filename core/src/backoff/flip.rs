//! One change that would turn the verdict around, found by the model: each
//! candidate change of the retry policy (more or fewer retries, a longer or
//! shorter cap or base, a steeper factor, the other quota scope) is run
//! again with every strategy drawn, and the first that turns the outcome
//! around is the answer: one under which a strategy meets the success floor
//! when none did, else one under which the second ranks before the first.
//! A run is a few milliseconds, so [`FlipSearch`] tries one change a step,
//! and the page steps while idle.

use super::ranking::{compare, figure, meets_floor};
use super::{BackoffParams, BackoffRun, Fleet, QuotaScope, RetryStrategy, simulate_fleets_against};
use crate::field::{Field, Kind};
use crate::units::{count, duration, percent, significant};

/// A change of the parameters that puts the second strategy first.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Flip {
    /// The change as URL parameters, such as "k=12".
    pub query: String,
    /// The change in words, such as "12 retries".
    pub change: String,
    /// What it does, with the two strategies' figures under it.
    pub sentence: String,
}

/// One parameter changed to one value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Change {
    Retries(u32),
    Cap(f64),
    Base(f64),
    Factor(f64),
    Quota(QuotaScope),
}

impl Change {
    fn field(self) -> Field {
        match self {
            Self::Retries(_) => BackoffParams::RETRIES,
            Self::Cap(_) => BackoffParams::CAP,
            Self::Base(_) => BackoffParams::BASE,
            Self::Factor(_) => BackoffParams::FACTOR,
            Self::Quota(_) => BackoffParams::QUOTA,
        }
    }

    fn value(self) -> String {
        match self {
            Self::Retries(retries) => retries.to_string(),
            Self::Cap(seconds) | Self::Base(seconds) | Self::Factor(seconds) => {
                significant(seconds, 4)
            }
            Self::Quota(scope) => scope.slug().into(),
        }
    }

    /// `params` with this change, or `None` when the change leaves the
    /// field's range or puts the cap below the base.
    fn applied(self, params: &BackoffParams) -> Option<BackoffParams> {
        let mut changed = params.clone();
        let number = match self {
            Self::Retries(retries) => {
                changed.retries = retries;
                f64::from(retries)
            }
            Self::Cap(cap) => {
                changed.cap = cap;
                cap
            }
            Self::Base(base) => {
                changed.base = base;
                base
            }
            Self::Factor(factor) => {
                changed.factor = factor;
                factor
            }
            Self::Quota(quota) => {
                changed.quota = quota;
                return Some(changed);
            }
        };
        let Kind::Number { min, max, .. } = self.field().kind else {
            return None;
        };
        let fits = (min..=max).contains(&number) && changed.base <= changed.cap;
        (fits && changed != *params).then_some(changed)
    }

    /// The change in words.
    fn describe(self) -> String {
        match self {
            Self::Retries(retries) => format!("{} retries", count(u64::from(retries))),
            Self::Cap(cap) => format!("a cap of {}", duration(cap)),
            Self::Base(base) => format!("a base delay of {}", duration(base)),
            Self::Factor(factor) => format!("a factor of {}", significant(factor, 3)),
            Self::Quota(QuotaScope::PerClient) => "a retry quota for each client".into(),
            Self::Quota(QuotaScope::Shared) => "one SDK client's quota for all clients".into(),
        }
    }
}

/// The changes tried, nearest first, when `involved` are the strategies
/// the outcome is about.
fn candidates(params: &BackoffParams, involved: &[RetryStrategy]) -> Vec<Change> {
    let (retries, cap, base, factor) = (params.retries, params.cap, params.base, params.factor);
    let quota = involved
        .contains(&RetryStrategy::AwsQuota)
        .then_some(Change::Quota(match params.quota {
            QuotaScope::PerClient => QuotaScope::Shared,
            QuotaScope::Shared => QuotaScope::PerClient,
        }));
    quota
        .into_iter()
        .chain([
            Change::Retries(retries + retries.div_ceil(2)),
            Change::Cap(2.0 * cap),
            Change::Base(2.0 * base),
            Change::Base(base / 2.0),
            Change::Retries(2 * retries),
            Change::Factor(factor + 1.0),
            Change::Cap(5.0 * cap),
            Change::Retries(retries / 2),
            Change::Cap(cap / 2.0),
            Change::Retries(3 * retries),
        ])
        .collect()
}

/// What a change must do to count.
#[derive(Clone, Copy, Debug)]
enum Goal {
    /// No strategy meets the floor: one must.
    MeetFloor,
    /// The second must rank before the first, and better than it did:
    /// their places among the fleets as drawn.
    Overtake { first: usize, second: usize },
}

/// The search for a [`Flip`], one candidate change a step.
#[derive(Debug)]
pub struct FlipSearch {
    params: BackoffParams,
    seed: u64,
    goal: Goal,
    candidates: Vec<Change>,
    /// The run's own fleets, as drawn.
    fleets: Vec<Fleet>,
    tried: usize,
    found: Option<Flip>,
}

impl FlipSearch {
    /// A search for a change that turns `run`'s outcome around; nothing to
    /// search with a single strategy that meets the floor.
    pub fn new(params: &BackoffParams, seed: u64, run: &BackoffRun) -> Self {
        let strategies = params.strategies();
        let ranking = &run.verdict.ranking;
        let place = |rank: usize| {
            let strategy = ranking.get(rank)?.strategy;
            strategies.iter().position(|&drawn| drawn == strategy)
        };
        let goal = match (ranking.first(), place(0), place(1)) {
            (Some(first), _, _) if !first.meets_floor => Some(Goal::MeetFloor),
            (_, Some(first), Some(second)) => Some(Goal::Overtake { first, second }),
            _ => None,
        };
        let candidates = match goal {
            Some(Goal::MeetFloor) => candidates(params, &strategies),
            Some(Goal::Overtake { first, second }) => {
                candidates(params, &[strategies[first], strategies[second]])
            }
            None => Vec::new(),
        };
        Self {
            params: params.clone(),
            seed,
            goal: goal.unwrap_or(Goal::MeetFloor),
            candidates,
            fleets: run
                .fleets
                .iter()
                .map(|strategy| strategy.fleet.clone())
                .collect(),
            tried: 0,
            found: None,
        }
    }

    /// Tries the next change; false once a change is found or none is left.
    pub fn step(&mut self) -> bool {
        let Some(&change) = self.candidates.get(self.tried) else {
            return false;
        };
        self.tried += 1;
        self.found = change
            .applied(&self.params)
            .and_then(|changed| self.flipped(change, &changed));
        self.found.is_none() && self.tried < self.candidates.len()
    }

    /// The change found so far.
    pub fn found(&self) -> Option<&Flip> {
        self.found.as_ref()
    }

    /// Steps until the search is over; the change found, if any.
    pub fn finish(mut self) -> Option<Flip> {
        while self.step() {}
        self.found
    }

    /// The flip under `changed`, if it reaches the goal.
    fn flipped(&self, change: Change, changed: &BackoffParams) -> Option<Flip> {
        let strategies = changed.strategies();
        let backoffs = strategies
            .iter()
            .map(|&strategy| changed.backoff(strategy))
            .collect::<Result<Vec<_>, _>>()
            .ok()?;
        let fleets = simulate_fleets_against(
            &backoffs,
            changed.clients,
            changed.dependency(),
            changed.retries,
            self.seed,
        )
        .ok()?;
        let sentence = match self.goal {
            Goal::MeetFloor => {
                let (best, fleet) = strategies
                    .iter()
                    .zip(&fleets)
                    .min_by(|a, b| compare(changed, a.1, b.1))?;
                if !meets_floor(fleet, changed.floor) {
                    return None;
                }
                format!(
                    "With {}, {} would get {} of its clients through, meeting the {} % floor.",
                    change.describe(),
                    best.label(),
                    percent(fleet.succeeded_share()),
                    significant(changed.floor, 3)
                )
            }
            Goal::Overtake { first, second } => {
                let (one, two) = (&fleets[first], &fleets[second]);
                // A change counts only if the second now ranks better than
                // it did, not merely because the first did worse: fewer
                // retries that make both give up are no advice.
                let before = &self.fleets[second];
                if compare(changed, two, one).is_ge() || compare(changed, two, before).is_ge() {
                    return None;
                }
                format!(
                    "With {}, {} would rank before {}: {}, against {}.",
                    change.describe(),
                    strategies[second].label(),
                    strategies[first].label(),
                    figure(changed, two),
                    figure(changed, one)
                )
            }
        };
        Some(Flip {
            query: format!("{}={}", change.field().key, change.value()),
            change: change.describe(),
            sentence,
        })
    }
}
