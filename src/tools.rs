//! The capability snapshot: the tools an agent is shown, with their JSON schemas, in the
//! formats agent frameworks read. Built once from the profile; nothing at run time adds to it.
//! A tool the policy would refuse for every argument is left out (a rule the model cannot see
//! is a rule it cannot argue with).

use serde_json::{Value, json};

use crate::policy::{Policy, Profile};

/// One tool as an agent sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    pub name: &'static str,
    pub description: String,
    pub input_schema: Value,
}

/// The tools of the policy's profile, less those its rules refuse for every argument.
pub fn snapshot(policy: &Policy) -> Vec<Tool> {
    let mut tools = all_tools(policy.profile);
    tools.retain(|t| !policy.denies_every_call(t.name));
    tools
}

/// Every tool a profile offers.
fn all_tools(profile: Profile) -> Vec<Tool> {
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
        let tools = all_tools(Profile::Workspace);
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
            all_tools(Profile::Readonly)[0]
                .description
                .contains("readonly")
        );
        assert!(all_tools(Profile::Strict)[0].description.contains("strict"));
    }

    fn policy(text: &str) -> Policy {
        Policy::with_layers(&[(crate::policy::Layer::User, "mine.toml".into(), text.into())])
            .expect("policy")
    }

    const DENY_BASH: &str = "[[rule]]\nid='no-shell'\naction='deny'\nreason='no shell here'\n[rule.match]\ntool=['bash']\n";

    #[test]
    fn a_tool_denied_for_every_argument_is_left_out() {
        let names = |p: &Policy| snapshot(p).iter().map(|t| t.name).collect::<Vec<_>>();
        assert_eq!(names(&Policy::shipped().expect("rules")), ["bash"]);
        assert!(names(&policy(DENY_BASH)).is_empty());
        // A rule that lets some calls through first keeps the tool (and is what decides them).
        let git_first = format!(
            "[[rule]]\nid='git'\naction='allow'\nreason='git is fine'\n[rule.match]\nprogram=['git']\n{DENY_BASH}"
        );
        assert_eq!(names(&policy(&git_first)), ["bash"]);
        // A conditional deny before the catch-all changes nothing.
        let conditional = format!(
            "[[rule]]\nid='no-curl'\naction='deny'\nreason='r'\n[rule.match]\nprogram=['curl']\n{DENY_BASH}"
        );
        assert!(names(&policy(&conditional)).is_empty());
        // Another tool's deny, or an expired one, leaves bash in.
        assert_eq!(
            names(&policy(&DENY_BASH.replace("['bash']", "['write_*']"))),
            ["bash"]
        );
        let expired = DENY_BASH.replace("reason=", "expires='2020-01-01'\nreason=");
        assert_eq!(names(&policy(&expired)), ["bash"]);
    }
}
