//! M/M/c theory, the yardstick for Poisson runs.
//!
//! Mean waits of Poisson arrivals with exponential durations follow the
//! M/M/c queue: with offered load a = λ/μ and c servers, Erlang B by the
//! recursion B₀ = 1, Bₖ = a·Bₖ₋₁ / (k + a·Bₖ₋₁) up to k = c, the chance
//! to wait is C(c, a) = c·B / (c − a·(1 − B)) with B the last of them, and
//! the mean wait C(c, a) / (cμ − λ).

use crate::error::{InvalidInput, positive};

/// The chance that a job waits in an M/M/c queue with `servers` servers
/// and offered load a = λ/μ (Erlang C); needs 0 ≤ a < servers.
pub fn erlang_c(servers: u32, offered_load: f64) -> Result<f64, InvalidInput> {
    if servers == 0 {
        return Err(InvalidInput::new("servers", "must be at least 1"));
    }
    let c = f64::from(servers);
    if !(offered_load.is_finite() && (0.0..c).contains(&offered_load)) {
        return Err(InvalidInput::new(
            "offered_load",
            format!(
                "{offered_load} must lie in [0, {servers}): a queue at or above capacity never settles"
            ),
        ));
    }
    let blocking = (1..=servers).fold(1.0, |b, k| {
        offered_load * b / (f64::from(k) + offered_load * b)
    });
    Ok(c * blocking / (c - offered_load * (1.0 - blocking)))
}

/// The mean wait of an M/M/c queue: C(c, a) / (cμ − λ), in the unit of
/// `mean_service`.
pub fn mm_c_mean_wait(
    arrival_rate: f64,
    mean_service: f64,
    servers: u32,
) -> Result<f64, InvalidInput> {
    let arrival_rate = positive("arrival_rate", arrival_rate)?;
    let mean_service = positive("mean_service", mean_service)?;
    let offered_load = arrival_rate * mean_service;
    let waits = erlang_c(servers, offered_load)?;
    Ok(waits / (f64::from(servers) / mean_service - arrival_rate))
}
