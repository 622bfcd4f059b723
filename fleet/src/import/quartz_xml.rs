//! Quartz job files (`quartz_data.xml`, read by Quartz's
//! `XMLSchedulingDataProcessorPlugin`), read as `quartz` fleet lines.
//!
//! Each `<trigger><cron>` of a `<job-scheduling-data>` document gives a
//! line: its `<cron-expression>`, under the trigger's key as Quartz writes
//! it, `group.name` (`DEFAULT` when no group is given), which the fix
//! hashes, with its `<time-zone>` as `Zone=`. Without one Quartz places
//! a trigger in the JVM's own zone, which the file does not say: it is
//! read as UTC, with a note.
//!
//! Simple and calendar-interval triggers repeat by an interval from when
//! they were scheduled, which the file does not say, so they are skipped
//! with that reason; so is XML that is not a job file, or not well
//! formed. DTDs are refused, so no entity expands. A paste of several
//! files names each with a `# file:` line before it, as Jenkins' do.

use roxmltree::{Document, Node, ParsingOptions};

use super::jenkins_xml::{FILE_MARK, xml_end};
use super::{NativeTranslation, split_files};
use crate::line::System;
use crate::time::UTC_NAMES;

/// The most XML nodes one file holds.
const MOST_NODES: u32 = 200_000;

/// The root element of a job file.
pub const ROOT: &str = "job-scheduling-data";

/// Translates job files into fleet lines; a paste holds several, each
/// after a `# file:` line.
pub fn translate(text: &str) -> NativeTranslation {
    let mut out = NativeTranslation::default();
    for part in split_files(text, FILE_MARK) {
        if part.text.trim().is_empty() {
            continue;
        }
        let offset = part.text.as_ptr() as usize - text.as_ptr() as usize;
        let file = File {
            text: &part.text[..xml_end(part.text)],
            offset,
            first_line: part.first_line,
        };
        read_file(&file, &mut out);
        if out.is_full() {
            break;
        }
    }
    out
}

/// One file of a paste: its text, and where it starts in the paste.
struct File<'a> {
    text: &'a str,
    offset: usize,
    first_line: usize,
}

impl File<'_> {
    /// The paste's line that byte `at` of the file is on.
    fn line_at(&self, at: usize) -> usize {
        self.first_line + self.text[..at].matches('\n').count()
    }
}

fn read_file(file: &File, out: &mut NativeTranslation) {
    let options = ParsingOptions {
        allow_dtd: false,
        nodes_limit: MOST_NODES,
    };
    let document = match Document::parse_with_options(file.text, options) {
        Ok(document) => document,
        Err(error) => {
            let line = file.first_line + error.pos().row as usize - 1;
            out.skip(line, "xml", format!("not well-formed XML: {error}"));
            return;
        }
    };
    let root = document.root_element();
    let name = root.tag_name().name();
    if name != ROOT {
        out.skip(
            file.line_at(root.range().start),
            "xml",
            format!("an XML file whose root is <{name}>, not a Quartz job file (<{ROOT}>)"),
        );
        return;
    }
    let triggers = root
        .descendants()
        .filter(|node| node.has_tag_name("trigger"));
    for trigger in triggers {
        for kind in trigger.children().filter(Node::is_element) {
            let line = file.line_at(kind.range().start);
            match kind.tag_name().name() {
                "cron" => read_cron(file, &kind, out),
                other => out.skip(
                    line,
                    "trigger",
                    format!(
                        "a <{other}> trigger repeats by an interval from when it was scheduled, \
                         which the file does not say; only <cron> triggers are read"
                    ),
                ),
            }
            if out.is_full() {
                return;
            }
        }
    }
}

/// The text of `node`'s child element `name`, trimmed.
fn child_text<'a>(node: &Node<'a, '_>, name: &str) -> Option<&'a str> {
    node.children()
        .find(|child| child.has_tag_name(name))
        .and_then(|child| child.text())
        .map(str::trim)
}

/// One `<cron>` trigger.
fn read_cron(file: &File, cron: &Node, out: &mut NativeTranslation) {
    let Some(expression) = cron
        .children()
        .find(|child| child.has_tag_name("cron-expression"))
    else {
        out.skip(
            file.line_at(cron.range().start),
            "cron-expression",
            "a <cron> trigger with no <cron-expression>",
        );
        return;
    };
    let spec_line = file.line_at(expression.range().start);
    let name = child_text(cron, "name").unwrap_or("");
    let group = child_text(cron, "group")
        .filter(|group| !group.is_empty())
        .unwrap_or("DEFAULT");
    let key = format!("{group}.{name}");
    let options: &[(&str, &str)] = match child_text(cron, "time-zone") {
        Some(zone) if !UTC_NAMES.contains(&zone) => &[("Zone", zone)],
        Some(_) => &[],
        None => {
            out.note(
                spec_line,
                "no <time-zone>: Quartz fires it in the JVM's default zone, placed here as UTC",
            );
            &[]
        }
    };
    let body = expression.first_child().filter(|child| child.is_text());
    let spec = body.and_then(|body| body.text()).unwrap_or("").trim();
    // The bytes of a plain text body (no CDATA, no entity), for the fix
    // to write its change in place.
    let source = body
        .map(|body| body.range())
        .filter(|range| !file.text[range.clone()].contains(['&', '<']))
        .map(|range| {
            let raw = &file.text[range.clone()];
            let start = file.offset + range.start + (raw.len() - raw.trim_start().len());
            start..start + spec.len()
        });
    out.push_at(source, spec_line, System::Quartz, &key, spec, options);
}
