//! The Fleet panel's key numbers: the fleet as written, then the fix's
//! figures once the fix has arrived. The page and its end-to-end test find
//! each by its key.

use crate::time::{self, SECONDS_PER_DAY};
use stampede_core::key_numbers::KeyNumber;
use stampede_core::stats::quantile_sorted;
use stampede_core::units::{count, counted, significant};

use stampede_core::panels::fleet::FleetParams;

use super::load::{WEEK_MINUTES, WeekLoad};
use super::report::{FleetFix, FleetRead, lines_skipped};

/// The panel's key numbers: the fleet as written, and the fix's when it
/// has arrived.
pub fn key_numbers(
    params: &FleetParams,
    read: &FleetRead,
    fix: Option<&FleetFix>,
) -> Vec<KeyNumber> {
    let load = &read.load;
    let jobs = match lines_skipped(&read.skipped) {
        0 => count(read.jobs.len() as u64),
        skipped => format!(
            "{} ({} skipped)",
            count(read.jobs.len() as u64),
            counted(skipped, "line", "lines")
        ),
    };
    let mut numbers = vec![
        KeyNumber::new(
            "jobs",
            "Jobs read",
            jobs,
            "schedules read; a line that cannot be read is skipped with its reason",
        ),
        KeyNumber::new(
            "starts",
            "Starts over the week",
            count(load.total_starts),
            "every start in the 7 days from the week's first midnight (UTC)",
        ),
        KeyNumber::new(
            "peak-minute",
            "Busiest minute",
            peak(load, read.from),
            "most starts in one minute [m, m + 1), the earliest of a tie",
        ),
        KeyNumber::new(
            "peak-second",
            "Busiest second",
            format!("{} /s", count(u64::from(load.peak_second_starts))),
            "most starts within one second [k, k + 1) of the week",
        )
        .beside(format!(
            "the flat rate over the week: {} /s",
            significant(load.total_starts as f64 / f64::from(WEEK_MINUTES * 60), 3)
        )),
        shared("shared", "Starts sharing a minute", load),
    ];
    if let Some(p99) = load.running_p99 {
        numbers.push(running("running-p99", "Jobs running, p99", p99, load));
    }
    numbers.push(over_capacity(params, load));
    numbers.extend(drawn(params, load));
    if let Some(fix) = fix {
        let after = &fix.load;
        numbers.push(KeyNumber::new(
            "peak-after",
            "Busiest minute after the fix",
            peak(after, read.from),
            "most starts in one minute of the fixed fleet",
        ));
        numbers.push(over_capacity_after(params, read.from, fix));
        if let Some(p99) = after.running_p99 {
            numbers.push(running(
                "running-p99-after",
                "Jobs running after the fix, p99",
                p99,
                after,
            ));
        }
    }
    numbers
}

/// "230 starts at Mon 00:00", the minute's day of the week and UTC time.
fn peak(load: &WeekLoad, from: i64) -> String {
    let Some(minute) = load.peak_minute else {
        return "no starts".into();
    };
    format!(
        "{} at {}",
        counted(u64::from(load.peak_starts), "start", "starts"),
        minute_words(from, minute)
    )
}

/// Where the fleet draws random delays, the busiest minute and the
/// minutes over capacity across the draws: the other figures are one draw.
fn drawn(params: &FleetParams, load: &WeekLoad) -> Vec<KeyNumber> {
    let Some(drawn) = &load.drawn else {
        return Vec::new();
    };
    let busiest: Vec<f64> = drawn.busiest.iter().map(|&n| f64::from(n)).collect();
    let at = |p| significant(quantile_sorted(&busiest, p).unwrap_or(0.0), 3);
    let mut numbers = vec![KeyNumber::new(
        "peak-drawn",
        "Busiest minute, across draws",
        format!("{} starts; {} or fewer on 9 nights in 10", at(0.5), at(0.9)),
        "the median and 90th percentile (type 7) of the busiest minute of each of 20 more \
         draws of the delays schedulers draw at run time; the figures above are one draw",
    )];
    if let Some(band) = load.drawn_band(params.capacity_unit) {
        let capacity = f64::from(params.capacity);
        let over = band.p90.iter().filter(|&&p90| p90 > capacity).count();
        numbers.push(KeyNumber::new(
            "over-capacity-drawn",
            "Minutes over capacity on 1 night in 10",
            format!(
                "{} of {}",
                count(over as u64),
                count(u64::from(WEEK_MINUTES))
            ),
            "minutes whose 90th percentile (type 7) across the 20 draws is over the capacity: over it on at least 1 night in 10",
        ));
    }
    numbers
}

/// "Mon 00:00": minute `minute` of the week from `from`, its day of the
/// week and UTC time.
fn minute_words(from: i64, minute: u32) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    let at = from + 60 * i64::from(minute);
    let day = DAYS[time::weekday(at.div_euclid(SECONDS_PER_DAY)) as usize];
    let of_day = at.rem_euclid(SECONDS_PER_DAY);
    format!("{day} {:02}:{:02}", of_day / 3600, of_day / 60 % 60)
}

fn shared(key: &'static str, label: &'static str, load: &WeekLoad) -> KeyNumber {
    KeyNumber::new(
        key,
        label,
        format!(
            "{} in {}",
            counted(load.shared_starts, "start", "starts"),
            counted(u64::from(load.shared_minutes), "minute", "minutes")
        ),
        "starts in minutes holding more than one",
    )
}

fn running(key: &'static str, label: &'static str, p99: f64, load: &WeekLoad) -> KeyNumber {
    KeyNumber::new(
        key,
        label,
        significant(p99, 3),
        "99th percentile (type 7) of the weighted jobs running in each minute",
    )
    .beside(format!(
        "at most {} in any minute",
        significant(load.running_peak.unwrap_or(0.0), 3)
    ))
}

/// The minutes of the week over the capacity, the worst of them, and
/// what the capacity is held against.
fn minutes_over(params: &FleetParams, load: &WeekLoad) -> (usize, Option<usize>, &'static str) {
    let (over, worst) = load.minutes_over(params.capacity, params.capacity_unit);
    (over, worst, load.against(params.capacity_unit).formula)
}

/// How many minutes the fix leaves over the capacity, and why: the worst
/// one's starts from lines the fix leaves as written.
fn over_capacity_after(params: &FleetParams, from: i64, fix: &FleetFix) -> KeyNumber {
    let (over, worst, formula) = minutes_over(params, &fix.load);
    let why = match worst {
        None => "every minute is within the capacity".to_string(),
        Some(minute) => {
            let starts = fix.load.starts.get(minute).copied().unwrap_or(0);
            let kept = fix.kept_starts.get(minute).copied().unwrap_or(0);
            let reason = if kept >= params.capacity {
                "more than the capacity on their own, which no move of the others can fix"
            } else {
                "the lines it moved found no emptier minute within their windows"
            };
            format!(
                "the worst, {}, starts {}, {} from lines left as written: {reason}",
                minute_words(from, minute as u32),
                count(u64::from(starts)),
                count(u64::from(kept)),
            )
        }
    };
    KeyNumber::new(
        "over-capacity-after",
        "Minutes over capacity after the fix",
        format!(
            "{} of {}",
            count(over as u64),
            count(u64::from(WEEK_MINUTES))
        ),
        formula,
    )
    .beside(why)
}

/// Minutes of the week over the capacity, counted as the capacity's unit
/// says.
fn over_capacity(params: &FleetParams, load: &WeekLoad) -> KeyNumber {
    let (over, _, formula) = minutes_over(params, load);
    KeyNumber::new(
        "over-capacity",
        "Minutes over capacity",
        format!(
            "{} of {}",
            count(over as u64),
            count(u64::from(WEEK_MINUTES))
        ),
        formula,
    )
}
