//! A grid of filled cells painted as one image: a colour per cell, put in
//! a bitmap one pixel a cell and stretched over the grid's rectangle
//! without smoothing. A heat map's 1,440 cells drawn one rectangle at a
//! time cost a colour and a call each; this is two calls.

use plotters::element::{Drawable, PointCollection};
use plotters::style::RGBColor;
use plotters_backend::{BackendCoord, DrawingErrorKind};

use super::canvas::{Canvas, CanvasError};

/// `cols` × `rows` cells, row by row, spanning `from` to `to` (canvas
/// pixels, `to` exclusive) in equal shares.
pub struct Cells {
    corners: [BackendCoord; 2],
    cols: u32,
    rows: u32,
    rgba: Vec<u8>,
}

impl Cells {
    /// The grid with every cell `color`.
    pub fn new(
        from: BackendCoord,
        to: BackendCoord,
        cols: usize,
        rows: usize,
        color: RGBColor,
    ) -> Self {
        let RGBColor(r, g, b) = color;
        Self {
            corners: [from, to],
            cols: u32::try_from(cols).unwrap_or(0),
            rows: u32::try_from(rows).unwrap_or(0),
            rgba: [r, g, b, u8::MAX].repeat(cols * rows),
        }
    }

    /// Gives cell `index` (row by row) `color`; one past the grid is ignored.
    pub fn paint(&mut self, index: usize, color: RGBColor) {
        let RGBColor(r, g, b) = color;
        if let Some(pixel) = self.rgba.get_mut(index * 4..index * 4 + 4) {
            pixel.copy_from_slice(&[r, g, b, u8::MAX]);
        }
    }
}

impl<'a> PointCollection<'a, BackendCoord> for &'a Cells {
    type Point = &'a BackendCoord;
    type IntoIter = std::slice::Iter<'a, BackendCoord>;

    fn point_iter(self) -> Self::IntoIter {
        self.corners.iter()
    }
}

impl Drawable<Canvas> for Cells {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut points: I,
        backend: &mut Canvas,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        match (points.next(), points.next()) {
            (Some(from), Some(to)) if self.cols > 0 && self.rows > 0 => {
                backend.stretch_pixels(&self.rgba, (self.cols, self.rows), from, to)
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use plotters::prelude::*;
    use wasm_bindgen::JsCast;
    use wasm_bindgen_test::*;
    use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

    use super::Cells;
    use crate::chart::canvas::Canvas;

    wasm_bindgen_test_configure!(run_in_browser);

    const BACKGROUND: RGBColor = RGBColor(250, 250, 245);
    const EMPTY: RGBColor = RGBColor(230, 232, 236);
    const SHADES: [RGBColor; 3] = [
        RGBColor(31, 119, 180),
        RGBColor(120, 170, 210),
        RGBColor(200, 90, 40),
    ];
    /// A grid of 4 × 3 cells of 7 × 5 pixels from (3, 2).
    const COLS: i32 = 4;
    const ROWS: i32 = 3;
    const CELL: (i32, i32) = (7, 5);
    const ORIGIN: (i32, i32) = (3, 2);

    fn canvas() -> HtmlCanvasElement {
        let canvas: HtmlCanvasElement = web_sys::window()
            .and_then(|window| window.document())
            .and_then(|document| document.create_element("canvas").ok())
            .expect("a canvas")
            .unchecked_into();
        canvas.set_width(40);
        canvas.set_height(30);
        canvas
    }

    fn pixels_of(canvas: &HtmlCanvasElement) -> Vec<u8> {
        let context: CanvasRenderingContext2d = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .expect("a 2D context")
            .unchecked_into();
        context
            .get_image_data(0.0, 0.0, 40.0, 30.0)
            .expect("the pixels")
            .data()
            .0
    }

    /// Cell `index`'s colour: some cells keep the empty one.
    fn color_of(index: usize) -> Option<RGBColor> {
        (!index.is_multiple_of(5)).then(|| SHADES[index % SHADES.len()])
    }

    fn corner(col: i32, row: i32) -> (i32, i32) {
        (ORIGIN.0 + col * CELL.0, ORIGIN.1 + row * CELL.1)
    }

    #[wasm_bindgen_test]
    fn a_grid_of_cells_paints_what_its_rectangles_fill() {
        let (as_image, as_rectangles) = (canvas(), canvas());
        let cells = (COLS * ROWS) as usize;

        let area = Canvas::new(as_image.clone())
            .expect("a backend")
            .into_drawing_area();
        area.fill(&BACKGROUND).expect("the background");
        let mut grid = Cells::new(
            corner(0, 0),
            corner(COLS, ROWS),
            COLS as usize,
            ROWS as usize,
            EMPTY,
        );
        for index in 0..cells {
            if let Some(color) = color_of(index) {
                grid.paint(index, color);
            }
        }
        area.draw(&grid).expect("the cells");

        let area = Canvas::new(as_rectangles.clone())
            .expect("a backend")
            .into_drawing_area();
        area.fill(&BACKGROUND).expect("the background");
        for index in 0..cells {
            let (col, row) = (index as i32 % COLS, index as i32 / COLS);
            let color = color_of(index).unwrap_or(EMPTY);
            area.draw(&Rectangle::new(
                [corner(col, row), corner(col + 1, row + 1)],
                color.filled(),
            ))
            .expect("a cell");
        }

        assert_eq!(pixels_of(&as_image), pixels_of(&as_rectangles));
    }
}
