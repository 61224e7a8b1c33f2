//! `search`: a regular expression (or a fixed string) across the workspace.
//!
//! The walk is ripgrep's own (`ignore`: `.gitignore`-aware, parallel, links not followed) and
//! so is the search (`grep-regex`, `grep-searcher`: binary files skipped). What the walker finds
//! is only a name: every file is then opened beneath the root like any other file-tool path,
//! so a directory swapped for a link during the walk cannot lead the search outside, and files
//! whose path is a secret are not searched at all.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, SearcherBuilder, sinks};
use ignore::{WalkBuilder, WalkState};

use super::{FsError, RelPath, Root};

/// Matches returned when the request gives no bound.
pub const DEFAULT_MAX_MATCHES: usize = 200;
/// The largest bound a request may ask for.
pub const MAX_MAX_MATCHES: usize = 5_000;
/// Characters of a matching line kept.
const MAX_LINE_CHARS: usize = 400;
/// Files larger than this are not searched.
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// What to look for.
#[derive(Clone, Debug)]
pub struct Query {
    pub pattern: String,
    pub fixed_string: bool,
    pub case_insensitive: bool,
    /// Beneath this directory (the root when None).
    pub path: Option<RelPath>,
    /// Only files whose name matches this glob (`*.rs`).
    pub glob: Option<String>,
    pub gitignore: bool,
    pub hidden: bool,
    pub max_matches: usize,
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Hit {
    pub path: String,
    pub line: u64,
    pub text: String,
}

/// The outcome of a search.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Found {
    pub matches: Vec<Hit>,
    pub files_searched: usize,
    /// Whether the bound cut the search short.
    pub truncated: bool,
    /// Files not searched because their path is a secret.
    pub secret_files_skipped: usize,
}

/// A query the regex engine refused.
#[derive(Debug, thiserror::Error)]
#[error("the pattern does not compile: {0}")]
pub struct BadPattern(pub String);

/// Searches the workspace.
pub fn search(
    root: &Root,
    query: &Query,
    threads: usize,
) -> Result<Result<Found, BadPattern>, FsError> {
    let matcher = match RegexMatcherBuilder::new()
        .case_insensitive(query.case_insensitive)
        .fixed_strings(query.fixed_string)
        .size_limit(1 << 20)
        .dfa_size_limit(8 << 20)
        .build(&query.pattern)
    {
        Ok(m) => m,
        Err(e) => return Ok(Err(BadPattern(e.to_string()))),
    };
    let start = query.path.clone().unwrap_or_else(RelPath::root);
    if !start.is_root() {
        let st = root.stat(&start)?;
        if super::root::kind_of(st.st_mode) != "directory" {
            return Err(FsError::PathRejected {
                path: start.as_text(),
                why: "not a directory: search beneath a directory".into(),
            });
        }
        // Opened beneath the root, so a link on the way is refused before the walk starts.
        root.open_dir(&start)?;
    }
    let base = root.path().to_path_buf();
    let mut walker = WalkBuilder::new(base.join(start.as_text()));
    walker
        .hidden(!query.hidden)
        .git_ignore(query.gitignore)
        .git_exclude(query.gitignore)
        .git_global(false)
        .ignore(query.gitignore)
        .parents(query.gitignore)
        .require_git(false)
        .follow_links(false)
        .threads(threads.max(1));
    if let Some(glob) = &query.glob {
        let mut overrides = ignore::overrides::OverrideBuilder::new(&base);
        overrides.add(glob).map_err(|e| FsError::PathRejected {
            path: glob.clone(),
            why: format!("not a glob: {e}"),
        })?;
        walker.overrides(overrides.build().map_err(|e| FsError::PathRejected {
            path: glob.clone(),
            why: format!("not a glob: {e}"),
        })?);
    }
    // `.git` is never searched.
    walker.filter_entry(|e| e.file_name() != ".git");
    let hits: Mutex<Vec<Hit>> = Mutex::new(Vec::new());
    let count = AtomicUsize::new(0);
    let files = AtomicUsize::new(0);
    let secrets = AtomicUsize::new(0);
    let truncated = AtomicBool::new(false);
    walker.build_parallel().run(|| {
        let matcher = matcher.clone();
        let mut searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(0))
            .line_number(true)
            .build();
        let (base, hits, count, files, secrets, truncated) =
            (&base, &hits, &count, &files, &secrets, &truncated);
        let max = query.max_matches;
        Box::new(move |entry| {
            if count.load(Ordering::Relaxed) >= max {
                truncated.store(true, Ordering::Relaxed);
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let Some(rel) = entry
                .path()
                .strip_prefix(base)
                .ok()
                .and_then(|p| p.to_str())
                .and_then(|p| RelPath::parse(p).ok())
            else {
                return WalkState::Continue;
            };
            if crate::classify::secrets::secret_kind(&rel.as_text()).is_some() {
                secrets.fetch_add(1, Ordering::Relaxed);
                return WalkState::Continue;
            }
            // Reopened beneath the root: no link anywhere on the way.
            let Ok((file, st)) = super::read::open_regular(root, &rel) else {
                return WalkState::Continue;
            };
            if u64::try_from(st.st_size).unwrap_or(u64::MAX) > MAX_FILE_BYTES {
                return WalkState::Continue;
            }
            files.fetch_add(1, Ordering::Relaxed);
            let path = rel.as_text();
            let mut local = Vec::new();
            let _ = searcher.search_file(
                &matcher,
                &file,
                sinks::Lossy(|line, text| {
                    if count.fetch_add(1, Ordering::Relaxed) >= max {
                        truncated.store(true, Ordering::Relaxed);
                        return Ok(false);
                    }
                    let text = text.trim_end_matches(['\n', '\r']);
                    let mut kept: String = text.chars().take(MAX_LINE_CHARS).collect();
                    if kept.len() < text.len() {
                        kept.push('…');
                    }
                    local.push(Hit {
                        path: path.clone(),
                        line,
                        text: kept,
                    });
                    Ok(true)
                }),
            );
            if !local.is_empty() {
                hits.lock().unwrap_or_else(|e| e.into_inner()).extend(local);
            }
            WalkState::Continue
        })
    });
    let mut matches = hits.into_inner().unwrap_or_else(|e| e.into_inner());
    matches.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
    matches.truncate(query.max_matches);
    Ok(Ok(Found {
        matches,
        files_searched: files.into_inner(),
        truncated: truncated.into_inner(),
        secret_files_skipped: secrets.into_inner(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pattern: &str) -> Query {
        Query {
            pattern: pattern.into(),
            fixed_string: false,
            case_insensitive: false,
            path: None,
            glob: None,
            gitignore: true,
            hidden: false,
            max_matches: 100,
        }
    }

    #[test]
    fn matches_come_from_the_workspace_only_and_never_from_secrets() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path();
        std::fs::create_dir_all(p.join("src")).expect("mkdir");
        std::fs::write(p.join("src/a.rs"), "fn needle() {}\nother\nneedle again\n").expect("w");
        std::fs::write(p.join(".env"), "NEEDLE=needle-secret\n").expect("w");
        std::fs::write(p.join("ignored.log"), "needle in a log\n").expect("w");
        std::fs::write(p.join(".gitignore"), "*.log\n").expect("w");
        std::fs::write(p.join("bin.dat"), b"needle\0\x01").expect("w");
        let outside = tempfile::tempdir().expect("outside");
        std::fs::write(outside.path().join("host.txt"), "needle on the host\n").expect("w");
        std::os::unix::fs::symlink(outside.path(), p.join("linked")).expect("link");
        let root = Root::new(p).expect("root");
        let mut q = query("needle");
        q.hidden = true;
        let found = search(&root, &q, 2).expect("search").expect("pattern");
        let got: Vec<(String, u64)> = found
            .matches
            .iter()
            .map(|h| (h.path.clone(), h.line))
            .collect();
        assert_eq!(
            got,
            [("src/a.rs".to_string(), 1), ("src/a.rs".to_string(), 3)]
        );
        assert_eq!(found.secret_files_skipped, 1);
        q.gitignore = false;
        let found = search(&root, &q, 1).expect("search").expect("pattern");
        assert!(found.matches.iter().any(|h| h.path == "ignored.log"));
        assert!(
            !found
                .matches
                .iter()
                .any(|h| h.text.contains("host") || h.text.contains("secret"))
        );
        let mut fixed = query("fn needle()");
        fixed.fixed_string = true;
        assert_eq!(
            search(&root, &fixed, 1)
                .expect("s")
                .expect("p")
                .matches
                .len(),
            1
        );
        assert!(search(&root, &query("(unclosed"), 1).expect("s").is_err());
        let mut bounded = query("needle");
        bounded.max_matches = 1;
        let found = search(&root, &bounded, 1).expect("s").expect("p");
        assert!(found.truncated && found.matches.len() == 1);
    }
}
