//! Tests that run in headless Chromium (`cargo test --target wasm32-unknown-unknown`):
//! the seeded generator and the distributions draw their golden values in
//! wasm32 too, and the mounted app writes a changed control to the URL and
//! the key numbers.
#![cfg(target_arch = "wasm32")]

use stampede::{App, show_error_banner};
use stampede_core::poisson::{self, PoissonParams};
use stampede_core::state::DEFAULT_SEED;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

include!("../core/tests/golden/rng.rs");
include!("../core/tests/golden/dist.rs");

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
    let expected = poisson::key_numbers(&params, &run);
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
