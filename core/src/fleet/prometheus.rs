//! Prometheus scrapes: each target at a fixed offset into its interval,
//! hashed from the target and the server.
//!
//! Followed: prometheus/prometheus v3.14.0 (`scrape/target.go`:
//! `Target.hash`, `Target.offset`, `Target.URL`, `PopulateLabels`;
//! `scrape/manager.go`: `setOffsetSeed`; `scrape/scrape.go`:
//! `scrapeLoop.run`; `model/labels/labels_stringlabels.go` and
//! `labels_common.go`), prometheus/common v0.70.1 (`model.ParseDuration`,
//! `Duration.String`), and Go's `net/url` and `strconv.Quote`.
//!
//! ```text
//! target  = FNV-1a64(fmt("%016d", XXH64(labels)) ++ url)
//! seed    = FNV-1a64(server FQDN ++ external_labels.String())
//! offset  = (target XOR seed) mod interval                (nanoseconds)
//! scrapes = every t with t ≡ offset (mod interval), t in ns since 1970
//! ```
//!
//! The scrape loop waits until the next such t, then ticks every interval,
//! so scrapes are pinned to absolute time, whenever the server started.
//! A scrape at t ns is placed at ⌊t / 1000⌋ µs (the microsecond it falls
//! in).
//!
//! - `labels` is the target's label set as `PopulateLabels` leaves it for a
//!   `static_configs` target without relabelling, sorted by name:
//!   `__address__` and `instance` (the line's id), `job` (`Job=`, required),
//!   `__scheme__`, `__metrics_path__` and `__param_<key>` (its first value)
//!   from the URL, `__scrape_interval__` and `__scrape_timeout__` (the spec
//!   and min(10s, spec), as `Duration.String` writes them), the three
//!   histogram switches at their default `false`, and the `Labels=` pairs
//!   (`k=v,k=v`, spaces around names and values trimmed, no name starting
//!   with `__`), which win over `job` and `instance`. A param whose first
//!   value is empty gives no label, as the label builder drops empty values.
//! - XXH64 (seed 0) is taken of the default `stringlabels` encoding: each
//!   name and value preceded by its length in one byte, or 255 and three
//!   little-endian bytes from 255 on. The `slicelabels` and `dedupelabels`
//!   builds hash `name 0xff value 0xff` instead, so they place targets
//!   elsewhere; release binaries are built with neither tag.
//! - `url` is Go's `URL.String()` of scheme, address (host-escaped), path
//!   (path-escaped) and the params encoded by `url.Values.Encode` (sorted
//!   by key). `URL=` gives the URL as the targets page shows it,
//!   `scheme://ADDRESS/path?query` (http or https) with the line's id as
//!   ADDRESS, percent-encoded as any URL: its decoded path is the
//!   `metrics_path`, its decoded query the `params` (read as Go's
//!   `url.ParseQuery` reads one). Without it the URL is
//!   `http://ADDRESS/metrics`.
//! - `external_labels.String()` is `{a="x", b="y"}`: sorted, names quoted
//!   only when they are not `[a-zA-Z_][a-zA-Z0-9_]*`, values always, by
//!   `strconv.Quote`. Characters are printed as they are when Go counts them
//!   printable (letters, marks, numbers, punctuation, symbols, ASCII
//!   space); which those are comes from Unicode 16 here and from Unicode 15
//!   in the Go that builds Prometheus 3.14, so only characters new in
//!   Unicode 16 can be quoted differently.
//! - `Server=` is the name `osutil.GetFQDN` returns on the server: the
//!   host's name, or the name a reverse lookup of its address gives, which
//!   keeps DNS's trailing dot (`prom-1.example.org.`). Without it the
//!   server is `localhost`.
//!
//! Not modelled: relabelling; a `scrape_timeout` other than min(10s,
//! interval), which is what a configuration setting no timeout gives unless
//! its global `scrape_interval` is under 10s; feature flags that turn the
//! histogram switches on; and `InitialScrapeOffset`, which only programs
//! embedding the scrape manager set. Go's timers fire a little after each
//! t; the start is t itself.

use std::collections::BTreeMap;

use super::file::{FleetLine, Refusal};
use super::plan::Window;
use crate::field::shorten;
use crate::hash::fnv1a_64;

/// The option keys `prometheus` lines read.
pub const OPTION_KEYS: [&str; 5] = ["Job", "Labels", "URL", "Server", "ExternalLabels"];

/// The server of a line without `Server=`.
const DEFAULT_SERVER: &str = "localhost";

const NANOS_PER_MILLI: u64 = 1_000_000;
const NANOS_PER_MICRO: i128 = 1_000;
/// The global `scrape_timeout` a configuration gets when it sets none.
const DEFAULT_TIMEOUT_NANOS: u64 = 10_000 * NANOS_PER_MILLI;
/// The longest name or value the `stringlabels` encoding holds: 2²⁴ − 1 bytes.
const MOST_LABEL_BYTES: usize = (1 << 24) - 1;

/// A target read from a line: what Prometheus hashes, and where its
/// scrapes fall.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrometheusTarget {
    /// The scrape URL as `Target.URL().String()` writes it.
    pub url: String,
    /// XXH64 of the target's labels.
    pub labels_hash: u64,
    /// `Target.hash()`.
    pub target_hash: u64,
    /// The server's offset seed.
    pub offset_seed: u64,
    pub scrapes: PrometheusScrapes,
}

/// Scrapes every `interval_nanos`, at `offset_nanos` into each interval
/// counted from the Unix epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrometheusScrapes {
    pub interval_nanos: u64,
    pub offset_nanos: u64,
}

/// Reads a `prometheus` line: the id is the target's address, the spec its
/// scrape interval.
pub fn read_target(line: &FleetLine) -> Result<PrometheusTarget, Refusal> {
    let address = line.id.as_str();
    if address.contains('/') {
        return Err(Refusal::new(
            "id",
            format!(
                "\"{}\" is not a target address: Prometheus refuses a \"/\" in one; put the path in URL=",
                shorten(address)
            ),
        ));
    }
    let interval_nanos = parse_interval(&line.spec).map_err(|why| Refusal::new("spec", why))?;
    let job = match line.options.own("Job") {
        Some(job) if !job.is_empty() => job,
        _ => {
            return Err(Refusal::new(
                "Job",
                "is missing: the job name is part of every target's hash; give Job=NAME",
            ));
        }
    };
    let own = |key: &str| line.options.own(key).unwrap_or("");
    let url = match line.options.own("URL") {
        Some(text) => ScrapeUrl::parse(text, address).map_err(|why| Refusal::new("URL", why))?,
        None => ScrapeUrl::metrics(),
    };
    let extra = label_pairs(own("Labels")).map_err(|why| Refusal::new("Labels", why))?;
    if let Some((name, _)) = extra.iter().find(|(name, _)| name.starts_with("__")) {
        return Err(Refusal::new(
            "Labels",
            format!(
                "\"{}\" starts with __, which marks Prometheus's own labels; give the scheme, path and params in URL=",
                shorten(name)
            ),
        ));
    }
    let external =
        label_pairs(own("ExternalLabels")).map_err(|why| Refusal::new("ExternalLabels", why))?;
    let server = match line.options.own("Server") {
        Some("") => return Err(Refusal::new("Server", "is empty; give the server's FQDN")),
        Some(server) => server,
        None => DEFAULT_SERVER,
    };
    let offset_seed = server_seed(server, &external);
    let labels = target_labels(address, job, interval_nanos, &url, extra);
    let encoded = encode_labels(&labels).map_err(|why| Refusal::new("Labels", why))?;
    let labels_hash = xxhash_rust::xxh64::xxh64(&encoded, 0);
    let url = url.to_go_string(address);
    let mut hashed = format!("{labels_hash:016}").into_bytes();
    hashed.extend_from_slice(url.as_bytes());
    let target_hash = fnv1a_64(&hashed);
    Ok(PrometheusTarget {
        url,
        labels_hash,
        target_hash,
        offset_seed,
        scrapes: PrometheusScrapes {
            interval_nanos,
            offset_nanos: (target_hash ^ offset_seed) % interval_nanos,
        },
    })
}

impl PrometheusScrapes {
    /// Appends each scrape in `window`, in order, while `out` holds fewer
    /// than `most`. Returns whether a scrape was left out because `out` was
    /// full.
    pub fn push_starts(&self, window: Window, out: &mut Vec<i64>, most: usize) -> bool {
        // A scrape at t ns lands in microsecond ⌊t / 1000⌋, which is in the
        // window exactly when t is in [from, end) scaled to nanoseconds.
        let interval = i128::from(self.interval_nanos);
        let from = i128::from(window.from) * NANOS_PER_MICRO;
        let end = i128::from(window.end) * NANOS_PER_MICRO;
        let mut at = from + (i128::from(self.offset_nanos) - from).rem_euclid(interval);
        while at < end {
            if out.len() >= most {
                return true;
            }
            // `at < end`, so the quotient fits where `window.end` does.
            out.push(at.div_euclid(NANOS_PER_MICRO) as i64);
            at += interval;
        }
        false
    }
}

/// `model.ParseDuration`: `[0-9]+unit` terms, units `y w d h m s ms` each
/// at most once and largest first, or a bare `0`; refused when zero, as a
/// zero interval is.
fn parse_interval(text: &str) -> Result<u64, String> {
    let fail = || {
        format!(
            "\"{}\" is not a Prometheus duration like 15s, 1m, 1m30s or 500ms",
            shorten(text)
        )
    };
    const UNITS: [(&str, u64); 7] = [
        ("y", 365 * 86_400_000),
        ("w", 7 * 86_400_000),
        ("d", 86_400_000),
        ("h", 3_600_000),
        ("m", 60_000),
        ("s", 1_000),
        ("ms", 1),
    ];
    let mut rest = text.as_bytes();
    let mut nanos: u64 = 0;
    let mut next_unit = 0;
    if text == "0" {
        rest = &[];
    } else if text.is_empty() {
        return Err(fail());
    }
    while !rest.is_empty() {
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let unit_len = rest[digits..]
            .iter()
            .take_while(|b| !b.is_ascii_digit())
            .count();
        if digits == 0 || unit_len == 0 {
            return Err(fail());
        }
        let unit = &rest[digits..digits + unit_len];
        let position = UNITS[next_unit..]
            .iter()
            .position(|(name, _)| name.as_bytes() == unit)
            .ok_or_else(fail)?;
        let millis_per_unit = UNITS[next_unit + position].1;
        next_unit += position + 1;
        // Go parses the digits into a uint64, then refuses a term or a sum
        // past 2⁶³ − 1 ns, the longest `time.Duration`.
        let amount: u64 = std::str::from_utf8(&rest[..digits])
            .ok()
            .and_then(|digits| digits.parse().ok())
            .ok_or_else(fail)?;
        let too_long = || format!("\"{}\" is longer than Go's durations reach", shorten(text));
        let mult = millis_per_unit * NANOS_PER_MILLI;
        if amount > (1u64 << 63) / mult {
            return Err(too_long());
        }
        nanos = nanos
            .checked_add(amount * mult)
            .filter(|&sum| sum <= i64::MAX as u64)
            .ok_or_else(too_long)?;
        rest = &rest[digits + unit_len..];
    }
    if nanos == 0 {
        return Err("a scrape interval cannot be 0".to_string());
    }
    Ok(nanos)
}

/// `model.Duration.String`: whole milliseconds as `1y`, `2w`, `1d2h3m4s5ms`;
/// years and weeks only when they leave no remainder.
fn duration_string(nanos: u64) -> String {
    let mut millis = nanos / NANOS_PER_MILLI;
    if millis == 0 {
        return "0s".to_string();
    }
    let mut text = String::new();
    let units: [(&str, u64, bool); 7] = [
        ("y", 365 * 86_400_000, true),
        ("w", 7 * 86_400_000, true),
        ("d", 86_400_000, false),
        ("h", 3_600_000, false),
        ("m", 60_000, false),
        ("s", 1_000, false),
        ("ms", 1, false),
    ];
    for (unit, size, exact) in units {
        if exact && !millis.is_multiple_of(size) {
            continue;
        }
        let count = millis / size;
        if count > 0 {
            text.push_str(&format!("{count}{unit}"));
            millis -= count * size;
        }
    }
    text
}

/// The scheme, path and query params of a scrape URL, decoded.
#[derive(Debug)]
struct ScrapeUrl {
    scheme: String,
    path: String,
    /// Each key's values in the order given; keys sorted, as
    /// `url.Values.Encode` writes them.
    params: BTreeMap<String, Vec<String>>,
}

impl ScrapeUrl {
    /// `http://ADDRESS/metrics`, a scrape config's defaults.
    fn metrics() -> Self {
        Self {
            scheme: "http".to_string(),
            path: "/metrics".to_string(),
            params: BTreeMap::new(),
        }
    }

    /// Reads `scheme://ADDRESS/path?query` as Go's `url.Parse` and
    /// `url.ParseQuery` do, for a target at `address`.
    fn parse(text: &str, address: &str) -> Result<Self, String> {
        let shown = shorten(text);
        if text.bytes().any(|b| b < 0x20 || b == 0x7f) {
            return Err(format!("\"{shown}\" holds a control character"));
        }
        let (scheme, rest) = text
            .split_once("://")
            .ok_or_else(|| format!("\"{shown}\" is not a URL like https://{address}/metrics"))?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(format!(
                "\"{shown}\" is not http or https, the schemes Prometheus scrapes"
            ));
        }
        if rest.contains('#') {
            return Err(format!(
                "\"{shown}\" has a #fragment, which no scrape sends"
            ));
        }
        let (before_query, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (host, path) = match before_query.find('/') {
            Some(slash) => before_query.split_at(slash),
            None => (before_query, ""),
        };
        if host != address {
            return Err(format!(
                "\"{shown}\" is not at the line's address {}",
                shorten(address)
            ));
        }
        if path.is_empty() {
            return Err(format!(
                "\"{shown}\" has no path; Prometheus scrapes /metrics by default"
            ));
        }
        let path = unescape(path, false)?;
        let mut params: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            if pair.contains(';') {
                return Err(format!(
                    "\"{}\" holds a \";\", which Go's query parser refuses",
                    shorten(pair)
                ));
            }
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            params
                .entry(unescape(key, true)?)
                .or_default()
                .push(unescape(value, true)?);
        }
        Ok(Self {
            scheme,
            path,
            params,
        })
    }

    /// `URL.String()` of this URL at `address`.
    fn to_go_string(&self, address: &str) -> String {
        let mut url = format!(
            "{}://{}{}",
            self.scheme,
            escape(address, Escape::Host),
            escape(&self.path, Escape::Path)
        );
        let mut separator = '?';
        for (key, values) in &self.params {
            let key = escape(key, Escape::QueryComponent);
            for value in values {
                url.push(separator);
                separator = '&';
                url.push_str(&key);
                url.push('=');
                url.push_str(&escape(value, Escape::QueryComponent));
            }
        }
        url
    }
}

/// The parts of a URL Go escapes differently.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escape {
    Host,
    Path,
    QueryComponent,
}

/// Whether Go's `shouldEscape` escapes `byte` in `part`.
fn should_escape(byte: u8, part: Escape) -> bool {
    if byte.is_ascii_alphanumeric() {
        return false;
    }
    // Hosts keep RFC 3986's sub-delims, `:` for the port, brackets for IPv6,
    // and the few characters Go's parser would refuse once escaped.
    if part == Escape::Host && b"!$&'()*+,;=:[]<>\"".contains(&byte) {
        return false;
    }
    match byte {
        b'-' | b'_' | b'.' | b'~' => false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match part {
            Escape::Path => byte == b'?',
            Escape::Host | Escape::QueryComponent => true,
        },
        _ => true,
    }
}

/// Go's `escape`: `%XX` in upper-case hex, and `+` for a space in a query
/// component.
fn escape(text: &str, part: Escape) -> String {
    let mut escaped = String::with_capacity(text.len());
    for &byte in text.as_bytes() {
        if byte == b' ' && part == Escape::QueryComponent {
            escaped.push('+');
        } else if should_escape(byte, part) {
            escaped.push_str(&format!("%{byte:02X}"));
        } else {
            escaped.push(char::from(byte));
        }
    }
    escaped
}

/// Go's `unescape` for a path (`+` stays) or a query component (`+` is a
/// space); the bytes must decode to UTF-8, as label values must be.
fn unescape(text: &str, query: bool) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'%' => {
                let hex = bytes
                    .get(at + 1..at + 3)
                    .and_then(|hex| std::str::from_utf8(hex).ok())
                    .filter(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))
                    .ok_or_else(|| {
                        format!(
                            "\"{}\" has a % not followed by two hex digits",
                            shorten(text)
                        )
                    })?;
                decoded.push(u8::from_str_radix(hex, 16).unwrap_or_default());
                at += 3;
            }
            b'+' if query => {
                decoded.push(b' ');
                at += 1;
            }
            byte => {
                decoded.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8(decoded)
        .map_err(|_| format!("\"{}\" decodes to bytes that are not UTF-8", shorten(text)))
}

/// `k=v,k=v` pairs, names and values trimmed of spaces; each name once,
/// each value non-empty. Empty text is no pairs.
fn label_pairs(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    if text.is_empty() {
        return Ok(pairs);
    }
    for item in text.split(',') {
        let Some((name, value)) = item.split_once('=') else {
            return Err(format!("\"{}\" is not name=value", shorten(item)));
        };
        let (name, value) = (name.trim_matches(' '), value.trim_matches(' '));
        if name.is_empty() {
            return Err(format!("\"{}\" has no label name", shorten(item)));
        }
        if value.is_empty() {
            return Err(format!("label {} has no value", shorten(name)));
        }
        if pairs.iter().any(|(given, _)| given == name) {
            return Err(format!("label {} is given twice", shorten(name)));
        }
        pairs.push((name.to_string(), value.to_string()));
    }
    Ok(pairs)
}

/// The labels `PopulateLabels` gives a static target, by name.
fn target_labels(
    address: &str,
    job: &str,
    interval_nanos: u64,
    url: &ScrapeUrl,
    extra: Vec<(String, String)>,
) -> BTreeMap<String, String> {
    let mut labels: BTreeMap<String, String> = extra.into_iter().collect();
    let timeout = interval_nanos.min(DEFAULT_TIMEOUT_NANOS);
    let defaults = [
        ("job", job.to_string()),
        ("__scrape_interval__", duration_string(interval_nanos)),
        ("__scrape_timeout__", duration_string(timeout)),
        ("__metrics_path__", url.path.clone()),
        ("__scheme__", url.scheme.clone()),
        (
            "__convert_classic_histograms_to_nhcb__",
            "false".to_string(),
        ),
        ("__always_scrape_classic_histograms__", "false".to_string()),
        ("__scrape_native_histograms__", "false".to_string()),
        ("__address__", address.to_string()),
        ("instance", address.to_string()),
    ];
    for (name, value) in defaults {
        labels.entry(name.to_string()).or_insert(value);
    }
    for (key, values) in &url.params {
        labels
            .entry(format!("__param_{key}"))
            .or_insert_with(|| values[0].clone());
    }
    // The label builder treats an empty value as no label.
    labels.retain(|_, value| !value.is_empty());
    labels
}

/// The `stringlabels` bytes of `labels`: each name and value preceded by
/// its length.
fn encode_labels(labels: &BTreeMap<String, String>) -> Result<Vec<u8>, String> {
    let mut encoded = Vec::new();
    for text in labels.iter().flat_map(|(name, value)| [name, value]) {
        let length = text.len();
        if length > MOST_LABEL_BYTES {
            return Err(format!(
                "a label of {length} bytes is longer than Prometheus's labels hold"
            ));
        }
        if length < 255 {
            encoded.push(length as u8);
        } else {
            encoded.push(255);
            encoded.extend_from_slice(&(length as u32).to_le_bytes()[..3]);
        }
        encoded.extend_from_slice(text.as_bytes());
    }
    Ok(encoded)
}

/// `setOffsetSeed`: FNV-1a 64 of the server's name followed by its
/// external labels as `Labels.String` prints them.
fn server_seed(server: &str, external: &[(String, String)]) -> u64 {
    let sorted: BTreeMap<&str, &str> = external
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    let mut text = String::from(server);
    text.push('{');
    for (index, (name, value)) in sorted.into_iter().enumerate() {
        if index > 0 {
            text.push_str(", ");
        }
        if is_legacy_label_name(name) {
            text.push_str(name);
        } else {
            text.push_str(&go_quote(name));
        }
        text.push('=');
        text.push_str(&go_quote(value));
    }
    text.push('}');
    fnv1a_64(text.as_bytes())
}

/// A name Prometheus's legacy scheme accepts: `[a-zA-Z_][a-zA-Z0-9_]*`.
fn is_legacy_label_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Go's `strconv.Quote`.
fn go_quote(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                quoted.push('\\');
                quoted.push(c);
            }
            c if is_go_printable(c) => quoted.push(c),
            '\x07' => quoted.push_str("\\a"),
            '\x08' => quoted.push_str("\\b"),
            '\x0c' => quoted.push_str("\\f"),
            '\n' => quoted.push_str("\\n"),
            '\r' => quoted.push_str("\\r"),
            '\t' => quoted.push_str("\\t"),
            '\x0b' => quoted.push_str("\\v"),
            c if c < ' ' || c == '\x7f' => quoted.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => quoted.push_str(&format!("\\u{:04x}", c as u32)),
            c => quoted.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    quoted.push('"');
    quoted
}

/// Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols
/// and the ASCII space.
fn is_go_printable(c: char) -> bool {
    use unicode_general_category::GeneralCategory as Category;
    use unicode_general_category::get_general_category;
    c == ' '
        || !matches!(
            get_general_category(c),
            Category::Control
                | Category::Format
                | Category::PrivateUse
                | Category::Surrogate
                | Category::Unassigned
                | Category::SpaceSeparator
                | Category::LineSeparator
                | Category::ParagraphSeparator
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_and_print_as_prometheus_writes_them() {
        let ms = NANOS_PER_MILLI;
        assert_eq!(parse_interval("15s"), Ok(15_000 * ms));
        assert_eq!(parse_interval("1m30s"), Ok(90_000 * ms));
        assert_eq!(parse_interval("500ms"), Ok(500 * ms));
        assert_eq!(parse_interval("1h1ms"), Ok(3_600_001 * ms));
        assert!(parse_interval("0").is_err());
        assert!(parse_interval("0s").is_err());
        assert!(parse_interval("30s1m").is_err());
        assert!(parse_interval("1.5m").is_err());
        assert!(parse_interval("15").is_err());
        assert!(parse_interval("s").is_err());
        assert!(parse_interval("300y").is_err());
        assert_eq!(duration_string(90_000 * ms), "1m30s");
        assert_eq!(duration_string(1_500 * ms), "1s500ms");
        assert_eq!(duration_string(14 * 86_400_000 * ms), "2w");
        assert_eq!(duration_string(10 * 86_400_000 * ms), "10d");
        assert_eq!(duration_string(365 * 86_400_000 * ms), "1y");
    }

    #[test]
    fn go_quote_escapes_what_go_escapes() {
        assert_eq!(go_quote("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(go_quote("\x07\x01\x7f"), r#""\a\x01\x7f""#);
        assert_eq!(go_quote("é 日本 ☕"), "\"é 日本 ☕\"");
        assert_eq!(go_quote("\u{a0}\u{ad}\u{e000}"), r#""\u00a0\u00ad\ue000""#);
        assert_eq!(go_quote("\u{10ffff}"), r#""\U0010ffff""#);
    }

    #[test]
    fn scrapes_fall_at_the_offset_into_each_interval() {
        let scrapes = PrometheusScrapes {
            interval_nanos: 15_000_000_000,
            offset_nanos: 7_123_456_789,
        };
        let mut out = Vec::new();
        let window = Window {
            from: 1_700_000_000_000_000,
            end: 1_700_000_060_000_000,
        };
        assert!(!scrapes.push_starts(window, &mut out, 10));
        assert_eq!(out.len(), 4);
        assert!(
            out.iter()
                .all(|at| (at * 1000 + 789) % 15_000_000_000 == 7_123_456_789)
        );
        out.clear();
        assert!(scrapes.push_starts(window, &mut out, 2));
        assert_eq!(out.len(), 2);
    }
}
