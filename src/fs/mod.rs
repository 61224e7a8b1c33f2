//! Rooted file operations for the file tools: every path is opened beneath one descriptor of
//! the workspace ([`root`]), reads are bounded ([`read`]), writes are atomic and checked
//! against the file they replace ([`write`]), directory listings and searches never step
//! through a link ([`list`], [`search`]).
//!
//! Failures are typed ([`FsError`]), each with the stable code the tool protocol reports and
//! a message written for the agent.

pub mod edit;
pub mod list;
pub mod read;
pub mod root;
pub mod search;
pub mod write;

pub use root::{RelPath, Root};

/// A file-tool failure.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum FsError {
    #[error("`{path}`: {why}")]
    PathRejected { path: String, why: String },
    #[error("`{path}` does not exist")]
    NotFound { path: String },
    #[error("`{path}` is a {kind}, not a regular file")]
    NotARegularFile { path: String, kind: &'static str },
    #[error(
        "`{path}` has {links} hard links: writing it would change files elsewhere; copy it to a new name instead"
    )]
    Hardlinked { path: String, links: u64 },
    #[error("`{path}` is {bytes} bytes; the limit is {limit}: {hint}")]
    FileTooLarge {
        path: String,
        bytes: u64,
        limit: u64,
        hint: String,
    },
    #[error("`{path}` is not UTF-8 text ({detail}); it is not shown")]
    NotUtf8 { path: String, detail: String },
    #[error(
        "`{path}` changed on disk while this request was being carried out: read it again and redo the change"
    )]
    ConcurrentModification { path: String },
    #[error("`{path}`: {message}")]
    Io { path: String, message: String },
}

impl FsError {
    pub fn io(path: &str, e: impl std::fmt::Display) -> FsError {
        FsError::Io {
            path: path.to_string(),
            message: e.to_string(),
        }
    }

    /// The protocol's code for this failure.
    pub fn code(&self) -> &'static str {
        match self {
            FsError::PathRejected { .. } => "PATH_REJECTED",
            FsError::NotFound { .. } => "NOT_FOUND",
            FsError::NotARegularFile { .. } => "NOT_A_REGULAR_FILE",
            FsError::Hardlinked { .. } => "HARDLINKED",
            FsError::FileTooLarge { .. } => "FILE_TOO_LARGE",
            FsError::NotUtf8 { .. } => "NOT_UTF8",
            FsError::ConcurrentModification { .. } => "CONCURRENT_MODIFICATION",
            FsError::Io { .. } => "IO_ERROR",
        }
    }
}

/// Paths beneath the workspace that the file tools never write, for the reasons the sandbox
/// mounts them read-only for commands: warden's own directory, git's hooks and configuration
/// (code that runs on the next git command), and files other tools execute on entering the
/// directory.
pub fn guarded(rel: &RelPath) -> Option<&'static str> {
    let parts = rel.components();
    let first = parts.first().map(String::as_str)?;
    if first == ".warden" {
        return Some("warden's own directory");
    }
    if let Some(i) = parts.iter().position(|p| p == ".git") {
        return match parts.get(i + 1).map(String::as_str) {
            None => Some("a git repository's metadata"),
            Some("hooks" | "config" | "info" | "modules") => {
                Some("git hooks and configuration run code on the next git command")
            }
            Some(_) => Some("a git repository's metadata: use git to change it"),
        };
    }
    match (parts.len(), first) {
        (1, ".gitmodules" | ".envrc") | (_, ".vscode" | ".idea") => {
            Some("a file that tools run or obey on entering the workspace")
        }
        _ => None,
    }
}
