//! In-process decision latency over the tldr corpus.
//!
//! For every command of ../shared/corpora/tldr_commands.tsv (or $WARDEN_BENCH_CORPUS): parse,
//! classify and decide, timing each command. Reports p50/p90/p99/max per command for the full
//! evaluation (with the worker-thread budget) and for the analysis stages called directly.
//! Run: `cargo bench --bench classify`.

use std::time::{Duration, Instant};

use warden::pipeline::{Evaluator, Request};
use warden::policy::{self, Policy};
use warden::shell::{self, Context};

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn report(name: &str, mut times: Vec<Duration>) {
    times.sort();
    let total: Duration = times.iter().sum();
    println!(
        "{name:<28} n={:<6} p50={:>7.1?} p90={:>7.1?} p99={:>7.1?} max={:>8.1?} total={:.3?}",
        times.len(),
        percentile(&times, 0.50),
        percentile(&times, 0.90),
        percentile(&times, 0.99),
        times.last().copied().unwrap_or_default(),
        total
    );
}

fn main() {
    let path = std::env::var("WARDEN_BENCH_CORPUS").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/corpora/tldr_commands.tsv"
        )
        .to_string()
    });
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read corpus {path}: {e}");
            std::process::exit(2);
        }
    };
    let commands: Vec<String> = text
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').nth(2))
        .map(str::to_string)
        .collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let workspace = std::fs::canonicalize(dir.path()).expect("canonical");
    let ctx = Context {
        workspace: workspace.clone(),
        cwd: workspace,
        home: std::env::var_os("HOME")
            .map(Into::into)
            .unwrap_or_else(|| "/root".into()),
    };
    let policy = Policy::shipped().expect("shipped rules");
    // Loading the shipped rules happens once per process: part of every `warden -c` call.
    let mut loads = Vec::with_capacity(200);
    for _ in 0..200 {
        let start = Instant::now();
        std::hint::black_box(Policy::shipped().expect("shipped rules"));
        loads.push(start.elapsed());
    }
    report("load shipped rules", loads);

    // Warm up (page cache, allocator, branch predictors).
    let mut evaluator = Evaluator::new(policy.clone(), ctx.clone());
    for c in commands.iter().take(2000) {
        let _ = evaluator.evaluate(Request::shell(c.clone()));
    }

    // Stages called directly on this thread: the cost of the work itself.
    let mut direct = Vec::with_capacity(commands.len());
    for c in &commands {
        let start = Instant::now();
        let analysis = shell::analyze(c, &ctx);
        let ops = warden::classify::classify(&analysis, &ctx);
        let decided = policy::decide(&ops, &policy);
        std::hint::black_box(decided);
        direct.push(start.elapsed());
    }
    report("parse+classify+decide", direct);

    // The full evaluation as `check --batch` runs it: worker thread, budget, remediation.
    let mut full = Vec::with_capacity(commands.len());
    let wall = Instant::now();
    for c in &commands {
        let start = Instant::now();
        let ev = evaluator.evaluate(Request::shell(c.clone()));
        std::hint::black_box(ev);
        full.push(start.elapsed());
    }
    let wall = wall.elapsed();
    report("evaluate (worker, budget)", full);
    println!(
        "corpus of {} commands evaluated in {:.3?}",
        commands.len(),
        wall
    );

    // The same evaluation with a person's policy file of 24 rules loaded (first match over
    // the user layer on top of the shipped rules).
    let mut user_rules = String::new();
    for (i, program) in [
        "git", "npm", "cargo", "docker", "kubectl", "make", "python3", "pip", "curl", "tar", "ssh",
        "rsync",
    ]
    .iter()
    .enumerate()
    {
        user_rules.push_str(&format!(
            "[[rule]]\nid = \"bench.allow.{i}\"\naction = \"allow\"\nreason = \"r\"\n[rule.match]\nprogram = [\"{program}\"]\nargs = [\"--bench-{i}-*\"]\n\n[[rule]]\nid = \"bench.deny.{i}\"\naction = \"deny\"\nreason = \"r\"\n[rule.match]\nprogram = [\"{program}\"]\npath = [\"/nonexistent/{i}/**\"]\n\n"
        ));
    }
    let layered = Policy::with_layers(&[(
        warden::policy::Layer::User,
        "bench-user.toml".into(),
        user_rules,
    )])
    .expect("user rules");
    let mut with_user = Evaluator::new(layered, ctx.clone());
    let mut user_times = Vec::with_capacity(commands.len());
    for c in &commands {
        let start = Instant::now();
        let ev = with_user.evaluate(Request::shell(c.clone()));
        std::hint::black_box(ev);
        user_times.push(start.elapsed());
    }
    report("evaluate, 24 user rules", user_times);

    // The audit record every acted-on decision adds: build (with redaction), lock, append.
    let log = warden::audit::Log::at(dir.path().join("audit")).expect("audit log");
    let mut audit = Vec::with_capacity(5000);
    for c in commands.iter().take(5000) {
        let ev = evaluator.evaluate(Request::shell(c.clone()));
        let start = Instant::now();
        let record = warden::audit::record_of(
            &ev,
            Some("bench"),
            &ctx.workspace,
            &ctx.cwd,
            false,
            &policy.revision,
            warden::audit::Outcome::default(),
        );
        log.append(&record).expect("append");
        audit.push(start.elapsed());
    }
    report("audit record (build+append)", audit);
}
