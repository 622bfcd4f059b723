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
    let names = |words: &str| match named(words) {
        Named::All => true,
        Named::Rules(rules) => rules.contains(&rule),
        Named::Unknown(_) => false,
    };
    let marked = mark_lines(read, line).any(|text| mark_after(text, "ignore").is_some_and(&names));
    marked
        || (read.source.format == FleetFormat::Kubernetes
            && document_lines(read, line).any(|text| annotation(text).is_some_and(&names)))
}

/// The duration a `stampede: duration` mark gives line `line`, in seconds.
pub fn duration(read: &FileRead, line: usize) -> Option<u64> {
    mark_lines(read, line).find_map(|text| {
        let words = mark_after(text, "duration")?;
        parse_duration(words.split_whitespace().next()?).ok()
    })
}

/// Each mark of the file that cannot be read, by line of the text read,
/// with why: an unknown verb, an unknown rule, a duration that is none.
/// Such a mark changes nothing, so a misspelt ignore leaves its findings
/// in place.
pub fn mistakes(read: &FileRead) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for line in 1..=read.imported.lines_in {
        let text = read.read_line(line);
        if let Some(words) =
            annotation(text).filter(|_| read.source.format == FleetFormat::Kubernetes)
        {
            if let Named::Unknown(word) = named(words) {
                found.push((line, unknown_rule(word)));
            }
            continue;
        }
        let Some((_, rest)) = text.split_once(MARK) else {
            continue;
        };
        let verb = rest.split_whitespace().next().unwrap_or_default();
        let words = mark_after(text, verb).unwrap_or_default();
        let mistake = match verb {
            "ignore" => match named(words) {
                Named::Unknown(word) => Some(unknown_rule(word)),
                _ => None,
            },
            "duration" => {
                let given = words.split_whitespace().next().unwrap_or_default();
                parse_duration(given).err().map(|why| {
                    format!("`stampede: duration {given}`: {why}; the line's job gets no duration")
                })
            }
            _ => Some(format!(
                "`stampede: {verb}` is not a mark: write `stampede: ignore RULE` or `stampede: duration 45m`"
            )),
        };
        found.extend(mistake.map(|why| (line, why)));
    }
    found
}

fn unknown_rule(word: &str) -> String {
    let rules: Vec<&str> = Rule::OPTIONS.iter().map(|option| option.slug).collect();
    format!(
        "\"{word}\" is not a rule, so this ignores nothing; the rules are {}",
        rules.join(", ")
    )
}

/// The rules a Kubernetes annotation `stampede/ignore: …` names.
fn annotation(text: &str) -> Option<&str> {
    let words = text.trim_start().strip_prefix(ANNOTATION)?;
    Some(words.trim().trim_matches(['"', '\'']))
}

/// Line `line` and the comment lines just above it. A line that holds a
/// schedule ends the comments, though it may start as one of a comment
/// block does (`*/5 * * * *`): a mark above it is its own, not the next
/// line's.
fn mark_lines<'r>(read: &'r FileRead, line: usize) -> impl Iterator<Item = &'r str> {
    let above = (1..line)
        .rev()
        .take_while(|&above| is_comment(read.read_line(above)) && !read.holds_schedule(above))
        .map(|above| read.read_line(above));
    std::iter::once(read.read_line(line)).chain(above)
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

/// What an ignore names.
enum Named<'w> {
    /// No rule: every rule.
    All,
    Rules(Vec<Rule>),
    /// A word in the list that looks like a rule id and is none.
    Unknown(&'w str),
}

/// The rules `words` name, up to the first word that is not written as
/// a rule id is (such as a comment's `-->`, or a reason after the ids).
fn named(words: &str) -> Named<'_> {
    let mut rules = Vec::new();
    for word in words
        .split([',', ' ', '\t'])
        .filter(|word| !word.is_empty())
    {
        match Rule::from_slug(word) {
            Some(rule) => rules.push(rule),
            None if written_as_rule(word) => return Named::Unknown(word),
            None => break,
        }
    }
    if rules.is_empty() {
        Named::All
    } else {
        Named::Rules(rules)
    }
}

/// Whether `word` is written as rule ids are: lower-case words joined by
/// hyphens, so a reason after the ids (`because …`) ends the list.
fn written_as_rule(word: &str) -> bool {
    word.bytes().any(|b| b.is_ascii_lowercase())
        && word.contains('-')
        && !word.starts_with('-')
        && word
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}
