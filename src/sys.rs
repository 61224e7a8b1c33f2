//! The only `unsafe` code in warden, fenced here: raw file descriptors inherited from warden's
//! parent, which no safe API can name, and one step between fork and exec.
//!
//! An agent or a test harness may start warden with descriptors open beyond 0–2 (a log file, a
//! socket). Children inherit every descriptor not marked close-on-exec, and bwrap passes them
//! into the sandbox, where a command could read or write the host through them. At startup,
//! before any thread exists, warden marks every inherited descriptor above 2 close-on-exec.
#![allow(unsafe_code)]

use std::os::fd::BorrowedFd;

use rustix::io::{FdFlags, fcntl_getfd, fcntl_setfd};

/// Marks every open descriptor above 2 close-on-exec. Must run while the process has a single
/// thread (at the start of `main`), so no descriptor opens or closes concurrently.
pub fn close_inherited_fds_on_exec() {
    // The lowest free descriptor is the one `read_dir` will get for its own use below: the kernel
    // always hands out the lowest free number, and nothing else runs concurrently.
    let listing_fd = match std::fs::File::open("/dev/null") {
        Ok(probe) => std::os::fd::AsRawFd::as_raw_fd(&probe),
        Err(_) => return,
    };
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    let fds: Vec<i32> = entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&fd| fd > 2 && fd != listing_fd)
        .collect();
    for fd in fds {
        // SAFETY: `fd` was listed as open in /proc/self/fd and is not the listing's own
        // descriptor (excluded above, and now closed); the process is single-threaded, so
        // nothing can close `fd` between the listing and this borrow, which ends with the call.
        let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
        if let Ok(flags) = fcntl_getfd(borrowed) {
            let _ = fcntl_setfd(borrowed, flags | FdFlags::CLOEXEC);
        }
    }
}

/// Makes the process that `cmd` spawns join a cgroup before it executes anything: between fork
/// and exec it writes `0` (itself) to the cgroup's `cgroup.procs`, open as `procs`. Every process
/// it starts is then born inside the cgroup, with no window in which one could be outside.
pub fn join_cgroup_at_spawn(cmd: &mut std::process::Command, procs: std::os::fd::OwnedFd) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the child between fork and exec, where only async-signal-safe
    // work is allowed: it makes one write(2) on a descriptor opened before the fork, allocates
    // nothing, takes no lock and touches no state shared with other threads. `procs` is moved
    // into the closure and lives as long as `cmd`; it is close-on-exec, so the program started
    // never holds it. An error aborts the spawn, so nothing runs outside the cgroup.
    unsafe {
        cmd.pre_exec(move || {
            rustix::io::write(&procs, b"0")
                .map(drop)
                .map_err(std::io::Error::from)
        });
    }
}
