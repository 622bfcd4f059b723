//! Schedules in the formats readers already keep them in, read into the
//! same [`FleetFile`] as the canonical fleet file, line numbers and all.
//!
//! [`read`] takes a [`FleetFormat`]; `auto` ([`detect`]) reads the text as
//! a fleet file when its first line that is neither blank nor a comment
//! starts with a system name (`cron`, `jenkins`, …) and a tab, since no
//! other format starts a line that way, and as a crontab otherwise.

pub mod crontab;

use crate::choice_enum;

use super::file::{self, FleetFile, System};

use self::crontab::CrontabForm;

choice_enum! {
    /// The format a fleet's text is written in.
    pub enum FleetFormat {
        Auto = ("auto", "Detect"),
        Fleet = ("fleet", "Fleet file (SYSTEM<TAB>ID<TAB>SPEC)"),
        Crontab = ("crontab", "crontab (user or system)"),
    }
}

/// Reads `text` in `format`. Never fails: unreadable lines land in
/// `skipped`, numbered as in `text`.
pub fn read(text: &str, format: FleetFormat) -> FleetFile {
    match format {
        FleetFormat::Auto => read(text, detect(text)),
        FleetFormat::Fleet => file::parse(text),
        FleetFormat::Crontab => crontab::read(text, CrontabForm::Auto),
    }
}

/// The format `text` is in: [`FleetFormat::Fleet`] or
/// [`FleetFormat::Crontab`], by the rule in the module's docs. Text with
/// no such line at all reads the same either way, as a fleet file.
pub fn detect(text: &str) -> FleetFormat {
    let first = text
        .lines()
        .map(str::trim_start)
        .find(|line| !line.trim().is_empty() && !line.starts_with('#'));
    match first {
        None => FleetFormat::Fleet,
        Some(line) => {
            let names_a_system = line.split_once('\t').is_some_and(|(system, _)| {
                System::from_slug(&system.trim().to_ascii_lowercase()).is_some()
            });
            if names_a_system {
                FleetFormat::Fleet
            } else {
                FleetFormat::Crontab
            }
        }
    }
}
