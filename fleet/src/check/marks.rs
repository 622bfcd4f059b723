//! What a file says to the check in its own comments:
//!
//! - `stampede: ignore RULE[, RULE…]` drops those rules' findings on the
//!   line it is on, or on the line below a block of comments holding it;
//!   with no rule named it drops them all. Any comment syntax does (`#`,
//!   `//`, `;`, `--`, `/* */`, `<!-- -->`), since only the words are read.
//! - In Kubernetes YAML, the annotation `stampede/ignore: "RULE, RULE"`
//!   drops them for every line of its document.
//! - `stampede: duration 45m` says how long the job runs, for
//!   `concurrent-jobs`, in the fleet file's duration syntax.
//!
//! JSON has no comments, so a Temporal or Terraform file takes its ignores
//! from `stampede.toml` instead.

use stampede_core::fleet_format::FleetFormat;

use super::Rule;
use super::read::FileRead;
use crate::file::parse_duration;

/// The words a mark begins with.
const MARK: &str = "stampede:";
/// The Kubernetes annotation's key.
pub const ANNOTATION: &str = "stampede/ignore:";

/// Whether the file marks line `line` (of the text read) to be left out
/// of `rule`.
pub fn ignores(read: &FileRead, line: usize, rule: Rule) -> bool {
    let names = |words: &str| {
        let rules = rule_words(words);
        rules.is_empty() || rules.contains(&rule.slug())
    };
    let marked = mark_lines(read, line).any(|text| mark_after(text, "ignore").is_some_and(&names));
    marked
        || (read.source.format == FleetFormat::Kubernetes
            && document_lines(read, line).any(|text| {
                text.trim_start()
                    .strip_prefix(ANNOTATION)
                    .is_some_and(|words| names(words.trim().trim_matches(['"', '\''])))
            }))
}

/// The duration a `stampede: duration` mark gives line `line`, in seconds.
pub fn duration(read: &FileRead, line: usize) -> Option<u64> {
    mark_lines(read, line).find_map(|text| {
        let words = mark_after(text, "duration")?;
        parse_duration(words.split_whitespace().next()?).ok()
    })
}

/// Line `line` and the comment lines just above it. A line that holds a
/// schedule ends the comments, though it may start as one of a comment
/// block does (`*/5 * * * *`): a mark above it is its own, not the next
/// line's.
fn mark_lines<'r>(read: &'r FileRead, line: usize) -> impl Iterator<Item = &'r str> {
    let above = (1..line)
        .rev()
        .take_while(|&above| is_comment(read.read_line(above)) && !holds_schedule(read, above))
        .map(|above| read.read_line(above));
    std::iter::once(read.read_line(line)).chain(above)
}

/// Whether the importer read a schedule from line `line`, or refused one.
fn holds_schedule(read: &FileRead, line: usize) -> bool {
    read.lines_at(line).next().is_some()
        || read
            .imported
            .file
            .skipped
            .iter()
            .any(|skipped| skipped.line == line)
}

/// The lines of the YAML document holding line `line`.
fn document_lines<'r>(read: &'r FileRead, line: usize) -> impl Iterator<Item = &'r str> {
    let is_break = |text: &str| text.trim_end() == "---";
    let above = (1..line)
        .rev()
        .map(|above| read.read_line(above))
        .take_while(move |text| !is_break(text));
    let below = (line..=read.imported.lines_in)
        .map(|below| read.read_line(below))
        .take_while(move |text| !is_break(text));
    above.chain(below)
}

fn is_comment(text: &str) -> bool {
    let text = text.trim_start();
    ["#", "//", ";", "--", "/*", "*", "<!--"]
        .iter()
        .any(|opener| text.starts_with(opener))
}

/// The words after `stampede: VERB` in `text`, when it holds that mark.
fn mark_after<'t>(text: &'t str, verb: &str) -> Option<&'t str> {
    let (_, rest) = text.split_once(MARK)?;
    let rest = rest.trim_start().strip_prefix(verb)?;
    (rest.is_empty() || rest.starts_with([' ', '\t', ','])).then_some(rest)
}

/// The rule ids among `words`, up to the first word that is none (such
/// as a comment's `-->`).
fn rule_words(words: &str) -> Vec<&str> {
    words
        .split([',', ' ', '\t'])
        .filter(|word| !word.is_empty())
        .map_while(|word| Rule::from_slug(word).map(|rule| rule.slug()))
        .collect()
}
