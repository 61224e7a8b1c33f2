//! The only `unsafe` code in warden, fenced here: raw file descriptors inherited from warden's
//! parent, which no safe API can name.
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
