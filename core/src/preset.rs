//! "Try this" presets: one-click lessons. Each sets a panel's parameters
//! (everything it does not name goes back to its default; the seed stays)
//! and says in one sentence what to notice. Each panel lists its own in
//! [`crate::panels`].

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preset {
    /// A stable name, for the page and its tests.
    pub slug: &'static str,
    pub title: &'static str,
    /// What the preset shows, in one sentence.
    pub lesson: &'static str,
    /// The parameters it sets, as a query string of the panel's keys.
    pub query: &'static str,
}
