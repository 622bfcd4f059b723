//! The reader's own arrivals: a trace of job arrivals read from text
//! ([`parse`]), described ([`describe`]: per hour of day, the busiest
//! second and minute, raw dispersion), diagnosed ([`diagnose`]: Poisson at
//! the trace's own varying rate or not, and what is left: a periodic
//! burst, a daily cycle, overdispersion, self-similarity), and replayed
//! through the queue simulation ([`replay`]) beside the same jobs spread
//! by each strategy.
//!
//! ```
//! use stampede_core::arrivals;
//!
//! let trace = arrivals::parse("time,duration\n2026-01-01T00:00:00Z,2\n1767225601,3\nsoon,1\n").unwrap();
//! assert_eq!(trace.times_us.len(), 2);
//! assert_eq!(trace.refused[0].line, 4);
//! let description = arrivals::describe(&trace.times_us);
//! assert_eq!(description.busiest_minute.arrivals, 2);
//! assert!(arrivals::diagnose(&trace.times_us, 1).sentences[0].starts_with("Too few"));
//! ```

mod burst;
mod calendar;
mod describe;
mod diagnosis;
mod parse;
mod rate;
mod replay;
mod report;
mod words;

pub use self::burst::PeriodicBurst;
pub use self::calendar::{TimeField, WIDEST_OFFSET_S};
pub use self::describe::{Busiest, Description, FANO_WIDTHS, FanoAt, describe};
pub use self::diagnosis::{
    DISPERSION_WIDTHS, DailyCycle, Diagnosis, Dispersion, FanoGrowth, RescaledCheck, diagnose,
};
pub use self::parse::{
    EpochUnit, MAX_BYTES, MAX_ROWS, RefusedRow, RowRefusal, TIMESTAMP_NAMES, Trace, TraceLayout,
    parse, refused_csv,
};
pub use self::replay::{IMPORTED, Replay, replay};
pub use self::report::{ArrivalsReport, report};

/// `at_us` (microseconds since the epoch) as RFC 3339 in UTC, to the
/// millisecond when it has one: `2026-01-01T00:10:00.25Z`. Written here
/// rather than by jiff, whose printer the app's wasm would then carry.
pub fn format_instant(at_us: i64) -> String {
    let seconds = at_us.div_euclid(1_000_000);
    let day = i64::from(crate::units::SECONDS_PER_DAY);
    let Some(date) = crate::units::date_of_day(seconds.div_euclid(day)) else {
        return format!("{at_us} µs");
    };
    let of_day = seconds.rem_euclid(day);
    let millis = at_us.rem_euclid(1_000_000) / 1_000;
    let fraction = match millis {
        0 => String::new(),
        ms => format!(".{ms:03}").trim_end_matches('0').to_string(),
    };
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{fraction}Z",
        date.year(),
        date.month(),
        date.day(),
        of_day / 3_600,
        of_day / 60 % 60,
        of_day % 60
    )
}
