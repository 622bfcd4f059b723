//! The Fleet panel: a reader's own schedules, where they pile up, and the
//! fix to paste back.
//!
//! Its URL holds the settings ([`FleetParams`]), which the one URL codec
//! ([`crate::panels::state`]) reads and writes; the fleet's text travels in
//! the link's fragment or, for a sample, as the sample's name (`smp`). The
//! fleet itself, and the run that reads and expands the text over one week
//! from midnight UTC of `wk`, live in the fleet crate (`stampede-fleet`,
//! whose `panel` module runs this panel): only the parameters, samples and
//! presets are here, below it.

pub mod samples;

use std::convert::Infallible;

use super::series::TimeSeries;
use super::{Figure, KEY_NUMBERS, PanelSpec, State};
use crate::choice_enum;
use crate::error::InvalidInput;
use crate::field::{Field, FieldValue};
use crate::fleet_format::FleetFormat;
use crate::key_numbers::KeyNumber;
use crate::panel_params;
use crate::preset::Preset;
use crate::units::{SECONDS_PER_DAY, date_of_day, day_of_date};

pub use samples::Sample;

choice_enum! {
    /// The heatmap's grid.
    pub enum HeatView {
        Day = ("day", "A day: hour × minute"),
        Week = ("week", "A week: day × hour"),
    }
}

choice_enum! {
    /// The day of the week the day view shows: the one holding the busiest
    /// minute, or one by its place in the week.
    pub enum ShownDay {
        Peak = ("peak", "The busiest day"),
        Day1 = ("1", "Day 1"),
        Day2 = ("2", "Day 2"),
        Day3 = ("3", "Day 3"),
        Day4 = ("4", "Day 4"),
        Day5 = ("5", "Day 5"),
        Day6 = ("6", "Day 6"),
        Day7 = ("7", "Day 7"),
    }
}

choice_enum! {
    /// What colours a heatmap cell.
    pub enum CellMeasure {
        Starts = ("starts", "Starts"),
        Running = ("running", "Jobs running (needs Duration=)"),
    }
}

choice_enum! {
    /// What the capacity line counts.
    pub enum CapacityUnit {
        Workers = ("workers", "Workers: jobs running at once"),
        PerSecond = ("per-second", "Requests a second to one downstream"),
    }
}

choice_enum! {
    /// How the fix places the lines it moves: hashed into their windows,
    /// levelled, or moved to fit a capacity.
    pub enum FixMethod {
        Hash = ("hash", "Hash each job into its window"),
        Level = ("level", "Level: each job where the load is lowest"),
        Capacity = ("capacity", "Fix to capacity: move the fewest jobs"),
    }
}

choice_enum! {
    /// The small change whose effect the stability figure shows.
    pub enum Probe {
        None = ("none", "No change"),
        Rename = ("rename", "Rename a job"),
        Grow = ("grow", "Add 10 % more jobs"),
        MachineId = ("machine", "Change the machine id"),
        Server = ("server", "Change the Prometheus server"),
    }
}

/// The Fleet panel's settings. The fleet's own text is not among them.
#[derive(Clone, Debug, PartialEq)]
pub struct FleetParams {
    pub sample: Sample,
    pub format: FleetFormat,
    pub week: WeekStart,
    pub view: HeatView,
    pub day: ShownDay,
    pub measure: CellMeasure,
    pub capacity: u32,
    pub capacity_unit: CapacityUnit,
    pub fix: FixMethod,
    pub night: NightWindow,
    pub probe: Probe,
}

panel_params! {
    impl FleetParams {
        sample = Sample::MinuteZero, SAMPLE: Field::choice("smp", "Fleet", Sample::OPTIONS);
        format = FleetFormat::Auto, FORMAT: Field::choice("fmt", "Format", FleetFormat::OPTIONS);
        week = WeekStart::DEFAULT, WEEK: Field::text("wk", "Week from", 10, "2026-01-05");
        view = HeatView::Day, VIEW: Field::choice("vw", "Heatmap", HeatView::OPTIONS);
        day = ShownDay::Peak, DAY: Field::choice("day", "Day", ShownDay::OPTIONS);
        measure = CellMeasure::Starts, MEASURE: Field::choice("by", "Colour by", CellMeasure::OPTIONS);
        capacity = 10, CAPACITY: Field::number("cap", "Capacity", "", (1.0, 1_000_000.0), 1.0).log();
        capacity_unit = CapacityUnit::Workers, CAPACITY_UNIT: Field::choice("cu", "Capacity counts", CapacityUnit::OPTIONS);
        fix = FixMethod::Hash, FIX: Field::choice("fix", "Fix", FixMethod::OPTIONS);
        night = NightWindow::OwnHour, NIGHT: Field::choice("nt", "Nightly jobs may move within", NightWindow::OPTIONS);
        probe = Probe::None, PROBE: Field::choice("chg", "Change", Probe::OPTIONS);
    }
}

/// The midnight (UTC) a panel's week starts at, in Unix seconds; written
/// `YYYY-MM-DD`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeekStart(pub i64);

impl WeekStart {
    /// Monday, 5 January 2026.
    pub const DEFAULT: WeekStart = WeekStart(1_767_571_200);
}

impl FieldValue for WeekStart {
    fn parse(raw: &str, _field: &Field) -> Result<(Self, Option<String>), String> {
        let text = raw.trim();
        let mut parts = text.splitn(3, '-');
        let mut number = |digits: usize| {
            parts
                .next()
                .filter(|part| part.len() == digits && part.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|part| part.parse::<u32>().ok())
        };
        let (Some(year), Some(month), Some(day)) = (number(4), number(2), number(2)) else {
            return Err("expected a date written YYYY-MM-DD, such as 2026-01-05".into());
        };
        let Ok(date) = jiff::civil::Date::new(year as i16, month as i8, day as i8) else {
            return Err(format!("{text} is not a date of the calendar"));
        };
        Ok((
            WeekStart(day_of_date(date) * i64::from(SECONDS_PER_DAY)),
            None,
        ))
    }

    fn encode(&self) -> String {
        match date_of_day(self.0.div_euclid(i64::from(SECONDS_PER_DAY))) {
            Some(date) => format!("{:04}-{:02}-{:02}", date.year(), date.month(), date.day()),
            // Past jiff's years, which no week read from a link reaches.
            None => self.0.to_string(),
        }
    }
}

choice_enum! {
    /// The hours a nightly job may move within when the fix spreads it:
    /// its own hour, or a night the reader picks. The command line's
    /// `--night A-B` takes any.
    pub enum NightWindow {
        OwnHour = ("own", "Its own hour"),
        ToFour = ("0-3", "00:00 to 03:59"),
        ToSix = ("0-5", "00:00 to 05:59"),
        ToEight = ("0-7", "00:00 to 07:59"),
        OneToSix = ("1-6", "01:00 to 06:59"),
    }
}

// The figures, in the order the panel draws them after its key numbers.
pub const HEATMAP: Figure = Figure::new("heatmap", "Where the starts fall");
pub const CONCURRENCY: Figure = Figure::new("concurrency", "Load over time against capacity");
pub const FIX: Figure = Figure::new("fix", "Before and after the fix");

/// The Fleet panel, in the registry (`for_panel!`). Its run reads
/// a fleet's text, which no state holds, in the fleet crate; from a state
/// alone it has none.
pub struct FleetPanel;

impl PanelSpec for FleetPanel {
    type Params = FleetParams;
    type Run = Infallible;
    const SLUG: &'static str = "fleet";
    const TITLE: &'static str = "Fleet";
    const FIGURES: &'static [Figure] = &[KEY_NUMBERS, HEATMAP, CONCURRENCY, FIX];
    const PRESETS: &'static [Preset] = PRESETS;
    const FIELDS: &'static [Field] = FleetParams::FIELDS;

    fn params(state: &State) -> &FleetParams {
        &state.fleet
    }

    fn params_mut(state: &mut State) -> &mut FleetParams {
        &mut state.fleet
    }

    fn run(_params: &FleetParams, _seed: u64) -> Result<Infallible, InvalidInput> {
        Err(InvalidInput::new(
            "p",
            "the Fleet panel reads a fleet's text: give it to `stampede fleet` or the fleet module",
        ))
    }

    fn key_numbers(_params: &FleetParams, run: &Infallible) -> Vec<KeyNumber> {
        match *run {}
    }

    fn time_series(run: &Infallible) -> Option<TimeSeries> {
        match *run {}
    }
}

/// The Fleet panel's presets: each loads a sample and says what it shows,
/// with the numbers the panel shows for it at seed 1.
pub const PRESETS: &[Preset] = &[
    Preset {
        slug: "minute-zero",
        title: "Everyone picked :00",
        lesson: "Every one of the 40 jobs starts on the hour, so 24 start together at Mon 00:00 and all 168 hours of the week hold a pile-up; hashing each job into its own hour leaves at most 2 starts in any minute.",
        query: "smp=cron-minute-0",
    },
    Preset {
        slug: "jenkins-h",
        title: "Jenkins H fixes it",
        lesson: "The 200 jobs on `H H * * *` spread over the day by a hash of their names, but the 30 on `0 0 * * *` all start at Mon 00:00; the fix writes those 30 as `H 0 * * *`, each at its own minute of the midnight hour, and the busiest minute falls from 30 starts to 3.",
        query: "smp=jenkins-h",
    },
    Preset {
        slug: "systemd-delay",
        title: "systemd's delay that moves at every boot, and the fixed one",
        lesson: "Without `FixedRandomDelay=yes` 25 of the 50 machines draw a new delay at every boot; the fix adds it to those 25, and then only a new machine id moves a timer, which moves all 50 of 50 here.",
        query: "smp=systemd-50&chg=machine",
    },
    Preset {
        slug: "prometheus-spread",
        title: "Prometheus already spreads; here is how",
        lesson: "Each of the 500 targets scrapes at its own offset, a hash of the target and the server mod its interval, so the busiest second holds 9 scrapes against a flat rate of 3.17 a second, and a new server moves all 500.",
        query: "smp=prometheus-500&chg=server",
    },
    Preset {
        slug: "kubernetes-hash",
        title: "Kubernetes has no jitter: hash the minute yourself",
        lesson: "The CronJob controller starts each schedule exactly where it is written, so 13 of the 15 jobs start at Mon 00:00; writing each job's minute from a hash of its name, as the fix does for 14 of them, leaves 2 starts in the busiest minute.",
        query: "smp=k8s&vw=week",
    },
];
