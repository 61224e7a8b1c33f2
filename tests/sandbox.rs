//! Containment through the real binary and the real bubblewrap.
//!
//! Each escape attempt is a program the policy allows (a Perl script file, which warden does not
//! read) that tries to reach the host; the assertions are made on the host. These tests need
//! `bwrap`: without it they fail, they do not skip.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// The selftests' fork bombs measure how fast the host still starts a process: they run alone,
/// not beside each other or the other sandboxed tests of this file (2 CPUs here).
static HEAVY: RwLock<()> = RwLock::new(());

/// A test's turn: shared with the other tests, or alone.
enum Turn {
    Shared(#[allow(dead_code)] RwLockReadGuard<'static, ()>),
    Alone(#[allow(dead_code)] RwLockWriteGuard<'static, ()>),
}

fn alone() -> Turn {
    Turn::Alone(HEAVY.write().unwrap_or_else(|e| e.into_inner()))
}

struct Env {
    _dir: tempfile::TempDir,
    root: PathBuf,
    workspace: PathBuf,
    home: PathBuf,
    _turn: Turn,
}

impl Env {
    fn new() -> Env {
        Env::with_turn(Turn::Shared(
            HEAVY.read().unwrap_or_else(|e| e.into_inner()),
        ))
    }

    fn with_turn(turn: Turn) -> Env {
        let dir = tempfile::Builder::new()
            .prefix("warden-sandbox-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        let workspace = root.join("workspace");
        let home = root.join("home");
        std::fs::create_dir_all(workspace.join(".git/hooks")).expect("mkdir");
        std::fs::create_dir_all(&home).expect("mkdir");
        std::fs::write(home.join(".bashrc"), "# host rc\n").expect("write");
        std::fs::write(root.join("outside.txt"), "host data\n").expect("write");
        Env {
            _dir: dir,
            root,
            workspace,
            home,
            _turn: turn,
        }
    }

    /// A `PATH` with the usual tools but without bwrap (the sandbox cannot be had).
    fn path_without_bwrap(&self) -> String {
        let bin = self.root.join("bin-without-bwrap");
        if !bin.exists() {
            std::fs::create_dir_all(&bin).expect("mkdir");
            for tool in ["bash", "sh", "ls", "sleep", "cat", "echo"] {
                std::os::unix::fs::symlink(format!("/bin/{tool}"), bin.join(tool))
                    .expect("symlink");
            }
        }
        bin.to_string_lossy().into_owned()
    }

    fn warden(&self, args: &[&str]) -> Output {
        self.warden_with(args, &[])
    }

    fn warden_with(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_warden"));
        cmd.env_clear().env("PATH", PATH).env("HOME", &self.home);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.arg("--workspace")
            .arg(&self.workspace)
            .args(args)
            .current_dir(&self.workspace);
        let out = cmd.output().expect("run warden");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "warden panicked: {stderr}");
        out
    }

    /// Writes a Perl script into the workspace and runs it in the sandbox.
    fn perl(&self, name: &str, code: &str) -> Output {
        std::fs::write(self.workspace.join(name), code).expect("write script");
        self.warden(&["-c", &format!("perl {name}")])
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn describe(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        stdout(out),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[test]
fn bubblewrap_is_installed() {
    let out = Command::new("bwrap")
        .arg("--version")
        .output()
        .expect("bwrap must be installed for the sandbox tests");
    assert!(out.status.success());
}

#[test]
fn workspace_writes_reach_the_host() {
    let env = Env::new();
    let out = env.warden(&["-c", "echo built > out.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(read(&env.workspace.join("out.txt")), "built\n");
}

#[test]
fn writes_outside_the_workspace_fail_and_the_host_file_is_unchanged() {
    let env = Env::new();
    let target = env.root.join("outside.txt");
    let code = format!(
        "open(my $f, '>', '{}') or do {{ print \"blocked\\n\"; exit 0 }}; print $f \"pwned\\n\"; close $f; print \"escaped\\n\";",
        target.display()
    );
    let out = env.perl("escape.pl", &code);
    assert_eq!(read(&target), "host data\n", "{}", describe(&out));
    // Under /tmp the write lands in the sandbox's private /tmp (the host file is untouched, as
    // checked above); anywhere else the read-only root refuses it.
    if !target.starts_with("/tmp") {
        assert!(stdout(&out).contains("blocked"), "{}", describe(&out));
    }
}

#[test]
fn the_real_home_and_host_tmp_are_invisible() {
    let env = Env::new();
    let marker = std::env::temp_dir().join(format!("warden-host-tmp-{}", std::process::id()));
    std::fs::write(&marker, "host tmp").expect("write marker");
    let code = format!(
        "print((-e '{}') ? \"home visible\\n\" : \"home hidden\\n\"); print((-e '{}') ? \"tmp visible\\n\" : \"tmp hidden\\n\");",
        env.home.join(".bashrc").display(),
        marker.display()
    );
    let out = env.perl("look.pl", &code);
    let _ = std::fs::remove_file(&marker);
    let text = stdout(&out);
    assert!(
        text.contains("home hidden") && text.contains("tmp hidden"),
        "{}",
        describe(&out)
    );
}

#[test]
fn git_hooks_cannot_be_planted() {
    let env = Env::new();
    let hook = env.workspace.join(".git/hooks/pre-commit");
    let code = format!(
        "open(my $f, '>', '{}') or do {{ print \"blocked\\n\"; exit 0 }}; print $f \"#!/bin/sh\\n\"; close $f;",
        hook.display()
    );
    let out = env.perl("plant.pl", &code);
    assert!(!hook.exists(), "a hook was planted: {}", describe(&out));
    assert!(stdout(&out).contains("blocked"), "{}", describe(&out));
}

#[test]
fn the_sandbox_holds_no_capabilities_and_no_network() {
    let env = Env::new();
    let out = env.warden(&["-c", "grep CapEff /proc/self/status; cat /proc/net/dev"]);
    let text = stdout(&out);
    assert!(
        text.contains("CapEff:\t0000000000000000"),
        "{}",
        describe(&out)
    );
    let interfaces: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_once(':').map(|(i, _)| i.trim()))
        .filter(|i| *i != "CapEff")
        .collect();
    assert!(
        interfaces
            .iter()
            .all(|i| *i == "lo" || i.starts_with("Inter") || i.starts_with("face")),
        "interfaces: {interfaces:?}"
    );
}

#[test]
fn planted_environment_variables_do_not_reach_the_command() {
    let env = Env::new();
    let out = env.warden_with(
        &["-c", "env"],
        &[
            ("AWS_SECRET_ACCESS_KEY", "leak-me"),
            ("GITHUB_TOKEN", "leak-me"),
            ("BASH_ENV", "/x"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let text = stdout(&out);
    assert!(
        !text.contains("leak-me") && !text.contains("BASH_ENV"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "HOME={}",
            env.workspace.join(".warden/home").display()
        )),
        "{text}"
    );
}

#[test]
fn a_timeout_inside_the_sandbox_stops_the_whole_tree() {
    let env = Env::new();
    let start = Instant::now();
    let out = env.warden(&[
        "--timeout",
        "1s",
        "--grace",
        "1s",
        "-c",
        "trap '' TERM; sleep 30 & sleep 30",
    ]);
    assert_eq!(out.status.code(), Some(124), "{}", describe(&out));
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "took {:?}",
        start.elapsed()
    );
}

#[test]
fn without_bubblewrap_nothing_runs_unless_degraded_mode_is_asked_for() {
    let env = Env::new();
    // A PATH with bash but without bwrap.
    let bin = env.root.join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    std::os::unix::fs::symlink("/bin/bash", bin.join("bash")).expect("symlink");
    let path = bin.to_string_lossy().into_owned();
    let out = env.warden_with(&["-c", "/bin/echo ran"], &[("PATH", &path)]);
    assert_eq!(out.status.code(), Some(125), "{}", describe(&out));
    assert!(!stdout(&out).contains("ran"));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("bubblewrap"),
        "{}",
        describe(&out)
    );
    let out = env.warden_with(
        &["--allow-degraded", "-c", "/bin/echo ran"],
        &[("PATH", &path)],
    );
    assert_eq!(stdout(&out), "ran\n", "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("WITHOUT the sandbox"),
        "{}",
        describe(&out)
    );
}

#[test]
fn tcp_is_refused_inside_the_sandbox_even_on_loopback() {
    let env = Env::new();
    let code = "use IO::Socket::INET; my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1:9', Timeout => 2); print $s ? \"connected\\n\" : \"refused: $!\\n\";";
    let out = env.perl("net.pl", code);
    let text = stdout(&out);
    // Landlock denies the connect itself (EACCES); without it, only lo would answer (ECONNREFUSED).
    assert!(
        text.contains("refused") && text.contains("Permission denied"),
        "{}",
        describe(&out)
    );
}

#[test]
fn landlock_refuses_writes_that_the_mounts_alone_would_allow() {
    let env = Env::new();
    // /run and /var are writable tmpfs mounts inside the sandbox; only Landlock keeps them
    // read-only, so a refused write here is Landlock at work.
    let code = "for my $p ('/run/planted', '/var/planted') { if (open(my $f, '>', $p)) { print \"wrote $p\\n\" } else { print \"refused $p: $!\\n\" } }";
    let out = env.perl("landlock.pl", code);
    let text = stdout(&out);
    assert!(
        text.contains("refused /run/planted: Permission denied"),
        "{}",
        describe(&out)
    );
    assert!(
        text.contains("refused /var/planted: Permission denied"),
        "{}",
        describe(&out)
    );
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("Landlock"),
        "Landlock not fully enforced: {}",
        describe(&out)
    );
}

#[test]
fn an_output_flood_is_capped_and_warden_memory_stays_bounded() {
    use std::io::Read;
    let env = Env::new();
    let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
        .env_clear()
        .env("PATH", PATH)
        .env("HOME", &env.home)
        .arg("--workspace")
        .arg(&env.workspace)
        .args(["-c", "head -c 2147483648 /dev/zero"])
        .current_dir(&env.workspace)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run warden");
    let pid = child.id();
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        stdout.read_to_end(&mut all).expect("read");
        all
    });
    // Sample warden's resident memory while the flood runs.
    let mut peak_kib = 0u64;
    while child.try_wait().expect("wait").is_none() {
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status"))
            && let Some(line) = status.lines().find(|l| l.starts_with("VmRSS:"))
        {
            let kib: u64 = line
                .split_whitespace()
                .nth(1)
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            peak_kib = peak_kib.max(kib);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = reader.join().expect("reader");
    assert!(
        out.len() < 1_100_000,
        "output not capped: {} bytes",
        out.len()
    );
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.contains("bytes of output dropped here, sha256 "),
        "no marker"
    );
    assert!(
        peak_kib > 0 && peak_kib < 64 * 1024,
        "warden's RSS peaked at {peak_kib} KiB"
    );
}

#[test]
fn doctor_reports_each_layer_and_exits_0_when_the_sandbox_works() {
    let env = Env::new();
    let out = env.warden(&["doctor", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let checks: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("doctor --json prints JSON");
    let status_of = |name: &str| {
        checks
            .as_array()
            .and_then(|a| a.iter().find(|c| c["name"] == name))
            .map(|c| c["status"].as_str().unwrap_or_default().to_string())
    };
    assert_eq!(status_of("bwrap").as_deref(), Some("ok"), "{checks}");
    assert_eq!(status_of("sandbox").as_deref(), Some("ok"), "{checks}");
    assert_eq!(status_of("landlock").as_deref(), Some("ok"), "{checks}");
}

#[test]
fn a_signal_to_warden_stops_the_whole_command_tree() {
    for sandbox in [false, true] {
        let env = Env::new();
        let marker = format!("warden-signal-marker-{}-{sandbox}", std::process::id());
        let script =
            format!("bash -c 'exec -a {marker} sleep 30' & bash -c 'exec -a {marker} sleep 30'");
        let mut args = vec![
            "--workspace".to_string(),
            env.workspace.display().to_string(),
        ];
        // Unconfined: degraded mode, where bwrap cannot be found.
        let path = if sandbox {
            PATH.to_string()
        } else {
            args.push("--allow-degraded".into());
            env.path_without_bwrap()
        };
        args.extend(["-c".to_string(), script]);
        let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
            .env_clear()
            .env("PATH", &path)
            .env("HOME", &env.home)
            .args(&args)
            .current_dir(&env.workspace)
            .spawn()
            .expect("run warden");
        let running = |marker: &str| {
            std::fs::read_dir("/proc")
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .filter(|e| {
                    std::fs::read(e.path().join("cmdline"))
                        // argv[0] only: warden's and bash's own command lines mention the marker too.
                        .is_ok_and(|c| c.split(|b| *b == 0).next() == Some(marker.as_bytes()))
                })
                .count()
        };
        let start = Instant::now();
        while running(&marker) < 2 && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(
            running(&marker),
            2,
            "the command tree did not start (sandbox: {sandbox})"
        );
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .expect("kill");
        let status = child.wait().expect("wait");
        assert_eq!(status.code(), Some(143), "sandbox: {sandbox}");
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(
            running(&marker),
            0,
            "processes survived warden's TERM (sandbox: {sandbox})"
        );
    }
}

#[test]
fn toolchains_under_home_run_but_the_rest_of_home_stays_hidden() {
    let env = Env::new();
    let bin = env.home.join(".mytool/bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    std::fs::write(bin.join("mytool"), "#!/bin/sh\necho tool ok\n").expect("write");
    std::fs::set_permissions(bin.join("mytool"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let path = format!("{}:{PATH}", bin.display());
    let bashrc = env.home.join(".bashrc");
    let out = env.warden_with(
        &[
            "-c",
            &format!(
                "mytool; test -e {} && echo rc visible || echo rc hidden",
                bashrc.display()
            ),
        ],
        &[("PATH", &path)],
    );
    let text = stdout(&out);
    assert!(text.contains("tool ok"), "{}", describe(&out));
    assert!(text.contains("rc hidden"), "{}", describe(&out));
}

#[test]
fn inherited_descriptors_do_not_reach_the_command() {
    let env = Env::new();
    let leak = env.root.join("leak.txt");
    std::fs::write(&leak, "host file\n").expect("write");
    for sandbox in ["", "--allow-degraded"] {
        // bash opens fds 7 and 8 without close-on-exec, then becomes warden.
        let script = format!(
            "exec 7<'{leak}' 8>>'{leak}'; exec '{warden}' --workspace '{ws}' {sandbox} -c 'ls /proc/self/fd; echo pwned >&8'",
            leak = leak.display(),
            warden = env!("CARGO_BIN_EXE_warden"),
            ws = env.workspace.display(),
        );
        let path = if sandbox.is_empty() {
            PATH.to_string()
        } else {
            env.path_without_bwrap()
        };
        let out = Command::new("/bin/bash")
            .args(["-c", &script])
            .env_clear()
            .env("PATH", &path)
            .env("HOME", &env.home)
            .current_dir(&env.workspace)
            .output()
            .expect("run");
        let fds: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
        assert_eq!(
            fds,
            vec!["0", "1", "2", "3"],
            "mode {sandbox:?}: {}",
            describe(&out)
        );
        assert_eq!(
            read(&leak),
            "host file\n",
            "a command wrote through an inherited descriptor"
        );
    }
}

#[test]
fn absent_guarded_paths_cannot_be_created_and_leave_nothing_behind() {
    let env = Env::new();
    std::fs::remove_dir_all(env.workspace.join(".git/hooks")).expect("rmdir");
    let plant = "mkdir -p evil; ln -s ../evil .git/hooks; mkdir .git/hooks; echo x > .envrc; mkdir -p .vscode && echo '{}' > .vscode/tasks.json; echo '[submodule]' > .gitmodules; echo '[core] fsmonitor = evil' > .git/config; ls -d .git/hooks .envrc .vscode";
    let out = env.warden(&["-c", plant]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.matches("Read-only file system").count() >= 4 && err.contains("File exists"),
        "{}",
        describe(&out)
    );
    assert!(
        stdout(&out).contains(".envrc"),
        "inside, the placeholders are there: {}",
        describe(&out)
    );
    for name in [
        ".git/hooks",
        ".git/config",
        ".envrc",
        ".vscode",
        ".gitmodules",
    ] {
        assert!(
            std::fs::symlink_metadata(env.workspace.join(name)).is_err(),
            "{name} exists on the host after the run: {}",
            describe(&out)
        );
    }
}

#[test]
fn a_symlink_left_over_a_guarded_path_makes_the_next_run_refuse() {
    let env = Env::new();
    std::fs::remove_dir_all(env.workspace.join(".git/hooks")).expect("rmdir");
    // However it got there (a clone, a run that had no repository to guard), a link over a
    // guarded path would carry the next run's writes wherever it points.
    std::fs::create_dir_all(env.workspace.join("evil")).expect("mkdir");
    std::os::unix::fs::symlink("../evil", env.workspace.join(".git/hooks")).expect("symlink");
    let out = env.warden(&["-c", "true"]);
    assert_eq!(out.status.code(), Some(125), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(".git/hooks is a symbolic link"),
        "{}",
        describe(&out)
    );
}

#[test]
fn a_repository_cannot_be_moved_aside_and_replaced() {
    let env = Env::new();
    let code = r#"
print rename(".git", "old") ? "renamed\n" : "rename: $!\n";
print rename(".git/hooks", "hooks-old") ? "renamed hooks\n" : "rename hooks: $!\n";
"#;
    let out = env.perl("swap.pl", code);
    let text = stdout(&out);
    // EBUSY (a mount point) or EXDEV (across mounts): either way the guard stays put.
    assert!(
        text.contains("rename: ") && text.contains("rename hooks: ") && !text.contains("renamed"),
        "{}",
        describe(&out)
    );
    assert!(env.workspace.join(".git/hooks").is_dir());
}

#[test]
fn commits_work_inside_the_sandbox_and_warden_stays_out_of_git_status() {
    let env = Env::new();
    let init = std::process::Command::new("git")
        .args(["init", "-q", "."])
        .current_dir(&env.workspace)
        .status()
        .expect("git init");
    assert!(init.success());
    let script = "echo hi > note.txt && git add -A && git -c user.name=t -c user.email=t@t commit -qm note && git status --short && echo committed";
    let out = env.warden(&["-c", script]);
    assert_eq!(stdout(&out), "committed\n", "{}", describe(&out));
    let host = std::process::Command::new("git")
        .args(["status", "--short"])
        .current_dir(&env.workspace)
        .output()
        .expect("git");
    assert_eq!(
        String::from_utf8_lossy(&host.stdout),
        "",
        "host git status is clean"
    );
}

#[test]
fn the_seccomp_filter_refuses_escape_system_calls_but_not_ordinary_ones() {
    let env = Env::new();
    let code = r#"
print syscall(101, 0, 0, 0, 0) == -1 ? "ptrace: $!\n" : "ptrace allowed\n";
use Socket;
print socket(my $n, 16, 3, 0) ? "netlink allowed\n" : "netlink: $!\n";
print socket(my $p, 17, 3, 0) ? "packet allowed\n" : "packet: $!\n";
my $c = "x";
print ioctl(STDIN, 0x5412, $c) ? "tiocsti allowed\n" : "tiocsti: $!\n";
print socket(my $u, 1, 1, 0) ? "unix allowed\n" : "unix: $!\n";
"#;
    let out = env.perl("seccomp.pl", code);
    let text = stdout(&out);
    for refused in ["ptrace", "netlink", "packet", "tiocsti"] {
        assert!(
            text.contains(&format!("{refused}: Operation not permitted")),
            "{refused}: {}",
            describe(&out)
        );
    }
    assert!(
        text.contains("unix allowed"),
        "ordinary sockets still work: {}",
        describe(&out)
    );
}

#[test]
fn selftest_finds_everything_contained_on_this_machine() {
    let env = Env::with_turn(alone());
    let out = env.warden(&["selftest", "--json"]);
    let probes: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("selftest --json prints JSON");
    let probes = probes.as_array().expect("a list of probes");
    assert_probes_present(probes);
    let breaches: Vec<&serde_json::Value> =
        probes.iter().filter(|p| p["contained"] != true).collect();
    assert!(breaches.is_empty(), "breaches: {breaches:?}");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

#[test]
fn selftest_also_finds_everything_contained_for_an_unprivileged_user() {
    let _turn = alone();
    // As `nobody`: bwrap builds the sandbox in an unprivileged user namespace.
    let out = Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "env",
            "-i",
            "PATH=/usr/bin:/bin",
            "HOME=/nonexistent",
        ])
        .arg(env!("CARGO_BIN_EXE_warden"))
        .args(["selftest", "--json"])
        .current_dir("/")
        .output()
        .expect("setpriv (util-linux) runs");
    let probes: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("selftest as nobody: {}", describe(&out)));
    let probes = probes.as_array().expect("a list of probes");
    assert_probes_present(probes);
    let breaches: Vec<&serde_json::Value> =
        probes.iter().filter(|p| p["contained"] != true).collect();
    assert!(breaches.is_empty(), "breaches as nobody: {breaches:?}");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

#[test]
fn a_sandbox_that_cannot_start_runs_nothing_unless_degraded_mode_is_asked_for() {
    let env = Env::new();
    // A bwrap that fails the way it does where user namespaces are blocked.
    let bin = env.root.join("bin-failing-bwrap");
    std::fs::create_dir_all(&bin).expect("mkdir");
    std::fs::write(
        bin.join("bwrap"),
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n",
    )
    .expect("write");
    std::fs::set_permissions(bin.join("bwrap"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let path = format!("{}:{PATH}", bin.display());
    let marker = env.workspace.join("ran.txt");
    let script = format!("echo ran > '{}'", marker.display());
    let out = env.warden_with(&["-c", &script], &[("PATH", &path)]);
    assert_eq!(out.status.code(), Some(125), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("No permissions to create new namespace")
            && err.contains("the sandbox could not start")
            && err.contains("warden doctor"),
        "{}",
        describe(&out)
    );
    assert!(!marker.exists(), "the command ran without its sandbox");
    let out = env.warden_with(&["--allow-degraded", "-c", &script], &[("PATH", &path)]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(marker.exists(), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("WITHOUT"),
        "{}",
        describe(&out)
    );
}

#[test]
fn the_network_is_an_operation_that_needs_approval() {
    let env = Env::new();
    let out = env.warden(&["--network", "-c", "true"]);
    assert_eq!(out.status.code(), Some(75), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("[sensitive] needs approval: the command would get the host network"),
        "{}",
        describe(&out)
    );
}

/// The containment suite's probes that must be there, as root and unprivileged alike.
fn assert_probes_present(probes: &[serde_json::Value]) {
    for name in [
        "write outside the workspace",
        "host /tmp hidden",
        "git hooks cannot be planted",
        "no capabilities",
        "setuid helpers cannot elevate (no_new_privs)",
        "seccomp filter installed",
        "Landlock keeps writes in the workspace",
        "no TCP",
        "only loopback",
        "timeout stops a TERM-ignoring tree",
        "signals cannot reach the host",
        "no process outlives the timeout",
        "a fork bomb is bounded",
        "/tmp is size-capped",
        "host unix sockets unreachable",
        "host unix sockets unreachable (network authorised)",
        "/proc shows only the sandbox",
        "ptrace of pid 1 refused",
        "mounts and remounts refused",
        "no DNS without the network",
    ] {
        assert!(
            probes.iter().any(|p| p["name"] == name),
            "probe `{name}` missing: {probes:?}"
        );
    }
}

#[test]
fn stopped_daemonised_and_term_ignoring_processes_are_gone_after_the_timeout() {
    let env = Env::new();
    let marker = format!("warden-ps-marker-{}", std::process::id());
    let script = format!(
        "setsid -f bash -c 'exec -a {marker} sleep 300'\n(exec -a {marker} sleep 300) &\nkill -STOP $!\nnohup bash -c 'exec -a {marker} sleep 300' >/dev/null 2>&1 &\ntrap '' TERM\nsleep 300\n"
    );
    std::fs::write(env.workspace.join("daemons.sh"), script).expect("write");
    let start = Instant::now();
    let out = env.warden(&["--timeout", "1s", "--grace", "1s", "-c", "bash daemons.sh"]);
    assert_eq!(out.status.code(), Some(124), "{}", describe(&out));
    assert!(start.elapsed() < Duration::from_secs(10));
    std::thread::sleep(Duration::from_millis(200));
    let ps = Command::new("ps")
        .args(["-eo", "pid,stat,args"])
        .output()
        .expect("ps (procps) runs");
    let left: Vec<String> = String::from_utf8_lossy(&ps.stdout)
        .lines()
        .filter(|l| l.contains(&marker))
        .map(str::to_string)
        .collect();
    assert!(left.is_empty(), "still running on the host: {left:?}");
}

#[test]
fn a_term_trapping_command_gets_its_term_and_then_the_grace() {
    let env = Env::new();
    let script = "trap 'echo got TERM > term.txt' TERM\nwhile :; do sleep 0.1; done\n";
    std::fs::write(env.workspace.join("trap.sh"), script).expect("write");
    let start = Instant::now();
    let out = env.warden(&["--timeout", "1s", "--grace", "2s", "-c", "bash trap.sh"]);
    let took = start.elapsed();
    assert_eq!(out.status.code(), Some(124), "{}", describe(&out));
    assert_eq!(read(&env.workspace.join("term.txt")), "got TERM\n");
    assert!(
        took >= Duration::from_millis(2900) && took < Duration::from_secs(10),
        "TERM at 1 s, KILL after the 2 s grace: {took:?}"
    );
}

#[test]
fn links_to_host_secrets_cannot_be_followed_or_made() {
    let env = Env::new();
    let secret = env.home.join(".ssh/id_ed25519");
    std::fs::create_dir_all(secret.parent().expect("parent")).expect("mkdir");
    std::fs::write(&secret, "PRIVATE KEY MATERIAL\n").expect("write");
    let shadow_like = env.root.join("outside-secret.txt");
    std::fs::write(&shadow_like, "HOST SECRET\n").expect("write");
    // Links a person might find in a checkout, and links the command tries to make itself.
    std::os::unix::fs::symlink(&secret, env.workspace.join("key-link")).expect("symlink");
    std::os::unix::fs::symlink(&shadow_like, env.workspace.join("outside-link")).expect("symlink");
    let code = format!(
        r#"
for my $p ("key-link", "outside-link", "/etc/shadow") {{
    if (open(my $f, "<", $p)) {{ local $/; my $t = <$f>; print "read $p: $t\n"; }} else {{ print "no $p: $!\n"; }}
}}
print link("{secret}", "hard-key") ? "hardlinked key\n" : "no hardlink: $!\n";
print link("{outside}", "hard-out") ? "hardlinked outside\n" : "no hardlink: $!\n";
"#,
        secret = secret.display(),
        outside = shadow_like.display()
    );
    let out = env.perl("links.pl", &code);
    let text = stdout(&out);
    assert!(
        !text.contains("PRIVATE KEY") && !text.contains("HOST SECRET") && !text.contains("root:"),
        "{}",
        describe(&out)
    );
    assert!(
        text.matches("no hardlink").count() == 2 && text.contains("no key-link"),
        "{}",
        describe(&out)
    );
    assert!(!env.workspace.join("hard-key").exists());
}

/// SHA-256 of a host file, through the system's `sha256sum`.
fn hash(path: &Path) -> String {
    let out = Command::new("sha256sum")
        .arg(path)
        .output()
        .expect("sha256sum runs");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn writes_to_the_home_etc_and_usr_bin_fail_and_host_files_keep_their_hash() {
    let env = Env::new();
    let bashrc = env.home.join(".bashrc");
    let watched = [
        bashrc.clone(),
        PathBuf::from("/etc/hosts"),
        PathBuf::from("/etc/passwd"),
    ];
    let before: Vec<String> = watched.iter().map(|p| hash(p)).collect();
    let marker = format!("warden-probe-{}", std::process::id());
    let code = format!(
        r#"
for my $p ("{bashrc}", "/etc/hosts", "/etc/passwd", "/etc/{marker}", "/usr/bin/{marker}") {{
    if (open(my $f, ">>", $p)) {{ print $f "pwned\n"; close $f; print "wrote $p\n"; }} else {{ print "refused $p\n"; }}
}}
"#,
        bashrc = bashrc.display()
    );
    let out = env.perl("writes.pl", &code);
    let after: Vec<String> = watched.iter().map(|p| hash(p)).collect();
    assert_eq!(before, after, "a host file changed: {}", describe(&out));
    for created in [format!("/etc/{marker}"), format!("/usr/bin/{marker}")] {
        assert!(!Path::new(&created).exists(), "{created} was created");
    }
    assert_eq!(
        stdout(&out).matches("refused").count(),
        5,
        "every write refused: {}",
        describe(&out)
    );
}

#[test]
fn configured_variables_pass_but_credentials_and_loader_hooks_never_do() {
    let env = Env::new();
    let out = env.warden_with(
        &[
            "--pass-env",
            "MY_SETTING",
            "--pass-env=AWS_SECRET_ACCESS_KEY",
            "--pass-env",
            "LD_PRELOAD",
            "-c",
            "env",
        ],
        &[
            ("MY_SETTING", "on"),
            ("AWS_SECRET_ACCESS_KEY", "planted-secret"),
            ("LD_PRELOAD", "/nonexistent.so"),
            ("OTHER", "not asked for"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let text = stdout(&out);
    assert!(
        text.lines().any(|l| l == "MY_SETTING=on"),
        "{}",
        describe(&out)
    );
    for absent in ["planted-secret", "LD_PRELOAD", "OTHER="] {
        assert!(!text.contains(absent), "{absent}: {}", describe(&out));
    }
}

#[test]
fn the_root_and_the_home_are_refused_as_workspaces_even_in_degraded_mode() {
    let env = Env::new();
    for (workspace, why) in [
        (PathBuf::from("/"), "root of the filesystem"),
        (env.home.clone(), "holds your home directory"),
    ] {
        for degraded in [false, true] {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_warden"));
            cmd.env_clear().env("PATH", PATH).env("HOME", &env.home);
            if degraded {
                cmd.arg("--allow-degraded");
            }
            let out = cmd
                .arg("--workspace")
                .arg(&workspace)
                .args(["-c", "touch warden-was-here"])
                .current_dir(&workspace)
                .output()
                .expect("run warden");
            assert_eq!(out.status.code(), Some(125), "{}", describe(&out));
            assert!(
                String::from_utf8_lossy(&out.stderr).contains(why),
                "{}",
                describe(&out)
            );
            assert!(!workspace.join("warden-was-here").exists());
        }
    }
}
