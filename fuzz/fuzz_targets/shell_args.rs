//! The shell-form argv grammar (`warden [OPTIONS] -c STRING …`): any argv parses or errors.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

fuzz_target!(|data: &[u8]| {
    let args: Vec<OsString> = data.split(|b| *b == 0).map(|a| OsString::from_vec(a.to_vec())).collect();
    let _ = warden::cli::is_tool_form(&args);
    if let Ok(parsed) = warden::cli::parse_shell(&args) {
        // A command string, when present, is exactly one of the given arguments.
        if let Some(c) = parsed.command {
            assert!(args.contains(&c));
        }
    }
});
