//! Prometheus scrapes: each target at a fixed offset into its interval,
//! hashed from the target and the server.
//!
//! Followed: prometheus/prometheus from v2.6.0 to v3.14.0 (`scrape/target.go`:
//! `Target.hash`, `Target.offset`, `Target.URL`, `PopulateLabels`;
//! `scrape/manager.go`: `setOffsetSeed`, once `setJitterSeed`;
//! `scrape/scrape.go`: `scrapeLoop.run`; `model/labels/`: `Labels.Hash`
//! and `Labels.String` of each encoding; `config/config.go`: the timeout
//! and histogram defaults), prometheus/common v0.70.1
//! (`model.ParseDuration`, `Duration.String`), and Go's `net/url`,
//! `net.SplitHostPort` and `strconv.Quote`.
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
//! `Version=X.Y` names the release (default 3.14, the newest modelled; 2.6
//! the oldest, as earlier ones count offsets from their start; a patch
//! number is allowed and changes nothing). Where releases differ:
//!
//! | from | change |
//! | --- | --- |
//! | 2.9 | the seed; before it, seed = 0 |
//! | 2.30 | `__scrape_interval__` and `__scrape_timeout__` labels |
//! | 3.0 | no default port added; label names may be any UTF-8 |
//! | 3.1 | non-legacy names quoted in `external_labels.String()` |
//! | 3.5 | `stringlabels` the default build, with one-byte lengths |
//! | 3.13 | the three histogram labels |
//!
//! - `labels` is the target's label set as `PopulateLabels` leaves it for a
//!   `static_configs` target without relabelling, sorted by name:
//!   `__address__` and `instance` (the scraped address), `job` (`Job=`,
//!   required), `__scheme__`, `__metrics_path__` and `__param_<key>` (its
//!   first value) from the URL, from 2.30 `__scrape_interval__` and
//!   `__scrape_timeout__` (the spec and `Timeout=`, default min(10s, spec),
//!   as `Duration.String` writes them), from 3.13
//!   `__convert_classic_histograms_to_nhcb__`,
//!   `__always_scrape_classic_histograms__` and
//!   `__scrape_native_histograms__` (`ConvertClassicHistogramsToNHCB=`,
//!   `AlwaysScrapeClassicHistograms=`, `ScrapeNativeHistograms=`: `true`
//!   or the default `false`), and the `Labels=` pairs (`k=v,k=v`, spaces
//!   around names and values trimmed, no name starting with `__`), which
//!   win over `job` and `instance`. A param whose first value is empty
//!   gives no label, as the label builder drops empty values. Before 3.0,
//!   names in `Labels=` and `ExternalLabels=` must be
//!   `[a-zA-Z_][a-zA-Z0-9_]*`, as Prometheus then required.
//! - The scraped address is the line's id; before 3.0 an id without a port
//!   gets `:80` (`:443` for https) when that makes a valid `host:port`.
//! - XXH64 (seed 0) is taken of the labels as the build lays them out,
//!   `Encoding=`: `slice` hashes `name 0xff value 0xff` for each label
//!   (the `slicelabels` and `dedupelabels` builds); `stringlabels` precedes
//!   each name and value by its length, as a varint before 3.5, from 3.5 in
//!   one byte, or 255 and three little-endian bytes from 255 on. The
//!   default is what a build from source without tags uses: `slice` before
//!   3.5 (distribution packages such as Debian's), `stringlabels` from 3.5.
//!   Official release binaries from 2.44 to 3.4 were built with the
//!   `stringlabels` tag, so lines for them need `Encoding=stringlabels`.
//! - `url` is Go's `URL.String()` of scheme, scraped address
//!   (host-escaped), path (path-escaped) and the params encoded by
//!   `url.Values.Encode` (sorted by key). `URL=` gives the URL as the
//!   targets page shows it, `scheme://ADDRESS/path?query` (http or https)
//!   with the line's id (or the scraped address) as ADDRESS, percent-encoded
//!   as any URL: its decoded path is the `metrics_path`, its decoded query
//!   the `params` (read as Go's `url.ParseQuery` reads one). Without it the
//!   URL is `http://ADDRESS/metrics`.
//! - `external_labels.String()` is `{a="x", b="y"}`: sorted, values quoted
//!   by `strconv.Quote`, and names too from 3.1 when they are not
//!   `[a-zA-Z_][a-zA-Z0-9_]*`. Characters are printed as they are when Go
//!   counts them printable (letters, marks, numbers, punctuation, symbols,
//!   ASCII space); which those are comes from Unicode 16 here and from
//!   Unicode 15 in the Go that builds Prometheus 3.14, so only characters
//!   new in Unicode 16 can be quoted differently.
//! - `Server=` is the name `osutil.GetFQDN` returns on the server: the
//!   host's name, or the name a reverse lookup of its address gives, which
//!   keeps DNS's trailing dot (`prom-1.example.org.`). Without it the
//!   server is `localhost`.
//!
//! Checked against a real Prometheus 2.42 (Debian's, `slice`) in
//! `prometheus_real_2_42.tsv`; 3.x vectors are derived from source.
//!
//! Not modelled: relabelling; the `no-default-scrape-port` feature flag
//! (2.38 to 2.55); and `InitialScrapeOffset`, which only programs
//! embedding the scrape manager set. Go's timers fire a little after each
//! t; the start is t itself.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use crate::line::{FleetLine, Refusal};
use crate::time::Window;
use stampede_core::field::shorten;
use stampede_core::hash::fnv1a_64;
use url::ScrapeUrl;

mod url;

/// The option keys `prometheus` lines read.
pub const OPTION_KEYS: [&str; 11] = [
    "Job",
    "Labels",
    "URL",
    "Timeout",
    "Server",
    "ExternalLabels",
    "Version",
    "Encoding",
    "ConvertClassicHistogramsToNHCB",
    "AlwaysScrapeClassicHistograms",
    "ScrapeNativeHistograms",
];

/// The histogram switches: each option and the label 3.13 gives its value.
const HISTOGRAM_SWITCHES: [(&str, &str); 3] = [
    (
        "ConvertClassicHistogramsToNHCB",
        "__convert_classic_histograms_to_nhcb__",
    ),
    (
        "AlwaysScrapeClassicHistograms",
        "__always_scrape_classic_histograms__",
    ),
    ("ScrapeNativeHistograms", "__scrape_native_histograms__"),
];

/// The server of a line without `Server=`.
const DEFAULT_SERVER: &str = "localhost";

const NANOS_PER_MILLI: u64 = 1_000_000;
const NANOS_PER_MICRO: i128 = 1_000;
/// The global `scrape_timeout` a configuration gets when it sets none.
const DEFAULT_TIMEOUT_NANOS: u64 = 10_000 * NANOS_PER_MILLI;
/// The longest name or value the `stringlabels` encoding of 3.5 on holds:
/// 2²⁴ − 1 bytes.
const MOST_LABEL_BYTES: usize = (1 << 24) - 1;

/// A Prometheus release, `major.minor`; patch releases hash alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Release {
    major: u32,
    minor: u32,
}

impl Release {
    const fn new(major: u32, minor: u32) -> Self {
        Self { major, minor }
    }

    /// The newest release modelled, and a line's default.
    const NEWEST: Self = Self::new(3, 14);
    /// Scrapes are pinned to the epoch from here on; before, to when the
    /// server started.
    const OLDEST: Self = Self::new(2, 6);
    /// The last 2.x release.
    const LAST_OF_2: Self = Self::new(2, 55);
    /// The server's name and external labels seed the offset.
    const SEEDED: Self = Self::new(2, 9);
    /// `__scrape_interval__` and `__scrape_timeout__` are labels.
    const INTERVAL_LABELS: Self = Self::new(2, 30);
    /// The `stringlabels` build tag exists.
    const STRINGLABELS: Self = Self::new(2, 43);
    /// No default port is added, and label names may be any UTF-8.
    const THREE: Self = Self::new(3, 0);
    /// Non-legacy names are quoted when labels are printed.
    const QUOTED_NAMES: Self = Self::new(3, 1);
    /// `stringlabels` is the default build, with one-byte lengths.
    const STRINGLABELS_DEFAULT: Self = Self::new(3, 5);
    /// The histogram switches are labels.
    const HISTOGRAM_LABELS: Self = Self::new(3, 13);

    /// Reads `X.Y` or `X.Y.Z`, refusing a release not modelled.
    fn parse(text: &str) -> Result<Self, String> {
        let numbers: Option<Vec<u32>> = text
            .split('.')
            .map(|part| {
                part.bytes()
                    .all(|b| b.is_ascii_digit())
                    .then(|| part.parse().ok())
                    .flatten()
            })
            .collect();
        let Some(&[major, minor, ..]) = numbers.as_deref().filter(|n| n.len() <= 3) else {
            return Err(format!(
                "\"{}\" is not a Prometheus release like 2.42 or 3.14",
                shorten(text)
            ));
        };
        let release = Self::new(major, minor);
        if major < 2 {
            Err(format!(
                "Prometheus {release} is older than 2.x, the oldest line modelled"
            ))
        } else if release < Self::OLDEST {
            Err(format!(
                "Prometheus {release} scrapes at offsets counted from when it started, not from the epoch; \
                 {} is the oldest release modelled",
                Self::OLDEST
            ))
        } else if release > Self::LAST_OF_2 && release < Self::THREE {
            Err(format!(
                "there is no Prometheus {release}: 2.x ends at {}",
                Self::LAST_OF_2
            ))
        } else if release > Self::NEWEST {
            Err(format!(
                "Prometheus {release} is newer than {}, the newest release modelled",
                Self::NEWEST
            ))
        } else {
            Ok(release)
        }
    }

    /// The encoding a build from source without tags hashes.
    fn default_encoding(self) -> Encoding {
        if self >= Self::STRINGLABELS_DEFAULT {
            Encoding::StringLabels
        } else {
            Encoding::Slice
        }
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// How a build lays out a label set, the bytes XXH64 is taken of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Encoding {
    /// `name 0xff value 0xff` for each label: the `slicelabels` build (the
    /// default before 3.5) and the `dedupelabels` one.
    Slice,
    /// Each name and value preceded by its length: the `stringlabels`
    /// build (the default from 3.5, and every official release binary
    /// from 2.44 on).
    StringLabels,
}

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
    /// The server's offset seed; 0 before 2.9, which had none.
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

/// The settings of a target's scrape config that become its labels.
struct ScrapeSettings<'a> {
    job: &'a str,
    interval_nanos: u64,
    timeout_nanos: u64,
    /// Each histogram switch, in [`HISTOGRAM_SWITCHES`] order.
    histograms: [bool; 3],
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
    let release = match line.options.own("Version") {
        Some(text) => Release::parse(text).map_err(|why| Refusal::new("Version", why))?,
        None => Release::NEWEST,
    };
    let encoding = read_encoding(line.options.own("Encoding"), release)
        .map_err(|why| Refusal::new("Encoding", why))?;
    let interval_nanos = parse_duration(&line.spec)
        .and_then(|nanos| nonzero(nanos, "a scrape interval"))
        .map_err(|why| Refusal::new("spec", why))?;
    let timeout_nanos = match line.options.own("Timeout") {
        None => default_timeout(interval_nanos),
        Some(text) => read_timeout(text, interval_nanos, &line.spec)
            .map_err(|why| Refusal::new("Timeout", why))?,
    };
    let job = match line.options.own("Job") {
        Some(job) if !job.is_empty() => job,
        _ => {
            return Err(Refusal::new(
                "Job",
                "is missing: the job name is part of every target's hash; give Job=NAME",
            ));
        }
    };
    let histograms = read_histograms(line)?;
    let settings = ScrapeSettings {
        job,
        interval_nanos,
        timeout_nanos,
        histograms,
    };
    let own = |key: &str| line.options.own(key).unwrap_or("");
    let url = match line.options.own("URL") {
        Some(text) => {
            ScrapeUrl::parse(text, address, release).map_err(|why| Refusal::new("URL", why))?
        }
        None => ScrapeUrl::metrics(),
    };
    let extra = label_pairs(own("Labels"), release).map_err(|why| Refusal::new("Labels", why))?;
    if let Some((name, _)) = extra.iter().find(|(name, _)| name.starts_with("__")) {
        return Err(Refusal::new(
            "Labels",
            format!(
                "\"{}\" starts with __, which marks Prometheus's own labels; give the scheme, path and params in URL=",
                shorten(name)
            ),
        ));
    }
    let external = label_pairs(own("ExternalLabels"), release)
        .map_err(|why| Refusal::new("ExternalLabels", why))?;
    let server = match line.options.own("Server") {
        Some("") => return Err(Refusal::new("Server", "is empty; give the server's FQDN")),
        Some(server) => server,
        None => DEFAULT_SERVER,
    };
    let offset_seed = if release >= Release::SEEDED {
        server_seed(server, &external, release)
    } else {
        0
    };
    let scraped = scraped_address(address, &url.scheme, release);
    let labels = target_labels(&scraped, &settings, &url, extra, release);
    let encoded =
        encode_labels(&labels, encoding, release).map_err(|why| Refusal::new("Labels", why))?;
    let labels_hash = xxhash_rust::xxh64::xxh64(&encoded, 0);
    let url = url.to_go_string(&scraped);
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

/// The histogram switches, in [`HISTOGRAM_SWITCHES`] order: `true`, or
/// `false` (the default).
fn read_histograms(line: &FleetLine) -> Result<[bool; 3], Refusal> {
    let mut histograms = [false; 3];
    for (on, (key, _)) in histograms.iter_mut().zip(HISTOGRAM_SWITCHES) {
        *on = match line.options.own(key) {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                return Err(Refusal::new(
                    key,
                    format!("\"{}\" is not true or false", shorten(other)),
                ));
            }
        };
    }
    Ok(histograms)
}

/// `Encoding=`, or the default build's encoding for `release`.
fn read_encoding(text: Option<&str>, release: Release) -> Result<Encoding, String> {
    match text {
        None => Ok(release.default_encoding()),
        Some("slice") => Ok(Encoding::Slice),
        Some("stringlabels") if release >= Release::STRINGLABELS => Ok(Encoding::StringLabels),
        Some("stringlabels") => Err(format!(
            "stringlabels came with Prometheus {}; {release} builds hash the slice encoding",
            Release::STRINGLABELS
        )),
        Some(other) => Err(format!(
            "\"{}\" is not slice or stringlabels",
            shorten(other)
        )),
    }
}

/// `Timeout=`: a duration, not 0 and not past the interval, as
/// Prometheus's config checks require.
fn read_timeout(text: &str, interval_nanos: u64, interval: &str) -> Result<u64, String> {
    let timeout = parse_duration(text).and_then(|nanos| nonzero(nanos, "a scrape timeout"))?;
    if timeout > interval_nanos {
        return Err(format!(
            "{} is longer than the scrape interval {}, which Prometheus refuses",
            shorten(text),
            shorten(interval)
        ));
    }
    Ok(timeout)
}

fn nonzero(nanos: u64, what: &str) -> Result<u64, String> {
    if nanos == 0 {
        Err(format!("{what} cannot be 0"))
    } else {
        Ok(nanos)
    }
}

/// The `scrape_timeout` of a job that sets none under a global section
/// that sets none: min(10s, interval).
pub(crate) fn default_timeout(interval_nanos: u64) -> u64 {
    interval_nanos.min(DEFAULT_TIMEOUT_NANOS)
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
/// at most once and largest first, or a bare `0`, in nanoseconds.
pub(crate) fn parse_duration(text: &str) -> Result<u64, String> {
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
    Ok(nanos)
}

/// `model.Duration.String`: whole milliseconds as `1y`, `2w`, `1d2h3m4s5ms`;
/// years and weeks only when they leave no remainder.
pub(crate) fn duration_string(nanos: u64) -> String {
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

/// `k=v,k=v` pairs, names and values trimmed of spaces; each name once,
/// each value non-empty, and before 3.0 each name a legacy one, as
/// Prometheus then checked. Empty text is no pairs.
fn label_pairs(text: &str, release: Release) -> Result<Vec<(String, String)>, String> {
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
        if release < Release::THREE && !is_legacy_label_name(name) {
            return Err(format!(
                "\"{}\" is not a label name Prometheus {release} accepts ([a-zA-Z_][a-zA-Z0-9_]*)",
                shorten(name)
            ));
        }
        pairs.push((name.to_string(), value.to_string()));
    }
    Ok(pairs)
}

/// The address a target is scraped at: before 3.0, one without a port gets
/// its scheme's default port, when adding a port makes it a valid
/// `host:port` (`PopulateLabels`'s `addPort`).
fn scraped_address<'a>(address: &'a str, scheme: &str, release: Release) -> Cow<'a, str> {
    if release >= Release::THREE
        || splits_host_port(address)
        || !splits_host_port(&format!("{address}:1234"))
    {
        return Cow::Borrowed(address);
    }
    let port = if scheme == "https" { 443 } else { 80 };
    Cow::Owned(format!("{address}:{port}"))
}

/// Whether Go's `net.SplitHostPort` splits `text`: a port after the last
/// colon, and before it a host with no colon, or one in brackets.
fn splits_host_port(text: &str) -> bool {
    let Some(colon) = text.rfind(':') else {
        return false;
    };
    let (host_from, port_from) = if text.starts_with('[') {
        match text.find(']') {
            Some(end) if end + 1 == colon => (1, end + 1),
            _ => return false,
        }
    } else if text[..colon].contains(':') {
        return false;
    } else {
        (0, 0)
    };
    !text[host_from..].contains('[') && !text[port_from..].contains(']')
}

/// The labels `PopulateLabels` gives a static target scraped at `address`,
/// by name.
fn target_labels(
    address: &str,
    settings: &ScrapeSettings<'_>,
    url: &ScrapeUrl,
    extra: Vec<(String, String)>,
    release: Release,
) -> BTreeMap<String, String> {
    let mut labels: BTreeMap<String, String> = extra.into_iter().collect();
    let mut defaults = vec![
        ("job", settings.job.to_string()),
        ("__metrics_path__", url.path.clone()),
        ("__scheme__", url.scheme.clone()),
        ("__address__", address.to_string()),
        ("instance", address.to_string()),
    ];
    if release >= Release::INTERVAL_LABELS {
        defaults.push((
            "__scrape_interval__",
            duration_string(settings.interval_nanos),
        ));
        defaults.push((
            "__scrape_timeout__",
            duration_string(settings.timeout_nanos),
        ));
    }
    if release >= Release::HISTOGRAM_LABELS {
        for ((_, label), on) in HISTOGRAM_SWITCHES.iter().zip(settings.histograms) {
            defaults.push((label, on.to_string()));
        }
    }
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

/// The bytes `encoding` lays `labels` out in, as `release` builds it.
fn encode_labels(
    labels: &BTreeMap<String, String>,
    encoding: Encoding,
    release: Release,
) -> Result<Vec<u8>, String> {
    let mut encoded = Vec::new();
    for text in labels.iter().flat_map(|(name, value)| [name, value]) {
        let length = text.len();
        match encoding {
            Encoding::Slice => {
                encoded.extend_from_slice(text.as_bytes());
                encoded.push(0xff);
                continue;
            }
            // Before 3.5 a length is a protobuf varint.
            Encoding::StringLabels if release < Release::STRINGLABELS_DEFAULT => {
                let mut rest = length;
                while rest >= 0x80 {
                    encoded.push((rest & 0x7f) as u8 | 0x80);
                    rest >>= 7;
                }
                encoded.push(rest as u8);
            }
            // From 3.5 it is one byte, or 255 and three little-endian bytes.
            Encoding::StringLabels if length < 255 => encoded.push(length as u8),
            Encoding::StringLabels if length <= MOST_LABEL_BYTES => {
                encoded.push(255);
                encoded.extend_from_slice(&(length as u32).to_le_bytes()[..3]);
            }
            Encoding::StringLabels => {
                return Err(format!(
                    "a label of {length} bytes is longer than Prometheus's labels hold"
                ));
            }
        }
        encoded.extend_from_slice(text.as_bytes());
    }
    Ok(encoded)
}

/// `setOffsetSeed`: FNV-1a 64 of the server's name followed by its
/// external labels as `Labels.String` prints them, which quotes names
/// that are not legacy ones from 3.1.
fn server_seed(server: &str, external: &[(String, String)], release: Release) -> u64 {
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
        if release < Release::QUOTED_NAMES || is_legacy_label_name(name) {
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
        assert_eq!(parse_duration("15s"), Ok(15_000 * ms));
        assert_eq!(parse_duration("1m30s"), Ok(90_000 * ms));
        assert_eq!(parse_duration("500ms"), Ok(500 * ms));
        assert_eq!(parse_duration("1h1ms"), Ok(3_600_001 * ms));
        assert_eq!(parse_duration("0"), Ok(0));
        assert_eq!(parse_duration("0s"), Ok(0));
        assert!(parse_duration("30s1m").is_err());
        assert!(parse_duration("1.5m").is_err());
        assert!(parse_duration("15").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_duration("300y").is_err());
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
