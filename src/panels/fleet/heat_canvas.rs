//! A heatmap on the page: its canvas, the cell under the pointer or the
//! keyboard's focus, and the readout naming that cell's jobs.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::Fleet;
use super::heatmap::{self, Grid, Layout};
use crate::chart::ChartCanvas;

#[derive(Clone, Copy)]
pub struct HeatCanvas {
    fleet: Fleet,
    grid: Memo<Option<Grid>>,
    /// Whether the grid is the fixed fleet's, whose jobs the fix's load lists.
    fixed: bool,
    canvas: ChartCanvas,
    focus: RwSignal<Option<usize>>,
    /// The colour scale's top, as last drawn.
    max: RwSignal<f64>,
}

impl HeatCanvas {
    pub fn new(fleet: Fleet, grid: Memo<Option<Grid>>, fixed: bool, css_height: f64) -> Self {
        let heat = Self {
            fleet,
            grid,
            fixed,
            canvas: ChartCanvas::new(css_height),
            focus: RwSignal::new(None),
            max: RwSignal::new(1.0),
        };
        // The pointer and the keys move only the outline.
        Effect::new(move |_| {
            heat.focus.track();
            heat.paint(heat.max.get_untracked());
        });
        heat
    }

    /// Draws the grid with its colour scale topping out at `max`; tracks
    /// the grid and the canvas's size.
    pub fn draw(self, max: f64) {
        self.max.set(max);
        // Read, not only tracked, so the memo has computed its sources.
        self.grid.with(|_| ());
        self.paint(max);
    }

    fn paint(self, max: f64) {
        let focus = self.focus.get_untracked();
        self.grid.with_untracked(|grid| {
            // The figure's effect redraws every chart when any one's data
            // arrives; this one, the costliest, only when it changed.
            if let Some(grid) = grid {
                self.canvas
                    .draw_unless_drawn(grid.fingerprint(max, focus), |area, pen| {
                        heatmap::draw(area, pen, grid, max, focus)
                    });
            }
        });
    }

    /// The readout of the focused cell.
    fn readout(self) -> Option<String> {
        let cell = self.focus.get()?;
        self.grid.with(|grid| {
            let grid = grid.as_ref().filter(|grid| cell < grid.values.len())?;
            self.fleet.read.with(|read| {
                let read = read.as_ref()?;
                if self.fixed {
                    self.fleet.fix.with(|fix| {
                        fix.as_ref()
                            .map(|fix| grid.describe_cell(cell, read, &fix.load))
                    })
                } else {
                    Some(grid.describe_cell(cell, read, &read.load))
                }
            })
        })
    }

    fn point(self, event: leptos::ev::MouseEvent) {
        let Some(canvas) = event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        else {
            return;
        };
        let (width, height) = (
            f64::from(canvas.client_width()),
            f64::from(canvas.client_height()),
        );
        let text_scale = self.canvas.text_scale();
        let cell = self.grid.with_untracked(|grid| {
            grid.as_ref().and_then(|grid| {
                Layout::of(grid, width, height, text_scale)
                    .cell_at(f64::from(event.offset_x()), f64::from(event.offset_y()))
            })
        });
        if self.focus.get_untracked() != cell {
            self.focus.set(cell);
        }
    }

    /// The arrow keys move the focused cell; Home and End go to the
    /// first and last cell.
    fn step(self, event: leptos::ev::KeyboardEvent) {
        let Some((rows, cols)) = self
            .grid
            .with_untracked(|grid| grid.as_ref().map(|g| (g.rows, g.cols)))
        else {
            return;
        };
        let cells = rows * cols;
        let current = self.focus.get_untracked().unwrap_or(0).min(cells - 1);
        let next = match event.key().as_str() {
            "ArrowRight" => (current + 1).min(cells - 1),
            "ArrowLeft" => current.saturating_sub(1),
            "ArrowDown" if current + cols < cells => current + cols,
            "ArrowUp" if current >= cols => current - cols,
            "ArrowDown" | "ArrowUp" => current,
            "Home" => 0,
            "End" => cells - 1,
            _ => return,
        };
        event.prevent_default();
        self.focus.set(Some(next));
    }

    /// The canvas, which answers the pointer and the arrow keys, and its
    /// readout; the canvas's label states the map's numbers.
    pub fn view(self, id: &'static str) -> impl IntoView {
        let focus = self.focus;
        let grid = self.grid;
        let label = move || grid.with(|g| g.as_ref().map(Grid::summary).unwrap_or_default());
        let start = move || {
            grid.with_untracked(|g| g.as_ref().and_then(Grid::peak))
                .or(Some(0))
        };
        let readout = move || {
            self.readout().unwrap_or_else(|| {
                "Point at a cell, or focus the map and use the arrow keys.".to_string()
            })
        };
        view! {
            <div
                class="heatmap"
                on:mousemove=move |event| self.point(event)
                on:mouseleave=move |_| focus.set(None)
                on:keydown=move |event| self.step(event)
                on:focusin=move |_| focus.set(start())
                on:focusout=move |_| focus.set(None)
            >
                {self.canvas.view(id, label)}
                <p class="cell-readout" id=format!("{id}-cell") aria-live="polite">{readout}</p>
            </div>
        }
    }
}
