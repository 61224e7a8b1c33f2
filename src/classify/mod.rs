//! Invocation → operation: the program, its side effect, its real targets and the facts rules see.
//!
//! A [`Fact`] is an observation with a stable name (`delete.outside`, `git.force_push`,
//! `secret.read`, …) and the detail that triggered it. Rules match facts; facts are produced here
//! by code that knows each program's argv grammar. Invariant: every path target goes through
//! [`paths::resolve`] against the tracked cwd, and every fact names what caused it.

pub mod files;
pub mod paths;
mod programs;
pub mod secrets;

use std::path::PathBuf;

use crate::shell::{Analysis, Context, Input, Invocation, RedirectKind, Value, Word};
use paths::{Place, Resolved};

/// The kind of side effect an operation has.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    Read,
    Write,
    Delete,
    Exec,
    Network,
    Publish,
    System,
    Privilege,
    Unknown,
}

impl Effect {
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Read => "read",
            Effect::Write => "write",
            Effect::Delete => "delete",
            Effect::Exec => "exec",
            Effect::Network => "network",
            Effect::Publish => "publish",
            Effect::System => "system",
            Effect::Privilege => "privilege",
            Effect::Unknown => "unknown",
        }
    }
}

/// What an operation does to a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Read,
    Write,
    /// Overwrites the whole file (`>`): destroys its old content.
    Truncate,
    Delete,
    /// Everything beneath the path is deleted, not the path itself (`find ROOT -delete`).
    DeleteUnder,
}

/// A path an operation touches.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Target {
    pub role: Role,
    #[serde(flatten)]
    pub resolved: Resolved,
}

/// An observation the rules can match.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Fact {
    pub name: String,
    pub detail: String,
}

/// One classified operation.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Operation {
    /// Normalised program name ("" for a bare redirection, "(shell)" for structural findings).
    pub program: String,
    pub subcommand: Option<String>,
    pub args: Vec<String>,
    pub effect: Effect,
    pub targets: Vec<Target>,
    /// Remote host or URL reached, if any.
    pub remote: Option<String>,
    pub facts: Vec<Fact>,
    pub via: Vec<String>,
    pub privileged: bool,
    /// The command as written (for messages).
    pub text: String,
}

impl Operation {
    pub fn fact(&mut self, name: &str, detail: impl Into<String>) {
        let fact = Fact {
            name: name.to_string(),
            detail: detail.into(),
        };
        if !self.facts.contains(&fact) {
            self.facts.push(fact);
        }
    }

    pub fn has_fact(&self, name: &str) -> bool {
        self.facts.iter().any(|f| f.name == name)
    }
}

/// Everything the classifier needs besides the invocation.
pub struct Env<'a> {
    pub ctx: &'a Context,
    pub workspace: PathBuf,
    pub home: String,
    /// Symbolic links created earlier in the same request (`ln -s / x; rm -rf x/`): they do not
    /// exist on disk yet, so later targets are resolved through them here. None: a target
    /// computed at run time.
    links: std::cell::RefCell<Vec<(PathBuf, Option<PathBuf>)>>,
}

impl<'a> Env<'a> {
    pub fn new(ctx: &'a Context) -> Self {
        Env {
            ctx,
            workspace: paths::real_workspace(ctx),
            home: ctx.home.to_string_lossy().into_owned(),
            links: std::cell::RefCell::new(Vec::new()),
        }
    }

    pub fn resolve(&self, word: &Word, cwd: &Option<PathBuf>) -> Resolved {
        let mut resolved = paths::resolve(word, cwd, self.ctx, &self.workspace);
        self.through_new_links(&mut resolved);
        resolved
    }

    /// Records a symbolic link the request creates.
    pub(crate) fn add_link(&self, link: PathBuf, target: Option<PathBuf>) {
        self.links.borrow_mut().push((link, target));
    }

    fn through_new_links(&self, resolved: &mut Resolved) {
        let links = self.links.borrow();
        let Some(path) = resolved.path.clone() else {
            return;
        };
        let follows = resolved.written.ends_with('/') || resolved.written.ends_with("/.");
        for (link, target) in links.iter().rev() {
            let Ok(rest) = path.strip_prefix(link) else {
                continue;
            };
            if rest.as_os_str().is_empty() && !follows {
                continue; // the link itself, not what it points to
            }
            match target {
                Some(target) => {
                    let through = paths::real_path(&target.join(rest), follows);
                    resolved.place = paths::place_of(&through, self.ctx, &self.workspace);
                    resolved.exists = std::fs::symlink_metadata(&through).is_ok();
                    resolved.path = Some(through);
                }
                None => {
                    resolved.place = Place::Dynamic;
                    resolved.path = None;
                }
            }
            return;
        }
    }
}

/// Classifies every invocation of an analysis; structural findings become one extra operation.
pub fn classify(analysis: &Analysis, ctx: &Context) -> Vec<Operation> {
    let env = Env::new(ctx);
    let mut ops = Vec::with_capacity(analysis.invocations.len() + 1);
    if !analysis.findings.is_empty() {
        let mut op = Operation {
            program: "(shell)".into(),
            subcommand: None,
            args: Vec::new(),
            effect: Effect::Unknown,
            targets: Vec::new(),
            remote: None,
            facts: Vec::new(),
            via: Vec::new(),
            privileged: false,
            text: String::new(),
        };
        for f in &analysis.findings {
            op.fact(f.kind.fact(), f.detail.clone());
        }
        ops.push(op);
    }
    // Files this request writes, in order: running one of them afterwards runs code that did
    // not exist (in that form) when the request was judged.
    let mut written: Vec<PathBuf> = Vec::new();
    let mut earlier_may_write = false;
    for inv in &analysis.invocations {
        let mut op = classify_invocation(inv, &env);
        if let Some((script, by_shell)) = executed_script(inv, &op, &env) {
            if written.contains(&script) {
                op.fact(
                    "code.unknown_origin",
                    format!(
                        "{} is written earlier in this command, then run",
                        script.display()
                    ),
                );
            } else if by_shell && earlier_may_write && std::fs::symlink_metadata(&script).is_err() {
                op.fact(
                    "code.unknown_origin",
                    format!("{} does not exist yet and an earlier command may create it; its content cannot be checked", script.display()),
                );
            }
        }
        for t in &op.targets {
            if matches!(t.role, Role::Write | Role::Truncate)
                && let Some(path) = &t.resolved.path
            {
                written.push(path.clone());
            }
        }
        earlier_may_write |= may_write(&op);
        ops.push(op);
    }
    ops
}

/// Whether an operation could create files: anything but reads and shell bookkeeping.
fn may_write(op: &Operation) -> bool {
    const PURE: &[&str] = &[
        "cd", "pushd", "popd", "export", "set", "shopt", "true", "false", "test", "[", "[[",
        "echo", "printf", "unset", "local", "declare", "alias", ":",
    ];
    let writes_target = op.targets.iter().any(|t| !matches!(t.role, Role::Read));
    writes_target || !(op.effect == Effect::Read || PURE.contains(&op.program.as_str()))
}

/// The script file an invocation runs: a shell's or `source`'s script operand, or a program
/// named by path.
/// `by_shell` is true when a shell reads the file as a script (`bash x.sh`, `source x`); a
/// program run by path may be a compiled binary, built by an earlier step.
fn executed_script(inv: &Invocation, op: &Operation, env: &Env) -> Option<(PathBuf, bool)> {
    let first = inv.argv.first()?;
    if first.as_literal().is_some_and(|p| p.contains('/')) {
        return env.resolve(first, &inv.cwd).path.map(|p| (p, false));
    }
    if matches!(
        op.program.as_str(),
        "bash" | "sh" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "source" | "."
    ) {
        return op
            .targets
            .iter()
            .find(|t| t.role == Role::Read)
            .and_then(|t| t.resolved.path.clone())
            .map(|p| (p, true));
    }
    None
}

/// Classifies one invocation.
pub fn classify_invocation(inv: &Invocation, env: &Env) -> Operation {
    let program = inv.program().unwrap_or_default();
    let mut op = Operation {
        program: program.clone(),
        subcommand: None,
        args: inv.argv.iter().skip(1).map(|w| w.raw.clone()).collect(),
        effect: if inv.argv.is_empty() {
            Effect::Write
        } else {
            Effect::Exec
        },
        targets: Vec::new(),
        remote: None,
        facts: Vec::new(),
        via: inv.via.clone(),
        privileged: inv.privileged,
        text: inv.display(),
    };
    judge_assignments(inv, &mut op);
    judge_redirects(inv, env, &mut op);
    if !inv.argv.is_empty() {
        programs::classify_program(inv, env, &mut op);
        if let Some(why) = programs::credential_printer(&program, &inv.argv[1..]) {
            op.fact("secret.read", why);
        }
    }
    judge_targets(inv, env, &mut op);
    // `xargs rm`, `parallel rm {}`: the paths arrive on stdin at run time, so none can be checked.
    if inv.args_from_input && op.effect == Effect::Delete && !op.has_fact("delete.from_input") {
        let via = inv.via.last().map(String::as_str).unwrap_or("xargs");
        op.fact(
            "delete.from_input",
            format!("deletes paths read from input by {via}"),
        );
    }
    if inv.privileged {
        op.fact(
            "privilege",
            format!(
                "runs as another user via {}",
                inv.via.first().map(String::as_str).unwrap_or(&program)
            ),
        );
    }
    op
}

/// Variables that change what a program executes or loads.
const DANGEROUS_VARS: &[&str] = &[
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "BASH_ENV",
    "ENV",
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_EXEC_PATH",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "PAGER",
    "GIT_PAGER",
    "MANPAGER",
    "EDITOR",
    "VISUAL",
    "GIT_EDITOR",
    "SEQUENCE_EDITOR",
    "PROMPT_COMMAND",
    "PS4",
    "NODE_OPTIONS",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    "PERL5OPT",
    "PERL5LIB",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "PATH",
    "IFS",
    "DYLD_INSERT_LIBRARIES",
    "GIT_PROXY_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_TEMPLATE_DIR",
    "SHELLOPTS",
    "BASHOPTS",
    "LESSOPEN",
    "LESSCLOSE",
    "GCONV_PATH",
    "NODE_PATH",
];

/// Whether setting this variable changes what a program loads or runs. Shared with the
/// sandbox, whose environment never carries these.
pub fn dangerous_var(name: &str) -> bool {
    DANGEROUS_VARS.contains(&name)
        || name.starts_with("GIT_CONFIG")
        || name.starts_with("BASH_FUNC_")
        || name.starts_with("LD_")
}

fn judge_assignments(inv: &Invocation, op: &mut Operation) {
    for (name, value) in &inv.assigns {
        if dangerous_var(name) {
            op.fact("env.dangerous", format!("{name}={}", value.raw));
        }
        if name.starts_with("GIT_SSH")
            || name.starts_with("GIT_CONFIG")
            || name == "GIT_EXEC_PATH"
            || name == "GIT_PROXY_COMMAND"
        {
            op.fact(
                "git.exec_vector",
                format!("{name} makes git run another program"),
            );
        }
    }
    // `export NAME=…` / `declare NAME=…` set variables for everything after.
    if matches!(
        inv.program().as_deref(),
        Some("export" | "declare" | "typeset" | "readonly" | "local")
    ) {
        for arg in inv.argv.iter().skip(1) {
            if let Some(text) = arg.as_literal().or_else(|| Some(arg.raw.clone()))
                && let Some((name, value)) = text.split_once('=')
                && dangerous_var(name)
            {
                op.fact("env.dangerous", format!("{name}={value}"));
            }
        }
    }
}

fn judge_redirects(inv: &Invocation, env: &Env, op: &mut Operation) {
    for r in &inv.redirects {
        let role = match r.kind {
            RedirectKind::Duplicate => continue,
            RedirectKind::Read => Role::Read,
            RedirectKind::Write => Role::Truncate,
            RedirectKind::Append | RedirectKind::ReadWrite => Role::Write,
        };
        let resolved = env.resolve(&r.target, &inv.cwd);
        op.targets.push(Target { role, resolved });
    }
}

/// Turns targets into facts: the rm boundary, writes outside, devices and secrets.
fn judge_targets(inv: &Invocation, env: &Env, op: &mut Operation) {
    let targets = std::mem::take(&mut op.targets);
    for t in &targets {
        let r = &t.resolved;
        let shown = if r.written.is_empty() {
            "(empty)".to_string()
        } else {
            r.written.clone()
        };
        // Secrets: any read, write or delete of a secret path, also through globs.
        if let Some(kind) = secret_of(r, env) {
            let name = if t.role == Role::Read {
                "secret.read"
            } else {
                "secret.write"
            };
            op.fact(name, format!("{shown} is {kind}"));
        }
        // Kernel tunables (`echo 3 > /proc/sys/vm/drop_caches`) change the machine, not files.
        let tunable = r
            .path
            .as_ref()
            .is_some_and(|p| p.starts_with("/proc/sys") || p.starts_with("/sys/"));
        if tunable && matches!(t.role, Role::Write | Role::Truncate) {
            op.fact("system.kernel", format!("writes {shown}, a kernel setting"));
            continue;
        }
        match t.role {
            Role::Read => {}
            Role::Write => match r.place {
                Place::Device => op.fact("device.write", format!("writes to the device {shown}")),
                Place::Inside
                | Place::WorkspaceRoot
                | Place::Sink
                | Place::Scratch
                | Place::Dynamic => {}
                _ => op.fact(
                    "write.outside",
                    format!("writes {shown}, outside the workspace"),
                ),
            },
            Role::Truncate => match r.place {
                Place::Device => op.fact("device.write", format!("writes to the device {shown}")),
                Place::Dynamic => op.fact(
                    "delete.dynamic",
                    format!("overwrites {shown}, a path computed at run time"),
                ),
                Place::Inside | Place::Sink | Place::Scratch => {}
                Place::WorkspaceRoot => op.fact(
                    "delete.workspace_root",
                    format!("overwrites the workspace root {shown}"),
                ),
                _ if r.exists => op.fact(
                    "delete.outside",
                    format!("overwrites {shown}, outside the workspace"),
                ),
                _ => op.fact(
                    "write.outside",
                    format!("writes {shown}, outside the workspace"),
                ),
            },
            Role::Delete | Role::DeleteUnder => judge_delete(t, &shown, inv, env, op),
        }
    }
    op.targets = targets;
}

fn judge_delete(t: &Target, shown: &str, inv: &Invocation, env: &Env, op: &mut Operation) {
    let r = &t.resolved;
    if inv.args_from_input {
        op.fact(
            "delete.from_input",
            format!(
                "deletes paths read from input by {}",
                inv.via.last().map(String::as_str).unwrap_or("xargs")
            ),
        );
        return;
    }
    let under = t.role == Role::DeleteUnder;
    match r.place {
        Place::Dynamic => op.fact(
            "delete.dynamic",
            format!("deletes {shown}, a path computed at run time"),
        ),
        Place::Root => op.fact(
            "delete.root",
            format!("deletes {shown}, the root filesystem"),
        ),
        Place::Home => op.fact(
            "delete.home",
            format!("deletes {shown}, the home directory"),
        ),
        Place::Device => op.fact("device.write", format!("destroys the device {shown}")),
        Place::System | Place::Sink => {
            op.fact("delete.system", format!("deletes {shown}, a system path"))
        }
        Place::WorkspaceRoot if under => {}
        Place::WorkspaceRoot => op.fact(
            "delete.workspace_root",
            format!("deletes {shown}, the workspace root itself"),
        ),
        Place::Inside => {
            // The repository itself: its history cannot be rebuilt from the working tree.
            if r.path
                .as_ref()
                .and_then(|p| p.file_name())
                .is_some_and(|n| n == ".git")
                && t.role == Role::Delete
            {
                op.fact(
                    "git.history",
                    format!("deletes {shown}, the repository's history"),
                );
            }
            if r.bare_glob
                && r.path
                    .as_ref()
                    .and_then(|p| p.parent())
                    .is_some_and(|p| p == env.workspace)
            {
                op.fact(
                    "delete.bare_glob",
                    format!("deletes {shown}, everything in the workspace root"),
                );
            }
        }
        Place::Scratch | Place::Outside if r.traversal => op.fact(
            "delete.traversal",
            format!("deletes {shown}, which climbs out of the workspace"),
        ),
        Place::Scratch | Place::Outside => op.fact(
            "delete.outside",
            format!("deletes {shown}, outside the workspace"),
        ),
    }
    if r.bare_glob
        && !matches!(r.place, Place::Inside | Place::Dynamic)
        && !op.has_fact("delete.bare_glob")
    {
        op.fact("delete.bare_glob", format!("deletes {shown}, a bare glob"));
    }
}

/// Secret check for a target, seeing through globs (pattern samples and the real directory).
fn secret_of(r: &Resolved, _env: &Env) -> Option<&'static str> {
    if r.path.is_none() {
        return r
            .known_texts
            .iter()
            .find_map(|t| secrets::secret_kind(t).or_else(|| secrets::glob_could_match_secret(t)));
    }
    let path = r.path.as_ref()?;
    let text = path.to_string_lossy();
    if let Some(kind) = secrets::secret_kind(&text) {
        return Some(kind);
    }
    if let Some(kind) = secrets::secret_kind(&r.written) {
        return Some(kind);
    }
    if r.glob {
        if let Some(kind) = secrets::glob_could_match_secret(&text) {
            return Some(kind);
        }
        return paths::expand_glob(path)
            .iter()
            .find_map(|p| secrets::is_secret_path(p));
    }
    None
}

/// Helper for programs: a recursive read of a directory (`grep -r`, `cp -r`, `tar c`) reads every
/// secret inside it too.
pub(crate) fn judge_tree_read(
    op: &mut Operation,
    env: &Env,
    inv: &Invocation,
    word: &Word,
    hidden: bool,
    excludes: &[String],
) {
    let r = env.resolve(word, &inv.cwd);
    let Some(path) = r.path else { return };
    if let Some((found, kind)) = secrets::find_in_tree(&path, hidden, excludes) {
        let inside = found
            .strip_prefix(&path)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| found.display().to_string());
        op.fact(
            "secret.read",
            format!(
                "{} reads {} recursively, including {inside}, which is {kind}",
                op.program, r.written
            ),
        );
    }
}

/// Helper for programs: resolves a word and records it as a target with a role.
pub(crate) fn add_target(op: &mut Operation, env: &Env, inv: &Invocation, word: &Word, role: Role) {
    let resolved = env.resolve(word, &inv.cwd);
    op.targets.push(Target { role, resolved });
}

/// True when the word's value is a fixed string (or home-relative).
pub(crate) fn literal_value(word: &Word, env: &Env) -> Option<String> {
    match word.value(&env.home) {
        Value::Literal(s) => Some(s),
        _ => None,
    }
}

/// The text a command reads on stdin when it is known (heredoc, here-string, echo | …).
pub(crate) fn known_input(inv: &Invocation) -> Option<&str> {
    match &inv.input {
        Input::From(crate::shell::Source::Literal(text)) => Some(text),
        _ => None,
    }
}
