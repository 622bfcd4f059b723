//! The event scheduler: pending events in a min-heap, fired in order of a
//! caller's clock.
//!
//! Pending events sit in a binary min-heap keyed by (time, priority,
//! insertion number). The next event to fire is always on top; events due
//! at the same instant come out by priority and then in the order they were
//! scheduled, so a run replays identically every time.
//!
//! ```
//! use stampede_core::scheduler::{ManualClock, Repeat, Scheduler};
//!
//! let mut clock = ManualClock::new(0);
//! let mut scheduler = Scheduler::new();
//! scheduler.schedule_repeating(1_000, 1, "tick", Repeat::fixed_rate(1_000)?)?;
//! scheduler.schedule(2_000, 0, "backup")?;
//! let mut fire_due = |now| {
//!     std::iter::from_fn(|| scheduler.pop_ready(now))
//!         .map(|fired| fired.payload)
//!         .collect::<Vec<_>>()
//! };
//! assert_eq!(fire_due(clock.set(1_000)), ["tick"]);
//! // Due at the same instant, the more urgent priority 0 fires first.
//! assert_eq!(fire_due(clock.set(2_000)), ["backup", "tick"]);
//! # Ok::<(), stampede_core::error::InvalidInput>(())
//! ```
//!
//! The queue simulation ([`crate::sim`]) orders its events with this
//! module's min-heap type and the same kind of packed integer key, but not
//! with the scheduler itself: a scheduler keeps a record per event so that
//! it can be cancelled or rescheduled, which a simulation of millions of
//! jobs that are never cancelled would pay for on every one.
//!
//! A binary heap cannot remove an entry from its middle without a linear
//! search, so cancelling only forgets the event's record. Its heap entry,
//! now dead, is thrown away when it surfaces at the top, and whenever dead
//! entries come to outnumber live ones the heap is rebuilt without them: a
//! user who cancels a lot pays neither in memory nor in pop time.
//!
//! Rescheduling pushes a new entry and leaves the old one behind. Every
//! entry carries its insertion number, and an event's record remembers the
//! number of its newest entry, its generation; an entry of an older
//! generation is stale and never fires. So an event fires once per
//! scheduling, at the time it was last given.
//!
//! Repeating events (fixed-rate or fixed-delay) and retries with a
//! caller-supplied delay are built on the same heap. The scheduler never
//! reads a clock: the caller passes `now` in, and tests and simulations
//! drive it with a [`ManualClock`].

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::{fmt, mem};

use crate::error::InvalidInput;

/// A time or a duration in whole microseconds.
///
/// Integers rather than floating-point seconds: two events tie exactly when
/// they are due at the same instant, sums never round (a fixed-rate grid is
/// still on its grid after a million periods), and native and wasm32 builds
/// order the same events the same way. A `u64` of microseconds spans more
/// than 500,000 years; arithmetic on it saturates at `u64::MAX` rather than
/// wrapping around to the past.
pub type Micros = u64;

/// Microseconds in a second.
pub const MICROS_PER_SECOND: Micros = 1_000_000;

/// Seconds as whole microseconds, rounded to the nearest. `as` saturates,
/// so a huge or infinite time becomes the end of time and NaN becomes 0.
pub fn micros(seconds: f64) -> Micros {
    (seconds * MICROS_PER_SECOND as f64).round() as Micros
}

/// Whole seconds as microseconds; exact, as a `u32` of seconds fits.
pub const fn micros_of_whole(seconds: u32) -> Micros {
    seconds as Micros * MICROS_PER_SECOND
}

/// Microseconds as seconds.
pub fn seconds(micros: Micros) -> f64 {
    micros as f64 / MICROS_PER_SECOND as f64
}

/// Orders events due at the same time: the lower number fires first, so 0
/// is the most urgent, as with Unix nice values. 256 levels are plenty for
/// a tie-breaker, and 8 bits leave room in an entry's 128-bit key for the
/// insertion number and the slot.
pub type Priority = u8;

/// Names one scheduled event for as long as it may still fire. It stays the
/// same across reschedules, repeats and retries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EventId {
    slot: usize,
    /// Unique to this event among all events the scheduler ever held. It
    /// tells this event apart from later ones stored in the same slot, so
    /// an id that outlived its event can never cancel a stranger.
    serial: u64,
}

/// How a repeating event picks its next due time after it fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Repeat {
    cadence: Cadence,
    period: Micros,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cadence {
    FixedRate,
    FixedDelay,
}

impl Repeat {
    /// Runs on a fixed grid, for clocks and monitoring: the next run is due
    /// one period after the previous run was *due*, so a late run does not
    /// move the ones after it.
    ///
    /// A run so late that further grid points have passed by the `now` it
    /// fires at stands in for all of them: they are counted in
    /// [`Fired::skipped`] and the next run is due at the first grid point
    /// after `now`. Firing the missed runs back to back instead would hand
    /// a scheduler that is already behind a burst of extra work, and with a
    /// short period and a long gap an unbounded one.
    pub fn fixed_rate(period: Micros) -> Result<Self, InvalidInput> {
        Self::new(Cadence::FixedRate, period)
    }

    /// Waits a full period after each run, for polling and maintenance: the
    /// next run is due one period after the `now` the run fired at, so
    /// lateness carries over into every later run.
    ///
    /// A user who models how long a run takes can move the next run with
    /// [`Scheduler::reschedule`] to its completion time plus the period.
    pub fn fixed_delay(period: Micros) -> Result<Self, InvalidInput> {
        Self::new(Cadence::FixedDelay, period)
    }

    fn new(cadence: Cadence, period: Micros) -> Result<Self, InvalidInput> {
        if period == 0 {
            return Err(InvalidInput::new(
                "period",
                "must be at least 1 µs: a zero period would fire forever at one instant",
            ));
        }
        Ok(Self { cadence, period })
    }

    /// The next due time of a run that was due at `due` and fired at `now`,
    /// and how many grid points that run stood in for.
    fn next_after(&self, due: Micros, now: Micros) -> (Micros, u64) {
        match self.cadence {
            Cadence::FixedDelay => (now.saturating_add(self.period), 0),
            Cadence::FixedRate => {
                let skipped = now.saturating_sub(due) / self.period;
                let periods = skipped.saturating_add(1);
                (
                    due.saturating_add(self.period.saturating_mul(periods)),
                    skipped,
                )
            }
        }
    }
}

/// The wait before a failed event's retry number `retry`; retry 1 is the
/// second attempt.
///
/// Counting retries rather than attempts matches [`crate::backoff`], whose
/// waits are given per retry, so a backoff formula plugs in unchanged. Any
/// `FnMut(u32) -> Micros` closure is a `RetryDelay`; taking `&mut self`
/// lets a policy hold state, such as a seeded generator for jitter.
pub trait RetryDelay {
    fn before_retry(&mut self, retry: u32) -> Micros;
}

impl<F: FnMut(u32) -> Micros> RetryDelay for F {
    fn before_retry(&mut self, retry: u32) -> Micros {
        self(retry)
    }
}

/// How many attempts a failing event gets, and how long it waits before
/// each retry.
pub struct RetryPolicy {
    max_attempts: u32,
    delay: Box<dyn RetryDelay>,
}

impl RetryPolicy {
    /// At most `max_attempts` attempts in all, the first one included.
    pub fn new(max_attempts: u32, delay: impl RetryDelay + 'static) -> Result<Self, InvalidInput> {
        if max_attempts == 0 {
            return Err(InvalidInput::new(
                "max_attempts",
                "must be at least 1: an event with no attempts would never run",
            ));
        }
        Ok(Self {
            max_attempts,
            delay: Box::new(delay),
        })
    }
}

impl fmt::Debug for RetryPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryPolicy")
            .field("max_attempts", &self.max_attempts)
            .finish_non_exhaustive()
    }
}

/// An event that came due, as handed out by [`Scheduler::pop_ready`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fired<T> {
    pub id: EventId,
    /// The time the event was due; the caller's `now` minus this is how
    /// late it ran.
    pub due: Micros,
    pub priority: Priority,
    pub payload: T,
    /// 1 for the first attempt, counting up with each retry; always 1 for
    /// an event without a retry policy.
    pub attempt: u32,
    /// How many grid points a late fixed-rate run stood in for; 0 for every
    /// other event.
    pub skipped: u64,
}

/// What [`Scheduler::report_failure`] did about a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Retry {
    /// The next attempt is scheduled at this time.
    At(Micros),
    /// That was the last attempt the policy allows; the event is forgotten.
    GaveUp,
    /// The id names no event that fired and awaits the outcome of its
    /// attempt.
    NotAwaiting,
}

/// A binary min-heap of keys: the smallest key is on top. The ordering
/// primitive of both event loops in the crate, the [`Scheduler`] here and
/// the queue simulation's engine ([`crate::sim`]): each packs an event's
/// time and tie-breaks into one integer key, so that one integer comparison
/// orders its events.
///
/// A thin wrapper of std's max-heap over `Reverse`, so it costs nothing
/// beyond it. Keys that compare equal come out in an order fixed by the
/// heap's operations alone, the same on every platform.
#[derive(Clone, Debug)]
pub(crate) struct MinHeap<K>(BinaryHeap<Reverse<K>>);

impl<K: Ord> Default for MinHeap<K> {
    fn default() -> Self {
        Self(BinaryHeap::new())
    }
}

impl<K: Ord> MinHeap<K> {
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Self(BinaryHeap::with_capacity(capacity))
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// The smallest key.
    pub(crate) fn peek(&self) -> Option<&K> {
        self.0.peek().map(|Reverse(key)| key)
    }

    pub(crate) fn push(&mut self, key: K) {
        self.0.push(Reverse(key));
    }

    /// Takes the smallest key out.
    pub(crate) fn pop(&mut self) -> Option<K> {
        self.0.pop().map(|Reverse(key)| key)
    }

    /// Keeps only the keys `keep` accepts, in O(n).
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&K) -> bool) {
        self.0.retain(|Reverse(key)| keep(key));
    }

    /// Every key, in no particular order.
    pub(crate) fn into_unordered(self) -> impl Iterator<Item = K> {
        self.0.into_iter().map(|Reverse(key)| key)
    }
}

impl<K: Ord> FromIterator<K> for MinHeap<K> {
    fn from_iter<I: IntoIterator<Item = K>>(keys: I) -> Self {
        Self(keys.into_iter().map(Reverse).collect())
    }
}

/// An entry's key, from the top: 64 bits of time, 8 of priority, then
/// `SEQ_BITS` of insertion number and `SLOT_BITS` of slot.
const SLOT_BITS: u32 = 26;
const SEQ_BITS: u32 = 30;
const PRIORITY_SHIFT: u32 = SEQ_BITS + SLOT_BITS;
const SEQ_LIMIT: u64 = 1 << SEQ_BITS;

/// The most events a scheduler holds at once, pending or awaiting the
/// report of an attempt: 2^26, about 67 million, as many as the slot bits
/// of an entry can name. That many need gigabytes, more than a wasm32
/// build can address.
pub const MAX_EVENTS: usize = 1 << SLOT_BITS;

/// One heap entry: time, priority, insertion number and slot packed into
/// one 128-bit integer, most significant first. Comparing the integers
/// orders entries by time, then priority, then insertion; the slot never
/// decides, because insertion numbers are unique among the entries in the
/// heap. A single integer comparison compiles to branch-free code, and a
/// 16-byte entry halves the memory a pop walks through: in the
/// size-optimised release build, a heap of these pops and pushes about
/// twice as fast as a heap of (time, priority, insertion, slot) structs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Entry(u128);

impl Entry {
    fn new(time: Micros, priority: Priority, seq: u64, slot: usize) -> Self {
        Self(
            u128::from(time) << 64
                | u128::from(priority) << PRIORITY_SHIFT
                | u128::from(seq) << SLOT_BITS
                | slot as u128,
        )
    }

    fn time(self) -> Micros {
        (self.0 >> 64) as Micros
    }

    fn priority(self) -> Priority {
        (self.0 >> PRIORITY_SHIFT) as Priority
    }

    fn seq(self) -> u64 {
        (self.0 >> SLOT_BITS) as u64 & (SEQ_LIMIT - 1)
    }

    fn slot(self) -> usize {
        self.0 as usize & (MAX_EVENTS - 1)
    }
}

/// An event's state, kept outside the heap so that it can be found by id
/// without searching the heap. A slot is free while `payload` is `None`;
/// freed slots are reused in place, field by field, because moving whole
/// records in and out costs more than the heap operations around them.
struct Record<T> {
    payload: Option<T>,
    serial: u64,
    /// The insertion number of the one heap entry allowed to fire; entries
    /// of this slot with any other number are stale. `None` while the event
    /// has no entry: it fired and awaits the report of its attempt.
    generation: Option<u64>,
    priority: Priority,
    kind: Kind,
}

impl<T> Default for Record<T> {
    fn default() -> Self {
        Self {
            payload: None,
            serial: 0,
            generation: None,
            priority: 0,
            kind: Kind::Once,
        }
    }
}

enum Kind {
    Once,
    Repeating(Repeat),
    /// Boxed so that the common kinds keep records small.
    Retrying(Box<Retrying>),
}

struct Retrying {
    policy: RetryPolicy,
    /// The attempt that is pending, or that fired and awaits its report.
    attempt: u32,
}

/// What becomes of an event's record once it fires.
enum Afterwards {
    Forget,
    RunAgainAt(Micros),
    AwaitReport,
}

/// A min-heap of events with payloads of type `T`, driven by the caller's
/// clock.
pub struct Scheduler<T> {
    heap: MinHeap<Entry>,
    records: Vec<Record<T>>,
    free_slots: Vec<usize>,
    next_serial: u64,
    next_seq: u64,
    /// Heap entries that may still fire; every other entry is dead.
    live: usize,
}

impl<T> Default for Scheduler<T> {
    fn default() -> Self {
        Self {
            heap: MinHeap::default(),
            records: Vec::new(),
            free_slots: Vec::new(),
            next_serial: 0,
            next_seq: 0,
            live: 0,
        }
    }
}

impl<T> fmt::Debug for Scheduler<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scheduler")
            .field("live", &self.live_len())
            .field("dead", &self.dead_len())
            .field("next_due", &self.next_due())
            .finish_non_exhaustive()
    }
}

impl<T> Scheduler<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules a one-shot event at `at`. A time already past is allowed:
    /// the event fires at the next pop. Fails only when the scheduler
    /// already holds [`MAX_EVENTS`] events.
    pub fn schedule(
        &mut self,
        at: Micros,
        priority: Priority,
        payload: T,
    ) -> Result<EventId, InvalidInput> {
        self.insert(at, priority, payload, Kind::Once)
    }

    /// Schedules an event that first fires at `first` and then again every
    /// period, as `repeat` says, until it is cancelled. Fails like
    /// [`Self::schedule`].
    pub fn schedule_repeating(
        &mut self,
        first: Micros,
        priority: Priority,
        payload: T,
        repeat: Repeat,
    ) -> Result<EventId, InvalidInput> {
        self.insert(first, priority, payload, Kind::Repeating(repeat))
    }

    /// Schedules an event whose attempts may fail. After each firing the
    /// event waits for the caller to call [`Self::report_success`] or
    /// [`Self::report_failure`]; until then its record is kept, so every
    /// firing of it must be answered by one of the two or by a cancel.
    /// Fails like [`Self::schedule`].
    pub fn schedule_with_retry(
        &mut self,
        at: Micros,
        priority: Priority,
        payload: T,
        policy: RetryPolicy,
    ) -> Result<EventId, InvalidInput> {
        let kind = Kind::Retrying(Box::new(Retrying { policy, attempt: 1 }));
        self.insert(at, priority, payload, kind)
    }

    /// Forgets the event, so no run of it fires any more. False if the id
    /// names no event that could still fire: unknown, fired for the last
    /// time, or cancelled already.
    pub fn cancel(&mut self, id: EventId) -> bool {
        let was_pending = self.is_pending(id);
        if self.release(id).is_none() {
            return false;
        }
        if was_pending {
            self.live -= 1;
            self.tidy();
        }
        true
    }

    /// Moves a pending event to `at`. Among events due at the same time
    /// with the same priority it now counts as the newest. A fixed-rate
    /// event's grid moves with it. False if the event is not pending.
    pub fn reschedule(&mut self, id: EventId, at: Micros) -> bool {
        if !self.is_pending(id) {
            return false;
        }
        self.arm(id.slot, at);
        self.tidy();
        true
    }

    /// Closes an attempt that succeeded; the event is forgotten. False if
    /// the id names no event awaiting the outcome of an attempt.
    pub fn report_success(&mut self, id: EventId) -> bool {
        self.awaits_report(id) && self.release(id).is_some()
    }

    /// Closes an attempt that failed at `at`: schedules the next attempt
    /// after the policy's delay for it, or gives up if the policy allows no
    /// more.
    pub fn report_failure(&mut self, id: EventId, at: Micros) -> Retry {
        let Some(Record {
            generation: None,
            kind: Kind::Retrying(retrying),
            ..
        }) = self.find_mut(id)
        else {
            return Retry::NotAwaiting;
        };
        let Retrying { policy, attempt } = &mut **retrying;
        if *attempt >= policy.max_attempts {
            self.release(id);
            return Retry::GaveUp;
        }
        let retry_at = at.saturating_add(policy.delay.before_retry(*attempt));
        *attempt += 1;
        self.arm(id.slot, retry_at);
        Retry::At(retry_at)
    }

    /// When the earliest pending event is due; a caller's loop sleeps (or a
    /// simulation jumps) until then. An event scheduled earlier than this
    /// shows up here at once, so a loop that asks again after every insert
    /// never oversleeps it.
    pub fn next_due(&self) -> Option<Micros> {
        self.heap.peek().map(|entry| entry.time())
    }

    /// Events that will still fire: entries in the heap that are not dead.
    pub fn live_len(&self) -> usize {
        self.live
    }

    /// Cancelled or superseded entries still in the heap; never more than
    /// the live ones.
    pub fn dead_len(&self) -> usize {
        self.heap.len() - self.live
    }

    fn insert(
        &mut self,
        at: Micros,
        priority: Priority,
        payload: T,
        kind: Kind,
    ) -> Result<EventId, InvalidInput> {
        let slot = match self.free_slots.pop() {
            Some(slot) => slot,
            None if self.records.len() < MAX_EVENTS => {
                self.records.push(Record::default());
                self.records.len() - 1
            }
            None => {
                return Err(InvalidInput::new(
                    "events",
                    format!("a scheduler holds at most {MAX_EVENTS} events at once"),
                ));
            }
        };
        let serial = self.next_serial;
        // 2^64 events would take centuries to schedule, so this never wraps.
        self.next_serial += 1;
        // Field by field: a whole record written at once compiles to a bulk
        // copy that costs more than the heap push after it.
        let record = &mut self.records[slot];
        record.payload = Some(payload);
        record.serial = serial;
        record.priority = priority;
        record.kind = kind;
        self.arm(slot, at);
        Ok(EventId { slot, serial })
    }

    /// Pushes an entry at `time` for the record in `slot` and makes it the
    /// only one of that record allowed to fire.
    fn arm(&mut self, slot: usize, time: Micros) {
        if self.next_seq == SEQ_LIMIT {
            self.renumber();
        }
        let Some(record) = self.records.get_mut(slot) else {
            return;
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        if record.generation.replace(seq).is_none() {
            self.live += 1;
        }
        self.heap.push(Entry::new(time, record.priority, seq, slot));
    }

    /// Starts insertion numbers over once they fill their bits, after about
    /// a billion insertions. The live entries, taken in order, get the
    /// numbers 0, 1, 2, ... so their order and FIFO ties are kept; dead
    /// entries are dropped on the way, as their numbers could now collide
    /// with new ones. With at most `MAX_EVENTS` live entries, a sixteenth of
    /// the numbers, this costs a sort per billion insertions.
    fn renumber(&mut self) {
        let records = &self.records;
        let mut live: Vec<Entry> = mem::take(&mut self.heap)
            .into_unordered()
            .filter(|&entry| is_live(records, entry))
            .collect();
        live.sort_unstable();
        let mut seq = 0;
        for entry in &mut live {
            *entry = Entry::new(entry.time(), entry.priority(), seq, entry.slot());
            if let Some(record) = self.records.get_mut(entry.slot()) {
                record.generation = Some(seq);
            }
            seq += 1;
        }
        self.next_seq = seq;
        self.heap = live.into_iter().collect();
    }

    fn find(&self, id: EventId) -> Option<&Record<T>> {
        let record = self.records.get(id.slot)?;
        (record.payload.is_some() && record.serial == id.serial).then_some(record)
    }

    fn find_mut(&mut self, id: EventId) -> Option<&mut Record<T>> {
        let record = self.records.get_mut(id.slot)?;
        (record.payload.is_some() && record.serial == id.serial).then_some(record)
    }

    fn is_pending(&self, id: EventId) -> bool {
        self.find(id)
            .is_some_and(|record| record.generation.is_some())
    }

    fn awaits_report(&self, id: EventId) -> bool {
        self.find(id)
            .is_some_and(|record| record.generation.is_none())
    }

    /// Frees the event's slot and hands back its payload.
    fn release(&mut self, id: EventId) -> Option<T> {
        let record = self.find_mut(id)?;
        let payload = record.payload.take();
        record.generation = None;
        // Drops a retry policy now rather than whenever the slot is reused.
        record.kind = Kind::Once;
        self.free_slots.push(id.slot);
        payload
    }

    /// Keeps the two promises of lazy deletion: dead entries never
    /// outnumber live ones, and the top of the heap is live, so `next_due`
    /// is exact and a pop never has to skip.
    fn tidy(&mut self) {
        if self.dead_len() * 2 > self.heap.len() {
            // O(n), but only after at least as many cancels or reschedules
            // as there are entries left, so each pays O(1) of it.
            let records = &self.records;
            self.heap.retain(|&entry| is_live(records, entry));
        }
        while let Some(&top) = self.heap.peek()
            && !is_live(&self.records, top)
        {
            self.heap.pop();
        }
    }
}

impl<T: Clone> Scheduler<T> {
    /// The earliest event due at or before `now`, if any; a caller drains
    /// every due event by calling it until it returns `None`.
    ///
    /// A one-shot payload is moved out. A repeating or retrying event keeps
    /// its payload for its next run and hands out a clone, hence `T: Clone`.
    pub fn pop_ready(&mut self, now: Micros) -> Option<Fired<T>> {
        let entry = *self.heap.peek()?;
        let due = entry.time();
        if due > now {
            return None;
        }
        self.heap.pop();
        let record = self.records.get_mut(entry.slot())?;
        record.generation = None;
        self.live -= 1;
        let id = EventId {
            slot: entry.slot(),
            serial: record.serial,
        };
        let (afterwards, attempt, skipped) = match &record.kind {
            Kind::Once => (Afterwards::Forget, 1, 0),
            Kind::Repeating(repeat) => {
                let (next, skipped) = repeat.next_after(due, now);
                // A next run not after `now` can only come from saturating
                // at the end of time; re-arming it would fire forever
                // without `now` ever moving past it.
                let afterwards = if next > now {
                    Afterwards::RunAgainAt(next)
                } else {
                    Afterwards::Forget
                };
                (afterwards, 1, skipped)
            }
            Kind::Retrying(retrying) => (Afterwards::AwaitReport, retrying.attempt, 0),
        };
        let payload = match afterwards {
            Afterwards::Forget => self.release(id)?,
            Afterwards::AwaitReport => record.payload.clone()?,
            Afterwards::RunAgainAt(next) => {
                let payload = record.payload.clone()?;
                self.arm(entry.slot(), next);
                payload
            }
        };
        self.tidy();
        Some(Fired {
            id,
            due,
            priority: entry.priority(),
            payload,
            attempt,
            skipped,
        })
    }
}

/// Whether the entry is the newest of a pending event; a free slot has no
/// generation, so entries of released events are never live.
fn is_live<T>(records: &[Record<T>], entry: Entry) -> bool {
    records
        .get(entry.slot())
        .is_some_and(|record| record.generation == Some(entry.seq()))
}

/// A clock that moves only when told to, for tests and simulations. Time
/// read from it is exact and repeatable, and a test never sleeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ManualClock {
    now: Micros,
}

impl ManualClock {
    pub fn new(now: Micros) -> Self {
        Self { now }
    }

    pub fn now(&self) -> Micros {
        self.now
    }

    /// Moves forward by `by`, stopping at the end of time; returns the new
    /// now.
    pub fn advance(&mut self, by: Micros) -> Micros {
        self.now = self.now.saturating_add(by);
        self.now
    }

    /// Moves to `to` unless that is earlier than now, and returns the new
    /// now. Like a monotonic clock it never runs backwards: a wall clock
    /// stepped back would hold every pending deadline off for the length of
    /// the step.
    pub fn set(&mut self, to: Micros) -> Micros {
        self.now = self.now.max(to);
        self.now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_out_of_insertion_numbers_keeps_the_order_and_the_ids() {
        let mut scheduler = Scheduler::new();
        scheduler.next_seq = SEQ_LIMIT - 4;
        let low_priority = scheduler.schedule(5, 1, "a").unwrap();
        scheduler.schedule(5, 0, "b").unwrap();
        let cancelled = scheduler.schedule(5, 0, "cancelled").unwrap();
        scheduler.schedule(5, 0, "c").unwrap();
        assert!(scheduler.cancel(cancelled));
        assert_eq!(scheduler.dead_len(), 1);

        // The numbers run out here: the live entries are renumbered from 0
        // and the dead one is dropped.
        scheduler.schedule(5, 0, "d").unwrap();
        assert_eq!(scheduler.next_seq, 4);
        assert_eq!((scheduler.live_len(), scheduler.dead_len()), (4, 0));
        assert!(!scheduler.cancel(cancelled));

        assert!(scheduler.reschedule(low_priority, 4));
        let fired: Vec<_> = std::iter::from_fn(|| scheduler.pop_ready(5))
            .map(|fired| fired.payload)
            .collect();
        assert_eq!(fired, ["a", "b", "c", "d"]);
    }
}
