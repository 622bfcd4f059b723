//! How the verdict orders two fleets: first whether each has at least the
//! floor's share of clients succeed, then, for those that do, the chosen
//! [`Objective`] and its two tie-breakers, and for those that don't, how
//! many succeeded. The figures compared are also given in words.

use std::cmp::Ordering;

use super::{BackoffParams, Fleet, Objective};
use crate::units::{count, duration, percent, significant};

/// The client p99 the verdict compares: when 99 % had succeeded, never
/// (infinity) when more than 1 % gave up.
pub(super) fn client_p99(fleet: &Fleet) -> f64 {
    fleet.success_99.unwrap_or(f64::INFINITY)
}

/// The load the verdict compares: the busiest second from D on over K, or
/// with no limit the busiest bin from D on in calls a second.
pub(super) fn load(fleet: &Fleet) -> f64 {
    fleet
        .peak_load
        .unwrap_or(fleet.peak_after_outage.per_second)
}

/// Whether at least `floor` percent of the fleet's clients succeeded.
pub(super) fn meets_floor(fleet: &Fleet, floor: f64) -> bool {
    let clients = f64::from(fleet.succeeded) + f64::from(fleet.gave_up);
    100.0 * f64::from(fleet.succeeded) >= floor * clients
}

/// Whether `a` ranks before `b` (`Less`), after it, or level with it, the
/// order drawn aside: first whether each meets the floor, then the
/// successes of those short of it, then the objective and its two
/// tie-breakers.
pub(super) fn compare(params: &BackoffParams, a: &Fleet, b: &Fleet) -> Ordering {
    let (a_meets, b_meets) = (meets_floor(a, params.floor), meets_floor(b, params.floor));
    let figures = |fleet: &Fleet| {
        params
            .objective
            .with_tie_breakers()
            .map(|objective| objective.figure(fleet))
    };
    let by_objective = figures(a)
        .iter()
        .zip(&figures(b))
        .fold(Ordering::Equal, |order, (a, b)| order.then(a.total_cmp(b)));
    b_meets
        .cmp(&a_meets)
        .then(if a_meets {
            Ordering::Equal
        } else {
            b.succeeded.cmp(&a.succeeded)
        })
        .then(by_objective)
}

impl Objective {
    /// The figure of `fleet` this objective ranks by, smaller first.
    pub(super) fn figure(self, fleet: &Fleet) -> f64 {
        match self {
            Self::Recovery => fleet.healthy_at,
            Self::Load => load(fleet),
            Self::ClientP99 => client_p99(fleet),
            Self::GaveUp => f64::from(fleet.gave_up),
        }
    }

    /// This objective, then the two that break its ties in turn.
    pub(super) fn with_tie_breakers(self) -> [Self; 3] {
        match self {
            Self::Recovery => [self, Self::ClientP99, Self::GaveUp],
            Self::Load => [self, Self::Recovery, Self::ClientP99],
            Self::ClientP99 => [self, Self::GaveUp, Self::Recovery],
            Self::GaveUp => [self, Self::ClientP99, Self::Recovery],
        }
    }

    /// The objective's name within a sentence.
    pub(super) fn name(self) -> String {
        self.label().to_ascii_lowercase()
    }

    /// The figure `fleet` is ranked by, in words.
    pub(super) fn describe(self, fleet: &Fleet, params: &BackoffParams) -> String {
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
                    "only {} of its clients succeeded, short of 99 %",
                    percent(fleet.succeeded_share()),
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

/// What `fleet` is ranked by, in words: the objective's figure, or how
/// many succeeded when short of the floor.
pub(super) fn figure(params: &BackoffParams, fleet: &Fleet) -> String {
    if meets_floor(fleet, params.floor) {
        params.objective.describe(fleet, params)
    } else {
        format!("{} succeeded", percent(fleet.succeeded_share()))
    }
}
