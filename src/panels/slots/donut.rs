//! The ring of slots: slot s spans the angles 2π·s/n to 2π·(s + 1)/n,
//! clockwise from twelve o'clock, its thickness and shade growing with its
//! accounts; the clock hand and one hand per job kind turn over it. Slot
//! numbers line the hole, times into the cycle the outside, and the kinds
//! are named in the corner. Everything grows with the ring, so a
//! fullscreen ring reads across a room.

use std::f64::consts::TAU;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use stampede_core::slots::{SlotRun, kind_name};
use stampede_core::units::count;

use crate::chart::{self, Area, Drawn, Ink, Pen};

/// More wedges than this would be thinner than a pixel: neighbouring slots
/// merge, each wedge showing the fullest of its slots.
const MAX_WEDGES: u32 = 360;
/// Room round the ring for the time ticks, in CSS pixels at size 1.
const MARGIN: f64 = 26.0;
/// The hole's radius as a share of the ring's outer radius.
const HOLE: f64 = 0.55;
/// The canvas height the ring's text is sized for; a taller canvas (the
/// presenter view) scales text and margins up.
const BASE_HEIGHT: f64 = 320.0;

/// How much larger than at [`BASE_HEIGHT`] text and margins are drawn: as
/// the ring grows, and at least as much as the page's presenter mode grows
/// chart text (`text_scale`).
fn size(width: f64, height: f64, text_scale: f64) -> f64 {
    (width.min(height) / BASE_HEIGHT)
        .clamp(1.0, 3.0)
        .max(text_scale)
}

/// Radii of the ring in CSS pixels for a canvas `width` × `height`.
fn radii(width: f64, height: f64, text_scale: f64) -> (f64, f64) {
    let outer = (width.min(height) / 2.0 - MARGIN * size(width, height, text_scale)).max(10.0);
    (outer * HOLE, outer)
}

/// The slot under a point `x`, `y` CSS pixels from the canvas centre, if
/// the point is on the ring drawn with text `text_scale` times larger
/// than written.
pub fn slot_at(
    run: &SlotRun,
    (x, y): (f64, f64),
    (width, height): (f64, f64),
    text_scale: f64,
) -> Option<u32> {
    let (inner, outer) = radii(width, height, text_scale);
    let distance = x.hypot(y);
    if distance < inner * 0.9 || distance > outer + 4.0 {
        return None;
    }
    let turn = x.atan2(-y).rem_euclid(TAU) / TAU;
    Some(((turn * f64::from(run.slots)) as u32).min(run.slots - 1))
}

/// Draws the ring with the clock at `phase` (0 to 1 of the cycle) and the
/// slot `focus` outlined.
pub fn draw(area: &Area, pen: &Pen, run: &SlotRun, phase: f64, focus: Option<u32>) -> Drawn {
    let ring = Geometry::of(area, pen);
    draw_wedges(area, pen, &ring, run)?;
    if let Some(slot) = focus.filter(|&slot| slot < run.slots) {
        let from = f64::from(slot) / f64::from(run.slots);
        let to = f64::from(slot + 1) / f64::from(run.slots);
        let mut outline = ring.wedge(from, to, ring.inner, ring.outer);
        outline.push(outline[0]);
        area.draw(&PathElement::new(
            outline,
            pen.line(pen.ink(Ink::Muted), 2.0),
        ))?;
    }
    draw_stranded(area, pen, &ring, run)?;
    draw_time_ticks(area, pen, &ring, run)?;
    draw_slot_numbers(area, pen, &ring, run.slots)?;
    draw_kinds(area, pen, &ring, run, phase)?;

    // The clock hand, over everything.
    let muted = pen.ink(Ink::Muted);
    let hand = pen.line(muted, 1.5);
    area.draw(&PathElement::new(
        vec![
            ring.at(phase, ring.inner * 0.5),
            ring.at(phase, ring.outer + 2.0 * ring.scale),
        ],
        hand,
    ))?;
    let middle = (ring.centre.0.round() as i32, ring.centre.1.round() as i32);
    area.draw(&Text::new(
        format!("{} slots", count(u64::from(run.slots))),
        middle,
        ring.text(pen, 14.0, muted)
            .pos(Pos::new(HPos::Center, VPos::Center)),
    ))?;
    Ok(())
}

/// Where the ring sits on a canvas, in canvas pixels.
struct Geometry {
    /// The canvas's width.
    width: u32,
    /// Canvas pixels per CSS pixel.
    ratio: f64,
    /// Canvas pixels for a length in CSS pixels at size 1.
    scale: f64,
    centre: (f64, f64),
    inner: f64,
    outer: f64,
}

impl Geometry {
    fn of(area: &Area, pen: &Pen) -> Self {
        let (width, height) = area.dim_in_pixel();
        let ratio = f64::from(pen.px(100.0)) / 100.0;
        let (css_width, css_height) = (f64::from(width) / ratio, f64::from(height) / ratio);
        let text_scale = pen.text_scale();
        let (inner, outer) = radii(css_width, css_height, text_scale);
        Self {
            width,
            ratio,
            scale: ratio * size(css_width, css_height, text_scale),
            centre: (f64::from(width) / 2.0, f64::from(height) / 2.0),
            inner: inner * ratio,
            outer: outer * ratio,
        }
    }

    /// The radius the slot numbers sit at, inside the hole.
    fn numbers_at(&self) -> f64 {
        self.inner - 10.0 * self.scale
    }

    /// Text of `css_size` at size 1, grown with the ring.
    fn text(&self, pen: &Pen, css_size: f64, color: RGBColor) -> TextStyle<'static> {
        pen.sized_text(css_size * self.scale, color)
    }

    /// The point `turn` of the way round, clockwise from twelve o'clock,
    /// `radius` from the centre.
    fn at(&self, turn: f64, radius: f64) -> (i32, i32) {
        let angle = turn * TAU;
        (
            (self.centre.0 + radius * angle.sin()).round() as i32,
            (self.centre.1 - radius * angle.cos()).round() as i32,
        )
    }

    /// The outline of the ring between the turns `from` and `to` and the
    /// radii `r_in` and `r_out`.
    fn wedge(&self, from: f64, to: f64, r_in: f64, r_out: f64) -> Vec<(i32, i32)> {
        let steps = (((to - from) * 180.0).ceil() as u32).max(2);
        let arc = |radius: f64| {
            (0..=steps)
                .map(move |i| self.at(from + (to - from) * f64::from(i) / f64::from(steps), radius))
        };
        arc(r_out).chain(arc(r_in).rev()).collect::<Vec<_>>()
    }
}

/// A wedge per slot (or per few, past [`MAX_WEDGES`]), thicker and darker
/// the more accounts it holds.
fn draw_wedges(area: &Area, pen: &Pen, ring: &Geometry, run: &SlotRun) -> Drawn {
    let slots = run.slots;
    let accounts = &run.plan.accounts_per_slot;
    let wedges = slots.min(MAX_WEDGES);
    let fullest = accounts.iter().copied().max().unwrap_or(1).max(1);
    // A gap between wedges while they are wide enough to show one.
    let gap = if wedges <= 120 {
        0.12 / f64::from(wedges)
    } else {
        0.0
    };
    let base = pen.ink(Ink::Series(0));
    let (inner, outer) = (ring.inner, ring.outer);
    for w in 0..wedges {
        let first = (u64::from(w) * u64::from(slots) / u64::from(wedges)) as usize;
        let last = (u64::from(w + 1) * u64::from(slots) / u64::from(wedges)) as usize;
        let most = accounts[first..last.max(first + 1)]
            .iter()
            .copied()
            .max()
            .unwrap_or(0);
        let share = f64::from(most) / f64::from(fullest);
        let r_out = inner + (outer - inner) * (0.35 + 0.65 * share);
        let from = first as f64 / f64::from(slots);
        let to = last as f64 / f64::from(slots);
        let color = pen.tint(base, 0.3 + 0.7 * share);
        area.draw(&Polygon::new(
            ring.wedge(from + gap / 2.0, to - gap / 2.0, inner, r_out),
            color.filled(),
        ))?;
    }
    Ok(())
}

/// The raw values the talk's SQL sends past the last slot, as a red arc
/// just before twelve o'clock where such a slot would follow.
fn draw_stranded(area: &Area, pen: &Pen, ring: &Geometry, run: &SlotRun) -> Drawn {
    let stranded = run.sql.unscheduled_raw_values.len();
    if stranded == 0 {
        return Ok(());
    }
    let (outer, scale) = (ring.outer, ring.scale);
    let share = (stranded as f64 / f64::from(run.raw_values)).max(1.0 / 90.0);
    let reference = pen.ink(Ink::Reference);
    area.draw(&Polygon::new(
        ring.wedge(1.0 - share, 1.0, outer + 3.0 * scale, outer + 9.0 * scale),
        reference.filled(),
    ))?;
    let label = format!(
        "{} raw value{} → no slot",
        count(stranded as u64),
        if stranded == 1 { "" } else { "s" }
    );
    // In the corner: next to the arc it would cover the time ticks.
    area.draw(&Text::new(
        format!("red arc: {label}"),
        (pen.px(4.0) as i32, pen.px(4.0) as i32),
        ring.text(pen, 11.0, reference)
            .pos(Pos::new(HPos::Left, VPos::Top)),
    ))
}

/// Where text round the ring sits: on the side away from it.
fn outward(turn: f64) -> Pos {
    let angle = turn * TAU;
    let h = if angle.sin() > 0.2 {
        HPos::Left
    } else if angle.sin() < -0.2 {
        HPos::Right
    } else {
        HPos::Center
    };
    let v = if angle.cos() > 0.2 {
        VPos::Bottom
    } else if angle.cos() < -0.2 {
        VPos::Top
    } else {
        VPos::Center
    };
    Pos::new(h, v)
}

/// Times into the cycle outside the ring, on round times.
fn draw_time_ticks(area: &Area, pen: &Pen, ring: &Geometry, run: &SlotRun) -> Drawn {
    let (outer, scale) = (ring.outer, ring.scale);
    let cycle = f64::from(run.slots) * f64::from(run.slot_seconds);
    let muted = pen.ink(Ink::Muted);
    let room = (TAU * outer / (90.0 * scale)) as usize;
    for tick in chart::nice_ticks(&(0.0..cycle), chart::duration_tick, room) {
        if tick >= cycle {
            continue;
        }
        let turn = tick / cycle;
        area.draw(&PathElement::new(
            vec![
                ring.at(turn, outer + 2.0 * scale),
                ring.at(turn, outer + 6.0 * scale),
            ],
            pen.line(muted, 1.0),
        ))?;
        area.draw(&Text::new(
            chart::duration_tick(tick),
            // Clear of the red arc, which reaches 9 px out.
            ring.at(turn, outer + 11.0 * scale),
            ring.text(pen, 11.0, muted).pos(outward(turn)),
        ))?;
    }
    Ok(())
}

/// Slot numbers inside the hole at each slot's middle, every k-th when
/// they would crowd: k the first of 1, 2, 5, 10, 20, … that fits.
fn draw_slot_numbers(area: &Area, pen: &Pen, ring: &Geometry, slots: u32) -> Drawn {
    let numbers_at = ring.numbers_at();
    let fit = (TAU * numbers_at / (24.0 * ring.scale)).max(1.0) as u32;
    let every = (0..)
        .flat_map(|power| [1, 2, 5].map(|m| m * 10u32.pow(power)))
        .find(|&k| slots.div_ceil(k) <= fit)
        .unwrap_or(slots);
    for slot in (0..slots).step_by(every as usize) {
        let turn = (f64::from(slot) + 0.5) / f64::from(slots);
        area.draw(&Text::new(
            (slot + 1).to_string(),
            ring.at(turn, numbers_at),
            ring.text(pen, 11.0, pen.ink(Ink::Muted))
                .pos(Pos::new(HPos::Center, VPos::Center)),
        ))?;
    }
    Ok(())
}

/// The kinds: kind j's hand points at the middle of the slot it works on,
/// (step + offsetⱼ) mod n, and jumps on as the clock enters a slot.
fn draw_kinds(area: &Area, pen: &Pen, ring: &Geometry, run: &SlotRun, phase: f64) -> Drawn {
    let slots = run.slots;
    let step = (phase.rem_euclid(1.0) * f64::from(slots))
        .floor()
        .min(f64::from(slots - 1));
    let kinds = run.kinds.offsets.len();
    for (kind, &offset) in (0u32..).zip(&run.kinds.offsets) {
        let color = pen.ink(Ink::Series(kind as usize + 1));
        let turn = (step + f64::from(offset) + 0.5) / f64::from(slots);
        // Short of the slot numbers, so that the hand points at one.
        let tip = ring.numbers_at() - 9.0 * ring.scale;
        area.draw(&PathElement::new(
            vec![ring.at(turn, ring.inner * 0.4), ring.at(turn, tip)],
            pen.line(color, 3.0),
        ))?;
        area.draw(&Circle::new(
            ring.at(turn, tip),
            pen.px(4.0),
            color.filled(),
        ))?;
        if kinds <= 8 {
            // Named in the top right corner, one a line.
            let line = 16.0 * ring.scale * f64::from(kind);
            area.draw(&Text::new(
                format!("— {}", kind_name(kind)),
                (
                    ring.width as i32 - pen.px(4.0) as i32,
                    (4.0 * ring.ratio + line).round() as i32,
                ),
                ring.text(pen, 12.0, color)
                    .pos(Pos::new(HPos::Right, VPos::Top)),
            ))?;
        }
    }
    Ok(())
}
