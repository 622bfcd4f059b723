//! A chart block as one PNG: its canvases redrawn at twice their CSS size,
//! stacked under the chart's title and over the page's parameters, on the
//! theme's background.
//!
//! The canvases are drawn again rather than scaled up, so a screen at one
//! device pixel per CSS pixel still gives a crisp picture: every chart
//! draws at [`EXPORT_RATIO`] for as long as the picture takes to put
//! together, then at the screen's ratio again.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::prelude::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::{EXPORT_RATIO, Pen, css_rgb};
use crate::browser;

/// Device pixels per CSS pixel in the picture.
const SCALE: f64 = 2.0;
/// Room round the picture's text, in CSS pixels.
const PAD: f64 = 10.0;
const TITLE_SIZE: f64 = 16.0;
const FOOTER_SIZE: f64 = 11.0;

/// Saves the canvases inside the element with id `block_id` as
/// `stampede-{block_id}.png`, headed by `title` with `footer` (the page's
/// parameters) below.
pub fn save_block_png(block_id: &str, title: &str, footer: &str) {
    let (block_id, title, footer) = (block_id.to_string(), title.to_string(), footer.to_string());
    spawn_local(async move {
        EXPORT_RATIO.with(|ratio| ratio.set(Some(SCALE)));
        // The charts redraw in effects, which run before the next task.
        next_task().await;
        let saved = picture(&block_id, &title, &footer)
            .and_then(|url| browser::download_url(&format!("stampede-{block_id}.png"), &url));
        EXPORT_RATIO.with(|ratio| ratio.set(None));
        if let Err(error) = saved {
            browser::warn(&format!("the chart could not be saved: {error:?}"));
        }
    });
}

/// Resolves once the tasks queued before it have run.
async fn next_task() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window().map(|window| window.set_timeout_with_callback(&resolve));
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// The picture of the block as a PNG data URL.
fn picture(block_id: &str, title: &str, footer: &str) -> Result<String, JsValue> {
    let document = document();
    let block = document
        .get_element_by_id(block_id)
        .ok_or_else(|| JsValue::from_str("no such chart block"))?;
    let list = block.get_elements_by_tag_name("canvas");
    let canvases: Vec<HtmlCanvasElement> = (0..list.length())
        .filter_map(|i| list.item(i)?.dyn_into().ok())
        .collect();
    let first = canvases
        .first()
        .ok_or_else(|| JsValue::from_str("no chart in the block"))?;
    let pen = Pen::for_canvas(SCALE, crate::theme::page_is_dark(), first);
    let width = canvases
        .iter()
        .map(|canvas| f64::from(canvas.client_width()))
        .fold(0.0, f64::max);
    let out: HtmlCanvasElement = document.create_element("canvas")?.dyn_into()?;
    out.set_width(scaled(width));
    let context: CanvasRenderingContext2d = out
        .get_context("2d")?
        .ok_or_else(|| JsValue::from_str("no 2d context"))?
        .dyn_into()?;

    // The footer wraps to the width; its lines decide the height.
    context.set_font(&font(FOOTER_SIZE));
    let footer_lines = wrap(&context, footer, f64::from(scaled(width - 2.0 * PAD)))?;
    let title_height = TITLE_SIZE * 1.4 + 2.0 * PAD;
    let charts_height: f64 = canvases
        .iter()
        .map(|canvas| f64::from(canvas.client_height()))
        .sum();
    let footer_height = FOOTER_SIZE * 1.4 * footer_lines.len() as f64 + 2.0 * PAD;
    // Setting the size clears the canvas and its state.
    out.set_height(scaled(title_height + charts_height + footer_height));

    context.set_fill_style_str(&css_rgb(pen.background));
    context.fill_rect(0.0, 0.0, f64::from(out.width()), f64::from(out.height()));
    context.set_text_baseline("top");
    context.set_fill_style_str(&css_rgb(pen.foreground));
    context.set_font(&format!("bold {}", font(TITLE_SIZE)));
    context.fill_text(title, SCALE * PAD, SCALE * PAD)?;
    let mut top = title_height;
    for canvas in &canvases {
        let (w, h) = (
            f64::from(canvas.client_width()),
            f64::from(canvas.client_height()),
        );
        context.draw_image_with_html_canvas_element_and_dw_and_dh(
            canvas,
            0.0,
            SCALE * top,
            SCALE * w,
            SCALE * h,
        )?;
        top += h;
    }
    context.set_fill_style_str(&css_rgb(pen.muted));
    context.set_font(&font(FOOTER_SIZE));
    top += PAD;
    for line in footer_lines {
        context.fill_text(&line, SCALE * PAD, SCALE * top)?;
        top += FOOTER_SIZE * 1.4;
    }
    out.to_data_url_with_type("image/png")
}

fn scaled(css: f64) -> u32 {
    (css * SCALE).round() as u32
}

fn font(css_size: f64) -> String {
    format!("{}px sans-serif", SCALE * css_size)
}

/// `text` in lines at most `width` wide, broken after an `&` or a space
/// (a longer piece keeps a line of its own).
fn wrap(
    context: &CanvasRenderingContext2d,
    text: &str,
    width: f64,
) -> Result<Vec<String>, JsValue> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for piece in text.split_inclusive(['&', ' ']) {
        let joined = format!("{line}{piece}");
        if line.is_empty() || context.measure_text(&joined)?.width() <= width {
            line = joined;
            continue;
        }
        lines.push(std::mem::replace(&mut line, piece.to_string()));
    }
    if !line.is_empty() {
        lines.push(line);
    }
    Ok(lines)
}
