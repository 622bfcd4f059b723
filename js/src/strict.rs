//! Parameters given by a program, read strictly.
//!
//! A shared URL is lenient: the app clamps what is out of range, keeps the
//! default for what it cannot read, and shows a notice. A program calling the
//! module wants to hear about its mistake instead, so here every parameter
//! goes through the same codec as a URL (each field set from its text, then
//! the panel's combination rules once, as `State::from_query` does), and the
//! first notice the codec raises becomes the error, as does a key the panel
//! does not have.

use stampede_core::field::{Field, Notice};
use stampede_core::panels::Panel;
use stampede_core::panels::State;
use stampede_core::panels::state::SEED_FIELD;

/// The state for `panel` with `params` (key and text, as in a URL) set, or a
/// message naming the first key the codec would not take as written.
pub fn state(panel: Panel, params: &[(String, String)]) -> Result<State, String> {
    let mut state = State::new(panel);
    let fields = State::fields(panel);
    for (key, raw) in params {
        let notice = if key == SEED_FIELD.key {
            state.set(key, raw).into_iter().next()
        } else if fields.iter().any(|field| field.key == key) {
            state.set_param(panel, key, raw)
        } else {
            return Err(unknown(panel, fields, key));
        };
        if let Some(notice) = notice {
            return Err(refusal(&notice));
        }
    }
    match state.settle(panel).first() {
        Some(notice) => Err(refusal(notice)),
        None => Ok(state),
    }
}

/// The notice as a refusal: `key: why`. The codec ends each notice with
/// "; using X", the value it fell back to; nothing falls back here.
pub fn refusal(notice: &Notice) -> String {
    const USING: &[u8] = b"; using ";
    let message = notice.message.as_str();
    // The last "; using ", looked for among the bytes: a `&str` pattern
    // would bring a substring search (about 2 KB of wasm) into the module.
    let why = message
        .as_bytes()
        .windows(USING.len())
        .rposition(|window| window == USING)
        .and_then(|at| message.get(..at))
        .unwrap_or(message);
    format!("{}: {why}", notice.key)
}

fn unknown(panel: Panel, fields: &[Field], key: &str) -> String {
    let keys: Vec<&str> = fields.iter().map(|field| field.key).collect();
    format!(
        "{key}: not a parameter of the {} panel; its keys are {} and {} for the seed",
        panel.slug(),
        keys.join(", "),
        SEED_FIELD.key,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(key, value)| (key.to_string(), value.to_string()))
            .collect()
    }

    #[test]
    fn values_the_codec_takes_as_written_are_set() {
        let state = state(
            Panel::Poisson,
            &params(&[
                ("n", "300"),
                ("ws", "9"),
                ("we", "17"),
                ("wp", "defer"),
                ("s", "7"),
            ]),
        )
        .unwrap();
        assert_eq!(state.seed, 7);
        assert_eq!(state.poisson.per_day, 300);
        assert_eq!(
            (state.poisson.window_start, state.poisson.window_end),
            (9.0, 17.0)
        );
        assert_eq!(state.poisson.policy.slug(), "defer");
    }

    #[test]
    fn a_value_the_codec_would_adjust_is_refused_by_key() {
        let refused = |pairs: &[(&str, &str)]| state(Panel::Poisson, &params(pairs)).unwrap_err();
        assert_eq!(
            refused(&[("n", "5000000")]),
            "n: 5000000 is above the maximum 1000000"
        );
        assert_eq!(refused(&[("n", "2.5")]), "n: 2.5 is not a whole number");
        assert_eq!(
            refused(&[("wp", "sideways")]),
            "wp: \"sideways\" is not one of scale, defer"
        );
        assert_eq!(refused(&[("s", "-5")]), "s: -5 is below the minimum 0");
        assert!(refused(&[("zzz", "1")]).starts_with("zzz: not a parameter of the poisson panel"));
        // Reserved URL keys are not parameters either.
        assert!(refused(&[("p", "jitter")]).starts_with("p: "));
    }

    #[test]
    fn combinations_are_checked_once_all_values_are_set() {
        // lo above the default hi is fine once hi is set too.
        let both = params(&[("lo", "40"), ("hi", "50")]);
        let jitter = state(Panel::Jitter, &both).unwrap().jitter;
        assert_eq!((jitter.min_delay, jitter.max_delay), (40.0, 50.0));
        let crossed = params(&[("lo", "20"), ("hi", "10")]);
        assert_eq!(
            state(Panel::Jitter, &crossed).unwrap_err(),
            "hi: must be above the min delay"
        );
    }
}
