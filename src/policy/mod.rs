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
use rules::{Field, Pattern};
pub use rules::{Layer, Rule, RuleError};

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
    /// A rule of the person's own policy files.
    Policy,
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
            Tier::Policy => "policy",
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
    /// The layer of the rule.
    pub layer: Layer,
}

/// The outcome of deciding: the winning verdict and every verdict considered, in order.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct Decided {
    pub verdict: Verdict,
    pub trace: Vec<Verdict>,
}

/// The defaults where no rule decided an operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// Reads only: any operation with another effect is refused.
    Readonly,
    /// For coding agents: work inside the workspace runs; what leaves the machine asks (the
    /// shipped rules say which).
    #[default]
    Workspace,
    /// Nothing runs unasked unless a rule allows it.
    Strict,
}

impl Profile {
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Readonly => "readonly",
            Profile::Workspace => "workspace",
            Profile::Strict => "strict",
        }
    }

    pub fn parse(text: &str) -> Result<Profile, String> {
        match text {
            "readonly" => Ok(Profile::Readonly),
            "workspace" => Ok(Profile::Workspace),
            "strict" => Ok(Profile::Strict),
            other => Err(format!(
                "unknown profile `{other}` (readonly, workspace or strict)"
            )),
        }
    }
}

/// Whether a command may have the host network (`--network`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkSetting {
    /// Refused.
    Off,
    /// A person approves it, per request.
    #[default]
    Ask,
    /// Given when asked for.
    On,
}

impl NetworkSetting {
    pub fn parse(text: &str) -> Result<NetworkSetting, String> {
        match text {
            "off" => Ok(NetworkSetting::Off),
            "ask" => Ok(NetworkSetting::Ask),
            "on" => Ok(NetworkSetting::On),
            other => Err(format!(
                "unknown network setting `{other}` (off, ask or on)"
            )),
        }
    }
}

/// The loaded rule set.
#[derive(Clone, Debug)]
pub struct Policy {
    pub rules: Vec<Rule>,
    /// SHA-256 over every rule file in force (names and contents), the profile and the network
    /// setting: an approval given under one revision does not carry over to another.
    pub revision: String,
    pub profile: Profile,
    pub network: NetworkSetting,
}

impl Policy {
    /// The same rules under another profile and network setting (the revision follows).
    pub fn with_defaults(mut self, profile: Profile, network: NetworkSetting) -> Policy {
        use sha2::{Digest, Sha256};
        self.profile = profile;
        self.network = network;
        let mixed = format!("{}:{}:{:?}", self.revision, profile.as_str(), network);
        self.revision = format!("{:x}", Sha256::digest(mixed.as_bytes()));
        self
    }

    /// The shipped rules only.
    pub fn shipped() -> Result<Policy, RuleError> {
        Policy::with_files(&[])
    }

    /// Shipped rules plus `--rules` files (which can only tighten).
    pub fn with_files(extra: &[(String, String)]) -> Result<Policy, RuleError> {
        let layered: Vec<(Layer, String, String)> = extra
            .iter()
            .map(|(name, text)| (Layer::Extra, name.clone(), text.clone()))
            .collect();
        Policy::with_layers(&layered)
    }

    /// Shipped rules plus the files of the other layers.
    pub fn with_layers(extra: &[(Layer, String, String)]) -> Result<Policy, RuleError> {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        for (name, text) in rules::SHIPPED_COMPILED.iter().copied().chain(
            extra
                .iter()
                .map(|(_, name, text)| (name.as_str(), text.as_str())),
        ) {
            for part in [name, text] {
                hash.update((part.len() as u64).to_le_bytes());
                hash.update(part.as_bytes());
            }
        }
        Ok(Policy {
            rules: rules::load(extra)?,
            revision: format!("{:x}", hash.finalize()),
            profile: Profile::default(),
            network: NetworkSetting::default(),
        })
    }
}

impl Policy {
    /// Whether the person's rules refuse every call of `tool`, whatever its arguments: going
    /// through their live rules in order, a `deny` whose only condition names the tool comes
    /// before any rule that could decide a call of it otherwise.
    pub fn denies_every_call(&self, tool: &str) -> bool {
        let first_personal = self.rules.partition_point(|r| r.layer == Layer::Shipped);
        for rule in self.rules[first_personal..].iter().filter(|r| !r.expired()) {
            let c = &rule.conditions;
            if !matches_list(rule, Field::Tool, tool) {
                continue;
            }
            let only_the_tool = !c.tool.is_empty()
                && c.fact.is_empty()
                && c.program.is_empty()
                && c.subcommand.is_empty()
                && c.effect.is_empty()
                && c.args.is_empty()
                && c.path.is_empty()
                && c.network.is_none()
                && c.when.is_empty();
            match rule.decision {
                Decision::Deny if only_the_tool => return true,
                Decision::Deny => continue,
                Decision::Allow | Decision::Ask => return false,
            }
        }
        false
    }
}

fn matches_list(rule: &Rule, field: Field, value: &str) -> bool {
    let mut patterns = rule.patterns(field).peekable();
    patterns.peek().is_none() || patterns.any(|p| p.matches(value))
}

/// The tool every request decided here comes through (shell text and `warden run` argv alike).
pub const SHELL_TOOL: &str = "bash";

/// Whether the request the operations belong to runs with the host network.
fn network_requested(ops: &[Operation]) -> bool {
    ops.iter()
        .any(|op| op.facts.iter().any(|f| f.name == "network.requested"))
}

fn rule_matches_op(rule: &Rule, op: &Operation, call: &Call<'_>) -> bool {
    let (network, tool) = (call.network, call.tool);
    let c = &rule.conditions;
    c.network.is_none_or(|n| n == network)
        && matches_list(rule, Field::Tool, tool)
        && rule.when_matches(call.args)
        && matches_list(rule, Field::Program, &op.program)
        && (c.subcommand.is_empty()
            || op
                .subcommand
                .as_deref()
                .is_some_and(|s| matches_list(rule, Field::Subcommand, s)))
        && (c.effect.is_empty() || c.effect.contains(&op.effect))
        && (c.args.is_empty() || op.args.iter().any(|a| matches_list(rule, Field::Args, a)))
        && (c.path.is_empty()
            || op.targets.iter().any(|t| {
                t.resolved
                    .path
                    .as_deref()
                    .is_some_and(|p| rule.patterns(Field::Path).any(|g| path_matches(g, p)))
            }))
}

/// A path pattern. Absolute globs match the whole resolved path; relative ones match its tail
/// (`src/*.rs` matches `/work/app/src/main.rs`). `*` does not cross `/`; `**` does. A regex
/// is searched in the whole resolved path.
fn path_matches(pattern: Pattern<'_>, path: &std::path::Path) -> bool {
    let text = path.to_string_lossy();
    let glob = match pattern {
        Pattern::Regex(re) => return re.is_match(&text),
        Pattern::Glob(glob) => glob,
    };
    if glob.starts_with('/') {
        return glob_path(glob, &text);
    }
    let parts: Vec<&str> = text.split('/').collect();
    (1..parts.len()).any(|i| glob_path(glob, &parts[i..].join("/")))
}

/// Matches component by component; a `**` component matches any number of components.
pub(crate) fn glob_path(glob: &str, path: &str) -> bool {
    fn go(g: &[&str], p: &[&str]) -> bool {
        match g.split_first() {
            None => p.is_empty(),
            Some((&"**", rest)) => (0..=p.len()).any(|i| go(rest, &p[i..])),
            Some((first, rest)) => p.split_first().is_some_and(|(name, tail)| {
                crate::classify::paths::glob_match(first, name) && go(rest, tail)
            }),
        }
    }
    let g: Vec<&str> = glob.split('/').collect();
    let p: Vec<&str> = path.split('/').collect();
    go(&g, &p)
}

/// The first rule of the person's layers (admin, user, workspace, `--rules`, in that order,
/// top to bottom) that matches the operation, with the fact it matched.
fn first_user_rule<'a>(
    policy: &'a Policy,
    op: &'a Operation,
    call: &Call<'_>,
) -> Option<(&'a Rule, Option<&'a crate::classify::Fact>)> {
    let first_personal = policy.rules.partition_point(|r| r.layer == Layer::Shipped);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let live = policy.rules[first_personal..]
        .iter()
        .filter(move |r| r.expires.is_none_or(|e| now < e));
    live.into_iter().find_map(|r| {
        if r.conditions.fact.is_empty() {
            rule_matches_op(r, op, call).then_some((r, None))
        } else {
            op.facts
                .iter()
                .find(|f| r.conditions.fact.contains(&f.name) && rule_matches_op(r, op, call))
                .map(|f| (r, Some(f)))
        }
    })
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

fn severity(v: &Verdict) -> (Decision, Tier) {
    (v.decision, v.tier)
}

/// The strictest of some verdicts (the first among equals).
fn strictest<'a>(verdicts: impl Iterator<Item = &'a Verdict>) -> Option<&'a Verdict> {
    verdicts.max_by(|a, b| {
        severity(a)
            .cmp(&severity(b))
            .then(std::cmp::Ordering::Greater)
    })
}

/// Decides a list of operations.
///
/// For each operation, the shipped rules give their verdicts (per fact, the first matching
/// rule; the strictest counts). The person's layers give at most one: the first matching rule,
/// top to bottom. An admin or user rule decides the operation, except against a catastrophic
/// shipped verdict, which nothing overrides; a workspace or `--rules` rule only tightens. The
/// request's decision is the strictest over its operations; no rule at all means allow.
pub fn decide(ops: &[Operation], policy: &Policy) -> Decided {
    decide_tool(SHELL_TOOL, ops, policy)
}

/// What the rules see of the request besides its operations.
struct Call<'a> {
    tool: &'a str,
    /// A tool call's arguments (`when` conditions); None for shell commands.
    args: Option<&'a serde_json::Value>,
    network: bool,
}

/// Decides the operations of a call of `tool` (rules with a `tool` condition see its name).
pub fn decide_tool(tool: &str, ops: &[Operation], policy: &Policy) -> Decided {
    decide_call(tool, None, ops, policy)
}

/// Decides a tool call: rules with a `tool` condition see its name, rules with `when` its
/// arguments. A call of a proxied server's tool (`NAME.tool`) that no rule decides is asked
/// about: nothing is known of what it does.
pub fn decide_call(
    tool: &str,
    args: Option<&serde_json::Value>,
    ops: &[Operation],
    policy: &Policy,
) -> Decided {
    let mut trace = Vec::new();
    let mut finals: Vec<Verdict> = Vec::new();
    let shipped_rules =
        &policy.rules[..policy.rules.partition_point(|r| r.layer == Layer::Shipped)];
    let personal = shipped_rules.len() < policy.rules.len();
    let call = Call {
        tool,
        args,
        network: network_requested(ops),
    };
    for (index, op) in ops.iter().enumerate() {
        let first_of_op = trace.len();
        for fact in &op.facts {
            let rule = shipped_rules.iter().find(|r| {
                r.conditions.fact.iter().any(|f| f == &fact.name) && rule_matches_op(r, op, &call)
            });
            if let Some(rule) = rule {
                trace.push(verdict_of(rule, op, &fact.detail, index, Some(&fact.name)));
            }
        }
        if let Some(rule) = shipped_rules
            .iter()
            .find(|r| r.conditions.fact.is_empty() && rule_matches_op(r, op, &call))
        {
            trace.push(verdict_of(rule, op, &op.text, index, None));
        }
        let shipped = strictest(trace[first_of_op..].iter()).cloned();
        let user = personal
            .then(|| first_user_rule(policy, op, &call))
            .flatten()
            .map(|(rule, fact)| {
                let detail = fact.map_or(op.text.as_str(), |f| f.detail.as_str());
                verdict_of(rule, op, detail, index, fact.map(|f| f.name.as_str()))
            });
        if let Some(u) = &user {
            trace.push(u.clone());
        }
        let chosen = match (shipped, user) {
            (Some(s), _) if s.tier == Tier::Catastrophic => Some(s),
            (s, Some(u)) if u.layer.may_allow() => Some(u).or(s),
            (Some(s), Some(u)) => strictest([&s, &u].into_iter()).cloned(),
            (s, u) => s.or(u),
        };
        let chosen = chosen.or_else(|| upstream_default(tool, op, index));
        let chosen = profile_default(policy, op, index, chosen);
        if let Some(v) = &chosen
            && v.rule.starts_with("profile.")
        {
            trace.push(v.clone());
        }
        finals.extend(chosen);
    }
    let verdict = strictest(finals.iter())
        .cloned()
        .unwrap_or_else(|| Verdict {
            decision: Decision::Allow,
            tier: Tier::Ordinary,
            rule: "default.allow".into(),
            reason: "ordinary work: no rule matched".into(),
            hint: "runs as requested".into(),
            operation: 0,
            fact: None,
            layer: Layer::Shipped,
        });
    Decided { verdict, trace }
}

/// The answer for a proxied server's tool (`NAME.tool`) when no rule decided the call: ask.
fn upstream_default(tool: &str, op: &Operation, index: usize) -> Option<Verdict> {
    let (server, _) = tool.split_once('.')?;
    Some(Verdict {
        decision: Decision::Ask,
        tier: Tier::Policy,
        rule: "proxy.unmatched".into(),
        reason: format!(
            "no rule of your policy decides `{tool}`: what a tool of another server does is not known here ({})",
            shorten(&op.text, 100)
        ),
        hint: format!(
            "add a rule with tool = \"{tool}\" (or \"{server}.*\") and, where it matters, `when` conditions on its arguments"
        ),
        operation: index,
        fact: None,
        layer: Layer::Shipped,
    })
}

/// The profile's word on an operation: what decides when no rule did, and what the profile
/// forbids or asks about whatever the rules said (except a personal allow under `strict`, and a
/// stricter rule, which stand). The network setting answers `--network` itself.
fn profile_default(
    policy: &Policy,
    op: &Operation,
    index: usize,
    chosen: Option<Verdict>,
) -> Option<Verdict> {
    use crate::classify::Effect;
    let make = |decision, tier, rule: &str, reason: String, hint: &str| Verdict {
        decision,
        tier,
        rule: rule.to_string(),
        reason,
        hint: hint.to_string(),
        operation: index,
        fact: None,
        layer: Layer::Shipped,
    };
    if op.facts.iter().any(|f| f.name == "network.requested") {
        match policy.network {
            NetworkSetting::Ask => {}
            NetworkSetting::On => {
                return chosen.filter(|v| v.rule != "sensitive.network-access");
            }
            NetworkSetting::Off => {
                return Some(make(
                    Decision::Deny,
                    Tier::Policy,
                    "profile.network-off",
                    "the network setting is off: commands never get the host network".into(),
                    "work offline, or have a person change the network setting",
                ));
            }
        }
    }
    let stricter = |v: Verdict| match &chosen {
        Some(c) if (c.decision, c.tier) >= (v.decision, v.tier) => chosen.clone(),
        _ => Some(v),
    };
    match policy.profile {
        Profile::Workspace => chosen,
        Profile::Readonly if op.effect != Effect::Read => stricter(make(
            Decision::Deny,
            Tier::Policy,
            "profile.readonly",
            format!(
                "the readonly profile allows reads only; `{}` {}s",
                op.program,
                op.effect.as_str()
            ),
            "read and report; a person can run changes, or pick another profile",
        )),
        Profile::Readonly => chosen,
        Profile::Strict => match &chosen {
            Some(c) if c.decision == Decision::Allow && c.layer.may_allow() => chosen,
            _ => stricter(make(
                Decision::Ask,
                Tier::Policy,
                "profile.strict",
                format!(
                    "the strict profile asks before every operation no rule of yours allows (`{}`, {})",
                    op.program,
                    op.effect.as_str()
                ),
                "approve this exact command, or allow it in your policy file",
            )),
        },
    }
}

fn verdict_of(
    rule: &Rule,
    op: &Operation,
    detail: &str,
    operation: usize,
    fact: Option<&str>,
) -> Verdict {
    Verdict {
        decision: rule.decision,
        tier: rule.tier,
        rule: rule.id.clone(),
        reason: render(&rule.reason, op, detail),
        hint: rule.hint.clone(),
        operation,
        fact: fact.map(str::to_string),
        layer: rule.layer,
    }
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
    /// A file-tool call, carried out by warden itself beneath the workspace root.
    Tool {
        tool: String,
        args: serde_json::Value,
    },
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
