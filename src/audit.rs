//! The audit log: one JSON line per decision warden acts on, in
//! `$XDG_STATE_HOME/warden/audit/audit.jsonl`, outside every sandbox.
//!
//! Invariants: a record is one line written by one `write(2)` to a file opened for appending,
//! under an exclusive lock (concurrent warden processes never interleave, and rotation never
//! splits a record); the file is rotated by size, keeping a bounded number of old files; a
//! reader skips any line that does not parse, so a crash mid-write cannot make the log
//! unreadable. Secrets in requests are redacted before they are written.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::{FlockOperation, flock};
use serde::{Deserialize, Serialize};

use crate::pipeline::{Evaluation, Request};

/// The log file is rotated past this size.
pub const ROTATE_BYTES: u64 = 16 * 1024 * 1024;
/// Rotated files kept.
pub const KEEP_ROTATED: usize = 8;
const CURRENT: &str = "audit.jsonl";

/// One operation as recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedOperation {
    pub program: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subcommand: Option<String>,
    pub effect: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<String>,
}

/// Who or what answered an ask.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedChallenge {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
}

/// One audit record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Unix seconds.
    pub time: u64,
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    pub workspace: PathBuf,
    pub cwd: PathBuf,
    /// `bash` for shell text, `argv` for `warden run`.
    pub tool: String,
    /// The request, secrets redacted.
    pub request: Request,
    /// Invocations parsed and structural findings.
    pub invocations: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
    pub operations: Vec<RecordedOperation>,
    /// Every rule that matched, in order.
    pub rules: Vec<String>,
    pub decision: String,
    pub tier: String,
    pub rule: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub challenge: Option<RecordedChallenge>,
    /// What the loop guardrail said, if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guardrail: Option<String>,
    /// The exit status warden ended with.
    pub exit: i32,
    pub duration_ms: u64,
    /// Bytes the command wrote to stdout and stderr, when warden carried them (not a terminal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_bytes: Option<u64>,
    /// SHA-256 of everything the command wrote to stdout, then to stderr (including what the
    /// output budget kept from the caller), when warden carried them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_sha256: Option<String>,
    /// `sandbox` or `unconfined` (degraded), with the network setting.
    pub confinement: String,
    /// The layers the run was confined by (`bwrap`, `landlock`, `seccomp`, the process bound).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layers: Vec<String>,
    pub network: bool,
    pub policy_revision: String,
}

/// Replaces what looks like a secret in `text` with `[redacted]`: values of options and
/// variables whose names say password, token, secret or key; bearer and basic credentials;
/// well-known token shapes; private key blocks; passwords in URLs.
pub fn redact(text: &str) -> String {
    const NAMES: &[&str] = &[
        "password",
        "passwd",
        "pass",
        "token",
        "secret",
        "apikey",
        "api_key",
        "api-key",
        "access_key",
        "auth",
        "credential",
        "private_key",
    ];
    const PREFIXES: &[&str] = &[
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "github_pat_",
        "glpat-",
        "xoxb-",
        "xoxp-",
        "xoxa-",
        "sk-",
        "sk_live_",
        "rk_live_",
        "AKIA",
        "ASIA",
        "AIza",
        "npm_",
        "pypi-",
    ];
    if let Some(start) = text.find("-----BEGIN") {
        return format!("{}[redacted]", redact(&text[..start]));
    }
    let mut out = String::with_capacity(text.len());
    let mut redact_next = false;
    for (i, piece) in text.split_inclusive([' ', '\n', '\t']).enumerate() {
        let word = piece.trim_end_matches([' ', '\n', '\t']);
        let sep = &piece[word.len()..];
        let bare = word.trim_matches(['"', '\'']);
        let lower = bare.to_ascii_lowercase();
        let named = |s: &str| NAMES.iter().any(|n| s.contains(n));
        let redacted = if redact_next
            && !word.is_empty()
            && !matches!(lower.trim_end_matches('\''), "bearer" | "basic" | "token")
        {
            redact_next = false;
            let quote = if word.ends_with(['"', '\'']) {
                &word[word.len() - 1..]
            } else {
                ""
            };
            format!("[redacted]{quote}")
        } else if redact_next && !word.is_empty() {
            word.to_string()
        } else if let Some((name, _)) = bare.split_once('=')
            && named(&name.to_ascii_lowercase())
        {
            format!("{name}=[redacted]")
        } else if PREFIXES
            .iter()
            .any(|p| bare.starts_with(p) && bare.len() >= p.len() + 8)
        {
            "[redacted]".to_string()
        } else if let Some(scheme) = bare.find("://")
            && let Some(at) = bare[scheme..].find('@').map(|i| i + scheme)
            && bare
                .get(scheme + 3..at)
                .is_some_and(|userinfo| userinfo.contains(':'))
        {
            format!("{}://[redacted]{}", &bare[..scheme], &bare[at..])
        } else {
            if i > 0 || lower.starts_with('-') {
                let flag = lower.trim_start_matches('-');
                let strong = |s: &str| {
                    [
                        "password",
                        "passwd",
                        "secret",
                        "token",
                        "api_key",
                        "apikey",
                        "private_key",
                    ]
                    .iter()
                    .any(|n| s.contains(n))
                };
                redact_next = lower.starts_with('-') && !flag.contains('=') && named(flag)
                    || !lower.starts_with('-') && strong(&lower)
                    || matches!(lower.as_str(), "bearer" | "basic" | "-p" | "authorization:");
            }
            word.to_string()
        };
        out.push_str(&redacted);
        out.push_str(sep);
    }
    out
}

fn redact_request(request: &Request) -> Request {
    match request {
        Request::Shell {
            script,
            positional,
            options,
        } => Request::Shell {
            script: redact(script),
            positional: positional.iter().map(|p| redact(p)).collect(),
            options: options.clone(),
        },
        Request::Argv { argv } => Request::Argv {
            argv: redact(&argv.join("\n"))
                .split('\n')
                .map(str::to_string)
                .collect(),
        },
        Request::Tool { tool, args } => Request::Tool {
            tool: tool.clone(),
            args: recorded_args(args),
        },
    }
}

/// A tool call's arguments as recorded: long texts (file content, edit strings) by size and
/// digest, short ones redacted.
fn recorded_args(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    const KEPT: usize = 256;
    match value {
        Value::String(s) if s.len() > KEPT => Value::String(format!(
            "[{} bytes, sha256 {}]",
            s.len(),
            crate::output::sha256_hex(s.as_bytes())
        )),
        Value::String(s) => Value::String(redact(s)),
        Value::Array(items) => Value::Array(items.iter().map(recorded_args).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), recorded_args(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// What a run adds to its evaluation for the record.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub exit: i32,
    pub duration_ms: u64,
    pub output: Option<crate::runner::OutputSummary>,
    pub challenge: Option<RecordedChallenge>,
    pub guardrail: Option<String>,
    pub confinement: String,
    pub layers: Vec<String>,
}

/// The record of an evaluation and what came of it.
pub fn record_of(
    ev: &Evaluation,
    session: Option<&str>,
    workspace: &Path,
    cwd: &Path,
    network: bool,
    policy_revision: &str,
    outcome: Outcome,
) -> Record {
    let decided = ev.effective();
    let v = &decided.verdict;
    let mut rules: Vec<String> = ev.decided.trace.iter().map(|t| t.rule.clone()).collect();
    if let Some(r) = &ev.remediation {
        rules.extend(r.decided.trace.iter().map(|t| t.rule.clone()));
    }
    Record {
        time: crate::approval::now(),
        id: crate::approval::new_id().unwrap_or_default(),
        session: session.map(str::to_string),
        workspace: workspace.to_path_buf(),
        cwd: cwd.to_path_buf(),
        tool: match &ev.request {
            Request::Shell { .. } => "bash".into(),
            Request::Argv { .. } => "argv".into(),
            Request::Tool { tool, .. } => tool.clone(),
        },
        request: redact_request(&ev.request),
        invocations: ev.analysis.invocations.len(),
        findings: ev
            .analysis
            .findings
            .iter()
            .map(|f| redact(&f.detail))
            .collect(),
        operations: ev
            .operations
            .iter()
            .map(|op| RecordedOperation {
                program: op.program.clone(),
                subcommand: op.subcommand.clone(),
                effect: op.effect.as_str().to_string(),
                targets: op
                    .targets
                    .iter()
                    .map(|t| match &t.resolved.path {
                        Some(p) => p.display().to_string(),
                        None => redact(&t.resolved.written),
                    })
                    .collect(),
            })
            .collect(),
        rules,
        decision: v.decision.as_str().to_string(),
        tier: v.tier.as_str().to_string(),
        rule: v.rule.clone(),
        reason: redact(&v.reason),
        rewrite: ev.remediation.as_ref().map(|r| redact(&r.disclosure)),
        challenge: outcome.challenge,
        guardrail: outcome.guardrail,
        exit: outcome.exit,
        duration_ms: outcome.duration_ms,
        output_bytes: outcome.output.as_ref().map(|o| o.bytes),
        stdout_sha256: outcome.output.as_ref().map(|o| o.stdout_sha256.clone()),
        stderr_sha256: outcome.output.as_ref().map(|o| o.stderr_sha256.clone()),
        confinement: outcome.confinement,
        layers: outcome.layers,
        network,
        policy_revision: policy_revision.to_string(),
    }
}

/// Unix seconds as an RFC 3339 UTC time (`2026-11-30T01:56:13Z`).
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rest = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The audit log.
#[derive(Clone, Debug)]
pub struct Log {
    dir: PathBuf,
}

impl Log {
    /// The log in warden's state directory.
    pub fn open() -> Option<Log> {
        let dir = crate::sandbox::placeholders::state_dir()?.join("audit");
        Log::at(dir).ok()
    }

    /// A log in `dir` (created 0700).
    pub fn at(dir: PathBuf) -> std::io::Result<Log> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)?;
        Ok(Log { dir })
    }

    /// Appends one record: one line, one write, under the lock; rotates past the size limit.
    pub fn append(&self, record: &Record) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let path = self.dir.join(CURRENT);
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .mode(0o600)
            .open(&path)?;
        flock(&file, FlockOperation::LockExclusive)?;
        // The file may have been rotated while this process waited for the lock.
        let current = std::fs::metadata(&path).ok();
        let same = current.as_ref().is_some_and(|m| {
            use std::os::unix::fs::MetadataExt;
            file.metadata()
                .is_ok_and(|f| f.ino() == m.ino() && f.dev() == m.dev())
        });
        if !same {
            drop(file);
            return self.append(record);
        }
        // A torn last line (a crash mid-write) is ended first, so this record stands alone.
        let len = file.metadata()?.len();
        if len > 0 {
            use std::os::unix::fs::FileExt;
            let mut last = [0u8; 1];
            file.read_exact_at(&mut last, len - 1)?;
            if last[0] != b'\n' {
                line.insert(0, b'\n');
            }
        }
        file.write_all(&line)?;
        if file.metadata()?.len() > ROTATE_BYTES {
            self.rotate(&path)?;
        }
        Ok(())
    }

    fn rotate(&self, current: &Path) -> std::io::Result<()> {
        let stamp = crate::approval::now();
        let mut n = 0;
        let target = loop {
            let t = self.dir.join(format!("audit-{stamp}-{n}.jsonl"));
            if !t.exists() {
                break t;
            }
            n += 1;
        };
        std::fs::rename(current, target)?;
        let mut old = self.rotated();
        while old.len() > KEEP_ROTATED {
            let _ = std::fs::remove_file(old.remove(0));
        }
        Ok(())
    }

    /// Rotated files, oldest first.
    fn rotated(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("audit-") && n.ends_with(".jsonl"))
            })
            .collect();
        out.sort();
        out
    }

    /// Every record, oldest first; lines that do not parse are skipped.
    pub fn read_all(&self) -> Vec<Record> {
        let mut files = self.rotated();
        files.push(self.dir.join(CURRENT));
        files
            .iter()
            .filter_map(|p| File::open(p).ok())
            .flat_map(|f| BufReader::new(f).lines().map_while(Result::ok))
            .filter_map(|line| serde_json::from_str(&line).ok())
            .collect()
    }

    /// The current file (for following).
    pub fn current(&self) -> PathBuf {
        self.dir.join(CURRENT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_in_utc() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_796_003_773), "2026-11-30T01:56:13Z");
    }

    #[test]
    fn secrets_are_redacted_and_ordinary_text_is_not() {
        for (input, hidden) in [
            (
                "curl -H 'Authorization: Bearer abc.def.ghi' https://x",
                "abc.def.ghi",
            ),
            ("mysql -u root --password=hunter22 db", "hunter22"),
            ("mysql -u root --password hunter22 db", "hunter22"),
            (
                "GITHUB_TOKEN=ghp_aaaaaaaaaaaaaaaaaaaa gh pr list",
                "ghp_aaaa",
            ),
            ("echo ghp_abcdefghijklmnopqrst", "ghp_abcdefghijklmnopqrst"),
            ("git clone https://user:s3cret@github.com/a/b", "s3cret"),
            ("curl a@https://x:y@h/", "x:y"),
            (
                "aws configure set aws_secret_access_key wJalrXUtnFEMI",
                "wJalrXUtnFEMI",
            ),
            (
                "printf '-----BEGIN OPENSSH PRIVATE KEY-----\\nAAAA'",
                "AAAA",
            ),
        ] {
            let out = redact(input);
            assert!(!out.contains(hidden), "{input} -> {out}");
            assert!(out.contains("[redacted]"), "{input} -> {out}");
        }
        for plain in [
            "git status",
            "cargo build --release",
            "ls -la src",
            "grep -r pass .",
        ] {
            assert_eq!(redact(plain), plain);
        }
    }

    #[test]
    fn concurrent_appends_stay_whole_lines_and_torn_lines_are_skipped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = Log::at(dir.path().join("audit")).expect("log");
        let record = |i: usize| Record {
            time: i as u64,
            id: format!("r{i}"),
            session: None,
            workspace: PathBuf::from("/w"),
            cwd: PathBuf::from("/w"),
            tool: "bash".into(),
            request: Request::shell("x".repeat(3000)),
            invocations: 1,
            findings: Vec::new(),
            operations: Vec::new(),
            rules: Vec::new(),
            decision: "allow".into(),
            tier: "ordinary".into(),
            rule: "default.allow".into(),
            reason: "r".into(),
            rewrite: None,
            challenge: None,
            guardrail: None,
            exit: 0,
            duration_ms: 1,
            output_bytes: None,
            stdout_sha256: None,
            stderr_sha256: None,
            confinement: "sandbox".into(),
            layers: Vec::new(),
            network: false,
            policy_revision: "rev".into(),
        };
        std::thread::scope(|s| {
            for t in 0..8 {
                let log = log.clone();
                s.spawn(move || {
                    for i in 0..50 {
                        log.append(&record(t * 1000 + i)).expect("append");
                    }
                });
            }
        });
        assert_eq!(log.read_all().len(), 400);
        // A crash mid-write leaves a torn last line; reading goes on without it.
        let mut f = OpenOptions::new()
            .append(true)
            .open(log.current())
            .expect("open");
        f.write_all(b"{\"time\": 1, \"id\": \"tor").expect("write");
        assert_eq!(log.read_all().len(), 400);
        log.append(&record(9999)).expect("append after a torn line");
        let all = log.read_all();
        assert_eq!(
            all.len(),
            401,
            "the next record stands on a line of its own"
        );
        assert_eq!(all.last().map(|r| r.id.as_str()), Some("r9999"));
    }
}
