//! A trace replayed through the queue, beside the same jobs spread by the
//! strategies.
//!
//! The "imported" lane enqueues job k at its arrival, from the first, as
//! account k of its own, with its own duration when the trace has them,
//! else a draw from the panel's durations; W workers, reports, downstream
//! and autoscaler as the panel sets them. The spread lanes run each
//! strategy at N = the distinct accounts (the arrivals when there is no
//! account column) and C = the span × N / arrivals, each account's mean
//! interval, rounded up to a whole minute: N jobs per cycle then make
//! about as many jobs as the trace over a horizon of the span rounded up
//! to whole cycles. When the trace gives durations, every job of a spread
//! lane takes their mean, so the spread lanes carry the trace's work;
//! otherwise they draw from the panel's durations as the imported lane
//! does. Every lane runs for that horizon. Lanes are added, the
//! panel's strategies first, while all of them together stay within
//! [`MAX_TOTAL_JOBS`].

use std::sync::Arc;

use super::Trace;
use crate::dist::Dist;
use crate::error::InvalidInput;
use crate::queue::{LaneName, MAX_TOTAL_JOBS, QueueParams, QueueSteps, QueueStrategy, with_main};
use crate::sim::{self, ImportedJobs, SimParams, SyncSchedule};
use crate::units::{count, duration};

/// The imported lane's slug.
pub const IMPORTED: &str = "imported";

/// The lanes of a replay and the rule that set them.
pub struct Replay {
    /// N of the spread lanes.
    pub accounts: u32,
    pub cycle_seconds: u32,
    pub horizon_seconds: u32,
    /// The trace's mean duration, which every spread job takes, when the
    /// trace gives durations (the imported lane then takes each job's own).
    pub mean_duration_s: Option<f64>,
    /// The imported lane's jobs, which its simulation replays.
    pub jobs: Arc<ImportedJobs>,
    pub names: Vec<LaneName>,
    pub simulations: Vec<SimParams>,
    /// Strategies left out to stay within the job cap.
    pub left_out: Vec<QueueStrategy>,
}

/// The lanes that replay `trace` under `params`' workers and durations.
pub fn replay(params: &QueueParams, trace: &Trace) -> Result<Replay, InvalidInput> {
    let jobs = Arc::new(ImportedJobs::new(
        &trace.times_us,
        trace.durations_s.as_deref(),
    )?);
    let arrivals = jobs.len();
    let span_seconds = jobs.span_seconds().max(60);
    let accounts = trace.account_count.clamp(1, arrivals);
    let per_account = u64::from(span_seconds) * u64::from(accounts) / u64::from(arrivals);
    let cycle_minutes = (per_account.div_ceil(60).max(1)) as u32;
    let cycle_seconds = cycle_minutes * 60;
    let horizon_seconds = span_seconds.div_ceil(cycle_seconds) * cycle_seconds;
    let spread = QueueParams {
        accounts,
        cycle_minutes,
        ..params.clone()
    };
    let mean_duration_s = trace
        .durations_s
        .as_deref()
        .filter(|durations| !durations.is_empty())
        .map(|durations| durations.iter().sum::<f64>() / durations.len() as f64);
    let spread_duration = mean_duration_s.map(Dist::constant).transpose()?;
    let lane = |strategy: QueueStrategy| -> Result<SimParams, InvalidInput> {
        let mut sim = spread.simulation(strategy, params.retry)?;
        sim.horizon_seconds = horizon_seconds;
        if let Some(duration) = &spread_duration {
            sim.duration = duration.clone();
        }
        Ok(sim)
    };
    let mut imported = lane(params.strategy)?;
    imported.accounts = arrivals;
    imported.schedule = SyncSchedule::Imported(Arc::clone(&jobs));
    let mut total = sim::estimated_jobs(&imported)?;
    let mut names = vec![LaneName {
        slug: IMPORTED.into(),
        label: "Imported arrivals".into(),
    }];
    let mut simulations = vec![imported];
    let mut left_out = Vec::new();
    let strategies = with_main(params.strategy, &params.compared)
        .into_iter()
        .chain(QueueStrategy::ALL.iter().copied())
        .fold(Vec::new(), |mut unique, strategy| {
            if !unique.contains(&strategy) {
                unique.push(strategy);
            }
            unique
        });
    for strategy in strategies {
        let sim = lane(strategy)?;
        let jobs = sim::estimated_jobs(&sim)?;
        if total + jobs > MAX_TOTAL_JOBS {
            left_out.push(strategy);
            continue;
        }
        total += jobs;
        names.push(LaneName {
            slug: strategy.slug().into(),
            label: format!("Spread: {}", strategy.label()),
        });
        simulations.push(sim);
    }
    Ok(Replay {
        accounts,
        cycle_seconds,
        horizon_seconds,
        mean_duration_s,
        jobs,
        names,
        simulations,
        left_out,
    })
}

impl Replay {
    /// Steps through every lane with `seed`.
    pub fn steps(self, seed: u64) -> QueueSteps {
        QueueSteps::of_lanes(self.names, self.simulations, seed)
    }

    /// How the lanes were set, in words.
    pub fn rule_in_words(&self, arrivals: u32) -> String {
        let (durations, spread_durations) = match self.mean_duration_s {
            Some(mean) => (
                "each job with its own duration".to_string(),
                format!(
                    ", each job taking the trace's mean duration, {}",
                    duration(mean)
                ),
            ),
            None => (
                "durations drawn from the panel's".to_string(),
                String::new(),
            ),
        };
        let mut words = format!(
            "The imported lane replays the {} arrivals, {durations}. Beside it the same jobs spread: N = {} accounts, each once per cycle C = {} (the span × N / arrivals, rounded up to a minute){spread_durations}, over {}.",
            count(u64::from(arrivals)),
            count(u64::from(self.accounts)),
            duration(f64::from(self.cycle_seconds)),
            duration(f64::from(self.horizon_seconds)),
        );
        if !self.left_out.is_empty() {
            let left_out: Vec<&str> = self.left_out.iter().map(|s| s.label()).collect();
            words.push_str(&format!(
                " Left out to stay within {} jobs: {}.",
                count(MAX_TOTAL_JOBS),
                left_out.join(", ")
            ));
        }
        words
    }
}
