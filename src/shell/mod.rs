//! Bash text → the simple commands bash would run.
//!
//! This stage owns everything syntactic: parsing with a real bash grammar (brush-parser), walking
//! every place bash executes code (lists, pipelines, subshells, groups, substitutions, process
//! substitutions, function bodies, compound commands, heredocs), recursing into code given as data
//! (`bash -c`, `eval`, text piped into a shell), and peeling wrappers (`sudo`, `env`, `xargs`, …) by
//! their real argv grammar. Its output is a flat list of [`Invocation`]s plus [`Finding`]s for
//! whatever could not be verified. Invariant: nothing here decides; anything the walker cannot see
//! through becomes a finding, never a silent omission.

mod unwrap;
mod walk;
pub mod word;

use std::path::PathBuf;

pub use walk::join_normal;
pub use word::{Part, Source, Value, Word};

/// Inputs larger than this are refused before parsing.
pub const MAX_INPUT_BYTES: usize = 1024 * 1024;
/// Code-as-data recursion (`bash -c`, `eval`, substitutions, piped scripts) deeper than this is refused.
pub const MAX_DEPTH: usize = 8;
/// Syntactic nesting (parentheses, braces) deeper than this is refused before parsing, because the
/// grammar crate recurses on it and would exhaust the stack.
pub const MAX_NESTING: usize = 96;
/// Parentheses nested deeper than this are refused before parsing: the grammar crate
/// backtracks between `((` arithmetic and nested subshells, and its time doubles (or
/// quadruples) with every level.
pub const MAX_PAREN_NESTING: usize = 16;
/// Upper bound on simple commands produced by one analysis.
pub const MAX_INVOCATIONS: usize = 20_000;

/// Where and as whom the command would run; used to resolve `~` and relative paths.
#[derive(Clone, Debug)]
pub struct Context {
    pub workspace: PathBuf,
    pub cwd: PathBuf,
    pub home: PathBuf,
}

/// A redirection's direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RedirectKind {
    Read,
    Write,
    Append,
    ReadWrite,
    /// `>&2`, `2>&1`, `<&0`: duplicates a descriptor, touches no file.
    Duplicate,
}

/// A file redirection with its target word.
#[derive(Clone, Debug)]
pub struct Redirect {
    pub fd: Option<i32>,
    pub kind: RedirectKind,
    pub target: Word,
}

/// What a command reads on its standard input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Whatever warden itself was given (a terminal, or nothing).
    Inherited,
    /// The output of the previous pipeline element, or a heredoc / here-string.
    From(Source),
    /// A file redirected with `<`.
    File(String),
}

/// The working directory a command runs in, as tracked through `cd`, `pushd` and `popd`.
pub type Cwd = Option<PathBuf>;

/// One simple command as bash would execute it, with wrappers peeled off.
#[derive(Clone, Debug)]
pub struct Invocation {
    /// Leading `NAME=value` words, including those given to `env`.
    pub assigns: Vec<(String, Word)>,
    /// The real program and its arguments (empty for a bare redirection such as `> file`).
    pub argv: Vec<Word>,
    pub redirects: Vec<Redirect>,
    pub input: Input,
    /// None when a `cd` to an unknown place came before.
    pub cwd: Cwd,
    /// Wrappers seen through, outermost first (`sudo`, `env`, `xargs`, `find -exec`, …).
    pub via: Vec<String>,
    /// Runs as another user (sudo, doas, su, pkexec, …).
    pub privileged: bool,
    /// Extra arguments come from standard input (`xargs`, `parallel`): unknown before running.
    pub args_from_input: bool,
    /// The arguments are paths found by `find` under these roots (`find ROOT -exec rm {} +`).
    pub found_under: Vec<Word>,
    /// Recursion depth of code-as-data this command was found in (0 = the input itself).
    pub depth: usize,
}

impl Invocation {
    /// The program name (quote-removed, path stripped) when it is literal.
    pub fn program(&self) -> Option<String> {
        let first = self.argv.first()?.as_literal()?;
        Some(program_name(&first).to_string())
    }

    /// A short human rendering of the command.
    pub fn display(&self) -> String {
        let mut out = String::new();
        for (name, value) in &self.assigns {
            out.push_str(name);
            out.push('=');
            out.push_str(&value.raw);
            out.push(' ');
        }
        let words: Vec<&str> = self.argv.iter().map(|w| w.raw.as_str()).collect();
        out.push_str(&words.join(" "));
        for r in &self.redirects {
            let op = match r.kind {
                RedirectKind::Read => "<",
                RedirectKind::Write => ">",
                RedirectKind::Append => ">>",
                RedirectKind::ReadWrite => "<>",
                RedirectKind::Duplicate => ">&",
            };
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(op);
            out.push(' ');
            out.push_str(&r.target.raw);
        }
        out
    }
}

/// `/usr/bin/rm` → `rm`; the directory does not change which program semantics apply.
pub fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Something the walker could not see through or that is dangerous by its shape alone.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    pub kind: FindingKind,
    pub detail: String,
}

/// The kinds of structural findings; each maps to a fact the rules can match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    ParseError,
    TooLarge,
    TooDeep,
    OverBudget,
    DynamicProgram,
    DynamicCode,
    UnknownCodeToShell,
    DownloadToShell,
    AliasUsed,
    ForkBomb,
}

impl FindingKind {
    /// The fact name rules use to match this finding.
    pub fn fact(self) -> &'static str {
        match self {
            FindingKind::ParseError => "input.parse_error",
            FindingKind::TooLarge => "input.too_large",
            FindingKind::TooDeep => "input.too_deep",
            FindingKind::OverBudget => "input.over_budget",
            FindingKind::DynamicProgram => "program.dynamic",
            FindingKind::DynamicCode => "code.dynamic",
            FindingKind::UnknownCodeToShell => "code.unknown_origin",
            FindingKind::DownloadToShell => "code.download_to_shell",
            FindingKind::AliasUsed => "alias.used",
            FindingKind::ForkBomb => "fork_bomb",
        }
    }
}

/// The result of walking a command: every simple command plus what could not be verified.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub invocations: Vec<Invocation>,
    pub findings: Vec<Finding>,
}

/// Parser options fixed for warden: bash mode, extglob on (as interactive bash has it).
pub(crate) fn parser_options() -> brush_parser::ParserOptions {
    brush_parser::ParserOptions::default()
}

/// Parses bash text and walks it into invocations.
pub fn analyze(source: &str, ctx: &Context) -> Analysis {
    walk::Walker::new(ctx).run(source)
}

/// Analyses an argv given without a shell (`warden run -- PROGRAM ARGS…`).
pub fn analyze_argv(argv: &[String], ctx: &Context) -> Analysis {
    walk::Walker::new(ctx).run_argv(argv)
}

/// Splits one simple command of literal words the way bash would after quote removal.
///
/// Used by the differential test against the real bash; errors on anything that is not a single
/// simple command of literal words.
pub fn literal_words(source: &str) -> Result<Vec<String>, String> {
    let ctx = Context {
        workspace: PathBuf::from("/"),
        cwd: PathBuf::from("/"),
        home: PathBuf::from("/"),
    };
    let analysis = analyze(source, &ctx);
    if let Some(f) = analysis.findings.first() {
        return Err(format!("{:?}: {}", f.kind, f.detail));
    }
    match analysis.invocations.as_slice() {
        [] => Ok(Vec::new()),
        [one] => one
            .argv
            .iter()
            .map(|w| {
                w.as_literal()
                    .ok_or_else(|| format!("dynamic word {}", w.raw))
            })
            .collect(),
        _ => Err("more than one command".into()),
    }
}

/// Cheap pre-parse guard: the deepest nesting of `(`/`{`/`[` in the raw text, and of `(` alone,
/// counted without regard to quoting (so they over-count, never under-count).
pub(crate) fn raw_nesting(source: &str) -> (usize, usize) {
    let (mut depth, mut max) = (0usize, 0usize);
    let (mut parens, mut max_parens) = (0usize, 0usize);
    for b in source.bytes() {
        match b {
            b'(' => {
                depth += 1;
                parens += 1;
                max = max.max(depth);
                max_parens = max_parens.max(parens);
            }
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' => {
                depth = depth.saturating_sub(1);
                parens = parens.saturating_sub(1);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    (max, max_parens)
}

/// Inputs on which the grammar crate is known to panic (integer overflow on a redirection's file
/// descriptor `77777777777<`, or a directory-stack index `~+99999999999`), refused up front. The
/// pipeline also catches panics; this keeps them out of the common path.
pub(crate) fn known_parser_panic(source: &str) -> Option<&'static str> {
    let bytes = source.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let long = i - start >= 10;
            let before = start.checked_sub(1).map(|k| bytes[k]);
            if long && i < bytes.len() && matches!(bytes[i], b'<' | b'>') {
                return Some("a file descriptor number too large for a redirection");
            }
            if long
                && (before == Some(b'~')
                    || (matches!(before, Some(b'+' | b'-'))
                        && start >= 2
                        && bytes[start - 2] == b'~'))
            {
                return Some("a directory-stack index too large");
            }
            continue;
        }
        i += 1;
    }
    None
}
