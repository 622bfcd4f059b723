//! The verdict on a run: its strategies ranked by the chosen [`Objective`],
//! two more figures breaking ties in turn and then the order drawn, and one
//! sentence on why the first comes before the second.

use super::{BackoffParams, Fleet, Objective, RetryStrategy, StrategyFleet};
use crate::units::{count, duration, percent, significant};

/// The strategies of a run ranked by one objective, and why the first wins.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Verdict {
    /// Best first.
    pub ranking: Vec<RetryStrategy>,
    /// One sentence, with the figures that decide.
    pub sentence: String,
}

/// The client p99 the verdict compares: when 99 % had succeeded, never
/// (infinity) when more than 1 % gave up.
fn client_p99(fleet: &Fleet) -> f64 {
    fleet.success_99.unwrap_or(f64::INFINITY)
}

/// The load the verdict compares: the busiest second from D on over K, or
/// with no limit the busiest bin from D on in calls a second.
fn load(fleet: &Fleet) -> f64 {
    fleet
        .peak_load
        .unwrap_or(fleet.peak_after_outage.per_second)
}

impl Objective {
    /// The figure of `fleet` this objective ranks by, smaller first.
    fn figure(self, fleet: &Fleet) -> f64 {
        match self {
            Self::Recovery => fleet.healthy_at,
            Self::Load => load(fleet),
            Self::ClientP99 => client_p99(fleet),
            Self::GaveUp => f64::from(fleet.gave_up),
        }
    }

    /// This objective, then the two that break its ties in turn.
    fn with_tie_breakers(self) -> [Self; 3] {
        match self {
            Self::Recovery => [self, Self::ClientP99, Self::GaveUp],
            Self::Load => [self, Self::Recovery, Self::ClientP99],
            Self::ClientP99 => [self, Self::GaveUp, Self::Recovery],
            Self::GaveUp => [self, Self::ClientP99, Self::Recovery],
        }
    }

    /// The figure `fleet` is ranked by, in words.
    fn describe(self, fleet: &Fleet, params: &BackoffParams) -> String {
        let clients = u64::from(fleet.succeeded) + u64::from(fleet.gave_up);
        match self {
            Self::Recovery => match fleet.peak_load {
                Some(load) if load > 0.0 => format!(
                    "healthy again at {}, its busiest second from D on {}× capacity",
                    duration(fleet.healthy_at),
                    significant(load, 3)
                ),
                Some(_) => format!(
                    "healthy again at D = {}, as no call comes from D on",
                    duration(fleet.healthy_at)
                ),
                None => format!(
                    "healthy again at D = {}, as it serves every call",
                    duration(fleet.healthy_at)
                ),
            },
            Self::Load => match fleet.peak_load {
                Some(load) if load > 0.0 => format!(
                    "its busiest second from D on is {}× the capacity of {} /s",
                    significant(load, 3),
                    count(u64::from(params.capacity))
                ),
                Some(_) => "no call comes from D on".into(),
                None => format!(
                    "its busiest bin from D on brings {} calls a second",
                    significant(load(fleet), 3)
                ),
            },
            Self::ClientP99 => match fleet.success_99 {
                Some(at) => format!("99 % of its clients succeeded by {}", duration(at)),
                None => format!(
                    "only {} of its clients succeeded ({} of {}), short of 99 %",
                    percent(fleet.succeeded_share()),
                    count(u64::from(fleet.succeeded)),
                    count(clients)
                ),
            },
            Self::GaveUp => format!(
                "{} of its {} clients gave up",
                count(u64::from(fleet.gave_up)),
                count(clients)
            ),
        }
    }
}

/// The strategies of `fleets` ranked by the objective of `params`, ties
/// broken by two more figures in turn (see [`Objective`]) and then by the
/// order drawn, and one sentence on why the first comes before the second.
pub(super) fn verdict(params: &BackoffParams, fleets: &[StrategyFleet]) -> Verdict {
    let order = params.objective.with_tie_breakers();
    let figures =
        |strategy: &StrategyFleet| order.map(|objective| objective.figure(&strategy.fleet));
    // Each with its place, so that an unstable sort keeps the drawn order
    // of ties.
    let mut placed: Vec<(usize, &StrategyFleet)> = fleets.iter().enumerate().collect();
    placed.sort_unstable_by(|(a_place, a), (b_place, b)| {
        let (a, b) = (figures(a), figures(b));
        a.iter()
            .zip(&b)
            .fold(std::cmp::Ordering::Equal, |order, (a, b)| {
                order.then(a.total_cmp(b))
            })
            .then(a_place.cmp(b_place))
    });
    let ranked: Vec<&StrategyFleet> = placed.into_iter().map(|(_, fleet)| fleet).collect();
    let name = |objective: Objective| objective.label().to_lowercase();
    let describe = |objective: Objective, strategy: &StrategyFleet| {
        objective.describe(&strategy.fleet, params)
    };
    let objective = order[0];
    let sentence = match &ranked[..] {
        [] => String::new(),
        [only] => format!(
            "{} is the only strategy drawn: {}.",
            only.label,
            describe(objective, only)
        ),
        [first, second, ..] => {
            let (mine, theirs) = (figures(first), figures(second));
            let decider = order
                .into_iter()
                .zip(mine.iter().zip(&theirs))
                .find(|(_, (mine, theirs))| mine != theirs)
                .map(|(decider, _)| decider);
            match decider {
                Some(decider) if decider == objective => format!(
                    "{} ranks first by {}: {}; next, {}: {}.",
                    first.label,
                    name(objective),
                    describe(objective, first),
                    second.label,
                    describe(objective, second)
                ),
                Some(decider) => format!(
                    "{} and {} tie on {} ({}); {} ranks first on {}: {}; {}: {}.",
                    first.label,
                    second.label,
                    name(objective),
                    describe(objective, first),
                    first.label,
                    name(decider),
                    describe(decider, first),
                    second.label,
                    describe(decider, second)
                ),
                None => format!(
                    "{} and {} tie on {}, {} and {} ({}), so the one drawn first leads.",
                    first.label,
                    second.label,
                    name(order[0]),
                    name(order[1]),
                    name(order[2]),
                    describe(objective, first)
                ),
            }
        }
    };
    // With three or more, the last one too, where the objective alone
    // sets it apart from the first.
    let sentence = match ranked[..] {
        [first, _, .., last] if objective.figure(&last.fleet) != objective.figure(&first.fleet) => {
            format!(
                "{}; last, {}: {}.",
                sentence.trim_end_matches('.'),
                last.label,
                describe(objective, last)
            )
        }
        _ => sentence,
    };
    Verdict {
        ranking: ranked.iter().map(|strategy| strategy.strategy).collect(),
        sentence,
    }
}
