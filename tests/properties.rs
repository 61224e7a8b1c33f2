//! Properties that must hold for any input: no panic, a decision in bounded time, fail-closed
//! findings, and data never read as a command.

mod common;

use std::time::{Duration, Instant};

use proptest::prelude::*;
use warden::pipeline::{Evaluator, Request};
use warden::policy::{Decision, Policy};

/// A safety bound, not a performance target (those live in benches/): even a debug build must
/// decide any input well within this.
const BOUND: Duration = Duration::from_secs(3);

fn evaluator(fixture: &common::Fixture) -> Evaluator {
    Evaluator::new(Policy::shipped().expect("shipped rules"), fixture.context())
}

/// Bash-flavoured text: fragments that exercise the grammar's corners, glued at random.
fn bashish() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("$(".to_string()),
        Just(")".to_string()),
        Just("`".to_string()),
        Just("'".to_string()),
        Just("\"".to_string()),
        Just("<<EOF\n".to_string()),
        Just("\nEOF\n".to_string()),
        Just("<(".to_string()),
        Just("${".to_string()),
        Just("}".to_string()),
        Just("{".to_string()),
        Just(" | ".to_string()),
        Just(" && ".to_string()),
        Just(";".to_string()),
        Just("&".to_string()),
        Just(" rm -rf ".to_string()),
        Just("bash -c ".to_string()),
        Just("eval ".to_string()),
        Just("sudo ".to_string()),
        Just("xargs ".to_string()),
        Just("~".to_string()),
        Just("*".to_string()),
        Just("\\".to_string()),
        Just("$'\\x".to_string()),
        Just("f(){ f|f& };f".to_string()),
        Just("{a,b,c}{1,2,3}".to_string()),
        Just("case x in x) ;; esac".to_string()),
        Just("for i in 1; do ".to_string()),
        Just(" done".to_string()),
        "[a-z./ ]{0,6}",
    ];
    prop::collection::vec(fragment, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn any_text_gets_a_decision_without_panicking(text in any::<String>()) {
        let fixture = common::Fixture::new();
        let mut e = evaluator(&fixture);
        let start = Instant::now();
        let ev = e.evaluate(Request::shell(text));
        prop_assert!(start.elapsed() < BOUND);
        // Whatever the decision, it names a rule, a reason and a hint.
        let v = &ev.effective().verdict;
        prop_assert!(!v.rule.is_empty() && !v.reason.is_empty() && !v.hint.is_empty());
    }

    #[test]
    fn bashish_text_is_decided_in_bounded_time_and_findings_never_allow(text in bashish()) {
        let fixture = common::Fixture::new();
        let mut e = evaluator(&fixture);
        let start = Instant::now();
        let ev = e.evaluate(Request::shell(text.clone()));
        prop_assert!(start.elapsed() < BOUND, "took {:?} on {:?}", start.elapsed(), text);
        if !ev.analysis.findings.is_empty() {
            prop_assert_ne!(ev.decision(), Decision::Allow, "a finding was allowed: {:?}", text);
        }
        // The same request decides the same way.
        let again = e.evaluate(Request::shell(text));
        prop_assert_eq!(again.decision(), ev.decision());
    }

    #[test]
    fn single_quoted_data_is_never_read_as_a_command(data in "[^'\\x00]{0,80}") {
        // Quoting does not stop a program from reading a leading `-` as an option (`grep '-r'`).
        prop_assume!(!data.starts_with('-'));
        let fixture = common::Fixture::new();
        let mut e = evaluator(&fixture);
        for template in ["git commit -m '{}'", "echo '{}'", "grep -n '{}' README.md", "printf '%s\\n' '{}'"] {
            let cmd = template.replace("{}", &data);
            let ev = e.evaluate(Request::shell(cmd.clone()));
            prop_assert_eq!(ev.decision(), Decision::Allow, "{} → {}", cmd, ev.effective().verdict.reason);
        }
    }

    #[test]
    fn arbitrary_argv_gets_a_decision_without_panicking(argv in prop::collection::vec(any::<String>(), 0..6)) {
        let fixture = common::Fixture::new();
        let mut e = evaluator(&fixture);
        let ev = e.evaluate(Request::Argv { argv });
        prop_assert!(!ev.effective().verdict.rule.is_empty());
    }
}

/// Inputs that hung or crashed other guards: each must be refused quickly, never run.
#[test]
fn pathological_inputs_are_refused_quickly() {
    let fixture = common::Fixture::new();
    let mut e = evaluator(&fixture);
    let cases: Vec<(&str, String)> = vec![
        ("90 bytes of nested $(", "$(".repeat(45)),
        ("10k nested $(", format!("{}x{}", "$(".repeat(10_000), ")".repeat(10_000))),
        ("deep parentheses", format!("{}true{}", "(".repeat(5_000), ")".repeat(5_000))),
        ("deep braces", format!("{}true;{}", "{ ".repeat(5_000), "} ".repeat(5_000))),
        ("nested backticks", "`".repeat(3_000)),
        ("nested bash -c", (0..12).fold("rm -rf /".to_string(), |acc, _| format!("bash -c {}", shlex::try_quote(&acc).expect("quotable")))),
        ("brace bomb", "rm -rf {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}".to_string()),
        ("over 1 MiB", "true;".repeat(220_000)),
    ];
    for (name, input) in cases {
        let start = Instant::now();
        let ev = e.evaluate(Request::shell(input));
        let took = start.elapsed();
        assert!(took < BOUND, "{name}: took {took:?}");
        assert_eq!(
            ev.decision(),
            Decision::Deny,
            "{name}: {}",
            ev.effective().verdict.reason
        );
    }
}

/// A long but ordinary script is not refused for its length alone (below the budget).
#[test]
fn long_ordinary_scripts_are_still_decided_on_their_content() {
    let fixture = common::Fixture::new();
    let mut e = evaluator(&fixture);
    e.budget = Duration::from_secs(10);
    let script = "echo building; cargo build\n".repeat(500);
    let ev = e.evaluate(Request::shell(script));
    assert_eq!(
        ev.decision(),
        Decision::Allow,
        "{}",
        ev.effective().verdict.reason
    );
    assert_eq!(ev.analysis.invocations.len(), 1000);
}

/// The analysis budget is enforced: a tiny budget turns a large input into an unverifiable deny.
#[test]
fn an_exhausted_budget_is_a_deny_not_a_wait() {
    let fixture = common::Fixture::new();
    let mut e = evaluator(&fixture);
    e.budget = Duration::from_micros(1);
    let ev = e.evaluate(Request::shell("echo a; ".repeat(50_000)));
    assert_eq!(ev.decision(), Decision::Deny);
    assert_eq!(ev.effective().verdict.tier.as_str(), "unverifiable");
    // The evaluator recovers: the next request is decided normally with a normal budget.
    e.budget = Duration::from_secs(10);
    assert_eq!(e.evaluate(Request::shell("ls")).decision(), Decision::Allow);
}

/// Regression: 32 nested `(` before `b[-` (36 bytes, found by fuzzing) sent the grammar crate into
/// exponential backtracking. Nesting beyond the paren limit is refused before parsing.
#[test]
fn nested_parentheses_cannot_make_the_parser_backtrack_exponentially() {
    let fixture = common::Fixture::new();
    let mut e = evaluator(&fixture);
    e.budget = Duration::from_secs(30);
    for input in [
        format!("{}b[-", "(".repeat(32)),
        "((a".repeat(14),
        "( ".repeat(40),
    ] {
        let start = Instant::now();
        let ev = e.evaluate(Request::shell(input.clone()));
        assert!(
            start.elapsed() < BOUND,
            "{input:?} took {:?}",
            start.elapsed()
        );
        assert_eq!(ev.decision(), Decision::Deny);
    }
}

/// Analyses abandoned at their budget keep running until they finish; an evaluator refuses new
/// work while too many are alive, and recovers once they end.
#[test]
fn abandoned_analyses_are_bounded_and_the_evaluator_recovers() {
    let fixture = common::Fixture::new();
    let mut e = evaluator(&fixture);
    e.budget = Duration::from_micros(1);
    let big = "echo a; ".repeat(60_000);
    for _ in 0..8 {
        assert_eq!(
            e.evaluate(Request::shell(big.clone())).decision(),
            Decision::Deny
        );
    }
    e.budget = Duration::from_secs(10);
    let start = Instant::now();
    loop {
        let ev = e.evaluate(Request::shell("ls"));
        if ev.decision() == Decision::Allow {
            break;
        }
        assert!(
            ev.effective().verdict.reason.contains("still running"),
            "{}",
            ev.effective().verdict.reason
        );
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the evaluator never recovered"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Regression: `~+{{{{…{c{xh,+` (29 bytes, found by fuzzing) made brace expansion backtrack
/// exponentially. Deeply nested braces make the word unknowable instead.
#[test]
fn nested_braces_cannot_make_brace_expansion_backtrack_exponentially() {
    let fixture = common::Fixture::new();
    let mut e = evaluator(&fixture);
    e.budget = Duration::from_secs(30);
    for input in [
        format!("~+{}c{{xh,+", "{".repeat(22)),
        format!("rm -rf {}a,b", "{".repeat(40)),
        format!("echo {}", "{a,".repeat(30)),
    ] {
        let start = Instant::now();
        let ev = e.evaluate(Request::shell(input.clone()));
        assert!(
            start.elapsed() < BOUND,
            "{input:?} took {:?}",
            start.elapsed()
        );
        assert!(!ev.effective().verdict.rule.is_empty());
    }
    // A sequence bound too long for an i64 made the grammar crate panic (found by fuzzing).
    let overflow = format!(
        ",00{{{}{{{}5{}.{{a",
        "0".repeat(24),
        "0".repeat(3),
        "0".repeat(30)
    );
    let ev = e.evaluate(Request::shell(overflow));
    assert!(
        !ev.analysis
            .findings
            .iter()
            .any(|f| f.detail.contains("grammar failed")),
        "{:?}",
        ev.analysis.findings
    );
    // Ordinary brace expansion still works and is judged per alternative.
    assert_eq!(
        e.evaluate(Request::shell("rm -rf build/{a,b}")).decision(),
        Decision::Allow
    );
    assert_eq!(
        e.evaluate(Request::shell("rm -rf {build,/}")).decision(),
        Decision::Deny
    );
}
