//! Proxied MCP servers: each upstream is started inside the sandbox (the workspace the only
//! writable tree, no network unless its configuration grants it, a cleared environment), and
//! spoken to as an MCP client over its stdin and stdout.
//!
//! An upstream's tools are listed once, when it starts, as `NAME.tool`; the list never changes
//! for the session (a server that later announces new tools is not listened to). What it
//! returns is untrusted data, enveloped like every other tool output.

use std::os::fd::OwnedFd;
use std::process::{Child, Stdio};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};

/// How long an upstream has to start and answer `initialize` and `tools/list`.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);
/// Most tools taken from one upstream.
pub const MAX_TOOLS: usize = 512;

/// An upstream server as configured: its name (the prefix of its tools), its command, whether
/// it gets the host network, and the environment variables it may see.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub name: String,
    pub argv: Vec<String>,
    pub network: bool,
    pub env: Vec<String>,
}

/// Checks an upstream's name: 1 to 32 of `a-z 0-9 _ -`, starting with a letter or digit (it
/// prefixes tool names as `NAME.tool`, so it never holds a dot).
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 32
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
        && name.as_bytes()[0].is_ascii_alphanumeric();
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not an upstream name: 1 to 32 of a-z, 0-9, `_` and `-`, starting with a letter or digit"
        ))
    }
}

/// Longest description of a proxied tool passed on (it is the server's text, shown to the model).
pub const MAX_DESCRIPTION: usize = 4096;
/// Largest input schema of a proxied tool passed on.
pub const MAX_SCHEMA_BYTES: usize = 64 * 1024;

/// Checks a tool an upstream listed before it is shown to the client: a plain name (1 to 64 of
/// `A-Z a-z 0-9 _ - .`), a bounded description without control characters other than
/// newlines and tabs, and a bounded input schema.
pub fn check_tool(tool: &Tool) -> Result<(), String> {
    let name = &tool.name;
    if name.is_empty()
        || name.len() > 64
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    {
        return Err(format!(
            "its name {:?} is not 1 to 64 of A-Z, a-z, 0-9, `_`, `-`, `.`",
            name.chars().take(80).collect::<String>()
        ));
    }
    let description = tool.description.as_deref().unwrap_or("");
    if description.len() > MAX_DESCRIPTION {
        return Err(format!(
            "`{name}`: its description is {} bytes; at most {MAX_DESCRIPTION} are passed on",
            description.len()
        ));
    }
    if description
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(format!(
            "`{name}`: its description holds control characters"
        ));
    }
    let schema = serde_json::to_vec(&*tool.input_schema).map_or(usize::MAX, |v| v.len());
    if schema > MAX_SCHEMA_BYTES {
        return Err(format!(
            "`{name}`: its input schema is {schema} bytes; at most {MAX_SCHEMA_BYTES} are passed on"
        ));
    }
    Ok(())
}

/// Splits the command line's upstreams: `--upstream NAME -- CMD ARGS… [--upstream NAME2 --
/// CMD2 ARGS2…]`. The first name comes from the option, the rest from the trailing words.
pub fn from_command_line(first: Option<&str>, trailing: &[String]) -> Result<Vec<Spec>, String> {
    let Some(first) = first else {
        if trailing.is_empty() {
            return Ok(Vec::new());
        }
        return Err("a command after `--` needs `--upstream NAME` before it".into());
    };
    let mut specs = Vec::new();
    let mut name = first.to_string();
    let mut argv: Vec<String> = Vec::new();
    let mut i = 0;
    while i < trailing.len() {
        if trailing[i] == "--upstream" && trailing.get(i + 2).is_some_and(|w| w == "--") {
            let next = trailing[i + 1].clone();
            specs.push(Spec {
                name: std::mem::replace(&mut name, next),
                argv: std::mem::take(&mut argv),
                network: false,
                env: Vec::new(),
            });
            i += 3;
            continue;
        }
        argv.push(trailing[i].clone());
        i += 1;
    }
    specs.push(Spec {
        name,
        argv,
        network: false,
        env: Vec::new(),
    });
    for spec in &specs {
        check_name(&spec.name)?;
        if spec.argv.is_empty() {
            return Err(format!(
                "upstream `{}` has no command: `--upstream {} -- COMMAND ARGS…`",
                spec.name, spec.name
            ));
        }
    }
    Ok(specs)
}

/// Why an upstream could not be had.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("upstream `{name}`: the sandbox cannot be had: {why}")]
    Sandbox { name: String, why: String },
    #[error("upstream `{name}`: cannot start `{command}`: {why}")]
    Spawn {
        name: String,
        command: String,
        why: String,
    },
    #[error("upstream `{name}` did not answer as an MCP server: {why}")]
    Handshake { name: String, why: String },
}

/// A running upstream: its client session, the tools it listed at start, and the sandboxed
/// process (killed with the proxy).
pub struct Upstream {
    pub name: String,
    pub tools: Vec<Tool>,
    client: RunningService<RoleClient, ()>,
    child: Child,
    _session: crate::sandbox::Session,
}

impl Upstream {
    /// Starts `spec` in the sandbox of `workspace` and takes its tool list. Runs inside a
    /// tokio runtime (the pipes are registered with it).
    pub async fn start(
        spec: &Spec,
        workspace: &std::path::Path,
        allow_degraded: bool,
    ) -> Result<Upstream, StartError> {
        let name = spec.name.clone();
        let mut config = crate::sandbox::configure(workspace, spec.network, spec.env.clone())
            .map_err(|e| StartError::Sandbox {
                name: name.clone(),
                why: e.to_string(),
            })?;
        config.allow_degraded = allow_degraded;
        // The person named these for this server: its token passes, a loader hook never does.
        config.credentials = spec.env.clone();
        let (mut command, session) = crate::sandbox::command(&config, workspace, &spec.argv)
            .map_err(|e| StartError::Sandbox {
                name: name.clone(),
                why: e.to_string(),
            })?;
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let spawn_error = |why: String| StartError::Spawn {
            name: name.clone(),
            command: crate::pipeline::quote_argv(&spec.argv),
            why,
        };
        let mut child = command.spawn().map_err(|e| spawn_error(e.to_string()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(spawn_error("no pipes".into()));
        };
        let writer = tokio::net::unix::pipe::Sender::from_owned_fd(OwnedFd::from(stdin))
            .map_err(|e| spawn_error(e.to_string()))?;
        let reader = tokio::net::unix::pipe::Receiver::from_owned_fd(OwnedFd::from(stdout))
            .map_err(|e| spawn_error(e.to_string()))?;
        let handshake = |why: String| StartError::Handshake {
            name: name.clone(),
            why,
        };
        let started = async {
            let client = ().serve((reader, writer)).await.map_err(|e| e.to_string())?;
            let tools = client.list_all_tools().await.map_err(|e| e.to_string())?;
            Ok::<_, String>((client, tools))
        };
        let (client, mut tools) = match tokio::time::timeout(START_TIMEOUT, started).await {
            Ok(Ok(done)) => done,
            Ok(Err(why)) => {
                stop(&mut child);
                return Err(handshake(why));
            }
            Err(_) => {
                stop(&mut child);
                return Err(handshake(format!(
                    "no tool list within {}s",
                    START_TIMEOUT.as_secs()
                )));
            }
        };
        tools.truncate(MAX_TOOLS);
        Ok(Upstream {
            name,
            tools,
            client,
            child,
            _session: session,
        })
    }

    /// Whether the upstream listed `tool`.
    pub fn has(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t.name == tool)
    }

    /// Calls one of its tools, within `timeout`.
    pub async fn call(
        &self,
        tool: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
        timeout: Duration,
    ) -> Result<CallToolResult, String> {
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = arguments;
        match tokio::time::timeout(timeout, self.client.call_tool(params)).await {
            Ok(result) => result.map_err(|e| e.to_string()),
            Err(_) => Err(format!("no answer within {}s", timeout.as_secs())),
        }
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

/// Ends a sandboxed upstream: TERM to bubblewrap (which takes its sandbox down with it), KILL
/// after a moment, then reaps it.
fn stop(child: &mut Child) {
    if matches!(child.try_wait(), Ok(Some(_))) {
        return;
    }
    if let Ok(pid) = i32::try_from(child.id())
        && let Some(pid) = rustix::process::Pid::from_raw(pid)
    {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
    }
    for _ in 0..50 {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn upstreams_split_from_the_command_line() {
        let specs = from_command_line(
            Some("fs"),
            &words("node server.js . --upstream gh -- gh-mcp stdio --flag"),
        )
        .expect("two upstreams");
        assert_eq!(specs.len(), 2);
        assert_eq!(specs[0].name, "fs");
        assert_eq!(specs[0].argv, words("node server.js ."));
        assert_eq!(specs[1].name, "gh");
        assert_eq!(specs[1].argv, words("gh-mcp stdio --flag"));
        assert!(!specs[0].network);
        assert_eq!(from_command_line(None, &[]).expect("none"), Vec::new());
        assert!(from_command_line(None, &words("x")).is_err());
        assert!(from_command_line(Some("fs"), &[]).is_err());
        assert!(from_command_line(Some("a.b"), &words("x")).is_err());
        assert!(from_command_line(Some("fs"), &words("x --upstream BAD -- y")).is_err());
        // `--upstream` not followed by `NAME --` is the command's own word.
        let own = from_command_line(Some("fs"), &words("x --upstream y")).expect("one");
        assert_eq!(own[0].argv, words("x --upstream y"));
    }

    #[test]
    fn tools_shown_to_the_client_are_plain_and_bounded() {
        let schema = Arc::new(serde_json::Map::new());
        let tool = |name: &'static str, description: String| {
            Tool::new(name, description, Arc::clone(&schema))
        };
        assert!(check_tool(&tool("read_file", "Reads.\n\tLines.".into())).is_ok());
        assert!(check_tool(&tool("a.b-c_9", String::new())).is_ok());
        for name in ["", "x y", "tool\u{1b}[2J", "ä"] {
            assert!(check_tool(&tool(name, String::new())).is_err(), "{name:?}");
        }
        assert!(check_tool(&tool("x", "a\u{1b}]0;title\u{7}".into())).is_err());
        assert!(check_tool(&tool("x", "y".repeat(MAX_DESCRIPTION + 1))).is_err());
        let mut big = serde_json::Map::new();
        big.insert(
            "x".into(),
            serde_json::Value::String("y".repeat(MAX_SCHEMA_BYTES)),
        );
        assert!(check_tool(&Tool::new("x", "d", Arc::new(big))).is_err());
    }

    #[test]
    fn names_are_plain() {
        for good in ["fs", "github", "a-b_c", "9x"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", "A", "a.b", "-x", "x y", &"x".repeat(33)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
