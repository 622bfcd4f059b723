//! plotters' canvas backend, with text measured by the canvas itself.
//!
//! plotters-canvas sizes a label by adding a span to the page and reading
//! its `offsetWidth` and `offsetHeight`, which forces the browser to lay out
//! the whole page, once for every tick label of every chart on every
//! redraw: several milliseconds of a slider's frame. The canvas's own
//! `measureText` gives the same box without touching the page: the advance
//! width, and the font's ascent plus descent, which is the span's height
//! with a normal line height. Everything else is plotters-canvas's drawing.

use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

pub struct Canvas {
    drawing: CanvasBackend,
    context: CanvasRenderingContext2d,
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
            drawing: CanvasBackend::with_canvas_object(canvas)?,
            context,
        })
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

type Drawn = Result<(), DrawingErrorKind<CanvasError>>;

/// plotters-canvas's error, whose type it does not export, as ours.
fn own<E: std::error::Error + Send + Sync>(
    error: DrawingErrorKind<E>,
) -> DrawingErrorKind<CanvasError> {
    match error {
        DrawingErrorKind::DrawingError(error) => {
            DrawingErrorKind::DrawingError(CanvasError(error.to_string()))
        }
        DrawingErrorKind::FontError(error) => DrawingErrorKind::FontError(error),
    }
}

impl DrawingBackend for Canvas {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        self.drawing.get_size()
    }

    fn ensure_prepared(&mut self) -> Drawn {
        self.drawing.ensure_prepared().map_err(own)
    }

    fn present(&mut self) -> Drawn {
        self.drawing.present().map_err(own)
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Drawn {
        self.drawing.draw_pixel(point, color).map_err(own)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Drawn {
        self.drawing.draw_line(from, to, style).map_err(own)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn {
        self.drawing
            .draw_rect(upper_left, bottom_right, style, fill)
            .map_err(own)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn {
        self.drawing.draw_path(path, style).map_err(own)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vertices: I,
        style: &S,
    ) -> Drawn {
        self.drawing.fill_polygon(vertices, style).map_err(own)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Drawn {
        self.drawing
            .draw_circle(center, radius, style, fill)
            .map_err(own)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Drawn {
        self.drawing.draw_text(text, style, pos).map_err(own)
    }

    /// The unrotated box, as plotters-canvas gives it.
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<CanvasError>> {
        // The font string plotters-canvas draws with.
        self.context.set_font(&format!(
            "{} {}px {}",
            style.style().as_str(),
            style.size(),
            style.family().as_str(),
        ));
        let metrics = self
            .context
            .measure_text(text)
            .map_err(|error| DrawingErrorKind::DrawingError(CanvasError(format!("{error:?}"))))?;
        let height = metrics.font_bounding_box_ascent() + metrics.font_bounding_box_descent();
        Ok((metrics.width().round() as u32, height.round() as u32))
    }
}
