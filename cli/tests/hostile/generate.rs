//! The generated cases: schedules drawn from pools of the ordinary and
//! the pathological, in every format, with other line ends, marks,
//! garbage, cuts and nesting, and every option.

use std::fmt::Write as _;

use stampede_core::panels::fleet::Sample;

use crate::cases::Case;

/// How many cases the generator makes, besides the named ones.
pub const GENERATED: usize = 320;
pub const SEED: u64 = 40;

/// SplitMix64: a handful of lines, and the same cases on every machine.
pub struct Draw(pub u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}
// ---- The schedules a generated case is made of ----

const CRON_SPECS: &[&str] = &[
    "0 0 * * *",
    "*/5 * * * *",
    "30 2 * * 1-5",
    "0 0 30 2 *",
    "0 0 31 4,6,9,11 *",
    "0 0 29 2 *",
    "0 0 31 2 mon",
    "@reboot",
    "@yearly",
    "@hourly",
    "*/0 * * * *",
    "0-4294967296 * * * *",
    "1-59/99999999999 * * * *",
    "99999999999999999999 * * * *",
    "* * * * * * * *",
    "",
    "-1 * * * *",
    "0 0 L * *",
    "H H * * *",
    "H(0-99999) * * * *",
    "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20 * * * *",
    "* * * * *",
];

const CALENDARS: &[&str] = &[
    "*-*-* 00:00:00",
    "*-02-30",
    "*-02-29 00:00",
    "9999-12-31 23:59:59",
    "2199-12-31 23:59",
    "2100-02-29",
    "1970-01-01",
    "Mon..Fri *-*-* 02:00",
    "*-*-* *:*:0/0",
    "*:0/1",
    "hourly",
    "weekly",
    "*-*~01",
    "*-02~03",
    "*-04-31 12:00",
    "Sat *-*-1..7 18:00 Europe/Berlin",
    "*-*-* 02:30 America/New_York",
    "*-*-* 00:00:00.999999999",
];

const DURATIONS: &[&str] = &[
    "1h",
    "0s",
    "-1h",
    "1.5h",
    "10d",
    "1e9h",
    "99999999999999999999h",
    "2562047h47m16.854775807s",
    "1h1h1h",
    ".s",
    "5m30s",
];

const ZONES: &[&str] = &[
    "UTC",
    "Europe/Berlin",
    "America/St_Johns",
    "Pacific/Kiritimati",
    "Australia/Lord_Howe",
    "Antarctica/Troll",
    "Pacific/Apia",
    "Nowhere/Zone",
    "../../etc/passwd",
    "",
];

const FROMS: &[&str] = &[
    "2026-01-01T00:00:00Z",
    "2026-03-08T00:00:00-05:00",
    "1970-01-01T00:00:00Z",
    "9999-12-31T00:00:00Z",
    "9999-12-30T23:00:00+14:00",
    "9999-12-01T00:00:00Z",
    "2100-12-31T00:00:00Z",
    "2199-12-31T00:00:00Z",
    "0000-01-01T00:00:00Z",
    "not a time",
];

const HOURS: &[&str] = &["1", "24", "168", "744", "0", "745"];

/// A run of digits as long as a case asks.
pub fn nines(count: usize) -> String {
    "9".repeat(count)
}

fn cron_spec(draw: &mut Draw) -> String {
    if draw.chance(10) {
        format!("{} * * * *", nines(1 + draw.below(5_000)))
    } else {
        draw.pick(CRON_SPECS).to_string()
    }
}

fn duration(draw: &mut Draw) -> String {
    if draw.chance(10) {
        format!("{}s", nines(1 + draw.below(5_000)))
    } else {
        draw.pick(DURATIONS).to_string()
    }
}

fn fleet_line(draw: &mut Draw, i: usize) -> String {
    let (system, spec, option) = match draw.below(7) {
        0 => {
            let zone = format!("TZ={}", draw.pick(ZONES));
            ("cron", cron_spec(draw), zone)
        }
        1 => ("jenkins", cron_spec(draw), String::new()),
        2 => ("croniter", cron_spec(draw), String::new()),
        3 => {
            let delay = format!("RandomizedDelaySec={}", duration(draw));
            ("systemd", draw.pick(CALENDARS).to_string(), delay)
        }
        4 => {
            let jitter = format!("Jitter={}", duration(draw));
            let spec = if draw.chance(50) {
                format!("every {}", duration(draw))
            } else {
                cron_spec(draw)
            };
            ("temporal", spec, jitter)
        }
        5 => ("prometheus", duration(draw), format!("Job=job{i}")),
        _ => ("puppet", cron_spec(draw), String::new()),
    };
    let mut line = format!("{system}\tjob {i}\t{spec}");
    if !option.is_empty() {
        write!(line, "\t{option}").unwrap();
    }
    if draw.chance(20) {
        write!(line, "\tDuration={}", duration(draw)).unwrap();
    }
    line
}

/// A text in `format` with `count` schedules drawn from the pools above.
fn text_in(format: &str, count: usize, draw: &mut Draw) -> String {
    let mut text = String::new();
    for i in 0..count {
        let spec = cron_spec(draw);
        match format {
            "fleet" => writeln!(text, "{}", fleet_line(draw, i)),
            "crontab" => {
                if draw.chance(15) {
                    writeln!(text, "CRON_TZ={}", draw.pick(ZONES)).unwrap();
                }
                if draw.chance(10) {
                    writeln!(text, "RANDOM_DELAY={}", draw.below(100_000)).unwrap();
                }
                writeln!(text, "{spec} /usr/bin/job-{i} --flag")
            }
            "jenkins" => writeln!(
                text,
                "// job: team/job-{i}\npipeline {{\n  triggers {{ cron('{spec}') }}\n  stages {{ }}\n}}"
            ),
            "jenkins-xml" => writeln!(
                text,
                "# file: jobs/job-{i}/config.xml\n<?xml version='1.1'?>\n<project><triggers><hudson.triggers.TimerTrigger><spec>{spec}</spec></hudson.triggers.TimerTrigger></triggers></project>"
            ),
            "systemd" => writeln!(
                text,
                "# file: job-{i}.timer\n[Timer]\nOnCalendar={}\nRandomizedDelaySec={}\nAccuracySec={}\n",
                draw.pick(CALENDARS),
                duration(draw),
                duration(draw)
            ),
            "prometheus" => {
                if i == 0 {
                    text.push_str("global:\n  scrape_interval: 15s\nscrape_configs:\n");
                }
                writeln!(
                    text,
                    "  - job_name: job-{i}\n    scrape_interval: {}\n    static_configs:\n      - targets: ['host-{i}:9100']",
                    duration(draw)
                )
            }
            "k8s" => writeln!(
                text,
                "---\napiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: job-{i}\nspec:\n  schedule: \"{spec}\"\n  timeZone: \"{}\"",
                draw.pick(ZONES)
            ),
            "gha" => writeln!(
                text,
                "# file: .github/workflows/w{i}.yml\non:\n  schedule:\n    - cron: '{spec}'"
            ),
            "temporal" => writeln!(
                text,
                r#"{{"scheduleId":"s{i}","namespaceId":"ns","schedule":{{"spec":{{"interval":[{{"interval":"{}","phase":"{}"}}],"cronString":["{spec}"],"jitter":"{}"}}}}}}"#,
                duration(draw),
                duration(draw),
                duration(draw)
            ),
            _ => unreachable!("no format {format}"),
        }
        .unwrap();
    }
    text
}

const FORMATS: &[&str] = &[
    "fleet",
    "crontab",
    "jenkins",
    "jenkins-xml",
    "systemd",
    "prometheus",
    "k8s",
    "gha",
    "temporal",
];

/// The same text with other line ends, a BOM, garbage, a cut, or nesting.
fn mutate(text: String, draw: &mut Draw) -> Vec<u8> {
    let mut text = match draw.below(4) {
        0 => text,
        1 => text.replace('\n', "\r\n"),
        2 => text.replace('\n', "\r"),
        _ => text
            .split('\n')
            .enumerate()
            .map(|(i, line)| format!("{line}{}", ["\n", "\r\n", "\r"][i % 3]))
            .collect(),
    };
    if draw.chance(15) {
        text.insert(0, '\u{feff}');
    }
    if draw.chance(10) {
        let cut = draw.below(text.len().max(1));
        let cut = (0..=cut).rev().find(|&at| text.is_char_boundary(at));
        text.truncate(cut.unwrap_or(0));
    }
    if draw.chance(10) {
        for i in 0..draw.below(2_000) {
            writeln!(text, "garbage {i} \u{0}\u{7}\t{{[\"'").unwrap();
        }
    }
    if draw.chance(5) {
        let depth = draw.below(100_000);
        text.push_str(&"[".repeat(depth));
        text.push_str(&"{\"a\":".repeat(depth / 2));
    }
    text.into_bytes()
}

fn options(draw: &mut Draw, format: &str) -> Vec<String> {
    let mut args = vec![
        "--format".to_string(),
        if draw.chance(70) { format } else { "auto" }.to_string(),
    ];
    if draw.chance(40) {
        args.extend(["--from".to_string(), draw.pick(FROMS).to_string()]);
    } else {
        args.extend(["--from".to_string(), FROMS[0].to_string()]);
    }
    if draw.chance(40) {
        args.extend(["--hours".to_string(), draw.pick(HOURS).to_string()]);
    }
    if draw.chance(20) {
        args.extend(["--seed".to_string(), draw.next().to_string()]);
    }
    match draw.below(8) {
        0 => args.push("--starts".into()),
        1 => args.push("--strict".into()),
        2 => args.push("--fix".into()),
        3 => args.extend(["--fix", "--level"].map(String::from)),
        4 => args.extend(["--fix", "--capacity", "3"].map(String::from)),
        5 => args.extend(["--fix", "--night", "0-5"].map(String::from)),
        _ => {}
    }
    args
}

fn arrivals_file(draw: &mut Draw) -> Vec<u8> {
    let mut rows = String::new();
    let start = 1_767_225_600_i64;
    let unit = draw.pick(&["s", "ms", "iso", "csv"]);
    for i in 0..draw.below(5_000) {
        let at = start + i as i64 * (1 + draw.below(30) as i64);
        match unit {
            "s" => writeln!(rows, "{at}"),
            "ms" => writeln!(rows, "{}", at * 1000),
            "iso" => writeln!(rows, "2026-01-01T00:{:02}:{:02}+01:00", i / 60 % 60, i % 60),
            _ => writeln!(rows, "{at},job-{i},{}", draw.below(600)),
        }
        .unwrap();
        if draw.chance(2) {
            let outlier = draw.pick(&["1e300", "-1", "99999999999999999999", "NaN", "+25:00", ""]);
            writeln!(rows, "{outlier}").unwrap();
        }
    }
    if unit == "csv" {
        rows.insert_str(0, "timestamp,job,seconds\n");
    }
    mutate(rows, draw)
}

/// The `n`th generated case: every tenth replays arrivals, every tenth
/// one of the page's samples, and the rest cycle through the formats.
pub fn generated(n: usize, draw: &mut Draw) -> Case {
    let name = format!("generated-{n}");
    if n % 10 == 9 {
        return Case::arrivals(name, "v=1&p=queue&w=4", arrivals_file(draw));
    }
    let (text, format) = if n % 10 == 8 {
        let samples = &Sample::OPTIONS[1..];
        let sample = Sample::from_slug(samples[draw.below(samples.len())].slug).unwrap();
        (sample.text(), "auto")
    } else {
        let format = FORMATS[n % FORMATS.len()];
        let count = match draw.below(10) {
            0 => 0,
            1 => 1 + draw.below(20_000),
            _ => 1 + draw.below(40),
        };
        let mut text = text_in(format, count, draw);
        if draw.chance(10) {
            // A mixed paste: another format's text after this one.
            text += &text_in(draw.pick(FORMATS), 1 + draw.below(10), draw);
        }
        (text, format)
    };
    let args = options(draw, format);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Case::fleet(name, &args, mutate(text, draw))
}
