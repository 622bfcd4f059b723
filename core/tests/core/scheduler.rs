use proptest::prelude::*;
use stampede_core::scheduler::{
    EventId, Fired, ManualClock, Micros, Priority, Repeat, Retry, RetryPolicy, Scheduler,
};

/// Every event due at or before `now`, in firing order.
fn drain<T: Clone>(scheduler: &mut Scheduler<T>, now: Micros) -> Vec<Fired<T>> {
    std::iter::from_fn(|| scheduler.pop_ready(now)).collect()
}

fn payloads<T: Clone>(scheduler: &mut Scheduler<T>, now: Micros) -> Vec<T> {
    drain(scheduler, now)
        .into_iter()
        .map(|f| f.payload)
        .collect()
}

fn dues<T: Clone>(fired: &[Fired<T>]) -> Vec<Micros> {
    fired.iter().map(|f| f.due).collect()
}

fn doubling_from(base: Micros) -> impl FnMut(u32) -> Micros {
    move |retry| base << (retry - 1)
}

// Cookbook bug: real sleeping in tests makes them slow and flaky. The
// scheduler only ever sees the `now` it is given.
#[test]
fn no_real_sleeping_a_day_long_schedule_runs_at_once() {
    const DAY: Micros = 86_400_000_000;
    let mut clock = ManualClock::default();
    let mut scheduler = Scheduler::new();
    scheduler.schedule(DAY, 0, "backup").unwrap();
    scheduler.schedule(DAY / 2, 0, "email").unwrap();
    assert_eq!(scheduler.pop_ready(clock.now()), None);
    clock.advance(DAY - 1);
    assert_eq!(payloads(&mut scheduler, clock.now()), ["email"]);
    clock.advance(1);
    assert_eq!(payloads(&mut scheduler, clock.now()), ["backup"]);
}

// Cookbook bug: delays measured on a wall clock that jumps. The manual
// clock, like a monotonic one, refuses to run backwards.
#[test]
fn no_wall_clock_jumps_the_manual_clock_never_runs_backwards() {
    let mut clock = ManualClock::new(1_000);
    assert_eq!(clock.set(400), 1_000);
    assert_eq!(clock.set(1_500), 1_500);
    assert_eq!(clock.advance(500), 2_000);
    assert_eq!(clock.advance(Micros::MAX), Micros::MAX);
    assert_eq!(clock.now(), Micros::MAX);
}

// Cookbook bug: a rescheduled event whose old entry still fires.
#[test]
fn a_rescheduled_event_fires_once_at_its_new_time() {
    let mut scheduler = Scheduler::new();
    let later = scheduler.schedule(100, 0, "later").unwrap();
    let earlier = scheduler.schedule(100, 0, "earlier").unwrap();
    assert!(scheduler.reschedule(later, 300));
    assert!(scheduler.reschedule(later, 200));
    assert!(scheduler.reschedule(earlier, 50));
    assert_eq!(scheduler.live_len(), 2);

    let fired = drain(&mut scheduler, 1_000);
    let seen: Vec<_> = fired.iter().map(|f| (f.payload, f.due)).collect();
    assert_eq!(seen, [("earlier", 50), ("later", 200)]);
    assert_eq!(fired[1].id, later);
    assert_eq!((scheduler.live_len(), scheduler.dead_len()), (0, 0));
    assert!(!scheduler.reschedule(later, 5_000));
    assert_eq!(scheduler.next_due(), None);
}

// Cookbook bug: cancelled entries that never reach the top pile up.
#[test]
fn cancelled_entries_do_not_pile_up() {
    let mut scheduler = Scheduler::new();
    let ids: Vec<EventId> = (0..1_000)
        .map(|i| scheduler.schedule(1_000 + i, 0, i).unwrap())
        .collect();
    // Cancel the late ones, which never surface at the top by themselves.
    for (cancelled, &id) in ids.iter().rev().take(900).enumerate() {
        assert!(scheduler.cancel(id));
        assert_eq!(scheduler.live_len(), 1_000 - cancelled - 1);
        assert!(scheduler.dead_len() <= scheduler.live_len());
    }
    // Without compaction 900 dead entries would remain.
    assert!(scheduler.dead_len() <= 50, "{}", scheduler.dead_len());
    assert_eq!(
        payloads(&mut scheduler, Micros::MAX),
        (0..100).collect::<Vec<_>>()
    );
    assert_eq!(scheduler.dead_len(), 0);
}

#[test]
fn rescheduling_over_and_over_does_not_pile_up_stale_entries() {
    let mut scheduler = Scheduler::new();
    let ids: Vec<EventId> = (0..10)
        .map(|i| scheduler.schedule(i, 0, i).unwrap())
        .collect();
    for round in 0..1_000 {
        for &id in &ids {
            assert!(scheduler.reschedule(id, 10_000 - round));
        }
        assert!(scheduler.dead_len() <= scheduler.live_len());
    }
    assert_eq!(drain(&mut scheduler, Micros::MAX).len(), 10);
}

// Cookbook bug: recurring events that drift, or don't, after a late run
// without anyone having decided which.
#[test]
fn after_a_late_run_fixed_rate_keeps_its_grid_and_fixed_delay_drifts() {
    let mut scheduler = Scheduler::new();
    scheduler
        .schedule_repeating(0, 0, "rate", Repeat::fixed_rate(10).unwrap())
        .unwrap();
    scheduler
        .schedule_repeating(0, 1, "delay", Repeat::fixed_delay(10).unwrap())
        .unwrap();

    let mut fired_at = |now| {
        drain(&mut scheduler, now)
            .into_iter()
            .map(|f| (f.payload, f.due))
            .collect::<Vec<_>>()
    };
    assert_eq!(fired_at(0), [("rate", 0), ("delay", 0)]);
    // Both runs due at 10 fire 3 µs late.
    assert_eq!(fired_at(13), [("rate", 10), ("delay", 10)]);
    // Fixed-rate stays on the grid; fixed-delay waits a period from 13.
    assert_eq!(fired_at(22), [("rate", 20)]);
    assert_eq!(fired_at(23), [("delay", 23)]);
    assert_eq!(fired_at(33), [("rate", 30), ("delay", 33)]);
}

#[test]
fn fixed_rate_far_behind_skips_the_missed_runs_and_stays_on_its_grid() {
    let mut scheduler = Scheduler::new();
    let id = scheduler
        .schedule_repeating(100, 0, (), Repeat::fixed_rate(10).unwrap())
        .unwrap();
    let first = drain(&mut scheduler, 100);
    assert_eq!((first[0].due, first[0].skipped), (100, 0));

    // Grid points 110 ... 150 are all past at 155: one run stands in for
    // them, and the next is due at the next grid point.
    let late = drain(&mut scheduler, 155);
    assert_eq!(late.len(), 1);
    assert_eq!((late[0].id, late[0].due, late[0].skipped), (id, 110, 4));
    assert_eq!(scheduler.next_due(), Some(160));

    // A late run landing exactly on a grid point covers that point too.
    let on_point = drain(&mut scheduler, 180);
    assert_eq!(dues(&on_point), [160]);
    assert_eq!(on_point[0].skipped, 2);
    assert_eq!(scheduler.next_due(), Some(190));
}

#[test]
fn a_fixed_rate_grid_is_exact_after_a_million_periods() {
    let mut scheduler = Scheduler::new();
    // 0.1 s does not exist as a binary fraction of a second; in whole
    // microseconds it is exact and adds up without drift.
    scheduler
        .schedule_repeating(0, 0, (), Repeat::fixed_rate(100_000).unwrap())
        .unwrap();
    let mut now = 0;
    for _ in 0..1_000_000 {
        let fired = scheduler.pop_ready(now).unwrap();
        assert_eq!(fired.due, now);
        now += 100_000;
    }
    assert_eq!(scheduler.next_due(), Some(100_000_000_000));
}

#[test]
fn a_cancelled_repeating_event_stops_and_a_rescheduled_one_moves_its_grid() {
    let mut scheduler = Scheduler::new();
    let id = scheduler
        .schedule_repeating(0, 0, (), Repeat::fixed_rate(10).unwrap())
        .unwrap();
    for now in [0, 10, 20] {
        assert_eq!(dues(&drain(&mut scheduler, now)), [now]);
    }
    assert!(scheduler.reschedule(id, 35));
    assert_eq!(scheduler.next_due(), Some(35));
    for now in [35, 45, 55] {
        assert_eq!(dues(&drain(&mut scheduler, now)), [now]);
    }
    assert!(scheduler.cancel(id));
    assert!(drain(&mut scheduler, Micros::MAX).is_empty());
    assert!(!scheduler.cancel(id));
}

#[test]
fn a_zero_period_is_refused() {
    assert_eq!(Repeat::fixed_rate(0).unwrap_err().field, "period");
    assert_eq!(Repeat::fixed_delay(0).unwrap_err().field, "period");
}

// The cookbook's tie-break: time, then priority, then insertion order.
#[test]
fn equal_times_fire_by_priority_then_in_insertion_order() {
    let mut scheduler = Scheduler::new();
    scheduler.schedule(5, 2, "low first").unwrap();
    scheduler.schedule(5, 0, "urgent first").unwrap();
    scheduler.schedule(5, 2, "low second").unwrap();
    scheduler.schedule(4, 9, "earliest").unwrap();
    scheduler.schedule(5, 0, "urgent second").unwrap();
    scheduler.schedule(5, 1, "middle").unwrap();
    assert_eq!(
        payloads(&mut scheduler, 5),
        [
            "earliest",
            "urgent first",
            "urgent second",
            "middle",
            "low first",
            "low second"
        ]
    );
}

#[test]
fn a_rescheduled_event_queues_behind_its_new_equals() {
    let mut scheduler = Scheduler::new();
    let moved = scheduler.schedule(1, 0, "moved").unwrap();
    scheduler.schedule(5, 0, "waiting").unwrap();
    assert!(scheduler.reschedule(moved, 5));
    assert_eq!(payloads(&mut scheduler, 5), ["waiting", "moved"]);
}

// Cookbook bug: a loop sleeping until the old next event misses an earlier
// one inserted meanwhile. `next_due` reflects every insert and cancel at once.
#[test]
fn no_missed_wakeup_next_due_follows_an_earlier_insert_at_once() {
    let mut scheduler = Scheduler::new();
    let ten = scheduler.schedule(10 * 60_000_000, 0, "10:00").unwrap();
    assert_eq!(scheduler.next_due(), Some(600_000_000));
    let half_past_nine = scheduler
        .schedule(9 * 60_000_000 + 30_000_000, 0, "9:30")
        .unwrap();
    assert_eq!(scheduler.next_due(), Some(570_000_000));
    assert!(scheduler.cancel(half_past_nine));
    assert_eq!(scheduler.next_due(), Some(600_000_000));
    assert!(scheduler.cancel(ten));
    assert_eq!(scheduler.next_due(), None);
}

// In the cookbook's version a cancel is an id in a set: cancelling an id
// that already fired stays in the set and can kill a later event. Here a
// stale id is refused and touches nothing.
#[test]
fn an_id_that_outlived_its_event_cancels_nothing() {
    let mut scheduler = Scheduler::new();
    let old = scheduler.schedule(1, 0, "old").unwrap();
    assert_eq!(payloads(&mut scheduler, 1), ["old"]);
    // The new event reuses the old one's storage.
    let new = scheduler.schedule(2, 0, "new").unwrap();
    assert_ne!(old, new);
    assert!(!scheduler.cancel(old));
    assert!(!scheduler.reschedule(old, 100));
    assert_eq!(payloads(&mut scheduler, 2), ["new"]);
    assert!(!scheduler.cancel(new));
    assert!(!scheduler.report_success(new));
    assert_eq!(scheduler.report_failure(new, 3), Retry::NotAwaiting);
}

#[test]
fn an_event_scheduled_in_the_past_fires_at_the_next_pop() {
    let mut clock = ManualClock::new(1_000);
    let mut scheduler = Scheduler::new();
    scheduler.schedule(clock.now() - 500, 0, "overdue").unwrap();
    scheduler.schedule(clock.now() + 1, 0, "future").unwrap();
    let fired = drain(&mut scheduler, clock.now());
    assert_eq!((fired[0].payload, fired[0].due), ("overdue", 500));
    assert_eq!(fired.len(), 1);
    clock.advance(1);
    assert_eq!(payloads(&mut scheduler, clock.now()), ["future"]);
}

#[test]
fn times_saturate_at_the_end_of_time_instead_of_wrapping() {
    let mut scheduler = Scheduler::new();
    scheduler
        .schedule_repeating(Micros::MAX - 15, 0, "rate", Repeat::fixed_rate(10).unwrap())
        .unwrap();
    scheduler
        .schedule_repeating(
            Micros::MAX - 5,
            1,
            "delay",
            Repeat::fixed_delay(10).unwrap(),
        )
        .unwrap();
    scheduler.schedule(Micros::MAX, 2, "last").unwrap();
    let seen = |fired: Vec<Fired<&'static str>>| -> Vec<_> {
        fired.into_iter().map(|f| (f.payload, f.due)).collect()
    };
    // Both next runs would lie past u64::MAX; they are clamped to it.
    let fired = drain(&mut scheduler, Micros::MAX - 1);
    assert_eq!(
        seen(fired),
        [("rate", Micros::MAX - 15), ("delay", Micros::MAX - 5)]
    );
    assert_eq!(scheduler.next_due(), Some(Micros::MAX));
    // At u64::MAX there is no later time to run again, so the repeats stop
    // rather than fire forever.
    let fired = drain(&mut scheduler, Micros::MAX);
    assert_eq!(
        seen(fired),
        [
            ("rate", Micros::MAX),
            ("delay", Micros::MAX),
            ("last", Micros::MAX),
        ]
    );
    assert_eq!((scheduler.live_len(), scheduler.dead_len()), (0, 0));

    let id = scheduler
        .schedule_with_retry(0, 0, "retry", RetryPolicy::new(2, |_| Micros::MAX).unwrap())
        .unwrap();
    drain(&mut scheduler, 0);
    assert_eq!(scheduler.report_failure(id, 7), Retry::At(Micros::MAX));
}

#[test]
fn an_event_that_fails_twice_then_succeeds_retries_at_doubling_delays() {
    let mut clock = ManualClock::new(1_000);
    let mut scheduler = Scheduler::new();
    let policy = RetryPolicy::new(5, doubling_from(100)).unwrap();
    let id = scheduler
        .schedule_with_retry(clock.now(), 0, "call", policy)
        .unwrap();

    let first = scheduler.pop_ready(clock.now()).unwrap();
    assert_eq!((first.id, first.due, first.attempt), (id, 1_000, 1));
    // The attempt takes 50 µs to fail; the first retry waits 100 µs.
    clock.advance(50);
    assert_eq!(scheduler.report_failure(id, clock.now()), Retry::At(1_150));
    assert_eq!(scheduler.live_len(), 1);

    clock.set(1_150);
    let second = scheduler.pop_ready(clock.now()).unwrap();
    assert_eq!(
        (second.due, second.attempt, second.payload),
        (1_150, 2, "call")
    );
    // It fails at once; the second retry waits 200 µs.
    assert_eq!(scheduler.report_failure(id, clock.now()), Retry::At(1_350));

    assert_eq!(scheduler.pop_ready(1_349), None);
    let third = scheduler.pop_ready(1_350).unwrap();
    assert_eq!((third.due, third.attempt), (1_350, 3));
    assert!(scheduler.report_success(id));

    assert!(!scheduler.report_success(id));
    assert!(!scheduler.cancel(id));
    assert_eq!(scheduler.live_len(), 0);
    assert_eq!(scheduler.pop_ready(Micros::MAX), None);
}

#[test]
fn retries_give_up_after_max_attempts() {
    let mut scheduler = Scheduler::new();
    let id = scheduler
        .schedule_with_retry(0, 0, 7, RetryPolicy::new(3, doubling_from(10)).unwrap())
        .unwrap();
    let mut attempts = Vec::new();
    let mut outcomes = Vec::new();
    while let Some(fired) = scheduler.pop_ready(Micros::MAX) {
        attempts.push((fired.attempt, fired.due));
        outcomes.push(scheduler.report_failure(id, fired.due));
    }
    assert_eq!(attempts, [(1, 0), (2, 10), (3, 30)]);
    assert_eq!(outcomes, [Retry::At(10), Retry::At(30), Retry::GaveUp]);
    assert_eq!(scheduler.report_failure(id, 40), Retry::NotAwaiting);
    assert_eq!((scheduler.live_len(), scheduler.dead_len()), (0, 0));
}

#[test]
fn reporting_before_an_attempt_fires_or_after_a_cancel_does_nothing() {
    let mut scheduler = Scheduler::new();
    let policy = || RetryPolicy::new(3, doubling_from(10)).unwrap();
    let id = scheduler.schedule_with_retry(5, 0, (), policy()).unwrap();
    assert!(!scheduler.report_success(id));
    assert_eq!(scheduler.report_failure(id, 0), Retry::NotAwaiting);

    drain(&mut scheduler, 5);
    assert!(scheduler.cancel(id));
    assert_eq!(scheduler.report_failure(id, 5), Retry::NotAwaiting);
    assert_eq!(scheduler.live_len(), 0);

    assert_eq!(
        RetryPolicy::new(0, doubling_from(10)).unwrap_err().field,
        "max_attempts"
    );
    let once = scheduler
        .schedule_with_retry(0, 0, (), RetryPolicy::new(1, doubling_from(10)).unwrap())
        .unwrap();
    drain(&mut scheduler, 0);
    assert_eq!(scheduler.report_failure(once, 0), Retry::GaveUp);
}

/// One step of a random session against the scheduler.
#[derive(Clone, Debug)]
enum Op {
    Schedule {
        at: Micros,
        priority: Priority,
        repeat: Option<ModelRepeat>,
    },
    /// Picks among every id issued so far, fired ones included.
    Cancel(prop::sample::Index),
    Reschedule(prop::sample::Index, Micros),
    /// Advances now and pops everything due.
    Pop(Micros),
}

#[derive(Clone, Copy, Debug)]
enum ModelRepeat {
    FixedRate(Micros),
    FixedDelay(Micros),
}

impl ModelRepeat {
    fn to_repeat(self) -> Repeat {
        match self {
            Self::FixedRate(period) => Repeat::fixed_rate(period),
            Self::FixedDelay(period) => Repeat::fixed_delay(period),
        }
        .unwrap()
    }
}

fn op() -> impl Strategy<Value = Op> {
    let repeat = prop_oneof![
        4 => Just(None),
        1 => (1..40u64).prop_map(|p| Some(ModelRepeat::FixedRate(p))),
        1 => (1..40u64).prop_map(|p| Some(ModelRepeat::FixedDelay(p))),
    ];
    // Times in a narrow range and few priorities, so ties are common.
    prop_oneof![
        4 => (0..300u64, 0..3u8, repeat)
            .prop_map(|(at, priority, repeat)| Op::Schedule { at, priority, repeat }),
        2 => any::<prop::sample::Index>().prop_map(Op::Cancel),
        2 => (any::<prop::sample::Index>(), 0..300u64)
            .prop_map(|(index, at)| Op::Reschedule(index, at)),
        2 => (0..60u64).prop_map(Op::Pop),
    ]
}

/// A pending event as the model keeps it: `name` is its index among the
/// issued ids and also its payload.
#[derive(Clone, Copy, Debug)]
struct ModelEvent {
    name: usize,
    time: Micros,
    priority: Priority,
    seq: u64,
    repeat: Option<ModelRepeat>,
}

impl ModelEvent {
    fn key(&self) -> (Micros, Priority, u64) {
        (self.time, self.priority, self.seq)
    }
}

/// The scheduler's contract written the slow, obvious way: a `Vec` kept
/// sorted by (time, priority, insertion), and repeats stepped one period
/// at a time.
#[derive(Default)]
struct Model {
    pending: Vec<ModelEvent>,
    next_seq: u64,
}

impl Model {
    /// Inserts `event` as the newest of its equals.
    fn insert(&mut self, mut event: ModelEvent) {
        self.next_seq += 1;
        event.seq = self.next_seq;
        let at = self.pending.partition_point(|e| e.key() < event.key());
        self.pending.insert(at, event);
    }

    fn take(&mut self, name: usize) -> Option<ModelEvent> {
        let i = self.pending.iter().position(|e| e.name == name)?;
        Some(self.pending.remove(i))
    }

    fn cancel(&mut self, name: usize) -> bool {
        self.take(name).is_some()
    }

    fn reschedule(&mut self, name: usize, time: Micros) -> bool {
        let Some(event) = self.take(name) else {
            return false;
        };
        self.insert(ModelEvent { time, ..event });
        true
    }

    /// (name, due, priority, skipped) of the next event due by `now`.
    fn pop(&mut self, now: Micros) -> Option<(usize, Micros, Priority, u64)> {
        self.pending.first().filter(|e| e.time <= now)?;
        let event = self.pending.remove(0);
        let mut skipped = 0;
        let next = match event.repeat {
            None => None,
            Some(ModelRepeat::FixedDelay(period)) => Some(now + period),
            Some(ModelRepeat::FixedRate(period)) => {
                let mut next = event.time + period;
                while next <= now {
                    next += period;
                    skipped += 1;
                }
                Some(next)
            }
        };
        if let Some(time) = next {
            self.insert(ModelEvent { time, ..event });
        }
        Some((event.name, event.time, event.priority, skipped))
    }

    fn next_due(&self) -> Option<Micros> {
        self.pending.first().map(|e| e.time)
    }
}

proptest! {
    #[test]
    fn the_scheduler_fires_what_a_sorted_vec_model_fires(
        ops in prop::collection::vec(op(), 1..200)
    ) {
        let mut scheduler = Scheduler::new();
        let mut model = Model::default();
        let mut ids: Vec<EventId> = Vec::new();
        let mut now = 0;
        for op in ops {
            match op {
                Op::Schedule { at, priority, repeat } => {
                    let name = ids.len();
                    let id = match repeat {
                        None => scheduler.schedule(at, priority, name),
                        Some(repeat) => {
                            scheduler.schedule_repeating(at, priority, name, repeat.to_repeat())
                        }
                    };
                    ids.push(id.unwrap());
                    model.insert(ModelEvent { name, time: at, priority, seq: 0, repeat });
                }
                Op::Cancel(index) if !ids.is_empty() => {
                    let name = index.index(ids.len());
                    prop_assert_eq!(scheduler.cancel(ids[name]), model.cancel(name));
                }
                Op::Reschedule(index, at) if !ids.is_empty() => {
                    let name = index.index(ids.len());
                    prop_assert_eq!(scheduler.reschedule(ids[name], at), model.reschedule(name, at));
                }
                Op::Cancel(_) | Op::Reschedule(..) => {}
                Op::Pop(advance) => {
                    now += advance;
                    let fired: Vec<_> = drain(&mut scheduler, now)
                        .into_iter()
                        .map(|f| {
                            assert_eq!(f.id, ids[f.payload]);
                            (f.payload, f.due, f.priority, f.skipped)
                        })
                        .collect();
                    let expected: Vec<_> = std::iter::from_fn(|| model.pop(now)).collect();
                    prop_assert_eq!(fired, expected);
                }
            }
            prop_assert_eq!(scheduler.live_len(), model.pending.len());
            prop_assert!(scheduler.dead_len() <= scheduler.live_len());
            prop_assert_eq!(scheduler.next_due(), model.next_due());
        }
    }
}
