//! Approvals through the real binary: a person's yes covers one exact request, once, for a
//! short time; the store is out of every sandbox's reach.
//!
//! The request under approval is `git branch -D NAME` (sensitive: it destroys a branch), whose
//! effect is plain to see on the host: the branch is gone or it is not.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

mod common;

use common::{describe, git, has_branch, repository_with_topic_branches};

const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

struct Env {
    _dir: tempfile::TempDir,
    root: PathBuf,
    workspace: PathBuf,
    home: PathBuf,
    state: PathBuf,
    config: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::Builder::new()
            .prefix("warden-approvals-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        let workspace = root.join("workspace");
        let home = root.join("home");
        let state = root.join("state");
        let config = root.join("config");
        for d in [&workspace, &home, &state, &config] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        repository_with_topic_branches(&workspace);
        Env {
            _dir: dir,
            root,
            workspace,
            home,
            state,
            config,
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_warden"));
        cmd.env_clear()
            .env("PATH", PATH)
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", &self.state)
            .env("XDG_CONFIG_HOME", &self.config)
            .arg("--workspace")
            .arg(&self.workspace)
            .args(args)
            .current_dir(&self.workspace)
            .stdin(Stdio::null());
        cmd
    }

    fn warden(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("run warden")
    }

    fn has_branch(&self, name: &str) -> bool {
        has_branch(&self.workspace, name)
    }

    /// Asks for `git branch -D NAME`; returns the challenge id warden printed.
    fn ask(&self, args: &[&str]) -> String {
        let out = self.warden(args);
        assert_eq!(out.status.code(), Some(75), "{}", describe(&out));
        challenge_of(&out)
    }

    fn approve(&self, id: &str) {
        let out = self.warden(&["approve", id, "--yes"]);
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    }
}

fn challenge_of(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr);
    let at = err
        .find("`warden approve ")
        .unwrap_or_else(|| panic!("no challenge in: {}", describe(out)));
    err[at + "`warden approve ".len()..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect()
}

const DELETE1: &[&str] = &["-c", "git branch -D topic1"];

#[test]
fn an_approval_runs_the_request_once_and_a_rerun_asks_again() {
    let env = Env::new();
    let id = env.ask(DELETE1);
    assert!(env.has_branch("topic1"), "nothing ran before the approval");
    // The same request again, unanswered: the same challenge, still nothing run.
    assert_eq!(env.ask(DELETE1), id);
    env.approve(&id);
    let out = env.warden(DELETE1);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(!env.has_branch("topic1"), "the approved request ran");
    git(&env.workspace, &["branch", "topic1"]);
    let again = env.ask(DELETE1);
    assert_ne!(again, id, "an approval is used once");
    assert!(env.has_branch("topic1"));
}

#[test]
fn another_argument_directory_network_or_policy_needs_its_own_approval() {
    let env = Env::new();
    let id = env.ask(DELETE1);
    env.approve(&id);
    let other_argument = env.ask(&["-c", "git branch -D topic2"]);
    std::fs::create_dir_all(env.workspace.join("sub")).expect("mkdir");
    let out = env
        .command(DELETE1)
        .current_dir(env.workspace.join("sub"))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(75), "{}", describe(&out));
    let other_cwd = challenge_of(&out);
    let other_network = env.ask(&["--network", "-c", "git branch -D topic1"]);
    let rules = env.root.join("extra.toml");
    std::fs::write(
        &rules,
        "[[rule]]\nid = \"user.no-telnet\"\ntier = \"sensitive\"\ndecision = \"ask\"\nreason = \"telnet\"\nhint = \"use ssh\"\n[rule.match]\nprogram = [\"telnet\"]\n",
    )
    .expect("write rules");
    let rules_arg = rules.display().to_string();
    let other_policy = env.ask(&["--rules", &rules_arg, "-c", "git branch -D topic1"]);
    let all = [
        &id,
        &other_argument,
        &other_cwd,
        &other_network,
        &other_policy,
    ];
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            assert_ne!(a, b, "each difference is a challenge of its own");
        }
    }
    assert!(env.has_branch("topic1") && env.has_branch("topic2"));
    // The approved request itself is untouched by the others.
    let out = env.warden(DELETE1);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(!env.has_branch("topic1"));
}

#[test]
fn a_denied_request_is_refused_and_does_not_run() {
    let env = Env::new();
    let id = env.ask(DELETE1);
    let out = env.warden(&["deny", &id]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let out = env.warden(DELETE1);
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("denied by"),
        "{}",
        describe(&out)
    );
    assert!(env.has_branch("topic1"));
    // An answered challenge cannot be answered again.
    let out = env.warden(&["approve", &id, "--yes"]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
}

#[test]
fn an_expired_challenge_cannot_be_approved_and_a_retry_asks_anew() {
    let env = Env::new();
    std::fs::create_dir_all(env.config.join("warden")).expect("mkdir");
    std::fs::write(
        env.config.join("warden/config.toml"),
        "[approval]\nexpiry = \"1s\"\n",
    )
    .expect("write config");
    let id = env.ask(DELETE1);
    std::thread::sleep(Duration::from_millis(1500));
    let out = env.warden(&["approve", &id, "--yes"]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("expired"),
        "{}",
        describe(&out)
    );
    let again = env.ask(DELETE1);
    assert_ne!(again, id);
    assert!(env.has_branch("topic1"));
}

#[test]
fn a_bad_configuration_is_an_error_that_names_file_line_and_key() {
    let env = Env::new();
    std::fs::create_dir_all(env.config.join("warden")).expect("mkdir");
    std::fs::write(
        env.config.join("warden/config.toml"),
        "[approval]\nexpiry = \"5m\"\nnotfiy = [\"x\"]\n",
    )
    .expect("write config");
    let out = env.warden(DELETE1);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("config.toml") && err.contains("notfiy") && err.contains("line 3"),
        "{}",
        describe(&out)
    );
    assert!(env.has_branch("topic1"));
}

#[test]
fn with_no_one_to_answer_asking_means_no() {
    let env = Env::new();
    let out = env.warden(&["--non-interactive", "-c", "git branch -D topic1"]);
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
    let out = env
        .command(DELETE1)
        .env("CI", "true")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
    assert!(env.has_branch("topic1"));
}

#[test]
fn concurrent_retries_of_one_approval_run_it_exactly_once() {
    let env = Env::new();
    let id = env.ask(DELETE1);
    env.approve(&id);
    let children: Vec<_> = (0..6)
        .map(|_| {
            env.command(DELETE1)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    let codes: Vec<Option<i32>> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait").status.code())
        .collect();
    assert_eq!(
        codes.iter().filter(|c| **c == Some(0)).count(),
        1,
        "{codes:?}"
    );
    assert!(
        codes.iter().all(|c| *c == Some(0) || *c == Some(75)),
        "{codes:?}"
    );
    assert!(!env.has_branch("topic1"));
}

#[test]
fn a_waiting_request_runs_when_a_person_approves_it() {
    let env = Env::new();
    let waiting = env
        .command(&["--wait=20s", "-c", "git branch -D topic1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut id = None;
    for _ in 0..100 {
        let out = env.warden(&["--json", "pending"]);
        let list: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        if let Some(found) = list.get(0).and_then(|c| c["id"].as_str()) {
            id = Some(found.to_string());
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let id = id.expect("the waiting request shows up as pending");
    env.approve(&id);
    let out = waiting.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(!env.has_branch("topic1"));
}

#[test]
fn approving_without_a_terminal_needs_an_explicit_yes() {
    let env = Env::new();
    let id = env.ask(DELETE1);
    let out = env.warden(&["approve", &id]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("terminal"),
        "{}",
        describe(&out)
    );
    let out = env.warden(&["pending"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&id),
        "still pending: {}",
        describe(&out)
    );
}

#[test]
fn guarded_commands_cannot_answer_approvals_or_reach_the_store() {
    let env = Env::new();
    let id = env.ask(DELETE1);
    for attempt in [
        format!("warden approve {id} --yes"),
        format!("{} approve {id} --yes", env!("CARGO_BIN_EXE_warden")),
        format!("sudo warden deny {id}"),
        "warden --json pending".to_string(),
    ] {
        let out = env.warden(&["-c", &attempt]);
        assert_eq!(out.status.code(), Some(77), "{attempt}: {}", describe(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("[catastrophic]"),
            "{attempt}: {}",
            describe(&out)
        );
    }
    // A program the policy allows, trying the store directly: it is outside the sandbox.
    let record = env.state.join(format!("warden/approvals/{id}.json"));
    assert!(record.exists());
    std::fs::write(
        env.workspace.join("steal.pl"),
        format!(
            "print open(my $f, '<', '{p}') ? \"READ\\n\" : \"unreadable\\n\"; print open(my $g, '>', '{p}') ? \"WROTE\\n\" : \"unwritable\\n\";",
            p = record.display()
        ),
    )
    .expect("write");
    let out = env.warden(&["-c", "perl steal.pl"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("unreadable") && text.contains("unwritable"),
        "{}",
        describe(&out)
    );
    let still: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).expect("read")).expect("json");
    assert_eq!(still["state"], "pending");
}

#[test]
fn a_store_inside_the_workspace_is_refused() {
    let env = Env::new();
    let out = env
        .command(DELETE1)
        .env("XDG_STATE_HOME", env.workspace.join(".state"))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(125), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("inside the workspace"),
        "{}",
        describe(&out)
    );
    assert!(env.has_branch("topic1"));
}

// ---------------------------------------------------------------------------------------------
// The audit log

fn audit_lines(env: &Env) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(env.state.join("warden/audit/audit.jsonl"))
        .expect("the audit log exists");
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn out_of(record: &serde_json::Value, key: &str) -> String {
    record[key].to_string()
}

#[test]
fn every_decision_acted_on_is_recorded_with_secrets_redacted() {
    let env = Env::new();
    let out = env.warden(&["--session", "s1", "-c", "echo --password=hunter22"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let out = env.warden(&["-c", "rm -rf ~"]);
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
    let id = env.ask(DELETE1);
    let records = audit_lines(&env);
    assert_eq!(records.len(), 3, "{records:?}");
    let (allow, deny, ask) = (&records[0], &records[1], &records[2]);
    assert_eq!(allow["decision"], "allow");
    assert_eq!(allow["exit"], 0);
    assert_eq!(allow["session"], "s1");
    assert_eq!(allow["confinement"], "sandbox");
    // What the command printed is sized and digested (the caller saw it, the log did not).
    assert_eq!(out_of(&records[0], "output_bytes"), "20");
    let sha = |b: &[u8]| -> String {
        use sha2::Digest;
        sha2::Sha256::digest(b)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    assert_eq!(
        allow["stdout_sha256"].as_str(),
        Some(sha(b"--password=hunter22\n").as_str())
    );
    assert_eq!(allow["stderr_sha256"].as_str(), Some(sha(b"").as_str()));
    let layers = allow["layers"].as_array().expect("layers");
    for layer in ["bwrap", "landlock", "seccomp"] {
        assert!(layers.contains(&serde_json::json!(layer)), "{layers:?}");
    }
    assert_eq!(deny["decision"], "deny");
    assert_eq!(deny["exit"], 77);
    assert_eq!(deny["rule"], "catastrophic.delete-home");
    assert_eq!(ask["decision"], "ask");
    assert_eq!(ask["exit"], 75);
    assert_eq!(ask["challenge"]["id"], id.as_str());
    let raw = std::fs::read_to_string(env.state.join("warden/audit/audit.jsonl")).expect("read");
    assert!(!raw.contains("hunter22"), "a secret reached the log: {raw}");
    // The log table shows them; filters apply.
    let out = env.warden(&["log", "--decision", "deny"]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(table.lines().count(), 1, "{table}");
    assert!(table.contains("rm -rf ~"), "{table}");
}

#[test]
fn eight_concurrent_wardens_leave_a_log_of_whole_json_lines() {
    let env = Env::new();
    let children: Vec<_> = (0..8)
        .map(|i| {
            let script = format!("for n in 1 2 3 4 5; do warden_marker_{i}=1; done; true");
            env.command(&["-c", &script])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().expect("wait");
        assert!(out.status.success(), "{}", describe(&out));
    }
    let children: Vec<_> = (0..8)
        .map(|_| {
            env.command(&["-c", "rm -rf /"])
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for mut c in children {
        assert_eq!(c.wait().expect("wait").code(), Some(77));
    }
    let records = audit_lines(&env);
    assert_eq!(records.len(), 16);
    assert_eq!(
        records.iter().filter(|r| r["decision"] == "deny").count(),
        8
    );
}

#[test]
fn replay_decides_a_recorded_request_again_without_running_it() {
    let env = Env::new();
    let out = env.warden(&["-c", "echo replayed > out.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    std::fs::remove_file(env.workspace.join("out.txt")).expect("rm");
    let id = audit_lines(&env)[0]["id"].as_str().expect("id").to_string();
    let out = env.warden(&["replay", &id]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("the same decision, under the same policy")
            && text.contains("exit 0 after ")
            && text.contains("0 bytes of output (stdout sha256 e3b0c442"),
        "{text}"
    );
    assert!(
        !env.workspace.join("out.txt").exists(),
        "replay ran the command"
    );
    // Under a policy that now asks about echo, the replay says so.
    let rules = env.root.join("echo.toml");
    std::fs::write(
        &rules,
        "[[rule]]\nid = \"user.echo\"\ntier = \"sensitive\"\ndecision = \"ask\"\nreason = \"echo is watched\"\nhint = \"ask first\"\n[rule.match]\nprogram = [\"echo\"]\n",
    )
    .expect("write");
    let rules_arg = rules.display().to_string();
    let out = env.warden(&["--rules", &rules_arg, "replay", &id]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("a DIFFERENT decision, under a changed policy") && text.contains("user.echo"),
        "{text}"
    );
    let out = env.warden(&["replay", "nosuchrecord"]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
}

// ---------------------------------------------------------------------------------------------
// Loop guardrails

#[test]
fn an_identical_failing_write_is_refused_until_its_arguments_change() {
    let env = Env::new();
    let failing = ["--session", "g1", "-c", "cp missing.txt copy.txt"];
    for _ in 0..2 {
        let out = env.warden(&failing);
        assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    }
    let out = env.warden(&failing);
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("[guardrail] blocked: identical request failed 2 times"),
        "{}",
        describe(&out)
    );
    // Another session has its own memory; changed arguments are a new request.
    let out = env.warden(&["--session", "g2", "-c", "cp missing.txt copy.txt"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let out = env.warden(&["--session", "g1", "-c", "cp a.txt copy.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    // Once the identical request can succeed and does (with --hard-stop off, writes stay
    // refused until then: here the file appears by other means), its failures are forgotten.
    std::fs::write(env.workspace.join("missing.txt"), "now here\n").expect("write");
    let out = env.warden(&failing);
    assert_eq!(
        out.status.code(),
        Some(77),
        "still the same request: {}",
        describe(&out)
    );
    let records = audit_lines(&env);
    assert!(
        records.iter().any(|r| r["guardrail"]
            .as_str()
            .is_some_and(|g| g.contains("blocked"))),
        "the refusal is in the audit log"
    );
}

#[test]
fn repeated_failing_reads_get_guidance_and_hard_stop_refuses_them() {
    let env = Env::new();
    let failing = ["--session", "g3", "-c", "ls no-such-dir"];
    for _ in 0..2 {
        let out = env.warden(&failing);
        assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    }
    let out = env.warden(&failing);
    assert_eq!(out.status.code(), Some(2), "still runs: {}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("[guardrail] warning"),
        "{}",
        describe(&out)
    );
    let out = env.warden(&["--session", "g3", "--hard-stop", "-c", "ls no-such-dir"]);
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("[guardrail] blocked"),
        "{}",
        describe(&out)
    );
}

/// Runs warden on a pseudo-terminal (util-linux `script`), typing `answer` after a moment.
fn at_terminal(env: &Env, args: &str, answer: &str) -> Output {
    let warden = env!("CARGO_BIN_EXE_warden");
    let line = format!(
        "'{warden}' --workspace '{}' {args}",
        env.workspace.display()
    );
    let mut child = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env_clear()
        .env("PATH", PATH)
        .env("HOME", &env.home)
        .env("XDG_STATE_HOME", &env.state)
        .env("XDG_CONFIG_HOME", &env.config)
        .current_dir(&env.workspace)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs");
    std::thread::sleep(Duration::from_millis(1500));
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        let _ = stdin.write_all(answer.as_bytes());
    }
    child.wait_with_output().expect("wait")
}

#[test]
fn a_person_at_the_terminal_is_asked_there() {
    let env = Env::new();
    let out = at_terminal(&env, "-c 'git branch -D topic1'", "n\n");
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("Allow: git branch -D topic1") && shown.contains("[y/N]"),
        "{}",
        describe(&out)
    );
    assert!(env.has_branch("topic1"), "no means no");
    // The answer stands for the identical request: it is not asked again.
    let out = at_terminal(&env, "-c 'git branch -D topic1'", "y\n");
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
    assert!(env.has_branch("topic1"));
    let out = at_terminal(&env, "-c 'git branch -D topic2'", "y\n");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(!env.has_branch("topic2"), "yes ran it");
}

#[test]
fn the_notifier_is_told_of_each_new_challenge() {
    let env = Env::new();
    let inbox = env.root.join("inbox");
    std::fs::create_dir_all(&inbox).expect("mkdir");
    std::fs::create_dir_all(env.config.join("warden")).expect("mkdir");
    std::fs::write(
        env.config.join("warden/config.toml"),
        format!(
            "[approval]\nnotify = [\"touch\", \"{}/{{id}}\"]\n",
            inbox.display()
        ),
    )
    .expect("write config");
    let id = env.ask(DELETE1);
    let mut told = false;
    for _ in 0..50 {
        if inbox.join(&id).exists() {
            told = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(told, "the notifier did not run for {id}");
}

#[test]
fn an_approval_is_not_spent_on_a_request_the_guardrail_refuses() {
    let env = Env::new();
    // A sensitive write that fails: `git branch -D` of a branch that does not exist.
    let failing = ["--session", "g4", "-c", "git branch -D ghost"];
    for _ in 0..2 {
        let id = env.ask(&failing);
        env.approve(&id);
        let out = env.warden(&failing);
        assert_ne!(out.status.code(), Some(0), "{}", describe(&out));
    }
    // The guardrail (strict here: git's deletion of a branch is not a file write) now refuses
    // before anything is asked or consumed.
    let out = env.warden(&[
        "--session",
        "g4",
        "--hard-stop",
        "-c",
        "git branch -D ghost",
    ]);
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("[guardrail] blocked"), "{}", describe(&out));
    assert!(
        !err.contains("warden approve"),
        "no challenge was made: {}",
        describe(&out)
    );
}
