//! The user's configuration: `$XDG_CONFIG_HOME/warden/config.toml` (else
//! `~/.config/warden/config.toml`). Absent means defaults; present, it must parse, and unknown
//! keys are errors that name the file, the line and the key.
//!
//! ```toml
//! [approval]
//! expiry = "30m"                                  # how long a challenge can be answered
//! notify = ["notify-send", "warden", "{id}: {summary}"]   # run when a challenge is created
//! ```

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

/// The whole configuration.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserConfig {
    #[serde(default)]
    pub approval: ApprovalConfig,
    #[serde(default)]
    pub policy: PolicyConfig,
    #[serde(default)]
    pub mcp: McpConfig,
}

/// `[mcp]`: the MCP server and the servers it proxies.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpConfig {
    /// Ask approval questions through the client when it supports elicitation (default true).
    pub elicitation: Option<bool>,
    /// `[mcp.upstream.NAME]`: servers proxied by every `warden mcp`.
    #[serde(default)]
    pub upstream: std::collections::BTreeMap<String, UpstreamConfig>,
}

/// `[mcp.upstream.NAME]`: one proxied server.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpstreamConfig {
    /// The command and its arguments (started in the sandbox, in the workspace).
    pub command: Vec<String>,
    /// Whether it gets the host network (default false).
    #[serde(default)]
    pub network: bool,
    /// Names of environment variables it may see (the sandbox clears the rest).
    #[serde(default)]
    pub env: Vec<String>,
}

impl McpConfig {
    /// The configured upstreams, checked.
    pub fn upstreams(&self) -> Result<Vec<crate::mcp::upstream::Spec>, String> {
        self.upstream
            .iter()
            .map(|(name, u)| {
                crate::mcp::upstream::check_name(name)
                    .map_err(|e| format!("[mcp.upstream.{name}]: {e}"))?;
                if u.command.is_empty() || u.command[0].is_empty() {
                    return Err(format!("[mcp.upstream.{name}]: `command` is empty"));
                }
                Ok(crate::mcp::upstream::Spec {
                    name: name.clone(),
                    argv: u.command.clone(),
                    network: u.network,
                    env: u.env.clone(),
                })
            })
            .collect()
    }
}

/// `[policy]`: the defaults where no rule decided.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyConfig {
    /// `readonly`, `workspace` (the default) or `strict`.
    pub profile: Option<String>,
    /// `off`, `ask` (the default) or `on`: whether `--network` is refused, asked or given.
    pub network: Option<String>,
}

impl PolicyConfig {
    pub fn profile(&self) -> Result<crate::policy::Profile, String> {
        self.profile.as_deref().map_or(Ok(Default::default()), |p| {
            crate::policy::Profile::parse(p).map_err(|e| format!("[policy] profile: {e}"))
        })
    }

    pub fn network(&self) -> Result<crate::policy::NetworkSetting, String> {
        self.network.as_deref().map_or(Ok(Default::default()), |n| {
            crate::policy::NetworkSetting::parse(n).map_err(|e| format!("[policy] network: {e}"))
        })
    }
}

/// `[approval]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalConfig {
    /// How long a challenge can be answered (`30m`, `2h`, …).
    pub expiry: Option<String>,
    /// A command (argv) run when a challenge is created; `{id}` and `{summary}` are replaced.
    #[serde(default)]
    pub notify: Vec<String>,
}

impl ApprovalConfig {
    pub fn expiry(&self) -> Result<Duration, String> {
        match &self.expiry {
            None => Ok(crate::approval::DEFAULT_EXPIRY),
            Some(text) => crate::cli::parse_duration(text)
                .map_err(|e| format!("[approval] expiry: {e}"))
                .and_then(|d| {
                    if d.is_zero() {
                        Err("[approval] expiry must be more than 0".into())
                    } else {
                        Ok(d)
                    }
                }),
        }
    }
}

/// An XDG base directory: `$VAR` when it is absolute, else `$HOME/FALLBACK`.
pub fn xdg_base(var: &str, fallback: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|h| h.join(fallback))
        })
}

/// Where the configuration file is.
pub fn path() -> Option<PathBuf> {
    Some(
        xdg_base("XDG_CONFIG_HOME", ".config")?
            .join("warden")
            .join("config.toml"),
    )
}

/// Parses a configuration text; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<UserConfig, String> {
    let config: UserConfig =
        toml::from_str(text).map_err(|e| format!("{file}: {}", e.to_string().trim()))?;
    config
        .approval
        .expiry()
        .map_err(|e| format!("{file}: {e}"))?;
    config
        .policy
        .profile()
        .map_err(|e| format!("{file}: {e}"))?;
    config
        .policy
        .network()
        .map_err(|e| format!("{file}: {e}"))?;
    config.mcp.upstreams().map_err(|e| format!("{file}: {e}"))?;
    Ok(config)
}

/// Loads the configuration (defaults when there is no file).
pub fn load() -> Result<UserConfig, String> {
    let Some(path) = path() else {
        return Ok(UserConfig::default());
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => parse(&path.display().to_string(), &text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(UserConfig::default()),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_parses_and_defaults_apply() {
        let c = parse(
            "c.toml",
            "[approval]\nexpiry = \"5m\"\nnotify = [\"echo\", \"{id}\"]\n",
        )
        .expect("parses");
        assert_eq!(c.approval.expiry(), Ok(Duration::from_secs(300)));
        assert_eq!(c.approval.notify, vec!["echo", "{id}"]);
        let empty = parse("c.toml", "").expect("empty is fine");
        assert_eq!(empty.approval.expiry(), Ok(crate::approval::DEFAULT_EXPIRY));
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_file_and_line() {
        let err =
            parse("c.toml", "[approval]\nexpiry = \"5m\"\ncolour = 1\n").expect_err("unknown");
        assert!(
            err.contains("c.toml") && err.contains("colour") && err.contains("line 3"),
            "{err}"
        );
        let err = parse("c.toml", "[approval]\nexpiry = \"soon\"\n").expect_err("bad duration");
        assert!(err.contains("expiry"), "{err}");
    }
}
