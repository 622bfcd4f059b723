//! GitHub Actions workflows, read as `cron` fleet lines.
//!
//! Each `on.schedule[].cron` gives one line on its own line: id the
//! workflow's `name:`, else the file name from the `# file: name.yml`
//! line above the workflow (several workflows go in one paste that way),
//! else `workflow`; spec the five fields, placed in UTC as GitHub places
//! them. `on: schedule` with no crons, or a cron that is not text, is
//! skipped with the reason.
//!
//! GitHub starts scheduled runs late when its runners are busy, most of
//! all at the top of the hour, and may drop them: every line read gets a
//! note saying so ([`DELAY_NOTE`]), which the command line prints, so the
//! placements read as the earliest a run can start, not when it will.

use super::yaml::{self, PasteLines, YamlNode};
use super::{NativeTranslation, split_files};
use crate::line::System;

/// The note every workflow line carries.
pub const DELAY_NOTE: &str = "GitHub may delay scheduled runs under load, most at the top of \
     the hour, or drop them; starts here are the earliest they can be";

/// The line that names the workflow file the lines after it come from.
pub const FILE_MARK: &str = "# file:";

/// Translates workflows into fleet lines.
pub fn translate(text: &str) -> NativeTranslation {
    let mut out = NativeTranslation::default();
    let paste = PasteLines::new(text);
    for part in split_files(text, FILE_MARK) {
        let (documents, error) = yaml::documents(part.text, part.first_line);
        let file_name = part
            .name
            .map(|(_, name)| name)
            .filter(|name| !name.is_empty());
        for workflow in &documents {
            read_workflow(workflow, file_name, &paste, &mut out);
        }
        if let Some(error) = error {
            out.skip(error.line, "yaml", error.reason);
        }
    }
    out
}

fn read_workflow(
    workflow: &YamlNode,
    file_name: Option<&str>,
    paste: &PasteLines,
    out: &mut NativeTranslation,
) {
    let Some(on) = workflow.get("on") else {
        return;
    };
    let Some((key, schedule)) = on.entry("schedule") else {
        return;
    };
    let id = workflow
        .get("name")
        .and_then(YamlNode::as_str)
        .or(file_name)
        .unwrap_or("workflow");
    let Some(entries) = schedule.items() else {
        out.skip(
            key.line,
            "on.schedule",
            format!("is {}, not a list of crons", schedule.kind()),
        );
        return;
    };
    if entries.is_empty() {
        out.skip(key.line, "on.schedule", "lists no crons");
    }
    for entry in entries {
        let Some(cron) = entry.get("cron") else {
            out.skip(entry.line, "on.schedule.cron", "is missing from the entry");
            continue;
        };
        match cron.as_str() {
            Some(spec) => {
                let source = paste.scalar_range(cron);
                out.push_at(source, cron.line, System::Cron, id, spec, &[]);
                out.note(cron.line, DELAY_NOTE);
            }
            None => out.skip(
                cron.line,
                "on.schedule.cron",
                format!("is {}, not a cron spec", cron.kind()),
            ),
        }
    }
}
