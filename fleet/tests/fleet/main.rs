//! Integration tests of stampede-fleet, one module per topic, in one binary.
//! Every panel's presets and Learn steps are checked here too: the Fleet
//! panel's run lives in this crate, above the core's other panels.

mod croniter;
mod crontab;
mod expand;
mod fix;
mod fix_native;
mod import;
mod jenkins;
mod learn;
mod limits;
mod link;
mod mixed;
mod presets;
mod prometheus;
mod puppet;
mod quartz;
mod spring;
mod systemd;
mod temporal;
mod zoned;

/// The rows of a vector file whose first column is `kind`, each column
/// with its escapes (`\t`, `\n`, `\\`) read back; `#` lines are
/// the file's notes.
pub fn vector_rows(vectors: &str, kind: &str) -> Vec<Vec<String>> {
    vectors
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| line.split('\t').map(unescape).collect::<Vec<_>>())
        .filter(|row| row[0] == kind)
        .collect()
}

fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}
