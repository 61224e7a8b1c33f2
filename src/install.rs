//! `warden install AGENT`: wiring warden into an agent's configuration without clobbering it.
//!
//! For Claude Code, warden's `PreToolUse` hook is added to `settings.json` next to whatever is
//! there: other keys, other hooks and other matchers are kept as they are, and a second run
//! changes nothing.

use serde_json::{Value, json};

/// The tools warden judges in Claude Code.
pub const CLAUDE_CODE_MATCHER: &str = "Bash|Read|Write|Edit|MultiEdit|NotebookEdit|Grep|Glob|LS";

/// Why a settings document cannot be merged into.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct MergeError(pub String);

/// Adds the hook running `command` to Claude Code settings; returns whether anything changed.
pub fn merge_claude_code(settings: &mut Value, command: &str) -> Result<bool, MergeError> {
    let shape = |what: &str| MergeError(format!("settings.json: {what}; fix it by hand first"));
    let root = settings
        .as_object_mut()
        .ok_or_else(|| shape("the document is not a JSON object"))?;
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| shape("`hooks` is not an object"))?;
    let pre = hooks
        .entry("PreToolUse")
        .or_insert_with(|| json!([]))
        .as_array_mut()
        .ok_or_else(|| shape("`hooks.PreToolUse` is not an array"))?;
    let present = pre.iter().any(|entry| {
        entry["hooks"].as_array().is_some_and(|list| {
            list.iter().any(|h| {
                h["command"]
                    .as_str()
                    .is_some_and(|c| c.contains("warden") && c.ends_with("hook claude-code"))
            })
        })
    });
    if present {
        return Ok(false);
    }
    pre.push(json!({
        "matcher": CLAUDE_CODE_MATCHER,
        "hooks": [{"type": "command", "command": command, "timeout": 10}]
    }));
    Ok(true)
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
}
