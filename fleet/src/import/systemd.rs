//! systemd `.timer` units, read as `systemd` fleet lines.
//!
//! Several units go in one paste, each after a line `# file: name.timer`
//! that names it; the unit's name is what systemd hashes into the fixed
//! delays, so it must be the file's name. A unit before any such line is
//! read as `unnamed.timer`, with a note. A line `# machines: ID ID …`
//! (anywhere, as often as needed; each ID the 32 hex digits of
//! `/etc/machine-id`) says which machines run every unit of the paste.
//!
//! In each unit's `[Timer]` section, every `OnCalendar=` becomes one line
//! per machine (one line with no `MachineID=` when no machine is listed)
//! on the `OnCalendar=`'s own line: id the unit's name, spec the
//! expression, and the unit's `RandomizedDelaySec=`, `FixedRandomDelay=`,
//! `RandomizedOffsetSec=` and `AccuracySec=` as options, wherever in the
//! section they stand. As systemd reads a unit, a later assignment of a
//! setting wins, an empty one resets it, and an empty `OnCalendar=` drops
//! the ones before it; a line ending in `\` goes on on the next, and lines
//! starting `#` or `;` are comments. Timers counted from boot or from the
//! unit's own runs (`OnBootSec=`, `OnUnitActiveSec=`, …) are not on the
//! calendar and are skipped with a notice.

use std::collections::BTreeMap;

use super::{NativeTranslation, split_files};
use crate::line::System;

/// The line that names the unit after it.
pub const FILE_MARK: &str = "# file:";
/// The line that lists the machines every unit runs on.
pub const MACHINES_MARK: &str = "# machines:";
/// The name a unit before any [`FILE_MARK`] is read as.
pub const DEFAULT_UNIT: &str = "unnamed.timer";

/// The `[Timer]` settings passed on as options, by their fleet keys.
const PASSED_KEYS: [&str; 4] = [
    "RandomizedDelaySec",
    "FixedRandomDelay",
    "RandomizedOffsetSec",
    "AccuracySec",
];

/// The monotonic timers: they count from an event, not the calendar.
const MONOTONIC_KEYS: [&str; 5] = [
    "OnActiveSec",
    "OnBootSec",
    "OnStartupSec",
    "OnUnitActiveSec",
    "OnUnitInactiveSec",
];

/// Translates `.timer` units into fleet lines.
pub fn translate(text: &str) -> NativeTranslation {
    let mut out = NativeTranslation::default();
    let machines = machines(text, &mut out);
    for part in split_files(text, FILE_MARK) {
        let name = part
            .name
            .map(|(_, name)| name)
            .filter(|name| !name.is_empty());
        let unit = read_unit(part.text, part.first_line, &mut out);
        for (line, calendar) in &unit.calendars {
            if name.is_none() {
                out.note(*line, format!("no \"{FILE_MARK} name.timer\" line names this unit, so its delays hash the name {DEFAULT_UNIT}"));
            }
            let mut options: Vec<(&str, &str)> = unit
                .passed
                .iter()
                .filter_map(|(key, value)| Some((*key, value.as_deref()?)))
                .collect();
            let name = name.unwrap_or(DEFAULT_UNIT);
            if machines.is_empty() {
                out.push(*line, System::Systemd, name, calendar, &options);
            }
            for machine in &machines {
                options.push(("MachineID", machine));
                out.push(*line, System::Systemd, name, calendar, &options);
                options.pop();
            }
            if out.is_full() {
                return out;
            }
        }
    }
    out
}

/// The machine ids every `# machines:` line lists; an id that is not 32
/// hex digits is skipped.
fn machines<'a>(text: &'a str, out: &mut NativeTranslation) -> Vec<&'a str> {
    let mut machines = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let Some(ids) = raw.trim().strip_prefix(MACHINES_MARK) else {
            continue;
        };
        for id in ids.split_whitespace() {
            if id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
                machines.push(id);
            } else {
                out.skip(
                    index + 1,
                    "MachineID",
                    format!("{id:?} is not a machine id: /etc/machine-id holds 32 hex digits"),
                );
            }
        }
    }
    machines
}

/// What a unit's `[Timer]` section sets.
pub(crate) struct TimerUnit {
    /// Each `OnCalendar=` in force, with its line.
    pub(crate) calendars: Vec<(usize, String)>,
    /// The last value of each of [`PASSED_KEYS`], if set.
    passed: [(&'static str, Option<String>); 4],
    /// The line of each key's last assignment, the one in force.
    pub(crate) last_set: BTreeMap<String, usize>,
}

/// Reads the `[Timer]` section of a unit's text, which starts on
/// `first_line`.
pub(crate) fn read_unit(text: &str, first_line: usize, out: &mut NativeTranslation) -> TimerUnit {
    let mut unit = TimerUnit {
        calendars: Vec::new(),
        passed: PASSED_KEYS.map(|key| (key, None)),
        last_set: BTreeMap::new(),
    };
    let mut in_timer = false;
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(index, raw)| (first_line + index, raw));
    while let Some((line, raw)) = lines.next() {
        let mut setting = raw.trim().to_string();
        if setting.starts_with(['#', ';']) {
            continue;
        }
        // Popped in place: a copy a line would make a long run of
        // continued lines quadratic.
        while setting.ends_with('\\') {
            setting.pop();
            match lines.next() {
                Some((_, more)) => {
                    setting.push(' ');
                    setting.push_str(more.trim());
                }
                None => break,
            }
        }
        if setting.starts_with('[') {
            in_timer = setting == "[Timer]";
            continue;
        }
        let Some((key, value)) = setting.split_once('=') else {
            continue;
        };
        if !in_timer {
            continue;
        }
        let (key, value) = (key.trim(), value.trim());
        unit.last_set.insert(key.to_string(), line);
        if key == "OnCalendar" {
            if value.is_empty() {
                unit.calendars.clear();
            } else {
                unit.calendars.push((line, value.to_string()));
            }
        } else if let Some((_, given)) = unit.passed.iter_mut().find(|(name, _)| *name == key) {
            *given = Some(value.to_string()).filter(|value| !value.is_empty());
        } else if MONOTONIC_KEYS.contains(&key) {
            out.skip(line, key, "counts from boot or from the unit's own runs, not on the calendar, so it is not placed");
        }
    }
    unit
}
