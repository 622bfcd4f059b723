//! The change a finding suggests: the fix ([`crate::fix`]) of the
//! finding's line, written into its file by the file's own writer
//! ([`crate::fix::native`]) and cut out of the file as the lines it
//! replaces. One rewrite a file: every fixable line's change is written
//! at once, the file diffed against it, and each changed stretch given to
//! the finding whose line it changes, or adds lines beside (a unit's
//! `FixedRandomDelay=yes`, a template's new window).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use serde::{Deserialize, Serialize};
use similar::{Algorithm, DiffOp, capture_diff_slices, group_diff_ops};

use super::read::{FileRead, Hit};
use super::{Finding, Rule};
use crate::fix::{FixChange, LineFix, NightHours, fix_line, native};

/// Lines of a file to replace, and what with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestion {
    /// The first line replaced, or the line the new lines go before.
    pub first_line: usize,
    /// The last line replaced; `first_line - 1` when lines are only added.
    pub last_line: usize,
    /// The lines replaced, as written.
    pub removed: Vec<String>,
    /// The lines that replace them.
    pub added: Vec<String>,
}

/// The findings of `hits`, each in its file's own numbering, with its
/// suggestion where the fix changes its line.
pub(super) fn findings(
    reads: &[FileRead],
    hits: Vec<Hit>,
    night: Option<NightHours>,
) -> Vec<Finding> {
    let mut fixable: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for hit in hits.iter().filter(|hit| hit.fixable) {
        fixable.entry(hit.file).or_default().insert(hit.line);
    }
    let suggestions: BTreeMap<(usize, usize), Suggestion> = fixable
        .iter()
        .flat_map(|(&file, lines)| {
            suggest(&reads[file], lines, night)
                .into_iter()
                .map(move |(line, suggestion)| ((file, line), suggestion))
        })
        .collect();
    hits.into_iter()
        .map(|hit| {
            let read = &reads[hit.file];
            Finding {
                rule: hit.rule,
                level: hit.rule.level(),
                path: read.path().to_string(),
                line: read.file_line(hit.line),
                job: read.lines_at(hit.line).next().map(|line| line.id.clone()),
                message: hit.message,
                value: hit.value,
                fingerprint: String::new(),
                suggestion: hit
                    .fixable
                    .then(|| suggestions.get(&(hit.file, hit.line)).cloned())
                    .flatten(),
            }
        })
        .collect()
}

/// The suggestion for each of `lines` (of the text read) that the fix
/// changes, by line.
fn suggest(
    read: &FileRead,
    lines: &BTreeSet<usize>,
    night: Option<NightHours>,
) -> BTreeMap<usize, Suggestion> {
    // A native line's fixes all go to the writer, kept ones too, since it
    // gives the k-th fix of a line to the k-th schedule read from it.
    let fixes: Vec<LineFix> = read
        .imported
        .file
        .lines
        .iter()
        .filter(|line| lines.contains(&line.line))
        .map(|line| LineFix {
            line: line.line,
            change: fix_line(line, night),
        })
        .collect();
    let mut found = changes(read, &fixes, |before| owner(lines, before));
    // A change away from its line (a template's window below its
    // expression) has no owner above; each line left without a change is
    // rewritten alone, up to MOST_ALONE a file.
    let alone: BTreeSet<usize> = fixes
        .iter()
        .map(|fix| fix.line)
        .filter(|line| !found.contains_key(line))
        .take(MOST_ALONE)
        .collect();
    for line in alone {
        let own: Vec<LineFix> = fixes
            .iter()
            .filter(|fix| fix.line == line)
            .cloned()
            .collect();
        found.extend(changes(read, &own, |_| Some(line)));
    }
    found
}

/// The most lines of one file rewritten alone for their suggestion: each
/// is a rewrite and a diff of the whole file.
const MOST_ALONE: usize = 100;

/// The suggestion each line gets from the file rewritten with `fixes`,
/// every changed stretch given to the line `owner` names, if any.
fn changes(
    read: &FileRead,
    fixes: &[LineFix],
    owner: impl Fn(&Range<usize>) -> Option<usize>,
) -> BTreeMap<usize, Suggestion> {
    let rewritten = |fix: &LineFix| matches!(fix.change, FixChange::Rewritten { .. });
    if !fixes.iter().any(rewritten) {
        return BTreeMap::new();
    }
    let Ok(fixed) = native::rewrite(&read.text, read.source.format, fixes) else {
        return BTreeMap::new();
    };
    let old: Vec<&str> = read.text.lines().collect();
    let new: Vec<&str> = fixed.lines().collect();
    let ops = capture_diff_slices(Algorithm::Patience, &old, &new);
    let mut changed: BTreeMap<usize, (Range<usize>, Range<usize>)> = BTreeMap::new();
    for hunk in group_diff_ops(ops, 0) {
        let changes = hunk
            .iter()
            .filter(|op| !matches!(op, DiffOp::Equal { .. }))
            .flat_map(line_by_line);
        for (before, after) in changes {
            let Some(owner) = owner(&before) else {
                continue;
            };
            changed
                .entry(owner)
                .and_modify(|(b, a)| {
                    b.end = before.end.max(b.end);
                    a.end = after.end.max(a.end);
                })
                .or_insert((before, after));
        }
    }
    changed
        .into_iter()
        .map(|(line, (before, after))| {
            let suggestion = Suggestion {
                first_line: read.file_line(before.start + 1),
                last_line: read.file_line(before.start + 1) + before.len() - 1,
                removed: old[before].iter().map(|text| text.to_string()).collect(),
                added: new[after].iter().map(|text| text.to_string()).collect(),
            };
            (line, suggestion)
        })
        .collect()
}

/// A change as the old and new lines it spans; a change of as many lines
/// as it replaces, one change a line, since the fix rewrites lines in
/// place and neighbouring lines are separate findings.
fn line_by_line(op: &DiffOp) -> Vec<(Range<usize>, Range<usize>)> {
    let (_, before, after) = op.as_tag_tuple();
    if before.len() == after.len() {
        before
            .zip(after)
            .map(|(b, a)| (b..b + 1, a..a + 1))
            .collect()
    } else {
        vec![(before, after)]
    }
}

/// The fixable line a change of the lines `before` (0-based, of the text
/// read) belongs to: one it replaces, else the line just above the lines
/// it adds, else the one just below.
fn owner(lines: &BTreeSet<usize>, before: &Range<usize>) -> Option<usize> {
    if !before.is_empty() {
        return lines.range(before.start + 1..=before.end).next().copied();
    }
    [before.start, before.start + 1]
        .into_iter()
        .find(|line| lines.contains(line))
}

/// The rules whose findings carry the fix's change: those a spread line
/// settles.
pub fn fixes(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::StartsPerMinute | Rule::ConcurrentJobs | Rule::GithubTopOfHour | Rule::JenkinsSpread
    )
}
