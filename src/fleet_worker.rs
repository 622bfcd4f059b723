//! The page's side of the Fleet panel's worker (`src/fleet_worker_main.rs`,
//! whose module text gives the messages): one worker a page, started by
//! the first request, that reads, fixes and probes a fleet.
//!
//! Every request gets a larger id, and a reply to any but the newest is
//! dropped, so a slow answer never overwrites a newer one. The worker
//! takes a new request between two stages of the one under way and says
//! so at once; a worker silent for [`TAKE_MS`] is deep in a long stage,
//! and a fresh worker takes its place, so no request waits on an older
//! one. A stage still running after [`STAGE_MS`] is stopped the
//! same way and the reader is asked, unless they already said to wait.
//! Leaving the panel stops a worker that is still busy. A worker that
//! fails to load or crashes is reported once and forgotten; the next
//! request starts a fresh one.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde::de::DeserializeOwned;
use stampede_fleet::panel::{FleetFix, FleetProbe, FleetRead};
use wasm_bindgen::prelude::*;
use web_sys::{Event, MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::worker::{describe, error_detail, message_field};

/// The loader of the `stampede-fleet-worker` binary (index.html), relative to the page
/// like every other asset, so the app works under any sub-path: the one the
/// `<meta>` of this name gives (`scripts/build` renames the worker's files
/// by their content), else Trunk's.
const WORKER_META: &str = "stampede:fleet-worker";
const WORKER_SCRIPT: &str = "./stampede-fleet-worker_loader.js";

/// A worker that has not said it is ready after this long is taken as
/// failed to load (a missing script raises an error at once instead).
const READY_TIMEOUT_MS: f64 = 10_000.0;
/// How long a busy worker may be silent before a new request goes to a
/// fresh worker instead: an idle one answers within a few milliseconds,
/// one between stages within a stage of a real fleet; one still silent is
/// running a stage that may take minutes, and a fresh worker is quicker
/// (it starts in a twentieth of a second).
const TAKE_MS: f64 = 250.0;
/// How long a stage may run before the page stops it and asks the reader:
/// every stage of a 10,000-line fleet takes a tenth of this.
const STAGE_MS: f64 = 5_000.0;

/// Where the fleet's text comes from.
pub enum Source {
    /// The text itself, typed, pasted or dropped.
    Text(String),
    /// A link's fragment, without `#`; the worker replies with its text.
    Fragment(String),
    /// The sample the query names; the worker replies with its text.
    Sample,
}

/// One message of the worker about the newest request.
pub enum Reply {
    /// The text a fragment or a sample stands for.
    Text(String),
    Read(Box<FleetRead>),
    /// The link fragment that carries the reader's own fleet, or why none
    /// can; `None` for a sample.
    Link(Option<Result<String, String>>),
    Fix(Box<FleetFix>),
    Probe(Option<FleetProbe>),
    /// A day's starts as arrivals for the Queue panel (a CSV text).
    Arrivals(String),
    /// The fleet was not read, or its reading was stopped, because it could
    /// take minutes: why, for the reader to ask for it anyway.
    OverBudget(String),
    /// The request failed, or the worker did: the reader's message.
    Failed(String),
}

type OnReply = Rc<dyn Fn(Reply)>;
/// What the browser calls: on a message, an error, a timer.
type Listener = Closure<dyn FnMut(JsValue)>;

/// What the connection waits for, which sets its timer.
#[derive(Clone, Copy, PartialEq)]
enum Awaiting {
    Nothing,
    /// The worker's `ready`.
    Ready,
    /// The worker's word that it took the newest request.
    Taken,
    /// The next stage of the newest request.
    Stage,
}

/// The newest request: what the worker needs to run it again, and who
/// hears the replies.
#[derive(Clone)]
struct Request {
    id: f64,
    message: JsValue,
    /// Whether the reader asked to wait however long it takes.
    patient: bool,
    on_reply: OnReply,
}

struct Connection {
    worker: Worker,
    ready: Cell<bool>,
    request: RefCell<Request>,
    /// Whether the worker works on the newest request.
    busy: Cell<bool>,
    /// When the worker last sent anything, in ms since the epoch.
    heard: Cell<f64>,
    awaiting: Cell<Awaiting>,
    timer: Cell<Option<i32>>,
    listeners: RefCell<Vec<Listener>>,
}

/// Asks every worker to hold the reader's own fleet for a minute before
/// reading it, as no fleet within the budget does: the end-to-end test's
/// busy worker (`debug=stall`).
pub fn stall_own_fleets() {
    STALL.set(true);
}

thread_local! {
    static STALL: Cell<bool> = const { Cell::new(false) };
    static CONNECTION: RefCell<Option<Rc<Connection>>> = const { RefCell::new(None) };
    static NEXT_ID: Cell<f64> = const { Cell::new(1.0) };
}

/// Asks the worker to read the fleet of `source` under the settings of
/// `query` (the page's query string), or with `day` only for that day's
/// starts as arrivals; `patient` reads it however large and however long
/// it takes. `on_reply` receives what the worker says about this request
/// and none older, stage by stage.
pub fn request(
    query: &str,
    source: Source,
    day: Option<u32>,
    patient: bool,
    on_reply: impl Fn(Reply) + 'static,
) {
    let id = NEXT_ID.get();
    NEXT_ID.set(id + 1.0);
    let message = js_sys::Object::new();
    let set = |key: &str, value: JsValue| {
        let _ = js_sys::Reflect::set(&message, &key.into(), &value);
    };
    set("id", id.into());
    set("query", query.into());
    match source {
        Source::Text(text) => set("text", text.into()),
        Source::Fragment(fragment) => set("fragment", fragment.into()),
        Source::Sample => {}
    }
    if let Some(day) = day {
        set("day", day.into());
    }
    if patient {
        set("patient", JsValue::TRUE);
    }
    if STALL.get() {
        set("stall", JsValue::TRUE);
    }
    let request = Request {
        id,
        message: message.into(),
        patient,
        on_reply: Rc::new(on_reply),
    };
    match CONNECTION.with_borrow(Clone::clone) {
        Some(connection) => connection.take(request),
        None => start_with(request),
    }
}

/// Stops the worker if it is still on a request, which nobody will hear:
/// the panel is closing.
pub fn stop() {
    if let Some(connection) = CONNECTION.with_borrow(Clone::clone) {
        connection.request.borrow_mut().on_reply = Rc::new(|_| {});
        if connection.busy.get() {
            connection.forget();
        }
    }
}

/// Starts a worker for `request`, or tells its listener why none starts.
fn start_with(request: Request) {
    match start() {
        Ok(connection) => connection.take(request),
        Err(why) => (request.on_reply)(Reply::Failed(why)),
    }
}

/// Starts the page's worker and keeps it.
fn start() -> Result<Rc<Connection>, String> {
    let cannot_start =
        |error: JsValue| format!("the fleet's worker could not start: {}", describe(&error));
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let worker = Worker::new_with_options(
        &crate::browser::named_asset(WORKER_META, WORKER_SCRIPT),
        &options,
    )
    .map_err(cannot_start)?;
    let connection = Rc::new(Connection {
        worker,
        ready: Cell::new(false),
        request: RefCell::new(Request {
            id: 0.0,
            message: JsValue::NULL,
            patient: false,
            on_reply: Rc::new(|_| {}),
        }),
        busy: Cell::new(false),
        heard: Cell::new(js_sys::Date::now()),
        awaiting: Cell::new(Awaiting::Nothing),
        timer: Cell::new(None),
        listeners: RefCell::new(Vec::new()),
    });
    let weak = Rc::downgrade(&connection);
    let on_message = Listener::new(move |event: JsValue| {
        if let Some(connection) = weak.upgrade() {
            connection.receive(&event.unchecked_into::<MessageEvent>().data());
        }
    });
    let weak = Rc::downgrade(&connection);
    let on_error = Listener::new(move |event: JsValue| {
        if let Some(connection) = weak.upgrade() {
            let event: Event = event.unchecked_into();
            // Handled here: the reader sees the message, the console does not.
            event.prevent_default();
            connection.crash(&event);
        }
    });
    let weak = Rc::downgrade(&connection);
    let on_timer = Listener::new(move |_| {
        if let Some(connection) = weak.upgrade() {
            connection.timed_out();
        }
    });
    let worker = &connection.worker;
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    *connection.listeners.borrow_mut() = vec![on_message, on_error, on_timer];
    connection.wait_for(Awaiting::Ready);
    CONNECTION.set(Some(connection.clone()));
    Ok(connection)
}

impl Connection {
    /// Makes `request` the newest, sent now or once the worker is ready,
    /// or sent to a fresh worker when this one is stuck in a long stage.
    fn take(&self, request: Request) {
        let stuck = self.busy.get() && js_sys::Date::now() - self.heard.get() >= TAKE_MS;
        if stuck && self.ready.get() {
            self.forget();
            return start_with(request);
        }
        if !self.busy.get() {
            // An idle worker has until TAKE_MS from now to answer.
            self.heard.set(js_sys::Date::now());
        }
        let message = request.message.clone();
        *self.request.borrow_mut() = request;
        self.busy.set(true);
        if self.ready.get() {
            self.send(&message);
        }
    }

    fn receive(&self, message: &JsValue) {
        self.heard.set(js_sys::Date::now());
        let field = |key: &str| message_field(message, key);
        if field("ready").is_some() {
            self.ready.set(true);
            if self.busy.get() {
                let message = self.request.borrow().message.clone();
                self.send(&message);
            } else {
                self.wait_for(Awaiting::Nothing);
            }
            return;
        }
        if field("id").and_then(|id| id.as_f64()) != Some(self.request.borrow().id) {
            return;
        }
        let stage = field("stage").and_then(|stage| stage.as_string());
        let last = field("error").is_some()
            || field("over").is_some()
            || matches!(stage.as_deref(), Some("probe" | "arrivals"));
        if last {
            self.busy.set(false);
            self.wait_for(Awaiting::Nothing);
        } else {
            self.wait_for(Awaiting::Stage);
        }
        let reply = if field("taken").is_some() {
            return;
        } else if let Some(text) = field("text") {
            Reply::Text(text.as_string().unwrap_or_default())
        } else if let Some(error) = field("error") {
            Reply::Failed(error.as_string().unwrap_or_default())
        } else if let Some(why) = field("over") {
            Reply::OverBudget(why.as_string().unwrap_or_default())
        } else {
            let value = field("value").unwrap_or(JsValue::NULL);
            match stage.as_deref() {
                Some("read") => decode(value).map(|read| Reply::Read(Box::new(read))),
                Some("link") => decode(value).map(Reply::Link),
                Some("fix") => decode(value).map(|fix| Reply::Fix(Box::new(fix))),
                Some("probe") => decode(value).map(Reply::Probe),
                Some("arrivals") => decode(value).map(Reply::Arrivals),
                _ => return,
            }
            .unwrap_or_else(Reply::Failed)
        };
        self.reply(reply);
    }

    fn send(&self, message: &JsValue) {
        match self.worker.post_message(message) {
            Ok(()) => self.wait_for(Awaiting::Taken),
            Err(error) => self.fail(format!(
                "the fleet could not be sent to its worker: {}",
                describe(&error)
            )),
        }
    }

    /// Sets the timer for what comes next, in place of the one running.
    fn wait_for(&self, awaiting: Awaiting) {
        self.awaiting.set(awaiting);
        let Some(window) = web_sys::window() else {
            return;
        };
        if let Some(handle) = self.timer.take() {
            window.clear_timeout_with_handle(handle);
        }
        let ms = match awaiting {
            Awaiting::Ready => READY_TIMEOUT_MS,
            Awaiting::Taken => {
                TAKE_MS - (js_sys::Date::now() - self.heard.get()).clamp(0.0, TAKE_MS)
            }
            Awaiting::Stage if !self.request.borrow().patient => STAGE_MS,
            Awaiting::Stage | Awaiting::Nothing => return,
        } as i32;
        let listeners = self.listeners.borrow();
        let Some(on_timer) = listeners.get(2) else {
            return;
        };
        let handle = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(
                on_timer.as_ref().unchecked_ref(),
                ms,
            )
            .ok();
        self.timer.set(handle);
    }

    fn timed_out(&self) {
        self.timer.set(None);
        match self.awaiting.get() {
            Awaiting::Ready => self.fail(format!(
                "the fleet's worker did not start within {} s",
                READY_TIMEOUT_MS / 1000.0
            )),
            Awaiting::Taken => {
                let request = self.request.borrow().clone();
                self.forget();
                start_with(request);
            }
            Awaiting::Stage => {
                self.forget();
                self.reply(Reply::OverBudget(format!(
                    "reading it took more than {} s, and it may need minutes more",
                    STAGE_MS / 1000.0
                )));
            }
            Awaiting::Nothing => {}
        }
    }

    /// An error event: the script failed to load before it was ready, or
    /// the worker panicked after.
    fn crash(&self, event: &Event) {
        let detail = error_detail(event);
        let what = if self.ready.get() {
            "the fleet's worker stopped unexpectedly"
        } else {
            "the fleet's worker could not be loaded"
        };
        self.fail(format!("{what}{detail}; change the fleet to try again"));
    }

    /// Reports `why` for the newest request and forgets this worker.
    fn fail(&self, why: String) {
        self.forget();
        self.reply(Reply::Failed(why));
    }

    /// Ends this worker, which then sends nothing more, and lets the next
    /// request start a fresh one.
    fn forget(&self) {
        self.wait_for(Awaiting::Nothing);
        self.busy.set(false);
        self.worker.terminate();
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        // Dropped once the listener running now returns.
        CONNECTION.take();
    }

    fn reply(&self, reply: Reply) {
        let on_reply = self.request.borrow().on_reply.clone();
        on_reply(reply);
    }
}

/// A stage's value, read back into core's type from its postcard bytes.
fn decode<T: DeserializeOwned>(value: JsValue) -> Result<T, String> {
    let bytes = value
        .dyn_into::<js_sys::Uint8Array>()
        .map_err(|_| "the fleet's worker sent no bytes".to_string())?
        .to_vec();
    postcard::from_bytes(&bytes)
        .map_err(|e| format!("the fleet's worker sent what the page cannot read: {e}"))
}
