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
        "grep -E '^(CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status",
    );
    let status = text(&out);
    let caps: Vec<&str> = status.lines().filter(|l| l.starts_with("Cap")).collect();
    probe(
        "no capabilities",
        caps.len() == 4 && caps.iter().all(|l| l.ends_with("\t0000000000000000")),
        caps.join(" "),
    );
    probe(
        "setuid helpers cannot elevate (no_new_privs)",
        status.contains("NoNewPrivs:\t1"),
        "NoNewPrivs set".into(),
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

    let out = run_in(
        &config,
        &workspace,
        "ls /proc | grep -c '^[0-9][0-9]*$'; perl -e 'print syscall(101, 16, 1, 0, 0) == -1 ? \"refused\\n\" : \"ATTACHED\\n\"'; mount -t tmpfs none /tmp 2>/dev/null && echo MOUNTED; mount -o remount,rw / 2>/dev/null && echo REMOUNTED; mount -o remount,rw /usr 2>/dev/null && echo REMOUNTED; (echo x > /usr/warden-probe) 2>/dev/null && echo WROTE; getent ahosts example.com >/dev/null 2>&1 && echo RESOLVED; true",
    );
    let seen = text(&out);
    let mut lines = seen.lines();
    let visible: usize = lines
        .next()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(usize::MAX);
    probe(
        "/proc shows only the sandbox",
        visible <= 10,
        format!("{visible} processes visible"),
    );
    probe(
        "ptrace of pid 1 refused",
        seen.contains("refused") && !seen.contains("ATTACHED"),
        "PTRACE_ATTACH to pid 1".into(),
    );
    probe(
        "mounts and remounts refused",
        !seen.contains("MOUNTED") && !seen.contains("WROTE"),
        "tmpfs mount, remount of / and /usr rw, write to /usr".into(),
    );
    probe(
        "no DNS without the network",
        !seen.contains("RESOLVED"),
        "getent ahosts example.com".into(),
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

    probes.extend(host_wide_probes(&config, &workspace));
    let _ = std::fs::remove_dir_all(root);
    Ok(probes)
}

/// Processes on the host whose command line contains `marker` once the kernel has had `patience`
/// to finish tearing down a killed sandbox (thousands of processes of a fork bomb take a moment
/// to die on a loaded machine; one that is still there after it has outlived the sandbox).
fn left_after(marker: &str, patience: Duration) -> usize {
    let deadline = Instant::now() + patience;
    loop {
        let left = host_processes_with(marker);
        if left == 0 || Instant::now() >= deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Processes on the host whose command line contains `marker`.
pub fn host_processes_with(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|c| String::from_utf8_lossy(c).contains(marker))
        .count()
}

/// A prefix for probe scripts: stop unless the script is inside the sandbox (its own pid
/// namespace, no capabilities). Host-wide probes (`kill -9 -1`, a fork bomb, a fill) run only
/// after it; outside a sandbox, as root, they would take the machine down with them.
fn inside_guard() -> String {
    let host_ns = std::fs::read_link("/proc/self/ns/pid")
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!(
        "if [ -z '{host_ns}' ] || [ \"$(readlink /proc/self/ns/pid)\" = '{host_ns}' ] || ! grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status; then echo NOT-INSIDE; exit 99; fi; "
    )
}

fn probe_runner(config: &super::Config, workspace: &Path, seconds: u64) -> crate::runner::Runner {
    let mut runner = crate::runner::Runner::new(
        workspace.to_path_buf(),
        crate::runner::Confinement::Sandbox(config.clone()),
    );
    runner.timeout = Duration::from_secs(seconds);
    runner.grace = Duration::from_secs(1);
    runner.max_stdout = Some(64 * 1024);
    runner.max_stderr = Some(64 * 1024);
    runner
}

fn bash(script: String) -> Vec<String> {
    vec!["bash".into(), "-c".into(), script]
}

/// Probes that would harm the host if they escaped: signals to every process, a fork bomb, a
/// `/tmp` fill, daemons that outlive their parent, host sockets.
fn host_wide_probes(config: &super::Config, workspace: &Path) -> Vec<Probe> {
    let mut probes = Vec::new();
    let tag = format!("warden-probe-{}", std::process::id());
    let guard = inside_guard();

    // Signals: `kill -9 -1` and a signal to a host pid.
    let host_child = std::process::Command::new("sleep").arg("30").spawn();
    if let Ok(mut child) = host_child {
        let script = format!(
            "{guard}kill -9 -1 2>/dev/null; kill -9 {} 2>/dev/null; true",
            child.id()
        );
        let outcome = probe_runner(config, workspace, 10).run_probe(&bash(script));
        std::thread::sleep(Duration::from_millis(100));
        let alive = matches!(child.try_wait(), Ok(None));
        let _ = child.kill();
        let _ = child.wait();
        probes.push(Probe {
            name: "signals cannot reach the host",
            contained: alive && outcome.is_ok(),
            detail: format!(
                "host process {} after `kill -9 -1`",
                if alive { "alive" } else { "KILLED" }
            ),
        });
    }

    // Daemons: a `setsid -f` child, a stopped child, a nohup child, a TERM-ignoring parent.
    let marker = format!("{tag}-daemon");
    let script = format!(
        "{guard}setsid -f bash -c 'exec -a {marker} sleep 300'; (exec -a {marker} sleep 300) & kill -STOP $!; nohup bash -c 'exec -a {marker} sleep 300' >/dev/null 2>&1 & trap '' TERM; sleep 300"
    );
    let outcome = probe_runner(config, workspace, 2).run_probe(&bash(script));
    let left = left_after(&marker, Duration::from_secs(5));
    probes.push(Probe {
        name: "no process outlives the timeout",
        contained: left == 0 && matches!(outcome, Ok(crate::runner::Outcome::TimedOut)),
        detail: format!("{left} left after {outcome:?} (setsid -f, stopped, nohup, TERM ignored)"),
    });

    // A fork bomb: bounded, and the host keeps starting processes meanwhile.
    let marker = format!("{tag}-bomb");
    let script = format!("{guard}exec -a {marker} perl -e 'fork while 1'");
    let runner = probe_runner(config, workspace, 3);
    let bomb = std::thread::spawn(move || runner.run_probe(&bash(script)));
    std::thread::sleep(Duration::from_millis(1500));
    let start = Instant::now();
    let spawned = std::process::Command::new("true")
        .status()
        .is_ok_and(|s| s.success());
    let spawn_time = start.elapsed();
    let outcome = bomb.join().ok();
    let left = left_after(&marker, Duration::from_secs(5));
    probes.push(Probe {
        name: "a fork bomb is bounded",
        contained: spawned
            && spawn_time < Duration::from_secs(1)
            && left == 0
            && matches!(outcome, Some(Ok(crate::runner::Outcome::TimedOut))),
        detail: format!("host started a process in {spawn_time:.1?} during the bomb; {left} left"),
    });

    // Filling /tmp: the private tmpfs is full at its cap; the host's /tmp is another filesystem.
    let cap_mib = config.tmp_bytes >> 20;
    let out = run_in(
        config,
        workspace,
        &format!(
            "{guard}head -c {}M /dev/zero > /tmp/fill 2>/dev/null; echo size=$(( $(stat -c %s /tmp/fill) >> 20 ))",
            cap_mib + 64
        ),
    );
    let size: u64 = text(&out)
        .trim()
        .strip_prefix("size=")
        .and_then(|v| v.parse().ok())
        .unwrap_or(u64::MAX);
    probes.push(Probe {
        name: "/tmp is size-capped",
        contained: size <= cap_mib,
        detail: format!(
            "{size} MiB written of {} asked, cap {cap_mib} MiB",
            cap_mib + 64
        ),
    });

    // Host unix sockets, by path and abstract, with the network off and authorised.
    probes.extend(socket_probes(config, workspace, &tag));
    probes
}

fn socket_probes(config: &super::Config, workspace: &Path, tag: &str) -> Vec<Probe> {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener};
    let mut probes = Vec::new();
    let mut listeners: Vec<(String, UnixListener)> = Vec::new();
    for dir in [std::env::temp_dir(), std::path::PathBuf::from("/run")] {
        let path = dir.join(format!("{tag}.sock"));
        let _ = std::fs::remove_file(&path);
        if let Ok(l) = UnixListener::bind(&path) {
            listeners.push((path.display().to_string(), l));
        }
    }
    let abstract_name = format!("{tag}-abstract");
    if let Ok(l) = SocketAddr::from_abstract_name(abstract_name.as_bytes())
        .and_then(|a| UnixListener::bind_addr(&a))
    {
        listeners.push((format!("\\0{abstract_name}"), l));
    }
    for (_, l) in &listeners {
        let _ = l.set_nonblocking(true);
    }
    let connect = |target: &str| {
        format!(
            "perl -MIO::Socket::UNIX -e 'my $s = IO::Socket::UNIX->new(Peer => \"{target}\"); print $s ? \"CONNECTED\\n\" : \"refused\\n\"'; "
        )
    };
    let script: String = listeners.iter().map(|(t, _)| connect(t)).collect();
    for network in [false, true] {
        let mut cfg = config.clone();
        cfg.network = network;
        let out = run_in(&cfg, workspace, &script);
        let accepted = listeners.iter().filter(|(_, l)| l.accept().is_ok()).count();
        let said = text(&out);
        probes.push(Probe {
            name: if network {
                "host unix sockets unreachable (network authorised)"
            } else {
                "host unix sockets unreachable"
            },
            contained: accepted == 0 && !said.contains("CONNECTED") && out.is_ok(),
            detail: format!(
                "{} listeners ({}), {accepted} reached",
                listeners.len(),
                listeners
                    .iter()
                    .map(|(t, _)| t.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    }
    for (target, _) in &listeners {
        if !target.starts_with('\\') {
            let _ = std::fs::remove_file(target);
        }
    }
    probes
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
