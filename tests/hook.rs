//! `warden hook claude-code|gemini` with recorded payloads: every answer is the hook protocol's
//! JSON with exit 0 and matches its committed snapshot (`tests/snapshots/`), an allowed shell
//! command comes back rewritten to run under warden (and runs there), and anything that cannot
//! be judged is a deny.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

mod common;

use common::describe;

const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

struct Env {
    _dir: tempfile::TempDir,
    root: PathBuf,
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
            root,
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
        self.hook_of("claude-code", input)
    }

    /// `warden hook AGENT` with the workspace as each agent's environment names it.
    fn hook_of(&self, agent: &str, input: &[u8]) -> Output {
        let workspace_variable = match agent {
            "claude-code" => "CLAUDE_PROJECT_DIR",
            _ => "WARDEN_WORKSPACE",
        };
        let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
            .env_clear()
            .env("PATH", PATH)
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", &self.state)
            .env(workspace_variable, &self.workspace)
            .args(["hook", agent])
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

    /// `bash -c COMMAND` in the workspace, as an agent runs what it was handed, INPUT on stdin.
    fn bash(&self, command: &str, input: &[u8]) -> Output {
        let mut child = Command::new("bash")
            .args(["-c", command])
            .env_clear()
            .env("PATH", PATH)
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", &self.state)
            .current_dir(&self.workspace)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("bash");
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(input);
        drop(stdin);
        child.wait_with_output().expect("wait")
    }

    /// Answers a recorded Claude Code payload.
    fn answer(&self, fixture: &str) -> Value {
        self.answer_of("claude-code", fixture)
    }

    /// Answers a recorded payload of AGENT (WORKSPACE replaced by the real one).
    fn answer_of(&self, agent: &str, fixture: &str) -> Value {
        let text = std::fs::read_to_string(fixtures(agent).join(fixture))
            .expect("fixture")
            .replace("WORKSPACE", &self.workspace.to_string_lossy());
        let out = self.hook_of(agent, text.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", describe(&out)))
    }

    /// The answer as pretty JSON with what differs between machines and runs named instead:
    /// warden's own path (as given and as the running binary sees itself, each plain and as
    /// quoted for bash), the workspace, the home and the directory around them.
    fn normalised(&self, answer: &Value) -> String {
        let warden = Path::new(env!("CARGO_BIN_EXE_warden"));
        let mut names: Vec<(String, &str)> = Vec::new();
        let mut name = |path: &Path, as_name: &'static str| {
            let text = path.to_string_lossy().into_owned();
            let quoted = shlex::try_quote(&text).expect("quotable").into_owned();
            names.push((quoted, as_name));
            names.push((text, as_name));
        };
        if let Ok(real) = std::fs::canonicalize(warden) {
            name(&real, "[WARDEN]");
        }
        name(warden, "[WARDEN]");
        name(&self.workspace, "[WORKSPACE]");
        name(&self.home, "[HOME]");
        name(&self.root, "[ROOT]");
        fn rename(value: &mut Value, names: &[(String, &str)]) {
            match value {
                Value::String(text) => {
                    for (from, to) in names {
                        if text.contains(from.as_str()) {
                            *text = text.replace(from.as_str(), to);
                        }
                    }
                }
                Value::Array(items) => items.iter_mut().for_each(|v| rename(v, names)),
                Value::Object(map) => map.values_mut().for_each(|v| rename(v, names)),
                _ => {}
            }
        }
        let mut answer = answer.clone();
        rename(&mut answer, &names);
        serde_json::to_string_pretty(&answer).expect("JSON")
    }
}

/// The recorded payloads of AGENT.
fn fixtures(agent: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(agent)
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
fn every_recorded_payload_is_answered_as_its_snapshot() {
    let env = Env::new();
    for agent in ["claude-code", "gemini"] {
        let mut recorded: Vec<String> = std::fs::read_dir(fixtures(agent))
            .expect("fixtures")
            .map(|entry| {
                entry
                    .expect("entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|name| name.ends_with(".json"))
            .collect();
        recorded.sort();
        assert!(!recorded.is_empty(), "no {agent} fixtures");
        for fixture in recorded {
            let answer = env.answer_of(agent, &fixture);
            let name = format!("{agent}-{}", fixture.trim_end_matches(".json"));
            insta::with_settings!({
                description => format!("tests/fixtures/{agent}/{fixture}"),
                omit_expression => true,
            }, {
                insta::assert_snapshot!(name, env.normalised(&answer));
            });
        }
    }
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
    let out = env.bash(command, b"");
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
    let a = env.answer_of("gemini", "shell-ls.json");
    assert_eq!(a["decision"], "allow", "{a}");
    let rewritten = &a["hookSpecificOutput"]["tool_input"];
    assert!(
        rewritten["command"]
            .as_str()
            .is_some_and(|c| c.ends_with(" -c 'ls src'")),
        "{a}"
    );
    assert_eq!(
        rewritten["description"], "List the sources",
        "other fields kept: {a}"
    );
    let a = env.answer_of("gemini", "shell-rm-home.json");
    assert_eq!(a["decision"], "deny", "{a}");
    assert!(
        a["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("[catastrophic] blocked")),
        "{a}"
    );
    // Gemini has no ask: a push goes ahead under warden, which then asks for its own approval.
    let a = env.answer_of("gemini", "shell-push.json");
    assert_eq!(a["decision"], "allow", "{a}");
    assert!(
        a["hookSpecificOutput"]["tool_input"]["command"]
            .as_str()
            .is_some_and(|c| c.contains(" -c 'git push origin main'")),
        "{a}"
    );
    for (fixture, expected) in [
        ("read-env.json", "deny"),
        ("write-outside.json", "deny"),
        ("replace-inside.json", "allow"),
        ("grep-search.json", "allow"),
    ] {
        let a = env.answer_of("gemini", fixture);
        assert_eq!(a["decision"], expected, "{fixture}: {a}");
        assert!(a.get("hookSpecificOutput").is_none(), "{fixture}: {a}");
    }
    assert_eq!(
        env.answer_of("gemini", "web-fetch.json"),
        serde_json::json!({})
    );
    // The other agent's event, or garbage, is a deny in Gemini's words, still with exit 0.
    for input in [
        &br#"{"hook_event_name": "PreToolUse", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}"#[..],
        b"not json",
    ] {
        let out = env.hook_of("gemini", input);
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        let a: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(a["decision"], "deny", "{a}");
    }
    let log = std::fs::read_to_string(env.state.join("warden/audit/audit.jsonl")).expect("log");
    assert!(log.contains("\"tool\":\"gemini:grep_search\""), "{log}");
}
