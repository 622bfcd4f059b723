//! Typed panel parameters and how each one is read from text.
//!
//! A model's parameters are a plain struct declared with the model. The
//! panels layer gives it a face with [`panel_params!`](crate::panel_params):
//! one [`Field`] per member (its short URL key, its label and unit, and its
//! allowed range or choices), its default, and the rules that settle values
//! that are each valid but not together. Reading a value from a URL and
//! from a control goes through the same [`PanelParams::set`]: a value out of
//! range is clamped, an unreadable one is refused and the member keeps its
//! value, and either way a [`Notice`] names the field and says why.
//! [`choice_enum!`](crate::choice_enum) declares the options of a choice
//! field, each with its slug, which the codec, the command line and the
//! docs module read with `from_slug`.

use std::fmt;

/// One parameter of a panel, as the URL and the controls see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Field {
    /// The short, stable query-string key.
    pub key: &'static str,
    pub label: &'static str,
    /// The unit shown beside the value; empty when the value has none.
    pub unit: &'static str,
    pub kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A number in `[min, max]`; controls move in multiples of `step`, and a
    /// `log` slider spreads a range over several orders of magnitude evenly.
    Number {
        min: f64,
        max: f64,
        step: f64,
        log: bool,
    },
    /// One of a fixed list of options, written in the URL by slug.
    Choice(&'static [Choice]),
    /// Up to `max` of a fixed list of options, each at most once, written in
    /// the URL as their slugs separated by commas (nothing for none).
    Choices {
        options: &'static [Choice],
        max: usize,
    },
    /// Free text in a small format of the value's own, at most `max_len`
    /// characters; `example` shows the format.
    Text {
        max_len: usize,
        example: &'static str,
    },
    /// A list of up to `max_items` items (such as ids), pasted separated by
    /// commas or whitespace and written in a URL separated by commas. A
    /// page holds the whole list; a link carries as many whole items, from
    /// the first, as fit in `link_chars` characters (see [`link_part`]).
    List {
        max_items: usize,
        link_chars: usize,
        example: &'static str,
    },
}

/// An option of a [`Kind::Choice`] or [`Kind::Choices`] field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    pub slug: &'static str,
    pub label: &'static str,
}

impl Field {
    pub const fn number(
        key: &'static str,
        label: &'static str,
        unit: &'static str,
        (min, max): (f64, f64),
        step: f64,
    ) -> Self {
        Self {
            key,
            label,
            unit,
            kind: Kind::Number {
                min,
                max,
                step,
                log: false,
            },
        }
    }

    /// The same number field with a logarithmic slider.
    pub const fn log(self) -> Self {
        match self.kind {
            Kind::Number { min, max, step, .. } => Self {
                kind: Kind::Number {
                    min,
                    max,
                    step,
                    log: true,
                },
                ..self
            },
            Kind::Choice(_) | Kind::Choices { .. } | Kind::Text { .. } | Kind::List { .. } => self,
        }
    }

    /// A notice about this field.
    pub fn notice(&self, message: impl Into<String>) -> Notice {
        Notice {
            key: self.key,
            label: self.label,
            message: message.into(),
        }
    }

    pub const fn choice(
        key: &'static str,
        label: &'static str,
        options: &'static [Choice],
    ) -> Self {
        Self {
            key,
            label,
            unit: "",
            kind: Kind::Choice(options),
        }
    }

    pub const fn choices(
        key: &'static str,
        label: &'static str,
        options: &'static [Choice],
        max: usize,
    ) -> Self {
        Self {
            key,
            label,
            unit: "",
            kind: Kind::Choices { options, max },
        }
    }

    pub const fn text(
        key: &'static str,
        label: &'static str,
        max_len: usize,
        example: &'static str,
    ) -> Self {
        Self {
            key,
            label,
            unit: "",
            kind: Kind::Text { max_len, example },
        }
    }

    pub const fn list(
        key: &'static str,
        label: &'static str,
        max_items: usize,
        link_chars: usize,
        example: &'static str,
    ) -> Self {
        Self {
            key,
            label,
            unit: "",
            kind: Kind::List {
                max_items,
                link_chars,
                example,
            },
        }
    }

    /// `value` as a link writes it: a list cut to [`link_part`], any other
    /// value whole.
    pub fn in_link<'a>(&self, value: &'a str) -> &'a str {
        match self.kind {
            Kind::List { link_chars, .. } => link_part(value, link_chars),
            _ => value,
        }
    }
}

/// The longest run of whole items, from the first, of a comma-separated
/// `list` that fits in `link_chars` characters.
pub fn link_part(list: &str, link_chars: usize) -> &str {
    match list.char_indices().nth(link_chars) {
        None => list,
        Some((end, ',')) => &list[..end],
        Some((end, _)) => list[..end].rfind(',').map_or("", |cut| &list[..cut]),
    }
}

/// Positions of a logarithmic slider; linear sliders move in the field's step.
pub const LOG_SLIDER_STEPS: f64 = 1000.0;

impl Field {
    /// The range and step of the slider for this number field.
    pub fn slider_range(&self) -> Option<(f64, f64, f64)> {
        match self.kind {
            Kind::Number { log: true, .. } => Some((0.0, LOG_SLIDER_STEPS, 1.0)),
            Kind::Number { min, max, step, .. } => Some((min, max, step)),
            Kind::Choice(_) | Kind::Choices { .. } | Kind::Text { .. } | Kind::List { .. } => None,
        }
    }

    /// Where `value` sits on the slider.
    pub fn slider_position(&self, value: f64) -> f64 {
        match self.kind {
            Kind::Number {
                min,
                max,
                step,
                log: true,
            } => {
                let low = log_low(min, step);
                if value < low {
                    0.0
                } else {
                    LOG_SLIDER_STEPS * (value / low).ln() / (max / low).ln()
                }
            }
            _ => value,
        }
    }

    /// The value at a slider position, snapped to the field's step and range.
    pub fn slider_value(&self, position: f64) -> f64 {
        let Kind::Number {
            min,
            max,
            step,
            log,
        } = self.kind
        else {
            return position;
        };
        let value = if !log {
            position
        } else if min == 0.0 && position <= 0.0 {
            0.0
        } else {
            let low = log_low(min, step);
            low * (max / low).powf(position / LOG_SLIDER_STEPS)
        };
        snap(value, step).clamp(min, max)
    }
}

impl Field {
    /// The value one key press moves a number's slider to from `current`:
    /// up or down one step, or a `big` step (PageUp, PageDown).
    ///
    /// A linear slider moves by its step, ten steps when big. A logarithmic
    /// one climbs a ladder of whole multiples of its step, 1, 2, … 9, 10, 20,
    /// … 90, 100, 200 …, so 20 /s reaches 40 /s in two presses and a big step
    /// is nine rungs, a factor of ten. Its thousand track positions cannot do
    /// this: one position is 1.2 % of a six-decade range, which rounds back
    /// to the same whole number at the low end. A value between rungs goes
    /// to the nearest rung in the direction pressed; only the range's ends
    /// stop a press.
    pub fn step_value(&self, current: f64, up: bool, big: bool) -> f64 {
        let Kind::Number {
            min,
            max,
            step,
            log,
        } = self.kind
        else {
            return current;
        };
        let units = on_grid(current / step);
        let moved = match (log, big) {
            (false, false) => units + if up { 1.0 } else { -1.0 },
            (false, true) => units + if up { 10.0 } else { -10.0 },
            (true, _) => {
                let rungs = if big { 9 } else { 1 };
                (0..rungs).fold(
                    units,
                    |at, _| {
                        if up { rung_above(at) } else { rung_below(at) }
                    },
                )
            }
        };
        snap(moved * step, step).clamp(min, max)
    }

    /// A number as a reader hears it from a slider: its value with
    /// thousands separators and its unit, "8,000 jobs", "40 /s".
    pub fn value_text(&self, value: f64) -> String {
        let number = if value >= 0.0 && value.fract() == 0.0 {
            crate::units::count(value as u64)
        } else {
            crate::units::significant(value, 7)
        };
        match (self.unit, self.readout(value)) {
            ("", _) => number,
            (unit, None) => format!("{number} {unit}"),
            (unit, Some(readout)) => format!("{number} {unit} ({readout})"),
        }
    }

    /// A duration of two minutes or more that the field gives in seconds
    /// or minutes, as a reader says it: "8 h" for 28,800 s.
    pub fn readout(&self, value: f64) -> Option<String> {
        let seconds = match self.unit {
            "s" => value,
            "min" => value * 60.0,
            _ => return None,
        };
        (seconds >= 120.0).then(|| crate::units::duration(seconds))
    }
}

/// `units` rounded to a whole number when within float noise of one, so
/// that 0.07 / 0.01 counts as 7 steps, not 7.000000000000001.
fn on_grid(units: f64) -> f64 {
    let whole = units.round();
    if (units - whole).abs() < 1e-6 {
        whole
    } else {
        units
    }
}

/// The largest power of ten at or below `units` (at least 1).
fn decade_of(units: f64) -> f64 {
    let mut decade = 1.0;
    while decade * 10.0 <= units {
        decade *= 10.0;
    }
    decade
}

/// The first rung of the 1–9 per decade ladder above `units`.
fn rung_above(units: f64) -> f64 {
    if units < 1.0 {
        return 1.0;
    }
    let decade = decade_of(units);
    ((units / decade).floor() + 1.0) * decade
}

/// The first rung below `units`; 0 below 1 (the range's minimum clamps it).
fn rung_below(units: f64) -> f64 {
    if units <= 1.0 {
        return 0.0;
    }
    // The decade of the rung below: a rung that is a power of ten steps
    // down into the decade under it (100 to 90).
    let decade = decade_of(units);
    let decade = if units == decade {
        decade / 10.0
    } else {
        decade
    };
    ((units / decade).ceil() - 1.0) * decade
}

/// Where a logarithmic slider's scale starts: its minimum, or for a range
/// from 0, one step above it, with 0 itself at the slider's first position.
fn log_low(min: f64, step: f64) -> f64 {
    if min > 0.0 { min } else { step }
}

/// `value` rounded to a multiple of `step`. Fractional steps divide by their
/// inverse, so 0.07 stays 0.07 instead of becoming 7 × 0.01 = 0.07000000000000001.
fn snap(value: f64, step: f64) -> f64 {
    if step >= 1.0 {
        (value / step).round() * step
    } else {
        let per_unit = (1.0 / step).round();
        (value * per_unit).round() / per_unit
    }
}

/// A parameter that was not taken as written, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The query-string key of the parameter.
    pub key: &'static str,
    pub label: &'static str,
    pub message: String,
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", self.label, self.key, self.message)
    }
}

/// A value type a [`Field`] can hold.
pub trait FieldValue: Clone + PartialEq + fmt::Debug + Sized {
    /// Reads `raw` for `field`. `Ok((value, None))` takes it as written,
    /// `Ok((value, Some(why)))` takes an adjusted value, `Err(why)` refuses it.
    fn parse(raw: &str, field: &Field) -> Result<(Self, Option<String>), String>;
    /// The value as written in a URL; `parse` reads it back unchanged.
    fn encode(&self) -> String;
    /// The value a notice says is in use, after "; using"; `None` when the
    /// note already says it (a list of thousands is not repeated there).
    fn in_use(&self) -> Option<String> {
        Some(self.encode())
    }
    /// A line for the page to show under the control, when the value needs
    /// one (how many of a list's items a link carries).
    fn status(&self) -> Option<String> {
        None
    }
}

/// `text` as a number, when it reads as a finite `f64`; `None` for text
/// that is not a number, and for infinity and NaN.
pub fn parse_finite(text: &str) -> Option<f64> {
    text.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// Reads a finite number and clamps it into the field's range.
fn parse_number(raw: &str, field: &Field) -> Result<(f64, Option<String>), String> {
    let Kind::Number { min, max, .. } = field.kind else {
        return Err("is not a number field".into());
    };
    let text = raw.trim();
    let Some(value) = parse_finite(text) else {
        return Err(format!("\"{}\" is not a number", shorten(text)));
    };
    if value < min {
        Ok((
            min,
            Some(format!("{} is below the minimum {min}", shorten(text))),
        ))
    } else if value > max {
        Ok((
            max,
            Some(format!("{} is above the maximum {max}", shorten(text))),
        ))
    } else {
        Ok((value, None))
    }
}

/// At most 24 characters of a rejected input, so a notice stays readable
/// even when a URL carries 100 KB in one value.
pub fn shorten(text: &str) -> String {
    match text.char_indices().nth(24) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

impl FieldValue for f64 {
    fn parse(raw: &str, field: &Field) -> Result<(Self, Option<String>), String> {
        parse_number(raw, field)
    }

    fn encode(&self) -> String {
        // Rust prints the shortest text that parses back to the same f64.
        self.to_string()
    }
}

impl FieldValue for u32 {
    fn parse(raw: &str, field: &Field) -> Result<(Self, Option<String>), String> {
        let (value, note) = parse_number(raw, field)?;
        let whole = value.round();
        let note = match note {
            None if whole != value => Some(format!("{value} is not a whole number")),
            note => note,
        };
        // In range by now, and every range of a u32 field lies within u32.
        Ok((whole as u32, note))
    }

    fn encode(&self) -> String {
        self.to_string()
    }
}

/// Several options of a choice enum, each at most once, in the order given:
/// the value of a [`Kind::Choices`] field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChoiceSet<T>(Vec<T>);

impl<T: PartialEq> ChoiceSet<T> {
    /// The options in `items` in their order, a repeated one kept once.
    pub fn new(items: impl IntoIterator<Item = T>) -> Self {
        let mut kept = Vec::new();
        for item in items {
            if !kept.contains(&item) {
                kept.push(item);
            }
        }
        Self(kept)
    }

    pub fn as_slice(&self) -> &[T] {
        &self.0
    }
}

impl<T: FieldValue> FieldValue for ChoiceSet<T> {
    /// Reads slugs separated by commas, ignoring spaces around them and empty
    /// pieces. An unknown slug, or more options than the field allows,
    /// refuses the whole list; a repeated slug is dropped with a note.
    fn parse(raw: &str, field: &Field) -> Result<(Self, Option<String>), String> {
        let Kind::Choices { max, .. } = field.kind else {
            return Err("is not a multiple-choice field".into());
        };
        let mut items = Vec::new();
        let mut repeated = Vec::new();
        for piece in raw
            .split(',')
            .map(str::trim)
            .filter(|piece| !piece.is_empty())
        {
            let (item, _) = T::parse(piece, field)?;
            if !items.contains(&item) {
                items.push(item);
            } else if !repeated.contains(&piece) {
                repeated.push(piece);
            }
        }
        if items.len() > max {
            return Err(format!(
                "lists {} options, and at most {max} fit",
                items.len()
            ));
        }
        let note =
            (!repeated.is_empty()).then(|| format!("lists {} more than once", repeated.join(", ")));
        Ok((Self(items), note))
    }

    fn encode(&self) -> String {
        let slugs: Vec<String> = self.0.iter().map(FieldValue::encode).collect();
        slugs.join(",")
    }
}

/// Sets `slot` from `raw` as `field` reads it, for [`panel_params!`]: a
/// function of its own rather than code repeated in every field's branch,
/// so each value type's copy is shared by all fields of that type (it
/// weighs on the wasm bundles).
#[doc(hidden)]
pub fn set_value<T: FieldValue>(slot: &mut T, raw: &str, field: &Field) -> Option<Notice> {
    let why = match T::parse(raw, field) {
        Ok((value, adjusted)) => {
            *slot = value;
            adjusted?
        }
        Err(why) => why,
    };
    // The value in use: the adjusted one, or the kept one after a refusal.
    Some(using_notice(field, why, slot.in_use()))
}

/// The notice of [`set_value`], written once for every value type.
fn using_notice(field: &Field, why: String, in_use: Option<String>) -> Notice {
    field.notice(match in_use {
        Some(value) => format!("{why}; using {value}"),
        None => why,
    })
}

/// The position of the field with `key` in `fields`, for [`panel_params!`].
#[doc(hidden)]
pub fn field_index(fields: &[Field], key: &str) -> Option<usize> {
    fields.iter().position(|field| field.key == key)
}

/// The position in `options` of the one whose slug is `slug`, exactly.
#[doc(hidden)]
pub fn slug_index(slug: &str, options: &[Choice]) -> Option<usize> {
    options.iter().position(|option| option.slug == slug)
}

/// The position in `options` of the one whose slug is `raw` trimmed, or
/// why there is none, for [`choice_enum!`]: one function for every choice
/// rather than a match of its slugs and a message in each, which weigh on
/// the wasm bundles.
#[doc(hidden)]
pub fn parse_choice(raw: &str, options: &[Choice]) -> Result<usize, String> {
    let text = raw.trim();
    slug_index(text, options).ok_or_else(|| not_an_option(text, options))
}

/// Why `text` names none of `options`, listing their slugs.
pub fn not_an_option(text: &str, options: &[Choice]) -> String {
    let slugs: Vec<&str> = options.iter().map(|option| option.slug).collect();
    format!("\"{}\" is not one of {}", shorten(text), slugs.join(", "))
}

/// Declares a fieldless enum whose variants are the options of a choice
/// field, each with its slug (its name in a URL, on the command line and in
/// the docs module) and its label (its name on the page).
#[macro_export]
macro_rules! choice_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = ($slug:literal, $label:literal), )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            pub const OPTIONS: &'static [$crate::field::Choice] =
                &[$($crate::field::Choice { slug: $slug, label: $label }),+];

            pub fn slug(&self) -> &'static str {
                match self { $($name::$variant => $slug,)+ }
            }

            /// The option's name as a reader sees it.
            pub fn label(&self) -> &'static str {
                match self { $($name::$variant => $label,)+ }
            }

            /// The option whose slug is `slug`, exactly.
            pub fn from_slug(slug: &str) -> Option<Self> {
                $crate::field::slug_index(slug, Self::OPTIONS).map(|index| Self::ALL[index])
            }
        }

        impl $crate::field::FieldValue for $name {
            fn parse(
                raw: &str,
                _field: &$crate::field::Field,
            ) -> Result<(Self, Option<String>), String> {
                $crate::field::parse_choice(raw, $name::OPTIONS)
                    .map(|index| ($name::ALL[index], None))
            }

            fn encode(&self) -> String {
                self.slug().to_string()
            }
        }
    };
}

/// What the URL codec and the controls need of a panel's parameters.
pub trait PanelParams {
    fn fields(&self) -> &'static [Field];
    /// The value of the field with `key`, as written in a URL.
    fn value(&self, key: &str) -> Option<String>;
    /// Sets the field with `key` from text. Returns a notice when the text was
    /// adjusted or refused (the field then keeps its value); `None` when it
    /// was taken as written or no field has that key.
    fn set(&mut self, key: &str, raw: &str) -> Option<Notice>;
    /// The status line of the field with `key` (see [`FieldValue::status`]).
    fn status(&self, key: &str) -> Option<String>;
    /// Repairs combinations of values that are each valid but not together.
    fn settle(&mut self) -> Vec<Notice> {
        Vec::new()
    }
    /// Whether the field with `key` changes anything under the other
    /// values (a retry policy does nothing without a downstream that
    /// fails); the controls hide those that do not.
    fn is_relevant(&self, _key: &str) -> bool {
        true
    }
}

/// Gives a model's parameter struct its face in URLs and controls: each
/// member's default and [`Field`], the field as an associated constant
/// (`PoissonParams::PER_DAY.key` is `"n"`, so a misspelt key does not
/// compile), `FIELDS` in the members' order, and [`PanelParams`]. The struct
/// itself is plain data declared with its model; listing every member here
/// is checked by the compiler through `Default`. Settling rules, where a
/// panel has any, go in `settle_rules`, a function
/// `fn(&mut Self) -> Vec<Notice>`; which fields matter under the others,
/// where some do not, in `relevance`, a function `fn(&Self, &str) -> bool`.
#[macro_export]
macro_rules! panel_params {
    (
        impl $name:ty {
            $( $member:ident = $default:expr, $constant:ident : $field:expr; )+
        }
        $(settle_rules = $settle:path;)?
        $(relevance = $relevant:path;)?
    ) => {
        impl Default for $name {
            fn default() -> Self {
                Self { $($member: $default,)+ }
            }
        }

        impl $name {
            $( pub const $constant: $crate::field::Field = $field; )+

            pub const FIELDS: &'static [$crate::field::Field; <[&str]>::len(&[$(stringify!($member)),+])] =
                &[$(Self::$constant),+];
        }

        impl $crate::field::PanelParams for $name {
            fn fields(&self) -> &'static [$crate::field::Field] {
                Self::FIELDS
            }

            // Both find the key once in FIELDS, whose order is the members',
            // rather than comparing it with every key in turn: one string
            // search instead of one per field keeps the wasm smaller.
            #[allow(unused_assignments)]
            fn value(&self, key: &str) -> Option<String> {
                let index = $crate::field::field_index(Self::FIELDS, key)?;
                let mut member = 0;
                $(
                    if index == member {
                        return Some($crate::field::FieldValue::encode(&self.$member));
                    }
                    member += 1;
                )+
                None
            }

            #[allow(unused_assignments)]
            fn set(&mut self, key: &str, raw: &str) -> Option<$crate::field::Notice> {
                let index = $crate::field::field_index(Self::FIELDS, key)?;
                let mut member = 0;
                $(
                    if index == member {
                        return $crate::field::set_value(&mut self.$member, raw, &Self::FIELDS[index]);
                    }
                    member += 1;
                )+
                None
            }

            #[allow(unused_assignments)]
            fn status(&self, key: &str) -> Option<String> {
                let index = $crate::field::field_index(Self::FIELDS, key)?;
                let mut member = 0;
                $(
                    if index == member {
                        return $crate::field::FieldValue::status(&self.$member);
                    }
                    member += 1;
                )+
                None
            }

            $(
                fn settle(&mut self) -> Vec<$crate::field::Notice> {
                    $settle(self)
                }
            )?

            $(
                fn is_relevant(&self, key: &str) -> bool {
                    $relevant(self, key)
                }
            )?
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVENTS: Field = Field::number("n", "Events", "", (1.0, 1_000_000.0), 1.0).log();
    const BASE: Field = Field::number("b", "Base", "s", (0.01, 60.0), 0.01);

    #[test]
    fn a_log_slider_spans_the_orders_of_magnitude_evenly() {
        assert_eq!(EVENTS.slider_range(), Some((0.0, 1000.0, 1.0)));
        assert_eq!(EVENTS.slider_value(0.0), 1.0);
        assert_eq!(EVENTS.slider_value(500.0), 1000.0);
        assert_eq!(EVENTS.slider_value(1000.0), 1_000_000.0);
        assert!((EVENTS.slider_position(300.0) - 412.9).abs() < 0.1);
    }

    #[test]
    fn a_log_slider_from_zero_keeps_zero_at_its_start() {
        const DELAY: Field = Field::number("hi", "Max delay", "min", (0.0, 1440.0), 0.1).log();
        assert_eq!(DELAY.slider_value(0.0), 0.0);
        assert_eq!(DELAY.slider_position(0.0), 0.0);
        assert_eq!(DELAY.slider_value(1000.0), 1440.0);
        // A fifth of the track reaches about 0.7 min, not the 288 min of a
        // linear slider.
        assert_eq!(DELAY.slider_value(200.0), 0.7);
        assert!((DELAY.slider_position(30.0) - 1000.0 * 300f64.ln() / 14_400f64.ln()).abs() < 1e-9);
    }

    /// Every value `presses` presses reach from `from`.
    fn pressed(field: Field, from: f64, up: bool, big: bool, presses: usize) -> Vec<f64> {
        std::iter::successors(Some(from), |&at| Some(field.step_value(at, up, big)))
            .skip(1)
            .take(presses)
            .collect()
    }

    #[test]
    fn arrow_keys_climb_a_log_slider_one_rung_a_press() {
        const LIMIT: Field = Field::number("rps", "Limit", "/s", (1.0, 100_000.0), 1.0).log();
        // The case: 20 to 40 in two presses, and back.
        assert_eq!(pressed(LIMIT, 20.0, true, false, 2), [30.0, 40.0]);
        assert_eq!(pressed(LIMIT, 40.0, false, false, 2), [30.0, 20.0]);
        assert_eq!(
            pressed(EVENTS, 10_000.0, false, false, 2),
            [9_000.0, 8_000.0]
        );
        // Across decades, and down through a power of ten.
        assert_eq!(pressed(LIMIT, 8.0, true, false, 3), [9.0, 10.0, 20.0]);
        assert_eq!(pressed(LIMIT, 200.0, false, false, 3), [100.0, 90.0, 80.0]);
        // A value between rungs goes to the next rung the way pressed.
        assert_eq!(LIMIT.step_value(25.0, true, false), 30.0);
        assert_eq!(LIMIT.step_value(25.0, false, false), 20.0);
        // A big step is a factor of ten.
        assert_eq!(pressed(LIMIT, 20.0, true, true, 2), [200.0, 2_000.0]);
        assert_eq!(pressed(EVENTS, 8_000.0, false, true, 2), [800.0, 80.0]);
        // The ends stop it, and a maximum off the ladder is reached.
        assert_eq!(pressed(LIMIT, 2.0, false, false, 2), [1.0, 1.0]);
        assert_eq!(
            pressed(LIMIT, 90_000.0, true, false, 2),
            [100_000.0, 100_000.0]
        );
        const CYCLE: Field = Field::number("cyc", "Cycle", "s", (60.0, 604_800.0), 60.0).log();
        assert_eq!(
            pressed(CYCLE, 540_000.0, true, false, 2),
            [600_000.0, 604_800.0]
        );
        assert_eq!(CYCLE.step_value(604_800.0, false, false), 600_000.0);
    }

    #[test]
    fn every_press_moves_a_log_slider_until_its_end() {
        const DELAY: Field = Field::number("hi", "Max delay", "min", (0.0, 1440.0), 0.1).log();
        const BASE: Field = Field::number("b", "Base", "s", (0.01, 60.0), 0.01).log();
        for field in [EVENTS, DELAY, BASE] {
            let Kind::Number { min, max, .. } = field.kind else {
                unreachable!()
            };
            for (from, up, end) in [(min, true, max), (max, false, min)] {
                let mut at = from;
                for _ in 0..100 {
                    let next = field.step_value(at, up, false);
                    if at == end {
                        assert_eq!(next, end);
                        break;
                    }
                    assert!(
                        if up { next > at } else { next < at },
                        "{} stuck at {at}",
                        field.key
                    );
                    at = next;
                }
                assert_eq!(at, end, "{} never reached {end}", field.key);
            }
        }
        // Fractional steps land on clean values.
        assert_eq!(pressed(DELAY, 0.0, true, false, 3), [0.1, 0.2, 0.3]);
        assert_eq!(pressed(BASE, 0.07, true, false, 4), [0.08, 0.09, 0.1, 0.2]);
    }

    #[test]
    fn a_linear_slider_steps_by_its_step() {
        assert_eq!(pressed(BASE, 0.07, true, false, 2), [0.08, 0.09]);
        assert_eq!(BASE.step_value(0.07, false, true), 0.01);
        assert_eq!(BASE.step_value(60.0, true, false), 60.0);
    }

    #[test]
    fn a_slider_says_its_value_and_unit() {
        const JOBS: Field = Field::number("n", "Jobs", "jobs", (1.0, 1_000_000.0), 1.0).log();
        assert_eq!(JOBS.value_text(8_000.0), "8,000 jobs");
        assert_eq!(BASE.value_text(0.07), "0.07 s");
        assert_eq!(BASE.value_text(3_599.99), "3599.99 s (60 min)");
        assert_eq!(BASE.value_text(28_800.0), "28,800 s (8 h)");
        assert_eq!(BASE.value_text(119.0), "119 s");
        assert_eq!(EVENTS.value_text(1_000_000.0), "1,000,000");
    }

    #[test]
    fn a_link_part_ends_at_the_last_whole_item_that_fits() {
        assert_eq!(link_part("ab,cd,ef", 8), "ab,cd,ef");
        assert_eq!(link_part("ab,cd,ef", 7), "ab,cd");
        assert_eq!(link_part("ab,cd,ef", 5), "ab,cd");
        assert_eq!(link_part("ab,cd,ef", 4), "ab");
        assert_eq!(link_part("abc,d", 2), "");
        // Characters, not bytes.
        assert_eq!(link_part("éé,ü", 4), "éé,ü");
    }

    #[test]
    fn linear_sliders_snap_to_clean_steps() {
        assert_eq!(BASE.slider_range(), Some((0.01, 60.0, 0.01)));
        assert_eq!(BASE.slider_value(0.01 * 7.0), 0.07);
        assert_eq!(BASE.slider_value(0.3 + 0.6), 0.9);
        assert_eq!(BASE.slider_value(99.0), 60.0);
    }
}
