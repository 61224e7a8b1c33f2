//! The inner stage: warden's own binary, the first program inside the sandbox.
//!
//! bwrap has built the mounts; this stage adds what must be applied from inside: it checks that
//! it holds no capabilities (a sandbox started as root without `--cap-drop ALL` could remount the
//! host writable), sets resource limits, applies Landlock (read and execute where the sandbox can
//! see, write only in the workspace, `/tmp` and `/dev`; TCP denied unless the network is
//! authorised; abstract unix sockets and signals scoped to the sandbox), reports what the kernel
//! actually enforced when it is less than asked, installs the seccomp filter, then replaces
//! itself with the command.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

use landlock::{
    ABI, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus,
    Scope, path_beneath_rules,
};

/// The Landlock ABI whose rights warden asks for (older kernels get what they support).
const TARGET_ABI: ABI = ABI::V6;

/// What the inner stage allows, passed on its command line by the outer stage.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InnerPolicy {
    pub read: Vec<PathBuf>,
    pub write: Vec<PathBuf>,
    pub network: bool,
    /// Workspace paths that bwrap made read-only: checked before the command starts.
    pub guarded: Vec<PathBuf>,
    /// Bound the sandbox's pid namespace to this many tasks (`kernel.pid_max`, per namespace
    /// since Linux 6.14); bwrap then keeps `CAP_SYS_ADMIN` in the sandbox's user namespace for
    /// this stage alone, which drops it before anything else runs.
    pub max_tasks: Option<u64>,
    /// The user accepts running with a layer missing (Landlock, seccomp), said on every run.
    pub degraded: bool,
    /// A pipe to the outer stage: one byte there means the sandbox is complete and the command
    /// is about to start (nothing there: the sandbox failed before the command ran).
    pub ready_fd: Option<i32>,
}

impl InnerPolicy {
    /// `--ro PATH`, `--rw PATH`, `--net`, then `--` and the command.
    pub fn to_args(&self) -> Vec<String> {
        let mut out = Vec::new();
        for p in &self.read {
            out.push("--ro".into());
            out.push(p.to_string_lossy().into_owned());
        }
        for p in &self.write {
            out.push("--rw".into());
            out.push(p.to_string_lossy().into_owned());
        }
        if self.network {
            out.push("--net".into());
        }
        for p in &self.guarded {
            out.push("--guard".into());
            out.push(p.to_string_lossy().into_owned());
        }
        if let Some(fd) = self.ready_fd {
            out.push("--ready-fd".into());
            out.push(fd.to_string());
        }
        if let Some(n) = self.max_tasks {
            out.push("--max-tasks".into());
            out.push(n.to_string());
        }
        if self.degraded {
            out.push("--degraded".into());
        }
        out
    }

    /// Parses [`InnerPolicy::to_args`] output followed by `--` and the command.
    pub fn parse(args: &[String]) -> Result<(InnerPolicy, Vec<String>), String> {
        let mut policy = InnerPolicy::default();
        let mut i = 0;
        while i < args.len() {
            match args[i].as_str() {
                "--" => return Ok((policy, args[i + 1..].to_vec())),
                "--net" => policy.network = true,
                "--degraded" => policy.degraded = true,
                "--max-tasks" => {
                    let n = args
                        .get(i + 1)
                        .and_then(|v| v.parse::<u64>().ok())
                        .filter(|n| *n > 300)
                        .ok_or("--max-tasks needs a number above 300")?;
                    policy.max_tasks = Some(n);
                    i += 1;
                }
                "--ready-fd" => {
                    let fd = args
                        .get(i + 1)
                        .and_then(|v| v.parse::<i32>().ok())
                        .filter(|fd| *fd > 2)
                        .ok_or("--ready-fd needs a descriptor number above 2")?;
                    policy.ready_fd = Some(fd);
                    i += 1;
                }
                flag @ ("--ro" | "--rw" | "--guard") => {
                    let path = args
                        .get(i + 1)
                        .ok_or_else(|| format!("{flag} needs a path"))?;
                    match flag {
                        "--ro" => policy.read.push(PathBuf::from(path)),
                        "--rw" => policy.write.push(PathBuf::from(path)),
                        _ => policy.guarded.push(PathBuf::from(path)),
                    }
                    i += 1;
                }
                other => return Err(format!("unknown inner option `{other}`")),
            }
            i += 1;
        }
        Err("missing `--` before the command".into())
    }
}

/// Bounds the pid namespace, then gives up every capability for good: bounding set, ambient,
/// effective, permitted, inheritable.
fn bound_tasks_and_drop_capabilities(max_tasks: u64) -> Result<(), String> {
    use rustix::thread::{
        CapabilitySet, CapabilitySets, clear_ambient_capability_set,
        remove_capability_from_bounding_set, set_capabilities,
    };
    let pid_max = std::fs::write("/proc/sys/kernel/pid_max", max_tasks.to_string())
        .map_err(|e| format!("cannot bound the number of processes (kernel.pid_max): {e}"));
    for cap in CapabilitySet::all().iter() {
        // Capabilities this kernel does not know are not in the set anyway.
        let _ = remove_capability_from_bounding_set(cap);
    }
    let _ = clear_ambient_capability_set();
    set_capabilities(
        None,
        CapabilitySets {
            effective: CapabilitySet::empty(),
            permitted: CapabilitySet::empty(),
            inheritable: CapabilitySet::empty(),
        },
    )
    .map_err(|e| format!("cannot drop capabilities: {e}"))?;
    pid_max
}

/// The capability mask the kernel reports as effective for this process.
fn effective_capabilities() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("CapEff:"))?;
    u64::from_str_radix(line.trim_start_matches("CapEff:").trim(), 16).ok()
}

/// Checks, from inside, that every guarded path is what the outer stage asked bwrap for:
/// reached without a link and on a read-only mount. A link swapped in by a concurrent run
/// between the outer checks and the mounts would otherwise move a guard somewhere harmless.
fn check_guards(guarded: &[PathBuf]) -> Result<(), String> {
    use rustix::fs::{CWD, Mode, OFlags, ResolveFlags, StatVfsMountFlags, fstatvfs, openat2};
    for path in guarded {
        let fd = openat2(
            CWD,
            path,
            OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
            ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
        )
        .map_err(|e| format!("{}: {}", path.display(), std::io::Error::from(e)))?;
        let vfs = fstatvfs(&fd).map_err(|e| format!("{}: {e}", path.display()))?;
        if !vfs.f_flag.contains(StatVfsMountFlags::RDONLY) {
            return Err(format!("{} is writable", path.display()));
        }
    }
    Ok(())
}

fn set_limits() {
    use rustix::process::{Resource, Rlimit, setrlimit};
    // No core dumps (they would copy memory, secrets included, into the workspace).
    let _ = setrlimit(
        Resource::Core,
        Rlimit {
            current: Some(0),
            maximum: Some(0),
        },
    );
    let _ = setrlimit(
        Resource::Nofile,
        Rlimit {
            current: Some(4096),
            maximum: Some(4096),
        },
    );
    // A fork bomb stops here (counted per user namespace; root is exempt, and gets the cgroup
    // limit from the outer stage instead).
    let tasks = super::cgroup::MAX_TASKS;
    let _ = setrlimit(
        Resource::Nproc,
        Rlimit {
            current: Some(tasks),
            maximum: Some(tasks),
        },
    );
    // No single file beyond 16 GiB (a runaway writer fills the disk more slowly than that).
    let _ = setrlimit(
        Resource::Fsize,
        Rlimit {
            current: Some(16 << 30),
            maximum: Some(16 << 30),
        },
    );
}

fn apply_landlock(policy: &InnerPolicy) -> Result<RulesetStatus, landlock::RulesetError> {
    let mut ruleset = Ruleset::default().handle_access(AccessFs::from_all(TARGET_ABI))?;
    if !policy.network {
        ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
    }
    let status = ruleset
        .scope(Scope::from_all(TARGET_ABI))?
        .create()?
        .add_rules(path_beneath_rules(
            &policy.read,
            AccessFs::from_read(TARGET_ABI),
        ))?
        .add_rules(path_beneath_rules(
            &policy.write,
            AccessFs::from_all(TARGET_ABI),
        ))?
        .restrict_self()?;
    Ok(status.ruleset)
}

/// Runs the inner stage with its arguments (after `__inner`); returns only on failure, with
/// the exit code to use.
pub fn run(args: &[String]) -> i32 {
    let (policy, argv) = match InnerPolicy::parse(args) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("warden: inner stage: {e}");
            return crate::exit::USAGE;
        }
    };
    if let Some(n) = policy.max_tasks
        && let Err(e) = bound_tasks_and_drop_capabilities(n)
    {
        eprintln!("warden: {e}; refusing to run");
        return crate::exit::INTERNAL;
    }
    match effective_capabilities() {
        Some(0) => {}
        Some(caps) => {
            eprintln!("warden: the sandbox still holds capabilities ({caps:#x}); refusing to run");
            return crate::exit::INTERNAL;
        }
        None => {
            eprintln!("warden: cannot read this process's capabilities; refusing to run");
            return crate::exit::INTERNAL;
        }
    }
    if let Err(e) = check_guards(&policy.guarded) {
        eprintln!("warden: a guarded path of the workspace is not guarded ({e}); refusing to run");
        return crate::exit::INTERNAL;
    }
    // Opened by path (no raw descriptor is ever adopted); closed by the exec.
    let ready = policy.ready_fd.map(|fd| {
        std::fs::OpenOptions::new()
            .write(true)
            .open(format!("/proc/self/fd/{fd}"))
    });
    set_limits();
    // A layer that cannot be had stops the run, unless the user opted in to degraded mode;
    // then it is named on every run.
    let missing = |layer: String| {
        if policy.degraded {
            eprintln!("warden: running WITHOUT {layer} (--allow-degraded)");
            None
        } else {
            eprintln!(
                "warden: {layer} cannot be had; refusing to run — run `warden doctor` for the fix, or pass --allow-degraded"
            );
            Some(crate::exit::INTERNAL)
        }
    };
    match apply_landlock(&policy) {
        Ok(RulesetStatus::FullyEnforced) => {}
        Ok(RulesetStatus::PartiallyEnforced) => {
            eprintln!("warden: Landlock is only partially enforced by this kernel (an older ABI)")
        }
        Ok(RulesetStatus::NotEnforced) => {
            if let Some(code) = missing("Landlock (not enforced by this kernel)".into()) {
                return code;
            }
        }
        Err(e) => {
            if let Some(code) = missing(format!("Landlock ({e})")) {
                return code;
            }
        }
    }
    if let Err(e) = super::seccomp::apply()
        && let Some(code) = missing(format!("the seccomp filter ({e})"))
    {
        return code;
    }
    let Some((program, rest)) = argv.split_first() else {
        eprintln!("warden: no command given to the sandbox");
        return crate::exit::USAGE;
    };
    if let Some(ready) = ready {
        use std::io::Write;
        if ready.and_then(|mut f| f.write_all(b"1")).is_err() {
            eprintln!("warden: cannot report to the outer stage; refusing to run");
            return crate::exit::INTERNAL;
        }
    }
    let mut error = Command::new(program).args(rest).exec();
    if error.raw_os_error() == Some(libc::ENOEXEC) {
        // A script without `#!`: bash runs such a file itself, and so does this stage.
        error = Command::new("bash").arg(program).args(rest).exec();
    }
    match error.kind() {
        std::io::ErrorKind::NotFound => eprintln!("warden: {program}: command not found"),
        _ => eprintln!("warden: {program}: {error}"),
    }
    match error.kind() {
        std::io::ErrorKind::NotFound => crate::exit::NOT_FOUND,
        _ => crate::exit::NOT_EXECUTABLE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inner_arguments_round_trip() {
        let policy = InnerPolicy {
            read: vec![PathBuf::from("/")],
            write: vec![PathBuf::from("/w"), PathBuf::from("/tmp")],
            network: false,
            guarded: vec![PathBuf::from("/w/.git/hooks")],
            ready_fd: Some(9),
            max_tasks: Some(2048),
            degraded: true,
        };
        let mut args = policy.to_args();
        args.extend([
            "--".to_string(),
            "bash".to_string(),
            "-c".to_string(),
            "--rw x".to_string(),
        ]);
        let (parsed, argv) = InnerPolicy::parse(&args).expect("parses");
        assert_eq!(parsed, policy);
        assert_eq!(argv, vec!["bash", "-c", "--rw x"]);
    }

    #[test]
    fn malformed_inner_arguments_are_errors() {
        assert!(InnerPolicy::parse(&["--ro".to_string()]).is_err());
        assert!(InnerPolicy::parse(&["--bogus".to_string(), "--".to_string()]).is_err());
        assert!(InnerPolicy::parse(&["bash".to_string()]).is_err());
        assert!(InnerPolicy::parse(&["--ready-fd".to_string(), "1".to_string()]).is_err());
    }
}
