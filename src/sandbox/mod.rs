//! The sandbox stage: where allowed commands run.
//!
//! [`bwrap`] builds bubblewrap's command line from a spec by a pure function; [`spec`] gathers
//! what the spec needs from the host (environment allow-list, protected and secret paths). The
//! runner does not use them yet: wiring them in, with the inner Landlock stage, signals sent
//! inside the namespace and output caps, is the next step of this stage.

pub mod bwrap;
pub mod spec;
