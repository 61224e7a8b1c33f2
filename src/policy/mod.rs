//! Decisions: rules applied to operations, strictest wins.
//!
//! Each operation is judged once per fact (by the first rule that matches that fact) and once as
//! a whole (by the first rule without a fact condition that matches it). Across everything, the
//! strictest verdict wins: deny over ask over allow, and within one decision the more severe tier.
//! Invariant: only [`decide`] builds a [`Decided`], and only an allowing `Decided` can become an
//! [`Authorized`] plan, which is the one thing the runner accepts.

pub mod rules;

use serde::{Deserialize, Serialize};

use crate::classify::Operation;
pub use rules::{Rule, RuleError};

/// What happens to a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Allow,
    Ask,
    Deny,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Deny => "deny",
        }
    }
}

/// Why: the class of risk a rule stands for, ordered from least to most severe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    Ordinary,
    System,
    Sensitive,
    Secret,
    Unverifiable,
    Catastrophic,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Ordinary => "ordinary",
            Tier::System => "system",
            Tier::Sensitive => "sensitive",
            Tier::Secret => "secret",
            Tier::Unverifiable => "unverifiable",
            Tier::Catastrophic => "catastrophic",
        }
    }
}

/// One rule matching one subject (an operation's fact, or the operation as a whole).
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    pub decision: Decision,
    pub tier: Tier,
    pub rule: String,
    pub reason: String,
    pub hint: String,
    /// Index of the operation in the classified list.
    pub operation: usize,
    /// The fact that matched, when the rule matched a fact.
    pub fact: Option<String>,
}

/// The outcome of deciding: the winning verdict and every verdict considered, in order.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct Decided {
    pub verdict: Verdict,
    pub trace: Vec<Verdict>,
}

/// The loaded rule set.
#[derive(Clone, Debug)]
pub struct Policy {
    pub rules: Vec<Rule>,
    /// SHA-256 over every rule file in force (names and contents): an approval given under one
    /// revision does not carry over to another.
    pub revision: String,
}

impl Policy {
    /// The shipped rules only.
    pub fn shipped() -> Result<Policy, RuleError> {
        Policy::with_files(&[])
    }

    /// Shipped rules plus extra rule files (consulted after the shipped ones).
    pub fn with_files(extra: &[(String, String)]) -> Result<Policy, RuleError> {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        for (name, text) in rules::SHIPPED_COMPILED.iter().copied().chain(
            extra
                .iter()
                .map(|(name, text)| (name.as_str(), text.as_str())),
        ) {
            for part in [name, text] {
                hash.update((part.len() as u64).to_le_bytes());
                hash.update(part.as_bytes());
            }
        }
        Ok(Policy {
            rules: rules::load(extra)?,
            revision: format!("{:x}", hash.finalize()),
        })
    }
}

fn matches_list(list: &[String], value: &str) -> bool {
    list.is_empty()
        || list
            .iter()
            .any(|p| crate::classify::paths::glob_match(p, value))
}

fn rule_matches_op(rule: &Rule, op: &Operation) -> bool {
    let c = &rule.conditions;
    matches_list(&c.program, &op.program)
        && (c.subcommand.is_empty()
            || op
                .subcommand
                .as_deref()
                .is_some_and(|s| matches_list(&c.subcommand, s)))
        && (c.effect.is_empty() || c.effect.contains(&op.effect))
}

fn render(template: &str, op: &Operation, detail: &str) -> String {
    let command = shorten(&op.text, 100);
    template
        .replace("{detail}", detail)
        .replace("{command}", &command)
        .replace("{program}", &op.program)
}

fn shorten(text: &str, max: usize) -> String {
    let one_line = text.replace('\n', " ⏎ ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let cut: String = one_line.chars().take(max).collect();
    format!("{cut}…")
}

/// Decides a list of operations.
pub fn decide(ops: &[Operation], policy: &Policy) -> Decided {
    let mut trace = Vec::new();
    for (index, op) in ops.iter().enumerate() {
        for fact in &op.facts {
            let rule = policy.rules.iter().find(|r| {
                r.conditions.fact.iter().any(|f| f == &fact.name) && rule_matches_op(r, op)
            });
            if let Some(rule) = rule {
                trace.push(Verdict {
                    decision: rule.decision,
                    tier: rule.tier,
                    rule: rule.id.clone(),
                    reason: render(&rule.reason, op, &fact.detail),
                    hint: rule.hint.clone(),
                    operation: index,
                    fact: Some(fact.name.clone()),
                });
            }
        }
        if let Some(rule) = policy
            .rules
            .iter()
            .find(|r| r.conditions.fact.is_empty() && rule_matches_op(r, op))
        {
            trace.push(Verdict {
                decision: rule.decision,
                tier: rule.tier,
                rule: rule.id.clone(),
                reason: render(&rule.reason, op, &op.text),
                hint: rule.hint.clone(),
                operation: index,
                fact: None,
            });
        }
    }
    let verdict = trace
        .iter()
        .max_by(|a, b| {
            (a.decision, a.tier)
                .cmp(&(b.decision, b.tier))
                .then(std::cmp::Ordering::Greater)
        })
        .cloned()
        .unwrap_or_else(|| Verdict {
            decision: Decision::Allow,
            tier: Tier::Ordinary,
            rule: "default.allow".into(),
            reason: "ordinary work: no rule matched".into(),
            hint: "runs as requested".into(),
            operation: 0,
            fact: None,
        });
    Decided { verdict, trace }
}

/// What an authorised request will run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Plan {
    /// Bash code, run by `bash [OPTIONS] -c SCRIPT` with positional parameters.
    Shell {
        script: String,
        positional: Vec<String>,
        options: Vec<String>,
    },
    /// One argv, run without a shell.
    Argv { argv: Vec<String> },
    /// A remediation: argv steps run in order, stopping at the first failure.
    Steps { steps: Vec<Vec<String>> },
}

/// A plan that passed the policy. Only [`Authorized::new`] builds one, and only from an allowing
/// decision, so no code path can reach the runner without a decision.
#[derive(Debug)]
pub struct Authorized {
    plan: Plan,
}

impl Authorized {
    /// Returns the authorised plan when, and only when, every decision given allows it.
    pub fn new(plan: Plan, decisions: &[&Decided]) -> Option<Authorized> {
        let allowed = !decisions.is_empty()
            && decisions
                .iter()
                .all(|d| d.verdict.decision == Decision::Allow);
        allowed.then_some(Authorized { plan })
    }

    /// Returns the authorised plan for a request a person approved: no decision may deny, and
    /// the consent must come from consuming the approved challenge of this very request.
    pub fn with_consent(
        plan: Plan,
        decisions: &[&Decided],
        _consent: Consent,
    ) -> Option<Authorized> {
        let allowed = !decisions.is_empty()
            && decisions
                .iter()
                .all(|d| d.verdict.decision != Decision::Deny);
        allowed.then_some(Authorized { plan })
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }
}

/// Proof that a person approved one exact request: only the approval store makes one, when it
/// consumes an approved, unexpired, unused challenge whose digest and policy revision match.
#[derive(Debug)]
pub struct Consent {
    pub(crate) _challenge: String,
}
