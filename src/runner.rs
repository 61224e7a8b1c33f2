//! Execution of authorised plans.
//!
//! Every run gets its own process group and a deadline, and runs inside the sandbox unless the
//! user opted out. At the deadline every process of the run's tree gets TERM (and CONT), then,
//! after a grace period, KILL; the result is then a timeout (exit 124). Invariant: the runner
//! accepts only an [`Authorized`] plan, which only an allowing decision can produce.

use std::path::PathBuf;
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, mpsc};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};

use crate::policy::{Authorized, Plan};

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
pub const DEFAULT_GRACE: Duration = Duration::from_secs(2);

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Exited(i32),
    Signaled(i32),
    TimedOut,
}

impl Outcome {
    /// The exit status warden reports, as bash would (128+N for a signal, 124 for a timeout).
    pub fn exit_code(self) -> i32 {
        match self {
            Outcome::Exited(code) => code,
            Outcome::Signaled(sig) => 128 + sig,
            Outcome::TimedOut => crate::exit::TIMEOUT,
        }
    }
}

/// A run that could not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}: command not found")]
    NotFound(String),
    #[error("{0}: permission denied")]
    NotExecutable(String),
    #[error("could not start {program}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    /// What the sandbox needs on the host could not be prepared; the command did not run.
    #[error("cannot prepare the sandbox: {0}")]
    Prepare(std::io::Error),
    /// The sandbox could not be set up; the command did not run.
    #[error(
        "the sandbox could not start, so the command did not run (bwrap's own message is above); `warden doctor` names the cause and the fix"
    )]
    SandboxFailed,
}

impl RunError {
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::NotFound(_) => 127,
            RunError::NotExecutable(_) => 126,
            RunError::Spawn { .. } | RunError::Prepare(_) | RunError::SandboxFailed => 125,
        }
    }
}

/// The cap on each captured stream: the envelope then applies the caller's budget to it.
pub const CAPTURE_MAX: usize = 8 * 1024 * 1024;

/// Where commands run.
#[derive(Clone, Debug)]
pub enum Confinement {
    /// Inside bubblewrap (see [`crate::sandbox`]).
    Sandbox(crate::sandbox::Config),
    /// Directly on the host: only when the user opted in to running without the sandbox.
    Unconfined,
}

/// Runs plans with a deadline in a working directory.
#[derive(Clone, Debug)]
pub struct Runner {
    pub timeout: Duration,
    pub grace: Duration,
    pub cwd: PathBuf,
    pub confinement: Confinement,
    /// Byte budget for the command's stdout and stderr (None: passed straight through, as for
    /// a terminal).
    pub max_stdout: Option<usize>,
    pub max_stderr: Option<usize>,
    /// What the commands printed through warden (when capped), over every run.
    pub output: Arc<OutputTally>,
    /// Keep the (capped) output here instead of writing it to warden's own streams: for tool
    /// calls and `--envelope`, whose caller reads a result, not a stream.
    pub capture: Option<Arc<Captured>>,
    /// Give the command an empty stdin (tool calls: warden's stdin carries the protocol).
    pub null_stdin: bool,
}

impl Runner {
    pub fn new(cwd: PathBuf, confinement: Confinement) -> Runner {
        Runner {
            timeout: DEFAULT_TIMEOUT,
            grace: DEFAULT_GRACE,
            cwd,
            confinement,
            max_stdout: None,
            max_stderr: None,
            output: Arc::default(),
            capture: None,
            null_stdin: false,
        }
    }

    fn sink(&self, stream: Stream) -> Sink {
        match (&self.capture, stream) {
            (Some(c), _) => Sink::Buffer(Arc::clone(c), stream),
            (None, Stream::Stdout) => Sink::Stdout,
            (None, Stream::Stderr) => Sink::Stderr,
        }
    }

    /// Runs an authorised plan to completion or to its deadline.
    pub fn run(&self, authorized: &Authorized) -> Result<Outcome, RunError> {
        let deadline = Instant::now() + self.timeout;
        match authorized.plan() {
            Plan::Shell {
                script,
                positional,
                options,
            } => {
                if let Some(argv) = positional
                    .is_empty()
                    .then_some(())
                    .filter(|()| options.is_empty())
                    .and_then(|()| direct_argv(script))
                {
                    return self.run_one(&argv, deadline);
                }
                let mut argv = vec!["bash".to_string()];
                argv.extend(options.iter().cloned());
                argv.push("-c".into());
                argv.push(script.clone());
                argv.extend(positional.iter().cloned());
                self.run_one(&argv, deadline)
            }
            Plan::Argv { argv } => self.run_one(argv, deadline),
            Plan::Tool { tool, .. } => Err(RunError::NotFound(format!("{tool} (a file tool)"))),
            Plan::Steps { steps } => {
                let mut last = Outcome::Exited(0);
                for step in steps {
                    last = self.run_one(step, deadline)?;
                    if last != Outcome::Exited(0) {
                        break;
                    }
                }
                Ok(last)
            }
        }
    }

    /// Runs an argv without a policy decision: only for warden's own containment probes
    /// (`selftest`), which try on purpose what the policy would refuse.
    pub(crate) fn run_probe(&self, argv: &[String]) -> Result<Outcome, RunError> {
        self.run_one(argv, Instant::now() + self.timeout)
    }

    fn command(
        &self,
        argv: &[String],
    ) -> Result<(Command, Option<crate::sandbox::Session>), RunError> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| RunError::NotFound(String::new()))?;
        match &self.confinement {
            Confinement::Unconfined => {
                let mut cmd = Command::new(program);
                cmd.args(args).current_dir(&self.cwd);
                Ok((cmd, None))
            }
            Confinement::Sandbox(config) => crate::sandbox::command(config, &self.cwd, argv)
                .map(|(cmd, session)| (cmd, Some(session)))
                .map_err(RunError::Prepare),
        }
    }

    fn run_one(&self, argv: &[String], deadline: Instant) -> Result<Outcome, RunError> {
        let (cmd, session) = self.command(argv)?;
        let outcome = self.run_command(cmd, argv, deadline)?;
        if let Some(session) = &session {
            if matches!(outcome, Outcome::Exited(_)) && !session.started() {
                return Err(RunError::SandboxFailed);
            }
            if let Some(notice) = session.after_run_notice() {
                eprintln!("{notice}");
            }
        }
        drop(session);
        Ok(outcome)
    }

    fn run_command(
        &self,
        mut cmd: Command,
        argv: &[String],
        deadline: Instant,
    ) -> Result<Outcome, RunError> {
        use std::os::unix::process::CommandExt;
        let program = argv.first().cloned().unwrap_or_default();
        cmd.process_group(0);
        if self.null_stdin {
            cmd.stdin(std::process::Stdio::null());
        }
        if self.max_stdout.is_some() {
            cmd.stdout(std::process::Stdio::piped());
        }
        if self.max_stderr.is_some() {
            cmd.stderr(std::process::Stdio::piped());
        }
        let mut child = cmd.spawn().map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => RunError::NotFound(program.clone()),
            std::io::ErrorKind::PermissionDenied => RunError::NotExecutable(program.clone()),
            _ => RunError::Spawn {
                program: program.clone(),
                source,
            },
        })?;
        let leader = child.id();
        let group = Pid::from_child(&child);
        let mut copiers = Vec::new();
        if let (Some(max), Some(pipe)) = (self.max_stdout, child.stdout.take()) {
            copiers.push(spawn_copier(
                Counting(pipe, Arc::clone(&self.output), Stream::Stdout),
                max,
                self.sink(Stream::Stdout),
            ));
        }
        if let (Some(max), Some(pipe)) = (self.max_stderr, child.stderr.take()) {
            copiers.push(spawn_copier(
                Counting(pipe, Arc::clone(&self.output), Stream::Stderr),
                max,
                self.sink(Stream::Stderr),
            ));
        }
        let (tx, rx) = mpsc::channel::<std::io::Result<ExitStatus>>();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        let caught = caught_signal();
        let status = loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            let stopped_by = match rx.recv_timeout(remaining.min(Duration::from_millis(50))) {
                Ok(status) => break Some(status),
                Err(mpsc::RecvTimeoutError::Disconnected) => break None,
                Err(mpsc::RecvTimeoutError::Timeout) if remaining.is_zero() => Stop::Deadline,
                Err(mpsc::RecvTimeoutError::Timeout) => match caught.load(Ordering::SeqCst) {
                    0 => continue,
                    sig => Stop::Signal(sig as i32),
                },
            };
            // TERM (and CONT, so stopped processes see it) to the whole tree, including
            // processes that left the group (`setsid`, bwrap's new session); then KILL. In the
            // sandbox, TERM goes only to the command's processes: bwrap and its pid-1 reaper
            // would die of it and take the namespace down at once, with no grace.
            let sandboxed = matches!(self.confinement, Confinement::Sandbox(_));
            let tree = process_tree(leader);
            let term: Vec<u32> = tree
                .iter()
                .filter(|(pid, parent)| !sandboxed || (*pid != leader && *parent != leader))
                .map(|(pid, _)| *pid)
                .collect();
            signal_all(&term, Signal::TERM);
            signal_all(&term, Signal::CONT);
            if !sandboxed {
                signal_group(group, Signal::TERM);
            }
            if rx.recv_timeout(self.grace).is_err() {
                signal_all(&pids(&process_tree(leader)), Signal::KILL);
                signal_group(group, Signal::KILL);
                let _ = rx.recv();
            }
            // Stragglers that ignored TERM and outlived the leader go too.
            signal_all(&pids(&tree), Signal::KILL);
            signal_group(group, Signal::KILL);
            finish_copiers(copiers);
            return Ok(match stopped_by {
                Stop::Deadline => Outcome::TimedOut,
                Stop::Signal(sig) => Outcome::Signaled(sig),
            });
        };
        finish_copiers(copiers);
        let status = status
            .unwrap_or_else(|| Err(std::io::Error::other("lost track of the command")))
            .map_err(|source| RunError::Spawn { program, source })?;
        Ok(outcome_of(status))
    }
}

/// The argv of a script that is one simple command of plain words, which bash would only split
/// on blanks and execute (`true`, `cargo build --release`, `git status`): run directly, it
/// behaves the same and saves starting a shell. None for anything else: quoting, expansion of
/// any kind, redirections, operators, assignments, comments, builtins and keywords (other than
/// `true` and `false`, which the system has as programs too).
pub fn direct_argv(script: &str) -> Option<Vec<String>> {
    const PLAIN: fn(char) -> bool = |c| c.is_ascii_alphanumeric() || "_./:,+=@%^-".contains(c);
    const SHELL_WORDS: &[&str] = &[
        ".",
        ":",
        "[",
        "[[",
        "]]",
        "{",
        "}",
        "!",
        "alias",
        "bg",
        "bind",
        "break",
        "builtin",
        "caller",
        "case",
        "cd",
        "command",
        "compgen",
        "complete",
        "compopt",
        "continue",
        "coproc",
        "declare",
        "dirs",
        "disown",
        "do",
        "done",
        "echo",
        "elif",
        "else",
        "enable",
        "esac",
        "eval",
        "exec",
        "exit",
        "export",
        "fc",
        "fg",
        "fi",
        "for",
        "function",
        "getopts",
        "hash",
        "help",
        "history",
        "if",
        "in",
        "jobs",
        "kill",
        "let",
        "local",
        "logout",
        "mapfile",
        "popd",
        "printf",
        "pushd",
        "pwd",
        "read",
        "readarray",
        "readonly",
        "return",
        "select",
        "set",
        "shift",
        "shopt",
        "source",
        "suspend",
        "test",
        "then",
        "time",
        "times",
        "trap",
        "type",
        "typeset",
        "ulimit",
        "umask",
        "unalias",
        "unset",
        "until",
        "wait",
        "while",
    ];
    let words: Vec<&str> = script
        .split([' ', '\t'])
        .filter(|w| !w.is_empty())
        .collect();
    let program = words.first()?;
    let plain = words.iter().all(|w| w.chars().all(PLAIN));
    if !plain || program.contains('=') || program.starts_with('-') || SHELL_WORDS.contains(program)
    {
        return None;
    }
    Some(words.iter().map(|w| w.to_string()).collect())
}

/// Why a run is being stopped early.
enum Stop {
    Deadline,
    /// warden itself got this signal (Ctrl-C, TERM, HUP): the command's tree gets the same
    /// TERM → grace → KILL as on a timeout, and warden reports 128+N.
    Signal(i32),
}

/// The signal warden has caught (0 for none). Handlers are installed once, on first use: the
/// command runs in its own process group, so a terminal's Ctrl-C reaches only warden, which must
/// pass it on rather than die and leave the command running.
fn caught_signal() -> Arc<AtomicUsize> {
    static CAUGHT: OnceLock<Arc<AtomicUsize>> = OnceLock::new();
    CAUGHT
        .get_or_init(|| {
            let flag = Arc::new(AtomicUsize::new(0));
            for sig in [
                signal_hook::consts::SIGINT,
                signal_hook::consts::SIGTERM,
                signal_hook::consts::SIGHUP,
            ] {
                let _ = signal_hook::flag::register_usize(sig, Arc::clone(&flag), sig as usize);
            }
            flag
        })
        .clone()
}

/// Copies one of the command's streams to warden's own, within the budget, on its own thread.
/// One of a command's output streams.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// The bytes a command's streams carried and their SHA-256 (all of them, including what the
/// budget dropped), for the audit record.
#[derive(Debug, Default)]
pub struct OutputTally {
    bytes: std::sync::atomic::AtomicU64,
    // One lock per stream: the two copier threads never wait for each other.
    stdout: std::sync::Mutex<sha2::Sha256>,
    stderr: std::sync::Mutex<sha2::Sha256>,
}

/// The totals of a tally.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputSummary {
    pub bytes: u64,
    pub stdout_sha256: String,
    pub stderr_sha256: String,
}

impl OutputTally {
    fn add(&self, stream: Stream, chunk: &[u8]) {
        use sha2::Digest;
        self.bytes.fetch_add(chunk.len() as u64, Ordering::Relaxed);
        let hasher = match stream {
            Stream::Stdout => &self.stdout,
            Stream::Stderr => &self.stderr,
        };
        hasher
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .update(chunk);
    }

    /// The byte count and each stream's digest so far.
    pub fn summary(&self) -> OutputSummary {
        use sha2::Digest;
        let hex = |h: &std::sync::Mutex<sha2::Sha256>| -> String {
            h.lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
                .finalize()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect()
        };
        OutputSummary {
            bytes: self.bytes.load(Ordering::Relaxed),
            stdout_sha256: hex(&self.stdout),
            stderr_sha256: hex(&self.stderr),
        }
    }
}

/// A reader that adds what it reads to a tally.
struct Counting<R>(R, Arc<OutputTally>, Stream);

impl<R: std::io::Read> std::io::Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        self.1.add(self.2, &buf[..n]);
        Ok(n)
    }
}

/// Where a copier writes.
enum Sink {
    Stdout,
    Stderr,
    Buffer(Arc<Captured>, Stream),
}

/// The output of captured runs (each stream within the runner's cap, with the marker of what
/// was dropped beyond it).
#[derive(Debug, Default)]
pub struct Captured {
    pub stdout: std::sync::Mutex<Vec<u8>>,
    pub stderr: std::sync::Mutex<Vec<u8>>,
}

impl Captured {
    /// Takes what was captured so far.
    pub fn take(&self) -> (Vec<u8>, Vec<u8>) {
        let take = |m: &std::sync::Mutex<Vec<u8>>| {
            std::mem::take(&mut *m.lock().unwrap_or_else(|e| e.into_inner()))
        };
        (take(&self.stdout), take(&self.stderr))
    }
}

/// A writer into one of the captured buffers.
struct BufferWriter(Arc<Captured>, Stream);

impl std::io::Write for BufferWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let target = match self.1 {
            Stream::Stdout => &self.0.stdout,
            Stream::Stderr => &self.0.stderr,
        };
        target
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn spawn_copier(
    pipe: impl std::io::Read + Send + 'static,
    max: usize,
    sink: Sink,
) -> mpsc::Receiver<()> {
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = match sink {
            Sink::Stdout => crate::output::copy_capped(pipe, std::io::stdout(), max),
            Sink::Stderr => crate::output::copy_capped(pipe, std::io::stderr(), max),
            Sink::Buffer(captured, stream) => {
                crate::output::copy_capped(pipe, BufferWriter(captured, stream), max)
            }
        };
        let _ = done.send(());
    });
    finished
}

/// Waits briefly for the copiers: a background process that outlives the command may hold
/// its pipe open, and warden does not wait for it.
fn finish_copiers(copiers: Vec<mpsc::Receiver<()>>) {
    for copier in copiers {
        let _ = copier.recv_timeout(Duration::from_millis(500));
    }
}

fn pids(tree: &[(u32, u32)]) -> Vec<u32> {
    tree.iter().map(|(pid, _)| *pid).collect()
}

/// The leader and all its descendants with their parents, from the parent links in `/proc`
/// (leader first, its parent given as 0).
fn process_tree(leader: u32) -> Vec<(u32, u32)> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.filter_map(Result::ok) {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // `pid (comm) state ppid …`: comm may hold spaces and parentheses.
            let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
                continue;
            };
            if let Some(ppid) = rest
                .split_whitespace()
                .nth(1)
                .and_then(|p| p.parse::<u32>().ok())
            {
                parents.push((pid, ppid));
            }
        }
    }
    let mut tree = vec![(leader, 0)];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i].0;
        tree.extend(parents.iter().filter(|(_, pp)| *pp == parent).copied());
        i += 1;
    }
    tree
}

fn signal_all(pids: &[u32], signal: Signal) {
    let me = std::process::id();
    for &pid in pids {
        if pid > 1
            && pid != me
            && let Some(pid) = Pid::from_raw(pid as i32)
        {
            let _ = rustix::process::kill_process(pid, signal);
        }
    }
}

fn signal_group(group: Pid, signal: Signal) {
    // Never signal init or our own group: the child got a fresh group whose id is its pid.
    if group.as_raw_nonzero().get() > 1 && group != rustix::process::getpgrp() {
        let _ = kill_process_group(group, signal);
    }
}

fn outcome_of(status: ExitStatus) -> Outcome {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Outcome::Exited(code),
        (None, Some(sig)) => Outcome::Signaled(sig),
        (None, None) => Outcome::Exited(125),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_simple_commands_skip_the_shell() {
        assert_eq!(direct_argv("true"), Some(vec!["true".to_string()]));
        assert_eq!(
            direct_argv("  cargo build\t--release  "),
            Some(vec!["cargo".into(), "build".into(), "--release".into()])
        );
        assert_eq!(
            direct_argv("git log --format=%h -n 3"),
            Some(vec![
                "git".into(),
                "log".into(),
                "--format=%h".into(),
                "-n".into(),
                "3".into()
            ])
        );
        for shell in [
            "",
            "   ",
            "echo hi",
            "cd src",
            "FOO=1 make",
            "ls *.rs",
            "ls ~",
            "echo $HOME",
            "ls 'a b'",
            "ls a\\ b",
            "ls > out",
            "a && b",
            "a; b",
            "a | b",
            "ls # c",
            "ls {a,b}",
            "f()",
            "ls\nrm x",
            "exec ls",
            "-x",
            "time ls",
            "ls [ab]",
            "ls a?",
            "echo `id`",
            "ls !x",
        ] {
            assert_eq!(direct_argv(shell), None, "{shell:?}");
        }
    }
}
