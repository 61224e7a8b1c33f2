//! `list_dir`: the entries of a directory, to a depth, bounded in number.
//!
//! Each directory is opened beneath the root (never through a link) and read from its own
//! descriptor; links are listed as links and not descended. With `gitignore`, the
//! `.gitignore` files met on the way (read through the root as well) hide what they ignore,
//! and `.git` is skipped.

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::{FsError, RelPath, Root};

/// The deepest listing a request may ask for.
pub const MAX_DEPTH: usize = 8;
/// Entries returned when the request gives no bound.
pub const DEFAULT_MAX_ENTRIES: usize = 500;
/// The largest bound a request may ask for.
pub const MAX_MAX_ENTRIES: usize = 10_000;
/// The largest `.gitignore` read.
const MAX_GITIGNORE: u64 = 1024 * 1024;

/// One entry.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Entry {
    pub path: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// A listing.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Listing {
    pub entries: Vec<Entry>,
    /// Whether the bound cut the listing.
    pub truncated: bool,
}

/// Lists `rel` to `depth` levels (1: its entries only), at most `max` entries, directories
/// before their contents, names sorted.
pub fn list(
    root: &Root,
    rel: &RelPath,
    depth: usize,
    max: usize,
    gitignore: bool,
) -> Result<Listing, FsError> {
    let st = root.stat(rel)?;
    let kind = super::root::kind_of(st.st_mode);
    if kind != "directory" {
        return Err(FsError::PathRejected {
            path: rel.as_text(),
            why: format!("a {kind}, not a directory: list its parent, or read it"),
        });
    }
    let mut out = Listing {
        entries: Vec::new(),
        truncated: false,
    };
    let mut ignores: Vec<(RelPath, Gitignore)> = Vec::new();
    if gitignore {
        // The .gitignore files of the directories above the listed one apply too.
        let mut at = RelPath::root();
        load_gitignore(root, &at, &mut ignores);
        for part in rel.components() {
            at = at.join(part);
            load_gitignore(root, &at, &mut ignores);
        }
    }
    walk(
        root,
        rel,
        depth.clamp(1, MAX_DEPTH),
        max,
        gitignore,
        &mut ignores,
        &mut out,
    )?;
    Ok(out)
}

fn load_gitignore(root: &Root, dir: &RelPath, ignores: &mut Vec<(RelPath, Gitignore)>) {
    let file = dir.join(".gitignore");
    let Ok((bytes, _)) = super::read::read_all(root, &file, MAX_GITIGNORE) else {
        return;
    };
    let mut builder = GitignoreBuilder::new(root.path().join(dir.as_text()));
    for line in String::from_utf8_lossy(&bytes).lines() {
        let _ = builder.add_line(None, line);
    }
    if let Ok(matcher) = builder.build() {
        ignores.push((dir.clone(), matcher));
    }
}

fn ignored(ignores: &[(RelPath, Gitignore)], root: &Root, rel: &RelPath, is_dir: bool) -> bool {
    let path = root.path().join(rel.as_text());
    // The deepest .gitignore with an opinion decides.
    for (_, matcher) in ignores.iter().rev() {
        let m = matcher.matched(&path, is_dir);
        if m.is_ignore() {
            return true;
        }
        if m.is_whitelist() {
            return false;
        }
    }
    false
}

fn walk(
    root: &Root,
    dir_rel: &RelPath,
    depth: usize,
    max: usize,
    gitignore: bool,
    ignores: &mut Vec<(RelPath, Gitignore)>,
    out: &mut Listing,
) -> Result<(), FsError> {
    let dir = root.open_dir(dir_rel)?;
    let mut names: Vec<(String, rustix::fs::FileType)> = rustix::fs::Dir::read_from(&dir)
        .map_err(|e| root.classify(dir_rel, e))?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_str().ok()?.to_string();
            (name != "." && name != "..").then_some((name, e.file_type()))
        })
        .collect();
    names.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, mut file_type) in names {
        if out.entries.len() >= max {
            out.truncated = true;
            return Ok(());
        }
        let rel = dir_rel.join(&name);
        let stat =
            rustix::fs::statat(&dir, name.as_str(), rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok();
        if let Some(st) = &stat {
            file_type = rustix::fs::FileType::from_raw_mode(st.st_mode);
        }
        let is_dir = file_type == rustix::fs::FileType::Directory;
        if gitignore && (name == ".git" || ignored(ignores, root, &rel, is_dir)) {
            continue;
        }
        let kind = super::root::kind_of(file_type.as_raw_mode());
        out.entries.push(Entry {
            path: rel.as_text(),
            kind,
            size: (kind == "file")
                .then(|| stat.map(|s| u64::try_from(s.st_size).unwrap_or(0)))
                .flatten(),
        });
        if is_dir && depth > 1 {
            let pushed = gitignore && {
                let before = ignores.len();
                load_gitignore(root, &rel, ignores);
                ignores.len() > before
            };
            // A directory swapped for a link meanwhile fails to open: it is listed, not entered.
            match walk(root, &rel, depth - 1, max, gitignore, ignores, out) {
                Ok(()) | Err(FsError::PathRejected { .. } | FsError::NotFound { .. }) => {}
                Err(e) => return Err(e),
            }
            if pushed {
                ignores.pop();
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_listed_to_its_depth_without_entering_links() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path();
        std::fs::create_dir_all(p.join("src/deep")).expect("mkdir");
        std::fs::write(p.join("src/main.rs"), "fn main() {}").expect("write");
        std::fs::write(p.join("src/deep/x.rs"), "").expect("write");
        std::fs::write(p.join("build.log"), "log").expect("write");
        std::fs::write(p.join(".gitignore"), "*.log\n").expect("write");
        std::os::unix::fs::symlink("/etc", p.join("etc")).expect("link");
        let root = Root::new(p).expect("root");
        let all = list(&root, &RelPath::root(), 3, 100, false).expect("list");
        let paths: Vec<&str> = all.entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                ".gitignore",
                "build.log",
                "etc",
                "src",
                "src/deep",
                "src/deep/x.rs",
                "src/main.rs"
            ]
        );
        assert_eq!(all.entries[2].kind, "symlink");
        assert_eq!(all.entries[6].size, Some(12));
        let shallow = list(&root, &RelPath::root(), 1, 100, true).expect("list");
        let paths: Vec<&str> = shallow.entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, [".gitignore", "etc", "src"]);
        let bounded = list(&root, &RelPath::root(), 3, 2, false).expect("list");
        assert!(bounded.truncated && bounded.entries.len() == 2);
        assert!(matches!(
            list(&root, &RelPath::parse("etc").expect("p"), 1, 10, false),
            Err(FsError::PathRejected { .. })
        ));
    }
}
