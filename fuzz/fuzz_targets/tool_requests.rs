//! The tool-call request decoder and argument checks: any bytes get one result document with
//! `ok` and, on failure, a known code; nothing panics. The server is read-only (the `readonly`
//! profile, and a rule that takes `bash` out of the snapshot), so no input can change anything.
//! Run it with `XDG_STATE_HOME` set to a scratch directory: each call is audited there.
#![no_main]

use std::sync::{LazyLock, Mutex};

use libfuzzer_sys::fuzz_target;

const CODES: &[&str] = &[
    "TOOL_UNAVAILABLE",
    "INVALID_ARGUMENTS",
    "PATH_REJECTED",
    "NOT_FOUND",
    "NOT_A_REGULAR_FILE",
    "HARDLINKED",
    "FILE_TOO_LARGE",
    "NOT_UTF8",
    "STALE_CONTEXT",
    "MALFORMED_PATCH",
    "CONCURRENT_MODIFICATION",
    "POLICY_DENIED",
    "APPROVAL_REQUIRED",
    "GUARDRAIL",
    "TIMEOUT",
    "IO_ERROR",
    "INTERNAL",
];

static SERVER: LazyLock<Mutex<warden::toolcall::Server>> = LazyLock::new(|| {
    let dir = std::env::temp_dir().join(format!("warden-fuzz-tools-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("src")).expect("workspace");
    std::fs::write(dir.join("src/a.txt"), "alpha\nbeta\n").expect("file");
    // The home is a scratch directory beside the workspace, never the real one.
    let state = dir.with_extension("state");
    std::fs::create_dir_all(&state).expect("state");
    let policy = warden::policy::Policy::with_layers(&[(
        warden::policy::Layer::User,
        "fuzz.toml".into(),
        "[[rule]]\nid='no-shell'\naction='deny'\nreason='r'\n[rule.match]\ntool=['bash']\n".into(),
    )])
    .expect("policy")
    .with_defaults(warden::policy::Profile::Readonly, Default::default());
    let ctx = warden::shell::Context {
        workspace: dir.clone(),
        cwd: dir.clone(),
        home: state.clone(),
    };
    let evaluator = warden::pipeline::Evaluator::new(policy, ctx);
    let settings = warden::toolcall::Settings {
        session: Some("fuzz".into()),
        non_interactive: true,
        result_budget: 4096,
        session_budget: 1 << 20,
        ..Default::default()
    };
    Mutex::new(warden::toolcall::Server::new(evaluator, settings).expect("server"))
});

fuzz_target!(|data: &[u8]| {
    let mut server = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let result = server.handle(data);
    match result["ok"].as_bool() {
        Some(true) => assert!(result["result"].is_object()),
        Some(false) => {
            let code = result["error"]["code"].as_str().expect("a code");
            assert!(CODES.contains(&code), "unknown code {code}");
        }
        None => panic!("no ok field: {result}"),
    }
});
