//! Slots: a cycle cut into as many slots as both the cycle and the buckets allow.
//!
//! Ids fall into a fixed number of buckets B by their last byte or last two
//! bytes (the "raw value", one of R = 256 or 65,536): bucket = raw mod B. To
//! run every bucket once per cycle of C seconds, with each slot holding the
//! same number of buckets and lasting a whole number of seconds, the slot
//! count must divide both: n = gcd(C, B), found by Euclid's steps
//! a = q·b + r until r = 0. For an 8-hour cycle and 65,535 buckets that is
//! gcd(28,800, 65,535) = 15 slots of 1,920 s, 4,369 buckets each.
//!
//! Two ways to pick a slot's accounts:
//! - even: slot = bucket · n / B (integer division), exactly B / n buckets
//!   a slot;
//! - the talk's SQL, `raw / (R / of) = slot` with of = n: integer division
//!   by w = ⌊R / n⌋ gives ⌊(R − 1) / w⌋ + 1 slot indices, more than n
//!   whenever n does not divide R. The R mod n raw values past n · w land at
//!   index n or above, which no per-slot job asks for: those accounts are
//!   never scheduled (with 15 slots and one byte, byte 255 lands in slot 15).
//!
//! The three-level plan: a bootstrap job enqueues one job per slot, slot s at
//! s · D (D = C / n); at its start each per-slot job enqueues its accounts,
//! each due after its own offset `Random.new(id).rand(D)` (Ruby-exact, see
//! [`crate::ruby`]) or a PCG32 draw seeded by the id. Enqueueing every
//! account at once instead uses `Random.new(id).rand(C)`. Jobs are taken to
//! run the moment they are due; the queue's ingress is what enters it, its
//! waiting jobs what was enqueued and is not yet past due. The slotted
//! plan's queue is longest at a slot start: maxₛ (accountsₛ + n − s), slot
//! s's accounts plus the per-slot jobs from s on; everything at once holds
//! all N.
//!
//! K reciprocal job kinds that must not touch the same accounts at once sit
//! equidistant on the ring of slots: kind j at offset ⌊j · n / K⌋, working on
//! slot (t + offset) mod n at step t. Their minimum ring distance is
//! ⌊n / K⌋ slots (0 when K > n: two kinds then share a slot).
//!
//! Jumbo accounts: costs drawn from a lognormal of mean 1 (μ = −σ²/2). The
//! hashed placement sums costs per even slot; the balanced one places
//! accounts heaviest first, each into the currently lightest slot (ties to
//! the lower slot), which keeps the heaviest slot within 4/3 of the best
//! possible and needs the placement stored per account.
//!
//! ```
//! use stampede_core::slots::{IdBytes, Layout, gcd};
//!
//! // A day cut by the last id byte's 256 values: gcd(86,400, 256) = 128 slots
//! // of 675 s, two buckets each.
//! assert_eq!(gcd(86_400, 256), 128);
//! let layout = Layout::new(86_400, 256, IdBytes::Last).unwrap();
//! assert_eq!((layout.slots(), layout.slot_seconds()), (128, 675));
//! assert_eq!(layout.even_slot(255), 127);
//! ```

use rand::{Rng, RngExt};
use serde::Serialize;

use crate::choice_enum;
use crate::error::{InvalidInput, count_at_most};
use crate::rng::{Purpose, seeded};
use crate::ruby;
use crate::speedup::Speedup;
use crate::units::{count, counted, duration};

mod balance;

pub use balance::{CostBalance, SlotLoad, account_costs, balance};

/// The most accounts a run may place.
pub const MAX_ACCOUNTS: u32 = 1_000_000;
/// The most accounts with Ruby-exact offsets: in the browser, whose wasm
/// seeds without vector instructions, seeding Ruby's generator costs about
/// 1.2 µs an id, so this keeps a run near a third of a second. (Natively a
/// million take about a tenth of a second; see [`crate::ruby`].)
pub const MAX_RUBY_ACCOUNTS: u32 = 250_000;
/// The longest cycle: a week.
pub const MAX_CYCLE: u32 = 604_800;
/// The most slots a cycle can have: a slot count divides the bucket count,
/// which is at most the 65,536 values of two bytes.
pub const MAX_SLOTS: u32 = 65_536;
/// The most reciprocal job kinds.
pub const MAX_KINDS: u32 = 16;
/// The largest lognormal σ of the account costs.
pub const MAX_COST_SIGMA: f64 = 3.0;
/// The most bins of the time histograms over one cycle.
pub const MAX_BINS: u32 = 240;
/// The most steps of the reciprocal kinds listed; later steps repeat the
/// first ones shifted round the ring.
pub const MAX_LISTED_STEPS: u32 = 64;
/// How many accounts a run lists one by one.
pub const LISTED_ACCOUNTS: usize = 12;

const ACCOUNTS: Purpose = Purpose::new("slots.accounts");
const COSTS: Purpose = Purpose::new("slots.costs");
const DELAYS: Purpose = Purpose::new("slots.delays");

choice_enum! {
    /// Which bytes of an id make its raw value.
    pub enum IdBytes {
        Last = ("1", "Last byte"),
        LastTwo = ("2", "Last two bytes"),
    }
}

impl IdBytes {
    /// R, how many raw values there are: 256 or 65,536.
    pub fn raw_values(self) -> u32 {
        match self {
            Self::Last => 256,
            Self::LastTwo => 65_536,
        }
    }

    /// The raw value of an id: its last byte, or its last two big-endian.
    pub fn raw(self, id: &[u8; 16]) -> u32 {
        match self {
            Self::Last => u32::from(id[15]),
            Self::LastTwo => u32::from(u16::from_be_bytes([id[14], id[15]])),
        }
    }
}

choice_enum! {
    /// Where each account's offset inside a window comes from.
    pub enum DelaySource {
        /// `Random.new(id).rand(window)`, as the talk writes it.
        Ruby = ("ruby", "Ruby: Random.new(id).rand"),
        /// A PCG32 stream seeded by the id's bytes: the same idea, far cheaper.
        Pcg = ("pcg", "PCG32 seeded by the id"),
    }
}

/// The cycle, the buckets, the accounts and the job kinds to plan.
#[derive(Clone, Debug, PartialEq)]
pub struct SlotParams {
    /// The cycle length in seconds.
    pub cycle: u32,
    /// How many buckets the ids fall into.
    pub buckets: u32,
    /// How many accounts to place.
    pub accounts: u32,
    pub id_bytes: IdBytes,
    /// K, reciprocal job kinds kept apart on the ring.
    pub kinds: u32,
    /// σ of the lognormal account costs; 0 makes every account cost 1.
    pub cost_sigma: f64,
    /// PCG by default: 10,000 Ruby-exact offsets take about 12 ms in the
    /// browser, too long for a dragged slider's frame; Ruby stays one choice
    /// away.
    pub delays: DelaySource,
}

impl SlotParams {
    pub fn slot_count(&self) -> u32 {
        gcd(self.cycle, self.buckets)
    }

    pub fn slot_seconds(&self) -> u32 {
        self.cycle / self.slot_count()
    }

    pub fn buckets_per_slot(&self) -> u32 {
        self.buckets / self.slot_count()
    }
}

/// Greatest common divisor by Euclid's algorithm.
pub fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// One step of Euclid's algorithm: dividend = quotient · divisor + remainder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct EuclidStep {
    pub dividend: u32,
    pub divisor: u32,
    pub quotient: u32,
    pub remainder: u32,
}

/// The steps that find gcd(a, b), ending with remainder 0; the last step's
/// divisor is the gcd. Empty when b is 0 (then the gcd is a).
pub fn euclid_steps(mut a: u32, mut b: u32) -> Vec<EuclidStep> {
    let mut steps = Vec::new();
    while b != 0 {
        steps.push(EuclidStep {
            dividend: a,
            divisor: b,
            quotient: a / b,
            remainder: a % b,
        });
        (a, b) = (b, a % b);
    }
    steps
}

/// `count` (at most [`MAX_ACCOUNTS`]) UUIDv4 ids: 16 bytes from the seed's
/// `slots.accounts` stream, with the version nibble set to 4 and the variant
/// bits to 10.
pub fn account_ids(seed: u64, count: u32) -> Result<Vec<[u8; 16]>, InvalidInput> {
    count_at_most("accounts", u64::from(count), u64::from(MAX_ACCOUNTS))?;
    let mut rng = seeded(seed, ACCOUNTS);
    Ok((0..count)
        .map(|_| {
            let mut random = [0u8; 16];
            rng.fill_bytes(&mut random);
            uuid::Builder::from_random_bytes(random)
                .into_uuid()
                .into_bytes()
        })
        .collect())
}

/// An id in the usual 8-4-4-4-12 hex form.
pub fn uuid_text(id: &[u8; 16]) -> String {
    uuid::Uuid::from_bytes(*id).hyphenated().to_string()
}

/// The slot of `key` among `keys` possible keys cut into `slots` runs of
/// consecutive keys as equal as whole keys allow: ⌊key · n / K⌋. Slot
/// membership in both panels: the Slots panel's even mapping passes an
/// id's bucket (K = B), the Queue's slots schedule the 32-bit hash of an
/// id (K = 2³², which makes it the hash's top bits). Needs key < keys and
/// keys · slots < 2⁶⁴.
pub fn even_slot_of(key: u64, keys: u64, slots: u32) -> u32 {
    (key * u64::from(slots) / keys) as u32
}

/// The validated shape of a cycle: its slots and how ids reach them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    cycle: u32,
    buckets: u32,
    id_bytes: IdBytes,
    slots: u32,
    slot_seconds: u32,
}

impl Layout {
    /// A cycle of 1 to [`MAX_CYCLE`] seconds and 1 to R buckets.
    pub fn new(cycle: u32, buckets: u32, id_bytes: IdBytes) -> Result<Self, InvalidInput> {
        if cycle == 0 {
            return Err(InvalidInput::new("cycle", "must be at least 1 s"));
        }
        count_at_most("cycle", u64::from(cycle), u64::from(MAX_CYCLE))?;
        if buckets == 0 {
            return Err(InvalidInput::new("buckets", "must be at least 1"));
        }
        count_at_most(
            "buckets",
            u64::from(buckets),
            u64::from(id_bytes.raw_values()),
        )?;
        let slots = gcd(cycle, buckets);
        Ok(Self {
            cycle,
            buckets,
            id_bytes,
            slots,
            slot_seconds: cycle / slots,
        })
    }

    /// n, the number of slots.
    pub fn slots(&self) -> u32 {
        self.slots
    }

    /// D = C / n, the length of a slot in seconds.
    pub fn slot_seconds(&self) -> u32 {
        self.slot_seconds
    }

    /// The bucket of a raw value: raw mod B.
    pub fn bucket(&self, raw: u32) -> u32 {
        raw % self.buckets
    }

    /// The even slot of a raw value: bucket · n / B.
    pub fn even_slot(&self, raw: u32) -> u32 {
        even_slot_of(
            u64::from(self.bucket(raw)),
            u64::from(self.buckets),
            self.slots,
        )
    }

    /// The talk's SQL slot of a raw value: raw / (R / n); at n or above for
    /// the raw values no per-slot job selects.
    pub fn sql_slot(&self, raw: u32) -> u32 {
        raw / (self.id_bytes.raw_values() / self.slots)
    }

    /// The time-histogram bin of a second of the cycle. With fewer slots
    /// than [`MAX_BINS`], each slot gets the same whole number of bins, so
    /// slot starts fall on bin starts.
    fn bin(&self, second: u32) -> usize {
        (u64::from(second) * u64::from(self.bins()) / u64::from(self.cycle)) as usize
    }

    fn bins(&self) -> u32 {
        if self.slots >= MAX_BINS {
            MAX_BINS
        } else {
            self.slots * (MAX_BINS / self.slots)
        }
    }
}

/// How one rule maps raw values, and so accounts, to slot indices.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mapping {
    /// Raw values per slot index the rule yields; indices from n on are
    /// slots no per-slot job runs.
    pub raw_values_per_slot: Vec<u32>,
    /// Accounts per slot index, as above.
    pub accounts_per_slot: Vec<u32>,
    /// Fewest and most raw values in a scheduled slot (0 to n − 1).
    pub fewest_raw_values: u32,
    pub most_raw_values: u32,
    /// Fewest and most accounts in a scheduled slot.
    pub fewest_accounts: u32,
    pub most_accounts: u32,
    /// Raw values whose slot index is n or above.
    pub unscheduled_raw_values: Vec<u32>,
    /// Accounts with such a raw value: never synced.
    pub unscheduled_accounts: u32,
    /// The first of those accounts' ids (at most [`LISTED_ACCOUNTS`]).
    pub unscheduled_ids: Vec<String>,
}

impl Mapping {
    fn new(layout: &Layout, ids: &[[u8; 16]], raws: &[u32], slot_of: impl Fn(u32) -> u32) -> Self {
        let slot_of_raw: Vec<u32> = (0..layout.id_bytes.raw_values()).map(slot_of).collect();
        let indices = slot_of_raw
            .iter()
            .map(|&slot| slot + 1)
            .fold(layout.slots, u32::max) as usize;
        let mut raw_values_per_slot = vec![0u32; indices];
        let mut unscheduled_raw_values = Vec::new();
        for (raw, &slot) in (0u32..).zip(&slot_of_raw) {
            raw_values_per_slot[slot as usize] += 1;
            if slot >= layout.slots {
                unscheduled_raw_values.push(raw);
            }
        }
        let mut accounts_per_slot = vec![0u32; indices];
        for &raw in raws {
            accounts_per_slot[slot_of_raw[raw as usize] as usize] += 1;
        }
        let scheduled = layout.slots as usize;
        let range = |counts: &[u32]| {
            let scheduled = &counts[..scheduled];
            (
                scheduled.iter().copied().min().unwrap_or(0),
                scheduled.iter().copied().max().unwrap_or(0),
            )
        };
        let (fewest_raw_values, most_raw_values) = range(&raw_values_per_slot);
        let (fewest_accounts, most_accounts) = range(&accounts_per_slot);
        let unscheduled_accounts = accounts_per_slot[scheduled..].iter().sum();
        let unscheduled_ids = ids
            .iter()
            .zip(raws)
            .filter(|&(_, &raw)| slot_of_raw[raw as usize] >= layout.slots)
            .take(LISTED_ACCOUNTS)
            .map(|(id, _)| uuid_text(id))
            .collect();
        Self {
            raw_values_per_slot,
            accounts_per_slot,
            fewest_raw_values,
            most_raw_values,
            fewest_accounts,
            most_accounts,
            unscheduled_raw_values,
            unscheduled_accounts,
            unscheduled_ids,
        }
    }
}

/// Queue ingress and load over one cycle, slotted and all at once. Bin k
/// covers the seconds t with ⌊t · bins / C⌋ = k.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlotPlan {
    /// The average bin width in seconds.
    pub bin_seconds: f64,
    /// Accounts per slot (the even mapping).
    pub accounts_per_slot: Vec<u32>,
    /// Jobs entering the queue: the per-slot jobs at 0, then each slot's
    /// accounts at its start.
    pub ingress_slotted: Vec<u32>,
    /// Jobs falling due: each per-slot job at its slot's start, each
    /// account at its slot's start + its offset.
    pub due_slotted: Vec<u32>,
    /// Jobs enqueued by the end of each bin and not due before its start;
    /// with slot starts on bin starts, exactly the jobs in the queue at the
    /// bin's start.
    pub waiting_slotted: Vec<u32>,
    /// The most jobs in the queue at any moment, counting a job until the
    /// moment it is due.
    pub peak_waiting_slotted: u32,
    /// Every account enqueued at 0.
    pub ingress_all_at_once: Vec<u32>,
    /// Accounts falling due at `Random.new(id).rand(C)`.
    pub due_all_at_once: Vec<u32>,
    pub waiting_all_at_once: Vec<u32>,
    pub peak_waiting_all_at_once: u32,
}

/// Each account's offsets: inside its slot, and inside the whole cycle.
/// Each comes from a fresh generator, as two `Random.new(id)` calls would.
fn offsets(
    source: DelaySource,
    ids: &[[u8; 16]],
    slot_seconds: u32,
    cycle: u32,
) -> Vec<(u32, u32)> {
    match source {
        DelaySource::Ruby => ruby::rand_below_many(ids, [slot_seconds, cycle])
            .into_iter()
            .map(|[for_slot, for_cycle]| (for_slot, for_cycle))
            .collect(),
        DelaySource::Pcg => ids
            .iter()
            .map(|id| {
                let halves = [&id[..8], &id[8..]].map(|half| {
                    half.iter()
                        .fold(0u64, |word, &byte| word << 8 | u64::from(byte))
                });
                let mut for_cycle = seeded(halves[0] ^ halves[1], DELAYS);
                let mut for_slot = for_cycle.clone();
                (
                    for_slot.random_range(0..slot_seconds),
                    for_cycle.random_range(0..cycle),
                )
            })
            .collect(),
    }
}

/// The three-level plan and the all-at-once enqueue for at most
/// [`MAX_ACCOUNTS`] `ids`.
pub fn plan(
    layout: &Layout,
    ids: &[[u8; 16]],
    source: DelaySource,
) -> Result<SlotPlan, InvalidInput> {
    count_at_most("accounts", ids.len() as u64, u64::from(MAX_ACCOUNTS))?;
    let bins = layout.bins() as usize;
    let slots = layout.slots as usize;
    let mut accounts_per_slot = vec![0u32; slots];
    let mut due_slotted = vec![0u32; bins];
    let mut due_all_at_once = vec![0u32; bins];
    let offsets = offsets(source, ids, layout.slot_seconds, layout.cycle);
    for (id, &(in_slot, in_cycle)) in ids.iter().zip(&offsets) {
        let slot = layout.even_slot(layout.id_bytes.raw(id));
        accounts_per_slot[slot as usize] += 1;
        due_slotted[layout.bin(slot * layout.slot_seconds + in_slot)] += 1;
        due_all_at_once[layout.bin(in_cycle)] += 1;
    }
    let mut ingress_slotted = vec![0u32; bins];
    ingress_slotted[0] = layout.slots;
    for (slot, &accounts) in accounts_per_slot.iter().enumerate() {
        let start = layout.bin(slot as u32 * layout.slot_seconds);
        ingress_slotted[start] += accounts;
        due_slotted[start] += 1;
    }
    let mut ingress_all_at_once = vec![0u32; bins];
    ingress_all_at_once[0] = ids.len() as u32;
    let peak_waiting_slotted = accounts_per_slot
        .iter()
        .enumerate()
        .map(|(slot, &accounts)| accounts + (layout.slots - slot as u32))
        .max()
        .unwrap_or(0);
    Ok(SlotPlan {
        bin_seconds: f64::from(layout.cycle) / bins as f64,
        accounts_per_slot,
        waiting_slotted: waiting(&ingress_slotted, &due_slotted),
        ingress_slotted,
        due_slotted,
        peak_waiting_slotted,
        waiting_all_at_once: waiting(&ingress_all_at_once, &due_all_at_once),
        ingress_all_at_once,
        due_all_at_once,
        peak_waiting_all_at_once: ids.len() as u32,
    })
}

/// Per bin: enqueued up to its end minus due before its start.
fn waiting(ingress: &[u32], due: &[u32]) -> Vec<u32> {
    let mut enqueued = 0u32;
    let mut gone = 0u32;
    ingress
        .iter()
        .zip(due)
        .map(|(&entered, &left)| {
            enqueued += entered;
            let now = enqueued - gone;
            gone += left;
            now
        })
        .collect()
}

/// K job kinds spread round the ring of slots.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reciprocals {
    /// Kind j's slot offset: ⌊j · n / K⌋.
    pub offsets: Vec<u32>,
    /// The slot each kind works on at steps 0, 1, … (at most
    /// [`MAX_LISTED_STEPS`]; step t + n repeats step t).
    pub steps: Vec<Vec<u32>>,
    /// The fewest slots between two kinds round the ring; `None` for one kind.
    pub min_ring_distance: Option<u32>,
    /// n / K, the distance a perfect spacing would keep.
    pub ideal_distance: f64,
}

/// `kinds` (1 to [`MAX_KINDS`]) job kinds on a ring of `slots` (1 to
/// [`MAX_SLOTS`]) slots.
pub fn reciprocals(slots: u32, kinds: u32) -> Result<Reciprocals, InvalidInput> {
    if slots == 0 {
        return Err(InvalidInput::new("slots", "a ring needs at least 1 slot"));
    }
    count_at_most("slots", u64::from(slots), u64::from(MAX_SLOTS))?;
    if kinds == 0 {
        return Err(InvalidInput::new("job kinds", "must be at least 1"));
    }
    count_at_most("job kinds", u64::from(kinds), u64::from(MAX_KINDS))?;
    let offsets: Vec<u32> = (0..kinds)
        .map(|j| (u64::from(j) * u64::from(slots) / u64::from(kinds)) as u32)
        .collect();
    let steps = (0..slots.min(MAX_LISTED_STEPS))
        .map(|step| offsets.iter().map(|&o| (step + o) % slots).collect())
        .collect();
    let min_ring_distance = offsets
        .iter()
        .enumerate()
        .flat_map(|(i, &a)| offsets[i + 1..].iter().map(move |&b| b - a))
        .map(|apart| apart.min(slots - apart))
        .min();
    Ok(Reciprocals {
        offsets,
        steps,
        min_ring_distance,
        ideal_distance: f64::from(slots) / f64::from(kinds),
    })
}

/// One account as the plan sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AccountPlacement {
    pub id: String,
    /// The last byte or two, as a number.
    pub raw: u32,
    pub bucket: u32,
    pub slot: u32,
    /// The slot index the talk's SQL gives; n or above means never run.
    pub sql_slot: u32,
    /// Seconds after its slot starts at which the account is due.
    pub delay: u32,
    /// Seconds after the cycle starts at which it is due when every
    /// account is enqueued at once.
    pub all_at_once_delay: u32,
    pub cost: f64,
}

/// Everything a Slots run produced.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlotRun {
    pub slots: u32,
    pub slot_seconds: u32,
    pub buckets_per_slot: u32,
    /// R, the raw values an id's last byte or two can take.
    pub raw_values: u32,
    /// Euclid's steps from (cycle, buckets) to the slot count.
    pub euclid: Vec<EuclidStep>,
    pub even: Mapping,
    pub sql: Mapping,
    pub plan: SlotPlan,
    pub kinds: Reciprocals,
    pub costs: CostBalance,
    /// The first accounts, one by one.
    pub accounts: Vec<AccountPlacement>,
}

/// Runs the Slots panel for `params` with `seed`.
pub fn run(params: &SlotParams, seed: u64) -> Result<SlotRun, InvalidInput> {
    let (layout, kinds) = checked(params)?;
    let costs = account_costs(seed, params.accounts, params.cost_sigma)?;
    let ids = account_ids(seed, params.accounts)?;
    run_with(params, layout, kinds, &ids, &costs)
}

/// The layout and kinds of `params`, once its numbers are checked.
fn checked(params: &SlotParams) -> Result<(Layout, Reciprocals), InvalidInput> {
    let layout = Layout::new(params.cycle, params.buckets, params.id_bytes)?;
    let kinds = reciprocals(layout.slots, params.kinds)?;
    if params.accounts == 0 {
        return Err(InvalidInput::new("accounts", "must be at least 1"));
    }
    if params.delays == DelaySource::Ruby {
        count_at_most(
            "accounts",
            u64::from(params.accounts),
            u64::from(MAX_RUBY_ACCOUNTS),
        )?;
    }
    Ok((layout, kinds))
}

/// The accounts of the last run, kept: their ids and lognormal costs
/// depend only on the seed, the count and the cost tail σ, so a new cycle,
/// bucket count or delay source places the same accounts without drawing
/// them again.
#[derive(Debug, Default)]
pub struct SlotsCache {
    accounts: Option<Accounts>,
}

/// The accounts of one seed, count and σ (kept by its bits).
#[derive(Debug)]
struct Accounts {
    seed: u64,
    count: u32,
    sigma_bits: u64,
    ids: Vec<[u8; 16]>,
    costs: Vec<f64>,
}

impl Speedup for SlotsCache {
    type Params = SlotParams;
    type Run = SlotRun;

    fn plain(params: &SlotParams, seed: u64) -> Result<SlotRun, InvalidInput> {
        run(params, seed)
    }

    /// [`run`], reusing the accounts of the last run where they are the same.
    fn run(&mut self, params: &SlotParams, seed: u64) -> Result<SlotRun, InvalidInput> {
        let (layout, kinds) = checked(params)?;
        let (count, sigma_bits) = (params.accounts, params.cost_sigma.to_bits());
        let accounts = match self.accounts.take() {
            Some(kept) if (kept.seed, kept.count, kept.sigma_bits) == (seed, count, sigma_bits) => {
                kept
            }
            _ => Accounts {
                seed,
                count,
                sigma_bits,
                costs: account_costs(seed, count, params.cost_sigma)?,
                ids: account_ids(seed, count)?,
            },
        };
        let accounts = self.accounts.insert(accounts);
        run_with(params, layout, kinds, &accounts.ids, &accounts.costs)
    }
}

/// The run of `params`, checked into `layout` and `kinds`, for accounts
/// `ids` of `costs`.
fn run_with(
    params: &SlotParams,
    layout: Layout,
    kinds: Reciprocals,
    ids: &[[u8; 16]],
    costs: &[f64],
) -> Result<SlotRun, InvalidInput> {
    let raws: Vec<u32> = ids.iter().map(|id| params.id_bytes.raw(id)).collect();
    let even_slots: Vec<u32> = raws.iter().map(|&raw| layout.even_slot(raw)).collect();
    let listed = &ids[..ids.len().min(LISTED_ACCOUNTS)];
    let accounts = listed
        .iter()
        .zip(offsets(
            params.delays,
            listed,
            layout.slot_seconds,
            layout.cycle,
        ))
        .zip(raws.iter().zip(costs))
        .map(
            |((id, (delay, all_at_once_delay)), (&raw, &cost))| AccountPlacement {
                id: uuid_text(id),
                raw,
                bucket: layout.bucket(raw),
                slot: layout.even_slot(raw),
                sql_slot: layout.sql_slot(raw),
                delay,
                all_at_once_delay,
                cost,
            },
        )
        .collect();
    Ok(SlotRun {
        slots: layout.slots,
        slot_seconds: layout.slot_seconds,
        buckets_per_slot: layout.buckets / layout.slots,
        raw_values: layout.id_bytes.raw_values(),
        euclid: euclid_steps(layout.cycle, layout.buckets),
        even: Mapping::new(&layout, ids, &raws, |raw| layout.even_slot(raw)),
        sql: Mapping::new(&layout, ids, &raws, |raw| layout.sql_slot(raw)),
        plan: plan(&layout, ids, params.delays)?,
        kinds,
        costs: balance(costs, &even_slots, layout.slots)?,
        accounts,
    })
}

/// What the first kinds stand for, after the talk's ledger example; later
/// kinds are numbered.
const KIND_NAMES: [&str; 3] = ["payments", "reports", "KYC"];

/// The name of job kind `kind` (counted from 0): "payments", "reports",
/// "KYC", then "kind 4" and on.
pub fn kind_name(kind: u32) -> String {
    KIND_NAMES
        .get(kind as usize)
        .map_or_else(|| format!("kind {}", kind + 1), |name| (*name).to_string())
}

impl SlotRun {
    /// The step of the cycle at `second` (wrapped into the cycle): which
    /// slot the clock hand is in.
    pub fn step_at(&self, second: f64) -> u32 {
        let cycle = f64::from(self.slots) * f64::from(self.slot_seconds);
        let wrapped = second.rem_euclid(cycle);
        ((wrapped / f64::from(self.slot_seconds)) as u32).min(self.slots - 1)
    }

    /// The kinds working on `slot` at step `step`: kind j works on slot
    /// (step + offsetⱼ) mod n.
    pub fn kinds_on(&self, slot: u32, step: u32) -> Vec<u32> {
        (0u32..)
            .zip(&self.kinds.offsets)
            .filter(|&(_, &offset)| (step + offset) % self.slots == slot % self.slots)
            .map(|(kind, _)| kind)
            .collect()
    }

    /// One sentence about `slot` with the clock at `second`: its time
    /// range, its accounts and buckets, and which kinds work on it now.
    pub fn describe_slot(&self, slot: u32, second: f64) -> String {
        let slot = slot.min(self.slots - 1);
        let from = u64::from(slot) * u64::from(self.slot_seconds);
        let to = from + u64::from(self.slot_seconds);
        let accounts = self.plan.accounts_per_slot[slot as usize];
        let working = self.kinds_on(slot, self.step_at(second));
        let now = if working.is_empty() {
            "no kind works on it now".to_string()
        } else {
            let names: Vec<String> = working.into_iter().map(kind_name).collect();
            format!(
                "{} works on its {} accounts now",
                names.join(" and "),
                count(u64::from(accounts))
            )
        };
        format!(
            "Slot {} of {} ({}–{} into the cycle): {} in {}; {now}.",
            slot + 1,
            self.slots,
            duration(from as f64),
            duration(to as f64),
            counted(u64::from(accounts), "account", "accounts"),
            counted(u64::from(self.buckets_per_slot), "bucket", "buckets"),
        )
    }

    /// Euclid's steps as equations, "65,535 = 2 · 28,800 + 7,935", ending
    /// with the line that names the gcd.
    pub fn derivation(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .euclid
            .iter()
            .map(|step| {
                format!(
                    "{} = {} · {} + {}",
                    count(u64::from(step.dividend)),
                    step.quotient,
                    count(u64::from(step.divisor)),
                    count(u64::from(step.remainder)),
                )
            })
            .collect();
        if let (Some(first), Some(_)) = (self.euclid.first(), self.euclid.last()) {
            lines.push(format!(
                "remainder 0, so gcd({}, {}) = {}",
                count(u64::from(first.dividend)),
                count(u64::from(first.divisor)),
                count(u64::from(self.slots)),
            ));
        }
        lines
    }

    /// The warning the talk's SQL deserves when n does not divide R: which
    /// raw values its `raw / (R / n)` sends past the last slot, and how
    /// many accounts that leaves unsynced. `None` when it strands nothing.
    pub fn sql_warning(&self) -> Option<String> {
        let stranded = &self.sql.unscheduled_raw_values;
        let first = *stranded.first()?;
        let width = self.raw_values / self.slots;
        let which = match stranded.as_slice() {
            [only] => format!("raw value {only} lands at slot index {}", only / width),
            _ => format!(
                "the {} raw values from {first} on land at slot index {} or above",
                count(stranded.len() as u64),
                self.slots
            ),
        };
        let lost = match self.sql.unscheduled_accounts {
            0 => "no account here has it, but any that does is never synced".to_string(),
            1 => "so 1 account here is never synced".to_string(),
            n => format!("so {} accounts here are never synced", count(u64::from(n))),
        };
        Some(format!(
            "raw / ({} / {}) divides by {}, not {} / {}: {which}, which no per-slot job \
             selects; {lost}.",
            count(u64::from(self.raw_values)),
            self.slots,
            count(u64::from(width)),
            count(u64::from(self.raw_values)),
            self.slots,
        ))
    }

    /// The most jobs entering the queue in one time bin, slotted.
    pub fn peak_ingress_slotted(&self) -> u32 {
        self.plan.ingress_slotted.iter().copied().max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_eight_hour_cycle_with_65535_buckets_has_15_slots() {
        let params = SlotParams::default();
        assert_eq!(params.slot_count(), 15);
        assert_eq!(params.slot_seconds(), 1_920);
        assert_eq!(params.buckets_per_slot(), 4_369);
    }

    #[test]
    fn gcd_of_coprime_and_equal_numbers() {
        assert_eq!(gcd(28_800, 256), 128);
        assert_eq!(gcd(3_599, 256), 1);
        assert_eq!(gcd(60, 60), 60);
    }
}
