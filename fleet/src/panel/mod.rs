//! The Fleet panel's run: a reader's fleet read, expanded over one week
//! from midnight UTC of `wk`, fixed and probed, with every number the page
//! draws, so switching the view, the day or the capacity redraws without
//! reading the fleet again.
//!
//! The panel's parameters, samples and presets sit below this crate, in
//! the core's panels layer ([`stampede_core::panels::fleet`]), where the
//! one URL codec reads them; this layer runs them on the fleet's models,
//! which never import it.

pub mod budget;
mod diff;
mod keys;
mod load;
pub mod report;

use stampede_core::panels::fleet::NightWindow;

use crate::fix::NightHours;

pub use diff::{DIFF_CONTEXT, DiffKind, DiffRow};
pub use load::{CapacityLoad, CellJobs, NAMED_PER_CELL, WEEK_MINUTES, WeekLoad};
pub use report::*;

/// The hours `night` lets a nightly job move within; `None` for a job's
/// own hour.
pub fn night_hours(night: NightWindow) -> Option<NightHours> {
    let (first, last) = match night {
        NightWindow::OwnHour => return None,
        NightWindow::ToFour => (0, 3),
        NightWindow::ToSix => (0, 5),
        NightWindow::ToEight => (0, 7),
        NightWindow::OneToSix => (1, 6),
    };
    Some(NightHours { first, last })
}

#[cfg(test)]
mod tests;
