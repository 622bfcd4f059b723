//! Inside the scheduler: what [`crate::scheduler::Scheduler`] does with a
//! repeating job whose run overruns, and what lazy cancellation leaves in
//! its heap. Both are measured by driving the real scheduler with a
//! [`ManualClock`], never by a copy of its rules.
//!
//! A late run. One worker runs a job every period P, starting at t = 0;
//! every run takes no time except run [`SLOW_RUN`], which lasts P + L. The
//! worker fires each run when it is free and the run is due, so the run
//! after the slow one fires L late under either policy. What follows
//! depends on the policy:
//! - fixed rate: the next run is due at the previous run's due time + P.
//!   The scheduler counts the grid slots that passed while the run waited,
//!   ⌊L / P⌋ of them; the late run stands in for all of them (they are
//!   coalesced, not fired back to back), and the run after it is due on
//!   the first grid slot after the moment the late run fired. So the late
//!   run is followed at most a period later by a run back on its grid k·P.
//! - fixed delay: the next run is due at the moment the run fired + P. The
//!   scheduler never learns when a run finishes, so the delay counts from
//!   the start of the run; the run after the slow one fires at its slot + L
//!   and every later run keeps that shift of L. No slot is skipped.
//!
//! Lazy cancellation. N one-shot events are due one after another; a
//! share of them, spread evenly over their due times, is cancelled in
//! order, then every remaining event is popped. A cancel leaves a dead
//! entry in the heap; a dead entry leaves when it reaches the top, and the
//! scheduler rebuilds the heap without its dead entries whenever they
//! outnumber the live ones (a compaction). The scheduler cannot switch the
//! rebuild off, so the heap without compaction is counted beside it: the
//! same lazy deletion with no rebuild keeps every dead entry due after the
//! earliest live one, live + that many entries in all.
//!
//! ```
//! use stampede_core::recurrence::{compaction, late_run};
//!
//! // Every minute, one run 90 s too long: fixed delay keeps the shift, fixed
//! // rate returns to the minute grid.
//! let late = late_run(60.0, 90.0, 8).unwrap();
//! let (rate, delay) = (&late.fixed_rate.start_s, &late.fixed_delay.start_s);
//! assert_eq!(rate.last().unwrap() % 60.0, 0.0);
//! assert_ne!(delay.last().unwrap() % 60.0, 0.0);
//!
//! // Cancelling half of 1,000 events leaves dead entries; the heap compacts.
//! assert!(compaction(1_000, 0.5).unwrap().compactions > 0);
//! ```

use serde::Serialize;

use crate::error::{InvalidInput, count_at_most, within};
use crate::scheduler::{ManualClock, Micros, Repeat, Scheduler, micros, seconds};

/// The run (counted from 1) that lasts P + L.
pub const SLOW_RUN: u32 = 3;
/// Most runs recorded per policy.
pub const MAX_RUNS: u32 = 200;
/// Shortest period accepted, 1 ms: times are kept in whole microseconds.
pub const MIN_PERIOD_S: f64 = 0.001;
/// Longest period accepted: a day.
pub const MAX_PERIOD_S: f64 = 86_400.0;
/// Most periods the slow run may overrun by.
pub const MAX_LATE_PERIODS: f64 = 10.0;
/// Most events scheduled for the cancellation run, so that no input can
/// hold up a slider in the browser for long.
pub const MAX_EVENTS: u32 = 100_000;
/// The operations are cut into this many stretches, each contributing at
/// most four points, so a result holds at most 196 after the first.
const STRETCHES: u64 = 49;

/// The start times of one policy's runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Runs {
    /// When each run fired, in seconds from the first run.
    pub start_s: Vec<f64>,
    /// When each run was due, in seconds.
    pub due_s: Vec<f64>,
    /// Grid slots that late fixed-rate runs stood in for, in all; always 0
    /// for fixed delay.
    pub coalesced: u64,
}

/// Run starts under both policies when run [`SLOW_RUN`] lasts P + L.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LateRun {
    pub period_s: f64,
    pub late_by_s: f64,
    pub slow_run: u32,
    /// When the slow run started and finished; both policies agree up to
    /// its end.
    pub slow_start_s: f64,
    pub slow_end_s: f64,
    pub fixed_rate: Runs,
    pub fixed_delay: Runs,
    /// The original grid k·P, from 0 to the first slot at or after the
    /// last start under either policy.
    pub grid_s: Vec<f64>,
}

/// Runs a job of period `period_s` for `runs` runs under both policies,
/// run [`SLOW_RUN`] lasting `period_s + late_by_s`.
pub fn late_run(period_s: f64, late_by_s: f64, runs: u32) -> Result<LateRun, InvalidInput> {
    within("period_s", period_s, MIN_PERIOD_S, MAX_PERIOD_S)?;
    within("late_by_s", late_by_s, 0.0, period_s * MAX_LATE_PERIODS)?;
    count_at_most("runs", u64::from(runs), u64::from(MAX_RUNS))?;
    if runs <= SLOW_RUN {
        return Err(InvalidInput::new(
            "runs",
            format!(
                "{runs} is below {}: a run must follow the slow one",
                SLOW_RUN + 1
            ),
        ));
    }
    let period = micros(period_s);
    let overrun = micros(late_by_s);
    let fixed_rate = runs_under(Repeat::fixed_rate(period)?, period, overrun, runs)?;
    let fixed_delay = runs_under(Repeat::fixed_delay(period)?, period, overrun, runs)?;

    let slow_start_s = fixed_rate
        .start_s
        .get(SLOW_RUN as usize - 1)
        .copied()
        .unwrap_or_default();
    let last_start = fixed_rate
        .start_s
        .iter()
        .chain(&fixed_delay.start_s)
        .fold(0.0, |latest: f64, &start| latest.max(start));
    let last_start_us = micros(last_start);
    let slots = last_start_us.div_ceil(period);
    Ok(LateRun {
        period_s,
        late_by_s,
        slow_run: SLOW_RUN,
        slow_start_s,
        slow_end_s: seconds(micros(slow_start_s) + period + overrun),
        fixed_rate,
        fixed_delay,
        grid_s: (0..=slots).map(|k| seconds(k * period)).collect(),
    })
}

/// One worker running a repeating job: it fires each run as soon as it is
/// both free and the run is due.
fn runs_under(
    repeat: Repeat,
    period: Micros,
    overrun: Micros,
    runs: u32,
) -> Result<Runs, InvalidInput> {
    let mut scheduler = Scheduler::new();
    let mut clock = ManualClock::default();
    scheduler.schedule_repeating(0, 0, (), repeat)?;
    let mut out = Runs::default();
    for run in 1..=runs {
        let Some(due) = scheduler.next_due() else {
            break;
        };
        let now = clock.set(due);
        let Some(fired) = scheduler.pop_ready(now) else {
            break;
        };
        out.start_s.push(seconds(now));
        out.due_s.push(seconds(fired.due));
        out.coalesced += fired.skipped;
        if run == SLOW_RUN {
            clock.advance(period + overrun);
        }
    }
    Ok(out)
}

/// Heap sizes after one operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HeapPoint {
    /// 0 before any, then the cancels from 1, then the pops.
    pub operation: u32,
    /// Entries of events that will still fire.
    pub live: u32,
    /// Entries of cancelled events still in the scheduler's heap.
    pub dead: u32,
    /// Dead entries a heap that never compacts would hold here.
    pub dead_without_compaction: u32,
}

impl HeapPoint {
    pub fn heap(&self) -> u32 {
        self.live + self.dead
    }

    pub fn heap_without_compaction(&self) -> u32 {
        self.live + self.dead_without_compaction
    }
}

/// The heap through the cancels and pops of the cancellation run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Compaction {
    pub events: u32,
    pub cancelled: u32,
    /// The first operation that is a pop; every one before it from 1 on is
    /// a cancel.
    pub first_pop: u32,
    /// Rebuilds that removed entries lazy deletion alone would have kept.
    pub compactions: u32,
    /// The heap right after the last cancel.
    pub after_cancels: HeapPoint,
    /// The state before the first operation, then at most four operations
    /// from each of 49 stretches: the first, the last, the last with the
    /// fullest heap and the first with the emptiest, so a drop such as a
    /// compaction keeps the operations on both sides of it.
    pub points: Vec<HeapPoint>,
}

/// Schedules `events` events, cancels `cancelled_share` of them and pops
/// the rest, recording the heap after every operation.
pub fn compaction(events: u32, cancelled_share: f64) -> Result<Compaction, InvalidInput> {
    count_at_most("events", u64::from(events), u64::from(MAX_EVENTS))?;
    if events == 0 {
        return Err(InvalidInput::new("events", "must be at least 1"));
    }
    within("cancelled_share", cancelled_share, 0.0, 1.0)?;
    let n = u64::from(events);
    // Rounding a product of two exact inputs gives the same count on every
    // platform.
    let cancelled = (f64::from(events) * cancelled_share).round() as u64;
    // Event i is cancelled when ⌊(i + 1)·C / N⌋ passes a whole number: C
    // of N, as evenly spread as whole events allow.
    let is_cancelled = |i: u64| (i + 1) * cancelled / n > i * cancelled / n;

    let mut scheduler = Scheduler::new();
    let mut ids = Vec::with_capacity(events as usize);
    for i in 0..n {
        ids.push(scheduler.schedule(i, 0, ())?);
    }
    let mut lazy = LazyCount::new(events);
    let mut sample = Sample::new(n);
    let mut compactions = 0;
    let mut operation = 0;
    sample.record(lazy.point(operation, &scheduler));
    let mut after_cancels = lazy.point(operation, &scheduler);

    for (i, &id) in (0..n).zip(&ids) {
        if !is_cancelled(i) {
            continue;
        }
        scheduler.cancel(id);
        lazy.cancel(i as usize);
        operation += 1;
        compactions += lazy.notice_rebuild(&scheduler);
        after_cancels = lazy.point(operation, &scheduler);
        sample.record(after_cancels);
    }
    let first_pop = operation + 1;
    while scheduler.pop_ready(n).is_some() {
        lazy.pop();
        operation += 1;
        compactions += lazy.notice_rebuild(&scheduler);
        sample.record(lazy.point(operation, &scheduler));
    }
    Ok(Compaction {
        events,
        cancelled: cancelled as u32,
        first_pop,
        compactions,
        after_cancels,
        points: sample.finish(),
    })
}

/// What became of an event in the cancellation run.
#[derive(Clone, Copy, PartialEq)]
enum Fate {
    Live,
    /// Cancelled between the scheduler's rebuilds number `rebuilds` and
    /// `rebuilds + 1`.
    Dead {
        rebuilds: u32,
    },
    Popped,
}

/// Counts the dead entries lazy deletion alone keeps. Events are due in
/// index order, so the heap's top is the earliest live event and every
/// dead entry due before it has surfaced and left.
struct LazyCount {
    fates: Vec<Fate>,
    /// The earliest event still live.
    top: usize,
    /// Dead entries due after the top: what a heap that never compacts holds.
    dead: u32,
    /// Of those, the ones cancelled since the scheduler's last rebuild:
    /// what the scheduler holds if it has not rebuilt since.
    dead_since_rebuild: u32,
    rebuilds: u32,
}

impl LazyCount {
    fn new(events: u32) -> Self {
        Self {
            fates: vec![Fate::Live; events as usize],
            top: 0,
            dead: 0,
            dead_since_rebuild: 0,
            rebuilds: 0,
        }
    }

    fn cancel(&mut self, event: usize) {
        self.fates[event] = Fate::Dead {
            rebuilds: self.rebuilds,
        };
        self.dead += 1;
        self.dead_since_rebuild += 1;
        self.surface();
    }

    fn pop(&mut self) {
        if let Some(fate) = self.fates.get_mut(self.top) {
            *fate = Fate::Popped;
        }
        self.surface();
    }

    /// Drops the dead entries that reached the top.
    fn surface(&mut self) {
        while let Some(&fate) = self.fates.get(self.top) {
            match fate {
                Fate::Live => break,
                Fate::Popped => {}
                Fate::Dead { rebuilds } => {
                    self.dead -= 1;
                    if rebuilds == self.rebuilds {
                        self.dead_since_rebuild -= 1;
                    }
                }
            }
            self.top += 1;
        }
    }

    /// 1 if the scheduler holds fewer dead entries than lazy deletion
    /// alone would since its last rebuild: it has just rebuilt, dropping
    /// every dead entry.
    fn notice_rebuild<T>(&mut self, scheduler: &Scheduler<T>) -> u32 {
        let held = as_u32(scheduler.dead_len());
        if held >= self.dead_since_rebuild {
            return 0;
        }
        self.rebuilds += 1;
        self.dead_since_rebuild = held;
        1
    }

    fn point<T>(&self, operation: u32, scheduler: &Scheduler<T>) -> HeapPoint {
        HeapPoint {
            operation,
            live: as_u32(scheduler.live_len()),
            dead: as_u32(scheduler.dead_len()),
            dead_without_compaction: self.dead,
        }
    }
}

/// Keeps four points of each stretch of operations: its first and last,
/// the last one with the fullest heap and the first one with the emptiest.
/// A drop inside a stretch thus runs from the point before it to the point
/// after it, and neighbouring stretches join at adjacent operations.
struct Sample {
    operations: u64,
    stretch: u64,
    kept: Option<[HeapPoint; 4]>,
    points: Vec<HeapPoint>,
}

impl Sample {
    fn new(operations: u64) -> Self {
        Self {
            operations: operations.max(1),
            stretch: 0,
            kept: None,
            points: Vec::with_capacity(4 * STRETCHES as usize + 1),
        }
    }

    fn record(&mut self, point: HeapPoint) {
        if point.operation == 0 {
            self.points.push(point);
            return;
        }
        let stretch = (u64::from(point.operation) - 1) * STRETCHES / self.operations;
        if stretch != self.stretch {
            self.flush();
            self.stretch = stretch;
        }
        let Some([_, fullest, emptiest, last]) = &mut self.kept else {
            self.kept = Some([point; 4]);
            return;
        };
        if point.heap() >= fullest.heap() {
            *fullest = point;
        }
        if point.heap() < emptiest.heap() {
            *emptiest = point;
        }
        *last = point;
    }

    fn flush(&mut self) {
        let Some(mut kept) = self.kept.take() else {
            return;
        };
        kept.sort_by_key(|point| point.operation);
        for point in kept {
            if self
                .points
                .last()
                .is_none_or(|p| p.operation != point.operation)
            {
                self.points.push(point);
            }
        }
    }

    fn finish(mut self) -> Vec<HeapPoint> {
        self.flush();
        self.points
    }
}

/// Heap counts never exceed [`MAX_EVENTS`], so they fit.
fn as_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use std::cmp::Reverse;
    use std::collections::{BTreeSet, BinaryHeap};

    use super::*;

    fn starts(runs: &Runs) -> Vec<f64> {
        runs.start_s.clone()
    }

    #[test]
    fn runs_on_time_sit_on_the_grid_under_both_policies() {
        let late = late_run(60.0, 0.0, 6).unwrap();
        let grid = [0.0, 60.0, 120.0, 180.0, 240.0, 300.0];
        assert_eq!(starts(&late.fixed_rate), grid);
        assert_eq!(starts(&late.fixed_delay), grid);
        assert_eq!(late.fixed_rate.coalesced, 0);
        assert_eq!((late.slow_start_s, late.slow_end_s), (120.0, 180.0));
    }

    // Run 3 starts at 120 s and lasts 80 s, so run 4 (due at 180 s) fires at
    // 200 s under both policies; only the run after it tells them apart.
    #[test]
    fn a_short_overrun_puts_fixed_rate_back_on_the_grid_and_shifts_fixed_delay() {
        let late = late_run(60.0, 20.0, 6).unwrap();
        assert_eq!(
            starts(&late.fixed_rate),
            [0.0, 60.0, 120.0, 200.0, 240.0, 300.0]
        );
        assert_eq!(
            late.fixed_rate.due_s,
            [0.0, 60.0, 120.0, 180.0, 240.0, 300.0]
        );
        assert_eq!(
            starts(&late.fixed_delay),
            [0.0, 60.0, 120.0, 200.0, 260.0, 320.0]
        );
        assert_eq!(
            late.fixed_delay.due_s,
            [0.0, 60.0, 120.0, 180.0, 260.0, 320.0]
        );
        assert_eq!(late.fixed_rate.coalesced, 0);
        assert_eq!(late.fixed_delay.coalesced, 0);
    }

    // Run 4 fires at 270 s, after the slot at 240 s has passed: it stands in
    // for that slot too, and run 5 is due on the next one, 300 s.
    #[test]
    fn an_overrun_past_a_slot_makes_fixed_rate_coalesce_it() {
        let late = late_run(60.0, 90.0, 6).unwrap();
        assert_eq!(
            starts(&late.fixed_rate),
            [0.0, 60.0, 120.0, 270.0, 300.0, 360.0]
        );
        assert_eq!(late.fixed_rate.coalesced, 1);
        assert_eq!(
            starts(&late.fixed_delay),
            [0.0, 60.0, 120.0, 270.0, 330.0, 390.0]
        );
        assert_eq!(late.fixed_delay.coalesced, 0);
    }

    #[test]
    fn an_overrun_of_whole_periods_leaves_both_policies_on_the_grid() {
        let late = late_run(60.0, 120.0, 6).unwrap();
        let expected = [0.0, 60.0, 120.0, 300.0, 360.0, 420.0];
        assert_eq!(starts(&late.fixed_rate), expected);
        assert_eq!(starts(&late.fixed_delay), expected);
        assert_eq!(late.fixed_rate.coalesced, 2);
    }

    #[test]
    fn the_grid_reaches_the_last_start_in_whole_periods() {
        let late = late_run(0.5, 0.2, 8).unwrap();
        let last = late.fixed_delay.start_s.last().copied().unwrap();
        assert_eq!(last, 3.7);
        assert_eq!(late.grid_s.len(), 9);
        assert_eq!(late.grid_s.last().copied(), Some(4.0));
        assert_eq!(late.grid_s[3], 1.5);
        assert_eq!((late.slow_start_s, late.slow_end_s), (1.0, 1.7));
    }

    #[test]
    fn bad_late_run_inputs_name_their_field() {
        let field = |result: Result<LateRun, InvalidInput>| result.unwrap_err().field;
        assert_eq!(field(late_run(0.0, 0.0, 10)), "period_s");
        assert_eq!(field(late_run(f64::NAN, 0.0, 10)), "period_s");
        assert_eq!(field(late_run(86_401.0, 0.0, 10)), "period_s");
        assert_eq!(field(late_run(60.0, -1.0, 10)), "late_by_s");
        assert_eq!(field(late_run(60.0, 601.0, 10)), "late_by_s");
        assert_eq!(field(late_run(60.0, f64::INFINITY, 10)), "late_by_s");
        assert_eq!(field(late_run(60.0, 0.0, SLOW_RUN)), "runs");
        assert_eq!(field(late_run(60.0, 0.0, MAX_RUNS + 1)), "runs");
        assert!(late_run(MAX_PERIOD_S, MAX_PERIOD_S * MAX_LATE_PERIODS, MAX_RUNS).is_ok());
    }

    fn point(operation: u32, live: u32, dead: u32, without: u32) -> HeapPoint {
        HeapPoint {
            operation,
            live,
            dead,
            dead_without_compaction: without,
        }
    }

    // Traced by hand: events 2, 4, 7 and 9 are cancelled. After event 6 is
    // popped, 2 of the 3 entries left are dead, so the scheduler rebuilds
    // and drops event 9's entry, which lazy deletion alone would keep until
    // the end.
    #[test]
    fn ten_events_with_four_cancelled_match_the_hand_trace() {
        let heap = compaction(10, 0.4).unwrap();
        assert_eq!(
            (heap.cancelled, heap.first_pop, heap.compactions),
            (4, 5, 1)
        );
        assert_eq!(heap.after_cancels, point(4, 6, 4, 4));
        assert_eq!(
            heap.points,
            [
                point(0, 10, 0, 0),
                point(1, 9, 1, 1),
                point(2, 8, 2, 2),
                point(3, 7, 3, 3),
                point(4, 6, 4, 4),
                point(5, 5, 4, 4),
                point(6, 4, 3, 3),
                point(7, 3, 2, 2),
                point(8, 2, 2, 2),
                point(9, 1, 0, 1),
                point(10, 0, 0, 0),
            ]
        );
    }

    // The first rebuild comes at the 501st cancel, when 501 dead entries
    // outnumber 499 live ones; the second would need 250 more dead entries
    // than the 249 the remaining cancels leave.
    #[test]
    fn cancelling_three_quarters_compacts_once_during_the_cancels() {
        let heap = compaction(1_000, 0.75).unwrap();
        assert_eq!(heap.after_cancels, point(750, 250, 249, 750));
        assert_eq!(heap.after_cancels.heap(), 499);
        assert_eq!(heap.after_cancels.heap_without_compaction(), 1_000);
        let drop = heap
            .points
            .windows(2)
            .find(|pair| pair[1].heap() + 1 < pair[0].heap())
            .unwrap();
        assert_eq!(drop[0], point(500, 500, 500, 500));
        assert_eq!(drop[1], point(501, 499, 0, 501));
    }

    /// The heap size after every operation in a heap that drops dead
    /// entries only when they reach the top, never rebuilding.
    fn never_compacting(events: u32, share: f64) -> Vec<u32> {
        let n = u64::from(events);
        let cancelled = (f64::from(events) * share).round() as u64;
        let mut heap: BinaryHeap<Reverse<u64>> = (0..n).map(Reverse).collect();
        let mut dead = BTreeSet::new();
        let mut sizes = vec![events];
        let mut settle = |heap: &mut BinaryHeap<Reverse<u64>>, dead: &BTreeSet<u64>| {
            while heap.peek().is_some_and(|Reverse(top)| dead.contains(top)) {
                heap.pop();
            }
            sizes.push(heap.len() as u32);
        };
        for i in (0..n).filter(|&i| (i + 1) * cancelled / n > i * cancelled / n) {
            dead.insert(i);
            settle(&mut heap, &dead);
        }
        while heap.pop().is_some() {
            settle(&mut heap, &dead);
        }
        sizes
    }

    #[test]
    fn the_heap_without_compaction_matches_one_that_never_compacts() {
        for share in [0.0, 0.3, 0.5, 0.6, 0.9, 1.0] {
            let heap = compaction(3_000, share).unwrap();
            let sizes = never_compacting(3_000, share);
            assert_eq!(sizes.len(), 3_001, "share {share}");
            for p in &heap.points {
                assert_eq!(
                    p.heap_without_compaction(),
                    sizes[p.operation as usize],
                    "share {share}, operation {}",
                    p.operation
                );
            }
        }
    }

    #[test]
    fn compaction_keeps_dead_entries_at_most_as_many_as_live_ones() {
        for share in [0.1, 0.45, 0.55, 0.8, 0.95] {
            let heap = compaction(5_000, share).unwrap();
            assert!(heap.compactions > 0 || share < 0.5, "share {share}");
            for p in &heap.points {
                assert!(p.dead <= p.live, "share {share}: {p:?}");
                assert!(p.dead <= p.dead_without_compaction, "share {share}: {p:?}");
            }
        }
        let never = compaction(5_000, 0.2).unwrap();
        assert_eq!(never.after_cancels.heap(), 5_000);
    }

    // The cancels of 90,000 out of 100,000 events trigger rebuilds at the
    // 50,001st, 75,001st and 87,501st cancel, more than a stretch apart,
    // so each drop must join adjacent operations.
    #[test]
    fn a_long_run_keeps_few_points_and_both_sides_of_each_drop() {
        let heap = compaction(MAX_EVENTS, 0.9).unwrap();
        assert!(heap.points.len() <= 197, "{} points", heap.points.len());
        assert!(
            heap.points
                .windows(2)
                .all(|w| w[0].operation < w[1].operation)
        );
        assert_eq!(heap.points.first(), Some(&point(0, MAX_EVENTS, 0, 0)));
        assert_eq!(
            heap.points.last().map(|p| (p.operation, p.heap())),
            Some((MAX_EVENTS, 0))
        );
        let drops: Vec<u32> = heap
            .points
            .windows(2)
            .filter(|w| w[1].operation < heap.first_pop && w[1].heap() < w[0].heap())
            .map(|w| {
                assert_eq!(w[0].operation + 1, w[1].operation, "{w:?}");
                w[1].operation
            })
            .collect();
        assert_eq!(drops, [50_001, 75_001, 87_501]);
    }

    #[test]
    fn bad_compaction_inputs_name_their_field() {
        let field = |result: Result<Compaction, InvalidInput>| result.unwrap_err().field;
        assert_eq!(field(compaction(0, 0.5)), "events");
        assert_eq!(field(compaction(MAX_EVENTS + 1, 0.5)), "events");
        assert_eq!(field(compaction(100, -0.1)), "cancelled_share");
        assert_eq!(field(compaction(100, 1.5)), "cancelled_share");
        assert_eq!(field(compaction(100, f64::NAN)), "cancelled_share");
    }
}
