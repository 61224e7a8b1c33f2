//! Decoders of text warden reads outside the command line: the inner stage's arguments, the
//! placeholder record, `/proc/self/mounts`, the `[user]` section of a git configuration file,
//! the user configuration, and the audit log's redaction of requests.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let args: Vec<String> = text.split('\0').map(str::to_string).collect();
    if let Ok((policy, argv)) = warden::sandbox::inner::InnerPolicy::parse(&args) {
        assert!(argv.len() < args.len());
        assert!(policy.ready_fd.is_none_or(|fd| fd > 2));
        assert!(policy.max_tasks.is_none_or(|n| n > 300));
    }
    for (path, _, _) in warden::sandbox::placeholders::parse_record(text) {
        assert!(path.is_absolute());
    }
    let _ = warden::sandbox::cgroup::find_hierarchy(text);
    let redacted = warden::audit::redact(text);
    assert!(redacted.len() <= text.len() + 16 * text.split_whitespace().count() + 16);
    let _ = warden::config::parse("fuzz.toml", text);
    for (key, value) in warden::sandbox::spec::git_identity(text) {
        assert!(key == "name" || key == "email");
        assert!(!value.is_empty() && !value.chars().any(|c| c.is_control()));
    }
});
