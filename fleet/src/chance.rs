//! The load of a fleet whose schedulers draw delays at run time, across
//! many draws rather than one.
//!
//! cronie's `RANDOM_DELAY`, systemd's `RandomizedDelaySec` and the other
//! random delays are drawn by the real machine, not by us: an expansion
//! under the page's seed is one night among many. [`DrawnRange::of`]
//! expands the lines that draw under [`DRAWS`] further seeds
//! ([`stampede_core::replication::seeds`]) and gives, minute by minute, the
//! 10th, 50th and 90th percentiles of the load across them: on nine nights
//! in ten a minute holds no more than its 90th. Lines that draw nothing are
//! counted once and added to every draw; [`crate::expand_with_draws`] counts
//! them from the expansion it has just made, so a fleet that draws nothing
//! costs nothing more, and one that does redraws only its drawing lines.

use serde::{Deserialize, Serialize};
use stampede_core::replication::{self, PercentileBand};

use crate::cron::Horizon;
use crate::file::FleetLine;
use crate::plan::LinePlan;
use crate::{ReadStarts, Tally};

/// How many draws the range is taken over.
pub const DRAWS: u32 = 20;

/// A line whose starts are drawn, and how they are drawn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawnLine {
    pub line: usize,
    /// The delay's law in words, as the line's notice gives it.
    pub law: String,
}

/// The load across [`DRAWS`] draws of the random delays.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DrawnRange {
    pub draws: u32,
    pub lines: Vec<DrawnLine>,
    /// Starts in each minute of the horizon, across the draws.
    pub starts: PercentileBand,
    /// Weighted jobs running in each minute across the draws, when a line
    /// gives a duration.
    pub running: Option<PercentileBand>,
    /// The most starts in any one minute, in each draw, fewest first.
    pub busiest: Vec<u32>,
    /// The minutes in which a draw started a line that draws, in order:
    /// where the random delays reach.
    pub reached: Vec<u32>,
}

/// A line that draws, as the draws take it: its index in the fleet, its
/// law in words, and its plan, read once and redrawn for each draw.
pub(crate) struct Drawing {
    pub(crate) index: usize,
    pub(crate) law: String,
    pub(crate) plan: LinePlan,
}

impl DrawnRange {
    /// The range of `lines` over `[from, from + horizon)`, or `None` when
    /// no line draws at random. `seed` is the page's: the draws' seeds
    /// come from it, none equal to it.
    pub fn of(lines: &[FleetLine], from: i64, horizon: Horizon, seed: u64) -> Option<Self> {
        let mut drawing = Vec::new();
        let mut fixed = Vec::new();
        for (index, line) in lines.iter().enumerate() {
            let Ok(plan) = LinePlan::read(line, seed) else {
                continue;
            };
            match plan.drawn_delays() {
                Some(law) => drawing.push(Drawing { index, law, plan }),
                None => fixed.push((index, plan)),
            }
        }
        if drawing.is_empty() {
            return None;
        }
        let mut read = ReadStarts::new(from, horizon);
        for (index, plan) in &fixed {
            if read.add(*index, &lines[*index], plan) {
                break;
            }
        }
        Some(Self::across_draws(
            lines,
            &drawing,
            &read.tally,
            from,
            horizon,
            seed,
        ))
    }

    /// [`Self::of`] from `read`, the expansion of all of `lines` under
    /// `seed`, which placed every start: the fixed lines' starts are
    /// counted from it, and only the drawing lines are placed again.
    pub(crate) fn from_read(
        lines: &[FleetLine],
        read: &ReadStarts,
        from: i64,
        horizon: Horizon,
        seed: u64,
    ) -> Option<Self> {
        if read.drawing.is_empty() {
            return None;
        }
        let mut draws = vec![false; lines.len()];
        for drawing in &read.drawing {
            draws[drawing.index] = true;
        }
        let mut fixed = Tally::new(horizon.in_minutes() as usize);
        let mut begin = 0;
        for &(index, end) in &read.spans {
            if !draws[index] {
                fixed.count(read.window.from, &lines[index], &read.starts[begin..end]);
            }
            begin = end;
        }
        Some(Self::across_draws(
            lines,
            &read.drawing,
            &fixed,
            from,
            horizon,
            seed,
        ))
    }

    /// The range of the `drawing` lines of `lines`, each redrawn under
    /// [`DRAWS`] seeds from `seed`, on top of the load of the others,
    /// `fixed`.
    fn across_draws(
        lines: &[FleetLine],
        drawing: &[Drawing],
        fixed: &Tally,
        from: i64,
        horizon: Horizon,
        seed: u64,
    ) -> Self {
        let minutes = horizon.in_minutes() as usize;
        let fixed_running = crate::running_sums(&fixed.running_changes, minutes);
        let mut starts = Vec::with_capacity(DRAWS as usize);
        let mut running = Vec::with_capacity(DRAWS as usize);
        let mut reached = vec![false; minutes];
        for draw_seed in replication::seeds(seed, DRAWS) {
            // Each plan is read once and only its draws change: reading a
            // line costs more than placing its starts.
            let mut read = ReadStarts::new(from, horizon);
            for Drawing { index, plan, .. } in drawing {
                let redrawn = plan.redrawn(draw_seed);
                if read.add(*index, &lines[*index], redrawn.as_ref().unwrap_or(plan)) {
                    break;
                }
            }
            let mut draw_starts = read.tally.starts_per_minute;
            let mut draw_running = crate::running_sums(&read.tally.running_changes, minutes);
            for ((count, fixed), reached) in draw_starts
                .iter_mut()
                .zip(&fixed.starts_per_minute)
                .zip(&mut reached)
            {
                *reached |= *count > 0;
                *count += fixed;
            }
            for (count, fixed) in draw_running.iter_mut().zip(&fixed_running) {
                *count += fixed;
            }
            starts.push(draw_starts);
            running.push(draw_running);
        }
        let mut busiest: Vec<u32> = starts
            .iter()
            .map(|draw| draw.iter().copied().max().unwrap_or(0))
            .collect();
        busiest.sort_unstable();
        let any_duration = lines
            .iter()
            .any(|line| line.options.duration_seconds.is_some());
        Self {
            draws: DRAWS,
            lines: drawing
                .iter()
                .map(|drawing| DrawnLine {
                    line: lines[drawing.index].line,
                    law: drawing.law.clone(),
                })
                .collect(),
            starts: PercentileBand::of(&starts),
            running: any_duration.then(|| PercentileBand::of(&running)),
            busiest,
            reached: (0..minutes as u32)
                .filter(|&minute| reached[minute as usize])
                .collect(),
        }
    }
}
