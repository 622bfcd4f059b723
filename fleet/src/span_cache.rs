//! What a plan computes once for a span of time and its redrawn copies
//! share: a scheduler's calendar times do not depend on the seed its
//! delays are drawn from, so the 20 draws of [`crate::chance`] look them
//! up instead of searching the calendar 20 times.
//!
//! ```
//! use stampede_fleet::span_cache::SpanCache;
//!
//! let cache = SpanCache::default();
//! let shared = cache.clone();
//! assert_eq!(*cache.get((0, 60), || vec![1, 2]), vec![1, 2]);
//! // The copy finds the times for the same span...
//! assert_eq!(*shared.get((0, 60), || unreachable!()), vec![1, 2]);
//! // ...and computes those of another span without keeping them.
//! assert_eq!(*shared.get((0, 90), || vec![3]), vec![3]);
//! ```

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

/// A value computed for one span, `(from, end)`, shared by clones. The
/// first span asked for is kept; another span's value is computed each
/// time. It is equal to any other cache: it never changes what a plan is.
#[derive(Clone, Debug)]
pub struct SpanCache<T>(Arc<OnceLock<((i64, i64), T)>>);

impl<T> Default for SpanCache<T> {
    fn default() -> Self {
        Self(Arc::default())
    }
}

impl<T: Clone> SpanCache<T> {
    /// The value for `span`: the one kept, when it was computed for that
    /// span, else `compute`'s.
    pub fn get(&self, span: (i64, i64), compute: impl FnOnce() -> T) -> Cow<'_, T> {
        match self.0.get() {
            Some((kept, value)) if *kept == span => Cow::Borrowed(value),
            Some(_) => Cow::Owned(compute()),
            None => Cow::Borrowed(&self.0.get_or_init(|| (span, compute())).1),
        }
    }
}

impl<T> PartialEq for SpanCache<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> Eq for SpanCache<T> {}
