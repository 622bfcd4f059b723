//! The fix, the leveller and the stability figures. The cron and croniter
//! fixes match `fix_vectors.tsv`, printed with pyfarmhash's fingerprint32
//! and croniter's own starts (see `make_fix_vectors.py`).

use proptest::prelude::*;
use stampede_core::fleet_format::FleetFormat;
use stampede_fleet::cron::Horizon;
use stampede_fleet::file::{self, FleetLine, LineOptions, System};
use stampede_fleet::fix::{self, FixChange, LineFix, native};
use stampede_fleet::import::{self};
use stampede_fleet::level;
use stampede_fleet::stability::{self, FleetChange, StabilityPlacing};
use stampede_fleet::{self, file::parse_duration};

const VECTORS: &str = include_str!("../data/fix_vectors.tsv");
/// 2024-03-31T00:00:00Z, a Sunday, where the vectors' two days begin.
const FROM: i64 = 1_711_843_200;

fn days(days: u32) -> Horizon {
    Horizon::hours(24 * days).unwrap()
}

fn line(system: System, id: &str, spec: &str, options: &[(&str, &str)]) -> FleetLine {
    FleetLine {
        line: 1,
        system,
        id: id.to_string(),
        spec: spec.to_string(),
        options: LineOptions {
            own: options
                .iter()
                .map(|(key, value)| (key.to_string(), value.to_string()))
                .collect(),
            ..LineOptions::default()
        },
    }
}

fn rewritten(spec: &str, options: &[(&str, &str)]) -> FixChange {
    FixChange::Rewritten {
        spec: spec.to_string(),
        options: options
            .iter()
            .map(|(key, value)| (key.to_string(), value.to_string()))
            .collect(),
    }
}

fn is_kept(change: &FixChange) -> bool {
    matches!(change, FixChange::Kept { .. })
}

#[test]
fn cron_and_croniter_fixes_match_farmhash_and_croniter() {
    let rows: Vec<Vec<&str>> = VECTORS
        .lines()
        .filter(|row| !row.starts_with('#'))
        .map(|row| row.split('\t').collect())
        .collect();
    assert!(rows.len() >= 100);
    let mut rewrites = 0;
    for row in rows {
        let [system, id, spec, want, starts] = row[..] else {
            panic!("{row:?}")
        };
        let system = System::from_slug(system).unwrap();
        let given = line(system, id, spec, &[]);
        let change = fix::fix_line(&given, None);
        if want == "kept" {
            assert!(is_kept(&change), "{id:?} {spec:?}: {change:?}");
            continue;
        }
        assert_eq!(change, rewritten(want, &[]), "{id:?} {spec:?}");
        let fixed = fix::with_change(&given, want, &[]);
        let expansion =
            stampede_fleet::expand(std::slice::from_ref(&fixed), FROM, days(2), 0).unwrap();
        let got: Vec<i64> = expansion.starts.iter().map(|s| s.at_micros).collect();
        let want: Vec<i64> = starts
            .split(',')
            .map(|at| at.parse::<i64>().unwrap() * 1_000_000)
            .collect();
        assert_eq!(got, want, "{id:?} {spec:?} → {fixed:?}");
        rewrites += 1;
    }
    assert!(rewrites >= 100, "{rewrites}");
}

#[test]
fn jenkins_croniter_and_puppet_fixes_write_their_own_syntax() {
    let fixed = |system, spec| fix::fix_line(&line(system, "folder/job", spec, &[]), None);
    for system in [System::Jenkins, System::Croniter] {
        // A nightly line stays in its hour.
        assert_eq!(fixed(system, "0 0 * * *"), rewritten("H 0 * * *", &[]));
        assert_eq!(fixed(system, "0 0 * * 0"), rewritten("H 0 * * 0", &[]));
        assert_eq!(fixed(system, "0 3 * * *"), rewritten("H 3 * * *", &[]));
        assert_eq!(
            fixed(system, "*/15 * * * *"),
            rewritten("H/15 * * * *", &[])
        );
        assert_eq!(
            fixed(system, "0,30 * * * *"),
            rewritten("H/30 * * * *", &[])
        );
        assert_eq!(
            fixed(system, "0 */2 * * 1-5"),
            rewritten("H */2 * * 1-5", &[])
        );
        assert_eq!(fixed(system, "0  0\t1 * *"), rewritten("H  0\t1 * *", &[]));
        for spread in [
            "H H * * *",
            "H/15 * * * *",
            "@daily",
            "* * * * *",
            "5,17 * * * *",
        ] {
            assert!(is_kept(&fixed(system, spread)), "{system:?} {spread}");
        }
    }
    let puppet = |spec| fixed(System::Puppet, spec);
    assert_eq!(puppet("0 0 * * *"), rewritten("fqdn_rand(60) 0 * * *", &[]));
    assert_eq!(
        puppet("30 2 * * *"),
        rewritten("fqdn_rand(60) 2 * * *", &[])
    );
    assert_eq!(puppet("@weekly"), rewritten("fqdn_rand(60) 0 * * 0", &[]));
    assert!(is_kept(&puppet("*/15 * * * *")));
    assert!(is_kept(&puppet("fqdn_rand(60) 3 * * *")));
}

#[test]
fn a_quartz_line_moves_to_the_minute_a_cron_line_of_its_id_moves_to() {
    let fixed = |system, spec| fix::fix_line(&line(system, "billing/invoices", spec, &[]), None);
    let minute = |change: FixChange| match change {
        FixChange::Rewritten { spec, .. } => spec.split(' ').next().unwrap().to_string(),
        kept => panic!("{kept:?}"),
    };
    let hourly = minute(fixed(System::Cron, "0 * * * *"));
    assert_eq!(
        fixed(System::Quartz, "0 0 * * * ?"),
        rewritten(&format!("0 {hourly} * * * ?"), &[])
    );
    let nightly = minute(fixed(System::Cron, "0 2 * * 1-5"));
    assert_eq!(
        fixed(System::Quartz, "30 0 2 ? * MON-FRI"),
        rewritten(&format!("30 {nightly} 2 ? * MON-FRI"), &[])
    );
    let quarterly = minute(fixed(System::Cron, "*/15 * * * *"));
    assert_eq!(
        fixed(System::Quartz, "0 0/15 * * * ?"),
        rewritten(&format!("0 {quarterly} * * * ?"), &[])
    );
    for kept in [
        "0 * * * * ?",
        "0 5,17 * * * ?",
        "0 0 0 30 2 ?",
        "0 0 0 * * *",
    ] {
        assert!(is_kept(&fixed(System::Quartz, kept)), "{kept}");
    }
}

#[test]
fn a_spring_line_moves_to_the_minute_a_cron_line_of_its_id_moves_to() {
    let fixed = |system, spec| fix::fix_line(&line(system, "Billing.invoices", spec, &[]), None);
    let minute = |change: FixChange| match change {
        FixChange::Rewritten { spec, .. } => spec.split(' ').next().unwrap().to_string(),
        kept => panic!("{kept:?}"),
    };
    let hourly = minute(fixed(System::Cron, "0 * * * *"));
    for spec in ["0 0 * * * *", "@hourly", "@HOURLY"] {
        assert_eq!(
            fixed(System::Spring, spec),
            rewritten(&format!("0 {hourly} * * * *"), &[]),
            "{spec}"
        );
    }
    let nightly = minute(fixed(System::Cron, "0 2 * * 1-5"));
    assert_eq!(
        fixed(System::Spring, "30 0 2 * * MON-FRI"),
        rewritten(&format!("30 {nightly} 2 * * MON-FRI"), &[])
    );
    // Spring's macros are its own: `@weekly` is Sunday at midnight, with
    // a second field.
    let weekly = minute(fixed(System::Cron, "0 0 * * 0"));
    assert_eq!(
        fixed(System::Spring, "@weekly"),
        rewritten(&format!("0 {weekly} 0 * * 0"), &[])
    );
    for kept in ["0 * * * * *", "0 5,17 * * * *", "0 0 0 30 2 *", "0 0 0 * *"] {
        assert!(is_kept(&fixed(System::Spring, kept)), "{kept}");
    }
}

#[test]
fn an_apscheduler_line_moves_to_the_minute_a_cron_line_of_its_id_moves_to() {
    let fixed = |system, spec: &str, options: &[(&str, &str)]| {
        fix::fix_line(&line(system, "reports.nightly", spec, options), None)
    };
    let minute = |change: FixChange| match change {
        FixChange::Rewritten { spec, .. } => spec.split(' ').next().unwrap().to_string(),
        kept => panic!("{kept:?}"),
    };
    let nightly = minute(fixed(System::Cron, "0 3 * * *", &[]));
    assert_eq!(
        fixed(
            System::Apscheduler,
            "cron hour=3 minute=0",
            &[("Jitter", "120")]
        ),
        rewritten(&format!("cron hour=3 minute={nightly}"), &[])
    );
    assert_eq!(
        fixed(System::Apscheduler, "crontab 0 3 * * *", &[]),
        rewritten(&format!("crontab {nightly} 3 * * *"), &[])
    );
    let hourly = minute(fixed(System::Cron, "0 * * * *", &[]));
    assert_eq!(
        fixed(System::Apscheduler, "cron minute=0", &[]),
        rewritten(&format!("cron minute={hourly}"), &[])
    );
    // Midnight by default: a minute written makes the hour above it `*`,
    // so the hour is written out too.
    let weekdays = minute(fixed(System::Cron, "0 0 * * 1-5", &[]));
    assert_eq!(
        fixed(System::Apscheduler, "cron day_of_week=mon-fri", &[]),
        rewritten(
            &format!("cron day_of_week=mon-fri hour=0 minute={weekdays}"),
            &[]
        )
    );
    for kept in [
        "cron minute=*",
        "cron minute=5,17",
        "cron month=2 day=30",
        "interval minutes=15",
        "cron second=*/10",
    ] {
        assert!(is_kept(&fixed(System::Apscheduler, kept, &[])), "{kept}");
    }
}

#[test]
fn systemd_temporal_and_prometheus_fixes_set_their_options() {
    let systemd = |spec, options: &[(&str, &str)]| {
        fix::fix_line(&line(System::Systemd, "backup.timer", spec, options), None)
    };
    let delay = |span| [("RandomizedDelaySec", span), ("FixedRandomDelay", "yes")];
    assert_eq!(systemd("daily", &[]), rewritten("daily", &delay("1h")));
    assert_eq!(
        systemd("Mon..Fri *-*-* 00:00:00", &[]),
        rewritten("Mon..Fri *-*-* 00:00:00", &delay("1h"))
    );
    assert_eq!(
        systemd("*-*-* 03:30", &[]),
        rewritten("*-*-* 03:30", &delay("1h"))
    );
    assert_eq!(systemd("hourly", &[]), rewritten("hourly", &delay("1h")));
    assert_eq!(systemd("*:0/15", &[]), rewritten("*:0/15", &delay("15m")));
    assert_eq!(
        systemd("daily", &[("RandomizedDelaySec", "30min")]),
        rewritten("daily", &[("FixedRandomDelay", "yes")])
    );
    let stable = [("RandomizedDelaySec", "30min"), ("FixedRandomDelay", "yes")];
    assert!(is_kept(&systemd("daily", &stable)));
    assert!(is_kept(&systemd("minutely", &[])));
    assert_eq!(
        systemd("*-*-* 08,20:00", &[]),
        rewritten("*-*-* 08,20:00", &delay("1h"))
    );
    // Starts half an hour apart spread within the half hour.
    assert_eq!(
        systemd("*-*-* 08:00,30", &[]),
        rewritten("*-*-* 08:00,30", &delay("30m"))
    );
    // Twenty seconds apart is no even step of the hour: kept.
    assert!(is_kept(&systemd("*-*-* 08:00:00,20", &[])));
    assert_eq!(
        systemd("daily", &[("RandomizedDelaySec", "0")]),
        rewritten("daily", &delay("1h"))
    );

    let temporal = |spec, options: &[(&str, &str)]| {
        fix::fix_line(&line(System::Temporal, "s", spec, options), None)
    };
    // An interval spreads within the hour, as a cron line keeps its hour.
    assert_eq!(
        temporal("every 24h", &[]),
        rewritten("every 24h", &[("Jitter", "1h")])
    );
    assert_eq!(
        temporal("every 7d", &[]),
        rewritten("every 7d", &[("Jitter", "1h")])
    );
    assert_eq!(
        temporal("every 24h offset 3h", &[]),
        rewritten("every 24h offset 3h", &[("Jitter", "1h")])
    );
    assert_eq!(
        temporal("every 15m", &[]),
        rewritten("every 15m", &[("Jitter", "15m")])
    );
    assert_eq!(
        temporal("0 0 * * *", &[]),
        rewritten("0 0 * * *", &[("Jitter", "1h")])
    );
    assert_eq!(
        temporal("*/20 * * * *", &[]),
        rewritten("*/20 * * * *", &[("Jitter", "20m")])
    );
    assert!(is_kept(&temporal("every 1h", &[("Jitter", "5m")])));
    assert!(is_kept(&temporal("every 30s", &[])));

    assert!(is_kept(&fix::fix_line(
        &line(System::Prometheus, "10.0.0.1:9100", "15s", &[]),
        None
    )));
}

/// 40 crontab jobs, all at minute 0 of every hour.
fn forty_hourly_jobs() -> String {
    let mut text = String::from("# hourly jobs\nMAILTO=ops@example.com\n\n");
    for job in 1..=40 {
        text.push_str(&format!("0 * * * *  /usr/local/bin/job-{job} --quiet\n"));
    }
    text
}

/// The fix cuts the peak of 40 hourly crontab jobs from 40 starts in a
/// minute to 2, a factor of 20, and leaves every other byte as it was.
#[test]
fn forty_hourly_crontab_jobs_spread_over_the_hour() {
    let text = forty_hourly_jobs();
    let read = import::read(&text, FleetFormat::Auto);
    assert_eq!(read.lines.len(), 40);
    let fixes = fix::fix_lines(&read.lines, None);
    let fixed = fix::apply(&read.lines, &fixes);
    let figures = fix::compare(&read.lines, &fixed, FROM, days(1), 0).unwrap();
    assert_eq!(figures.before.peak_starts_per_minute, 40);
    assert_eq!(figures.after.peak_starts_per_minute, 2);
    assert_eq!(figures.before.shared_starts, 40 * 24);
    assert!(figures.after.shared_starts < figures.before.shared_starts / 2);

    let written = native::rewrite(&text, FleetFormat::Auto, &fixes).unwrap();
    assert_eq!(written.lines().count(), text.lines().count());
    for (was, now) in text.lines().zip(written.lines()) {
        let tail = |line: &str| line.split_once("  ").map(|(_, tail)| tail.to_string());
        if was.starts_with("0 * ") {
            assert_eq!(tail(was), tail(now), "{now}");
            let suffix = format!(" * * * *  {}", tail(was).unwrap());
            assert!(now.ends_with(&suffix), "{now}");
        } else {
            assert_eq!(was, now);
        }
    }
    let reread = import::read(&written, FleetFormat::Auto);
    let specs: Vec<&str> = reread.lines.iter().map(|l| l.spec.as_str()).collect();
    let want: Vec<&str> = fixed.iter().map(|l| l.spec.as_str()).collect();
    assert_eq!(specs, want);
}

#[test]
fn a_fleet_file_is_rewritten_in_place() {
    let text = "# a fleet\r\n\
                cron\tnightly backup/db\t0 0 * * *\tDuration=1h\r\n\
                \r\n\
                jenkins\tteam/deploy\t*/15  * * * *\r\n\
                croniter\tetl\tH H * * *\n\
                cron\tevery minute\t* * * * *";
    let read = file::parse(text);
    let fixes = fix::fix_lines(&read.lines, None);
    let written = native::rewrite(text, FleetFormat::Fleet, &fixes).unwrap();
    assert_eq!(
        written,
        "# a fleet\r\n\
         cron\tnightly backup/db\t27 0 * * *\tDuration=1h\r\n\
         \r\n\
         jenkins\tteam/deploy\tH/15  * * * *\r\n\
         croniter\tetl\tH H * * *\n\
         cron\tevery minute\t* * * * *"
    );
    // Options land after the others, and a given one is replaced in place.
    let fixes = [fix::LineFix {
        line: 2,
        change: rewritten("daily", &[("Duration", "2h"), ("RandomizedDelaySec", "1d")]),
    }];
    let written = native::rewrite(text, FleetFormat::Fleet, &fixes).unwrap();
    assert!(written.contains("\tdaily\tDuration=2h\tRandomizedDelaySec=1d\r\n"));
}

/// Hourly lines at minute 0, the first `pinned` of them pinned.
fn hourly_fleet(jobs: usize) -> Vec<FleetLine> {
    (1..=jobs)
        .map(|job| FleetLine {
            line: job,
            ..line(System::Cron, &format!("job {job}"), "0 * * * *", &[])
        })
        .collect()
}

#[test]
fn the_leveller_keeps_pinned_lines_and_never_raises_the_peak() {
    let lines = hourly_fleet(40);
    let pinned = [1, 2, 3];
    let levelled = level::level(&lines, &pinned, None, FROM, days(1), 0).unwrap();
    assert_eq!(levelled.peak_before, 40);
    // The three pinned lines share minute 0; the rest find a minute each.
    assert_eq!(levelled.peak_after, 3);
    for fix in &levelled.fixes {
        if pinned.contains(&fix.line) {
            assert!(is_kept(&fix.change), "{fix:?}");
        }
    }
    let placed = fix::apply(&lines, &levelled.fixes);
    for (was, now) in lines.iter().zip(&placed) {
        if pinned.contains(&was.line) {
            assert_eq!(was, now);
        }
    }
    assert_eq!(
        fix::measure(&placed, FROM, days(1), 0)
            .unwrap()
            .peak_starts_per_minute,
        3
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn levelling_any_small_fleet_never_raises_its_peak(
        specs in prop::collection::vec(
            prop::sample::select(vec![
                "0 * * * *", "0 0 * * *", "*/15 * * * *", "30 2 * * *",
                "* * * * *", "5,17 * * * *", "0 */3 * * *", "@daily",
            ]),
            1..30,
        ),
        pinned in prop::collection::vec(1usize..30, 0..10),
    ) {
        let lines: Vec<FleetLine> = specs
            .iter()
            .enumerate()
            .map(|(at, spec)| FleetLine {
                line: at + 1,
                ..line(System::Cron, &format!("j{at}"), spec, &[])
            })
            .collect();
        let levelled = level::level(&lines, &pinned, None, FROM, days(1), 0).unwrap();
        prop_assert!(levelled.peak_after <= levelled.peak_before);
        let placed = fix::apply(&lines, &levelled.fixes);
        for (was, now) in lines.iter().zip(&placed) {
            if pinned.contains(&was.line) {
                prop_assert_eq!(was, now);
            }
        }
    }
}

#[test]
fn renaming_one_job_moves_that_job_alone_under_the_fix() {
    let lines = hourly_fleet(40);
    let rename = FleetChange::Rename {
        line: 7,
        to: "job 7 renamed".into(),
    };
    let moved = stability::stability(
        &lines,
        &rename,
        StabilityPlacing::HashFix { night: None },
        FROM,
        days(1),
    )
    .unwrap();
    assert_eq!(moved.compared, 40);
    let lines_moved: Vec<usize> = moved.moved.iter().map(|job| job.line).collect();
    assert_eq!(lines_moved, [7]);
    assert_eq!(moved.moved[0].id, "job 7");

    let grow = FleetChange::Grow { percent: 10 };
    let grown = stability::stability(
        &lines,
        &grow,
        StabilityPlacing::HashFix { night: None },
        FROM,
        days(1),
    )
    .unwrap();
    assert!(grown.moved.is_empty(), "{grown:?}");
}

#[test]
fn a_rerolled_random_delay_moves_nearly_every_job() {
    let lines = hourly_fleet(40);
    let grow = FleetChange::Grow { percent: 10 };
    let rerolled = StabilityPlacing::RandomDelay {
        seed: 7,
        night: None,
    };
    let moved = stability::stability(&lines, &grow, rerolled, FROM, days(1)).unwrap();
    assert_eq!(moved.compared, 40);
    assert!(moved.moved.len() >= 36, "{}", moved.moved.len());
}

#[test]
fn a_changed_machine_id_or_server_touches_only_their_systems() {
    let mut lines = hourly_fleet(3);
    lines.push(FleetLine {
        line: 4,
        ..line(System::Systemd, "backup.timer", "daily", &[])
    });
    for change in [
        FleetChange::MachineId("0123456789abcdef0123456789abcdef".into()),
        FleetChange::Server("prom-2.example.com".into()),
    ] {
        let moved = stability::stability(
            &lines,
            &change,
            StabilityPlacing::HashFix { night: None },
            FROM,
            days(1),
        )
        .unwrap();
        assert!(moved.moved.iter().all(|job| job.line == 4), "{moved:?}");
    }
    let too_much = FleetChange::Grow { percent: 101 };
    let refused = stability::stability(
        &lines,
        &too_much,
        StabilityPlacing::AsWritten,
        FROM,
        days(1),
    );
    assert_eq!(refused.unwrap_err().field, "percent");
}

fn near_spec() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "0",
            "00",
            "*",
            "*/15",
            "/",
            "-",
            ",",
            "H",
            "H/7",
            "h",
            "@daily",
            "@HOURLY",
            "@",
            "fqdn_rand(60)",
            "every",
            "offset",
            "24h",
            "0s",
            ":",
            "*:0/15",
            "03:00",
            "daily",
            "minutely",
            " ",
            "\t",
            "é",
            "99999999999999999999",
            "mon",
            "1-5",
            "?",
            "L",
            "LW",
            "L-3",
            "6#3",
            "15W",
            "FRIL",
            "JAN-MAR",
            "0/5",
        ]),
        0..14,
    )
    .prop_map(|parts| parts.join(" "))
}

fn any_system() -> impl Strategy<Value = System> {
    prop::sample::select(System::ALL.to_vec())
}

proptest! {
    #[test]
    fn any_line_fixes_without_panic(
        system in any_system(),
        id in ".{0,16}",
        spec in prop_oneof![near_spec(), ".{0,40}"],
        value in prop_oneof![Just("yes".to_string()), ".{0,8}"],
    ) {
        let options = [("RandomizedDelaySec", value.as_str()), ("Jitter", value.as_str())];
        let given = line(system, &id, &spec, &options);
        if let FixChange::Rewritten { spec, .. } = fix::fix_line(&given, None) {
            prop_assert!(!spec.trim().is_empty());
        }
    }

    #[test]
    fn any_text_rewrites_without_panic(text in ".{0,200}", spec in near_spec()) {
        let fixes: Vec<fix::LineFix> = (1..6)
            .map(|line| fix::LineFix { line, change: rewritten(&spec, &[("Jitter", "1h")]) })
            .collect();
        for format in [FleetFormat::Fleet, FleetFormat::Crontab] {
            if let Err(refusal) = native::rewrite(&text, format, &fixes) {
                prop_assert_eq!(refusal.field, "spec");
            }
        }
    }

    #[test]
    fn a_read_fleet_fixes_and_rewrites_to_the_same_lines(text in fleet_text()) {
        let read = import::read(&text, FleetFormat::Auto);
        let fixes = fix::fix_lines(&read.lines, None);
        let written = native::rewrite(&text, FleetFormat::Auto, &fixes).unwrap();
        let reread = import::read(&written, FleetFormat::Auto);
        let want = fix::apply(&read.lines, &fixes);
        prop_assert_eq!(reread.lines, want);
    }
}

/// Fleet files and crontabs of cron-like lines, blank lines and comments.
fn fleet_text() -> impl Strategy<Value = String> {
    let spec = prop::sample::select(vec![
        "0 0 * * *",
        "@hourly",
        "*/15 * * * *",
        "0  3 * * 1-5",
        "* * * * *",
        "H H * * *",
    ]);
    let system = prop::sample::select(vec!["cron", "jenkins", "croniter", "puppet"]);
    let fleet_line = (system, "[a-z/ é]{1,10}", spec.clone())
        .prop_map(|(system, id, spec)| format!("{system}\t{}x\t{spec}", id.trim()));
    let crontab_line =
        ("[a-z/]{1,10}", spec).prop_map(|(command, spec)| format!("{spec} /{command}"));
    prop_oneof![
        prop::collection::vec(
            prop_oneof![fleet_line, Just("# note".into()), Just(String::new())],
            0..12
        ),
        prop::collection::vec(
            prop_oneof![crontab_line, Just("# note".into()), Just("A=1".into())],
            0..12
        ),
    ]
    .prop_map(|lines| lines.join("\n"))
}

#[test]
fn durations_the_fix_writes_read_back() {
    for span in ["1d", "1h", "15m", "24h"] {
        assert!(parse_duration(span).is_ok(), "{span}");
    }
}

#[test]
fn a_new_machine_id_moves_fixed_delays_and_a_new_server_moves_every_target() {
    // One timer on 20 machines with a fixed delay, and 20 scrape targets.
    let text: String = (0..20)
        .map(|k| {
            format!(
                "systemd\tbackup.timer\tdaily\tRandomizedDelaySec=1h\tFixedRandomDelay=yes\tMachineID={k:032x}\n"
            )
        })
        .chain((0..20).map(|k| {
            format!("prometheus\tnode-{k}:9100\t1m\tJob=node\tServer=prom-1.example.com\n")
        }))
        .collect();
    let lines = file::parse(&text).lines;
    assert_eq!(lines.len(), 40);
    let moved_lines = |change: FleetChange| {
        let moved =
            stability::stability(&lines, &change, StabilityPlacing::AsWritten, FROM, days(1))
                .unwrap();
        assert_eq!(moved.compared, 40);
        moved.moved.iter().map(|job| job.line).collect::<Vec<_>>()
    };
    // Every machine but one gets a new id; the targets stay.
    let new_id = format!("{:032x}", 3);
    let moved = moved_lines(FleetChange::MachineId(new_id));
    assert_eq!(
        moved,
        (1..=20).filter(|&line| line != 4).collect::<Vec<_>>()
    );
    // A new server seeds every target's offset anew; the timers stay.
    let moved = moved_lines(FleetChange::Server("prom-2.example.com".into()));
    assert_eq!(moved, (21..=40).collect::<Vec<_>>());
}

/// The lines `fixes` rewrites.
fn moved_lines(fixes: &[LineFix]) -> Vec<usize> {
    fixes
        .iter()
        .filter(|fix| matches!(fix.change, FixChange::Rewritten { .. }))
        .map(|fix| fix.line)
        .collect()
}

#[test]
fn the_fix_leaves_lines_that_share_no_minute_as_written() {
    let read = file::parse(
        "cron\tbackup\t0 2 * * *\n\
         cron\treport\t0 3 * * *\n\
         cron\trotate\t0 3 * * *\n",
    );
    let horizon = Horizon::hours(24).unwrap();
    let fixes = fix::fix_crowded(&read.lines, None, 1_767_225_600, horizon, 1).unwrap();
    assert_eq!(moved_lines(&fixes), [2, 3]);
    let FixChange::Kept { why } = &fixes[0].change else {
        panic!("the lone line moved");
    };
    assert!(why.contains("shares a minute"), "{why}");
}

#[test]
fn a_cron_line_keeps_its_hashed_minute_when_its_command_gains_blanks() {
    let spaced = file::parse("cron\t/opt/run   --all \t0 * * * *\n");
    let tidy = file::parse("cron\t/opt/run --all\t0 * * * *\n");
    let spec = |line: &FleetLine| match fix::fix_line(line, None) {
        FixChange::Rewritten { spec, .. } => spec,
        FixChange::Kept { why } => panic!("kept: {why}"),
    };
    assert_eq!(spec(&spaced.lines[0]), spec(&tidy.lines[0]));
    assert_eq!(fix::window::hash_identity(" a\t b  c "), "a b c");
}

#[test]
fn the_fix_to_capacity_moves_the_fewest_lines_and_no_more() {
    // 40 jobs on the hour against 30 starts a minute: 10 must move.
    let text: String = (1..=40)
        .map(|job| format!("cron\tjob-{job}\t0 * * * *\n"))
        .collect();
    let read = file::parse(&text);
    let (from, horizon) = (1_767_225_600, Horizon::hours(24).unwrap());
    let levelled = level::to_capacity(&read.lines, 30, None, from, horizon, 1).unwrap();
    assert_eq!(moved_lines(&levelled.fixes).len(), 10);
    // Counted apart from the fixer: every minute of the fixed fleet.
    let fixed = fix::apply(&read.lines, &levelled.fixes);
    let expansion = stampede_fleet::expand(&fixed, from, horizon, 1).unwrap();
    assert!(
        expansion
            .starts_per_minute
            .iter()
            .all(|&starts| starts <= 30)
    );
    assert_eq!(expansion.starts.len(), 40 * 24);

    // Lines that may not move keep a minute over the capacity: nothing moves.
    let every_minute: String = (1..=35)
        .map(|job| format!("cron\tpoll-{job}\t* * * * *\n"))
        .collect();
    let read = file::parse(&every_minute);
    let levelled = level::to_capacity(&read.lines, 30, None, from, horizon, 1).unwrap();
    assert!(moved_lines(&levelled.fixes).is_empty());
}

#[test]
fn a_nightly_line_moves_within_the_night_the_reader_sets_and_no_further() {
    let night = fix::NightHours::parse("0-5").ok();
    let fixed = |system, spec| fix::fix_line(&line(system, "folder/job", spec, &[]), night);
    assert_eq!(
        fixed(System::Jenkins, "0 0 * * *"),
        rewritten("H H(0-5) * * *", &[])
    );
    assert_eq!(
        fixed(System::Croniter, "30 2 * * 1"),
        rewritten("H H(0-5) * * 1", &[])
    );
    // Outside the night, or more than once a day, a line keeps its hour.
    assert_eq!(
        fixed(System::Jenkins, "0 8 * * *"),
        rewritten("H 8 * * *", &[])
    );
    assert_eq!(
        fixed(System::Jenkins, "0 0,12 * * *"),
        rewritten("H 0,12 * * *", &[])
    );
    assert_eq!(
        fixed(System::Puppet, "0 0 * * *"),
        rewritten("fqdn_rand(60) fqdn_rand(6) * * *", &[])
    );
    let delay = |span| [("RandomizedDelaySec", span), ("FixedRandomDelay", "yes")];
    assert_eq!(
        fixed(System::Systemd, "daily"),
        rewritten("daily", &delay("6h"))
    );
    assert_eq!(
        fixed(System::Systemd, "*-*-* 02:30"),
        rewritten("*-*-* 02:30", &delay("210m"))
    );
    assert_eq!(
        fixed(System::Temporal, "0 0 * * *"),
        rewritten("0 0 * * *", &[("Jitter", "6h")])
    );
    // 300 cron jobs at midnight land all over the night, and only there.
    let text: String = (0..300)
        .map(|job| format!("cron\tbackup-{job}\t0 0 * * *\n"))
        .collect();
    let read = file::parse(&text);
    let fixes = fix::fix_lines(&read.lines, night);
    let moved = fix::apply(&read.lines, &fixes);
    let expansion = stampede_fleet::expand(&moved, FROM, days(1), 1).unwrap();
    let minutes: Vec<usize> = expansion
        .starts_per_minute
        .iter()
        .enumerate()
        .filter(|(_, starts)| **starts > 0)
        .map(|(minute, _)| minute)
        .collect();
    assert!(minutes.iter().all(|&minute| minute < 6 * 60), "{minutes:?}");
    assert!(
        minutes.iter().any(|&minute| minute >= 5 * 60),
        "the last hour of the night is empty"
    );
    assert!(*expansion.starts_per_minute.iter().max().unwrap() <= 4);
    assert!(fix::NightHours::parse("5-2").unwrap_err().contains("a ≤ b"));
    assert!(fix::NightHours::parse("0-24").is_err());
}
