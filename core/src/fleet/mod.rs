//! Fleets: a reader's own schedules, each start placed as its real
//! scheduler places it.

pub mod cron;
pub mod jenkins;
