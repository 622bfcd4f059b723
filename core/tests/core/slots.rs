use proptest::prelude::*;
use stampede_core::error::InvalidInput;
use stampede_core::field::PanelParams;
use stampede_core::keys;
use stampede_core::panels;
use stampede_core::panels::Panel;
use stampede_core::panels::State;
use stampede_core::panels::snippet::slots::snippets;
use stampede_core::ruby;
use stampede_core::slots::{
    self, DelaySource, IdBytes, Layout, MAX_BINS, MAX_RUBY_ACCOUNTS, SlotParams, SlotRun,
    account_costs, account_ids, balance, euclid_steps, gcd, plan, reciprocals, run, uuid_text,
};
use stampede_core::stats::{chi_square, chi_square_p_value};
use stampede_core::units::count;

/// The slots PostgreSQL 15 gave a fixed list of UUIDs by running the SQL
/// snippet slot by slot, for five parameter sets
/// (`make_slots_sql_vectors.sh` beside it).
const SQL_VECTORS: &str = include_str!("../data/slots_sql_vectors.tsv");

/// Offsets Ruby 3.1 gives the ids of `account_ids(1, 6)` and
/// `account_ids(7, 6)` through the talk's UUID-to-seed conversion.
const RUBY_UUID_OFFSETS: &str = include_str!("../data/ruby_uuid_offsets.tsv");

fn params(
    cycle: u32,
    buckets: u32,
    id_bytes: IdBytes,
    accounts: u32,
    delays: DelaySource,
) -> SlotParams {
    SlotParams {
        cycle,
        buckets,
        id_bytes,
        accounts,
        delays,
        ..SlotParams::default()
    }
}

fn id_from_text(text: &str) -> [u8; 16] {
    keys::uuid_bytes(text).unwrap()
}

// ---------------------------------------------------------------------------
// Slot count

#[test]
fn euclid_finds_the_talks_fifteen_slots_step_by_step() {
    let steps: Vec<(u32, u32, u32, u32)> = euclid_steps(28_800, 65_535)
        .iter()
        .map(|s| (s.dividend, s.divisor, s.quotient, s.remainder))
        .collect();
    assert_eq!(
        steps,
        [
            (28_800, 65_535, 0, 28_800),
            (65_535, 28_800, 2, 7_935),
            (28_800, 7_935, 3, 4_995),
            (7_935, 4_995, 1, 2_940),
            (4_995, 2_940, 1, 2_055),
            (2_940, 2_055, 1, 885),
            (2_055, 885, 2, 285),
            (885, 285, 3, 30),
            (285, 30, 9, 15),
            (30, 15, 2, 0),
        ]
    );
    // Two bytes hold 65,536 values, not 65,535: with all of them as
    // buckets an 8-hour cycle has 128 slots.
    assert_eq!(gcd(28_800, 65_536), 128);
    assert_eq!(gcd(28_800, 256), 128);
}

proptest! {
    #[test]
    fn each_euclid_step_divides_and_the_last_divisor_is_the_gcd(a in 0u32.., b in 1u32..) {
        let steps = euclid_steps(a, b);
        for step in &steps {
            prop_assert_eq!(
                u64::from(step.quotient) * u64::from(step.divisor) + u64::from(step.remainder),
                u64::from(step.dividend)
            );
            prop_assert!(step.remainder < step.divisor);
        }
        let last = steps.last().unwrap();
        prop_assert_eq!(last.remainder, 0);
        prop_assert_eq!(last.divisor, gcd(a, b));
        prop_assert_eq!(a % last.divisor, 0);
        prop_assert_eq!(b % last.divisor, 0);
    }
}

// ---------------------------------------------------------------------------
// Ids, buckets and slots

#[test]
fn ids_are_uuid_v4_shaped_distinct_and_fixed_by_the_seed() {
    let ids = account_ids(1, 10_000).unwrap();
    for id in &ids {
        assert_eq!(id[6] >> 4, 4, "version nibble");
        assert_eq!(id[8] >> 6, 0b10, "variant bits");
    }
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), ids.len());
    assert_eq!(account_ids(1, 10).unwrap(), ids[..10]);
    assert_ne!(account_ids(2, 10).unwrap(), ids[..10]);
    assert_eq!(
        uuid_text(&ids[0]),
        "e36dfb07-45d4-4120-a877-71bd40f830dc",
        "the seed's accounts must not change: shared URLs would change"
    );
    assert_eq!(id_from_text(&uuid_text(&ids[0])), ids[0]);
}

#[test]
fn the_last_byte_of_generated_ids_is_uniform() {
    let mut counts = [0u32; 256];
    for id in account_ids(3, 256_000).unwrap() {
        counts[usize::from(id[15])] += 1;
    }
    let statistic = chi_square(&counts, |_| 1_000.0);
    // Fixed seed; a uniform byte fails p > 0.001 once in a thousand seeds.
    assert!(chi_square_p_value(statistic, 255) > 0.001, "{statistic}");
}

#[test]
fn the_talks_sql_leaves_byte_255_unscheduled_with_fifteen_slots() {
    // One byte, 255 buckets: gcd(28,800, 255) = 15, and 256 / 15 = 17.
    let run = run(
        &params(28_800, 255, IdBytes::Last, 50_000, DelaySource::Pcg),
        5,
    )
    .unwrap();
    assert_eq!(run.slots, 15);
    let mut raw_values = vec![17; 15];
    raw_values.push(1);
    assert_eq!(run.sql.raw_values_per_slot, raw_values);
    assert_eq!(run.sql.unscheduled_raw_values, [255]);
    let ids = account_ids(5, 50_000).unwrap();
    let byte_255 = ids.iter().filter(|id| id[15] == 255).count() as u32;
    assert!(byte_255 > 0);
    assert_eq!(run.sql.unscheduled_accounts, byte_255);
    assert_eq!(run.sql.accounts_per_slot[15], byte_255);
    let first_stranded: Vec<String> = ids
        .iter()
        .filter(|id| id[15] == 255)
        .take(12)
        .map(uuid_text)
        .collect();
    assert_eq!(run.sql.unscheduled_ids, first_stranded);
    assert!(run.even.unscheduled_ids.is_empty());
    // The even mapping schedules everyone; bucket 0 holds bytes 0 and 255,
    // so slot 0 has one raw value more than the others.
    assert_eq!(run.even.unscheduled_accounts, 0);
    assert_eq!(run.even.raw_values_per_slot.len(), 15);
    assert_eq!(run.even.raw_values_per_slot[0], 18);
    assert_eq!(
        (run.even.fewest_raw_values, run.even.most_raw_values),
        (17, 18)
    );
    assert_eq!(run.even.accounts_per_slot.iter().sum::<u32>(), 50_000);
}

#[test]
fn with_two_bytes_the_sql_strands_only_the_last_value() {
    let run = run(&SlotParams::default(), 1).unwrap();
    assert_eq!(
        (run.slots, run.slot_seconds, run.buckets_per_slot),
        (15, 1_920, 4_369)
    );
    assert_eq!(run.raw_values, 65_536);
    assert_eq!(run.sql.raw_values_per_slot.len(), 16);
    assert_eq!(run.sql.raw_values_per_slot[..15], [4_369; 15]);
    assert_eq!(run.sql.unscheduled_raw_values, [65_535]);
    // 65,535 buckets: the value 65,535 shares bucket 0 with the value 0.
    assert_eq!(
        (run.even.fewest_raw_values, run.even.most_raw_values),
        (4_369, 4_370)
    );
}

#[test]
fn when_the_slots_divide_the_raw_values_both_mappings_agree() {
    for (cycle, buckets, id_bytes) in [
        (28_800, 256, IdBytes::Last),
        (86_400, 65_536, IdBytes::LastTwo),
        (3_600, 16, IdBytes::Last),
    ] {
        let layout = Layout::new(cycle, buckets, id_bytes).unwrap();
        if buckets == id_bytes.raw_values() {
            for raw in 0..id_bytes.raw_values() {
                assert_eq!(layout.sql_slot(raw), layout.even_slot(raw));
            }
        }
        let run = run(
            &params(cycle, buckets, id_bytes, 2_000, DelaySource::Pcg),
            9,
        )
        .unwrap();
        assert!(run.sql.unscheduled_raw_values.is_empty());
        assert_eq!(run.sql.unscheduled_accounts, 0);
        assert_eq!(run.even.fewest_raw_values, run.even.most_raw_values);
    }
}

proptest! {
    #[test]
    fn every_slot_holds_the_same_number_of_buckets(
        cycle in 1u32..=604_800,
        buckets in 1u32..=65_536,
    ) {
        let layout = Layout::new(cycle, buckets, IdBytes::LastTwo).unwrap();
        prop_assert_eq!(cycle % layout.slots(), 0);
        prop_assert_eq!(buckets % layout.slots(), 0);
        prop_assert_eq!(layout.slots() * layout.slot_seconds(), cycle);
        let mut per_slot = vec![0u32; layout.slots() as usize];
        for bucket in 0..buckets {
            per_slot[layout.even_slot(bucket) as usize] += 1;
        }
        prop_assert!(per_slot.iter().all(|&n| n == buckets / layout.slots()));
        // The SQL form strands the R mod n raw values past n · ⌊R / n⌋.
        let width = 65_536 / layout.slots();
        let stranded = (0..65_536).filter(|&raw| layout.sql_slot(raw) >= layout.slots()).count();
        prop_assert_eq!(stranded as u32, 65_536 % layout.slots());
        prop_assert_eq!(layout.sql_slot(65_535), 65_535 / width);
    }
}

// ---------------------------------------------------------------------------
// The three-level plan

#[test]
fn offsets_match_ruby_through_the_talks_uuid_conversion() {
    let ruby = SlotParams {
        delays: DelaySource::Ruby,
        ..Default::default()
    };
    let run = run(&ruby, 1).unwrap();
    let mut rows = RUBY_UUID_OFFSETS
        .lines()
        .filter(|line| !line.starts_with('#'))
        .skip(1)
        .peekable();
    assert!(rows.peek().is_some());
    for row in rows {
        let columns: Vec<&str> = row.split('\t').collect();
        let id = id_from_text(columns[0]);
        let limit: u32 = columns[1].parse().unwrap();
        let expected: u32 = columns[2].parse().unwrap();
        assert_eq!(ruby::rand_below(&id, limit), expected, "{row}");
        // The run lists seed 1's first accounts with the same offsets.
        if let Some(account) = run.accounts.iter().find(|a| a.id == columns[0]) {
            match limit {
                1_920 => assert_eq!(account.delay, expected),
                28_800 => assert_eq!(account.all_at_once_delay, expected),
                _ => {}
            }
        }
    }
}

#[test]
fn listed_accounts_agree_with_their_own_id() {
    let run = run(
        &params(28_800, 255, IdBytes::Last, 1_000, DelaySource::Ruby),
        4,
    )
    .unwrap();
    for account in &run.accounts {
        let id = id_from_text(&account.id);
        assert_eq!(account.raw, u32::from(id[15]));
        assert_eq!(account.bucket, account.raw % 255);
        assert_eq!(account.slot, account.bucket * 15 / 255);
        assert_eq!(account.sql_slot, account.raw / 17);
        assert_eq!(account.delay, ruby::rand_below(&id, run.slot_seconds));
        assert_eq!(account.all_at_once_delay, ruby::rand_below(&id, 28_800));
    }
}

/// Slots whose starts fall on bin starts: `bins_per_slot` bins each.
fn check_plan(run: &SlotRun, accounts: u32) {
    let plan = &run.plan;
    let bins = plan.ingress_slotted.len();
    let bins_per_slot = bins / run.slots as usize;
    assert_eq!(bins, run.slots as usize * bins_per_slot);
    // Ingress: the per-slot jobs at 0, then each slot's accounts at its start.
    for (bin, &entered) in plan.ingress_slotted.iter().enumerate() {
        let expected = if bin % bins_per_slot == 0 {
            plan.accounts_per_slot[bin / bins_per_slot] + if bin == 0 { run.slots } else { 0 }
        } else {
            0
        };
        assert_eq!(entered, expected, "bin {bin}");
    }
    // Every job falls due inside its own slot: its per-slot job and accounts.
    for (slot, bins) in plan.due_slotted.chunks(bins_per_slot).enumerate() {
        assert_eq!(bins.iter().sum::<u32>(), plan.accounts_per_slot[slot] + 1);
    }
    assert_eq!(plan.ingress_all_at_once[0], accounts);
    assert_eq!(plan.ingress_all_at_once[1..].iter().sum::<u32>(), 0);
    assert_eq!(plan.due_all_at_once.iter().sum::<u32>(), accounts);
    // Counted at bin starts, the queue's longest moment is the exact peak.
    assert_eq!(
        plan.waiting_slotted.iter().max().copied(),
        Some(plan.peak_waiting_slotted)
    );
    assert_eq!(plan.peak_waiting_all_at_once, accounts);
    assert_eq!(plan.waiting_all_at_once[0], accounts);
}

#[test]
fn slotting_cuts_the_ingress_to_about_one_slots_share() {
    let accounts = 20_000;
    let run = run(
        &params(
            28_800,
            65_535,
            IdBytes::LastTwo,
            accounts,
            DelaySource::Ruby,
        ),
        2,
    )
    .unwrap();
    check_plan(&run, accounts);
    let plan = &run.plan;
    assert_eq!(plan.bin_seconds, 120.0);
    // About N / 15 a slot: 1,333 ± 3.8 standard deviations (√(N·p·(1 − p)) ≈ 35).
    let most = plan.accounts_per_slot.iter().max().copied().unwrap();
    assert!(most < 1_333 + 135, "{most}");
    assert!(plan.peak_waiting_slotted <= most + 15);
    assert!(plan.peak_waiting_slotted * 10 < plan.peak_waiting_all_at_once);
}

#[test]
fn both_plans_load_the_cycle_evenly() {
    let accounts = 60_000;
    let run = run(
        &params(28_800, 65_536, IdBytes::LastTwo, accounts, DelaySource::Pcg),
        3,
    )
    .unwrap();
    check_plan(&run, accounts);
    // 128 slots of 225 s, one bin each: about 469 accounts due a bin (the
    // slotted load also holds one per-slot job a bin). A fixed seed, and a
    // chi-square test against a flat load that fails one seed in a thousand.
    for due in [&run.plan.due_slotted, &run.plan.due_all_at_once] {
        assert_eq!(due.len(), 128);
        let expected = f64::from(due.iter().sum::<u32>()) / 128.0;
        let statistic = chi_square(due, |_| expected);
        assert!(chi_square_p_value(statistic, 127) > 0.001, "{statistic}");
    }
}

#[test]
fn many_slots_share_bins() {
    // gcd(604,800, 60,480) = 60,480 slots of 10 s: more slots than bins.
    let run = run(
        &params(604_800, 60_480, IdBytes::LastTwo, 5_000, DelaySource::Pcg),
        1,
    )
    .unwrap();
    assert_eq!(run.slots, 60_480);
    assert_eq!(run.plan.ingress_slotted.len(), MAX_BINS as usize);
    assert_eq!(run.plan.ingress_slotted.iter().sum::<u32>(), 5_000 + 60_480);
    assert_eq!(run.plan.due_slotted.iter().sum::<u32>(), 5_000 + 60_480);
    assert_eq!(run.kinds.steps.len(), 64);
}

#[test]
fn the_plan_alone_matches_the_run() {
    let slot_params = params(28_800, 65_535, IdBytes::LastTwo, 3_000, DelaySource::Ruby);
    let layout = Layout::new(28_800, 65_535, IdBytes::LastTwo).unwrap();
    let ids = account_ids(11, 3_000).unwrap();
    assert_eq!(
        plan(&layout, &ids, DelaySource::Ruby).unwrap(),
        run(&slot_params, 11).unwrap().plan
    );
}

// ---------------------------------------------------------------------------
// Reciprocal job kinds

#[test]
fn kinds_sit_equidistant_on_the_ring() {
    let two = reciprocals(15, 2).unwrap();
    assert_eq!(two.offsets, [0, 7]);
    assert_eq!(two.min_ring_distance, Some(7));
    assert_eq!(two.steps[0], [0, 7]);
    assert_eq!(two.steps[10], [10, 2]);
    let three = reciprocals(15, 3).unwrap();
    assert_eq!(three.offsets, [0, 5, 10]);
    assert_eq!(three.min_ring_distance, Some(5));
    assert_eq!(three.ideal_distance, 5.0);
    let four = reciprocals(8, 4).unwrap();
    assert_eq!(four.offsets, [0, 2, 4, 6]);
    assert_eq!(four.steps.len(), 8);
    assert_eq!(reciprocals(15, 1).unwrap().min_ring_distance, None);
    // More kinds than slots: two kinds must share a slot.
    assert_eq!(reciprocals(3, 4).unwrap().min_ring_distance, Some(0));
}

proptest! {
    #[test]
    fn kinds_stay_floor_n_over_k_apart_and_never_meet(slots in 1u32..=65_536, kinds in 2u32..=16) {
        let spread = reciprocals(slots, kinds).unwrap();
        prop_assert_eq!(spread.min_ring_distance, Some(slots / kinds));
        for (step, working) in spread.steps.iter().enumerate() {
            for (kind, &slot) in working.iter().enumerate() {
                prop_assert_eq!(slot, (step as u32 + spread.offsets[kind]) % slots);
            }
            if kinds <= slots {
                let mut distinct = working.clone();
                distinct.sort_unstable();
                distinct.dedup();
                prop_assert_eq!(distinct.len(), working.len());
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Weighted accounts

#[test]
fn lognormal_costs_have_mean_one() {
    let costs = account_costs(8, 200_000, 1.0).unwrap();
    let mean = costs.iter().sum::<f64>() / costs.len() as f64;
    // sd of one cost is √(e − 1) ≈ 1.31, of the mean 0.003; 0.015 is 5 sd.
    assert!((mean - 1.0).abs() < 0.015, "{mean}");
    assert!(
        account_costs(8, 100, 0.0)
            .unwrap()
            .iter()
            .all(|&c| c == 1.0)
    );
    assert_eq!(account_costs(8, 100, 2.0), account_costs(8, 100, 2.0));
}

#[test]
fn equal_costs_balance_to_within_one_account() {
    let costs = vec![1.0; 1_003];
    let slot_of_account: Vec<u32> = (0..1_003).map(|i| i % 7).collect();
    let balance = balance(&costs, &slot_of_account, 10).unwrap();
    assert_eq!(balance.balanced.max, 101.0);
    assert_eq!(balance.balanced.min, 100.0);
    assert_eq!(balance.hashed.max, 144.0);
    assert_eq!(balance.hashed.min, 0.0);
    assert_eq!(balance.lower_bound, 100.3);
}

#[test]
fn greedy_placement_puts_each_account_in_the_lightest_slot() {
    // Heaviest first: 7 → slot 0, 5 → slot 1, 4 → slot 1 (5 + 4 = 9),
    // 3 → slot 0 (7 + 3 = 10), 1 → slot 1.
    let costs = [3.0, 7.0, 1.0, 5.0, 4.0];
    let balance = balance(&costs, &[0, 0, 0, 0, 1], 2).unwrap();
    assert_eq!(balance.balanced.per_slot, [10.0, 10.0]);
    assert_eq!(balance.hashed.per_slot, [16.0, 4.0]);
    assert_eq!(balance.heaviest_account, 7.0);
}

#[test]
fn balancing_evens_out_jumbo_accounts() {
    let run = run(
        &SlotParams {
            cost_sigma: 2.0,
            delays: DelaySource::Pcg,
            accounts: 50_000,
            ..SlotParams::default()
        },
        6,
    )
    .unwrap();
    let costs = &run.costs;
    let total: f64 = costs.hashed.per_slot.iter().sum();
    let balanced_total: f64 = costs.balanced.per_slot.iter().sum();
    assert!((total - balanced_total).abs() < 1e-6 * total);
    // List scheduling's guarantee: the heaviest slot exceeds the lightest by
    // at most one account, so by at most the heaviest account.
    assert!(costs.balanced.max - costs.balanced.min <= costs.heaviest_account);
    assert!(costs.balanced.max >= costs.lower_bound);
    assert!(costs.balanced.max <= costs.hashed.mean + costs.heaviest_account);
    assert!(costs.balanced.max < costs.hashed.max);
}

// ---------------------------------------------------------------------------
// Parameters and bad input

#[test]
fn settling_keeps_one_byte_to_256_buckets_and_ruby_to_its_cap() {
    let (state, notices) = State::from_query("v=1&p=slots&lb=1&bk=65535&a=1000000&dl=ruby");
    assert_eq!(state.panel, Panel::Slots);
    assert_eq!(state.slots.buckets, 256);
    assert_eq!(state.slots.accounts, MAX_RUBY_ACCOUNTS);
    let keys: Vec<&str> = notices.iter().map(|n| n.key).collect();
    assert_eq!(keys, ["bk", "a"]);
    let (state, notices) = State::from_query("v=1&p=slots&lb=2&bk=65535&a=1000000&dl=pcg");
    assert!(notices.is_empty());
    assert_eq!(
        (state.slots.buckets, state.slots.accounts),
        (65_535, 1_000_000)
    );
    let mut settled = state.slots.clone();
    assert!(settled.settle().is_empty());
}

#[test]
fn bad_input_is_refused_by_name_without_panicking() {
    let field = |params: SlotParams| run(&params, 1).map(|_| ()).unwrap_err().field;
    let base = SlotParams::default();
    assert_eq!(
        field(SlotParams {
            cycle: 0,
            ..base.clone()
        }),
        "cycle"
    );
    assert_eq!(
        field(SlotParams {
            cycle: 604_801,
            ..base.clone()
        }),
        "cycle"
    );
    assert_eq!(
        field(SlotParams {
            buckets: 0,
            ..base.clone()
        }),
        "buckets"
    );
    let one_byte = SlotParams {
        id_bytes: IdBytes::Last,
        buckets: 257,
        ..base.clone()
    };
    assert_eq!(field(one_byte), "buckets");
    assert_eq!(
        field(SlotParams {
            accounts: 0,
            ..base.clone()
        }),
        "accounts"
    );
    let too_many_ruby = SlotParams {
        accounts: MAX_RUBY_ACCOUNTS + 1,
        delays: DelaySource::Ruby,
        ..base.clone()
    };
    assert_eq!(field(too_many_ruby), "accounts");
    let too_many = SlotParams {
        accounts: 1_000_001,
        delays: DelaySource::Pcg,
        ..base.clone()
    };
    assert_eq!(field(too_many), "accounts");
    assert_eq!(
        field(SlotParams {
            kinds: 0,
            ..base.clone()
        }),
        "job kinds"
    );
    assert_eq!(
        field(SlotParams {
            kinds: 17,
            ..base.clone()
        }),
        "job kinds"
    );
    for sigma in [f64::NAN, -0.1, 3.5, f64::INFINITY] {
        let bad = SlotParams {
            cost_sigma: sigma,
            ..base.clone()
        };
        assert_eq!(field(bad), "cost tail σ");
    }
    assert!(matches!(
        Layout::new(60, 0, IdBytes::Last),
        Err(InvalidInput {
            field: "buckets",
            ..
        })
    ));
}

#[test]
fn the_parts_refuse_what_they_cannot_compute() {
    let field = |result: Result<(), InvalidInput>| result.unwrap_err().field;
    assert_eq!(field(account_ids(1, 1_000_001).map(drop)), "accounts");
    assert_eq!(
        field(account_costs(1, 1_000_001, 1.0).map(drop)),
        "accounts"
    );
    let layout = Layout::new(60, 60, IdBytes::Last).unwrap();
    let too_many = vec![[0u8; 16]; 1_000_001];
    assert_eq!(
        field(plan(&layout, &too_many, DelaySource::Pcg).map(drop)),
        "accounts"
    );
    assert_eq!(field(reciprocals(0, 2).map(drop)), "slots");
    assert_eq!(field(reciprocals(65_537, 2).map(drop)), "slots");
    assert_eq!(field(reciprocals(15, 0).map(drop)), "job kinds");
    assert_eq!(field(reciprocals(15, 17).map(drop)), "job kinds");
    assert_eq!(field(balance(&[1.0], &[0], 0).map(drop)), "slots");
    assert_eq!(field(balance(&[1.0, 2.0], &[0], 2).map(drop)), "slots");
    assert_eq!(field(balance(&[1.0], &[2], 2).map(drop)), "slots");
    assert_eq!(field(balance(&[f64::NAN], &[0], 2).map(drop)), "cost");
    assert_eq!(field(balance(&[-1.0], &[0], 2).map(drop)), "cost");
    let empty = balance(&[], &[], 3).unwrap();
    assert_eq!(empty.balanced.per_slot, [0.0; 3]);
    assert_eq!(empty.lower_bound, 0.0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn any_numbers_give_a_run_or_an_error(
        cycle in prop_oneof![Just(0u32), 1u32..=700_000, Just(u32::MAX)],
        buckets in prop_oneof![Just(0u32), 1u32..=70_000, Just(u32::MAX)],
        accounts in 0u32..300,
        kinds in 0u32..20,
        cost_sigma in -1.0..4.0f64,
        one_byte in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let id_bytes = if one_byte { IdBytes::Last } else { IdBytes::LastTwo };
        let slot_params = SlotParams {
            cycle, buckets, accounts, kinds, cost_sigma, id_bytes,
            delays: DelaySource::Ruby,
        };
        if let Ok(run) = run(&slot_params, seed) {
            prop_assert_eq!(run.slots * run.slot_seconds, cycle);
            prop_assert_eq!(run.even.accounts_per_slot.iter().sum::<u32>(), accounts);
            prop_assert_eq!(run.sql.accounts_per_slot.iter().sum::<u32>(), accounts);
            prop_assert_eq!(run.plan.ingress_slotted.iter().sum::<u32>(), accounts + run.slots);
            prop_assert_eq!(run.plan.due_all_at_once.iter().sum::<u32>(), accounts);
            for account in &run.accounts {
                prop_assert!(account.slot < run.slots);
                prop_assert!(account.delay < run.slot_seconds);
                prop_assert!(account.all_at_once_delay < cycle);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Key numbers, presets and the panel's text

/// A key number as (key, value, theory).
type Figure = (&'static str, String, Option<String>);

fn figures(query: &str) -> (SlotRun, Vec<Figure>) {
    let (state, notices) = State::from_query(&format!("v=1&p=slots&s=1&{query}"));
    assert!(notices.is_empty(), "{notices:?}");
    let run = run(&state.slots, state.seed).unwrap();
    let numbers = panels::slots::key_numbers(&state.slots, &run)
        .into_iter()
        .map(|n| (n.key, n.value, n.theory))
        .collect();
    (run, numbers)
}

fn value<'a>(numbers: &'a [Figure], key: &str) -> &'a str {
    &numbers.iter().find(|n| n.0 == key).unwrap().1
}

#[test]
fn the_default_key_numbers_are_the_talks_fifteen_slots() {
    let (_, numbers) = figures("");
    assert_eq!(value(&numbers, "slots"), "15");
    assert_eq!(value(&numbers, "slot-length"), "32 min");
    assert_eq!(value(&numbers, "buckets-per-slot"), "4,369");
    // Three kinds on 15 slots sit exactly 5 apart, the ideal 15 / 3.
    assert_eq!(value(&numbers, "kind-distance"), "5 slots");
}

#[test]
fn the_derivation_writes_euclids_steps_and_names_the_gcd() {
    let (run, _) = figures("");
    let lines = run.derivation();
    assert_eq!(lines[0], "28,800 = 0 · 65,535 + 28,800");
    assert_eq!(lines[1], "65,535 = 2 · 28,800 + 7,935");
    assert_eq!(
        lines.last().unwrap(),
        "remainder 0, so gcd(28,800, 65,535) = 15"
    );
    assert_eq!(lines.len(), 11);
}

#[test]
fn the_presets_show_what_their_lessons_say() {
    let (_, two) = figures("cyc=28800&bk=8&lb=1&kj=2");
    assert_eq!(value(&two, "slots"), "8");
    assert_eq!(value(&two, "kind-distance"), "4 slots");
    let (kyc, three) = figures("cyc=28800&bk=8&lb=1&kj=3");
    assert_eq!(kyc.kinds.offsets, [0, 2, 5]);
    assert_eq!(value(&three, "kind-distance"), "2 slots");
    let (sql, numbers) = figures("cyc=28800&bk=255&lb=1");
    assert_eq!(value(&numbers, "slots"), "15");
    assert_eq!(sql.sql.unscheduled_raw_values, [255]);
    let warning = sql.sql_warning().unwrap();
    assert!(
        warning.starts_with(
            "raw / (256 / 15) divides by 17, not 256 / 15: raw value 255 lands at slot index 15,"
        ),
        "{warning}"
    );
    assert_eq!(figures("cyc=28800&bk=8&lb=1").0.sql_warning(), None);
    let stranded = &numbers.iter().find(|n| n.0 == "sql-unscheduled").unwrap();
    assert_eq!(
        stranded.2.as_deref(),
        Some("⌊R / n⌋ = 17, so R mod n = 1 raw value past the last slot")
    );
    // 10,000 accounts, one byte value in 256: about 39 never run.
    let never: u32 = stranded.1.parse().unwrap();
    assert!((20..=60).contains(&never), "{never}");
    let (jumbo, _) = figures("ct=2.5");
    let mean = jumbo.costs.hashed.mean;
    assert!(jumbo.costs.hashed.max / mean > 1.5);
    assert!(jumbo.costs.balanced.max <= jumbo.costs.lower_bound * 1.01);
    for preset in panels::slots::PRESETS {
        assert!(preset.lesson.ends_with('.'), "{}", preset.slug);
        assert!(!preset.lesson[..preset.lesson.len() - 1].contains(". "));
    }
    assert!(panels::slots::PRESETS.len() >= 4);
}

#[test]
fn a_slot_says_which_kind_works_on_it_when() {
    let (run, _) = figures("cyc=28800&bk=8&lb=1&kj=3");
    // At the start payments works on slot 0, reports on 2 and KYC on 5;
    // an hour later every kind has moved one slot on.
    assert_eq!(run.kinds_on(5, run.step_at(0.0)), [2]);
    assert_eq!(run.kinds_on(6, run.step_at(3_600.0)), [2]);
    assert_eq!(run.step_at(28_800.0 + 10.0), 0);
    let text = run.describe_slot(5, 0.0);
    assert!(
        text.starts_with("Slot 6 of 8 (5 h–6 h into the cycle): "),
        "{text}"
    );
    assert!(text.contains("KYC works on its"), "{text}");
    assert!(
        run.describe_slot(1, 0.0)
            .ends_with("no kind works on it now.")
    );
    assert_eq!(slots::kind_name(3), "kind 4");
}

// ---------------------------------------------------------------------------
// The SQL snippet

fn id_bytes_from_count(bytes: u32) -> IdBytes {
    match bytes {
        1 => IdBytes::Last,
        _ => IdBytes::LastTwo,
    }
}

#[test]
fn postgres_ran_the_snippet_into_the_cores_slots() {
    let mut rows = SQL_VECTORS
        .lines()
        .filter(|line| !line.starts_with('#'))
        .skip(1)
        .peekable();
    assert!(rows.peek().is_some());
    let mut sets = Vec::new();
    for row in rows {
        let columns: Vec<&str> = row.split('\t').collect();
        let [cycle, buckets, bytes, slots, slot] =
            [0, 1, 2, 3, 5].map(|column| columns[column].parse::<u32>().unwrap());
        let id_bytes = id_bytes_from_count(bytes);
        let layout = Layout::new(cycle, buckets, id_bytes).unwrap();
        assert_eq!(layout.slots(), slots, "{row}");
        let id = id_from_text(columns[4]);
        assert_eq!(layout.even_slot(id_bytes.raw(&id)), slot, "{row}");
        if !sets.contains(&(cycle, buckets, bytes, slots)) {
            sets.push((cycle, buckets, bytes, slots));
        }
    }
    // 65,535 buckets from two bytes; 100, 255 and 64 from one; and 65,535
    // slots, where bucket · n passes 2³¹ and needs the bigint.
    assert_eq!(
        sets,
        [
            (28_800, 65_535, 2, 15),
            (28_800, 100, 1, 100),
            (28_800, 255, 1, 15),
            (28_800, 64, 1, 64),
            (262_140, 65_535, 2, 65_535),
        ]
    );
    for (cycle, buckets, bytes, slots) in sets {
        let params = SlotParams {
            cycle,
            buckets,
            id_bytes: id_bytes_from_count(bytes),
            ..SlotParams::default()
        };
        let [snippet] = <[_; 1]>::try_from(snippets(&params)).unwrap();
        assert_eq!((snippet.key, snippet.language), ("postgres", "sql"));
        let code = &snippet.code;
        let raw = match bytes {
            1 => "get_byte(uuid_send(id), 15)",
            _ => "(get_byte(uuid_send(id), 14) * 256 + get_byte(uuid_send(id), 15))",
        };
        let slot = format!("WHERE ({raw} % {buckets})::bigint * {slots} / {buckets} = $1;");
        assert!(code.ends_with(&slot), "{code}");
        assert!(
            code.starts_with(&format!(
                "-- The accounts of slot $1 (0 to {}).",
                count(u64::from(slots - 1))
            )),
            "{code}"
        );
        // Only the 65,535 slots multiply past integer's range.
        assert_eq!(code.contains("would overflow"), slots == 65_535, "{code}");
    }
}

#[test]
fn the_snippets_note_counts_what_the_common_form_strands() {
    let note = |query: &str| {
        let (state, notices) = State::from_query(&format!("p=slots&{query}"));
        assert!(notices.is_empty(), "{notices:?}");
        snippets(&state.slots).remove(0).note
    };
    assert_eq!(
        note("cyc=28800&bk=255&lb=1"),
        "For a table accounts with a uuid column id. Run it once per slot, $1 from 0 to 14: every account is in exactly one. The common \
         raw / (256 / 15) divides by 17, so raw value 255 lands at slot 15, which no job asks \
         for: about 0.39 % of accounts are never synced."
    );
    assert_eq!(
        note("cyc=28800&bk=100&lb=1"),
        "For a table accounts with a uuid column id. Run it once per slot, $1 from 0 to 99: every account is in exactly one. The common \
         raw / (256 / 100) divides by 2, so the 56 raw values from 200 on land at slot 100 or \
         above, which no job asks for: about 22 % of accounts are never synced."
    );
    assert_eq!(
        note("cyc=28800&bk=64&lb=1"),
        "For a table accounts with a uuid column id. Run it once per slot, $1 from 0 to 63: every account is in exactly one."
    );
    // What the note says is what the core's model of that SQL does.
    let layout = Layout::new(28_800, 255, IdBytes::Last).unwrap();
    assert_eq!((layout.sql_slot(254), layout.sql_slot(255)), (14, 15));
    // Buckets one byte cannot hold make no layout, and no snippet.
    let unsettled = SlotParams {
        buckets: 300,
        id_bytes: IdBytes::Last,
        ..SlotParams::default()
    };
    assert!(snippets(&unsettled).is_empty());
}
