//! systemd timers against systemd itself: `systemd_calendar.tsv` holds
//! next elapses from libsystemd-shared 252.39 (checked against
//! `systemd-analyze calendar`), `systemd_delay.tsv` fixed delays from an
//! independent SipHash checked against systemd's own (see the
//! `make_systemd_*.py` beside them). `systemd_accuracy.tsv` is the one
//! exception: `AccuracySec=` wake-ups from a re-implementation of
//! sd-event's source, since no systemd runs where they were made.

use proptest::prelude::*;
use stampede_fleet as fleet;
use stampede_fleet::cron::Horizon;
use stampede_fleet::file::{self, FleetLine, LineOptions, System};
use stampede_fleet::import::systemd as import;
use stampede_fleet::plan::LinePlan;
use stampede_fleet::systemd::{
    FIXED_DELAY_KEY, Manager, OPTION_KEYS, SystemdTimer, accuracy, calendar, fixed_delay_hash,
    timespan,
};
use stampede_fleet::time::Window;

const CALENDAR: &str = include_str!("../data/systemd_calendar.tsv");
const DELAYS: &str = include_str!("../data/systemd_delay.tsv");
const ACCURACY: &str = include_str!("../data/systemd_accuracy.tsv");
/// 2024-02-26T00:00:00Z, a Monday.
const MONDAY: i64 = 1_708_905_600;
const SECOND: i64 = 1_000_000;
const HOUR: i64 = 3600 * SECOND;

fn rows(text: &'static str) -> Vec<Vec<&'static str>> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| line.split('\t').collect())
        .collect()
}

#[test]
fn next_elapses_match_systemd() {
    let rows = rows(CALENDAR);
    assert!(rows.len() >= 100);
    for row in rows {
        let (spec, base, want) = (row[0], row[1].parse::<i64>().unwrap(), row[2]);
        let got = calendar::parse(spec);
        if want == "refused" {
            assert!(got.is_err(), "{spec:?} should be refused: {got:?}");
            continue;
        }
        let parsed = got.unwrap_or_else(|why| panic!("{spec:?}: {why}"));
        let want: Vec<i64> = want
            .split(',')
            .filter(|at| !at.is_empty())
            .map(|at| at.parse().unwrap())
            .collect();
        let mut got = Vec::new();
        let mut at = base;
        while got.len() < 12 {
            let Some(next) = parsed.next_elapse(at) else {
                break;
            };
            got.push(next);
            at = next;
        }
        assert_eq!(got, want, "{spec:?} after {base}");
    }
}

fn machine_id(hex: &str) -> [u8; 16] {
    let mut id = [0u8; 16];
    for (i, byte) in id.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
    }
    id
}

#[test]
fn fixed_delays_match_systemds_hash() {
    let rows = rows(DELAYS);
    assert!(rows.len() >= 100);
    for row in rows {
        let [unit, id, manager, text, span, hash, delay] = row[..] else {
            panic!("{row:?}");
        };
        let manager = match manager.strip_prefix("user:") {
            Some(uid) => Manager::User(uid.parse().unwrap()),
            None => Manager::System,
        };
        let got = fixed_delay_hash(&machine_id(id), manager, unit);
        assert_eq!(format!("{got:016x}"), hash, "{unit:?} {id}");
        match timespan::parse_span(text) {
            Err(_) => assert_eq!(span, "refused", "{text:?}"),
            Ok(micros) => {
                assert_eq!(micros.to_string(), span, "{text:?}");
                assert_eq!((got % micros).to_string(), delay, "{unit:?} {text:?}");
            }
        }
    }
}

/// Key 00..0f over the messages 00, 00 01, …, from the reference
/// implementation's `vectors.h`; 15 bytes is the paper's appendix vector.
#[test]
fn siphash_matches_the_reference_vectors() {
    use siphasher::sip::SipHasher24;
    use std::hash::Hasher;
    let key: [u8; 16] = std::array::from_fn(|i| i as u8);
    let vectors: [(usize, u64); 8] = [
        (0, 0x726f_db47_dd0e_0e31),
        (1, 0x74f8_39c5_93dc_67fd),
        (2, 0x0d6c_8009_d9a9_4f5a),
        (7, 0xab02_00f5_8b01_d137),
        (8, 0x93f5_f579_9a93_2462),
        (15, 0xa129_ca61_49be_45e5),
        (16, 0x3f2a_cc7f_57c2_9bdb),
        (63, 0x958a_324c_eb06_4572),
    ];
    for (length, want) in vectors {
        let message: Vec<u8> = (0..length as u8).collect();
        let mut hasher = SipHasher24::new_with_key(&key);
        hasher.write(&message);
        assert_eq!(hasher.finish(), want, "{length} bytes");
    }
    // The timer's own key, as timer.c spells it.
    assert_eq!(FIXED_DELAY_KEY[..4], [0x51, 0x0a, 0xdb, 0x76]);
}

fn line(id: &str, spec: &str, options: &[(&str, &str)], duration: Option<u64>) -> FleetLine {
    FleetLine {
        line: 7,
        system: System::Systemd,
        id: id.into(),
        spec: spec.into(),
        options: LineOptions {
            duration_seconds: duration,
            weight: 1.0,
            own: options
                .iter()
                .map(|(key, value)| (key.to_string(), value.to_string()))
                .collect(),
        },
    }
}

fn starts(timer: &SystemdTimer, from: i64, hours: i64) -> Vec<i64> {
    let mut out = Vec::new();
    let window = Window {
        from: from * SECOND,
        end: (from + hours * 3600) * SECOND,
    };
    assert!(!timer.push_starts(window, &mut out, usize::MAX));
    out
}

fn timer(spec: &str, options: &[(&str, &str)], duration: Option<u64>) -> SystemdTimer {
    SystemdTimer::read(&line("backup.timer", spec, options, duration), 1).unwrap()
}

#[test]
fn a_fixed_delay_moves_every_elapse_by_the_hash() {
    let plain = starts(&timer("hourly", &[], None), MONDAY, 6);
    let options = [("RandomizedDelaySec", "30min"), ("FixedRandomDelay", "yes")];
    let delayed = timer("hourly", &options, None);
    let delay =
        fixed_delay_hash(&[0; 16], Manager::System, "backup.timer") % (1800 * SECOND as u64);
    assert_eq!(delayed.fixed_delay(), Some(delay));
    let want: Vec<i64> = plain.iter().map(|at| at + delay as i64).collect();
    assert_eq!(starts(&delayed, MONDAY, 6), want);
}

/// The next base is the last start, delay included: an hourly timer
/// whose delay is over an hour fires every other hour.
#[test]
fn a_delay_past_the_next_calendar_time_skips_it() {
    let gaps = |id: &str| {
        let options = [
            ("RandomizedDelaySec", "2h"),
            ("FixedRandomDelay", "yes"),
            ("MachineID", id),
        ];
        let timer = timer("hourly", &options, None);
        let delay = timer.fixed_delay().unwrap() as i64;
        let got = starts(&timer, MONDAY, 24);
        assert_eq!(got[0].rem_euclid(HOUR), delay % HOUR, "{id}");
        let gaps: Vec<i64> = got
            .windows(2)
            .map(|pair| (pair[1] - pair[0]) / HOUR)
            .collect();
        (delay / HOUR, gaps)
    };
    // 1.92 h: the elapse lands after the next hour's calendar time.
    let (hours, every) = gaps("0123456789abcdef0123456789abcdef");
    assert_eq!(hours, 1);
    assert!(every.iter().all(|&gap| gap == 2), "{every:?}");
    // 0.65 h: every hour.
    let (hours, every) = gaps("01010101010101010101010101010101");
    assert_eq!(hours, 0);
    assert!(every.iter().all(|&gap| gap == 1), "{every:?}");
}

#[test]
fn a_long_run_holds_back_the_next_start() {
    // Every 10 minutes, running 25 minutes: the timer waits for the run to
    // end, then starts at once, since the elapse has passed.
    let got = starts(&timer("*:0/10", &[], Some(1500)), MONDAY, 1);
    let minutes: Vec<i64> = got.iter().map(|at| (at / SECOND - MONDAY) / 60).collect();
    assert_eq!(minutes, [0, 25, 50]);
}

#[test]
fn an_offset_shifts_every_elapse_by_the_hash() {
    let options = [("RandomizedOffsetSec", "1h")];
    let timer = timer("daily", &options, None);
    let offset = fixed_delay_hash(&[0; 16], Manager::System, "backup.timer") % HOUR as u64;
    assert_eq!(timer.offset(), offset);
    let got = starts(&timer, MONDAY, 72);
    let want: Vec<i64> = (0..3)
        .map(|day| (MONDAY + day * 86_400) * SECOND + offset as i64)
        .collect();
    assert_eq!(got, want);
}

#[test]
fn random_delays_are_drawn_from_the_seed_and_said_to_be() {
    let options = [("RandomizedDelaySec", "10min")];
    let text = "systemd\tbackup.timer\thourly\tRandomizedDelaySec=10min\n\
                systemd\tfixed.timer\thourly\tRandomizedDelaySec=10min\tFixedRandomDelay=true\n";
    let fleet = file::parse(text);
    assert!(fleet.skipped.is_empty(), "{:?}", fleet.skipped);
    let day = Horizon::hours(24).unwrap();
    let once = fleet::expand(&fleet.lines, MONDAY, day, 5).unwrap();
    let again = fleet::expand(&fleet.lines, MONDAY, day, 5).unwrap();
    let other = fleet::expand(&fleet.lines, MONDAY, day, 6).unwrap();
    assert_eq!(once.starts, again.starts);
    assert_ne!(once.starts, other.starts);
    let drawn: Vec<_> = once
        .notices
        .iter()
        .filter(|notice| notice.message.contains("seed"))
        .collect();
    assert_eq!(drawn.len(), 1);
    assert_eq!(drawn[0].line, 1);
    let plan = LinePlan::read(&line("backup.timer", "hourly", &options, None), 5).unwrap();
    assert!(plan.draws_at_random());
    // Every start lies within the span after its hour.
    for start in once.starts.iter().filter(|start| start.line == 1) {
        assert!(start.at_micros.rem_euclid(HOUR) < 600 * SECOND, "{start:?}");
    }
}

#[test]
fn systemd_lines_expand_to_the_microsecond() {
    let text = "systemd\tbackup.timer\t*:*:0/7.25\n";
    let fleet = file::parse(text);
    let expansion = fleet::expand(&fleet.lines, MONDAY, Horizon::minutes(1).unwrap(), 0).unwrap();
    let got: Vec<i64> = expansion
        .starts
        .iter()
        .map(|start| start.at_micros)
        .collect();
    let want: Vec<i64> = (0..=8).map(|i| MONDAY * SECOND + i * 7_250_000).collect();
    assert_eq!(got, want);
}

#[test]
fn refusals_name_the_option() {
    let refused = |options: &[(&str, &str)]| {
        SystemdTimer::read(&line("a.timer", "daily", options, None), 0)
            .unwrap_err()
            .field
    };
    assert_eq!(
        refused(&[("RandomizedDelaySec", "soon")]),
        "RandomizedDelaySec"
    );
    assert_eq!(
        refused(&[("RandomizedDelaySec", "infinity")]),
        "RandomizedDelaySec"
    );
    assert_eq!(
        refused(&[("RandomizedOffsetSec", "-5")]),
        "RandomizedOffsetSec"
    );
    assert_eq!(
        refused(&[("FixedRandomDelay", "maybe")]),
        "FixedRandomDelay"
    );
    assert_eq!(
        refused(&[("MachineID", "+123456789abcdef0123456789abcdef")]),
        "MachineID"
    );
    assert_eq!(refused(&[("MachineID", "0123")]), "MachineID");
    assert_eq!(refused(&[("AccuracySec", "soon")]), "AccuracySec");
    assert_eq!(
        refused(&[("BootID", "5e9a7c1a2f4b-4c7d-9b8e-1d2c-3b4a5f60")]),
        "BootID"
    );
    assert_eq!(
        refused(&[("BootID", "5e9a7c1a-2f4b-4c7d-9b8e-1d2c3b4a5f6g")]),
        "BootID"
    );
    assert_eq!(
        refused(&[("BootID", "{5e9a7c1a-2f4b-4c7d-9b8e-1d2c3b4a5f60}")]),
        "BootID"
    );
    let spec = SystemdTimer::read(&line("a.timer", "daily Europe/Paris", &[], None), 0);
    assert_eq!(spec.unwrap_err().field, "spec");
}

/// The vectors' elapses that a calendar expression can name, with it.
const NAMED_ELAPSES: [(i64, &str); 4] = [
    (MONDAY * SECOND, "2024-02-26 00:00:00"),
    (MONDAY * SECOND + 1, "2024-02-26 00:00:00.000001"),
    (MONDAY * SECOND + 59_999_999, "2024-02-26 00:00:59.999999"),
    (MONDAY * SECOND + 17_250_000, "2024-02-26 00:00:17.25"),
];

#[test]
fn accuracy_wake_ups_match_a_reimplementation_of_sd_events_source() {
    let rows = rows(ACCURACY);
    assert_eq!(rows.len(), 12 * 14 * 8);
    let mut through_lines = 0;
    for row in rows {
        let [boot_id, span, elapse, perturb, want] = row[..] else {
            panic!("{row:?}");
        };
        let (span, elapse): (u64, u64) = (span.parse().unwrap(), elapse.parse().unwrap());
        let (perturb, want): (u64, u64) = (perturb.parse().unwrap(), want.parse().unwrap());
        assert_eq!(
            accuracy::perturbation(&machine_id(&boot_id.replace('-', ""))),
            perturb,
            "{boot_id}"
        );
        let got = accuracy::wake_up(elapse, accuracy::event_accuracy(span), perturb);
        assert_eq!(got, want, "{boot_id} {span} {elapse}");
        // The same through a line, the boot id as written.
        let Some((_, spec)) = NAMED_ELAPSES.iter().find(|(at, _)| *at as u64 == elapse) else {
            continue;
        };
        let span_text = format!("{span}us");
        let options = [("BootID", boot_id), ("AccuracySec", span_text.as_str())];
        let got = starts(&timer(spec, &options, None), MONDAY - 3600, 48);
        assert_eq!(got, [want as i64], "{boot_id} {span} {spec}");
        through_lines += 1;
    }
    assert_eq!(through_lines, 12 * 14 * 4);
}

#[test]
fn without_a_boot_id_a_start_is_the_elapse_and_carries_its_accuracy() {
    let exact = timer("hourly", &[("AccuracySec", "1us")], None);
    let default = timer("hourly", &[], None);
    let got = starts(&default, MONDAY, 6);
    assert_eq!(got, starts(&exact, MONDAY, 6));
    assert_eq!(got[0], MONDAY * SECOND);
    let minute = 60 * SECOND;
    for &start in &got {
        let window = default.start_window(start);
        assert_eq!(
            window,
            Some(Window {
                from: start,
                end: start + minute + 1
            })
        );
        assert_eq!(exact.start_window(start), None);
    }
    // sd-event takes an accuracy of 0 for 250 ms.
    let zero = timer("hourly", &[("AccuracySec", "0")], None);
    assert_eq!(
        zero.start_window(0),
        Some(Window {
            from: 0,
            end: 250_001
        })
    );
    let plan =
        LinePlan::read(&line("a.timer", "daily", &[("AccuracySec", "1h")], None), 0).unwrap();
    assert_eq!(
        plan.start_window(5),
        Some(Window {
            from: 5,
            end: 5 + HOUR + 1
        })
    );
    let cron = FleetLine {
        system: System::Cron,
        ..line("a", "0 * * * *", &[], None)
    };
    assert_eq!(LinePlan::read(&cron, 0).unwrap().start_window(5), None);
}

#[test]
fn with_a_boot_id_every_start_is_the_boots_point_in_its_window() {
    let boot = "5e9a7c1a-2f4b-4c7d-9b8e-1d2c3b4a5f60";
    let perturb = accuracy::perturbation(&machine_id(&boot.replace('-', ""))) as i64;
    assert!(perturb > 0);
    // An hourly elapse on the hour with a minute's slack: the boot's point
    // in that minute, the same every hour.
    let hourly = timer("hourly", &[("BootID", boot)], None);
    assert_eq!(hourly.start_window(0), None);
    let got = starts(&hourly, MONDAY, 6);
    let want: Vec<i64> = (0..6)
        .map(|hour| MONDAY * SECOND + hour * HOUR + perturb)
        .collect();
    assert_eq!(got, want);
    // Both spellings of the id are one boot.
    let plain = timer(
        "hourly",
        &[("BootID", &boot.replace('-', "").to_uppercase())],
        None,
    );
    assert_eq!(starts(&plain, MONDAY, 6), want);
    // A day's slack on an hourly timer: the wake-up, the next base, skips
    // calendar times as a long delay does.
    let slack = timer("hourly", &[("BootID", boot), ("AccuracySec", "1d")], None);
    let got = starts(&slack, MONDAY, 72);
    assert!(
        got.windows(2).all(|pair| pair[1] - pair[0] > HOUR),
        "{got:?}"
    );
}

#[test]
fn timers_pass_their_accuracy_on() {
    let text = "# file: backup.timer\n\
                [Timer]\n\
                OnCalendar=daily\n\
                AccuracySec=1h\n\
                # file: clean.timer\n\
                [Timer]\n\
                AccuracySec=5min\n\
                OnCalendar=weekly\n\
                AccuracySec=\n";
    assert_eq!(
        import::translate(text).fleet_text(),
        "systemd\tbackup.timer\tdaily\tAccuracySec=1h\n\
         systemd\tclean.timer\tweekly\n"
    );
}

#[test]
fn a_spec_that_never_matches_gives_no_starts() {
    for spec in ["2-30", "*-02-30", "*-04-31", "2023-02-29"] {
        let timer = timer(spec, &[], None);
        assert_eq!(starts(&timer, MONDAY, 31 * 24), Vec::<i64>::new(), "{spec}");
    }
}

fn spec_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("*".to_string()),
            Just("-".to_string()),
            Just("~".to_string()),
            Just(":".to_string()),
            Just("..".to_string()),
            Just(".".to_string()),
            Just("/".to_string()),
            Just(",".to_string()),
            Just(" ".to_string()),
            Just("@".to_string()),
            Just("Mon".to_string()),
            Just("fri".to_string()),
            Just("daily".to_string()),
            Just(" UTC".to_string()),
            Just("Europe/Paris".to_string()),
            Just("é".to_string()),
            Just("99999999999999999999999".to_string()),
            (0u32..100).prop_map(|n| n.to_string()),
            (1970u32..2300).prop_map(|n| n.to_string()),
        ],
        0..16,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn calendar_specs_never_panic_and_elapse_in_order(spec in spec_text(), after in 0i64..8_000_000_000_000_000) {
        let next = calendar::parse(&spec).ok().and_then(|parsed| parsed.next_elapse(after));
        if let Some(next) = next {
            prop_assert!(next > after);
        }
    }

    #[test]
    fn any_text_is_read_or_refused_by_a_field(
        spec in prop_oneof![spec_text(), ".{0,24}"],
        key in prop::sample::select(OPTION_KEYS.to_vec()),
        value in prop_oneof![".{0,12}", "[0-9.]{0,6} ?(s|min|h|d|w|us|M|y)?"],
    ) {
        let line = line("x.timer", &spec, &[(key, value.as_str())], None);
        match SystemdTimer::read(&line, 3) {
            Ok(timer) => {
                let mut out = Vec::new();
                let window = Window { from: MONDAY * SECOND, end: (MONDAY + 86_400) * SECOND };
                timer.push_starts(window, &mut out, 10_000);
                prop_assert!(out.windows(2).all(|pair| pair[0] < pair[1]));
                prop_assert!(out.iter().all(|&at| (window.from..window.end).contains(&at)));
            }
            Err(refusal) => prop_assert!(refusal.field == "spec" || refusal.field == key, "{:?}", refusal),
        }
    }
}

#[test]
fn a_timer_without_a_boot_id_says_its_starts_fall_within_its_accuracy() {
    let read = file::parse(
        "systemd\ta.timer\thourly\n\
         systemd\tb.timer\thourly\tAccuracySec=10s\n\
         systemd\tc.timer\thourly\tBootID=0123456789abcdef0123456789abcdef\n",
    );
    let horizon = Horizon::hours(2).unwrap();
    let expansion = fleet::expand(&read.lines, 1_767_225_600, horizon, 1).unwrap();
    let windows: Vec<(usize, bool)> = expansion
        .notices
        .iter()
        .filter(|notice| notice.message.contains("AccuracySec="))
        .map(|notice| {
            (
                notice.line,
                notice.message.contains("within the next 1 min "),
            )
        })
        .collect();
    assert_eq!(windows, [(1, true), (2, false)]);
}
