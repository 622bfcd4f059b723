//! YAML (and JSON, which YAML 1.2 reads as its flow style) read into a
//! small tree whose every node knows its line in the pasted text.
//!
//! The tree is built from `saphyr-parser`'s events. Each budget names
//! what it counts: the nodes written in the text count against
//! [`MOST_NODES`], sized for the largest real pastes (120,000 CronJobs,
//! a prometheus.yml of 25,000 jobs); an alias is copied where it stands,
//! but its copies count against [`MOST_ALIAS_NODES`], so nested aliases
//! that would multiply ("billion laughs") stop the read with the alias's
//! line instead of filling memory; nesting deeper than
//! [`MOST_DEPTH`] stops it too, so walking or dropping a tree never runs
//! out of stack. A key given twice in one mapping is refused, as the
//! strict readers of Kubernetes, Prometheus and GitHub Actions refuse it.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use saphyr_parser::{Event, Parser, ScalarStyle};

use stampede_core::field::shorten;

/// The most nodes a paste may write, aliases' copies not included.
pub const MOST_NODES: usize = 10_000_000;
/// The most nodes a paste's aliases may copy.
pub const MOST_ALIAS_NODES: usize = 250_000;
/// The deepest nesting read; real schedules nest a dozen levels at most.
pub const MOST_DEPTH: usize = 64;

/// A node and where it starts: the line (1-based) and the column (in
/// characters, 0-based) on it. A block scalar (`|`, `>`) starts at its
/// text, on the line after the indicator.
#[derive(Clone, Debug, PartialEq)]
pub struct YamlNode {
    pub line: usize,
    pub column: usize,
    pub value: YamlValue,
}

/// What a node holds.
#[derive(Clone, Debug, PartialEq)]
pub enum YamlValue {
    /// A scalar's text and how it was written; only a plain scalar reads
    /// `null`, `~` and nothing as no value.
    Scalar {
        text: String,
        style: YamlStyle,
    },
    Sequence(Vec<YamlNode>),
    /// Keys and values in the order given.
    Mapping(Vec<(YamlNode, YamlNode)>),
}

/// How a scalar is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YamlStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    /// A literal (`|`) or folded (`>`) block.
    Block,
}

/// Why the text stopped being read, and the line where it did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    pub line: usize,
    pub reason: String,
}

/// Every document of `text` read before the first error, and that error;
/// `text` starts on line `first_line` of the paste.
pub fn documents(text: &str, first_line: usize) -> (Vec<YamlNode>, Option<YamlError>) {
    let mut documents = Vec::new();
    let error = each_document(text, first_line, |document| {
        documents.push(document);
        true
    });
    (documents, error)
}

/// Calls `each` on every document of `text` as it is read, before the
/// first error, which it returns, or until `each` returns false; `text`
/// starts on line `first_line` of the paste. A stream of many documents
/// (a cluster's CronJobs) is then held one document at a time.
pub fn each_document(
    text: &str,
    first_line: usize,
    mut each: impl FnMut(YamlNode) -> bool,
) -> Option<YamlError> {
    // An error at the end of the text is marked on the line after it.
    let last = text.lines().count().max(1);
    let at = |line: usize| line.clamp(1, last) + first_line - 1;
    let mut builder = TreeBuilder::default();
    for event in Parser::new_from_str(text) {
        let (event, span) = match event {
            Ok(read) => read,
            Err(error) => {
                let reason = format!("is not valid YAML: {}", error.info());
                let line = at(error.marker().line());
                return Some(YamlError { line, reason });
            }
        };
        let line = at(span.start.line());
        match builder.take(event, line, span.start.col()) {
            Ok(Some(document)) => {
                if !each(document) {
                    return None;
                }
            }
            Ok(None) => {}
            Err(reason) => return Some(YamlError { line, reason }),
        }
    }
    None
}

impl YamlNode {
    /// The value of `key` in a mapping.
    pub fn get(&self, key: &str) -> Option<&YamlNode> {
        self.entry(key).map(|(_, value)| value)
    }

    /// The key node and the value of `key` in a mapping.
    pub fn entry(&self, key: &str) -> Option<(&YamlNode, &YamlNode)> {
        self.entries()?
            .iter()
            .find(|(name, _)| name.as_str() == Some(key))
            .map(|(name, value)| (name, value))
    }

    /// A mapping's entries; `None` for any other node.
    pub fn entries(&self) -> Option<&[(YamlNode, YamlNode)]> {
        match &self.value {
            YamlValue::Mapping(entries) => Some(entries),
            _ => None,
        }
    }

    /// A sequence's items; `None` for any other node.
    pub fn items(&self) -> Option<&[YamlNode]> {
        match &self.value {
            YamlValue::Sequence(items) => Some(items),
            _ => None,
        }
    }

    /// A scalar's text, `None` for a collection or no value.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            YamlValue::Scalar { text, style } if !(*style == YamlStyle::Plain && is_null(text)) => {
                Some(text)
            }
            _ => None,
        }
    }

    /// Whether the node is a scalar meaning no value.
    pub fn is_null(&self) -> bool {
        matches!(&self.value, YamlValue::Scalar { text, style: YamlStyle::Plain } if is_null(text))
    }

    /// Whether the node is a plain `true`, as YAML 1.2's core schema reads
    /// booleans.
    pub fn is_true(&self) -> bool {
        matches!(&self.value, YamlValue::Scalar { text, style: YamlStyle::Plain }
            if matches!(text.as_str(), "true" | "True" | "TRUE"))
    }

    /// What kind of node it is, for a refusal.
    pub fn kind(&self) -> &'static str {
        match &self.value {
            YamlValue::Scalar { .. } if self.is_null() => "empty",
            YamlValue::Scalar { .. } => "a scalar",
            YamlValue::Sequence(_) => "a list",
            YamlValue::Mapping(_) => "a mapping",
        }
    }
}

fn is_null(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

/// A collection being read, with the anchor it will be kept under.
struct Open {
    node: YamlNode,
    anchor: usize,
    /// A mapping's key, read and waiting for its value.
    key: Option<YamlNode>,
    /// Nodes in the collection so far, itself included.
    size: usize,
    /// A mapping's keys so far, to refuse one given twice.
    keys: HashSet<String>,
}

/// Turns events into documents, counting nodes and depth.
#[derive(Default)]
struct TreeBuilder {
    open: Vec<Open>,
    /// Anchored nodes and their sizes, by anchor id.
    anchors: HashMap<usize, (YamlNode, usize)>,
    /// Nodes written in the text.
    nodes: usize,
    /// Nodes copied by aliases.
    alias_nodes: usize,
    document: Option<YamlNode>,
}

impl TreeBuilder {
    /// Takes one event; returns a document when one ends.
    fn take(
        &mut self,
        event: Event<'_>,
        line: usize,
        column: usize,
    ) -> Result<Option<YamlNode>, String> {
        match event {
            Event::Scalar(text, style, anchor, _) => {
                let style = match style {
                    ScalarStyle::Plain => YamlStyle::Plain,
                    ScalarStyle::SingleQuoted => YamlStyle::SingleQuoted,
                    ScalarStyle::DoubleQuoted => YamlStyle::DoubleQuoted,
                    ScalarStyle::Literal | ScalarStyle::Folded => YamlStyle::Block,
                };
                let node = YamlNode {
                    line,
                    column,
                    value: YamlValue::Scalar {
                        text: text.into_owned(),
                        style,
                    },
                };
                self.count()?;
                self.close(node, anchor, 1)?;
            }
            Event::Alias(anchor) => {
                let (node, size) = self
                    .anchors
                    .get(&anchor)
                    .cloned()
                    .ok_or("an alias names no anchor before it")?;
                self.alias_nodes = self.alias_nodes.saturating_add(size);
                if self.alias_nodes > MOST_ALIAS_NODES {
                    return Err(format!(
                        "its aliases copy more than {} nodes",
                        stampede_core::units::count(MOST_ALIAS_NODES as u64)
                    ));
                }
                self.close(node, 0, size)?;
            }
            Event::SequenceStart(anchor, _) => {
                let node = YamlNode {
                    line,
                    column,
                    value: YamlValue::Sequence(Vec::new()),
                };
                self.start(node, anchor)?
            }
            Event::MappingStart(anchor, _) => {
                let node = YamlNode {
                    line,
                    column,
                    value: YamlValue::Mapping(Vec::new()),
                };
                self.start(node, anchor)?
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some(open) = self.open.pop() {
                    if open.key.is_some() {
                        return Err("a key has no value".to_string());
                    }
                    self.close(open.node, open.anchor, open.size)?;
                }
            }
            Event::DocumentEnd => {
                let document = self.document.take().unwrap_or(YamlNode {
                    line,
                    column,
                    value: YamlValue::Scalar {
                        text: String::new(),
                        style: YamlStyle::Plain,
                    },
                });
                self.anchors.clear();
                return Ok(Some(document));
            }
            _ => {}
        }
        Ok(None)
    }

    /// Counts one node written in the text.
    fn count(&mut self) -> Result<(), String> {
        self.nodes += 1;
        if self.nodes > MOST_NODES {
            return Err(format!(
                "holds more than {} nodes",
                stampede_core::units::count(MOST_NODES as u64)
            ));
        }
        Ok(())
    }

    fn start(&mut self, node: YamlNode, anchor: usize) -> Result<(), String> {
        if self.open.len() >= MOST_DEPTH {
            return Err(format!("nests deeper than {MOST_DEPTH} levels"));
        }
        self.count()?;
        self.open.push(Open {
            node,
            anchor,
            key: None,
            size: 1,
            keys: HashSet::new(),
        });
        Ok(())
    }

    /// Puts a finished node into the collection it belongs to, or makes it
    /// the document.
    fn close(&mut self, node: YamlNode, anchor: usize, size: usize) -> Result<(), String> {
        if anchor != 0 {
            self.anchors.insert(anchor, (node.clone(), size));
        }
        let Some(parent) = self.open.last_mut() else {
            self.document = Some(node);
            return Ok(());
        };
        parent.size = parent.size.saturating_add(size);
        match &mut parent.node.value {
            YamlValue::Sequence(items) => items.push(node),
            YamlValue::Mapping(entries) => match parent.key.take() {
                None => parent.key = Some(node),
                Some(key) => {
                    if let Some(text) = key.as_str()
                        && !parent.keys.insert(text.to_string())
                    {
                        return Err(format!("the key \"{}\" is given twice", shorten(text)));
                    }
                    entries.push((key, node));
                }
            },
            YamlValue::Scalar { .. } => {}
        }
        Ok(())
    }
}

/// Where each line of a paste starts, to find a node's text in it.
pub struct PasteLines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> PasteLines<'a> {
    pub fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        Self { text, starts }
    }

    /// The paste.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The byte of the paste `node` starts at, if its line and column
    /// are in it.
    pub fn offset(&self, node: &YamlNode) -> Option<usize> {
        let start = *self.starts.get(node.line.checked_sub(1)?)?;
        let rest = &self.text[start..];
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        let into = line
            .char_indices()
            .map(|(at, _)| at)
            .chain([line.len()])
            .nth(node.column)?;
        Some(start + into)
    }

    /// The bytes a scalar written on one line takes, quotes included;
    /// `None` for a block scalar, a collection or a scalar that goes on
    /// over a line break.
    pub fn scalar_range(&self, node: &YamlNode) -> Option<Range<usize>> {
        let YamlValue::Scalar { text, style } = &node.value else {
            return None;
        };
        let start = self.offset(node)?;
        let rest = &self.text[start..];
        let len = match style {
            YamlStyle::Plain => {
                (rest.starts_with(text.as_str()) && !text.contains('\n')).then_some(text.len())?
            }
            YamlStyle::SingleQuoted => quoted_len(rest, '\'', None)?,
            YamlStyle::DoubleQuoted => quoted_len(rest, '"', Some('\\'))?,
            YamlStyle::Block => return None,
        };
        Some(start..start + len)
    }
}

/// The length of the quoted scalar `text` starts with, quotes included,
/// if it closes on its line: `escape` takes the character after it, and
/// without one a doubled quote stands for itself.
fn quoted_len(text: &str, quote: char, escape: Option<char>) -> Option<usize> {
    let mut chars = text.char_indices().skip(1).peekable();
    if !text.starts_with(quote) {
        return None;
    }
    while let Some((at, c)) = chars.next() {
        if c == '\n' {
            return None;
        }
        if Some(c) == escape {
            chars.next();
        } else if c == quote {
            if escape.is_none() && chars.next_if(|&(_, next)| next == quote).is_some() {
                continue;
            }
            return Some(at + c.len_utf8());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_know_their_lines() {
        let (documents, error) = documents("a: 1\nb:\n  - x\n  - 'y'\n---\nc: {d: e}\n", 1);
        assert_eq!(error, None);
        assert_eq!(documents.len(), 2);
        let b = documents[0].get("b").unwrap();
        assert_eq!(b.line, 3);
        assert_eq!(b.items().unwrap()[1].as_str(), Some("y"));
        assert_eq!(b.items().unwrap()[1].line, 4);
        assert_eq!(documents[1].get("c").unwrap().get("d").unwrap().line, 6);
    }

    #[test]
    fn one_line_scalars_are_found_in_the_paste() {
        let text = "a: 0 2 * * *  # c\nb: [ 'x ''y' , \"z\\\"é\" ]\nc: |\n  x\nd: 'e\n  f'\n";
        let (read, _) = documents(text, 1);
        let lines = PasteLines::new(text);
        let found = |node: &YamlNode| lines.scalar_range(node).map(|range| &text[range]);
        let b = read[0].get("b").unwrap().items().unwrap();
        assert_eq!(found(read[0].get("a").unwrap()), Some("0 2 * * *"));
        assert_eq!(found(&b[0]), Some("'x ''y'"));
        assert_eq!(found(&b[1]), Some("\"z\\\"é\""));
        assert_eq!(found(read[0].get("c").unwrap()), None);
        assert_eq!(found(read[0].get("d").unwrap()), None);
    }

    #[test]
    fn aliases_are_copied_under_the_budget() {
        let (read, error) = documents("a: &x [1, 2]\nb: *x\n", 1);
        assert_eq!(error, None);
        assert_eq!(read[0].get("b").unwrap().items().unwrap().len(), 2);
        let mut laughs = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..10 {
            let previous = format!("*a{}", level - 1);
            let items = [previous.as_str(); 10].join(", ");
            laughs.push_str(&format!("a{level}: &a{level} [{items}]\n"));
        }
        let (_, error) = documents(&laughs, 1);
        assert!(error.unwrap().reason.contains("aliases copy"));
    }

    #[test]
    fn deep_nesting_and_twice_given_keys_stop_the_read() {
        let deep = "[".repeat(100_000);
        assert!(documents(&deep, 1).1.is_some());
        let (_, error) = documents("a: 1\nb: 2\na: 3\n", 1);
        assert_eq!(error.unwrap().line, 3);
    }
}
