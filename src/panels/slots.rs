//! Slots: a cycle cut into gcd(cycle, buckets) equal slots, drawn as a ring
//! with a clock hand, the reciprocal kinds as hands spaced round it, the
//! queue's ingress and the cost per slot.

mod donut;

use leptos::prelude::*;
use stampede_core::error::InvalidInput;
use stampede_core::panels;
use stampede_core::panels::slots::SlotsPanel;
use stampede_core::panels::snippet;
use stampede_core::slots::{self, SlotRun};
use stampede_core::units::{count, counted, duration, significant};

use super::{Caption, ChartBlock, Computed, PanelUi, below_first_screen, use_it};
use crate::chart::{self, ChartCanvas, Ink, Layer, Plot, number_tick};
use crate::playback::{PlaybackControls, Playhead};

impl PanelUi for SlotsPanel {
    fn explanation() -> impl IntoView + 'static {
        explanation()
    }

    fn figure() -> impl IntoView + 'static {
        figure()
    }
}

/// The most slots listed as buttons; the ring still answers hover on all.
const LISTED_SLOTS: u32 = 64;

/// How long one turn of the clock takes while playing, in seconds.
const SPEEDS: &[(&str, f64)] = &[
    ("slow: a cycle a minute", 60.0),
    ("a cycle in 20 s", 20.0),
    ("fast: a cycle in 5 s", 5.0),
];

fn explanation() -> impl IntoView {
    view! {
        <p class="explain">
            "Account ids fall into B buckets by their last byte or last two
            bytes: bucket = raw mod B. A cycle of C seconds is cut into n slots,
            and each slot's job handles the accounts of its buckets. For every
            slot to hold the same number of buckets and last a whole number of
            seconds, n must divide both C and B; the largest such n is
            gcd(C, B), found by Euclid's steps a = q · b + r until r is 0.
            Eight hours and 65,535 buckets give gcd(28,800, 65,535) = 15 slots
            of D = C / n = 1,920 s."
        </p>
        <p class="explain">
            "The plan has three levels: at the start a bootstrap job enqueues n
            per-slot jobs, slot s due at s · D; each per-slot job, when it runs,
            enqueues its own accounts, each due after an offset below D drawn
            from a generator seeded with the account's id. The queue then takes
            in about N / n jobs at each slot start instead of all N at once, and
            never holds much more than one slot's accounts."
        </p>
        <p class="explain">
            "Two job kinds that lock the same account should not work on the
            same slot at once. Bending the cycle into a ring, K kinds sit at
            offsets ⌊j · n / K⌋ and turn together: at step t kind j works on
            slot (t + offset) mod n. With whole slots the closest pair is ⌊n / K⌋
            apart, the ideal n / K only when K divides n."
        </p>
        <p class="explain">
            "Selecting a slot's accounts with raw / (256 / n) = slot looks
            equivalent, but the division is on whole numbers: when n does not
            divide 256 the width ⌊256 / n⌋ is too small, and the top raw values
            land at index n, a slot no job asks for. Those accounts are never
            synced."
        </p>
        <p class="explain">
            "An even spread evens the number of accounts, not their cost. With
            a heavy cost tail a few jumbo accounts make their slots slow;
            placing accounts heaviest first into the currently lightest slot
            brings the heaviest slot close to its floor, the larger of the mean
            and the single heaviest account, at the price of storing each
            account's slot."
        </p>
    }
}

fn figure() -> impl IntoView {
    let computed = Computed::cached::<slots::SlotsCache>(|s| &s.slots);
    let run = computed.run;
    let ring = Ring {
        run,
        // View state, not in the URL: where the clock hand is (a share of
        // the cycle, so it survives a change of cycle), whether it turns,
        // how fast, and which slot a reader points at.
        clock: Playhead::new(0.0, SPEEDS[1].1, true),
        pointed: RwSignal::new(None),
        canvas: ChartCanvas::new(320.0),
    };
    let ingress = ChartCanvas::new(300.0);
    let costs = ChartCanvas::new(230.0);
    chart::redraw_on_change("figure", move || {
        run.with(|run| {
            let Ok(run) = run else { return };
            let (at, focus) = (ring.clock.at.get_untracked(), ring.pointed.get_untracked());
            ring.canvas
                .draw(|area, pen| donut::draw(area, pen, run, at, focus));
            ingress.draw(|area, pen| chart::draw_stacked(area, pen, &ingress_plots(run)));
            costs.draw(|area, pen| cost_plot(run).draw(area, pen));
        });
    });
    // The clock and the pointer move only the ring.
    Effect::new(move |_| {
        let (at, focus) = (ring.clock.at.get(), ring.pointed.get());
        run.with_untracked(|run| {
            if let Ok(run) = run {
                ring.canvas
                    .draw(|area, pen| donut::draw(area, pen, run, at, focus));
            }
        });
    });

    view! {
        {ring_block(ring)}
        {computed.key_numbers(panels::slots::key_numbers)}
        {below_first_screen(move || view! {
            {ingress_block(run, ingress)}
            {costs_block(run, costs)}
        })}
        {use_it(move || computed.params.with(snippet::slots::snippets))}
    }
}

type SlotRunMemo = Memo<Result<SlotRun, InvalidInput>>;

/// The ring, its clock and the slot a reader points at.
#[derive(Clone, Copy)]
struct Ring {
    run: SlotRunMemo,
    clock: Playhead,
    pointed: RwSignal<Option<u32>>,
    canvas: ChartCanvas,
}

impl Ring {
    /// Text about the current run; empty when the run failed.
    fn described(
        self,
        what: impl Fn(&SlotRun) -> String + Send + Sync + 'static,
    ) -> impl Fn() -> String + Send + Sync + 'static {
        move || {
            self.run
                .with(|run| run.as_ref().ok().map(&what))
                .unwrap_or_default()
        }
    }

    /// The cycle's length in seconds, and where the clock is in it.
    fn cycle_and_clock(self, run: &SlotRun) -> (f64, f64) {
        let cycle = f64::from(run.slots) * f64::from(run.slot_seconds);
        (cycle, self.clock.at.get() * cycle)
    }

    /// The slot the clock is in, which the focused ring reads first.
    fn clock_slot(self) -> Option<u32> {
        self.run.with_untracked(|run| {
            run.as_ref().ok().map(|run| {
                let cycle = f64::from(run.slots) * f64::from(run.slot_seconds);
                run.step_at(self.clock.at.get_untracked() * cycle)
            })
        })
    }

    /// Points at the slot under the mouse, over the ring's canvas only, not
    /// the readout below it.
    fn point(self, event: leptos::ev::MouseEvent) {
        let Some(canvas) = event
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlCanvasElement>(t).ok())
        else {
            return;
        };
        let (width, height) = (
            f64::from(canvas.client_width()),
            f64::from(canvas.client_height()),
        );
        let x = f64::from(event.offset_x()) - width / 2.0;
        let y = f64::from(event.offset_y()) - height / 2.0;
        let text_scale = self.canvas.text_scale();
        let slot = self.run.with_untracked(|run| {
            run.as_ref()
                .ok()
                .and_then(|run| donut::slot_at(run, (x, y), (width, height), text_scale))
        });
        if self.pointed.get_untracked() != slot {
            self.pointed.set(slot);
        }
    }

    /// The arrow keys step round the ring from the slot pointed at, or
    /// from the clock's.
    fn step(self, event: leptos::ev::KeyboardEvent) {
        let slots = self
            .run
            .with_untracked(|run| run.as_ref().ok().map(|run| run.slots));
        let Some(slots) = slots else {
            return;
        };
        let current = self
            .pointed
            .get_untracked()
            .or_else(|| self.clock_slot())
            .unwrap_or(0);
        let next = match event.key().as_str() {
            "ArrowRight" | "ArrowDown" => (current + 1) % slots,
            "ArrowLeft" | "ArrowUp" => (current + slots - 1) % slots,
            "Home" => 0,
            "End" => slots - 1,
            _ => return,
        };
        event.prevent_default();
        self.pointed.set(Some(next));
    }
}

fn ring_block(ring: Ring) -> impl IntoView {
    let clock_text = ring.described(move |run| {
        let (cycle, at) = ring.cycle_and_clock(run);
        format!(
            "{} of {} · slot {} of {}",
            duration(at.floor()),
            duration(cycle),
            run.step_at(at) + 1,
            run.slots
        )
    });
    view! {
        <ChartBlock figure=panels::slots::RING>
            <Caption slot>
                "Thicker, darker slots hold more accounts; the thin grey hand is the clock, the coloured hands the job kinds."
            </Caption>
            <PlaybackControls
                id="slots"
                playhead=ring.clock
                speeds=SPEEDS
                time_text=Signal::derive(clock_text)
                scrub_label="Clock"
            />
            <PresentButton />
            {ring_canvas(ring)}
            {slot_list(ring)}
            {derivation(ring.run)}
        </ChartBlock>
    }
}

/// The ring's canvas, which answers the pointer and the arrow keys.
fn ring_canvas(ring: Ring) -> impl IntoView {
    let pointed = ring.pointed;
    let label = ring.described(|run| {
        format!(
            "A ring of {} slots of {} each, {} to {} accounts a slot, with {} job kinds",
            count(u64::from(run.slots)),
            duration(f64::from(run.slot_seconds)),
            count(u64::from(run.even.fewest_accounts)),
            count(u64::from(run.even.most_accounts)),
            run.kinds.offsets.len()
        )
    });
    view! {
        <div
            class="ring-canvas"
            on:mousemove=move |event| ring.point(event)
            on:mouseleave=move |_| pointed.set(None)
            on:keydown=move |event| ring.step(event)
            on:focusin=move |_| pointed.set(ring.clock_slot())
            on:focusout=move |_| pointed.set(None)
        >
            {ring.canvas.view("slots-ring", label)}
        </div>
    }
}

/// "Present": the ring's block fills the screen, and the button then
/// leaves it, as Esc does. The view is a class on the block, so it shows
/// where the browser refuses full screen too, and it nests inside Learn's
/// presenter mode: leaving it returns to the step, still presenting.
#[component]
fn PresentButton() -> impl IntoView {
    let open = RwSignal::new(false);
    let button = NodeRef::<leptos::html::Button>::new();
    let block = move || {
        button
            .get_untracked()
            .and_then(|button| button.closest(".chart-block").ok().flatten())
    };
    let block_is_fullscreen = move || {
        let full = document().fullscreen_element();
        block().is_some_and(|block| full.as_ref() == Some(&block))
    };
    Effect::new(move |_| {
        let on = open.get();
        if let Some(block) = block() {
            let _ = block.class_list().toggle_with_force("ring-view", on);
        }
    });
    let leave = move || {
        if block_is_fullscreen() {
            document().exit_fullscreen();
        }
        open.set(false);
    };
    // Esc out of full screen, which the browser handles, closes the view.
    let was_fullscreen = StoredValue::new(false);
    let fullscreen_change = window_event_listener_untyped("fullscreenchange", move |_| {
        let now = block_is_fullscreen();
        if was_fullscreen.get_value() && !now {
            open.set(false);
        }
        was_fullscreen.set_value(now);
    });
    // Esc where the view is not full screen.
    let escape = window_event_listener(leptos::ev::keydown, move |event| {
        if open.get_untracked() && event.key() == "Escape" && !event.default_prevented() {
            event.prevent_default();
            leave();
        }
    });
    on_cleanup(move || {
        fullscreen_change.remove();
        escape.remove();
    });
    let present = move |_| {
        if open.get_untracked() {
            leave();
            return;
        }
        open.set(true);
        if let Some(Err(error)) = block().map(|block| block.request_fullscreen()) {
            crate::browser::warn(&format!("the presenter view would not open: {error:?}"));
        }
    };
    view! {
        <button
            type="button"
            id="slots-present"
            class="slots-present"
            node_ref=button
            aria-pressed=move || open.get().to_string()
            on:click=present
        >
            {move || if open.get() { "Leave presenter view (Esc)" } else { "Present" }}
        </button>
    }
}

/// The slots as buttons, up to [`LISTED_SLOTS`], the note on the one
/// pointed at, and the SQL's warning when it strands accounts.
fn slot_list(ring: Ring) -> impl IntoView {
    let Ring { run, pointed, .. } = ring;
    let slot_buttons = move || {
        run.with(|run| {
            let Ok(run) = run else { return Vec::new() };
            (0..run.slots.min(LISTED_SLOTS))
                .map(|slot| {
                    view! {
                        <button
                            type="button"
                            class="slots-slot"
                            data-slot=slot
                            aria-describedby="slots-note"
                            class:slots-current=move || pointed.get() == Some(slot)
                            on:focus=move |_| pointed.set(Some(slot))
                            on:mouseenter=move |_| pointed.set(Some(slot))
                        >
                            {slot + 1}
                        </button>
                    }
                })
                .collect::<Vec<_>>()
        })
    };
    let listed_note =
        move || {
            run.with(|run| {
                run.as_ref().ok().filter(|run| run.slots > LISTED_SLOTS).map(|run| {
                format!(
                    "The first {LISTED_SLOTS} of {} slots are listed; the ring shows them all.",
                    count(u64::from(run.slots))
                )
            })
            })
        };
    let note = move || {
        let Some(slot) = pointed.get() else {
            return "Hover over the ring or focus a slot to read what runs there.".to_string();
        };
        run.with(|run| {
            run.as_ref().ok().map_or_else(String::new, |run| {
                let (_, at) = ring.cycle_and_clock(run);
                let cost = run.costs.hashed.per_slot.get(slot as usize).copied();
                format!(
                    "{} Summed cost {} (mean account = 1).",
                    run.describe_slot(slot, at),
                    significant(cost.unwrap_or(0.0), 3)
                )
            })
        })
    };
    let warning = move || {
        run.with(|run| run.as_ref().ok().and_then(SlotRun::sql_warning))
            .map(|text| view! { <p class="slots-warning" role="note"><strong>"SQL warning: "</strong>{text}</p> })
    };
    view! {
        <div class="slots-list" role="group" aria-label="Slots">{slot_buttons}</div>
        <p class="caption">{listed_note}</p>
        <p id="slots-note" class="slots-note" aria-live="polite">{note}</p>
        {warning}
    }
}

/// Euclid's steps from cycle and buckets to the slot count, and what
/// that makes of each slot.
fn derivation(run: SlotRunMemo) -> impl IntoView {
    let steps = move || {
        run.with(|run| {
            run.as_ref()
                .map(|run| {
                    run.derivation()
                        .into_iter()
                        .map(|line| view! { <li>{line}</li> })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    let outcome = move || {
        run.with(|run| {
            run.as_ref().ok().map(|run| {
                format!(
                    "{} s / {} = {} per slot; {} / {} = {} per slot.",
                    count(u64::from(run.slots) * u64::from(run.slot_seconds)),
                    count(u64::from(run.slots)),
                    duration(f64::from(run.slot_seconds)),
                    counted(
                        u64::from(run.slots) * u64::from(run.buckets_per_slot),
                        "bucket",
                        "buckets"
                    ),
                    count(u64::from(run.slots)),
                    counted(u64::from(run.buckets_per_slot), "bucket", "buckets"),
                )
            })
        })
    };
    view! {
        <h4>"From cycle and buckets to slots"</h4>
        <p class="caption">"Euclid's steps on (cycle seconds, buckets); the last divisor is the slot count."</p>
        <ol class="slots-derivation">{steps}</ol>
        <p class="slots-outcome" aria-live="polite">{outcome}</p>
    }
}

/// Text about the current run; empty when the run failed.
fn described(run: SlotRunMemo, what: fn(&SlotRun) -> String) -> impl Fn() -> String + Send + Sync {
    move || run.with(|run| run.as_ref().map(what).unwrap_or_default())
}

fn ingress_block(run: SlotRunMemo, ingress: ChartCanvas) -> impl IntoView {
    let label = described(run, |run| {
        format!(
            "At most {} jobs enter in one bin when slotted, against {} at once",
            count(u64::from(run.peak_ingress_slotted())),
            count(u64::from(run.plan.peak_waiting_all_at_once))
        )
    });
    view! {
        <ChartBlock figure=panels::slots::INGRESS>
            <Caption slot>
                "Jobs entering the queue and jobs waiting in it, slotted against everything enqueued at once."
            </Caption>
            {ingress.view("slots-ingress", label)}
        </ChartBlock>
    }
}

fn costs_block(run: SlotRunMemo, costs: ChartCanvas) -> impl IntoView {
    let label = described(run, |run| {
        format!(
            "Heaviest slot costs {:.2} by bucket and {:.2} balanced, mean {:.2}",
            run.costs.hashed.max, run.costs.balanced.max, run.costs.hashed.mean
        )
    });
    view! {
        <ChartBlock figure=panels::slots::COSTS>
            <Caption slot>
                "Summed account cost in each slot, placed by bucket and balanced heaviest first."
            </Caption>
            {costs.view("slots-costs", label)}
        </ChartBlock>
    }
}

fn ingress_plots(run: &SlotRun) -> [Plot; 2] {
    let plan = &run.plan;
    let cycle = f64::from(run.slots) * f64::from(run.slot_seconds);
    let as_f64 = |counts: &[u32]| counts.iter().map(|&c| f64::from(c)).collect::<Vec<_>>();
    let points = |counts: &[u32]| {
        (0u32..)
            .zip(counts)
            .map(|(bin, &c)| (f64::from(bin) * plan.bin_seconds, f64::from(c)))
            .collect::<Vec<_>>()
    };
    let top = |counts: &[&[u32]]| {
        counts
            .iter()
            .flat_map(|c| c.iter())
            .copied()
            .max()
            .unwrap_or(1)
            .max(1)
    };
    let entering_top = top(&[&plan.ingress_slotted, &plan.ingress_all_at_once]);
    let waiting_top = top(&[&plan.waiting_slotted, &plan.waiting_all_at_once]);
    [
        Plot {
            x: 0.0..cycle,
            y: 0.0..f64::from(entering_top) * 1.1,
            x_desc: "time into the cycle".into(),
            y_desc: "jobs enqueued per bin".into(),
            x_tick: chart::duration_tick,
            y_tick: number_tick,
            layers: vec![
                Layer::Bars {
                    start: 0.0,
                    width: plan.bin_seconds,
                    heights: as_f64(&plan.ingress_all_at_once),
                    ink: Ink::Series(1),
                    label: Some("all at once".into()),
                },
                Layer::Bars {
                    start: 0.0,
                    width: plan.bin_seconds,
                    heights: as_f64(&plan.ingress_slotted),
                    ink: Ink::Series(0),
                    label: Some("slotted".into()),
                },
            ],
        },
        Plot {
            x: 0.0..cycle,
            y: 0.0..f64::from(waiting_top) * 1.1,
            x_desc: "time into the cycle".into(),
            y_desc: "jobs waiting".into(),
            x_tick: chart::duration_tick,
            y_tick: number_tick,
            layers: vec![
                Layer::Line {
                    points: points(&plan.waiting_all_at_once),
                    ink: Ink::Series(1),
                    dashed: false,
                    label: Some("all at once".into()),
                },
                Layer::Line {
                    points: points(&plan.waiting_slotted),
                    ink: Ink::Series(0),
                    dashed: false,
                    label: Some("slotted".into()),
                },
            ],
        },
    ]
}

/// Summed cost per slot, hashed as bars and balanced as a line, with the
/// floor no placement can beat.
fn cost_plot(run: &SlotRun) -> Plot {
    let costs = &run.costs;
    let balanced = (0u32..)
        .zip(&costs.balanced.per_slot)
        .flat_map(|(slot, &cost)| [(f64::from(slot), cost), (f64::from(slot) + 1.0, cost)])
        .collect();
    let top = costs
        .hashed
        .max
        .max(costs.balanced.max)
        .max(costs.lower_bound);
    Plot {
        x: 0.0..f64::from(run.slots),
        y: 0.0..top * 1.15,
        x_desc: "slot index".into(),
        y_desc: "summed cost (mean account = 1)".into(),
        x_tick: number_tick,
        y_tick: number_tick,
        layers: vec![
            Layer::Bars {
                start: 0.0,
                width: 1.0,
                heights: costs.hashed.per_slot.clone(),
                ink: Ink::Series(0),
                label: Some("by bucket".into()),
            },
            Layer::Line {
                points: balanced,
                ink: Ink::Series(2),
                dashed: false,
                label: Some("heaviest first".into()),
            },
            Layer::Level {
                y: costs.lower_bound,
                ink: Ink::Reference,
                label: "floor".into(),
            },
        ],
    }
}
