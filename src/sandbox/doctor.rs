//! `warden doctor`: what the sandbox can have on this machine, each layer with its fix.

use std::path::Path;

use landlock::{ABI, Access, AccessFs, LandlockStatus, Ruleset, RulesetAttr};
use serde::Serialize;

/// One layer's state.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub name: &'static str,
    /// `ok`, `missing` or `warn`.
    pub status: &'static str,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

fn check(
    name: &'static str,
    status: &'static str,
    detail: impl Into<String>,
    fix: Option<&str>,
) -> Check {
    Check {
        name,
        status,
        detail: detail.into(),
        fix: fix.map(str::to_string),
    }
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

/// Landlock as the kernel offers it, probed on a throw-away thread (restriction applies to the
/// calling thread only, so warden itself stays unrestricted).
fn landlock_check() -> Check {
    let probe = std::thread::spawn(|| {
        Ruleset::default()
            .handle_access(AccessFs::from_all(ABI::V6))
            .and_then(|r| r.create())
            .and_then(|r| r.restrict_self())
            .map(|status| (status.landlock, status.ruleset))
    });
    match probe.join() {
        Ok(Ok((
            LandlockStatus::Available {
                effective_abi,
                kernel_abi,
            },
            ruleset,
        ))) => {
            let kernel = kernel_abi
                .map(|v| format!(" (kernel ABI {v})"))
                .unwrap_or_default();
            check(
                "landlock",
                "ok",
                format!("ABI {effective_abi:?}{kernel}, filesystem rules {ruleset:?}"),
                None,
            )
        }
        Ok(Ok((LandlockStatus::NotEnabled, _))) => check(
            "landlock",
            "missing",
            "built into the kernel but not enabled",
            Some("add `landlock` to the kernel's `lsm=` boot parameter"),
        ),
        Ok(Ok((LandlockStatus::NotImplemented, _))) => check(
            "landlock",
            "missing",
            "not in this kernel",
            Some("use a kernel ≥ 5.13 built with CONFIG_SECURITY_LANDLOCK"),
        ),
        Ok(Err(e)) => check("landlock", "missing", e.to_string(), None),
        Err(_) => check("landlock", "missing", "the probe failed", None),
    }
}

/// What bounds the number of processes a command can start (a fork bomb).
fn processes_check(uid: u32) -> Check {
    if super::cgroup::pid_max_per_namespace() {
        return check(
            "processes",
            "ok",
            format!(
                "kernel.pid_max {} in each sandbox's pid namespace (Linux ≥ 6.14)",
                super::cgroup::MAX_TASKS
            ),
            None,
        );
    }
    if uid != 0 {
        return check(
            "processes",
            "ok",
            format!(
                "RLIMIT_NPROC {} per sandbox (counted in its user namespace)",
                super::cgroup::MAX_TASKS
            ),
            None,
        );
    }
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    match super::cgroup::find_hierarchy(&mounts) {
        Some(h) => match super::cgroup::create() {
            Some(_) => check(
                "processes",
                "ok",
                format!(
                    "cgroup pids.max {} per run ({h:?})",
                    super::cgroup::MAX_TASKS
                ),
                None,
            ),
            None => check(
                "processes",
                "warn",
                format!(
                    "cannot create a cgroup under {h:?}; root is exempt from RLIMIT_NPROC, so a fork bomb is bounded only by the timeout"
                ),
                Some(
                    "run warden as an unprivileged user, or give it a writable cgroup pids hierarchy",
                ),
            ),
        },
        None => check(
            "processes",
            "warn",
            "no cgroup pids controller; root is exempt from RLIMIT_NPROC, so a fork bomb is bounded only by the timeout",
            Some("run warden as an unprivileged user, or mount the cgroup pids controller"),
        ),
    }
}

/// Runs every check; the workspace is where a trial sandbox starts.
pub fn run(workspace: &Path) -> Vec<Check> {
    let mut checks = Vec::new();
    let kernel = read_trimmed("/proc/sys/kernel/osrelease").unwrap_or_else(|| "unknown".into());
    checks.push(check("kernel", "ok", kernel, None));
    let uid = rustix::process::getuid().as_raw();
    checks.push(check(
        "user",
        "ok",
        format!(
            "uid {uid}{}",
            if uid == 0 {
                " (root: capabilities are dropped in the sandbox)"
            } else {
                ""
            }
        ),
        None,
    ));
    if read_trimmed("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").as_deref()
        == Some("1")
        && uid != 0
    {
        checks.push(check(
            "apparmor",
            "warn",
            "kernel.apparmor_restrict_unprivileged_userns=1 stops bwrap from creating user namespaces",
            Some("sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for bwrap"),
        ));
    }
    match read_trimmed("/proc/sys/user/max_user_namespaces").as_deref() {
        Some("0") => checks.push(check(
            "user namespaces",
            "missing",
            "user.max_user_namespaces=0",
            Some("sysctl -w user.max_user_namespaces=15000"),
        )),
        Some(n) => checks.push(check(
            "user namespaces",
            "ok",
            format!("user.max_user_namespaces={n}"),
            None,
        )),
        None => {}
    }
    checks.push(processes_check(uid));
    match super::configure(workspace, false, Vec::new()) {
        Err(e) => checks.push(check(
            "bwrap",
            "missing",
            e.to_string(),
            Some("apt-get install bubblewrap"),
        )),
        Ok(config) => {
            let version = std::process::Command::new(&config.bwrap)
                .arg("--version")
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                .unwrap_or_default();
            checks.push(check(
                "bwrap",
                "ok",
                format!("{} ({})", config.bwrap.display(), version),
                None,
            ));
            let trial = super::command(&config, workspace, &["true".to_string()])
                .and_then(|(mut c, _session)| c.output());
            match trial {
                Ok(out) if out.status.success() => checks.push(check(
                    "sandbox",
                    "ok",
                    "a trial command ran inside the sandbox",
                    None,
                )),
                Ok(out) => {
                    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
                    let fix = if stderr.contains("No permissions to create new namespace")
                        || stderr.contains("Operation not permitted")
                    {
                        Some(
                            "user namespaces are blocked: inside Docker run with a seccomp profile that allows unshare/clone(CLONE_NEWUSER); on Ubuntu ≥ 23.10 relax kernel.apparmor_restrict_unprivileged_userns",
                        )
                    } else {
                        None
                    };
                    checks.push(check(
                        "sandbox",
                        "missing",
                        format!("a trial command failed: {stderr}"),
                        fix,
                    ));
                }
                Err(e) => checks.push(check(
                    "sandbox",
                    "missing",
                    format!("could not start bwrap: {e}"),
                    None,
                )),
            }
        }
    }
    checks.push(landlock_check());
    match super::seccomp::filter() {
        Ok(program) => checks.push(check(
            "seccomp",
            "ok",
            format!(
                "filter of {} instructions for {}",
                program.len(),
                std::env::consts::ARCH
            ),
            None,
        )),
        Err(e) => checks.push(check("seccomp", "missing", e, None)),
    }
    checks
}
