//! A run that no job waited in, read again on other workers, equals the
//! run simulated on them.

use proptest::prelude::*;
use stampede_core::backoff::RetryStrategy;
use stampede_core::dist::{self, Dist};
use stampede_core::hash_spread::HashMode;
use stampede_core::sim::{self, SimParams, Simulation, SyncSchedule, Unqueued};

use crate::sim::{constant, params};
use crate::sim_downstream::{downstream, with_reports};

fn schedule(pick: u8, accounts: u32) -> SyncSchedule {
    match pick % 7 {
        0 => SyncSchedule::Herd,
        1 => SyncSchedule::UniformJitter {
            window_seconds: 600,
        },
        2 => SyncSchedule::Poisson,
        3 => SyncSchedule::HashSpread(HashMode::Farm),
        4 => SyncSchedule::Slots { slots: 60 },
        5 => SyncSchedule::SelfRescheduling,
        _ => SyncSchedule::LeastRecentlySynced {
            every_seconds: 300,
            batch: accounts.div_ceil(12),
            spread_seconds: 60,
        },
    }
}

fn lognormal() -> Dist {
    dist::fit_mean_p90(5.0, 12.0).unwrap().dist().clone()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every W the kept run answers for gives the simulated run to the
    /// bit; W = the run's own always does when no job waited, never when
    /// one did.
    #[test]
    fn unqueued_runs_on_other_workers_equal_fresh_runs(
        accounts in 1u32..400,
        workers in 1u32..80,
        pick in any::<u8>(),
        reports in any::<bool>(),
        limited in any::<bool>(),
        seed in 0u64..1_000,
    ) {
        let mut base = params(accounts, workers, lognormal(), schedule(pick, accounts));
        if reports {
            base = with_reports(base, constant(2.0), 900);
        }
        if limited {
            base.downstream = Some(downstream(Some(3), Some((600, 900)), RetryStrategy::FullJitter, 3));
        }
        let finished = Simulation::new(&base, seed).unwrap().finish_keeping();
        let queued = finished.run.summary.max_queue_depth > 0;
        let unqueued = Unqueued::of(&base, seed, &finished);
        prop_assert_eq!(unqueued.is_some(), !queued);
        let Some(unqueued) = unqueued else {
            return Ok(());
        };
        prop_assert!(unqueued.on_workers(&base, seed).is_some());
        prop_assert!(unqueued.on_workers(&base, seed + 1).is_none());
        let mut answered = 0;
        for other in (1..=2 * workers).chain([workers * 10]) {
            let params = SimParams { workers: other, ..base.clone() };
            if let Some(run) = unqueued.on_workers(&params, seed) {
                prop_assert_eq!(&run, &sim::simulate(&params, seed).unwrap(), "W {} from {}", other, workers);
                answered += 1;
            }
        }
        prop_assert!(answered > 0);
        let other_accounts = SimParams { accounts: accounts + 1, ..base.clone() };
        prop_assert!(unqueued.on_workers(&other_accounts, seed).is_none());
    }
}
