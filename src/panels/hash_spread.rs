//! Hash spread: each task's offset in the window, derived from its id.

use leptos::prelude::*;
use stampede_core::hash_spread::{self, HashMode, HashSpreadParams, HashSpreadRun, Reduction};
use stampede_core::panels;
use stampede_core::panels::hash_spread::HashSpreadPanel;
use stampede_core::panels::snippet;
use stampede_core::units::{count, significant};

use super::{Caption, ChartBlock, Computed, PanelUi, below_first_screen, use_it};
use crate::chart::{self, ChartCanvas, Ink, Layer, Plot, number_tick};

impl PanelUi for HashSpreadPanel {
    fn explanation() -> impl IntoView + 'static {
        explanation()
    }

    fn figure() -> impl IntoView + 'static {
        figure()
    }
}

fn explanation() -> impl IntoView {
    view! {
        <p class="explain">
            "Many recurring tasks that share one schedule all fire at the same
            instant unless something tells them apart. A task's own id can do
            it: turn the id into a number, bring that number below the window
            W, and use it as the task's offset into every cycle. With N ids,
            a start then falls about every W / N seconds."
        </p>
        <p class="explain">
            "The number is a 32-bit hash of the id's bytes (FarmHash, Murmur,
            xxHash and FNV-1a are offered). Two reductions bring it into the
            window: offset = hash32(id) mod W, or mulshift, ⌊hash · W / 2³²⌋,
            which keeps the hash's high bits and so a key's relative place
            when W changes. Ruby's per-user delay, Random.new(id).rand(W),
            seeds a generator with the id instead of hashing it."
        </p>
        <p class="explain">
            "The offset depends on nothing but the id and W, so it is the same
            on every run and machine, and adding ids leaves every existing
            offset where it was. A spread by rank, ⌊rank · W / N⌋, is
            perfectly even, but one new id shifts the ranks and nearly every
            task moves: the key numbers compare both."
        </p>
        <p class="explain">
            "A good hash looks like uniform random draws: the per-bucket counts
            scatter around N · b / W, and Pearson's χ² sits near its degrees
            of freedom. Random is not even: some seconds hold two ids and the
            largest gap is about W · H_N / N. Parts of an id that are not
            random betray themselves: a UUIDv7 begins with its creation
            time, and FNV-1a barely mixes a last digit into its high bits."
        </p>
        <p class="explain">
            "Use it for many independent tasks that each need a fixed, stable
            slot without any shared state. Do not use it when every slot
            must hold exactly one task, when a few heavy ids dominate the
            load, or when the ids themselves are chosen by someone who could
            pile them on one second."
        </p>
    }
}

/// The ids readied ahead in one idle moment: about 4 ms of work in
/// Chromium with Ruby's generator among the functions.
const IDS_PER_IDLE_SLICE: u32 = 2_000;

fn figure() -> impl IntoView {
    let computed = Computed::cached_ahead::<hash_spread::HashSpreadCache>(
        |s| &s.hash_spread,
        IDS_PER_IDLE_SLICE,
    );
    let Computed { params, run } = computed;

    let strips = ChartCanvas::new(260.0);
    // One canvas per function, sharing the y range, so their axes line up.
    let buckets = ChartCanvas::new(200.0);
    let buckets2 = ChartCanvas::new(200.0);
    chart::redraw_on_change("figure", move || {
        run.with(|run| {
            let Ok(run) = run else { return };
            strips.draw(|area, pen| chart::draw_stacked(area, pen, &strip_plots(run)));
            let [first, second] = bucket_plots(run);
            buckets.draw(|area, pen| first.draw(area, pen));
            buckets2.draw(|area, pen| second.draw(area, pen));
        });
    });

    view! {
        {strip_block(computed, strips)}
        {computed.key_numbers(panels::hash_spread::key_numbers)}
        {below_first_screen(move || buckets_block(computed, [buckets, buckets2]))}
        {use_it(move || params.with(snippet::hash::snippets))}
    }
}

type HashComputed = Computed<HashSpreadParams, HashSpreadRun>;

/// "Above: …. Below: …." for the captions of both charts.
fn functions(params: Memo<HashSpreadParams>) -> impl Fn() -> String + Send + Sync + 'static {
    move || {
        params.with(|params| {
            format!(
                "Above: {}. Below: {}.",
                function_name(params.mode, params.reduction),
                function_name(params.mode2, params.reduction2)
            )
        })
    }
}

fn strip_block(computed: HashComputed, strips: ChartCanvas) -> impl IntoView {
    let label = computed.describe(|params, run| {
        format!(
            "Offsets of {} ids in a window of {} s: {} above ({}), {} below ({})",
            count(run.keys.len() as u64),
            count(u64::from(run.window)),
            function_name(params.mode, params.reduction),
            panels::hash_spread::verdict(&run.uniformity),
            function_name(params.mode2, params.reduction2),
            panels::hash_spread::verdict(&run.second.uniformity)
        )
    });
    view! {
        <ChartBlock figure=panels::hash_spread::STRIP>
            <Caption slot>
                "Each spike is a bin of the window holding ids, on the same ids and the same axis. "
                {functions(computed.params)}
            </Caption>
            {strips.view("hash-strip", label)}
        </ChartBlock>
    }
}

/// The ids per bucket, above under the first function, below under the second.
fn buckets_block(computed: HashComputed, [first, second]: [ChartCanvas; 2]) -> impl IntoView {
    let first_label = computed.describe(|_, run| {
        format!(
            "{} buckets of {} s; first: {}; second: {}",
            count(run.bucket_counts.len() as u64),
            count(u64::from(run.bucket_width)),
            panels::hash_spread::verdict(&run.uniformity),
            panels::hash_spread::verdict(&run.second.uniformity)
        )
    });
    let second_label = computed.describe(|params, run| {
        format!(
            "Ids per bucket under {}: {} buckets of {} s; {}",
            function_name(params.mode2, params.reduction2),
            count(run.second.bucket_counts.len() as u64),
            count(u64::from(run.bucket_width)),
            panels::hash_spread::verdict(&run.second.uniformity)
        )
    });
    view! {
        <ChartBlock figure=panels::hash_spread::BUCKETS>
            <Caption slot>
                "Counts per bucket against the count a uniform spread expects (dashed); the χ² key numbers test the gap between them. "
                {functions(computed.params)}
            </Caption>
            {first.view("hash-buckets", first_label)}
            {second.view("hash-buckets-2", second_label)}
        </ChartBlock>
    }
}

/// "FarmHash Fingerprint32, hash mod window"; Ruby's draw has no reduction.
fn function_name(mode: HashMode, reduction: Reduction) -> String {
    if mode == HashMode::Ruby {
        mode.label().to_string()
    } else {
        format!("{}, {}", mode.label(), reduction.label())
    }
}

/// The strips of both functions, one above the other.
fn strip_plots(run: &HashSpreadRun) -> [Plot; 2] {
    let window = f64::from(run.window);
    let bin = window / run.strip_counts.len() as f64;
    // Each strip on its own scale, so a clump below does not flatten the
    // impulses above; draw_stacked still lines up their x axes.
    let plot = |counts: &[u32]| Plot {
        x: 0.0..window,
        y: 0.0..f64::from(counts.iter().copied().max().unwrap_or(1)) * 1.2,
        x_desc: "offset from the window's start".into(),
        y_desc: "ids per bin".into(),
        x_tick: chart::duration_tick,
        y_tick: number_tick,
        layers: vec![Layer::Bars {
            start: 0.0,
            width: bin,
            heights: counts.iter().map(|&c| f64::from(c)).collect(),
            ink: Ink::Series(0),
            label: None,
        }],
    };
    [plot(&run.strip_counts), plot(&run.second.strip_counts)]
}

/// The bucket histograms of both functions with the uniform expectation.
fn bucket_plots(run: &HashSpreadRun) -> [Plot; 2] {
    let window = f64::from(run.window);
    let width = f64::from(run.bucket_width);
    let expected = run.keys.len() as f64 * width / window;
    let top = run
        .bucket_counts
        .iter()
        .chain(&run.second.bucket_counts)
        .copied()
        .max()
        .map_or(1.0, f64::from)
        .max(expected);
    let plot = |counts: &[u32]| Plot {
        x: 0.0..window,
        y: 0.0..top * 1.25,
        x_desc: "offset from the window's start".into(),
        y_desc: "ids per bucket".into(),
        x_tick: chart::duration_tick,
        y_tick: number_tick,
        layers: vec![
            Layer::Bars {
                start: 0.0,
                width,
                heights: counts.iter().map(|&c| f64::from(c)).collect(),
                ink: Ink::Series(1),
                label: None,
            },
            Layer::Level {
                y: expected,
                ink: Ink::Reference,
                label: format!("uniform: {}", significant(expected, 3)),
            },
        ],
    };
    [plot(&run.bucket_counts), plot(&run.second.bucket_counts)]
}
