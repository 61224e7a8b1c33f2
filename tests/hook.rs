//! `warden hook claude-code|gemini` with recorded payloads: every answer is the hook protocol's
//! JSON with exit 0 and matches its committed snapshot (`tests/snapshots/`), an allowed shell
//! command comes back rewritten to run under warden (and runs there), and anything that cannot
//! be judged is a deny. `warden install` wires the hooks (and Codex's MCP server) in.

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
            "gemini" => "GEMINI_PROJECT_DIR",
            _ => "WARDEN_WORKSPACE",
        };
        let mut command = self.hook_command(agent);
        command.env(workspace_variable, &self.workspace);
        fed(command, input)
    }

    /// `warden hook AGENT` with no workspace named: the payload's `cwd` decides.
    fn hook_command(&self, agent: &str) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
        command
            .env_clear()
            .env("PATH", PATH)
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", &self.state)
            .args(["hook", agent])
            .current_dir(&self.home);
        command
    }

    /// `bash -c COMMAND` in the workspace, as an agent runs what it was handed, INPUT on stdin.
    fn bash(&self, command: &str, input: &[u8]) -> Output {
        let mut bash = Command::new("bash");
        bash.args(["-c", command])
            .env_clear()
            .env("PATH", PATH)
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", &self.state)
            .current_dir(&self.workspace);
        fed(bash, input)
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

/// Runs `command` with `input` on its stdin and collects what it printed.
fn fed(mut command: Command, input: &[u8]) -> Output {
    let mut child = command
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
fn an_agent_started_at_the_root_or_in_the_home_is_not_judged_as_in_a_workspace() {
    let env = Env::new();
    let home = env.home.to_str().expect("utf-8");
    for (cwd, agent) in [("/", "claude-code"), (home, "claude-code"), ("/", "gemini")] {
        let (tool, input) = if agent == "gemini" {
            (
                "write_file",
                "\"file_path\":\"/etc/cron.d/warden-test\",\"content\":\"x\"",
            )
        } else {
            (
                "Write",
                "\"file_path\":\"/etc/cron.d/warden-test\",\"content\":\"x\"",
            )
        };
        let event = if agent == "gemini" {
            "BeforeTool"
        } else {
            "PreToolUse"
        };
        let payload = format!(
            "{{\"hook_event_name\":\"{event}\",\"tool_name\":\"{tool}\",\"tool_input\":{{{input}}},\"cwd\":\"{cwd}\",\"session_id\":\"s\"}}"
        );
        let out = fed(env.hook_command(agent), payload.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        let a: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let denied = if agent == "gemini" {
            a["decision"] == "deny"
        } else {
            decision(&a) == "deny"
        };
        assert!(denied, "{cwd} {agent}: {a}");
        assert!(
            a.to_string()
                .contains("start the agent in a project directory"),
            "{a}"
        );
    }
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
    let out = run(&["install", "cursor"]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
}

/// `warden install ARGS…` as a person runs it: the fixture's HOME, in the workspace.
fn install(env: &Env, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden"))
        .env_clear()
        .env("PATH", PATH)
        .env("HOME", &env.home)
        .arg("install")
        .args(args)
        .current_dir(&env.workspace)
        .output()
        .expect("run")
}

/// The copies of FILE that installs kept beside it.
fn backups(file: &Path) -> Vec<PathBuf> {
    let prefix = format!(
        "{}.warden-backup-",
        file.file_name().expect("name").to_string_lossy()
    );
    let Ok(entries) = std::fs::read_dir(file.parent().expect("dir")) else {
        return Vec::new();
    };
    entries
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
        })
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The running warden, as the path the tests name it by resolves.
fn warden_binary() -> PathBuf {
    std::fs::canonicalize(env!("CARGO_BIN_EXE_warden")).expect("warden")
}

#[test]
fn install_gemini_adds_the_before_tool_hook_beside_existing_settings_once() {
    let env = Env::new();
    let settings = env.home.join(".gemini/settings.json");
    std::fs::create_dir_all(settings.parent().expect("dir")).expect("mkdir");
    let original = r#"{"ui":{"theme":"GitHub"},"hooks":{"BeforeTool":[{"matcher":"write_file","hooks":[{"type":"command","command":"lint.sh"}]}],"AfterTool":[{"matcher":"*","hooks":[{"type":"command","command":"log.sh"}]}]}}"#;
    std::fs::write(&settings, original).expect("write");

    let out = install(&env, &["gemini", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let shown: Value = serde_json::from_slice(&out.stdout).expect("the whole document");
    assert_eq!(
        shown["hooks"]["BeforeTool"].as_array().map(Vec::len),
        Some(2),
        "{shown}"
    );
    assert_eq!(
        std::fs::read_to_string(&settings).expect("read"),
        original,
        "a dry run writes nothing"
    );
    assert!(backups(&settings).is_empty());

    let out = install(&env, &["gemini"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let merged: Value =
        serde_json::from_slice(&std::fs::read(&settings).expect("read")).expect("JSON");
    assert_eq!(merged, shown, "what the dry run showed is what was written");
    let before: Value = serde_json::from_str(original).expect("JSON");
    assert_eq!(merged["ui"], before["ui"]);
    assert_eq!(merged["hooks"]["AfterTool"], before["hooks"]["AfterTool"]);
    let list = merged["hooks"]["BeforeTool"].as_array().expect("array");
    assert_eq!(list[0], before["hooks"]["BeforeTool"][0]);
    let matcher = list[1]["matcher"].as_str().expect("matcher");
    for tool in [
        "run_shell_command",
        "read_file",
        "write_file",
        "replace",
        "grep_search",
    ] {
        assert!(matcher.contains(tool), "{matcher}");
    }
    let command = list[1]["hooks"][0]["command"].as_str().expect("command");
    let words = shlex::split(command).expect("words");
    assert_eq!(PathBuf::from(&words[0]), warden_binary(), "{command}");
    assert_eq!(words[1..], ["hook", "gemini"]);
    let kept = backups(&settings);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(std::fs::read_to_string(&kept[0]).expect("read"), original);

    // The command written is Gemini's hook: run as Gemini runs it, it judges.
    let payload = format!(
        r#"{{"hook_event_name":"BeforeTool","cwd":"{}","tool_name":"run_shell_command","tool_input":{{"command":"rm -rf ~"}}}}"#,
        env.workspace.display()
    );
    let answered = env.bash(command, payload.as_bytes());
    let answer: Value = serde_json::from_slice(&answered.stdout).expect("JSON");
    assert_eq!(answer["decision"], "deny", "{answer}");

    let written = std::fs::read(&settings).expect("read");
    let out = install(&env, &["gemini"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(stderr(&out).contains("already there"), "{}", describe(&out));
    assert_eq!(
        std::fs::read(&settings).expect("read"),
        written,
        "a second run changes nothing"
    );
    assert_eq!(backups(&settings).len(), 1, "and keeps no copy");

    // --project: the workspace's own settings, made when absent.
    let out = install(&env, &["gemini", "--project"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let project: Value = serde_json::from_slice(
        &std::fs::read(env.workspace.join(".gemini/settings.json")).expect("project settings"),
    )
    .expect("JSON");
    assert_eq!(project["hooks"]["BeforeTool"][0]["matcher"], matcher);
}

#[test]
fn install_codex_appends_warden_s_mcp_server_and_keeps_every_byte() {
    let env = Env::new();
    let config = env.home.join(".codex/config.toml");

    // No file yet: the dry run shows the table alone and makes nothing.
    let out = install(&env, &["codex", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("[mcp_servers.warden]"));
    assert!(
        !env.home.join(".codex").exists(),
        "a dry run writes nothing"
    );
    assert!(
        stderr(&out).contains("not seen by warden"),
        "{}",
        describe(&out)
    );

    std::fs::create_dir_all(config.parent().expect("dir")).expect("mkdir");
    let original = "# Codex, as I like it\nmodel = \"o4-mini\" # quick\napproval_policy = \"on-request\"\n\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs\"]\n";
    std::fs::write(&config, original).expect("write");
    let out = install(&env, &["codex", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(shown.starts_with(original), "{shown}");
    assert_eq!(std::fs::read_to_string(&config).expect("read"), original);
    assert!(backups(&config).is_empty());

    let out = install(&env, &["codex"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let written = std::fs::read_to_string(&config).expect("read");
    assert_eq!(
        written, shown,
        "what the dry run showed is what was written"
    );
    assert!(written.starts_with(original), "every byte kept:\n{written}");
    let doc: toml::Table = written.parse().expect("TOML");
    let server = doc["mcp_servers"]["warden"].as_table().expect("table");
    let command = server["command"].as_str().expect("command");
    assert_eq!(PathBuf::from(command), warden_binary());
    assert_eq!(server["args"], toml::Value::Array(vec!["mcp".into()]));
    assert_eq!(doc["mcp_servers"]["docs"]["command"].as_str(), Some("npx"));
    let kept = backups(&config);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(std::fs::read_to_string(&kept[0]).expect("read"), original);

    let out = install(&env, &["codex"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(stderr(&out).contains("already there"), "{}", describe(&out));
    assert_eq!(std::fs::read_to_string(&config).expect("read"), written);
    assert_eq!(backups(&config).len(), 1);

    // The table starts warden's MCP server as Codex does: the command and its args, in the
    // directory Codex runs in (here below the work tree, which becomes the workspace).
    let mut server = Command::new(command);
    server
        .args(["mcp"])
        .env_clear()
        .env("PATH", PATH)
        .env("HOME", &env.home)
        .env("XDG_STATE_HOME", &env.state)
        .current_dir(env.workspace.join("src"));
    let mut client = common::mcp_client::McpClient::start(server, None);
    assert_eq!(client.initialized["serverInfo"]["name"], "warden");
    assert!(client.tools().iter().any(|t| t == "read_file"));
}

#[test]
fn install_refuses_a_document_of_another_shape_and_leaves_it_untouched() {
    let env = Env::new();
    for (agent, file, content) in [
        ("gemini", ".gemini/settings.json", r#"{"hooks": []}"#),
        (
            "gemini",
            ".gemini/settings.json",
            r#"{"hooks": {"BeforeTool": {}}}"#,
        ),
        (
            "gemini",
            ".gemini/settings.json",
            "{ // my theme\n \"ui\": {} }",
        ),
        ("claude-code", ".claude/settings.json", "[]"),
        ("codex", ".codex/config.toml", "model = \n"),
        ("codex", ".codex/config.toml", "mcp_servers = 3\n"),
        (
            "codex",
            ".codex/config.toml",
            "mcp_servers = { docs = { command = \"npx\" } }\n",
        ),
    ] {
        let path = env.home.join(file);
        std::fs::create_dir_all(path.parent().expect("dir")).expect("mkdir");
        std::fs::write(&path, content).expect("write");
        for args in [&[agent, "--dry-run"][..], &[agent]] {
            let out = install(&env, args);
            assert_eq!(out.status.code(), Some(2), "{content}: {}", describe(&out));
            assert!(
                stderr(&out).contains("fix it by hand"),
                "{}",
                describe(&out)
            );
            assert!(out.stdout.is_empty(), "{}", describe(&out));
            assert_eq!(std::fs::read_to_string(&path).expect("read"), content);
            assert!(backups(&path).is_empty(), "{content}");
        }
    }
    let out = install(&env, &["codex", "--project"]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(!env.workspace.join(".codex").exists());
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
