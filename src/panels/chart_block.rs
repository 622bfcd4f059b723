//! The block every figure of every panel sits in: the title core gives the
//! figure, its caption, what it shows (canvases with their readouts, or a
//! table), and for a chart a button that saves the block as a PNG. The
//! block's id, `fig-{slug}`, is what an embed of one figure names.

use leptos::prelude::*;
use stampede_core::panels::{Figure, State};

use super::Showing;
use crate::store::Store;

/// The line under a block's title: text, or text with live parts.
#[slot]
pub struct Caption {
    children: Children,
}

/// One figure of the open panel. In an embed of a single figure, every
/// other block is left out and its children are never built, so their
/// charts are not drawn. `png` is false for a figure that is not a chart.
#[component]
pub fn ChartBlock(
    /// The figure, one of its panel's in core.
    figure: Figure,
    caption: Caption,
    #[prop(default = true)] png: bool,
    children: Children,
) -> impl IntoView {
    let showing = Showing::get();
    if !showing.figure(figure) {
        return ().into_any();
    }
    let Figure { slug, title } = figure;
    let block_id = format!("fig-{slug}");
    let save = png.then(|| {
        let block_id = block_id.clone();
        view! {
            <button
                type="button"
                class="png"
                aria-label=format!("Save {title} as PNG")
                on:click=move |_| save_png(&block_id, title)
            >
                "PNG"
            </button>
        }
    });
    view! {
        <div class="chart-block" class:chosen=showing.single() id=block_id data-fig=slug>
            <div class="chart-head">
                <h3>{title}</h3>
                {save}
            </div>
            <p class="caption">{(caption.children)()}</p>
            {children()}
        </div>
    }
    .into_any()
}

/// Saves the charts of the figure block `block_id` as one PNG, titled,
/// with the parameters that draw it in its footer.
fn save_png(block_id: &str, title: &str) {
    let footer = format!("?{}", Store::get().state.with_untracked(State::to_query));
    crate::chart::save_block_png(block_id, title, &footer);
}
