//! The shell stage alone: any UTF-8 text must come back as an analysis, never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use warden::shell::{Context, analyze};

fuzz_target!(|text: &str| {
    let ctx = Context {
        workspace: PathBuf::from("/nonexistent/fuzz/workspace"),
        cwd: PathBuf::from("/nonexistent/fuzz/workspace"),
        home: PathBuf::from("/nonexistent/fuzz/home"),
    };
    let analysis = analyze(text, &ctx);
    // Every finding names what it is.
    assert!(analysis.findings.iter().all(|f| !f.detail.is_empty()));
});
