//! Speed-ups around the models' plain runs.
//!
//! A model's `run(params, seed)` is the answer. A page redraws as a slider
//! moves, so a speed-up keeps what its last runs computed (draws, ids,
//! simulated clients) and recomputes only what a change touched; some also
//! ready ahead, while the page is idle, what a drag is likely to ask for.
//! Only the app opts in; the command line, the JS modules and the tests
//! call the plain runs. A speed-up must give exactly what the plain run
//! gives after any history of calls, which one property test checks for
//! every speed-up (`core/tests/core/speedups.rs`).

use crate::error::InvalidInput;

/// What a speed-up of one model's run does.
pub trait Speedup: Default {
    type Params;
    type Run;

    /// The plain run this speed-up stands in for.
    fn plain(params: &Self::Params, seed: u64) -> Result<Self::Run, InvalidInput>;

    /// [`Speedup::plain`]'s answer, reusing what earlier calls computed.
    fn run(&mut self, params: &Self::Params, seed: u64) -> Result<Self::Run, InvalidInput>;

    /// Readies about `slice` units of what later runs of `params` under
    /// `seed` may need (the unit is the speed-up's: draws, ids); returns
    /// whether more is left. The answers are the same either way.
    fn ready_ahead(&mut self, _params: &Self::Params, _seed: u64, _slice: u32) -> bool {
        false
    }
}
