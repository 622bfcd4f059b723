//! APScheduler lines against APScheduler itself: every `next` and
//! `refused` row of `apscheduler_starts.tsv` was printed by the real
//! APScheduler 3.11.3 (`make_apscheduler_vectors.py`). Its jitter is drawn
//! at run time, so the jittered starts are held to the law APScheduler
//! draws them by, not to one draw.

use stampede_core::fleet_format::FleetFormat;
use stampede_fleet::apscheduler::{self, Trigger};
use stampede_fleet::file::{self, FleetLine};
use stampede_fleet::import::{self, apscheduler_py};
use stampede_fleet::plan::LinePlan;
use stampede_fleet::time::{LATEST_FROM, MICROS_PER_SECOND, Window};

const VECTORS: &str = include_str!("../data/apscheduler_starts.tsv");
const MINUTE: i64 = 60 * MICROS_PER_SECOND;
const DAY: i64 = 86_400 * MICROS_PER_SECOND;

/// The one line of fleet text `text`.
fn line(text: &str) -> FleetLine {
    let read = file::parse(text);
    assert!(read.skipped.is_empty(), "{text}: {:?}", read.skipped);
    read.lines.into_iter().next().expect("a line")
}

fn micros(at: &str) -> i64 {
    at.parse::<jiff::Timestamp>()
        .unwrap_or_else(|e| panic!("{at}: {e}"))
        .as_microsecond()
}

/// Up to `most` starts of `line` under `seed` from `from` (microseconds).
fn starts(line: &FleetLine, seed: u64, from: i64, end: i64, most: usize) -> Vec<i64> {
    let plan = LinePlan::read(line, seed).unwrap_or_else(|r| panic!("{}: {r:?}", line.spec));
    let mut out = Vec::new();
    plan.push_starts(Window { from, end }, &mut out, most);
    out
}

#[test]
fn fire_times_are_apschedulers_own() {
    let rows = crate::vector_rows(VECTORS, "next");
    assert!(rows.len() >= 900, "{} rows", rows.len());
    for row in &rows {
        let [_, spec, zone, start, now, expected @ ..] = &row[..] else {
            panic!("{row:?}");
        };
        let mut text = format!("apscheduler\tjob\t{spec}\tZone={zone}");
        if start != "-" {
            text.push_str(&format!("\tStart={start}"));
        }
        let expected: Vec<i64> = expected.iter().map(|at| micros(at)).collect();
        let end = (LATEST_FROM + 1) * MICROS_PER_SECOND;
        let placed = starts(&line(&text), 0, micros(now), end, 12);
        assert_eq!(placed, expected, "{spec} in {zone} from {now}");
    }
}

#[test]
fn specs_apscheduler_refuses_are_refused_in_its_words() {
    let rows = crate::vector_rows(VECTORS, "refused");
    assert!(rows.len() >= 30, "{} rows", rows.len());
    for row in &rows {
        let refusal = apscheduler::read_trigger(&row[1], None).expect_err(&row[1]);
        assert_eq!(refusal, row[2], "{}", row[1]);
    }
}

/// The nominal starts of a jittered `spec` (the same line without its
/// jitter) and the starts under `seed`, over `days` from 2026-01-05.
fn nominal_and_jittered(spec: &str, jitter: &str, seed: u64, days: i64) -> (Vec<i64>, Vec<i64>) {
    let from = micros("2026-01-05T00:00:00Z");
    let end = from + days * DAY;
    let nominal = starts(
        &line(&format!("apscheduler\tj\t{spec}")),
        0,
        from,
        end,
        100_000,
    );
    let jittered = line(&format!("apscheduler\tj\t{spec}\tJitter={jitter}"));
    (nominal, starts(&jittered, seed, from, end, 100_000))
}

/// The Kolmogorov–Smirnov distance of `samples` from uniform(0, `most`).
fn ks_uniform(samples: &mut [f64], most: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    let n = samples.len() as f64;
    samples
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let cdf = (x / most).clamp(0.0, 1.0);
            (cdf - i as f64 / n)
                .abs()
                .max((cdf - (i + 1) as f64 / n).abs())
        })
        .fold(0.0, f64::max)
}

/// Mean, spread and KS distance of `offsets` held to uniform(0, `most`):
/// the mean within 5 standard errors, the variance within 10%, and the KS
/// distance below 1.95 / √n (the 0.1% critical value).
fn assert_uniform(offsets: &mut [f64], most: f64, what: &str) {
    let n = offsets.len() as f64;
    assert!(n >= 2_000.0, "{what}: {n} offsets");
    let mean = offsets.iter().sum::<f64>() / n;
    let variance = offsets.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    let standard_error = most / (12.0 * n).sqrt();
    assert!(
        (mean - most / 2.0).abs() < 5.0 * standard_error,
        "{what}: mean {mean} of uniform(0, {most})"
    );
    assert!(
        (variance / (most * most / 12.0) - 1.0).abs() < 0.1,
        "{what}: variance {variance}"
    );
    let distance = ks_uniform(offsets, most);
    assert!(distance < 1.95 / n.sqrt(), "{what}: KS distance {distance}");
}

#[test]
fn cron_jitter_delays_each_start_uniformly_within_the_jitter() {
    let most = 120.0 * MICROS_PER_SECOND as f64;
    let mut offsets = Vec::new();
    for seed in 0..20 {
        let (nominal, jittered) = nominal_and_jittered("cron minute=0", "120", seed, 14);
        assert_eq!(nominal.len(), jittered.len(), "seed {seed}");
        for (at, start) in nominal.iter().zip(&jittered) {
            assert!(
                (0..=most as i64).contains(&(start - at)),
                "{start} for {at}"
            );
            offsets.push((start - at) as f64);
        }
    }
    assert_uniform(&mut offsets, most, "hourly, 120 s");
    // Two seeds, two nights: a real scheduler draws anew at every run.
    let (_, one) = nominal_and_jittered("cron minute=0", "120", 1, 1);
    let (_, two) = nominal_and_jittered("cron minute=0", "120", 2, 1);
    assert_ne!(one, two);
}

#[test]
fn an_interval_counts_from_the_jittered_start_before_it() {
    let (every, most) = (15 * MINUTE, 90 * MICROS_PER_SECOND);
    let mut draws = Vec::new();
    for seed in 0..20 {
        let (nominal, jittered) = nominal_and_jittered("interval minutes=15", "90", seed, 7);
        // The first start is the first nominal one, one interval after
        // the scheduler's start, plus one draw.
        assert!((0..=most).contains(&(jittered[0] - nominal[0])));
        draws.push((jittered[0] - nominal[0]) as f64);
        // Each gap is the interval plus a fresh draw: 3.x's drift.
        for pair in jittered.windows(2) {
            let draw = pair[1] - pair[0] - every;
            assert!((0..=most).contains(&draw), "gap {}", pair[1] - pair[0]);
            draws.push(draw as f64);
        }
        // The k-th start is k intervals and k + 1 draws after the first
        // nominal one, so the starts fall behind: fewer fit in the week.
        let k = jittered.len() as i64 - 1;
        let behind = jittered[k as usize] - nominal[0] - k * every;
        assert!(
            behind > k * most / 3 && behind < k * most * 2 / 3,
            "{behind}"
        );
        assert!(jittered.len() < nominal.len());
    }
    assert_uniform(&mut draws, most as f64, "interval gaps");
}

#[test]
fn a_cron_jitter_past_the_next_time_skips_it() {
    let (nominal, jittered) = nominal_and_jittered("cron minute=*", "150", 3, 1);
    assert_eq!(nominal.len(), 1440);
    // Each next time is searched after the jittered start before it.
    assert!(jittered.len() < 1440 * 2 / 3, "{}", jittered.len());
    for pair in jittered.windows(2) {
        let next_minute = (pair[0] / MINUTE + 1) * MINUTE;
        assert!((next_minute..=next_minute + 150 * MICROS_PER_SECOND).contains(&pair[1]));
    }
}

#[test]
fn a_cron_jitter_is_added_on_the_wall_clock() {
    // New York falls back at 06:00Z on 2026-11-01: 01:59 EDT plus more
    // than a minute reads 02:0x, which is EST, an hour and more later.
    let from = micros("2026-10-31T12:00:00Z");
    let nominal = micros("2026-11-01T05:59:00Z");
    let mut late = 0;
    for seed in 0..40 {
        let text = "apscheduler\tj\tcron hour=1 minute=59\tZone=America/New_York\tJitter=120";
        let placed = starts(&line(text), seed, from, from + 2 * DAY, 10);
        let offset = placed[0] - nominal;
        let early = (0..=60 * MICROS_PER_SECOND).contains(&offset);
        let past_the_change =
            (3660 * MICROS_PER_SECOND..=3720 * MICROS_PER_SECOND).contains(&offset);
        assert!(early || past_the_change, "offset {offset}");
        late += i32::from(past_the_change);
    }
    assert!((8..=32).contains(&late), "{late} of 40 an hour late");
}

#[test]
fn a_jittered_job_in_the_repeated_hour_stops_with_a_notice() {
    let text = "apscheduler\tj\tcron hour=1 minute=30\tZone=America/New_York\tJitter=60";
    let fleet = line(text);
    let from = micros("2026-10-30T00:00:00Z");
    let placed = starts(&fleet, 7, from, from + 5 * DAY, 100);
    // Two nights, then the first pass of Nov 1; the second pass would
    // be read an hour early again and again.
    assert_eq!(placed.len(), 3);
    assert!(placed[2] >= micros("2026-11-01T05:30:00Z"));
    let plan = LinePlan::read(&fleet, 7).unwrap();
    let why = plan.stops_searching(&placed).expect("a notice");
    assert!(why.contains("2026-11-01T06:30:00Z"), "{why}");
    // Without a jitter it runs in both passes, as the vectors show.
    let plain = line("apscheduler\tj\tcron hour=1 minute=30\tZone=America/New_York");
    let both = starts(&plain, 0, from, from + 5 * DAY, 100);
    assert!(both.contains(&micros("2026-11-01T05:30:00Z")));
    assert!(both.contains(&micros("2026-11-01T06:30:00Z")));
    assert!(
        LinePlan::read(&plain, 0)
            .unwrap()
            .stops_searching(&both)
            .is_none()
    );
}

#[test]
fn a_jittered_line_tells_its_law_and_a_plain_one_does_not() {
    let law = |text: &str| LinePlan::read(&line(text), 0).unwrap().drawn_delays();
    let cron = law("apscheduler\tj\tcron hour=3\tJitter=120").unwrap();
    assert!(cron.contains("within the 2 min after its time"), "{cron}");
    let interval = law("apscheduler\tj\tinterval hours=1\tJitter=30").unwrap();
    assert!(interval.contains("drift"), "{interval}");
    assert_eq!(law("apscheduler\tj\tcron hour=3"), None);
    // An interval without Start= says where it is taken to count from.
    let assumed = |text: &str| LinePlan::read(&line(text), 0).unwrap().assumption();
    let interval = assumed("apscheduler\tj\tinterval hours=1").unwrap();
    assert!(interval.contains("scheduler's start"), "{interval}");
    assert_eq!(
        assumed("apscheduler\tj\tinterval hours=1\tStart=2026-01-01T00:00:00Z"),
        None
    );
    assert_eq!(assumed("apscheduler\tj\tcron hour=3"), None);
    assert_eq!(law("apscheduler\tj\tcron hour=3\tJitter=0"), None);
}

#[test]
fn from_crontab_reads_its_fifth_field_from_monday() {
    let Ok(Trigger::Cron(crontab)) = apscheduler::read_trigger("crontab 0 9 * * 0", None) else {
        panic!("read");
    };
    let Ok(Trigger::Cron(monday)) = apscheduler::read_trigger("cron day_of_week=mon hour=9", None)
    else {
        panic!("read");
    };
    let from = micros("2026-01-01T00:00:00Z") / MICROS_PER_SECOND;
    assert_eq!(crontab.first_from(from), monday.first_from(from));
    assert_eq!(
        crontab.first_from(from).map(|at| at * MICROS_PER_SECOND),
        Some(micros("2026-01-05T09:00:00Z"))
    );
}

#[test]
fn bad_specs_and_options_are_refused_by_field_never_with_a_panic() {
    let refused = |text: &str| {
        let fleet = file::parse(text);
        match fleet.lines.first() {
            Some(read) => LinePlan::read(read, 0).map(|_| ()).unwrap_err().field,
            None => fleet.skipped[0].field.clone(),
        }
    };
    for (text, field) in [
        ("apscheduler\tj\tdate run_date=2026-01-01", "spec"),
        ("apscheduler\tj\tcron hour=3 hour=4", "spec"),
        ("apscheduler\tj\tcron hours=3", "spec"),
        ("apscheduler\tj\tcron day='last fri", "spec"),
        ("apscheduler\tj\tcron hour", "spec"),
        ("apscheduler\tj\tinterval minutes=-5", "spec"),
        ("apscheduler\tj\tinterval minutes=1e3", "spec"),
        (
            "apscheduler\tj\tinterval weeks=99999999999999999999",
            "spec",
        ),
        ("apscheduler\tj\tinterval fortnights=1", "spec"),
        ("apscheduler\tj\tevery 5m", "spec"),
        ("apscheduler\tj\t", "spec"),
        ("apscheduler\tj\tcron hour=3\tJitter=-1", "Jitter"),
        ("apscheduler\tj\tcron hour=3\tJitter=99999999", "Jitter"),
        ("apscheduler\tj\tcron hour=3\tJitter=NaN", "Jitter"),
        ("apscheduler\tj\tcron hour=3\tZone=Mars/Olympus", "Zone"),
        ("apscheduler\tj\tinterval hours=1\tStart=yesterday", "Start"),
        ("apscheduler\tj\tcron hour=3\tTZ=UTC", "TZ"),
    ] {
        assert_eq!(refused(text), field, "{text}");
    }
    // Odd text anywhere in a field reads or is refused, never panics.
    let odd = [
        "",
        " ",
        "*",
        "*/",
        "/",
        "-",
        ",",
        "1-",
        "-1",
        "1//2",
        "99999999999999999999999",
        "last",
        "LAST",
        "lastfri",
        "last  fri",
        "5th",
        "1st ٣",
        "ſun",
        "mon-",
        "é",
        "\u{0}",
        "1-2-3",
        "1/2/3",
        "jan/2",
        "*/99999999999999999999",
    ];
    for value in odd {
        for name in [
            "year",
            "month",
            "day",
            "week",
            "day_of_week",
            "hour",
            "minute",
            "second",
        ] {
            let spec = format!("cron {name}='{value}'");
            if let Ok(Trigger::Cron(cron)) = apscheduler::read_trigger(&spec, None) {
                cron.first_from(0);
            }
        }
        let _ = apscheduler::read_trigger(&format!("crontab {value} * * * *"), None);
        let _ = apscheduler::read_trigger(&format!("interval seconds={value}"), None);
    }
}

#[test]
fn a_field_that_never_matches_says_so() {
    let fleet = line("apscheduler\tj\tcron month=2 day=30");
    let plan = LinePlan::read(&fleet, 0).unwrap();
    let why = plan.never_runs(micros("2026-01-01T00:00:00Z") / MICROS_PER_SECOND);
    assert!(why.unwrap().contains("9999"));
    let past = line("apscheduler\tj\tcron year=2020");
    let plan = LinePlan::read(&past, 0).unwrap();
    assert!(plan.never_runs(1_800_000_000).is_some());
}

/// A Python module with every shape the importer reads, and each it skips.
const JOBS_PY: &str = r#"from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger

scheduler = BackgroundScheduler()
scheduler.add_job(report, 'cron', hour=3, minute=0, jitter=120, id='nightly', timezone='Europe/Paris')
scheduler.add_job(poll, trigger='interval', minutes=15, jitter=30)
scheduler.add_job(backup, CronTrigger.from_crontab('0 3 * * 0'))

@scheduler.scheduled_job('cron', day_of_week='mon-fri', hour=17)
def close_books():
    pass  # add_job(x, 'cron') in a comment is not a call

scheduler.add_job(once, 'date', run_date='2026-01-01')
scheduler.add_job(tune, 'cron', hour=HOUR)
scheduler.add_job(tune, my_trigger)
scheduler.add_job(late, 'cron', hour=3, start_date='2026-03-01 04:00:00', timezone='America/New_York')
scheduler.add_job(odd, 'cron', hour=3, hours=4)
scheduler.add_job(bare)
scheduler.add_job(
    report_monthly, 'cron',
    day='last fri', hour='1-5',
)
s = "scheduler.add_job(fake, 'cron', hour=1)"
"#;

#[test]
fn python_calls_give_one_line_each_named_by_id_or_function() {
    assert_eq!(import::detect(JOBS_PY), FleetFormat::Apscheduler);
    let translation = apscheduler_py::translate(JOBS_PY);
    assert_eq!(
        translation.fleet_text(),
        "apscheduler\tnightly\tcron hour=3 minute=0\tJitter=120\tZone=Europe/Paris\n\
         apscheduler\tpoll\tinterval minutes=15\tJitter=30\n\
         apscheduler\tbackup\tcrontab 0 3 * * 0\n\
         apscheduler\tclose_books\tcron day_of_week=mon-fri hour=17\n\
         apscheduler\tlate\tcron hour=3\tZone=America/New_York\tStart=2026-03-01T09:00:00Z\n\
         apscheduler\treport_monthly\tcron day='last fri' hour=1-5\n"
    );
    assert_eq!(crate::import::lines(&translation), [5, 6, 7, 9, 16, 19]);
    assert_eq!(
        crate::import::skipped(&translation),
        [
            (13, "trigger"),
            (14, "hour"),
            (15, "trigger"),
            (17, "hours"),
            (18, "trigger")
        ]
    );
    let notes: Vec<(usize, &str)> = translation
        .notes
        .iter()
        .map(|note| (note.line, note.message.as_str()))
        .collect();
    assert!(
        notes
            .iter()
            .any(|(line, note)| *line == 6 && note.contains("uuid"))
    );
    assert!(
        notes
            .iter()
            .any(|(line, note)| *line == 7 && note.contains("Monday 0"))
    );
    assert!(
        notes
            .iter()
            .any(|(line, note)| *line == 9 && note.contains("UTC"))
    );
    // Every line is accounted for.
    let imported = import::import(JOBS_PY, FleetFormat::Auto);
    let account = imported.account();
    assert_eq!((account.read, account.skipped), (6, 5));
    assert_eq!(
        account.read + account.ignored + account.skipped,
        account.lines
    );
}

#[test]
fn a_long_trigger_is_named_by_its_first_characters() {
    let text = format!("sched.add_job(f, {}())\n", "build_a_trigger_".repeat(20));
    let translation = apscheduler_py::translate(&text);
    let reason = &translation.skipped[0].reason;
    assert!(reason.contains('…') && reason.len() < 120, "{reason}");
}

#[test]
fn a_python_source_pasted_after_a_crontab_reads_as_apscheduler() {
    let text = format!("0 * * * * /bin/hourly\n\n{JOBS_PY}");
    let imported = import::import(&text, FleetFormat::Auto);
    let formats: Vec<FleetFormat> = imported.parts.iter().map(|part| part.format).collect();
    assert_eq!(formats, [FleetFormat::Crontab, FleetFormat::Apscheduler]);
    assert_eq!(imported.file.lines.len(), 7);
}

#[test]
fn any_python_text_reads_or_is_skipped_without_a_panic() {
    let pieces = [
        "sched.add_job(",
        "f, ",
        "'cron', ",
        "hour=",
        "'3'",
        "3",
        ", ",
        ")",
        "\n",
        "#",
        "'",
        "\"",
        "'''",
        "\\",
        "(",
        "[",
        "{",
        "}",
        "]",
        "**opts",
        "*args",
        "trigger=",
        "=",
        "CronTrigger.from_crontab(",
        "IntervalTrigger(",
        "@s.scheduled_job(",
        "def g():",
        "é",
        "\u{0}",
        "timezone=",
        "jitter=",
        "start_date=",
        "'2026-01-01'",
        "id=",
        "r'x'",
    ];
    // Every pair of pieces, alone and in a call, and a few long texts.
    let mut texts = Vec::new();
    for a in pieces {
        for b in pieces {
            for c in ["", ")", "\n", "'"] {
                texts.push(format!("{a}{b}{c}"));
                texts.push(format!("sched.add_job(f, 'cron', {a}{b}{c})"));
            }
        }
    }
    texts.push(pieces.concat().repeat(50));
    texts.push("sched.add_job(".repeat(2_000));
    for text in &texts {
        let imported = import::import(text, FleetFormat::Apscheduler);
        let account = imported.account();
        assert_eq!(
            account.read + account.ignored + account.skipped,
            account.lines,
            "{text:?}"
        );
    }
    let spread = apscheduler_py::translate("sched.add_job(f, **options)\n");
    assert_eq!(crate::import::skipped(&spread), [(1, "arguments")]);
}
