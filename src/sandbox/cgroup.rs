//! A process-count limit for one run.
//!
//! On Linux ≥ 6.14 `kernel.pid_max` is per pid namespace: the inner stage sets it in the
//! sandbox's namespace (see [`super::inner`]), which bounds every process and thread, root's
//! too, at no cost. On older kernels, unprivileged, the inner stage's `RLIMIT_NPROC` bounds a
//! fork bomb (it counts per user namespace); root is exempt from that limit in every namespace
//! (the kernel checks the real user), so warden running as root puts bwrap, before it starts
//! anything, into a fresh cgroup with `pids.max` (joining a cgroup costs a few milliseconds, an
//! RCU grace period, hence the last resort): under cgroup v2 beneath `/sys/fs/cgroup/warden/`, under v1 beneath the
//! `pids` hierarchy's `warden/`. After the run every process still in that cgroup is killed and
//! the cgroup removed. Where no cgroup can be made (a container with a read-only cgroupfs), the
//! run goes ahead without it and `warden doctor` says so.

use std::io::Write;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The most tasks (processes and threads) one run may have at once.
pub const MAX_TASKS: u64 = 2048;

/// Which cgroup hierarchy holds the `pids` controller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hierarchy {
    /// The unified hierarchy, mounted here.
    V2(PathBuf),
    /// A v1 hierarchy with the `pids` controller, mounted here.
    V1(PathBuf),
}

/// Finds the `pids` controller in a `/proc/self/mounts` text.
pub fn find_hierarchy(mounts: &str) -> Option<Hierarchy> {
    let mut v2 = None;
    for line in mounts.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let (Some(dir), Some(fs), Some(opts)) = (fields.get(1), fields.get(2), fields.get(3))
        else {
            continue;
        };
        match *fs {
            "cgroup" if opts.split(',').any(|o| o == "pids") => {
                return Some(Hierarchy::V1(PathBuf::from(dir)));
            }
            "cgroup2" if v2.is_none() => v2 = Some(PathBuf::from(dir)),
            _ => {}
        }
    }
    let v2 = v2?;
    let controllers = std::fs::read_to_string(v2.join("cgroup.controllers")).ok()?;
    controllers
        .split_whitespace()
        .any(|c| c == "pids")
        .then_some(Hierarchy::V2(v2))
}

/// True when this kernel keeps `kernel.pid_max` per pid namespace (Linux ≥ 6.14), so the
/// sandbox can bound its own process count from inside, as root too, without a cgroup.
pub fn pid_max_per_namespace() -> bool {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    release_at_least(&release, (6, 14))
}

fn release_at_least(release: &str, want: (u32, u32)) -> bool {
    let mut parts = release
        .trim()
        .split(|c: char| !c.is_ascii_digit())
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    (major, minor) >= want
}

/// One run's cgroup: removed, with anything left in it killed, on drop.
#[derive(Debug)]
pub struct RunCgroup {
    dir: PathBuf,
}

/// Creates a cgroup for one run, limited to [`MAX_TASKS`], and opens its `cgroup.procs` for the
/// spawned process to join (see [`crate::sys::join_cgroup_at_spawn`]). None when not root or when
/// no writable `pids` hierarchy exists.
pub fn create() -> Option<(RunCgroup, OwnedFd)> {
    if !rustix::process::geteuid().is_root() {
        return None;
    }
    let mounts = std::fs::read_to_string("/proc/self/mounts").ok()?;
    let hierarchy = find_hierarchy(&mounts)?;
    let parent = match &hierarchy {
        Hierarchy::V1(root) | Hierarchy::V2(root) => root.join("warden"),
    };
    if let Hierarchy::V2(root) = &hierarchy {
        enable_pids(root)?;
        std::fs::create_dir_all(&parent).ok()?;
        enable_pids(&parent)?;
    } else {
        std::fs::create_dir_all(&parent).ok()?;
    }
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let dir = parent.join(format!(
        "run-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir(&dir).ok()?;
    let cgroup = RunCgroup { dir };
    std::fs::write(cgroup.dir.join("pids.max"), MAX_TASKS.to_string()).ok()?;
    let procs = std::fs::OpenOptions::new()
        .write(true)
        .open(cgroup.dir.join("cgroup.procs"))
        .ok()?;
    Some((cgroup, OwnedFd::from(procs)))
}

/// Makes the `pids` controller available to the children of a v2 cgroup.
fn enable_pids(dir: &Path) -> Option<()> {
    let control = dir.join("cgroup.subtree_control");
    let current = std::fs::read_to_string(&control).ok()?;
    if current.split_whitespace().any(|c| c == "pids") {
        return Some(());
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(&control)
        .ok()?
        .write_all(b"+pids")
        .ok()
}

impl RunCgroup {
    /// The processes still in the cgroup.
    pub fn pids(&self) -> Vec<i32> {
        std::fs::read_to_string(self.dir.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }
}

impl Drop for RunCgroup {
    fn drop(&mut self) {
        for _ in 0..50 {
            let left = self.pids();
            if left.is_empty() && std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            for pid in left {
                if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                    let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                }
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pids_hierarchy_is_found_in_v1_mounts() {
        let mounts = "tmpfs /sys/fs/cgroup tmpfs rw 0 0\ncgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0\ncgroup /sys/fs/cgroup/pids cgroup rw,relatime,pids 0 0\n";
        assert_eq!(
            find_hierarchy(mounts),
            Some(Hierarchy::V1(PathBuf::from("/sys/fs/cgroup/pids")))
        );
    }

    /// The fallback for root on kernels before 6.14, exercised for real where it can be: a
    /// child joins the run's cgroup before it executes, and dropping the cgroup kills what is
    /// left in it and removes it.
    #[test]
    fn a_spawned_process_is_born_in_the_run_cgroup_and_dies_with_it() {
        let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
        if !rustix::process::geteuid().is_root() || find_hierarchy(&mounts).is_none() {
            eprintln!(
                "not root or no cgroup pids hierarchy here: the fallback cannot be exercised"
            );
            return;
        }
        let (run, procs) = create().expect("root with a pids hierarchy gets a run cgroup");
        assert_eq!(
            std::fs::read_to_string(run.dir.join("pids.max"))
                .expect("pids.max")
                .trim(),
            MAX_TASKS.to_string()
        );
        let mut cmd = std::process::Command::new("sleep");
        cmd.arg("30");
        crate::sys::join_cgroup_at_spawn(&mut cmd, procs);
        let mut child = cmd.spawn().expect("spawn");
        let pid = child.id() as i32;
        assert_eq!(run.pids(), vec![pid]);
        let dir = run.dir.clone();
        drop(run);
        let status = child.wait().expect("wait");
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(9),
            "killed with the cgroup"
        );
        assert!(!dir.exists(), "the cgroup is removed");
    }

    #[test]
    fn kernel_releases_compare_by_major_and_minor() {
        assert!(release_at_least("6.18.44-fc-v669\n", (6, 14)));
        assert!(release_at_least("6.14.0", (6, 14)));
        assert!(!release_at_least("6.8.0-45-generic", (6, 14)));
        assert!(!release_at_least("5.19.1", (6, 14)));
        assert!(!release_at_least("garbage", (6, 14)));
    }

    #[test]
    fn no_hierarchy_without_a_pids_controller() {
        let mounts = "cgroup /sys/fs/cgroup/memory cgroup rw,memory 0 0\nproc /proc proc rw 0 0\n";
        assert_eq!(find_hierarchy(mounts), None);
        // A v2 mount whose controllers cannot be read (absent here) offers nothing.
        assert_eq!(
            find_hierarchy("cgroup2 /nonexistent/cgroup cgroup2 rw 0 0\n"),
            None
        );
    }
}
