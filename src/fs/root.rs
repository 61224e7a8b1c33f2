//! The workspace root as an open directory, and every path resolved beneath it.
//!
//! A [`Root`] holds one descriptor of the workspace, opened at start-up. A [`RelPath`] is
//! checked text: relative, non-empty, made of normal components (no `..`, no `.`, no empty
//! component, no NUL), within a depth and a length. Opening goes through `openat2` with
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS` from the root's descriptor;
//! where the kernel lacks `openat2`, a component-by-component walk with `O_NOFOLLOW` from the
//! same descriptor does the same. Either way no symlink is followed at any step, so replacing a
//! directory with a link between a check and a use cannot redirect the operation: the open
//! fails instead.

use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

use super::FsError;

/// Components allowed in one path.
pub const MAX_DEPTH: usize = 64;
/// Bytes allowed in one path.
pub const MAX_PATH_BYTES: usize = 4096;

/// A checked workspace-relative path.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelPath {
    parts: Vec<String>,
}

impl RelPath {
    /// Checks a path as an agent gave it.
    pub fn parse(text: &str) -> Result<RelPath, FsError> {
        let reject = |why: &str| FsError::PathRejected {
            path: text.chars().take(200).collect(),
            why: why.to_string(),
        };
        if text.is_empty() {
            return Err(reject("the path is empty"));
        }
        if text.len() > MAX_PATH_BYTES {
            return Err(reject("the path is too long"));
        }
        if text.contains('\0') {
            return Err(reject("the path contains a NUL byte"));
        }
        if text.starts_with('/') {
            return Err(reject(
                "absolute paths are not accepted: give the path relative to the workspace root",
            ));
        }
        if text.starts_with('~') {
            return Err(reject(
                "`~` is not expanded: give the path relative to the workspace root",
            ));
        }
        let mut parts = Vec::new();
        for part in text.split('/') {
            match part {
                // `a//b` and a trailing `/` are tolerated; `.` means nothing here.
                "" | "." => continue,
                ".." => {
                    return Err(reject(
                        "`..` is not accepted: paths stay beneath the workspace",
                    ));
                }
                other => parts.push(other.to_string()),
            }
        }
        if parts.len() > MAX_DEPTH {
            return Err(reject("the path is too deep"));
        }
        Ok(RelPath { parts })
    }

    /// The workspace root itself.
    pub fn root() -> RelPath {
        RelPath { parts: Vec::new() }
    }

    pub fn is_root(&self) -> bool {
        self.parts.is_empty()
    }

    pub fn components(&self) -> &[String] {
        &self.parts
    }

    /// The parent directory and the last component (None for the root).
    pub fn split_last(&self) -> Option<(RelPath, &str)> {
        let (last, rest) = self.parts.split_last()?;
        Some((
            RelPath {
                parts: rest.to_vec(),
            },
            last,
        ))
    }

    /// This path with one more component (a name read from a directory).
    pub fn join(&self, name: &str) -> RelPath {
        let mut parts = self.parts.clone();
        parts.push(name.to_string());
        RelPath { parts }
    }

    /// The path as text, `.` for the root.
    pub fn as_text(&self) -> String {
        if self.parts.is_empty() {
            ".".into()
        } else {
            self.parts.join("/")
        }
    }

    fn as_open_arg(&self) -> String {
        self.as_text()
    }
}

impl std::fmt::Display for RelPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.as_text())
    }
}

/// The workspace, held open.
#[derive(Debug)]
pub struct Root {
    fd: OwnedFd,
    path: PathBuf,
    /// Whether the kernel has `openat2` (else the walk is used).
    openat2: bool,
}

impl Root {
    /// Opens the workspace directory (which must not itself be a symlink).
    pub fn new(workspace: &Path) -> Result<Root, FsError> {
        let fd = rustix::fs::open(
            workspace,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| FsError::io(&workspace.display().to_string(), e))?;
        let openat2 = !matches!(
            rustix::fs::openat2(
                &fd,
                ".",
                OFlags::PATH | OFlags::CLOEXEC,
                Mode::empty(),
                ResolveFlags::BENEATH,
            ),
            Err(Errno::NOSYS)
        );
        Ok(Root {
            fd,
            path: workspace.to_path_buf(),
            openat2,
        })
    }

    /// Forces the component walk (to test the fallback where the kernel has `openat2`).
    pub fn without_openat2(mut self) -> Root {
        self.openat2 = false;
        self
    }

    /// The workspace path this root was opened from (for messages and for tools that need a
    /// path, such as the search walker, whose findings are then reopened through the root).
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Opens `rel` beneath the root without following any symlink on the way or at the end.
    pub fn open(&self, rel: &RelPath, flags: OFlags, mode: Mode) -> Result<OwnedFd, FsError> {
        let flags = flags | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        let text = rel.as_open_arg();
        if self.openat2 {
            let resolve =
                ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
            return match rustix::fs::openat2(&self.fd, text.as_str(), flags, mode, resolve) {
                Err(Errno::AGAIN | Errno::INTR) => {
                    // The kernel asks to retry when a rename raced the lookup.
                    rustix::fs::openat2(&self.fd, text.as_str(), flags, mode, resolve)
                        .map_err(|e| self.classify(rel, e))
                }
                other => other.map_err(|e| self.classify(rel, e)),
            };
        }
        self.walk(rel, flags, mode)
    }

    /// The fallback: one `openat(O_NOFOLLOW)` per component from the root's descriptor.
    fn walk(&self, rel: &RelPath, flags: OFlags, mode: Mode) -> Result<OwnedFd, FsError> {
        let Some((last, dirs)) = rel.parts.split_last() else {
            return rustix::fs::openat(&self.fd, ".", flags, mode)
                .map_err(|e| self.classify(rel, e));
        };
        let mut dir: Option<OwnedFd> = None;
        for part in dirs {
            let base = dir.as_ref().map_or(self.fd.as_fd(), |d| d.as_fd());
            let next = rustix::fs::openat(
                base,
                part.as_str(),
                OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|e| self.classify(rel, e))?;
            dir = Some(next);
        }
        let base = dir.as_ref().map_or(self.fd.as_fd(), |d| d.as_fd());
        rustix::fs::openat(base, last.as_str(), flags, mode).map_err(|e| self.classify(rel, e))
    }

    /// Opens a directory beneath the root for use as the base of `*at` calls.
    pub fn open_dir(&self, rel: &RelPath) -> Result<OwnedFd, FsError> {
        self.open(rel, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty())
    }

    /// The status of `rel` itself (a symlink is reported as one, never followed).
    pub fn stat(&self, rel: &RelPath) -> Result<rustix::fs::Stat, FsError> {
        let Some((parent, name)) = rel.split_last() else {
            return rustix::fs::fstat(&self.fd).map_err(|e| self.classify(rel, e));
        };
        let dir = self.open(&parent, OFlags::PATH | OFlags::DIRECTORY, Mode::empty())?;
        rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW).map_err(|e| self.classify(rel, e))
    }

    /// Turns an errno from resolving `rel` into a typed failure.
    pub fn classify(&self, rel: &RelPath, e: Errno) -> FsError {
        let path = rel.as_text();
        match e {
            Errno::NOENT => FsError::NotFound { path },
            // ELOOP: a symlink on the way (NO_SYMLINKS) or at the end (O_NOFOLLOW).
            Errno::LOOP | Errno::XDEV => FsError::PathRejected {
                why: "a symbolic link is on the way: links are not followed".into(),
                path,
            },
            Errno::NOTDIR => FsError::PathRejected {
                why: "a component of the path is not a directory".into(),
                path,
            },
            Errno::ISDIR => FsError::NotARegularFile {
                path,
                kind: "directory",
            },
            Errno::NAMETOOLONG => FsError::PathRejected {
                why: "a component of the path is too long".into(),
                path,
            },
            other => FsError::io(&path, other),
        }
    }
}

/// What kind of file a mode says.
pub fn kind_of(mode: u32) -> &'static str {
    match rustix::fs::FileType::from_raw_mode(mode) {
        rustix::fs::FileType::RegularFile => "file",
        rustix::fs::FileType::Directory => "directory",
        rustix::fs::FileType::Symlink => "symlink",
        rustix::fs::FileType::Fifo => "fifo",
        rustix::fs::FileType::Socket => "socket",
        rustix::fs::FileType::CharacterDevice => "character device",
        rustix::fs::FileType::BlockDevice => "block device",
        rustix::fs::FileType::Unknown => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_must_be_relative_and_plain() {
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../b",
            "a/..",
            "~/.ssh/id_rsa",
            "a\0b",
        ] {
            assert!(
                matches!(RelPath::parse(bad), Err(FsError::PathRejected { .. })),
                "{bad:?}"
            );
        }
        let deep = vec!["d"; MAX_DEPTH + 1].join("/");
        assert!(RelPath::parse(&deep).is_err());
        assert_eq!(
            RelPath::parse("./src//main.rs/").expect("ok").as_text(),
            "src/main.rs"
        );
        assert!(RelPath::parse(".").expect("ok").is_root());
    }

    fn tree() -> (tempfile::TempDir, Root) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
        std::fs::write(dir.path().join("src/a.txt"), "a").expect("write");
        std::os::unix::fs::symlink("/etc", dir.path().join("etc-link")).expect("link");
        std::os::unix::fs::symlink("a.txt", dir.path().join("src/a-link")).expect("link");
        let root = Root::new(dir.path()).expect("root");
        (dir, root)
    }

    #[test]
    fn no_symlink_is_followed_with_openat2_or_with_the_walk() {
        let (dir, root) = tree();
        let walk = Root::new(dir.path()).expect("root").without_openat2();
        for r in [&root, &walk] {
            let ok = RelPath::parse("src/a.txt").expect("path");
            assert!(r.open(&ok, OFlags::RDONLY, Mode::empty()).is_ok());
            for through_link in ["etc-link/passwd", "src/a-link", "etc-link"] {
                let rel = RelPath::parse(through_link).expect("path");
                let e = r
                    .open(&rel, OFlags::RDONLY, Mode::empty())
                    .expect_err(through_link);
                assert!(
                    matches!(e, FsError::PathRejected { .. }),
                    "{through_link}: {e:?}"
                );
            }
            let missing = RelPath::parse("src/none").expect("path");
            assert!(matches!(
                r.open(&missing, OFlags::RDONLY, Mode::empty()),
                Err(FsError::NotFound { .. })
            ));
        }
        let link = root
            .stat(&RelPath::parse("etc-link").expect("path"))
            .expect("stat");
        assert_eq!(kind_of(link.st_mode), "symlink");
    }
}
