//! The load across draws of random delays, held to the binomial law the
//! draws follow, computed here without the crate.

use proptest::prelude::*;
use stampede_fleet::chance::{DRAWS, DrawnRange};
use stampede_fleet::cron::Horizon;
use stampede_fleet::file;
use stampede_fleet::line::{FleetLine, LineOptions, System};

/// Monday 2024-01-01 00:00 UTC.
const MONDAY: i64 = 1_704_067_200;

#[test]
fn a_fleet_without_random_delays_has_no_range() {
    let fleet = file::parse("cron\tbackup\t0 3 * * *\nsystemd\tsync.timer\thourly\n");
    let day = Horizon::hours(24).unwrap();
    assert_eq!(DrawnRange::of(&fleet.lines, MONDAY, day, 1), None);
}

#[test]
fn independent_delays_spread_as_the_binomial_law_says() {
    // 1,000 timers at 03:00, each delayed by its own uniform draw over
    // 10 minutes: a minute of the ten holds Binomial(1000, 0.1) starts,
    // mean 100, standard deviation 9.49, so its 10th and 90th percentiles
    // lie 1.2816 σ either side: 87.8 and 112.2. Across 20 draws each
    // percentile is an estimate; averaged over the ten minutes, the width
    // is held to 24.3 within 6 and the median to 100 within 3.
    let mut text = String::from("cron\tsteady\t0 3 * * *\n");
    for job in 0..1000 {
        text.push_str(&format!(
            "systemd\tjob-{job}.timer\t*-*-* 03:00:00\tRandomizedDelaySec=10min\n"
        ));
    }
    let fleet = file::parse(&text);
    assert!(fleet.skipped.is_empty(), "{:?}", fleet.skipped);
    let day = Horizon::hours(24).unwrap();
    let range = DrawnRange::of(&fleet.lines, MONDAY, day, 7).unwrap();
    assert_eq!((range.draws, range.lines.len()), (DRAWS, 1000));
    assert!(
        range.lines[0].law.contains("seed"),
        "{}",
        range.lines[0].law
    );
    let band = &range.starts;
    // The cron job is in every draw: 03:00 holds it besides its share.
    let minutes: Vec<usize> = (180..190).collect();
    let mean = |values: Vec<f64>| values.iter().sum::<f64>() / values.len() as f64;
    let median = mean(minutes.iter().map(|&m| band.p50[m]).collect()) - 0.1;
    let width = mean(minutes.iter().map(|&m| band.p90[m] - band.p10[m]).collect());
    assert!((median - 100.0).abs() < 3.0, "median {median}");
    assert!((width - 24.3).abs() < 6.0, "width {width}");
    // No draw puts a start outside 03:00 to 03:10 but the fixed one.
    for minute in (0..1440).filter(|m| !minutes.contains(m)) {
        assert_eq!(band.p90[minute], 0.0, "minute {minute}");
    }
    // The busiest of ten such minutes: its median is about 1.5 σ over the
    // mean (the median of the largest of ten normals), 114.6.
    let busiest = f64::from(range.busiest[range.busiest.len() / 2]);
    assert!((busiest - 114.6).abs() < 6.0, "busiest {busiest}");
    assert!(range.busiest.is_sorted());
}

#[test]
fn a_plan_redrawn_places_what_a_plan_read_with_that_seed_places() {
    use stampede_fleet::plan::LinePlan;
    use stampede_fleet::time::{MICROS_PER_SECOND, Window};
    let fleet = file::parse(
        "cron\tnightly\t0 3 * * *\tRANDOM_DELAY=90\n\
         systemd\tsync.timer\thourly\tRandomizedDelaySec=20min\n\
         eventbridge\treport\tcron(0/15 * * * ? *)\tWindow=10\n\
         eventbridge\tpoll\trate(7 minutes)\n\
         anacron\tcron.daily\t1 5\tRandomDelay=45\tHours=3-22\n\
         apscheduler\treport\tcron hour=3 minute=0\tJitter=600\n\
         apscheduler\tpoll\tinterval minutes=7\tJitter=30\tStart=2024-01-01T00:00:00Z\n\
         sidekiq-cron\tdigest\t0 3 * * *\n\
         sidekiq-cron\tticker\t*/10 * * * * * Europe/Paris\tPoll=20\tProcess=web\n",
    );
    let window = Window {
        from: MONDAY * MICROS_PER_SECOND,
        end: (MONDAY + 2 * 86_400) * MICROS_PER_SECOND,
    };
    let starts = |plan: &LinePlan| {
        let mut out = Vec::new();
        plan.push_starts(window, &mut out, usize::MAX);
        out
    };
    for line in &fleet.lines {
        let first = LinePlan::read(line, 1).unwrap();
        for seed in [2, 3, 99] {
            let redrawn = first.redrawn(seed).unwrap();
            let read = LinePlan::read(line, seed).unwrap();
            assert_eq!(starts(&redrawn), starts(&read), "{} {seed}", line.id);
        }
        assert_ne!(
            starts(&first),
            starts(&first.redrawn(2).unwrap()),
            "{}",
            line.id
        );
    }
}

#[test]
fn apschedulers_jitter_is_drawn_anew_in_every_draw() {
    // 600 jobs at 03:00 with a jitter of 600 s: each start lands in one
    // of the ten minutes from 03:00, so every draw reaches those minutes
    // and no other, and its busiest minute holds about a tenth of them
    // (Binomial(600, 0.1): 60, σ 7.3), never all.
    let text: String = (0..600)
        .map(|job| format!("apscheduler\tjob-{job}\tcron hour=3 minute=0\tJitter=600\n"))
        .collect();
    let fleet = file::parse(&text);
    let day = Horizon::hours(24).unwrap();
    let range = DrawnRange::of(&fleet.lines, MONDAY, day, 7).unwrap();
    assert_eq!(range.lines.len(), 600);
    assert!(
        range.lines[0].law.contains("jitter"),
        "{}",
        range.lines[0].law
    );
    assert!(
        range
            .reached
            .iter()
            .all(|minute| (180..=190).contains(minute))
    );
    assert!((180..190).all(|minute| range.reached.contains(&minute)));
    assert!(
        range.busiest.iter().all(|&most| (60..=110).contains(&most)),
        "{:?}",
        range.busiest
    );
}

/// Crontab lines and systemd timers, some drawing delays at run time and
/// some not, and a line that does not read: system, spec and own option
/// (`key=value`, or none).
const KINDS: [(System, &str, &str); 8] = [
    (System::Cron, "0 * * * *", ""),
    (System::Cron, "*/20 2-4 * * *", ""),
    (System::Cron, "30 3 * * *", "RANDOM_DELAY=90"),
    (System::Jenkins, "H H * * *", ""),
    (System::Systemd, "*-*-* 03:00:00", ""),
    (System::Systemd, "*-*-* 03:00:00", "RandomizedDelaySec=5m"),
    (System::Systemd, "hourly", "RandomizedDelaySec=20min"),
    (System::Cron, "not cron", ""),
];

/// A line of [`KINDS`]: line numbers repeat and come out of order, as a
/// timer on several machines gives them; durations and weights vary.
fn fleet_line() -> impl Strategy<Value = FleetLine> {
    (
        1usize..8,
        0..KINDS.len(),
        prop::option::of(1u64..20_000),
        prop_oneof![Just(1.0), 0.0f64..5.0],
    )
        .prop_map(|(line, kind, duration_seconds, weight)| {
            kind_line(line, kind, duration_seconds, weight)
        })
}

/// Line `line` of the fleet, of kind `kind` of [`KINDS`].
fn kind_line(line: usize, kind: usize, duration_seconds: Option<u64>, weight: f64) -> FleetLine {
    let (system, spec, own) = KINDS[kind];
    FleetLine {
        line,
        system,
        id: format!("job-{line}-{kind}.timer"),
        spec: spec.to_string(),
        options: LineOptions {
            duration_seconds,
            weight,
            own: own
                .split_once('=')
                .map(|(key, value)| (key.to_string(), value.to_string()))
                .into_iter()
                .collect(),
        },
    }
}

/// A range's figures to the bit, so a sum taken in another order shows.
fn bits(range: &Option<DrawnRange>) -> Vec<u64> {
    let bands = range
        .iter()
        .flat_map(|range| std::iter::once(&range.starts).chain(&range.running));
    bands
        .flat_map(|band| [&band.p10, &band.p50, &band.p90])
        .flatten()
        .map(|value| value.to_bits())
        .collect()
}

proptest! {
    /// The range an expansion gives from the starts it placed, with only
    /// the drawing lines placed again, is the range the lines give alone,
    /// each line read afresh; and the expansion is the one without it.
    #[test]
    fn the_range_from_an_expansion_is_the_range_of_its_lines_alone(
        lines in prop::collection::vec(fleet_line(), 0..12),
        from in MONDAY..MONDAY + 7 * 86_400,
        hours in 1u32..72,
        seed in any::<u64>(),
    ) {
        let horizon = Horizon::hours(hours).unwrap();
        let mut expansion = stampede_fleet::expand_with_draws(&lines, from, horizon, seed).unwrap();
        let alone = DrawnRange::of(&lines, from, horizon, seed);
        prop_assert_eq!(bits(&expansion.drawn), bits(&alone));
        prop_assert_eq!(&expansion.drawn, &alone);
        expansion.drawn = None;
        prop_assert_eq!(expansion, stampede_fleet::expand(&lines, from, horizon, seed).unwrap());
    }
}

#[test]
fn the_kinds_draw_as_the_property_needs() {
    // The property above compares something only if some kinds draw and
    // some do not, and every kind but the last reads.
    let lines: Vec<FleetLine> = (0..KINDS.len())
        .map(|kind| kind_line(kind + 1, kind, None, 1.0))
        .collect();
    let day = Horizon::hours(24).unwrap();
    let range = DrawnRange::of(&lines, MONDAY, day, 1).unwrap();
    let drawing: Vec<usize> = range.lines.iter().map(|line| line.line).collect();
    assert_eq!(drawing, [3, 6, 7]);
    let expansion = stampede_fleet::expand(&lines, MONDAY, day, 1).unwrap();
    let not_read: Vec<usize> = expansion
        .notices
        .iter()
        .filter(|notice| notice.message.starts_with("not expanded"))
        .map(|notice| notice.line)
        .collect();
    assert_eq!(not_read, [8]);
}
