//! The change a finding suggests: the fix ([`crate::fix`]) of the
//! finding's line, written into its file by the file's own writer
//! ([`crate::fix::native`]) and cut out of the file as the lines it
//! replaces. One rewrite a fixable line, with its fix alone, so that
//! every line the fix changes or adds is that finding's: beside its line
//! (a unit's `FixedRandomDelay=yes`) or a few lines away, above or below
//! (a template's new window).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use serde::{Deserialize, Serialize};

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
/// changes, by line. Each line's fix is written alone, so every line it
/// touches is its own, however far from the schedule (a template's window)
/// or near another fixed line (a crontab's next line) it is.
fn suggest(
    read: &FileRead,
    lines: &BTreeSet<usize>,
    night: Option<NightHours>,
) -> BTreeMap<usize, Suggestion> {
    // All of a native line's fixes go together, since the writer gives the
    // k-th fix of a line to the k-th schedule read from it.
    let mut fixes: BTreeMap<usize, Vec<LineFix>> = BTreeMap::new();
    for line in &read.imported.file.lines {
        if lines.contains(&line.line) {
            fixes.entry(line.line).or_default().push(LineFix {
                line: line.line,
                change: fix_line(line, night),
            });
        }
    }
    let old: Vec<&str> = read.text.lines().collect();
    fixes
        .into_iter()
        .filter(|(_, fixes)| {
            fixes
                .iter()
                .any(|fix| matches!(fix.change, FixChange::Rewritten { .. }))
        })
        .filter_map(|(line, fixes)| {
            let fixed = native::rewrite(&read.text, read.source.format, &fixes).ok()?;
            let new: Vec<&str> = fixed.lines().collect();
            let (before, after) = changed(&old, &new)?;
            let first_line = read.file_line(before.start + 1);
            let suggestion = Suggestion {
                first_line,
                last_line: first_line + before.len() - 1,
                removed: old[before].iter().map(|text| text.to_string()).collect(),
                added: new[after].iter().map(|text| text.to_string()).collect(),
            };
            Some((line, suggestion))
        })
        .collect()
}

/// The lines of `old` (0-based) that `new` replaces, from the first that
/// differs to the last, and the lines of `new` that replace them; `None`
/// when nothing differs.
fn changed(old: &[&str], new: &[&str]) -> Option<(Range<usize>, Range<usize>)> {
    let same_start = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    if same_start == old.len() && same_start == new.len() {
        return None;
    }
    let most_end = old.len().min(new.len()) - same_start;
    let same_end = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(most_end)
        .take_while(|(a, b)| a == b)
        .count();
    Some((
        same_start..old.len() - same_end,
        same_start..new.len() - same_end,
    ))
}

/// The rules whose findings carry the fix's change: those a spread line
/// settles.
pub fn fixes(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::StartsPerMinute | Rule::ConcurrentJobs | Rule::GithubTopOfHour | Rule::JenkinsSpread
    )
}
