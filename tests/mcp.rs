//! `warden mcp` driven over stdio as an MCP client would: initialize, tools/list, tools/call
//! that is allowed, refused, asked about and invented; the tool list never changes.

use std::path::PathBuf;
use std::process::Command;

use serde_json::json;

mod common;

use common::mcp_client::{McpClient, text};

const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// `warden mcp` in the fixture's workspace, initialized by a client.
fn start(env: &Env, extra: &[&str]) -> McpClient {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
    command
        .env_clear()
        .env("PATH", PATH)
        .env("HOME", &env.home)
        .env("XDG_STATE_HOME", &env.state)
        .env("XDG_CONFIG_HOME", &env.config)
        .arg("--workspace")
        .arg(&env.workspace)
        .args(extra)
        .arg("mcp")
        .current_dir(&env.workspace);
    let client = McpClient::start(command, None);
    assert_eq!(client.initialized["serverInfo"]["name"], "warden");
    assert!(client.initialized["capabilities"]["tools"].is_object());
    client
}

struct Env {
    _dir: tempfile::TempDir,
    workspace: PathBuf,
    home: PathBuf,
    state: PathBuf,
    config: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::Builder::new()
            .prefix("warden-mcp-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        let env = Env {
            workspace: root.join("workspace"),
            home: root.join("home"),
            state: root.join("state"),
            config: root.join("config"),
            _dir: dir,
        };
        for d in [
            &env.workspace.join("src"),
            &env.home,
            &env.state,
            &env.config.join("warden"),
        ] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::write(
            env.workspace.join("src/lib.rs"),
            "pub fn answer() -> u32 { 42 }\n",
        )
        .expect("write");
        env
    }
}

#[test]
fn tools_are_listed_once_and_every_call_goes_through_the_policy() {
    let env = Env::new();
    std::fs::write(
        env.config.join("warden/policy.toml"),
        "[[rule]]\nid = \"me.docs\"\naction = \"ask\"\nreason = \"docs are reviewed\"\n[rule.match]\ntool = [\"write_file\"]\npath = [\"docs/**\"]\n",
    )
    .expect("policy");
    let mut client = start(&env, &[]);
    let tools = client.tools();
    assert_eq!(
        tools,
        [
            "read_file",
            "list_dir",
            "search",
            "write_file",
            "edit_file",
            "bash"
        ]
    );

    let ok = client.call("read_file", json!({"path": "src/lib.rs"}));
    assert_eq!(ok["isError"], false, "{ok}");
    assert_eq!(
        ok["structuredContent"]["content"]["content"],
        "pub fn answer() -> u32 { 42 }\n"
    );
    assert_eq!(ok["structuredContent"]["content"]["untrusted"], true);

    let denied = client.call("bash", json!({"command": "rm -rf ~"}));
    assert_eq!(denied["isError"], true, "{denied}");
    assert!(
        text(&denied).starts_with("POLICY_DENIED: [catastrophic] blocked:"),
        "{denied}"
    );

    let asked = client.call(
        "write_file",
        json!({"path": "docs/a.md", "content": "A\n", "create_dirs": true}),
    );
    assert_eq!(
        asked["structuredContent"]["code"], "APPROVAL_REQUIRED",
        "{asked}"
    );
    let id = asked["structuredContent"]["challenge"]
        .as_str()
        .expect("challenge")
        .to_string();
    assert!(
        text(&asked).contains(&format!("challenge: {id}")),
        "{asked}"
    );
    let approve = Command::new(env!("CARGO_BIN_EXE_warden"))
        .env_clear()
        .env("PATH", PATH)
        .env("HOME", &env.home)
        .env("XDG_STATE_HOME", &env.state)
        .env("XDG_CONFIG_HOME", &env.config)
        .args(["approve", &id, "--yes"])
        .output()
        .expect("approve");
    assert_eq!(approve.status.code(), Some(0));
    let done = client.call(
        "write_file",
        json!({"path": "docs/a.md", "content": "A\n", "create_dirs": true}),
    );
    assert_eq!(done["isError"], false, "{done}");
    assert_eq!(
        std::fs::read_to_string(env.workspace.join("docs/a.md")).expect("read"),
        "A\n"
    );

    let invented = client.call("shell_exec", json!({"command": "id"}));
    assert_eq!(
        invented["structuredContent"]["code"], "TOOL_UNAVAILABLE",
        "{invented}"
    );
    // Nothing at run time changes the list.
    assert_eq!(client.tools(), tools);
    let log = std::fs::read_to_string(env.state.join("warden/audit/audit.jsonl")).expect("log");
    assert!(
        log.lines().all(|l| l.contains("\"session\":\"mcp-")),
        "the MCP session is the session: {log}"
    );
}

#[test]
fn the_profile_shapes_the_list() {
    let env = Env::new();
    let mut client = start(&env, &["--profile", "readonly"]);
    assert_eq!(client.tools(), ["read_file", "list_dir", "search", "bash"]);
    let r = client.call("write_file", json!({"path": "x", "content": "x"}));
    assert_eq!(r["structuredContent"]["code"], "TOOL_UNAVAILABLE", "{r}");
    assert!(!env.workspace.join("x").exists());
}
