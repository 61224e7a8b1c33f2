//! Placeholders: empty files and directories that warden creates where a guarded path of the
//! workspace is absent (`.envrc`, `.vscode`, `.git/hooks`, …), so that a read-only mount can
//! cover the name and the command cannot create it. They exist on the host only while a
//! sandbox may be using them.
//!
//! Invariants: a placeholder is created exclusively (never over something that exists, never
//! through a link) and removed only while it is still the same, still empty file or directory
//! that warden created, and only when no other sandbox of the same workspace is running (a
//! shared lock per workspace, held for the whole run, in warden's state directory outside every
//! sandbox). The last run out removes them; a run that cannot tell leaves them for the next.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::{FlockOperation, flock};
use sha2::{Digest, Sha256};

use super::bwrap::InnerPath;

/// The placeholders of one run, removed (when nobody else needs them) on drop.
#[derive(Debug, Default)]
pub struct Placeholders {
    /// The workspace's lock, held shared for the run.
    lock: Option<File>,
    /// Where every run of this workspace records the placeholders it created.
    record: Option<PathBuf>,
    /// What this run created: path, device, inode.
    created: Vec<(PathBuf, u64, u64)>,
}

/// warden's state directory (`$XDG_STATE_HOME/warden`, else `~/.local/state/warden`), created
/// private to the user; None when neither variable gives an absolute path.
pub fn state_dir() -> Option<PathBuf> {
    let base = crate::config::xdg_base("XDG_STATE_HOME", ".local/state")?;
    let dir = base.join("warden");
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .ok()?;
    Some(dir)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Creates the placeholders `wanted` for a run in `workspace`.
pub fn create(workspace: &Path, wanted: &[InnerPath]) -> std::io::Result<Placeholders> {
    use std::os::unix::ffi::OsStrExt;
    let mut out = Placeholders::default();
    if let Some(dir) = state_dir() {
        let key = hex(&Sha256::digest(workspace.as_os_str().as_bytes())[..12]);
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(dir.join(format!("workspace-{key}.lock")))?;
        flock(&lock, FlockOperation::LockShared)?;
        out.lock = Some(lock);
        out.record = Some(dir.join(format!("workspace-{key}.placeholders")));
    }
    for want in wanted {
        let made = if want.dir {
            std::fs::DirBuilder::new().mode(0o755).create(&want.path)
        } else {
            OpenOptions::new()
                .write(true)
                .create_new(true)
                .custom_flags(libc::O_NOFOLLOW)
                .mode(0o644)
                .open(&want.path)
                .map(drop)
        };
        match made {
            Ok(()) => {}
            // Another run made it meanwhile; it is guarded like any existing path, unless it
            // is not what it should be.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let meta = std::fs::symlink_metadata(&want.path)?;
                if meta.file_type().is_symlink() || meta.is_dir() != want.dir {
                    return Err(std::io::Error::other(format!(
                        "{} appeared while the sandbox was being prepared and is not a plain {}",
                        want.path.display(),
                        if want.dir { "directory" } else { "file" }
                    )));
                }
                continue;
            }
            Err(e) => return Err(e),
        }
        let meta = std::fs::symlink_metadata(&want.path)?;
        out.created
            .push((want.path.clone(), meta.dev(), meta.ino()));
        if let Some(record) = &out.record {
            let line = format!(
                "{} {} {}\n",
                meta.dev(),
                meta.ino(),
                hex(want.path.as_os_str().as_bytes())
            );
            // One short append: whole lines even with concurrent runs.
            OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .open(record)?
                .write_all(line.as_bytes())?;
        }
    }
    Ok(out)
}

/// The entries of a placeholder record (`DEV INO HEX-PATH` per line); malformed lines are
/// skipped (nothing is removed on their account).
pub fn parse_record(text: &str) -> Vec<(PathBuf, u64, u64)> {
    use std::os::unix::ffi::OsStringExt;
    text.lines()
        .filter_map(|line| {
            let mut parts = line.split(' ');
            let dev = parts.next()?.parse().ok()?;
            let ino = parts.next()?.parse().ok()?;
            let path = PathBuf::from(std::ffi::OsString::from_vec(unhex(parts.next()?)?));
            if parts.next().is_some() || !path.is_absolute() {
                return None;
            }
            Some((path, dev, ino))
        })
        .collect()
}

/// Removes `path` if it is still the placeholder (device, inode) and still empty.
fn remove_if_placeholder(path: &Path, dev: u64, ino: u64) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if meta.dev() != dev || meta.ino() != ino || meta.file_type().is_symlink() {
        return;
    }
    if meta.is_dir() {
        // Fails unless empty.
        let _ = std::fs::remove_dir(path);
    } else if meta.is_file() && meta.len() == 0 {
        let _ = std::fs::remove_file(path);
    }
}

impl Drop for Placeholders {
    fn drop(&mut self) {
        let Some(lock) = &self.lock else {
            for (path, dev, ino) in self.created.iter().rev() {
                remove_if_placeholder(path, *dev, *ino);
            }
            return;
        };
        // Exclusive only when no other run of this workspace holds it: then every recorded
        // placeholder is unused.
        if flock(lock, FlockOperation::NonBlockingLockExclusive).is_err() {
            return;
        }
        if let Some(record) = &self.record {
            let text = std::fs::read_to_string(record).unwrap_or_default();
            let mut entries = parse_record(&text);
            // Children before parents.
            entries.sort_by(|a, b| b.0.cmp(&a.0));
            for (path, dev, ino) in &entries {
                remove_if_placeholder(path, *dev, *ino);
            }
            let _ = std::fs::write(record, "");
        }
        let _ = flock(lock, FlockOperation::Unlock);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_lines_that_do_not_parse_are_skipped() {
        let text = format!(
            "1 2 {}\nx 2 {}\n1 2 zz\n1 2 {} extra\n3 4 {}\n",
            hex(b"/w/.envrc"),
            hex(b"/w/a"),
            hex(b"/w/b"),
            hex(b"relative")
        );
        assert_eq!(
            parse_record(&text),
            vec![(PathBuf::from("/w/.envrc"), 1, 2)]
        );
    }

    #[test]
    fn hex_round_trips() {
        let bytes = b"/w/a b\n\xff";
        assert_eq!(unhex(&hex(bytes)).as_deref(), Some(&bytes[..]));
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
    }

    #[test]
    fn placeholders_are_created_and_removed_when_still_empty() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ws = dir.path();
        let wanted = [
            InnerPath {
                path: ws.join(".envrc"),
                dir: false,
            },
            InnerPath {
                path: ws.join(".vscode"),
                dir: true,
            },
            InnerPath {
                path: ws.join(".idea"),
                dir: true,
            },
        ];
        let made = create(ws, &wanted).expect("create");
        assert!(ws.join(".envrc").is_file() && ws.join(".vscode").is_dir());
        // The host filled one in meanwhile: it is the user's now and stays.
        std::fs::write(ws.join(".idea/workspace.xml"), "<x/>").expect("write");
        drop(made);
        assert!(!ws.join(".envrc").exists() && !ws.join(".vscode").exists());
        assert!(ws.join(".idea/workspace.xml").exists());
    }

    #[test]
    fn an_existing_name_is_never_replaced() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ws = dir.path();
        std::fs::write(ws.join(".envrc"), "").expect("write");
        std::os::unix::fs::symlink("/etc", ws.join(".vscode")).expect("symlink");
        let made = create(
            ws,
            &[InnerPath {
                path: ws.join(".envrc"),
                dir: false,
            }],
        )
        .expect("an existing plain file is accepted");
        drop(made);
        assert!(ws.join(".envrc").exists(), "not ours, so not removed");
        assert!(
            create(
                ws,
                &[InnerPath {
                    path: ws.join(".vscode"),
                    dir: true,
                }],
            )
            .is_err()
        );
    }
}
