//! warden: a guarded shell for AI agents.
//!
//! One request flows one way: [`shell`] parses bash text into invocations, [`classify`] turns
//! each into operations with side effects and real targets, [`policy`] decides with the rule
//! files, [`remediate`] rewrites what has a safe form (and the rewrite is decided again), and
//! [`runner`] executes only what carries an [`policy::Authorized`] token.
#![forbid(unsafe_code)]

pub mod shell;
