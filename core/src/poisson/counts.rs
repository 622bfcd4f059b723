//! Counts of a run's events by local hour, by local minute of the first
//! day, and the busiest minute.
//!
//! Each goes by runs: in time order, the events of one hour or one minute
//! sit together, and [`for_each_run`] finds where each run ends in a few
//! steps rather than looking at every event.

use crate::stats;
use crate::units::SECONDS_PER_DAY;

/// Events per local hour of the day, one row per tenant, of `times` in
/// time order, each event `tenant_of` its own.
pub(super) fn per_hour(
    times: &[f64],
    tenant_of: &[u8],
    tenants: usize,
    offset: f64,
) -> Vec<[u32; 24]> {
    let mut per_hour = vec![[0u32; 24]; tenants];
    for_each_run(times, Class::LocalHour(offset), &mut |hour, run| {
        let hour = hour as usize;
        if tenants == 1 {
            per_hour[0][hour] += run.len() as u32;
        } else {
            for &tenant in &tenant_of[run] {
                per_hour[usize::from(tenant)][hour] += 1;
            }
        }
    });
    per_hour
}

/// Events in each local minute of the first day, of `run_times` in time
/// order.
pub(super) fn first_day_per_minute(run_times: &[f64], offset: f64) -> Vec<u32> {
    let day = f64::from(SECONDS_PER_DAY);
    let mut per_minute = vec![0u32; 1440];
    let first_day = &run_times[..run_times.partition_point(|&t| t < day)];
    for_each_run(first_day, Class::LocalMinute(offset), &mut |minute, run| {
        if (0.0..1440.0).contains(&minute) {
            let count = &mut per_minute[minute as usize];
            *count = count.saturating_add(run.len() as u32);
        }
    });
    per_minute
}

/// The minute with the most events (the earliest of equals), by the start
/// of the minute counted from the start of the run, of `run_times` in time
/// order. Counted over the minutes that hold events, not a dense
/// histogram: a slow bucket's waits stretch a run over decades of minutes.
pub(super) fn busiest_minute(run_times: &[f64]) -> Option<(f64, u32)> {
    let mut busiest: Option<(f64, u32)> = None;
    for_each_run(run_times, Class::Minute, &mut |minute, run| {
        let count = run.len() as u32;
        if busiest.is_none_or(|(_, most)| count > most) {
            busiest = Some((minute * 60.0, count));
        }
    });
    busiest
}

/// What the events of a run share.
#[derive(Clone, Copy)]
enum Class {
    /// The local hour of the day, at UTC + this many seconds.
    LocalHour(f64),
    /// The local minute of the day, at UTC + this many seconds.
    LocalMinute(f64),
    /// The minute from the start of the run.
    Minute,
}

impl Class {
    /// The class of the event at `time`, a whole number.
    fn of(self, time: f64) -> f64 {
        match self {
            Self::LocalHour(offset) => {
                ((second_of_day(time + offset) / 3600.0) as usize).min(23) as f64
            }
            Self::LocalMinute(offset) => stats::bin_index(second_of_day(time + offset), 0.0, 60.0),
            Self::Minute => (time / 60.0).floor(),
        }
    }

    /// How far apart, in seconds, two events of the class can be and still
    /// be in one run: an hour or a minute of the day comes round again the
    /// next day, so a run of one spans less than half a day.
    fn reach(self) -> f64 {
        match self {
            Self::LocalHour(_) | Self::LocalMinute(_) => 12.0 * 3600.0,
            Self::Minute => f64::INFINITY,
        }
    }
}

/// Calls `each` with every run of `times` (in time order) that `class` puts
/// in one class, in order, with the run's indices. Within its reach a
/// class never decreases, but for dropping back at a local midnight, and
/// never returns to a class it left.
///
/// Each run's end is found by probing 1, 2, 4, … events on, then halving
/// the last gap: about 2·log₂ L classes for a run of L events. `each` is
/// called once a run, so it is a trait object, and one copy of this loop
/// serves all three counts.
fn for_each_run(times: &[f64], class: Class, each: &mut dyn FnMut(f64, std::ops::Range<usize>)) {
    let mut start = 0;
    while let Some(&first) = times.get(start) {
        let held = class.of(first);
        // Those past the reach are out by their time alone, so the events
        // in the run make a prefix of the rest.
        let in_run = |time: f64| time - first < class.reach() && class.of(time) == held;
        // Every index below `known` is in the run.
        let mut known = start + 1;
        let mut step = 1;
        let probe = loop {
            let probe = known + step - 1;
            if probe >= times.len() || !in_run(times[probe]) {
                break probe.min(times.len());
            }
            known = probe + 1;
            step *= 2;
        };
        let end = known + times[known..probe].partition_point(|&time| in_run(time));
        each(held, start..end);
        start = end;
    }
}

/// `local.rem_euclid(day)`, the second of the local day, without the
/// remainder's slow division for a time already inside the day, where the
/// remainder is the time itself.
fn second_of_day(local: f64) -> f64 {
    let day = f64::from(SECONDS_PER_DAY);
    if (0.0..day).contains(&local) {
        local
    } else {
        local.rem_euclid(day)
    }
}
