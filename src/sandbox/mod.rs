//! The sandbox stage: where allowed commands run.
//!
//! [`bwrap`] builds bubblewrap's command line from a spec by a pure function; [`spec`] gathers
//! what the spec needs from the host (environment allow-list, protected paths); [`inner`] is the
//! first program inside the sandbox (warden's own binary, run as `warden __inner`), which checks
//! the sandbox it is in and then becomes the command. Invariant: when the sandbox cannot be had,
//! nothing runs unless the user opted in to running unconfined, and then warden says so.

pub mod bwrap;
pub mod doctor;
pub mod inner;
pub mod seccomp;
pub mod selftest;
pub mod spec;

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
}

/// The sandbox configuration for a workspace, or why it cannot be had.
pub fn configure(
    workspace: &Path,
    network: bool,
    env_names: Vec<String>,
) -> Result<Config, Unavailable> {
    let bwrap = find_program("bwrap").ok_or(Unavailable::NoBwrap)?;
    let exe = std::env::current_exe().map_err(Unavailable::NoExe)?;
    Ok(Config {
        bwrap,
        exe,
        workspace: workspace.to_path_buf(),
        network,
        tmp_bytes: DEFAULT_TMP_BYTES,
        env_names,
    })
}

fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The sandbox's `HOME`: a directory inside the workspace, never the real home.
pub fn sandbox_home(workspace: &Path) -> PathBuf {
    workspace.join(".warden").join("home")
}

/// The bubblewrap command that runs `argv` in `cwd` inside the sandbox.
pub fn command(config: &Config, cwd: &Path, argv: &[String]) -> std::io::Result<Command> {
    if !cwd.starts_with(&config.workspace) {
        return Err(std::io::Error::other(format!(
            "the working directory {} is outside the workspace {}; run from inside it or pass --workspace",
            cwd.display(),
            config.workspace.display()
        )));
    }
    let home = sandbox_home(&config.workspace);
    std::fs::create_dir_all(&home)?;
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
    };
    let mut inner_argv = vec![INNER_EXE.to_string(), INNER_SUBCOMMAND.to_string()];
    inner_argv.extend(inner_policy.to_args());
    inner_argv.push("--".to_string());
    inner_argv.extend(argv.iter().cloned());
    let protected = spec::protected_paths(&config.workspace).map_err(|link| {
        std::io::Error::other(format!(
            "{} is a symbolic link; the host would follow it, so it cannot be protected — check it and remove it",
            link.display()
        ))
    })?;
    let host_path = std::env::var("PATH").unwrap_or_default();
    let real_home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let tools = spec::home_toolchains(&host_path, &real_home);
    let mut env = spec::environment(host_env, &config.env_names, &home);
    env.extend(tools.env.iter().cloned());
    let mut binds = vec![(config.exe.clone(), PathBuf::from(INNER_EXE))];
    binds.extend(tools.trees.iter().map(|t| (t.clone(), t.clone())));
    let spec = bwrap::SandboxSpec {
        workspace: config.workspace.clone(),
        cwd: cwd.to_path_buf(),
        network: config.network,
        tmp_bytes: config.tmp_bytes,
        env,
        protected,
        masked: tools.masked.clone(),
        binds,
        status_fd: None,
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
    Ok(cmd)
}
