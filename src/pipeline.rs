//! One request through every stage: parse → classify → decide → remediate → (authorise).
//!
//! The analysis stages run on a dedicated worker thread with a large stack and a time budget:
//! when the budget runs out, or the grammar crate panics, the request is refused as
//! unverifiable rather than waited on or crashed through. Invariant: every request produces an
//! [`Evaluation`] with a decision; there is no path that yields "no answer" and runs anyway.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::time::Duration;

use crate::classify::{self, Operation};
use crate::policy::{self, Authorized, Decided, Decision, Plan, Policy};
use crate::remediate::{self, Remediation};
use crate::shell::{self, Analysis, Context, Finding, FindingKind};

/// Default wall-clock budget for analysing one request.
pub const DEFAULT_BUDGET: Duration = Duration::from_millis(50);
/// Stack for the analysis worker: the grammar crate recurses on nesting.
const WORKER_STACK: usize = 64 * 1024 * 1024;
const WORKER_NAME: &str = "warden-analysis";

/// What is asked for.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Request {
    /// Bash text (`warden -c`, `check -c`), with positional parameters `$0 $1 …` and bash
    /// set-options (`-e`, `-o pipefail`).
    Shell {
        script: String,
        positional: Vec<String>,
        options: Vec<String>,
    },
    /// An argv run without a shell (`warden run -- PROGRAM ARGS…`).
    Argv { argv: Vec<String> },
    /// A file-tool call (`read_file`, `write_file`, …) with its checked arguments.
    Tool {
        tool: String,
        args: serde_json::Value,
    },
}

impl Request {
    pub fn shell(script: impl Into<String>) -> Request {
        Request::Shell {
            script: script.into(),
            positional: Vec::new(),
            options: Vec::new(),
        }
    }

    /// The request as one line of text, for messages and logs.
    pub fn text(&self) -> String {
        match self {
            Request::Shell { script, .. } => script.clone(),
            Request::Argv { argv } => quote_argv(argv),
            Request::Tool { tool, args } => {
                format!("{tool} {}", crate::classify::files::summary(args))
            }
        }
    }

    fn plan(&self) -> Plan {
        match self {
            Request::Shell {
                script,
                positional,
                options,
            } => Plan::Shell {
                script: script.clone(),
                positional: positional.clone(),
                options: options.clone(),
            },
            Request::Argv { argv } => Plan::Argv { argv: argv.clone() },
            Request::Tool { tool, args } => Plan::Tool {
                tool: tool.clone(),
                args: args.clone(),
            },
        }
    }
}

/// Quotes an argv for display so that it reads back as the same words.
pub fn quote_argv(argv: &[String]) -> String {
    let quoted: Vec<String> = argv
        .iter()
        .map(|a| {
            shlex::try_quote(a)
                .map(|q| q.into_owned())
                .unwrap_or_else(|_| format!("{a:?}"))
        })
        .collect();
    quoted.join(" ")
}

/// Everything decided about one request.
#[derive(Debug)]
pub struct Evaluation {
    pub request: Request,
    pub analysis: Analysis,
    pub operations: Vec<Operation>,
    /// The decision on the request as written.
    pub decided: Decided,
    /// The safe rewrite, when one applies; it carries its own decision.
    pub remediation: Option<Remediation>,
}

impl Evaluation {
    /// The decision that counts: the rewrite's when there is one, else the request's.
    pub fn effective(&self) -> &Decided {
        match &self.remediation {
            Some(r) => &r.decided,
            None => &self.decided,
        }
    }

    pub fn decision(&self) -> Decision {
        self.effective().verdict.decision
    }

    /// What would run if authorised: the rewrite's steps when there is one, else the request.
    pub fn plan(&self) -> Plan {
        match &self.remediation {
            Some(r) => Plan::Steps {
                steps: r.steps.clone(),
            },
            None => self.request.plan(),
        }
    }

    /// The plan to run for a request a person approved (never one the policy denies).
    pub fn authorize_with(&self, consent: crate::policy::Consent) -> Option<Authorized> {
        let mut decisions = vec![&self.decided];
        if let Some(r) = &self.remediation {
            decisions.push(&r.decided);
        }
        Authorized::with_consent(self.plan(), &decisions, consent)
    }

    /// The plan to run, when the policy allows it.
    pub fn authorize(&self) -> Option<Authorized> {
        match &self.remediation {
            Some(r) => Authorized::new(
                Plan::Steps {
                    steps: r.steps.clone(),
                },
                &[&self.decided, &r.decided],
            ),
            None => Authorized::new(self.request.plan(), &[&self.decided]),
        }
    }
}

type Job = (Request, Context);
type Output = (Analysis, Vec<Operation>);

struct Worker {
    jobs: SyncSender<Job>,
    results: Receiver<Output>,
}

impl Worker {
    fn spawn(live: &Arc<AtomicUsize>) -> Option<Worker> {
        // Workers abandoned past their budget finish on their own; while too many are still
        // running, new analyses are refused instead of piling more work on the machine.
        if live.load(Ordering::SeqCst) >= MAX_LIVE_WORKERS {
            return None;
        }
        let (jobs, job_rx) = mpsc::sync_channel::<Job>(1);
        let (result_tx, results) = mpsc::sync_channel::<Output>(1);
        live.fetch_add(1, Ordering::SeqCst);
        let guard = LiveGuard(Arc::clone(live));
        let spawned = std::thread::Builder::new()
            .name(WORKER_NAME.into())
            .stack_size(WORKER_STACK)
            .spawn(move || {
                let _live = guard;
                while let Some((request, ctx)) = receive(&job_rx, WORKER_SPIN) {
                    let output =
                        std::panic::catch_unwind(AssertUnwindSafe(|| analyse(&request, &ctx)))
                            .unwrap_or_else(|_| {
                                finding_only(
                                    FindingKind::ParseError,
                                    "the bash grammar failed on this input",
                                )
                            });
                    if result_tx.send(output).is_err() {
                        break;
                    }
                }
            });
        // On failure the closure, and the guard in it, is dropped: the count is restored.
        spawned.ok()?;
        Some(Worker { jobs, results })
    }
}

/// Analysis threads of one evaluator that may be alive at once (its worker plus abandoned ones).
const MAX_LIVE_WORKERS: usize = 4;

/// Counts a live worker thread until it ends, however it ends.
struct LiveGuard(Arc<AtomicUsize>);

impl Drop for LiveGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// How long each side polls (yielding the CPU between polls) before it sleeps in the kernel.
/// Waking a sleeping thread costs tens of microseconds, more than a typical analysis; polling
/// with `yield_now` keeps a batch fast and still lets the other thread run on a single core.
const WORKER_SPIN: Duration = Duration::from_millis(1);

/// Receives with a short polling phase, then blocks; None once the sender is gone.
fn receive<T>(rx: &Receiver<T>, spin: Duration) -> Option<T> {
    let start = std::time::Instant::now();
    loop {
        match rx.try_recv() {
            Ok(v) => return Some(v),
            Err(mpsc::TryRecvError::Disconnected) => return None,
            Err(mpsc::TryRecvError::Empty) if start.elapsed() < spin => std::thread::yield_now(),
            Err(mpsc::TryRecvError::Empty) => return rx.recv().ok(),
        }
    }
}

/// Like [`receive`] but gives up at the deadline.
fn receive_until<T>(rx: &Receiver<T>, budget: Duration) -> Result<T, RecvTimeoutError> {
    let start = std::time::Instant::now();
    let spin = budget.min(WORKER_SPIN);
    loop {
        match rx.try_recv() {
            Ok(v) => return Ok(v),
            Err(mpsc::TryRecvError::Disconnected) => return Err(RecvTimeoutError::Disconnected),
            Err(mpsc::TryRecvError::Empty) if start.elapsed() < spin => std::thread::yield_now(),
            Err(mpsc::TryRecvError::Empty) => {
                return rx.recv_timeout(budget.saturating_sub(start.elapsed()));
            }
        }
    }
}

fn analyse(request: &Request, ctx: &Context) -> Output {
    let analysis = match request {
        Request::Shell { script, .. } => shell::analyze(script, ctx),
        Request::Argv { argv } => shell::analyze_argv(argv, ctx),
        // Evaluated without the worker (see `Evaluator::evaluate`); nothing to parse.
        Request::Tool { .. } => Analysis::default(),
    };
    let operations = classify::classify(&analysis, ctx);
    (analysis, operations)
}

fn finding_only(kind: FindingKind, detail: &str) -> Output {
    let analysis = Analysis {
        invocations: Vec::new(),
        findings: vec![Finding {
            kind,
            detail: detail.to_string(),
        }],
    };
    let ctx = Context {
        workspace: PathBuf::from("/"),
        cwd: PathBuf::from("/"),
        home: PathBuf::from("/"),
    };
    let operations = classify::classify(&analysis, &ctx);
    (analysis, operations)
}

/// Silences the default panic message for the analysis worker (a panic there is reported as a
/// typed refusal); other threads keep the default report.
fn install_quiet_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().name() != Some(WORKER_NAME) {
                previous(info);
            }
        }));
    });
}

/// Evaluates requests against one policy and context. Reuses one worker thread across requests.
pub struct Evaluator {
    pub policy: Policy,
    pub ctx: Context,
    pub budget: Duration,
    /// The request asks for the host network (`--network`): an operation of its own, judged
    /// by the policy like any other.
    pub network: bool,
    worker: Option<Worker>,
    /// Worker threads of this evaluator still running.
    live: Arc<AtomicUsize>,
}

impl Evaluator {
    pub fn new(policy: Policy, ctx: Context) -> Evaluator {
        install_quiet_hook();
        Evaluator {
            policy,
            ctx,
            budget: DEFAULT_BUDGET,
            network: false,
            worker: None,
            live: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Runs the analysis stages within the budget.
    fn analyse_bounded(&mut self, request: &Request) -> Output {
        if let Request::Shell { script, .. } = request {
            if script.len() > shell::MAX_INPUT_BYTES {
                let detail = format!(
                    "the command is {} bytes; the limit is {} bytes",
                    script.len(),
                    shell::MAX_INPUT_BYTES
                );
                return finding_only(FindingKind::TooLarge, &detail);
            }
            if script.trim().is_empty() {
                return finding_only(FindingKind::ParseError, "the command is empty");
            }
        }
        if self.worker.is_none() {
            self.worker = Worker::spawn(&self.live);
        }
        let Some(worker) = &self.worker else {
            return finding_only(
                FindingKind::OverBudget,
                "earlier analyses that ran out of time are still running, or no thread could be started",
            );
        };
        if worker
            .jobs
            .send((request.clone(), self.ctx.clone()))
            .is_err()
        {
            self.worker = None;
            return finding_only(FindingKind::OverBudget, "the analysis worker stopped");
        }
        match receive_until(&worker.results, self.budget) {
            Ok(output) => output,
            Err(RecvTimeoutError::Timeout) => {
                // Abandon the worker: it finishes on its own and exits when it cannot report.
                self.worker = None;
                let detail = format!("analysis took longer than {} ms", self.budget.as_millis());
                finding_only(FindingKind::OverBudget, &detail)
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.worker = None;
                finding_only(
                    FindingKind::ParseError,
                    "the bash grammar failed on this input",
                )
            }
        }
    }

    /// Parses, classifies, decides and, where a safe form exists, remediates one request.
    pub fn evaluate(&mut self, request: Request) -> Evaluation {
        if let Request::Tool { tool, args } = &request {
            let operations = if tool.contains('.') {
                crate::classify::files::classify_upstream(tool, args, &self.ctx)
            } else {
                crate::classify::files::classify(tool, args, &self.ctx)
            };
            let decided = policy::decide_call(tool, Some(args), &operations, &self.policy);
            return Evaluation {
                request,
                analysis: Analysis::default(),
                operations,
                decided,
                remediation: None,
            };
        }
        let (analysis, mut operations) = self.analyse_bounded(&request);
        if self.network {
            operations.push(network_operation());
        }
        let decided = policy::decide(&operations, &self.policy);
        let mut evaluation = Evaluation {
            request,
            analysis,
            operations,
            decided,
            remediation: None,
        };
        if evaluation.decided.verdict.decision != Decision::Deny {
            evaluation.remediation = remediate::propose(&evaluation, &self.ctx).map(|proposal| {
                let argvs: Vec<Request> = proposal
                    .steps
                    .iter()
                    .map(|s| Request::Argv { argv: s.clone() })
                    .collect();
                let mut ops = Vec::new();
                for step in &argvs {
                    let (_, step_ops) = self.analyse_bounded(step);
                    ops.extend(step_ops);
                }
                ops.extend(proposal.facts_op.clone());
                let decided = policy::decide(&ops, &self.policy);
                proposal.with_decision(decided)
            });
        }
        evaluation
    }
}

/// The operation of asking for the host network.
fn network_operation() -> crate::classify::Operation {
    let mut op = crate::classify::Operation {
        program: "(sandbox)".into(),
        subcommand: None,
        args: vec!["--network".into()],
        effect: crate::classify::Effect::Network,
        targets: Vec::new(),
        remote: None,
        facts: Vec::new(),
        via: Vec::new(),
        privileged: false,
        text: "--network".into(),
    };
    op.fact(
        "network.requested",
        "the command would get the host network (--network)",
    );
    op
}

/// A rule example that did not behave as its rule says.
#[derive(Debug, Clone)]
pub struct ExampleFailure {
    pub rule: String,
    pub example: String,
    /// True for a `match` example that the rule did not decide; false for a `not_match` it did.
    pub should_match: bool,
    /// The rules that did decide the example.
    pub decided_by: Vec<String>,
}

impl std::fmt::Display for ExampleFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let by = if self.decided_by.is_empty() {
            "no rule".to_string()
        } else {
            self.decided_by.join(", ")
        };
        if self.should_match {
            write!(
                f,
                "rule `{}`: example `{}` should match but was decided by {by}",
                self.rule, self.example
            )
        } else {
            write!(
                f,
                "rule `{}`: example `{}` must not match, yet it did",
                self.rule, self.example
            )
        }
    }
}

/// The fixed context rule examples are judged in: a workspace and a home that exist nowhere, so
/// the outcome does not depend on the machine or the directory the check runs in.
pub fn examples_context() -> Context {
    let base = PathBuf::from("/nonexistent/warden-examples");
    Context {
        workspace: base.join("workspace"),
        cwd: base.join("workspace"),
        home: base.join("home"),
    }
}

/// Checks the examples of the rules selected by `which` (all rules of `policy` are in force).
pub fn check_examples(
    policy: &Policy,
    which: impl Fn(&crate::policy::Rule) -> bool,
) -> Vec<ExampleFailure> {
    let mut evaluator = Evaluator::new(policy.clone(), examples_context());
    // Examples are tiny; a generous budget keeps the check independent of machine load.
    evaluator.budget = Duration::from_secs(5);
    let mut failures = Vec::new();
    for rule in policy.rules.iter().filter(|r| which(r)) {
        let cases = rule
            .examples
            .matches
            .iter()
            .map(|e| (e, true))
            .chain(rule.examples.not_match.iter().map(|e| (e, false)));
        for (example, should_match) in cases {
            let ev = evaluator.evaluate(Request::shell(example.clone()));
            let decided_by: Vec<String> = ev.decided.trace.iter().map(|v| v.rule.clone()).collect();
            if decided_by.contains(&rule.id) != should_match {
                failures.push(ExampleFailure {
                    rule: rule.id.clone(),
                    example: example.clone(),
                    should_match,
                    decided_by,
                });
            }
        }
    }
    failures
}
