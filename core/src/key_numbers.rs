//! Key numbers: the few figures a panel prints beside its charts.
//!
//! Each is written the way the page shows it, with the formula or rule it
//! comes from, and, where theory predicts it, the predicted value beside
//! the measured one (the measured median gap next to ln 2 / λ), so a reader
//! sees the idea checked. The app prints them and the command line lists
//! them, so a test can compare the page with core word for word.

use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KeyNumber {
    /// A stable name for the number, used by the page and its tests.
    pub key: &'static str,
    pub label: &'static str,
    /// The value as the page writes it, e.g. "3 min 19 s".
    pub value: String,
    /// How the value is measured or computed.
    pub formula: &'static str,
    /// The theory's value, with its formula: "ln 2 / λ = 3 min 20 s".
    pub theory: Option<String>,
}

impl KeyNumber {
    pub fn new(
        key: &'static str,
        label: &'static str,
        value: impl Into<String>,
        formula: &'static str,
    ) -> Self {
        Self {
            key,
            label,
            value: value.into(),
            formula,
            theory: None,
        }
    }

    /// The same number with the value theory predicts for it.
    pub fn beside(self, theory: impl Into<String>) -> Self {
        Self {
            theory: Some(theory.into()),
            ..self
        }
    }
}
