//! Tests that run in headless Chromium (`cargo test --target wasm32-unknown-unknown`):
//! the seeded generator and the distributions draw their golden values in
//! wasm32 too, the queue simulation replays its golden run, the mounted app writes a changed control to the URL and
//! the key numbers, and a queue run or a fleet request whose worker cannot
//! load ends with a message (the workers' own scripts are Trunk's, so the
//! runs that succeed are the end-to-end test's).
#![cfg(target_arch = "wasm32")]

use stampede_core::panels;
use std::cell::Cell;
use std::rc::Rc;

use stampede::fleet_worker::{self, Reply, Source};
use stampede::worker::{self, WorkerRun};
use stampede::{App, show_error_banner};
use stampede_core::panels::state::DEFAULT_SEED;
use stampede_core::poisson::{self, PoissonParams};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

include!("../core/tests/golden/rng.rs");
include!("../core/tests/golden/dist.rs");
include!("../core/tests/golden/queue.rs");

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn pcg32_matches_the_reference_in_wasm() {
    assert_pcg32_matches_reference();
}

#[wasm_bindgen_test]
fn seeded_streams_draw_the_golden_values_in_wasm() {
    assert_golden_draws();
}

#[wasm_bindgen_test]
fn distributions_draw_the_golden_values_in_wasm() {
    assert_dist_golden();
}

#[wasm_bindgen_test]
fn the_queue_replays_its_golden_run_in_wasm() {
    assert_queue_golden();
}

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

fn text_of(selector: &str) -> String {
    document()
        .query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no element matches {selector}"))
        .text_content()
        .unwrap_or_default()
}

async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    JsFuture::from(promise).await.unwrap();
}

#[wasm_bindgen_test]
async fn a_changed_control_reaches_the_url_and_the_key_numbers() {
    let host = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&host).unwrap();
    leptos::mount::mount_to(host.unchecked_into(), App).forget();

    let mean_gap_before = text_of("dd[data-key='mean-gap']");
    let input: web_sys::HtmlInputElement = document()
        .get_element_by_id("f-n")
        .expect("the events-a-day input")
        .unchecked_into();
    input.set_value("1200");
    input
        .dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    sleep(600).await;

    let search = web_sys::window().unwrap().location().search().unwrap();
    assert!(search.contains("n=1200"), "address bar: {search}");
    assert!(search.contains("p=poisson"), "address bar: {search}");
    assert_eq!(input.value(), "1200");
    let mean_gap_after = text_of("dd[data-key='mean-gap']");
    assert_ne!(mean_gap_after, mean_gap_before);
    // The page shows what core measures for the same parameters, and the
    // theory beside it: 86,400 s / 1,200 = 72 s.
    let params = PoissonParams {
        per_day: 1200,
        ..Default::default()
    };
    let run = poisson::run(&params, DEFAULT_SEED).unwrap();
    let expected = panels::poisson::key_numbers(&params, &run);
    let mean_gap = expected.iter().find(|n| n.key == "mean-gap").unwrap();
    assert_eq!(mean_gap_after, mean_gap.value);
    let theory = text_of("dd[data-key='mean-gap'] ~ dd.theory");
    assert_eq!(theory, "theory: 1 / λ = 1 min 12 s");
}

#[wasm_bindgen_test]
fn the_error_banner_offers_a_reset() {
    show_error_banner("a test failure");
    let banner = document()
        .get_element_by_id("error-banner")
        .expect("the banner");
    assert_eq!(banner.get_attribute("role").as_deref(), Some("alert"));
    assert!(text_of("#error-banner").contains("a test failure"));
    let reset = document()
        .get_element_by_id("reset-link")
        .expect("the reset link");
    let path = web_sys::window().unwrap().location().pathname().unwrap();
    assert_eq!(reset.get_attribute("href"), Some(path));
    banner.remove();
}

/// What a queue run reported: progress calls so far, and whether `on_done` came.
#[derive(Default)]
struct Reports {
    progress: Cell<u32>,
    done: Cell<bool>,
}

/// Starts a queue run of the default parameters; returns it, a promise of
/// what its `on_done` receives (as text), and what it has reported.
fn start_queue_run() -> (WorkerRun, js_sys::Promise, Rc<Reports>) {
    let reports = Rc::new(Reports::default());
    let mut resolve_done = None;
    let outcome = js_sys::Promise::new(&mut |resolve, _reject| resolve_done = Some(resolve));
    let resolve = resolve_done.expect("a promise calls its executor at once");
    let (progressed, finished) = (reports.clone(), reports.clone());
    let run = worker::start::<stampede_core::queue::QueueRun>(
        worker::Request::Run("v=1&p=queue".into()),
        move |_| progressed.progress.set(progressed.progress.get() + 1),
        move |result| {
            finished.done.set(true);
            let text = result.map_or_else(|message| message, |_| "a run".into());
            resolve.call1(&JsValue::NULL, &text.into()).unwrap();
        },
    )
    .expect("a worker is created even when its script will not load");
    (run, outcome, reports)
}

#[wasm_bindgen_test]
async fn a_worker_that_cannot_load_ends_its_run_with_a_message() {
    // The test page is no Trunk build: the worker's script is not beside it.
    let (_run, outcome, reports) = start_queue_run();
    let text = JsFuture::from(outcome).await.unwrap().as_string().unwrap();
    // Chromium adds the reason in brackets: the script's address and status.
    assert!(
        text.starts_with("the simulation's worker could not be loaded"),
        "{text}"
    );
    assert_eq!(reports.progress.get(), 0);
}

#[wasm_bindgen_test]
async fn a_cancelled_worker_run_reports_nothing() {
    let (cancelled, _, reports) = start_queue_run();
    cancelled.cancel();
    // A second run fails to load as the first would have; by the time it
    // reports, and a little after, the cancelled one would have too.
    let (_other, outcome, _) = start_queue_run();
    JsFuture::from(outcome).await.unwrap();
    sleep(200).await;
    assert!(!reports.done.get(), "a cancelled run called on_done");
    assert_eq!(reports.progress.get(), 0);
}

/// Asks the fleet's worker to read a one-line fleet; resolves to the first
/// failure it reports.
fn fleet_failure() -> JsFuture {
    let mut resolve_failed = None;
    let failed = js_sys::Promise::new(&mut |resolve, _reject| resolve_failed = Some(resolve));
    let resolve = resolve_failed.expect("a promise calls its executor at once");
    fleet_worker::request(
        "v=1&p=fleet&smp=own",
        Source::Text("cron\tnightly\t0 0 * * *\n".into()),
        None,
        false,
        move |reply| {
            if let Reply::Failed(why) = reply {
                resolve.call1(&JsValue::NULL, &why.into()).unwrap();
            }
        },
    );
    JsFuture::from(failed)
}

#[wasm_bindgen_test]
async fn a_fleet_worker_that_cannot_load_says_so_and_the_next_request_starts_anew() {
    // Twice: the first failure forgets its worker, so the second request
    // starts (and fails to load) a fresh one rather than waiting forever.
    for _ in 0..2 {
        let text = fleet_failure().await.unwrap().as_string().unwrap();
        assert!(
            text.starts_with("the fleet's worker could not be loaded"),
            "{text}"
        );
    }
}

/// The fleet worker's replies reach the page in postcard: each comes
/// back equal, so no serde attribute postcard cannot carry (an untagged or
/// skipped field) has crept into their types.
#[wasm_bindgen_test]
fn a_fleets_replies_cross_from_the_worker_unchanged() {
    use panels::fleet::{FleetParams, Probe, Sample};
    use stampede_fleet::panel::report;
    fn round_trip(reply: Reply) {
        let bytes = postcard::to_allocvec(&reply).unwrap();
        assert_eq!(postcard::from_bytes::<Reply>(&bytes).unwrap(), reply);
    }
    // Durations, machines and a delay drawn at random: every field is set.
    let params = FleetParams {
        sample: Sample::SystemdTimer,
        probe: Probe::MachineId,
        ..FleetParams::default()
    };
    let text = params.sample.text();
    let read = report::read(&text, &params, DEFAULT_SEED).unwrap();
    assert!(read.load.running.is_some() && !read.notices.is_empty());
    round_trip(Reply::Read(Box::new(read)));
    round_trip(Reply::Fix(Box::new(
        report::fix(&text, &params, DEFAULT_SEED).unwrap(),
    )));
    let probe = report::probe(&text, &params, DEFAULT_SEED).unwrap();
    assert!(probe.is_some());
    round_trip(Reply::Probe(probe));
    round_trip(Reply::Link(report::link(&text, Sample::Own)));
}

/// A queue run reaches the page as a JS value, each f64 exactly.
#[wasm_bindgen_test]
fn a_queue_run_crosses_from_the_worker_unchanged() {
    use stampede_core::queue::{self, QueueParams, QueueRun};
    let run = queue::run(&QueueParams::default(), DEFAULT_SEED).unwrap();
    let reply = worker::Reply::Done(run);
    let value = serde_wasm_bindgen::to_value(&reply).unwrap();
    let back: worker::Reply<QueueRun> = serde_wasm_bindgen::from_value(value).unwrap();
    assert_eq!(back, reply);
}
