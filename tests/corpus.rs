//! The decision corpus: every case in tests/corpus/*.toml is decided against a real fixture
//! workspace and must get its expected decision (and tier, where the case names one).

mod common;

use std::time::Duration;

use serde::Deserialize;
use warden::pipeline::{Evaluator, Request};
use warden::policy::Policy;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CorpusFile {
    case: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    cmd: String,
    expect: String,
    tier: Option<String>,
    why: String,
}

fn load() -> Vec<(String, Case)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("corpus dir")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    let mut cases = Vec::new();
    for path in entries
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
    {
        let text = std::fs::read_to_string(&path).expect("read corpus file");
        let file: CorpusFile =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        cases.extend(file.case.into_iter().map(|c| (name.clone(), c)));
    }
    cases
}

#[test]
fn every_corpus_case_gets_its_expected_decision() {
    let fixture = common::Fixture::new();
    let mut evaluator = Evaluator::new(
        Policy::shipped().expect("shipped rules load"),
        fixture.context(),
    );
    // Timing is measured by the benchmark; here a slow debug build must not change decisions.
    evaluator.budget = Duration::from_secs(10);
    let cases = load();
    assert!(
        cases.len() >= 400,
        "the corpus holds {} cases; it must hold at least 400",
        cases.len()
    );
    let mut failures = Vec::new();
    for (file, case) in &cases {
        assert!(
            matches!(case.expect.as_str(), "allow" | "ask" | "deny"),
            "{file}: bad expect `{}`",
            case.expect
        );
        let ev = evaluator.evaluate(Request::shell(case.cmd.clone()));
        let v = &ev.effective().verdict;
        let decision_ok = v.decision.as_str() == case.expect;
        let tier_ok = case.tier.as_deref().is_none_or(|t| t == v.tier.as_str());
        if !(decision_ok && tier_ok) {
            failures.push(format!(
                "{file}: `{}`\n    expected {} {}, got {} {} by {} ({})\n    why: {}",
                case.cmd,
                case.expect,
                case.tier.as_deref().unwrap_or(""),
                v.decision.as_str(),
                v.tier.as_str(),
                v.rule,
                v.reason,
                case.why
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn every_shipped_rule_example_behaves_as_declared() {
    let policy = Policy::shipped().expect("shipped rules load");
    let examples: usize = policy
        .rules
        .iter()
        .map(|r| r.examples.matches.len() + r.examples.not_match.len())
        .sum();
    assert!(examples > 100, "only {examples} rule examples");
    let failures = warden::pipeline::check_examples(&policy, |_| true);
    let text: Vec<String> = failures.iter().map(|f| f.to_string()).collect();
    assert!(failures.is_empty(), "{}", text.join("\n"));
}
