//! `warden policy lint`: mistakes in a person's policy files that loading alone does not catch.
//!
//! Findings: an example its rule does not decide (or a `not_match` it does); a rule no request
//! can reach because an earlier rule of the person's layers matches everything it matches (a
//! catch-all above it, or a broader twin); an `allow` whose own examples a catastrophic rule
//! forbids, so it will never allow them; a rule past its `expires` date.

use crate::classify::paths::glob_match;
use crate::pipeline::{Evaluator, Request, check_examples, examples_context};
use crate::policy::{Decision, Layer, Policy, Rule, Tier};

/// One finding, about one rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub file: String,
    pub rule: String,
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: rule `{}`: {}", self.file, self.rule, self.message)
    }
}

/// Every pattern of `narrow` is matched by some pattern of `broad` (an empty `broad` matches
/// everything; an empty `narrow` is matched only by an empty `broad`).
fn list_covers(broad: &[String], narrow: &[String]) -> bool {
    broad.is_empty()
        || (!narrow.is_empty()
            && narrow
                .iter()
                .all(|n| broad.iter().any(|b| pattern_covers(b, n))))
}

/// Whether pattern `b` matches everything pattern `n` matches (conservatively: a regex is
/// covered only by itself or by a bare `*`/`**`, and covers only itself).
fn pattern_covers(b: &str, n: &str) -> bool {
    b == n
        || matches!(b, "*" | "**")
        || (!b.starts_with("re:") && !n.starts_with("re:") && glob_match(b, n))
}

/// True when `a` matches every operation `b` matches.
fn covers(a: &Rule, b: &Rule) -> bool {
    let (x, y) = (&a.conditions, &b.conditions);
    (x.fact.is_empty() || (!y.fact.is_empty() && y.fact.iter().all(|f| x.fact.contains(f))))
        && list_covers(&x.tool, &y.tool)
        && list_covers(&x.program, &y.program)
        && list_covers(&x.subcommand, &y.subcommand)
        && (x.effect.is_empty()
            || (!y.effect.is_empty() && y.effect.iter().all(|e| x.effect.contains(e))))
        && list_covers(&x.args, &y.args)
        && list_covers(&x.path, &y.path)
        && (x.network.is_none() || x.network == y.network)
        && x.when.iter().all(|(path, patterns)| {
            y.when
                .get(path)
                .is_some_and(|narrow| list_covers(patterns, narrow))
        })
}

/// Lints the person's layers of `policy`.
pub fn lint(policy: &Policy) -> Vec<Finding> {
    let mut out = Vec::new();
    let personal: Vec<&Rule> = policy
        .rules
        .iter()
        .filter(|r| r.layer != Layer::Shipped)
        .collect();
    let source = |id: &str| {
        personal
            .iter()
            .find(|r| r.id == id)
            .map(|r| r.source.clone())
            .unwrap_or_default()
    };
    for rule in personal.iter().filter(|r| r.expired()) {
        out.push(Finding {
            file: rule.source.clone(),
            rule: rule.id.clone(),
            message: "has expired and no longer applies; remove it or move its date".into(),
        });
    }
    for failure in check_examples(policy, |r| r.layer != Layer::Shipped && !r.expired()) {
        out.push(Finding {
            file: source(&failure.rule),
            rule: failure.rule.clone(),
            message: format!(
                "example `{}` {} (decided by: {})",
                failure.example,
                if failure.should_match {
                    "is not decided by this rule"
                } else {
                    "is decided by this rule, though listed under not_match"
                },
                if failure.decided_by.is_empty() {
                    "nothing".to_string()
                } else {
                    failure.decided_by.join(", ")
                }
            ),
        });
    }
    for (j, later) in personal.iter().enumerate() {
        if let Some(earlier) = personal[..j].iter().find(|a| covers(a, later)) {
            out.push(Finding {
                file: later.source.clone(),
                rule: later.id.clone(),
                message: format!(
                    "never reached: the earlier rule `{}` ({}) matches everything it matches, and the first match wins",
                    earlier.id, earlier.source
                ),
            });
        }
    }
    let mut evaluator = Evaluator::new(policy.clone(), examples_context());
    evaluator.budget = std::time::Duration::from_secs(5);
    for rule in personal.iter().filter(|r| r.decision == Decision::Allow) {
        for example in &rule.examples.matches {
            let ev = evaluator.evaluate(Request::shell(example.clone()));
            let v = &ev.effective().verdict;
            if v.decision == Decision::Deny && v.tier == Tier::Catastrophic {
                out.push(Finding {
                    file: rule.source.clone(),
                    rule: rule.id.clone(),
                    message: format!(
                        "allows `{example}`, which the catastrophic rule `{}` forbids: nothing overrides it, so this allow never applies there",
                        v.rule
                    ),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(text: &str) -> Policy {
        Policy::with_layers(&[(Layer::User, "mine.toml".into(), text.into())]).expect("loads")
    }

    #[test]
    fn regular_expressions_are_compared_conservatively() {
        assert!(pattern_covers("re:^a", "re:^a"));
        assert!(pattern_covers("*", "re:^a"));
        assert!(!pattern_covers("re*", "re:^a"), "a glob is not a regex");
        assert!(
            !pattern_covers("re:.*", "ls"),
            "no claim about a regex's reach"
        );
        assert!(pattern_covers("l*", "ls"));
        let p = policy(
            "[[rule]]\nid='a'\naction='ask'\nreason='r'\n[rule.match]\nargs=['re:^-f']\n[[rule]]\nid='b'\naction='allow'\nreason='r'\n[rule.match]\nargs=['re:^-f']\nnetwork=true\n[[rule]]\nid='c'\naction='allow'\nreason='r'\n[rule.match]\nargs=['re:^-g']\n",
        );
        let findings = lint(&p);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].rule, "b");
    }

    #[test]
    fn shadowed_and_unreachable_rules_are_found() {
        let p = policy(
            r#"
[[rule]]
id = "me.git"
action = "ask"
reason = "r"
[rule.match]
program = ["git"]

[[rule]]
id = "me.git-push"
action = "allow"
reason = "r"
[rule.match]
program = ["git"]
subcommand = ["push"]

[[rule]]
id = "me.all"
action = "ask"
reason = "r"
[rule.match]
program = ["*"]

[[rule]]
id = "me.ls"
action = "allow"
reason = "r"
[rule.match]
program = ["ls"]
"#,
        );
        let findings = lint(&p);
        let ids: Vec<&str> = findings.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(ids, vec!["me.git-push", "me.ls"], "{findings:?}");
        assert!(findings[0].message.contains("`me.git`"));
        assert!(findings[1].message.contains("`me.all`"));
    }

    #[test]
    fn an_allow_against_a_catastrophic_rule_and_failing_examples_are_found() {
        let p = policy(
            r#"
[[rule]]
id = "me.rm"
action = "allow"
reason = "r"
[rule.match]
program = ["rm"]
[rule.examples]
match = ["rm -rf ~", "rm -rf build"]
not_match = ["rm x"]
"#,
        );
        let findings = lint(&p);
        assert!(
            findings
                .iter()
                .any(|f| f.message.contains("catastrophic rule") && f.message.contains("rm -rf ~")),
            "{findings:?}"
        );
        assert!(
            findings.iter().any(|f| f.message.contains("`rm x`")),
            "{findings:?}"
        );
    }

    #[test]
    fn a_clean_file_has_no_findings() {
        let p = policy(
            r#"
[[rule]]
id = "me.topic"
action = "allow"
reason = "r"
[rule.match]
program = ["git"]
subcommand = ["branch"]
args = ["topic*"]
[rule.examples]
match = ["git branch -D topic1"]
not_match = ["git branch -D main"]
"#,
        );
        assert_eq!(lint(&p), Vec::new());
    }
}
