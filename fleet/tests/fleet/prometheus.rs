//! Prometheus scrape offsets against Go and xxHash themselves, and against
//! a real server: every vector in `prometheus_offsets.tsv` was derived from
//! Prometheus 3.14's source and printed by Go 1.19's standard library and
//! PyPI xxhash (see `make_prometheus_offsets.py`); `prometheus_real_2_42.tsv`
//! holds the scrapes a real Prometheus 2.42 made (see
//! `make_prometheus_real.py`).

use proptest::prelude::*;
use stampede_fleet as fleet;
use stampede_fleet::cron::Horizon;
use stampede_fleet::file::{self, FleetLine};
use stampede_fleet::import;
use stampede_fleet::prometheus::{self, OPTION_KEYS};
use stampede_fleet::time::Window;

const VECTORS: &str = include_str!("../data/prometheus_offsets.tsv");
/// 2024-02-26T00:00:00Z, the instant the vectors' scrapes start from.
const FROM: i64 = 1_708_905_600;
const WEEK: i64 = 7 * 86_400;

struct Row<'a> {
    columns: Vec<&'a str>,
}

impl<'a> Row<'a> {
    fn get(&self, index: usize) -> &'a str {
        self.columns[index]
    }

    /// The row as a fleet line: its options in the order the columns give
    /// them, empty ones left out.
    fn fleet_line(&self) -> String {
        let mut text = format!("prometheus\t{}\t{}", self.get(0), self.get(1));
        for (key, value) in ["Job", "Labels", "URL", "Server", "ExternalLabels"]
            .iter()
            .zip(&self.columns[2..7])
        {
            if !value.is_empty() {
                text.push_str(&format!("\t{key}={value}"));
            }
        }
        text
    }
}

fn rows() -> Vec<Row<'static>> {
    VECTORS
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| Row {
            columns: line.split('\t').collect(),
        })
        .collect()
}

fn read(text: &str) -> FleetLine {
    let fleet = file::parse(text);
    assert!(fleet.skipped.is_empty(), "{text:?}: {:?}", fleet.skipped);
    fleet.lines.into_iter().next().unwrap()
}

#[test]
fn prometheus_offsets_match_go_and_xxhash() {
    let rows = rows();
    assert!(rows.len() >= 100);
    let week = Window {
        from: FROM * 1_000_000,
        end: (FROM + WEEK) * 1_000_000,
    };
    for row in rows {
        assert_eq!(row.columns.len(), 13);
        let line = read(&row.fleet_line());
        let target = prometheus::read_target(&line).unwrap();
        let context = row.fleet_line();
        assert_eq!(target.url, row.get(7), "{context:?}");
        assert_eq!(target.labels_hash.to_string(), row.get(8), "{context:?}");
        assert_eq!(target.target_hash.to_string(), row.get(9), "{context:?}");
        assert_eq!(target.offset_seed.to_string(), row.get(10), "{context:?}");
        assert_eq!(
            target.scrapes.offset_nanos.to_string(),
            row.get(11),
            "{context:?}"
        );
        let mut starts = Vec::new();
        target.scrapes.push_starts(week, &mut starts, 3);
        let starts: Vec<String> = starts.iter().map(i64::to_string).collect();
        assert_eq!(starts.join(","), row.get(12), "{context:?}");
    }
}

#[test]
fn prometheus_lines_expand_every_interval_at_their_offset() {
    let text = "prometheus\tnode-1:9100\t15s\tJob=node\tServer=prometheus-0.example.org\n\
                prometheus\tbad/path:9100\t15s\tJob=node\n\
                prometheus\tdb:9187\t1m\tJob=db\tDuration=2s\n";
    let fleet = file::parse(text);
    assert_eq!(fleet.lines.len(), 2);
    assert_eq!(fleet.skipped[0].field, "id");
    let hour = Horizon::hours(1).unwrap();
    let expansion = fleet::expand(&fleet.lines, FROM, hour, 7).unwrap();
    assert!(expansion.notices.is_empty(), "{:?}", expansion.notices);
    let node: Vec<i64> = expansion
        .starts
        .iter()
        .filter(|start| start.line == 1)
        .map(|start| start.at_micros)
        .collect();
    assert_eq!(node.len(), 240);
    // The first vector row is this target: its first scrape at FROM + 4.125017232 s.
    assert_eq!(node[0], 1_708_905_604_125_017);
    assert!(node.windows(2).all(|pair| pair[1] - pair[0] == 15_000_000));
    assert_eq!(expansion.starts.len(), 240 + 60);
}

#[test]
fn prometheus_lines_without_a_server_are_scraped_by_localhost() {
    let target = |text: &str| prometheus::read_target(&read(text)).unwrap();
    let bare = "prometheus\ta:9100\t15s\tJob=node";
    assert_eq!(target(bare), target(&format!("{bare}\tServer=localhost")));
    assert_ne!(target(bare), target(&format!("{bare}\tServer=localhost.")));
}

#[test]
fn prometheus_refusals_name_the_field() {
    let field = |text: &str| {
        let fleet = file::parse(text);
        assert!(fleet.lines.is_empty(), "{text:?} should be refused");
        let skipped = &fleet.skipped[0];
        assert!(!skipped.reason.is_empty());
        skipped.field.clone()
    };
    let line = |rest: &str| format!("prometheus\thost:9100\t{rest}");
    assert_eq!(field("prometheus\thost/x:9100\t15s\tJob=a"), "id");
    assert_eq!(field(&line("0\tJob=a")), "spec");
    assert_eq!(field(&line("0s\tJob=a")), "spec");
    assert_eq!(field(&line("15\tJob=a")), "spec");
    assert_eq!(field(&line("30s1m\tJob=a")), "spec");
    assert_eq!(field(&line("1.5m\tJob=a")), "spec");
    assert_eq!(field(&line("293y\tJob=a")), "spec");
    assert_eq!(field(&line("99999999999999999999ms\tJob=a")), "spec");
    assert_eq!(field(&line("15s")), "Job");
    assert_eq!(field(&line("15s\tJob=")), "Job");
    assert_eq!(
        field(&line("15s\tJob=a\tLabels=__scheme__=https")),
        "Labels"
    );
    assert_eq!(field(&line("15s\tJob=a\tLabels=env")), "Labels");
    assert_eq!(field(&line("15s\tJob=a\tLabels=env=")), "Labels");
    assert_eq!(field(&line("15s\tJob=a\tLabels==x")), "Labels");
    assert_eq!(field(&line("15s\tJob=a\tLabels=a=1,a=2")), "Labels");
    assert_eq!(field(&line("15s\tJob=a\tURL=ftp://host:9100/m")), "URL");
    assert_eq!(field(&line("15s\tJob=a\tURL=http://other:9100/m")), "URL");
    assert_eq!(field(&line("15s\tJob=a\tURL=http://host:9100")), "URL");
    assert_eq!(
        field(&line("15s\tJob=a\tURL=http://host:9100/m#top")),
        "URL"
    );
    assert_eq!(field(&line("15s\tJob=a\tURL=http://host:9100/%zz")), "URL");
    assert_eq!(field(&line("15s\tJob=a\tURL=http://host:9100/%ff")), "URL");
    assert_eq!(
        field(&line("15s\tJob=a\tURL=http://host:9100/m?a=1;b=2")),
        "URL"
    );
    assert_eq!(field(&line("15s\tJob=a\tURL=host:9100/metrics")), "URL");
    assert_eq!(field(&line("15s\tJob=a\tServer=")), "Server");
    assert_eq!(
        field(&line("15s\tJob=a\tExternalLabels=a=1,b")),
        "ExternalLabels"
    );
    assert_eq!(field(&line("15s\tJob=a\tTZ=UTC")), "TZ");
}

fn near_interval() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            (0u64..100).prop_map(|n| n.to_string()),
            Just("99999999999999999999".to_string()),
            Just("9223372036854775807".to_string()),
            Just("ms".to_string()),
            Just("s".to_string()),
            Just("m".to_string()),
            Just("h".to_string()),
            Just("d".to_string()),
            Just("w".to_string()),
            Just("y".to_string()),
            Just("µs".to_string()),
            Just(".".to_string()),
            Just("-".to_string()),
        ],
        0..8,
    )
    .prop_map(|parts| parts.concat())
}

fn near_url() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("http://".to_string()),
            Just("HTTPS://".to_string()),
            Just("host:9100".to_string()),
            Just("/".to_string()),
            Just("metrics".to_string()),
            Just("?".to_string()),
            Just("&".to_string()),
            Just("=".to_string()),
            Just(";".to_string()),
            Just("#".to_string()),
            Just("%".to_string()),
            Just("%C3".to_string()),
            Just("%41".to_string()),
            Just("+".to_string()),
            Just("é".to_string()),
        ],
        0..12,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn prometheus_lines_never_panic_and_refusals_name_a_field(
        id in "[^\t\n\r]{0,16}",
        spec in prop_oneof![near_interval(), "[^\t\n\r]{0,12}"],
        labels in "[^\t\n\r]{0,24}",
        url in prop::option::of(near_url()),
        server in prop::option::of("[^\t\n\r]{0,12}"),
        external in "[^\t\n\r]{0,24}",
    ) {
        let mut text = format!(
            "prometheus\t{id}\t{spec}\tJob=job\tLabels={labels}\tExternalLabels={external}"
        );
        if let Some(url) = url {
            text.push_str(&format!("\tURL={url}"));
        }
        if let Some(server) = server {
            text.push_str(&format!("\tServer={server}"));
        }
        let fleet = file::parse(&text);
        for skipped in &fleet.skipped {
            let field = skipped.field.as_str();
            prop_assert!(
                ["system", "id", "spec"].contains(&field) || OPTION_KEYS.contains(&field),
                "{:?}", skipped
            );
            prop_assert!(!skipped.reason.is_empty());
        }
        for line in &fleet.lines {
            let target = prometheus::read_target(line).unwrap();
            let mut starts = Vec::new();
            let window = Window { from: FROM * 1_000_000, end: (FROM + WEEK) * 1_000_000 };
            target.scrapes.push_starts(window, &mut starts, 1_000);
            prop_assert!(starts.len() <= 1_000);
            prop_assert!(starts.windows(2).all(|pair| pair[0] < pair[1]));
        }
    }
}

/// Arrivals at targets a real Prometheus 2.42 (Debian 12's package)
/// scraped, recorded by `make_prometheus_real.py`, and the configuration
/// each of its two servers ran.
const REAL_2_42: &str = include_str!("../data/prometheus_real_2_42.tsv");
const REAL_2_42_CONFIGS: [&str; 2] = [
    include_str!("../data/prometheus_real_2_42_server_0.yml"),
    include_str!("../data/prometheus_real_2_42_server_1.yml"),
];

/// The phase of a real scrape less its modelled offset, in ns: at least 0
/// (no scrape before its instant) and at most this.
const MOST_LAG_NANOS: u64 = 10_000_000;
/// The least lag of each target's scrapes is at most this.
const MOST_LEAST_LAG_NANOS: u64 = 3_000_000;

/// A target a real server scraped.
struct RealTarget {
    /// The index of the server's configuration.
    server: usize,
    address: &'static str,
    /// The fleet line of the recorded fields.
    line: String,
    /// Each scrape's arrival mod the interval, in ns.
    phases: Vec<u64>,
}

fn real_targets() -> Vec<RealTarget> {
    let keys = ["Job", "Labels", "URL", "Timeout", "ExternalLabels"];
    REAL_2_42
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let columns: Vec<&str> = line.split('\t').collect();
            assert_eq!(columns.len(), 9, "{line:?}");
            let mut text = format!("prometheus\t{}\t{}", columns[1], columns[2]);
            for (key, value) in keys.iter().zip(&columns[3..8]) {
                if !value.is_empty() {
                    text.push_str(&format!("\t{key}={value}"));
                }
            }
            RealTarget {
                server: columns[0].parse().unwrap(),
                address: columns[1],
                line: text,
                phases: columns[8]
                    .split(',')
                    .map(|phase| phase.parse().unwrap())
                    .collect(),
            }
        })
        .collect()
}

/// The lag of each phase after the offset `line` places its scrapes at.
fn lags(line: &FleetLine, phases: &[u64]) -> Vec<u64> {
    let scrapes = prometheus::read_target(line).unwrap().scrapes;
    phases
        .iter()
        .map(|phase| {
            (phase + scrapes.interval_nanos - scrapes.offset_nanos) % scrapes.interval_nanos
        })
        .collect()
}

fn lands(lags: &[u64]) -> bool {
    lags.iter().all(|&lag| lag <= MOST_LAG_NANOS)
        && lags
            .iter()
            .min()
            .is_some_and(|&lag| lag <= MOST_LEAST_LAG_NANOS)
}

#[test]
fn prometheus_2_42_lines_place_a_real_servers_scrapes() {
    let targets = real_targets();
    assert!(targets.len() >= 10);
    for target in &targets {
        assert!(target.phases.len() >= 5, "{:?}", target.line);
        let text = format!("{}\tVersion=2.42\tEncoding=slice", target.line);
        let found = lags(&read(&text), &target.phases);
        assert!(lands(&found), "{text:?}: lags {found:?} ns");
        // Debian's 2.42 is a build without tags, which hashes the slice
        // encoding.
        let default = format!("{}\tVersion=2.42", target.line);
        assert_eq!(lags(&read(&default), &target.phases), found);
    }
}

#[test]
fn prometheus_3_14_lines_miss_a_real_2_42_servers_scrapes() {
    for target in real_targets() {
        let newest = lags(&read(&target.line), &target.phases);
        let text = format!("{}\tVersion=3.14", target.line);
        assert_eq!(lags(&read(&text), &target.phases), newest);
        assert!(!lands(&newest), "{text:?}: lags {newest:?} ns");
    }
}

#[test]
fn prometheus_yml_read_as_a_real_2_42_server_ran_it_places_its_scrapes() {
    let targets = real_targets();
    let mut placed = 0;
    for (server, config) in REAL_2_42_CONFIGS.iter().enumerate() {
        let imported = import::prometheus::translate(config).read();
        assert!(
            imported.file.skipped.is_empty(),
            "{:?}",
            imported.file.skipped
        );
        for line in &imported.file.lines {
            assert_eq!(line.options.own("Version"), Some("2.42"));
            let target = targets
                .iter()
                .find(|target| target.server == server && target.address == line.id)
                .unwrap();
            let found = lags(line, &target.phases);
            assert!(lands(&found), "{:?}: lags {found:?} ns", target.line);
            placed += 1;
        }
    }
    assert_eq!(placed, targets.len());
}

fn target(text: &str) -> prometheus::PrometheusTarget {
    prometheus::read_target(&read(text)).unwrap()
}

#[test]
fn prometheus_before_3_0_adds_the_default_port() {
    let url =
        |id: &str, options: &str| target(&format!("prometheus\t{id}\t4s\tJob=web{options}")).url;
    let v2 = "\tVersion=2.42";
    assert_eq!(url("127.0.0.1", v2), "http://127.0.0.1:80/metrics");
    assert_eq!(
        url("127.0.0.1", "\tVersion=2.42\tURL=https://127.0.0.1/m"),
        "https://127.0.0.1:443/m"
    );
    // The URL may name the address as the targets page shows it.
    assert_eq!(
        target("prometheus\th\t4s\tJob=web\tVersion=2.42\tURL=http://h:80/m"),
        target("prometheus\th\t4s\tJob=web\tVersion=2.42\tURL=http://h/m")
    );
    assert_eq!(url("[::1]", v2), "http://[::1]:80/metrics");
    assert_eq!(url("h:", v2), "http://h:/metrics");
    // `::1:1234` is no host:port either, so no port is added.
    assert_eq!(url("::1", v2), "http://::1/metrics");
    assert_eq!(url("127.0.0.1:9", v2), "http://127.0.0.1:9/metrics");
    assert_eq!(
        url("127.0.0.1", "\tVersion=3.0"),
        "http://127.0.0.1/metrics"
    );
}

#[test]
fn prometheus_releases_hash_what_they_label() {
    let line = "prometheus\th:9\t15s\tJob=a";
    let hash = |options: &str| target(&format!("{line}{options}")).labels_hash;
    let seed = |options: &str| target(&format!("{line}{options}")).offset_seed;
    // The interval and timeout labels came with 2.30.
    assert_eq!(hash("\tVersion=2.29\tTimeout=5s"), hash("\tVersion=2.29"));
    assert_ne!(hash("\tVersion=2.30\tTimeout=5s"), hash("\tVersion=2.30"));
    assert_eq!(hash("\tTimeout=10s"), hash(""));
    // The histogram labels came with 3.13, each with its setting.
    let nhcb = "\tConvertClassicHistogramsToNHCB=true";
    assert_eq!(
        hash(&format!("\tVersion=3.12{nhcb}")),
        hash("\tVersion=3.12")
    );
    assert_ne!(
        hash(&format!("\tVersion=3.13{nhcb}")),
        hash("\tVersion=3.13")
    );
    let switches = [
        "ConvertClassicHistogramsToNHCB",
        "AlwaysScrapeClassicHistograms",
        "ScrapeNativeHistograms",
    ];
    let on: Vec<u64> = switches
        .iter()
        .map(|key| hash(&format!("\t{key}=true")))
        .collect();
    assert!(on.iter().all(|&one| one != hash("")));
    assert!(on[0] != on[1] && on[1] != on[2] && on[0] != on[2]);
    assert_eq!(hash("\tScrapeNativeHistograms=false"), hash(""));
    // The label sets of 3.5 and 3.12 are alike.
    assert_eq!(hash("\tVersion=3.5"), hash("\tVersion=3.12"));
    assert_eq!(hash("\tVersion=3.5.2"), hash("\tVersion=3.5"));
    // The seed came with 2.9.
    assert_eq!(seed("\tVersion=2.8\tServer=a\tExternalLabels=x=1"), 0);
    assert_ne!(
        seed("\tVersion=2.9\tServer=a"),
        seed("\tVersion=2.9\tServer=b")
    );
    // Names that are not legacy ones are quoted from 3.1.
    let external = "\tExternalLabels=x-y=1";
    assert_eq!(
        seed(&format!("\tVersion=3.0{external}")),
        seed(&format!("\tVersion=3.0{external}"))
    );
    assert_ne!(
        seed(&format!("\tVersion=3.0{external}")),
        seed(&format!("\tVersion=3.1{external}"))
    );
    assert_eq!(
        seed("\tVersion=3.0\tExternalLabels=x_y=1"),
        seed("\tVersion=3.1\tExternalLabels=x_y=1")
    );
}

#[test]
fn prometheus_encodings_lay_out_lengths_as_their_release_does() {
    let hash = |value: &str, options: &str| {
        target(&format!(
            "prometheus\th:9\t15s\tJob=a\tLabels=v={value}{options}"
        ))
        .labels_hash
    };
    let stringlabels_3_4 = "\tVersion=3.4\tEncoding=stringlabels";
    // Lengths under 128 take one byte either way; 128 to 254, one byte
    // from 3.5 and two (a varint) before.
    let short = "s".repeat(127);
    assert_eq!(
        hash(&short, stringlabels_3_4),
        hash(&short, "\tVersion=3.5")
    );
    let long = "l".repeat(200);
    assert_ne!(hash(&long, stringlabels_3_4), hash(&long, "\tVersion=3.5"));
    // slice is the default before 3.5, stringlabels from 3.5.
    assert_eq!(
        hash("x", "\tVersion=3.4"),
        hash("x", "\tVersion=3.4\tEncoding=slice")
    );
    assert_ne!(hash("x", "\tVersion=3.4"), hash("x", stringlabels_3_4));
    assert_eq!(
        hash("x", "\tVersion=3.5"),
        hash("x", "\tVersion=3.5\tEncoding=stringlabels")
    );
    assert_ne!(
        hash("x", "\tVersion=3.5"),
        hash("x", "\tVersion=3.5\tEncoding=slice")
    );
}

#[test]
fn prometheus_version_encoding_and_timeout_refusals_name_the_field() {
    let field = |rest: &str| {
        let fleet = file::parse(&format!("prometheus\thost:9100\t15s\tJob=a\t{rest}"));
        assert!(fleet.lines.is_empty(), "{rest:?} should be refused");
        assert!(!fleet.skipped[0].reason.is_empty());
        fleet.skipped[0].field.clone()
    };
    for version in [
        "1.8", "2.5", "2.56", "3.15", "4.0", "3", "3.x", "v3.1", "3.1.", "3.1.2.3", "",
    ] {
        assert_eq!(
            field(&format!("Version={version}")),
            "Version",
            "{version:?}"
        );
    }
    assert_eq!(field("Encoding=dedupelabels"), "Encoding");
    assert_eq!(field("Version=2.42\tEncoding=stringlabels"), "Encoding");
    assert_eq!(field("Timeout=0s"), "Timeout");
    assert_eq!(field("Timeout=16s"), "Timeout");
    assert_eq!(field("Timeout=5"), "Timeout");
    assert_eq!(
        field("ScrapeNativeHistograms=yes"),
        "ScrapeNativeHistograms"
    );
    assert_eq!(field("Version=2.55\tLabels=x-y=1"), "Labels");
    assert_eq!(field("Version=2.55\tExternalLabels=é=1"), "ExternalLabels");
    let fleet = file::parse("prometheus\thost:9100\t15s\tJob=a\tVersion=3.0\tLabels=x-y=1");
    assert!(fleet.skipped.is_empty());
}
