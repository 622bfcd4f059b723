//! Charts out of view wait: a panel's first picture, a drag of a slider and
//! a run playing draw only the charts on screen.
//!
//! A chart skipped that way is drawn as it scrolls into view (an
//! IntersectionObserver, with a margin so that it is usually ready
//! before it shows), or once the page has had no skipped draw for
//! [`CATCH_UP`], so a print, a saved page or a full-page capture shows it
//! current. Meanwhile its canvas carries `data-stale`, for tests to wait on.
//!
//! A catch-up lets every chart draw until the effects it wakes have run:
//! an effect that draws several charts redraws them all, and one still out
//! of view must not be skipped then, or the two would wake each other
//! without end.

use std::cell::{Cell, RefCell};
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

/// How far above or below the viewport a chart counts as in view, CSS pixels.
const VIEW_MARGIN_PX: f64 = 200.0;

#[derive(Clone, Copy, Default)]
struct Visibility {
    /// As the observer last reported; until it first does, the canvas's
    /// place is measured at each draw.
    on_screen: Option<bool>,
    /// A draw was skipped; the canvas shows an older picture, or none.
    stale: bool,
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
    /// Every draw goes ahead: set by a catch-up until the next task.
    static CATCHING_UP: Cell<bool> = const { Cell::new(false) };
}

impl Deferred {
    pub(super) fn new() -> Self {
        Self {
            visibility: StoredValue::new(Visibility::default()),
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
        options.set_root_margin(&format!("{VIEW_MARGIN_PX}px 0px"));
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
                v.on_screen = Some(on_screen);
                v.stale
            })
            .unwrap_or(false);
        if on_screen && was_stale {
            catch_up();
        }
    }

    /// Whether a draw of `canvas` goes ahead now: on screen, during a
    /// catch-up, or `forced`. Otherwise it is skipped and the catch-up put
    /// off again. Called inside the drawing effect, which it subscribes to
    /// the chart coming into view.
    pub(super) fn should_draw(self, canvas: &HtmlCanvasElement, forced: bool) -> bool {
        self.wake.track();
        let Some(visibility) = self.visibility.try_get_value() else {
            return false;
        };
        let on_screen = visibility.on_screen.unwrap_or_else(|| in_view_now(canvas));
        if on_screen || CATCHING_UP.get() || forced {
            if visibility.stale {
                let _ = canvas.remove_attribute("data-stale");
                self.visibility.set_value(Visibility {
                    stale: false,
                    ..visibility
                });
            }
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

/// Whether `canvas` is within [`VIEW_MARGIN_PX`] of the viewport now, for
/// a draw before the observer's first report: a page's first picture
/// draws the charts in view, not every chart of the panel. A canvas not yet
/// in the document counts as in view.
fn in_view_now(canvas: &HtmlCanvasElement) -> bool {
    if !canvas.is_connected() {
        return true;
    }
    let rect = canvas.get_bounding_client_rect();
    let height = window()
        .inner_height()
        .ok()
        .and_then(|h| h.as_f64())
        .unwrap_or(f64::INFINITY);
    rect.bottom() > -VIEW_MARGIN_PX && rect.top() < height + VIEW_MARGIN_PX
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
    PENDING.with_borrow_mut(|pending| pending.timer_set = false);
    catch_up();
}

/// Wakes every chart skipped since the last catch-up, and lets every draw
/// go ahead until the effects have run, which is before the next task.
fn catch_up() {
    let charts = PENDING.with_borrow_mut(|pending| std::mem::take(&mut pending.charts));
    CATCHING_UP.set(true);
    for chart in charts {
        if chart
            .visibility
            .try_get_value()
            .is_some_and(|visibility| visibility.stale)
        {
            chart.wake.notify();
        }
    }
    set_timeout(|| CATCHING_UP.set(false), Duration::ZERO);
}
