//! Reading arrivals from text: one timestamp a line, or CSV whose header
//! names a timestamp column.
//!
//! The first non-blank line is a header when one of its fields names a
//! timestamp column ([`TIMESTAMP_NAMES`]); other columns are picked by
//! name too (duration, account, kind), the rest ignored. Without a header
//! each line is one timestamp. A timestamp is RFC 3339 (read by jiff) or a
//! bare number of epoch seconds or milliseconds: the unit is guessed once,
//! from the median magnitude (10¹¹ s is the year 5138, 10¹¹ ms March
//! 1973), and stated; a row out of range in it is refused, as is one whose
//! date, clock time or offset no calendar or zone has ([`calendar`]). A BOM and any
//! line end (LF, CRLF, CR) are read as [`crate::line_ends`] says. Rows are read line by line, quotes only within a
//! line, so a stray quote costs its own row and never the rest of the
//! file; every refused row is kept with its line and reason.

mod calendar;

pub use calendar::{TimeField, WIDEST_OFFSET_S};

use std::collections::HashMap;
use std::fmt::{self, Write};

use serde::{Deserialize, Serialize};

use crate::error::InvalidInput;
use crate::line_ends;
use crate::units::counted;
use calendar::{Offset, days_in, impossible_field};

/// The most bytes an import may have: a million CSV rows with a
/// timestamp, a duration, an account and a kind fit.
pub const MAX_BYTES: usize = 64 << 20;
/// The most data rows an import may have, refused ones included.
pub const MAX_ROWS: usize = 1_000_000;

/// Header names of the timestamp column, compared without case.
pub const TIMESTAMP_NAMES: &[&str] = &[
    "timestamp",
    "time",
    "ts",
    "at",
    "start",
    "started_at",
    "start_time",
    "arrival",
    "arrived_at",
    "created_at",
    "enqueued_at",
    "submitted_at",
    "date",
    "datetime",
];
/// Header names of a duration column in seconds.
const DURATION_NAMES: &[&str] = &["duration", "duration_s", "seconds", "runtime", "elapsed"];
/// Header names of a duration column in milliseconds.
const DURATION_MS_NAMES: &[&str] = &["duration_ms", "runtime_ms", "elapsed_ms", "ms"];
const ACCOUNT_NAMES: &[&str] = &[
    "account",
    "account_id",
    "id",
    "user",
    "user_id",
    "tenant",
    "customer",
];
const KIND_NAMES: &[&str] = &["kind", "type", "job", "job_type", "queue"];

/// Bare numbers at or above this magnitude are epoch milliseconds.
const MILLISECONDS_FROM: f64 = 1e11;
/// jiff's range, ±9999 years, in microseconds (rounded inward).
const MAX_ABS_MICROS: f64 = 2.5e17;
/// The longest duration a row may give: 90 days.
const MAX_DURATION_SECONDS: f64 = 90.0 * 86_400.0;

/// How the text was laid out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TraceLayout {
    /// One timestamp a line, no header.
    Lines,
    /// CSV with a header; the names of the columns read.
    Csv {
        timestamp: String,
        duration: Option<String>,
        account: Option<String>,
        kind: Option<String>,
    },
}

/// What a bare number of a timestamp counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EpochUnit {
    Seconds,
    Milliseconds,
}

/// Why a row was refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RowRefusal {
    /// Not RFC 3339 and not a number; the text, shortened.
    Timestamp(String),
    /// A number or instant beyond the years ±9999.
    OutOfRange,
    /// Fewer fields than the header's columns read need.
    MissingField { needed: usize, found: usize },
    /// Not a number of seconds in [0, 90 days].
    Duration(String),
    /// A month, day, hour, minute or second out of its range: month 13,
    /// hour 24.
    NoSuchField { field: TimeField, value: u8 },
    /// A day its month does not have: 2026-02-30.
    NoSuchDay { year: u16, month: u8, day: u8 },
    /// An offset from UTC, in seconds, beyond ±14:00, which jiff would
    /// read (up to ±25:59) and which would move the row by hours.
    OffsetBeyondZones(i32),
}

impl fmt::Display for RowRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Timestamp(text) => write!(
                f,
                "\"{text}\" is not RFC 3339 (2026-01-01T00:00:00Z) or epoch seconds or milliseconds"
            ),
            Self::OutOfRange => write!(f, "the instant lies beyond the years ±9999"),
            Self::MissingField { needed, found } => {
                write!(
                    f,
                    "{} where the header needs {needed}",
                    counted(*found as u64, "field", "fields")
                )
            }
            Self::Duration(text) => {
                write!(
                    f,
                    "duration \"{text}\" is not a number of seconds from 0 to 90 days"
                )
            }
            Self::NoSuchField { field, value } => {
                let (least, most) = field.range();
                write!(f, "{field} {value} is outside {least} to {most}")
            }
            Self::NoSuchDay { year, month, day } => write!(
                f,
                "day {day} is past the {} days of {year:04}-{month:02}",
                days_in(u32::from(*year), u32::from(*month))
            ),
            Self::OffsetBeyondZones(seconds) => write!(
                f,
                "offset {} is beyond ±14:00, the widest any zone uses",
                Offset(*seconds)
            ),
        }
    }
}

/// A refused row: its line in the text (from 1) and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusedRow {
    pub line: u32,
    pub reason: RowRefusal,
}

/// Every refused row as CSV, "line,reason", for a reader to fix and
/// import again.
pub fn refused_csv(refused: &[RefusedRow]) -> String {
    let mut csv = String::from("line,reason\n");
    for row in refused {
        let reason = row.reason.to_string().replace('"', "\"\"");
        let _ = writeln!(csv, "{},\"{reason}\"", row.line);
    }
    csv
}

/// The arrivals read, sorted by time; the columns beside the times are in
/// the same order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub layout: TraceLayout,
    /// The unit bare numbers were read in; None when there were none.
    pub epoch_unit: Option<EpochUnit>,
    /// Microseconds since 1970-01-01T00:00:00Z, ascending.
    pub times_us: Vec<i64>,
    /// Seconds, when the header names a duration column.
    pub durations_s: Option<Vec<f64>>,
    /// Accounts numbered from 0 in order of first appearance, when the
    /// header names an account column.
    pub accounts: Option<Vec<u32>>,
    /// Distinct accounts; the arrivals when there is no account column.
    pub account_count: u32,
    /// Each kind and its arrivals, most first, when the header names a
    /// kind column.
    pub kinds: Vec<(String, u64)>,
    /// Every refused row, in line order.
    pub refused: Vec<RefusedRow>,
}

impl Trace {
    /// What the reader should know about how the text was read, in words.
    pub fn reading_in_words(&self) -> String {
        let layout = match &self.layout {
            TraceLayout::Lines => "One timestamp a line".to_string(),
            TraceLayout::Csv {
                timestamp,
                duration,
                account,
                kind,
            } => {
                let mut read = format!("CSV: time from \"{timestamp}\"");
                for (what, column) in [("duration", duration), ("account", account), ("kind", kind)]
                {
                    if let Some(column) = column {
                        read.push_str(&format!(", {what} from \"{column}\""));
                    }
                }
                read
            }
        };
        let unit = match self.epoch_unit {
            Some(EpochUnit::Seconds) => "; bare numbers read as epoch seconds",
            Some(EpochUnit::Milliseconds) => {
                "; bare numbers read as epoch milliseconds (they reach 10¹¹, which in seconds would be past the year 5000)"
            }
            None => "",
        };
        format!("{layout}{unit}.")
    }
}

/// Columns of a CSV with a header, by index.
struct Columns {
    timestamp: usize,
    duration: Option<(usize, f64)>,
    account: Option<usize>,
    kind: Option<usize>,
    /// Fields a row needs: one past the last column read.
    needed: usize,
}

/// A timestamp as read, before bare numbers get their unit.
#[derive(Clone, Copy)]
enum Stamp {
    Micros(i64),
    Bare(f64),
}

/// Reads `text` as arrivals. Refuses the whole text only when it is over
/// [`MAX_BYTES`] or [`MAX_ROWS`], or has no row that reads.
pub fn parse(text: &str) -> Result<Trace, InvalidInput> {
    within_size(text)?;
    let normalised = line_ends::normalise(text);
    let mut lines = normalised
        .text
        .lines()
        .enumerate()
        .map(|(index, line)| (index as u32 + 1, line))
        .filter(|(_, line)| !line.trim().is_empty())
        .peekable();
    let columns = lines.peek().and_then(|(_, first)| header(first));
    let layout = match &columns {
        Some((_, layout)) => {
            lines.next();
            layout.clone()
        }
        None => TraceLayout::Lines,
    };
    let columns = columns.map(|(columns, _)| columns);

    let mut stamps = Vec::new();
    let mut durations = Vec::new();
    let mut accounts = Vec::new();
    let mut account_ids: HashMap<&str, u32> = HashMap::new();
    let mut kinds: HashMap<&str, u64> = HashMap::new();
    let mut refused = Vec::new();
    let mut fields = Vec::new();
    let mut rows = 0;
    for (line, row) in lines {
        rows += 1;
        if rows > MAX_ROWS {
            return Err(InvalidInput::new(
                "arrivals",
                format!("more than {MAX_ROWS} rows; cut the file to a span that matters"),
            ));
        }
        let read = match &columns {
            None => stamp(row.trim()).map(|stamp| (stamp, None, None, None)),
            Some(columns) => {
                split_fields(row, &mut fields);
                read_row(columns, &fields)
            }
        };
        match read {
            Ok((stamp, duration, account, kind)) => {
                stamps.push((line, stamp));
                if let Some(duration) = duration {
                    durations.push(duration);
                }
                if let Some(account) = account {
                    let next = account_ids.len() as u32;
                    accounts.push(*account_ids.entry(account).or_insert(next));
                }
                if let Some(kind) = kind {
                    *kinds.entry(kind).or_default() += 1;
                }
            }
            Err(reason) => refused.push(RefusedRow { line, reason }),
        }
    }

    let epoch_unit = epoch_unit(&stamps);
    let mut order: Vec<(i64, u32)> = Vec::with_capacity(stamps.len());
    for (row, &(line, stamp)) in stamps.iter().enumerate() {
        match micros_of(stamp, epoch_unit) {
            Some(micros) => order.push((micros, row as u32)),
            None => refused.push(RefusedRow {
                line,
                reason: RowRefusal::OutOfRange,
            }),
        }
    }
    refused.sort_by_key(|row| row.line);
    if order.is_empty() {
        return Err(nothing_read(&refused));
    }
    // Stable, so rows at one instant keep the file's order.
    if !order.is_sorted_by_key(|&(micros, _)| micros) {
        order.sort_by_key(|&(micros, _)| micros);
    }
    let times_us = order.iter().map(|&(micros, _)| micros).collect::<Vec<_>>();
    let durations_s = in_order(&order, durations);
    let accounts = in_order(&order, accounts);
    let account_count = match &accounts {
        Some(_) => account_ids.len() as u32,
        None => times_us.len() as u32,
    };
    Ok(Trace {
        layout,
        epoch_unit,
        times_us,
        durations_s,
        accounts,
        account_count,
        kinds: most_first(kinds),
        refused,
    })
}

/// `text`'s size against [`MAX_BYTES`].
fn within_size(text: &str) -> Result<(), InvalidInput> {
    if text.len() <= MAX_BYTES {
        return Ok(());
    }
    Err(InvalidInput::new(
        "arrivals",
        format!(
            "{} MB is over the {} MB an import may have",
            text.len() >> 20,
            MAX_BYTES >> 20
        ),
    ))
}

/// Why a text with no readable row is refused: its first bad row.
fn nothing_read(refused: &[RefusedRow]) -> InvalidInput {
    let reason = match refused.first() {
        Some(first) => format!("no row reads; line {}: {}", first.line, first.reason),
        None => "no rows: paste one timestamp a line, or CSV with a timestamp column".into(),
    };
    InvalidInput::new("arrivals", reason)
}

/// Each kind and its arrivals, most first, then by name.
fn most_first(kinds: HashMap<&str, u64>) -> Vec<(String, u64)> {
    let mut kinds: Vec<(String, u64)> = kinds
        .into_iter()
        .map(|(kind, count)| (kind.to_string(), count))
        .collect();
    kinds.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    kinds
}

/// The columns a first line names, when it is a header.
fn header(first: &str) -> Option<(Columns, TraceLayout)> {
    let mut fields = Vec::new();
    split_fields(first, &mut fields);
    let names: Vec<String> = fields.iter().map(|f| f.to_ascii_lowercase()).collect();
    let find = |wanted: &[&str]| {
        names
            .iter()
            .position(|name| wanted.contains(&name.as_str()))
    };
    let timestamp = find(TIMESTAMP_NAMES)?;
    let duration = find(DURATION_NAMES)
        .map(|i| (i, 1.0))
        .or_else(|| find(DURATION_MS_NAMES).map(|i| (i, 1e-3)));
    let account = find(ACCOUNT_NAMES);
    let kind = find(KIND_NAMES);
    let needed = [Some(timestamp), duration.map(|d| d.0), account, kind]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(timestamp)
        + 1;
    let name = |i: usize| fields[i].to_string();
    let layout = TraceLayout::Csv {
        timestamp: name(timestamp),
        duration: duration.map(|(i, _)| name(i)),
        account: account.map(name),
        kind: kind.map(name),
    };
    Some((
        Columns {
            timestamp,
            duration,
            account,
            kind,
            needed,
        },
        layout,
    ))
}

type Row<'a> = (Stamp, Option<f64>, Option<&'a str>, Option<&'a str>);

fn read_row<'a>(columns: &Columns, fields: &[&'a str]) -> Result<Row<'a>, RowRefusal> {
    if fields.len() < columns.needed {
        return Err(RowRefusal::MissingField {
            needed: columns.needed,
            found: fields.len(),
        });
    }
    let stamp = stamp(fields[columns.timestamp])?;
    let duration = columns
        .duration
        .map(|(i, scale)| {
            fields[i]
                .parse::<f64>()
                .ok()
                .map(|d| d * scale)
                .filter(|d| (0.0..=MAX_DURATION_SECONDS).contains(d))
                .ok_or_else(|| RowRefusal::Duration(shortened(fields[i])))
        })
        .transpose()?;
    Ok((
        stamp,
        duration,
        columns.account.map(|i| fields[i]),
        columns.kind.map(|i| fields[i]),
    ))
}

/// Splits one CSV line at commas, trimming each field and dropping the
/// quotes around a quoted one (a doubled quote inside stays doubled: ids
/// and timestamps never hold quotes).
fn split_fields<'a>(line: &'a str, fields: &mut Vec<&'a str>) {
    fields.clear();
    let mut rest = line;
    loop {
        let trimmed = rest.trim_start();
        if let Some(quoted) = trimmed.strip_prefix('"')
            && let Some(end) = quoted.find('"')
        {
            fields.push(&quoted[..end]);
            let after = &quoted[end + 1..];
            match after.find(',') {
                Some(comma) => rest = &after[comma + 1..],
                None => return,
            }
        } else {
            match rest.find(',') {
                Some(comma) => {
                    fields.push(rest[..comma].trim());
                    rest = &rest[comma + 1..];
                }
                None => {
                    fields.push(rest.trim());
                    return;
                }
            }
        }
    }
}

/// A timestamp field: a bare number, or RFC 3339.
fn stamp(field: &str) -> Result<Stamp, RowRefusal> {
    let looks_numeric = field
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_digit() || b == b'-' || b == b'+' || b == b'.');
    if looks_numeric
        && !field.contains(['T', 't', ':', ' '])
        && let Ok(number) = field.parse::<f64>()
    {
        return if number.is_finite() {
            Ok(Stamp::Bare(number))
        } else {
            Err(RowRefusal::Timestamp(shortened(field)))
        };
    }
    if let Some(refusal) = impossible_field(field) {
        return Err(refusal);
    }
    field
        .parse::<jiff::Timestamp>()
        .map(|at| Stamp::Micros(at.as_microsecond()))
        .map_err(|_| RowRefusal::Timestamp(shortened(field)))
}

/// `values`, one per row read, in the order of `order`'s rows; None
/// when the column was not read.
fn in_order<T: Copy>(order: &[(i64, u32)], values: Vec<T>) -> Option<Vec<T>> {
    (!values.is_empty()).then(|| order.iter().map(|&(_, row)| values[row as usize]).collect())
}

/// The unit bare numbers count in: milliseconds when the median's
/// magnitude reaches [`MILLISECONDS_FROM`]; None without bare numbers.
/// The median, so a row or a few far off (`1e300`, a stray id) cannot
/// move every other row to another unit: they are refused instead.
fn epoch_unit(stamps: &[(u32, Stamp)]) -> Option<EpochUnit> {
    let mut magnitudes: Vec<f64> = stamps
        .iter()
        .filter_map(|(_, stamp)| match stamp {
            Stamp::Bare(number) => Some(number.abs()),
            Stamp::Micros(_) => None,
        })
        .collect();
    if magnitudes.is_empty() {
        return None;
    }
    let middle = magnitudes.len() / 2;
    let (_, median, _) = magnitudes.select_nth_unstable_by(middle, f64::total_cmp);
    Some(if *median >= MILLISECONDS_FROM {
        EpochUnit::Milliseconds
    } else {
        EpochUnit::Seconds
    })
}

/// `stamp` in microseconds, None beyond the years ±9999.
fn micros_of(stamp: Stamp, unit: Option<EpochUnit>) -> Option<i64> {
    match stamp {
        Stamp::Micros(micros) => Some(micros),
        Stamp::Bare(number) => {
            let scale = match unit {
                Some(EpochUnit::Milliseconds) => 1e3,
                _ => 1e6,
            };
            let micros = (number * scale).round();
            (micros.abs() <= MAX_ABS_MICROS).then_some(micros as i64)
        }
    }
}

fn shortened(text: &str) -> String {
    const MOST: usize = 40;
    match text.char_indices().nth(MOST) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}
