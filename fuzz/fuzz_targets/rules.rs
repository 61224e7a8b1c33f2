//! The rule-file decoder: any text is either a valid rule set or a typed error naming the file;
//! a valid personal file, loaded as the user layer, decides any command without a panic, and
//! never allows what a catastrophic rule forbids.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warden::policy::{Decision, Layer, Policy, Tier};

fuzz_target!(|text: &str| {
    if let Err(e) = warden::policy::rules::parse_file("fuzz.toml", text) {
        assert!(e.to_string().starts_with("fuzz.toml"));
    }
    let Ok(policy) = Policy::with_layers(&[(Layer::User, "fuzz.toml".into(), text.into())]) else {
        return;
    };
    let ctx = warden::pipeline::examples_context();
    let mut evaluator = warden::pipeline::Evaluator::new(policy, ctx);
    for command in ["rm -rf ~", "git push origin main", "ls -la", "cat .env", "touch a/../b"] {
        let ev = evaluator.evaluate(warden::pipeline::Request::shell(command));
        if command == "rm -rf ~" {
            let v = &ev.effective().verdict;
            assert!(v.decision == Decision::Deny && v.tier == Tier::Catastrophic);
        }
    }
    let _ = warden::lint::lint(&evaluator.policy);
});
