//! Inputs of a sandbox that come from the host: the environment allow-list, the protected paths
//! of the workspace and the toolchains installed under the home.
//!
//! Invariants: the command's environment is built from nothing, never by filtering out a few
//! names; variables that change what programs load or run, and anything that looks like a
//! credential, never pass, even when configured.

use std::path::{Path, PathBuf};

use super::bwrap::{Guard, InnerPath};
use crate::classify::secrets;

/// Variables passed through when the host has them.
pub const PASSED: &[&str] = &[
    "PATH",
    "LANG",
    "LANGUAGE",
    "TERM",
    "TZ",
    "USER",
    "LOGNAME",
    "COLORTERM",
    "NO_COLOR",
];

/// Names that never pass, whatever the configuration says: variables that change what programs
/// load or run (the list the classifier judges, except `PATH`, which the sandbox needs), a few
/// the sandbox sets itself, and anything that looks like a credential.
fn forbidden(name: &str) -> bool {
    const SANDBOX_OWNED: &[&str] = &["HOME", "TMPDIR", "CDPATH", "GLOBIGNORE", "SSH_AUTH_SOCK"];
    const CREDENTIAL_PREFIXES: &[&str] = &["AWS_", "AZURE_", "GOOGLE_", "GCP_", "DOCKER_", "KUBE"];
    const CREDENTIAL_WORDS: &[&str] = &[
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "API_KEY",
        "APIKEY",
        "PRIVATE_KEY",
        "CREDENTIAL",
        "AUTH",
        "SESSION",
    ];
    let upper = name.to_ascii_uppercase();
    (upper != "PATH" && crate::classify::dangerous_var(&upper))
        || SANDBOX_OWNED.contains(&upper.as_str())
        || CREDENTIAL_PREFIXES.iter().any(|p| upper.starts_with(p))
        || CREDENTIAL_WORDS.iter().any(|w| upper.contains(w))
}

/// Whether a variable a person named for a proxied MCP server may reach it although it looks
/// like a credential (the server needs its token): never a loader or shell hook (`LD_PRELOAD`,
/// `BASH_ENV`, …) nor a variable the sandbox sets itself.
pub fn named_credential_may_pass(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    forbidden(name)
        && !crate::classify::dangerous_var(&upper)
        && !["HOME", "TMPDIR", "CDPATH", "GLOBIGNORE", "SSH_AUTH_SOCK"].contains(&upper.as_str())
}

/// The command's whole environment: the allow-list and configured names from the host (never a
/// forbidden one), plus `HOME` and `TMPDIR` pointing inside the sandbox.
pub fn environment<I>(host: I, configured: &[String], home: &Path) -> Vec<(String, String)>
where
    I: IntoIterator<Item = (String, String)>,
{
    let mut env: Vec<(String, String)> = host
        .into_iter()
        .filter(|(name, _)| {
            let allowed = PASSED.contains(&name.as_str())
                || name.starts_with("LC_")
                || configured.iter().any(|c| c == name);
            allowed && !forbidden(name)
        })
        .collect();
    env.sort();
    env.dedup_by(|a, b| a.0 == b.0);
    if !env.iter().any(|(n, _)| n == "PATH") {
        env.push(("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()));
    }
    env.push(("HOME".into(), home.to_string_lossy().into_owned()));
    env.push(("TMPDIR".into(), "/tmp".into()));
    env
}

/// Toolchains installed under the real home (`~/.cargo/bin`, `~/.pyenv/shims`, `~/.local/bin`
/// on `PATH`): the home stays invisible, but these trees are bound read-only at their real paths,
/// with credential files inside them masked, and the variables that locate them are set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HomeToolchains {
    /// Trees to bind read-only.
    pub trees: Vec<PathBuf>,
    /// Credential files inside those trees, to hide.
    pub masked: Vec<InnerPath>,
    /// Variables pointing at the trees (`CARGO_HOME`, `RUSTUP_HOME`, …).
    pub env: Vec<(String, String)>,
}

/// Finds the toolchains that `path` (a `PATH` value) reaches under `home`.
pub fn home_toolchains(path: &str, home: &Path) -> HomeToolchains {
    let mut out = HomeToolchains::default();
    if home.as_os_str().is_empty() || home == Path::new("/") {
        return out;
    }
    let add = |tree: PathBuf, out: &mut HomeToolchains| {
        if tree.is_dir()
            && !out.trees.contains(&tree)
            && secrets::secret_kind(&tree.to_string_lossy()).is_none()
        {
            out.trees.push(tree);
        }
    };
    for dir in std::env::split_paths(path) {
        let Ok(rest) = dir.strip_prefix(home) else {
            continue;
        };
        let Some(top) = rest
            .components()
            .next()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
        else {
            continue;
        };
        match top.as_str() {
            // ~/.local holds keyrings and application data: only its bin directory.
            ".local" | ".config" => add(dir.clone(), &mut out),
            ".cargo" => {
                add(home.join(".cargo"), &mut out);
                add(home.join(".rustup"), &mut out);
            }
            name if name.starts_with('.') => add(home.join(name), &mut out),
            _ => add(dir.clone(), &mut out),
        }
    }
    for (var, dir) in [
        ("CARGO_HOME", ".cargo"),
        ("RUSTUP_HOME", ".rustup"),
        ("PYENV_ROOT", ".pyenv"),
        ("NVM_DIR", ".nvm"),
    ] {
        let tree = home.join(dir);
        if out.trees.contains(&tree) {
            out.env
                .push((var.to_string(), tree.to_string_lossy().into_owned()));
        }
    }
    for tree in &out.trees {
        for name in [
            "credentials",
            "credentials.toml",
            ".credentials.toml",
            ".npmrc",
            ".pypirc",
        ] {
            let file = tree.join(name);
            if file.is_file() {
                out.masked.push(InnerPath {
                    path: file,
                    dir: false,
                });
            }
        }
    }
    out
}

/// Names inside a repository's `.git` directory through which a sandboxed command could make
/// the host's git run its code (hooks; `core.hooksPath`, `core.fsmonitor` and aliases in the
/// config), and whether each is a directory.
pub const GIT_GUARDED: &[(&str, bool)] = &[("hooks", true), ("config", false)];

/// Names at the workspace root that host tools read or run on their own (direnv, editors, git
/// submodules), and whether each is a directory.
pub const ROOT_GUARDED: &[(&str, bool)] = &[
    (".gitmodules", false),
    (".envrc", false),
    (".vscode", true),
    (".idea", true),
];

/// Shell start-up files: guarded where they exist, and also where absent when the workspace is
/// the user's home (the only place where the host's shells would run them).
pub const SHELL_RC: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
];

/// How the workspace is guarded against planting code for the host.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Protection {
    /// Mounts over workspace paths, in order.
    pub guards: Vec<Guard>,
    /// Guarded paths that are absent: warden creates an empty file or directory there for the
    /// run (the mount needs a mount point) and removes it afterwards.
    pub placeholders: Vec<InnerPath>,
    /// The workspace has no repository: one the command creates is its own, hooks included.
    pub repository_absent: bool,
}

enum Kind {
    Dir,
    File,
    Missing,
}

/// What `path` is, without following a symbolic link; a link is an error naming it.
fn kind(path: &Path) -> Result<Kind, PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(path.to_path_buf()),
        Ok(m) if m.is_dir() => Ok(Kind::Dir),
        Ok(_) => Ok(Kind::File),
        Err(_) => Ok(Kind::Missing),
    }
}

/// The guards for `workspace` when the command starts in `cwd`: warden's own `.warden`
/// read-only (its `home` writable again); each repository's `.git` directory pinned (bound over
/// itself, so it cannot be renamed away and replaced) with its hooks and config read-only, for
/// the workspace and every directory between it and `cwd`; a `.git` file (pointing elsewhere)
/// read-only; the [`ROOT_GUARDED`] names read-only. Absent guarded paths become placeholders, so
/// they cannot be created either.
///
/// A guarded path that is a symbolic link is refused: the host would follow it to wherever it
/// points (a writable directory of the workspace, say), so guarding the link protects nothing.
/// Such links are how one run plants code for the host; a person should look at them.
pub fn protection(
    workspace: &Path,
    cwd: &Path,
    real_home: Option<&Path>,
) -> Result<Protection, PathBuf> {
    let mut out = Protection::default();
    let warden = workspace.join(".warden");
    let home = warden.join("home");
    for p in [&warden, &home] {
        if !matches!(kind(p)?, Kind::Dir) {
            return Err(p.clone());
        }
    }
    out.guards.push(Guard::ReadOnly(warden));
    out.guards.push(Guard::Writable(home));
    let mut repos = vec![workspace.to_path_buf()];
    if let Ok(rest) = cwd.strip_prefix(workspace) {
        let mut dir = workspace.to_path_buf();
        for part in rest.components() {
            dir.push(part);
            repos.push(dir.clone());
        }
    }
    for dir in &repos {
        let git = dir.join(".git");
        match kind(&git)? {
            Kind::Dir => {
                out.guards.push(Guard::Pin(git.clone()));
                for (name, is_dir) in GIT_GUARDED {
                    guard(&mut out, git.join(name), *is_dir)?;
                }
            }
            Kind::File => out.guards.push(Guard::ReadOnly(git)),
            Kind::Missing => out.repository_absent |= dir == workspace,
        }
    }
    for (name, is_dir) in ROOT_GUARDED {
        guard(&mut out, workspace.join(name), *is_dir)?;
    }
    let is_home = real_home.is_some_and(|h| h == workspace);
    for name in SHELL_RC {
        let path = workspace.join(name);
        match kind(&path)? {
            Kind::Missing if !is_home => {}
            _ => guard(&mut out, path, false)?,
        }
    }
    Ok(out)
}

/// The `[user]` name and email of a git configuration file (the host's `~/.gitconfig`): the
/// sandbox's home gets them, and nothing else of the host's git configuration (which may hold
/// credential helpers and tokens in URLs), so commits made inside carry the person's identity.
pub fn git_identity(config: &str) -> Vec<(String, String)> {
    let mut section = String::new();
    let mut out: Vec<(String, String)> = Vec::new();
    for line in config.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix('[') {
            section = rest.trim_end_matches(']').trim().to_ascii_lowercase();
            continue;
        }
        if section != "user" {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        let value = value.trim().trim_matches('"');
        if (key == "name" || key == "email")
            && !value.is_empty()
            && !value
                .chars()
                .any(|c| c.is_control() || c == '\\' || c == '"')
        {
            out.retain(|(k, _)| *k != key);
            out.push((key, value.to_string()));
        }
    }
    out
}

/// Lines for git's exclude file inside the sandbox: the guarded file names at the workspace
/// root that are absent or empty (placeholders look like that), so `git status` and
/// `git add -A` inside the sandbox neither show nor stage them.
pub fn git_excludes(workspace: &Path) -> String {
    ROOT_GUARDED
        .iter()
        .filter(|(_, dir)| !dir)
        .map(|(name, _)| *name)
        .chain(SHELL_RC.iter().copied())
        .filter(|name| {
            std::fs::symlink_metadata(workspace.join(name))
                .map_or(true, |m| m.is_file() && m.len() == 0)
        })
        .map(|name| format!("/{name}\n"))
        .collect()
}

fn guard(out: &mut Protection, path: PathBuf, dir: bool) -> Result<(), PathBuf> {
    match kind(&path)? {
        Kind::Missing => {
            out.guards.push(Guard::ReadOnly(path.clone()));
            out.placeholders.push(InnerPath { path, dir });
        }
        _ => out.guards.push(Guard::ReadOnly(path)),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(vars: &[(&str, &str)]) -> Vec<(String, String)> {
        vars.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn a_named_credential_passes_to_a_proxied_server_but_never_a_loader_hook() {
        for name in [
            "GITHUB_PERSONAL_ACCESS_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "MY_API_KEY",
        ] {
            assert!(named_credential_may_pass(name), "{name}");
        }
        for name in [
            "LD_PRELOAD",
            "BASH_ENV",
            "HOME",
            "SSH_AUTH_SOCK",
            "PATH",
            "LANG",
        ] {
            assert!(!named_credential_may_pass(name), "{name}");
        }
    }

    #[test]
    fn the_environment_is_built_from_an_allow_list() {
        let env = environment(
            host(&[
                ("PATH", "/usr/bin"),
                ("LANG", "C.UTF-8"),
                ("LC_ALL", "C"),
                ("EDITOR", "vim"),
                ("RANDOM_THING", "1"),
            ]),
            &[],
            Path::new("/w/.warden/home"),
        );
        let names: Vec<&str> = env.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, vec!["LANG", "LC_ALL", "PATH", "HOME", "TMPDIR"]);
        assert!(env.contains(&("HOME".into(), "/w/.warden/home".into())));
    }

    #[test]
    fn loader_hooks_and_credentials_never_pass_even_when_configured() {
        let configured: Vec<String> = [
            "LD_PRELOAD",
            "BASH_ENV",
            "AWS_SECRET_ACCESS_KEY",
            "GITHUB_TOKEN",
            "MY_SETTING",
            "HOME",
        ]
        .map(String::from)
        .to_vec();
        let env = environment(
            host(&[
                ("LD_PRELOAD", "/x.so"),
                ("BASH_ENV", "/x"),
                ("AWS_SECRET_ACCESS_KEY", "k"),
                ("GITHUB_TOKEN", "t"),
                ("MY_SETTING", "on"),
                ("HOME", "/root"),
            ]),
            &configured,
            Path::new("/w/h"),
        );
        let names: Vec<&str> = env.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, vec!["MY_SETTING", "PATH", "HOME", "TMPDIR"]);
        assert!(
            env.contains(&("HOME".into(), "/w/h".into())),
            "the real HOME never passes"
        );
    }

    #[test]
    fn toolchains_under_home_are_found_without_exposing_the_home() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path();
        for d in [
            ".cargo/bin",
            ".rustup/toolchains",
            ".local/bin",
            ".local/share/keyrings",
            ".pyenv/shims",
            ".ssh",
        ] {
            std::fs::create_dir_all(home.join(d)).expect("mkdir");
        }
        std::fs::write(home.join(".cargo/credentials.toml"), "token").expect("write");
        let path = format!(
            "{}:{}:{}:{}:/usr/bin",
            home.join(".cargo/bin").display(),
            home.join(".local/bin").display(),
            home.join(".pyenv/shims").display(),
            home.join(".ssh").display()
        );
        let found = home_toolchains(&path, home);
        assert_eq!(
            found.trees,
            vec![
                home.join(".cargo"),
                home.join(".rustup"),
                home.join(".local/bin"),
                home.join(".pyenv")
            ]
        );
        assert_eq!(
            found.masked,
            vec![InnerPath {
                path: home.join(".cargo/credentials.toml"),
                dir: false
            }]
        );
        assert!(found.env.contains(&(
            "CARGO_HOME".into(),
            home.join(".cargo").display().to_string()
        )));
        assert!(found.env.contains(&(
            "RUSTUP_HOME".into(),
            home.join(".rustup").display().to_string()
        )));
    }

    fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join(".warden/home")).expect("mkdir");
        dir
    }

    #[test]
    fn existing_guarded_paths_are_read_only_and_absent_ones_become_placeholders() {
        let dir = workspace();
        let ws = dir.path();
        std::fs::create_dir_all(ws.join(".git/hooks")).expect("mkdir");
        std::fs::write(ws.join(".envrc"), "x").expect("write");
        let p = protection(ws, ws, None).expect("no links");
        assert_eq!(
            &p.guards[..4],
            &[
                Guard::ReadOnly(ws.join(".warden")),
                Guard::Writable(ws.join(".warden/home")),
                Guard::Pin(ws.join(".git")),
                Guard::ReadOnly(ws.join(".git/hooks")),
            ]
        );
        assert!(p.guards.contains(&Guard::ReadOnly(ws.join(".git/config"))));
        assert!(p.guards.contains(&Guard::ReadOnly(ws.join(".envrc"))));
        assert!(p.guards.contains(&Guard::ReadOnly(ws.join(".vscode"))));
        assert!(p.guards.contains(&Guard::ReadOnly(ws.join(".gitmodules"))));
        assert!(
            !p.guards.contains(&Guard::ReadOnly(ws.join(".bashrc"))),
            "an absent rc file matters only in the home"
        );
        let home = protection(ws, ws, Some(ws)).expect("no links");
        assert!(home.placeholders.contains(&InnerPath {
            path: ws.join(".bashrc"),
            dir: false
        }));
        assert!(p.placeholders.contains(&InnerPath {
            path: ws.join(".vscode"),
            dir: true
        }));
        assert!(p.placeholders.contains(&InnerPath {
            path: ws.join(".git/config"),
            dir: false
        }));
        assert!(!p.placeholders.iter().any(|i| i.path == ws.join(".envrc")));
        assert!(!p.repository_absent);
    }

    #[test]
    fn only_the_git_identity_is_taken_from_the_host_configuration() {
        let config = "[credential]\n\thelper = store\n[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n[url \"https://tok@github.com/\"]\n\tinsteadOf = https://github.com/\n";
        assert_eq!(
            git_identity(config),
            vec![
                ("name".to_string(), "Ada Lovelace".to_string()),
                ("email".to_string(), "ada@example.com".to_string())
            ]
        );
        assert!(git_identity("[user]\nname = a\\nb\n").is_empty());
    }

    #[test]
    fn git_excludes_name_absent_or_empty_guarded_files() {
        let dir = workspace();
        let ws = dir.path();
        std::fs::write(ws.join(".envrc"), "export A=1").expect("write");
        std::fs::write(ws.join(".gitmodules"), "").expect("write");
        let text = git_excludes(ws);
        assert!(text.contains("/.gitmodules\n") && text.contains("/.bashrc\n"));
        assert!(!text.contains(".envrc"), "a real .envrc stays visible");
        assert!(
            !text.contains(".vscode"),
            "empty directories are invisible to git anyway"
        );
    }

    #[test]
    fn repositories_between_the_workspace_and_the_cwd_are_guarded_too() {
        let dir = workspace();
        let ws = dir.path();
        std::fs::create_dir_all(ws.join("vendor/lib/.git/hooks")).expect("mkdir");
        let p = protection(ws, &ws.join("vendor/lib"), None).expect("no links");
        assert!(p.guards.contains(&Guard::Pin(ws.join("vendor/lib/.git"))));
        assert!(
            p.guards
                .contains(&Guard::ReadOnly(ws.join("vendor/lib/.git/hooks")))
        );
        assert!(p.repository_absent, "the workspace root has no repository");
    }

    #[test]
    fn a_guarded_path_that_is_a_symlink_is_refused() {
        let dir = workspace();
        let ws = dir.path();
        std::fs::create_dir_all(ws.join(".git")).expect("mkdir");
        std::fs::create_dir_all(ws.join("writable")).expect("mkdir");
        std::os::unix::fs::symlink("../writable", ws.join(".git/hooks")).expect("symlink");
        assert_eq!(protection(ws, ws, None), Err(ws.join(".git/hooks")));
        std::fs::remove_file(ws.join(".git/hooks")).expect("rm");
        std::os::unix::fs::symlink("writable", ws.join(".vscode")).expect("symlink");
        assert_eq!(protection(ws, ws, None), Err(ws.join(".vscode")));
    }

    #[test]
    fn a_linked_or_missing_warden_directory_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ws = dir.path();
        assert_eq!(protection(ws, ws, None), Err(ws.join(".warden")));
        std::os::unix::fs::symlink("/etc", ws.join(".warden")).expect("symlink");
        assert_eq!(protection(ws, ws, None), Err(ws.join(".warden")));
    }

    #[test]
    fn a_git_file_pointing_elsewhere_is_read_only() {
        let dir = workspace();
        let ws = dir.path();
        std::fs::write(ws.join(".git"), "gitdir: /elsewhere").expect("write");
        let p = protection(ws, ws, None).expect("no links");
        assert!(p.guards.contains(&Guard::ReadOnly(ws.join(".git"))));
        assert!(!p.guards.contains(&Guard::Pin(ws.join(".git"))));
    }
}
