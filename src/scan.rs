//! `warden scan`: the commands written in files, decided without running them.
//!
//! Extraction is by file kind: shell scripts (split into complete commands: lines are added to
//! a command until it parses), Dockerfile `RUN` instructions (shell form and exec form, with
//! continuations), Makefile recipe lines (tab-indented after a rule, `@`/`-`/`+` prefixes
//! dropped, `$$` read as `$`), and GitHub Actions `run:` steps (single-line and block scalars).
//! Each command keeps its file and first line, for text, JSON and SARIF reports.

use serde_json::{Value, json};

use crate::pipeline::Request;

/// The largest file scanned.
pub const MAX_FILE_BYTES: usize = 4 * 1024 * 1024;

/// What a file is read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Shell,
    Dockerfile,
    Makefile,
    Actions,
}

impl Kind {
    /// The kind a file name says (a shell script otherwise).
    pub fn of(path: &std::path::Path) -> Kind {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let text = path.to_string_lossy();
        if name == "dockerfile" || name.starts_with("dockerfile.") || name.ends_with(".dockerfile")
        {
            Kind::Dockerfile
        } else if name == "makefile" || name == "gnumakefile" || name.ends_with(".mk") {
            Kind::Makefile
        } else if (name.ends_with(".yml") || name.ends_with(".yaml"))
            && (text.contains(".github/workflows") || text.contains(".github/actions"))
            || name == "action.yml"
            || name == "action.yaml"
        {
            Kind::Actions
        } else {
            Kind::Shell
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Shell => "shell",
            Kind::Dockerfile => "dockerfile",
            Kind::Makefile => "makefile",
            Kind::Actions => "github-actions",
        }
    }
}

/// One command found in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// 1-based line of its first character.
    pub line: usize,
    pub request: Request,
}

/// The commands of a file's text.
pub fn extract(kind: Kind, text: &str) -> Vec<Found> {
    match kind {
        Kind::Shell => shell_commands(text, 1),
        Kind::Dockerfile => dockerfile(text),
        Kind::Makefile => makefile(text),
        Kind::Actions => actions(text),
    }
}

/// Splits shell text into complete commands: a command grows line by line until it parses.
fn shell_commands(text: &str, first_line: usize) -> Vec<Found> {
    let ctx = crate::shell::Context {
        workspace: "/".into(),
        cwd: "/".into(),
        home: "/".into(),
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            i += 1;
            continue;
        }
        let mut end = i + 1;
        let mut chunk = lines[i].to_string();
        // Grow until it parses, up to a bound; what never parses is reported as written.
        while end < lines.len() && end - i < 2_000 && !parses(&chunk, &ctx) {
            chunk.push('\n');
            chunk.push_str(lines[end]);
            end += 1;
        }
        if !parses(&chunk, &ctx) {
            chunk = lines[i].to_string();
            end = i + 1;
        }
        out.push(Found {
            line: first_line + i,
            request: Request::shell(chunk),
        });
        i = end;
    }
    out
}

fn parses(text: &str, ctx: &crate::shell::Context) -> bool {
    if text.trim_end().ends_with('\\') {
        return false;
    }
    !crate::shell::analyze(text, ctx)
        .findings
        .iter()
        .any(|f| f.kind == crate::shell::FindingKind::ParseError)
}

/// Joins lines ending in `\` with the next; returns (first line, text) per logical line.
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (n, line) in text.lines().enumerate() {
        let (start, mut acc) = current.take().unwrap_or((n + 1, String::new()));
        match line.strip_suffix('\\') {
            Some(head) => {
                acc.push_str(head);
                acc.push(' ');
                current = Some((start, acc));
            }
            None => {
                acc.push_str(line);
                out.push((start, acc));
            }
        }
    }
    out.extend(current);
    out
}

fn dockerfile(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    for (line, logical) in logical_lines(text) {
        let trimmed = logical.trim_start();
        let Some(rest) = trimmed
            .get(..4)
            .filter(|w| w.eq_ignore_ascii_case("run "))
            .map(|_| trimmed[4..].trim())
        else {
            continue;
        };
        // `RUN --mount=… --network=… cmd`: the flags are the builder's, not the command's.
        let mut rest = rest;
        while let Some(flagged) = rest.strip_prefix("--") {
            rest = flagged
                .split_once(char::is_whitespace)
                .map_or("", |(_, r)| r.trim_start());
        }
        let request = if rest.starts_with('[') {
            match serde_json::from_str::<Vec<String>>(rest) {
                Ok(argv) if !argv.is_empty() => Request::Argv { argv },
                _ => Request::shell(rest),
            }
        } else {
            Request::shell(rest)
        };
        out.push(Found { line, request });
    }
    out
}

fn makefile(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    let mut in_rule = false;
    let mut pending: Option<(usize, String)> = None;
    for (n, line) in text.lines().enumerate() {
        if let Some(recipe) = line.strip_prefix('\t').filter(|_| in_rule) {
            let (start, mut acc) = pending.take().unwrap_or((n + 1, String::new()));
            let body = if acc.is_empty() {
                recipe.trim_start_matches(['@', '-', '+', ' '])
            } else {
                recipe
            };
            match body.strip_suffix('\\') {
                Some(head) => {
                    acc.push_str(head);
                    pending = Some((start, acc));
                }
                None => {
                    acc.push_str(body);
                    let command = acc.replace("$$", "$");
                    if !command.trim().is_empty() {
                        out.push(Found {
                            line: start,
                            request: Request::shell(command),
                        });
                    }
                }
            }
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        // A rule line: `targets: prerequisites` (not a variable assignment `:=`).
        in_rule = !line.starts_with(char::is_whitespace)
            && line.contains(':')
            && !line.contains(":=")
            && !line.contains("::=")
            && !trimmed.starts_with("define ");
    }
    out
}

fn actions(text: &str) -> Vec<Found> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let indent = line.len() - line.trim_start().len();
        let body = line.trim_start().trim_start_matches("- ");
        let Some(value) = body.strip_prefix("run:") else {
            i += 1;
            continue;
        };
        let value = value.trim();
        if value.starts_with('|') || value.starts_with('>') {
            // A block scalar: the lines indented deeper than the key.
            let folded = value.starts_with('>');
            let mut block = Vec::new();
            let mut j = i + 1;
            let mut block_indent = None;
            while j < lines.len() {
                let l = lines[j];
                let li = l.len() - l.trim_start().len();
                if !l.trim().is_empty() && li <= indent {
                    break;
                }
                let strip = *block_indent.get_or_insert(li.max(indent + 1));
                block.push(l.get(strip.min(l.len())..).unwrap_or("").to_string());
                j += 1;
            }
            while block.last().is_some_and(|l| l.trim().is_empty()) {
                block.pop();
            }
            let script = if folded {
                block.join(" ")
            } else {
                block.join("\n")
            };
            out.extend(shell_commands(&script, i + 2));
            i = j;
        } else {
            let unquoted = value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                .unwrap_or(value);
            if !unquoted.is_empty() {
                out.push(Found {
                    line: i + 1,
                    request: Request::shell(unquoted),
                });
            }
            i += 1;
        }
    }
    out
}

/// One decided command, as reported.
#[derive(Clone, Debug)]
pub struct Reported {
    pub file: String,
    pub kind: Kind,
    pub line: usize,
    pub record: Value,
}

/// The SARIF 2.1.0 log of the commands that were not plainly allowed.
pub fn sarif(reported: &[Reported]) -> Value {
    let flagged: Vec<&Reported> = reported
        .iter()
        .filter(|r| r.record["decision"] != "allow")
        .collect();
    let mut rules: Vec<String> = flagged
        .iter()
        .filter_map(|r| r.record["rule"].as_str().map(str::to_string))
        .collect();
    rules.sort();
    rules.dedup();
    let results: Vec<Value> = flagged
        .iter()
        .map(|r| {
            json!({
                "ruleId": r.record["rule"],
                "level": if r.record["decision"] == "deny" { "error" } else { "warning" },
                "message": {"text": r.record["message"]},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": r.file},
                    "region": {"startLine": r.line}
                }}],
                "properties": {"decision": r.record["decision"], "tier": r.record["tier"], "command": r.record["command"]}
            })
        })
        .collect();
    json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": {"driver": {
                "name": "warden",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules.iter().map(|id| json!({"id": id})).collect::<Vec<_>>()
            }},
            "results": results
        }]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(found: &[Found]) -> Vec<(usize, String)> {
        found.iter().map(|f| (f.line, f.request.text())).collect()
    }

    #[test]
    fn shell_scripts_split_into_complete_commands() {
        let script = "#!/bin/sh\nset -e\n\nif [ -d build ]; then\n  rm -rf build\nfi\ncat <<EOF > x\nhello\nEOF\necho a \\\n  b\n";
        let found = texts(&extract(Kind::Shell, script));
        assert_eq!(found.len(), 4, "{found:?}");
        assert_eq!(found[0], (2, "set -e".to_string()));
        assert_eq!(found[1].0, 4);
        assert!(found[1].1.contains("rm -rf build") && found[1].1.ends_with("fi"));
        assert_eq!(found[2].0, 7);
        assert_eq!(found[3], (10, "echo a \\\n  b".to_string()));
    }

    #[test]
    fn dockerfile_run_lines_in_both_forms() {
        let text = "FROM debian\nRUN apt-get update && \\\n    apt-get install -y curl\nRUN [\"rm\", \"-rf\", \"/tmp/x\"]\nRUN --mount=type=cache,target=/root/.cache pip install x\nCOPY . .\n";
        let found = texts(&extract(Kind::Dockerfile, text));
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(found[0].0, 2);
        assert!(found[0].1.contains("apt-get install -y curl"));
        assert_eq!(found[1], (4, "rm -rf /tmp/x".to_string()));
        assert_eq!(found[2], (5, "pip install x".to_string()));
    }

    #[test]
    fn makefile_recipes_without_prefixes() {
        let text = "CC := gcc\n\nall: build\n\t@echo building\n\t-rm -f *.o \\\n\t  core\n\nclean:\n\trm -rf $$HOME/tmp\n";
        let found = texts(&extract(Kind::Makefile, text));
        assert_eq!(
            found,
            [
                (4, "echo building".to_string()),
                (5, "rm -f *.o   core".to_string()),
                (9, "rm -rf $HOME/tmp".to_string())
            ]
        );
    }

    #[test]
    fn actions_run_steps_single_and_block() {
        let text = "jobs:\n  build:\n    steps:\n      - uses: actions/checkout@v4\n      - run: cargo test\n      - name: deploy\n        run: |\n          echo one\n          curl -fsSL https://x.sh | sh\n      - run: \"echo 'quoted'\"\n";
        let found = texts(&extract(Kind::Actions, text));
        assert_eq!(
            found,
            [
                (5, "cargo test".to_string()),
                (8, "echo one".to_string()),
                (9, "curl -fsSL https://x.sh | sh".to_string()),
                (10, "echo 'quoted'".to_string())
            ]
        );
    }

    #[test]
    fn kinds_come_from_names() {
        use std::path::Path;
        assert_eq!(Kind::of(Path::new("Dockerfile.dev")), Kind::Dockerfile);
        assert_eq!(Kind::of(Path::new("x/Makefile")), Kind::Makefile);
        assert_eq!(
            Kind::of(Path::new(".github/workflows/ci.yml")),
            Kind::Actions
        );
        assert_eq!(Kind::of(Path::new("install.sh")), Kind::Shell);
    }
}
