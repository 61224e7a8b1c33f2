//! Safe rewrites of requests that have one.
//!
//! A plain `mv SRC DST` (one source, no options, literal words) becomes three argv steps: copy
//! with everything preserved, verify the copy's content against the source, then remove the
//! source. A move that dies halfway therefore leaves the source in place. When DST is an
//! existing directory the copy goes where `mv` would put it (`DST/name`); if that already exists
//! the rewrite is refused (it would merge or replace) and the request needs approval instead.
//! Invariant: a rewrite is always disclosed and always decided again by the caller.

use std::path::{Path, PathBuf};

use crate::classify::{Effect, Operation};
use crate::pipeline::{Evaluation, quote_argv};
use crate::policy::Decided;
use crate::shell::{Context, Value};

/// A rewrite the caller still has to decide.
#[derive(Clone, Debug)]
pub struct Proposal {
    pub original: String,
    pub steps: Vec<Vec<String>>,
    /// Facts about the rewrite itself (a collision), decided with the steps.
    pub facts_op: Option<Operation>,
}

/// A decided rewrite.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Remediation {
    pub original: String,
    /// Argv steps, run in order, stopping at the first failure.
    pub steps: Vec<Vec<String>>,
    /// One-line disclosure: `[remediated] mv a b → cp … && diff … && rm …`.
    pub disclosure: String,
    pub decided: Decided,
}

impl Proposal {
    pub fn with_decision(self, decided: Decided) -> Remediation {
        let rewritten: Vec<String> = self.steps.iter().map(|s| quote_argv(s)).collect();
        let disclosure = if self.steps.is_empty() {
            format!(
                "[remediated] {} → refused: the destination already exists",
                self.original
            )
        } else {
            format!(
                "[remediated] {} → {}",
                self.original,
                rewritten.join(" && ")
            )
        };
        Remediation {
            original: self.original,
            steps: self.steps,
            disclosure,
            decided,
        }
    }
}

/// Proposes a rewrite for the evaluated request, or None when it has no safe form or needs none.
pub fn propose(evaluation: &Evaluation, ctx: &Context) -> Option<Proposal> {
    let analysis = &evaluation.analysis;
    if !analysis.findings.is_empty() || analysis.invocations.len() != 1 {
        return None;
    }
    let inv = &analysis.invocations[0];
    if inv.program().as_deref() != Some("mv")
        || !inv.via.is_empty()
        || !inv.assigns.is_empty()
        || !inv.redirects.is_empty()
        || inv.privileged
        || inv.args_from_input
        || inv.argv.len() != 3
    {
        return None;
    }
    // The steps run in the request's working directory; a tracked `cd` would change it.
    let cwd = inv.cwd.as_ref().filter(|c| **c == ctx.cwd)?;
    let home = ctx.home.to_string_lossy();
    let mut words = Vec::new();
    for w in &inv.argv[1..] {
        if w.has_glob() {
            return None;
        }
        match w.value(&home) {
            Value::Literal(s) if !s.is_empty() && !s.starts_with('-') => words.push(s),
            _ => return None,
        }
    }
    let (src, dst) = (&words[0], &words[1]);
    plan_move(src, dst, cwd).map(|plan| match plan {
        Move::Steps(steps) => Proposal {
            original: evaluation.request.text(),
            steps,
            facts_op: None,
        },
        Move::Collision(target) => {
            let mut op = Operation {
                program: "mv".into(),
                subcommand: None,
                args: words.clone(),
                effect: Effect::Write,
                targets: Vec::new(),
                remote: None,
                facts: Vec::new(),
                via: Vec::new(),
                privileged: false,
                text: evaluation.request.text(),
            };
            op.fact(
                "remediate.collision",
                format!("`mv {src} {dst}` would replace {}, which already exists; the safe move refuses to merge or overwrite", target.display()),
            );
            Proposal {
                original: evaluation.request.text(),
                steps: Vec::new(),
                facts_op: Some(op),
            }
        }
    })
}

enum Move {
    Steps(Vec<Vec<String>>),
    Collision(PathBuf),
}

fn plan_move(src: &str, dst: &str, cwd: &Path) -> Option<Move> {
    let src_path = cwd.join(src);
    let meta = std::fs::symlink_metadata(&src_path).ok()?;
    let kind = meta.file_type();
    if !(kind.is_file() || kind.is_dir() || kind.is_symlink()) {
        return None;
    }
    let dst_path = cwd.join(dst);
    // Where mv would put it: into DST when DST is a directory (following a symlink to one).
    let (target_shown, target_path) = if std::fs::metadata(&dst_path).is_ok_and(|m| m.is_dir()) {
        let name = Path::new(src.trim_end_matches('/'))
            .file_name()?
            .to_string_lossy()
            .into_owned();
        if name == "." || name == ".." {
            return None;
        }
        let shown = format!("{}/{}", dst.trim_end_matches('/'), name);
        let path = dst_path.join(&name);
        if std::fs::symlink_metadata(&path).is_ok() {
            return Some(Move::Collision(path));
        }
        (shown, path)
    } else {
        if let Ok(existing) = std::fs::symlink_metadata(&dst_path) {
            // mv refuses to put a directory over a file; so does the rewrite.
            if kind.is_dir() || existing.is_dir() {
                return None;
            }
            if same_file(&src_path, &dst_path) {
                return None;
            }
        }
        (dst.to_string(), dst_path)
    };
    // Moving a directory into itself fails in mv; do not rewrite it.
    if kind.is_dir()
        && let (Ok(s), Some(parent)) = (std::fs::canonicalize(&src_path), target_path.parent())
        && std::fs::canonicalize(parent).is_ok_and(|p| p.starts_with(&s))
    {
        return None;
    }
    let mut steps = vec![
        argv(&["cp", "-a", "-T", "--", src, &target_shown]),
        argv(&[
            "diff",
            "-r",
            "-q",
            "--no-dereference",
            "--",
            src,
            &target_shown,
        ]),
    ];
    if kind.is_dir() {
        steps.push(argv(&["rm", "-rf", "--", src]));
    } else {
        steps.push(argv(&["rm", "-f", "--", src]));
    }
    Some(Move::Steps(steps))
}

fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::symlink_metadata(a), std::fs::symlink_metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}
