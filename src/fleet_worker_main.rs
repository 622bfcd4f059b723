//! The Fleet panel's reading, fixing and probing, in a Web Worker that
//! lives as long as the page (the page's side is `src/fleet_worker.rs`), so
//! the fleet code and its zone data stay out of the app's own wasm.
//!
//! Trunk builds this binary as a module worker (see index.html). Messages
//! are plain objects:
//! - to the page, `{ready: true}` as soon as the wasm runs: a message the
//!   page posts before that is lost, so the page waits for it;
//! - from the page, `{id, query, text}` (a fleet's text), `{id, query,
//!   fragment}` (a link's fragment, without `#`) or `{id, query}` (the
//!   sample the query names); `query` is the page's query string and `id`
//!   grows with every request. With `day` (0 for the week's first) the
//!   request asks instead for that day's starts as arrivals for the Queue
//!   panel, the one stage `"arrivals"` ([`report::day_arrivals`]). With
//!   `patient`, a text past the size budget ([`budget`]) is read too;
//!   with `stall` (the page's `debug=stall`, for the end-to-end test), the
//!   reader's own fleet is held for a minute first;
//! - to the page, `{id, taken: true}` as soon as a request arrives, so the
//!   page knows this worker is not stuck in a long stage; then `{id, over}`
//!   with why, when the text is past the size budget and the request is not
//!   patient, and nothing more;
//! - to the page, for a fragment or a sample, `{id, text}` first, the text
//!   it stands for; then `{id, stage, value}` for the stages `"read"`,
//!   `"link"`, `"fix"` and `"probe"` in that order, or `{id, error}` as
//!   soon as one fails. `value` is a `Uint8Array` holding the stage's
//!   result from `stampede_fleet::panel::report` in postcard, its
//!   buffer transferred to the page.
//!
//! Only the newest request matters. Each stage is its own task, reached
//! through a MessageChannel, so a request that arrives meanwhile replaces
//! the one under way before its next stage. Each stage's last result is
//! kept with its inputs, so a change of the probe alone recomputes only
//! the probe.

use std::cell::RefCell;

use serde::Serialize;
use stampede_core::error::InvalidInput;
use stampede_core::panels::fleet::{FixMethod, FleetParams, Probe, Sample, WeekStart};
use stampede_core::panels::state::State;
use stampede_fleet::link;
use stampede_fleet::panel::{budget, report};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent, MessagePort};

/// A request being worked on: its text and settings, and the stage next.
struct Job {
    id: f64,
    text: String,
    params: FleetParams,
    seed: u64,
    stage: Stage,
    /// The day whose starts an arrivals request asks for.
    day: Option<u32>,
}

#[derive(Clone, Copy, PartialEq)]
enum Stage {
    Read,
    Link,
    Fix,
    Probe,
    Arrivals,
}

impl Stage {
    const NAMES: [&str; 5] = ["read", "link", "fix", "probe", "arrivals"];

    fn next(self) -> Option<Stage> {
        match self {
            Stage::Read => Some(Stage::Link),
            Stage::Link => Some(Stage::Fix),
            Stage::Fix => Some(Stage::Probe),
            Stage::Probe | Stage::Arrivals => None,
        }
    }
}

/// What a stage's result depends on: the text, the format, the week and
/// the seed for every stage, the method for the fix and the probe, and the
/// change for the probe. The sample counts too: a sample's text pasted as
/// the reader's own reads the same but needs a link of its own.
/// (The link depends on less, but recomputing it is cheap.)
#[derive(Clone, PartialEq)]
struct Inputs {
    text: String,
    sample: Sample,
    format: String,
    week: WeekStart,
    seed: u64,
    fix: Option<FixMethod>,
    probe: Option<Probe>,
    day: Option<u32>,
}

/// The last result of one stage in postcard, with its inputs.
type Kept = Option<(Inputs, Vec<u8>)>;

#[derive(Default)]
struct Worker {
    job: Option<Job>,
    /// Whether a step is already on its way through the channel.
    step_posted: bool,
    kept: [Kept; 5],
}

thread_local! {
    static WORKER: RefCell<Worker> = RefCell::new(Worker::default());
}

fn main() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    // A message to oneself is the quickest way back through the event
    // loop: timers are clamped to 4 ms once nested.
    let channel = match MessageChannel::new() {
        Ok(channel) => channel,
        Err(error) => return post(&scope, None, "error", &text_of(&error)),
    };
    let next_step = channel.port1();
    let replies = scope.clone();
    let to_step = next_step.clone();
    let on_request = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        accept(&event.data(), &replies, &to_step);
    });
    let replies = scope.clone();
    let on_step = Closure::<dyn FnMut()>::new(move || step(&replies, &next_step));
    channel
        .port2()
        .set_onmessage(Some(on_step.as_ref().unchecked_ref()));
    scope.set_onmessage(Some(on_request.as_ref().unchecked_ref()));
    // Both handlers serve the worker as long as the page lives.
    on_request.forget();
    on_step.forget();
    post(&scope, None, "ready", &JsValue::TRUE);
}

/// Takes a request from the page in place of any under way, and asks for
/// its first stage.
fn accept(message: &JsValue, scope: &DedicatedWorkerGlobalScope, next_step: &MessagePort) {
    // Not the app library's `worker::message_field`: linking the library
    // into this binary costs 7.8 KB gzipped for four lines.
    let field = |key: &str| {
        js_sys::Reflect::get(message, &JsValue::from_str(key))
            .ok()
            .filter(|value| !value.is_undefined() && !value.is_null())
    };
    let Some(id) = field("id").and_then(|id| id.as_f64()) else {
        return post(scope, None, "error", &"a request needs an id".into());
    };
    post(scope, Some(id), "taken", &JsValue::TRUE);
    let patient = field("patient").is_some_and(|patient| patient.is_truthy());
    let query = field("query")
        .and_then(|query| query.as_string())
        .unwrap_or_default();
    // The page decodes the same query and shows its notices itself.
    let (state, _notices) = State::from_query(&query);
    let day = field("day")
        .and_then(|day| day.as_f64())
        .map(|day| day as u32);
    let given = field("text").and_then(|text| text.as_string());
    let from_page = given.is_some();
    let text = match given {
        Some(text) => text,
        None => {
            let from_source = match field("fragment").and_then(|fragment| fragment.as_string()) {
                Some(fragment) => link::decode(&fragment).map_err(|invalid| invalid.to_string()),
                None if state.fleet.sample == Sample::Own => Ok(String::new()),
                None => Ok(state.fleet.sample.text()),
            };
            match from_source {
                Ok(text) => text,
                Err(why) => return drop_job_with(scope, id, "error", &why),
            }
        }
    };
    // Measured before any reading, which could take minutes past the budget.
    if let (false, Err(over)) = (patient, budget::check(&text)) {
        return drop_job_with(scope, id, "over", &over.to_string());
    }
    if !from_page {
        post(scope, Some(id), "text", &JsValue::from_str(&text));
    }
    // The page's hidden `debug=stall` holds the reader's own fleet for a
    // minute, as no fleet within the budget now does, so the end-to-end
    // test can prove a busy worker gives way to the next request.
    let stall = field("stall").is_some_and(|stall| stall.is_truthy());
    if stall && state.fleet.sample == Sample::Own {
        let until = js_sys::Date::now() + 60_000.0;
        while js_sys::Date::now() < until {}
    }
    WORKER.with_borrow_mut(|worker| {
        worker.job = Some(Job {
            id,
            text,
            params: state.fleet,
            seed: state.seed,
            stage: if day.is_some() {
                Stage::Arrivals
            } else {
                Stage::Read
            },
            day,
        });
        if !worker.step_posted {
            worker.step_posted = next_step.post_message(&JsValue::NULL).is_ok();
        }
    });
}

/// Ends the job under way and tells the page why its request is not run:
/// under `key`, `"error"` or `"over"`.
fn drop_job_with(scope: &DedicatedWorkerGlobalScope, id: f64, key: &str, why: &str) {
    WORKER.with_borrow_mut(|worker| worker.job = None);
    post(scope, Some(id), key, &JsValue::from_str(why));
}

/// Runs the next stage of the newest request, posts its result, and asks
/// for the stage after it.
fn step(scope: &DedicatedWorkerGlobalScope, next_step: &MessagePort) {
    let done = WORKER.with_borrow_mut(|worker| {
        worker.step_posted = false;
        let job = worker.job.as_mut()?;
        let stage = job.stage;
        let inputs = Inputs::of(job, stage);
        let slot = &mut worker.kept[stage as usize];
        let value = match slot {
            Some((kept, bytes)) if *kept == inputs => Ok(js_sys::Uint8Array::from(&bytes[..])),
            _ => run(job, stage).map(|bytes| {
                let value = js_sys::Uint8Array::from(&bytes[..]);
                *slot = Some((inputs, bytes));
                value
            }),
        };
        let id = job.id;
        match stage.next() {
            Some(next) if value.is_ok() => job.stage = next,
            _ => worker.job = None,
        }
        if worker.job.is_some() {
            worker.step_posted = next_step.post_message(&JsValue::NULL).is_ok();
        }
        Some((id, stage, value))
    });
    let Some((id, stage, value)) = done else {
        return;
    };
    match value {
        Ok(value) => {
            let message = js_sys::Object::new();
            let name = Stage::NAMES[stage as usize];
            let _ = js_sys::Reflect::set(&message, &"stage".into(), &name.into());
            let _ = js_sys::Reflect::set(&message, &"value".into(), &value);
            let _ = js_sys::Reflect::set(&message, &"id".into(), &id.into());
            let transfer = js_sys::Array::of1(&value.buffer());
            let _ = scope.post_message_with_transfer(&message, &transfer);
        }
        Err(why) => post(scope, Some(id), "error", &JsValue::from_str(&why)),
    }
}

impl Inputs {
    fn of(job: &Job, stage: Stage) -> Self {
        Self {
            text: job.text.clone(),
            sample: job.params.sample,
            format: job.params.format.slug().to_string(),
            week: job.params.week,
            seed: job.seed,
            fix: matches!(stage, Stage::Fix | Stage::Probe).then_some(job.params.fix),
            probe: (stage == Stage::Probe).then_some(job.params.probe),
            day: job.day.filter(|_| stage == Stage::Arrivals),
        }
    }
}

/// Computes one stage of `job` in postcard.
fn run(job: &Job, stage: Stage) -> Result<Vec<u8>, String> {
    let (text, params, seed) = (&job.text, &job.params, job.seed);
    match stage {
        Stage::Read => to_bytes(report::read(text, params, seed)),
        Stage::Link => to_bytes(Ok(report::link(text, params.sample))),
        Stage::Fix => to_bytes(report::fix(text, params, seed)),
        Stage::Probe => to_bytes(report::probe(text, params, seed)),
        Stage::Arrivals => to_bytes(report::day_arrivals(
            text,
            params,
            seed,
            job.day.unwrap_or(0),
        )),
    }
}

fn to_bytes<T: Serialize>(result: Result<T, InvalidInput>) -> Result<Vec<u8>, String> {
    let value = result.map_err(|invalid| invalid.to_string())?;
    postcard::to_allocvec(&value).map_err(|e| e.to_string())
}

/// Posts `{id, key: value}` to the page (without `id` when `None`).
fn post(scope: &DedicatedWorkerGlobalScope, id: Option<f64>, key: &str, value: &JsValue) {
    let message = js_sys::Object::new();
    // Setting a key on a fresh plain object cannot fail, and a failed post
    // (a value that cannot be cloned) has nobody else to tell.
    if let Some(id) = id {
        let _ = js_sys::Reflect::set(&message, &"id".into(), &id.into());
    }
    let _ = js_sys::Reflect::set(&message, &key.into(), value);
    let _ = scope.post_message(&message);
}

/// A JS exception as text.
fn text_of(error: &JsValue) -> JsValue {
    js_sys::Object::from(error.clone()).to_string().into()
}
