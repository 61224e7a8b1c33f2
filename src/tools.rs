//! The capability snapshot: the tools an agent is shown, with their JSON schemas, in the
//! formats agent frameworks read. Built once from the profile; nothing at run time adds to it.
//! A tool the policy would refuse for every argument is left out (a rule the model cannot see
//! is a rule it cannot argue with).

use serde_json::{Value, json};

use crate::policy::Profile;

/// One tool as an agent sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    pub name: &'static str,
    pub description: String,
    pub input_schema: Value,
}

/// The tools of a profile.
pub fn snapshot(profile: Profile) -> Vec<Tool> {
    let scope = match profile {
        Profile::Readonly => {
            " The readonly profile runs commands that only read; anything that writes, deletes, executes programs or reaches the network is refused."
        }
        Profile::Workspace => {
            " Work inside the workspace runs; what leaves the machine needs a person's approval."
        }
        Profile::Strict => {
            " The strict profile asks a person before every command your policy does not allow."
        }
    };
    vec![Tool {
        name: "bash",
        description: format!(
            "Run a bash command in the workspace, inside a sandbox (no network unless approved, the workspace the only writable tree). Refusals come back as `[tier] blocked: reason — hint`; a command needing approval returns its challenge id.{scope}"
        ),
        input_schema: json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The bash command line."},
                "timeout_seconds": {"type": "integer", "minimum": 1, "maximum": 3600,
                    "description": "Stop the command after this many seconds (default 120)."}
            },
            "required": ["command"],
            "additionalProperties": false
        }),
    }]
}

/// The snapshot in one of the formats: `json`, `mcp`, `openai`, `anthropic`.
pub fn render(tools: &[Tool], format: &str) -> Result<Value, String> {
    Ok(match format {
        "json" => json!(
            tools
                .iter()
                .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
                .collect::<Vec<_>>()
        ),
        "mcp" => json!({
            "tools": tools
                .iter()
                .map(|t| json!({"name": t.name, "description": t.description, "inputSchema": t.input_schema}))
                .collect::<Vec<_>>()
        }),
        "openai" => json!(
            tools
                .iter()
                .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.input_schema}}))
                .collect::<Vec<_>>()
        ),
        "anthropic" => json!(
            tools
                .iter()
                .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
                .collect::<Vec<_>>()
        ),
        other => {
            return Err(format!(
                "unknown format `{other}` (json, mcp, openai or anthropic)"
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_carries_the_same_schema() {
        let tools = snapshot(Profile::Workspace);
        for (format, pointer) in [
            ("json", "/0/input_schema"),
            ("mcp", "/tools/0/inputSchema"),
            ("openai", "/0/function/parameters"),
            ("anthropic", "/0/input_schema"),
        ] {
            let v = render(&tools, format).expect("format");
            assert_eq!(
                v.pointer(pointer),
                Some(&tools[0].input_schema),
                "{format}: {v}"
            );
        }
        assert!(render(&tools, "yaml").is_err());
    }

    #[test]
    fn the_profile_is_described() {
        assert!(
            snapshot(Profile::Readonly)[0]
                .description
                .contains("readonly")
        );
        assert!(snapshot(Profile::Strict)[0].description.contains("strict"));
    }
}
