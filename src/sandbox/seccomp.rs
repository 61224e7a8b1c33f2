//! The seccomp filter the inner stage installs: system calls a confined command has no use for
//! and that are the usual ways out of a sandbox fail with `EPERM`.
//!
//! Refused: ptrace and cross-process memory access; io_uring (it bypasses the other filters);
//! kernel modules, kexec, mounts, swap, reboot, bpf, perf events, userfaultfd, keyrings, handle
//! based opens (`open_by_handle_at`), namespace switching; `AF_NETLINK` and `AF_PACKET` sockets
//! and raw sockets; the terminal-injection ioctls `TIOCSTI` and `TIOCLINUX`.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

const TIOCSTI: u64 = 0x5412;
const TIOCLINUX: u64 = 0x541C;
const SOCK_RAW: u64 = 3;

fn arch() -> Option<TargetArch> {
    match std::env::consts::ARCH {
        "x86_64" => Some(TargetArch::x86_64),
        "aarch64" => Some(TargetArch::aarch64),
        "riscv64" => Some(TargetArch::riscv64),
        _ => None,
    }
}

fn when(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompRule, seccompiler::BackendError> {
    SeccompRule::new(vec![SeccompCondition::new(
        arg,
        SeccompCmpArgLen::Dword,
        op,
        value,
    )?])
}

/// Builds the filter for this architecture.
pub fn filter() -> Result<BpfProgram, String> {
    let arch = arch().ok_or_else(|| format!("no seccomp filter for {}", std::env::consts::ARCH))?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let always = [
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_reboot,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_userfaultfd,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_open_by_handle_at,
        libc::SYS_setns,
        libc::SYS_acct,
    ];
    for syscall in always {
        rules.insert(syscall, Vec::new());
    }
    let e = |err: seccompiler::BackendError| err.to_string();
    rules.insert(
        libc::SYS_socket,
        vec![
            when(0, SeccompCmpOp::Eq, libc::AF_NETLINK as u64).map_err(e)?,
            when(0, SeccompCmpOp::Eq, libc::AF_PACKET as u64).map_err(e)?,
            when(1, SeccompCmpOp::MaskedEq(0xf), SOCK_RAW).map_err(e)?,
        ],
    );
    rules.insert(
        libc::SYS_ioctl,
        vec![
            when(1, SeccompCmpOp::Eq, TIOCSTI).map_err(e)?,
            when(1, SeccompCmpOp::Eq, TIOCLINUX).map_err(e)?,
        ],
    );
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(e)?;
    BpfProgram::try_from(filter).map_err(|err| err.to_string())
}

/// Installs the filter on the calling thread (and what it executes).
pub fn apply() -> Result<(), String> {
    let program = filter()?;
    seccompiler::apply_filter(&program).map_err(|err| err.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_filter_builds_for_this_architecture() {
        let program = super::filter().expect("filter builds");
        assert!(program.len() > 30, "{} instructions", program.len());
    }
}
