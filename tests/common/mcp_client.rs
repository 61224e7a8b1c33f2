//! A minimal MCP client over a child's stdin and stdout (JSON-RPC lines), as an agent's client
//! would speak to `warden mcp`: initialize, list, call, and answer the questions the server
//! asks through elicitation.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

pub struct McpClient {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
    /// The answer given to `elicitation/create` (None: the client has no elicitation).
    pub elicitation_answer: Option<Value>,
    /// The questions the server asked.
    pub questions: Vec<Value>,
    /// What `initialize` returned.
    pub initialized: Value,
}

impl McpClient {
    /// Starts `command` (stdin and stdout piped) and initializes, declaring elicitation when
    /// an answer for it is given.
    pub fn start(mut command: Command, elicitation_answer: Option<Value>) -> McpClient {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn the MCP server");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut client = McpClient {
            child,
            stdin,
            stdout,
            next: 1,
            elicitation_answer,
            questions: Vec::new(),
            initialized: Value::Null,
        };
        let capabilities = if client.elicitation_answer.is_some() {
            json!({"elicitation": {}})
        } else {
            json!({})
        };
        let init = client.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": capabilities, "clientInfo": {"name": "test", "version": "1"}}),
        );
        assert!(init["result"]["serverInfo"]["name"].is_string(), "{init}");
        client.initialized = init["result"].clone();
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client
    }

    pub fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("send");
        self.stdin.flush().expect("flush");
    }

    /// Sends a request and returns its response, answering the server's own requests on the
    /// way.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read");
            assert!(n > 0, "the MCP server closed its output");
            let message: Value = serde_json::from_str(&line).expect("JSON-RPC line");
            if message["method"] == "elicitation/create" {
                self.questions.push(message["params"].clone());
                let answer = self
                    .elicitation_answer
                    .clone()
                    .expect("a question to a client without elicitation");
                self.send(&json!({"jsonrpc": "2.0", "id": message["id"], "result": answer}));
                continue;
            }
            if message["method"] == "ping" {
                self.send(&json!({"jsonrpc": "2.0", "id": message["id"], "result": {}}));
                continue;
            }
            if message["id"] == json!(id) && message.get("method").is_none() {
                return message;
            }
        }
    }

    pub fn tools(&mut self) -> Vec<String> {
        self.tool_list()
            .iter()
            .map(|t| t["name"].as_str().expect("name").to_string())
            .collect()
    }

    pub fn tool_list(&mut self) -> Vec<Value> {
        let list = self.request("tools/list", json!({}));
        list["result"]["tools"].as_array().expect("tools").clone()
    }

    /// `tools/call`; the result object.
    pub fn call(&mut self, name: &str, arguments: Value) -> Value {
        let r = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        r["result"].clone()
    }
}

impl Drop for McpClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first text block of a tool result.
pub fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}
