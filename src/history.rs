//! The interactive session's history: the lines a person typed, kept in warden's state
//! directory (`$XDG_STATE_HOME/warden/history`, else `~/.local/state/warden/history`) so that a
//! later session can recall them.
//!
//! Invariants: the file is private to the user (created 0600, tightened to 0600 when found
//! wider, never opened through a link); it holds at most [`LIMIT`] entries, one per line, the
//! oldest dropped first; it is read and changed only under a lock (`history.lock` beside it), and
//! when it has to shrink it is replaced whole, so concurrent sessions each add their lines and a
//! crash leaves either the old file or the new one.
//!
//! Every entered line is recorded, refused ones included (the person may want to edit and retry
//! them), except one that starts with a space (bash's `ignorespace`); like a shell's history, it
//! holds whatever else was typed, secrets too.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::{FlockOperation, flock};

/// Entries kept, newest last.
pub const LIMIT: usize = 1000;

/// The history file.
#[derive(Clone, Debug)]
pub struct History {
    path: PathBuf,
    limit: usize,
}

impl History {
    /// The history in warden's state directory; None without one (no `XDG_STATE_HOME`, no
    /// `HOME`).
    pub fn open() -> Option<History> {
        let dir = crate::sandbox::placeholders::state_dir()?;
        Some(History::at(dir.join("history"), LIMIT))
    }

    /// The history kept in `path`, at most `limit` entries.
    pub fn at(path: PathBuf, limit: usize) -> History {
        History {
            path,
            limit: limit.max(1),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The recorded entries, oldest first; none when nothing was recorded yet.
    pub fn load(&self) -> std::io::Result<Vec<String>> {
        let _lock = self.locked(FlockOperation::LockShared)?;
        let file = match OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&self.path)
        {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut entries = entries_of(&read_all(&file)?);
        entries.drain(..entries.len().saturating_sub(self.limit));
        Ok(entries)
    }

    /// Records `line` as the newest entry, unless it repeats the newest one.
    pub fn append(&self, line: &str) -> std::io::Result<()> {
        let _lock = self.locked(FlockOperation::LockExclusive)?;
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&self.path)?;
        private(&file)?;
        let text = read_all(&file)?;
        let mut entries = entries_of(&text);
        if entries.last().is_some_and(|newest| newest == line) {
            return Ok(());
        }
        if entries.len() < self.limit {
            let mut record = String::new();
            // A torn last line (a crash mid-write) is ended first, so this entry stands alone.
            if !text.is_empty() && !text.ends_with('\n') {
                record.push('\n');
            }
            record.push_str(&encode(line));
            record.push('\n');
            return file.write_all(record.as_bytes());
        }
        entries.push(line.to_string());
        entries.drain(..entries.len() - self.limit);
        self.replace(&entries)
    }

    /// The lock every session takes before it reads or changes the history: a file of its own,
    /// never replaced, so that all of them wait on the same one.
    fn locked(&self, how: FlockOperation) -> std::io::Result<File> {
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(self.sibling("lock"))?;
        flock(&lock, how)?;
        Ok(lock)
    }

    fn sibling(&self, extension: &str) -> PathBuf {
        let mut name = self.path.file_name().unwrap_or_default().to_os_string();
        name.push(".");
        name.push(extension);
        self.path.with_file_name(name)
    }

    /// Writes `entries` to a new file and puts it in place of the old one (under the lock the
    /// caller holds).
    fn replace(&self, entries: &[String]) -> std::io::Result<()> {
        let new = self.sibling("new");
        let mut file = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&new)?;
        private(&file)?;
        let text: String = entries.iter().map(|e| encode(e) + "\n").collect();
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&new, &self.path)
    }
}

fn read_all(mut file: &File) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Makes `file` readable and writable by its owner only (it may have been made by hand).
fn private(file: &File) -> std::io::Result<()> {
    let mode = file.metadata()?.permissions().mode();
    if mode & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(())
}

fn entries_of(text: &str) -> Vec<String> {
    text.split('\n')
        .filter(|l| !l.is_empty())
        .map(decode)
        .collect()
}

/// One entry on one line: a backslash, a newline and a carriage return are escaped.
fn encode(entry: &str) -> String {
    let mut out = String::with_capacity(entry.len());
    for c in entry.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

fn decode(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            // Not written by `encode`: kept as it stands.
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    fn history(limit: usize) -> (tempfile::TempDir, History) {
        let dir = tempfile::tempdir().expect("tempdir");
        let history = History::at(dir.path().join("history"), limit);
        (dir, history)
    }

    #[test]
    fn nothing_recorded_loads_as_empty() {
        let (_dir, history) = history(10);
        assert_eq!(history.load().expect("load"), Vec::<String>::new());
    }

    #[test]
    fn entries_come_back_in_order_with_newlines_and_backslashes() {
        let (_dir, history) = history(10);
        let entries = [
            "echo one",
            "printf 'a\\nb'",
            "for f in *\ndo echo $f\ndone",
            "x\\",
        ];
        for e in entries {
            history.append(e).expect("append");
        }
        assert_eq!(history.load().expect("load"), entries);
    }

    #[test]
    fn creates_the_file_private_to_the_user() {
        let (_dir, history) = history(10);
        history.append("echo hi").expect("append");
        let mode = std::fs::metadata(history.path()).expect("meta").mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn tightens_a_file_that_others_could_read() {
        let (_dir, history) = history(10);
        std::fs::write(history.path(), "echo old\n").expect("write");
        std::fs::set_permissions(history.path(), std::fs::Permissions::from_mode(0o644))
            .expect("chmod");
        history.append("echo new").expect("append");
        let mode = std::fs::metadata(history.path()).expect("meta").mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(history.load().expect("load"), ["echo old", "echo new"]);
    }

    #[test]
    fn keeps_only_the_newest_entries() {
        let (dir, history) = history(3);
        for n in 0..7 {
            history.append(&format!("echo {n}")).expect("append");
        }
        assert_eq!(
            history.load().expect("load"),
            ["echo 4", "echo 5", "echo 6"]
        );
        let text = std::fs::read_to_string(history.path()).expect("read");
        assert_eq!(text.lines().count(), 3, "{text}");
        let mode = std::fs::metadata(history.path()).expect("meta").mode();
        assert_eq!(mode & 0o777, 0o600);
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["history", "history.lock"]);
    }

    #[test]
    fn concurrent_sessions_each_keep_their_lines() {
        for limit in [1000, 40] {
            let (dir, history) = history(limit);
            let writers: Vec<_> = (0..4)
                .map(|w| {
                    let history = history.clone();
                    std::thread::spawn(move || {
                        for n in 0..50 {
                            history.append(&format!("echo {w}-{n}")).expect("append");
                        }
                    })
                })
                .collect();
            for w in writers {
                w.join().expect("writer");
            }
            let entries = history.load().expect("load");
            assert_eq!(entries.len(), 200.min(limit), "{entries:?}");
            let distinct: std::collections::BTreeSet<_> = entries.iter().collect();
            assert_eq!(distinct.len(), entries.len(), "{entries:?}");
            // Each session's own lines stay in the order it entered them.
            for w in 0..4 {
                let own: Vec<u32> = entries
                    .iter()
                    .filter_map(|e| e.strip_prefix(&format!("echo {w}-"))?.parse().ok())
                    .collect();
                assert!(own.windows(2).all(|p| p[0] < p[1]), "{own:?}");
            }
            assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 2);
        }
    }

    #[test]
    fn a_longer_file_loads_only_its_newest_entries() {
        let (_dir, history) = history(2);
        std::fs::write(history.path(), "a\nb\nc\n").expect("write");
        assert_eq!(history.load().expect("load"), ["b", "c"]);
    }

    #[test]
    fn a_repeat_of_the_newest_entry_is_not_recorded_again() {
        let (_dir, history) = history(10);
        for e in ["ls", "ls", "pwd", "ls"] {
            history.append(e).expect("append");
        }
        assert_eq!(history.load().expect("load"), ["ls", "pwd", "ls"]);
    }

    #[test]
    fn a_torn_last_line_is_ended_before_the_next_entry() {
        let (_dir, history) = history(10);
        std::fs::write(history.path(), "echo whole\necho tor").expect("write");
        history.append("echo next").expect("append");
        assert_eq!(
            history.load().expect("load"),
            ["echo whole", "echo tor", "echo next"]
        );
    }

    #[test]
    fn refuses_to_write_through_a_link() {
        let (dir, history) = history(10);
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, "untouched\n").expect("write");
        std::os::unix::fs::symlink(&target, history.path()).expect("link");
        assert!(history.append("echo hi").is_err());
        assert!(history.load().is_err());
        assert_eq!(
            std::fs::read_to_string(&target).expect("read"),
            "untouched\n"
        );
    }
}
