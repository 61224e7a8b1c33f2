//! Agent hooks: warden deciding for an agent that executes its own tools.
//!
//! Claude Code's `PreToolUse` hook sends `{"tool_name", "tool_input", "cwd", "session_id", …}`
//! on stdin and reads `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
//! "permissionDecision": "allow"|"deny"|"ask", "permissionDecisionReason", "updatedInput"}}`.
//! A `Bash` call is decided like `warden -c`, and when it may go ahead its command is rewritten
//! to run under `warden -c`, so the sandbox applies although the agent executes it. File tools
//! (`Read`, `Write`, `Edit`, `MultiEdit`, `NotebookEdit`, `Grep`, `Glob`, `LS`) are judged by their
//! paths: secret paths as for shell commands, writes only inside the workspace. Any failure —
//! malformed or oversized input, an internal error — is a deny: a hook that fails must not let
//! the call through.

use serde_json::{Value, json};

use crate::pipeline::{Evaluator, Request};
use crate::policy::Decision;

/// The largest payload read.
pub const MAX_INPUT_BYTES: usize = 1024 * 1024;

/// What the hook answers.
#[derive(Debug)]
pub struct Answer {
    pub decision: Decision,
    /// The tier and the rule that decided (for the audit log).
    pub tier: String,
    pub rule: String,
    pub reason: String,
    /// The replacement tool input (a `Bash` command wrapped in `warden -c`).
    pub updated_input: Option<Value>,
    /// The evaluation behind the answer (None when the path alone decided), for the audit log.
    pub evaluation: Option<crate::pipeline::Evaluation>,
}

impl Answer {
    fn deny(tier: &str, rule: &str, reason: impl Into<String>) -> Answer {
        Answer {
            decision: Decision::Deny,
            tier: tier.into(),
            rule: rule.into(),
            reason: reason.into(),
            updated_input: None,
            evaluation: None,
        }
    }

    fn of(evaluation: crate::pipeline::Evaluation, updated_input: Option<Value>) -> Answer {
        let decided = evaluation.effective();
        Answer {
            decision: decided.verdict.decision,
            tier: decided.verdict.tier.as_str().into(),
            rule: decided.verdict.rule.clone(),
            reason: crate::report::line(decided),
            updated_input,
            evaluation: Some(evaluation),
        }
    }

    /// The Claude Code output document.
    pub fn to_claude_code(&self) -> Value {
        let mut specific = json!({
            "hookEventName": "PreToolUse",
            "permissionDecision": self.decision.as_str(),
            "permissionDecisionReason": self.reason,
        });
        if let Some(input) = &self.updated_input {
            specific["updatedInput"] = input.clone();
        }
        json!({"hookSpecificOutput": specific})
    }
}

/// The answer for a payload that could not be judged.
pub fn refusal(why: &str) -> Value {
    Answer::deny(
        "unverifiable",
        "hook.unjudged",
        format!(
            "[unverifiable] blocked: warden could not judge this call ({why}) — nothing unjudged runs"
        ),
    )
    .to_claude_code()
}

/// The parts of a Claude Code payload the decision needs.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct Payload {
    pub tool_name: String,
    #[serde(default)]
    pub tool_input: Value,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub hook_event_name: Option<String>,
}

/// Decodes a Claude Code payload (bounded, JSON, a tool name, the `PreToolUse` event).
pub fn decode(input: &[u8]) -> Result<Payload, String> {
    decode_event(input, "PreToolUse")
}

/// Decodes a payload of the agent whose pre-tool event is `event`.
pub fn decode_event(input: &[u8], event: &str) -> Result<Payload, String> {
    if input.len() > MAX_INPUT_BYTES {
        return Err(format!(
            "the payload is {} bytes; the limit is {MAX_INPUT_BYTES}",
            input.len()
        ));
    }
    let payload: Payload =
        serde_json::from_slice(input).map_err(|e| format!("the payload is not valid: {e}"))?;
    if let Some(got) = &payload.hook_event_name
        && got != event
    {
        return Err(format!("`{got}` is not the {event} event"));
    }
    Ok(payload)
}

/// Decides one Claude Code tool call. `warden` is the path of warden's own binary (for the
/// rewritten command); None when the call is not one warden has an opinion on.
pub fn decide_claude_code(
    evaluator: &mut Evaluator,
    payload: &Payload,
    warden: &str,
) -> Option<Answer> {
    let input = &payload.tool_input;
    let text = |key: &str| input.get(key).and_then(Value::as_str);
    match payload.tool_name.as_str() {
        "Bash" => {
            let Some(command) = text("command") else {
                return Some(Answer::deny(
                    "unverifiable",
                    "hook.no-command",
                    "[unverifiable] blocked: a Bash call without a command — send the command text",
                ));
            };
            let evaluation = evaluator.evaluate(Request::shell(command));
            if evaluation.decision() == Decision::Deny {
                return Some(Answer::of(evaluation, None));
            }
            // Allowed or asked: what runs is the command under warden, which decides it again
            // and runs it in the sandbox (a sensitive one still needs warden's own approval).
            let mut updated = input.clone();
            updated["command"] = Value::String(wrap(warden, &evaluator.ctx.workspace, command));
            Some(Answer::of(evaluation, Some(updated)))
        }
        "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "Grep" | "Glob" | "LS" => {
            let writes = matches!(
                payload.tool_name.as_str(),
                "Write" | "Edit" | "MultiEdit" | "NotebookEdit"
            );
            let path = text("file_path")
                .or_else(|| text("notebook_path"))
                .or_else(|| text("absolute_path"))
                .or_else(|| text("path"))
                .or_else(|| text("dir_path"))
                .unwrap_or(".");
            Some(judge_path(evaluator, &payload.tool_name, path, writes))
        }
        _ => None,
    }
}

/// The Gemini CLI tools warden judges, each with the Claude Code tool it corresponds to (the
/// older and newer names of a tool both listed: `search_file_content` became `grep_search`).
/// `warden install gemini` builds its matcher from this list, so the hook sees exactly these.
pub const GEMINI_TOOLS: &[(&str, &str)] = &[
    ("run_shell_command", "Bash"),
    ("read_file", "Read"),
    ("read_many_files", "Read"),
    ("write_file", "Write"),
    ("replace", "Edit"),
    ("edit", "Edit"),
    ("glob", "Glob"),
    ("grep_search", "Grep"),
    ("search_file_content", "Grep"),
    ("grep", "Grep"),
    ("list_directory", "LS"),
    ("ls", "LS"),
];

/// Gemini CLI's tool names, as the Claude Code tools they correspond to.
fn gemini_as_claude_code(tool: &str) -> Option<&'static str> {
    GEMINI_TOOLS
        .iter()
        .find(|(gemini, _)| *gemini == tool)
        .map(|(_, claude)| *claude)
}

/// Decides one Gemini CLI `BeforeTool` call: the same judgement as for Claude Code. Gemini
/// has no "ask": a shell command that needs approval goes ahead rewritten under warden, which
/// then refuses it until a person approves it (`warden approve ID`); a file call that needs
/// approval is refused with the reason.
pub fn decide_gemini(evaluator: &mut Evaluator, payload: &Payload, warden: &str) -> Option<Answer> {
    let name = gemini_as_claude_code(&payload.tool_name)?;
    let as_claude = Payload {
        tool_name: name.to_string(),
        ..payload.clone()
    };
    let mut answer = decide_claude_code(evaluator, &as_claude, warden)?;
    if answer.decision == Decision::Ask {
        answer.decision = if answer.updated_input.is_some() {
            Decision::Allow
        } else {
            Decision::Deny
        };
    }
    Some(answer)
}

impl Answer {
    /// The Gemini CLI output document.
    pub fn to_gemini(&self) -> Value {
        let mut out = json!({
            "decision": if self.decision == Decision::Deny { "deny" } else { "allow" },
            "reason": self.reason,
        });
        if let Some(input) = &self.updated_input {
            out["hookSpecificOutput"] = json!({"tool_input": input});
        }
        out
    }
}

/// The Gemini CLI answer for a payload that could not be judged.
pub fn gemini_refusal(why: &str) -> Value {
    let mut v = refusal(why);
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"].take();
    json!({"decision": "deny", "reason": reason})
}

/// `WARDEN --workspace WS -c 'COMMAND'`, quoted for bash.
fn wrap(warden: &str, workspace: &std::path::Path, command: &str) -> String {
    let quote = |s: &str| {
        shlex::try_quote(s)
            .map(|q| q.into_owned())
            .unwrap_or_else(|_| format!("'{}'", s.replace('\'', r"'\''")))
    };
    format!(
        "{} --workspace {} -c {}",
        quote(warden),
        quote(&workspace.to_string_lossy()),
        quote(command)
    )
}

/// A file tool's path: inside the workspace it is decided as warden's own file tool would be;
/// outside, writes are refused and reads of secrets too.
fn judge_path(evaluator: &mut Evaluator, tool: &str, path: &str, writes: bool) -> Answer {
    let ctx = &evaluator.ctx;
    let absolute = if path.starts_with('/') {
        std::path::PathBuf::from(path)
    } else {
        ctx.cwd.join(path)
    };
    let normal = crate::classify::paths::real_path(&absolute, !writes);
    let workspace = crate::classify::paths::real_workspace(ctx);
    let inside = normal.strip_prefix(&workspace).ok().map(|rel| {
        let text = rel.to_string_lossy().into_owned();
        if text.is_empty() {
            ".".to_string()
        } else {
            text
        }
    });
    let Some(rel) = inside else {
        if writes {
            return Answer::deny(
                "policy",
                "hook.write-outside",
                format!(
                    "[policy] blocked: `{tool}` of {} writes outside the workspace {} — work inside the workspace",
                    normal.display(),
                    workspace.display()
                ),
            );
        }
        if let Some(kind) = crate::classify::secrets::is_secret_path(&normal) {
            return Answer::deny(
                "secret",
                "secret.read",
                format!(
                    "[secret] blocked: `{tool}` of {} reads {kind} — secrets stay out of the agent's context",
                    normal.display()
                ),
            );
        }
        return Answer {
            decision: Decision::Allow,
            tier: "ordinary".into(),
            rule: "hook.read-outside".into(),
            reason: "[ordinary] allowed: a read outside the workspace".into(),
            updated_input: None,
            evaluation: None,
        };
    };
    let own = match tool {
        "Read" => "read_file",
        "Grep" => "search",
        "Glob" | "LS" => "list_dir",
        "Edit" | "MultiEdit" | "NotebookEdit" => "edit_file",
        _ => "write_file",
    };
    if writes
        && let Ok(relpath) = crate::fs::RelPath::parse(&rel)
        && let Some(why) = crate::fs::guarded(&relpath)
    {
        return Answer::deny(
            "policy",
            "hook.guarded",
            format!("[policy] blocked: `{rel}` is guarded: {why} — change it outside the agent"),
        );
    }
    let evaluation = evaluator.evaluate(Request::Tool {
        tool: own.to_string(),
        args: json!({ "path": rel }),
    });
    Answer::of(evaluation, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_are_bounded_and_checked() {
        assert!(decode(b"{").is_err());
        assert!(decode(&vec![b' '; MAX_INPUT_BYTES + 1]).is_err());
        assert!(decode(br#"{"tool_input": {}}"#).is_err());
        assert!(decode(br#"{"tool_name":"Bash","hook_event_name":"PostToolUse"}"#).is_err());
        let p = decode(br#"{"tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/w"}"#)
            .expect("payload");
        assert_eq!(p.tool_name, "Bash");
        let refused = refusal("x");
        assert_eq!(refused["hookSpecificOutput"]["permissionDecision"], "deny");
    }

    #[test]
    fn the_wrapped_command_reads_back_as_the_original() {
        let cmd = "echo 'it''s' \"$HOME\"; ls -la";
        let wrapped = wrap("/usr/bin/warden", std::path::Path::new("/w s"), cmd);
        let words = shlex::split(&wrapped).expect("splits");
        assert_eq!(words, ["/usr/bin/warden", "--workspace", "/w s", "-c", cmd]);
    }
}
