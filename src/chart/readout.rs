//! Readouts: what a chart shows at one x, read back from its plots.
//!
//! Drawing a [`Plot`] records its plotting area's pixel rectangle with the
//! plot itself ([`record`]); the chart keeps the frames of its last draw. A
//! pointer over the chart or the arrow keys on it pick a frame and a step
//! of its x grid (the bins or points of its densest layer), and the
//! readout names each series' value there through the plot's own tick
//! formatters. The crosshair is a few positioned elements over the canvas,
//! so moving it never redraws the plot.

use std::cell::RefCell;
use std::ops::Range;

use super::{Layer, Pen, Plot, css_rgb};
use leptos::prelude::*;

/// One plot as drawn: its plotting area in canvas pixels and its ranges.
pub struct Frame {
    pub(super) columns: Range<i32>,
    pub(super) rows: Range<i32>,
    pub(super) x: Range<f64>,
    pub(super) y: Range<f64>,
    pub(super) plot: Plot,
}

thread_local! {
    /// The frames of the canvas being painted, in drawing order.
    static PAINTING: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
}

/// Notes a plot just drawn on the canvas being painted.
pub(super) fn record(frame: Frame) {
    PAINTING.with_borrow_mut(|frames| frames.push(frame));
}

/// Forgets what an earlier paint left unclaimed.
pub(super) fn start_painting() {
    PAINTING.with_borrow_mut(Vec::clear);
}

/// The frames of the paint that just ended.
pub(super) fn painted() -> Vec<Frame> {
    PAINTING.take()
}

/// Where a frame's x grid steps: equal bins, or the x of each point.
enum Steps {
    Bins {
        start: f64,
        width: f64,
        count: usize,
    },
    Points(Vec<f64>),
}

impl Steps {
    /// The grid of the layer with the most bins or points.
    fn of(plot: &Plot) -> Option<Steps> {
        plot.layers
            .iter()
            .filter_map(|layer| match layer {
                Layer::Bars {
                    start,
                    width,
                    heights,
                    ..
                } if !heights.is_empty() => Some(Steps::Bins {
                    start: *start,
                    width: *width,
                    count: heights.len(),
                }),
                // Two points are a reference line, not data.
                Layer::Line { points, .. } if points.len() > 2 => {
                    Some(Steps::Points(distinct(points.iter().map(|p| p.0))))
                }
                Layer::Band { points, .. } if !points.is_empty() => {
                    Some(Steps::Points(distinct(points.iter().map(|p| p.0))))
                }
                _ => None,
            })
            .max_by_key(Steps::len)
    }

    fn len(&self) -> usize {
        match self {
            Steps::Bins { count, .. } => *count,
            Steps::Points(xs) => xs.len(),
        }
    }

    /// The x of step `index`: a bin's middle, or a point's x.
    fn x(&self, index: usize) -> f64 {
        match self {
            Steps::Bins { start, width, .. } => start + (index as f64 + 0.5) * width,
            Steps::Points(xs) => xs[index],
        }
    }

    /// The bin of step `index`, if the grid is one of bins.
    fn bin(&self, index: usize) -> Option<Range<f64>> {
        match self {
            Steps::Bins { start, width, .. } => {
                let left = start + index as f64 * width;
                Some(left..left + width)
            }
            Steps::Points(_) => None,
        }
    }

    /// The step nearest `x`.
    fn nearest(&self, x: f64) -> usize {
        let last = self.len().saturating_sub(1);
        match self {
            Steps::Bins { start, width, .. } => {
                (((x - start) / width).floor().max(0.0) as usize).min(last)
            }
            Steps::Points(xs) => {
                let after = xs.partition_point(|&p| p < x).min(last);
                if after > 0 && x - xs[after - 1] < xs[after] - x {
                    after - 1
                } else {
                    after
                }
            }
        }
    }
}

/// The x values in order, each once (step lines repeat each corner's x).
fn distinct(xs: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut xs: Vec<f64> = xs.filter(|x| x.is_finite()).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    xs
}

/// A layer's value at `x`: a bar's height, or a line or band's top read
/// between its points. None off its ends, and for lines that only mark an x.
fn value_at(layer: &Layer, x: f64) -> Option<f64> {
    match layer {
        Layer::Bars {
            start,
            width,
            heights,
            ..
        } => {
            let bin = ((x - start) / width).floor();
            (bin >= 0.0)
                .then(|| heights.get(bin as usize).copied())
                .flatten()
        }
        Layer::Line { points, .. } => interpolate(points.len(), |i| points[i], x),
        Layer::Band { points, .. } => interpolate(points.len(), |i| (points[i].0, points[i].2), x),
        Layer::Span { .. } | Layer::Mark { .. } | Layer::Level { .. } => None,
    }
}

/// The polyline through `len` points in x order, read at `x`.
fn interpolate(len: usize, point: impl Fn(usize) -> (f64, f64), x: f64) -> Option<f64> {
    if len < 2 {
        return None;
    }
    let (first, last) = (point(0).0, point(len - 1).0);
    if first == last || !(first..=last).contains(&x) {
        return None;
    }
    // The first point right of x, by bisection; point 0 is not.
    let (mut low, mut high) = (1, len - 1);
    while low < high {
        let middle = (low + high) / 2;
        if point(middle).0 <= x {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    let ((x0, y0), (x1, y1)) = (point(low - 1), point(low));
    Some(if x1 > x0 {
        y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    } else {
        y1
    })
}

/// Where the reader is: a frame, and a step of its x grid.
#[derive(Clone, Copy, PartialEq)]
struct Cursor {
    frame: usize,
    step: usize,
}

/// The crosshair in CSS pixels over the canvas: the line (or the bin) and
/// a dot on each series.
#[derive(Clone, PartialEq)]
pub struct Marks {
    pub left: f64,
    pub width: f64,
    pub top: f64,
    pub height: f64,
    pub dots: Vec<(f64, f64, String)>,
}

/// A chart's readout: the frames of its last draw, where the reader is,
/// and what it reads there.
#[derive(Clone, Copy)]
pub struct Readout {
    frames: StoredValue<Vec<Frame>, LocalStorage>,
    /// The canvas's device pixels per CSS pixel and the pen, as drawn.
    drawn: StoredValue<Option<(f64, Pen)>, LocalStorage>,
    cursor: StoredValue<Option<Cursor>>,
    pub text: RwSignal<String>,
    pub marks: RwSignal<Option<Marks>>,
}

/// A key that moves the readout, and where to.
pub enum Move {
    By(isize),
    /// A tenth of the steps, forwards (1) or back (-1).
    Page(isize),
    First,
    Last,
    /// To the plot above (-1) or below (1) in a stack.
    Frame(isize),
}

impl Readout {
    pub fn new() -> Self {
        Self {
            frames: StoredValue::new_local(Vec::new()),
            drawn: StoredValue::new_local(None),
            cursor: StoredValue::new(None),
            text: RwSignal::new(String::new()),
            marks: RwSignal::new(None),
        }
    }

    /// Keeps what was just drawn, and reads it again where the reader is.
    pub(super) fn redrawn(self, ratio: f64, pen: Pen, frames: Vec<Frame>) {
        self.frames.set_value(frames);
        self.drawn.set_value(Some((ratio, pen)));
        if self.cursor.get_value().is_some() {
            self.show();
        }
    }

    /// Points at the step nearest `x`, `y` CSS pixels into the canvas.
    pub fn point(self, x: f64, y: f64) {
        let Some((ratio, _)) = self.drawn.get_value() else {
            return;
        };
        let (x, y) = (x * ratio, y * ratio);
        let cursor = self.frames.with_value(|frames| {
            let distance = |frame: &Frame| {
                if frame.rows.contains(&(y as i32)) {
                    0.0
                } else {
                    (f64::from(frame.rows.start) - y)
                        .abs()
                        .min((f64::from(frame.rows.end) - y).abs())
                }
            };
            let (index, frame) = frames
                .iter()
                .enumerate()
                .min_by(|a, b| distance(a.1).total_cmp(&distance(b.1)))?;
            let steps = Steps::of(&frame.plot)?;
            let share = (x - f64::from(frame.columns.start))
                / f64::from((frame.columns.end - frame.columns.start).max(1));
            let value = frame.x.start + share.clamp(0.0, 1.0) * (frame.x.end - frame.x.start);
            Some(Cursor {
                frame: index,
                step: steps.nearest(value),
            })
        });
        self.go(cursor);
    }

    /// Moves by a key; false when the key does not apply to this chart.
    pub fn press(self, key: Move) -> bool {
        let moved = self.frames.with_value(|frames| {
            let current = self
                .cursor
                .get_value()
                .unwrap_or(Cursor { frame: 0, step: 0 });
            let frame = match key {
                Move::Frame(by) if frames.len() > 1 => current
                    .frame
                    .saturating_add_signed(by)
                    .min(frames.len() - 1),
                Move::Frame(_) => return None,
                _ => current.frame.min(frames.len().checked_sub(1)?),
            };
            let steps = Steps::of(&frames[frame].plot)?;
            let last = steps.len() - 1;
            let step = match key {
                Move::By(by) => current.step.saturating_add_signed(by).min(last),
                Move::Page(by) => current
                    .step
                    .saturating_add_signed(by * (steps.len() / 10).max(1) as isize)
                    .min(last),
                Move::First => 0,
                Move::Last => last,
                // The same x in the other plot.
                Move::Frame(_) => {
                    let from = &frames[current.frame];
                    Steps::of(&from.plot).map_or(0, |old| {
                        steps.nearest(old.x(current.step.min(old.len() - 1)))
                    })
                }
            };
            Some(Cursor { frame, step })
        });
        let applies = moved.is_some();
        if applies {
            self.go(moved);
        }
        applies
    }

    /// Shows the first step when the chart takes focus without a reading.
    pub fn focus(self) {
        if self.cursor.get_value().is_none() {
            self.press(Move::First);
        }
    }

    pub fn clear(self) {
        self.go(None);
    }

    fn go(self, cursor: Option<Cursor>) {
        if self.cursor.get_value() != cursor {
            self.cursor.set_value(cursor);
            self.show();
        }
    }

    /// Writes the text and places the crosshair for the cursor.
    fn show(self) {
        let shown = self.cursor.get_value().and_then(|cursor| {
            let (ratio, pen) = self.drawn.get_value()?;
            self.frames.with_value(|frames| {
                let frame = frames.get(cursor.frame)?;
                let steps = Steps::of(&frame.plot)?;
                let step = cursor.step.min(steps.len() - 1);
                Some(read(frame, &steps, step, ratio, &pen))
            })
        });
        let (text, marks) = shown.unzip();
        self.text.set(text.unwrap_or_default());
        self.marks.set(marks);
    }
}

/// The readout's text and crosshair at `step` of `frame`.
fn read(frame: &Frame, steps: &Steps, step: usize, ratio: f64, pen: &Pen) -> (String, Marks) {
    let plot = &frame.plot;
    let x = steps.x(step);
    let column = |x: f64| {
        let share = (x - frame.x.start) / (frame.x.end - frame.x.start);
        (f64::from(frame.columns.start)
            + share * f64::from(frame.columns.end - frame.columns.start))
            / ratio
    };
    let row = |y: f64| {
        let share = ((y - frame.y.start) / (frame.y.end - frame.y.start)).clamp(0.0, 1.0);
        (f64::from(frame.rows.end) - share * f64::from(frame.rows.end - frame.rows.start)) / ratio
    };
    let where_ = match steps.bin(step) {
        Some(bin) => format!("{}–{}", (plot.x_tick)(bin.start), (plot.x_tick)(bin.end)),
        None => (plot.x_tick)(x),
    };
    let mut values = Vec::new();
    let mut dots = Vec::new();
    for layer in &plot.layers {
        let Some(value) = value_at(layer, x) else {
            continue;
        };
        let (label, ink) = match layer {
            Layer::Bars { label, ink, .. }
            | Layer::Line { label, ink, .. }
            | Layer::Band { label, ink, .. } => (label, *ink),
            Layer::Span { .. } | Layer::Mark { .. } | Layer::Level { .. } => continue,
        };
        let shown = (plot.y_tick)(value);
        values.push(match label {
            Some(label) => format!("{label}: {shown}"),
            None => shown,
        });
        dots.push((column(x), row(value), css_rgb(pen.ink(ink))));
    }
    let text = format!(
        "{} {where_} · {}: {}",
        plot.x_desc,
        plot.y_desc,
        if values.is_empty() {
            "no value".to_string()
        } else {
            values.join("; ")
        }
    );
    let (left, width) = match steps.bin(step) {
        Some(bin) => (column(bin.start), column(bin.end) - column(bin.start)),
        None => (column(x), 0.0),
    };
    let marks = Marks {
        left,
        width,
        top: f64::from(frame.rows.start) / ratio,
        height: f64::from(frame.rows.end - frame.rows.start) / ratio,
        dots,
    };
    (text, marks)
}
