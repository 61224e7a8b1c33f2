//! warden: a guarded shell for AI agents.
//!
//! One request flows one way: [`shell`] parses bash text into invocations, [`classify`] turns
//! each into operations with side effects and real targets, [`policy`] decides with the rule
//! files, [`remediate`] rewrites what has a safe form (and the rewrite is decided again),
//! [`pipeline`] strings these stages together under a time budget, and [`runner`] executes only
//! what carries a [`policy::Authorized`] token. [`report`] renders decisions for people and
//! programs.
// Unsafe code is denied everywhere but `sys`, which fences the one place that needs it.
#![deny(unsafe_code)]

pub mod approval;
pub mod ask;
pub mod audit;
pub mod classify;
pub mod cli;
pub mod config;
pub mod envelope;
pub mod exit;
pub mod fs;
pub mod generate;
pub mod guardrail;
pub mod history;
pub mod hook;
pub mod install;
pub mod lint;
pub mod mcp;
pub mod output;
pub mod pipeline;
pub mod policy;
pub mod prompt;
pub mod remediate;
pub mod report;
pub mod runner;
pub mod sandbox;
pub mod scan;
pub mod shell;
pub mod sys;
pub mod toolcall;
pub mod tools;
