//! The page's side of the Fleet panel's worker (`src/fleet_worker_main.rs`):
//! one worker a page, started by the first request (or by index.html, when
//! the page opens on the panel), that reads, fixes and probes a fleet. The two speak the enums of [`crate::messages::fleet`].
//!
//! Every request gets a larger id, and a reply to any but the newest is
//! dropped, so a slow answer never overwrites a newer one. The worker
//! index.html starts takes up the page's first request before it is made
//! ([`Request::ahead_of`]) and stops after the read; when the app makes
//! that request, what the worker has replied answers it at once, and the
//! worker goes on with the same job rather than start it again. The worker
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

use wasm_bindgen::prelude::*;
use web_sys::{Event, MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::messages::fleet::{AHEAD_ID, Message, Request};
pub use crate::messages::fleet::{Reply, Source};
use crate::worker::{describe, error_detail};

/// The loader of the `stampede-fleet-worker` binary (index.html), relative to the page
/// like every other asset, so the app works under any sub-path: the one the
/// `<meta>` of this name gives (`scripts/build` renames the worker's files
/// by their content), else Trunk's.
const WORKER_META: &str = "stampede:fleet-worker";
const WORKER_SCRIPT: &str = "./stampede-fleet-worker_loader.js";
/// Where index.html keeps the worker it started with the page.
const EARLY_WORKER: &str = "stampedeEarlyFleetWorker";

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

type OnReply = Rc<dyn Fn(Reply)>;
/// What the browser calls: on a message, an error, a timer.
type Listener = Closure<dyn FnMut(JsValue)>;

/// What the connection waits for, which sets its timer.
#[derive(Clone, Copy, PartialEq)]
enum Awaiting {
    Nothing,
    /// The worker's word that it is ready.
    Ready,
    /// The worker's word that it took the newest request.
    Taken,
    /// The next stage of the newest request.
    Stage,
}

/// The newest request, which a fresh worker can be sent again, and who
/// hears the replies.
#[derive(Clone)]
struct Newest {
    request: Request,
    on_reply: OnReply,
}

/// The request the worker index.html started took up by itself, and what
/// it replied before the page's first request adopted or replaced it.
struct Ahead {
    request: Request,
    replies: Vec<Reply>,
}

struct Connection {
    worker: Worker,
    ahead: RefCell<Option<Ahead>>,
    /// Whether the newest request is the one the worker took up by
    /// itself, whose replies may still come under [`AHEAD_ID`].
    newest_was_ahead: Cell<bool>,
    ready: Cell<bool>,
    newest: RefCell<Newest>,
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
    static NEXT_ID: Cell<u32> = const { Cell::new(1) };
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
    NEXT_ID.set(id + 1);
    let newest = Newest {
        request: Request {
            id,
            query: query.to_string(),
            source,
            day,
            patient,
            stall: STALL.get(),
        },
        on_reply: Rc::new(on_reply),
    };
    match CONNECTION.with_borrow(Clone::clone) {
        Some(connection) => connection.take(newest),
        None => start_with(newest),
    }
}

/// Stops the worker if it is still on a request, which nobody will hear:
/// the panel is closing.
pub fn stop() {
    if let Some(connection) = CONNECTION.with_borrow(Clone::clone) {
        connection.newest.borrow_mut().on_reply = Rc::new(|_| {});
        if connection.busy.get() {
            connection.forget();
        }
    }
}

/// Starts a worker for `newest`, or tells its listener why none starts.
fn start_with(newest: Newest) {
    match start() {
        Ok(connection) => connection.take(newest),
        Err(why) => (newest.on_reply)(Reply::Failed(why)),
    }
}

/// Starts the page's worker and keeps it.
fn start() -> Result<Rc<Connection>, String> {
    let cannot_start =
        |error: JsValue| format!("the fleet's worker could not start: {}", describe(&error));
    let (worker, heard, ahead) = match take_early_worker() {
        Some(early) => early,
        None => {
            let options = WorkerOptions::new();
            options.set_type(WorkerType::Module);
            let url = crate::browser::named_asset(WORKER_META, WORKER_SCRIPT);
            let worker = Worker::new_with_options(&url, &options).map_err(cannot_start)?;
            (worker, Vec::new(), None)
        }
    };
    let connection = Rc::new(Connection {
        worker,
        ahead: RefCell::new(ahead.map(|request| Ahead {
            request,
            replies: Vec::new(),
        })),
        newest_was_ahead: Cell::new(false),
        ready: Cell::new(false),
        newest: RefCell::new(Newest {
            request: Request {
                id: 0,
                query: String::new(),
                source: Source::Sample,
                day: None,
                patient: false,
                stall: false,
            },
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
            connection.receive(event.unchecked_into::<MessageEvent>().data());
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
    for data in heard {
        connection.receive(data);
    }
    Ok(connection)
}

/// The worker index.html started with a page that opened on the Fleet
/// panel, what it posted before this took it over, and the request it took
/// up by itself; none if there is no such worker, or it failed to load (a
/// fresh one then says why).
fn take_early_worker() -> Option<(Worker, Vec<JsValue>, Option<Request>)> {
    let window = web_sys::window()?;
    let key = JsValue::from_str(EARLY_WORKER);
    let early = js_sys::Reflect::get(&window, &key)
        .ok()
        .filter(JsValue::is_object)?;
    // Taken once: a worker started later is the app's own.
    let _ = js_sys::Reflect::delete_property(&window, &key);
    let field = |name: &str| js_sys::Reflect::get(&early, &JsValue::from_str(name)).ok();
    let worker: Worker = field("worker")?.dyn_into().ok()?;
    if field("failed")?.is_truthy() {
        worker.terminate();
        return None;
    }
    let heard: js_sys::Array = field("heard")?.dyn_into().ok()?;
    let ahead = field("name")?
        .as_string()
        .and_then(|name| Request::ahead_of(&name));
    Some((worker, heard.iter().collect(), ahead))
}

impl Connection {
    /// Makes `newest` the newest request, sent now or once the worker is
    /// ready, or sent to a fresh worker when this one is stuck in a long
    /// stage.
    fn take(&self, newest: Newest) {
        let ahead = self
            .ahead
            .take()
            .filter(|ahead| ahead.request.asks_as(&newest.request));
        self.newest_was_ahead.set(ahead.is_some());
        let stuck = self.busy.get() && js_sys::Date::now() - self.heard.get() >= TAKE_MS;
        if stuck && self.ready.get() {
            self.forget();
            return start_with(newest);
        }
        if !self.busy.get() {
            // An idle worker has until TAKE_MS from now to answer.
            self.heard.set(js_sys::Date::now());
        }
        *self.newest.borrow_mut() = newest;
        self.busy.set(true);
        for reply in ahead.into_iter().flat_map(|ahead| ahead.replies) {
            self.answer(reply);
        }
        if self.busy.get() && self.ready.get() {
            self.send();
        }
    }

    fn receive(&self, data: JsValue) {
        self.heard.set(js_sys::Date::now());
        let message = match decode(data) {
            Ok(message) => message,
            Err(why) => return self.fail(why),
        };
        // Until the page's first request, what the worker says of the one
        // it took up by itself is kept for that request.
        let message = match (self.ahead.borrow_mut().as_mut(), message) {
            (Some(ahead), Message::Reply(AHEAD_ID, reply)) => return ahead.replies.push(reply),
            (Some(_), Message::Taken(AHEAD_ID)) => return,
            (_, message) => message,
        };
        let newest = self.newest.borrow().request.id;
        let is_newest = |id| id == newest || (id == AHEAD_ID && self.newest_was_ahead.get());
        match message {
            Message::Ready => {
                self.ready.set(true);
                if self.busy.get() {
                    self.send();
                } else {
                    self.wait_for(Awaiting::Nothing);
                }
            }
            Message::Taken(id) if id == newest => self.wait_for(Awaiting::Stage),
            Message::Reply(id, reply) if is_newest(id) => self.answer(reply),
            Message::Taken(_) | Message::Reply(..) => {}
            Message::Unreadable(why) => self.fail(format!(
                "the fleet's worker could not read the request: {why}"
            )),
        }
    }

    /// Passes on one reply about the newest request.
    fn answer(&self, reply: Reply) {
        if reply.is_last() {
            self.busy.set(false);
            self.wait_for(Awaiting::Nothing);
        } else {
            self.wait_for(Awaiting::Stage);
        }
        self.reply(reply);
    }

    /// Sends the newest request, in postcard with its buffer transferred.
    fn send(&self) {
        let sent = postcard::to_allocvec(&self.newest.borrow().request)
            .map_err(|e| e.to_string())
            .and_then(|bytes| {
                let bytes = js_sys::Uint8Array::from(&bytes[..]);
                let transfer = js_sys::Array::of1(&bytes.buffer());
                self.worker
                    .post_message_with_transfer(&bytes, &transfer)
                    .map_err(|error| describe(&error))
            });
        match sent {
            Ok(()) => self.wait_for(Awaiting::Taken),
            Err(why) => self.fail(format!("the fleet could not be sent to its worker: {why}")),
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
            Awaiting::Stage if !self.newest.borrow().request.patient => STAGE_MS,
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
                let newest = self.newest.borrow().clone();
                self.forget();
                start_with(newest);
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
        let on_reply = self.newest.borrow().on_reply.clone();
        on_reply(reply);
    }
}

/// A message of the worker, read back from its postcard bytes.
fn decode(data: JsValue) -> Result<Message, String> {
    let bytes = data
        .dyn_into::<js_sys::Uint8Array>()
        .map_err(|_| "the fleet's worker sent no bytes".to_string())?
        .to_vec();
    postcard::from_bytes(&bytes)
        .map_err(|e| format!("the fleet's worker sent what the page cannot read: {e}"))
}
