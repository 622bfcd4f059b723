use proptest::prelude::*;
use stampede_core::arrivals::{self, EpochUnit, RowRefusal, TimeField, TraceLayout};
use stampede_core::dist::Dist;
use stampede_core::rng::{Purpose, seeded};

const JAN_1_2026: i64 = 1_767_225_600;

#[test]
fn one_rfc3339_timestamp_a_line_is_read_in_any_offset_and_sorted() {
    let trace = arrivals::parse(
        "2026-01-01T00:00:05Z\n\n2026-01-01T01:00:00+01:00\r\n2026-01-01T00:00:01.25Z\n",
    )
    .unwrap();
    assert_eq!(trace.layout, TraceLayout::Lines);
    assert_eq!(trace.epoch_unit, None);
    let at = |s: i64| JAN_1_2026 * 1_000_000 + s;
    assert_eq!(trace.times_us, vec![at(0), at(1_250_000), at(5_000_000)]);
    assert_eq!(trace.account_count, 3);
    assert!(trace.refused.is_empty());
}

#[test]
fn bare_numbers_are_seconds_or_milliseconds_by_magnitude_and_the_guess_is_stated() {
    let seconds = arrivals::parse("1767225600\n1767225601.5\n").unwrap();
    assert_eq!(seconds.epoch_unit, Some(EpochUnit::Seconds));
    assert_eq!(seconds.times_us[1], JAN_1_2026 * 1_000_000 + 1_500_000);
    assert!(seconds.reading_in_words().contains("epoch seconds"));

    let millis = arrivals::parse("1767225600000\n1767225600250\n").unwrap();
    assert_eq!(millis.epoch_unit, Some(EpochUnit::Milliseconds));
    assert_eq!(millis.times_us[1], JAN_1_2026 * 1_000_000 + 250_000);
    assert!(millis.reading_in_words().contains("epoch milliseconds"));

    // Small numbers are seconds from the epoch too: a relative trace.
    let relative = arrivals::parse("0\n30\n90\n").unwrap();
    assert_eq!(relative.times_us, vec![0, 30_000_000, 90_000_000]);
}

#[test]
fn one_number_far_off_is_refused_and_moves_no_other_row_to_another_unit() {
    let mut text: String = (0..100).map(|i| format!("{}\n", JAN_1_2026 + i)).collect();
    text.push_str("1e300\n");
    text.push_str("99999999999999\n");
    let trace = arrivals::parse(&text).unwrap();
    assert_eq!(trace.epoch_unit, Some(EpochUnit::Seconds));
    assert_eq!(trace.times_us[0], JAN_1_2026 * 1_000_000);
    assert_eq!(trace.times_us.len(), 100);
    let lines: Vec<u32> = trace.refused.iter().map(|row| row.line).collect();
    assert_eq!(lines, vec![101, 102]);
}

#[test]
fn a_byte_order_mark_and_any_line_end_read_every_row() {
    let csv = "timestamp,job\n1767225600,a\n1767225601,b\n1767225602,c\n";
    for text in [
        format!("\u{feff}{csv}"),
        csv.replace('\n', "\r"),
        csv.replace('\n', "\r\n"),
        format!("\u{feff}{}", csv.replace('\n', "\r")),
    ] {
        let trace = arrivals::parse(&text).unwrap();
        assert_eq!(trace.times_us.len(), 3, "{text:?}");
        assert!(trace.refused.is_empty(), "{text:?}: {:?}", trace.refused);
    }
}

#[test]
fn csv_columns_are_found_by_name_in_any_order_with_quotes_and_ms_durations() {
    let text = "\"Kind\",account_id,duration_ms,ts,extra\n\
                sync,\"acme\",1500,2026-01-01T00:00:02Z,x\n\
                report,globex,250,1767225600,y\n\
                sync,acme,3000,2026-01-01T00:00:01Z,z\n";
    let trace = arrivals::parse(text).unwrap();
    assert_eq!(
        trace.layout,
        TraceLayout::Csv {
            timestamp: "ts".into(),
            duration: Some("duration_ms".into()),
            account: Some("account_id".into()),
            kind: Some("Kind".into()),
        }
    );
    assert_eq!(trace.durations_s, Some(vec![0.25, 3.0, 1.5]));
    // acme is account 0 (seen first), globex 1; rows sorted by time.
    assert_eq!(trace.accounts, Some(vec![1, 0, 0]));
    assert_eq!(trace.account_count, 2);
    assert_eq!(
        trace.kinds,
        vec![("sync".to_string(), 2), ("report".to_string(), 1)]
    );
}

#[test]
fn a_bad_row_is_reported_by_line_and_the_rest_are_kept() {
    let text = "time,duration\n\
                2026-01-01T00:00:00Z,1\n\
                tomorrow,1\n\
                2026-01-01T00:00:03Z\n\
                2026-01-01T00:00:04Z,-2\n\
                1e300,1\n\
                2026-01-01T00:00:06Z,2\n";
    let trace = arrivals::parse(text).unwrap();
    assert_eq!(trace.times_us.len(), 2);
    let refused: Vec<(u32, &RowRefusal)> =
        trace.refused.iter().map(|r| (r.line, &r.reason)).collect();
    assert_eq!(
        refused,
        vec![
            (3, &RowRefusal::Timestamp("tomorrow".into())),
            (
                4,
                &RowRefusal::MissingField {
                    needed: 2,
                    found: 1
                }
            ),
            (5, &RowRefusal::Duration("-2".into())),
            (6, &RowRefusal::OutOfRange),
        ]
    );
    assert!(trace.refused[0].reason.to_string().contains("RFC 3339"));
}

/// jiff reads offsets up to ±25:59 and refuses impossible dates in its
/// own words; each such row is refused by its line, naming the field,
/// while the widest real offsets, a leap day and a leap second are kept.
#[test]
fn impossible_dates_and_offsets_beyond_any_zone_are_refused_naming_the_field() {
    let text = "2026-01-01T00:00:00+25:00\n\
                2026-01-01T00:00:00+14:00\n\
                2026-01-01T00:00:00-12:00\n\
                2026-01-01T00:00:00-1401\n\
                2026-02-30T00:00:00Z\n\
                2024-02-29T00:00:00Z\n\
                2026-13-01T00:00:00Z\n\
                2026-01-00T00:00:00Z\n\
                2026-01-01T24:00:00Z\n\
                2026-01-01 23:60:00Z\n\
                2026-12-31T23:59:60Z\n\
                2026-04-31T12:00:00.5+05:30\n";
    let trace = arrivals::parse(text).unwrap();
    assert_eq!(trace.times_us.len(), 4, "{:?}", trace.refused);
    let refused: Vec<(u32, String)> = trace
        .refused
        .iter()
        .map(|r| (r.line, r.reason.to_string()))
        .collect();
    let expected = [
        (
            1,
            "offset +25:00 is beyond ±14:00, the widest any zone uses",
        ),
        (
            4,
            "offset -14:01 is beyond ±14:00, the widest any zone uses",
        ),
        (5, "day 30 is past the 28 days of 2026-02"),
        (7, "month 13 is outside 1 to 12"),
        (8, "day 0 is outside 1 to 31"),
        (9, "hour 24 is outside 0 to 23"),
        (10, "minute 60 is outside 0 to 59"),
        (12, "day 31 is past the 30 days of 2026-04"),
    ];
    let expected: Vec<(u32, String)> = expected
        .iter()
        .map(|&(line, reason)| (line, reason.to_string()))
        .collect();
    assert_eq!(refused, expected);
    assert_eq!(
        trace.refused[0].reason,
        RowRefusal::OffsetBeyondZones(25 * 3_600)
    );
    assert_eq!(
        trace.refused[3].reason,
        RowRefusal::NoSuchField {
            field: TimeField::Month,
            value: 13
        }
    );
    // The leap day first, then +14:00, Kiribati's and the widest kept:
    // 2025-12-31T10:00:00Z.
    assert_eq!(trace.times_us[1], (JAN_1_2026 - 14 * 3_600) * 1_000_000);
}

/// The download holds every refused row, its reason quoted as CSV wants.
#[test]
fn refused_rows_are_written_as_csv_by_line_and_reason() {
    let trace = arrivals::parse("2026-01-01T00:00:00Z\nsoon\n2026-02-30T00:00:00Z\n").unwrap();
    assert_eq!(
        arrivals::refused_csv(&trace.refused),
        "line,reason\n\
         2,\"\"\"soon\"\" is not RFC 3339 (2026-01-01T00:00:00Z) or epoch seconds or milliseconds\"\n\
         3,\"day 30 is past the 28 days of 2026-02\"\n"
    );
}

#[test]
fn text_with_no_readable_row_or_too_many_bytes_is_refused_by_name() {
    for text in ["", "\n  \n", "time\nnope\n", "hello"] {
        let error = arrivals::parse(text).unwrap_err();
        assert_eq!(error.field, "arrivals", "{text:?}");
    }
    assert!(
        arrivals::parse("time\nnope\n")
            .unwrap_err()
            .reason
            .contains("line 2")
    );
    let huge = "0\n".repeat(arrivals::MAX_BYTES / 2 + 1);
    assert!(arrivals::parse(&huge).unwrap_err().reason.contains("MB"));
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics_and_every_row_is_kept_or_refused(text in any::<String>()) {
        if let Ok(trace) = arrivals::parse(&text) {
            let rows = text.lines().filter(|line| !line.trim().is_empty()).count();
            let header = usize::from(matches!(trace.layout, TraceLayout::Csv { .. }));
            prop_assert_eq!(trace.times_us.len() + trace.refused.len() + header, rows);
            prop_assert!(trace.times_us.is_sorted());
        }
    }

    #[test]
    fn lines_of_numbers_and_junk_are_each_kept_or_reported_by_their_line(
        rows in prop::collection::vec(prop_oneof![
            (0_u32..2_000_000_000).prop_map(|s| s.to_string()),
            "[a-z:;, ]{1,12}",
            Just("2026-01-01T00:00:00Z".to_string()),
        ], 1..60)
    ) {
        let text = rows.join("\n");
        let bad: Vec<u32> = rows
            .iter()
            .enumerate()
            .filter(|(_, row)| !row.trim().is_empty() && row.parse::<u32>().is_err() && !row.starts_with("2026"))
            .map(|(i, _)| i as u32 + 1)
            .collect();
        match arrivals::parse(&text) {
            Ok(trace) => {
                let header = matches!(trace.layout, TraceLayout::Csv { .. });
                let refused: Vec<u32> = trace.refused.iter().map(|r| r.line).collect();
                if !header {
                    prop_assert_eq!(refused, bad);
                }
            }
            Err(error) => prop_assert_eq!(error.field, "arrivals"),
        }
    }
}

/// `n` arrivals from 2026-01-01 with exponential gaps of mean `mean_gap`
/// seconds, kept to the whole second as logs keep them.
fn poisson_trace(n: usize, mean_gap: f64, seed: u64) -> Vec<i64> {
    let gap = Dist::exponential(1.0 / mean_gap).unwrap();
    let mut rng = seeded(seed, Purpose::new("test.arrivals"));
    let mut at = 0.0;
    (0..n)
        .map(|_| {
            at += gap.sample(&mut rng);
            (JAN_1_2026 + at as i64) * 1_000_000
        })
        .collect()
}

#[test]
fn exponential_gaps_drawn_by_the_core_pass_the_poisson_check() {
    // A day at one arrival every 4 s on average, in whole seconds: spread
    // within their second, the stretched gaps pass at the 5 % level.
    let times = poisson_trace(20_000, 4.0, 7);
    let diagnosis = arrivals::diagnose(&times, 1);
    let check = diagnosis.rescaled.unwrap();
    assert_eq!(check.spread_within_s, 1.0);
    assert!(check.p_value > 0.05, "p = {}", check.p_value);
    assert!(
        check.constant_rate_p_value > 0.05,
        "p = {}",
        check.constant_rate_p_value
    );
    assert!(
        diagnosis.sentences[0].starts_with("Consistent with Poisson at its own rate"),
        "{:?}",
        diagnosis.sentences
    );
    let description = arrivals::describe(&times);
    let cv = description.gap_cv.unwrap();
    assert!((cv - 1.0).abs() < 0.03, "cv {cv}");
    let fano = description.fano_per_minute.unwrap();
    assert!((fano - 1.0).abs() < 0.1, "Fano {fano}");
    assert!(
        diagnosis
            .sentences
            .iter()
            .any(|s| s.starts_with("No evidence of self-similarity")),
        "{:?}",
        diagnosis.sentences
    );
}

#[test]
fn a_burst_every_five_minutes_fails_the_poisson_check_and_is_named_with_its_size() {
    // The same background plus 200 jobs in the first second of every
    // fifth minute.
    let mut times = poisson_trace(20_000, 4.0, 7);
    let day_end = *times.last().unwrap();
    let mut burst = JAN_1_2026 * 1_000_000;
    while burst < day_end {
        times.extend(std::iter::repeat_n(burst, 200));
        burst += 300 * 1_000_000;
    }
    times.sort_unstable();
    let diagnosis = arrivals::diagnose(&times, 1);
    assert!(diagnosis.rescaled.unwrap().p_value < 1e-4);
    assert!(diagnosis.sentences[0].starts_with("Not Poisson"));
    let named = diagnosis.burst.unwrap();
    assert_eq!(named.period_s, 300.0);
    assert_eq!((named.phase_start_s, named.phase_end_s), (0.0, 1.0));
    assert!((named.extra_per_period - 200.0).abs() < 5.0, "{named:?}");
    let description = arrivals::describe(&times);
    let fano = description.fano_per_minute.unwrap();
    assert!(fano > 20.0, "Fano {fano}");
    assert!(description.gap_cv.unwrap() > 2.0);
    assert!(description.busiest_second.arrivals >= 200);
    assert_eq!(description.busiest_second.start_us % 300_000_000, 0);
}

#[test]
fn hours_of_day_busiest_bins_and_fano_widths_count_what_was_given() {
    // Two at 00:00:00, one at 00:00:50, one at 13:30:00.
    let base = JAN_1_2026 * 1_000_000;
    let times = [base, base, base + 50_000_000, base + 48_600_000_000];
    let description = arrivals::describe(&times);
    assert_eq!(description.per_hour_of_day[0], 3);
    assert_eq!(description.per_hour_of_day[13], 1);
    assert_eq!(description.busiest_second.start_us, base);
    assert_eq!(description.busiest_second.arrivals, 2);
    assert_eq!(description.busiest_minute.start_us, base);
    assert_eq!(description.busiest_minute.arrivals, 3);
    let widths: Vec<u32> = description
        .fano_by_width
        .iter()
        .map(|at| at.width_s)
        .collect();
    assert_eq!(widths, vec![1, 10, 60, 600, 3_600]);
    // The 13 whole hours from 00:00 to 13:00 hold 3, then 0 twelve times;
    // the partial hour from 13:00 is left out.
    let hourly = description.fano_by_width[4];
    assert_eq!(hourly.bins, 13);
    let mean = 3.0 / 13.0;
    let variance = (9.0 - 13.0 * mean * mean) / 12.0;
    assert!((hourly.fano.unwrap() - variance / mean).abs() < 1e-12);
}

#[test]
fn a_replay_enqueues_each_arrival_once_with_its_own_duration() {
    use stampede_core::queue::QueueParams;
    // 240 arrivals at the start of each of 10 minutes, 6 s each, on 4
    // workers: each burst of 24 drains in 36 s, the last four waiting 30 s,
    // and nothing is left at the next.
    let mut text = String::from("ts,duration,account\n");
    for minute in 0..10 {
        for job in 0..24 {
            text.push_str(&format!("{},6,a{}\n", JAN_1_2026 + minute * 60, job % 20));
        }
    }
    let trace = arrivals::parse(&text).unwrap();
    assert_eq!(trace.account_count, 20);
    let params = QueueParams {
        workers: 4,
        ..QueueParams::default()
    };
    let replay = arrivals::replay(&params, &trace).unwrap();
    // 20 accounts over 240 arrivals in a span of 541 s (to just past the
    // last): C = 541 · 20 / 240 = 45 s, rounded up to a minute, and the
    // horizon 541 s rounded up to whole cycles.
    assert_eq!(replay.accounts, 20);
    assert_eq!(replay.cycle_seconds, 60);
    assert_eq!(replay.horizon_seconds, 600);
    assert_eq!(replay.mean_duration_s, Some(6.0));
    assert_eq!(replay.names[0].slug, arrivals::IMPORTED);
    assert_eq!(replay.names.len(), 8, "the imported lane and seven spread");
    let words = replay.rule_in_words(240);
    assert!(words.contains("own duration"), "{words}");
    assert!(words.contains("the trace's mean duration, 6 s"), "{words}");
    let run = replay.steps(1).finish().unwrap();
    let imported = &run.lanes[0].run.summary;
    assert_eq!(imported.jobs_enqueued, 240);
    assert_eq!(imported.max_queue_depth, 20);
    assert_eq!(imported.p99_wait_s, 30.0);
    // Spread lanes run N = 20 accounts once a minute: 10 cycles, each job
    // taking the trace's 6 s.
    let spread = &run.lanes[1].run.summary;
    assert_eq!(spread.jobs_enqueued, 200);
    assert!((spread.utilization - imported.utilization * 200.0 / 240.0).abs() < 0.02);
}

#[test]
fn instants_are_written_in_utc_to_the_millisecond_as_jiff_writes_them() {
    for at_us in [
        0_i64,
        1_767_225_600_250_000,
        1_767_225_659_000_000,
        -1_500_000,
        951_782_400_123_456,
    ] {
        let jiff = jiff::Timestamp::from_microsecond(at_us - at_us.rem_euclid(1_000)).unwrap();
        assert_eq!(arrivals::format_instant(at_us), jiff.to_string(), "{at_us}");
    }
}
