//! Atomic, checked writes beneath the root.
//!
//! The new content goes to a private sibling (created exclusively, never through a link),
//! which is fsynced; then the target is checked to be what the request saw (the same file by
//! device and inode, and for edits the same content — or still absent), and the sibling is
//! published in one step: `renameat2(RENAME_NOREPLACE)` for a new file,
//! `renameat2(RENAME_EXCHANGE)` for an existing one, after which the file swapped out is checked
//! once more and, if it is not the one the request read, swapped back. The directory is fsynced
//! last. A crash at any moment leaves the old content or the new, never a mix (at worst a
//! stray `.NAME.warden-*.tmp` sibling).

use std::io::Write;
use std::os::fd::OwnedFd;

use rustix::fs::{AtFlags, Mode, OFlags, RenameFlags};
use rustix::io::Errno;

use super::{FsError, RelPath, Root};

/// What the target must still be when the new content is published.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Whatever it is when the write starts (a plain overwrite or a creation).
    Current,
    /// Nothing: the write only creates.
    Absent,
    /// This very file, with this content (an edit of what was read).
    Same { dev: u64, ino: u64, sha256: String },
}

/// What a write did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub created: bool,
    pub bytes: u64,
}

/// The limit on content that is backed up.
pub const MAX_BACKUP_BYTES: u64 = 8 * 1024 * 1024;

use crate::output::sha256_hex;

/// `YYYYMMDDTHHMMSSZ` of Unix seconds: the suffix of a backup's name.
pub fn backup_stamp(secs: u64) -> String {
    crate::audit::utc(secs)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect()
}

/// The directory that holds `rel`, opened beneath the root; created (each level beneath the
/// root, never through a link) when `create` is set.
fn parent_dir(root: &Root, parent: &RelPath, create: bool) -> Result<OwnedFd, FsError> {
    match root.open_dir(parent) {
        Err(FsError::NotFound { .. }) if create => {
            let mut at = RelPath::root();
            for part in parent.components() {
                let dir = root.open_dir(&at)?;
                match rustix::fs::mkdirat(&dir, part.as_str(), Mode::from_raw_mode(0o755)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(root.classify(&at.join(part), e)),
                }
                at = at.join(part);
            }
            root.open_dir(parent)
        }
        other => other,
    }
}

/// The target's identity, if it exists; refuses links, non-regular files and hard links.
fn identity(
    root: &Root,
    dir: &OwnedFd,
    rel: &RelPath,
    name: &str,
) -> Result<Option<rustix::fs::Stat>, FsError> {
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Err(Errno::NOENT) => Ok(None),
        Err(e) => Err(root.classify(rel, e)),
        Ok(st) => {
            let kind = super::root::kind_of(st.st_mode);
            if kind == "symlink" {
                return Err(FsError::PathRejected {
                    path: rel.as_text(),
                    why: "the target is a symbolic link: links are not written through".into(),
                });
            }
            if kind != "file" {
                return Err(FsError::NotARegularFile {
                    path: rel.as_text(),
                    kind,
                });
            }
            if st.st_nlink > 1 {
                return Err(FsError::Hardlinked {
                    path: rel.as_text(),
                    links: st.st_nlink,
                });
            }
            Ok(Some(st))
        }
    }
}

fn temp_name(name: &str) -> String {
    let mut random = [0u8; 6];
    let _ = rustix::rand::getrandom(&mut random, rustix::rand::GetRandomFlags::empty());
    let tag: String = random.iter().map(|b| format!("{b:02x}")).collect();
    // Keep the sibling's name within NAME_MAX whatever the target's.
    let stem: String = name.chars().take(200).collect();
    format!(".{stem}.warden-{tag}.tmp")
}

/// Reads the file at `dir/name` (no links) in full, within the backup limit.
fn read_at(dir: &OwnedFd, name: &str) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let mut bytes = Vec::new();
    std::fs::File::from(fd)
        .take(MAX_BACKUP_BYTES + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Writes `content` to `rel` atomically, if the target is still what `expect` says.
pub fn write_atomic(
    root: &Root,
    rel: &RelPath,
    content: &[u8],
    expect: &Expect,
    create_dirs: bool,
) -> Result<Written, FsError> {
    let (parent, name) = rel.split_last().ok_or_else(|| FsError::PathRejected {
        path: ".".into(),
        why: "the workspace root is a directory, not a file".into(),
    })?;
    let dir = parent_dir(root, &parent, create_dirs)?;
    let current = identity(root, &dir, rel, name)?;
    if *expect == Expect::Absent && current.is_some() {
        return Err(FsError::ConcurrentModification {
            path: rel.as_text(),
        });
    }
    if let (Expect::Same { dev, ino, .. }, found) = (expect, &current) {
        let same = found
            .as_ref()
            .is_some_and(|st| st.st_dev == *dev && st.st_ino == *ino);
        if !same {
            return Err(FsError::ConcurrentModification {
                path: rel.as_text(),
            });
        }
    }
    let mode = current.as_ref().map_or(0o644, |st| st.st_mode & 0o7777);
    let temp = temp_name(name);
    let fd = rustix::fs::openat(
        &dir,
        temp.as_str(),
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(mode),
    )
    .map_err(|e| root.classify(rel, e))?;
    let cleanup = |dir: &OwnedFd| {
        let _ = rustix::fs::unlinkat(dir, temp.as_str(), AtFlags::empty());
    };
    let mut file = std::fs::File::from(fd);
    let written = file
        .write_all(content)
        .and_then(|()| {
            rustix::fs::fchmod(&file, Mode::from_raw_mode(mode)).map_err(std::io::Error::from)
        })
        .and_then(|()| file.sync_all());
    drop(file);
    if let Err(e) = written {
        cleanup(&dir);
        return Err(FsError::io(&rel.as_text(), e));
    }
    let changed = || FsError::ConcurrentModification {
        path: rel.as_text(),
    };
    match &current {
        None => {
            match rustix::fs::renameat_with(&dir, temp.as_str(), &dir, name, RenameFlags::NOREPLACE)
            {
                Ok(()) => {}
                Err(Errno::EXIST) => {
                    cleanup(&dir);
                    return Err(changed());
                }
                Err(e) => {
                    cleanup(&dir);
                    return Err(root.classify(rel, e));
                }
            }
        }
        Some(seen) => {
            match rustix::fs::renameat_with(&dir, temp.as_str(), &dir, name, RenameFlags::EXCHANGE)
            {
                Ok(()) => {}
                Err(Errno::NOENT) => {
                    cleanup(&dir);
                    return Err(changed());
                }
                Err(e) => {
                    cleanup(&dir);
                    return Err(root.classify(rel, e));
                }
            }
            // What was swapped out must be what the request saw; otherwise put it back.
            let swapped = rustix::fs::statat(&dir, temp.as_str(), AtFlags::SYMLINK_NOFOLLOW);
            let mut same = swapped
                .as_ref()
                .is_ok_and(|st| st.st_dev == seen.st_dev && st.st_ino == seen.st_ino);
            if same && let Expect::Same { sha256, .. } = expect {
                same = read_at(&dir, &temp).is_ok_and(|old| sha256_hex(&old) == *sha256);
            }
            if !same {
                let _ = rustix::fs::renameat_with(
                    &dir,
                    temp.as_str(),
                    &dir,
                    name,
                    RenameFlags::EXCHANGE,
                );
                cleanup(&dir);
                return Err(changed());
            }
            cleanup(&dir);
        }
    }
    rustix::fs::fsync(&dir).map_err(|e| FsError::io(&parent.as_text(), e))?;
    Ok(Written {
        created: current.is_none(),
        bytes: content.len() as u64,
    })
}

/// Whether a file is configuration-like, so that replacing it keeps a backup first.
pub fn wants_backup(rel: &RelPath) -> bool {
    let Some(name) = rel.components().last() else {
        return false;
    };
    let lower = name.to_ascii_lowercase();
    let ext = lower.rsplit_once('.').map(|(_, e)| e);
    lower.starts_with(".env")
        || lower == "dockerfile"
        || lower.starts_with("dockerfile.")
        || lower == "makefile"
        || lower.ends_with(".lock")
        || lower.ends_with("-lock.json")
        || lower.ends_with("-lock.yaml")
        || matches!(
            lower.as_str(),
            "go.sum" | "requirements.txt" | ".npmrc" | ".gitignore" | ".dockerignore"
        )
        || matches!(
            ext,
            Some(
                "toml"
                    | "yaml"
                    | "yml"
                    | "json"
                    | "ini"
                    | "conf"
                    | "cfg"
                    | "properties"
                    | "xml"
                    | "plist"
                    | "service"
                    | "tf"
                    | "tfvars"
            )
        )
}

/// The directory of backups, beneath the root.
pub const BACKUPS: &str = ".warden/backups";

/// Keeps `content` as the backup of `rel` taken at `stamp` (`YYYYMMDDTHHMMSSZ`): written to
/// `.warden/backups/REL.STAMP` (with a counter if that name is taken). Returns its path.
pub fn backup(root: &Root, rel: &RelPath, content: &[u8], stamp: &str) -> Result<RelPath, FsError> {
    let base = format!("{BACKUPS}/{}.{stamp}", rel.as_text());
    for n in 0..100 {
        let target = RelPath::parse(&match n {
            0 => base.clone(),
            n => format!("{base}.{n}"),
        })?;
        match write_atomic(root, &target, content, &Expect::Absent, true) {
            Ok(_) => return Ok(target),
            Err(FsError::ConcurrentModification { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(FsError::io(&rel.as_text(), "no free backup name"))
}

/// Replaces `rel` with `content`; when there is a file there, keeps it as a backup first (at
/// `stamp`) and then replaces exactly what was backed up. A backup that fails fails the write
/// before anything is written. Returns what was written and the backup's path.
pub fn backup_then_write(
    root: &Root,
    rel: &RelPath,
    content: &[u8],
    create_dirs: bool,
    stamp: &str,
) -> Result<(Written, Option<RelPath>), FsError> {
    let (expect, kept) = match super::read::read_all(root, rel, MAX_BACKUP_BYTES) {
        Ok((old, st)) => (
            Expect::Same {
                dev: st.st_dev,
                ino: st.st_ino,
                sha256: sha256_hex(&old),
            },
            Some(backup(root, rel, &old, stamp)?),
        ),
        Err(FsError::NotFound { .. }) => (Expect::Current, None),
        Err(e) => return Err(e),
    };
    Ok((
        write_atomic(root, rel, content, &expect, create_dirs)?,
        kept,
    ))
}

/// The backups of `rel`, oldest first.
pub fn backups_of(root: &Root, rel: &RelPath) -> Result<Vec<RelPath>, FsError> {
    let Some((parent, name)) = rel.split_last() else {
        return Ok(Vec::new());
    };
    let dir_rel = RelPath::parse(&format!("{BACKUPS}/{}", parent.as_text()))?;
    let dir = match root.open_dir(&dir_rel) {
        Ok(dir) => dir,
        Err(FsError::NotFound { .. }) => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let prefix = format!("{name}.");
    let mut found: Vec<String> = rustix::fs::Dir::read_from(&dir)
        .map_err(|e| FsError::io(&dir_rel.as_text(), e))?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.strip_prefix(&prefix).is_some_and(|stamp| {
                stamp.len() >= 16 && stamp.as_bytes()[..8].iter().all(u8::is_ascii_digit)
            })
        })
        .collect();
    found.sort();
    Ok(found.into_iter().map(|n| dir_rel.join(&n)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, Root) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = Root::new(dir.path()).expect("root");
        (dir, root)
    }

    fn rel(text: &str) -> RelPath {
        RelPath::parse(text).expect("path")
    }

    #[test]
    fn a_new_file_is_created_and_an_existing_one_replaced_with_its_mode() {
        let (dir, root) = setup();
        let w = write_atomic(&root, &rel("a/b/new.txt"), b"one", &Expect::Current, true)
            .expect("write");
        assert!(w.created);
        assert_eq!(
            std::fs::read(dir.path().join("a/b/new.txt")).expect("read"),
            b"one"
        );
        std::fs::set_permissions(
            dir.path().join("a/b/new.txt"),
            std::os::unix::fs::PermissionsExt::from_mode(0o600),
        )
        .expect("chmod");
        // A replacement that keeps a backup first: the backup holds exactly the old content.
        let (w, kept) = backup_then_write(
            &root,
            &rel("a/b/new.txt"),
            b"two",
            false,
            "20261130T000000Z",
        )
        .expect("write");
        assert!(!w.created);
        let kept = kept.expect("a backup");
        assert_eq!(
            kept.as_text(),
            ".warden/backups/a/b/new.txt.20261130T000000Z"
        );
        assert_eq!(
            std::fs::read(dir.path().join(kept.as_text())).expect("backup"),
            b"one"
        );
        assert_eq!(
            backups_of(&root, &rel("a/b/new.txt")).expect("list"),
            [kept]
        );
        let meta = std::fs::metadata(dir.path().join("a/b/new.txt")).expect("meta");
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777,
            0o600
        );
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("a/b"))
            .expect("ls")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
        // Without create_dirs, a missing directory is not made.
        assert!(matches!(
            write_atomic(&root, &rel("x/y.txt"), b"", &Expect::Current, false),
            Err(FsError::NotFound { .. })
        ));
    }

    #[test]
    fn links_hard_links_and_special_files_are_refused() {
        let (dir, root) = setup();
        let outside = tempfile::tempdir().expect("outside");
        let host = outside.path().join("host.txt");
        std::fs::write(&host, "host").expect("write");
        std::os::unix::fs::symlink(&host, dir.path().join("link")).expect("symlink");
        std::fs::hard_link(&host, dir.path().join("hard")).expect("hardlink");
        std::os::unix::fs::symlink(outside.path(), dir.path().join("dirlink")).expect("symlink");
        std::fs::create_dir(dir.path().join("d")).expect("mkdir");
        for (target, code) in [
            ("link", "PATH_REJECTED"),
            ("hard", "HARDLINKED"),
            ("dirlink/host.txt", "PATH_REJECTED"),
            ("dirlink/new.txt", "PATH_REJECTED"),
            ("d", "NOT_A_REGULAR_FILE"),
        ] {
            let e = write_atomic(&root, &rel(target), b"pwned", &Expect::Current, true)
                .expect_err(target);
            assert_eq!(e.code(), code, "{target}: {e}");
        }
        assert_eq!(std::fs::read_to_string(&host).expect("read"), "host");
        assert!(!outside.path().join("new.txt").exists());
    }

    #[test]
    fn a_file_changed_since_it_was_read_is_not_overwritten() {
        let (dir, root) = setup();
        std::fs::write(dir.path().join("f"), "v1").expect("write");
        let st = std::fs::metadata(dir.path().join("f")).expect("meta");
        let seen = Expect::Same {
            dev: std::os::unix::fs::MetadataExt::dev(&st),
            ino: std::os::unix::fs::MetadataExt::ino(&st),
            sha256: sha256_hex(b"v1"),
        };
        // Changed in place: same inode, other content.
        std::fs::write(dir.path().join("f"), "v2").expect("write");
        let e = write_atomic(&root, &rel("f"), b"mine", &seen, false).expect_err("stale");
        assert_eq!(e.code(), "CONCURRENT_MODIFICATION");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("f")).expect("read"),
            "v2"
        );
        // Replaced by another file (which may even reuse the inode number: the content tells).
        std::fs::remove_file(dir.path().join("f")).expect("rm");
        std::fs::write(dir.path().join("f"), "v3").expect("write");
        let e = write_atomic(&root, &rel("f"), b"mine", &seen, false).expect_err("stale");
        assert_eq!(e.code(), "CONCURRENT_MODIFICATION");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("ls")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names.len(), 1, "no temporary file is left: {names:?}");
    }

    #[test]
    fn configuration_files_want_backups() {
        for yes in [
            ".env",
            ".env.local",
            "Cargo.toml",
            "a/b.yaml",
            "package-lock.json",
            "Cargo.lock",
            "Dockerfile",
            "x.conf",
        ] {
            assert!(wants_backup(&rel(yes)), "{yes}");
        }
        for no in ["src/main.rs", "README.md", "notes.txt"] {
            assert!(!wants_backup(&rel(no)), "{no}");
        }
    }
}
