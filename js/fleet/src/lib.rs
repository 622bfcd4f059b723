//! Stampede's fleet reader as its own ES module, `stampede_fleet.js`.
//!
//! `fleet(text, {format, from, hours, seed})` reads a reader's schedules (a
//! fleet file, or one of the native formats `stampede fleet` reads), places
//! every start as its scheduler would over a horizon, and returns the same
//! object as `stampede fleet`: the starts, the load per minute, the peak,
//! the shared minutes, the most crowded minutes, the notices, where every
//! line of the text went (`input`) and the lines it skipped. A bad option throws an `Error` whose message starts with it.
//!
//! It is a module of its own because the parsers, the hashes and the time
//! zone database weigh more than every other computation of the docs
//! module together; a page loads it only when it reads a fleet.

use js_sys::{Array, Error, Object, Reflect};
use serde::Serialize;
use stampede_core::field::not_an_option;
use stampede_core::fleet_format::FleetFormat;
use stampede_core::panels::state::DEFAULT_SEED;
use stampede_fleet::cron::{Horizon, MOST_HORIZON_MINUTES};
use stampede_fleet::file::SkippedLine;
use stampede_fleet::import::{self, InputReport};
use stampede_fleet::{Expansion, time};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = include_str!("types.d.ts");

/// The members `fleet()` takes.
const FLEET_OPTIONS: [&str; 4] = ["format", "from", "hours", "seed"];

/// A fleet's schedules expanded over a horizon: `{format, from, hours,
/// seed}`, `from` in RFC 3339 or Unix seconds (the start of the current UTC
/// day unless given), `hours` from 1 to 744 (24 unless given), `format` one
/// of the formats `stampede fleet --format` takes ("auto" unless given) and
/// `seed` the seed of the delays a scheduler draws at random. Lines that
/// cannot be read are returned in `skipped`, and the rest are still
/// expanded.
#[wasm_bindgen(unchecked_return_type = "FleetResult")]
pub fn fleet(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "FleetOptions")] options: JsValue,
) -> Result<JsValue, Error> {
    let text = text
        .as_string()
        .ok_or_else(|| Error::new("text: expected a string, the fleet's schedules"))?;
    let options = FleetOptions::read(&options)?;
    let imported = import::import(&text, options.format);
    let expansion = imported
        .expand_with_draws(options.from, options.horizon, options.seed)
        .map_err(|e| Error::new(&e.to_string()))?;
    FleetResult {
        expansion: &expansion,
        input: imported.input(),
        skipped: &imported.file.skipped,
    }
    .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
    .map_err(|e| Error::new(&e.to_string()))
}

/// What `fleet` returns: the expansion, where every line went, and the
/// lines that were not read.
#[derive(Serialize)]
struct FleetResult<'a> {
    #[serde(flatten)]
    expansion: &'a Expansion<'a>,
    input: InputReport,
    skipped: &'a [SkippedLine],
}

/// `fleet()`'s options, each as given or its default.
struct FleetOptions {
    format: FleetFormat,
    from: i64,
    horizon: Horizon,
    seed: u64,
}

impl FleetOptions {
    fn read(options: &JsValue) -> Result<Self, Error> {
        let given = !(options.is_undefined() || options.is_null());
        if given {
            if !options.is_object() || Array::is_array(options) {
                return Err(Error::new(
                    "options: expected {format, from, hours, seed}, such as {from: \"2026-01-01T00:00:00Z\", hours: 24}",
                ));
            }
            for key in Object::keys(options.unchecked_ref::<Object>()) {
                let key = key.as_string().unwrap_or_default();
                if !FLEET_OPTIONS.contains(&key.as_str()) {
                    let known = FLEET_OPTIONS.join(", ");
                    return Err(Error::new(&format!(
                        "{key}: not an option of fleet(); its options are {known}"
                    )));
                }
            }
        }
        let member = |name: &str| {
            let value = if given {
                Reflect::get(options, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
            } else {
                JsValue::UNDEFINED
            };
            (!value.is_undefined()).then_some(value)
        };
        let most_hours = MOST_HORIZON_MINUTES / 60;
        let hours = match member("hours") {
            None => 24,
            Some(hours) => whole(&hours, 1.0, f64::from(most_hours)).ok_or_else(|| {
                Error::new(&format!(
                    "hours: expected a whole number of hours from 1 to {most_hours}"
                ))
            })? as u32,
        };
        Ok(Self {
            format: match member("format") {
                None => FleetFormat::Auto,
                Some(format) => format_value(&format)?,
            },
            from: match member("from") {
                None => time::start_of_day((js_sys::Date::now() / 1000.0).floor() as i64),
                Some(from) => from_value(&from)?,
            },
            horizon: Horizon::hours(hours)
                .map_err(|e| Error::new(&format!("hours: {}", e.reason)))?,
            seed: match member("seed") {
                None => DEFAULT_SEED,
                Some(seed) => whole(&seed, 0.0, 9_007_199_254_740_991.0)
                    .ok_or_else(|| Error::new("seed: expected a whole number from 0 to 2^53 - 1"))?
                    as u64,
            },
        })
    }
}

/// `value` if it is a whole number in `[least, most]`.
fn whole(value: &JsValue, least: f64, most: f64) -> Option<f64> {
    value
        .as_f64()
        .filter(|n| n.fract() == 0.0 && (least..=most).contains(n))
}

fn format_value(value: &JsValue) -> Result<FleetFormat, Error> {
    value
        .as_string()
        .and_then(|slug| FleetFormat::from_slug(&slug))
        .ok_or_else(|| {
            let text = value.as_string().unwrap_or_else(|| format!("{value:?}"));
            Error::new(&format!(
                "format: {}",
                not_an_option(&text, FleetFormat::OPTIONS)
            ))
        })
}

/// The Unix second `from` names: RFC 3339 text or a number of seconds.
fn from_value(value: &JsValue) -> Result<i64, Error> {
    if let Some(text) = value.as_string() {
        return time::parse("from", &text).map_err(|e| Error::new(&e.to_string()));
    }
    let seconds = value
        .as_f64()
        .ok_or_else(|| Error::new("from: expected RFC 3339 text or a number of Unix seconds"))?;
    if seconds.fract() != 0.0 || !seconds.is_finite() {
        return Err(Error::new("from: expected a whole number of Unix seconds"));
    }
    // Out of range values saturate, and check_from refuses them.
    time::check_from(seconds as i64).map_err(|e| Error::new(&e.to_string()))
}

#[cfg(test)]
mod types_test;
