//! `warden hook claude-code` with recorded Claude Code payloads: every answer is the hook
//! protocol's JSON with exit 0, an allowed Bash command comes back rewritten to run under
//! warden (and runs there), and anything that cannot be judged is a deny.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

mod common;

use common::describe;

const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

struct Env {
    _dir: tempfile::TempDir,
    workspace: PathBuf,
    home: PathBuf,
    state: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::Builder::new()
            .prefix("warden-hook-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        let env = Env {
            workspace: root.join("workspace"),
            home: root.join("home"),
            state: root.join("state"),
            _dir: dir,
        };
        for d in [
            &env.workspace.join("src"),
            &env.home.join(".ssh"),
            &env.state,
        ] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::create_dir_all(env.workspace.join(".git/hooks")).expect("mkdir");
        std::fs::write(env.workspace.join("src/main.rs"), "fn main() {}\n").expect("write");
        std::fs::write(env.workspace.join(".env"), "KEY=1\n").expect("write");
        std::fs::write(env.home.join(".ssh/id_ed25519"), "key\n").expect("write");
        env
    }

    fn hook(&self, input: &[u8]) -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
            .env_clear()
            .env("PATH", PATH)
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", &self.state)
            .env("CLAUDE_PROJECT_DIR", &self.workspace)
            .args(["hook", "claude-code"])
            .current_dir(&self.home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(input);
        drop(stdin);
        child.wait_with_output().expect("wait")
    }

    /// Answers a recorded payload (WORKSPACE replaced by the real one).
    fn answer(&self, fixture: &str) -> Value {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/claude-code")
            .join(fixture);
        let text = std::fs::read_to_string(path)
            .expect("fixture")
            .replace("WORKSPACE", &self.workspace.to_string_lossy());
        let out = self.hook(text.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", describe(&out)))
    }
}

fn decision(answer: &Value) -> &str {
    answer["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap_or("(none)")
}

fn reason(answer: &Value) -> &str {
    answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or("")
}

#[test]
fn an_allowed_bash_call_is_rewritten_to_run_under_warden() {
    let env = Env::new();
    let a = env.answer("bash-ls.json");
    assert_eq!(decision(&a), "allow", "{a}");
    let updated = &a["hookSpecificOutput"]["updatedInput"];
    assert_eq!(
        updated["description"], "List the source directory",
        "other fields kept: {a}"
    );
    let command = updated["command"].as_str().expect("command");
    assert!(command.contains(" -c 'ls src && echo listed'"), "{command}");
    // What the agent then executes really runs under warden, in the sandbox.
    let out = Command::new("bash")
        .args(["-c", command])
        .env_clear()
        .env("PATH", PATH)
        .env("HOME", &env.home)
        .env("XDG_STATE_HOME", &env.state)
        .current_dir(&env.workspace)
        .output()
        .expect("bash");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "main.rs\nlisted\n",
        "{}",
        describe(&out)
    );
}

#[test]
fn refusals_asks_and_paths_follow_the_policy() {
    let env = Env::new();
    let a = env.answer("bash-rm-home.json");
    assert_eq!(decision(&a), "deny", "{a}");
    assert!(reason(&a).starts_with("[catastrophic] blocked:"), "{a}");
    assert!(a["hookSpecificOutput"].get("updatedInput").is_none());
    let a = env.answer("bash-push.json");
    assert_eq!(decision(&a), "ask", "{a}");
    assert!(reason(&a).starts_with("[sensitive] needs approval:"), "{a}");
    assert!(
        a["hookSpecificOutput"]["updatedInput"]["command"]
            .as_str()
            .is_some_and(|c| c.contains(" -c 'git push origin main'")),
        "an approved push still runs under warden: {a}"
    );
    for (fixture, expected, tier) in [
        ("read-env.json", "deny", "[secret]"),
        ("read-ssh.json", "deny", "[secret]"),
        ("write-outside.json", "deny", "[policy]"),
        ("edit-hook.json", "deny", "[policy]"),
        ("edit-inside.json", "allow", "[ordinary]"),
    ] {
        let a = env.answer(fixture);
        assert_eq!(decision(&a), expected, "{fixture}: {a}");
        assert!(reason(&a).starts_with(tier), "{fixture}: {a}");
    }
    // A tool warden has no opinion on is left to the agent's own rules.
    assert_eq!(env.answer("webfetch.json"), serde_json::json!({}));
    // Every decision is in the audit log under the agent's tool name.
    let log = std::fs::read_to_string(env.state.join("warden/audit/audit.jsonl")).expect("log");
    assert!(log.contains("\"tool\":\"claude-code:Read\""), "{log}");
    assert!(log.contains("\"rule\":\"hook.write-outside\""), "{log}");
}

#[test]
fn malformed_oversized_or_unknown_input_is_denied_with_exit_0() {
    let env = Env::new();
    let oversized = format!(
        "{{\"tool_name\":\"Bash\",\"tool_input\":{{\"command\":\"{}\"}}}}",
        "x".repeat(2 << 20)
    );
    for input in [
        &b""[..],
        b"not json",
        b"{\"tool_input\":{}}",
        b"{\"tool_name\":\"Bash\",\"tool_input\":{}}",
        b"{\"tool_name\":\"Bash\",\"hook_event_name\":\"PostToolUse\",\"tool_input\":{\"command\":\"ls\"}}",
        b"{\"tool_name\":\"Bash\",\"cwd\":\"/nonexistent/dir\",\"tool_input\":{\"command\":\"ls\"}}",
        oversized.as_bytes(),
    ] {
        let out = env.hook(input);
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        let a: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(decision(&a), "deny", "{}: {a}", String::from_utf8_lossy(&input[..input.len().min(80)]));
    }
}

#[test]
fn install_adds_the_hook_beside_existing_settings_once() {
    let env = Env::new();
    let settings = env.home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().expect("dir")).expect("mkdir");
    std::fs::write(
        &settings,
        r#"{"model":"opus","hooks":{"PreToolUse":[{"matcher":"Write","hooks":[{"type":"command","command":"fmt-check"}]}]}}"#,
    )
    .expect("write");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_warden"))
            .env_clear()
            .env("PATH", PATH)
            .env("HOME", &env.home)
            .args(args)
            .current_dir(&env.workspace)
            .output()
            .expect("run")
    };
    let before = std::fs::read(&settings).expect("read");
    let out = run(&["install", "claude-code", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("hook claude-code"),
        "{}",
        describe(&out)
    );
    assert_eq!(
        std::fs::read(&settings).expect("read"),
        before,
        "a dry run writes nothing"
    );
    let out = run(&["install", "claude-code"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let merged: Value =
        serde_json::from_slice(&std::fs::read(&settings).expect("read")).expect("JSON");
    assert_eq!(merged["model"], "opus");
    let pre = merged["hooks"]["PreToolUse"].as_array().expect("array");
    assert_eq!(pre.len(), 2, "{merged}");
    assert_eq!(pre[0]["hooks"][0]["command"], "fmt-check");
    let command = pre[1]["hooks"][0]["command"].as_str().expect("command");
    assert!(command.ends_with(" hook claude-code"), "{command}");
    let out = run(&["install", "claude-code"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let again: Value =
        serde_json::from_slice(&std::fs::read(&settings).expect("read")).expect("JSON");
    assert_eq!(again, merged, "a second run changes nothing");
    let out = run(&["install", "gemini"]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
}

#[test]
fn gemini_before_tool_calls_get_the_same_judgement_in_gemini_s_protocol() {
    let env = Env::new();
    let ws = env.workspace.display().to_string();
    let run = |payload: Value| -> Value {
        let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
            .env_clear()
            .env("PATH", PATH)
            .env("HOME", &env.home)
            .env("XDG_STATE_HOME", &env.state)
            .env("WARDEN_WORKSPACE", &env.workspace)
            .args(["hook", "gemini"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(payload.to_string().as_bytes())
            .expect("send");
        drop(stdin);
        let out = child.wait_with_output().expect("wait");
        assert_eq!(out.status.code(), Some(0));
        serde_json::from_slice(&out.stdout).expect("JSON")
    };
    let call = |tool: &str, input: Value| serde_json::json!({"session_id": "g1", "cwd": ws, "hook_event_name": "BeforeTool", "timestamp": "2026-11-30T05:00:00Z", "tool_name": tool, "tool_input": input});
    let a = run(call(
        "run_shell_command",
        serde_json::json!({"command": "ls src"}),
    ));
    assert_eq!(a["decision"], "allow", "{a}");
    assert!(
        a["hookSpecificOutput"]["tool_input"]["command"]
            .as_str()
            .is_some_and(|c| c.ends_with(" -c 'ls src'")),
        "{a}"
    );
    let a = run(call(
        "run_shell_command",
        serde_json::json!({"command": "rm -rf ~"}),
    ));
    assert_eq!(a["decision"], "deny", "{a}");
    assert!(
        a["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("[catastrophic] blocked")),
        "{a}"
    );
    let a = run(call(
        "read_file",
        serde_json::json!({"absolute_path": format!("{ws}/.env")}),
    ));
    assert_eq!(a["decision"], "deny", "{a}");
    let a = run(call(
        "write_file",
        serde_json::json!({"file_path": "/etc/motd", "content": "x"}),
    ));
    assert_eq!(a["decision"], "deny", "{a}");
    assert_eq!(
        run(call("web_fetch", serde_json::json!({}))),
        serde_json::json!({})
    );
    // The other agent's event, or garbage, is a deny in Gemini's words.
    let wrong = serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}});
    assert_eq!(run(wrong)["decision"], "deny");
}
