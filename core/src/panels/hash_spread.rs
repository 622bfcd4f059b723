//! The Hash spread panel: its parameters in URLs and controls (the reader's
//! pasted ids among them), the rules that keep a run in bounds, its presets,
//! verdict and key numbers.

use super::series::TimeSeries;
use super::snippet::{self, Snippet};
use super::{Figure, KEY_NUMBERS, PanelSpec, State};
use crate::error::InvalidInput;
use crate::field::{Field, FieldValue, Notice};
use crate::hash_spread::*;
use crate::key_numbers::KeyNumber;
use crate::keys::{self, KeyKind, MAX_ID_CHARS};
use crate::panel_params;
use crate::preset::Preset;
use crate::units::{self, SECONDS_PER_DAY, clock_with_seconds, percent};

panel_params! {
    impl HashSpreadParams {
        keys = 1_000, KEYS: Field::number("n", "Keys", "ids", (1.0, MAX_PLACED_KEYS as f64), 1.0).log();
        window = 86_400, WINDOW: Field::number("w", "Window", "s", (60.0, 604_800.0), 60.0).log();
        key_kind = KeyKind::UuidV4, KEY_KIND: Field::choice("kk", "Key kind", KeyKind::OPTIONS);
        mode = HashMode::Farm, MODE: Field::choice("fn", "Hash", HashMode::OPTIONS);
        reduction = Reduction::Mod, REDUCTION: Field::choice("rd", "Reduction", Reduction::OPTIONS);
        mode2 = HashMode::Ruby, MODE2: Field::choice("fn2", "Second hash", HashMode::OPTIONS);
        reduction2 = Reduction::Mod, REDUCTION2: Field::choice("rd2", "Second reduction", Reduction::OPTIONS);
        bucket_width = 3_600, BUCKET_WIDTH: Field::number("bw", "Bucket width", "s", (1.0, 604_800.0), 1.0).log();
        second_window = 0, SECOND_WINDOW: Field::number("w2", "Second window", "s", (0.0, 604_800.0), 60.0);
        ids = PastedIds::default(), IDS: Field::list("ids", "Your ids", keys::MAX_PASTED_IDS as usize, MAX_URL_IDS_CHARS, "42, 1337, 9001");
        lookup = LookupId::default(), LOOKUP: Field::text("q", "Look up an id", MAX_ID_CHARS, "42");
    }
    settle_rules = settle;
}

impl FieldValue for LookupId {
    fn parse(raw: &str, _field: &Field) -> Result<(Self, Option<String>), String> {
        let id = raw.trim();
        if id.chars().nth(MAX_ID_CHARS).is_some() {
            return Err(format!("an id has at most {MAX_ID_CHARS} characters"));
        }
        Ok((LookupId(id.to_string()), None))
    }

    fn encode(&self) -> String {
        self.0.clone()
    }
}

impl PastedIds {
    /// How many ids, from the first, a link carries: those whose text,
    /// commas between, fits in [`MAX_URL_IDS_CHARS`] characters.
    pub fn in_link(&self) -> usize {
        let mut length = 0;
        self.0
            .iter()
            .take_while(|id| {
                length += id.chars().count() + usize::from(length > 0);
                length <= MAX_URL_IDS_CHARS
            })
            .count()
    }

    /// "a link carries the first 176 of them; the rest stay on this page",
    /// when a link cannot carry them all.
    pub fn link_note(&self) -> Option<String> {
        let in_link = self.in_link();
        (in_link < self.0.len()).then(|| {
            format!(
                "a link carries the first {} of them; the rest stay on this page",
                units::count(in_link as u64)
            )
        })
    }
}

impl FieldValue for PastedIds {
    /// Never refuses: notes the ids dropped, and a list a link cannot carry.
    fn parse(raw: &str, _field: &Field) -> Result<(Self, Option<String>), String> {
        let read = keys::read_pasted(raw);
        let summary = read.summary();
        let dropped = read.dropped() > 0;
        let ids = PastedIds(read.ids);
        let note = match ids.link_note() {
            Some(link) => Some(format!("{summary}; {link}")),
            None => dropped.then_some(summary),
        };
        Ok((ids, note))
    }

    fn encode(&self) -> String {
        self.0.join(",")
    }

    fn in_use(&self) -> Option<String> {
        None
    }

    /// "2,000 ids read", and the link's share when it cannot carry them
    /// all; `None` without ids.
    fn status(&self) -> Option<String> {
        if self.0.is_empty() {
            return None;
        }
        let read = format!("{} read", keys::ids_count(self.0.len() as u64));
        Some(match self.link_note() {
            Some(note) => format!("{read}; {note}"),
            None => read,
        })
    }
}

/// Keeps the bucket width within the window and the buckets countable,
/// and Ruby mode's ids few enough to redraw while a slider moves.
fn settle(params: &mut HashSpreadParams) -> Vec<Notice> {
    let mut notices = Vec::new();
    if params.uses_ruby() && params.keys > MAX_RUBY_KEYS {
        params.keys = MAX_RUBY_KEYS;
        notices.push(HashSpreadParams::KEYS.notice(format!(
            "Ruby mode seeds a generator per id; using {}",
            crate::units::count(u64::from(MAX_RUBY_KEYS))
        )));
    }
    if params.bucket_width > params.window {
        params.bucket_width = params.window;
        notices.push(HashSpreadParams::BUCKET_WIDTH.notice(format!(
            "must be at most the window; using {}",
            params.bucket_width
        )));
    }
    let fewest_seconds = params.window.div_ceil(MAX_BUCKETS);
    if params.bucket_width < fewest_seconds {
        params.bucket_width = fewest_seconds;
        notices.push(HashSpreadParams::BUCKET_WIDTH.notice(format!(
            "at most {MAX_BUCKETS} buckets fit in a window; using {}",
            params.bucket_width
        )));
    }
    notices
}

// The figures, in the order the panel draws them after its key numbers.
pub const STRIP: Figure = Figure::new("strip", "Every offset in the window");
pub const BUCKETS: Figure = Figure::new("buckets", "Ids per bucket");

/// The Hash spread panel, in the registry (`for_panel!`).
pub struct HashSpreadPanel;

impl PanelSpec for HashSpreadPanel {
    type Params = HashSpreadParams;
    type Run = HashSpreadRun;
    const SLUG: &'static str = "hash";
    const TITLE: &'static str = "Hash spread";
    const FIGURES: &'static [Figure] = &[KEY_NUMBERS, STRIP, BUCKETS];
    const PRESETS: &'static [Preset] = PRESETS;
    const FIELDS: &'static [Field] = HashSpreadParams::FIELDS;

    fn params(state: &State) -> &HashSpreadParams {
        &state.hash_spread
    }

    fn params_mut(state: &mut State) -> &mut HashSpreadParams {
        &mut state.hash_spread
    }

    fn run(params: &HashSpreadParams, seed: u64) -> Result<HashSpreadRun, InvalidInput> {
        crate::hash_spread::run(params, seed)
    }

    fn key_numbers(params: &HashSpreadParams, run: &HashSpreadRun) -> Vec<KeyNumber> {
        key_numbers(params, run)
    }

    fn time_series(run: &HashSpreadRun) -> Option<TimeSeries> {
        Some(TimeSeries::counted(
            "offset_s",
            "keys",
            &run.bucket_counts,
            f64::from(run.bucket_width),
        ))
    }

    fn snippets(params: &HashSpreadParams) -> Vec<Snippet> {
        snippet::hash::snippets(params)
    }
}

/// The panel's "try this" presets.
pub const PRESETS: &[Preset] = &[
    Preset {
        slug: "seed-15-min",
        title: "The seed's 1,000 keys in 15 minutes",
        lesson: "FarmHash puts the 1,000 random ids about 0.9 s apart on average, and the per-minute counts scatter around 67 as random draws would (χ² ≈ 10 on 14 degrees of freedom): not perfect, but even enough.",
        query: "w=900&bw=60",
    },
    Preset {
        slug: "uuid7-head",
        title: "UUIDv7: why the first bytes are a bad bucket",
        lesson: "A UUIDv7 starts with its creation time, so the first 4 bytes of 1,000 ids made minutes apart take a handful of values and all 1,000 land within seconds of each other, while FarmHash of the whole id spreads them over the day.",
        query: "kk=uuid7&fn2=head",
    },
    Preset {
        slug: "ruby-6-hours",
        title: "Ruby per-user delay over 6 hours",
        lesson: "Random.new(id).rand(21,600) gives users 1 to 1,000 fixed delays as even as FarmHash's (both consistent with uniform), and user 42 always runs 4 h 23 min 15 s into each 6-hour cycle.",
        query: "w=21600&bw=900&kk=seq&fn=ruby&fn2=farm&q=42",
    },
    Preset {
        slug: "mod-vs-mulshift",
        title: "mod vs mulshift on a window that is not a power of two",
        lesson: "FNV-1a on ids 1 to 5,000 spreads evenly under mod, but mulshift keeps only the hash's high bits, which barely feel the last digit, so the same ids clump (χ² = 260 on 23 degrees of freedom).",
        query: "n=5000&kk=seq&fn=fnv&fn2=fnv&rd2=mulshift",
    },
];

/// "χ² = 21.3 on 23 degrees of freedom, p = 0.56: consistent with uniform".
pub fn verdict(uniformity: &Uniformity) -> String {
    let Uniformity {
        chi_square,
        degrees_of_freedom,
        p_value,
    } = *uniformity;
    let p = if p_value < 1e-4 {
        "p < 0.0001".to_string()
    } else {
        format!("p = {}", units::significant(p_value, 2))
    };
    // A uniform spread gives p-values uniform on [0, 1], so both tails are
    // news: tiny p means clumps, p near 1 an evenness chance rarely gives.
    let words = if p_value < 0.001 {
        "far from uniform"
    } else if p_value < 0.05 {
        "uneven; a uniform spread does this 1 time in 20 or less"
    } else if p_value > 0.999 {
        "more even than chance"
    } else {
        "consistent with uniform"
    };
    format!(
        "χ² = {} on {} degrees of freedom, {p}: {words}",
        units::significant(chi_square, 3),
        units::count(u64::from(degrees_of_freedom))
    )
}

/// "1,000 UUIDv4 (random)" or "12 pasted ids".
fn ids_placed(params: &HashSpreadParams, run: &HashSpreadRun) -> String {
    let count = units::count(run.keys.len() as u64);
    if params.ids.0.is_empty() {
        format!("{count} {}", params.key_kind.label())
    } else {
        format!("{count} pasted ids")
    }
}

/// "42 runs at 02:13:07 every day", with the day of the cycle when the
/// window is longer than a day and the repeat when it is shorter.
fn lookup_text(run: &HashSpreadRun) -> String {
    let lookup = &run.lookup;
    let at = clock_with_seconds(lookup.offset);
    let when = if run.window > SECONDS_PER_DAY {
        format!(
            "on day {} of the cycle at {at}",
            lookup.offset / SECONDS_PER_DAY + 1
        )
    } else if run.window < SECONDS_PER_DAY {
        format!(
            "at {at}, then every {}",
            units::duration(f64::from(run.window))
        )
    } else {
        format!("at {at} every day")
    };
    format!("{} runs {when}", lookup.id)
}

/// "hash 718,274,242 → offset 31,042 s", or "drawn → offset …" for Ruby.
fn lookup_offset_text(lookup: &Lookup) -> String {
    let source = lookup.hash.map_or("drawn".to_string(), |h| {
        format!("hash {}", units::count(u64::from(h)))
    });
    format!(
        "{source} → offset {} s",
        units::count(u64::from(lookup.offset))
    )
}

/// The figures the panel prints beside its charts.
pub fn key_numbers(params: &HashSpreadParams, run: &HashSpreadRun) -> Vec<KeyNumber> {
    let n = run.keys.len() as u64;
    let stability = &run.stability;
    vec![
        KeyNumber::new("keys", "Ids placed", ids_placed(params, run), "N"),
        KeyNumber::new(
            "spacing",
            "Mean spacing",
            units::duration(f64::from(run.window) / n as f64),
            "window / N",
        ),
        KeyNumber::new(
            "chi-square",
            "Uniformity, first function",
            verdict(&run.uniformity),
            "Σ (observed − expected)² / expected over the buckets",
        )
        .beside(degrees_of_freedom(&run.uniformity)),
        KeyNumber::new(
            "chi-square-2",
            "Uniformity, second function",
            verdict(&run.second.uniformity),
            "the same test on the second function's offsets",
        )
        .beside(degrees_of_freedom(&run.second.uniformity)),
        largest_gap(&run.largest_gap),
        KeyNumber {
            key: "largest-gap-2",
            label: "Largest gap, second function",
            ..largest_gap(&run.second.largest_gap)
        },
        collisions(&run.collisions),
        KeyNumber {
            key: "collisions-2",
            label: "Ids sharing a second, second function",
            ..collisions(&run.second.collisions)
        },
        KeyNumber::new(
            "moved-on-growth",
            "Ids moved by 10 % more ids",
            percent(stability.on_growth.moved),
            "share of the first N offsets that change, first function",
        )
        .beside(format!(
            "rank-based even spread: {}",
            percent(stability.rank_on_growth.moved)
        )),
        KeyNumber::new(
            "moved-on-window-change",
            "Ids moved by a new window",
            percent(stability.on_window_change.moved),
            "share of offsets that change when W becomes the second window",
        )
        .beside(format!(
            "W = {} s; rank-based even spread: {}",
            units::count(u64::from(stability.second_window)),
            percent(stability.rank_on_window_change.moved)
        )),
        KeyNumber::new(
            "lookup",
            "Look-up",
            lookup_text(run),
            "time of day = offset mod 24 h, the window starting at midnight",
        ),
        KeyNumber::new(
            "lookup-offset",
            "Its hash and offset",
            lookup_offset_text(&run.lookup),
            "offset = hash32(id) reduced to W, first function",
        )
        .beside(format!(
            "second function: offset {} s",
            units::count(u64::from(run.lookup.second_offset))
        )),
    ]
}

/// What χ² a uniform spread expects: about its degrees of freedom.
fn degrees_of_freedom(uniformity: &Uniformity) -> String {
    format!(
        "uniform expects χ² ≈ df = {}",
        units::count(u64::from(uniformity.degrees_of_freedom))
    )
}

/// The longest stretch without a start, beside W·H_N / N.
fn largest_gap(gap: &Gap) -> KeyNumber {
    KeyNumber::new(
        "largest-gap",
        "Largest gap, first function",
        units::duration(f64::from(gap.length)),
        "longest stretch of the window with no start",
    )
    .beside(format!("W·H_N / N = {}", units::duration(gap.expected)))
}

/// The ids that share their second with another, beside the birthday count.
fn collisions(collisions: &Collisions) -> KeyNumber {
    KeyNumber::new(
        "collisions",
        "Ids sharing a second, first function",
        units::count(u64::from(collisions.keys_sharing)),
        "ids whose offset another id also has",
    )
    .beside(format!(
        "N·(1 − (1 − 1/W)^(N−1)) = {}",
        units::significant(collisions.expected_keys_sharing, 3)
    ))
}
