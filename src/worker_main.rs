//! The Queue panel's simulation, run in a Web Worker so that a long run
//! never freezes the page (the app's side is `src/worker.rs`).
//!
//! Trunk builds this binary as a module worker (see index.html). It
//! speaks the enums of `src/messages/queue.rs`: it says
//! [`Reply::Ready`] as soon as its wasm runs, may draw ahead while it
//! waits ([`Request::Ahead`]), then serves one run, with progress now and
//! then and its result or why there is none at the end.
//!
//! The page stops a run by terminating the worker. Chromium lets a worker
//! that is busy in one long task run on for up to two seconds after that,
//! so the run goes a step at a time, each step its own task: the worker is
//! back in its event loop every few milliseconds, where termination ends
//! it at once.

#[path = "messages/queue.rs"]
mod messages;

use messages::{Reply, Request, Trace};
use serde::Serialize;
use stampede_core::arrivals::{self, ArrivalsReport};
use stampede_core::error::InvalidInput;
use stampede_core::panels::State;
use stampede_core::panels::queue_arrivals::{self, ArrivalsRun};
use stampede_core::panels::queue_replication::{ReplicationPart, ReplicationSteps};
use stampede_core::queue::{self, QueueRun, QueueSteps};
use stampede_core::sim::SyncDurations;
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent};

/// Progress goes out by wall time rather than by step, so a fast run sends
/// little and a bar on the page moves at most twenty times a second.
const PROGRESS_INTERVAL_MS: f64 = 50.0;

/// Sync durations drawn ahead in one task: a few milliseconds.
const DRAWS_PER_TASK: usize = 50_000;

thread_local! {
    /// The sync durations drawn ahead of the run, until it takes them.
    static AHEAD: RefCell<Option<SyncDurations>> = const { RefCell::new(None) };
    /// Whether slices of [`AHEAD`] are under way.
    static DRAWING: Cell<bool> = const { Cell::new(false) };
}

fn main() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let replies = scope.clone();
    let on_request = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        match serde_wasm_bindgen::from_value(event.data()) {
            Ok(request) => serve(request, &replies),
            Err(error) => post(
                &replies,
                Reply::<()>::Failed(format!(
                    "the simulation could not read its request: {error}"
                )),
            ),
        }
    });
    scope.set_onmessage(Some(on_request.as_ref().unchecked_ref()));
    // The handler serves the worker until the page terminates it.
    on_request.forget();
    post(&scope, Reply::<()>::Ready);
}

/// Serves one request of the page. Each names a state by its query
/// string, which the page decodes too and shows the notices of itself.
fn serve(request: Request, scope: &DedicatedWorkerGlobalScope) {
    match request {
        Request::Ahead(query) => draw_ahead(&query),
        Request::Run(query) => {
            let (state, _notices) = State::from_query(&query);
            let steps =
                QueueSteps::new(&state.queue, state.seed).map(|steps| steps.reading(AHEAD.take()));
            run_in_steps(steps, scope.clone());
        }
        Request::Replicate { query, runs, trace } => {
            let (state, _notices) = State::from_query(&query);
            let steps = match trace {
                None => ReplicationSteps::for_runs(&state.queue, state.seed, runs),
                Some(Trace { text, resample }) => arrivals::parse(&text).and_then(|trace| {
                    queue_arrivals::replication_steps(
                        &state.queue,
                        &trace,
                        state.seed,
                        runs,
                        resample,
                    )
                }),
            };
            run_in_steps(steps, scope.clone());
        }
        Request::Arrivals { query, text } => {
            run_in_steps(replay(&query, &text, scope), scope.clone());
        }
    }
}

/// Draws the sync durations of `query`'s state into [`AHEAD`] a slice
/// per task, keeping those drawn for an earlier query of the same seed and
/// durations, until all are drawn or a run takes them.
fn draw_ahead(query: &str) {
    let (state, _notices) = State::from_query(query);
    let Ok(durations) = queue::sync_durations(&state.queue, state.seed, AHEAD.take()) else {
        return;
    };
    AHEAD.set(Some(durations));
    if DRAWING.replace(true) {
        return;
    }
    let Ok(channel) = MessageChannel::new() else {
        return DRAWING.set(false);
    };
    let next_slice = channel.port1();
    let on_slice = Closure::<dyn FnMut()>::new(move || {
        let more = AHEAD.with_borrow_mut(|ahead| {
            ahead
                .as_mut()
                .is_some_and(|durations| durations.draw_ahead(DRAWS_PER_TASK))
        });
        if !more || next_slice.post_message(&JsValue::NULL).is_err() {
            DRAWING.set(false);
        }
    });
    channel
        .port2()
        .set_onmessage(Some(on_slice.as_ref().unchecked_ref()));
    let _ = channel.port1().post_message(&JsValue::NULL);
    // At most one loop runs at a time; each lives as long as the worker,
    // which serves one run.
    on_slice.forget();
}

/// A computation taken a step at a time: a run of the lanes, their
/// replications, or the replay of arrivals.
trait Steps: 'static {
    type Output: Serialize;
    /// The share done after one more step; `None` once all are taken.
    fn step(&mut self) -> Result<Option<f64>, InvalidInput>;
    fn finish(self) -> Result<Self::Output, InvalidInput>;
}

impl Steps for QueueSteps {
    type Output = QueueRun;
    fn step(&mut self) -> Result<Option<f64>, InvalidInput> {
        QueueSteps::step(self)
    }
    fn finish(self) -> Result<QueueRun, InvalidInput> {
        QueueSteps::finish(self)
    }
}

impl Steps for ReplicationSteps {
    type Output = ReplicationPart;
    fn step(&mut self) -> Result<Option<f64>, InvalidInput> {
        ReplicationSteps::step(self)
    }
    fn finish(self) -> Result<ReplicationPart, InvalidInput> {
        ReplicationSteps::finish(self)
    }
}

/// The reader's arrivals replayed: the lanes' run, and the description
/// that goes with it.
struct ArrivalsSteps {
    report: ArrivalsReport,
    steps: QueueSteps,
}

impl Steps for ArrivalsSteps {
    type Output = ArrivalsRun;
    fn step(&mut self) -> Result<Option<f64>, InvalidInput> {
        self.steps.step()
    }
    fn finish(self) -> Result<ArrivalsRun, InvalidInput> {
        // The page replicates in workers of their own.
        Ok(ArrivalsRun {
            arrivals: self.report,
            run: self.steps.finish()?,
            replicated: None,
        })
    }
}

/// Reads, describes and diagnoses `text` as arrivals, posts how long that
/// took, and sets up their replay under the Queue parameters of `query`.
fn replay(
    query: &str,
    text: &str,
    scope: &DedicatedWorkerGlobalScope,
) -> Result<ArrivalsSteps, InvalidInput> {
    let (state, _notices) = State::from_query(query);
    let reading = js_sys::Date::now();
    let trace = arrivals::parse(text)?;
    let (report, replay) = arrivals::report(&state.queue, &trace, state.seed)?;
    post(scope, Reply::<()>::Parsed(js_sys::Date::now() - reading));
    Ok(ArrivalsSteps {
        report,
        steps: replay.steps(state.seed),
    })
}

/// Takes `steps` a step per task, posting progress on the way and the
/// result or an error at the end. The page decodes the same query and
/// shows its notices itself.
fn run_in_steps<S: Steps>(steps: Result<S, InvalidInput>, scope: DedicatedWorkerGlobalScope) {
    let steps = match steps {
        Ok(steps) => steps,
        Err(invalid) => return answer::<S::Output>(&scope, Err(invalid)),
    };
    // A message to oneself is the quickest way back through the event
    // loop: timers are clamped to 4 ms once nested.
    let channel = match MessageChannel::new() {
        Ok(channel) => channel,
        Err(error) => return post(&scope, Reply::<()>::Failed(text_of(&error))),
    };
    let next_step = channel.port1();
    let mut under_way = Some(steps);
    let mut last_progress = js_sys::Date::now();
    let on_step = Closure::<dyn FnMut()>::new(move || {
        let Some(steps) = under_way.as_mut() else {
            return;
        };
        match steps.step() {
            Ok(Some(share)) => {
                let now = js_sys::Date::now();
                if now - last_progress >= PROGRESS_INTERVAL_MS {
                    last_progress = now;
                    post(&scope, Reply::<()>::Progress(share));
                }
                if let Err(error) = next_step.post_message(&JsValue::NULL) {
                    under_way = None;
                    post(&scope, Reply::<()>::Failed(text_of(&error)));
                }
            }
            Ok(None) => {
                if let Some(steps) = under_way.take() {
                    answer(&scope, steps.finish());
                }
            }
            Err(invalid) => {
                under_way = None;
                answer::<S::Output>(&scope, Err(invalid));
            }
        }
    });
    channel
        .port2()
        .set_onmessage(Some(on_step.as_ref().unchecked_ref()));
    // The first step runs now; each asks for the next.
    let _ = on_step
        .as_ref()
        .unchecked_ref::<js_sys::Function>()
        .call0(&JsValue::NULL);
    // One run per worker: the page terminates it after the answer.
    on_step.forget();
}

/// Posts the run's last message: its result, or why there is none.
fn answer<T: Serialize>(scope: &DedicatedWorkerGlobalScope, run: Result<T, InvalidInput>) {
    match run {
        Ok(run) => post(scope, Reply::Done(run)),
        Err(invalid) => post(scope, Reply::<()>::Failed(invalid.to_string())),
    }
}

/// Posts `reply` to the page, or why it could not be sent.
fn post<T: Serialize>(scope: &DedicatedWorkerGlobalScope, reply: Reply<T>) {
    let message = serde_wasm_bindgen::to_value(&reply).or_else(|error| {
        serde_wasm_bindgen::to_value(&Reply::<()>::Failed(format!(
            "the simulation's result could not be sent: {error}"
        )))
    });
    // A failed post (a value that cannot be cloned) has nobody else to tell.
    if let Ok(message) = message {
        let _ = scope.post_message(&message);
    }
}

/// A JS exception as text.
fn text_of(error: &JsValue) -> String {
    js_sys::Object::from(error.clone()).to_string().into()
}
