//! Event keys, and the jobs that carry them.
//!
//! An event key is one u64, time in µs << 21 | account << 1 | kind (0 sync,
//! 1 report), so one integer comparison orders events by time, account and
//! kind, as [`crate::scheduler`]'s keys do. That comparison is the engine's
//! tie-break among jobs: at one instant the lower account goes first, and
//! an account's sync before its report. Its 43 time bits reach 2⁴³ µs,
//! about 101.8 days, beyond the 90-day horizon cap
//! ([`MAX_HORIZON`](super::MAX_HORIZON)); no key holds a time past the
//! horizon, as due times are checked before they are packed and finishes
//! are clipped to it. Its 20 account bits hold
//! [`MAX_ACCOUNTS`](super::MAX_ACCOUNTS).

use std::cmp::Ordering;

/// Bits of an event key below the time: the account's 20 above the kind's
/// one.
const KIND_BITS: u32 = 1;
const ACCOUNT_BITS: u32 = 20;
const TIME_SHIFT: u32 = ACCOUNT_BITS + KIND_BITS;
const ACCOUNT_MASK: u64 = (1 << ACCOUNT_BITS) - 1;

/// No event: later than every horizon.
pub(super) const NEVER: u64 = u64::MAX;

/// What a job is: a sync, which calls the downstream and counts as the
/// account's sync, or a report. The kind is the low bit of a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum JobKind {
    Sync = 0,
    Report = 1,
}

pub(super) fn event_key(time: u64, account: u32, kind: JobKind) -> u64 {
    time << TIME_SHIFT | u64::from(account) << KIND_BITS | kind as u64
}

pub(super) fn time_of(key: u64) -> u64 {
    key >> TIME_SHIFT
}

pub(super) fn account_of(key: u64) -> u32 {
    ((key >> KIND_BITS) & ACCOUNT_MASK) as u32
}

pub(super) fn kind_of(key: u64) -> JobKind {
    if key & 1 == 0 {
        JobKind::Sync
    } else {
        JobKind::Report
    }
}

/// Which attempt of its job a start is: the retry (0 for the first
/// attempt) and the wait before it, which decorrelated jitter reads. An
/// f32 keeps a queued job at 16 bytes.
#[derive(Clone, Copy)]
pub(super) struct Attempt {
    pub(super) retry: u32,
    pub(super) wait: f32,
}

impl Attempt {
    pub(super) const FIRST: Self = Self {
        retry: 0,
        wait: 0.0,
    };
}

/// A job on its way to a worker, keyed by when it fell due, and ordered by
/// that key alone: two retries tie only when they are of one account and
/// due at the same microsecond, and the heap then pops them in an order
/// fixed by its operations, the same on every platform.
#[derive(Clone, Copy)]
pub(super) struct Job {
    pub(super) key: u64,
    pub(super) attempt: Attempt,
}

impl Job {
    pub(super) fn first_attempt(key: u64) -> Self {
        Self {
            key,
            attempt: Attempt::FIRST,
        }
    }
}

impl PartialEq for Job {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Job {}

impl PartialOrd for Job {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Job {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}
