//! The plain expansion the fast one in [`crate::expand`] must equal: every
//! start pushed, sorted by time then line, binned, and the crowded minutes
//! found by binary search. Property tests compare the two on random small
//! fleets, so the counting sort cannot drift from it.

use proptest::prelude::*;

use crate::cron::Horizon;
use crate::line::{FleetLine, LineOptions, System};
use crate::plan::LinePlan;
use crate::time::{MICROS_PER_SECOND, Window};
use crate::*;

/// The starts, per-minute starts and running figures, the plain way.
fn expand_by_sorting(lines: &[FleetLine], from: i64, horizon: Horizon) -> Expansion<'_> {
    let minutes = horizon.in_minutes() as usize;
    let (mut starts, mut stopped_at_line) = (Vec::new(), None);
    let mut running_changes = vec![0.0f64; minutes + 1];
    let mut any_duration = false;
    let window = Window {
        from: from * MICROS_PER_SECOND,
        end: (from + horizon.in_seconds()) * MICROS_PER_SECOND,
    };
    let minute = 60 * MICROS_PER_SECOND;
    for line in lines {
        let Ok(plan) = LinePlan::read(line, 7) else {
            continue;
        };
        let before = starts.len();
        let mut ats = Vec::new();
        plan.push_starts(window, &mut ats, usize::MAX);
        for at_micros in ats {
            if starts.len() == MOST_STARTS {
                stopped_at_line = Some(line.line);
                break;
            }
            let (line, id) = (line.line, line.id.as_str());
            starts.push(Start {
                line,
                id,
                at_micros,
            });
        }
        any_duration |= line.options.duration_seconds.is_some();
        for start in &starts[before..] {
            let since_from = start.at_micros - window.from;
            let first = since_from.div_euclid(minute);
            let last = match line.options.duration_seconds {
                Some(duration) => {
                    (since_from + duration as i64 * MICROS_PER_SECOND + minute - 1) / minute
                }
                None => first + 1,
            };
            running_changes[first as usize] += line.options.weight;
            running_changes[last.min(minutes as i64) as usize] -= line.options.weight;
        }
        if stopped_at_line.is_some() {
            break;
        }
    }
    // Stable: lines with the same number stay in fleet order.
    starts.sort_by_key(|start| (start.at_micros, start.line));
    let mut starts_per_minute = vec![0u32; minutes];
    for start in &starts {
        starts_per_minute[((start.at_micros - window.from) / minute) as usize] += 1;
    }
    let running_per_minute = any_duration.then(|| running_sums(&running_changes, minutes));
    let mut order: Vec<u32> = (0..minutes as u32)
        .filter(|&minute| starts_per_minute[minute as usize] > 0)
        .collect();
    order.sort_by_key(|&minute| {
        (
            std::cmp::Reverse(starts_per_minute[minute as usize]),
            minute,
        )
    });
    let crowded: Vec<BusyMinute<'_>> = order
        .into_iter()
        .take(CROWDED_MINUTES)
        .map(|minute| {
            let at = from + 60 * i64::from(minute);
            let first = starts.partition_point(|start| start.at_micros < at * MICROS_PER_SECOND);
            let last =
                starts.partition_point(|start| start.at_micros < (at + 60) * MICROS_PER_SECOND);
            let jobs = starts[first..last].to_vec();
            let starts = starts_per_minute[minute as usize];
            BusyMinute {
                minute,
                at,
                starts,
                jobs,
            }
        })
        .collect();
    Expansion {
        from,
        horizon_minutes: horizon.in_minutes(),
        shared: shared_starts(&starts_per_minute),
        peak: crowded.first().cloned(),
        crowded,
        starts,
        starts_per_minute,
        running_peak: running_per_minute
            .as_deref()
            .and_then(|running| running_peak(running, from)),
        running_per_minute,
        notices: Vec::new(),
        stopped_at_line,
        drawn: None,
    }
}

const SPECS: [&str; 12] = [
    "* * * * *",
    "*/7 * * * *",
    "0 * * * *",
    "30 2 * * *",
    "5/20 */3 * * *",
    "0 9-17 * * mon-fri",
    "0 0 29 2 *",
    "15 12 1,15 * 1",
    "H/15 * * * *",
    "not cron",
    // croniter's, at a second hashed from the id.
    "@hourly",
    "@daily",
];

/// A fleet line: line numbers may repeat and come out of order, durations
/// and weights vary, some lines are Jenkins', some croniter's (starting
/// between minutes) and some do not expand.
fn fleet_line() -> impl Strategy<Value = FleetLine> {
    (
        1usize..12,
        0..SPECS.len(),
        any::<bool>(),
        prop::option::of(0u64..10_000),
        prop_oneof![Just(1.0), 0.0f64..5.0],
    )
        .prop_map(|(line, spec, jenkins, duration_seconds, weight)| {
            let spec = SPECS[spec];
            let system = if spec.starts_with('@') {
                System::Croniter
            } else if jenkins || spec.starts_with('H') {
                System::Jenkins
            } else {
                System::Cron
            };
            FleetLine {
                line,
                system,
                id: format!("job {line} {spec}"),
                spec: spec.to_string(),
                options: LineOptions {
                    duration_seconds,
                    weight,
                    own: Vec::new(),
                },
            }
        })
}

proptest! {
    #[test]
    fn expansion_equals_the_plain_sorted_one(
        lines in prop::collection::vec(fleet_line(), 0..12),
        from in 1_700_000_000i64..1_720_000_000,
        minutes in 1u32..4000,
    ) {
        let horizon = Horizon::minutes(minutes).unwrap();
        let fast = expand(&lines, from, horizon, 7).unwrap();
        let plain = expand_by_sorting(&lines, from, horizon);
        prop_assert_eq!(&fast.starts, &plain.starts);
        prop_assert_eq!(&fast.starts_per_minute, &plain.starts_per_minute);
        // Bit for bit: the changes are summed in the same order.
        let bits = |running: &Option<Vec<f64>>| {
            running.as_ref().map(|r| r.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
        };
        prop_assert_eq!(bits(&fast.running_per_minute), bits(&plain.running_per_minute));
        prop_assert_eq!(fast.running_peak, plain.running_peak);
        prop_assert_eq!(&fast.peak, &plain.peak);
        prop_assert_eq!(&fast.crowded, &plain.crowded);
        prop_assert_eq!(fast.shared, plain.shared);
        prop_assert_eq!(fast.stopped_at_line, plain.stopped_at_line);
    }
}
