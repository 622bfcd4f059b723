//! The messages between the page and its two workers, one enum each way
//! per worker. Each worker's binary takes its file by `#[path]`, so page
//! and worker share one definition without the worker linking the app.

pub mod fleet;
pub mod queue;
