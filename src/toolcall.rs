//! The tool-call protocol: one JSON request in, one JSON result out, every call through the
//! same pipeline as a shell command.
//!
//! A request is `{"tool": NAME, "args": {…}, "id": …}`. In order: the capability snapshot
//! (built once when the server starts, never changed) must hold the tool; the arguments must
//! decode exactly (wrong types, missing or unknown fields: `INVALID_ARGUMENTS`, nothing done);
//! paths must be plain and relative (`PATH_REJECTED`); the call is classified and decided by
//! the policy (`POLICY_DENIED`), checked by the loop guardrail (`GUARDRAIL`), approved by a
//! person when the policy asks (`APPROVAL_REQUIRED` with the challenge id until then); only then
//! is it carried out — file tools beneath the workspace root, `bash` in the sandbox — and its
//! output returned inside the untrusted-data envelope. Every decision acted on is audited.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};

use crate::envelope::{self, SessionBudget};
use crate::fs::{self, FsError, RelPath, Root};
use crate::pipeline::{Evaluation, Evaluator, Request};
use crate::policy::{Authorized, Decision, Plan};

/// The largest request accepted (one JSON document or line).
pub const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;
/// The largest file `edit_file` rewrites.
pub const MAX_EDIT_BYTES: u64 = 8 * 1024 * 1024;
/// The largest content `write_file` writes.
pub const MAX_WRITE_BYTES: usize = 8 * 1024 * 1024;

/// A typed failure of one call.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub code: &'static str,
    pub message: String,
    /// Details for the agent (tier, reason, hint, challenge id, …).
    pub details: serde_json::Map<String, Value>,
}

impl Failure {
    pub fn new(code: &'static str, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
            details: serde_json::Map::new(),
        }
    }

    fn with(mut self, key: &str, value: impl Into<Value>) -> Failure {
        self.details.insert(key.to_string(), value.into());
        self
    }

    fn invalid(message: impl Into<String>) -> Failure {
        Failure::new("INVALID_ARGUMENTS", message)
    }
}

impl From<FsError> for Failure {
    fn from(e: FsError) -> Failure {
        Failure::new(e.code(), e.to_string())
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Call {
    tool: String,
    #[serde(default)]
    args: Option<Value>,
    #[serde(default)]
    id: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    path: String,
    #[serde(default)]
    offset: Option<usize>,
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    max_bytes: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    depth: Option<usize>,
    #[serde(default)]
    max_entries: Option<usize>,
    #[serde(default)]
    gitignore: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    pattern: String,
    #[serde(default)]
    fixed_string: bool,
    #[serde(default)]
    case_insensitive: bool,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    glob: Option<String>,
    #[serde(default)]
    gitignore: Option<bool>,
    #[serde(default)]
    hidden: bool,
    #[serde(default)]
    max_matches: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteArgs {
    path: String,
    content: String,
    #[serde(default)]
    create_dirs: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BashArgs {
    command: String,
    #[serde(default)]
    timeout_seconds: Option<u64>,
}

/// A proxied call the pipeline let through, to be carried out by its server and handed back.
pub struct Admitted {
    evaluation: Evaluation,
    outcome: crate::audit::Outcome,
    started: Instant,
    guard: Option<crate::guardrail::Guard>,
    digest: String,
}

/// What a proxied server answered: its text content joined, a description of any other
/// content (images, resources: not passed on), its structured content, and its error flag.
#[derive(Clone, Debug, Default)]
pub struct Proxied {
    pub text: String,
    pub other: Vec<String>,
    pub structured: Option<Value>,
    pub is_error: bool,
}

/// What a server needs besides the policy.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub session: Option<String>,
    pub non_interactive: bool,
    pub wait: Option<Duration>,
    pub hard_stop: bool,
    pub allow_degraded: bool,
    pub pass_env: Vec<String>,
    pub timeout: Option<Duration>,
    pub grace: Option<Duration>,
    /// Bytes of output one result may carry.
    pub result_budget: usize,
    /// Bytes of output all results of the session may carry.
    pub session_budget: u64,
}

/// A tool server for one session.
pub struct Server {
    evaluator: Evaluator,
    root: Root,
    tools: Vec<&'static str>,
    settings: Settings,
    budget: SessionBudget,
    session: String,
    /// The `timeout_seconds` of the `bash` call being carried out.
    bash_timeout: Option<Duration>,
}

impl Server {
    /// Opens the workspace root and takes the capability snapshot, once.
    pub fn new(evaluator: Evaluator, settings: Settings) -> Result<Server, FsError> {
        // The same workspaces the sandbox refuses (`/`, system directories, the home or an
        // ancestor) are refused here: the file tools would reach everything beneath them.
        let ctx = &evaluator.ctx;
        if let Some(why) = crate::sandbox::workspace_refusal(&ctx.workspace, Some(&ctx.home)) {
            return Err(FsError::PathRejected {
                path: ctx.workspace.display().to_string(),
                why: format!("not a workspace the file tools serve: {why}"),
            });
        }
        let root = Root::new(&ctx.workspace)?;
        let tools = crate::tools::snapshot(&evaluator.policy)
            .iter()
            .map(|t| t.name)
            .collect();
        let session = crate::guardrail::session_name(settings.session.as_deref());
        let budget = SessionBudget::new(settings.session_budget);
        Ok(Server {
            evaluator,
            root,
            tools,
            settings,
            budget,
            session,
            bash_timeout: None,
        })
    }

    /// The policy calls are decided by.
    pub fn policy(&self) -> &crate::policy::Policy {
        &self.evaluator.policy
    }

    /// The workspace the server serves.
    pub fn workspace(&self) -> &std::path::Path {
        &self.evaluator.ctx.workspace
    }

    /// The tools of the snapshot.
    pub fn tools(&self) -> &[&'static str] {
        &self.tools
    }

    /// Handles one request document; always returns a result document.
    pub fn handle(&mut self, input: &[u8]) -> Value {
        if input.len() > MAX_REQUEST_BYTES {
            return failure_json(
                None,
                &Failure::invalid(format!(
                    "the request is {} bytes; the limit is {MAX_REQUEST_BYTES}",
                    input.len()
                )),
            );
        }
        let call: Call = match serde_json::from_slice(input) {
            Ok(call) => call,
            Err(e) => {
                return failure_json(
                    None,
                    &Failure::invalid(format!(
                        "the request is not a tool call ({e}); send {{\"tool\": NAME, \"args\": {{…}}, \"id\": …}}"
                    )),
                );
            }
        };
        let id = call.id.clone();
        match self.call(&call.tool, call.args.unwrap_or_else(|| json!({}))) {
            Ok(result) => json!({"id": id, "ok": true, "result": result}),
            Err(f) => failure_json(id, &f),
        }
    }

    /// Carries out one call.
    pub fn call(&mut self, tool: &str, args: Value) -> Result<Value, Failure> {
        let Some(&tool) = self.tools.iter().find(|t| **t == tool) else {
            return Err(Failure::new(
                "TOOL_UNAVAILABLE",
                format!(
                    "there is no tool `{}` here; the tools are: {}",
                    tool.chars().take(64).collect::<String>(),
                    self.tools.join(", ")
                ),
            ));
        };
        if !args.is_object() {
            return Err(Failure::invalid("`args` must be an object"));
        }
        let request = self.request_of(tool, &args)?;
        let started = Instant::now();
        let evaluation = self.evaluator.evaluate(request);
        let mut outcome = crate::audit::Outcome {
            confinement: if tool == "bash" { "none" } else { "rooted" }.into(),
            ..Default::default()
        };
        let result = match self.gate(&evaluation, &mut outcome) {
            Ok((authorized, guard, digest)) => {
                let result = if tool == "bash" {
                    self.run_bash(&evaluation, &authorized, &mut outcome)
                } else {
                    self.carry_out(&authorized)
                };
                if let Some(g) = &guard {
                    let _ = g.record(&digest, if result.is_ok() { 0 } else { 1 });
                }
                result
            }
            Err(f) => Err(f),
        };
        self.finish(&evaluation, outcome, started, &result);
        result
    }

    /// Decides a call of a proxied server's tool (`NAME.tool`, checked by the caller against
    /// the tools that server listed): policy, guardrail, approval. What is let through is
    /// carried out by the caller and handed back to [`Server::complete_proxied`]; what is not
    /// is audited here.
    pub fn admit_proxied(&mut self, tool: &str, args: Value) -> Result<Admitted, Failure> {
        if !args.is_object() {
            return Err(Failure::invalid("`arguments` must be an object"));
        }
        let size = serde_json::to_vec(&args).map_or(usize::MAX, |v| v.len());
        if size > MAX_REQUEST_BYTES {
            return Err(Failure::invalid(format!(
                "the arguments are {size} bytes; the limit is {MAX_REQUEST_BYTES}"
            )));
        }
        let started = Instant::now();
        let evaluation = self.evaluator.evaluate(Request::Tool {
            tool: tool.to_string(),
            args,
        });
        let mut outcome = crate::audit::Outcome {
            confinement: "sandbox (proxied server)".into(),
            ..Default::default()
        };
        match self.gate(&evaluation, &mut outcome) {
            Ok((_authorized, guard, digest)) => Ok(Admitted {
                evaluation,
                outcome,
                started,
                guard,
                digest,
            }),
            Err(f) => {
                self.finish(&evaluation, outcome, started, &Err::<(), _>(f.clone()));
                Err(f)
            }
        }
    }

    /// Takes back what a proxied server answered to an admitted call: its text enveloped
    /// (redacted, within the budgets), its structured content redacted, the call audited.
    pub fn complete_proxied(
        &mut self,
        admitted: Admitted,
        answer: Result<Proxied, Failure>,
    ) -> Result<(bool, Value), Failure> {
        let Admitted {
            evaluation,
            mut outcome,
            started,
            guard,
            digest,
        } = admitted;
        let result = answer.map(|proxied| {
            let tool = match &evaluation.request {
                Request::Tool { tool, .. } => tool.clone(),
                other => other.text(),
            };
            let content = self.wrap(
                &tool,
                proxied.text.as_bytes(),
                "ask the tool for less (a narrower query, a page, a limit)",
            );
            let structured = proxied.structured.map(|mut redacted| {
                envelope::redact::redact_json(&mut redacted);
                let size = serde_json::to_vec(&redacted).map_or(usize::MAX, |b| b.len());
                if size <= self.settings.result_budget.max(1024) {
                    redacted
                } else {
                    json!({"omitted": format!("{size} bytes of structured content, over the result budget")})
                }
            });
            outcome.exit = i32::from(proxied.is_error);
            (
                proxied.is_error,
                json!({
                    "tool": tool,
                    "is_error": proxied.is_error,
                    "content": content,
                    "structured": structured,
                    "other_content": proxied.other,
                }),
            )
        });
        if let Some(g) = &guard {
            let failed = !matches!(result, Ok((false, _)));
            let _ = g.record(&digest, i32::from(failed));
        }
        self.finish(&evaluation, outcome, started, &result);
        result
    }

    /// Records the end of a call in the audit log.
    fn finish<T>(
        &self,
        evaluation: &Evaluation,
        mut outcome: crate::audit::Outcome,
        started: Instant,
        result: &Result<T, Failure>,
    ) {
        outcome.exit = match result {
            Ok(_) => outcome.exit,
            Err(f) => match f.code {
                "POLICY_DENIED" | "GUARDRAIL" => crate::exit::DENIED,
                "APPROVAL_REQUIRED" => crate::exit::NEEDS_APPROVAL,
                _ => 1,
            },
        };
        outcome.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.audit(evaluation, outcome);
    }

    /// Checks the arguments of `tool` and makes the request the pipeline decides.
    fn request_of(&mut self, tool: &str, args: &Value) -> Result<Request, Failure> {
        fn decode<T: serde::de::DeserializeOwned>(tool: &str, args: &Value) -> Result<T, Failure> {
            T::deserialize(args).map_err(|e| {
                Failure::invalid(format!("{tool}: {e}; `warden tools` shows the schema"))
            })
        }
        let check_path = |p: &str| RelPath::parse(p).map_err(Failure::from);
        match tool {
            "bash" => {
                let a: BashArgs = decode(tool, args)?;
                if a.timeout_seconds.is_some_and(|t| t == 0 || t > 3600) {
                    return Err(Failure::invalid("bash: timeout_seconds is 1 to 3600"));
                }
                self.bash_timeout = a.timeout_seconds.map(Duration::from_secs);
                return Ok(Request::shell(a.command));
            }
            "read_file" => {
                let a: ReadArgs = decode(tool, args)?;
                check_path(&a.path)?;
                if a.max_bytes.is_some_and(|b| b > fs::read::MAX_MAX_BYTES) {
                    return Err(Failure::invalid(format!(
                        "read_file: max_bytes is at most {}",
                        fs::read::MAX_MAX_BYTES
                    )));
                }
            }
            "list_dir" => {
                let a: ListArgs = decode(tool, args)?;
                check_path(a.path.as_deref().unwrap_or("."))?;
                if a.depth.is_some_and(|d| d == 0 || d > fs::list::MAX_DEPTH) {
                    return Err(Failure::invalid(format!(
                        "list_dir: depth is 1 to {}",
                        fs::list::MAX_DEPTH
                    )));
                }
            }
            "search" => {
                let a: SearchArgs = decode(tool, args)?;
                check_path(a.path.as_deref().unwrap_or("."))?;
                if a.pattern.is_empty() || a.pattern.len() > 4096 {
                    return Err(Failure::invalid("search: the pattern is 1 to 4096 bytes"));
                }
            }
            "write_file" => {
                let a: WriteArgs = decode(tool, args)?;
                let rel = check_path(&a.path)?;
                if a.content.len() > MAX_WRITE_BYTES {
                    return Err(Failure::invalid(format!(
                        "write_file: the content is {} bytes; the limit is {MAX_WRITE_BYTES}",
                        a.content.len()
                    )));
                }
                guarded(&rel)?;
            }
            "edit_file" => {
                let (path, _) = edit_args(args)?;
                guarded(&check_path(&path)?)?;
            }
            _ => {
                return Err(Failure::new(
                    "TOOL_UNAVAILABLE",
                    format!("`{tool}` is not carried out here"),
                ));
            }
        }
        Ok(Request::Tool {
            tool: tool.to_string(),
            args: args.clone(),
        })
    }

    /// Policy, guardrail and approval for an evaluated call: what may be carried out, the
    /// session's guardrail (to record the result in) and the call's digest.
    fn gate(
        &mut self,
        evaluation: &Evaluation,
        outcome: &mut crate::audit::Outcome,
    ) -> Result<(Authorized, Option<crate::guardrail::Guard>, String), Failure> {
        let decided = evaluation.effective();
        let verdict = &decided.verdict;
        if verdict.decision == Decision::Deny {
            return Err(policy_denied(verdict));
        }
        let ctx = &self.evaluator.ctx;
        let digest = crate::approval::digest(&evaluation.plan(), &ctx.workspace, &ctx.cwd, false);
        let guard = crate::guardrail::Guard::open(&self.session);
        let mutating = evaluation.operations.iter().any(|op| {
            matches!(
                op.effect,
                crate::classify::Effect::Write | crate::classify::Effect::Delete
            )
        });
        if let Some(g) = &guard {
            match g.check(&digest, mutating, self.settings.hard_stop) {
                crate::guardrail::Verdict::Go => {}
                crate::guardrail::Verdict::Warn(message) => outcome.guardrail = Some(message),
                crate::guardrail::Verdict::Stop(message) => {
                    outcome.guardrail = Some(message.clone());
                    return Err(Failure::new("GUARDRAIL", message));
                }
            }
        }
        let authorized = match verdict.decision {
            Decision::Deny => return Err(policy_denied(verdict)),
            Decision::Allow => evaluation.authorize(),
            Decision::Ask => {
                let asking = crate::ask::Asking {
                    workspace: &ctx.workspace,
                    cwd: &ctx.cwd,
                    network: false,
                    policy_revision: &self.evaluator.policy.revision,
                    non_interactive: self.settings.non_interactive || crate::ask::ci(),
                    wait: self.settings.wait,
                    prompt: false,
                };
                let (consent, challenge) = crate::ask::consent(evaluation, &asking);
                outcome.challenge = challenge.clone();
                match consent {
                    Ok(consent) => evaluation.authorize_with(consent),
                    Err(code) if code == crate::exit::NEEDS_APPROVAL => {
                        let id = challenge.map(|c| c.id).unwrap_or_default();
                        return Err(Failure::new(
                            "APPROVAL_REQUIRED",
                            format!(
                                "[{}] needs approval: {} — a person approves it with `warden approve {id}`; then send the identical call again",
                                verdict.tier.as_str(),
                                verdict.reason
                            ),
                        )
                        .with("challenge", id)
                        .with("tier", verdict.tier.as_str())
                        .with("rule", verdict.rule.clone())
                        .with("reason", verdict.reason.clone()));
                    }
                    Err(code) if code == crate::exit::DENIED => {
                        return Err(policy_denied(verdict)
                            .with("challenge", challenge.map(|c| c.id).unwrap_or_default()));
                    }
                    Err(_) => {
                        return Err(Failure::new(
                            "INTERNAL",
                            "the approval store could not be used; nothing was done",
                        ));
                    }
                }
            }
        };
        let Some(authorized) = authorized else {
            return Err(Failure::new(
                "INTERNAL",
                "the request was not authorised; nothing was done",
            ));
        };
        Ok((authorized, guard, digest))
    }

    /// Carries out an authorised file-tool call beneath the root.
    fn carry_out(&mut self, authorized: &Authorized) -> Result<Value, Failure> {
        let Plan::Tool { tool, args } = authorized.plan() else {
            return Err(Failure::new("INTERNAL", "not a file-tool plan"));
        };
        let root = &self.root;
        match tool.as_str() {
            "read_file" => {
                let a: ReadArgs = from(args)?;
                let rel = RelPath::parse(&a.path)?;
                let offset = a.offset.unwrap_or(1).max(1);
                let limit = a.limit.unwrap_or(fs::read::DEFAULT_LIMIT).max(1);
                let max_bytes = a.max_bytes.unwrap_or(fs::read::DEFAULT_MAX_BYTES);
                let w = fs::read::read_window(root, &rel, offset, limit, max_bytes)?;
                let next = offset + w.lines - usize::from(w.capped && w.lines > 0);
                let hint = format!(
                    "read_file with {{\"path\": {:?}, \"offset\": {next}}} for what follows",
                    rel.as_text()
                );
                let env = self.wrap(
                    &format!("read_file {}", rel.as_text()),
                    w.text.as_bytes(),
                    &hint,
                );
                Ok(json!({
                    "path": rel.as_text(),
                    "first_line": w.first_line,
                    "lines": w.lines,
                    "more": w.more,
                    "next_offset": w.more.then_some(next),
                    "file_bytes": w.file_bytes,
                    "content": env,
                }))
            }
            "list_dir" => {
                let a: ListArgs = from(args)?;
                let rel = RelPath::parse(a.path.as_deref().unwrap_or("."))?;
                let max = a
                    .max_entries
                    .unwrap_or(fs::list::DEFAULT_MAX_ENTRIES)
                    .clamp(1, fs::list::MAX_MAX_ENTRIES);
                let listing = fs::list::list(root, &rel, a.depth.unwrap_or(1), max, a.gitignore)?;
                let text: String = listing
                    .entries
                    .iter()
                    .map(|e| match e.size {
                        Some(size) => format!("{}\t{}\t{size}\n", e.kind, e.path),
                        None => format!("{}\t{}\n", e.kind, e.path),
                    })
                    .collect();
                let env = self.wrap(
                    &format!("list_dir {}", rel.as_text()),
                    text.as_bytes(),
                    "list_dir a subdirectory, or with a smaller depth",
                );
                Ok(json!({
                    "path": rel.as_text(),
                    "entries": listing.entries.len(),
                    "truncated": listing.truncated,
                    "listing": env,
                }))
            }
            "search" => {
                let a: SearchArgs = from(args)?;
                let path = a.path.as_deref().map(RelPath::parse).transpose()?;
                let query = fs::search::Query {
                    pattern: a.pattern.clone(),
                    fixed_string: a.fixed_string,
                    case_insensitive: a.case_insensitive,
                    path,
                    glob: a.glob.clone(),
                    gitignore: a.gitignore.unwrap_or(true),
                    hidden: a.hidden,
                    max_matches: a
                        .max_matches
                        .unwrap_or(fs::search::DEFAULT_MAX_MATCHES)
                        .clamp(1, fs::search::MAX_MAX_MATCHES),
                };
                let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
                let found = fs::search::search(root, &query, threads)?
                    .map_err(|e| Failure::invalid(format!("search: {e}")))?;
                let text: String = found
                    .matches
                    .iter()
                    .map(|h| format!("{}:{}:{}\n", h.path, h.line, h.text))
                    .collect();
                let env = self.wrap(
                    &format!("search {}", a.pattern.chars().take(80).collect::<String>()),
                    text.as_bytes(),
                    "narrow the search with `path` or `glob`, or lower max_matches",
                );
                Ok(json!({
                    "matches": found.matches.len(),
                    "files_searched": found.files_searched,
                    "truncated": found.truncated,
                    "secret_files_skipped": found.secret_files_skipped,
                    "hits": env,
                }))
            }
            "write_file" => {
                let a: WriteArgs = from(args)?;
                let rel = RelPath::parse(&a.path)?;
                guarded(&rel)?;
                // A configuration file is backed up before it is replaced, and the write then
                // replaces exactly what was backed up.
                let (written, backup) = if fs::write::wants_backup(&rel) {
                    let stamp = fs::write::backup_stamp(crate::approval::now());
                    let (written, kept) = fs::write::backup_then_write(
                        root,
                        &rel,
                        a.content.as_bytes(),
                        a.create_dirs,
                        &stamp,
                    )?;
                    (written, kept.map(|k| k.as_text()))
                } else {
                    let written = fs::write::write_atomic(
                        root,
                        &rel,
                        a.content.as_bytes(),
                        &fs::write::Expect::Current,
                        a.create_dirs,
                    )?;
                    (written, None)
                };
                Ok(json!({
                    "path": rel.as_text(),
                    "bytes": written.bytes,
                    "created": written.created,
                    "backup": backup,
                }))
            }
            "edit_file" => {
                let (path, edit) = edit_args(args)?;
                let rel = RelPath::parse(&path)?;
                guarded(&rel)?;
                let (bytes, stat) = fs::read::read_all(root, &rel, MAX_EDIT_BYTES)?;
                let original = String::from_utf8(bytes).map_err(|_| {
                    Failure::from(FsError::NotUtf8 {
                        path: rel.as_text(),
                        detail: "edits apply to UTF-8 text only".into(),
                    })
                })?;
                let applied = fs::edit::apply(&original, &edit, &fs::edit::Limits::default())
                    .map_err(|e| Failure::new(e.code(), e.to_string()))?;
                let expect = fs::write::Expect::Same {
                    dev: stat.st_dev,
                    ino: stat.st_ino,
                    sha256: fs::edit::digest(&original),
                };
                let backup = if fs::write::wants_backup(&rel) {
                    Some(self.keep_backup(&rel, original.as_bytes())?)
                } else {
                    None
                };
                fs::write::write_atomic(&self.root, &rel, applied.text.as_bytes(), &expect, false)?;
                Ok(json!({
                    "path": rel.as_text(),
                    "hunks": applied.hunks,
                    "replacements": applied.replacements,
                    "lines_added": applied.lines_added,
                    "lines_removed": applied.lines_removed,
                    "sha256": fs::edit::digest(&applied.text),
                    "backup": backup,
                }))
            }
            other => Err(Failure::new(
                "TOOL_UNAVAILABLE",
                format!("`{other}` is not carried out here"),
            )),
        }
    }

    /// Keeps the old content of a configuration-like file beneath `.warden/backups`.
    fn keep_backup(&self, rel: &RelPath, old: &[u8]) -> Result<String, Failure> {
        let stamp = fs::write::backup_stamp(crate::approval::now());
        fs::write::backup(&self.root, rel, old, &stamp)
            .map(|p| p.as_text())
            .map_err(|e| {
                Failure::new(
                    e.code(),
                    format!(
                        "the backup of `{}` could not be written ({e})",
                        rel.as_text()
                    ),
                )
            })
    }

    /// Runs an authorised `bash` call in the sandbox, its output captured.
    fn run_bash(
        &mut self,
        evaluation: &Evaluation,
        authorized: &Authorized,
        outcome: &mut crate::audit::Outcome,
    ) -> Result<Value, Failure> {
        use crate::runner::{Confinement, Runner};
        let ctx = &self.evaluator.ctx;
        let confinement = match crate::sandbox::configure(
            &ctx.workspace,
            false,
            self.settings.pass_env.clone(),
        ) {
            Ok(mut config) => {
                config.allow_degraded = self.settings.allow_degraded;
                Confinement::Sandbox(config)
            }
            Err(why) if self.settings.allow_degraded && !why.is_refusal() => {
                Confinement::Unconfined
            }
            Err(why) => return Err(Failure::new("INTERNAL", why.to_string())),
        };
        outcome.confinement = match confinement {
            Confinement::Sandbox(_) => "sandbox".into(),
            Confinement::Unconfined => "unconfined (degraded)".into(),
        };
        let mut runner = Runner::new(ctx.cwd.clone(), confinement);
        runner.max_stdout = Some(crate::runner::CAPTURE_MAX);
        runner.max_stderr = Some(crate::runner::CAPTURE_MAX);
        let captured = Arc::new(crate::runner::Captured::default());
        runner.capture = Some(Arc::clone(&captured));
        runner.null_stdin = true;
        if let Some(t) = self.settings.timeout {
            runner.timeout = t;
        }
        if let Some(t) = self.bash_timeout.take() {
            runner.timeout = t;
        }
        if let Some(g) = self.settings.grace {
            runner.grace = g;
        }
        let result = runner.run(authorized);
        outcome.output = Some(runner.output.summary());
        let (stdout, stderr) = captured.take();
        let ran = result.map_err(|e| Failure::new("INTERNAL", e.to_string()))?;
        outcome.exit = ran.exit_code();
        if ran == crate::runner::Outcome::TimedOut {
            return Err(Failure::new(
                "TIMEOUT",
                format!(
                    "[timeout] killed after {:?}: the command and everything it started were stopped",
                    runner.timeout
                ),
            ));
        }
        let command = envelope::redact::redact(&evaluation.request.text()).text;
        let source = format!("bash {}", command.chars().take(80).collect::<String>());
        let out = self.wrap(
            &format!("{source} (stdout)"),
            &stdout,
            "write the output to a file and read_file it in pages",
        );
        let err = self.wrap(
            &format!("{source} (stderr)"),
            &stderr,
            "write the output to a file and read_file it in pages",
        );
        Ok(json!({"exit_code": ran.exit_code(), "stdout": out, "stderr": err}))
    }

    /// Wraps tool output in the envelope, within the budgets.
    fn wrap(&mut self, source: &str, content: &[u8], hint: &str) -> Value {
        let budget = self.settings.result_budget.max(1024);
        let granted = self.budget.grant(content.len(), budget);
        envelope::wrap(source, content, granted, hint).to_json()
    }

    fn audit(&self, evaluation: &Evaluation, outcome: crate::audit::Outcome) {
        let ctx = &self.evaluator.ctx;
        let record = crate::audit::record_of(
            evaluation,
            Some(self.settings.session.as_deref().unwrap_or(&self.session)),
            &ctx.workspace,
            &ctx.cwd,
            false,
            &self.evaluator.policy.revision,
            outcome,
        );
        if let Some(log) = crate::audit::Log::open()
            && let Err(e) = log.append(&record)
        {
            eprintln!("warden: the audit log could not be written: {e}");
        }
    }
}

fn from<T: serde::de::DeserializeOwned>(args: &Value) -> Result<T, Failure> {
    T::deserialize(args).map_err(|e| Failure::invalid(e.to_string()))
}

/// The path and the edit of an `edit_file` call (`path` beside either edit form).
fn edit_args(args: &Value) -> Result<(String, fs::edit::Edit), Failure> {
    let mut map = args.as_object().cloned().unwrap_or_default();
    let path = match map.remove("path") {
        Some(Value::String(p)) => p,
        Some(_) => return Err(Failure::invalid("edit_file: `path` must be a string")),
        None => return Err(Failure::invalid("edit_file: missing field `path`")),
    };
    let edit = fs::edit::Edit::deserialize(Value::Object(map))
        .map_err(|e| Failure::invalid(format!("edit_file: {e}")))?;
    Ok((path, edit))
}

fn guarded(rel: &RelPath) -> Result<(), Failure> {
    match fs::guarded(rel) {
        Some(why) => Err(Failure::new(
            "PATH_REJECTED",
            format!(
                "`{}` is guarded: {why}; it is not written by tools",
                rel.as_text()
            ),
        )),
        None => Ok(()),
    }
}

fn policy_denied(v: &crate::policy::Verdict) -> Failure {
    Failure::new(
        "POLICY_DENIED",
        format!("[{}] blocked: {} — {}", v.tier.as_str(), v.reason, v.hint),
    )
    .with("tier", v.tier.as_str())
    .with("rule", v.rule.clone())
    .with("reason", v.reason.clone())
    .with("hint", v.hint.clone())
}

fn failure_json(id: Option<Value>, f: &Failure) -> Value {
    let mut error = serde_json::Map::new();
    error.insert("code".into(), f.code.into());
    error.insert("message".into(), f.message.clone().into());
    for (k, v) in &f.details {
        error.insert(k.clone(), v.clone());
    }
    json!({"id": id, "ok": false, "error": error})
}
