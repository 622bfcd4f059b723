//! Scrape URLs as Go's `net/url` reads and writes them.

use std::collections::BTreeMap;

use super::{Release, scraped_address};
use stampede_core::field::shorten;

/// The scheme, path and query params of a scrape URL, decoded.
#[derive(Debug)]
pub(super) struct ScrapeUrl {
    pub(super) scheme: String,
    pub(super) path: String,
    /// Each key's values in the order given; keys sorted, as
    /// `url.Values.Encode` writes them.
    pub(super) params: BTreeMap<String, Vec<String>>,
}

impl ScrapeUrl {
    /// `http://ADDRESS/metrics`, a scrape config's defaults.
    pub(super) fn metrics() -> Self {
        Self {
            scheme: "http".to_string(),
            path: "/metrics".to_string(),
            params: BTreeMap::new(),
        }
    }

    /// Reads `scheme://ADDRESS/path?query` as Go's `url.Parse` and
    /// `url.ParseQuery` do, for a target at `address`, which may carry the
    /// default port `release` adds.
    pub(super) fn parse(text: &str, address: &str, release: Release) -> Result<Self, String> {
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
        if host != address && host != scraped_address(address, &scheme, release) {
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
    pub(super) fn to_go_string(&self, address: &str) -> String {
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
