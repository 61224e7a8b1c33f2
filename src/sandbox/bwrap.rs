//! The bubblewrap command line, built by a pure function from a [`SandboxSpec`] and a
//! description of the host's top-level layout, so that every mount decision is unit-tested.
//!
//! Mount order is an invariant (later mounts shadow earlier ones):
//! 1. namespaces and process flags (`--new-session`, `--die-with-parent`, `--cap-drop ALL`);
//! 2. the environment: cleared, then only the spec's variables;
//! 3. the toolchain read-only (`/usr`, `/etc`, …), mirroring merged-usr symlinks (`/bin → usr/bin`);
//! 4. fresh `/proc` and `/dev`, a size-capped tmpfs `/tmp`, empty tmpfs over `/run` and `/var`
//!    (daemon sockets: docker, D-Bus, systemd, ssh-agent stay out of reach), then warden's own
//!    binary read-only on `/run`;
//! 5. host secrets inside the toolchain masked (`/etc/shadow`, SSH host keys, …);
//! 6. the workspace read-write at its real path;
//! 7. guards inside the workspace, in their order: `.warden` read-only with its `home` writable
//!    again, `.git` directories pinned, hooks, config, `.envrc`, `.vscode`, … read-only;
//! 8. secret files inside the workspace masked (an empty read-only file or directory over them);
//! 9. the root remounted read-only, the working directory, bwrap's status fd, `--` and the command.

use std::path::{Path, PathBuf};

/// What a top-level host path is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostEntry {
    Dir,
    /// A symbolic link and its target as written (`usr/bin`).
    Symlink(String),
    Missing,
}

/// Top-level directories that make up the read-only toolchain, in mount order.
pub const TOOLCHAIN: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
];

/// Host files inside the toolchain that hold secrets and are masked.
pub const HOST_SECRETS: &[&str] = &[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/ssh/ssh_host_rsa_key",
    "/etc/ssh/ssh_host_ecdsa_key",
    "/etc/ssh/ssh_host_ed25519_key",
];

/// The host's layout for the toolchain roots and host secrets.
#[derive(Clone, Debug, Default)]
pub struct HostLayout {
    pub entries: Vec<(String, HostEntry)>,
    /// Which [`HOST_SECRETS`] exist (only those can be masked).
    pub secrets_present: Vec<String>,
}

impl HostLayout {
    /// Reads the layout from the real filesystem (without following the top-level links).
    pub fn probe() -> HostLayout {
        let entries = TOOLCHAIN
            .iter()
            .map(|p| {
                let entry = match std::fs::symlink_metadata(p) {
                    Ok(m) if m.file_type().is_symlink() => match std::fs::read_link(p) {
                        Ok(target) => HostEntry::Symlink(target.to_string_lossy().into_owned()),
                        Err(_) => HostEntry::Missing,
                    },
                    Ok(m) if m.is_dir() => HostEntry::Dir,
                    _ => HostEntry::Missing,
                };
                (p.to_string(), entry)
            })
            .collect();
        let secrets_present = HOST_SECRETS
            .iter()
            .filter(|p| Path::new(p).exists())
            .map(|p| p.to_string())
            .collect();
        HostLayout {
            entries,
            secrets_present,
        }
    }
}

/// A path inside the workspace that is masked or protected, and whether it is a directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InnerPath {
    pub path: PathBuf,
    pub dir: bool,
}

/// A mount over a path of the workspace, made after the workspace itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Guard {
    /// A directory bound over itself, writable: a mount point cannot be renamed or removed, so
    /// the guards inside it cannot be moved aside and replaced.
    Pin(PathBuf),
    /// Bound over itself read-only.
    ReadOnly(PathBuf),
    /// Bound over itself writable, inside a read-only guard.
    Writable(PathBuf),
}

/// Everything that shapes one sandbox.
#[derive(Clone, Debug)]
pub struct SandboxSpec {
    /// The real (symlink-free) workspace path: the only writable tree.
    pub workspace: PathBuf,
    /// Where the command starts; inside the workspace.
    pub cwd: PathBuf,
    /// Share the host network (only when authorised).
    pub network: bool,
    /// Size of the private `/tmp`, in bytes.
    pub tmp_bytes: u64,
    /// The whole environment of the command (everything else is cleared).
    pub env: Vec<(String, String)>,
    /// Mounts over workspace paths, in order.
    pub guards: Vec<Guard>,
    /// Open descriptors (`O_PATH`, opened without following links) for mount sources: a source
    /// listed here is bound from its descriptor, never by resolving its path again.
    pub fds: Vec<(PathBuf, i32)>,
    /// Existing secret files inside the workspace hidden behind an empty one.
    pub masked: Vec<InnerPath>,
    /// Host files bound read-only at a path on the private `/run` (warden's own binary).
    pub binds: Vec<(PathBuf, PathBuf)>,
    /// Keep `CAP_SYS_ADMIN` (in the sandbox's own user namespace) for the inner stage, which
    /// uses it to bound the pid namespace and then drops every capability before the command.
    pub admin_for_inner: bool,
    /// File descriptor for bwrap's JSON status (child pid, exit code), if any.
    pub status_fd: Option<i32>,
    /// The command, usually warden's own inner stage followed by the user's argv.
    pub argv: Vec<String>,
}

fn push(out: &mut Vec<String>, words: &[&str]) {
    out.extend(words.iter().map(|w| w.to_string()));
}

fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Binds `path` over itself, from its descriptor when the spec has one.
fn bind(a: &mut Vec<String>, spec: &SandboxSpec, path: &Path, writable: bool) {
    let dest = text(path);
    match spec.fds.iter().find(|(p, _)| p == path) {
        Some((_, fd)) => {
            let flag = if writable {
                "--bind-fd"
            } else {
                "--ro-bind-fd"
            };
            push(a, &[flag, &fd.to_string(), &dest]);
        }
        None => {
            let flag = if writable { "--bind" } else { "--ro-bind" };
            push(a, &[flag, &dest, &dest]);
        }
    }
}

/// Builds bwrap's argv (without the `bwrap` program name itself).
pub fn bwrap_args(spec: &SandboxSpec, host: &HostLayout) -> Vec<String> {
    let mut a = Vec::with_capacity(96);
    // 1. Namespaces and process flags.
    push(
        &mut a,
        &[
            "--unshare-user",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
        ],
    );
    if !spec.network {
        push(&mut a, &["--unshare-net"]);
    }
    push(
        &mut a,
        &[
            "--new-session",
            "--die-with-parent",
            "--cap-drop",
            "ALL",
            "--hostname",
            "warden",
        ],
    );
    if spec.admin_for_inner {
        push(
            &mut a,
            &["--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP"],
        );
    }
    // 2. Environment.
    push(&mut a, &["--clearenv"]);
    for (name, value) in &spec.env {
        push(&mut a, &["--setenv", name, value]);
    }
    // 3. Toolchain, read-only, with merged-usr links mirrored.
    for (path, entry) in &host.entries {
        match entry {
            HostEntry::Dir => push(&mut a, &["--ro-bind", path, path]),
            HostEntry::Symlink(target) => push(&mut a, &["--symlink", target, path]),
            HostEntry::Missing => {}
        }
    }
    // 4. Kernel filesystems and private scratch space; daemon socket directories stay empty.
    push(&mut a, &["--proc", "/proc", "--dev", "/dev"]);
    let size = spec.tmp_bytes.to_string();
    push(&mut a, &["--size", &size, "--tmpfs", "/tmp"]);
    push(
        &mut a,
        &[
            "--tmpfs",
            "/run",
            "--tmpfs",
            "/var",
            "--symlink",
            "../run",
            "/var/run",
            "--dir",
            "/var/tmp",
        ],
    );
    for (source, target) in &spec.binds {
        push(&mut a, &["--ro-bind", &text(source), &text(target)]);
    }
    // 5. Host secrets the toolchain bind would otherwise expose.
    for secret in &host.secrets_present {
        push(&mut a, &["--ro-bind", "/dev/null", secret]);
    }
    // 6. The workspace, writable, at its real path.
    bind(&mut a, spec, &spec.workspace, true);
    // 7. Guards inside it.
    for g in &spec.guards {
        match g {
            Guard::Pin(p) | Guard::Writable(p) => bind(&mut a, spec, p, true),
            Guard::ReadOnly(p) => bind(&mut a, spec, p, false),
        }
    }
    // 8. Secrets inside it, hidden.
    for m in &spec.masked {
        let p = text(&m.path);
        if m.dir {
            push(&mut a, &["--tmpfs", &p, "--remount-ro", &p]);
        } else {
            push(&mut a, &["--ro-bind", "/dev/null", &p]);
        }
    }
    // The root itself (a tmpfs holding the mount points) becomes read-only: paths that are not
    // mounted cannot be created, so nothing outside the workspace and /tmp is writable.
    push(&mut a, &["--remount-ro", "/"]);
    // 9. Where to start, how to report, what to run.
    let cwd = text(&spec.cwd);
    push(&mut a, &["--chdir", &cwd]);
    if let Some(fd) = spec.status_fd {
        let fd = fd.to_string();
        push(&mut a, &["--json-status-fd", &fd]);
    }
    a.push("--".into());
    a.extend(spec.argv.iter().cloned());
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn debian() -> HostLayout {
        HostLayout {
            entries: vec![
                ("/usr".into(), HostEntry::Dir),
                ("/bin".into(), HostEntry::Symlink("usr/bin".into())),
                ("/lib".into(), HostEntry::Symlink("usr/lib".into())),
                ("/lib32".into(), HostEntry::Missing),
                ("/etc".into(), HostEntry::Dir),
            ],
            secrets_present: vec!["/etc/shadow".into()],
        }
    }

    fn spec() -> SandboxSpec {
        SandboxSpec {
            workspace: PathBuf::from("/work/project"),
            cwd: PathBuf::from("/work/project/src"),
            network: false,
            tmp_bytes: 64 << 20,
            env: vec![
                ("PATH".into(), "/usr/bin:/bin".into()),
                ("HOME".into(), "/work/project/.warden/home".into()),
            ],
            guards: vec![
                Guard::Pin(PathBuf::from("/work/project/.git")),
                Guard::ReadOnly(PathBuf::from("/work/project/.git/hooks")),
                Guard::ReadOnly(PathBuf::from("/work/project/.envrc")),
            ],
            fds: Vec::new(),
            masked: vec![InnerPath {
                path: PathBuf::from("/work/project/.env"),
                dir: false,
            }],
            binds: vec![(
                PathBuf::from("/opt/warden/bin/warden"),
                PathBuf::from("/run/warden/warden"),
            )],
            status_fd: Some(5),
            admin_for_inner: false,
            argv: vec!["/bin/sh".into(), "-c".into(), "true".into()],
        }
    }

    /// Index of the first occurrence of `words` as consecutive arguments.
    fn at(args: &[String], words: &[&str]) -> usize {
        args.windows(words.len())
            .position(|w| w.iter().zip(words).all(|(a, b)| a == b))
            .unwrap_or_else(|| panic!("{words:?} not in {args:?}"))
    }

    #[test]
    fn every_namespace_is_unshared_and_capabilities_dropped() {
        let args = bwrap_args(&spec(), &debian());
        for flag in [
            "--unshare-user",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-net",
            "--new-session",
            "--die-with-parent",
        ] {
            assert!(args.iter().any(|a| a == flag), "missing {flag}");
        }
        at(&args, &["--cap-drop", "ALL"]);
        assert!(!args.iter().any(|a| a == "--cap-add"));
        let mut s = spec();
        s.admin_for_inner = true;
        let args = bwrap_args(&s, &debian());
        assert_eq!(
            &args[at(&args, &["--cap-drop", "ALL"])..][..4],
            &["--cap-drop", "ALL", "--hostname", "warden"]
        );
        at(&args, &["--cap-add", "CAP_SYS_ADMIN"]);
    }

    #[test]
    fn the_network_is_shared_only_when_authorised() {
        let mut s = spec();
        s.network = true;
        assert!(
            !bwrap_args(&s, &debian())
                .iter()
                .any(|a| a == "--unshare-net")
        );
    }

    #[test]
    fn the_environment_is_cleared_before_the_allowed_variables() {
        let args = bwrap_args(&spec(), &debian());
        assert!(at(&args, &["--clearenv"]) < at(&args, &["--setenv", "PATH", "/usr/bin:/bin"]));
    }

    #[test]
    fn the_toolchain_is_read_only_and_merged_usr_links_are_mirrored() {
        let args = bwrap_args(&spec(), &debian());
        at(&args, &["--ro-bind", "/usr", "/usr"]);
        at(&args, &["--symlink", "usr/bin", "/bin"]);
        assert!(
            !args.iter().any(|a| a == "/lib32"),
            "missing entries are skipped"
        );
        assert!(
            !args.windows(3).any(|w| w[0] == "--bind" && w[1] == "/usr"),
            "toolchain never writable"
        );
    }

    #[test]
    fn mounts_follow_the_documented_order() {
        let args = bwrap_args(&spec(), &debian());
        let toolchain = at(&args, &["--ro-bind", "/etc", "/etc"]);
        let tmp = at(&args, &["--tmpfs", "/tmp"]);
        let run = at(&args, &["--tmpfs", "/run"]);
        let exe = at(
            &args,
            &["--ro-bind", "/opt/warden/bin/warden", "/run/warden/warden"],
        );
        assert!(run < exe, "warden's binary goes on the private /run");
        let shadow = at(&args, &["--ro-bind", "/dev/null", "/etc/shadow"]);
        let workspace = at(&args, &["--bind", "/work/project", "/work/project"]);
        let protected = at(
            &args,
            &[
                "--ro-bind",
                "/work/project/.git/hooks",
                "/work/project/.git/hooks",
            ],
        );
        let pin = at(
            &args,
            &["--bind", "/work/project/.git", "/work/project/.git"],
        );
        let inert = at(
            &args,
            &["--ro-bind", "/work/project/.envrc", "/work/project/.envrc"],
        );
        let masked = at(&args, &["--ro-bind", "/dev/null", "/work/project/.env"]);
        assert!(workspace < pin && pin < protected && protected < inert && inert < masked);
        let root_ro = at(&args, &["--remount-ro", "/"]);
        let command = at(&args, &["--", "/bin/sh"]);
        assert!(toolchain < tmp && tmp < run && run < shadow && shadow < workspace);
        assert!(
            workspace < protected && protected < masked && masked < root_ro && root_ro < command
        );
    }

    #[test]
    fn sources_with_descriptors_are_bound_from_them() {
        let mut s = spec();
        s.fds = vec![
            (PathBuf::from("/work/project"), 7),
            (PathBuf::from("/work/project/.git/hooks"), 8),
        ];
        let args = bwrap_args(&s, &debian());
        at(&args, &["--bind-fd", "7", "/work/project"]);
        at(&args, &["--ro-bind-fd", "8", "/work/project/.git/hooks"]);
        assert!(
            !args
                .windows(2)
                .any(|w| w[0] == "--bind" && w[1] == "/work/project"),
            "the workspace path is not resolved again"
        );
    }

    #[test]
    fn tmp_is_size_capped_and_daemon_sockets_are_hidden() {
        let args = bwrap_args(&spec(), &debian());
        at(
            &args,
            &["--size", &(64u64 << 20).to_string(), "--tmpfs", "/tmp"],
        );
        at(&args, &["--tmpfs", "/run"]);
        at(&args, &["--symlink", "../run", "/var/run"]);
        assert!(
            !args.iter().any(|a| a.starts_with("/home") || a == "/root"),
            "the real home is never mounted"
        );
    }

    #[test]
    fn masked_directories_become_empty_and_read_only() {
        let mut s = spec();
        s.masked = vec![InnerPath {
            path: PathBuf::from("/work/project/secrets"),
            dir: true,
        }];
        let args = bwrap_args(&s, &debian());
        at(
            &args,
            &[
                "--tmpfs",
                "/work/project/secrets",
                "--remount-ro",
                "/work/project/secrets",
            ],
        );
    }

    #[test]
    fn the_command_comes_last_after_the_working_directory_and_status_fd() {
        let args = bwrap_args(&spec(), &debian());
        let chdir = at(&args, &["--chdir", "/work/project/src"]);
        let status = at(&args, &["--json-status-fd", "5"]);
        let dashdash = at(&args, &["--"]);
        assert!(chdir < status && status < dashdash);
        assert_eq!(&args[dashdash + 1..], &["/bin/sh", "-c", "true"]);
    }
}
