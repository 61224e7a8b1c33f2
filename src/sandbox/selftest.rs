//! `warden selftest`: the containment checks, run against this machine.
//!
//! Each probe is a fixed bash script run inside the sandbox directly (the policy is not asked:
//! these scripts try on purpose what the policy would refuse), and each verdict is taken on the
//! host: a file's content, a marker's absence, what the kernel reports.

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use serde::Serialize;

/// One probe's verdict.
#[derive(Clone, Debug, Serialize)]
pub struct Probe {
    pub name: &'static str,
    pub contained: bool,
    pub detail: String,
}

fn run_in(config: &super::Config, workspace: &Path, script: &str) -> std::io::Result<Output> {
    let argv = vec!["bash".to_string(), "-c".to_string(), script.to_string()];
    let (mut cmd, _session) = super::command(config, workspace, &argv)?;
    cmd.output()
}

fn text(out: &std::io::Result<Output>) -> String {
    match out {
        Ok(o) => String::from_utf8_lossy(&o.stdout).into_owned(),
        Err(e) => format!("(did not run: {e})"),
    }
}

/// Runs every probe; `Err` when the sandbox cannot be had at all.
pub fn run() -> Result<Vec<Probe>, String> {
    let dir = tempfile_dir()?;
    let root = dir.as_path();
    let workspace = root.join("workspace");
    std::fs::create_dir_all(workspace.join(".git/hooks")).map_err(|e| e.to_string())?;
    let config = super::configure(&workspace, false, Vec::new()).map_err(|e| e.to_string())?;
    let mut probes = Vec::new();
    let mut probe = |name: &'static str, contained: bool, detail: String| {
        probes.push(Probe {
            name,
            contained,
            detail,
        })
    };

    let outside = root.join("outside.txt");
    let _ = std::fs::write(&outside, "host\n");
    let out = run_in(
        &config,
        &workspace,
        &format!("echo pwned > '{}'", outside.display()),
    );
    let kept = std::fs::read_to_string(&outside).unwrap_or_default() == "host\n";
    probe(
        "write outside the workspace",
        kept,
        format!("host file {}", if kept { "unchanged" } else { "MODIFIED" }),
    );
    let ran = out.as_ref().is_ok_and(|o| o.status.code().is_some());
    probe(
        "a command runs in the sandbox",
        ran,
        if ran { "ran".into() } else { text(&out) },
    );

    // An entry of the real home that is not a toolchain bound into the sandbox must be invisible.
    let home = std::env::var_os("HOME")
        .map(std::path::PathBuf::from)
        .filter(|h| h.as_os_str() != "/" && h.exists());
    if let Some(home) = home {
        let tools = super::spec::home_toolchains(&std::env::var("PATH").unwrap_or_default(), &home);
        let entry = std::fs::read_dir(&home)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| !tools.trees.iter().any(|t| t.starts_with(p)));
        if let Some(entry) = entry {
            let out = run_in(
                &config,
                &workspace,
                &format!("test -e '{}' && echo VISIBLE", entry.display()),
            );
            probe(
                "real home hidden",
                !text(&out).contains("VISIBLE"),
                entry.display().to_string(),
            );
        }
    }

    let marker = std::env::temp_dir().join(format!("warden-selftest-{}", std::process::id()));
    let _ = std::fs::write(&marker, "host tmp");
    let out = run_in(
        &config,
        &workspace,
        &format!("test -e '{}' && echo VISIBLE", marker.display()),
    );
    let _ = std::fs::remove_file(&marker);
    probe(
        "host /tmp hidden",
        !text(&out).contains("VISIBLE"),
        marker.display().to_string(),
    );

    let hook = workspace.join(".git/hooks/pre-commit");
    let _ = run_in(
        &config,
        &workspace,
        &format!("echo 'echo owned' > '{}'", hook.display()),
    );
    probe(
        "git hooks cannot be planted",
        !hook.exists(),
        hook.display().to_string(),
    );

    let out = run_in(
        &config,
        &workspace,
        "grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status",
    );
    let status = text(&out);
    probe(
        "no capabilities",
        status.contains("CapEff:\t0000000000000000"),
        status.lines().next().unwrap_or("").to_string(),
    );
    probe(
        "seccomp filter installed",
        status.contains("Seccomp:\t2"),
        status.lines().last().unwrap_or("").to_string(),
    );

    let out = run_in(
        &config,
        &workspace,
        "echo x > /run/probe 2>/dev/null && echo WROTE; (exec 3<>/dev/tcp/127.0.0.1/9) 2>/dev/null && echo OPEN; cat /proc/net/dev",
    );
    let seen = text(&out);
    probe(
        "Landlock keeps writes in the workspace",
        !seen.contains("WROTE"),
        "write to /run refused".into(),
    );
    probe(
        "no TCP",
        !seen.contains("OPEN"),
        "connect to 127.0.0.1 refused".into(),
    );
    let interfaces: Vec<&str> = seen
        .lines()
        .filter_map(|l| l.split_once(':').map(|(i, _)| i.trim()))
        .filter(|i| !i.starts_with("Inter") && !i.starts_with("face"))
        .collect();
    probe(
        "only loopback",
        interfaces.iter().all(|i| *i == "lo"),
        format!("interfaces: {}", interfaces.join(" ")),
    );

    let mut runner = crate::runner::Runner::new(
        workspace.clone(),
        crate::runner::Confinement::Sandbox(config.clone()),
    );
    runner.timeout = Duration::from_secs(1);
    runner.grace = Duration::from_secs(1);
    // This probe is ordinary work, so it goes through the shipped policy like any request.
    let start = Instant::now();
    let outcome = crate::policy::Policy::shipped().ok().and_then(|policy| {
        let ctx = crate::shell::Context {
            workspace: workspace.clone(),
            cwd: workspace.clone(),
            home: workspace.clone(),
        };
        let mut evaluator = crate::pipeline::Evaluator::new(policy, ctx);
        let evaluation = evaluator.evaluate(crate::pipeline::Request::shell(
            "trap '' TERM; sleep 30 & sleep 30",
        ));
        evaluation
            .authorize()
            .and_then(|authorized| runner.run(&authorized).ok())
    });
    let stopped = outcome == Some(crate::runner::Outcome::TimedOut)
        && start.elapsed() < Duration::from_secs(10);
    probe(
        "timeout stops a TERM-ignoring tree",
        stopped,
        format!("{:?} after {:.1?}", outcome, start.elapsed()),
    );

    let _ = std::fs::remove_dir_all(root);
    Ok(probes)
}

/// A fresh directory for the probes (removed at the end).
fn tempfile_dir() -> Result<std::path::PathBuf, String> {
    let base = std::env::temp_dir().join(format!(
        "warden-selftest-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&base).map_err(|e| e.to_string())?;
    std::fs::canonicalize(&base).map_err(|e| e.to_string())
}
