//! `types.d.ts` against what `fleet()` really takes and returns.

use std::collections::BTreeSet;

use stampede_core::fleet_format::FleetFormat;
use stampede_fleet::import::{self};
use stampede_fleet::{self, cron::Horizon};

use super::{FLEET_OPTIONS, FleetResult};

const TYPES: &str = include_str!("types.d.ts");

#[path = "../../src/shape.rs"]
mod shape;

use shape::{Nested, assert_shape, interfaces};

#[test]
fn fleet_takes_and_returns_its_declared_shape() {
    let declared: BTreeSet<&str> = FLEET_OPTIONS.into_iter().collect();
    assert_eq!(interfaces(TYPES)["FleetOptions"], declared);
    // `format` lists exactly the formats the core reads.
    let union = TYPES
        .lines()
        .find_map(|line| line.trim().strip_prefix("format?: "))
        .unwrap();
    let slugs: Vec<String> = FleetFormat::OPTIONS
        .iter()
        .map(|option| format!("\"{}\"", option.slug))
        .collect();
    assert_eq!(union, format!("{};", slugs.join(" | ")));
    // A duration, so that the running figures are objects to check; a line
    // made unreadable after reading and a line skipped, so that both lists
    // have one.
    let mut imported = import::import(
        "cron\tbackup\t*/30 * * * *\tDuration=1h\n\
         cron\treport\t0 * * * *\n\
         cron\tbroken\t0 * * * *\n\
         cron\tnightly\t0 1 * * *\tRANDOM_DELAY=30\n\
         bogus\tx\t* * * * *\n",
        FleetFormat::Auto,
    );
    imported.file.lines[2].spec = "61 * * * *".to_string();
    let expansion = imported
        .expand_with_draws(0, Horizon::hours(2).unwrap(), 0)
        .unwrap();
    let read = &imported.file;
    let result = FleetResult {
        expansion: &expansion,
        input: imported.input(),
        skipped: &read.skipped,
    };
    let value = serde_json::to_value(&result).unwrap();
    let nested: &[Nested] = &[
        ("FleetResult", "FleetStart", |v| &v["starts"][0]),
        ("FleetResult", "RunningPeak", |v| &v["running_peak"]),
        ("FleetResult", "BusyMinute", |v| &v["peak"]),
        ("FleetResult", "SharedStarts", |v| &v["shared"]),
        ("FleetResult", "FleetNotice", |v| &v["notices"][0]),
        ("FleetResult", "SkippedLine", |v| &v["skipped"][0]),
        ("FleetResult", "FleetInput", |v| &v["input"]),
        ("FleetInput", "FleetInputPart", |v| &v["parts"][0]),
        ("FleetResult", "DrawnRange", |v| &v["drawn"]),
        ("DrawnRange", "DrawnLine", |v| &v["lines"][0]),
        ("DrawnRange", "PercentileBand", |v| &v["starts"]),
        ("BusyMinute", "FleetStart", |v| &v["jobs"][0]),
    ];
    assert_shape(TYPES, "FleetResult", &value, nested);
    assert_shape(TYPES, "BusyMinute", &value["crowded"][0], nested);
}
