//! Rule files: schema, loading and validation.
//!
//! A rule file is TOML with `[[rule]]` tables. Unknown keys are errors (with the file and the
//! key), every rule needs an id, a tier, a decision, a reason and a hint, the tier and decision
//! must agree, fact names must be ones the classifier produces, and ids are unique across files.

use serde::Deserialize;

use super::{Decision, Tier};
use crate::classify::Effect;

/// The shipped rule files, in the order they are consulted.
pub const SHIPPED: &[(&str, &str)] = &[
    (
        "rules/catastrophic.toml",
        include_str!("../../rules/catastrophic.toml"),
    ),
    (
        "rules/unverifiable.toml",
        include_str!("../../rules/unverifiable.toml"),
    ),
    (
        "rules/secrets.toml",
        include_str!("../../rules/secrets.toml"),
    ),
    (
        "rules/sensitive.toml",
        include_str!("../../rules/sensitive.toml"),
    ),
    ("rules/system.toml", include_str!("../../rules/system.toml")),
];

/// Every fact name the classifier and the shell stage can produce.
pub const KNOWN_FACTS: &[&str] = &[
    "input.parse_error",
    "input.too_large",
    "input.too_deep",
    "input.over_budget",
    "program.dynamic",
    "code.dynamic",
    "code.unknown_origin",
    "code.download_to_shell",
    "alias.used",
    "fork_bomb",
    "delete.root",
    "delete.home",
    "delete.system",
    "delete.workspace_root",
    "delete.outside",
    "delete.traversal",
    "delete.bare_glob",
    "delete.dynamic",
    "delete.from_input",
    "device.write",
    "device.dynamic",
    "disk.format",
    "power.off",
    "git.force_push",
    "git.push",
    "git.push.destructive",
    "git.history",
    "git.exec_vector",
    "sql.drop",
    "perm.recursive_system",
    "secret.read",
    "secret.write",
    "write.outside",
    "env.dangerous",
    "interp.risky",
    "publish",
    "net.use",
    "net.remote",
    "privilege",
    "system.service",
    "system.scheduler",
    "system.users",
    "system.packages",
    "system.kernel",
    "system.firewall",
    "system.network",
    "system.mount",
    "system.signal",
    "system.container",
    "remediate.collision",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    rule: Vec<RawRule>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: String,
    tier: Tier,
    decision: Decision,
    reason: String,
    hint: String,
    #[serde(rename = "match")]
    conditions: Conditions,
    #[serde(default)]
    examples: Examples,
}

/// What a rule matches. Lists are alternatives (any of); keys combine (all of). A rule with
/// `fact` is judged once per fact of an operation; a rule without it, once per operation.
#[derive(Clone, Debug, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Conditions {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fact: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub program: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subcommand: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effect: Vec<Effect>,
}

/// Commands a rule must decide (`match`) and must not decide (`not_match`).
#[derive(Clone, Debug, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Examples {
    #[serde(default, rename = "match")]
    pub matches: Vec<String>,
    #[serde(default)]
    pub not_match: Vec<String>,
}

/// A validated rule.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Rule {
    pub id: String,
    pub tier: Tier,
    pub decision: Decision,
    pub reason: String,
    pub hint: String,
    #[serde(rename = "match")]
    pub conditions: Conditions,
    pub examples: Examples,
    /// The file the rule came from.
    pub source: String,
}

/// A rule file problem, naming the file and the rule or key.
#[derive(Debug, thiserror::Error)]
pub enum RuleError {
    #[error("{file}: {message}")]
    Syntax { file: String, message: String },
    #[error("{file}: rule `{id}`: {message}")]
    Invalid {
        file: String,
        id: String,
        message: String,
    },
}

/// Parses and validates one rule file.
pub fn parse_file(file: &str, text: &str) -> Result<Vec<Rule>, RuleError> {
    let parsed: File = toml::from_str(text).map_err(|e| RuleError::Syntax {
        file: file.to_string(),
        message: e.to_string().trim().replace('\n', " "),
    })?;
    let mut rules = Vec::with_capacity(parsed.rule.len());
    for raw in parsed.rule {
        let invalid = |message: String| RuleError::Invalid {
            file: file.to_string(),
            id: raw.id.clone(),
            message,
        };
        if raw.id.trim().is_empty() {
            return Err(invalid("empty id".into()));
        }
        if raw.reason.trim().is_empty() || raw.hint.trim().is_empty() {
            return Err(invalid("every rule needs a reason and a hint".into()));
        }
        let expected = match raw.tier {
            Tier::Catastrophic | Tier::Unverifiable | Tier::Secret => Some(Decision::Deny),
            Tier::Ordinary => Some(Decision::Allow),
            Tier::Sensitive | Tier::System => None,
        };
        if let Some(expected) = expected
            && expected != raw.decision
        {
            return Err(invalid(format!(
                "tier {} must decide {}",
                raw.tier.as_str(),
                expected.as_str()
            )));
        }
        if let Some(unknown) = raw
            .conditions
            .fact
            .iter()
            .find(|f| !KNOWN_FACTS.contains(&f.as_str()))
        {
            return Err(invalid(format!("unknown fact `{unknown}`")));
        }
        let c = &raw.conditions;
        if c.fact.is_empty()
            && c.program.is_empty()
            && c.subcommand.is_empty()
            && c.effect.is_empty()
        {
            return Err(invalid(
                "a rule must match on something (fact, program, subcommand or effect)".into(),
            ));
        }
        rules.push(Rule {
            id: raw.id,
            tier: raw.tier,
            decision: raw.decision,
            reason: raw.reason,
            hint: raw.hint,
            conditions: raw.conditions,
            examples: raw.examples,
            source: file.to_string(),
        });
    }
    Ok(rules)
}

/// Loads the shipped rules, then any extra files; ids must be unique across all of them.
pub fn load(extra: &[(String, String)]) -> Result<Vec<Rule>, RuleError> {
    let mut all: Vec<Rule> = Vec::new();
    let shipped = SHIPPED.iter().map(|(f, t)| (f.to_string(), t.to_string()));
    for (file, text) in shipped.chain(extra.iter().cloned()) {
        for rule in parse_file(&file, &text)? {
            if let Some(prev) = all.iter().find(|r| r.id == rule.id) {
                return Err(RuleError::Invalid {
                    file: file.clone(),
                    id: rule.id.clone(),
                    message: format!("duplicate id (first defined in {})", prev.source),
                });
            }
            all.push(rule);
        }
    }
    Ok(all)
}
