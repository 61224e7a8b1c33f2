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

/// Most argument strings of a proxied call looked at (the rest are judged by size alone).
const MAX_LEAVES: usize = 256;

/// The operation of one call of a proxied server's tool (`NAME.tool`). Nothing is known of
/// what it does (its own annotations are the server's word, and the server is what is being
/// guarded), so its effect is unknown; its arguments are the texts `args` rules see, every
/// argument that reads as a path is a target (`path` rules), and one that names a secret file
/// gets `secret.read`, as a shell command or a file tool naming it would.
pub fn classify_upstream(tool: &str, args: &Value, ctx: &Context) -> Vec<Operation> {
    let mut op = Operation {
        program: tool.to_string(),
        subcommand: None,
        args: Vec::new(),
        effect: Effect::Unknown,
        targets: Vec::new(),
        remote: None,
        facts: Vec::new(),
        via: Vec::new(),
        privileged: false,
        text: format!("{tool} {}", summary(args)),
    };
    let mut leaves = Vec::new();
    string_leaves(args, &mut leaves);
    if leaves.len() > MAX_LEAVES {
        op.fact(
            "input.too_large",
            format!(
                "the call has {} argument strings; at most {MAX_LEAVES} are judged",
                leaves.len()
            ),
        );
        leaves.truncate(MAX_LEAVES);
    }
    let workspace = paths::real_workspace(ctx);
    for text in leaves {
        op.args.push(text.to_string());
        let Some(path) = path_of(text, ctx, &workspace) else {
            continue;
        };
        let secret = secrets::secret_kind(text).or_else(|| secrets::secret_kind(&path));
        if let Some(kind) = secret {
            op.fact("secret.read", format!("`{text}` names {kind}"));
        }
        let path = std::path::PathBuf::from(path);
        op.targets.push(Target {
            role: Role::Read,
            resolved: paths::Resolved {
                written: text.to_string(),
                place: paths::place_of(&path, ctx, &workspace),
                exists: std::fs::symlink_metadata(&path).is_ok(),
                path: Some(path),
                glob: false,
                bare_glob: false,
                traversal: text.split('/').any(|c| c == ".."),
                known_texts: Vec::new(),
            },
        });
    }
    vec![op]
}

/// Every string in a JSON value (object keys are names, not arguments).
fn string_leaves<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| string_leaves(v, out)),
        Value::Object(map) => map.values().for_each(|v| string_leaves(v, out)),
        _ => {}
    }
}

/// The absolute, lexically normal path an argument names, if it reads as a path: absolute,
/// `~/…`, `./…`, `../…`, or a relative name with a `/` and no spaces or scheme (`src/a.rs`,
/// not `a sentence/with words` or `https://…`). Relative paths are taken from the workspace.
fn path_of(text: &str, ctx: &Context, workspace: &std::path::Path) -> Option<String> {
    if text.is_empty() || text.len() > 4096 || text.contains('\n') || text.contains("://") {
        return None;
    }
    let joined = if let Some(rest) = text.strip_prefix("~/") {
        format!("{}/{rest}", ctx.home.display())
    } else if text == "~" {
        ctx.home.display().to_string()
    } else if text.starts_with('/') {
        text.to_string()
    } else if text.starts_with("./")
        || text.starts_with("../")
        || (text.contains('/') && !text.contains(char::is_whitespace))
        || text.starts_with('.') && !text.contains(char::is_whitespace)
    {
        format!("{}/{text}", workspace.display())
    } else {
        return None;
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    Some(format!("/{}", parts.join("/")))
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
    fn proxied_calls_name_their_paths_and_secrets() {
        let op = &classify_upstream(
            "fs.read_text_file",
            &serde_json::json!({"path": "~/.ssh/id_ed25519", "note": "a sentence / with words"}),
            &ctx(),
        )[0];
        assert_eq!(op.program, "fs.read_text_file");
        assert_eq!(op.effect, Effect::Unknown);
        assert!(op.has_fact("secret.read"), "{:?}", op.facts);
        assert_eq!(op.targets.len(), 1);
        assert_eq!(
            op.targets[0].resolved.path.as_deref(),
            Some(std::path::Path::new("/home/u/.ssh/id_ed25519"))
        );
        assert_eq!(op.args.len(), 2);
        let nested = &classify_upstream(
            "fs.read_multiple_files",
            &serde_json::json!({"paths": ["src/main.rs", "../app/.env"]}),
            &ctx(),
        )[0];
        assert!(nested.has_fact("secret.read"));
        assert_eq!(
            nested.targets[1].resolved.path.as_deref(),
            Some(std::path::Path::new("/work/app/.env"))
        );
        assert!(nested.targets[1].resolved.traversal);
        let plain = &classify_upstream(
            "gh.search",
            &serde_json::json!({"query": "is:open label:bug", "url": "https://example.com/a/b", "n": 3}),
            &ctx(),
        )[0];
        assert!(plain.facts.is_empty() && plain.targets.is_empty());
        let many: Vec<String> = (0..300).map(|i| format!("w{i}")).collect();
        let big = &classify_upstream("x.y", &serde_json::json!({ "l": many }), &ctx())[0];
        assert!(big.has_fact("input.too_large"));
    }

    #[test]
    fn summaries_cut_long_content() {
        let long = "x".repeat(5000);
        let s = summary(&serde_json::json!({"path": "a", "content": long}));
        assert!(s.len() < 300 && s.contains("5000 bytes"), "{s}");
    }
}
