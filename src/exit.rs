//! The exit-code table. One place, documented in the README and `warden --help`.
//!
//! When a command runs, warden exits with the command's own status (128+N for a signal, as bash
//! reports it). The codes below are warden's own outcomes.

/// Success (also: a check that allows, help and version output).
pub const OK: i32 = 0;
/// `policy test`: some rule example failed; `selftest`: a probe was not contained; `doctor`: a
/// layer is missing.
pub const TEST_FAILED: i32 = 1;
/// Usage error: unknown option, missing command, unreadable rule file, bad workspace.
pub const USAGE: i32 = 2;
/// The request needs a human approval (sensitive or system tier); nothing ran.
pub const NEEDS_APPROVAL: i32 = 75;
/// The request was denied (catastrophic, unverifiable or secret); nothing ran.
pub const DENIED: i32 = 77;
/// The command ran past its time limit and its process group was stopped.
pub const TIMEOUT: i32 = 124;
/// warden itself failed (could not start a process, write output, …).
pub const INTERNAL: i32 = 125;
/// The program exists but cannot be executed (as in bash).
pub const NOT_EXECUTABLE: i32 = 126;
/// The program was not found (as in bash).
pub const NOT_FOUND: i32 = 127;
