//! Policy layers through the real binary: a person's own rules decide by first match and may
//! allow what the shipped rules ask about, never what they forbid as catastrophic; the
//! workspace's file (which the agent could edit) only tightens.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

mod common;

use common::{describe, has_branch, repository_with_topic_branches};

const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

struct Env {
    _dir: tempfile::TempDir,
    workspace: PathBuf,
    home: PathBuf,
    config: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::Builder::new()
            .prefix("warden-layers-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        let workspace = root.join("workspace");
        let home = root.join("home");
        let config = root.join("config");
        for d in [&workspace, &home, &config.join("warden")] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        repository_with_topic_branches(&workspace);
        Env {
            _dir: dir,
            workspace,
            home,
            config,
        }
    }

    fn user_policy(&self, text: &str) {
        std::fs::write(self.config.join("warden/policy.toml"), text).expect("write policy");
    }

    fn workspace_policy(&self, text: &str) {
        std::fs::create_dir_all(self.workspace.join(".warden")).expect("mkdir");
        std::fs::write(self.workspace.join(".warden/policy.toml"), text).expect("write policy");
    }

    fn warden(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_warden"))
            .env_clear()
            .env("PATH", PATH)
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", &self.config)
            .arg("--workspace")
            .arg(&self.workspace)
            .args(args)
            .current_dir(&self.workspace)
            .stdin(Stdio::null())
            .output()
            .expect("run warden")
    }

    fn has_branch(&self, name: &str) -> bool {
        has_branch(&self.workspace, name)
    }
}

const ALLOW_TOPIC_BRANCH_DELETES: &str = r#"
[[rule]]
id = "me.topic-branches"
action = "allow"
reason = "topic branches are mine to delete"
[rule.match]
program = ["git"]
subcommand = ["branch"]
args = ["topic*"]
[rule.examples]
match = ["git branch -D topic9"]
not_match = ["git branch -D main"]
"#;

#[test]
fn a_user_rule_allows_what_the_shipped_rules_ask_about() {
    let env = Env::new();
    let out = env.warden(&["-c", "git branch -D topic1"]);
    assert_eq!(out.status.code(), Some(75), "{}", describe(&out));
    env.user_policy(ALLOW_TOPIC_BRANCH_DELETES);
    let out = env.warden(&["-c", "git branch -D topic1"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(!env.has_branch("topic1"));
    // Outside the rule's arguments, the shipped rule still asks.
    let out = env.warden(&["-c", "git branch -D main"]);
    assert_eq!(out.status.code(), Some(75), "{}", describe(&out));
    let out = env.warden(&["policy", "list"]);
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(
        list.lines()
            .any(|l| l.starts_with("me.topic-branches") && l.contains(" user ")),
        "{list}"
    );
    let out = env.warden(&["explain", "-c", "git branch -D topic2"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("me.topic-branches (ordinary allow, user layer, ")
            && text.contains("warden/policy.toml:3)"),
        "{text}"
    );
}

#[test]
fn nothing_overrides_a_catastrophic_rule() {
    let env = Env::new();
    env.user_policy(
        "[[rule]]\nid = \"me.rm\"\naction = \"allow\"\nreason = \"I trust rm\"\n[rule.match]\nprogram = [\"rm\"]\n",
    );
    let out = env.warden(&["-c", "rm -rf ~"]);
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("[catastrophic] blocked"),
        "{}",
        describe(&out)
    );
}

#[test]
fn within_the_person_s_rules_the_first_match_wins() {
    let env = Env::new();
    env.user_policy(&format!(
        "[[rule]]\nid = \"me.keep-topic1\"\naction = \"ask\"\nreason = \"topic1 is shared\"\n[rule.match]\nprogram = [\"git\"]\nargs = [\"topic1\"]\n{ALLOW_TOPIC_BRANCH_DELETES}"
    ));
    let out = env.warden(&["-c", "git branch -D topic1"]);
    assert_eq!(out.status.code(), Some(75), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("[policy] needs approval: topic1 is shared"),
        "{}",
        describe(&out)
    );
    let out = env.warden(&["-c", "git branch -D topic2"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(env.has_branch("topic1") && !env.has_branch("topic2"));
}

#[test]
fn the_workspace_policy_can_only_tighten() {
    let env = Env::new();
    env.workspace_policy(ALLOW_TOPIC_BRANCH_DELETES);
    let out = env.warden(&["-c", "git branch -D topic1"]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("can only add ask or deny"),
        "{}",
        describe(&out)
    );
    assert!(env.has_branch("topic1"));
    env.workspace_policy(
        "[[rule]]\nid = \"project.no-echo\"\naction = \"deny\"\nreason = \"this project does not echo\"\nhint = \"use printf\"\n[rule.match]\nprogram = [\"echo\"]\n",
    );
    let out = env.warden(&["-c", "echo hi"]);
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("[policy] blocked: this project does not echo — use printf"),
        "{}",
        describe(&out)
    );
}

#[test]
fn path_globs_match_resolved_paths_so_dot_dot_does_not_slip_through() {
    let env = Env::new();
    env.user_policy(
        "[[rule]]\nid = \"me.vault\"\naction = \"deny\"\nreason = \"the vault is read-only\"\n[rule.match]\neffect = [\"write\", \"delete\"]\npath = [\"vault/**\"]\n",
    );
    std::fs::create_dir_all(env.workspace.join("vault")).expect("mkdir");
    std::fs::create_dir_all(env.workspace.join("src")).expect("mkdir");
    for attempt in [
        "touch vault/x",
        "touch src/../vault/y",
        "rm -f ./vault/../vault/z",
    ] {
        let out = env.warden(&["-c", attempt]);
        assert_eq!(out.status.code(), Some(77), "{attempt}: {}", describe(&out));
    }
    let out = env.warden(&["-c", "touch src/ok"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(!env.workspace.join("vault/x").exists() && !env.workspace.join("vault/y").exists());
}

#[test]
fn a_bad_user_policy_names_the_file_line_and_key() {
    let env = Env::new();
    env.user_policy(
        "[[rule]]\nid = \"me.x\"\naction = \"ask\"\nreason = \"r\"\ncolour = \"red\"\n[rule.match]\nprogram = [\"ls\"]\n",
    );
    let out = env.warden(&["-c", "ls"]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("policy.toml") && err.contains("colour") && err.contains("line 5"),
        "{}",
        describe(&out)
    );
}

#[test]
fn a_user_policy_inside_the_workspace_is_refused() {
    let env = Env::new();
    let inside = env.workspace.join("cfg");
    std::fs::create_dir_all(inside.join("warden")).expect("mkdir");
    std::fs::write(
        inside.join("warden/policy.toml"),
        ALLOW_TOPIC_BRANCH_DELETES,
    )
    .expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .env_clear()
        .env("PATH", PATH)
        .env("HOME", &env.home)
        .env("XDG_CONFIG_HOME", &inside)
        .arg("--workspace")
        .arg(&env.workspace)
        .args(["-c", "git branch -D topic1"])
        .current_dir(&env.workspace)
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("inside the workspace"),
        "{}",
        describe(&out)
    );
    assert!(env.has_branch("topic1"));
}

// ---------------------------------------------------------------------------------------------
// Profiles and the network setting

#[test]
fn the_readonly_profile_runs_reads_and_refuses_everything_else() {
    let env = Env::new();
    let out = env.warden(&["--profile", "readonly", "-c", "cat a.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "a\n");
    for change in ["touch b.txt", "rm a.txt", "git branch topic3"] {
        let out = env.warden(&["--profile", "readonly", "-c", change]);
        assert_eq!(out.status.code(), Some(77), "{change}: {}", describe(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("readonly profile"),
            "{change}: {}",
            describe(&out)
        );
    }
    assert!(!env.workspace.join("b.txt").exists() && env.workspace.join("a.txt").exists());
    // The profile can come from the user configuration too.
    std::fs::write(
        env.config.join("warden/config.toml"),
        "[policy]\nprofile = \"readonly\"\n",
    )
    .expect("write config");
    let out = env.warden(&["-c", "touch b.txt"]);
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
}

#[test]
fn the_strict_profile_asks_unless_a_personal_rule_allows() {
    let env = Env::new();
    let out = env.warden(&["--profile", "strict", "-c", "cat a.txt"]);
    assert_eq!(out.status.code(), Some(75), "{}", describe(&out));
    env.user_policy(
        "[[rule]]\nid = \"me.cat\"\naction = \"allow\"\nreason = \"reading is fine\"\n[rule.match]\nprogram = [\"cat\"]\n",
    );
    let out = env.warden(&["--profile", "strict", "-c", "cat a.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    // Destructive operations stay denied in every profile.
    let out = env.warden(&["--profile", "strict", "-c", "rm -rf ~"]);
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
}

#[test]
fn the_network_setting_refuses_asks_or_gives_the_network() {
    let env = Env::new();
    let out = env.warden(&["--network", "-c", "true"]);
    assert_eq!(
        out.status.code(),
        Some(75),
        "ask by default: {}",
        describe(&out)
    );
    std::fs::write(
        env.config.join("warden/config.toml"),
        "[policy]\nnetwork = \"off\"\n",
    )
    .expect("write config");
    let out = env.warden(&["--network", "-c", "true"]);
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("network setting is off"),
        "{}",
        describe(&out)
    );
    std::fs::write(
        env.config.join("warden/config.toml"),
        "[policy]\nnetwork = \"on\"\n",
    )
    .expect("write config");
    // Given: the sandbox shares the host's interfaces (more than loopback).
    let out = env.warden(&["--network", "-c", "cat /proc/net/dev"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let interfaces = String::from_utf8_lossy(&out.stdout).lines().skip(2).count();
    let host = std::fs::read_to_string("/proc/net/dev")
        .expect("host interfaces")
        .lines()
        .skip(2)
        .count();
    assert_eq!(interfaces, host, "{}", describe(&out));
    std::fs::write(
        env.config.join("warden/config.toml"),
        "[policy]\nnetwork = \"sometimes\"\n",
    )
    .expect("write config");
    let out = env.warden(&["-c", "true"]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
}

#[test]
fn lint_finds_the_shadowed_and_unreachable_rules_of_a_file() {
    let env = Env::new();
    let file = env.config.join("fixture.toml");
    std::fs::write(
        &file,
        r#"
[[rule]]
id = "me.git"
action = "ask"
reason = "git asks"
[rule.match]
program = ["git"]

[[rule]]
id = "me.git-status"
action = "allow"
reason = "status is harmless"
[rule.match]
program = ["git"]
subcommand = ["status"]

[[rule]]
id = "me.catch-all"
action = "ask"
reason = "everything else asks"
[rule.match]
program = ["*"]

[[rule]]
id = "me.cat"
action = "allow"
reason = "reading"
[rule.match]
program = ["cat"]
"#,
    )
    .expect("write");
    let file_arg = file.display().to_string();
    let out = env.warden(&["policy", "lint", &file_arg]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("rule `me.git-status`: never reached: the earlier rule `me.git`")
            && text.contains("rule `me.cat`: never reached: the earlier rule `me.catch-all`")
            && text.contains("4 rules of yours, 2 finding(s)"),
        "{text}"
    );
    env.user_policy(ALLOW_TOPIC_BRANCH_DELETES);
    let out = env.warden(&["policy", "lint"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

#[test]
fn an_expired_rule_no_longer_applies() {
    let env = Env::new();
    env.user_policy(&ALLOW_TOPIC_BRANCH_DELETES.replace(
        "reason = \"topic branches are mine to delete\"",
        "reason = \"topic branches are mine to delete\"\nexpires = \"2020-01-01\"",
    ));
    let out = env.warden(&["-c", "git branch -D topic1"]);
    assert_eq!(out.status.code(), Some(75), "{}", describe(&out));
    let out = env.warden(&["policy", "lint"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("has expired"),
        "{}",
        describe(&out)
    );
    env.user_policy(&ALLOW_TOPIC_BRANCH_DELETES.replace(
        "reason = \"topic branches are mine to delete\"",
        "reason = \"topic branches are mine to delete\"\nexpires = \"2999-12-31\"",
    ));
    let out = env.warden(&["-c", "git branch -D topic1"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

#[test]
fn tools_prints_the_capability_snapshot_in_each_format() {
    let env = Env::new();
    for (format, name_at) in [
        ("json", "/0/name"),
        ("mcp", "/tools/0/name"),
        ("openai", "/0/function/name"),
        ("anthropic", "/0/name"),
    ] {
        let out = env.warden(&["tools", "--format", format]);
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(
            v.pointer(name_at),
            Some(&serde_json::json!("read_file")),
            "{format}: {v}"
        );
    }
    let out = env.warden(&["--profile", "readonly", "tools"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("readonly profile"),
        "{}",
        describe(&out)
    );
    let out = env.warden(&["tools", "--format", "yaml"]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
}

#[test]
fn argument_and_path_conditions_take_regular_expressions() {
    let env = Env::new();
    env.user_policy(
        r#"
[[rule]]
id = "me.numbered-topics"
action = "allow"
reason = "numbered topic branches are mine"
[rule.match]
program = ["git"]
args = ['re:^topic[0-9]+$']
[rule.examples]
match = ["git branch -D topic12"]
not_match = ["git branch -D topicx", "git branch -D main-topic1"]

[[rule]]
id = "me.no-generated"
action = "deny"
reason = "generated files are rebuilt, not edited"
hint = "change the generator"
[rule.match]
effect = ["write"]
path = ['re:/gen/[^/]+\.rs$']
"#,
    );
    let out = env.warden(&["-c", "git branch -D topic1"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(!env.has_branch("topic1"));
    std::fs::create_dir_all(env.workspace.join("src/gen")).expect("mkdir");
    let out = env.warden(&["-c", "touch src/other/../gen/x.rs"]);
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("blocked: generated files are rebuilt, not edited"),
        "{}",
        describe(&out)
    );
    let out = env.warden(&["-c", "touch src/gen/x.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let out = env.warden(&["policy", "show", "me.numbered-topics"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("layer:    user")
            && text.contains("warden/policy.toml:3")
            && text.contains(r#"an argument ∈ ["re:^topic[0-9]+$"]"#),
        "{text}"
    );

    env.user_policy(
        "[[rule]]\nid = \"me.bad\"\naction = \"ask\"\nreason = \"r\"\n[rule.match]\nargs = ['re:(unclosed']\n",
    );
    let out = env.warden(&["-c", "true"]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("policy.toml: rule `me.bad`: `re:(unclosed` is not a regular expression"),
        "{err}"
    );
}

#[test]
fn a_network_condition_tells_requests_with_the_host_network_from_those_without() {
    let env = Env::new();
    env.user_policy(
        r#"
[[rule]]
id = "me.network"
action = "allow"
reason = "this machine may use the network"
[rule.match]
fact = ["network.requested"]

[[rule]]
id = "me.no-git-online"
action = "deny"
reason = "git talks to remotes only through a person"
hint = "run git offline"
[rule.match]
program = ["git"]
network = true
"#,
    );
    let out = env.warden(&["--network", "-c", "git status --short"]);
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "[policy] blocked: git talks to remotes only through a person — run git offline"
        ),
        "{}",
        describe(&out)
    );
    let out = env.warden(&["-c", "git status --short"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let out = env.warden(&["--network", "-c", "true"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

#[test]
fn tools_leaves_out_a_tool_the_rules_deny_for_every_argument() {
    let env = Env::new();
    let names = |out: &Output| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        v.as_array()
            .expect("array")
            .iter()
            .map(|t| t["name"].as_str().expect("name").to_string())
            .collect()
    };
    let out = env.warden(&["tools"]);
    assert!(
        names(&out).contains(&"bash".to_string()),
        "{}",
        describe(&out)
    );
    env.workspace_policy(
        "[[rule]]\nid = \"project.no-shell\"\naction = \"deny\"\nreason = \"this project takes no shell commands\"\n[rule.match]\ntool = [\"bash\"]\n",
    );
    let out = env.warden(&["tools"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(
        names(&out),
        ["read_file", "list_dir", "search", "write_file", "edit_file"],
        "{}",
        describe(&out)
    );
    // And the rule the snapshot reflects is the one that decides a call anyway.
    let out = env.warden(&["-c", "ls"]);
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
}
