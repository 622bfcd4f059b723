//! What the Queue's work in Web Workers shares, a single run or its
//! replications: one request under way (in one worker or several), which
//! a newer one or the cancel button stops, and the progress bar with that
//! button.

use leptos::prelude::*;

use crate::worker::WorkerRun;

/// The request under way in its workers, if any, and the share of it
/// done.
#[derive(Clone, Copy)]
pub struct Background {
    workers: StoredValue<Vec<WorkerRun>, LocalStorage>,
    /// Counts requests, so that a late message from a stopped one is ignored.
    ticket: StoredValue<u64>,
    /// Apart from the status, so that a progress update redraws the bar
    /// alone.
    pub share: RwSignal<f64>,
}

impl Background {
    pub fn new() -> Self {
        Self {
            workers: StoredValue::new_local(Vec::new()),
            ticket: StoredValue::new(0),
            share: RwSignal::new(0.0),
        }
    }

    /// Stops the request under way and begins the next, none of it done:
    /// the check returned holds as long as no later one has begun and none
    /// was cancelled.
    pub fn next(self) -> impl Fn() -> bool + Copy + 'static {
        self.cancel();
        self.share.set(0.0);
        let ticket = self.ticket.get_value();
        move || self.ticket.try_get_value() == Some(ticket)
    }

    /// Keeps `run`, a worker of the request begun last, so that it can be
    /// stopped.
    pub fn hold(self, run: WorkerRun) {
        self.workers.update_value(|workers| workers.push(run));
    }

    /// Stops the request under way, if any, and ignores what it still sends.
    pub fn cancel(self) {
        self.ticket.update_value(|ticket| *ticket += 1);
        for run in self
            .workers
            .try_update_value(std::mem::take)
            .unwrap_or_default()
        {
            run.cancel();
        }
    }
}

/// "`label` [progress] Cancel": the bar `id` at the share of `work` done,
/// and the button `cancel_id`. The bar follows the share in place, so a
/// progress update leaves the button, and a reader's focus on it, where
/// they are.
pub fn progress(
    [id, cancel_id]: [&'static str; 2],
    label: &'static str,
    work: Background,
    on_cancel: impl Fn() + 'static,
) -> impl IntoView {
    let share = work.share;
    view! {
        <label for=id>{label}</label>
        <progress id=id max="1" value=share>
            {move || format!("{:.0} %", share.get() * 100.0)}
        </progress>
        <button type="button" id=cancel_id on:click=move |_| on_cancel()>
            "Cancel"
        </button>
    }
}
