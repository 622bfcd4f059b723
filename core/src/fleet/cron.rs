//! Cron schedules: which minutes of the calendar a five-field spec fires on.
//!
//! A [`Schedule`] holds each field as the set of values it allows, so every
//! dialect (Vixie cron, Jenkins' `H`, croniter's `H`, Puppet's
//! `fqdn_rand`) reads its own text into the same sets and shares one
//! expansion over a horizon.

/// The values each field of a five-field cron spec allows, as bit sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Bit m for minute m, 0 to 59.
    pub minutes: u64,
    /// Bit h for hour h, 0 to 23.
    pub hours: u32,
    /// Bit d for day of month d, 1 to 31.
    pub days_of_month: u32,
    /// Bit m for month m, 1 to 12.
    pub months: u16,
    /// Bit d for day of week d, 0 (Sunday) to 6.
    pub days_of_week: u8,
    /// How the two day fields combine.
    pub days: DayRule,
}

/// How day of month and day of week combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DayRule {
    /// Vixie cron: when both fields are restricted (neither is `*`), a day
    /// matches either; otherwise the restricted one decides.
    EitherWhenBothRestricted,
    /// A day must match both fields.
    Both,
}
