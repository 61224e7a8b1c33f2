//! Approvals: a person's yes to one exact request, once, for a short time.
//!
//! When the policy asks, warden records a challenge: the canonical digest of what would run
//! (the plan, rewrite included, the workspace, the working directory, the network), the policy
//! revision, the deciding rule and tier, the creation time and an expiry. A person approves or
//! denies it by id (`warden approve ID`); the agent retries the identical request, warden finds
//! the approved challenge by digest and consumes it, and the plan runs once. Anything different
//! (another argument, directory, network setting or policy) has another digest or revision and
//! gets a challenge of its own. Unanswered means no.
//!
//! Invariants: the store lives in warden's state directory, outside every sandbox (and never
//! inside the workspace); every change happens under one exclusive lock and lands by atomic
//! replace, so concurrent warden processes never corrupt it and a challenge is consumed at most
//! once; only consuming makes the [`Consent`] that authorises a run.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustix::fs::{FlockOperation, flock};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::pipeline::Evaluation;
use crate::policy::{Consent, Plan};

/// How long a challenge can be answered, unless configured otherwise.
pub const DEFAULT_EXPIRY: Duration = Duration::from_secs(30 * 60);
/// Challenges this long past their expiry are removed from the store.
const KEEP_EXPIRED: u64 = 24 * 60 * 60;

/// Where a challenge stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Pending,
    Approved,
    Denied,
    /// Approved and consumed by the run it allowed.
    Used,
}

/// One request waiting for, or carrying, a person's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Challenge {
    pub id: String,
    /// SHA-256 of the canonical request (see [`digest`]).
    pub digest: String,
    pub policy_revision: String,
    /// The deciding rule and tier, `rule@tier`.
    pub fingerprint: String,
    pub tier: String,
    pub rule: String,
    pub reason: String,
    pub hint: String,
    /// The request as written.
    pub request: String,
    /// What would run, rewrite included.
    pub plan: Plan,
    pub workspace: PathBuf,
    pub cwd: PathBuf,
    pub network: bool,
    /// Paths the request touches, as the classifier resolved them.
    pub scope: Vec<String>,
    /// Unix seconds.
    pub created: u64,
    pub expires: u64,
    pub state: State,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used_at: Option<u64>,
}

impl Challenge {
    pub fn expired(&self, now: u64) -> bool {
        now >= self.expires
    }

    /// Seconds left to answer (0 once expired).
    pub fn remaining(&self, now: u64) -> u64 {
        self.expires.saturating_sub(now)
    }
}

/// What went wrong with the store or a challenge.
#[derive(Debug, thiserror::Error)]
pub enum ApprovalError {
    #[error("no state directory for approvals: set XDG_STATE_HOME or HOME")]
    NoStateDir,
    #[error(
        "the approval store {0} is inside the workspace, where commands could write it; set XDG_STATE_HOME outside it"
    )]
    InsideWorkspace(PathBuf),
    #[error("approval store: {0}")]
    Io(#[from] std::io::Error),
    #[error("no challenge `{0}`")]
    Unknown(String),
    #[error("challenge {id} is {state:?}, not pending")]
    NotPending { id: String, state: State },
    #[error("challenge {0} has expired")]
    Expired(String),
    #[error("challenge {0} is malformed: {1}")]
    Malformed(String, String),
}

/// Unix time in seconds.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[derive(Serialize)]
struct Canonical<'a> {
    v: u32,
    plan: &'a Plan,
    workspace: &'a Path,
    cwd: &'a Path,
    network: bool,
}

/// The canonical digest of a request: what would run (normalised argv or script, positional
/// parameters, shell options, the rewrite's steps), where, and with or without the network.
pub fn digest(plan: &Plan, workspace: &Path, cwd: &Path, network: bool) -> String {
    let canonical = Canonical {
        v: 1,
        plan,
        workspace,
        cwd,
        network,
    };
    let bytes = serde_json::to_vec(&canonical).unwrap_or_default();
    format!("{:x}", Sha256::digest(bytes))
}

/// A fresh challenge id: 12 lowercase letters and digits from the kernel's random source.
pub fn new_id() -> std::io::Result<String> {
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut bytes = [0u8; 12];
    File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes
        .iter()
        .map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char)
        .collect())
}

/// An id as a person types it: letters and digits only (never a path).
fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric())
}

/// The approval store.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
}

/// The exclusive lock of the store, held while it exists.
struct Locked {
    _file: File,
}

impl Store {
    /// The store in warden's state directory, created private to the user. `workspace`, when
    /// given, must not contain it.
    pub fn open(workspace: Option<&Path>) -> Result<Store, ApprovalError> {
        let base = crate::sandbox::placeholders::state_dir().ok_or(ApprovalError::NoStateDir)?;
        let dir = base.join("approvals");
        if let Some(ws) = workspace
            && dir.starts_with(ws)
        {
            return Err(ApprovalError::InsideWorkspace(dir));
        }
        Store::at(dir)
    }

    /// A store in `dir` (created 0700).
    pub fn at(dir: PathBuf) -> Result<Store, ApprovalError> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)?;
        Ok(Store { dir })
    }

    fn lock(&self) -> Result<Locked, ApprovalError> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(self.dir.join(".lock"))?;
        flock(&file, FlockOperation::LockExclusive).map_err(std::io::Error::from)?;
        Ok(Locked { _file: file })
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    fn read(&self, id: &str) -> Result<Challenge, ApprovalError> {
        if !valid_id(id) {
            return Err(ApprovalError::Unknown(id.to_string()));
        }
        let text = match std::fs::read_to_string(self.path(id)) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ApprovalError::Unknown(id.to_string()));
            }
            Err(e) => return Err(e.into()),
        };
        serde_json::from_str(&text).map_err(|e| ApprovalError::Malformed(id.into(), e.to_string()))
    }

    /// Writes a challenge whole: a private sibling, synced, then renamed over the old one and
    /// the directory synced, so a crash leaves the old or the new record, never a mix.
    fn write(&self, challenge: &Challenge) -> Result<(), ApprovalError> {
        let tmp = self
            .dir
            .join(format!(".{}.{}.tmp", challenge.id, std::process::id()));
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .mode(0o600)
            .open(&tmp)?;
        let text = serde_json::to_string_pretty(challenge)
            .map_err(|e| ApprovalError::Malformed(challenge.id.clone(), e.to_string()))?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, self.path(&challenge.id))?;
        File::open(&self.dir)?.sync_all()?;
        Ok(())
    }

    /// Every challenge in the store (malformed records are skipped).
    pub fn all(&self) -> Vec<Challenge> {
        let mut out: Vec<Challenge> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let id = name.strip_suffix(".json")?;
                self.read(id).ok()
            })
            .collect();
        out.sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
        out
    }

    /// Challenges still waiting for an answer.
    pub fn pending(&self) -> Vec<Challenge> {
        let now = now();
        self.all()
            .into_iter()
            .filter(|c| c.state == State::Pending && !c.expired(now))
            .collect()
    }

    /// The newest live challenge (not used, not expired) for this digest under this policy
    /// revision.
    pub fn find(&self, digest: &str, revision: &str) -> Option<Challenge> {
        let now = now();
        self.all().into_iter().rev().find(|c| {
            c.digest == digest
                && c.policy_revision == revision
                && c.state != State::Used
                && !c.expired(now)
        })
    }

    /// Records a new pending challenge for an evaluation the policy asks about, and removes
    /// challenges long expired.
    pub fn create(
        &self,
        ev: &Evaluation,
        workspace: &Path,
        cwd: &Path,
        network: bool,
        revision: &str,
        expiry: Duration,
    ) -> Result<Challenge, ApprovalError> {
        let _lock = self.lock()?;
        let now = now();
        for old in self.all() {
            if old.expires + KEEP_EXPIRED < now {
                let _ = std::fs::remove_file(self.path(&old.id));
            }
        }
        let verdict = &ev.effective().verdict;
        let plan = ev.plan();
        let mut scope: Vec<String> = ev
            .operations
            .iter()
            .flat_map(|op| {
                op.targets.iter().map(|t| match &t.resolved.path {
                    Some(p) => p.display().to_string(),
                    None => t.resolved.written.clone(),
                })
            })
            .collect();
        scope.sort();
        scope.dedup();
        let challenge = Challenge {
            id: new_id()?,
            digest: digest(&plan, workspace, cwd, network),
            policy_revision: revision.to_string(),
            fingerprint: format!("{}@{}", verdict.rule, verdict.tier.as_str()),
            tier: verdict.tier.as_str().to_string(),
            rule: verdict.rule.clone(),
            reason: verdict.reason.clone(),
            hint: verdict.hint.clone(),
            request: ev.request.text(),
            plan,
            workspace: workspace.to_path_buf(),
            cwd: cwd.to_path_buf(),
            network,
            scope,
            created: now,
            expires: now + expiry.as_secs().max(1),
            state: State::Pending,
            decided_by: None,
            decided_at: None,
            used_at: None,
        };
        self.write(&challenge)?;
        Ok(challenge)
    }

    /// A person's answer to a pending, unexpired challenge.
    pub fn decide(&self, id: &str, approve: bool, by: &str) -> Result<Challenge, ApprovalError> {
        let _lock = self.lock()?;
        let mut challenge = self.read(id)?;
        let now = now();
        if challenge.state != State::Pending {
            return Err(ApprovalError::NotPending {
                id: id.to_string(),
                state: challenge.state,
            });
        }
        if challenge.expired(now) {
            return Err(ApprovalError::Expired(id.to_string()));
        }
        challenge.state = if approve {
            State::Approved
        } else {
            State::Denied
        };
        challenge.decided_by = Some(by.to_string());
        challenge.decided_at = Some(now);
        self.write(&challenge)?;
        Ok(challenge)
    }

    /// Consumes an approved challenge for the request with this digest and revision: at most
    /// one caller ever gets the consent, however many race for it.
    pub fn consume(
        &self,
        id: &str,
        digest: &str,
        revision: &str,
    ) -> Result<Consent, ApprovalError> {
        let _lock = self.lock()?;
        let mut challenge = self.read(id)?;
        let now = now();
        if challenge.digest != digest || challenge.policy_revision != revision {
            return Err(ApprovalError::Unknown(id.to_string()));
        }
        if challenge.state != State::Approved {
            return Err(ApprovalError::NotPending {
                id: id.to_string(),
                state: challenge.state,
            });
        }
        if challenge.expired(now) {
            return Err(ApprovalError::Expired(id.to_string()));
        }
        challenge.state = State::Used;
        challenge.used_at = Some(now);
        self.write(&challenge)?;
        Ok(Consent {
            _challenge: challenge.id,
        })
    }

    /// Re-reads a challenge (for waiting on an answer).
    pub fn get(&self, id: &str) -> Result<Challenge, ApprovalError> {
        self.read(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{Evaluator, Request};
    use crate::policy::Policy;
    use crate::shell::Context;

    fn evaluation(script: &str) -> Evaluation {
        let ctx = Context {
            workspace: PathBuf::from("/w"),
            cwd: PathBuf::from("/w"),
            home: PathBuf::from("/h"),
        };
        let mut ev = Evaluator::new(Policy::shipped().expect("rules"), ctx);
        ev.evaluate(Request::shell(script))
    }

    #[test]
    fn the_digest_covers_what_runs_where_and_the_network() {
        let plan = evaluation("git push origin main").plan();
        let base = digest(&plan, Path::new("/w"), Path::new("/w"), false);
        assert_eq!(base, digest(&plan, Path::new("/w"), Path::new("/w"), false));
        assert_ne!(
            base,
            digest(&plan, Path::new("/w"), Path::new("/w/src"), false)
        );
        assert_ne!(base, digest(&plan, Path::new("/v"), Path::new("/v"), false));
        assert_ne!(base, digest(&plan, Path::new("/w"), Path::new("/w"), true));
        let other = evaluation("git push origin main2").plan();
        assert_ne!(
            base,
            digest(&other, Path::new("/w"), Path::new("/w"), false)
        );
    }

    #[test]
    fn a_challenge_is_approved_once_and_consumed_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::at(dir.path().join("approvals")).expect("store");
        let ev = evaluation("git push origin main");
        let ws = Path::new("/w");
        let made = store
            .create(&ev, ws, ws, false, "rev1", DEFAULT_EXPIRY)
            .expect("create");
        assert_eq!(store.pending(), vec![made.clone()]);
        assert_eq!(
            store.find(&made.digest, "rev1").map(|c| c.id),
            Some(made.id.clone())
        );
        assert!(
            store.find(&made.digest, "rev2").is_none(),
            "another policy revision"
        );
        assert!(matches!(
            store.consume(&made.id, &made.digest, "rev1"),
            Err(ApprovalError::NotPending { .. })
        ));
        store.decide(&made.id, true, "test").expect("approve");
        assert!(
            store.decide(&made.id, false, "test").is_err(),
            "answered once"
        );
        assert!(store.consume(&made.id, "other-digest", "rev1").is_err());
        assert!(store.consume(&made.id, &made.digest, "rev1").is_ok());
        assert!(
            store.consume(&made.id, &made.digest, "rev1").is_err(),
            "once"
        );
        assert!(
            store.find(&made.digest, "rev1").is_none(),
            "used challenges are spent"
        );
    }

    #[test]
    fn concurrent_consumers_get_exactly_one_consent() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::at(dir.path().join("approvals")).expect("store");
        let ev = evaluation("git push origin main");
        let ws = Path::new("/w");
        let made = store
            .create(&ev, ws, ws, false, "rev", DEFAULT_EXPIRY)
            .expect("create");
        store.decide(&made.id, true, "test").expect("approve");
        let winners: usize = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| s.spawn(|| store.consume(&made.id, &made.digest, "rev").is_ok()))
                .collect();
            handles
                .into_iter()
                .map(|h| usize::from(h.join().unwrap_or(false)))
                .sum()
        });
        assert_eq!(winners, 1);
    }

    #[test]
    fn ids_that_are_not_plain_are_unknown() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::at(dir.path().to_path_buf()).expect("store");
        for id in ["../x", "", "a/b", "a.json"] {
            assert!(
                matches!(store.get(id), Err(ApprovalError::Unknown(_))),
                "{id}"
            );
        }
    }
}
