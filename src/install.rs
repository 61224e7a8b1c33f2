//! `warden install AGENT`: wiring warden into an agent's configuration without clobbering it.
//!
//! Claude Code gets warden's `PreToolUse` hook and Gemini CLI its `BeforeTool` hook, each added to
//! the agent's `settings.json` next to whatever is there. Codex CLI has no pre-tool hook warden
//! can speak, so it gets warden as an MCP server: a `[mcp_servers.warden]` table appended, as
//! text, to the end of `config.toml`.
//!
//! Invariants: nothing is written unless the document parsed and has the expected shape; every
//! other key, hook and matcher is kept (and for Codex's TOML every byte, comments and order
//! included, since the file is appended to and never re-serialised); a second run changes
//! nothing; the previous file is kept beside the new one.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The tools warden judges in Claude Code.
pub const CLAUDE_CODE_MATCHER: &str = "Bash|Read|Write|Edit|MultiEdit|NotebookEdit|Grep|Glob|LS";

/// The agents warden can be wired into, by the names `warden install` takes.
pub const AGENTS: &[&str] = &["claude-code", "gemini", "codex"];

/// An agent whose configuration `warden install` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agent {
    ClaudeCode,
    Gemini,
    Codex,
}

impl Agent {
    pub fn parse(name: &str) -> Option<Agent> {
        match name {
            "claude-code" => Some(Agent::ClaudeCode),
            "gemini" => Some(Agent::Gemini),
            "codex" => Some(Agent::Codex),
            _ => None,
        }
    }

    /// The file to change: the user's (under `home`, or `codex_home` for Codex when set), or
    /// the project's under `workspace`. Codex reads MCP servers from the user's file only here.
    pub fn config_file(
        self,
        home: &Path,
        codex_home: Option<&Path>,
        workspace: Option<&Path>,
    ) -> Result<PathBuf, InstallError> {
        Ok(match (self, workspace) {
            (Agent::ClaudeCode, Some(ws)) => ws.join(".claude/settings.json"),
            (Agent::ClaudeCode, None) => home.join(".claude/settings.json"),
            (Agent::Gemini, Some(ws)) => ws.join(".gemini/settings.json"),
            (Agent::Gemini, None) => home.join(".gemini/settings.json"),
            (Agent::Codex, Some(_)) => {
                return Err(InstallError::Unsupported(
                    "codex: --project is not offered; warden goes into the user's ~/.codex/config.toml".into(),
                ));
            }
            (Agent::Codex, None) => codex_home
                .map(Path::to_path_buf)
                .unwrap_or_else(|| home.join(".codex"))
                .join("config.toml"),
        })
    }

    /// What is added, in the words of the messages.
    fn addition(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "the PreToolUse hook",
            Agent::Gemini => "the BeforeTool hook",
            Agent::Codex => "the [mcp_servers.warden] table",
        }
    }
}

/// Why a configuration document cannot be merged into.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct MergeError(pub String);

/// Why `warden install` wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The document is not of the expected shape; the person fixes it.
    #[error("{}: {why}; fix it by hand first (nothing was written)", file.display())]
    Shape { file: PathBuf, why: String },
    #[error("{}: {source}", file.display())]
    Read {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {source}", file.display())]
    Write {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Unsupported(String),
}

/// What `warden install` would write.
#[derive(Debug)]
pub struct Plan {
    pub agent: Agent,
    pub file: PathBuf,
    /// The whole resulting document.
    pub text: String,
    /// False when warden is already there: then `text` is the file as it is.
    pub changed: bool,
    /// What the person should know about the result (hooks switched off, what is guarded).
    pub notes: Vec<String>,
}

impl Plan {
    /// The line saying what was done.
    pub fn done(&self) -> String {
        format!("added {} to {}", self.agent.addition(), self.file.display())
    }

    /// The line saying why nothing changes.
    pub fn already(&self) -> String {
        format!(
            "{}: {} is already there; nothing changed",
            self.file.display(),
            self.agent.addition()
        )
    }
}

/// Reads `file` (absent is empty) and works out what wiring in the warden at `warden` makes of it.
pub fn plan(agent: Agent, file: &Path, warden: &Path) -> Result<Plan, InstallError> {
    let shape = |why: String| InstallError::Shape {
        file: file.to_path_buf(),
        why,
    };
    let before = match std::fs::read(file) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => {
            return Err(InstallError::Read {
                file: file.to_path_buf(),
                source,
            });
        }
    };
    let warden = warden.to_str().ok_or_else(|| {
        InstallError::Unsupported(format!(
            "warden's own path {} is not UTF-8",
            warden.display()
        ))
    })?;
    let mut notes = Vec::new();
    let (text, changed) = match agent {
        Agent::ClaudeCode | Agent::Gemini => {
            let mut settings: Value = match &before {
                Some(bytes) => serde_json::from_slice(bytes).map_err(|e| {
                    shape(format!(
                        "not JSON warden can merge into ({e}); a file with comments cannot be rewritten without losing them"
                    ))
                })?,
                None => json!({}),
            };
            let quoted = shlex::try_quote(warden)
                .map_err(|e| InstallError::Unsupported(format!("warden's own path: {e}")))?;
            let changed = if agent == Agent::Gemini {
                let changed = merge_gemini(&mut settings, &format!("{quoted} hook gemini"))
                    .map_err(|e| shape(e.0))?;
                notes.extend(gemini_hooks_off(&settings));
                changed
            } else {
                merge_claude_code(&mut settings, &format!("{quoted} hook claude-code"))
                    .map_err(|e| shape(e.0))?
            };
            match (&before, changed) {
                (Some(bytes), false) => (String::from_utf8_lossy(bytes).into_owned(), false),
                _ => (
                    serde_json::to_string_pretty(&settings).unwrap_or_default() + "\n",
                    true,
                ),
            }
        }
        Agent::Codex => {
            let text = match &before {
                Some(bytes) => String::from_utf8(bytes.clone())
                    .map_err(|_| shape("not UTF-8, so not TOML".into()))?,
                None => String::new(),
            };
            notes.push(CODEX_NOTE.to_string());
            match append_codex(&text, warden).map_err(|e| shape(e.0))? {
                Some(appended) => (appended, true),
                None => (text, false),
            }
        }
    };
    Ok(Plan {
        agent,
        file: file.to_path_buf(),
        text,
        changed,
        notes,
    })
}

/// Writes a changed plan: the previous file is copied beside it first (its path is returned),
/// then the new text replaces it in one rename, with the old file's permissions. A link (a
/// settings file kept in a dotfiles repository) is followed, so the link stays a link.
pub fn write(plan: &Plan, stamp: u64) -> Result<Option<PathBuf>, InstallError> {
    let failed = |file: &Path| {
        let file = file.to_path_buf();
        move |source| InstallError::Write { file, source }
    };
    let target = std::fs::canonicalize(&plan.file).unwrap_or_else(|_| plan.file.clone());
    if let Some(dir) = target.parent() {
        std::fs::create_dir_all(dir).map_err(failed(dir))?;
    }
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let previous = std::fs::metadata(&target).ok();
    let kept = match &previous {
        Some(_) => {
            let kept = target.with_file_name(format!("{name}.warden-backup-{stamp}"));
            std::fs::copy(&target, &kept).map_err(failed(&kept))?;
            Some(kept)
        }
        None => None,
    };
    let temp = target.with_file_name(format!("{name}.warden-tmp"));
    std::fs::write(&temp, &plan.text).map_err(failed(&temp))?;
    if let Some(meta) = previous {
        std::fs::set_permissions(&temp, meta.permissions()).map_err(failed(&temp))?;
    }
    std::fs::rename(&temp, &target).map_err(failed(&target))?;
    Ok(kept)
}

/// Adds the hook running `command` to Claude Code settings; returns whether anything changed.
pub fn merge_claude_code(settings: &mut Value, command: &str) -> Result<bool, MergeError> {
    merge_hook(
        settings,
        "PreToolUse",
        "hook claude-code",
        json!({
            "matcher": CLAUDE_CODE_MATCHER,
            "hooks": [{"type": "command", "command": command, "timeout": 10}]
        }),
    )
}

/// The Gemini CLI matcher: a regular expression naming, whole, the tools warden judges.
pub fn gemini_matcher() -> String {
    let names: Vec<&str> = crate::hook::GEMINI_TOOLS.iter().map(|(g, _)| *g).collect();
    format!("^({})$", names.join("|"))
}

/// Adds the hook running `command` to Gemini CLI settings; returns whether anything changed.
/// Gemini's timeout is in milliseconds; the name lets a person find it in `/hooks panel`.
pub fn merge_gemini(settings: &mut Value, command: &str) -> Result<bool, MergeError> {
    merge_hook(
        settings,
        "BeforeTool",
        "hook gemini",
        json!({
            "matcher": gemini_matcher(),
            "hooks": [{"name": "warden", "type": "command", "command": command, "timeout": 10000}]
        }),
    )
}

/// Appends `entry` to `settings.hooks.EVENT` unless a warden hook ending in `suffix` is there.
fn merge_hook(
    settings: &mut Value,
    event: &str,
    suffix: &str,
    entry: Value,
) -> Result<bool, MergeError> {
    let root = settings
        .as_object_mut()
        .ok_or_else(|| MergeError("the document is not a JSON object".into()))?;
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| MergeError("`hooks` is not an object".into()))?;
    let list = hooks
        .entry(event)
        .or_insert_with(|| json!([]))
        .as_array_mut()
        .ok_or_else(|| MergeError(format!("`hooks.{event}` is not an array")))?;
    let present = list.iter().any(|group| {
        group["hooks"].as_array().is_some_and(|hooks| {
            hooks.iter().any(|h| {
                h["command"]
                    .as_str()
                    .is_some_and(|c| c.contains("warden") && c.ends_with(suffix))
            })
        })
    });
    if present {
        return Ok(false);
    }
    list.push(entry);
    Ok(true)
}

/// Gemini CLI settings that keep every hook, or warden's, from running: said, never changed,
/// since they are the person's choice.
fn gemini_hooks_off(settings: &Value) -> Vec<String> {
    let mut notes = Vec::new();
    for key in ["hooksConfig", "hooks"] {
        if settings[key]["enabled"] == json!(false) {
            notes.push(format!(
                "`{key}.enabled` is false in this file: Gemini CLI runs no hook, warden's included, until it is true"
            ));
        }
        if settings[key]["disabled"]
            .as_array()
            .is_some_and(|names| names.iter().any(|n| n == "warden"))
        {
            notes.push(format!(
                "`{key}.disabled` names warden: Gemini CLI will not run its hook until it is taken out"
            ));
        }
    }
    notes
}

/// Said whenever Codex is wired in: what warden guards there, and what it does not.
pub const CODEX_NOTE: &str = "Codex now has warden's tools (read_file, list_dir, search, \
write_file, edit_file, bash), each call judged by warden and run in its sandbox. Codex's own \
shell and patch tools are not seen by warden: `codex --disable shell_tool` (or `shell_tool = \
false` under [features]) leaves commands to warden's bash. warden's workspace is the git work \
tree around the directory Codex runs in (or that directory); a `cwd` key in the table sets it.";

/// Appends `[mcp_servers.warden]` (running `warden mcp`) to a Codex `config.toml`, as text: the
/// existing bytes are kept as they are. None when a `mcp_servers.warden` entry is already there.
pub fn append_codex(text: &str, warden: &str) -> Result<Option<String>, MergeError> {
    let doc: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| MergeError(format!("not TOML ({})", e.message())))?;
    match doc.get("mcp_servers") {
        Some(toml::Value::Table(servers)) if servers.contains_key("warden") => return Ok(None),
        None | Some(toml::Value::Table(_)) => {}
        Some(_) => return Err(MergeError("`mcp_servers` is not a table".into())),
    }
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut out = text.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(eol);
    }
    if !out.trim().is_empty() {
        out.push_str(eol);
    }
    for line in [
        "# warden's tools, each call judged by warden (added by `warden install codex`)",
        "[mcp_servers.warden]",
        &format!("command = {}", toml_string(warden)),
        "args = [\"mcp\"]",
    ] {
        out.push_str(line);
        out.push_str(eol);
    }
    // The table must read back as meant: an inline `mcp_servers = { … }` cannot be extended.
    let check: toml::Table = out.parse().map_err(|e: toml::de::Error| {
        MergeError(format!(
            "`[mcp_servers.warden]` cannot be added at the end ({})",
            e.message()
        ))
    })?;
    let server = check
        .get("mcp_servers")
        .and_then(|servers| servers.get("warden"));
    if server
        .and_then(|s| s.get("command"))
        .and_then(toml::Value::as_str)
        != Some(warden)
        || server.and_then(|s| s.get("args")) != Some(&toml::Value::Array(vec!["mcp".into()]))
    {
        return Err(MergeError(
            "`[mcp_servers.warden]` does not read back as written".into(),
        ));
    }
    Ok(Some(out))
}

/// A TOML basic string: quotes, backslashes and control characters escaped.
fn toml_string(text: &str) -> String {
    let mut out = String::from('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hook_is_added_beside_what_is_there_once() {
        let mut settings = json!({
            "model": "opus",
            "hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "fmt-check"}]}],
                      "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}
        });
        assert_eq!(
            merge_claude_code(&mut settings, "/usr/local/bin/warden hook claude-code"),
            Ok(true)
        );
        assert_eq!(settings["model"], "opus");
        assert_eq!(
            settings["hooks"]["Stop"][0]["hooks"][0]["command"],
            "notify"
        );
        let pre = settings["hooks"]["PreToolUse"].as_array().expect("array");
        assert_eq!(pre.len(), 2);
        assert_eq!(pre[0]["hooks"][0]["command"], "fmt-check");
        assert_eq!(pre[1]["matcher"], CLAUDE_CODE_MATCHER);
        assert_eq!(
            merge_claude_code(&mut settings, "/usr/local/bin/warden hook claude-code"),
            Ok(false)
        );
        let mut empty = json!({});
        assert_eq!(
            merge_claude_code(&mut empty, "warden hook claude-code"),
            Ok(true)
        );
        assert!(merge_claude_code(&mut json!([]), "w").is_err());
        assert!(merge_claude_code(&mut json!({"hooks": 3}), "w").is_err());
    }

    #[test]
    fn the_gemini_hook_is_added_beside_other_hooks_and_matchers_once() {
        let mut settings = json!({
            "model": {"name": "gemini-2.5-pro"},
            "hooksConfig": {"enabled": true},
            "hooks": {
                "BeforeTool": [{"matcher": "write_file|replace", "hooks": [{"type": "command", "command": "lint.sh"}]}],
                "AfterTool": [{"matcher": "*", "hooks": [{"type": "command", "command": "log.sh"}]}],
                "disabled": ["old-hook"]
            }
        });
        let before = settings.clone();
        assert_eq!(
            merge_gemini(&mut settings, "/opt/warden hook gemini"),
            Ok(true)
        );
        let list = settings["hooks"]["BeforeTool"].as_array().expect("array");
        assert_eq!(list.len(), 2);
        assert_eq!(list[0], before["hooks"]["BeforeTool"][0]);
        assert_eq!(list[1]["matcher"], gemini_matcher());
        assert_eq!(list[1]["hooks"][0]["command"], "/opt/warden hook gemini");
        assert_eq!(list[1]["hooks"][0]["timeout"], 10000);
        for key in ["model", "hooksConfig"] {
            assert_eq!(settings[key], before[key], "{key} kept");
        }
        assert_eq!(settings["hooks"]["AfterTool"], before["hooks"]["AfterTool"]);
        assert_eq!(settings["hooks"]["disabled"], before["hooks"]["disabled"]);
        let once = settings.clone();
        assert_eq!(
            merge_gemini(&mut settings, "/elsewhere/warden hook gemini"),
            Ok(false)
        );
        assert_eq!(settings, once, "a second run changes nothing");
        // Claude Code's hook in the same file is not mistaken for Gemini's.
        let mut both = json!({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "warden hook claude-code"}]}]}});
        assert_eq!(merge_gemini(&mut both, "warden hook gemini"), Ok(true));
    }

    #[test]
    fn gemini_settings_of_another_shape_are_refused() {
        for (bad, why) in [
            (json!([]), "not a JSON object"),
            (json!("x"), "not a JSON object"),
            (json!({"hooks": []}), "`hooks` is not an object"),
            (
                json!({"hooks": {"BeforeTool": {}}}),
                "`hooks.BeforeTool` is not an array",
            ),
        ] {
            let mut doc = bad.clone();
            let err = merge_gemini(&mut doc, "warden hook gemini").expect_err("refused");
            assert!(err.0.contains(why), "{bad}: {err}");
            assert_eq!(doc, bad, "a refused document is left as it was");
        }
    }

    #[test]
    fn the_gemini_matcher_names_every_judged_tool_whole() {
        let matcher = gemini_matcher();
        let re = regex::Regex::new(&matcher).expect("a regular expression");
        for (tool, _) in crate::hook::GEMINI_TOOLS {
            assert!(re.is_match(tool), "{tool}");
        }
        for other in [
            "web_fetch",
            "save_memory",
            "mcp__x__read_file",
            "read_file_x",
        ] {
            assert!(!re.is_match(other), "{other}");
        }
        for required in [
            "run_shell_command",
            "read_file",
            "write_file",
            "replace",
            "grep_search",
        ] {
            assert!(
                crate::hook::GEMINI_TOOLS
                    .iter()
                    .any(|(g, _)| *g == required)
            );
        }
    }

    #[test]
    fn gemini_switches_that_stop_the_hook_are_reported_not_changed() {
        let off = json!({"hooksConfig": {"enabled": false, "disabled": ["warden"]}});
        let notes = gemini_hooks_off(&off);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(gemini_hooks_off(&json!({"hooksConfig": {"enabled": true}})).is_empty());
    }

    const PERSON_WRITTEN: &str = "# my Codex settings\nmodel = \"o4-mini\"   # fast\n\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs-server\"] # the docs\n\n[profiles.slow]\nmodel = \"o3\"";

    #[test]
    fn codex_gets_the_table_appended_and_every_byte_before_it_kept() {
        let out = append_codex(PERSON_WRITTEN, "/usr/local/bin/warden")
            .expect("appends")
            .expect("changed");
        assert!(
            out.starts_with(PERSON_WRITTEN),
            "kept byte for byte:\n{out}"
        );
        let added = &out[PERSON_WRITTEN.len()..];
        assert!(added.starts_with("\n\n# warden's tools"), "{added:?}");
        assert!(added.ends_with(
            "[mcp_servers.warden]\ncommand = \"/usr/local/bin/warden\"\nargs = [\"mcp\"]\n"
        ));
        let doc: toml::Table = out.parse().expect("TOML");
        assert_eq!(doc["mcp_servers"]["docs"]["command"].as_str(), Some("npx"));
        assert_eq!(doc["profiles"]["slow"]["model"].as_str(), Some("o3"));
        assert_eq!(
            doc["model"].as_str(),
            Some("o4-mini"),
            "root keys stay at the root"
        );
        assert_eq!(
            append_codex(&out, "/other/warden"),
            Ok(None),
            "a second run changes nothing"
        );
    }

    #[test]
    fn codex_files_empty_absent_or_with_crlf_get_a_table_of_their_own() {
        let out = append_codex("", "/w").expect("ok").expect("changed");
        assert!(out.starts_with("# warden's tools"), "{out:?}");
        let crlf = "model = \"x\"\r\n";
        let out = append_codex(crlf, "/w").expect("ok").expect("changed");
        assert!(out.starts_with(crlf));
        assert!(
            !out[crlf.len()..].replace("\r\n", "").contains('\n'),
            "{out:?}"
        );
        // An existing [mcp_servers] header, or dotted keys, take the new sub-table.
        let out = append_codex("[mcp_servers]\n", "/w")
            .expect("ok")
            .expect("changed");
        assert!(out.parse::<toml::Table>().is_ok());
        let dotted = "mcp_servers.docs.command = \"npx\"\n";
        assert!(append_codex(dotted, "/w").expect("ok").is_some());
    }

    #[test]
    fn codex_files_of_another_shape_are_refused() {
        for (bad, why) in [
            ("model = ", "not TOML"),
            ("[mcp_servers\n", "not TOML"),
            ("mcp_servers = 3\n", "`mcp_servers` is not a table"),
            (
                "[[mcp_servers]]\nname = \"x\"\n",
                "`mcp_servers` is not a table",
            ),
            (
                "mcp_servers = { docs = { command = \"npx\" } }\n",
                "cannot be added at the end",
            ),
        ] {
            let err = append_codex(bad, "/w").expect_err(bad);
            assert!(err.0.contains(why), "{bad:?}: {err}");
        }
        // Already there, in any form: left alone.
        for present in [
            "[mcp_servers.warden]\ncommand = \"/old/warden\"\n",
            "mcp_servers = { warden = { command = \"w\" } }\n",
        ] {
            assert_eq!(append_codex(present, "/w"), Ok(None), "{present}");
        }
    }

    #[test]
    fn the_codex_command_survives_any_path() {
        for path in [
            "/opt/my tools/warden",
            "/a\"b\\c/warden",
            "/tab\there/ünï/warden",
        ] {
            let out = append_codex("", path).expect("ok").expect("changed");
            let doc: toml::Table = out.parse().expect("TOML");
            assert_eq!(doc["mcp_servers"]["warden"]["command"].as_str(), Some(path));
        }
    }

    #[test]
    fn writing_keeps_the_old_file_its_mode_and_a_link_to_it() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let real = dir.path().join("dotfiles/config.toml");
        std::fs::create_dir_all(real.parent().expect("dir")).expect("mkdir");
        std::fs::write(&real, "model = \"x\"\n").expect("write");
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let link = dir.path().join("config.toml");
        std::os::unix::fs::symlink(&real, &link).expect("link");
        let planned = plan(Agent::Codex, &link, Path::new("/opt/warden")).expect("plan");
        assert!(planned.changed);
        let kept = write(&planned, 7).expect("written").expect("a copy kept");
        assert_eq!(kept, real.with_file_name("config.toml.warden-backup-7"));
        assert_eq!(
            std::fs::read_to_string(&kept).expect("read"),
            "model = \"x\"\n"
        );
        assert!(
            std::fs::symlink_metadata(&link)
                .expect("meta")
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&link).expect("read"), planned.text);
        let mode = std::fs::metadata(&real).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        // A file that did not exist is made, with its directory, and nothing is kept.
        let fresh = dir.path().join("new/.gemini/settings.json");
        let planned = plan(Agent::Gemini, &fresh, Path::new("/opt/warden")).expect("plan");
        assert_eq!(write(&planned, 7).expect("written"), None);
        let doc: Value =
            serde_json::from_slice(&std::fs::read(&fresh).expect("read")).expect("JSON");
        assert_eq!(
            doc["hooks"]["BeforeTool"][0]["hooks"][0]["command"],
            "/opt/warden hook gemini"
        );
    }

    #[test]
    fn config_files_follow_the_agent_and_the_scope() {
        let home = Path::new("/h");
        let ws = Path::new("/w");
        let file = |agent: Agent, codex: Option<&Path>, ws: Option<&Path>| {
            agent.config_file(home, codex, ws).expect("a file")
        };
        assert_eq!(
            file(Agent::Gemini, None, None),
            Path::new("/h/.gemini/settings.json")
        );
        assert_eq!(
            file(Agent::Gemini, None, Some(ws)),
            Path::new("/w/.gemini/settings.json")
        );
        assert_eq!(
            file(Agent::ClaudeCode, None, Some(ws)),
            Path::new("/w/.claude/settings.json")
        );
        assert_eq!(
            file(Agent::Codex, None, None),
            Path::new("/h/.codex/config.toml")
        );
        assert_eq!(
            file(Agent::Codex, Some(Path::new("/c")), None),
            Path::new("/c/config.toml")
        );
        assert!(Agent::Codex.config_file(home, None, Some(ws)).is_err());
        for name in AGENTS {
            assert!(Agent::parse(name).is_some(), "{name}");
        }
    }
}
