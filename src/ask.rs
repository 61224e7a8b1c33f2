//! Asking a person: what happens when the policy's answer is "ask".
//!
//! In order: a non-interactive run (`--non-interactive`, `CI=true`) refuses, since no one can
//! answer; an approved challenge for this exact request is consumed and the request runs; a
//! denied one refuses; otherwise the challenge (found or created, with the notifier run) is put
//! to the person at the terminal when there is one (not inside a sandbox), or waited on with
//! `--wait`, or reported with its id and how to approve it (exit 75). Unanswered means no.

use std::io::{BufRead, IsTerminal};
use std::path::Path;
use std::time::Duration;

use crate::approval::{self, Challenge, State, Store};
use crate::exit;
use crate::pipeline::Evaluation;
use crate::policy::Consent;

/// How the request is being asked for.
#[derive(Clone, Debug)]
pub struct Asking<'a> {
    pub workspace: &'a Path,
    pub cwd: &'a Path,
    pub network: bool,
    pub policy_revision: &'a str,
    /// `--non-interactive` or `CI=true`.
    pub non_interactive: bool,
    /// `--wait[=DURATION]` (zero: until the challenge expires).
    pub wait: Option<Duration>,
    /// Whether a person at this terminal may be asked here (not when stdin carries a
    /// protocol, as for `warden tool`).
    pub prompt: bool,
}

/// True when `CI` says this is a CI run.
pub fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// True when a person is at this process's terminal and warden is not inside a sandbox (where
/// its own binary sits at the inner stage's path).
fn person_at_terminal() -> bool {
    std::io::stdin().is_terminal()
        && std::io::stderr().is_terminal()
        && !Path::new(crate::sandbox::INNER_EXE).exists()
}

fn minutes(seconds: u64) -> String {
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

/// The consent to run `ev`, or the exit code to end with (the refusal already printed); with
/// the challenge involved, for the audit log.
pub fn consent(
    ev: &Evaluation,
    asking: &Asking,
) -> (
    Result<Consent, i32>,
    Option<crate::audit::RecordedChallenge>,
) {
    let mut seen = None;
    let result = consent_inner(ev, asking, &mut seen);
    let recorded = seen.map(|c: Challenge| crate::audit::RecordedChallenge {
        id: c.id,
        decided_by: c.decided_by,
    });
    (result, recorded)
}

fn consent_inner(
    ev: &Evaluation,
    asking: &Asking,
    seen: &mut Option<Challenge>,
) -> Result<Consent, i32> {
    let line = crate::report::painted(
        &crate::report::line(ev.effective()),
        ev.effective().verdict.decision,
    );
    if asking.non_interactive {
        eprintln!("{line}");
        eprintln!(
            "warden: refused: no one can approve in a non-interactive run (--non-interactive or CI=true)"
        );
        return Err(exit::DENIED);
    }
    let refuse = |message: String| {
        eprintln!("{line}");
        eprintln!("warden: {message}; refused");
        exit::INTERNAL
    };
    let store = Store::open(Some(asking.workspace)).map_err(|e| refuse(e.to_string()))?;
    let config = crate::config::load().map_err(&refuse)?;
    let expiry = config.approval.expiry().map_err(&refuse)?;
    let digest = approval::digest(&ev.plan(), asking.workspace, asking.cwd, asking.network);
    // A new challenge, with the person told of it.
    let new_challenge = || -> Result<Challenge, i32> {
        let made = store
            .create(
                ev,
                asking.workspace,
                asking.cwd,
                asking.network,
                asking.policy_revision,
                expiry,
            )
            .map_err(|e| refuse(e.to_string()))?;
        notify(&config.approval.notify, &made);
        Ok(made)
    };
    let mut challenge = match store.find(&digest, asking.policy_revision) {
        Some(found) => found,
        None => new_challenge()?,
    };
    if challenge.state == State::Pending && asking.prompt && person_at_terminal() {
        let yes = prompt(&challenge);
        challenge = store
            .decide(&challenge.id, yes, "a person at the terminal")
            .map_err(|e| refuse(e.to_string()))?;
    } else if challenge.state == State::Pending && asking.wait.is_some() {
        challenge = wait(&store, &challenge, asking.wait.unwrap_or_default());
    }
    *seen = Some(challenge.clone());
    if challenge.state == State::Approved {
        match store.consume(&challenge.id, &digest, asking.policy_revision) {
            Ok(consent) => return Ok(consent),
            // Another run consumed it first (or it expired meanwhile): this one needs its own.
            Err(
                approval::ApprovalError::NotPending { .. } | approval::ApprovalError::Expired(_),
            ) => {
                challenge = new_challenge()?;
                *seen = Some(challenge.clone());
            }
            Err(e) => return Err(refuse(e.to_string())),
        }
    }
    match challenge.state {
        State::Approved => Err(refuse("the approval could not be used".into())),
        State::Denied => {
            eprintln!(
                "[{}] denied by {}: {} — challenge {}",
                challenge.tier,
                challenge.decided_by.as_deref().unwrap_or("a person"),
                challenge.reason,
                challenge.id
            );
            Err(exit::DENIED)
        }
        State::Pending | State::Used => {
            let left = challenge.remaining(approval::now());
            eprintln!("{line}");
            if left == 0 {
                eprintln!(
                    "warden: challenge {} expired unanswered; retry to ask again",
                    challenge.id
                );
            } else {
                eprintln!(
                    "warden: challenge {id} (expires in {left}): a person approves it with `warden approve {id}` (or refuses with `warden deny {id}`); then retry the identical command",
                    id = challenge.id,
                    left = minutes(left)
                );
            }
            Err(exit::NEEDS_APPROVAL)
        }
    }
}

/// Runs the configured notifier, detached from warden's own output; its failure is reported,
/// never fatal.
fn notify(argv: &[String], challenge: &Challenge) {
    let Some((program, args)) = argv.split_first() else {
        return;
    };
    let summary = format!(
        "{} [{}: {}]",
        challenge.request, challenge.tier, challenge.reason
    );
    let fill = |s: &String| {
        s.replace("{id}", &challenge.id)
            .replace("{summary}", &summary)
    };
    let started = std::process::Command::new(fill(program))
        .args(args.iter().map(fill))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = started {
        eprintln!("warden: the approval notifier `{program}` did not start: {e}");
    }
}

/// Asks at the terminal; no answer before the expiry, or anything but yes, is no.
fn prompt(challenge: &Challenge) -> bool {
    let left = challenge.remaining(approval::now());
    eprint!(
        "Allow: {}  [{}: {}]  (answer within {}) [y/N] ",
        challenge.request,
        challenge.tier,
        challenge.reason,
        minutes(left)
    );
    // The countdown: the prompt line is rewritten every second until an answer or the expiry.
    // Standard input is polled rather than read by a helper thread, so that nothing is left
    // reading it after an unanswered question (it would take the next line typed).
    let stdin = std::io::stdin();
    let deadline = std::time::Instant::now() + Duration::from_secs(left);
    loop {
        let remaining = deadline.saturating_duration_since(std::time::Instant::now());
        if remaining.is_zero() {
            eprintln!();
            eprintln!("warden: no answer in time");
            return false;
        }
        let step = remaining.min(Duration::from_secs(1));
        let timeout = rustix::event::Timespec {
            tv_sec: i64::try_from(step.as_secs()).unwrap_or(1),
            tv_nsec: i64::from(step.subsec_nanos()),
        };
        let mut fds = [rustix::event::PollFd::new(
            &stdin,
            rustix::event::PollFlags::IN,
        )];
        match rustix::event::poll(&mut fds, Some(&timeout)) {
            Ok(0) | Err(rustix::io::Errno::INTR) => eprint!(
                "\r\x1b[KAllow: {}  [{}: {}]  (answer within {}) [y/N] ",
                challenge.request,
                challenge.tier,
                challenge.reason,
                minutes(remaining.as_secs())
            ),
            Ok(_) => {
                let mut answer = String::new();
                return match stdin.lock().read_line(&mut answer) {
                    Ok(n) if n > 0 => {
                        matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
                    }
                    _ => false,
                };
            }
            Err(_) => return false,
        }
    }
}

/// Waits for a person's answer in the store, up to `limit` (zero: until the expiry).
fn wait(store: &Store, challenge: &Challenge, limit: Duration) -> Challenge {
    let left = Duration::from_secs(challenge.remaining(approval::now()));
    let limit = if limit.is_zero() {
        left
    } else {
        limit.min(left)
    };
    eprintln!(
        "warden: waiting up to {} for a person to answer challenge {} (`warden approve {}`)",
        minutes(limit.as_secs()),
        challenge.id,
        challenge.id
    );
    let deadline = std::time::Instant::now() + limit;
    loop {
        if let Ok(now) = store.get(&challenge.id)
            && now.state != State::Pending
        {
            return now;
        }
        if std::time::Instant::now() >= deadline {
            return challenge.clone();
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}
