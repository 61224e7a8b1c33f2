//! The rule-file decoder: any text is either a valid rule set or a typed error naming the file.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Err(e) = warden::policy::rules::parse_file("fuzz.toml", text) {
        assert!(e.to_string().starts_with("fuzz.toml"));
    }
});
