//! The tool-call request decoder and argument checks: any bytes get one result document with
//! `ok` and, on failure, a known code; nothing panics. The server cannot change anything: a
//! rule takes `bash` out of the snapshot, and another denies every write after its arguments
//! are decoded and checked (so the write and edit decoders are fuzzed too). Seeds:
//! `fuzz/seeds/tool_requests` (`cargo +nightly fuzz run tool_requests corpus/tool_requests
//! seeds/tool_requests`).
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
    let dir = WORKSPACE.clone();
    std::fs::create_dir_all(dir.join("src")).expect("workspace");
    std::fs::write(dir.join("src/a.txt"), "alpha\nbeta\n").expect("file");
    // The home is a scratch directory beside the workspace, never the real one.
    let state = dir.with_extension("state");
    std::fs::create_dir_all(&state).expect("state");
    let policy = warden::policy::Policy::with_layers(&[(
        warden::policy::Layer::User,
        "fuzz.toml".into(),
        "[[rule]]\nid='no-shell'\naction='deny'\nreason='r'\n[rule.match]\ntool=['bash']\n\
         [[rule]]\nid='no-writes'\naction='deny'\nreason='r'\n[rule.match]\ntool=['write_file', 'edit_file']\neffect=['write']\n"
            .into(),
    )])
    .expect("policy");
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

static WORKSPACE: LazyLock<std::path::PathBuf> = LazyLock::new(|| {
    std::env::temp_dir().join(format!("warden-fuzz-tools-{}", std::process::id()))
});

fuzz_target!(|data: &[u8]| {
    let mut server = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let result = server.handle(data);
    // Nothing changed in the workspace.
    let names: Vec<_> = std::fs::read_dir(&*WORKSPACE)
        .expect("workspace")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["src"], "{result}");
    assert_eq!(
        std::fs::read_to_string(WORKSPACE.join("src/a.txt")).expect("file"),
        "alpha\nbeta\n",
        "{result}"
    );
    match result["ok"].as_bool() {
        Some(true) => assert!(result["result"].is_object()),
        Some(false) => {
            let code = result["error"]["code"].as_str().expect("a code");
            assert!(CODES.contains(&code), "unknown code {code}");
        }
        None => panic!("no ok field: {result}"),
    }
});
