//! Execution of authorised plans.
//!
//! Every run gets its own process group and a deadline. At the deadline the whole group gets
//! TERM, then, after a grace period, KILL; the result is then a timeout (exit 124). Invariant: the
//! runner accepts only an [`Authorized`] plan, which only an allowing decision can produce.

use std::path::PathBuf;
use std::process::{Command, ExitStatus};
use std::sync::mpsc;
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
}

impl RunError {
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::NotFound(_) => 127,
            RunError::NotExecutable(_) => 126,
            RunError::Spawn { .. } => 125,
        }
    }
}

/// Runs plans with a deadline in a working directory.
#[derive(Clone, Debug)]
pub struct Runner {
    pub timeout: Duration,
    pub grace: Duration,
    pub cwd: PathBuf,
}

impl Runner {
    pub fn new(cwd: PathBuf) -> Runner {
        Runner {
            timeout: DEFAULT_TIMEOUT,
            grace: DEFAULT_GRACE,
            cwd,
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
                let mut cmd = Command::new("bash");
                cmd.args(options).arg("-c").arg(script).args(positional);
                self.run_one(cmd, "bash", deadline)
            }
            Plan::Argv { argv } => {
                let (program, args) = argv
                    .split_first()
                    .ok_or_else(|| RunError::NotFound(String::new()))?;
                let mut cmd = Command::new(program);
                cmd.args(args);
                self.run_one(cmd, program, deadline)
            }
            Plan::Steps { steps } => {
                let mut last = Outcome::Exited(0);
                for step in steps {
                    let Some((program, args)) = step.split_first() else {
                        continue;
                    };
                    let mut cmd = Command::new(program);
                    cmd.args(args);
                    last = self.run_one(cmd, program, deadline)?;
                    if last != Outcome::Exited(0) {
                        break;
                    }
                }
                Ok(last)
            }
        }
    }

    fn run_one(
        &self,
        mut cmd: Command,
        program: &str,
        deadline: Instant,
    ) -> Result<Outcome, RunError> {
        use std::os::unix::process::CommandExt;
        cmd.current_dir(&self.cwd).process_group(0);
        let mut child = cmd.spawn().map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => RunError::NotFound(program.to_string()),
            std::io::ErrorKind::PermissionDenied => RunError::NotExecutable(program.to_string()),
            _ => RunError::Spawn {
                program: program.to_string(),
                source,
            },
        })?;
        let group = Pid::from_child(&child);
        let (tx, rx) = mpsc::channel::<std::io::Result<ExitStatus>>();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        let remaining = deadline.saturating_duration_since(Instant::now());
        let status = match rx.recv_timeout(remaining) {
            Ok(status) => status,
            Err(_) => {
                signal_group(group, Signal::TERM);
                if rx.recv_timeout(self.grace).is_err() {
                    signal_group(group, Signal::KILL);
                    let _ = rx.recv();
                }
                // Stragglers that ignored TERM and outlived the leader go too.
                signal_group(group, Signal::KILL);
                return Ok(Outcome::TimedOut);
            }
        };
        let status = status.map_err(|source| RunError::Spawn {
            program: program.to_string(),
            source,
        })?;
        Ok(outcome_of(status))
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
