//! Charts: a canvas drawn at the screen's pixel density and redrawn when its
//! width changes, and one small description of a plot ([`Plot`], a stack of
//! [`Layer`]s over two axes) that every panel's charts are made of.
//!
//! plotters draws in canvas pixels, so a canvas is sized to its CSS width
//! times `devicePixelRatio` and every length (fonts, strokes, margins) is
//! scaled by the same ratio through [`Pen`]. Colours come from the page's
//! CSS variables, so charts follow the light or dark theme.
//!
//! Every chart reads out its values under the pointer or, once focused,
//! at the step the arrow keys move to ([`readout`]), and the charts of a
//! block save as one PNG ([`save_block_png`]).
//!
//! A series of counts longer than the plot is wide in pixels is merged
//! before drawing, keeping each pixel column's highest bin: what the screen
//! could show anyway, at a few thousand path points at most, however many
//! events went into the counts.

use std::cell::Cell;
use std::ops::Range;

use leptos::html;
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use send_wrapper::SendWrapper;
use stampede_core::stats;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use crate::browser;

mod canvas;
mod cells;
mod deferred;
mod export;
mod pen;
mod readout;

pub use cells::Cells;
use deferred::Deferred;
pub use export::save_block_png;
use pen::css_rgb;
pub use pen::{Ink, Pen};
use readout::{Move, Readout};

pub type Area = DrawingArea<canvas::Canvas, Shift>;
type AreaError = DrawingAreaErrorKind<canvas::CanvasError>;
pub type Drawn = Result<(), AreaError>;

/// A canvas that fills its container's width at a CSS height set here, or
/// by the stylesheet (a presenter view), with its readout below it.
#[derive(Clone, Copy)]
pub struct ChartCanvas {
    node: NodeRef<html::Canvas>,
    /// The canvas's CSS width and height in pixels as laid out; 0 until
    /// first measured.
    width: RwSignal<f64>,
    measured_height: RwSignal<f64>,
    /// The CSS height asked for, unless the stylesheet overrides it.
    height: f64,
    readout: Readout,
    deferred: Deferred,
    /// How much larger than written the last drawing's text was, for
    /// drawings that map the pointer through their text's room.
    text_scale: StoredValue<f64>,
    /// What the last drawing showed, and how, for [`Self::draw_unless_drawn`].
    last_drawn: StoredValue<Option<(Look, u64)>>,
}

/// How a drawing looked besides what it showed: its size, pixel ratio,
/// colour scheme and text size.
#[derive(Clone, Copy, PartialEq)]
struct Look {
    css_width: f64,
    css_height: f64,
    ratio: f64,
    dark: bool,
    presenting: bool,
}

thread_local! {
    /// The pixel ratio every chart draws at while a PNG is made, in place
    /// of the screen's. Reference-counted, not owned: whichever chart first
    /// reads it must not take it away when it goes.
    static EXPORT_RATIO: ArcRwSignal<Option<f64>> = ArcRwSignal::new(None);
    /// Whether the page presents (Learn's presenter mode), which draws the
    /// charts inside it with larger text; read by every chart, so that
    /// turning it on or off redraws them.
    static PRESENTING: ArcRwSignal<bool> = ArcRwSignal::new(false);
}

/// Tells the charts whether the page presents; the charts inside the
/// presenting element then draw their text for a room.
pub fn set_presenting(on: bool) {
    PRESENTING.with(|presenting| {
        if presenting.get_untracked() != on {
            presenting.set(on);
        }
    });
}

impl ChartCanvas {
    pub fn new(css_height: f64) -> Self {
        Self {
            node: NodeRef::new(),
            width: RwSignal::new(0.0),
            measured_height: RwSignal::new(0.0),
            height: css_height,
            readout: Readout::new(),
            deferred: Deferred::new(),
            text_scale: StoredValue::new(1.0),
            last_drawn: StoredValue::new(None),
        }
    }

    /// How much larger than written the last drawing's text was.
    pub fn text_scale(self) -> f64 {
        self.text_scale.get_value()
    }

    /// The canvas, the readout's crosshair over it and the readout's text
    /// below. `label` says what the chart shows, for a reader who cannot
    /// see it; the canvas takes focus, and the arrow keys move the readout.
    pub fn view(
        self,
        id: &'static str,
        label: impl Fn() -> String + Send + Sync + 'static,
    ) -> impl IntoView {
        let (width, height) = (self.width, self.measured_height);
        let deferred = self.deferred;
        self.node.on_load(move |canvas| {
            deferred.observe(&canvas);
            let on_resize = Closure::<dyn Fn(js_sys::Array)>::new(move |entries: js_sys::Array| {
                let entry: web_sys::ResizeObserverEntry = entries.get(0).unchecked_into();
                let rect = entry.content_rect();
                let measured = (rect.width().floor(), rect.height().floor());
                // Untracked set-if-changed: an unchanged size must not redraw.
                if (width.get_untracked(), height.get_untracked()) != measured {
                    width.set(measured.0);
                    height.set(measured.1);
                }
            });
            let Ok(observer) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref())
            else {
                return;
            };
            observer.observe(&canvas);
            // The observer and its callback live as long as the chart.
            let kept = SendWrapper::new((observer, on_resize));
            on_cleanup(move || kept.0.disconnect());
        });
        let readout = self.readout;
        let on_key = move |event: leptos::ev::KeyboardEvent| {
            let to = match event.key().as_str() {
                "ArrowRight" => Move::By(1),
                "ArrowLeft" => Move::By(-1),
                "PageDown" => Move::Page(1),
                "PageUp" => Move::Page(-1),
                "Home" => Move::First,
                "End" => Move::Last,
                "ArrowDown" => Move::Frame(1),
                "ArrowUp" => Move::Frame(-1),
                _ => return,
            };
            if readout.press(to) {
                event.prevent_default();
            }
        };
        let marks = move || {
            readout.marks.get().map(|marks| {
                let dots = marks
                    .dots
                    .into_iter()
                    .map(|(x, y, color)| {
                        let style = format!("left:{x:.1}px;top:{y:.1}px;background:{color}");
                        view! { <span class="readout-dot" style=style></span> }
                    })
                    .collect_view();
                let line = format!(
                    "left:{:.1}px;width:{:.1}px;top:{:.1}px;height:{:.1}px",
                    marks.left, marks.width, marks.top, marks.height
                );
                view! {
                    <span class="readout-line" style=line></span>
                    {dots}
                }
            })
        };
        view! {
            <div class="chart">
                <div class="chart-plot">
                    <canvas
                        id=id
                        node_ref=self.node
                        role="img"
                        tabindex="0"
                        aria-label=label
                        aria-describedby=format!("{id}-readout")
                        style=format!("height:{}px", self.height)
                        on:mousemove=move |event| {
                            readout.point(f64::from(event.offset_x()), f64::from(event.offset_y()))
                        }
                        on:mouseleave=move |_| readout.clear()
                        on:focus=move |_| readout.focus()
                        on:blur=move |_| readout.clear()
                        on:keydown=on_key
                    ></canvas>
                    <div class="readout-marks" aria-hidden="true">{marks}</div>
                </div>
                <p id=format!("{id}-readout") class="readout" aria-live="polite">
                    {move || readout.text.get()}
                </p>
            </div>
        }
    }

    /// Draws with `paint` at the canvas's current size, or later if the
    /// canvas is out of view ([`deferred`]). Called inside an effect, it
    /// runs again when the canvas's size changes or it comes into view.
    pub fn draw(self, paint: impl FnOnce(&Area, &Pen) -> Drawn) {
        self.draw_showing(None, paint);
    }

    /// Draws as [`Self::draw`] does, unless the canvas already shows
    /// `shown` (a fingerprint of what `paint` draws) as it would now: for
    /// a costly chart whose effect also redraws others.
    pub fn draw_unless_drawn(self, shown: u64, paint: impl FnOnce(&Area, &Pen) -> Drawn) {
        self.draw_showing(Some(shown), paint);
    }

    fn draw_showing(self, shown: Option<u64>, paint: impl FnOnce(&Area, &Pen) -> Drawn) {
        let (css_width, css_height) = (self.width.get(), self.measured_height.get());
        // Tracked, so that a change of colour scheme or of presenter mode
        // redraws the chart.
        let dark = crate::theme::Scheme::current_is_dark();
        let presenting = PRESENTING.with(|presenting| presenting.get());
        let export_ratio = EXPORT_RATIO.with(|ratio| ratio.get());
        let ratio = export_ratio
            .unwrap_or_else(|| window().device_pixel_ratio())
            .max(1.0);
        let Some(canvas) = self.node.get() else {
            return;
        };
        if css_width <= 0.0 || css_height <= 0.0 {
            return;
        }
        if !self.deferred.should_draw(&canvas, export_ratio.is_some()) {
            return;
        }
        let look = Look {
            css_width,
            css_height,
            ratio,
            dark,
            presenting,
        };
        // Setting a size, even the same one, gives the canvas a new
        // bitmap; the background's fill below clears the old one anyway.
        let (width, height) = (
            (css_width * ratio).round() as u32,
            (css_height * ratio).round() as u32,
        );
        let sized = (canvas.width(), canvas.height()) == (width, height);
        let drawn_as = shown.map(|shown| (look, shown));
        // A canvas of another size is new, or was cleared: it shows nothing.
        if sized && drawn_as.is_some() && self.last_drawn.get_value() == drawn_as {
            return;
        }
        self.last_drawn.set_value(drawn_as);
        if !sized {
            canvas.set_width(width);
            canvas.set_height(height);
        }
        let element: web_sys::HtmlCanvasElement = canvas;
        let text_scale = if presenting {
            pen::presenter_text_scale(&element)
        } else {
            1.0
        };
        self.text_scale.set_value(text_scale);
        let pen = Pen::for_canvas(ratio, dark, &element).with_text_scale(text_scale);
        let Some(backend) = canvas::Canvas::new(element.clone()) else {
            return;
        };
        let area = backend.into_drawing_area();
        readout::start_painting();
        pen::start_text_record();
        let drawn = area.fill(&pen.background).and_then(|()| paint(&area, &pen));
        if let Err(error) = drawn {
            web_sys::console::warn_1(&format!("a chart failed to draw: {error}").into());
        }
        // The size its smallest text was drawn at, for a test to read
        // rather than work out from the code.
        if let Some(smallest) = pen::smallest_text() {
            let _ = element.set_attribute("data-text-px", &format!("{smallest:.1}"));
        }
        self.readout.redrawn(ratio, pen, readout::painted());
    }
}

thread_local! {
    /// When the last change to the parameters was made, for the next redraw
    /// to measure how long the whole update took.
    static CHANGED_AT: Cell<Option<f64>> = const { Cell::new(None) };
}

/// Marks the moment the reader changes a parameter (a control, a preset,
/// Back): called where the input is handled, so that the store knows
/// nothing of timing and the time runs from the reader's change to the
/// last chart drawn.
pub fn mark_change() {
    CHANGED_AT.set(Some(browser::now_ms()));
}

/// Runs `draw_all` now and after every change it depends on, then records
/// on the element with id `figure` how long the update took, from the change
/// through the recompute to the last chart drawn: `data-update-ms`, and
/// `data-updates` counting them.
pub fn redraw_on_change(figure: &'static str, draw_all: impl Fn() + 'static) {
    Effect::new(move |_| {
        draw_all();
        let Some(changed) = CHANGED_AT.take() else {
            return;
        };
        let elapsed = browser::now_ms() - changed;
        if let Some(element) = document().get_element_by_id(figure) {
            let updates = element
                .get_attribute("data-updates")
                .and_then(|n| n.parse::<u32>().ok())
                .unwrap_or(0);
            let _ = element.set_attribute("data-update-ms", &format!("{elapsed:.2}"));
            let _ = element.set_attribute("data-updates", &(updates + 1).to_string());
        }
    });
}

/// One thing drawn on a plot.
#[derive(Clone, Debug, PartialEq)]
pub enum Layer {
    /// Counts of equal bins `width` wide starting at `start`, as a filled
    /// step outline.
    Bars {
        start: f64,
        width: f64,
        heights: Vec<f64>,
        ink: Ink,
        label: Option<String>,
    },
    /// A polyline through `points`.
    Line {
        points: Vec<(f64, f64)>,
        ink: Ink,
        dashed: bool,
        label: Option<String>,
    },
    /// A shaded range: (x, low, high) for each x.
    Band {
        points: Vec<(f64, f64, f64)>,
        ink: Ink,
        label: Option<String>,
    },
    /// A shaded stretch of x, such as a window, behind everything else.
    Span { from: f64, to: f64, label: String },
    /// A vertical mark at `x`, named at the top.
    Mark { x: f64, ink: Ink, label: String },
    /// A horizontal level, named at its right end.
    Level { y: f64, ink: Ink, label: String },
}

/// A plot: two linear axes, how their ticks read, and the layers in order.
#[derive(Clone)]
pub struct Plot {
    pub x: Range<f64>,
    pub y: Range<f64>,
    pub x_desc: String,
    pub y_desc: String,
    pub x_tick: fn(f64) -> String,
    pub y_tick: fn(f64) -> String,
    pub layers: Vec<Layer>,
}

/// Tick text for plain numbers: whole numbers with separators, else three
/// significant digits.
pub fn number_tick(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        stampede_core::units::count(value.abs() as u64)
    } else {
        stampede_core::units::significant(value, 3)
    }
}

/// Tick text for seconds: "30 s", "5 min", "2 h".
pub fn duration_tick(seconds: f64) -> String {
    stampede_core::units::duration(seconds)
}

/// A linear axis with ticks chosen here rather than by plotters, so they
/// fall on round times as well as round numbers.
struct Axis {
    range: Range<f64>,
    ticks: Vec<f64>,
}

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, (low, high): (i32, i32)) -> i32 {
        let share = (value - self.range.start) / (self.range.end - self.range.start);
        low + (share * f64::from(high - low)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // Grid lines only at the labelled ticks.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

/// Steps tried for tick marks: 1, 2 and 5 times a power of ten, and the
/// steps clocks and calendars count in.
const TICK_STEPS: [f64; 20] = [
    15.0,
    30.0,
    60.0,
    120.0,
    300.0,
    600.0,
    900.0,
    1800.0,
    3600.0,
    7200.0,
    10_800.0,
    21_600.0,
    43_200.0,
    86_400.0,
    172_800.0,
    604_800.0,
    1_209_600.0,
    2_592_000.0,
    3.0,
    6.0,
];

/// Tick positions for `range` that read best through `text`, at most
/// `most` of them (2 to 7, as the plot's size allows). Plain numbers step
/// by 1, 2 or 5 times a power of ten, as near five ticks as fit. Times
/// (labels with units or a clock) may also step by clock units, and the
/// step with the shortest labels wins ("10 min" beats "8 min 20 s"), then
/// one with a tick on the range's end (every 6 h beats every 5 h on a
/// day), then the one nearest five ticks.
pub fn nice_ticks(range: &Range<f64>, text: fn(f64) -> String, most: usize) -> Vec<f64> {
    let most = most.clamp(2, 7);
    let ideal = most.min(5);
    let span = range.end - range.start;
    if !(span.is_finite() && span > 0.0) {
        return vec![range.start];
    }
    let middle = text(range.start + span / 2.0);
    let time = !middle
        .chars()
        .all(|c| c.is_ascii_digit() || ",.−-".contains(c));
    let decade = 10f64.powf(span.log10().floor() - 1.0);
    let decimal = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0].map(|m| m * decade);
    let positions = |step: f64| {
        let first = (range.start / step).ceil() as i64;
        let last = (range.end / step + 1e-9).floor() as i64;
        (first..=last).map(move |k| k as f64 * step)
    };
    let cost = |step: f64| {
        let ticks: Vec<f64> = positions(step).collect();
        let count = ticks.len();
        if !(2.max(most.min(3))..=most).contains(&count) {
            return None;
        }
        let letters: usize = ticks.iter().map(|&tick| text(tick).chars().count()).sum();
        let ends_on_tick = ((range.end / step).round() * step - range.end).abs() < step * 1e-9;
        let average = letters * 100 / count;
        Some(if time {
            (average, !ends_on_tick, count.abs_diff(ideal))
        } else {
            (count.abs_diff(ideal), !ends_on_tick, average)
        })
    };
    let clock_steps = if time { &TICK_STEPS[..] } else { &[] };
    decimal
        .into_iter()
        .chain(clock_steps.iter().copied())
        .filter_map(|step| cost(step).map(|cost| (cost, step)))
        .min_by(|a, b| a.0.cmp(&b.0))
        .map_or_else(
            || vec![range.start, range.end],
            |(_, step)| positions(step).collect(),
        )
}

impl Plot {
    /// Draws the plot to fill `area`, with a legend above it when two or
    /// more layers are named.
    pub fn draw(&self, area: &Area, pen: &Pen) -> Drawn {
        let label_width = self.y_label_width(area, pen)?;
        self.draw_with(area, pen, label_width)
    }

    /// The x and y ranges, made non-empty.
    fn ranges(&self) -> (Range<f64>, Range<f64>) {
        let x = self.x.start..self.x.end.max(self.x.start + f64::EPSILON);
        let y = self.y.start..self.y.end.max(self.y.start + 1.0);
        (x, y)
    }

    /// Room left of the plot for the widest y tick label, the tick and the
    /// axis title.
    fn y_label_width(&self, area: &Area, pen: &Pen) -> Result<u32, AreaError> {
        let (_, y) = self.ranges();
        let style = pen.text(11.0, pen.muted);
        let mut widest = 0;
        for tick in nice_ticks(&y, self.y_tick, y_tick_room(area, pen)) {
            widest = widest.max(area.estimate_text_size(&(self.y_tick)(tick), &style)?.0);
        }
        Ok(widest + pen.text_room(30.0))
    }

    fn draw_with(&self, area: &Area, pen: &Pen, label_width: u32) -> Drawn {
        let named: Vec<(&str, RGBColor)> = self
            .layers
            .iter()
            .filter_map(|layer| match layer {
                Layer::Bars { label, ink, .. }
                | Layer::Line { label, ink, .. }
                | Layer::Band { label, ink, .. } => label.as_deref().map(|l| (l, pen.ink(*ink))),
                Layer::Span { .. } | Layer::Mark { .. } | Layer::Level { .. } => None,
            })
            .collect();
        if named.len() < 2 {
            return self.draw_axes_and_layers(area, pen, label_width);
        }
        let legend_height = legend(area, pen, &named, label_width, false)?;
        let (top, plot) = area.split_vertically(legend_height);
        legend(&top, pen, &named, label_width, true)?;
        self.draw_axes_and_layers(&plot, pen, label_width)
    }

    fn draw_axes_and_layers(&self, area: &Area, pen: &Pen, label_width: u32) -> Drawn {
        let (x, y) = self.ranges();
        // Labels need room: about 70 px apart across, 30 px up the side.
        let x_ticks = nice_ticks(
            &x,
            self.x_tick,
            (area.dim_in_pixel().0 / pen.text_room(70.0).max(1)) as usize,
        );
        let y_ticks = nice_ticks(&y, self.y_tick, y_tick_room(area, pen));
        let tick_style = pen.text(11.0, pen.muted);
        let mut chart = ChartBuilder::on(area)
            .margin(pen.px(8.0))
            .margin_right(pen.text_room(16.0))
            .x_label_area_size(pen.text_room(38.0))
            .y_label_area_size(label_width)
            .build_cartesian_2d(
                Axis {
                    range: x.clone(),
                    ticks: x_ticks,
                },
                Axis {
                    range: y.clone(),
                    ticks: y_ticks,
                },
            )?;
        let x_tick = |v: &f64| (self.x_tick)(*v);
        let y_tick = |v: &f64| (self.y_tick)(*v);
        let columns = chart.plotting_area().dim_in_pixel().0.max(1) as usize;
        chart
            .configure_mesh()
            .x_desc(self.x_desc.as_str())
            .y_desc(self.y_desc.as_str())
            .x_label_formatter(&x_tick)
            .y_label_formatter(&y_tick)
            .label_style(tick_style.clone())
            .axis_desc_style(pen.text(12.0, pen.foreground))
            .axis_style(pen.line(pen.muted, 1.0))
            .bold_line_style(pen.line(pen.grid, 1.0))
            .light_line_style(TRANSPARENT)
            .set_all_tick_mark_size(pen.px(4.0))
            .draw()?;

        for layer in &self.layers {
            draw_layer(&mut chart, area, pen, layer, (&x, &y), columns)?;
        }
        let (columns, rows) = chart.plotting_area().get_pixel_range();
        readout::record(readout::Frame {
            columns,
            rows,
            x,
            y,
            plot: self.clone(),
        });
        Ok(())
    }
}

/// The chart of one plot: its two axes over canvas pixels.
type Chart<'a> = ChartContext<'a, canvas::Canvas, Cartesian2d<Axis, Axis>>;

/// Draws `layer` on `chart` over the ranges `x` and `y`, bars merged to
/// the plot's `columns`; the names of marks and levels go on `area`,
/// where they may reach past the plot.
fn draw_layer(
    chart: &mut Chart<'_>,
    area: &Area,
    pen: &Pen,
    layer: &Layer,
    (x, y): (&Range<f64>, &Range<f64>),
    columns: usize,
) -> Drawn {
    match layer {
        Layer::Span { from, to, .. } => {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(from.max(x.start), y.start), (to.min(x.end), y.end)],
                pen.grid.mix(0.45).filled(),
            )))?;
        }
        Layer::Bars {
            start,
            width,
            heights,
            ink,
            ..
        } => {
            let color = pen.ink(*ink);
            let outline = step_outline(*start, *width, heights, columns);
            // Opaque, so stacked bars keep their own colours.
            let fill = pen.tint(color, 0.35);
            chart.draw_series(
                AreaSeries::new(outline, y.start, fill.filled()).border_style(pen.line(color, 1.0)),
            )?;
        }
        Layer::Line {
            points,
            ink,
            dashed,
            ..
        } => {
            let style = pen.line(pen.ink(*ink), 2.0);
            if *dashed {
                chart.draw_series(DashedLineSeries::new(
                    points.iter().copied(),
                    pen.px(6.0),
                    pen.px(4.0),
                    style,
                ))?;
            } else {
                chart.draw_series(LineSeries::new(points.iter().copied(), style))?;
            }
        }
        Layer::Band { points, ink, .. } => {
            chart.draw_series(std::iter::once(Polygon::new(
                band_outline(points),
                pen.ink(*ink).mix(0.2).filled(),
            )))?;
        }
        Layer::Mark { x: at, ink, label } => {
            let color = pen.ink(*ink);
            chart.draw_series(DashedLineSeries::new(
                [(*at, y.start), (*at, y.end)],
                pen.px(4.0),
                pen.px(3.0),
                pen.line(color, 1.5),
            ))?;
            let (px, py) = chart.backend_coord(&(*at, y.end));
            let anchor = (px + pen.px(3.0) as i32, py + pen.px(2.0) as i32);
            tag(
                area,
                pen,
                label,
                anchor,
                color,
                Pos::new(HPos::Left, VPos::Top),
            )?;
        }
        Layer::Level { y: at, ink, label } => {
            let color = pen.ink(*ink);
            chart.draw_series(DashedLineSeries::new(
                [(x.start, *at), (x.end, *at)],
                pen.px(6.0),
                pen.px(4.0),
                pen.line(color, 1.5),
            ))?;
            let (px, py) = chart.backend_coord(&(x.end, *at));
            let anchor = (px - pen.px(2.0) as i32, py - pen.px(2.0) as i32);
            tag(
                area,
                pen,
                label,
                anchor,
                color,
                Pos::new(HPos::Right, VPos::Bottom),
            )?;
        }
    }
    Ok(())
}

/// A band's outline: along its highs, then back along its lows.
fn band_outline(points: &[(f64, f64, f64)]) -> Vec<(f64, f64)> {
    points
        .iter()
        .map(|&(x, _, high)| (x, high))
        .chain(points.iter().rev().map(|&(x, low, _)| (x, low)))
        .collect()
}

/// How many y ticks fit the plot's height in `area`, 30 CSS px apart.
fn y_tick_room(area: &Area, pen: &Pen) -> usize {
    let plot_height = area.dim_in_pixel().1.saturating_sub(pen.text_room(46.0));
    (plot_height / pen.text_room(30.0).max(1)) as usize + 1
}

/// Plots stacked top to bottom in equal parts of `area`, their plotting
/// areas aligned so that shared x values line up.
pub fn draw_stacked(area: &Area, pen: &Pen, plots: &[Plot]) -> Drawn {
    let mut label_width = 0;
    for plot in plots {
        label_width = label_width.max(plot.y_label_width(area, pen)?);
    }
    let parts = area.split_evenly((plots.len().max(1), 1));
    for (plot, part) in plots.iter().zip(&parts) {
        plot.draw_with(part, pen, label_width)?;
    }
    Ok(())
}

/// Text on a translucent plate of the background colour, so a label stays
/// readable over bars and grid lines.
pub(crate) fn tag(
    area: &Area,
    pen: &Pen,
    label: &str,
    (x, y): (i32, i32),
    color: RGBColor,
    pos: Pos,
) -> Drawn {
    let style = pen.text(11.0, color).pos(pos);
    let (w, h) = area.estimate_text_size(label, &style)?;
    let (w, h) = (w as i32, h as i32);
    let left = match pos.h_pos {
        HPos::Left => x,
        HPos::Center => x - w / 2,
        HPos::Right => x - w,
    };
    let top = match pos.v_pos {
        VPos::Top => y,
        VPos::Center => y - h / 2,
        VPos::Bottom => y - h,
    };
    let pad = pen.px(2.0) as i32;
    area.draw(&Rectangle::new(
        [(left - pad, top - pad), (left + w + pad, top + h + pad)],
        pen.background.mix(0.85).filled(),
    ))?;
    area.draw(&Text::new(label.to_string(), (x, y), style))
}

/// Lays out a legend, a swatch and a name per series, in rows across the
/// width of `area` from `left`, where the plot starts. Returns the height
/// it takes; draws it when `draw`.
fn legend(
    area: &Area,
    pen: &Pen,
    named: &[(&str, RGBColor)],
    left: u32,
    draw: bool,
) -> Result<u32, AreaError> {
    let style = pen
        .text(11.0, pen.foreground)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let (width, _) = area.dim_in_pixel();
    let (swatch, gap, row) = (
        pen.text_room(14.0),
        pen.text_room(16.0),
        pen.text_room(18.0),
    );
    let (mut x, mut y) = (left, 0);
    for (name, color) in named {
        let (text, _) = area.estimate_text_size(name, &style)?;
        let item = swatch + pen.px(4.0) + text;
        if x > left && x + item > width {
            (x, y) = (left, y + row);
        }
        if draw {
            let middle = (y + row / 2) as i32;
            let thick = pen.px(4.0) as i32;
            area.draw(&Rectangle::new(
                [
                    (x as i32, middle - thick / 2),
                    ((x + swatch) as i32, middle + thick / 2),
                ],
                color.filled(),
            ))?;
            area.draw(&Text::new(
                name.to_string(),
                ((x + swatch + pen.px(4.0)) as i32, middle),
                style.clone(),
            ))?;
        }
        x += item + gap;
    }
    Ok(y + row + pen.px(2.0))
}

/// The outline of bars `width` wide from `start`, merged to at most two
/// bins per pixel column.
fn step_outline(start: f64, width: f64, heights: &[f64], columns: usize) -> Vec<(f64, f64)> {
    let (group, merged) = stats::max_per_group(heights, columns * 2);
    let merged_width = width * group as f64;
    let end = start + width * heights.len() as f64;
    let mut outline = Vec::with_capacity(2 * merged.len());
    for (index, high) in merged.into_iter().enumerate() {
        let left = start + index as f64 * merged_width;
        outline.push((left, high));
        outline.push(((left + merged_width).min(end), high));
    }
    outline
}
