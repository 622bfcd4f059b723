//! The Stampede web app: a Leptos shell around `stampede-core`.
//!
//! Data flows one way: the URL is decoded by core into a validated
//! [`State`](stampede_core::panels::State), panels draw what core computes
//! from it, and controls write back through the same core codec. This crate
//! only wires and draws; every number comes from core.

mod app;
mod browser;
mod chart;
mod controls;
pub mod fleet_worker;
mod learn;
mod messages;
mod notices;
mod panels;
mod playback;
mod share;
mod step_shown;
mod store;
mod theme;
pub mod worker;

pub use app::App;
pub use browser::show_error_banner;

/// Entry point of the bundle: report panics on the page, then mount the app
/// in place of the skeleton index.html shows until now, once the opening
/// panel's code is in. The page then goes from the skeleton to the panel
/// with its figures in one layout, instead of first laying out the app
/// without them.
pub fn start() {
    browser::report_panics_on_page();
    let (opening, _) = stampede_core::panels::State::from_page_query(&browser::query());
    wasm_bindgen_futures::spawn_local(async move {
        panels::load(opening.panel).await;
        leptos::mount::mount_to_body(App);
        browser::remove_skeleton();
        browser::end_opening();
    });
}
