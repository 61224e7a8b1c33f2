//! The edit engine behind the `edit_file` tool: text in, text out.
//!
//! Two request forms are accepted. *Hunks* name lines by their 1-based number in the original
//! text and carry the exact lines expected there (`old`) and the lines that replace them (`new`);
//! every hunk refers to the original numbering and every hunk is checked before anything is
//! replaced. *Replace* is the `old_string`/`new_string` form, which works on the raw text so that
//! a match may span lines.
//!
//! Invariants:
//! - Pure: no file system, no clock. The caller reads the file, checks that it did not change on
//!   disk (see [`digest`]) and writes the result atomically.
//! - All or nothing: [`apply`] either returns the whole edited text or an [`EditError`]; a bad
//!   hunk anywhere in the request means no hunk is applied.
//! - Line endings: only `\n` and `\r\n` end a line; a lone `\r` is content. Lines untouched by a
//!   hunk keep their own ending byte for byte. A new line that replaces old lines takes the ending
//!   of the old line in the same position (the last replaced line's ending for any extra lines); an
//!   inserted line takes the file's dominant ending (CRLF when more lines end in CRLF than in LF,
//!   otherwise LF). A file that ended without a line terminator still ends without one, whatever
//!   the hunks touched (appending after the last line terminates the old last line and leaves the
//!   new one bare); a file that ended with one still does. An empty file has no convention: every
//!   line inserted into it is terminated.
//! - Insertion order: a hunk with empty `old` inserts before `start_line`. An insertion at the
//!   first line of a replaced range goes before the replacement, one right after a replaced range
//!   goes after it. Two insertions at the same point are refused as [`EditError::Overlapping`]:
//!   their order would be a guess, and one hunk with both sets of lines says it plainly.

use serde::Deserialize;
use sha2::{Digest, Sha256};

/// One line-oriented change. Lines carry no terminators.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hunk {
    /// 1-based number of the first line in `old`, or the line to insert before when `old` is
    /// empty (one past the last line appends).
    pub start_line: usize,
    /// The lines expected at `start_line..`, exactly as the file has them; empty to insert.
    #[serde(default)]
    pub old: Vec<String>,
    /// The lines that take their place; empty to delete.
    #[serde(default)]
    pub new: Vec<String>,
}

/// The `old_string`/`new_string` form, matched against the raw text (terminators included).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Replace {
    pub old_string: String,
    pub new_string: String,
    /// Replace every occurrence instead of requiring exactly one.
    #[serde(default)]
    pub replace_all: bool,
}

/// One `edit_file` request without its path.
///
/// Deserialises from an object holding either `hunks` or `old_string`/`new_string`
/// (`replace_all` optional), never both, and nothing else; a caller whose arguments also carry
/// `path` can take it out first or `#[serde(flatten)]` this into its own struct.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "EditArgs")]
pub enum Edit {
    Hunks(Vec<Hunk>),
    Replace(Replace),
}

/// The wire shape of [`Edit`]: every field of both forms, sorted out by `TryFrom`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditArgs {
    hunks: Option<Vec<Hunk>>,
    old_string: Option<String>,
    new_string: Option<String>,
    replace_all: Option<bool>,
}

impl TryFrom<EditArgs> for Edit {
    type Error = String;

    fn try_from(args: EditArgs) -> Result<Self, String> {
        let replace_given =
            args.old_string.is_some() || args.new_string.is_some() || args.replace_all.is_some();
        match (args.hunks, args.old_string, args.new_string) {
            (Some(_), ..) if replace_given => Err("give either `hunks` or \
                `old_string`/`new_string`, not both; send two calls for two kinds of edit"
                .to_string()),
            (Some(hunks), ..) => Ok(Edit::Hunks(hunks)),
            (None, Some(old_string), Some(new_string)) => Ok(Edit::Replace(Replace {
                old_string,
                new_string,
                replace_all: args.replace_all.unwrap_or(false),
            })),
            (None, Some(_), None) => Err(
                "`new_string` is missing; give the text that replaces `old_string` \
                    (an empty string deletes it)"
                    .to_string(),
            ),
            (None, None, Some(_)) => Err("`old_string` is missing; give the exact text \
                to replace, copied from the file"
                .to_string()),
            (None, None, None) => Err("give `hunks` (a list of {start_line, old, new}), \
                or `old_string` and `new_string`"
                .to_string()),
        }
    }
}

/// Bounds on one edit, so that a request cannot make the caller hold or write unbounded text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_file_bytes: usize,
    pub max_hunks: usize,
    /// Per hunk, for `old` and `new` each.
    pub max_hunk_lines: usize,
    pub max_result_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: 8 << 20,
            max_hunks: 256,
            max_hunk_lines: 10_000,
            max_result_bytes: 8 << 20,
        }
    }
}

/// The edited text and what changed, for the caller's report to the agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    pub text: String,
    /// Hunks applied (0 for the replace form).
    pub hunks: usize,
    /// Occurrences replaced (0 for the hunk form).
    pub replacements: usize,
    /// For hunks, the lines in `old` and `new`; for the replace form, the lines the old and new
    /// strings span, times the replacements (a string ending in `\n` spans the lines it ends).
    pub lines_removed: usize,
    pub lines_added: usize,
}

/// Why an edit was refused. Every message says what was wrong and what the agent should do;
/// `hunk` numbers count from 1 in request order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error(
        "hunk {hunk}: line {line} is {}, expected {} — the file changed since you read it, or \
         the hunk names the wrong line; read the file again and rebuild the hunk",
        shown(.found),
        shown(.expected)
    )]
    StaleContext {
        hunk: usize,
        line: usize,
        expected: String,
        found: String,
    },
    #[error(
        "hunks {first} and {second} touch the same lines of the original (or insert at the same \
         point); every hunk must cover its own lines — merge them into one hunk"
    )]
    Overlapping { first: usize, second: usize },
    #[error(
        "hunk {hunk}: start_line {start_line} and its old lines reach past the end of the file, \
         which has {lines_in_file} lines (a hunk with empty old may start at {} to append) — read \
         the file again and fix the line numbers",
        .lines_in_file + 1
    )]
    OutOfRange {
        hunk: usize,
        start_line: usize,
        lines_in_file: usize,
    },
    #[error(
        "old_string does not occur in the file — it must match the current text exactly, \
         whitespace and line breaks included; read the file again and copy the text from it"
    )]
    NotFound,
    #[error(
        "old_string occurs {count} times but must occur exactly once — include more surrounding \
         text to make it unique, or set replace_all to true to replace every occurrence"
    )]
    NotUnique { count: usize },
    #[error("malformed edit: {0}")]
    Malformed(String),
    #[error(
        "{bytes} bytes is over edit_file's limit of {limit} bytes for a file or its edited \
         result — keep the file smaller, or make the change in smaller steps"
    )]
    TooLarge { bytes: usize, limit: usize },
}

impl EditError {
    /// The protocol code the caller reports: the agent's view of the file is out of date, the
    /// request itself is wrong, or the file is beyond what the tool handles.
    pub fn code(&self) -> &'static str {
        match self {
            EditError::StaleContext { .. } | EditError::NotFound | EditError::NotUnique { .. } => {
                "STALE_CONTEXT"
            }
            EditError::Overlapping { .. }
            | EditError::OutOfRange { .. }
            | EditError::Malformed(_) => "MALFORMED_PATCH",
            EditError::TooLarge { .. } => "FILE_TOO_LARGE",
        }
    }
}

/// A line quoted for an error message, cut short so one long line cannot flood the agent.
fn shown(line: &str) -> String {
    const MAX_CHARS: usize = 160;
    match line.char_indices().nth(MAX_CHARS) {
        None => format!("{line:?}"),
        Some((cut, _)) => format!("{:?}…", &line[..cut]),
    }
}

/// Hex SHA-256 of the text, for the caller's check that the file on disk is still the one read.
pub fn digest(text: &str) -> String {
    format!("{:x}", Sha256::digest(text.as_bytes()))
}

/// Applies one edit to `original`, or says why not; nothing is partly applied.
pub fn apply(original: &str, edit: &Edit, limits: &Limits) -> Result<Applied, EditError> {
    if original.len() > limits.max_file_bytes {
        return Err(EditError::TooLarge {
            bytes: original.len(),
            limit: limits.max_file_bytes,
        });
    }
    match edit {
        Edit::Hunks(hunks) => apply_hunks(original, hunks, limits),
        Edit::Replace(replace) => apply_replace(original, replace, limits),
    }
}

/// A line of the original: its content and its terminator (`""` only for a bare last line).
#[derive(Clone, Copy, Debug)]
struct Line<'a> {
    content: &'a str,
    ending: &'a str,
}

fn split_lines(text: &str) -> Vec<Line<'_>> {
    text.split_inclusive('\n')
        .map(|piece| {
            let cut = if piece.ends_with("\r\n") {
                piece.len() - 2
            } else if piece.ends_with('\n') {
                piece.len() - 1
            } else {
                piece.len()
            };
            let (content, ending) = piece.split_at(cut);
            Line { content, ending }
        })
        .collect()
}

/// CRLF when more lines end in CRLF than in LF; LF otherwise, ties and unterminated text included.
fn dominant_ending(lines: &[Line<'_>]) -> &'static str {
    let crlf = lines.iter().filter(|l| l.ending == "\r\n").count();
    let lf = lines.iter().filter(|l| l.ending == "\n").count();
    if crlf > lf { "\r\n" } else { "\n" }
}

fn apply_hunks<'a>(
    original: &'a str,
    hunks: &[Hunk],
    limits: &Limits,
) -> Result<Applied, EditError> {
    check_shapes(hunks, limits)?;
    let lines = split_lines(original);
    for (index, hunk) in hunks.iter().enumerate() {
        if (hunk.start_line - 1).saturating_add(hunk.old.len()) > lines.len() {
            return Err(EditError::OutOfRange {
                hunk: index + 1,
                start_line: hunk.start_line,
                lines_in_file: lines.len(),
            });
        }
    }
    let order = ordered_without_overlap(hunks)?;
    for (index, hunk) in hunks.iter().enumerate() {
        let first = hunk.start_line - 1;
        let here = &lines[first..first + hunk.old.len()];
        if let Some((offset, (expected, found))) = hunk
            .old
            .iter()
            .zip(here)
            .enumerate()
            .find(|(_, (expected, found))| expected.as_str() != found.content)
        {
            return Err(EditError::StaleContext {
                hunk: index + 1,
                line: first + offset + 1,
                expected: expected.clone(),
                found: found.content.to_string(),
            });
        }
    }

    let dominant = dominant_ending(&lines);
    // Every line is written terminated (a bare last line takes the dominant ending); the final
    // terminator is taken off again below when the original had none.
    let ending_of = |line: &Line<'a>| -> &'a str {
        if line.ending.is_empty() {
            dominant
        } else {
            line.ending
        }
    };
    let mut text = String::with_capacity(original.len());
    let mut last_ending_len = 0;
    let mut push = |text: &mut String, content: &str, ending: &str| {
        text.push_str(content);
        text.push_str(ending);
        last_ending_len = ending.len();
    };
    let mut next = 0;
    for hunk in order.iter().map(|&index| &hunks[index]) {
        let first = hunk.start_line - 1;
        for line in &lines[next..first] {
            push(&mut text, line.content, ending_of(line));
        }
        let replaced = &lines[first..first + hunk.old.len()];
        for (position, content) in hunk.new.iter().enumerate() {
            let ending = match replaced.get(position).or(replaced.last()) {
                Some(line) => ending_of(line),
                None => dominant,
            };
            push(&mut text, content, ending);
        }
        next = first + hunk.old.len();
    }
    for line in &lines[next..] {
        push(&mut text, line.content, ending_of(line));
    }
    if lines.last().is_some_and(|line| line.ending.is_empty()) {
        // Cut by the length written, not by looking: a bare last line may end in a lone `\r`.
        text.truncate(text.len() - last_ending_len);
    }

    if text.len() > limits.max_result_bytes {
        return Err(EditError::TooLarge {
            bytes: text.len(),
            limit: limits.max_result_bytes,
        });
    }
    Ok(Applied {
        text,
        hunks: hunks.len(),
        replacements: 0,
        lines_removed: hunks.iter().map(|h| h.old.len()).sum(),
        lines_added: hunks.iter().map(|h| h.new.len()).sum(),
    })
}

/// Checks what can be checked without the file: counts, line numbers from 1, no empty hunk, no
/// line breaks inside a line.
fn check_shapes(hunks: &[Hunk], limits: &Limits) -> Result<(), EditError> {
    let malformed = |message: String| Err(EditError::Malformed(message));
    if hunks.is_empty() {
        return malformed(
            "the hunks list is empty; give at least one hunk with start_line, old and new".into(),
        );
    }
    if hunks.len() > limits.max_hunks {
        return malformed(format!(
            "{} hunks is more than the {} one call may carry; split the edit over several calls",
            hunks.len(),
            limits.max_hunks
        ));
    }
    for (index, hunk) in hunks.iter().enumerate() {
        let number = index + 1;
        if hunk.start_line == 0 {
            return malformed(format!(
                "hunk {number}: start_line is 0, but lines count from 1; the first line is 1"
            ));
        }
        if hunk.old.is_empty() && hunk.new.is_empty() {
            return malformed(format!(
                "hunk {number}: old and new are both empty, so it changes nothing; put the lines \
                 to replace in old and their replacement in new, or leave the hunk out"
            ));
        }
        for (field, lines) in [("old", &hunk.old), ("new", &hunk.new)] {
            if lines.len() > limits.max_hunk_lines {
                return malformed(format!(
                    "hunk {number}: {field} has {} lines, more than the {} a hunk may carry; \
                     split it into several hunks",
                    lines.len(),
                    limits.max_hunk_lines
                ));
            }
            if let Some(position) = lines.iter().position(|l| l.contains(['\n', '\r'])) {
                return malformed(format!(
                    "hunk {number}: {field} line {} contains a line break (\\n or \\r); give each \
                     line as its own list element without its terminator (text with a lone \\r \
                     can be changed with old_string/new_string)",
                    position + 1
                ));
            }
        }
    }
    Ok(())
}

/// The hunks in file order, or the first pair that touches the same original lines. Insertions
/// sort before a replacement starting at the same line; two insertions at one point overlap.
fn ordered_without_overlap(hunks: &[Hunk]) -> Result<Vec<usize>, EditError> {
    let mut order: Vec<usize> = (0..hunks.len()).collect();
    order.sort_by_key(|&index| (hunks[index].start_line, !hunks[index].old.is_empty(), index));
    // The hunk reaching furthest so far, and the line it reaches (exclusive end).
    let mut reach: Option<(usize, usize)> = None;
    let mut last_insertion: Option<(usize, usize)> = None;
    for &index in &order {
        let hunk = &hunks[index];
        let start = hunk.start_line;
        let end = start + hunk.old.len();
        let clash = match reach {
            Some((owner, furthest)) if start < furthest => Some(owner),
            _ => None,
        }
        .or(match last_insertion {
            Some((owner, at)) if hunk.old.is_empty() && at == start => Some(owner),
            _ => None,
        });
        if let Some(owner) = clash {
            return Err(EditError::Overlapping {
                first: owner.min(index) + 1,
                second: owner.max(index) + 1,
            });
        }
        if reach.is_none_or(|(_, furthest)| end > furthest) {
            reach = Some((index, end));
        }
        if hunk.old.is_empty() {
            last_insertion = Some((index, start));
        }
    }
    Ok(order)
}

fn apply_replace(original: &str, replace: &Replace, limits: &Limits) -> Result<Applied, EditError> {
    let Replace {
        old_string,
        new_string,
        replace_all,
    } = replace;
    if old_string.is_empty() {
        return Err(EditError::Malformed(
            "old_string is empty; give the exact text to replace (to insert, include a \
             neighbouring line in both old_string and new_string, or use a hunk with empty old)"
                .into(),
        ));
    }
    if old_string == new_string {
        return Err(EditError::Malformed(
            "old_string and new_string are the same, so the edit changes nothing; put the text \
             it should become in new_string"
                .into(),
        ));
    }
    let count = original.matches(old_string.as_str()).count();
    match count {
        0 => return Err(EditError::NotFound),
        1 => {}
        _ if !replace_all => return Err(EditError::NotUnique { count }),
        _ => {}
    }
    // Sized before building, so a short string replaced everywhere cannot blow up memory.
    let bytes = (original.len() - count * old_string.len())
        .saturating_add(count.saturating_mul(new_string.len()));
    if bytes > limits.max_result_bytes {
        return Err(EditError::TooLarge {
            bytes,
            limit: limits.max_result_bytes,
        });
    }
    Ok(Applied {
        text: original.replace(old_string.as_str(), new_string),
        hunks: 0,
        replacements: count,
        lines_removed: count * lines_spanned(old_string),
        lines_added: count * lines_spanned(new_string),
    })
}

/// How many lines a piece of text touches: one per `\n`, plus a last one it does not end.
fn lines_spanned(text: &str) -> usize {
    let breaks = text.matches('\n').count();
    if text.is_empty() || text.ends_with('\n') {
        breaks
    } else {
        breaks + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(start_line: usize, old: &[&str], new: &[&str]) -> Hunk {
        Hunk {
            start_line,
            old: old.iter().map(|s| s.to_string()).collect(),
            new: new.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn hunks(original: &str, list: Vec<Hunk>) -> Result<Applied, EditError> {
        apply(original, &Edit::Hunks(list), &Limits::default())
    }

    fn edited(original: &str, list: Vec<Hunk>) -> String {
        match hunks(original, list) {
            Ok(applied) => applied.text,
            Err(error) => panic!("edit refused: {error}"),
        }
    }

    fn replace(original: &str, old: &str, new: &str, all: bool) -> Result<Applied, EditError> {
        let edit = Edit::Replace(Replace {
            old_string: old.into(),
            new_string: new.into(),
            replace_all: all,
        });
        apply(original, &edit, &Limits::default())
    }

    fn is_malformed(result: Result<Applied, EditError>, needle: &str) -> bool {
        matches!(result, Err(EditError::Malformed(m)) if m.contains(needle))
    }

    const FIVE: &str = "one\ntwo\nthree\nfour\nfive\n";

    #[test]
    fn replaces_lines_that_match() {
        let applied = hunks(FIVE, vec![hunk(2, &["two", "three"], &["2", "3", "3½"])]);
        assert_eq!(
            applied,
            Ok(Applied {
                text: "one\n2\n3\n3½\nfour\nfive\n".into(),
                hunks: 1,
                replacements: 0,
                lines_removed: 2,
                lines_added: 3,
            })
        );
    }

    #[test]
    fn rejects_stale_context_naming_line_and_both_texts() {
        let error = hunks(FIVE, vec![hunk(3, &["three", "FOUR"], &["x"])]).unwrap_err();
        assert_eq!(
            error,
            EditError::StaleContext {
                hunk: 1,
                line: 4,
                expected: "FOUR".into(),
                found: "four".into(),
            }
        );
        assert_eq!(error.code(), "STALE_CONTEXT");
        let message = error.to_string();
        assert!(
            message.contains(r#"line 4 is "four", expected "FOUR""#),
            "{message}"
        );
        assert!(message.contains("read the file again"), "{message}");
    }

    #[test]
    fn stale_context_message_cuts_long_lines() {
        let long = "x".repeat(1_000);
        let error = hunks(&format!("{long}\n"), vec![hunk(1, &["y"], &["z"])]).unwrap_err();
        let message = error.to_string();
        assert!(message.len() < 600, "{message}");
        assert!(message.contains('…'));
    }

    #[test]
    fn rejects_stale_context_that_differs_only_in_whitespace() {
        let error = hunks("\tindent\n", vec![hunk(1, &["    indent"], &["x"])]).unwrap_err();
        assert!(error.to_string().contains(r#""\tindent""#), "{error}");
    }

    #[test]
    fn rejects_overlapping_replacements() {
        let error = hunks(
            FIVE,
            vec![
                hunk(2, &["two", "three"], &["x"]),
                hunk(3, &["three"], &["y"]),
            ],
        )
        .unwrap_err();
        assert_eq!(
            error,
            EditError::Overlapping {
                first: 1,
                second: 2
            }
        );
        assert_eq!(error.code(), "MALFORMED_PATCH");
    }

    #[test]
    fn rejects_overlap_reported_in_request_order_whatever_the_file_order() {
        let error = hunks(
            FIVE,
            vec![
                hunk(5, &["five"], &["5"]),
                hunk(3, &["three", "four"], &["y"]),
                hunk(1, &["one", "two", "three"], &["x"]),
            ],
        )
        .unwrap_err();
        assert_eq!(
            error,
            EditError::Overlapping {
                first: 2,
                second: 3
            }
        );
    }

    #[test]
    fn rejects_overlap_with_a_long_hunk_that_is_not_the_previous_one() {
        let error = hunks(
            FIVE,
            vec![
                hunk(1, &["one", "two", "three", "four"], &["x"]),
                hunk(2, &["two"], &["y"]),
                hunk(4, &["four"], &["z"]),
            ],
        )
        .unwrap_err();
        assert!(matches!(error, EditError::Overlapping { first: 1, .. }));
    }

    #[test]
    fn rejects_two_insertions_at_the_same_point() {
        let error = hunks(FIVE, vec![hunk(3, &[], &["a"]), hunk(3, &[], &["b"])]).unwrap_err();
        assert_eq!(
            error,
            EditError::Overlapping {
                first: 1,
                second: 2
            }
        );
    }

    #[test]
    fn rejects_insertion_inside_a_replaced_range() {
        let error = hunks(
            FIVE,
            vec![hunk(2, &["two", "three"], &["x"]), hunk(3, &[], &["in"])],
        )
        .unwrap_err();
        assert!(matches!(error, EditError::Overlapping { .. }));
    }

    #[test]
    fn insertion_at_a_replaced_range_goes_before_it_and_after_it_goes_after() {
        let text = edited(
            FIVE,
            vec![
                hunk(4, &[], &["after"]),
                hunk(2, &["two", "three"], &["x"]),
                hunk(2, &[], &["before"]),
            ],
        );
        assert_eq!(text, "one\nbefore\nx\nafter\nfour\nfive\n");
    }

    #[test]
    fn adjacent_replacements_are_not_overlapping() {
        let text = edited(
            FIVE,
            vec![hunk(3, &["three"], &["3"]), hunk(2, &["two"], &["2"])],
        );
        assert_eq!(text, "one\n2\n3\nfour\nfive\n");
    }

    #[test]
    fn rejects_start_line_zero_as_malformed() {
        let result = hunks(FIVE, vec![hunk(0, &[], &["x"])]);
        assert!(is_malformed(result, "lines count from 1"));
    }

    #[test]
    fn rejects_start_line_beyond_one_past_the_end() {
        let error = hunks(FIVE, vec![hunk(7, &[], &["x"])]).unwrap_err();
        assert_eq!(
            error,
            EditError::OutOfRange {
                hunk: 1,
                start_line: 7,
                lines_in_file: 5
            }
        );
        assert_eq!(error.code(), "MALFORMED_PATCH");
        assert!(error.to_string().contains("may start at 6 to append"));
    }

    #[test]
    fn rejects_old_lines_running_past_the_end() {
        let error = hunks(FIVE, vec![hunk(5, &["five", "six"], &["x"])]).unwrap_err();
        assert!(matches!(error, EditError::OutOfRange { start_line: 5, .. }));
        let error = hunks(FIVE, vec![hunk(6, &["six"], &["x"])]).unwrap_err();
        assert!(matches!(error, EditError::OutOfRange { start_line: 6, .. }));
    }

    #[test]
    fn rejects_huge_start_line_without_overflow() {
        let error = hunks(FIVE, vec![hunk(usize::MAX, &["x"], &["y"])]).unwrap_err();
        assert!(matches!(error, EditError::OutOfRange { .. }));
    }

    #[test]
    fn inserts_at_start_middle_and_end() {
        assert_eq!(edited("a\nb\n", vec![hunk(1, &[], &["0"])]), "0\na\nb\n");
        assert_eq!(
            edited("a\nb\n", vec![hunk(2, &[], &["x", "y"])]),
            "a\nx\ny\nb\n"
        );
        assert_eq!(edited("a\nb\n", vec![hunk(3, &[], &["c"])]), "a\nb\nc\n");
    }

    #[test]
    fn deletes_lines_when_new_is_empty() {
        let applied = hunks(FIVE, vec![hunk(2, &["two", "three"], &[])]).unwrap();
        assert_eq!(applied.text, "one\nfour\nfive\n");
        assert_eq!((applied.lines_removed, applied.lines_added), (2, 0));
        assert_eq!(edited("only\n", vec![hunk(1, &["only"], &[])]), "");
    }

    #[test]
    fn applies_several_hunks_against_original_line_numbers() {
        let applied = hunks(
            FIVE,
            vec![
                hunk(5, &["five"], &["5"]),
                hunk(1, &["one"], &["1a", "1b", "1c"]),
                hunk(3, &["three"], &[]),
                hunk(4, &[], &["before four"]),
            ],
        )
        .unwrap();
        assert_eq!(applied.text, "1a\n1b\n1c\ntwo\nbefore four\nfour\n5\n");
        assert_eq!(applied.hunks, 4);
        assert_eq!((applied.lines_removed, applied.lines_added), (3, 5));
    }

    #[test]
    fn a_later_bad_hunk_refuses_the_whole_edit() {
        let error = hunks(
            FIVE,
            vec![
                hunk(1, &["one"], &["1"]),
                hunk(2, &["two"], &["2"]),
                hunk(4, &["stale"], &["4"]),
            ],
        )
        .unwrap_err();
        assert!(matches!(
            error,
            EditError::StaleContext {
                hunk: 3,
                line: 4,
                ..
            }
        ));
        let error = hunks(FIVE, vec![hunk(1, &["one"], &["1"]), hunk(9, &[], &["x"])]);
        assert!(matches!(error, Err(EditError::OutOfRange { hunk: 2, .. })));
    }

    #[test]
    fn crlf_file_stays_crlf() {
        let text = edited(
            "a\r\nb\r\nc\r\n",
            vec![
                hunk(2, &["b"], &["B1", "B2"]),
                hunk(4, &[], &["d"]),
                hunk(1, &[], &["z"]),
            ],
        );
        assert_eq!(text, "z\r\na\r\nB1\r\nB2\r\nc\r\nd\r\n");
    }

    #[test]
    fn mixed_endings_keep_each_untouched_line_and_follow_the_replaced_line() {
        // Two LF lines and three CRLF lines: CRLF dominates.
        let original = "a\nb\r\nc\nd\r\ne\r\n";
        let text = edited(
            original,
            vec![
                hunk(2, &["b", "c"], &["B", "C", "C2"]),
                hunk(5, &[], &["ins"]),
            ],
        );
        assert_eq!(text, "a\nB\r\nC\nC2\nd\r\nins\r\ne\r\n");
    }

    #[test]
    fn dominant_ending_ties_go_to_lf() {
        assert_eq!(
            edited("a\r\nb\n", vec![hunk(3, &[], &["c"])]),
            "a\r\nb\nc\n"
        );
    }

    #[test]
    fn missing_trailing_newline_stays_missing() {
        assert_eq!(edited("a\nb", vec![hunk(2, &["b"], &["B"])]), "a\nB");
        assert_eq!(edited("a\nb", vec![hunk(1, &["a"], &["A"])]), "A\nb");
        assert_eq!(
            edited("a\nb", vec![hunk(2, &["b"], &["B", "C"])]),
            "a\nB\nC"
        );
        assert_eq!(
            edited("a\r\nb", vec![hunk(2, &["b"], &["B", "C"])]),
            "a\r\nB\r\nC"
        );
    }

    #[test]
    fn appending_to_a_file_without_trailing_newline_leaves_the_new_last_line_bare() {
        assert_eq!(
            edited("a\nb", vec![hunk(3, &[], &["c", "d"])]),
            "a\nb\nc\nd"
        );
        assert_eq!(edited("a\r\nb", vec![hunk(3, &[], &["c"])]), "a\r\nb\r\nc");
    }

    #[test]
    fn deleting_the_bare_last_line_leaves_the_new_last_line_bare() {
        assert_eq!(edited("a\nb\nc", vec![hunk(3, &["c"], &[])]), "a\nb");
        assert_eq!(edited("a", vec![hunk(1, &["a"], &[])]), "");
    }

    #[test]
    fn trailing_newline_stays_when_the_last_line_is_replaced() {
        assert_eq!(
            edited("a\nb\n", vec![hunk(2, &["b"], &["B", "C"])]),
            "a\nB\nC\n"
        );
    }

    #[test]
    fn lone_carriage_return_is_content_not_a_line_end() {
        let original = "a\rb\nc\n";
        assert_eq!(split_lines(original).len(), 2);
        assert_eq!(edited(original, vec![hunk(2, &["c"], &["C"])]), "a\rb\nC\n");
        let error = hunks(original, vec![hunk(1, &["a"], &["x"])]).unwrap_err();
        assert!(matches!(error, EditError::StaleContext { found, .. } if found == "a\rb"));
    }

    #[test]
    fn bare_last_line_ending_in_carriage_return_keeps_it() {
        assert_eq!(edited("a\nb\r", vec![hunk(1, &["a"], &["A"])]), "A\nb\r");
    }

    #[test]
    fn empty_file_takes_insertions_at_line_one() {
        assert_eq!(
            edited("", vec![hunk(1, &[], &["first", "second"])]),
            "first\nsecond\n"
        );
        let error = hunks("", vec![hunk(1, &["x"], &["y"])]).unwrap_err();
        assert!(matches!(
            error,
            EditError::OutOfRange {
                lines_in_file: 0,
                ..
            }
        ));
        let error = hunks("", vec![hunk(2, &[], &["y"])]).unwrap_err();
        assert!(matches!(error, EditError::OutOfRange { start_line: 2, .. }));
    }

    #[test]
    fn rejects_malformed_hunks() {
        assert!(is_malformed(hunks(FIVE, vec![]), "hunks list is empty"));
        assert!(is_malformed(
            hunks(FIVE, vec![hunk(1, &[], &[])]),
            "both empty"
        ));
        assert!(is_malformed(
            hunks(FIVE, vec![hunk(1, &["one"], &["a\nb"])]),
            "new line 1 contains a line break"
        ));
        assert!(is_malformed(
            hunks(FIVE, vec![hunk(1, &["one\r"], &["x"])]),
            "old line 1 contains a line break"
        ));
        let error = hunks(FIVE, vec![hunk(1, &[], &["x\r\n"])]).unwrap_err();
        assert_eq!(error.code(), "MALFORMED_PATCH");
    }

    #[test]
    fn rejects_too_many_hunks_and_too_many_lines() {
        let limits = Limits {
            max_hunks: 2,
            max_hunk_lines: 2,
            ..Limits::default()
        };
        let three = Edit::Hunks((1..=3).map(|n| hunk(n, &[], &["x"])).collect());
        let error = apply(FIVE, &three, &limits).unwrap_err();
        assert!(matches!(&error, EditError::Malformed(m) if m.contains("3 hunks")));
        let long = Edit::Hunks(vec![hunk(1, &["one"], &["a", "b", "c"])]);
        let error = apply(FIVE, &long, &limits).unwrap_err();
        assert!(matches!(&error, EditError::Malformed(m) if m.contains("new has 3 lines")));
    }

    #[test]
    fn rejects_a_file_over_the_size_limit() {
        let limits = Limits {
            max_file_bytes: 10,
            ..Limits::default()
        };
        let edit = Edit::Hunks(vec![hunk(1, &["one"], &["1"])]);
        let error = apply(FIVE, &edit, &limits).unwrap_err();
        assert_eq!(
            error,
            EditError::TooLarge {
                bytes: FIVE.len(),
                limit: 10
            }
        );
        assert_eq!(error.code(), "FILE_TOO_LARGE");
    }

    #[test]
    fn rejects_a_result_over_the_size_limit() {
        let limits = Limits {
            max_result_bytes: FIVE.len() + 2,
            ..Limits::default()
        };
        let edit = Edit::Hunks(vec![hunk(1, &["one"], &["one", "two"])]);
        let error = apply(FIVE, &edit, &limits).unwrap_err();
        assert!(matches!(error, EditError::TooLarge { bytes, .. } if bytes == FIVE.len() + 4));
        let edit = Edit::Replace(Replace {
            old_string: "o".into(),
            new_string: "o".repeat(1_000_000),
            replace_all: true,
        });
        let error = apply(FIVE, &edit, &limits).unwrap_err();
        assert!(matches!(error, EditError::TooLarge { .. }));
    }

    #[test]
    fn replaces_a_unique_string() {
        let applied = replace(FIVE, "three", "3", false).unwrap();
        assert_eq!(applied.text, "one\ntwo\n3\nfour\nfive\n");
        assert_eq!(applied.replacements, 1);
        assert_eq!((applied.lines_removed, applied.lines_added), (1, 1));
    }

    #[test]
    fn rejects_old_string_not_found() {
        let error = replace(FIVE, "six", "6", false).unwrap_err();
        assert_eq!(error, EditError::NotFound);
        assert_eq!(error.code(), "STALE_CONTEXT");
    }

    #[test]
    fn rejects_non_unique_old_string_with_count() {
        let error = replace("a x a x a", "a", "b", false).unwrap_err();
        assert_eq!(error, EditError::NotUnique { count: 3 });
        assert_eq!(error.code(), "STALE_CONTEXT");
        assert!(error.to_string().contains("replace_all"));
    }

    #[test]
    fn replace_all_counts_replacements() {
        let applied = replace("a x a x a", "a", "bb", true).unwrap();
        assert_eq!(applied.text, "bb x bb x bb");
        assert_eq!(applied.replacements, 3);
        // Occurrences do not overlap: "aaa" holds one "aa".
        assert_eq!(replace("aaa", "aa", "b", true).unwrap().replacements, 1);
    }

    #[test]
    fn old_string_may_span_lines_and_endings() {
        let applied = replace("a\r\nb\r\nc\r\n", "a\r\nb\r\n", "ab\r\n", false).unwrap();
        assert_eq!(applied.text, "ab\r\nc\r\n");
        assert_eq!((applied.lines_removed, applied.lines_added), (2, 1));
        let applied = replace("a\rb\n", "a\rb", "ab", false).unwrap();
        assert_eq!(applied.text, "ab\n");
    }

    #[test]
    fn rejects_empty_and_identity_replacements() {
        assert!(is_malformed(
            replace(FIVE, "", "x", false),
            "old_string is empty"
        ));
        assert!(is_malformed(replace(FIVE, "two", "two", false), "the same"));
        assert_eq!(
            replace(FIVE, "two", "two", true).unwrap_err().code(),
            "MALFORMED_PATCH"
        );
    }

    #[test]
    fn digest_is_hex_sha256() {
        assert_eq!(
            digest(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_ne!(digest("a\n"), digest("a\r\n"));
    }

    #[test]
    fn deserialises_both_forms_from_tool_arguments() {
        let edit: Edit = serde_json::from_str(
            r#"{"hunks": [{"start_line": 2, "old": ["two"], "new": ["2"]},
                          {"start_line": 1, "new": ["zero"]}]}"#,
        )
        .unwrap();
        assert_eq!(
            edit,
            Edit::Hunks(vec![hunk(2, &["two"], &["2"]), hunk(1, &[], &["zero"])])
        );
        let edit: Edit = serde_json::from_str(r#"{"old_string": "a", "new_string": "b"}"#).unwrap();
        assert_eq!(
            edit,
            Edit::Replace(Replace {
                old_string: "a".into(),
                new_string: "b".into(),
                replace_all: false
            })
        );
    }

    #[test]
    fn rejects_mixed_incomplete_and_unknown_arguments() {
        let refused = |json: &str| serde_json::from_str::<Edit>(json).unwrap_err().to_string();
        assert!(
            refused(r#"{"hunks": [], "old_string": "a", "new_string": "b"}"#).contains("not both")
        );
        assert!(refused(r#"{"hunks": [], "replace_all": true}"#).contains("not both"));
        assert!(refused(r#"{"old_string": "a"}"#).contains("`new_string` is missing"));
        assert!(refused(r#"{"new_string": "a"}"#).contains("`old_string` is missing"));
        assert!(refused(r#"{}"#).contains("give `hunks`"));
        assert!(
            refused(r#"{"old_string": "a", "new_string": "b", "all": true}"#)
                .contains("unknown field")
        );
        assert!(
            refused(r#"{"hunks": [{"start_line": 1, "lines": []}]}"#).contains("unknown field")
        );
    }

    #[test]
    fn embeds_in_a_caller_struct_that_also_has_a_path() {
        #[derive(Deserialize)]
        struct EditFile {
            path: String,
            #[serde(flatten)]
            edit: Edit,
        }
        let args: EditFile = serde_json::from_str(
            r#"{"path": "src/main.rs", "old_string": "a", "new_string": "b", "replace_all": true}"#,
        )
        .unwrap();
        assert_eq!(args.path, "src/main.rs");
        assert!(matches!(
            args.edit,
            Edit::Replace(Replace {
                replace_all: true,
                ..
            })
        ));
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// Lines without breaks, each with its own ending (LF or CRLF), and whether the text
        /// ends with a terminator.
        fn text_lines(crlf_weight: u32) -> impl Strategy<Value = (Vec<(String, bool)>, bool)> {
            let line = (
                "[a-c \t{}é]{0,6}",
                prop::bool::weighted(f64::from(crlf_weight) / 100.0),
            );
            (prop::collection::vec(line, 1..12), any::<bool>())
        }

        fn join(lines: &[(String, bool)], trailing: bool) -> String {
            let mut text = String::new();
            for (index, (content, crlf)) in lines.iter().enumerate() {
                text.push_str(content);
                if index + 1 < lines.len() || trailing {
                    text.push_str(if *crlf { "\r\n" } else { "\n" });
                }
            }
            text
        }

        fn identity_hunk_restores(
            lines: &[(String, bool)],
            trailing: bool,
            i: usize,
            j: usize,
        ) -> Result<(), TestCaseError> {
            // A bare empty last line is no line at all: "a\n" is one line, not two.
            let trailing = trailing || lines.last().is_some_and(|(content, _)| content.is_empty());
            let text = join(lines, trailing);
            let (i, j) = (i % lines.len(), j % lines.len());
            let (from, to) = (i.min(j), i.max(j) + 1);
            let same: Vec<String> = lines[from..to].iter().map(|(c, _)| c.clone()).collect();
            let edit = Edit::Hunks(vec![Hunk {
                start_line: from + 1,
                old: same.clone(),
                new: same,
            }]);
            let applied = apply(&text, &edit, &Limits::default());
            prop_assert_eq!(applied.map(|a| a.text), Ok(text));
            Ok(())
        }

        proptest! {
            #[test]
            fn identity_hunk_gives_back_an_lf_text(
                (lines, trailing) in text_lines(0), i in 0usize..12, j in 0usize..12
            ) {
                identity_hunk_restores(&lines, trailing, i, j)?;
            }

            #[test]
            fn identity_hunk_gives_back_a_crlf_text(
                (lines, trailing) in text_lines(100), i in 0usize..12, j in 0usize..12
            ) {
                identity_hunk_restores(&lines, trailing, i, j)?;
            }

            #[test]
            fn identity_hunk_gives_back_a_mixed_text(
                (lines, trailing) in text_lines(50), i in 0usize..12, j in 0usize..12
            ) {
                identity_hunk_restores(&lines, trailing, i, j)?;
            }

            #[test]
            fn replacing_a_unique_substring_there_and_back_restores_the_text(
                text in "[ab\r\n ]{1,40}", from in 0usize..40, len in 1usize..8
            ) {
                let from = from % text.len();
                let to = (from + len).min(text.len());
                let sub = &text[from..to];
                prop_assume!(text.matches(sub).count() == 1);
                let same = replace(&text, sub, sub, false);
                prop_assert!(matches!(same, Err(EditError::Malformed(_))));
                let marked = format!("<{sub}>");
                let there = replace(&text, sub, &marked, false).map(|a| a.text);
                prop_assert!(there.is_ok());
                let back = replace(&there.unwrap_or_default(), &marked, sub, false);
                prop_assert_eq!(back.map(|a| a.text), Ok(text));
            }
        }
    }
}
