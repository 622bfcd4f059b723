//! Stability: which jobs' starts move when the fleet changes a little.
//!
//! [`stability`] takes a fleet, a [`FleetChange`] and a way of placing the
//! lines ([`StabilityPlacing`]), places both the fleet and the changed
//! fleet that way, expands both over the same horizon and lists the jobs
//! whose starts differ, matched by line number. Jobs a change adds are not
//! compared.
//!
//! - Hash-based placements (the fix, Jenkins' and croniter's `H`,
//!   Puppet's `fqdn_rand`, systemd's fixed delay, Prometheus' offsets)
//!   depend on the job's own name and its host's identity only: renaming
//!   one job moves that job alone, adding jobs moves none, and changing
//!   the machine id (systemd) or the server (Prometheus) moves every job
//!   whose delay hashes it in.
//! - A plain random delay is drawn anew at every restart: the changed
//!   fleet is placed with the next seed, as a restart would, and nearly
//!   every job moves, `1 − 1/w` of those with a window of `w` minutes.

use std::collections::BTreeMap;

use rand::RngExt;
use serde::Serialize;

use stampede_core::error::InvalidInput;
use stampede_core::rng::{Purpose, seeded};

use crate::cron::Horizon;
use crate::fix::window::{fixed_schedule, placed_at};
use crate::fix::{self, NightHours, SpreadWindow};
use crate::line::{FleetLine, System};
use crate::plan::LinePlan;

/// The most a fleet may grow in one [`FleetChange::Grow`], in percent.
pub const MOST_GROWTH_PERCENT: u32 = 100;

/// A small change to a fleet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FleetChange {
    /// The job on `line` gets the id `to`.
    Rename { line: usize, to: String },
    /// `percent` more jobs (rounded up), each a copy of a line in turn
    /// with `#k` added to its id, numbered after the last line.
    Grow { percent: u32 },
    /// Every systemd line's `MachineID=` becomes this.
    MachineId(String),
    /// Every Prometheus line's `Server=` becomes this.
    Server(String),
}

/// How both fleets are placed before they are expanded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StabilityPlacing {
    /// As the lines are written.
    AsWritten,
    /// With the fix applied ([`fix::fix_lines`]), within `night`.
    HashFix { night: Option<NightHours> },
    /// Each movable line at a position drawn at random in its window
    /// (within `night`), from `seed` for the fleet and from `seed + 1` for
    /// the changed fleet.
    RandomDelay {
        seed: u64,
        night: Option<NightHours>,
    },
}

/// Which jobs moved.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FleetStability {
    /// Jobs of the fleet expanded before and after the change.
    pub compared: usize,
    pub moved: Vec<MovedJob>,
    /// Lines of the fleet not expanded, so not compared.
    pub not_expanded: Vec<usize>,
}

/// A job whose starts moved: its line and its id before the change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MovedJob {
    pub line: usize,
    pub id: String,
}

/// The jobs of `lines` whose starts over `[from, from + horizon)` move
/// when `change` is made, both fleets placed by `placing`.
pub fn stability(
    lines: &[FleetLine],
    change: &FleetChange,
    placing: StabilityPlacing,
    from: i64,
    horizon: Horizon,
) -> Result<FleetStability, InvalidInput> {
    let changed = changed(lines, change)?;
    // A restart draws random delays anew: the changed fleet's come from
    // the next seed.
    let seed = match placing {
        StabilityPlacing::RandomDelay { seed, .. } => seed,
        _ => 0,
    };
    let before = starts_by_line(&place(lines, placing, seed), from, horizon, seed)?;
    let next = seed.wrapping_add(1);
    let after = starts_by_line(&place(&changed, placing, next), from, horizon, next)?;
    let mut result = FleetStability::default();
    for line in lines {
        if LinePlan::read(line, seed).is_err() {
            result.not_expanded.push(line.line);
            continue;
        }
        result.compared += 1;
        if before.get(&line.line) != after.get(&line.line) {
            result.moved.push(MovedJob {
                line: line.line,
                id: line.id.clone(),
            });
        }
    }
    Ok(result)
}

/// `lines` with `change` made.
fn changed(lines: &[FleetLine], change: &FleetChange) -> Result<Vec<FleetLine>, InvalidInput> {
    let mut changed = lines.to_vec();
    match change {
        FleetChange::Rename { line, to } => {
            let renamed = changed
                .iter_mut()
                .find(|given| given.line == *line)
                .ok_or_else(|| InvalidInput::new("line", format!("no job is on line {line}")))?;
            renamed.id = to.clone();
        }
        FleetChange::Grow { percent } => {
            if *percent > MOST_GROWTH_PERCENT {
                return Err(InvalidInput::new(
                    "percent",
                    format!("{percent} is more than {MOST_GROWTH_PERCENT}"),
                ));
            }
            let added = (lines.len() * *percent as usize).div_ceil(100);
            let last = lines.iter().map(|line| line.line).max().unwrap_or(0);
            for k in 0..added {
                let mut copy = lines[k % lines.len()].clone();
                copy.id = format!("{} #{}", copy.id, k + 1);
                copy.line = last + k + 1;
                changed.push(copy);
            }
        }
        FleetChange::MachineId(id) => set_on(&mut changed, System::Systemd, "MachineID", id),
        FleetChange::Server(server) => set_on(&mut changed, System::Prometheus, "Server", server),
    }
    Ok(changed)
}

fn set_on(lines: &mut [FleetLine], system: System, key: &str, value: &str) {
    for line in lines.iter_mut().filter(|line| line.system == system) {
        fix::set_option(line, key, value);
    }
}

/// `lines` placed by `placing`, random delays drawn from `seed`.
fn place(lines: &[FleetLine], placing: StabilityPlacing, seed: u64) -> Vec<FleetLine> {
    const DELAY: Purpose = Purpose::new("fleet.stability.delay");
    match placing {
        StabilityPlacing::AsWritten => lines.to_vec(),
        StabilityPlacing::HashFix { night } => fix::apply(lines, &fix::fix_lines(lines, night)),
        StabilityPlacing::RandomDelay { night, .. } => lines
            .iter()
            .map(|line| {
                let Ok(schedule) = fixed_schedule(line) else {
                    return line.clone();
                };
                let Ok(window) = SpreadWindow::of(&schedule, night) else {
                    return line.clone();
                };
                let mut rng = seeded(seed, DELAY.indexed(line.line as u64));
                let position = rng.random_range(0..window.minutes());
                match placed_at(line, &schedule, window, position) {
                    Some(spec) => fix::with_change(line, &spec, &[]),
                    None => line.clone(),
                }
            })
            .collect(),
    }
}

/// Each expanded line's starts, by line number.
fn starts_by_line(
    lines: &[FleetLine],
    from: i64,
    horizon: Horizon,
    seed: u64,
) -> Result<BTreeMap<usize, Vec<i64>>, InvalidInput> {
    let expansion = crate::expand(lines, from, horizon, seed)?;
    let mut by_line: BTreeMap<usize, Vec<i64>> = BTreeMap::new();
    for start in &expansion.starts {
        by_line.entry(start.line).or_default().push(start.at_micros);
    }
    Ok(by_line)
}
