//! Queue runs in a Web Worker (`src/worker_main.rs` is the worker), so a
//! long simulation leaves the page responsive, and a run nobody waits for
//! any more is stopped by terminating its worker.
//!
//! Each run gets a worker of its own, and the two speak the enums of
//! [`crate::messages::queue`]: the worker says it is ready, receives the
//! [`Request`], reports progress and ends with its result or why there is
//! none. The listeners hold the run only weakly, so dropping the
//! [`WorkerRun`] ends everything; they are dropped as soon as the run ends.
//!
//! Loading a worker (its script and wasm fetched, compiled and started)
//! takes about 35 ms, so a panel that may need one keeps one loading ahead
//! ([`prepare_standby`]): the next run takes it, ready or nearly, and a new
//! one loads behind it. While it waits, the standby draws the sync
//! durations of the run on the page ([`draw_ahead`]), which the next run
//! reads where they are its own.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde::de::{DeserializeOwned, IgnoredAny};
use stampede_core::panels::queue_arrivals::ArrivalsRun;
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, Event, MessageEvent, Worker, WorkerOptions, WorkerType};

pub use crate::messages::queue::{Reply, Request, Trace};

/// The loader of the `stampede-worker` binary (index.html), relative to the page
/// like every other asset, so the app works under any sub-path: the one the
/// `<meta>` of this name gives (`scripts/build` renames the worker's files
/// by their content), else Trunk's.
const WORKER_META: &str = "stampede:worker";
const WORKER_SCRIPT: &str = "./stampede-worker_loader.js";

/// A worker that has not said it is ready after this long is taken as
/// failed to load. A missing script raises an error at once; this covers
/// what raises none, such as a download that never ends.
const READY_TIMEOUT_MS: i32 = 10_000;

thread_local! {
    /// The worker loaded for the next run, if a panel asked for one.
    static STANDBY: RefCell<Option<Standby>> = const { RefCell::new(None) };
    /// The state whose sync durations the standby draws ahead.
    static AHEAD_OF: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A worker loaded with nothing to do yet, and its listeners until a run
/// takes it.
struct Standby {
    worker: Worker,
    state: Rc<Cell<Loading>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(Event)>,
}

#[derive(Clone, Copy, PartialEq)]
enum Loading {
    Started,
    /// It said it is ready, which the run taking it will not hear.
    Ready,
    /// Its script failed to load: a run makes its own worker, to report why.
    Failed,
}

/// Starts loading a worker for the next run, unless one is loading or
/// waiting already. Called once the panel has drawn, so that the worker's
/// download does not delay the first figure.
pub fn prepare_standby() {
    STANDBY.with_borrow_mut(|standby| {
        if standby.is_none() {
            *standby = Standby::load().ok();
        }
    });
}

/// Has the standby draw the sync durations of `query`'s state while it
/// waits, now if it is ready, else once it is: a next run of the same seed
/// and durations, as when the horizon or the accounts change, reads them
/// rather than drawing them.
pub fn draw_ahead(query: String) {
    AHEAD_OF.set(Some(query));
    STANDBY.with_borrow(|standby| {
        if let Some(standby) = standby
            && standby.state.get() == Loading::Ready
        {
            post_ahead(&standby.worker);
        }
    });
}

/// Asks `worker` to draw ahead for the state [`draw_ahead`] last named.
fn post_ahead(worker: &Worker) {
    AHEAD_OF.with_borrow(|query| {
        let Some(query) = query else {
            return;
        };
        // Drawing ahead only saves time: a failed post costs nothing else.
        let _ = post(worker, &Request::Ahead(query.clone()));
    });
}

/// Posts `request` to `worker`.
fn post(worker: &Worker, request: &Request) -> Result<(), JsValue> {
    let message = serde_wasm_bindgen::to_value(request)?;
    worker.post_message(&message)
}

/// Ends the waiting worker, when the panel that asked for it goes.
pub fn drop_standby() {
    if let Some(standby) = STANDBY.take() {
        standby.worker.terminate();
    }
}

impl Standby {
    fn load() -> Result<Self, JsValue> {
        let worker = new_worker()?;
        let state = Rc::new(Cell::new(Loading::Started));
        let (ready, loaded) = (Rc::clone(&state), worker.clone());
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let reply = serde_wasm_bindgen::from_value::<Reply<IgnoredAny>>(event.data());
            if matches!(reply, Ok(Reply::Ready)) {
                ready.set(Loading::Ready);
                post_ahead(&loaded);
            }
        });
        let failed = Rc::clone(&state);
        let on_error = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            event.prevent_default();
            failed.set(Loading::Failed);
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Self {
            worker,
            state,
            _on_message: on_message,
            _on_error: on_error,
        })
    }
}

fn new_worker() -> Result<Worker, JsValue> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    Worker::new_with_options(
        &crate::browser::named_asset(WORKER_META, WORKER_SCRIPT),
        &options,
    )
}

/// A worker for a run, and whether it has said it is ready: the standby,
/// with another started behind it, else a new one.
fn take_worker() -> Result<(Worker, bool), JsValue> {
    let Some(standby) = STANDBY.take() else {
        return Ok((new_worker()?, false));
    };
    standby.worker.set_onmessage(None);
    standby.worker.set_onerror(None);
    let state = standby.state.get();
    if state == Loading::Failed {
        standby.worker.terminate();
        return Ok((new_worker()?, false));
    }
    // The next standby draws nothing until the panel shows this run: not
    // beside it, on the core it would take.
    AHEAD_OF.set(None);
    prepare_standby();
    Ok((standby.worker, state == Loading::Ready))
}

/// A queue run going on in a Web Worker; dropping it or calling cancel() terminates the worker.
pub struct WorkerRun {
    run: Rc<dyn Stop>,
}

type OnDone<T> = Box<dyn FnOnce(Result<T, String>)>;

/// A run, whatever its result, as far as ending it goes.
trait Stop {
    fn stop(&self);
}

struct Run<T> {
    worker: Worker,
    /// Sent once the worker is ready; `None` from then on.
    request: RefCell<Option<Request>>,
    on_progress: Box<dyn Fn(f64)>,
    /// How long the worker took to read arrivals, in ms.
    on_parsed: Box<dyn Fn(f64)>,
    /// Taken by the one call that ends the run.
    on_done: RefCell<Option<OnDone<T>>>,
    /// The browser calls these until the run ends; `None` afterwards.
    listeners: RefCell<Option<Listeners>>,
}

struct Listeners {
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(Event)>,
    _on_ready_timeout: Closure<dyn FnMut()>,
    ready_timeout: i32,
}

/// Starts `request` (a run or a part of replications; arrivals go
/// through [`start_arrivals`]) in a worker. `on_progress` receives the
/// share done, from 0 to 1; `on_done` receives the result, or a message
/// saying why there is none, exactly once, unless the run is cancelled
/// first.
pub fn start<T: DeserializeOwned + 'static>(
    request: Request,
    on_progress: impl Fn(f64) + 'static,
    on_done: impl FnOnce(Result<T, String>) + 'static,
) -> Result<WorkerRun, String> {
    start_with(request, on_progress, |_| {}, on_done)
}

/// Starts reading, describing and replaying `arrivals` (the reader's text)
/// under the Queue parameters of `query` in a worker; as [`start`], and
/// `on_parsed` receives how long reading and describing the text took, in
/// ms.
pub fn start_arrivals(
    query: String,
    arrivals: String,
    on_progress: impl Fn(f64) + 'static,
    on_parsed: impl Fn(f64) + 'static,
    on_done: impl FnOnce(Result<ArrivalsRun, String>) + 'static,
) -> Result<WorkerRun, String> {
    let request = Request::Arrivals {
        query,
        text: arrivals,
    };
    start_with(request, on_progress, on_parsed, on_done)
}

fn start_with<T: DeserializeOwned + 'static>(
    request: Request,
    on_progress: impl Fn(f64) + 'static,
    on_parsed: impl Fn(f64) + 'static,
    on_done: impl FnOnce(Result<T, String>) + 'static,
) -> Result<WorkerRun, String> {
    let cannot_start =
        |error: JsValue| format!("the simulation could not start: {}", describe(&error));
    let window = web_sys::window().ok_or("the simulation needs a browser window")?;
    let (worker, ready) = take_worker().map_err(cannot_start)?;
    let run = Rc::new(Run {
        worker,
        request: RefCell::new(Some(request)),
        on_progress: Box::new(on_progress),
        on_parsed: Box::new(on_parsed),
        on_done: RefCell::new(Some(Box::new(on_done))),
        listeners: RefCell::new(None),
    });

    let weak = Rc::downgrade(&run);
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        if let Some(run) = weak.upgrade() {
            run.receive(event.data());
        }
    });
    let weak = Rc::downgrade(&run);
    let on_error = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
        if let Some(run) = weak.upgrade() {
            // Handled here: the reader sees the message, the console does not.
            event.prevent_default();
            run.crash(&event);
        }
    });
    let weak = Rc::downgrade(&run);
    let on_ready_timeout = Closure::<dyn FnMut()>::new(move || {
        if let Some(run) = weak.upgrade() {
            run.finish(Err(format!(
                "the simulation's worker did not start within {} s",
                READY_TIMEOUT_MS / 1000
            )));
        }
    });
    run.worker
        .set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    run.worker
        .set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let ready_timeout = window
        .set_timeout_with_callback_and_timeout_and_arguments_0(
            on_ready_timeout.as_ref().unchecked_ref(),
            READY_TIMEOUT_MS,
        )
        .map_err(cannot_start)?;
    *run.listeners.borrow_mut() = Some(Listeners {
        _on_message: on_message,
        _on_error: on_error,
        _on_ready_timeout: on_ready_timeout,
        ready_timeout,
    });
    if ready {
        run.send_request();
    }
    Ok(WorkerRun { run })
}

impl WorkerRun {
    /// Ends the run: terminates the worker, and nothing more is reported
    /// (`on_done` is not called).
    pub fn cancel(&self) {
        self.run.stop();
    }
}

impl<T> Drop for Run<T> {
    fn drop(&mut self) {
        self.stop();
    }
}

impl<T> Stop for Run<T> {
    fn stop(&self) {
        Run::stop(self);
    }
}

impl<T: DeserializeOwned> Run<T> {
    fn receive(&self, message: JsValue) {
        match serde_wasm_bindgen::from_value(message) {
            Ok(Reply::Ready) => self.send_request(),
            Ok(Reply::Progress(share)) => (self.on_progress)(share),
            Ok(Reply::Parsed(ms)) => (self.on_parsed)(ms),
            Ok(Reply::Done(run)) => self.finish(Ok(run)),
            Ok(Reply::Failed(why)) => self.finish(Err(why)),
            Err(error) => self.finish(Err(format!(
                "the simulation's result could not be read: {error}"
            ))),
        }
    }

    fn send_request(&self) {
        let Some(request) = self.request.borrow_mut().take() else {
            return;
        };
        if let (Some(window), Some(listeners)) = (web_sys::window(), &*self.listeners.borrow()) {
            window.clear_timeout_with_handle(listeners.ready_timeout);
        }
        if let Err(error) = post(&self.worker, &request) {
            self.finish(Err(format!(
                "the simulation could not start: {}",
                describe(&error)
            )));
        }
    }

    /// An error event: the worker's script failed to load before it was
    /// ready, or the simulation threw (a panic) after.
    fn crash(&self, event: &Event) {
        let detail = error_detail(event);
        let what = if self.request.borrow().is_some() {
            "the simulation's worker could not be loaded"
        } else {
            "the simulation stopped unexpectedly"
        };
        self.finish(Err(format!("{what}{detail}")));
    }

    /// Ends the run and reports `result`, once.
    fn finish(&self, result: Result<T, String>) {
        self.stop();
        // Taken out before the call: `on_done` may start the next run.
        let on_done = self.on_done.borrow_mut().take();
        if let Some(on_done) = on_done {
            on_done(result);
        }
    }
}

impl<T> Run<T> {
    /// Terminates the worker and lets go of the listeners. A listener that
    /// is running now is freed when it returns.
    fn stop(&self) {
        self.worker.terminate();
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        if let Some(listeners) = self.listeners.borrow_mut().take()
            && let Some(window) = web_sys::window()
        {
            window.clear_timeout_with_handle(listeners.ready_timeout);
        }
    }
}

/// What a worker's error event says, as " (message)", or nothing.
pub(crate) fn error_detail(event: &Event) -> String {
    event
        .dyn_ref::<ErrorEvent>()
        .map(ErrorEvent::message)
        .filter(|message| !message.is_empty())
        .map(|message| format!(" ({message})"))
        .unwrap_or_default()
}

/// The message of a JS error value, or the value as text.
pub(crate) fn describe(error: &JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|error| String::from(error.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| format!("{error:?}"))
}
