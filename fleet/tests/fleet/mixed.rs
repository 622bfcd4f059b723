//! Pastes that mix formats: every part read as if pasted alone, every
//! line accounted for, and Jenkins job `config.xml` files.

use proptest::prelude::*;

use stampede_core::fleet_format::FleetFormat;
use stampede_fleet::file::System;
use stampede_fleet::fix::{FixChange, LineFix, native};
use stampede_fleet::import::{self, Imported, parts};

/// One realistic file of each format, each with something to skip or pass
/// over, and the format it reads in alone.
const FIXTURES: [(FleetFormat, &str); 10] = [
    (
        FleetFormat::Crontab,
        "# m h dom mon dow command\nMAILTO=ops@example.com\n0 2 * * * /usr/local/bin/backup\n\
         */15 * * * * /usr/bin/poll --quiet\nthis is not a schedule\n@daily /usr/bin/rotate\n",
    ),
    (
        FleetFormat::Jenkins,
        "// job: shop/nightly\npipeline {\n  agent any\n  triggers {\n    cron('''H 2 * * *\n\
         H 14 * * 1-5''')\n  }\n  stages { stage('x') { steps { sh 'make {all}' } } }\n}\n",
    ),
    (
        FleetFormat::Jenkins,
        "// job: ops/cleanup\nproperties([pipelineTriggers([cron('H/30 * * * *')])])\n\
         node {\n  sh \"echo '}'\"\n}\n",
    ),
    (
        FleetFormat::Systemd,
        "# file: backup.timer\n[Unit]\nDescription=Nightly backup\n\n[Timer]\nOnCalendar=*-*-* 02:00:00\n\
         RandomizedDelaySec=30m\nOnBootSec=5min\n\n[Install]\nWantedBy=timers.target\n",
    ),
    (
        FleetFormat::Kubernetes,
        "---\napiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: report\n  namespace: shop\n\
         spec:\n  schedule: \"30 3 * * *\"\n  jobTemplate:\n    spec: {}\n",
    ),
    (
        FleetFormat::GithubActions,
        "# file: acme/site/.github/workflows/nightly.yml\nname: nightly\non:\n  schedule:\n\
         \x20\x20\x20\x20- cron: '0 4 * * *'\njobs:\n  build:\n    runs-on: ubuntu-latest\n",
    ),
    (
        FleetFormat::Prometheus,
        "# server: prom-1.example.com\nglobal:\n  scrape_interval: 1m\nscrape_configs:\n\
         \x20\x20- job_name: node\n    static_configs:\n      - targets: ['a:9100', 'b:9100']\n",
    ),
    (
        FleetFormat::Temporal,
        "[\n  {\"scheduleId\": \"sync\", \"namespaceId\": \"ns\",\n   \"spec\": {\"interval\": \
         [{\"interval\": \"3600s\"}]}}\n]\n",
    ),
    (
        FleetFormat::Fleet,
        "cron\tnightly export\t0 1 * * *\tDuration=1h\njenkins\tteam/a\tH H * * *\n",
    ),
    (
        FleetFormat::JenkinsXml,
        "# file: jobs/ops/jobs/backup/config.xml\n<?xml version='1.1' encoding='UTF-8'?>\n<project>\n\
         \x20\x20<triggers>\n    <hudson.triggers.TimerTrigger>\n      <spec>H 1 * * *\n\
         # weekdays too\nH 13 * * 1-5</spec>\n    </hudson.triggers.TimerTrigger>\n\
         \x20\x20</triggers>\n</project>\n",
    ),
];

/// What a text gave, lines and all, for comparing two reads.
fn read_of(imported: &Imported) -> (Vec<String>, Vec<String>, Vec<String>) {
    let jobs = imported
        .file
        .lines
        .iter()
        .map(|line| {
            format!(
                "{} {:?} {} {} {:?}",
                line.line, line.system, line.id, line.spec, line.options
            )
        })
        .collect();
    let skipped = imported
        .file
        .skipped
        .iter()
        .map(|skipped| format!("{} {} {}", skipped.line, skipped.field, skipped.reason))
        .collect();
    let notes = imported
        .notes
        .iter()
        .map(|note| format!("{} {}", note.line, note.message))
        .collect();
    (jobs, skipped, notes)
}

/// `imported` with every line number moved down `shift` lines.
fn shifted(mut imported: Imported, shift: usize) -> Imported {
    imported
        .file
        .lines
        .iter_mut()
        .for_each(|line| line.line += shift);
    imported
        .file
        .skipped
        .iter_mut()
        .for_each(|skipped| skipped.line += shift);
    imported
        .notes
        .iter_mut()
        .for_each(|note| note.line += shift);
    imported
}

/// The fixtures at `picks`, pasted one after another, and what each gives
/// read alone in its own format, moved to where it stands in the paste.
fn mix(picks: &[usize]) -> (String, Imported) {
    let mut text = String::new();
    let mut expected = Imported::default();
    for &pick in picks {
        let (format, fixture) = FIXTURES[pick];
        let shift = text.lines().count();
        let alone = shifted(import::import(fixture, format), shift);
        expected.file.lines.extend(alone.file.lines);
        expected.file.skipped.extend(alone.file.skipped);
        expected.notes.extend(alone.notes);
        text.push_str(fixture);
    }
    expected.file.skipped.sort_by_key(|skipped| skipped.line);
    (text, expected)
}

#[test]
fn every_fixture_reads_alone_in_its_format_and_by_detection() {
    for (format, fixture) in FIXTURES {
        let alone = import::import(fixture, format);
        assert!(!alone.file.lines.is_empty(), "{format:?} gave no job");
        let parts = parts::parts(fixture);
        assert_eq!(
            parts.iter().map(|part| part.format).collect::<Vec<_>>(),
            [format],
            "{fixture}"
        );
        assert_eq!(
            read_of(&import::import(fixture, FleetFormat::Auto)),
            read_of(&alone)
        );
    }
}

#[test]
fn every_fixture_reads_the_same_with_any_line_end_and_a_byte_order_mark() {
    for (format, text) in FIXTURES {
        let plain = import::import(text, format);
        for (form, variant) in [
            ("CRLF", text.replace('\n', "\r\n")),
            ("CR", text.replace('\n', "\r")),
            ("BOM", format!("\u{feff}{text}")),
            (
                "BOM and CR",
                format!("\u{feff}{}", text.replace('\n', "\r")),
            ),
        ] {
            for given in [format, FleetFormat::Auto] {
                let read = import::import(&variant, given);
                assert_eq!(read.file, plain.file, "{form}, {given:?}:\n{text}");
                assert_eq!(read.account(), plain.account(), "{form}, {given:?}");
            }
        }
    }
}

#[test]
fn a_fix_keeps_the_inputs_line_ends_and_mark() {
    let crontab = "0 0 * * * /bin/a\n0 0 * * * /bin/b\n0 0 * * * /bin/c\n";
    let plain = native::rewrite(crontab, FleetFormat::Auto, &fixes_of(crontab)).unwrap();
    assert_ne!(plain, crontab, "the fix moves the shared midnight");
    for (input, expected) in [
        (crontab.replace('\n', "\r"), plain.replace('\n', "\r")),
        (crontab.replace('\n', "\r\n"), plain.replace('\n', "\r\n")),
        (format!("\u{feff}{crontab}"), format!("\u{feff}{plain}")),
    ] {
        for format in [FleetFormat::Auto, FleetFormat::Crontab] {
            let fixes = fixes_of(&input);
            assert_eq!(native::rewrite(&input, format, &fixes).unwrap(), expected);
        }
    }
}

/// The hashing fix of `text` over a day.
fn fixes_of(text: &str) -> Vec<LineFix> {
    let lines = import::import(text, FleetFormat::Auto).file.lines;
    let horizon = stampede_fleet::cron::Horizon::hours(24).unwrap();
    stampede_fleet::fix::fix_crowded(&lines, None, 1_767_225_600, horizon, 1).unwrap()
}

#[test]
fn a_crontab_thirty_jenkinsfiles_and_ten_timers_pasted_together_all_read() {
    let mut text = String::new();
    for i in 0..200 {
        text.push_str(&format!(
            "{} {} * * * /opt/jobs/task-{i}.sh\n",
            i % 60,
            i % 24
        ));
    }
    for i in 0..30 {
        text.push_str(&format!(
            "// job: team/build-{i}\npipeline {{\n  agent any\n  triggers {{ cron('H H * * *') }}\n\
             \x20\x20stages {{ stage('b') {{ steps {{ sh 'make' }} }} }}\n}}\n"
        ));
    }
    for i in 0..10 {
        text.push_str(&format!(
            "# file: sync-{i}.timer\n[Unit]\nDescription=sync {i}\n\n[Timer]\nOnCalendar=hourly\n\
             RandomizedDelaySec=5m\n\n[Install]\nWantedBy=timers.target\n"
        ));
    }
    let imported = import::import(&text, FleetFormat::Auto);
    let systems = |system: System| {
        imported
            .file
            .lines
            .iter()
            .filter(|line| line.system == system)
            .count()
    };
    assert_eq!(systems(System::Cron), 200);
    assert_eq!(systems(System::Jenkins), 30);
    assert_eq!(systems(System::Systemd), 10);
    assert!(
        imported.file.skipped.is_empty(),
        "{:?}",
        imported.file.skipped
    );
    let formats: Vec<_> = imported
        .parts
        .iter()
        .map(|part| (part.format, part.jobs))
        .collect();
    assert_eq!(
        formats,
        [
            (FleetFormat::Crontab, 200),
            (FleetFormat::Jenkins, 30),
            (FleetFormat::Systemd, 10)
        ]
    );
    let account = imported.account();
    assert_eq!(account.lines, 200 + 30 * 6 + 10 * 10);
    assert_eq!((account.read, account.jobs, account.skipped), (240, 240, 0));
    assert_eq!(account.ignored, account.lines - 240);
}

#[test]
fn a_garbage_line_between_parts_is_skipped_with_its_line() {
    let text = "0 2 * * * /bin/a\n[Timer]\nOnCalendar=daily\nwhat is this\n";
    let imported = import::import(text, FleetFormat::Auto);
    assert_eq!(imported.file.lines.len(), 2);
    assert_eq!(imported.file.skipped.len(), 1);
    assert_eq!(imported.file.skipped[0].line, 4);
    let account = imported.account();
    assert_eq!(
        (
            account.lines,
            account.read,
            account.ignored,
            account.skipped
        ),
        (4, 2, 1, 1)
    );
}

#[test]
fn a_chosen_format_names_the_part_it_cannot_read() {
    let text =
        "# file: a.timer\n[Timer]\nOnCalendar=daily\n0 2 * * * /bin/backup\n1 3 * * * /bin/b\n";
    let imported = import::import(text, FleetFormat::Systemd);
    assert_eq!(imported.file.lines.len(), 1);
    let skipped = &imported.file.skipped;
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0].line, 4);
    assert!(
        skipped[0].reason.contains("lines 4–5 read as crontab"),
        "{}",
        skipped[0].reason
    );
    assert_eq!(import::import(text, FleetFormat::Auto).file.lines.len(), 3);
}

#[test]
fn a_job_config_reads_its_timer_and_names_the_job_from_its_path() {
    let (_, text) = FIXTURES[9];
    let imported = import::import(text, FleetFormat::Auto);
    let jobs: Vec<_> = imported
        .file
        .lines
        .iter()
        .map(|line| (line.line, line.system, line.id.as_str(), line.spec.as_str()))
        .collect();
    assert_eq!(
        jobs,
        [
            (6, System::Jenkins, "ops/backup", "H 1 * * *"),
            (8, System::Jenkins, "ops/backup", "H 13 * * 1-5")
        ]
    );
    // The same job in a Jenkinsfile hashes the same name, so its H fields
    // land alike.
    let jenkinsfile = "// job: ops/backup\npipeline { triggers { cron('H 1 * * *') } }\n";
    let from_jenkinsfile = import::import(jenkinsfile, FleetFormat::Auto);
    assert_eq!(from_jenkinsfile.file.lines[0].id, imported.file.lines[0].id);
}

#[test]
fn job_configs_without_a_timer_and_other_xml_are_refused_as_what_they_are() {
    let cases = [
        (
            "<?xml version='1.0'?>\n<project>\n  <triggers>\n    <hudson.triggers.SCMTrigger>\n\
             \x20     <spec>H/5 * * * *</spec>\n    </hudson.triggers.SCMTrigger>\n  </triggers>\n</project>\n",
            vec![
                (5, "spec", "SCM trigger"),
                (2, "triggers", "no timer trigger"),
            ],
        ),
        (
            "<project>\n  <triggers/>\n</project>\n",
            vec![(1, "triggers", "no timer trigger")],
        ),
        (
            "<?xml version=\"1.0\"?>\n<settings>\n  <mirrors/>\n</settings>\n",
            vec![(2, "xml", "root is <settings>")],
        ),
        (
            "<project>\n  <triggers>\n</project>\n",
            vec![(3, "xml", "not well-formed")],
        ),
        (
            "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [<!ENTITY lol \"lol\">]>\n<project/>\n",
            vec![(1, "xml", "DTD")],
        ),
        (
            "<project><triggers><hudson.triggers.TimerTrigger><spec>H 2 * * * &amp;&amp;</spec>\
             </hudson.triggers.TimerTrigger></triggers></project>\n",
            vec![(1, "spec", "")],
        ),
    ];
    for (text, expected) in cases {
        let imported = import::import(text, FleetFormat::Auto);
        let mut skipped: Vec<_> = imported
            .file
            .skipped
            .iter()
            .map(|skipped| {
                (
                    skipped.line,
                    skipped.field.as_str(),
                    skipped.reason.as_str(),
                )
            })
            .collect();
        skipped.sort_by_key(|(line, _, _)| std::cmp::Reverse(*line));
        assert_eq!(skipped.len(), expected.len(), "{text}: {skipped:?}");
        for ((line, field, reason), (want_line, want_field, want_reason)) in
            skipped.iter().zip(&expected)
        {
            assert_eq!(
                (*line, *field),
                (*want_line, *want_field),
                "{text}: {reason}"
            );
            assert!(reason.contains(want_reason), "{text}: {reason}");
        }
        assert!(imported.file.lines.is_empty());
    }
}

#[test]
fn a_fix_of_a_mixed_paste_rewrites_each_part_in_its_own_format() {
    let (mut text, _) = mix(&[0, 1, 3, 9]);
    text.push_str("30 5 * * * /bin/last\n");
    let imported = import::import(&text, FleetFormat::Auto);
    let fixes: Vec<LineFix> = imported
        .file
        .lines
        .iter()
        .map(|line| LineFix {
            line: line.line,
            change: match line.system {
                System::Cron | System::Jenkins => FixChange::Rewritten {
                    spec: "17 5 * * *".into(),
                    options: Vec::new(),
                },
                _ => FixChange::Kept {
                    why: "left alone here".into(),
                },
            },
        })
        .collect();
    let fixed = native::rewrite(&text, FleetFormat::Auto, &fixes).unwrap();
    assert_eq!(fixed.lines().count(), text.lines().count());
    let reread = import::import(&fixed, FleetFormat::Auto);
    for (before, after) in imported.file.lines.iter().zip(&reread.file.lines) {
        assert_eq!(before.line, after.line);
        match before.system {
            System::Cron | System::Jenkins => assert_eq!(after.spec, "17 5 * * *"),
            _ => assert_eq!(after.spec, before.spec),
        }
    }
    assert!(fixed.contains("<spec>17 5 * * *\n"), "{fixed}");
    assert!(
        fixed.contains("cron('''17 5 * * *\n17 5 * * *''')"),
        "{fixed}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any mix of the fixtures reads exactly as each fixture read alone,
    /// and every line of it is read, passed over, or skipped, once.
    #[test]
    fn a_mix_reads_as_its_files_alone(picks in prop::collection::vec(0..FIXTURES.len(), 1..8)) {
        let (text, expected) = mix(&picks);
        let imported = import::import(&text, FleetFormat::Auto);
        prop_assert_eq!(read_of(&imported), read_of(&expected));
        let account = imported.account();
        prop_assert_eq!(account.lines, text.lines().count());
        prop_assert_eq!(account.read + account.ignored + account.skipped, account.lines);
        prop_assert_eq!(account.jobs, expected.file.lines.len());
        let covered: usize = imported.parts.iter().map(|part| part.last_line - part.first_line + 1).sum();
        prop_assert_eq!(covered, account.lines);
    }

    /// Whatever the text, the account adds up and the parts cover it.
    #[test]
    fn the_account_adds_up_for_any_text(text in "(\\PC{0,30}\n){0,20}") {
        let imported = import::import(&text, FleetFormat::Auto);
        let account = imported.account();
        prop_assert_eq!(account.read + account.ignored + account.skipped, account.lines);
        prop_assert_eq!(account.lines, text.lines().count());
    }
}
