//! The decoders of what agents, their configuration files and proxied servers hand warden:
//! hook payloads (Claude Code, Gemini CLI), files `warden scan` reads (shell, Dockerfile,
//! Makefile, GitHub Actions), `config.toml`, the settings files `warden install` merges into,
//! a proxied MCP server's `tools/call` answer, and the argument paths of `when` rules. The first
//! byte picks the decoder. Nothing may panic, and each keeps its promise: a hook payload that
//! cannot be decided is refused, a configuration that parses has valid upstreams, a merge is
//! done once (the second changes nothing), a proxied answer's text all reaches the envelope,
//! which it cannot close early, and argument paths only find values that are in the call.
//! Seeds: `fuzz/seeds/agent_inputs` (`cargo +nightly fuzz run agent_inputs corpus/agent_inputs
//! seeds/agent_inputs`).
#![no_main]

use std::sync::{LazyLock, Mutex};

use libfuzzer_sys::fuzz_target;

static EVALUATOR: LazyLock<Mutex<warden::pipeline::Evaluator>> = LazyLock::new(|| {
    let dir = std::env::temp_dir().join(format!("warden-fuzz-agents-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("src")).expect("workspace");
    let ctx = warden::shell::Context {
        workspace: dir.clone(),
        cwd: dir.clone(),
        home: dir.with_extension("home"),
    };
    let policy = warden::policy::Policy::shipped().expect("policy");
    Mutex::new(warden::pipeline::Evaluator::new(policy, ctx))
});

fn hook(data: &[u8], gemini: bool) {
    let event = if gemini { "BeforeTool" } else { "PreToolUse" };
    let Ok(payload) = warden::hook::decode_event(data, event) else {
        return;
    };
    let mut evaluator = EVALUATOR.lock().unwrap_or_else(|e| e.into_inner());
    let answer = if gemini {
        warden::hook::decide_gemini(&mut evaluator, &payload, "/usr/bin/warden")
    } else {
        warden::hook::decide_claude_code(&mut evaluator, &payload, "/usr/bin/warden")
    };
    if let Some(answer) = answer {
        let shown = if gemini {
            answer.to_gemini()
        } else {
            answer.to_claude_code()
        };
        assert!(shown.is_object(), "{shown}");
    }
}

fn scan(text: &str) {
    use warden::scan::Kind;
    let lines = text.lines().count().max(1);
    for kind in [Kind::Shell, Kind::Dockerfile, Kind::Makefile, Kind::Actions] {
        for found in warden::scan::extract(kind, text) {
            assert!(found.line >= 1 && found.line <= lines + 1, "{kind:?}: line {}", found.line);
        }
    }
}

fn config(text: &str) {
    if let Ok(config) = warden::config::parse("fuzz.toml", text) {
        assert!(config.mcp.upstreams().is_ok());
        assert!(config.approval.expiry().is_ok());
    }
}

fn install(text: &str) {
    if let Ok(mut settings) = serde_json::from_str::<serde_json::Value>(text) {
        let mut twice = settings.clone();
        if warden::install::merge_claude_code(&mut settings, "warden hook claude-code") == Ok(true) {
            assert_eq!(
                warden::install::merge_claude_code(&mut settings, "warden hook claude-code"),
                Ok(false)
            );
        }
        if warden::install::merge_gemini(&mut twice, "warden hook gemini") == Ok(true) {
            assert_eq!(warden::install::merge_gemini(&mut twice, "warden hook gemini"), Ok(false));
        }
    }
    if let Ok(Some(appended)) = warden::install::append_codex(text, "/usr/bin/warden") {
        assert!(appended.starts_with(text));
        assert_eq!(warden::install::append_codex(&appended, "/usr/bin/warden"), Ok(None));
    }
}

fn proxied(data: &[u8]) {
    let Ok(result) = serde_json::from_slice::<rmcp::model::CallToolResult>(data) else {
        return;
    };
    let texts: Vec<String> = result
        .content
        .iter()
        .filter_map(|b| b.as_text().map(|t| t.text.clone()))
        .collect();
    let blocks = result.content.len();
    let taken = warden::mcp::proxied_of(result);
    // Every text block is passed on, every other block named.
    assert!(texts.iter().all(|t| taken.text.contains(t.as_str())));
    assert_eq!(taken.other.len(), blocks - texts.len());
    // Whatever the server wrote, the text form of the envelope has one closing marker: its own.
    let envelope = warden::envelope::wrap("up.tool", taken.text.as_bytes(), 4096, "");
    let shown = envelope.render();
    assert_eq!(
        shown.matches(warden::envelope::CLOSING_MARKER).count(),
        1,
        "{shown}"
    );
    assert!(shown.trim_end().ends_with(warden::envelope::CLOSING_MARKER));
    if let Some(mut structured) = taken.structured {
        // Redaction is idempotent: nothing it leaves is taken for another secret.
        warden::envelope::redact::redact_json(&mut structured);
        assert_eq!(warden::envelope::redact::redact_json(&mut structured), 0);
    }
}

fn when(data: &[u8]) {
    let Some(split) = data.iter().position(|b| *b == 0) else {
        return;
    };
    let path = String::from_utf8_lossy(&data[..split]);
    let Ok(args) = serde_json::from_slice::<serde_json::Value>(&data[split + 1..]) else {
        return;
    };
    fn nodes<'v>(value: &'v serde_json::Value, out: &mut Vec<*const serde_json::Value>) {
        out.push(value as *const _);
        match value {
            serde_json::Value::Array(items) => items.iter().for_each(|v| nodes(v, out)),
            serde_json::Value::Object(map) => map.values().for_each(|v| nodes(v, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    nodes(&args, &mut all);
    for value in warden::policy::rules::argument_values(&args, &path) {
        assert!(all.contains(&(value as *const _)), "a value not in the call");
        if let (Some(text), serde_json::Value::String(s)) =
            (warden::policy::rules::argument_text(value), value)
        {
            assert_eq!(&*text, s.as_str());
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    match which % 7 {
        0 => hook(rest, false),
        1 => hook(rest, true),
        2 => scan(&text),
        3 => config(&text),
        4 => install(&text),
        5 => proxied(rest),
        _ => when(rest),
    }
});
