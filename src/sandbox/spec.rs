//! Inputs of a sandbox that come from the host: the environment allow-list, the protected paths
//! of the workspace and the toolchains installed under the home.
//!
//! Invariants: the command's environment is built from nothing, never by filtering out a few
//! names; variables that change what programs load or run, and anything that looks like a
//! credential, never pass, even when configured.

use std::path::{Path, PathBuf};

use super::bwrap::InnerPath;
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

/// Paths inside the workspace through which a sandboxed command could plant code that the host
/// runs later; those that exist are re-bound read-only.
pub const PROTECTED: &[&str] = &[
    ".git/hooks",
    ".git/config",
    ".gitmodules",
    ".envrc",
    ".vscode",
    ".idea",
    ".warden/rules",
    ".warden/config.toml",
    ".bashrc",
    ".bash_profile",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
];

/// The protected paths that exist in `workspace` (a `.git` that is a file pointing elsewhere is
/// protected as a whole).
///
/// A protected path that is a symbolic link is refused: the host would follow it to wherever it
/// points (a writable directory of the workspace, say), so re-binding the link protects nothing.
/// Such links are how one run plants code for the host; a person should look at them.
pub fn protected_paths(workspace: &Path) -> Result<Vec<InnerPath>, PathBuf> {
    for name in [".git"].iter().chain(PROTECTED) {
        let path = workspace.join(name);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(path);
        }
    }
    let mut out = Vec::new();
    if std::fs::symlink_metadata(workspace.join(".git")).is_ok_and(|m| m.is_file()) {
        out.push(InnerPath {
            path: workspace.join(".git"),
            dir: false,
        });
    }
    for name in PROTECTED {
        let path = workspace.join(name);
        if let Ok(meta) = std::fs::symlink_metadata(&path) {
            out.push(InnerPath {
                dir: meta.is_dir(),
                path,
            });
        }
    }
    Ok(out)
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

    #[test]
    fn protected_paths_are_those_that_exist() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join(".git/hooks")).expect("mkdir");
        std::fs::write(dir.path().join(".envrc"), "x").expect("write");
        let found = protected_paths(dir.path()).expect("no links");
        assert_eq!(
            found,
            vec![
                InnerPath {
                    path: dir.path().join(".git/hooks"),
                    dir: true
                },
                InnerPath {
                    path: dir.path().join(".envrc"),
                    dir: false
                },
            ]
        );
    }

    #[test]
    fn a_protected_path_that_is_a_symlink_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join(".git")).expect("mkdir");
        std::fs::create_dir_all(dir.path().join("writable")).expect("mkdir");
        std::os::unix::fs::symlink("../writable", dir.path().join(".git/hooks")).expect("symlink");
        assert_eq!(
            protected_paths(dir.path()),
            Err(dir.path().join(".git/hooks"))
        );
    }

    #[test]
    fn a_git_file_pointing_elsewhere_is_protected() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(".git"), "gitdir: /elsewhere").expect("write");
        assert!(
            protected_paths(dir.path())
                .expect("no links")
                .contains(&InnerPath {
                    path: dir.path().join(".git"),
                    dir: false
                })
        );
    }
}
