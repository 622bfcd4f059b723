//! A fleet file's lines as read: the system a spec is written for, its
//! options, the line, the refusal of a line, and the file of them.
//!
//! These are the words every scheduler and the dispatcher ([`crate::plan`])
//! share, so they sit below both and import nothing else from the crate;
//! the reading itself is in [`crate::file`].

use serde::{Deserialize, Serialize};

use stampede_core::choice_enum;

choice_enum! {
    /// The scheduler whose syntax a line's spec is written in.
    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum System {
        Cron = ("cron", "Vixie cron"),
        Jenkins = ("jenkins", "Jenkins (H)"),
        Croniter = ("croniter", "croniter (Python)"),
        Systemd = ("systemd", "systemd OnCalendar"),
        Temporal = ("temporal", "Temporal schedule"),
        Prometheus = ("prometheus", "Prometheus interval"),
        Puppet = ("puppet", "Puppet cron"),
        Quartz = ("quartz", "Quartz cron (Java)"),
        Spring = ("spring", "Spring cron (Java)"),
        EventBridge = ("eventbridge", "EventBridge Scheduler (AWS)"),
        Anacron = ("anacron", "anacron (cronie)"),
        Apscheduler = ("apscheduler", "APScheduler (Python)"),
        #[serde(rename = "sidekiq-cron")]
        SidekiqCron = ("sidekiq-cron", "sidekiq-cron (Ruby)"),
    }
}

/// The longest `Duration=` read: 31 days, the longest horizon.
pub const MOST_DURATION_SECONDS: u64 = 31 * 86_400;
/// The largest `Weight=` read, so weighted sums stay exact in an `f64`.
pub const MOST_WEIGHT: f64 = 1e6;

/// The options of a line, each as given or its default.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LineOptions {
    /// How long each run lasts, in seconds; `None` when not given.
    pub duration_seconds: Option<u64>,
    /// How much one running job counts towards concurrency; 1 by default.
    pub weight: f64,
    /// The system's own options, key and value as written, in the order
    /// given.
    pub own: Vec<(String, String)>,
}

impl LineOptions {
    /// The value given for the system's own option `key`.
    pub fn own(&self, key: &str) -> Option<&str> {
        self.own
            .iter()
            .find(|(given, _)| given == key)
            .map(|(_, value)| value.as_str())
    }
}

impl Default for LineOptions {
    fn default() -> Self {
        Self {
            duration_seconds: None,
            weight: 1.0,
            own: Vec::new(),
        }
    }
}

/// A line read from a fleet file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FleetLine {
    /// 1-based, as an editor numbers it.
    pub line: usize,
    pub system: System,
    pub id: String,
    pub spec: String,
    pub options: LineOptions,
}

/// A line that was not read, the field that stopped it, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SkippedLine {
    pub line: usize,
    /// `system`, `id`, `spec`, or an option's key as written.
    pub field: String,
    pub reason: String,
}

/// Everything read from a fleet file.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FleetFile {
    pub lines: Vec<FleetLine>,
    pub skipped: Vec<SkippedLine>,
}

/// The most lines one fleet is read into; the line past them is skipped
/// with [`past_most_lines`] and the rest are not read, so no paste
/// allocates without bound.
pub const MOST_LINES: usize = 100_000;

/// The refusal of native line `line`, the first past [`MOST_LINES`].
pub fn past_most_lines(line: usize) -> SkippedLine {
    SkippedLine {
        line,
        field: "lines".into(),
        reason: format!(
            "the paste gives more than {} fleet lines; this one and those after it are not read",
            stampede_core::units::count(MOST_LINES as u64)
        ),
    }
}

/// Why a line, or a spec, was refused: the field, and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// `system`, `id`, `spec`, or an option's key as written.
    pub field: String,
    pub reason: String,
}

impl Refusal {
    pub fn new(field: &str, reason: impl Into<String>) -> Self {
        Self {
            field: field.to_string(),
            reason: reason.into(),
        }
    }
}
