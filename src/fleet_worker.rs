//! The page's side of the Fleet panel's worker (`src/fleet_worker_main.rs`,
//! whose module text gives the messages): one worker a page, started by
//! the first request, that reads, fixes and probes a fleet.
//!
//! Every request gets a larger id, and a reply to any but the newest is
//! dropped, so a slow answer never overwrites a newer one. A worker that
//! fails to load or crashes is reported once and forgotten; the next
//! request starts a fresh one.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde::de::DeserializeOwned;
use stampede_core::panels::fleet::{FleetFix, FleetProbe, FleetRead};
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
const READY_TIMEOUT_MS: i32 = 10_000;

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
    /// The request failed, or the worker did: the reader's message.
    Failed(String),
}

type OnReply = Rc<dyn Fn(Reply)>;
/// What the browser calls: on a message, an error, the ready timeout.
type Listener = Closure<dyn FnMut(JsValue)>;

struct Connection {
    worker: Worker,
    /// The newest request, posted once the worker is ready; `None` after.
    waiting: RefCell<Option<JsValue>>,
    ready: Cell<bool>,
    /// The id of the newest request: replies to others are stale.
    newest: Cell<f64>,
    on_reply: RefCell<OnReply>,
    ready_timeout: Cell<Option<i32>>,
    _listeners: RefCell<Vec<Listener>>,
}

thread_local! {
    static CONNECTION: RefCell<Option<Rc<Connection>>> = const { RefCell::new(None) };
    static NEXT_ID: Cell<f64> = const { Cell::new(1.0) };
}

/// Asks the worker to read the fleet of `source` under the settings of
/// `query` (the page's query string), or with `day` only for that day's
/// starts as arrivals. `on_reply` receives what the worker says about this
/// request and none older, stage by stage.
pub fn request(query: &str, source: Source, day: Option<u32>, on_reply: impl Fn(Reply) + 'static) {
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
    let on_reply: OnReply = Rc::new(on_reply);
    let connection = match CONNECTION.with_borrow(Clone::clone) {
        Some(connection) => connection,
        None => match start() {
            Ok(connection) => connection,
            Err(why) => return on_reply(Reply::Failed(why)),
        },
    };
    connection.newest.set(id);
    *connection.on_reply.borrow_mut() = on_reply;
    let message = JsValue::from(message);
    if connection.ready.get() {
        connection.send(&message);
    } else {
        *connection.waiting.borrow_mut() = Some(message);
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
        waiting: RefCell::new(None),
        ready: Cell::new(false),
        newest: Cell::new(0.0),
        on_reply: RefCell::new(Rc::new(|_| {})),
        ready_timeout: Cell::new(None),
        _listeners: RefCell::new(Vec::new()),
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
    let on_timeout = Listener::new(move |_| {
        if let Some(connection) = weak.upgrade() {
            connection.fail(format!(
                "the fleet's worker did not start within {} s",
                READY_TIMEOUT_MS / 1000
            ));
        }
    });
    let worker = &connection.worker;
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let timeout = web_sys::window()
        .ok_or("the fleet's worker needs a browser window")?
        .set_timeout_with_callback_and_timeout_and_arguments_0(
            on_timeout.as_ref().unchecked_ref(),
            READY_TIMEOUT_MS,
        )
        .map_err(cannot_start)?;
    connection.ready_timeout.set(Some(timeout));
    *connection._listeners.borrow_mut() = vec![on_message, on_error, on_timeout];
    CONNECTION.set(Some(connection.clone()));
    Ok(connection)
}

impl Connection {
    fn receive(&self, message: &JsValue) {
        let field = |key: &str| message_field(message, key);
        if field("ready").is_some() {
            self.ready.set(true);
            self.clear_timeout();
            if let Some(waiting) = self.waiting.borrow_mut().take() {
                self.send(&waiting);
            }
            return;
        }
        if field("id").and_then(|id| id.as_f64()) != Some(self.newest.get()) {
            return;
        }
        let reply = if let Some(text) = field("text") {
            Reply::Text(text.as_string().unwrap_or_default())
        } else if let Some(error) = field("error") {
            Reply::Failed(error.as_string().unwrap_or_default())
        } else {
            let value = field("value").unwrap_or(JsValue::NULL);
            match field("stage")
                .and_then(|stage| stage.as_string())
                .as_deref()
            {
                Some("read") => decode(value).map(|read| Reply::Read(Box::new(read))),
                Some("link") => decode(value).map(Reply::Link),
                Some("fix") => decode(value).map(|fix| Reply::Fix(Box::new(fix))),
                Some("probe") => decode(value).map(Reply::Probe),
                Some("arrivals") => decode(value).map(Reply::Arrivals),
                _ => return,
            }
            .unwrap_or_else(Reply::Failed)
        };
        let on_reply = self.on_reply.borrow().clone();
        on_reply(reply);
    }

    fn send(&self, message: &JsValue) {
        if let Err(error) = self.worker.post_message(message) {
            self.fail(format!(
                "the fleet could not be sent to its worker: {}",
                describe(&error)
            ));
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
        self.clear_timeout();
        self.worker.terminate();
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        // Dropped once the listener running now returns.
        CONNECTION.take();
        let on_reply = self.on_reply.borrow().clone();
        on_reply(Reply::Failed(why));
    }

    fn clear_timeout(&self) {
        if let (Some(handle), Some(window)) = (self.ready_timeout.take(), web_sys::window()) {
            window.clear_timeout_with_handle(handle);
        }
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
