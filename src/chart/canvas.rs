//! A plotters backend drawing on a 2D canvas, which hands the canvas a
//! style only when it changes.
//!
//! Every value crossing from wasm to the canvas as a string is encoded,
//! then decoded into a JS string: plotters-canvas sends the colour, and
//! for a label also the font, alignment and baseline, with every shape
//! and label, so a chart's bars and tick labels spent more time passing
//! strings than drawing. A grid of many cells comes as one image instead
//! ([`super::Cells`]). This backend remembers what the
//! canvas holds and keeps each colour it has made as a JS string, so a
//! redraw sends each distinct style once. It draws as plotters-canvas 0.3
//! does (the same calls, colours and half-pixel offsets), and sizes a label
//! with the canvas's own `measureText` rather than laying out the page.
//!
//! A chart gets a new backend for every draw, which remembers nothing yet,
//! so it sets each style it uses once whatever the canvas still holds from
//! the draw before.

use std::cell::RefCell;
use std::collections::HashMap;
use std::f64::consts::PI;

use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontTransform,
};
use stampede_core::polyline::corners;
use wasm_bindgen::Clamped;
use wasm_bindgen::prelude::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

#[wasm_bindgen]
extern "C" {
    /// A 2D context seen through the style setters that take a JS string
    /// already made, which web-sys offers only as deprecated.
    #[wasm_bindgen(js_name = CanvasRenderingContext2D)]
    type Styles;
    #[wasm_bindgen(method, setter = fillStyle)]
    fn set_fill_style(this: &Styles, value: &JsValue);
    #[wasm_bindgen(method, setter = strokeStyle)]
    fn set_stroke_style(this: &Styles, value: &JsValue);
}

pub struct Canvas {
    canvas: HtmlCanvasElement,
    context: CanvasRenderingContext2d,
    /// Behind a cell, as plotters sizes text through `&self`.
    state: RefCell<State>,
}

/// What the canvas holds, as far as this backend set it.
#[derive(Default)]
struct State {
    /// Each colour made so far, by its bits, as the JS string CSS reads.
    colors: HashMap<ColorKey, JsValue>,
    fill: Option<ColorKey>,
    stroke: Option<ColorKey>,
    line_width: Option<u32>,
    font: String,
    align: Option<&'static str>,
    baseline: Option<&'static str>,
}

/// A colour's channels and its alpha's bits, to compare and hash.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct ColorKey((u8, u8, u8), u64);

impl ColorKey {
    fn of(color: BackendColor) -> Self {
        Self(color.rgb, color.alpha.to_bits())
    }
}

impl State {
    fn color(&mut self, key: ColorKey) -> &JsValue {
        self.colors.entry(key).or_insert_with(|| {
            let ColorKey((r, g, b), alpha) = key;
            JsValue::from_str(&format!("rgba({r},{g},{b},{})", f64::from_bits(alpha)))
        })
    }
}

impl Canvas {
    pub fn new(canvas: HtmlCanvasElement) -> Option<Self> {
        let context = canvas
            .get_context("2d")
            .ok()
            .flatten()?
            .dyn_into::<CanvasRenderingContext2d>()
            .ok()?;
        Some(Self {
            canvas,
            context,
            state: RefCell::new(State::default()),
        })
    }

    /// Puts `rgba`, `size` pixels, stretched over `from` to `to` (exclusive)
    /// without smoothing, so each pixel becomes a crisp block.
    pub fn stretch_pixels(
        &self,
        rgba: &[u8],
        (width, height): (u32, u32),
        from: BackendCoord,
        to: BackendCoord,
    ) -> Drawn {
        let image = ImageData::new_with_u8_clamped_array_and_sh(Clamped(rgba), width, height)
            .map_err(failed)?;
        let bitmap: HtmlCanvasElement = self
            .canvas
            .owner_document()
            .ok_or_else(|| failed(JsValue::from_str("the canvas has no document")))?
            .create_element("canvas")
            .map_err(failed)?
            .unchecked_into();
        bitmap.set_width(width);
        bitmap.set_height(height);
        let bitmap_context = bitmap
            .get_context("2d")
            .map_err(failed)?
            .ok_or_else(|| failed(JsValue::from_str("no 2D context")))?
            .unchecked_into::<CanvasRenderingContext2d>();
        bitmap_context
            .put_image_data(&image, 0.0, 0.0)
            .map_err(failed)?;
        self.context.set_image_smoothing_enabled(false);
        let drawn = self
            .context
            .draw_image_with_html_canvas_element_and_dw_and_dh(
                &bitmap,
                f64::from(from.0),
                f64::from(from.1),
                f64::from(to.0 - from.0),
                f64::from(to.1 - from.1),
            )
            .map_err(failed);
        self.context.set_image_smoothing_enabled(true);
        drawn
    }

    fn styles(&self) -> &Styles {
        self.context.unchecked_ref()
    }

    fn fill_with(&self, color: BackendColor) {
        let key = ColorKey::of(color);
        let mut state = self.state.borrow_mut();
        if state.fill != Some(key) {
            self.styles().set_fill_style(state.color(key));
            state.fill = Some(key);
        }
    }

    fn stroke_with(&self, style: &impl BackendStyle) {
        let key = ColorKey::of(style.color());
        let width = style.stroke_width();
        let mut state = self.state.borrow_mut();
        if state.stroke != Some(key) {
            self.styles().set_stroke_style(state.color(key));
            state.stroke = Some(key);
        }
        if state.line_width != Some(width) {
            self.context.set_line_width(f64::from(width));
            state.line_width = Some(width);
        }
    }

    /// Sets the font plotters-canvas draws with.
    fn font(&self, style: &impl BackendTextStyle) {
        let font = css_font(style);
        let mut state = self.state.borrow_mut();
        if state.font != font {
            self.context.set_font(&font);
            state.font = font;
        }
    }

    fn anchor(&self, h_pos: HPos, v_pos: VPos) {
        let align = match h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "center",
        };
        let baseline = match v_pos {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        };
        let mut state = self.state.borrow_mut();
        if state.align != Some(align) {
            self.context.set_text_align(align);
            state.align = Some(align);
        }
        if state.baseline != Some(baseline) {
            self.context.set_text_baseline(baseline);
            state.baseline = Some(baseline);
        }
    }

    /// Starts a path through `points`, handing the canvas only their
    /// corners: a series of a thousand points often lies on a few straight
    /// runs of pixels. False when there are no points.
    fn trace(&self, points: impl IntoIterator<Item = BackendCoord>) -> bool {
        let mut points = corners(points);
        self.context.begin_path();
        let Some((x, y)) = points.next() else {
            return false;
        };
        self.context.move_to(f64::from(x), f64::from(y));
        for (x, y) in points {
            self.context.line_to(f64::from(x), f64::from(y));
        }
        true
    }
}

/// A failed canvas call, as the browser described it.
#[derive(Debug)]
pub struct CanvasError(String);

impl std::fmt::Display for CanvasError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CanvasError {}

pub(super) type Drawn = Result<(), DrawingErrorKind<CanvasError>>;

fn failed(error: JsValue) -> DrawingErrorKind<CanvasError> {
    DrawingErrorKind::DrawingError(CanvasError(format!("{error:?}")))
}

/// A one-pixel line between pixel centres: a horizontal or vertical line
/// moved half a pixel, so that it covers one row or column of pixels
/// rather than two at half strength.
fn crisp(from: BackendCoord, to: BackendCoord) -> ((f64, f64), (f64, f64)) {
    let (mut from, mut to) = (
        (f64::from(from.0), f64::from(from.1)),
        (f64::from(to.0), f64::from(to.1)),
    );
    if from.0 == to.0 {
        from.0 -= 0.5;
        to.0 -= 0.5;
    }
    if from.1 == to.1 {
        from.1 -= 0.5;
        to.1 -= 0.5;
    }
    (from, to)
}

impl DrawingBackend for Canvas {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        (self.canvas.width(), self.canvas.height())
    }

    fn ensure_prepared(&mut self) -> Drawn {
        Ok(())
    }

    fn present(&mut self) -> Drawn {
        Ok(())
    }

    fn draw_pixel(&mut self, (x, y): BackendCoord, color: BackendColor) -> Drawn {
        if color.alpha == 0.0 {
            return Ok(());
        }
        self.fill_with(color);
        self.context.fill_rect(f64::from(x), f64::from(y), 1.0, 1.0);
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Drawn {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let (from, to) = crisp(from, to);
        self.stroke_with(style);
        self.context.begin_path();
        self.context.move_to(from.0, from.1);
        self.context.line_to(to.0, to.1);
        self.context.stroke();
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        (x0, y0): BackendCoord,
        (x1, y1): BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let (x, y, w, h) = (
            f64::from(x0),
            f64::from(y0),
            f64::from(x1 - x0),
            f64::from(y1 - y0),
        );
        if fill {
            self.fill_with(style.color());
            self.context.fill_rect(x, y, w, h);
        } else {
            self.stroke_with(style);
            self.context.stroke_rect(x, y, w, h);
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        self.stroke_with(style);
        self.trace(path);
        self.context.stroke();
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vertices: I,
        style: &S,
    ) -> Drawn {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        self.fill_with(style.color());
        if self.trace(vertices) {
            self.context.close_path();
        }
        self.context.fill();
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        (x, y): BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Drawn {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        if fill {
            self.fill_with(style.color());
        } else {
            self.stroke_with(style);
        }
        self.context.begin_path();
        self.context
            .arc(f64::from(x), f64::from(y), f64::from(radius), 0.0, 2.0 * PI)
            .map_err(failed)?;
        if fill {
            self.context.fill();
        } else {
            self.context.stroke();
        }
        Ok(())
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        (x, y): BackendCoord,
    ) -> Drawn {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let turn = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => PI / 2.0,
            FontTransform::Rotate180 => PI,
            FontTransform::Rotate270 => 3.0 * PI / 2.0,
        };
        let (x, y) = if turn == 0.0 {
            (f64::from(x), f64::from(y))
        } else {
            self.context.save();
            self.context
                .translate(f64::from(x), f64::from(y))
                .map_err(failed)?;
            self.context.rotate(turn).map_err(failed)?;
            (0.0, 0.0)
        };
        let anchor = style.anchor();
        self.anchor(anchor.h_pos, anchor.v_pos);
        self.fill_with(color);
        self.font(style);
        let drawn = self.context.fill_text(text, x, y).map_err(failed);
        if turn != 0.0 {
            // restore() puts back the state save() kept, which this
            // backend may have changed since: forget it.
            self.context.restore();
            let mut state = self.state.borrow_mut();
            let colors = std::mem::take(&mut state.colors);
            *state = State {
                colors,
                ..State::default()
            };
        }
        drawn
    }

    /// The unrotated box: the advance width, and the font's ascent plus
    /// descent, which is what a span of the text would measure with a
    /// normal line height.
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<CanvasError>> {
        let key = (css_font(style), text.to_owned());
        if let Some(size) = TEXT_SIZES.with_borrow(|sizes| sizes.get(&key).copied()) {
            return Ok(size);
        }
        self.font(style);
        let metrics = self.context.measure_text(text).map_err(failed)?;
        let height = metrics.font_bounding_box_ascent() + metrics.font_bounding_box_descent();
        let size = (metrics.width().round() as u32, height.round() as u32);
        TEXT_SIZES.with_borrow_mut(|sizes| {
            if sizes.len() >= TEXT_SIZES_KEPT {
                sizes.clear();
            }
            sizes.insert(key, size);
        });
        Ok(size)
    }
}

/// The most label sizes [`TEXT_SIZES`] keeps before it starts over.
const TEXT_SIZES_KEPT: usize = 4096;

thread_local! {
    /// Each label's measured size by its font and text. Measuring is most of
    /// what sizing a chart's axes costs, and every chart and redraw sizes the
    /// same few labels again. The page's fonts are the system's, which do not
    /// change under a page, so a size stays right for its lifetime.
    static TEXT_SIZES: RefCell<HashMap<(String, String), (u32, u32)>> = RefCell::default();
}

/// The CSS `font` shorthand of `style`, as plotters-canvas writes it.
fn css_font(style: &impl BackendTextStyle) -> String {
    format!(
        "{} {}px {}",
        style.style().as_str(),
        style.size(),
        style.family().as_str()
    )
}
