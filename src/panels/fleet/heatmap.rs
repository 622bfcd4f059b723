//! The heatmap of a fleet's week: a day as 24 hours × 60 minutes, or the
//! week as 7 days × 24 hours, each cell shaded from the background to the
//! first series colour by its starts (or jobs running) against a shared
//! maximum, so two maps side by side compare. The shade follows the square
//! root of the share of the maximum: a pile of 30 beside single starts
//! would otherwise leave the singles almost invisible. The peak cell is outlined
//! and named; marked cells (the jobs a change moved) carry a dot.
//!
//! The layout is a pure function of the canvas's CSS size, so the pointer
//! and the keyboard find the cell under them with the same numbers the
//! drawing used.

use std::hash::{Hash, Hasher};

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use stampede_core::panels::fleet::{CellMeasure, HeatView, ShownDay};
use stampede_core::units::{count, significant};
use stampede_fleet::panel::{CellJobs, FleetRead, WeekLoad};
use stampede_fleet::time;

use crate::chart::{self, Area, Cells, Drawn, Ink, Pen};

const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
/// Room in CSS pixels above the cells (column ticks) and below (legend),
/// for text as written; it grows with the text in presenter mode.
const TOP: f64 = 18.0;
const BOTTOM: f64 = 34.0;
const RIGHT: f64 = 6.0;
/// The faintest shade of a cell that holds anything, so one start shows.
const LEAST_SHADE: f64 = 0.12;

/// What a heatmap shows: one value per cell, row by row, and how to name
/// rows, columns and the jobs of a cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    pub view: HeatView,
    pub rows: usize,
    pub cols: usize,
    pub values: Vec<f64>,
    /// Whether `values` count jobs running rather than starts.
    pub running: bool,
    /// The first minute of the week the grid shows (day view), or 0.
    first_minute: u32,
    /// Unix seconds of the week's first minute.
    from: i64,
    /// Cells to mark with a dot.
    pub marks: Vec<usize>,
    /// Cells a random delay drawn at run time can start a job in, by
    /// the draws of [`WeekLoad::drawn`]: underlined.
    pub reached: Vec<usize>,
}

impl Grid {
    /// The grid of `load` in `view`, on the day `day` resolves to in
    /// `read` (the fleet as written, whose peak picks the busiest day).
    pub fn of(
        read: &FleetRead,
        load: &WeekLoad,
        view: HeatView,
        day: ShownDay,
        measure: CellMeasure,
    ) -> Self {
        let running = match (&load.running, measure) {
            (Some(running), CellMeasure::Running) => Some(running),
            _ => None,
        };
        let per_minute = |minute: usize| match running {
            Some(running) => running[minute],
            None => f64::from(load.starts[minute]),
        };
        let (rows, cols, first_minute, values) = match view {
            HeatView::Day => {
                let first = shown_day(read, day) * 1440;
                let values = (first..first + 1440)
                    .map(|m| per_minute(m as usize))
                    .collect();
                (24, 60, first, values)
            }
            HeatView::Week => {
                // An hour's starts add up; of jobs running, the most at once.
                let values = (0..168usize)
                    .map(|hour| {
                        let minutes = (hour * 60..hour * 60 + 60).map(per_minute);
                        if running.is_some() {
                            minutes.fold(0.0, f64::max)
                        } else {
                            minutes.sum()
                        }
                    })
                    .collect();
                (7, 24, 0, values)
            }
        };
        let mut grid = Self {
            view,
            rows,
            cols,
            values,
            running: running.is_some(),
            first_minute,
            from: read.from,
            marks: Vec::new(),
            reached: Vec::new(),
        };
        if let Some(drawn) = &load.drawn {
            grid.reached = grid.cells_of(&drawn.reached);
        }
        grid
    }

    /// A fingerprint of all [`draw`] shows of the grid with `max` and `focus`.
    pub fn fingerprint(&self, max: f64, focus: Option<usize>) -> u64 {
        let mut hasher = std::hash::DefaultHasher::new();
        let shape = (
            self.rows,
            self.cols,
            self.running,
            self.first_minute,
            self.from,
        );
        (self.view.slug(), shape, &self.marks, &self.reached).hash(&mut hasher);
        for value in &self.values {
            value.to_bits().hash(&mut hasher);
        }
        (max.to_bits(), focus).hash(&mut hasher);
        hasher.finish()
    }

    /// Marks the cells holding any of the week's `minutes`.
    pub fn mark_minutes(&mut self, minutes: &[u32]) {
        self.marks = self.cells_of(minutes);
    }

    /// The cells holding any of the week's `minutes`, in order.
    fn cells_of(&self, minutes: &[u32]) -> Vec<usize> {
        let mut cells: Vec<usize> = minutes
            .iter()
            .filter_map(|&minute| self.cell_of_minute(minute))
            .collect();
        cells.sort_unstable();
        cells.dedup();
        cells
    }

    fn cell_of_minute(&self, minute: u32) -> Option<usize> {
        match self.view {
            HeatView::Day => {
                let offset = minute.checked_sub(self.first_minute)?;
                (offset < 1440).then_some(offset as usize)
            }
            HeatView::Week => Some(minute as usize / 60),
        }
    }

    /// The largest value, at least 1.
    pub fn max(&self) -> f64 {
        self.values.iter().copied().fold(1.0, f64::max)
    }

    /// The cell with the largest value (the first of a tie), if any holds one.
    pub fn peak(&self) -> Option<usize> {
        let (cell, value) =
            self.values.iter().enumerate().fold(
                (0, 0.0),
                |best, (i, &v)| if v > best.1 { (i, v) } else { best },
            );
        (value > 0.0).then_some(cell)
    }

    /// What the cell `cell` counts: "12 starts" or "3.5 running at most".
    pub fn value_text(&self, cell: usize) -> String {
        let value = self.values[cell];
        if self.running {
            format!("{} running", significant(value, 3))
        } else {
            format!("{} starts", count(value.round() as u64))
        }
    }

    /// The cell's time, such as "Mon 5 Jan 02:30" or "Mon 5 Jan 02:00–03:00".
    pub fn cell_time(&self, cell: usize) -> String {
        let (row, col) = (cell / self.cols, cell % self.cols);
        match self.view {
            HeatView::Day => {
                let day = self.first_minute as usize / 1440;
                format!("{} {row:02}:{col:02}", self.row_day(day))
            }
            HeatView::Week => {
                format!("{} {col:02}:00–{:02}:00", self.row_day(row), col + 1)
            }
        }
    }

    /// The weekday and date of the week's day `day` (0 to 6).
    fn row_day(&self, day: usize) -> String {
        let days = self.from.div_euclid(86_400) + day as i64;
        let date = time::civil_from_days(days);
        format!(
            "{} {} {}",
            WEEKDAYS[days.rem_euclid(7) as usize],
            date.day,
            MONTHS[(date.month - 1) as usize]
        )
    }

    fn row_label(&self, row: usize) -> String {
        match self.view {
            HeatView::Day => format!("{row:02}:00"),
            HeatView::Week => self.row_day(row),
        }
    }

    /// Where the cell's jobs are listed: its index in `load`'s by-minute
    /// or by-hour lists.
    fn jobs_index(&self, cell: usize) -> (bool, usize) {
        match self.view {
            HeatView::Day => (false, self.first_minute as usize + cell),
            HeatView::Week => (true, cell),
        }
    }

    /// The readout of `cell`: its time, its count, and the jobs starting in
    /// it, the busiest first.
    pub fn describe_cell(&self, cell: usize, read: &FleetRead, load: &WeekLoad) -> String {
        let (by_hour, index) = self.jobs_index(cell);
        let lists = if by_hour {
            &load.by_hour
        } else {
            &load.by_minute
        };
        let reach = if self.reached.binary_search(&cell).is_ok() {
            "; a delay drawn at run time can start a job here, so this is one draw"
        } else {
            ""
        };
        format!(
            "{}: {}{}{reach}",
            self.cell_time(cell),
            self.value_text(cell),
            named_jobs(lists, index, read)
        )
    }

    /// A sentence with the numbers the map shows, for a reader who cannot see it.
    pub fn summary(&self) -> String {
        let what = if self.running {
            "jobs running"
        } else {
            "starts"
        };
        let shape = match self.view {
            HeatView::Day => "24 hours by 60 minutes",
            HeatView::Week => "7 days by 24 hours",
        };
        let busy = self.values.iter().filter(|&&v| v > 0.0).count();
        let peak = self.peak().map_or_else(
            || "nothing starts".to_string(),
            |cell| {
                format!(
                    "the peak is {} with {}",
                    self.cell_time(cell),
                    self.value_text(cell)
                )
            },
        );
        let reach = if self.reached.is_empty() {
            String::new()
        } else {
            format!(
                " This is one draw of the delays schedulers draw at run time; {} underlined cells \
                 are where they can start a job.",
                count(self.reached.len() as u64)
            )
        };
        format!(
            "A heatmap of {what}, {shape}: {} of {} cells hold any; {peak}.{reach}",
            count(busy as u64),
            count(self.values.len() as u64)
        )
    }
}

/// The day (0 to 6) the day view shows.
pub fn shown_day(read: &FleetRead, day: ShownDay) -> u32 {
    match day {
        ShownDay::Peak => read.load.peak_minute.map_or(0, |minute| minute / 1440),
        other => other.slug().parse::<u32>().map_or(0, |n| n - 1),
    }
}

/// ": backup (3), sync (1) and 4 more", or nothing for an empty cell.
fn named_jobs(lists: &CellJobs, index: usize, read: &FleetRead) -> String {
    let (Some(&first), Some(&end)) = (lists.first.get(index), lists.first.get(index + 1)) else {
        return String::new();
    };
    let named: Vec<String> = (first as usize..end as usize)
        .filter_map(|i| {
            let job = read.jobs.get(*lists.jobs.get(i)? as usize)?;
            Some(format!("{} ({})", job.id, lists.starts.get(i)?))
        })
        .collect();
    if named.is_empty() {
        return String::new();
    }
    let distinct = lists.distinct.get(index).copied().unwrap_or(0) as usize;
    let more = distinct.saturating_sub(named.len());
    let more = if more > 0 {
        format!(" and {} more", count(more as u64))
    } else {
        String::new()
    };
    format!(" · {}{more}", named.join(", "))
}

/// Where the cells sit on a canvas, in CSS pixels.
pub struct Layout {
    left: f64,
    /// Room above the cells, for the column ticks.
    top: f64,
    /// How much larger than written the labels are drawn.
    text_scale: f64,
    cell_w: f64,
    cell_h: f64,
    rows: usize,
    cols: usize,
}

impl Layout {
    /// The cells of `grid` on a canvas `css_width` × `css_height`, with
    /// labels drawn `text_scale` times larger than written.
    pub fn of(grid: &Grid, css_width: f64, css_height: f64, text_scale: f64) -> Self {
        let left = match grid.view {
            HeatView::Day => 40.0,
            HeatView::Week => 76.0,
        } * text_scale;
        let (top, bottom) = (TOP * text_scale, BOTTOM * text_scale);
        let cols = grid.cols.max(1);
        let rows = grid.rows.max(1);
        Self {
            left,
            top,
            text_scale,
            cell_w: ((css_width - left - RIGHT) / cols as f64).max(1.0),
            cell_h: ((css_height - top - bottom) / rows as f64).max(1.0),
            rows,
            cols,
        }
    }

    /// The cell under the point `x`, `y` (CSS pixels from the top left).
    pub fn cell_at(&self, x: f64, y: f64) -> Option<usize> {
        let col = ((x - self.left) / self.cell_w).floor();
        let row = ((y - self.top) / self.cell_h).floor();
        let inside = col >= 0.0 && row >= 0.0;
        let (row, col) = (row as usize, col as usize);
        (inside && row < self.rows && col < self.cols).then_some(row * self.cols + col)
    }

    /// The cell's rectangle in canvas pixels at `ratio`.
    /// Each edge is computed from its own index, so neighbouring cells
    /// share it exactly and no seam shows between them.
    fn rect(&self, cell: usize, ratio: f64) -> [(i32, i32); 2] {
        let (row, col) = (cell / self.cols, cell % self.cols);
        let x = |col: usize| ((self.left + col as f64 * self.cell_w) * ratio).round() as i32;
        let y = |row: usize| ((self.top + row as f64 * self.cell_h) * ratio).round() as i32;
        [(x(col), y(row)), (x(col + 1), y(row + 1))]
    }
}

/// The shade of a cell holding `value` of `max`: background at 0, the
/// full colour at `max`.
fn shade(pen: &Pen, value: f64, max: f64) -> RGBColor {
    let share = (value / max).clamp(0.0, 1.0).sqrt();
    pen.tint(
        pen.ink(Ink::Series(0)),
        LEAST_SHADE + (1.0 - LEAST_SHADE) * share,
    )
}

/// Draws `grid` shaded against `max`, with `focus` outlined.
pub fn draw(area: &Area, pen: &Pen, grid: &Grid, max: f64, focus: Option<usize>) -> Drawn {
    let ratio = f64::from(pen.px(100.0)) / 100.0;
    let (width, height) = area.dim_in_pixel();
    let (css_w, css_h) = (f64::from(width) / ratio, f64::from(height) / ratio);
    let layout = Layout::of(grid, css_w, css_h, pen.text_scale());
    let empty = pen.tint(pen.ink(Ink::Muted), 0.08);
    if let Some(last) = grid.values.len().checked_sub(1) {
        let (from, to) = (layout.rect(0, ratio)[0], layout.rect(last, ratio)[1]);
        let mut cells = Cells::new(from, to, grid.cols, grid.rows, empty);
        for (cell, &value) in grid.values.iter().enumerate() {
            if value > 0.0 {
                cells.paint(cell, shade(pen, value, max));
            }
        }
        area.draw(&cells)?;
    }
    draw_axes(area, pen, grid, &layout, ratio)?;
    let rule = pen.px(2.0) as i32;
    for &cell in &grid.reached {
        let [(x0, _), (x1, y1)] = layout.rect(cell, ratio);
        area.draw(&Rectangle::new(
            [(x0, y1 - rule), (x1, y1)],
            pen.ink(Ink::Series(1)).filled(),
        ))?;
    }
    for &cell in &grid.marks {
        let [(x0, y0), (x1, y1)] = layout.rect(cell, ratio);
        let radius = ((x1 - x0).min(y1 - y0) / 4).max(pen.px(1.5) as i32);
        area.draw(&Circle::new(
            ((x0 + x1) / 2, (y0 + y1) / 2),
            radius,
            pen.ink(Ink::Series(1)).filled(),
        ))?;
    }
    if let Some(peak) = grid.peak() {
        outline(area, pen, &layout, peak, ratio, Ink::Reference)?;
        let [(x0, y0), (x1, _)] = layout.rect(peak, ratio);
        let right_half = x0 > width as i32 / 2;
        let (x, h) = if right_half {
            (x0 - pen.px(3.0) as i32, HPos::Right)
        } else {
            (x1 + pen.px(3.0) as i32, HPos::Left)
        };
        let label = format!("peak: {}", grid.value_text(peak));
        let y = y0.max((layout.top * ratio) as i32);
        chart::tag(
            area,
            pen,
            &label,
            (x, y),
            pen.ink(Ink::Reference),
            Pos::new(h, VPos::Top),
        )?;
    }
    if let Some(cell) = focus.filter(|&cell| cell < grid.values.len()) {
        outline(area, pen, &layout, cell, ratio, Ink::Muted)?;
    }
    legend(area, pen, max, grid, &layout, ratio, css_h)
}

fn outline(area: &Area, pen: &Pen, layout: &Layout, cell: usize, ratio: f64, ink: Ink) -> Drawn {
    let [(x0, y0), (x1, y1)] = layout.rect(cell, ratio);
    let grow = pen.px(1.0) as i32;
    area.draw(&Rectangle::new(
        [(x0 - grow, y0 - grow), (x1 + grow, y1 + grow)],
        pen.line(pen.ink(ink), 2.0),
    ))
}

/// Row labels on the left, column ticks on top.
fn draw_axes(area: &Area, pen: &Pen, grid: &Grid, layout: &Layout, ratio: f64) -> Drawn {
    let muted = pen.ink(Ink::Muted);
    // Labels keep their spacing as written when they are drawn larger.
    let row_step = if layout.cell_h < 12.0 * layout.text_scale {
        2
    } else {
        1
    };
    for row in (0..grid.rows).step_by(row_step) {
        let [(x0, y0), (_, y1)] = layout.rect(row * grid.cols, ratio);
        area.draw(&Text::new(
            grid.row_label(row),
            (x0 - pen.px(4.0) as i32, (y0 + y1) / 2),
            pen.text(11.0, muted)
                .pos(Pos::new(HPos::Right, VPos::Center)),
        ))?;
    }
    let cell_w = layout.cell_w / layout.text_scale;
    let col_step = match grid.view {
        HeatView::Day if cell_w < 6.0 => 15,
        HeatView::Day => 10,
        HeatView::Week if cell_w < 20.0 => 6,
        HeatView::Week => 3,
    };
    for col in (0..grid.cols).step_by(col_step) {
        let [(x0, _), _] = layout.rect(col, ratio);
        let label = match grid.view {
            HeatView::Day => format!(":{col:02}"),
            HeatView::Week => format!("{col:02}h"),
        };
        area.draw(&Text::new(
            label,
            (x0, ((layout.top - 4.0) * ratio) as i32),
            pen.text(11.0, muted)
                .pos(Pos::new(HPos::Left, VPos::Bottom)),
        ))?;
    }
    Ok(())
}

/// The colour scale under the map, from 0 to `max`.
fn legend(
    area: &Area,
    pen: &Pen,
    max: f64,
    grid: &Grid,
    layout: &Layout,
    ratio: f64,
    css_h: f64,
) -> Drawn {
    let muted = pen.ink(Ink::Muted);
    let y = ((css_h - BOTTOM * layout.text_scale + 12.0) * ratio) as i32;
    let h = pen.px(10.0) as i32;
    let x = (layout.left * ratio) as i32;
    let w = pen.px(120.0) as i32;
    let steps = 24;
    for step in 0..steps {
        let value = max * f64::from(step + 1) / f64::from(steps);
        let x0 = x + w * step / steps;
        let x1 = x + w * (step + 1) / steps;
        let color = shade(pen, value, max);
        area.draw(&Rectangle::new([(x0, y), (x1, y + h)], color.filled()))?;
    }
    let style = pen
        .text(11.0, muted)
        .pos(Pos::new(HPos::Left, VPos::Center));
    area.draw(&Text::new(
        "0".to_string(),
        (x - pen.px(10.0) as i32, y + h / 2),
        style.clone(),
    ))?;
    let what = if grid.running { "running" } else { "starts" };
    let reach = if grid.reached.is_empty() {
        ""
    } else {
        ", one draw"
    };
    area.draw(&Text::new(
        format!("{} {what} a cell{reach}", significant(max, 3)),
        (x + w + pen.px(6.0) as i32, y + h / 2),
        style,
    ))
}
