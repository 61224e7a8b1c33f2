//! The sandbox stage: where allowed commands run.
//!
//! [`bwrap`] builds bubblewrap's command line from a spec by a pure function; [`spec`] gathers
//! what the spec needs from the host (environment allow-list, protected paths); [`inner`] is the
//! first program inside the sandbox (warden's own binary, run as `warden __inner`), which checks
//! the sandbox it is in and then becomes the command. Invariant: when the sandbox cannot be had,
//! nothing runs unless the user opted in to running unconfined, and then warden says so.

pub mod bwrap;
pub mod cgroup;
pub mod doctor;
pub mod inner;
pub mod placeholders;
pub mod seccomp;
pub mod selftest;
pub mod spec;

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where warden's own binary appears inside the sandbox (on the private `/run` tmpfs).
pub const INNER_EXE: &str = "/run/warden/warden";
/// The hidden subcommand of the inner stage.
pub const INNER_SUBCOMMAND: &str = "__inner";
/// Default size of the private `/tmp`.
pub const DEFAULT_TMP_BYTES: u64 = 512 * 1024 * 1024;

/// What the sandbox needs that does not change from run to run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The bubblewrap binary.
    pub bwrap: PathBuf,
    /// warden's own binary on the host, bound read-only into the sandbox.
    pub exe: PathBuf,
    /// The real (symlink-free) workspace.
    pub workspace: PathBuf,
    pub network: bool,
    pub tmp_bytes: u64,
    /// Extra environment variable names the user lets through.
    pub env_names: Vec<String>,
    /// Credential variables a person named for a proxied MCP server (see
    /// [`spec::named_credential_may_pass`]); empty for commands.
    pub credentials: Vec<String>,
    /// The inner stage bounds the process count through the pid namespace (see [`cgroup`]).
    pub pid_namespace_limit: bool,
    /// Run on with a layer missing inside (Landlock, seccomp), saying so (`--allow-degraded`).
    pub allow_degraded: bool,
}

/// Why the sandbox cannot be had here, with the fix.
#[derive(Debug, thiserror::Error)]
pub enum Unavailable {
    #[error(
        "bubblewrap (bwrap) is not installed — install it (`apt-get install bubblewrap`), or pass --allow-degraded to run without the sandbox"
    )]
    NoBwrap,
    #[error("cannot find warden's own binary ({0}) to start the sandbox")]
    NoExe(std::io::Error),
    #[error(
        "refusing to make {0} writable to commands: it {1}; choose a project directory with --workspace"
    )]
    Workspace(PathBuf, &'static str),
}

impl Unavailable {
    /// True when running without the sandbox would not be degraded but wrong: a workspace that
    /// holds the system or the home is refused even with `--allow-degraded`.
    pub fn is_refusal(&self) -> bool {
        matches!(self, Unavailable::Workspace(..))
    }
}

/// Why a directory cannot be the writable tree of a sandbox, if it cannot: the root, a system
/// directory, kernel filesystems, or the user's home or one of its ancestors (which would put
/// `~/.ssh`, `~/.aws` and the shell start-up files in reach).
pub fn workspace_refusal(workspace: &Path, home: Option<&Path>) -> Option<&'static str> {
    const SYSTEM: &[&str] = &[
        "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/var", "/opt",
        "/home", "/tmp", "/srv", "/mnt", "/media",
    ];
    const KERNEL: &[&str] = &["/proc", "/sys", "/dev", "/run", "/boot"];
    if workspace == Path::new("/") {
        return Some("is the root of the filesystem");
    }
    if SYSTEM.iter().any(|s| workspace == Path::new(s)) {
        return Some("is a system directory");
    }
    if KERNEL.iter().any(|k| workspace.starts_with(k)) {
        return Some("holds kernel or boot filesystems");
    }
    if home.is_some_and(|h| h.starts_with(workspace) && h != Path::new("/")) {
        return Some("holds your home directory");
    }
    None
}

/// The sandbox configuration for a workspace, or why it cannot be had.
pub fn configure(
    workspace: &Path,
    network: bool,
    env_names: Vec<String>,
) -> Result<Config, Unavailable> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .and_then(|h| std::fs::canonicalize(h).ok());
    if let Some(why) = workspace_refusal(workspace, home.as_deref()) {
        return Err(Unavailable::Workspace(workspace.to_path_buf(), why));
    }
    let bwrap = find_program("bwrap").ok_or(Unavailable::NoBwrap)?;
    let exe = std::env::current_exe().map_err(Unavailable::NoExe)?;
    Ok(Config {
        bwrap,
        exe,
        workspace: workspace.to_path_buf(),
        network,
        tmp_bytes: DEFAULT_TMP_BYTES,
        env_names,
        credentials: Vec::new(),
        pid_namespace_limit: cgroup::pid_max_per_namespace(),
        allow_degraded: false,
    })
}

fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// What a sandboxed run holds on the host until it is over: the descriptors of its mount
/// sources and its placeholders (removed when no other run needs them).
#[derive(Debug)]
pub struct Session {
    _fds: Vec<OwnedFd>,
    /// Read end of the inner stage's ready pipe (non-blocking).
    ready: OwnedFd,
    _placeholders: placeholders::Placeholders,
    /// The workspace had no repository when the run started.
    watch_repository: Option<PathBuf>,
    /// The run's cgroup (root only): what is left in it is killed when the session ends.
    _cgroup: Option<cgroup::RunCgroup>,
}

impl Session {
    /// True once the inner stage has reported that the sandbox was complete and the command
    /// about to start. Read after the sandbox exited: false means the command never ran.
    pub fn started(&self) -> bool {
        let mut byte = [0u8; 1];
        matches!(rustix::io::read(&self.ready, &mut byte), Ok(1))
    }

    /// Says what a person should check after the run: a repository the command created has
    /// hooks and config written by sandboxed code.
    pub fn after_run_notice(&self) -> Option<String> {
        let git = self.watch_repository.as_ref()?.join(".git");
        std::fs::symlink_metadata(&git).ok()?;
        Some(format!(
            "warden: the command created {}: its hooks and config were written inside the sandbox; check them before running git there outside warden",
            git.display()
        ))
    }
}

/// Creates `.warden/home` without following links (a link planted at `.warden` would otherwise
/// make warden itself create directories wherever it points), and `.warden/.gitignore` so that
/// the directory stays out of the project's git status.
fn ensure_home(workspace: &Path) -> std::io::Result<PathBuf> {
    let mut dir = workspace.to_path_buf();
    for part in [".warden", "home"] {
        dir.push(part);
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() && !m.file_type().is_symlink() => {}
            Ok(_) => {
                return Err(std::io::Error::other(format!(
                    "{} is not a plain directory; check it and remove it",
                    dir.display()
                )));
            }
            Err(_) => match std::fs::create_dir(&dir) {
                Ok(()) => {}
                // A concurrent run made it first: it must be a plain directory all the same.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let m = std::fs::symlink_metadata(&dir)?;
                    if !m.is_dir() || m.file_type().is_symlink() {
                        return Err(std::io::Error::other(format!(
                            "{} is not a plain directory; check it and remove it",
                            dir.display()
                        )));
                    }
                }
                Err(e) => return Err(e),
            },
        }
    }
    let ignore = workspace.join(".warden").join(".gitignore");
    if std::fs::symlink_metadata(&ignore).is_err() {
        write_new(&ignore, "*\n")?;
    }
    let gitconfig = dir.join(".gitconfig");
    if std::fs::symlink_metadata(&gitconfig).is_err() {
        let identity = host_git_identity();
        if !identity.is_empty() {
            let body: String = identity
                .iter()
                .map(|(k, v)| format!("\t{k} = {v}\n"))
                .collect();
            write_new(&gitconfig, &format!("[user]\n{body}"))?;
        }
    }
    Ok(dir)
}

/// The person's git identity from the host's global git configuration files.
fn host_git_identity() -> Vec<(String, String)> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let mut out: Vec<(String, String)> = Vec::new();
    let files = [
        xdg.map(|x| x.join("git").join("config")),
        home.map(|h| h.join(".gitconfig")),
    ];
    for file in files.into_iter().flatten() {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for (k, v) in spec::git_identity(&text) {
            out.retain(|(key, _)| *key != k);
            out.push((k, v));
        }
    }
    out
}

/// Writes `path` whole: a private sibling, then an atomic rename (never through a link).
fn write_new(path: &Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

/// The exclude file git uses inside the sandbox (placeholders of guarded files look like
/// untracked empty files otherwise): `.warden/git-exclude`, read-only inside.
fn git_exclude_file(workspace: &Path) -> std::io::Result<PathBuf> {
    let path = workspace.join(".warden").join("git-exclude");
    let text = spec::git_excludes(workspace);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        write_new(&path, &text)?;
    }
    Ok(path)
}

/// Opens `path` as a mount source: `O_PATH`, refusing a link in any component, and inheritable
/// (bwrap receives it). None when the kernel lacks `openat2` (the path is then bound by name,
/// after the link checks warden has already made).
fn open_source(path: &Path) -> std::io::Result<Option<OwnedFd>> {
    use rustix::fs::{CWD, Mode, OFlags, ResolveFlags, openat2};
    match openat2(
        CWD,
        path,
        OFlags::PATH | OFlags::NOFOLLOW,
        Mode::empty(),
        ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
    ) {
        Ok(fd) => Ok(Some(fd)),
        Err(rustix::io::Errno::NOSYS) => Ok(None),
        Err(e) => Err(std::io::Error::other(format!(
            "cannot open {} without following links: {}",
            path.display(),
            std::io::Error::from(e)
        ))),
    }
}

/// The bubblewrap command that runs `argv` in `cwd` inside the sandbox, and the session that
/// must live until it has finished.
pub fn command(
    config: &Config,
    cwd: &Path,
    argv: &[String],
) -> std::io::Result<(Command, Session)> {
    if !cwd.starts_with(&config.workspace) {
        return Err(std::io::Error::other(format!(
            "the working directory {} is outside the workspace {}; run from inside it or pass --workspace",
            cwd.display(),
            config.workspace.display()
        )));
    }
    let home = ensure_home(&config.workspace)?;
    let real_home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let exclude = git_exclude_file(&config.workspace)?;
    let protection = spec::protection(&config.workspace, cwd, Some(&real_home)).map_err(|link| {
        std::io::Error::other(format!(
            "{} is a symbolic link or not what it should be; the host would follow it, so it cannot be guarded — check it and remove it",
            link.display()
        ))
    })?;
    let placeholders = placeholders::create(&config.workspace, &protection.placeholders)?;
    let mut fds = Vec::new();
    let mut fd_numbers = Vec::new();
    let sources =
        std::iter::once(&config.workspace).chain(protection.guards.iter().map(|g| match g {
            bwrap::Guard::Pin(p) | bwrap::Guard::ReadOnly(p) | bwrap::Guard::Writable(p) => p,
        }));
    for source in sources {
        if let Some(fd) = open_source(source)? {
            fd_numbers.push((source.clone(), fd.as_raw_fd()));
            fds.push(fd);
        }
    }
    let (ready, ready_writer) =
        rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).map_err(std::io::Error::from)?;
    rustix::fs::fcntl_setfl(&ready, rustix::fs::OFlags::NONBLOCK).map_err(std::io::Error::from)?;
    // Inheritable: bwrap passes it into the sandbox, where the inner stage reports on it.
    rustix::io::fcntl_setfd(&ready_writer, rustix::io::FdFlags::empty())
        .map_err(std::io::Error::from)?;
    let ready_fd = ready_writer.as_raw_fd();
    fds.push(ready_writer);
    let host_env = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)));
    let inner_policy = inner::InnerPolicy {
        read: vec![PathBuf::from("/")],
        write: vec![
            config.workspace.clone(),
            PathBuf::from("/tmp"),
            PathBuf::from("/dev"),
        ],
        network: config.network,
        guarded: protection
            .guards
            .iter()
            .filter_map(|g| match g {
                bwrap::Guard::ReadOnly(p) => Some(p.clone()),
                _ => None,
            })
            .collect(),
        ready_fd: Some(ready_fd),
        max_tasks: config.pid_namespace_limit.then_some(cgroup::MAX_TASKS),
        degraded: config.allow_degraded,
    };
    let mut inner_argv = vec![INNER_EXE.to_string(), INNER_SUBCOMMAND.to_string()];
    inner_argv.extend(inner_policy.to_args());
    inner_argv.push("--".to_string());
    inner_argv.extend(argv.iter().cloned());
    let host_path = std::env::var("PATH").unwrap_or_default();
    let tools = spec::home_toolchains(&host_path, &real_home);
    let mut env = spec::environment(host_env, &config.env_names, &home);
    for name in config
        .credentials
        .iter()
        .filter(|n| spec::named_credential_may_pass(n))
    {
        if let Ok(value) = std::env::var(name)
            && !env.iter().any(|(n, _)| n == name)
        {
            env.push((name.clone(), value));
        }
    }
    env.extend(tools.env.iter().cloned());
    env.extend([
        ("GIT_CONFIG_COUNT".to_string(), "1".to_string()),
        (
            "GIT_CONFIG_KEY_0".to_string(),
            "core.excludesFile".to_string(),
        ),
        (
            "GIT_CONFIG_VALUE_0".to_string(),
            exclude.to_string_lossy().into_owned(),
        ),
    ]);
    let mut binds = vec![(config.exe.clone(), PathBuf::from(INNER_EXE))];
    binds.extend(tools.trees.iter().map(|t| (t.clone(), t.clone())));
    if config.network {
        // /etc is bound whole (hosts, CA certificates); a resolver file kept under /run
        // (systemd-resolved) is bound by itself, since /run is otherwise empty.
        if let Ok(resolv) = std::fs::canonicalize("/etc/resolv.conf")
            && resolv.starts_with("/run")
            && resolv.is_file()
        {
            binds.push((resolv.clone(), resolv));
        }
    }
    let spec = bwrap::SandboxSpec {
        workspace: config.workspace.clone(),
        cwd: cwd.to_path_buf(),
        network: config.network,
        tmp_bytes: config.tmp_bytes,
        env,
        guards: protection.guards,
        fds: fd_numbers,
        masked: tools.masked.clone(),
        binds,
        status_fd: None,
        admin_for_inner: config.pid_namespace_limit,
        argv: inner_argv,
    };
    let args = bwrap::bwrap_args(&spec, &bwrap::HostLayout::probe());
    if std::env::var_os("WARDEN_SHOW_SANDBOX").is_some() {
        eprintln!(
            "warden: {} {}",
            config.bwrap.display(),
            crate::pipeline::quote_argv(&args)
        );
    }
    let mut cmd = Command::new(&config.bwrap);
    cmd.args(args);
    cmd.env_clear();
    let run_cgroup = if config.pid_namespace_limit {
        None
    } else {
        cgroup::create().map(|(run_cgroup, procs)| {
            crate::sys::join_cgroup_at_spawn(&mut cmd, procs);
            run_cgroup
        })
    };
    let session = Session {
        _cgroup: run_cgroup,
        _fds: fds,
        ready,
        _placeholders: placeholders,
        watch_repository: protection
            .repository_absent
            .then(|| config.workspace.clone()),
    };
    Ok((cmd, session))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_system_directories_and_the_home_are_never_workspaces() {
        let home = Some(Path::new("/home/ada"));
        for (ws, refused) in [
            ("/", true),
            ("/etc", true),
            ("/usr", true),
            ("/tmp", true),
            ("/proc/self", true),
            ("/home", true),
            ("/home/ada", true),
            ("/home/ada/src/project", false),
            ("/tmp/build", false),
            ("/usr/local/src/project", false),
            ("/srv/app", false),
        ] {
            assert_eq!(
                workspace_refusal(Path::new(ws), home).is_some(),
                refused,
                "{ws}"
            );
        }
        assert!(workspace_refusal(Path::new("/work"), Some(Path::new("/"))).is_none());
    }
}
