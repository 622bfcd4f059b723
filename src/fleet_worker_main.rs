//! The Fleet panel's reading, fixing and probing, in a Web Worker that
//! lives as long as the page (the page's side is `src/fleet_worker.rs`), so
//! the fleet code and its zone data stay out of the app's own wasm.
//!
//! Trunk builds this binary as a module worker (see index.html). It
//! speaks the enums of `src/messages/fleet.rs`: it says
//! [`Message::Ready`] as soon as its wasm runs, then for each
//! [`Request`] [`Message::Taken`] at once, so the page knows it is not
//! stuck in a long stage, and its replies: [`Reply::OverBudget`] alone when
//! the text is past the size budget ([`budget`]) and the request is not
//! patient; else, for a fragment or a sample, the text first, then the
//! read, the link, the fix and the probe from
//! `stampede_fleet::panel::report`, or the day's arrivals alone
//! ([`report::day_arrivals`]), or [`Reply::Failed`] as soon as one fails.
//!
//! Only the newest request matters. Each stage is its own task, reached
//! through a MessageChannel, so a request that arrives meanwhile replaces
//! the one under way before its next stage. Each stage's last result is
//! kept with its inputs, so a change of the probe alone recomputes only
//! the probe. A worker named by a page's query takes up the request that
//! page will make first ([`read_ahead`]), before it is made.

#[path = "messages/fleet.rs"]
mod messages;

use std::cell::RefCell;

use messages::{AHEAD_ID, Message, Reply, Request, Source};
use serde::de::DeserializeOwned;
use stampede_core::error::InvalidInput;
use stampede_core::panels::State;
use stampede_core::panels::fleet::{FixMethod, FleetParams, Probe, Sample, WeekStart};
use stampede_fleet::link;
use stampede_fleet::panel::{budget, report};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent, MessagePort};

/// A request being worked on: its text and settings, and the stage next.
struct Job {
    id: u32,
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

/// The last result of one stage, with its inputs.
type Kept = Option<(Inputs, Reply)>;

#[derive(Default)]
struct Worker {
    job: Option<Job>,
    /// The request this worker took up by itself ([`read_ahead`]), until
    /// the page's first request claims its job or replaces it.
    ahead: Option<Request>,
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
        Err(error) => return post(&scope, &Message::Unreadable(text_of(&error))),
    };
    let next_step = channel.port1();
    let replies = scope.clone();
    let to_step = next_step.clone();
    let ahead_step = next_step.clone();
    let on_request =
        Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            match decode(event.data()) {
                Ok(request) => accept(request, &replies, &to_step),
                Err(why) => post(&replies, &Message::Unreadable(why)),
            }
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
    post(&scope, &Message::Ready);
    read_ahead(&scope, &ahead_step);
}

/// Takes up the request a page opening on the Fleet panel makes first
/// ([`Request::ahead_of`]), as far as the read: the first picture needs no
/// more, and later stages would share the machine's cores with the page's
/// own start. index.html starts this worker beside the app's download and
/// names it by the page's query; the replies it keeps answer the app's
/// request as soon as the app makes it (`src/fleet_worker.rs`), and that
/// request carries on the same job ([`claim_ahead`]).
fn read_ahead(scope: &DedicatedWorkerGlobalScope, next_step: &MessagePort) {
    if let Some(request) = Request::ahead_of(&scope.name()) {
        accept(request.clone(), scope, next_step);
        WORKER.with_borrow_mut(|worker| worker.ahead = Some(request));
    }
}

/// Gives the job taken up by [`read_ahead`] to the page's `request` when it
/// asks the same, and lets it go on past the read; whether it did.
fn claim_ahead(request: &Request, next_step: &MessagePort) -> bool {
    WORKER.with_borrow_mut(|worker| {
        let same = worker
            .ahead
            .take()
            .is_some_and(|ahead| ahead.asks_as(request));
        let Some(job) = worker.job.as_mut().filter(|job| same && job.id == AHEAD_ID) else {
            return false;
        };
        job.id = request.id;
        if !worker.step_posted {
            worker.step_posted = next_step.post_message(&JsValue::NULL).is_ok();
        }
        true
    })
}

/// Takes a request from the page in place of any under way, and asks for
/// its first stage.
fn accept(request: Request, scope: &DedicatedWorkerGlobalScope, next_step: &MessagePort) {
    let id = request.id;
    post(scope, &Message::Taken(id));
    if claim_ahead(&request, next_step) {
        return;
    }
    // The page decodes the same query and shows its notices itself.
    let (state, _notices) = State::from_query(&request.query);
    let from_page = matches!(request.source, Source::Text(_));
    let text = match request.source {
        Source::Text(text) => Ok(text),
        Source::Fragment(fragment) => {
            link::decode(&fragment).map_err(|invalid| invalid.to_string())
        }
        Source::Sample if state.fleet.sample == Sample::Own => Ok(String::new()),
        Source::Sample => Ok(state.fleet.sample.text()),
    };
    let text = match text {
        Ok(text) => text,
        Err(why) => return drop_job_with(scope, id, Reply::Failed(why)),
    };
    // Measured before any reading, which could take minutes past the budget.
    if let (false, Err(over)) = (request.patient, budget::check(&text)) {
        return drop_job_with(scope, id, Reply::OverBudget(over.to_string()));
    }
    if !from_page {
        post(scope, &Message::Reply(id, Reply::Text(text.clone())));
    }
    // The page's hidden `debug=stall` holds the reader's own fleet for a
    // minute, as no fleet within the budget now does, so the end-to-end
    // test can prove a busy worker gives way to the next request.
    if request.stall && state.fleet.sample == Sample::Own {
        let until = js_sys::Date::now() + 60_000.0;
        while js_sys::Date::now() < until {}
    }
    let day = request.day;
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

/// Ends the job under way and tells the page why its request is not run.
fn drop_job_with(scope: &DedicatedWorkerGlobalScope, id: u32, why: Reply) {
    WORKER.with_borrow_mut(|worker| worker.job = None);
    post(scope, &Message::Reply(id, why));
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
        let reply = match slot {
            Some((kept, reply)) if *kept == inputs => reply.clone(),
            _ => {
                let reply = run(job, stage);
                *slot = Some((inputs, reply.clone()));
                reply
            }
        };
        let id = job.id;
        match stage.next() {
            Some(next) if !reply.is_last() => job.stage = next,
            _ => worker.job = None,
        }
        // The job taken up by itself waits after its read for the page.
        if worker.job.as_ref().is_some_and(|job| job.id != AHEAD_ID) {
            worker.step_posted = next_step.post_message(&JsValue::NULL).is_ok();
        }
        Some(Message::Reply(id, reply))
    });
    if let Some(message) = done {
        post(scope, &message);
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

/// Computes one stage of `job`, or says why it failed.
fn run(job: &Job, stage: Stage) -> Reply {
    let (text, params, seed) = (&job.text, &job.params, job.seed);
    let reply = match stage {
        Stage::Read => report::read(text, params, seed).map(|read| Reply::Read(Box::new(read))),
        Stage::Link => Ok(Reply::Link(report::link(text, params.sample))),
        Stage::Fix => report::fix(text, params, seed).map(|fix| Reply::Fix(Box::new(fix))),
        Stage::Probe => report::probe(text, params, seed).map(Reply::Probe),
        Stage::Arrivals => {
            report::day_arrivals(text, params, seed, job.day.unwrap_or(0)).map(Reply::Arrivals)
        }
    };
    reply.unwrap_or_else(|invalid: InvalidInput| Reply::Failed(invalid.to_string()))
}

/// A request, read back from its postcard bytes.
fn decode<T: DeserializeOwned>(data: JsValue) -> Result<T, String> {
    let bytes = data
        .dyn_into::<js_sys::Uint8Array>()
        .map_err(|_| "the page sent no bytes".to_string())?
        .to_vec();
    postcard::from_bytes(&bytes)
        .map_err(|e| format!("the page sent what the worker cannot read: {e}"))
}

/// Posts `message` to the page in postcard, its buffer transferred.
fn post(scope: &DedicatedWorkerGlobalScope, message: &Message) {
    // Every value the worker sends serialises; a failed post (a value that
    // cannot be cloned) has nobody else to tell.
    let Ok(bytes) = postcard::to_allocvec(message) else {
        return;
    };
    let bytes = js_sys::Uint8Array::from(&bytes[..]);
    let transfer = js_sys::Array::of1(&bytes.buffer());
    let _ = scope.post_message_with_transfer(&bytes, &transfer);
}

/// A JS exception as text.
fn text_of(error: &JsValue) -> String {
    js_sys::Object::from(error.clone()).to_string().into()
}
