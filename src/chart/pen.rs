//! The pen charts draw with: lengths in CSS pixels turned into canvas
//! pixels, text that grows in presenter mode, and the theme's colours read
//! from the page's CSS variables.

use std::cell::Cell;

use leptos::prelude::window;
use plotters::prelude::*;
use plotters::style::TextStyle;

/// The CSS size the charts' smallest text (tick labels, legends, tags) is
/// written at on the page.
const SMALLEST_CSS_TEXT: f64 = 11.0;
/// In presenter mode that text is this share of the slide's own text size,
/// which the stylesheet sets for the screen (24 px at 1280 × 720), so tick
/// labels read from the back of a room: 19 px there.
const PRESENTER_TICKS_EM: f64 = 0.8;

/// An RGB colour read from a CSS variable such as `#0b5cd5`.
fn css_color(style: &web_sys::CssStyleDeclaration, name: &str, fallback: RGBColor) -> RGBColor {
    let value = style.get_property_value(name).unwrap_or_default();
    let hex = value.trim().trim_start_matches('#');
    let channel = |at: usize| {
        hex.get(at..at + 2)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
    };
    match (hex.len(), channel(0), channel(2), channel(4)) {
        (6, Some(r), Some(g), Some(b)) => RGBColor(r, g, b),
        _ => fallback,
    }
}

/// A colour as CSS writes it, for what is drawn outside plotters.
pub(super) fn css_rgb(RGBColor(r, g, b): RGBColor) -> String {
    format!("rgb({r},{g},{b})")
}

/// Which colour a layer is drawn in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ink {
    /// One of the series colours, 0 to 7.
    Series(usize),
    /// Reference lines: a limit, a theory value.
    Reference,
    /// Text and marks that stay in the background.
    Muted,
}

/// Lengths in CSS pixels turned into canvas pixels, and the theme's colours.
#[derive(Clone, Copy)]
pub struct Pen {
    ratio: f64,
    /// How much larger than written text is drawn: 1 on the page, more in
    /// presenter mode.
    text_scale: f64,
    pub background: RGBColor,
    pub(super) foreground: RGBColor,
    pub(super) muted: RGBColor,
    pub(super) grid: RGBColor,
    reference: RGBColor,
    series: [RGBColor; 8],
}

thread_local! {
    /// The last pen made, and whether the dark scheme was on then.
    static LAST_PEN: Cell<Option<(bool, Pen)>> = const { Cell::new(None) };
    /// The smallest text drawn since [`start_text_record`], in CSS pixels.
    static SMALLEST_TEXT: Cell<f64> = const { Cell::new(f64::INFINITY) };
}

/// Starts recording the size of the text a chart draws.
pub(super) fn start_text_record() {
    SMALLEST_TEXT.set(f64::INFINITY);
}

/// The smallest text drawn since [`start_text_record`], in CSS pixels, if
/// any was.
pub(super) fn smallest_text() -> Option<f64> {
    Some(SMALLEST_TEXT.get()).filter(|size| size.is_finite())
}

/// How much larger than written a canvas inside presenter mode (an element
/// of class `presenting`) draws its text; 1 elsewhere.
pub(super) fn presenter_text_scale(canvas: &web_sys::Element) -> f64 {
    let Some(slide) = canvas.closest(".presenting").ok().flatten() else {
        return 1.0;
    };
    let slide_text = window()
        .get_computed_style(&slide)
        .ok()
        .flatten()
        .and_then(|style| style.get_property_value("font-size").ok())
        .and_then(|size| size.trim_end_matches("px").parse::<f64>().ok())
        .unwrap_or(24.0);
    (PRESENTER_TICKS_EM * slide_text / SMALLEST_CSS_TEXT).max(1.0)
}

impl Pen {
    /// The pen for a canvas at `ratio` in the light or `dark` scheme.
    /// Reading the CSS variables makes the browser bring every style up to
    /// date, which a slider's redraw has just made stale, so they are read
    /// again only when the colour scheme or the ratio changes, not for every
    /// chart drawn.
    pub(super) fn for_canvas(ratio: f64, dark: bool, element: &web_sys::HtmlCanvasElement) -> Self {
        match LAST_PEN.get() {
            Some((was_dark, pen)) if was_dark == dark && pen.ratio == ratio => pen,
            _ => {
                let pen = Self::read(ratio, element);
                LAST_PEN.set(Some((dark, pen)));
                pen
            }
        }
    }

    fn read(ratio: f64, element: &web_sys::HtmlCanvasElement) -> Self {
        let style = window().get_computed_style(element).ok().flatten();
        let color = |name, fallback| {
            style
                .as_ref()
                .map_or(fallback, |style| css_color(style, name, fallback))
        };
        Self {
            ratio,
            text_scale: 1.0,
            background: color("--bg", WHITE),
            foreground: color("--fg", BLACK),
            muted: color("--muted", RGBColor(87, 96, 106)),
            grid: color("--line", RGBColor(208, 215, 222)),
            reference: color("--reference", RGBColor(207, 34, 46)),
            series: [
                color("--series-1", RGBColor(11, 92, 213)),
                color("--series-2", RGBColor(191, 87, 0)),
                color("--series-3", RGBColor(26, 127, 55)),
                color("--series-4", RGBColor(130, 80, 223)),
                color("--series-5", RGBColor(179, 38, 122)),
                color("--series-6", RGBColor(10, 127, 134)),
                color("--series-7", RGBColor(138, 109, 0)),
                color("--series-8", RGBColor(139, 69, 19)),
            ],
        }
    }

    /// `css` CSS pixels in canvas pixels.
    pub fn px(&self, css: f64) -> u32 {
        (css * self.ratio).round() as u32
    }

    pub fn ink(&self, ink: Ink) -> RGBColor {
        match ink {
            Ink::Series(index) => self.series[index % self.series.len()],
            Ink::Reference => self.reference,
            Ink::Muted => self.muted,
        }
    }

    /// `color` at `strength` (0 to 1) over the background, as an opaque colour.
    pub fn tint(&self, color: RGBColor, strength: f64) -> RGBColor {
        let blend = |over: u8, under: u8| {
            (f64::from(over) * strength + f64::from(under) * (1.0 - strength)).round() as u8
        };
        let RGBColor(r, g, b) = color;
        let RGBColor(r0, g0, b0) = self.background;
        RGBColor(blend(r, r0), blend(g, g0), blend(b, b0))
    }

    /// The same pen drawing text `scale` times larger than written.
    pub(super) fn with_text_scale(self, scale: f64) -> Self {
        Self {
            text_scale: scale,
            ..self
        }
    }

    /// How much larger than written text is drawn.
    pub fn text_scale(&self) -> f64 {
        self.text_scale
    }

    /// Text written `css_size` CSS pixels high, in `color`.
    pub fn text(&self, css_size: f64, color: RGBColor) -> TextStyle<'static> {
        self.sized_text(f64::from(self.px(css_size * self.text_scale)), color)
    }

    /// Text `canvas_px` canvas pixels high, for a drawing that sizes its
    /// own text (the ring grows it with the ring).
    pub fn sized_text(&self, canvas_px: f64, color: RGBColor) -> TextStyle<'static> {
        let canvas_px = canvas_px.round();
        SMALLEST_TEXT.set(SMALLEST_TEXT.get().min(canvas_px / self.ratio));
        ("sans-serif", canvas_px).into_font().color(&color)
    }

    /// A length written in CSS pixels that makes room for text (a label's
    /// area, the space between ticks), in canvas pixels: it grows with the
    /// text.
    pub fn text_room(&self, css: f64) -> u32 {
        self.px(css * self.text_scale)
    }

    pub fn line(&self, color: RGBColor, css_width: f64) -> ShapeStyle {
        color.stroke_width(self.px(css_width).max(1))
    }
}
