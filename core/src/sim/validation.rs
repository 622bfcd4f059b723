//! Checks a run's parameters and estimates how many jobs it starts.
//!
//! Every field is checked against its bounds before anything is built, so
//! the engine can assume them: accounts fit the key's account bits, times
//! fit its time bits, a slot length is whole seconds. The estimate is an
//! upper bound, used to refuse runs above [`MAX_JOBS`] and to size the
//! engine's buffers once.
//!
//! # Retries
//!
//! Each refused call holds a worker for a second, so no second sees more
//! refusals than workers, and only the outage's seconds and the seconds
//! that used up the rate limit R see any; as each sync is accepted once,
//! those are at most syncs / R. Retries are thus at most
//! min(syncs × max_retries, max workers × (outage seconds + syncs / R)).

use super::{
    Downstream, MAX_ACCOUNTS, MAX_HORIZON, MAX_JOBS, MAX_WORKERS, SimParams, SyncSchedule,
};
use crate::backoff;
use crate::error::{InvalidInput, count_at_most};
use crate::hash_spread::{HashMode, MAX_RUBY_KEYS};

/// Upper estimates of the jobs a run starts, by kind.
pub(super) struct Estimate {
    pub(super) syncs: u64,
    pub(super) reports: u64,
    pub(super) retries: u64,
}

impl Estimate {
    pub(super) fn total(&self) -> u64 {
        self.syncs + self.reports + self.retries
    }
}

/// `value` if it lies in [1, max].
fn in_range(field: &'static str, value: u32, max: u32) -> Result<u64, InvalidInput> {
    if (1..=max).contains(&value) {
        Ok(u64::from(value))
    } else {
        Err(InvalidInput::new(
            field,
            format!("{value} is outside [1, {max}]"),
        ))
    }
}

/// `value` if it is at most `max`.
fn at_most(field: &'static str, value: u32, max: u32) -> Result<(), InvalidInput> {
    if value > max {
        return Err(InvalidInput::new(field, format!("{value} is above {max}")));
    }
    Ok(())
}

/// Checks every field and returns upper estimates of the jobs.
pub(super) fn validate(params: &SimParams) -> Result<Estimate, InvalidInput> {
    let accounts = in_range("accounts", params.accounts, MAX_ACCOUNTS)?;
    let most_workers = most_workers(params)?;
    let cycle = in_range("cycle_seconds", params.cycle_seconds, MAX_HORIZON)?;
    let horizon = in_range("horizon_seconds", params.horizon_seconds, MAX_HORIZON)?;
    let cycles = horizon.div_ceil(cycle);
    let syncs = syncs(params, accounts, cycles)?;
    let reports = match &params.reports {
        Some(reports) if reports.shift_seconds >= params.cycle_seconds => {
            return Err(InvalidInput::new(
                "shift_seconds",
                format!(
                    "{} must be below the cycle of {cycle} s",
                    reports.shift_seconds
                ),
            ));
        }
        Some(_) => accounts * cycles,
        None => 0,
    };
    let retries = match &params.downstream {
        Some(downstream) => retry_bound(downstream, syncs, horizon, most_workers)?,
        None => 0,
    };
    let estimate = Estimate {
        syncs,
        reports,
        retries,
    };
    let jobs = estimate.total();
    if jobs > MAX_JOBS {
        return Err(InvalidInput::new(
            "horizon_seconds",
            format!("the run would start about {jobs} jobs, above the limit {MAX_JOBS}"),
        ));
    }
    Ok(estimate)
}

/// Checks the workers and the autoscaler, and returns the most workers the
/// run can have.
fn most_workers(params: &SimParams) -> Result<u64, InvalidInput> {
    let workers = in_range("workers", params.workers, MAX_WORKERS)?;
    let Some(scaler) = &params.autoscaler else {
        return Ok(workers);
    };
    in_range(
        "target_depth_per_worker",
        scaler.target_depth_per_worker,
        u32::MAX,
    )?;
    in_range("check_seconds", scaler.check_seconds, MAX_HORIZON)?;
    at_most("up_delay_seconds", scaler.up_delay_seconds, MAX_HORIZON)?;
    at_most("down_delay_seconds", scaler.down_delay_seconds, MAX_HORIZON)?;
    let most_workers = in_range("max_workers", scaler.max_workers, MAX_WORKERS)?;
    in_range("min_workers", scaler.min_workers, scaler.max_workers)?;
    if !(scaler.min_workers..=scaler.max_workers).contains(&params.workers) {
        return Err(InvalidInput::new(
            "workers",
            format!(
                "{} must lie in the autoscaler's [{}, {}]",
                params.workers, scaler.min_workers, scaler.max_workers
            ),
        ));
    }
    Ok(most_workers)
}

/// Checks the schedule's fields and bounds the first attempts of syncs.
fn syncs(params: &SimParams, accounts: u64, cycles: u64) -> Result<u64, InvalidInput> {
    let cycle = u64::from(params.cycle_seconds);
    let horizon = u64::from(params.horizon_seconds);
    Ok(match params.schedule {
        SyncSchedule::HashSpread(HashMode::Ruby) if params.accounts > MAX_RUBY_KEYS => {
            return Err(InvalidInput::new(
                "accounts",
                format!(
                    "{accounts} is above {MAX_RUBY_KEYS}, the most ids Ruby-seeded offsets place quickly"
                ),
            ));
        }
        SyncSchedule::UniformJitter { window_seconds } => {
            in_range("window_seconds", window_seconds, params.cycle_seconds)?;
            accounts * cycles
        }
        SyncSchedule::Slots { slots } => {
            if slots == 0 || !params.cycle_seconds.is_multiple_of(slots) {
                return Err(InvalidInput::new(
                    "slots",
                    format!(
                        "{slots} must be at least 1 and divide the cycle of {cycle} s into whole seconds"
                    ),
                ));
            }
            accounts * cycles
        }
        SyncSchedule::LeastRecentlySynced {
            every_seconds,
            batch,
            spread_seconds,
        } => {
            let every = in_range("every_seconds", every_seconds, MAX_HORIZON)?;
            let batch = in_range("batch", batch, params.accounts)?;
            if spread_seconds > every_seconds {
                return Err(InvalidInput::new(
                    "spread_seconds",
                    format!("{spread_seconds} must be at most every_seconds {every_seconds}"),
                ));
            }
            batch * horizon.div_ceil(every)
        }
        SyncSchedule::Imported(ref jobs) => {
            if params.accounts != jobs.len() {
                return Err(InvalidInput::new(
                    "accounts",
                    format!(
                        "{} must equal the {} imported jobs, one account each",
                        params.accounts,
                        jobs.len()
                    ),
                ));
            }
            accounts
        }
        // Poisson counts vary; 5 % over the mean is far beyond any
        // plausible draw at the sizes where the cap matters.
        SyncSchedule::Poisson => (accounts * horizon / cycle) * 21 / 20 + 1,
        _ => accounts * cycles,
    })
}

/// Checks the downstream and bounds the retries (see the module text).
fn retry_bound(
    downstream: &Downstream,
    syncs: u64,
    horizon: u64,
    workers: u64,
) -> Result<u64, InvalidInput> {
    let max_retries = count_at_most(
        "max_retries",
        u64::from(downstream.max_retries),
        u64::from(backoff::MAX_RETRIES),
    )?;
    let limited_seconds = match downstream.rate_limit_per_second {
        Some(0) => {
            return Err(InvalidInput::new(
                "rate_limit_per_second",
                "must be at least 1 call a second",
            ));
        }
        Some(limit) => syncs / u64::from(limit),
        None => 0,
    };
    let outage_seconds = match downstream.outage {
        Some((start, end)) if start >= end => {
            return Err(InvalidInput::new(
                "outage",
                format!("its start {start} s must come before its end {end} s"),
            ));
        }
        Some((start, end)) => u64::from(end).min(horizon).saturating_sub(u64::from(start)),
        None => 0,
    };
    Ok((syncs * max_retries).min(workers * (outage_seconds + limited_seconds)))
}
