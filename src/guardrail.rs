//! Loop guardrails: an agent that repeats an identical failing request is told to change
//! course, and an identical failing write is refused until its arguments change.
//!
//! Per session (`--session ID`, `WARDEN_SESSION`, else the calling process), warden remembers
//! the canonical digests of requests that failed and how often. State is bounded (the most
//! recent [`MAX_ENTRIES`] digests) and lives beside the audit log, outside every sandbox; it is
//! changed under a lock and replaced atomically.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::PathBuf;

use rustix::fs::{FlockOperation, flock};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Identical failures after which a request is refused (mutating) or warned about (others).
pub const THRESHOLD: u32 = 2;
/// Digests remembered per session.
pub const MAX_ENTRIES: usize = 256;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    failures: u32,
    last_exit: i32,
    /// Unix seconds of the last failure, for eviction.
    last: u64,
}

/// What the guardrail says about a request before it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Go,
    /// Runs, with this guidance.
    Warn(String),
    /// Refused, with this message (already in `[guardrail] blocked: …` form).
    Stop(String),
}

/// One session's memory of failures.
#[derive(Clone, Debug)]
pub struct Guard {
    path: PathBuf,
}

impl Guard {
    /// The state of `session` in warden's state directory.
    pub fn open(session: &str) -> Option<Guard> {
        let dir = crate::sandbox::placeholders::state_dir()?.join("guardrails");
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .ok()?;
        let key: String = Sha256::digest(session.as_bytes())[..12]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Some(Guard {
            path: dir.join(format!("{key}.json")),
        })
    }

    fn locked(&self) -> std::io::Result<File> {
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(self.path.with_extension("lock"))?;
        flock(&lock, FlockOperation::LockExclusive)?;
        Ok(lock)
    }

    fn load(&self) -> BTreeMap<String, Entry> {
        std::fs::read_to_string(&self.path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    fn store(&self, entries: &BTreeMap<String, Entry>) -> std::io::Result<()> {
        let tmp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        let mut f = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(&serde_json::to_vec(entries).map_err(std::io::Error::other)?)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &self.path)
    }

    /// The verdict on a request with this digest: a mutating request (or any, with
    /// `hard_stop`) that already failed [`THRESHOLD`] times identically is refused; another is
    /// run with guidance.
    pub fn check(&self, digest: &str, mutating: bool, hard_stop: bool) -> Verdict {
        let Some(entry) = self.load().get(digest).cloned() else {
            return Verdict::Go;
        };
        if entry.failures < THRESHOLD {
            return Verdict::Go;
        }
        let what = format!(
            "identical request failed {} times (last exit {})",
            entry.failures, entry.last_exit
        );
        if mutating || hard_stop {
            Verdict::Stop(format!(
                "[guardrail] blocked: {what} — change the arguments or the approach; an identical retry will not succeed"
            ))
        } else {
            Verdict::Warn(format!(
                "[guardrail] warning: {what} — change the arguments or the approach rather than retrying as is"
            ))
        }
    }

    /// Records how a request ended: success forgets its failures, failure counts one more.
    pub fn record(&self, digest: &str, exit: i32) -> std::io::Result<()> {
        let _lock = self.locked()?;
        let mut entries = self.load();
        if exit == 0 {
            if entries.remove(digest).is_none() {
                return Ok(());
            }
        } else {
            let e = entries.entry(digest.to_string()).or_default();
            e.failures = e.failures.saturating_add(1);
            e.last_exit = exit;
            e.last = crate::approval::now();
            while entries.len() > MAX_ENTRIES {
                let oldest = entries
                    .iter()
                    .min_by_key(|(_, e)| e.last)
                    .map(|(k, _)| k.clone());
                match oldest {
                    Some(k) => entries.remove(&k),
                    None => break,
                };
            }
        }
        self.store(&entries)
    }
}

/// The session name: the one given, else the calling process (an agent runs each command as
/// a child of its own process, so its commands share one).
pub fn session_name(given: Option<&str>) -> String {
    match given {
        Some(s) => format!("session:{s}"),
        None => format!("parent:{}", std::os::unix::process::parent_id()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> (tempfile::TempDir, Guard) {
        let dir = tempfile::tempdir().expect("tempdir");
        let g = Guard {
            path: dir.path().join("s.json"),
        };
        (dir, g)
    }

    #[test]
    fn repeated_identical_failures_warn_then_stop_writes_and_success_forgets() {
        let (_d, g) = guard();
        assert_eq!(g.check("d", true, false), Verdict::Go);
        g.record("d", 1).expect("record");
        assert_eq!(
            g.check("d", true, false),
            Verdict::Go,
            "one failure is not a loop"
        );
        g.record("d", 1).expect("record");
        assert!(matches!(g.check("d", true, false), Verdict::Stop(_)));
        assert!(matches!(g.check("d", false, false), Verdict::Warn(_)));
        assert!(matches!(g.check("d", false, true), Verdict::Stop(_)));
        assert_eq!(
            g.check("other", true, false),
            Verdict::Go,
            "changed arguments"
        );
        g.record("d", 0).expect("record");
        assert_eq!(g.check("d", true, false), Verdict::Go);
    }

    #[test]
    fn the_state_is_bounded() {
        let (_d, g) = guard();
        for i in 0..(MAX_ENTRIES + 20) {
            g.record(&format!("d{i}"), 1).expect("record");
        }
        assert_eq!(g.load().len(), MAX_ENTRIES);
    }
}
