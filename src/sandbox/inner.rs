//! The inner stage: warden's own binary, the first program inside the sandbox.
//!
//! It checks that it holds no capabilities (a sandbox started as root without `--cap-drop ALL`
//! could remount the host writable), then replaces itself with the command. Landlock and the
//! seccomp filter are applied here in the next step of this stage.

use std::os::unix::process::CommandExt;
use std::process::Command;

/// The capability mask the kernel reports as effective for this process.
fn effective_capabilities() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("CapEff:"))?;
    u64::from_str_radix(line.trim_start_matches("CapEff:").trim(), 16).ok()
}

/// Runs the command; returns only on failure, with the exit code to use.
pub fn run(argv: &[String]) -> i32 {
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
    let Some((program, args)) = argv.split_first() else {
        eprintln!("warden: no command given to the sandbox");
        return crate::exit::USAGE;
    };
    let error = Command::new(program).args(args).exec();
    eprintln!("warden: {program}: {error}");
    match error.kind() {
        std::io::ErrorKind::NotFound => crate::exit::NOT_FOUND,
        _ => crate::exit::NOT_EXECUTABLE,
    }
}
