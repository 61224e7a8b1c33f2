//! The whole decision pipeline (parse, classify, decide, remediate) on any text or argv.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::Mutex;
use warden::pipeline::{Evaluator, Request, examples_context};
use warden::policy::{Decision, Policy};

static EVALUATOR: Mutex<Option<Evaluator>> = Mutex::new(None);

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut guard = EVALUATOR.lock().unwrap_or_else(|e| e.into_inner());
    let evaluator = guard.get_or_insert_with(|| Evaluator::new(Policy::shipped().expect("shipped rules"), examples_context()));
    // Half the inputs as bash text, half as an argv split on NUL.
    let request = if data.first().is_some_and(|b| b % 2 == 0) {
        Request::shell(text)
    } else {
        Request::Argv { argv: text.split('\0').map(str::to_string).collect() }
    };
    let ev = evaluator.evaluate(request);
    // Fail closed: anything the shell stage could not verify is never allowed.
    if !ev.analysis.findings.is_empty() {
        assert_ne!(ev.decision(), Decision::Allow);
    }
});
