//! Path targets: where a word points on the real filesystem, and what kind of place that is.
//!
//! Invariants: relative paths are resolved against the tracked cwd (an unknown cwd makes them
//! dynamic); the directory part of a path is resolved through symlinks the way the kernel will
//! (so `link/../x` and `link/x` land where they really land); the last component is kept as is,
//! because `rm link` removes the link — unless it ends in `/`, which follows it.

use std::path::{Component, Path, PathBuf};

use crate::shell::{Context, Value, Word};

/// What kind of place a target is, from the workspace's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// Inside the workspace (not the root itself).
    Inside,
    WorkspaceRoot,
    /// `/`.
    Root,
    /// The home directory or one of its ancestors (`/home`, `/root`).
    Home,
    /// A system directory or anything under it (`/etc`, `/usr`, …).
    System,
    /// A block or character device that stores data.
    Device,
    /// `/dev/null`, `/dev/stdout`, terminals: writing there touches nothing.
    Sink,
    /// A scratch directory (`/tmp`, `/var/tmp`, `/dev/shm`).
    Scratch,
    /// Anywhere else outside the workspace.
    Outside,
    /// Depends on variables, substitutions or an unknown cwd.
    Dynamic,
}

/// A resolved target.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Resolved {
    /// As written (raw word).
    pub written: String,
    /// Absolute path after resolution (None when dynamic).
    pub path: Option<PathBuf>,
    pub place: Place,
    /// Unquoted glob characters in the word.
    pub glob: bool,
    /// The glob's last component has no literal character (`*`, `.*`, `?`).
    pub bare_glob: bool,
    /// The word contains a `..` component.
    pub traversal: bool,
    pub exists: bool,
    /// For a dynamic word: what it would say if its substitutions of known text (`$(echo .env)`)
    /// produce that text. Used to see secrets through them; never to allow a deletion.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub known_texts: Vec<String>,
}

const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/proc",
    "/run",
    "/sbin",
    "/snap",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/root",
    "/home",
    "/mnt",
    "/media",
    "/lost+found",
    "/nix",
    "/private",
    "/System",
    "/Library",
    "/Applications",
    "/Users",
    "/Volumes",
    "/cdrom",
    "/selinux",
];

const SCRATCH_DIRS: &[&str] = &["/tmp", "/var/tmp", "/dev/shm"];

const SINKS: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/stdin",
    "/dev/tty",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

const DEVICE_PREFIXES: &[&str] = &[
    "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "md", "dm-", "loop", "sr", "fd", "nbd", "zd", "rbd",
    "disk", "mapper/", "disk/", "mem", "kmem", "port",
];

/// Real (symlink-free) form of the workspace, computed once per context.
pub fn real_workspace(ctx: &Context) -> PathBuf {
    std::fs::canonicalize(&ctx.workspace).unwrap_or_else(|_| ctx.workspace.clone())
}

/// Resolves a word used as a path target.
pub fn resolve(word: &Word, cwd: &Option<PathBuf>, ctx: &Context, workspace: &Path) -> Resolved {
    let home = ctx.home.to_string_lossy();
    let glob = word.has_glob();
    let value = word.value(&home);
    let text = match &value {
        Value::Literal(t) | Value::Pattern(t) => t.clone(),
        // `tee >(wc -c)`: a process substitution is a pipe to code walked elsewhere, not a file.
        Value::Dynamic
            if !word.parts.is_empty()
                && word
                    .parts
                    .iter()
                    .all(|p| matches!(p, crate::shell::Part::ProcSubst { .. })) =>
        {
            let mut pipe = dynamic(word);
            pipe.place = Place::Sink;
            return pipe;
        }
        Value::Dynamic => return dynamic(word),
    };
    let absolute = if text.starts_with('/') {
        PathBuf::from(&text)
    } else {
        match cwd {
            Some(cwd) => cwd.join(&text),
            None => return dynamic(word),
        }
    };
    let traversal = Path::new(&text)
        .components()
        .any(|c| c == Component::ParentDir);
    let last = text.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let bare_glob = glob
        && !last.is_empty()
        && last
            .chars()
            .all(|c| matches!(c, '*' | '?' | '.' | '[' | ']'));
    let follow_last = text.ends_with('/') || text.ends_with("/.");
    let path = real_path(&absolute, follow_last);
    let exists = std::fs::symlink_metadata(&path).is_ok();
    let place = place_of(&path, ctx, workspace);
    Resolved {
        written: word.raw.clone(),
        path: Some(path),
        place,
        glob,
        bare_glob,
        traversal,
        exists,
        known_texts: Vec::new(),
    }
}

fn dynamic(word: &Word) -> Resolved {
    Resolved {
        written: word.raw.clone(),
        path: None,
        place: Place::Dynamic,
        glob: word.has_glob(),
        bare_glob: false,
        traversal: false,
        exists: false,
        known_texts: known_texts(word),
    }
}

/// The texts a word could take when its command substitutions print known text: each printed
/// token, and the whole word when every dynamic part is such a substitution.
fn known_texts(word: &Word) -> Vec<String> {
    use crate::shell::{Part, Source};
    let mut whole = String::new();
    let mut complete = true;
    let mut texts = Vec::new();
    for part in &word.parts {
        match part {
            Part::Lit { text, .. } => whole.push_str(text),
            Part::Home => whole.push('~'),
            Part::CommandSubst {
                origin: Source::Literal(out),
                ..
            }
            | Part::ProcSubst {
                origin: Source::Literal(out),
                ..
            } => {
                let out = out.trim_end_matches('\n');
                whole.push_str(out);
                texts.extend(out.split_whitespace().map(str::to_string));
            }
            _ => complete = false,
        }
    }
    if complete && !texts.is_empty() {
        texts.push(whole);
    }
    texts
}

/// Resolves the directory part through the real filesystem, keeping the last component unless
/// `follow_last`; missing components are appended lexically.
pub fn real_path(absolute: &Path, follow_last: bool) -> PathBuf {
    let lexical = lexical_components(absolute);
    if lexical.is_empty() {
        return PathBuf::from("/");
    }
    // Kernel semantics: walk component by component, following symlinks of directories.
    let mut current = PathBuf::from("/");
    let comps: Vec<Component> = absolute.components().collect();
    let n = comps.len();
    for (i, comp) in comps.iter().enumerate() {
        let is_last = i + 1 == n;
        match comp {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                current.pop();
            }
            Component::Normal(name) => {
                let next = current.join(name);
                if is_last && !follow_last {
                    return next;
                }
                current = match std::fs::symlink_metadata(&next) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        std::fs::canonicalize(&next).unwrap_or(next)
                    }
                    _ => next,
                };
            }
        }
    }
    current
}

fn lexical_components(path: &Path) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for comp in path.components() {
        match comp {
            Component::Normal(c) => out.push(c.to_string_lossy().into_owned()),
            Component::ParentDir => {
                out.pop();
            }
            _ => {}
        }
    }
    out
}

/// Classifies an absolute, resolved path.
pub fn place_of(path: &Path, ctx: &Context, workspace: &Path) -> Place {
    let s = path.to_string_lossy();
    if s == "/" {
        return Place::Root;
    }
    if path == workspace {
        return Place::WorkspaceRoot;
    }
    if path.starts_with(workspace) {
        return Place::Inside;
    }
    if SINKS.contains(&s.as_ref())
        || s.starts_with("/dev/fd/")
        || s.starts_with("/dev/pts/")
        || s.starts_with("/dev/tty")
        || s.starts_with("/proc/self/fd/")
    {
        return Place::Sink;
    }
    if let Some(dev) = s.strip_prefix("/dev/") {
        if DEVICE_PREFIXES.iter().any(|p| dev.starts_with(p)) {
            return Place::Device;
        }
        return Place::System;
    }
    let home = std::fs::canonicalize(&ctx.home).unwrap_or_else(|_| ctx.home.clone());
    if path == home || home.starts_with(path) || path == ctx.home || ctx.home.starts_with(path) {
        return Place::Home;
    }
    if SCRATCH_DIRS
        .iter()
        .any(|d| path.starts_with(d) && path != Path::new(d))
    {
        return Place::Scratch;
    }
    if path.starts_with(&home) || path.starts_with(&ctx.home) {
        return Place::Outside;
    }
    if SYSTEM_DIRS.iter().any(|d| path.starts_with(d))
        || SCRATCH_DIRS.iter().any(|d| path == Path::new(d))
    {
        return Place::System;
    }
    Place::Outside
}

/// Matches a bash glob pattern (`*`, `?`, `[…]`, `\` escapes) against a name.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Leading dots must be matched explicitly, as bash does without dotglob.
    if n.first() == Some(&'.')
        && p.first() != Some(&'.')
        && !(p.first() == Some(&'\\') && p.get(1) == Some(&'.'))
    {
        return false;
    }
    glob_rec(&p, &n)
}

fn glob_rec(p: &[char], n: &[char]) -> bool {
    // Iterative with single backtrack point for `*`: linear in practice.
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ni));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, len)) = class_match(&p[pi..], n[ni])
                        && matched
                    {
                        pi += len;
                        ni += 1;
                        continue;
                    }
                }
                '\\' if pi + 1 < p.len() => {
                    if p[pi + 1] == n[ni] {
                        pi += 2;
                        ni += 1;
                        continue;
                    }
                }
                c => {
                    if c == n[ni] {
                        pi += 1;
                        ni += 1;
                        continue;
                    }
                }
            }
        }
        match star {
            Some((sp, sn)) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// Matches a `[…]` class at the start of `p`; returns (matched, pattern length).
fn class_match(p: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(p.get(1), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while i < p.len() {
        if p[i] == ']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
            if p[i] <= c && c <= p[i + 2] {
                matched = true;
            }
            i += 3;
        } else {
            if p[i] == c {
                matched = true;
            }
            i += 1;
        }
    }
    None
}

/// Expands a glob against the real filesystem (one directory level, bounded).
pub fn expand_glob(pattern_abs: &Path) -> Vec<PathBuf> {
    let Some(parent) = pattern_abs.parent() else {
        return Vec::new();
    };
    let Some(name_pattern) = pattern_abs
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
    else {
        return Vec::new();
    };
    if parent.to_string_lossy().contains(['*', '?', '[']) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    entries
        .take(10_000)
        .filter_map(Result::ok)
        .filter(|e| glob_match(&name_pattern, &e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matching_follows_bash_rules() {
        assert!(glob_match("*.pem", "server.pem"));
        assert!(glob_match(".e*", ".env"));
        assert!(!glob_match("*", ".env"));
        assert!(glob_match("[ab]*", "b.txt"));
        assert!(!glob_match("\\*", "x"));
        assert!(glob_match("a*b*c", "aXbYc"));
        assert!(!glob_match("a*b*c", "aXbY"));
    }

    #[test]
    fn directory_symlinks_are_followed_but_not_the_last_component() {
        let dir = tempfile::tempdir().expect("tempdir");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("/etc", &link).expect("symlink");
        assert_eq!(
            real_path(&link.join("passwd"), false),
            PathBuf::from("/etc/passwd")
        );
        assert_eq!(real_path(&link, false), link);
        assert_eq!(real_path(&link, true), PathBuf::from("/etc"));
        assert_eq!(
            real_path(&link.join("..").join("x"), false),
            PathBuf::from("/x")
        );
    }
}
