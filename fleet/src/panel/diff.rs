//! The fix's diff: the pasted text against the fixed one, line by line,
//! as hunks with [`DIFF_CONTEXT`] unchanged rows around each change.
//!
//! The `similar` crate finds the changes (patience diff: unchanged lines
//! that appear once in each text anchor it, which suits a fix that rewrites
//! lines in place and keeps every other), and groups them into hunks.

use serde::{Deserialize, Serialize};
use similar::{Algorithm, DiffOp, capture_diff_slices, group_diff_ops};

/// Unchanged rows shown around each change of the fix's diff.
pub const DIFF_CONTEXT: usize = 2;

/// Whether a row of the diff is in both texts or only one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiffKind {
    Same,
    Removed,
    Added,
}

/// A row of the line-by-line diff of the text as pasted and as fixed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiffRow {
    pub kind: DiffKind,
    /// Its line in the pasted text, from 1; `None` for an added row.
    pub before_line: Option<u32>,
    /// Its line in the fixed text, from 1; `None` for a removed row.
    pub after_line: Option<u32>,
    pub text: String,
}

/// The rows of every hunk of the diff of `before` against `after`.
pub(super) fn rows(before: &str, after: &str) -> Vec<DiffRow> {
    let old: Vec<&str> = before.lines().collect();
    let new: Vec<&str> = after.lines().collect();
    let ops = capture_diff_slices(Algorithm::Patience, &old, &new);
    let mut rows = Vec::new();
    for hunk in group_diff_ops(ops, DIFF_CONTEXT) {
        if hunk.iter().all(|op| matches!(op, DiffOp::Equal { .. })) {
            continue;
        }
        for op in hunk {
            let (_, old_range, new_range) = op.as_tag_tuple();
            let row =
                |kind, before_line: Option<usize>, after_line: Option<usize>, text: &str| DiffRow {
                    kind,
                    before_line: before_line.map(|index| index as u32 + 1),
                    after_line: after_line.map(|index| index as u32 + 1),
                    text: text.to_string(),
                };
            if let DiffOp::Equal { .. } = op {
                rows.extend(
                    old_range
                        .zip(new_range)
                        .map(|(o, n)| row(DiffKind::Same, Some(o), Some(n), old[o])),
                );
                continue;
            }
            rows.extend(old_range.map(|o| row(DiffKind::Removed, Some(o), None, old[o])));
            rows.extend(new_range.map(|n| row(DiffKind::Added, None, Some(n), new[n])));
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_shows_with_its_context_only() {
        let before = "a\nb\nc\nd\ne\nf\ng\n";
        let after = "a\nb\nc\nD\ne\nf\ng\n";
        let rows = rows(before, after);
        let kinds: Vec<_> = rows
            .iter()
            .map(|row| (row.kind, row.text.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                (DiffKind::Same, "b"),
                (DiffKind::Same, "c"),
                (DiffKind::Removed, "d"),
                (DiffKind::Added, "D"),
                (DiffKind::Same, "e"),
                (DiffKind::Same, "f"),
            ]
        );
        assert_eq!((rows[2].before_line, rows[2].after_line), (Some(4), None));
        assert_eq!((rows[3].before_line, rows[3].after_line), (None, Some(4)));
        assert!(super::rows(before, before).is_empty());
    }
}
