//! Per-account state: locks, parked jobs, refusals and last syncs.
//!
//! Every job holds its account's lock while it runs, so one job of an
//! account runs at a time. A job reaching a worker while its account's lock
//! is held is a lock conflict: the worker moves on at once, the job is
//! parked on the account, and each release sends the longest-parked job to
//! the back of the queue, where it may conflict again (and counts again).
//! A job's wait still runs from its due time to its real start; the lock
//! wait adds up the time jobs spend parked, up to the horizon. Parked jobs
//! are not in the queue depth; those still parked at the horizon never
//! started, and the metrics count them so.

use super::NO_INDEX;
use super::event::{Job, account_of};

/// The accounts' locks and states, and the jobs parked on them.
pub(super) struct Accounts {
    locks: Locks,
    states: Vec<Account>,
    parking: Parking,
}

impl Accounts {
    pub(super) fn new(accounts: u32) -> Self {
        Self {
            locks: Locks::new(accounts),
            states: vec![Account::NEW; accounts as usize],
            parking: Parking::new(accounts),
        }
    }

    /// Takes the lock of `job`'s account for it, or parks the job when the
    /// lock is held (a conflict) and returns false.
    pub(super) fn lock_or_park(&mut self, job: Job, now: u64) -> bool {
        let account = account_of(job.key);
        if self.locks.held(account) {
            let state = &mut self.states[account as usize];
            self.parking.park(state, job, now);
            return false;
        }
        self.locks.set(account, true);
        true
    }

    /// Marks the call of `account`'s running job as refused.
    pub(super) fn refuse(&mut self, account: u32) {
        self.states[account as usize].set(Account::REFUSED, true);
    }

    /// Releases the lock of `account`'s job finishing at `now`: whether its
    /// call was refused, and the longest-parked job of the account, which
    /// goes back to the queue.
    pub(super) fn release(&mut self, account: u32, now: u64) -> (bool, Option<Job>) {
        self.locks.set(account, false);
        let state = &mut self.states[account as usize];
        let refused = state.refused();
        state.set(Account::REFUSED, false);
        let unparked = self.parking.unpark(account, state, now);
        (refused, unparked)
    }

    /// Records a sync of `account` finished at `now`, and returns the time
    /// since its previous one, if any.
    pub(super) fn synced(&mut self, account: u32, now: u64) -> Option<u64> {
        let state = &mut self.states[account as usize];
        let interval = state.last_sync().map(|last| now - last);
        state.set_last_sync(now);
        interval
    }

    pub(super) fn never_synced(&self) -> u32 {
        self.states
            .iter()
            .filter(|account| account.last_sync().is_none())
            .count() as u32
    }

    pub(super) fn lock_conflicts(&self) -> u64 {
        self.parking.conflicts
    }

    /// Calls `each` with every job still parked, account by account.
    pub(super) fn for_each_parked(&self, mut each: impl FnMut(Job)) {
        let parking = &self.parking;
        if parking.still_parked == 0 {
            return;
        }
        for (account, state) in self.states.iter().enumerate() {
            if !state.has_parked() {
                continue;
            }
            // The ring runs from the last parked job to the first and on.
            let last = parking.last_parked[account];
            let mut slot = last;
            loop {
                slot = parking.slots[slot as usize].next;
                each(parking.slots[slot as usize].job);
                if slot == last {
                    break;
                }
            }
        }
    }

    /// Time jobs spent parked, those still parked counted to the horizon.
    pub(super) fn lock_wait_us(&self, horizon: u64) -> u128 {
        self.parking.total_us(horizon)
    }
}

/// One bit per account, set while a job of it runs. Every start reads it,
/// so it lives apart from [`Account`], in a 64th of the space, where it
/// stays in cache however randomly accounts come.
struct Locks(Vec<u64>);

impl Locks {
    fn new(accounts: u32) -> Self {
        Self(vec![0; accounts.div_ceil(u64::BITS) as usize])
    }

    fn word_and_bit(account: u32) -> (usize, u64) {
        ((account / u64::BITS) as usize, 1 << (account % u64::BITS))
    }

    fn held(&self, account: u32) -> bool {
        let (word, bit) = Self::word_and_bit(account);
        self.0[word] & bit != 0
    }

    fn set(&mut self, account: u32, held: bool) {
        let (word, bit) = Self::word_and_bit(account);
        if held {
            self.0[word] |= bit;
        } else {
            self.0[word] &= !bit;
        }
    }
}

/// What the run keeps per account in one word, read when its job
/// finishes: whether jobs are parked on it in the top bit, whether its
/// running job's call was refused in the next, and below them when its
/// last sync finished (µs), all ones when none has.
#[derive(Clone, Copy)]
struct Account(u64);

impl Account {
    const PARKED: u64 = 1 << 63;
    const REFUSED: u64 = 1 << 62;
    const LAST_SYNC: u64 = Self::REFUSED - 1;
    const NEW: Self = Self(Self::LAST_SYNC);

    fn has_parked(self) -> bool {
        self.0 & Self::PARKED != 0
    }

    fn refused(self) -> bool {
        self.0 & Self::REFUSED != 0
    }

    fn last_sync(self) -> Option<u64> {
        Some(self.0 & Self::LAST_SYNC).filter(|&time| time != Self::LAST_SYNC)
    }

    fn set(&mut self, bits: u64, on: bool) {
        if on {
            self.0 |= bits;
        } else {
            self.0 &= !bits;
        }
    }

    fn set_last_sync(&mut self, time: u64) {
        self.0 = (self.0 & !Self::LAST_SYNC) | time;
    }
}

/// Jobs parked on held locks. An account's parked jobs form a ring in
/// `slots`, each pointing to the one parked after it and the last back to
/// the first, so one index per account reaches both ends.
struct Parking {
    accounts: u32,
    /// The last job parked on each account, when its PARKED bit is set;
    /// made at the first conflict, as most runs have none.
    last_parked: Vec<u32>,
    slots: Vec<Parked>,
    /// Slots free for reuse, linked through `next`.
    free: u32,
    conflicts: u64,
    /// Time parked by the jobs that have left, and the number and summed
    /// parking times of those still parked, which wait until the horizon.
    left_us: u128,
    still_parked: u64,
    parked_at_sum: u128,
}

struct Parked {
    job: Job,
    since: u64,
    next: u32,
}

impl Parking {
    fn new(accounts: u32) -> Self {
        Self {
            accounts,
            last_parked: Vec::new(),
            slots: Vec::new(),
            free: NO_INDEX,
            conflicts: 0,
            left_us: 0,
            still_parked: 0,
            parked_at_sum: 0,
        }
    }

    fn park(&mut self, state: &mut Account, job: Job, now: u64) {
        self.conflicts += 1;
        self.still_parked += 1;
        self.parked_at_sum += u128::from(now);
        let entry = Parked {
            job,
            since: now,
            next: NO_INDEX,
        };
        let slot = if self.free == NO_INDEX {
            self.slots.push(entry);
            (self.slots.len() - 1) as u32
        } else {
            let slot = self.free;
            self.free = self.slots[slot as usize].next;
            self.slots[slot as usize] = entry;
            slot
        };
        let account = account_of(job.key) as usize;
        if self.last_parked.is_empty() {
            self.last_parked = vec![0; self.accounts as usize];
        }
        let first = if state.has_parked() {
            let last = self.last_parked[account];
            std::mem::replace(&mut self.slots[last as usize].next, slot)
        } else {
            slot
        };
        self.slots[slot as usize].next = first;
        self.last_parked[account] = slot;
        state.set(Account::PARKED, true);
    }

    /// Takes the longest-parked job of `account`, if any.
    fn unpark(&mut self, account: u32, state: &mut Account, now: u64) -> Option<Job> {
        if !state.has_parked() {
            return None;
        }
        let last = self.last_parked[account as usize];
        let first = self.slots[last as usize].next;
        let Parked { job, since, next } = self.slots[first as usize];
        if first == last {
            state.set(Account::PARKED, false);
        } else {
            self.slots[last as usize].next = next;
        }
        self.slots[first as usize].next = self.free;
        self.free = first;
        self.left_us += u128::from(now - since);
        self.still_parked -= 1;
        self.parked_at_sum -= u128::from(since);
        Some(job)
    }

    fn total_us(&self, horizon: u64) -> u128 {
        self.left_us + u128::from(self.still_parked) * u128::from(horizon) - self.parked_at_sum
    }
}
