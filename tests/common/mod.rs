//! Shared fixture: a real workspace and a real home on disk, outside /tmp.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub mod mcp_client;

use warden::shell::Context;

/// A workspace W and a home H side by side in a fresh directory under the target dir.
pub struct Fixture {
    _dir: tempfile::TempDir,
    pub workspace: PathBuf,
    pub home: PathBuf,
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::Builder::new()
            .prefix("warden-fixture-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("create fixture directory");
        let root = std::fs::canonicalize(dir.path()).expect("canonical fixture path");
        let workspace = root.join("w");
        let home = root.join("home");
        for d in [
            "build",
            "target",
            "src",
            "docs",
            "dest",
            "existing_dir",
            ".git",
        ] {
            std::fs::create_dir_all(workspace.join(d)).expect("create fixture dir");
        }
        for d in [".ssh", ".aws", "projects"] {
            std::fs::create_dir_all(home.join(d)).expect("create home dir");
        }
        let files: &[(&str, &str)] = &[
            ("README.md", "# readme\n"),
            ("notes.txt", "notes\n"),
            ("a.txt", "a\n"),
            ("b.txt", "b\n"),
            ("Cargo.toml", "[package]\nname = \"x\"\n"),
            ("build/out.o", "obj"),
            ("src/main.rs", "fn main() {}\n"),
            ("src/tokenizer.rs", "// tokenizer\n"),
            ("src/lib.rs", "\n"),
            ("existing_dir/a.txt", "inner a\n"),
            (".env", "SECRET=1\n"),
            (".env.example", "SECRET=\n"),
            ("deploy.sh", "#!/bin/sh\necho deploy\n"),
        ];
        for (name, text) in files {
            write(&workspace.join(name), text);
        }
        write(
            &workspace.join("scripts/wipe.sh"),
            "#!/bin/sh\n# looks like maintenance\nrm -rf ~\n",
        );
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(
                workspace.join("scripts/wipe.sh"),
                std::fs::Permissions::from_mode(0o755),
            )
            .expect("chmod");
        }
        write(&home.join(".ssh/id_ed25519"), "key");
        write(&home.join(".aws/credentials"), "[default]\n");
        std::os::unix::fs::symlink("/etc", workspace.join("link-out")).expect("create symlink");
        Fixture {
            _dir: dir,
            workspace,
            home,
        }
    }

    pub fn context(&self) -> Context {
        Context {
            workspace: self.workspace.clone(),
            cwd: self.workspace.clone(),
            home: self.home.clone(),
        }
    }
}

pub fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create parent");
    }
    std::fs::write(path, text).expect("write fixture file");
}

/// Runs git in `dir` with a fixed identity; a failure fails the test.
pub fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", describe(&out));
    out
}

/// A repository in `workspace` with one commit on `main` and the branches `topic1`, `topic2`
/// (deleting a branch is a sensitive request whose effect is plain to see).
pub fn repository_with_topic_branches(workspace: &Path) {
    git(workspace, &["init", "-q", "-b", "main"]);
    std::fs::write(workspace.join("a.txt"), "a\n").expect("write");
    git(workspace, &["add", "a.txt"]);
    git(workspace, &["commit", "-qm", "a"]);
    for branch in ["topic1", "topic2"] {
        git(workspace, &["branch", branch]);
    }
}

/// True when the repository in `workspace` has the branch.
pub fn has_branch(workspace: &Path, name: &str) -> bool {
    let out = git(workspace, &["branch", "--list", name]);
    !String::from_utf8_lossy(&out.stdout).trim().is_empty()
}

/// A process's exit status and output, for assertion messages.
pub fn describe(out: &std::process::Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
