//! What people and programs read back: decision lines, JSON records, explanations.
//!
//! Invariant: every refusal names its tier, its reason and a hint, in one line
//! (`[tier] blocked: reason — hint`), and the JSON forms carry the same fields.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::pipeline::Evaluation;
use crate::policy::{Decided, Decision, Policy};

/// The one-line rendering of a decision.
pub fn line(decided: &Decided) -> String {
    let v = &decided.verdict;
    match v.decision {
        Decision::Deny => format!("[{}] blocked: {} — {}", v.tier.as_str(), v.reason, v.hint),
        Decision::Ask => format!(
            "[{}] needs approval: {} — {}",
            v.tier.as_str(),
            v.reason,
            v.hint
        ),
        Decision::Allow => format!("[{}] allowed: {}", v.tier.as_str(), v.reason),
    }
}

/// A decision line as a person at a terminal sees it: red for a refusal, yellow for a
/// question, when stderr is a terminal, `TERM` is not `dumb` and `NO_COLOR` is unset or empty.
pub fn painted(line: &str, decision: Decision) -> String {
    use std::io::IsTerminal;
    let wanted = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::env::var_os("TERM").is_none_or(|t| t != "dumb");
    paint(line, decision, wanted)
}

fn paint(line: &str, decision: Decision, colour: bool) -> String {
    let code = match decision {
        Decision::Deny => "1;31",
        Decision::Ask => "1;33",
        Decision::Allow => return line.to_string(),
    };
    if colour {
        format!("\x1b[{code}m{line}\x1b[0m")
    } else {
        line.to_string()
    }
}

/// The JSON record of an evaluation (`check --json`, `check --batch`).
pub fn record(ev: &Evaluation) -> Value {
    let d = ev.effective();
    let v = &d.verdict;
    let rewrite = ev.remediation.as_ref().map(|r| {
        json!({
            "disclosure": r.disclosure,
            "steps": r.steps,
            "decision": r.decided.verdict.decision.as_str(),
        })
    });
    json!({
        "command": ev.request.text(),
        "decision": v.decision.as_str(),
        "tier": v.tier.as_str(),
        "rule": v.rule,
        "reason": v.reason,
        "hint": v.hint,
        "message": line(d),
        "rewrite": rewrite,
    })
}

/// A record for input that never reached the pipeline (undecodable bytes in batch mode).
pub fn refusal_record(command: &str, rule: &str, reason: &str, hint: &str) -> Value {
    json!({
        "command": command,
        "decision": "deny",
        "tier": "unverifiable",
        "rule": rule,
        "reason": reason,
        "hint": hint,
        "message": format!("[unverifiable] blocked: {reason} — {hint}"),
        "rewrite": null,
    })
}

/// The full explanation as JSON (`explain --json`).
pub fn explain_json(ev: &Evaluation) -> Value {
    let invocations: Vec<Value> = ev
        .analysis
        .invocations
        .iter()
        .map(|inv| {
            json!({
                "command": inv.display(),
                "program": inv.program(),
                "via": inv.via,
                "privileged": inv.privileged,
                "cwd": inv.cwd,
                "depth": inv.depth,
                "args_from_input": inv.args_from_input,
            })
        })
        .collect();
    let mut out = record(ev);
    out["findings"] = json!(ev.analysis.findings);
    out["invocations"] = json!(invocations);
    out["operations"] = json!(ev.operations);
    out["trace"] = json!(ev.decided.trace);
    if let Some(r) = &ev.remediation {
        out["rewrite"]["trace"] = json!(r.decided.trace);
    }
    out
}

/// The full explanation for people (`explain`).
pub fn explain_text(ev: &Evaluation, policy: Option<&Policy>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "request: {}", ev.request.text());
    let _ = writeln!(
        out,
        "\nparsed into {} simple command(s):",
        ev.analysis.invocations.len()
    );
    for (i, inv) in ev.analysis.invocations.iter().enumerate() {
        let mut notes = Vec::new();
        if !inv.via.is_empty() {
            notes.push(format!("via {}", inv.via.join(" → ")));
        }
        if inv.privileged {
            notes.push("as another user".into());
        }
        if inv.depth > 0 {
            notes.push(format!("code-as-data depth {}", inv.depth));
        }
        if inv.args_from_input {
            notes.push("arguments from input".into());
        }
        match &inv.cwd {
            Some(cwd) => notes.push(format!("cwd {}", cwd.display())),
            None => notes.push("cwd unknown".into()),
        }
        let _ = writeln!(
            out,
            "  {}. {}   ({})",
            i + 1,
            inv.display(),
            notes.join("; ")
        );
    }
    if !ev.analysis.findings.is_empty() {
        let _ = writeln!(out, "\nfindings:");
        for f in &ev.analysis.findings {
            let _ = writeln!(out, "  - {}: {}", f.kind.fact(), f.detail);
        }
    }
    let _ = writeln!(out, "\noperations:");
    for (i, op) in ev.operations.iter().enumerate() {
        let sub = op
            .subcommand
            .as_deref()
            .map(|s| format!(" {s}"))
            .unwrap_or_default();
        let remote = op
            .remote
            .as_deref()
            .map(|r| format!(", reaches {r}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {}. {}{} [{}{}]",
            i + 1,
            op.program,
            sub,
            op.effect.as_str(),
            remote
        );
        for t in &op.targets {
            let path = t
                .resolved
                .path
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "(computed at run time)".into());
            let _ = writeln!(
                out,
                "       target {:?} {} → {} ({:?})",
                t.role, t.resolved.written, path, t.resolved.place
            );
        }
        for f in &op.facts {
            let _ = writeln!(out, "       fact {}: {}", f.name, f.detail);
        }
    }
    let _ = writeln!(
        out,
        "\nrules matched (shipped: first match per fact, then per operation; your layers: first match):"
    );
    if ev.decided.trace.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for v in &ev.decided.trace {
        let on = v
            .fact
            .as_deref()
            .map(|f| format!("fact {f}"))
            .unwrap_or_else(|| "operation".into());
        let at = policy
            .and_then(|p| p.rules.iter().find(|r| r.id == v.rule))
            .map(|r| format!(", {}", r.location()))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  op {} {} → {} ({} {}, {} layer{at})",
            v.operation + 1,
            on,
            v.rule,
            v.tier.as_str(),
            v.decision.as_str(),
            v.layer.as_str()
        );
    }
    if let Some(r) = &ev.remediation {
        let _ = writeln!(out, "\n{}", r.disclosure);
        let _ = writeln!(out, "  rewrite decided again: {}", line(&r.decided));
    }
    let _ = writeln!(
        out,
        "\ndecision (the strictest operation; your admin and user rules decide their operation unless a catastrophic rule matched): {}",
        line(ev.effective())
    );
    out
}

/// `policy list`.
pub fn rule_list(policy: &Policy) -> String {
    let mut out = String::new();
    for r in &policy.rules {
        let _ = writeln!(
            out,
            "{:<38} {:<13} {:<6} {:<9} {}",
            r.id,
            r.tier.as_str(),
            r.decision.as_str(),
            r.layer.as_str(),
            r.location()
        );
    }
    out
}

/// `policy show [ID]`.
pub fn rule_show(rule: &crate::policy::Rule) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "id:       {}", rule.id);
    let _ = writeln!(out, "layer:    {}", rule.layer.as_str());
    let _ = writeln!(out, "source:   {}", rule.location());
    let _ = writeln!(out, "tier:     {}", rule.tier.as_str());
    let _ = writeln!(out, "decision: {}", rule.decision.as_str());
    let _ = writeln!(out, "reason:   {}", rule.reason);
    let _ = writeln!(out, "hint:     {}", rule.hint);
    let c = &rule.conditions;
    let mut conds = Vec::new();
    for (name, list) in [
        ("tool", &c.tool),
        ("fact", &c.fact),
        ("program", &c.program),
        ("subcommand", &c.subcommand),
    ] {
        if !list.is_empty() {
            conds.push(format!("{name} ∈ {list:?}"));
        }
    }
    if !c.effect.is_empty() {
        let effects: Vec<&str> = c.effect.iter().map(|e| e.as_str()).collect();
        conds.push(format!("effect ∈ {effects:?}"));
    }
    if !c.args.is_empty() {
        conds.push(format!("an argument ∈ {:?}", c.args));
    }
    if !c.path.is_empty() {
        conds.push(format!("a target path ∈ {:?}", c.path));
    }
    if let Some(network) = c.network {
        conds.push(if network {
            "with the host network".to_string()
        } else {
            "without the host network".to_string()
        });
    }
    let _ = writeln!(out, "match:    {}", conds.join(" and "));
    if let Some(expires) = rule.expires {
        let _ = writeln!(
            out,
            "expires:  {}{}",
            crate::audit::utc(expires),
            if rule.expired() { " (expired)" } else { "" }
        );
    }
    for m in &rule.examples.matches {
        let _ = writeln!(out, "  matches:     {m}");
    }
    for m in &rule.examples.not_match {
        let _ = writeln!(out, "  not_match:   {m}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_and_questions_are_coloured_only_when_wanted() {
        assert_eq!(paint("x", Decision::Deny, true), "\x1b[1;31mx\x1b[0m");
        assert_eq!(paint("x", Decision::Ask, true), "\x1b[1;33mx\x1b[0m");
        assert_eq!(paint("x", Decision::Allow, true), "x");
        assert_eq!(paint("x", Decision::Deny, false), "x");
    }
}
