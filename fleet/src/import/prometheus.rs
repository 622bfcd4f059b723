//! `prometheus.yml`, read as `prometheus` fleet lines: one per static
//! target, on the target's own line.
//!
//! A target's line has id the target's address as written, spec its job's
//! `scrape_interval` (else `global.scrape_interval`, else Prometheus'
//! default `1m`), and options `Job=` (`job_name`), `Labels=` (the static
//! config's `labels`, `k=v` joined by commas, in the order given), `URL=`
//! (the URL Prometheus scrapes, which it hashes with the labels),
//! `Timeout=` (the job's `scrape_timeout`, else min(`global.scrape_timeout`,
//! interval), given when that is not min(10s, interval), the line's
//! default), `ConvertClassicHistogramsToNHCB=`,
//! `AlwaysScrapeClassicHistograms=` and `ScrapeNativeHistograms=` (`true`
//! when the job, else the global section, turns the setting on; a value
//! that is not a boolean skips the job, or the file when global),
//! `ExternalLabels=` (`global.external_labels`), and `Server=` and
//! `Version=` from comments `# server: prom-1.example.com` and
//! `# version: 2.42` anywhere in the file, left out without them.
//!
//! The URL is built as Prometheus v3.5.0's `Target.URL()`
//! (`scrape/target.go`) builds it and Go's `url.URL.String` writes it
//! (net/url, checked against Go 1.19's own output in
//! `import_prometheus.tsv`): `scheme://` (`scheme`, default `http`), the
//! address with the bytes a host may not hold escaped, the path
//! (`metrics_path`, default `/metrics`, escaped as `EscapedPath` does, a
//! `/` put before one without) and, when `params` are given, `?` and the
//! parameters as `url.Values.Encode` writes them: keys sorted, each key
//! and value `QueryEscape`d (space as `+`, other bytes outside
//! `A-Za-z0-9-_.~` as `%XX`), joined by `&`.
//!
//! Targets found at run time (`*_sd_configs`, `scrape_config_files`) are
//! skipped with a notice on their key's line, and so are the targets of a
//! job with `relabel_configs`, whose rules change the labels hashed.

use super::NativeTranslation;
use super::yaml::{self, YamlNode, YamlStyle, YamlValue};
use crate::line::System;
use crate::prometheus::{default_timeout, duration_string, parse_duration};

/// The comment that names the Prometheus server the file is for.
pub const SERVER_MARK: &str = "# server:";
/// The comment that names the Prometheus release the file is for.
pub const VERSION_MARK: &str = "# version:";

/// The settings Prometheus 3.13 on turns into target labels, global or
/// per job, and the option each is passed as.
const HISTOGRAM_SETTINGS: [(&str, &str); 3] = [
    (
        "convert_classic_histograms_to_nhcb",
        "ConvertClassicHistogramsToNHCB",
    ),
    (
        "always_scrape_classic_histograms",
        "AlwaysScrapeClassicHistograms",
    ),
    ("scrape_native_histograms", "ScrapeNativeHistograms"),
];

/// What every job of the file shares.
struct Global<'a> {
    interval: &'a str,
    /// `scrape_timeout`, when set.
    timeout: Option<&'a str>,
    /// Each of [`HISTOGRAM_SETTINGS`], when set.
    histograms: [Option<bool>; 3],
    external_labels: Option<String>,
    /// From the [`SERVER_MARK`] and [`VERSION_MARK`] comments.
    server: Option<&'a str>,
    version: Option<&'a str>,
}

/// Translates a `prometheus.yml` into fleet lines.
pub fn translate(text: &str) -> NativeTranslation {
    let mut out = NativeTranslation::default();
    let marked = |mark: &str| {
        text.lines()
            .find_map(|line| line.trim().strip_prefix(mark))
            .map(str::trim)
            .filter(|value| !value.is_empty())
    };
    let (documents, error) = yaml::documents(text, 1);
    if let Some(config) = documents.first() {
        read_config(config, marked(SERVER_MARK), marked(VERSION_MARK), &mut out);
    }
    if let Some(error) = error {
        out.skip(error.line, "yaml", error.reason);
    }
    out
}

fn read_config<'a>(
    config: &'a YamlNode,
    server: Option<&'a str>,
    version: Option<&'a str>,
    out: &mut NativeTranslation,
) {
    let global = config.get("global");
    let external_labels = match global.and_then(|global| global.get("external_labels")) {
        None => None,
        Some(labels) => match label_text(labels) {
            Ok(text) => Some(text),
            Err(reason) => {
                out.skip(labels.line, "global.external_labels", reason);
                return;
            }
        },
    };
    let setting = |key: &str| global.and_then(|global| global.get(key));
    let interval = setting("scrape_interval")
        .and_then(YamlNode::as_str)
        .unwrap_or("1m");
    let timeout = setting("scrape_timeout");
    if let Some(node) = timeout
        && let (Some(Ok(timeout_nanos)), Ok(interval_nanos)) =
            (node.as_str().map(parse_duration), parse_duration(interval))
        && timeout_nanos > interval_nanos
    {
        out.skip(
            node.line,
            "global.scrape_timeout",
            format!(
                "is longer than the global scrape_interval {interval}, which Prometheus refuses"
            ),
        );
        return;
    }
    let Some(histograms) = histogram_settings(global, "global.", out) else {
        return;
    };
    let global = Global {
        interval,
        timeout: timeout.and_then(YamlNode::as_str),
        histograms,
        external_labels,
        server,
        version,
    };
    if let Some((files, _)) = config.entry("scrape_config_files") {
        out.skip(
            files.line,
            "scrape_config_files",
            "names files that are not in the paste; paste their scrape_configs instead",
        );
    }
    let Some(jobs) = config.get("scrape_configs") else {
        return;
    };
    let Some(jobs) = jobs.items() else {
        out.skip(
            jobs.line,
            "scrape_configs",
            format!("is {}, not a list of jobs", jobs.kind()),
        );
        return;
    };
    for job in jobs {
        read_job(job, &global, out);
    }
}

fn read_job<'a>(job: &'a YamlNode, global: &Global<'a>, out: &mut NativeTranslation) {
    let Some(name) = job.get("job_name").and_then(YamlNode::as_str) else {
        out.skip(
            job.line,
            "job_name",
            "is missing; every scrape config names its job",
        );
        return;
    };
    for (key, _) in job.entries().unwrap_or(&[]) {
        if let Some(key_text) = key.as_str().filter(|key| key.ends_with("_sd_configs")) {
            out.skip(
                key.line,
                key_text,
                format!("finds job {name}'s targets at run time; only static_configs are read"),
            );
        }
    }
    if let Some((relabel, _)) = job.entry("relabel_configs") {
        out.skip(
            relabel.line,
            "relabel_configs",
            format!("change the labels Prometheus hashes, so job {name}'s targets are not read"),
        );
        return;
    }
    let text = |key: &str, default: &'a str| -> &'a str {
        job.get(key).and_then(YamlNode::as_str).unwrap_or(default)
    };
    let query = match job.get("params") {
        None => String::new(),
        Some(params) => match query_text(params) {
            Ok(query) => query,
            Err(reason) => {
                out.skip(params.line, "params", reason);
                return;
            }
        },
    };
    let Some(own_histograms) = histogram_settings(Some(job), "", out) else {
        return;
    };
    let mut histograms = [false; 3];
    for ((on, own), global) in histograms
        .iter_mut()
        .zip(own_histograms)
        .zip(global.histograms)
    {
        *on = own.or(global).unwrap_or(false);
    }
    let interval = text("scrape_interval", global.interval);
    let scrape = Scrape {
        job: name,
        interval,
        timeout: scrape_timeout(job.get("scrape_timeout"), global, interval),
        histograms,
        scheme: text("scheme", "http"),
        path: escaped_path(text("metrics_path", "/metrics")),
        query,
    };
    let Some(configs) = job.get("static_configs") else {
        return;
    };
    let Some(configs) = configs.items() else {
        out.skip(
            configs.line,
            "static_configs",
            format!("is {}, not a list", configs.kind()),
        );
        return;
    };
    for config in configs {
        read_static_config(config, &scrape, global, out);
    }
}

/// How a job scrapes each of its targets.
struct Scrape<'a> {
    job: &'a str,
    interval: &'a str,
    /// The timeout when it is not the line's default.
    timeout: Option<String>,
    /// Each of [`HISTOGRAM_SETTINGS`], as set for the job or globally.
    histograms: [bool; 3],
    scheme: &'a str,
    /// The path, escaped.
    path: String,
    /// The encoded parameters; empty without any.
    query: String,
}

impl Scrape<'_> {
    /// The URL Prometheus scrapes `address` at.
    fn url(&self, address: &str) -> String {
        let host = go_escape(address, UrlPart::Host);
        let mut url = format!("{}://{host}{}", self.scheme, self.path);
        if !self.query.is_empty() {
            url.push('?');
            url.push_str(&self.query);
        }
        url
    }
}

fn read_static_config(
    config: &YamlNode,
    scrape: &Scrape<'_>,
    global: &Global<'_>,
    out: &mut NativeTranslation,
) {
    let labels = match config.get("labels") {
        None => None,
        Some(labels) => match label_text(labels) {
            Ok(text) => Some(text),
            Err(reason) => {
                out.skip(labels.line, "labels", reason);
                return;
            }
        },
    };
    let targets = config
        .get("targets")
        .and_then(YamlNode::items)
        .unwrap_or(&[]);
    for target in targets {
        let Some(address) = target.as_str() else {
            out.skip(
                target.line,
                "targets",
                format!("holds {}, not a host:port", target.kind()),
            );
            continue;
        };
        let url = scrape.url(address);
        let mut options = vec![("Job", scrape.job)];
        if let Some(labels) = &labels {
            options.push(("Labels", labels));
        }
        options.push(("URL", &url));
        if let Some(timeout) = &scrape.timeout {
            options.push(("Timeout", timeout));
        }
        for ((_, key), on) in HISTOGRAM_SETTINGS.iter().zip(scrape.histograms) {
            if on {
                options.push((key, "true"));
            }
        }
        if let Some(external) = &global.external_labels {
            options.push(("ExternalLabels", external));
        }
        if let Some(server) = global.server {
            options.push(("Server", server));
        }
        if let Some(version) = global.version {
            options.push(("Version", version));
        }
        out.push(
            target.line,
            System::Prometheus,
            address,
            scrape.interval,
            &options,
        );
    }
}

/// The timeout a job's targets get, when it is not the line's default
/// min(10s, interval): the job's `scrape_timeout`, else min(the global
/// one, interval), the global one defaulting to min(10s, global interval),
/// as Prometheus's config checks fill them in. A timeout of 0 is none;
/// text that is no duration is passed on for the line to refuse.
fn scrape_timeout(own: Option<&YamlNode>, global: &Global<'_>, interval: &str) -> Option<String> {
    fn given(text: Option<&str>) -> Option<&str> {
        text.filter(|text| parse_duration(text) != Ok(0))
    }
    if let Some(own) = given(own.and_then(YamlNode::as_str)) {
        return Some(own.to_string());
    }
    let interval_nanos = parse_duration(interval).ok()?;
    let global_nanos = match given(global.timeout) {
        Some(text) => match parse_duration(text) {
            Ok(nanos) => nanos,
            Err(_) => return Some(text.to_string()),
        },
        None => default_timeout(parse_duration(global.interval).ok()?),
    };
    let timeout = global_nanos.min(interval_nanos);
    (timeout != default_timeout(interval_nanos)).then(|| duration_string(timeout))
}

/// The [`HISTOGRAM_SETTINGS`] of `section` (the global one or a job's),
/// each when set; `None`, with a notice, when one is not a boolean.
fn histogram_settings(
    section: Option<&YamlNode>,
    prefix: &str,
    out: &mut NativeTranslation,
) -> Option<[Option<bool>; 3]> {
    let mut settings = [None; 3];
    for (setting, (key, _)) in settings.iter_mut().zip(HISTOGRAM_SETTINGS) {
        let Some(node) = section.and_then(|section| section.get(key)) else {
            continue;
        };
        if node.is_null() {
            continue;
        }
        *setting = Some(go_yaml_bool(node).or_else(|| {
            out.skip(
                node.line,
                &format!("{prefix}{key}"),
                format!("is {}, not true or false", node.kind()),
            );
            None
        })?);
    }
    Some(settings)
}

/// A plain scalar as go-yaml v2, which reads Prometheus's config, reads a
/// boolean (YAML 1.1's `yes`, `on` and the like included).
fn go_yaml_bool(node: &YamlNode) -> Option<bool> {
    let YamlValue::Scalar {
        text,
        style: YamlStyle::Plain,
    } = &node.value
    else {
        return None;
    };
    match text.as_str() {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Some(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Some(false)
        }
        _ => None,
    }
}

/// A labels mapping as `k=v,k=v`, or why it cannot be one.
fn label_text(labels: &YamlNode) -> Result<String, String> {
    let entries = labels.entries().ok_or_else(|| {
        format!(
            "is {}, not a mapping of label names to values",
            labels.kind()
        )
    })?;
    let mut pairs = Vec::with_capacity(entries.len());
    for (name, value) in entries {
        let name = name.as_str().unwrap_or("");
        let value = value.as_str().unwrap_or("");
        if name.is_empty() || name.contains([',', '=']) || value.contains(',') {
            return Err(format!(
                "the label {name:?}={value:?} cannot be written as k=v between commas"
            ));
        }
        pairs.push(format!("{name}={value}"));
    }
    Ok(pairs.join(","))
}

/// `params` (names to lists of values) as Go's `url.Values.Encode` writes
/// them.
fn query_text(params: &YamlNode) -> Result<String, String> {
    let entries = params
        .entries()
        .ok_or_else(|| format!("is {}, not a mapping of names to lists", params.kind()))?;
    let mut named: Vec<(&str, Vec<&str>)> = Vec::with_capacity(entries.len());
    for (name, values) in entries {
        let name = name.as_str().unwrap_or("");
        let values = values
            .items()
            .ok_or_else(|| format!("{name}: is {}, not a list of values", values.kind()))?;
        named.push((name, values.iter().filter_map(YamlNode::as_str).collect()));
    }
    named.sort_by(|a, b| a.0.cmp(b.0));
    let mut query = String::new();
    for (name, values) in named {
        for value in values {
            if !query.is_empty() {
                query.push('&');
            }
            query.push_str(&go_escape(name, UrlPart::Query));
            query.push('=');
            query.push_str(&go_escape(value, UrlPart::Query));
        }
    }
    Ok(query)
}

/// A path as Go's `EscapedPath` writes it: bytes escaped as in a path,
/// and a leading `/` added, as `URL.String` adds one after a host.
fn escaped_path(path: &str) -> String {
    let escaped = go_escape(path, UrlPart::Path);
    if escaped.is_empty() || escaped.starts_with('/') {
        escaped
    } else {
        format!("/{escaped}")
    }
}

/// The part of a URL Go's `url.escape` escapes for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum UrlPart {
    Host,
    Path,
    /// A query's key or value.
    Query,
}

/// Go's `url.escape` (net/url, `shouldEscape`): letters, digits and
/// `-_.~` stay; a host keeps `!$&'()*+,;=:[]<>"` too, a path `$&+,/:;=@`;
/// a space in a query becomes `+`; every other byte becomes `%XX`.
fn go_escape(text: &str, part: UrlPart) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        let keeps = match part {
            UrlPart::Host => b"!$&'()*+,;=:[]<>\"".as_slice(),
            UrlPart::Path => b"$&+,/:;=@".as_slice(),
            UrlPart::Query => b"".as_slice(),
        };
        let keep = byte.is_ascii_alphanumeric()
            || matches!(byte, b'-' | b'_' | b'.' | b'~')
            || keeps.contains(&byte);
        if keep {
            out.push(char::from(byte));
        } else if part == UrlPart::Query && byte == b' ' {
            out.push('+');
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_escape_as_go_does() {
        assert_eq!(go_escape("a b/c?d", UrlPart::Query), "a+b%2Fc%3Fd");
        assert_eq!(go_escape("/a b/c:d", UrlPart::Path), "/a%20b/c:d");
        assert_eq!(go_escape("[::1]:9", UrlPart::Host), "[::1]:9");
        assert_eq!(escaped_path("metrics"), "/metrics");
        assert_eq!(go_escape("é", UrlPart::Host), "%C3%A9");
    }
}
