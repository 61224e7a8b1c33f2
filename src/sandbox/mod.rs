//! The sandbox stage: where allowed commands run.
//!
//! [`bwrap`] builds bubblewrap's command line from a spec by a pure function. The runner does
//! not use it yet: wiring it in (with the inner Landlock stage, signal handling inside the
//! namespace and output caps) is the next step of this stage.

pub mod bwrap;
