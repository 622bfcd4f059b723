//! A clock a reader plays, pauses, steps and scrubs: a position in [0, 1]
//! of something that unrolls in time (a cycle, a simulated week), advanced
//! once a frame by the real time since the last frame while it plays.
//! The position is view state, never in the URL.

use leptos::prelude::*;

use crate::browser;

/// Positions the scrubber distinguishes.
const SCRUB_STEPS: f64 = 1000.0;

#[derive(Clone, Copy)]
pub struct Playhead {
    /// Where the clock is, as a share of the whole.
    pub at: RwSignal<f64>,
    pub playing: RwSignal<bool>,
    /// Real seconds for one pass over the whole.
    seconds_per_pass: RwSignal<f64>,
    /// A looping clock wraps round; otherwise it stops at the end.
    looping: bool,
}

impl Playhead {
    pub fn new(at: f64, seconds_per_pass: f64, looping: bool) -> Self {
        Self {
            at: RwSignal::new(at),
            playing: RwSignal::new(false),
            seconds_per_pass: RwSignal::new(seconds_per_pass),
            looping,
        }
    }

    fn toggle(self) {
        let start = !self.playing.get_untracked();
        // Playing from the end of a clock that stops there starts over.
        if start && !self.looping && self.at.get_untracked() >= 1.0 {
            self.at.set(0.0);
        }
        self.playing.set(start);
        if start {
            self.advance(browser::now_ms());
        }
    }

    fn advance(self, last_ms: f64) {
        request_animation_frame(move || {
            // A disposed signal means the panel closed: stop.
            let (Some(true), Some(seconds)) = (
                self.playing.try_get_untracked(),
                self.seconds_per_pass.try_get_untracked(),
            ) else {
                return;
            };
            let now = browser::now_ms();
            let next = self.at.get_untracked() + (now - last_ms) / 1000.0 / seconds;
            if self.looping {
                self.at.set(next.rem_euclid(1.0));
            } else if next >= 1.0 {
                self.at.set(1.0);
                self.playing.set(false);
                return;
            } else {
                self.at.set(next);
            }
            self.advance(now);
        });
    }

    /// Moves by `share` of the whole and pauses.
    fn step(self, share: f64) {
        self.playing.set(false);
        self.at.update(|at| {
            *at = if self.looping {
                (*at + share).rem_euclid(1.0)
            } else {
                (*at + share).clamp(0.0, 1.0)
            }
        });
    }

    fn highest(self) -> f64 {
        if self.looping { 0.999_999 } else { 1.0 }
    }
}

/// Play/pause, speed, an optional step forward, the scrubber and the time it
/// reads, with ids `<id>-play`, `<id>-speed`, `<id>-step`, `<id>-scrub` and
/// class `<id>-time`. `speeds` are (label, seconds per pass), the second one
/// the default.
#[component]
pub fn PlaybackControls(
    id: &'static str,
    playhead: Playhead,
    speeds: &'static [(&'static str, f64)],
    /// The share of the whole one press of "Step" moves; none, no button.
    #[prop(optional)]
    step: Option<(&'static str, f64)>,
    /// What the clock reads, as text.
    time_text: Signal<String>,
    scrub_label: &'static str,
) -> impl IntoView {
    let default_speed = playhead.seconds_per_pass.get_untracked();
    view! {
        <div class="playback">
            <button
                type="button"
                id=format!("{id}-play")
                aria-pressed=move || if playhead.playing.get() { "true" } else { "false" }
                on:click=move |_| playhead.toggle()
            >
                {move || if playhead.playing.get() { "Pause" } else { "Play" }}
            </button>
            {step
                .map(|(label, share)| {
                    view! {
                        <button type="button" id=format!("{id}-step") on:click=move |_| playhead.step(share)>
                            {label}
                        </button>
                    }
                })}
            <label>
                "Speed "
                <select
                    id=format!("{id}-speed")
                    on:change=move |event| {
                        if let Ok(seconds) = event_target_value(&event).parse() {
                            playhead.seconds_per_pass.set(seconds);
                        }
                    }
                >
                    {speeds
                        .iter()
                        .map(|&(text, seconds)| {
                            view! {
                                <option value=seconds.to_string() selected=seconds == default_speed>
                                    {text}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </label>
            <label class="playback-scrub">
                {scrub_label} " "
                <input
                    type="range"
                    id=format!("{id}-scrub")
                    min="0"
                    max=SCRUB_STEPS.to_string()
                    step="1"
                    aria-valuetext=time_text
                    prop:value=move || (playhead.at.get() * SCRUB_STEPS).round().to_string()
                    on:input=move |event| {
                        if let Ok(value) = event_target_value(&event).parse::<f64>() {
                            playhead.at.set((value / SCRUB_STEPS).clamp(0.0, playhead.highest()));
                        }
                    }
                />
            </label>
            <output class=format!("playback-time {id}-time")>{time_text}</output>
        </div>
    }
}
