//! The leveller: when hashing is not even enough, place each movable line
//! where the load is lowest, greedily.
//!
//! A line may move when it is a cron-like line (cron, Jenkins, croniter,
//! Puppet) with plain minutes the fix would spread, within the same
//! [`SpreadWindow`] the fix uses, and is not pinned. Pinned lines are
//! given as line numbers by the caller, so any line of any system can be
//! pinned without an option in its own syntax; they, and every line that
//! may not move, count as load from the start and never change.
//!
//! Movable lines are placed one by one, most starts first (fleet order
//! among equals). A line at position `c` of a window of `w` minutes tries
//! every position `p < w`, which shifts each of its start minutes `s` to
//! `(s + p − c) mod M` on the horizon of `M` minutes, taken as a ring
//! (exact when the horizon is whole days from a midnight), and takes
//!
//! ```text
//! p* = argmin over p of ( max_s load[s'], Σ_s load[s'], |p − c|, p ),
//! ```
//!
//! the lowest peak among its own minutes first, then the least crowded
//! minutes, then the smallest move. Its starts then join the load. A line
//! tries `w` positions for its `n` starts, and `w · n` stays within about
//! one horizon of minutes (at most 31 × 1440) since a window holds one
//! start of its line.
//!
//! The levelled lines are written as plain numbers in their own syntax
//! ([`crate::fix::window::placed_at`]) and expanded again; should the peak
//! come out above the input's, the fleet is returned as written, so the
//! leveller never makes the peak worse.

use std::collections::BTreeSet;

use serde::Serialize;

use stampede_core::error::InvalidInput;

use crate::MOST_STARTS;
use crate::cron::{Horizon, Schedule};
use crate::fix::window::{fixed_schedule, placed_at};
use crate::fix::{self, FixChange, LineFix, NightHours, SpreadWindow};
use crate::line::FleetLine;
use crate::plan::LinePlan;
use crate::time::{MICROS_PER_SECOND, Window};

/// A levelled fleet: what happens to each line, and the peak starts per
/// minute before and after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LevelledFleet {
    pub fixes: Vec<LineFix>,
    pub peak_before: u32,
    pub peak_after: u32,
}

/// A line the leveller may move.
struct Movable {
    index: usize,
    schedule: Schedule,
    window: SpreadWindow,
    /// Its position in the window as written.
    position: u32,
    /// Its start minutes on the horizon.
    minutes: Vec<u32>,
}

/// Levels `lines` over `[from, from + horizon)`, never moving the lines
/// numbered in `pinned`. `seed` draws the delays a scheduler draws at
/// random, for the lines that stay.
pub fn level(
    lines: &[FleetLine],
    pinned: &[usize],
    night: Option<NightHours>,
    from: i64,
    horizon: Horizon,
    seed: u64,
) -> Result<LevelledFleet, InvalidInput> {
    let pinned: BTreeSet<usize> = pinned.iter().copied().collect();
    let stays = |line: &FleetLine| pinned.contains(&line.line).then_some("it is pinned");
    level_but(lines, stays, night, from, horizon, seed)
}

/// Moves as few lines as it can so that no minute of `[from, from +
/// horizon)` starts more than `capacity` jobs, and levels those.
///
/// Greedily: every line that may move is counted by the minutes over the
/// capacity it starts in, and taken, most such minutes first, while it
/// still starts in a minute with starts to spare; each line taken frees
/// one start in each of its minutes. The lines taken are then levelled
/// against all the others, which stay. A minute whose starts come from
/// lines that may not move stays over the capacity.
pub fn to_capacity(
    lines: &[FleetLine],
    capacity: u32,
    night: Option<NightHours>,
    from: i64,
    horizon: Horizon,
    seed: u64,
) -> Result<LevelledFleet, InvalidInput> {
    crate::time::check_from(from)?;
    let mut load = vec![0u32; horizon.in_minutes() as usize];
    let mut movable: Vec<(usize, Vec<u32>)> = Vec::new();
    let mut total = 0;
    for line in lines {
        let Ok(plan) = LinePlan::read(line, seed) else {
            continue;
        };
        let minutes = start_minutes(&plan, from, horizon, MOST_STARTS - total)?;
        total += minutes.len();
        for &minute in &minutes {
            load[minute as usize] += 1;
        }
        let window = fixed_schedule(line)
            .ok()
            .map(|s| SpreadWindow::of(&s, night));
        if matches!(window, Some(Ok(_))) {
            movable.push((line.line, minutes));
        }
    }
    let mut excess: Vec<u32> = load.iter().map(|&n| n.saturating_sub(capacity)).collect();
    let over = |minutes: &[u32], excess: &[u32]| {
        minutes
            .iter()
            .filter(|&&minute| excess[minute as usize] > 0)
            .count()
    };
    // Stable, so lines over as many minutes keep their fleet order.
    movable.sort_by_key(|(_, minutes)| std::cmp::Reverse(over(minutes, &excess)));
    let mut moving = BTreeSet::new();
    for (line, minutes) in &movable {
        if over(minutes, &excess) == 0 {
            continue;
        }
        moving.insert(*line);
        for &minute in minutes {
            let spare = &mut excess[minute as usize];
            *spare = spare.saturating_sub(1);
        }
    }
    let stays = |line: &FleetLine| {
        (!moving.contains(&line.line))
            .then_some("it needs no move to bring a minute under the capacity")
    };
    level_but(lines, stays, night, from, horizon, seed)
}

/// Levels `lines`, leaving each line `stays` gives a reason for.
fn level_but<'a>(
    lines: &[FleetLine],
    stays: impl Fn(&FleetLine) -> Option<&'a str>,
    night: Option<NightHours>,
    from: i64,
    horizon: Horizon,
    seed: u64,
) -> Result<LevelledFleet, InvalidInput> {
    crate::time::check_from(from)?;
    let ring = horizon.in_minutes() as usize;
    let mut load = vec![0u32; ring];
    let mut fixes: Vec<LineFix> = lines
        .iter()
        .map(|line| LineFix {
            line: line.line,
            change: FixChange::kept("it may not move"),
        })
        .collect();
    let mut movables = Vec::new();
    let mut total = 0;
    for (index, line) in lines.iter().enumerate() {
        let Ok(plan) = LinePlan::read(line, seed) else {
            continue;
        };
        let minutes = start_minutes(&plan, from, horizon, MOST_STARTS - total)?;
        total += minutes.len();
        let movable = match (stays(line), fixed_schedule(line)) {
            (Some(why), _) => Err(why.to_string()),
            (None, Ok(schedule)) => SpreadWindow::of(&schedule, night)
                .map(|window| (schedule, window))
                .map_err(str::to_string),
            (None, Err(why)) => Err(why),
        };
        match movable {
            Ok((schedule, window)) => movables.push(Movable {
                index,
                position: window.position(&schedule),
                schedule,
                window,
                minutes,
            }),
            Err(why) => {
                fixes[index].change = FixChange::kept(why);
                for minute in minutes {
                    load[minute as usize] += 1;
                }
            }
        }
    }
    // Stable, so lines with as many starts keep their fleet order.
    movables.sort_by_key(|movable| std::cmp::Reverse(movable.minutes.len()));
    for movable in &movables {
        let best = best_position(movable, &load);
        let shift = i64::from(best) - i64::from(movable.position);
        for &minute in &movable.minutes {
            load[(i64::from(minute) + shift).rem_euclid(ring as i64) as usize] += 1;
        }
        let line = &lines[movable.index];
        fixes[movable.index].change = match placed_at(line, &movable.schedule, movable.window, best)
        {
            Some(spec) => FixChange::Rewritten {
                spec,
                options: Vec::new(),
            },
            None => FixChange::kept("it already starts at its levelled position"),
        };
    }
    let peak_before = fix::measure(lines, from, horizon, seed)?.peak_starts_per_minute;
    let peak_after =
        fix::measure(&fix::apply(lines, &fixes), from, horizon, seed)?.peak_starts_per_minute;
    if peak_after > peak_before {
        for fix in &mut fixes {
            fix.change = FixChange::kept("levelling would raise the peak, so the fleet stays");
        }
        return Ok(LevelledFleet {
            fixes,
            peak_before,
            peak_after: peak_before,
        });
    }
    Ok(LevelledFleet {
        fixes,
        peak_before,
        peak_after,
    })
}

/// The minutes since `from` of a plan's starts over the horizon, at most
/// `room` of them.
fn start_minutes(
    plan: &LinePlan,
    from: i64,
    horizon: Horizon,
    room: usize,
) -> Result<Vec<u32>, InvalidInput> {
    let window = Window {
        from: from * MICROS_PER_SECOND,
        end: (from + horizon.in_seconds()) * MICROS_PER_SECOND,
    };
    let mut starts = Vec::new();
    if plan.push_starts(window, &mut starts, room) {
        return Err(InvalidInput::new(
            "horizon",
            format!(
                "the fleet has more than {} starts in it; level a shorter horizon",
                stampede_core::units::count(MOST_STARTS as u64)
            ),
        ));
    }
    Ok(starts
        .into_iter()
        .map(|at| ((at - window.from) / (60 * MICROS_PER_SECOND)) as u32)
        .collect())
}

/// The position in its window where `movable`'s busiest minute is least
/// busy, by the rule in the module docs.
fn best_position(movable: &Movable, load: &[u32]) -> u32 {
    let ring = load.len() as i64;
    (0..movable.window.minutes())
        .min_by_key(|&position| {
            let shift = i64::from(position) - i64::from(movable.position);
            let (mut most, mut sum) = (0, 0u64);
            for &minute in &movable.minutes {
                let count = load[(i64::from(minute) + shift).rem_euclid(ring) as usize];
                most = most.max(count);
                sum += u64::from(count);
            }
            (most, sum, position.abs_diff(movable.position), position)
        })
        .unwrap_or(movable.position)
}
