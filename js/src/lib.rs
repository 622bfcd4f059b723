//! Stampede's computations as a small ES module for a docs page's own script.
//!
//! Each function takes a plain object whose keys are the app URL's short
//! keys (`{n: 300, ws: 9, we: 17, wp: "defer", s: 7}`) and returns a plain
//! object: the same results the app draws, serialised by serde. Parameters go
//! through the URL codec but strictly (see [`strict`]): whatever the app would
//! adjust with a notice, or an unknown key, throws a JS `Error` whose message
//! starts with the key. `run(query)` instead reads an app URL as leniently as
//! the app does and returns the result together with the notices, and
//! `spread({fn, window, keys, reduce})` places a reader's own keys.
//!
//! `types.d.ts` declares the parameter and result types; wasm-bindgen puts
//! them into the generated `stampede.d.ts` beside the functions' signatures.

mod strict;

use js_sys::{Array, BigInt, Error, Object, Reflect};
use serde::Serialize;
use stampede_core::field::{Choice, Notice, not_an_option};
use stampede_core::hash_spread::{HashMode, Reduction};
use stampede_core::panels::Panel;
use stampede_core::panels::State;
use stampede_core::panels::run::{self, PanelRun};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = include_str!("types.d.ts");

/// Events at random, memoryless times: `n` a day inside a daily window.
#[wasm_bindgen(unchecked_return_type = "PoissonRun")]
pub fn poisson(
    #[wasm_bindgen(unchecked_optional_param_type = "PoissonParams")] params: JsValue,
) -> Result<JsValue, Error> {
    run_panel(Panel::Poisson, &params)
}

/// `n` jobs enqueued at once, each delayed at random.
#[wasm_bindgen(unchecked_return_type = "JitterRun")]
pub fn jitter(
    #[wasm_bindgen(unchecked_optional_param_type = "JitterParams")] params: JsValue,
) -> Result<JsValue, Error> {
    run_panel(Panel::Jitter, &params)
}

/// Retry waits, and a fleet of clients retrying against an outage.
#[wasm_bindgen(unchecked_return_type = "BackoffRun")]
pub fn backoff(
    #[wasm_bindgen(unchecked_optional_param_type = "BackoffParams")] params: JsValue,
) -> Result<JsValue, Error> {
    run_panel(Panel::Backoff, &params)
}

/// Accounts bucketed by id, one slot of the cycle after another.
#[wasm_bindgen(unchecked_return_type = "SlotRun")]
pub fn slots(
    #[wasm_bindgen(unchecked_optional_param_type = "SlotsParams")] params: JsValue,
) -> Result<JsValue, Error> {
    run_panel(Panel::Slots, &params)
}

/// The members `spread()` takes.
const SPREAD_OPTIONS: [&str; 4] = ["fn", "window", "keys", "reduce"];

/// Each key's hash and offset in a window, as the Hash spread panel places
/// it: `{fn, window, keys, reduce}`, `reduce` being "mod" unless given.
#[wasm_bindgen(unchecked_return_type = "KeyOffset[]")]
pub fn spread(
    #[wasm_bindgen(unchecked_param_type = "SpreadOptions")] options: JsValue,
) -> Result<JsValue, Error> {
    if !options.is_object() || Array::is_array(&options) {
        return Err(Error::new(
            "options: expected {fn, window, keys, reduce}, such as {fn: \"murmur\", window: 3600, keys: [\"a\"]}",
        ));
    }
    for key in Object::keys(options.unchecked_ref::<Object>()) {
        let key = key.as_string().unwrap_or_default();
        if !SPREAD_OPTIONS.contains(&key.as_str()) {
            let known = SPREAD_OPTIONS.join(", ");
            return Err(Error::new(&format!(
                "{key}: not an option of spread(); its options are {known}"
            )));
        }
    }
    let member =
        |name: &str| Reflect::get(&options, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED);
    let text = |name: &str, value: JsValue| {
        value
            .as_string()
            .ok_or_else(|| Error::new(&format!("{name}: expected a string")))
    };
    let mode = choice(
        "fn",
        &text("fn", member("fn"))?,
        HashMode::OPTIONS,
        HashMode::from_slug,
    )?;
    let reduction = match member("reduce") {
        absent if absent.is_undefined() => Reduction::Mod,
        given => choice(
            "reduce",
            &text("reduce", given)?,
            Reduction::OPTIONS,
            Reduction::from_slug,
        )?,
    };
    let window = member("window")
        .as_f64()
        .filter(|w| w.fract() == 0.0 && (1.0..=f64::from(u32::MAX)).contains(w))
        .ok_or_else(|| {
            Error::new(&format!(
                "window: expected a whole number of seconds from 1 to {}",
                u32::MAX
            ))
        })?;
    let placement =
        run::placement(mode, reduction, window as u32).map_err(|e| Error::new(&e.to_string()))?;

    let keys = member("keys");
    if !Array::is_array(&keys) {
        return Err(Error::new("keys: expected an array of strings"));
    }
    let keys: Array = keys.unchecked_into();
    if u64::from(keys.length()) > run::MAX_KEYS {
        return Err(Error::new(&format!(
            "keys: more than {} keys",
            run::MAX_KEYS
        )));
    }
    let placed = keys
        .iter()
        .enumerate()
        .map(|(index, key)| {
            let key = text(&format!("keys[{index}]"), key)?;
            run::place_key(&placement, key)
                .map_err(|e| Error::new(&format!("keys[{index}]: {}", e.reason)))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    to_js(&placed)
}

/// The option of a core choice whose slug is `slug`.
fn choice<T>(
    name: &str,
    slug: &str,
    options: &[Choice],
    from_slug: fn(&str) -> Option<T>,
) -> Result<T, Error> {
    from_slug(slug).ok_or_else(|| Error::new(&format!("{name}: {}", not_an_option(slug, options))))
}

/// Reads an app URL, or its query string, as the app does: values out of
/// range are clamped and unreadable ones replaced, each with a notice.
#[wasm_bindgen(unchecked_return_type = "RunOutcome")]
pub fn run(
    #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
) -> Result<JsValue, Error> {
    let query = query
        .as_string()
        .ok_or_else(|| Error::new("query: expected a string, an app URL or its query"))?;
    let (state, notices) = State::from_query(run::query_of(&query));
    let result = run::run(&state).map_err(|e| Error::new(&e.to_string()))?;
    to_js(&RunOutcome {
        result: &result,
        notices: notices.iter().map(NoticeOut::from).collect(),
    })
}

/// What `run` returns.
#[derive(Serialize)]
struct RunOutcome<'a> {
    result: &'a PanelRun,
    notices: Vec<NoticeOut<'a>>,
}

/// A notice as a plain object.
#[derive(Serialize)]
struct NoticeOut<'a> {
    key: &'static str,
    label: &'static str,
    message: &'a str,
}

impl<'a> From<&'a Notice> for NoticeOut<'a> {
    fn from(notice: &'a Notice) -> Self {
        Self {
            key: notice.key,
            label: notice.label,
            message: &notice.message,
        }
    }
}

fn run_panel(panel: Panel, params: &JsValue) -> Result<JsValue, Error> {
    let state = strict::state(panel, &text_params(params)?).map_err(|e| Error::new(&e))?;
    let result = run::run(&state).map_err(|e| Error::new(&e.to_string()))?;
    to_js(&result)
}

/// The members of a parameter object as (key, text) pairs, the text as a URL
/// would hold it. A missing object, or a member set to `undefined`, leaves
/// the defaults.
fn text_params(params: &JsValue) -> Result<Vec<(String, String)>, Error> {
    if params.is_undefined() || params.is_null() {
        return Ok(Vec::new());
    }
    if !params.is_object() || Array::is_array(params) {
        return Err(Error::new(
            "params: expected an object of short keys, such as {n: 300, s: 7}",
        ));
    }
    let mut pairs = Vec::new();
    for entry in Object::entries(params.unchecked_ref()) {
        let entry: Array = entry.unchecked_into();
        let key = entry.get(0).as_string().unwrap_or_default();
        let value = entry.get(1);
        let text = if value.is_undefined() {
            continue;
        } else if let Some(number) = value.as_f64() {
            // Rust prints the shortest text that reads back as the same number.
            number.to_string()
        } else if let Some(text) = value.as_string() {
            text
        } else if value.is_bigint() {
            // Seeds above 2^53 only survive as a BigInt (or a string).
            let digits = value.unchecked_into::<BigInt>().to_string(10);
            digits.map(String::from).unwrap_or_default()
        } else {
            return Err(Error::new(&format!("{key}: expected a number or a string")));
        };
        pairs.push((key, text));
    }
    Ok(pairs)
}

/// `value` as plain JS objects, arrays and numbers: 64-bit integers become
/// numbers, not BigInts, as they would in JSON.
fn to_js(value: &impl Serialize) -> Result<JsValue, Error> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| Error::new(&e.to_string()))
}

#[cfg(test)]
mod types_test;
