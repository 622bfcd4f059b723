//! Prometheus scrape offsets against Go and xxHash themselves: every vector
//! in `prometheus_offsets.tsv` was printed by Go 1.19's standard library and
//! PyPI xxhash (see `make_prometheus_offsets.py`).

use proptest::prelude::*;
use stampede_core::fleet;
use stampede_core::fleet::cron::Horizon;
use stampede_core::fleet::file::{self, FleetLine};
use stampede_core::fleet::plan::Window;
use stampede_core::fleet::prometheus::{self, OPTION_KEYS};

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
