//! The Slots panel: its parameters in URLs and controls, the rules that
//! keep a plan in bounds, its presets and key numbers.

use super::series::{self, TimeSeries};
use super::snippet::{self, Snippet};
use super::{Figure, KEY_NUMBERS, PanelSpec, State};
use crate::error::InvalidInput;
use crate::field::{Field, Notice};
use crate::key_numbers::KeyNumber;
use crate::panel_params;
use crate::preset::Preset;
use crate::slots::*;
use crate::units::{count, counted, duration, significant};

panel_params! {
    impl SlotParams {
        cycle = 28_800, CYCLE: Field::number("cyc", "Cycle", "s", (60.0, 604_800.0), 60.0).log();
        buckets = 65_535, BUCKETS: Field::number("bk", "Buckets", "buckets", (1.0, 65_536.0), 1.0).log();
        accounts = 10_000, ACCOUNTS: Field::number("a", "Accounts", "accounts", (1.0, 1_000_000.0), 1.0).log();
        id_bytes = IdBytes::LastTwo, ID_BYTES: Field::choice("lb", "Bucket from", IdBytes::OPTIONS);
        kinds = 3, KINDS: Field::number("kj", "Job kinds", "kinds", (1.0, 16.0), 1.0);
        cost_sigma = 1.5, COST_SIGMA: Field::number("ct", "Cost tail σ", "", (0.0, 3.0), 0.1);
        delays = DelaySource::Pcg, DELAYS: Field::choice("dl", "Offsets", DelaySource::OPTIONS);
    }
    settle_rules = settle;
}

/// One byte holds at most 256 buckets, and Ruby-exact offsets cost enough
/// to cap the accounts sooner.
fn settle(params: &mut SlotParams) -> Vec<Notice> {
    let mut notices = Vec::new();
    let raw_values = params.id_bytes.raw_values();
    if params.buckets > raw_values {
        params.buckets = raw_values;
        notices.push(SlotParams::BUCKETS.notice(format!(
            "one byte has only {raw_values} values; using {raw_values}"
        )));
    }
    if params.delays == DelaySource::Ruby && params.accounts > MAX_RUBY_ACCOUNTS {
        params.accounts = MAX_RUBY_ACCOUNTS;
        notices.push(SlotParams::ACCOUNTS.notice(format!(
            "Ruby offsets are computed for at most {MAX_RUBY_ACCOUNTS} accounts; using {MAX_RUBY_ACCOUNTS}"
        )));
    }
    notices
}

// The figures, in the order the panel draws them after its key numbers.
pub const RING: Figure = Figure::new("ring", "The cycle as a ring of slots");
pub const INGRESS: Figure = Figure::new("ingress", "Queue ingress over one cycle");
pub const COSTS: Figure = Figure::new("costs", "Cost per slot: jumbo accounts");

/// The Slots panel, in the registry (`for_panel!`).
pub struct SlotsPanel;

impl PanelSpec for SlotsPanel {
    type Params = SlotParams;
    type Run = SlotRun;
    const SLUG: &'static str = "slots";
    const TITLE: &'static str = "Slots";
    const FIGURES: &'static [Figure] = &[KEY_NUMBERS, RING, INGRESS, COSTS];
    const PRESETS: &'static [Preset] = PRESETS;
    const FIELDS: &'static [Field] = SlotParams::FIELDS;

    fn params(state: &State) -> &SlotParams {
        &state.slots
    }

    fn params_mut(state: &mut State) -> &mut SlotParams {
        &mut state.slots
    }

    fn run(params: &SlotParams, seed: u64) -> Result<SlotRun, InvalidInput> {
        crate::slots::run(params, seed)
    }

    fn key_numbers(params: &SlotParams, run: &SlotRun) -> Vec<KeyNumber> {
        key_numbers(params, run)
    }

    fn time_series(run: &SlotRun) -> Option<TimeSeries> {
        let plan = &run.plan;
        let [starts, slotted] = series::counted(&plan.ingress_slotted, plan.bin_seconds);
        let all_at_once = plan.ingress_all_at_once.iter().map(|&c| f64::from(c));
        Some(TimeSeries::new(
            &["time_s", "ingress_slotted", "ingress_all_at_once"],
            vec![starts, slotted, all_at_once.collect()],
        ))
    }

    fn snippets(params: &SlotParams) -> Vec<Snippet> {
        snippet::slots::snippets(params)
    }
}

/// The panel's "try this" presets.
pub const PRESETS: &[Preset] = &[
    Preset {
        slug: "eight-hours-15-slots",
        title: "8 hours, 65,535 buckets → 15 slots",
        lesson: "Euclid's steps end at gcd(28,800, 65,535) = 15, so the cycle splits into 15 slots of 32 min holding 4,369 buckets each.",
        query: "cyc=28800&bk=65535",
    },
    Preset {
        slug: "two-kinds-8-slots",
        title: "2 reciprocal kinds on 8 slots",
        lesson: "With 8 one-hour slots the reports hand sits 4 slots from the payments hand, straight across the ring, the ideal distance 8 / 2.",
        query: "cyc=28800&bk=8&lb=1&kj=2",
    },
    Preset {
        slug: "three-kinds-kyc",
        title: "3 kinds: where does KYC go?",
        lesson: "KYC goes to offset 5, leaving kinds 2, 3 and 3 slots apart: whole slots cannot keep the ideal 8 / 3 ≈ 2.7, so the closest pair is 2 apart.",
        query: "cyc=28800&bk=8&lb=1&kj=3",
    },
    Preset {
        slug: "sql-15-slots",
        title: "15 slots with the SQL bucket formula",
        lesson: "256 / 15 rounds down to 17, so byte 255 lands in slot index 15, which no per-slot job selects: about one account in 256 is never synced.",
        query: "cyc=28800&bk=255&lb=1",
    },
    Preset {
        slug: "jumbo-accounts",
        title: "Jumbo accounts, σ = 2.5",
        lesson: "With a heavy cost tail the busiest hashed slot costs nearly twice the mean, while heaviest-first placement brings it down to the bound the single heaviest account sets.",
        query: "ct=2.5",
    },
];

/// The figures the panel prints beside its charts.
pub fn key_numbers(params: &SlotParams, run: &SlotRun) -> Vec<KeyNumber> {
    let accounts = f64::from(params.accounts);
    let n = f64::from(run.slots);
    let mut numbers = vec![
        KeyNumber::new(
            "slots",
            "Slots",
            count(u64::from(run.slots)),
            "n = gcd(cycle, buckets)",
        ),
        KeyNumber::new(
            "slot-length",
            "Slot length",
            duration(f64::from(run.slot_seconds)),
            "D = cycle / n",
        ),
        KeyNumber::new(
            "buckets-per-slot",
            "Buckets per slot",
            count(u64::from(run.buckets_per_slot)),
            "buckets / n",
        ),
        raw_values_per_slot(params, run),
        KeyNumber::new(
            "accounts-per-slot",
            "Accounts per slot",
            format!(
                "{}–{}",
                count(u64::from(run.even.fewest_accounts)),
                count(u64::from(run.even.most_accounts))
            ),
            "fewest–most in a slot, even mapping",
        )
        .beside(format!("N / n = {}", significant(accounts / n, 3))),
        KeyNumber::new(
            "kind-distance",
            "Closest kinds",
            run.kinds
                .min_ring_distance
                .map_or("one kind".into(), |d| format!("{d} slots")),
            "fewest slots between two kinds round the ring",
        )
        .beside(format!(
            "n / K = {} slots",
            significant(run.kinds.ideal_distance, 3)
        )),
        KeyNumber::new(
            "ingress-peak",
            "Ingress peak, slotted",
            count(u64::from(run.peak_ingress_slotted())),
            "most jobs entering the queue in one bin",
        )
        .beside(format!(
            "all at once: N = {}",
            count(u64::from(params.accounts))
        )),
        KeyNumber::new(
            "queue-peak",
            "Longest queue, slotted",
            count(u64::from(run.plan.peak_waiting_slotted)),
            "maxₛ (accountsₛ + n − s)",
        )
        .beside(format!(
            "all at once: {}",
            count(u64::from(run.plan.peak_waiting_all_at_once))
        )),
        sql_unscheduled(run),
    ];
    let mean = run.costs.hashed.mean;
    if mean > 0.0 {
        numbers.push(
            KeyNumber::new(
                "jumbo-hashed",
                "Heaviest slot, hashed",
                format!("{}× mean", significant(run.costs.hashed.max / mean, 3)),
                "max / mean slot cost, accounts in their bucket's slot",
            )
            .beside(format!(
                "lower bound {}× mean",
                significant(run.costs.lower_bound / mean, 3)
            )),
        );
        numbers.push(KeyNumber::new(
            "jumbo-balanced",
            "Heaviest slot, balanced",
            format!("{}× mean", significant(run.costs.balanced.max / mean, 3)),
            "max / mean, heaviest first into the lightest slot",
        ));
    }
    numbers
}

/// The raw values each slot's buckets take, in the even mapping: equal
/// when the buckets divide R, else the R mod B buckets that take one more
/// make their slots fuller.
fn raw_values_per_slot(params: &SlotParams, run: &SlotRun) -> KeyNumber {
    let per_slot = &run.even.raw_values_per_slot[..run.slots as usize];
    let (fewest, most) = (run.even.fewest_raw_values, run.even.most_raw_values);
    let fuller = per_slot
        .iter()
        .take_while(|&&values| values == most)
        .count();
    let value = if fewest == most {
        format!("{} in every slot", count(u64::from(most)))
    } else if per_slot[fuller..].iter().all(|&values| values == fewest) {
        let first = match fuller {
            1 => "the first slot".to_string(),
            _ => format!("the first {} slots", count(fuller as u64)),
        };
        format!(
            "{} in {first}, {} in the other {}",
            count(u64::from(most)),
            count(u64::from(fewest)),
            count((per_slot.len() - fuller) as u64)
        )
    } else {
        format!("{} to {}", count(u64::from(fewest)), count(u64::from(most)))
    };
    let buckets = params.buckets;
    let (share, extra) = (run.raw_values / buckets, run.raw_values % buckets);
    let theory = if extra == 0 {
        format!(
            "R = {} raw values, {} a bucket",
            count(u64::from(run.raw_values)),
            count(u64::from(share))
        )
    } else {
        format!(
            "R = {} raw values into B = {}: {} {} {}, the other {} take {}",
            count(u64::from(run.raw_values)),
            count(u64::from(buckets)),
            counted(u64::from(extra), "bucket", "buckets"),
            if extra == 1 { "takes" } else { "take" },
            count(u64::from(share + 1)),
            count(u64::from(buckets - extra)),
            count(u64::from(share))
        )
    };
    KeyNumber::new(
        "raw-per-slot",
        "Raw values per slot",
        value,
        "raw values whose bucket = raw mod B is in the slot",
    )
    .beside(theory)
}

/// The accounts the SQL formula never selects, beside why: the divisor
/// rounds down, so R mod n raw values land past the last slot.
fn sql_unscheduled(run: &SlotRun) -> KeyNumber {
    KeyNumber::new(
        "sql-unscheduled",
        "Never run by the SQL",
        count(u64::from(run.sql.unscheduled_accounts)),
        "accounts with raw / ⌊R / n⌋ ≥ n",
    )
    .beside({
        let stranded = run.raw_values % run.slots;
        let plural = if stranded == 1 { "" } else { "s" };
        format!(
            "⌊R / n⌋ = {}, so R mod n = {stranded} raw value{plural} past the last slot",
            count(u64::from(run.raw_values / run.slots))
        )
    })
}
