//! File-tool calls as operations: what they do, to which path, and the facts the rules match.
//!
//! The protocol has already checked the arguments; here a call becomes one [`Operation`] whose
//! program is the tool's name, whose target is the workspace-relative path resolved against
//! the workspace root, and whose facts are the ones shell commands get for the same access
//! (`secret.read`, `secret.write`), so the secret-path rules guard both alike.

use serde_json::Value;

use super::{Effect, Operation, Role, Target, paths, secrets};
use crate::shell::Context;

/// The file tools and the side effect of each.
pub const FILE_TOOLS: &[(&str, Effect)] = &[
    ("read_file", Effect::Read),
    ("list_dir", Effect::Read),
    ("search", Effect::Read),
    ("write_file", Effect::Write),
    ("edit_file", Effect::Write),
];

/// Longest argument text shown in a summary.
const SHOWN: usize = 120;

/// The call's arguments in one line, long texts cut (for messages, challenges and the log).
pub fn summary(args: &Value) -> String {
    fn shorten(v: &Value) -> Value {
        match v {
            Value::String(s) if s.chars().count() > SHOWN => {
                let head: String = s.chars().take(SHOWN).collect();
                Value::String(format!("{head}… ({} bytes)", s.len()))
            }
            Value::Array(items) if items.len() > 8 => {
                let mut kept: Vec<Value> = items.iter().take(8).map(shorten).collect();
                kept.push(Value::String(format!("… ({} items)", items.len())));
                Value::Array(kept)
            }
            Value::Array(items) => Value::Array(items.iter().map(shorten).collect()),
            Value::Object(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), shorten(v))).collect())
            }
            other => other.clone(),
        }
    }
    shorten(args).to_string()
}

/// The operation of one file-tool call.
pub fn classify(tool: &str, args: &Value, ctx: &Context) -> Vec<Operation> {
    let effect = FILE_TOOLS
        .iter()
        .find(|(name, _)| *name == tool)
        .map(|(_, e)| *e);
    let written = args
        .get("path")
        .and_then(Value::as_str)
        .unwrap_or(".")
        .to_string();
    let mut op = Operation {
        program: tool.to_string(),
        subcommand: None,
        args: vec![written.clone()],
        effect: effect.unwrap_or(Effect::Unknown),
        targets: Vec::new(),
        remote: None,
        facts: Vec::new(),
        via: Vec::new(),
        privileged: false,
        text: format!("{tool} {}", summary(args)),
    };
    let Some(effect) = effect else {
        op.fact("input.parse_error", format!("`{tool}` is not a file tool"));
        return vec![op];
    };
    let rel = match crate::fs::RelPath::parse(&written) {
        Ok(rel) => rel,
        Err(e) => {
            op.fact("input.parse_error", e.to_string());
            return vec![op];
        }
    };
    let workspace = paths::real_workspace(ctx);
    let path = if rel.is_root() {
        workspace.clone()
    } else {
        workspace.join(rel.as_text())
    };
    let role = match effect {
        Effect::Read => Role::Read,
        _ if tool == "write_file" => Role::Truncate,
        _ => Role::Write,
    };
    let secret = secrets::secret_kind(&rel.as_text())
        .or_else(|| secrets::secret_kind(&path.to_string_lossy()));
    if let Some(kind) = secret {
        let (fact, verb) = match effect {
            Effect::Read => ("secret.read", "reads"),
            _ => ("secret.write", "changes"),
        };
        // A listing or a search shows names (and skips secret files), not a secret's content.
        if !(tool == "list_dir" || tool == "search") {
            op.fact(fact, format!("`{}` {verb} {kind}", rel.as_text()));
        }
    }
    let exists = std::fs::symlink_metadata(&path).is_ok();
    op.targets.push(Target {
        role,
        resolved: paths::Resolved {
            written,
            place: paths::place_of(&path, ctx, &workspace),
            path: Some(path),
            glob: false,
            bare_glob: false,
            traversal: false,
            exists,
            known_texts: Vec::new(),
        },
    });
    vec![op]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Context {
        Context {
            workspace: "/work/app".into(),
            cwd: "/work/app".into(),
            home: "/home/u".into(),
        }
    }

    #[test]
    fn secret_paths_get_the_facts_shell_commands_get() {
        let read = classify("read_file", &serde_json::json!({"path": ".env"}), &ctx());
        assert!(read[0].has_fact("secret.read"));
        let write = classify(
            "edit_file",
            &serde_json::json!({"path": "config/.aws/credentials"}),
            &ctx(),
        );
        assert!(write[0].has_fact("secret.write"));
        let code = classify(
            "read_file",
            &serde_json::json!({"path": "src/tokenizer.rs"}),
            &ctx(),
        );
        assert!(code[0].facts.is_empty());
        assert_eq!(
            code[0].targets[0].resolved.path.as_deref(),
            Some(std::path::Path::new("/work/app/src/tokenizer.rs"))
        );
        let escape = classify("read_file", &serde_json::json!({"path": "../x"}), &ctx());
        assert!(escape[0].has_fact("input.parse_error"));
    }

    #[test]
    fn summaries_cut_long_content() {
        let long = "x".repeat(5000);
        let s = summary(&serde_json::json!({"path": "a", "content": long}));
        assert!(s.len() < 300 && s.contains("5000 bytes"), "{s}");
    }
}
