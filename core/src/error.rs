//! The error a constructor returns for a value it cannot work with.
//!
//! Every computation in core starts from validated parameters; a direct
//! caller (the CLI, the JS module, a test) that passes NaN, a negative rate
//! or an absurd size gets an [`InvalidInput`] naming the field, never a
//! panic or a hang.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidInput {
    /// The name of the offending parameter.
    pub field: &'static str,
    pub reason: String,
}

impl InvalidInput {
    pub fn new(field: &'static str, reason: impl Into<String>) -> Self {
        Self {
            field,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for InvalidInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.reason)
    }
}

impl std::error::Error for InvalidInput {}

/// `x` if it is a finite number.
pub fn finite(field: &'static str, x: f64) -> Result<f64, InvalidInput> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(InvalidInput::new(
            field,
            format!("{x} is not a finite number"),
        ))
    }
}

/// `x` if it is finite and greater than zero.
pub fn positive(field: &'static str, x: f64) -> Result<f64, InvalidInput> {
    if finite(field, x)? > 0.0 {
        Ok(x)
    } else {
        Err(InvalidInput::new(
            field,
            format!("{x} must be greater than 0"),
        ))
    }
}

/// `x` if it is finite and at least zero.
pub fn non_negative(field: &'static str, x: f64) -> Result<f64, InvalidInput> {
    if finite(field, x)? >= 0.0 {
        Ok(x)
    } else {
        Err(InvalidInput::new(
            field,
            format!("{x} must not be negative"),
        ))
    }
}

/// `x` if it lies in `[min, max]`.
pub fn within(field: &'static str, x: f64, min: f64, max: f64) -> Result<f64, InvalidInput> {
    if (min..=max).contains(&finite(field, x)?) {
        Ok(x)
    } else {
        Err(InvalidInput::new(
            field,
            format!("{x} is outside [{min}, {max}]"),
        ))
    }
}

/// `n` if it is at most `max`: caps the sizes that decide how long a
/// computation runs, so no input can freeze the tab.
pub fn count_at_most(field: &'static str, n: u64, max: u64) -> Result<u64, InvalidInput> {
    if n <= max {
        Ok(n)
    } else {
        Err(InvalidInput::new(
            field,
            format!("{n} is above the limit {max}"),
        ))
    }
}
