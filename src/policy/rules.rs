//! Rule files: schema, loading and validation.
//!
//! A rule file is TOML with `[[rule]]` tables. Unknown keys are errors (with the file and the
//! key), every rule needs an id, a tier, a decision, a reason and a hint, the tier and decision
//! must agree, fact names must be ones the classifier produces, and ids are unique across files.

use std::collections::BTreeMap;

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

/// The shipped rule files compiled to JSON by the build script (same content, faster to decode
/// at every process start), in the same order as [`SHIPPED`].
pub const SHIPPED_COMPILED: &[(&str, &str)] = &[
    (
        "rules/catastrophic.toml",
        include_str!(concat!(env!("OUT_DIR"), "/catastrophic.json")),
    ),
    (
        "rules/unverifiable.toml",
        include_str!(concat!(env!("OUT_DIR"), "/unverifiable.json")),
    ),
    (
        "rules/secrets.toml",
        include_str!(concat!(env!("OUT_DIR"), "/secrets.json")),
    ),
    (
        "rules/sensitive.toml",
        include_str!(concat!(env!("OUT_DIR"), "/sensitive.json")),
    ),
    (
        "rules/system.toml",
        include_str!(concat!(env!("OUT_DIR"), "/system.json")),
    ),
];

/// Every fact name the classifier and the shell stage can produce.
pub const KNOWN_FACTS: &[&str] = &[
    "warden.authority",
    "network.requested",
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
    /// Optional in a person's own files: `policy` (or `ordinary` for allow) by default.
    #[serde(default)]
    tier: Option<Tier>,
    #[serde(default)]
    decision: Option<Decision>,
    /// The same as `decision`, as a person's own files may spell it.
    #[serde(default)]
    action: Option<Decision>,
    reason: String,
    /// Optional in a person's own files.
    #[serde(default)]
    hint: Option<String>,
    /// When the rule stops applying: `2026-12-31` (the end of that day, UTC) or
    /// `2026-12-31T18:00:00Z`.
    #[serde(default)]
    expires: Option<String>,
    #[serde(rename = "match")]
    conditions: Conditions,
    #[serde(default)]
    examples: Examples,
}

/// Where a rule comes from, in the order rules are consulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    /// Built into warden.
    Shipped,
    /// `/etc/warden/policy.toml`.
    Admin,
    /// `$XDG_CONFIG_HOME/warden/policy.toml`.
    User,
    /// The workspace's `.warden/policy.toml`: writable by the agent, so it only tightens.
    Workspace,
    /// `--rules FILE`: only tightens.
    Extra,
}

impl Layer {
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Shipped => "shipped",
            Layer::Admin => "admin",
            Layer::User => "user",
            Layer::Workspace => "workspace",
            Layer::Extra => "extra",
        }
    }

    /// Layers whose rules may loosen a shipped decision (never a catastrophic one).
    pub fn may_allow(self) -> bool {
        matches!(self, Layer::Admin | Layer::User)
    }
}

/// What a rule matches. Lists are alternatives (any of); keys combine (all of). A rule with
/// `fact` is judged once per fact of an operation; a rule without it, once per operation.
#[derive(Clone, Debug, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Conditions {
    /// The tool the request came through (globs): `bash` for shell commands and `warden run`.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_list"
    )]
    pub tool: Vec<String>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_list"
    )]
    pub fact: Vec<String>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_list"
    )]
    pub program: Vec<String>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_list"
    )]
    pub subcommand: Vec<String>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_list"
    )]
    pub effect: Vec<Effect>,
    /// Globs over the operation's arguments as written (any argument matching any glob).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_list"
    )]
    pub args: Vec<String>,
    /// Globs over the operation's resolved target paths (absolute, or relative to the
    /// workspace); `..` never survives resolution.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_list"
    )]
    pub path: Vec<String>,
    /// Whether the request runs with the host network (`true`) or without it (`false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<bool>,
    /// Conditions on a tool call's arguments: an argument path (`base`, `repo.owner`,
    /// `files.*.path`) to the patterns its value must match (a string or a list, any of). Every
    /// path must match; a missing argument does not. Shell commands have no arguments here, so
    /// a rule with `when` never decides one.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "one_or_many"
    )]
    pub when: BTreeMap<String, Vec<String>>,
}

/// A condition written as one value or a list of them (`tool = "x"`, `tool = ["x", "y"]`).
fn one_or_list<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrList<T> {
        One(T),
        List(Vec<T>),
    }
    Ok(match OneOrList::<T>::deserialize(d)? {
        OneOrList::One(v) => vec![v],
        OneOrList::List(l) => l,
    })
}

/// A `when` table whose values are a pattern or a list of patterns.
fn one_or_many<'de, D>(d: D) -> Result<BTreeMap<String, Vec<String>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    struct Patterns(#[serde(deserialize_with = "one_or_list")] Vec<String>);
    let raw = BTreeMap::<String, Patterns>::deserialize(d)?;
    Ok(raw.into_iter().map(|(k, Patterns(v))| (k, v)).collect())
}

/// Most argument paths one rule may test.
const MAX_WHEN: usize = 32;

/// Checks an argument path of `when`: dot-separated names, `*` for any key or element.
fn check_argument_path(path: &str) -> Result<(), String> {
    if path.is_empty() || path.len() > 256 || path.split('.').any(str::is_empty) {
        return Err(format!(
            "`when` key `{path}` is not an argument path (names separated by dots, `*` for any; at most 256 bytes)"
        ));
    }
    Ok(())
}

/// The values at an argument path of a tool call's arguments: `*` steps into every key or
/// element, a number into that element; an array reached at the end gives its elements.
pub fn argument_values<'v>(args: &'v serde_json::Value, path: &str) -> Vec<&'v serde_json::Value> {
    use serde_json::Value;
    let mut current = vec![args];
    for step in path.split('.') {
        let mut next = Vec::new();
        for value in current {
            match (value, step) {
                (Value::Object(map), "*") => next.extend(map.values()),
                (Value::Array(items), "*") => next.extend(items.iter()),
                (Value::Object(map), key) => next.extend(map.get(key)),
                (Value::Array(items), index) => {
                    next.extend(index.parse::<usize>().ok().and_then(|i| items.get(i)));
                }
                _ => {}
            }
        }
        current = next;
    }
    let mut out = Vec::new();
    for value in current {
        match value {
            Value::Array(items) => out.extend(items.iter()),
            other => out.push(other),
        }
    }
    out
}

/// The text a pattern is matched against: a string as it is, a number, boolean or null as
/// JSON writes it; objects and arrays have none.
pub fn argument_text(value: &serde_json::Value) -> Option<std::borrow::Cow<'_, str>> {
    use serde_json::Value;
    match value {
        Value::String(s) => Some(std::borrow::Cow::Borrowed(s)),
        Value::Number(_) | Value::Bool(_) | Value::Null => {
            Some(std::borrow::Cow::Owned(value.to_string()))
        }
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// Longest pattern text accepted (glob or regex).
const MAX_PATTERN: usize = 1024;
/// Compiled-size ceiling of one regex (bytes of the automaton).
const MAX_REGEX_SIZE: usize = 256 * 1024;

/// One alternative of a string condition: a glob (bash rules: `*`, `?`, `[...]`), or a regular
/// expression written `re:PATTERN` (Rust `regex` syntax: linear-time, no backreferences;
/// searched anywhere in the value unless it says `^`/`$`).
#[derive(Clone, Copy, Debug)]
pub enum Pattern<'a> {
    Glob(&'a str),
    Regex(&'a regex::Regex),
}

impl Pattern<'_> {
    /// Whether `value` matches (a glob matches the whole value, a regex anywhere in it).
    pub fn matches(&self, value: &str) -> bool {
        match self {
            Pattern::Glob(glob) => crate::classify::paths::glob_match(glob, value),
            Pattern::Regex(re) => re.is_match(value),
        }
    }
}

/// Compiles the regex of a `re:` condition string (None for a glob).
fn compile(text: &str) -> Result<Option<regex::Regex>, String> {
    let Some(expr) = text.strip_prefix("re:") else {
        return Ok(None);
    };
    regex::RegexBuilder::new(expr)
        .size_limit(MAX_REGEX_SIZE)
        .nest_limit(64)
        .build()
        .map(Some)
        .map_err(|e| {
            format!(
                "`{text}` is not a regular expression: {}",
                e.to_string().replace('\n', " ")
            )
        })
}

/// The string conditions a rule can hold.
#[derive(Clone, Copy, Debug)]
pub enum Field {
    Tool,
    Program,
    Subcommand,
    Args,
    Path,
}

/// The regexes among a rule's string conditions, compiled once at load, aligned with the
/// condition lists (a list without a regex has none here, so glob-only rules cost nothing).
#[derive(Clone, Debug, Default)]
pub struct Compiled {
    lists: [Vec<Option<regex::Regex>>; 5],
    /// The `when` patterns, in the order of the table's keys.
    when: Vec<Vec<Option<regex::Regex>>>,
}

impl Compiled {
    fn new(c: &Conditions) -> Result<Compiled, String> {
        let mut out = Compiled::default();
        for field in [
            Field::Tool,
            Field::Program,
            Field::Subcommand,
            Field::Args,
            Field::Path,
        ] {
            let texts = c.list(field);
            if let Some(long) = texts.iter().find(|t| t.len() > MAX_PATTERN) {
                return Err(format!(
                    "`{}…` is longer than {MAX_PATTERN} bytes",
                    long.chars().take(40).collect::<String>()
                ));
            }
            if !texts.iter().any(|t| t.starts_with("re:")) {
                continue;
            }
            let compiled = texts
                .iter()
                .map(|t| compile(t))
                .collect::<Result<Vec<_>, String>>()?;
            out.lists[field as usize] = compiled;
        }
        if c.when.len() > MAX_WHEN {
            return Err(format!("`when` tests more than {MAX_WHEN} argument paths"));
        }
        for (path, texts) in &c.when {
            check_argument_path(path)?;
            if texts.is_empty() {
                return Err(format!("`when` key `{path}` has no pattern"));
            }
            if let Some(long) = texts.iter().find(|t| t.len() > MAX_PATTERN) {
                return Err(format!(
                    "`{}…` is longer than {MAX_PATTERN} bytes",
                    long.chars().take(40).collect::<String>()
                ));
            }
            let compiled = texts
                .iter()
                .map(|t| compile(t))
                .collect::<Result<Vec<_>, String>>()?;
            out.when.push(compiled);
        }
        Ok(out)
    }
}

impl Conditions {
    /// The patterns of one string condition, as written.
    pub fn list(&self, field: Field) -> &[String] {
        match field {
            Field::Tool => &self.tool,
            Field::Program => &self.program,
            Field::Subcommand => &self.subcommand,
            Field::Args => &self.args,
            Field::Path => &self.path,
        }
    }
}

impl Rule {
    /// The patterns of one string condition, ready to match.
    pub fn patterns(&self, field: Field) -> impl Iterator<Item = Pattern<'_>> {
        let regexes = &self.compiled.lists[field as usize];
        self.conditions
            .list(field)
            .iter()
            .enumerate()
            .map(
                move |(i, text)| match regexes.get(i).and_then(Option::as_ref) {
                    Some(re) => Pattern::Regex(re),
                    None => Pattern::Glob(text),
                },
            )
    }
}

impl Rule {
    /// Whether a call's arguments satisfy the rule's `when` table (always, without one; never,
    /// with one, when there are no arguments).
    pub fn when_matches(&self, args: Option<&serde_json::Value>) -> bool {
        if self.conditions.when.is_empty() {
            return true;
        }
        let Some(args) = args else {
            return false;
        };
        self.conditions
            .when
            .iter()
            .zip(&self.compiled.when)
            .all(|((path, texts), regexes)| {
                argument_values(args, path).into_iter().any(|value| {
                    argument_text(value).is_some_and(|text| {
                        texts.iter().zip(regexes).any(|(t, re)| match re {
                            Some(re) => re.is_match(&text),
                            None => when_glob(t, &text),
                        })
                    })
                })
            })
    }
}

/// A `when` glob against an argument's text, path-wise: `*` and `?` stop at `/`, a `**`
/// component crosses any number of them, and a value with a `..` component matches only a
/// pattern that has one (`notes/*` never matches `notes/../.env`).
fn when_glob(glob: &str, value: &str) -> bool {
    let climbs = |s: &str| s.split('/').any(|c| c == "..");
    if climbs(value) && !climbs(glob) {
        return false;
    }
    crate::policy::glob_path(glob, value)
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
    /// The string conditions, compiled.
    #[serde(skip)]
    pub compiled: Compiled,
    pub examples: Examples,
    /// The file the rule came from.
    pub source: String,
    /// Unix seconds after which the rule no longer applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires: Option<u64>,
    /// The line of its `id` in that file (0 when unknown).
    #[serde(skip_serializing_if = "is_zero")]
    pub line: usize,
    pub layer: Layer,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Unix seconds of `YYYY-MM-DD` (the end of that day, UTC) or `YYYY-MM-DDTHH:MM:SSZ`.
pub fn parse_expiry(text: &str) -> Option<u64> {
    let (date, time) = match text.split_once('T') {
        Some((d, t)) => (d, Some(t.strip_suffix('Z')?)),
        None => (text, None),
    };
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    if d.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    // Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let seconds = match time {
        None => 86_400,
        Some(t) => {
            let mut p = t.split(':').map(|x| x.parse::<i64>().ok());
            let (h, mi, s) = (p.next()??, p.next()??, p.next()??);
            if p.next().is_some() || h > 23 || mi > 59 || s > 60 {
                return None;
            }
            h * 3600 + mi * 60 + s
        }
    };
    u64::try_from(days * 86_400 + seconds).ok()
}

/// The line (from 1) of the rule `id` in a TOML rule file's text.
pub fn locate(text: &str, id: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let l = l.trim();
            l.strip_prefix("id")
                .map(|rest| rest.trim_start())
                .and_then(|rest| rest.strip_prefix('='))
                .map(|rest| rest.trim().trim_matches(['"', '\'']))
                == Some(id)
        })
        .map(|i| i + 1)
}

impl Rule {
    /// True once the rule's `expires` time has passed.
    pub fn expired(&self) -> bool {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        self.expires.is_some_and(|e| now >= e)
    }

    /// `file:line` of the rule (the shipped files' text is embedded, so theirs are known too).
    pub fn location(&self) -> String {
        let line = if self.line > 0 {
            Some(self.line)
        } else {
            SHIPPED
                .iter()
                .find(|(f, _)| *f == self.source)
                .and_then(|(_, text)| locate(text, &self.id))
        };
        match line {
            Some(n) => format!("{}:{n}", self.source),
            None => self.source.clone(),
        }
    }
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

/// Parses and validates one rule file (TOML) of the `--rules` layer.
pub fn parse_file(file: &str, text: &str) -> Result<Vec<Rule>, RuleError> {
    parse_layer(Layer::Extra, file, text)
}

/// Parses and validates one rule file (TOML) of a layer.
pub fn parse_layer(layer: Layer, file: &str, text: &str) -> Result<Vec<Rule>, RuleError> {
    let parsed: File = toml::from_str(text).map_err(|e| RuleError::Syntax {
        file: file.to_string(),
        message: e.to_string().trim().replace('\n', " "),
    })?;
    let mut rules = validate(layer, file, parsed)?;
    if layer != Layer::Shipped {
        for rule in &mut rules {
            rule.line = locate(text, &rule.id).unwrap_or(0);
        }
    }
    Ok(rules)
}

/// Parses and validates a shipped rule file in its compiled (JSON) form.
fn parse_compiled(file: &str, json: &str) -> Result<Vec<Rule>, RuleError> {
    let parsed: File = serde_json::from_str(json).map_err(|e| RuleError::Syntax {
        file: file.to_string(),
        message: e.to_string(),
    })?;
    validate(Layer::Shipped, file, parsed)
}

fn validate(layer: Layer, file: &str, parsed: File) -> Result<Vec<Rule>, RuleError> {
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
        let decision = match (raw.decision, raw.action) {
            (Some(d), None) | (None, Some(d)) => d,
            (Some(_), Some(_)) => {
                return Err(invalid("give `decision` or `action`, not both".into()));
            }
            (None, None) => return Err(invalid("a rule needs a `decision` (or `action`)".into())),
        };
        let shipped = layer == Layer::Shipped;
        let hint = match (&raw.hint, shipped) {
            (Some(h), _) if !h.trim().is_empty() => h.clone(),
            (_, true) => return Err(invalid("every rule needs a reason and a hint".into())),
            _ => "a rule of your policy decided this".to_string(),
        };
        if raw.reason.trim().is_empty() {
            return Err(invalid("every rule needs a reason and a hint".into()));
        }
        let expires = match &raw.expires {
            None => None,
            Some(text) => Some(parse_expiry(text).ok_or_else(|| {
                invalid(format!(
                    "expires = \"{text}\" is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)"
                ))
            })?),
        };
        let tier = match (raw.tier, shipped) {
            (Some(t), _) => t,
            (None, true) => return Err(invalid("a shipped rule needs a tier".into())),
            (None, false) if decision == Decision::Allow => Tier::Ordinary,
            (None, false) => Tier::Policy,
        };
        if decision == Decision::Allow && !shipped && !layer.may_allow() {
            return Err(invalid(format!(
                "a rule file of the {} layer can only add ask or deny, never allow (it can be written by what it guards against); put allow rules in your own policy file",
                layer.as_str()
            )));
        }
        let expected = match tier {
            Tier::Catastrophic | Tier::Unverifiable | Tier::Secret => Some(Decision::Deny),
            Tier::Ordinary => Some(Decision::Allow),
            Tier::Sensitive | Tier::System | Tier::Policy => None,
        };
        if let Some(expected) = expected
            && expected != decision
        {
            return Err(invalid(format!(
                "tier {} must decide {}",
                tier.as_str(),
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
            && c.tool.is_empty()
            && c.program.is_empty()
            && c.subcommand.is_empty()
            && c.effect.is_empty()
            && c.args.is_empty()
            && c.path.is_empty()
            && c.network.is_none()
            && c.when.is_empty()
        {
            return Err(invalid(
                "a rule must match on something (tool, fact, program, subcommand, effect, args, path, network or when)"
                    .into(),
            ));
        }
        let compiled = Compiled::new(c).map_err(invalid)?;
        rules.push(Rule {
            id: raw.id,
            tier,
            decision,
            reason: raw.reason,
            hint,
            conditions: raw.conditions,
            compiled,
            examples: raw.examples,
            source: file.to_string(),
            line: 0,
            expires,
            layer,
        });
    }
    Ok(rules)
}

/// Loads the shipped rules, then the files of the other layers in order; ids must be unique
/// across all of them.
pub fn load(extra: &[(Layer, String, String)]) -> Result<Vec<Rule>, RuleError> {
    let mut all: Vec<Rule> = Vec::new();
    let mut parsed = Vec::new();
    for (file, json) in SHIPPED_COMPILED {
        parsed.push((file.to_string(), parse_compiled(file, json)?));
    }
    let mut ordered: Vec<&(Layer, String, String)> = extra.iter().collect();
    ordered.sort_by_key(|(layer, _, _)| *layer);
    for (layer, file, text) in ordered {
        parsed.push((file.clone(), parse_layer(*layer, file, text)?));
    }
    for (file, rules) in parsed {
        for rule in rules {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_dates_parse_to_the_end_of_the_day_or_the_instant() {
        assert_eq!(parse_expiry("1970-01-01"), Some(86_400));
        assert_eq!(parse_expiry("2000-03-01T00:00:01Z"), Some(951_868_801));
        assert_eq!(parse_expiry("2026-11-30T02:00:00Z"), Some(1_796_004_000));
        for bad in [
            "soon",
            "2026-13-01",
            "2026-11-30T25:00:00Z",
            "2026-11-30T01:00:00",
            "",
        ] {
            assert_eq!(parse_expiry(bad), None, "{bad}");
        }
    }

    #[test]
    fn rules_are_located_by_their_id_line() {
        let text = "# x\n[[rule]]\nid = \"a.b\"\n[[rule]]\n  id='c'\n";
        assert_eq!(locate(text, "a.b"), Some(3));
        assert_eq!(locate(text, "c"), Some(5));
        assert_eq!(locate(text, "zz"), None);
        let policy = crate::policy::Policy::shipped().expect("rules");
        let home = policy
            .rules
            .iter()
            .find(|r| r.id == "catastrophic.delete-home")
            .expect("rule");
        assert!(home.location().starts_with("rules/catastrophic.toml:"));
    }

    #[test]
    fn compiled_shipped_rules_match_their_toml_sources() {
        assert_eq!(SHIPPED.len(), SHIPPED_COMPILED.len());
        for ((file, toml_text), (compiled_file, json)) in SHIPPED.iter().zip(SHIPPED_COMPILED) {
            assert_eq!(file, compiled_file);
            let from_toml = serde_json::to_value(
                parse_layer(Layer::Shipped, file, toml_text).expect("toml parses"),
            )
            .expect("serialise");
            let from_json = serde_json::to_value(parse_compiled(file, json).expect("json parses"))
                .expect("serialise");
            assert_eq!(from_toml, from_json, "{file}");
        }
    }

    fn when_rule(when: &str) -> Rule {
        let text = format!(
            "[[rule]]\nid='w'\naction='deny'\nreason='r'\n[rule.match]\ntool='gh.*'\nwhen = {when}\n"
        );
        parse_layer(Layer::User, "w.toml", &text)
            .expect("parses")
            .remove(0)
    }

    #[test]
    fn when_conditions_look_into_the_arguments() {
        use serde_json::json;
        let rule = when_rule("{ base = ['main', 'release/*'], 'repo.owner' = 're:^acme$' }");
        let call = |v: serde_json::Value| rule.when_matches(Some(&v));
        assert!(call(json!({"base": "main", "repo": {"owner": "acme"}})));
        assert!(call(
            json!({"base": "release/1.2", "repo": {"owner": "acme"}})
        ));
        assert!(!call(
            json!({"base": "release/1/x", "repo": {"owner": "acme"}})
        ));
        assert!(!call(
            json!({"base": "main", "repo": {"owner": "acme-fork"}})
        ));
        assert!(
            !call(json!({"base": "main"})),
            "a missing argument never matches"
        );
        assert!(!rule.when_matches(None), "shell commands have no arguments");

        let any = when_rule("{ 'files.*.path' = 'docs/**', limit = '100', draft = 'true' }");
        assert!(any.when_matches(Some(&json!({
            "files": [{"path": "src/a.rs"}, {"path": "docs/x/y.md"}],
            "limit": 100,
            "draft": true
        }))));
        assert!(!any.when_matches(Some(&json!({
            "files": [{"path": "docs/../.env"}],
            "limit": 100,
            "draft": true
        }))));
        let list = when_rule("{ paths = '*.env' }");
        assert!(list.when_matches(Some(&json!({"paths": ["a.txt", "prod.env"]}))));
        assert!(!list.when_matches(Some(&json!({"paths": [{"x": "prod.env"}]}))));
        assert_eq!(
            argument_values(&json!({"a": [[1, 2], 3]}), "a.0").len(),
            2,
            "an array at the end gives its elements"
        );
    }

    #[test]
    fn when_tables_are_checked_at_load() {
        for (bad, says) in [
            ("{ 'a..b' = 'x' }", "not an argument path"),
            ("{ a = [] }", "has no pattern"),
            ("{ a = 're:(' }", "not a regular expression"),
            ("{ a = 3 }", "w.toml"),
        ] {
            let text = format!(
                "[[rule]]\nid='w'\naction='deny'\nreason='r'\n[rule.match]\nwhen = {bad}\n"
            );
            let e = parse_layer(Layer::User, "w.toml", &text).expect_err(bad);
            assert!(e.to_string().contains(says), "{bad}: {e}");
        }
        let one = parse_layer(
            Layer::User,
            "w.toml",
            "[[rule]]\nid='w'\naction='deny'\nreason='r'\n[rule.match]\ntool='gh.merge'\nprogram='x'\n",
        )
        .expect("a single value is a list of one");
        assert_eq!(one[0].conditions.tool, ["gh.merge"]);
    }

    #[test]
    fn rule_files_with_unknown_keys_or_facts_are_refused_with_the_file_named() {
        let unknown_key = "[[rule]]\nid='x'\ntier='system'\ndecision='ask'\nreason='r'\nhint='h'\ncolour='red'\n[rule.match]\nfact=['privilege']\n";
        let e = parse_file("mine.toml", unknown_key).expect_err("unknown key");
        assert!(e.to_string().starts_with("mine.toml"), "{e}");
        let unknown_fact = "[[rule]]\nid='x'\ntier='system'\ndecision='ask'\nreason='r'\nhint='h'\n[rule.match]\nfact=['no.such']\n";
        assert!(
            parse_file("mine.toml", unknown_fact)
                .expect_err("unknown fact")
                .to_string()
                .contains("no.such")
        );
        let wrong_decision = "[[rule]]\nid='x'\ntier='catastrophic'\ndecision='allow'\nreason='r'\nhint='h'\n[rule.match]\nfact=['privilege']\n";
        assert!(parse_file("mine.toml", wrong_decision).is_err());
    }
}
