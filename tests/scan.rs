//! `warden scan` on fixture files: shell scripts, a Dockerfile, a Makefile and a GitHub Actions
//! workflow, reported as text, JSON lines and SARIF (compared with a committed snapshot;
//! `WARDEN_REGENERATE=1` rewrites it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

use common::describe;

const FILES: &[&str] = &[
    "install.sh",
    "Dockerfile",
    "Makefile",
    ".github/workflows/ci.yml",
];

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scan")
}

/// A workspace holding a copy of the fixtures (so their relative paths resolve inside it).
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("warden-scan-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("tempdir");
    for file in FILES {
        let to = dir.path().join(file);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(fixtures().join(file), &to).expect("copy");
    }
    dir
}

fn scan(ws: &Path, extra: &[&str]) -> Output {
    let home = ws.join("home");
    std::fs::create_dir_all(&home).expect("home");
    Command::new(env!("CARGO_BIN_EXE_warden"))
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", &home)
        .arg("--workspace")
        .arg(ws)
        .arg("scan")
        .args(extra)
        .args(FILES)
        .current_dir(ws)
        .output()
        .expect("run warden")
}

#[test]
fn every_kind_of_file_is_scanned_and_a_denial_fails_the_scan() {
    let ws = workspace();
    let out = scan(ws.path(), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    for expected in [
        "install.sh:8: [sensitive] needs approval: downloaded code would run unread",
        "Dockerfile:5: [catastrophic] blocked: `rm -rf / --no-preserve-root`",
        "Makefile:7: [catastrophic] blocked: `git push --force origin main`",
        ".github/workflows/ci.yml:11: [secret] blocked: `cat ~/.ssh/id_rsa`",
        "Makefile:4: [ordinary] allowed",
    ] {
        assert!(text.contains(expected), "{expected}\n{text}");
    }
    let out = scan(ws.path(), &["--format", "json"]);
    let records: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(records.len(), 12, "{}", describe(&out));
    assert!(
        records
            .iter()
            .all(|r| r["file"].is_string() && r["line"].is_number())
    );
    assert_eq!(records[4]["kind"], "dockerfile");
}

#[test]
fn sarif_matches_its_snapshot() {
    let ws = workspace();
    let out = scan(ws.path(), &["--format", "sarif"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).expect("SARIF is JSON");
    assert_eq!(got["version"], "2.1.0");
    let results = got["runs"][0]["results"].as_array().expect("results");
    assert!(
        results
            .iter()
            .all(|r| r["level"] == "error" || r["level"] == "warning")
    );
    let snapshot = fixtures().join("expected.sarif");
    let rendered = serde_json::to_string_pretty(&got).expect("render") + "\n";
    if std::env::var_os("WARDEN_REGENERATE").is_some_and(|v| v == "1") {
        std::fs::write(&snapshot, &rendered).expect("write snapshot");
    }
    let expected =
        std::fs::read_to_string(&snapshot).expect("snapshot (WARDEN_REGENERATE=1 writes it)");
    assert_eq!(
        rendered, expected,
        "the SARIF changed; if that is right, refresh with WARDEN_REGENERATE=1 cargo test --test scan"
    );
}
