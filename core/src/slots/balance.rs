//! Jumbo accounts: when a few accounts cost far more than the rest, equal
//! counts per slot are not equal work. Costs are drawn lognormal, and the
//! balance puts each account, costliest first, into the slot with the
//! least cost so far (longest processing time first), against the even
//! mapping's totals.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use serde::Serialize;

use super::{COSTS, MAX_ACCOUNTS, MAX_COST_SIGMA, MAX_SLOTS};
use crate::dist::Dist;
use crate::error::{InvalidInput, count_at_most, non_negative, within};
use crate::rng::seeded;
use crate::stats;

/// Total account cost in each slot under one placement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlotLoad {
    pub per_slot: Vec<f64>,
    pub max: f64,
    pub min: f64,
    pub mean: f64,
}

impl SlotLoad {
    fn new(per_slot: Vec<f64>) -> Self {
        let max = per_slot.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let min = per_slot.iter().copied().fold(f64::INFINITY, f64::min);
        let mean = per_slot.iter().sum::<f64>() / per_slot.len() as f64;
        Self {
            per_slot,
            max,
            min,
            mean,
        }
    }
}

/// Weighted accounts placed by their bucket and by cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CostBalance {
    /// The most an account costs; the mean cost is 1.
    pub heaviest_account: f64,
    /// No placement's heaviest slot can be lighter than this: the larger of
    /// the mean slot cost and the heaviest account.
    pub lower_bound: f64,
    /// Each account in its even slot.
    pub hashed: SlotLoad,
    /// Heaviest first, each into the lightest slot.
    pub balanced: SlotLoad,
}

/// Lognormal costs of mean 1 with this σ (all 1 for σ = 0), one per account
/// in order, from the seed's `slots.costs` stream.
pub fn account_costs(seed: u64, count: u32, sigma: f64) -> Result<Vec<f64>, InvalidInput> {
    count_at_most("accounts", u64::from(count), u64::from(MAX_ACCOUNTS))?;
    let sigma = within("cost tail σ", sigma, 0.0, MAX_COST_SIGMA)?;
    let dist = if sigma == 0.0 {
        Dist::constant(1.0)?
    } else {
        Dist::lognormal(-sigma * sigma / 2.0, sigma)?
    };
    let mut rng = seeded(seed, COSTS);
    Ok((0..count).map(|_| dist.sample(&mut rng)).collect())
}

/// A slot's running total, ordered lightest first and then by slot.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Total {
    cost: f64,
    slot: u32,
}

impl Eq for Total {}

impl PartialOrd for Total {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Total {
    fn cmp(&self, other: &Self) -> Ordering {
        self.cost
            .total_cmp(&other.cost)
            .then(self.slot.cmp(&other.slot))
    }
}

/// Costs summed per slot for the even placement (`slot_of_account`) and the
/// greedy balanced one: at most [`MAX_ACCOUNTS`] finite, non-negative costs,
/// each with its slot below `slots` (1 to [`MAX_SLOTS`]).
pub fn balance(
    costs: &[f64],
    slot_of_account: &[u32],
    slots: u32,
) -> Result<CostBalance, InvalidInput> {
    if slots == 0 {
        return Err(InvalidInput::new("slots", "costs need at least 1 slot"));
    }
    count_at_most("slots", u64::from(slots), u64::from(MAX_SLOTS))?;
    count_at_most("accounts", costs.len() as u64, u64::from(MAX_ACCOUNTS))?;
    if slot_of_account.len() != costs.len() {
        return Err(InvalidInput::new(
            "slots",
            format!("{} slots for {} costs", slot_of_account.len(), costs.len()),
        ));
    }
    if let Some(&slot) = slot_of_account.iter().find(|&&slot| slot >= slots) {
        return Err(InvalidInput::new(
            "slots",
            format!("slot {slot} is not below {slots}"),
        ));
    }
    for &cost in costs {
        non_negative("cost", cost)?;
    }
    let mut hashed = vec![0.0; slots as usize];
    for (&cost, &slot) in costs.iter().zip(slot_of_account) {
        hashed[slot as usize] += cost;
    }
    // Only the costs matter, heaviest first, not whose they are, so they
    // are sorted as bits: the docs module already holds that sort, and one
    // of accounts by cost would add about 3 KB of wasm.
    let mut lightest_first = costs.to_vec();
    stats::sort_as_total_cmp(&mut lightest_first);
    let mut lightest: BinaryHeap<Reverse<Total>> = (0..slots)
        .map(|slot| Reverse(Total { cost: 0.0, slot }))
        .collect();
    for &cost in lightest_first.iter().rev() {
        if let Some(Reverse(mut total)) = lightest.pop() {
            total.cost += cost;
            lightest.push(Reverse(total));
        }
    }
    let mut balanced = vec![0.0; slots as usize];
    for Reverse(total) in lightest {
        balanced[total.slot as usize] = total.cost;
    }
    let hashed = SlotLoad::new(hashed);
    let heaviest_account = costs.iter().copied().fold(0.0, f64::max);
    Ok(CostBalance {
        heaviest_account,
        lower_bound: hashed.mean.max(heaviest_account),
        hashed,
        balanced: SlotLoad::new(balanced),
    })
}
