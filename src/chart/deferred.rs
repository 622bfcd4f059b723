//! Charts out of view wait: while a reader drags a slider or a run plays,
//! only the charts on screen are redrawn.
//!
//! A chart skipped that way is drawn as it scrolls into view (an
//! IntersectionObserver, with a margin so that it is usually ready
//! before it shows), or once the page has had no skipped draw for
//! [`CATCH_UP`], so a print, a saved page or a full-page capture shows it
//! current. Meanwhile its canvas carries `data-stale`, for tests to wait on.

use std::cell::RefCell;
use std::time::Duration;

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::HtmlCanvasElement;

use crate::browser;

/// How long after the last skipped draw the charts out of view catch up:
/// longer than the gap between two steps of a drag or two frames of a run
/// playing, short enough that a reader who scrolls down finds them drawn.
const CATCH_UP: Duration = Duration::from_millis(250);

/// How far beyond the viewport a chart counts as in view.
const VIEW_MARGIN: &str = "200px 0px";

#[derive(Clone, Copy, Default)]
struct Visibility {
    on_screen: bool,
    /// A draw was skipped; the canvas shows an older picture, or none.
    stale: bool,
    /// The next draw goes ahead on screen or not.
    catching_up: bool,
}

/// Whether one chart is in view, and the trigger that redraws it.
#[derive(Clone, Copy)]
pub(super) struct Deferred {
    visibility: StoredValue<Visibility>,
    wake: Trigger,
}

/// The charts skipped since the last catch-up, when the last was, and
/// whether a catch-up is set to come.
#[derive(Default)]
struct Pending {
    charts: Vec<Deferred>,
    last_skip_ms: f64,
    timer_set: bool,
}

thread_local! {
    static PENDING: RefCell<Pending> = RefCell::default();
}

impl Deferred {
    /// A chart counts as on screen until the observer says otherwise, so
    /// the first draw never waits for it.
    pub(super) fn new() -> Self {
        Self {
            visibility: StoredValue::new(Visibility {
                on_screen: true,
                ..Visibility::default()
            }),
            wake: Trigger::new(),
        }
    }

    /// Follows whether `canvas` is in view, for as long as the chart lives.
    pub(super) fn observe(self, canvas: &HtmlCanvasElement) {
        let on_change = Closure::<dyn Fn(js_sys::Array)>::new(move |entries: js_sys::Array| {
            for entry in entries.iter() {
                let entry: web_sys::IntersectionObserverEntry = entry.unchecked_into();
                self.seen(entry.is_intersecting());
            }
        });
        let options = web_sys::IntersectionObserverInit::new();
        options.set_root_margin(VIEW_MARGIN);
        let Ok(observer) = web_sys::IntersectionObserver::new_with_options(
            on_change.as_ref().unchecked_ref(),
            &options,
        ) else {
            return;
        };
        observer.observe(canvas);
        let kept = SendWrapper::new((observer, on_change));
        on_cleanup(move || kept.0.disconnect());
    }

    fn seen(self, on_screen: bool) {
        let was_stale = self
            .visibility
            .try_update_value(|v| {
                v.on_screen = on_screen;
                v.stale
            })
            .unwrap_or(false);
        if on_screen && was_stale {
            self.wake.notify();
        }
    }

    /// Whether a draw of `canvas` goes ahead now: on screen, catching up,
    /// or `forced`. Otherwise it is skipped and the catch-up is put off
    /// again. Called inside the drawing effect, which it subscribes to the
    /// chart coming into view.
    pub(super) fn should_draw(self, canvas: &HtmlCanvasElement, forced: bool) -> bool {
        self.wake.track();
        let Some(visibility) = self.visibility.try_get_value() else {
            return false;
        };
        if visibility.on_screen || visibility.catching_up || forced {
            if visibility.stale {
                let _ = canvas.remove_attribute("data-stale");
            }
            self.visibility.set_value(Visibility {
                stale: false,
                catching_up: false,
                ..visibility
            });
            return true;
        }
        let newly_stale = !visibility.stale;
        if newly_stale {
            let _ = canvas.set_attribute("data-stale", "");
            self.visibility.set_value(Visibility {
                stale: true,
                ..visibility
            });
        }
        put_off_catch_up(newly_stale.then_some(self));
        false
    }
}

/// Puts the catch-up off to [`CATCH_UP`] from now, adding `chart` to
/// those it draws. One timer serves a whole drag: when it fires early, it
/// sets itself again for the rest.
fn put_off_catch_up(chart: Option<Deferred>) {
    let set_timer = PENDING.with_borrow_mut(|pending| {
        pending.charts.extend(chart);
        pending.last_skip_ms = browser::now_ms();
        !std::mem::replace(&mut pending.timer_set, true)
    });
    if set_timer {
        set_timeout(catch_up_when_quiet, CATCH_UP);
    }
}

fn catch_up_when_quiet() {
    let quiet_ms = PENDING.with_borrow(|pending| browser::now_ms() - pending.last_skip_ms);
    let wait_ms = CATCH_UP.as_secs_f64() * 1e3 - quiet_ms;
    if wait_ms > 0.0 {
        set_timeout(catch_up_when_quiet, Duration::from_secs_f64(wait_ms / 1e3));
        return;
    }
    let charts = PENDING.with_borrow_mut(|pending| {
        pending.timer_set = false;
        std::mem::take(&mut pending.charts)
    });
    for chart in charts {
        let stale = chart
            .visibility
            .try_update_value(|v| {
                v.catching_up = v.stale;
                v.stale
            })
            .unwrap_or(false);
        if stale {
            chart.wake.notify();
        }
    }
}
