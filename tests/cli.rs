//! The `warden` binary end to end: every test runs the real executable with a cleared
//! environment, a fresh home and a fresh workspace (under the target directory, never /tmp), and
//! checks what an agent would observe: the exit status, stdout, stderr and the files on disk.

use std::ffi::{OsStr, OsString};
use std::io::Write as _;
use std::os::unix::ffi::OsStringExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// Exit codes of warden's own outcomes (src/exit.rs).
const USAGE: i32 = 2;
const NEEDS_APPROVAL: i32 = 75;
const DENIED: i32 = 77;
const TIMEOUT: i32 = 124;
const NOT_FOUND: i32 = 127;

/// The keys every JSON decision record carries.
const RECORD_KEYS: &[&str] = &[
    "command", "decision", "tier", "rule", "reason", "hint", "rewrite",
];

/// A workspace and a home in a fresh directory under the target dir, and a way to run warden
/// there with nothing inherited from the caller's environment.
struct TestEnvironment {
    _root: tempfile::TempDir,
    root: PathBuf,
    workspace: PathBuf,
    home: PathBuf,
}

/// What one run of warden produced.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {:?} after {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.code, self.elapsed, self.stdout, self.stderr
        )
    }
}

impl Run {
    #[track_caller]
    fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(self.code, Some(code), "unexpected exit status: {self:?}");
        self
    }

    /// The stdout lines, each parsed as one JSON value.
    #[track_caller]
    fn json_lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|l| {
                serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("not a JSON line ({e}): {l:?}\n{self:?}"))
            })
            .collect()
    }
}

impl TestEnvironment {
    fn new() -> TestEnvironment {
        let dir = tempfile::Builder::new()
            .prefix("warden-cli-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("create test directory");
        let root = std::fs::canonicalize(dir.path()).expect("canonical test directory");
        let workspace = root.join("workspace");
        let home = root.join("home");
        std::fs::create_dir(&workspace).expect("create workspace");
        std::fs::create_dir(&home).expect("create home");
        TestEnvironment {
            _root: dir,
            root,
            workspace,
            home,
        }
    }

    /// The binary with a cleared environment, run in the workspace; no arguments yet.
    fn bare_command(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_warden"));
        cmd.env_clear()
            .env("PATH", PATH)
            .env("HOME", &self.home)
            .current_dir(&self.workspace);
        cmd
    }

    /// The binary with `--workspace` already given.
    fn command(&self) -> Command {
        let mut cmd = self.bare_command();
        cmd.arg("--workspace").arg(&self.workspace);
        cmd
    }

    /// Runs `warden --workspace W ARGS…` with empty stdin.
    fn run<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = self.command();
        cmd.args(args);
        finish(cmd, None)
    }

    /// Runs `warden --workspace W ARGS…` with `input` on stdin.
    fn run_with_stdin<I, S>(&self, args: I, input: &[u8]) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = self.command();
        cmd.args(args);
        finish(cmd, Some(input.to_vec()))
    }

    /// Runs warden with stdout and stderr going to files, and waits for warden itself (not for
    /// whoever else holds its output) up to a generous bound.
    fn run_detached<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let out_path = self.root.join("detached.stdout");
        let err_path = self.root.join("detached.stderr");
        let mut cmd = self.command();
        cmd.args(args)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out_path).expect("stdout file"))
            .stderr(std::fs::File::create(&err_path).expect("stderr file"));
        let start = Instant::now();
        let mut child = cmd.spawn().expect("start warden");
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for warden") {
                break Some(status);
            }
            if start.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let elapsed = start.elapsed();
        let run = Run {
            code: status.and_then(|s| s.code()),
            stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
            stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
            elapsed,
        };
        assert_no_panic(&run);
        run
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.workspace.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent directory");
        }
        std::fs::write(&path, text).expect("write file");
        path
    }

    fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.workspace.join(relative))
            .unwrap_or_else(|e| panic!("read {relative}: {e}"))
    }

    fn exists(&self, relative: &str) -> bool {
        std::fs::symlink_metadata(self.workspace.join(relative)).is_ok()
    }

    /// Writes a rule file next to (not inside) the workspace and returns its path.
    fn rule_file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.root.join(name);
        std::fs::write(&path, text).expect("write rule file");
        path
    }
}

fn finish(mut cmd: Command, input: Option<Vec<u8>>) -> Run {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let start = Instant::now();
    let mut child = cmd.spawn().expect("start warden");
    let writer = input.map(|bytes| {
        let mut stdin = child.stdin.take().expect("piped stdin");
        // warden may stop reading early (a refusal); a broken pipe is then expected.
        std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        })
    });
    let output = child.wait_with_output().expect("wait for warden");
    let elapsed = start.elapsed();
    if let Some(w) = writer {
        w.join().expect("stdin writer");
    }
    let run = Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        elapsed,
    };
    assert_no_panic(&run);
    run
}

/// No run of warden, whatever its input, may end in a Rust panic.
#[track_caller]
fn assert_no_panic(run: &Run) {
    assert!(
        !run.stderr.contains("panicked") && run.code != Some(101),
        "warden panicked: {run:?}"
    );
}

#[track_caller]
fn assert_record_keys(record: &Value) {
    for key in RECORD_KEYS {
        assert!(
            record.get(key).is_some(),
            "JSON record lacks `{key}`: {record}"
        );
    }
}

/// Processes whose argv[0] is exactly `marker`.
fn processes_named(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if cmdline.split(|b| *b == 0).next() == Some(marker.as_bytes()) {
            found.push(pid);
        }
    }
    found
}

/// Kills leftovers of a failed test by their pids, so a failure does not leak sleeping processes.
fn kill_pids(pids: &[u32]) {
    for pid in pids {
        let _ = Command::new("kill")
            .arg("-KILL")
            .arg(pid.to_string())
            .status();
    }
}

fn unique_marker(test: &str) -> String {
    format!("warden-marker-{test}-{}", std::process::id())
}

// ---------------------------------------------------------------------------------------------
// 1. Shell form

#[test]
fn dash_c_runs_the_command_and_exits_0() {
    let env = TestEnvironment::new();
    let run = env.run(["-c", "echo hi"]);
    run.expect_code(0);
    assert_eq!(run.stdout, "hi\n", "{run:?}");
}

#[test]
fn bash_style_option_spellings_are_accepted() {
    let env = TestEnvironment::new();
    let spellings: &[&[&str]] = &[
        &["-lc", "echo hi"],
        &["-ec", "echo hi"],
        &["-l", "-c", "echo hi"],
        &["--login", "-c", "echo hi"],
    ];
    for args in spellings {
        let run = env.run(*args);
        assert_eq!(run.code, Some(0), "{args:?}: {run:?}");
        assert_eq!(run.stdout, "hi\n", "{args:?}: {run:?}");
    }
}

#[test]
fn words_after_the_command_string_become_dollar_0_and_dollar_1() {
    let env = TestEnvironment::new();
    let run = env.run(["-c", "echo \"$0 $1\"", "zero", "one"]);
    run.expect_code(0);
    assert_eq!(run.stdout, "zero one\n", "{run:?}");
}

#[test]
fn the_commands_own_exit_status_is_returned() {
    let env = TestEnvironment::new();
    env.run(["-c", "exit 3"]).expect_code(3);
    env.run(["-c", "false"]).expect_code(1);
}

#[test]
fn errexit_stops_at_the_first_failure() {
    let env = TestEnvironment::new();
    let run = env.run(["-ec", "false; echo after"]);
    run.expect_code(1);
    assert!(!run.stdout.contains("after"), "{run:?}");

    let run = env.run(["-e", "-c", "false; echo after"]);
    run.expect_code(1);
    assert!(!run.stdout.contains("after"), "{run:?}");
}

// ---------------------------------------------------------------------------------------------
// 2. Denials

#[test]
fn denied_command_prints_tier_reason_hint_and_exits_77() {
    let env = TestEnvironment::new();
    let run = env.run(["-c", "rm -rf /"]);
    run.expect_code(DENIED);
    assert!(run.stderr.starts_with("[catastrophic] blocked:"), "{run:?}");
    assert!(run.stderr.contains(" — "), "reason and hint: {run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
}

#[test]
fn denied_script_runs_none_of_its_commands() {
    let env = TestEnvironment::new();
    let run = env.run(["-c", "touch ran.txt; rm -rf /"]);
    run.expect_code(DENIED);
    assert!(
        !env.exists("ran.txt"),
        "part of a denied script ran: {run:?}"
    );
}

#[test]
fn deleting_home_is_denied_and_home_is_untouched() {
    let env = TestEnvironment::new();
    let canary = env.home.join("canary.txt");
    std::fs::write(&canary, "still here\n").expect("write canary");
    let run = env.run(["-c", "rm -rf ~"]);
    run.expect_code(DENIED);
    assert!(run.stderr.starts_with("[catastrophic] blocked:"), "{run:?}");
    assert_eq!(
        std::fs::read_to_string(&canary).expect("canary survives"),
        "still here\n"
    );
}

#[test]
fn reading_a_secret_is_denied_without_leaking_its_value() {
    let env = TestEnvironment::new();
    env.write(".env", "API_TOKEN=s3cr3t-value-4242\n");
    let run = env.run(["-c", "cat .env"]);
    run.expect_code(DENIED);
    assert!(run.stderr.starts_with("[secret] blocked:"), "{run:?}");
    assert!(!run.stdout.contains("s3cr3t-value-4242"), "{run:?}");
    assert!(!run.stderr.contains("s3cr3t-value-4242"), "{run:?}");
}

#[test]
fn json_flag_in_shell_form_reports_a_denial_as_a_json_record_on_stderr() {
    let env = TestEnvironment::new();
    let run = env.run(["--json", "-c", "rm -rf /"]);
    run.expect_code(DENIED);
    let record: Value = serde_json::from_str(run.stderr.trim())
        .unwrap_or_else(|e| panic!("stderr is not JSON ({e}): {run:?}"));
    assert_record_keys(&record);
    assert_eq!(record["decision"], "deny");
    assert_eq!(record["tier"], "catastrophic");
}

// ---------------------------------------------------------------------------------------------
// 3. Ask

#[test]
fn sensitive_command_needs_approval_and_exits_75() {
    let env = TestEnvironment::new();
    let run = env.run(["-c", "git push"]);
    run.expect_code(NEEDS_APPROVAL);
    assert!(
        run.stderr.starts_with("[sensitive] needs approval:"),
        "{run:?}"
    );
    assert!(run.stderr.contains(" — "), "reason and hint: {run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
}

#[test]
fn script_needing_approval_runs_none_of_its_commands() {
    let env = TestEnvironment::new();
    let run = env.run(["-c", "touch ran.txt; git push"]);
    run.expect_code(NEEDS_APPROVAL);
    assert!(
        !env.exists("ran.txt"),
        "part of an unapproved script ran: {run:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// 4. Usage errors

#[test]
fn unknown_option_is_a_usage_error() {
    let env = TestEnvironment::new();
    let run = env.run(["--frobnicate", "-c", "echo hi"]);
    run.expect_code(USAGE);
    assert!(run.stderr.contains("--frobnicate"), "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
}

#[test]
fn dash_c_without_a_string_is_a_usage_error() {
    let env = TestEnvironment::new();
    let run = env.run(["-c"]);
    run.expect_code(USAGE);
    assert!(run.stderr.contains("-c"), "{run:?}");
    assert!(run.stderr.contains("command string"), "{run:?}");
}

#[test]
fn run_without_a_program_is_a_usage_error() {
    let env = TestEnvironment::new();
    let run = env.run(["run"]);
    run.expect_code(USAGE);
    assert!(run.stderr.contains("error:"), "{run:?}");
    assert!(run.stderr.contains("PROGRAM"), "{run:?}");
}

#[test]
fn check_null_without_batch_is_a_usage_error() {
    let env = TestEnvironment::new();
    let run = env.run(["check", "--null"]);
    run.expect_code(USAGE);
    assert!(run.stderr.contains("--batch"), "{run:?}");
}

#[test]
fn malformed_timeout_is_a_usage_error_in_both_forms() {
    let env = TestEnvironment::new();
    let run = env.run(["--timeout", "abc", "-c", "echo hi"]);
    run.expect_code(USAGE);
    assert!(run.stderr.contains("abc"), "{run:?}");
    assert!(run.stdout.is_empty(), "nothing ran: {run:?}");

    let run = env.run(["--timeout", "abc", "run", "--", "echo", "hi"]);
    run.expect_code(USAGE);
    assert!(run.stderr.contains("abc"), "{run:?}");
    assert!(run.stdout.is_empty(), "nothing ran: {run:?}");
}

#[test]
fn missing_workspace_is_a_usage_error() {
    let env = TestEnvironment::new();
    let mut cmd = env.bare_command();
    cmd.arg("--workspace")
        .arg(env.root.join("no-such-dir"))
        .args(["-c", "echo hi"]);
    let run = finish(cmd, None);
    run.expect_code(USAGE);
    assert!(run.stderr.contains("no-such-dir"), "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
}

// ---------------------------------------------------------------------------------------------
// 5. Bad input

#[test]
fn empty_command_is_denied_as_unverifiable() {
    let env = TestEnvironment::new();
    let run = env.run(["-c", ""]);
    run.expect_code(DENIED);
    assert!(run.stderr.contains("[unverifiable]"), "{run:?}");
    assert!(run.stderr.contains("empty"), "{run:?}");
}

#[test]
fn unbalanced_quote_is_denied_as_unverifiable() {
    let env = TestEnvironment::new();
    let run = env.run(["-c", "echo 'x"]);
    run.expect_code(DENIED);
    assert!(run.stderr.starts_with("[unverifiable] blocked:"), "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
}

#[test]
fn invalid_utf8_command_is_denied_without_a_panic() {
    let env = TestEnvironment::new();
    let bytes = OsString::from_vec(vec![0xff, 0xfe]);
    let run = env.run([OsString::from("-c"), bytes]);
    run.expect_code(DENIED);
    assert!(run.stderr.contains("[unverifiable]"), "{run:?}");
    assert!(run.stderr.contains("UTF-8"), "{run:?}");
}

#[test]
fn invalid_utf8_positional_parameter_is_denied() {
    let env = TestEnvironment::new();
    let run = env.run([
        OsString::from("-c"),
        OsString::from("touch ran.txt"),
        OsString::from("zero"),
        OsString::from_vec(vec![b'a', 0xff]),
    ]);
    run.expect_code(DENIED);
    assert!(run.stderr.contains("[unverifiable]"), "{run:?}");
    assert!(!env.exists("ran.txt"), "{run:?}");
}

#[test]
fn batch_lines_with_invalid_utf8_or_a_nul_byte_are_denied() {
    let env = TestEnvironment::new();
    let input = b"echo first\n\xff\xfe echo\necho a\0b\necho last\n";
    let run = env.run_with_stdin(["check", "--batch"], input);
    run.expect_code(0);
    let records = run.json_lines();
    assert_eq!(records.len(), 4, "{run:?}");
    for r in &records {
        assert_record_keys(r);
    }
    let decisions: Vec<&str> = records
        .iter()
        .map(|r| r["decision"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(decisions, ["allow", "deny", "deny", "allow"], "{run:?}");
    assert_eq!(records[1]["tier"], "unverifiable");
    assert_eq!(records[2]["tier"], "unverifiable");
    assert_eq!(records[3]["command"], "echo last");
}

#[test]
fn oversized_batch_command_is_denied_as_unverifiable() {
    let env = TestEnvironment::new();
    let mut input = b"echo ".to_vec();
    input.extend(std::iter::repeat_n(b'a', 2 * 1024 * 1024));
    input.push(b'\n');
    let run = env.run_with_stdin(["check", "--batch"], &input);
    run.expect_code(0);
    let records = run.json_lines();
    assert_eq!(records.len(), 1, "{run:?}");
    assert_record_keys(&records[0]);
    assert_eq!(records[0]["decision"], "deny", "{run:?}");
    assert_eq!(records[0]["tier"], "unverifiable", "{run:?}");
    assert!(
        run.stdout.len() < 4096,
        "the oversized command is not echoed back in full ({} bytes)",
        run.stdout.len()
    );
}

#[test]
fn oversized_script_on_stdin_is_denied() {
    let env = TestEnvironment::new();
    let mut input = b"touch ran.txt\n".to_vec();
    input.extend(std::iter::repeat_n(b'#', 2 * 1024 * 1024));
    input.push(b'\n');
    let run = env.run_with_stdin(std::iter::empty::<&str>(), &input);
    run.expect_code(DENIED);
    assert!(run.stderr.contains("[unverifiable]"), "{run:?}");
    assert!(!env.exists("ran.txt"), "{run:?}");
}

// ---------------------------------------------------------------------------------------------
// 6. check

#[test]
fn check_allows_an_ordinary_command_and_exits_0() {
    let env = TestEnvironment::new();
    let run = env.run(["check", "-c", "git status"]);
    run.expect_code(0);
    assert!(run.stdout.contains("allowed"), "{run:?}");
}

#[test]
fn check_does_not_run_the_command() {
    let env = TestEnvironment::new();
    let run = env.run(["check", "-c", "touch ran.txt"]);
    run.expect_code(0);
    assert!(!env.exists("ran.txt"), "check ran the command: {run:?}");
}

#[test]
fn check_json_denial_is_one_record_with_every_field_and_exits_77() {
    let env = TestEnvironment::new();
    let run = env.run(["check", "--json", "-c", "rm -rf /"]);
    run.expect_code(DENIED);
    let records = run.json_lines();
    assert_eq!(records.len(), 1, "{run:?}");
    let r = &records[0];
    assert_record_keys(r);
    assert_eq!(r["command"], "rm -rf /");
    assert_eq!(r["decision"], "deny");
    assert_eq!(r["tier"], "catastrophic");
    assert_eq!(r["rule"], "catastrophic.delete-root");
    assert!(r["reason"].as_str().is_some_and(|s| !s.is_empty()), "{r}");
    assert!(r["hint"].as_str().is_some_and(|s| !s.is_empty()), "{r}");
}

#[test]
fn check_argv_form_needing_approval_exits_75() {
    let env = TestEnvironment::new();
    let run = env.run(["check", "--", "git", "push"]);
    run.expect_code(NEEDS_APPROVAL);
    assert!(run.stdout.contains("needs approval"), "{run:?}");
}

#[test]
fn check_without_a_command_is_a_usage_error() {
    let env = TestEnvironment::new();
    let run = env.run(["check"]);
    run.expect_code(USAGE);
    assert!(run.stderr.contains("-c STRING"), "{run:?}");
}

// ---------------------------------------------------------------------------------------------
// 7. check --batch

#[test]
fn batch_answers_one_json_line_per_input_line_in_order() {
    let env = TestEnvironment::new();
    let run = env.run_with_stdin(["check", "--batch"], b"ls -la\nrm -rf /\ngit push\n");
    run.expect_code(0);
    let records = run.json_lines();
    assert_eq!(records.len(), 3, "{run:?}");
    let got: Vec<(&str, &str)> = records
        .iter()
        .map(|r| {
            (
                r["command"].as_str().unwrap_or("?"),
                r["decision"].as_str().unwrap_or("?"),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("ls -la", "allow"),
            ("rm -rf /", "deny"),
            ("git push", "ask")
        ],
        "{run:?}"
    );
    for r in &records {
        assert_record_keys(r);
    }
}

#[test]
fn batch_with_null_separator_keeps_multi_line_commands_whole() {
    let env = TestEnvironment::new();
    let mut cmd = env.bare_command();
    cmd.args(["check", "--batch", "--null", "--json", "--workspace"])
        .arg(&env.workspace);
    let run = finish(cmd, Some(b"echo a\necho b\0rm -rf /\0".to_vec()));
    run.expect_code(0);
    let records = run.json_lines();
    assert_eq!(records.len(), 2, "{run:?}");
    for r in &records {
        assert_record_keys(r);
    }
    assert_eq!(records[0]["command"], "echo a\necho b");
    assert_eq!(records[0]["decision"], "allow");
    assert_eq!(records[1]["command"], "rm -rf /");
    assert_eq!(records[1]["decision"], "deny");
    assert_eq!(records[1]["tier"], "catastrophic");
}

#[test]
fn batch_with_empty_input_prints_nothing_and_exits_0() {
    let env = TestEnvironment::new();
    let run = env.run_with_stdin(["check", "--batch"], b"");
    run.expect_code(0);
    assert!(run.stdout.is_empty(), "{run:?}");
}

// ---------------------------------------------------------------------------------------------
// 8. run

#[test]
fn run_passes_arguments_without_shell_reparsing() {
    let env = TestEnvironment::new();
    let run = env.run(["run", "--", "printf", "%s\\n", "a b", "$HOME"]);
    run.expect_code(0);
    assert_eq!(run.stdout, "a b\n$HOME\n", "{run:?}");
}

#[test]
fn run_denies_a_catastrophic_argv_with_77() {
    let env = TestEnvironment::new();
    let run = env.run(["run", "--", "rm", "-rf", "/"]);
    run.expect_code(DENIED);
    assert!(run.stderr.starts_with("[catastrophic] blocked:"), "{run:?}");
}

#[test]
fn run_of_a_missing_program_exits_127() {
    let env = TestEnvironment::new();
    let run = env.run(["run", "--", "no-such-program-xyz"]);
    run.expect_code(NOT_FOUND);
    assert!(run.stderr.contains("no-such-program-xyz"), "{run:?}");
}

// ---------------------------------------------------------------------------------------------
// 9. Remediation

#[test]
fn plain_mv_is_remediated_into_copy_verify_remove() {
    let env = TestEnvironment::new();
    env.write("a.txt", "the content\n");
    let run = env.run(["-c", "mv a.txt b.txt"]);
    run.expect_code(0);
    assert!(
        run.stderr.contains("[remediated] mv a.txt b.txt →"),
        "{run:?}"
    );
    assert_eq!(env.read("b.txt"), "the content\n");
    assert!(!env.exists("a.txt"), "{run:?}");
}

#[test]
fn mv_into_an_existing_directory_lands_inside_it() {
    let env = TestEnvironment::new();
    env.write("a.txt", "into dest\n");
    std::fs::create_dir(env.workspace.join("dest")).expect("create dest");
    let run = env.run(["-c", "mv a.txt dest"]);
    run.expect_code(0);
    assert!(run.stderr.contains("[remediated]"), "{run:?}");
    assert_eq!(env.read("dest/a.txt"), "into dest\n");
    assert!(!env.exists("a.txt"), "{run:?}");
}

#[test]
fn mv_onto_an_existing_file_in_the_destination_directory_needs_approval() {
    let env = TestEnvironment::new();
    env.write("a.txt", "new\n");
    env.write("dest/a.txt", "old\n");
    let run = env.run(["-c", "mv a.txt dest"]);
    run.expect_code(NEEDS_APPROVAL);
    assert!(run.stderr.contains("already exists"), "{run:?}");
    assert_eq!(env.read("a.txt"), "new\n");
    assert_eq!(env.read("dest/a.txt"), "old\n");
}

#[test]
fn mv_of_a_directory_moves_the_whole_tree() {
    let env = TestEnvironment::new();
    env.write("srcdir/top.txt", "top\n");
    env.write("srcdir/sub/deep.txt", "deep\n");
    let run = env.run(["-c", "mv srcdir newdir"]);
    run.expect_code(0);
    assert!(run.stderr.contains("[remediated]"), "{run:?}");
    assert_eq!(env.read("newdir/top.txt"), "top\n");
    assert_eq!(env.read("newdir/sub/deep.txt"), "deep\n");
    assert!(!env.exists("srcdir"), "{run:?}");
}

#[test]
fn check_discloses_the_remediation_without_running_it() {
    let env = TestEnvironment::new();
    env.write("a.txt", "x\n");
    let run = env.run(["check", "-c", "mv a.txt b.txt"]);
    run.expect_code(0);
    assert!(run.stdout.contains("[remediated]"), "{run:?}");
    assert!(env.exists("a.txt") && !env.exists("b.txt"), "{run:?}");

    let run = env.run(["check", "--json", "-c", "mv a.txt b.txt"]);
    run.expect_code(0);
    let records = run.json_lines();
    assert_eq!(records.len(), 1, "{run:?}");
    let rewrite = &records[0]["rewrite"];
    assert!(!rewrite.is_null(), "{run:?}");
    let steps = rewrite["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("steps is an array: {run:?}"));
    assert!(!steps.is_empty(), "{run:?}");
    assert!(env.exists("a.txt") && !env.exists("b.txt"), "{run:?}");
}

// ---------------------------------------------------------------------------------------------
// 10. Timeouts

#[test]
fn command_past_its_timeout_is_stopped_with_124() {
    let env = TestEnvironment::new();
    let run = env.run_detached(["--timeout", "1s", "--grace", "1s", "-c", "sleep 30"]);
    run.expect_code(TIMEOUT);
    assert!(run.elapsed < Duration::from_secs(10), "{run:?}");
    assert!(run.stderr.contains("[timeout] killed after"), "{run:?}");
}

#[test]
fn timeout_with_background_jobs_returns_124() {
    let env = TestEnvironment::new();
    let run = env.run_detached(["--timeout", "1s", "-c", "sleep 30 & sleep 30; wait"]);
    run.expect_code(TIMEOUT);
    assert!(run.elapsed < Duration::from_secs(10), "{run:?}");
}

#[test]
fn timeout_kills_the_whole_process_group() {
    let env = TestEnvironment::new();
    let marker = unique_marker("group");
    let script = format!(
        "bash -c \"exec -a {marker} sleep 30\" & bash -c \"exec -a {marker} sleep 30\" & wait"
    );
    let out_path = env.root.join("group.stderr");
    let mut cmd = env.command();
    cmd.args(["--timeout", "2s", "--grace", "1s", "-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&out_path).expect("stderr file"));
    let start = Instant::now();
    let mut child = cmd.spawn().expect("start warden");

    // The marked processes must exist while warden runs, or the check below proves nothing.
    let mut seen = Vec::new();
    while start.elapsed() < Duration::from_millis(1800) && seen.len() < 2 {
        seen = processes_named(&marker);
        std::thread::sleep(Duration::from_millis(20));
    }

    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for warden") {
            break Some(status);
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = start.elapsed();
    std::thread::sleep(Duration::from_millis(500));
    let left = processes_named(&marker);
    kill_pids(&left);
    let stderr = std::fs::read_to_string(&out_path).unwrap_or_default();

    assert!(
        !seen.is_empty(),
        "the marked sleeps never started; stderr: {stderr}"
    );
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(TIMEOUT),
        "stderr: {stderr}"
    );
    assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");
    assert!(
        left.is_empty(),
        "processes of the timed-out group survived: {left:?}"
    );
}

#[test]
fn child_ignoring_term_is_killed_after_the_grace_period() {
    let env = TestEnvironment::new();
    let marker = unique_marker("term");
    let script = format!("trap \"\" TERM; bash -c \"exec -a {marker} sleep 30\"");
    let run = env.run_detached(["--timeout", "1s", "--grace", "1s", "-c", &script]);
    std::thread::sleep(Duration::from_millis(500));
    let left = processes_named(&marker);
    kill_pids(&left);
    run.expect_code(TIMEOUT);
    assert!(run.elapsed < Duration::from_secs(10), "{run:?}");
    assert!(
        run.elapsed >= Duration::from_secs(1),
        "stopped before the time limit: {run:?}"
    );
    assert!(left.is_empty(), "TERM-ignoring process survived: {left:?}");
}

// ---------------------------------------------------------------------------------------------
// 11. explain

#[test]
fn explain_shows_the_wrapper_the_fact_and_the_rule() {
    let env = TestEnvironment::new();
    let run = env.run(["explain", "-c", "sudo rm -rf /"]);
    run.expect_code(DENIED);
    for needle in ["via sudo", "delete.root", "catastrophic.delete-root"] {
        assert!(run.stdout.contains(needle), "missing {needle:?}: {run:?}");
    }
}

#[test]
fn explain_json_has_operations_and_trace() {
    let env = TestEnvironment::new();
    let run = env.run(["explain", "--json", "-c", "sudo rm -rf /"]);
    run.expect_code(DENIED);
    let value: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("explain --json is not JSON ({e}): {run:?}"));
    let operations = value["operations"]
        .as_array()
        .unwrap_or_else(|| panic!("operations is an array: {run:?}"));
    assert!(!operations.is_empty(), "{run:?}");
    let trace = value["trace"]
        .as_array()
        .unwrap_or_else(|| panic!("trace is an array: {run:?}"));
    assert!(
        trace
            .iter()
            .any(|t| t["rule"] == "catastrophic.delete-root"),
        "{run:?}"
    );
    assert_eq!(value["decision"], "deny");
}

// ---------------------------------------------------------------------------------------------
// 12. policy

const EXAMPLE_DOES_NOT_MATCH: &str = r#"
[[rule]]
id = "user.curl"
tier = "sensitive"
decision = "ask"
reason = "`{command}` runs curl"
hint = "approve this download"
[rule.match]
program = ["curl"]
[rule.examples]
match = ["ls -la"]
"#;

const UNKNOWN_KEY: &str = r#"
[[rule]]
id = "user.colour"
tier = "sensitive"
decision = "ask"
reason = "r"
hint = "h"
colour = "red"
[rule.match]
program = ["curl"]
"#;

const UNKNOWN_FACT: &str = r#"
[[rule]]
id = "user.fact"
tier = "sensitive"
decision = "ask"
reason = "r"
hint = "h"
[rule.match]
fact = ["no.such.fact"]
"#;

const MAKE_NEEDS_APPROVAL: &str = r#"
[[rule]]
id = "user.make"
tier = "sensitive"
decision = "ask"
reason = "`{command}` runs make"
hint = "approve this build"
[rule.match]
program = ["make"]
[rule.examples]
match = ["make all"]
not_match = ["ls"]
"#;

#[test]
fn policy_list_names_the_shipped_rules() {
    let env = TestEnvironment::new();
    let run = env.run(["policy", "list"]);
    run.expect_code(0);
    assert!(run.stdout.contains("catastrophic.delete-root"), "{run:?}");
}

#[test]
fn policy_show_prints_reason_and_hint() {
    let env = TestEnvironment::new();
    let run = env.run(["policy", "show", "catastrophic.delete-root"]);
    run.expect_code(0);
    assert!(run.stdout.contains("catastrophic.delete-root"), "{run:?}");
    assert!(run.stdout.contains("reason:"), "{run:?}");
    assert!(run.stdout.contains("hint:"), "{run:?}");
}

#[test]
fn policy_show_of_an_unknown_rule_is_a_usage_error() {
    let env = TestEnvironment::new();
    let run = env.run(["policy", "show", "no.such.rule"]);
    run.expect_code(USAGE);
    assert!(run.stderr.contains("no.such.rule"), "{run:?}");
}

#[test]
fn policy_test_of_the_shipped_rules_passes() {
    let env = TestEnvironment::new();
    let run = env.run(["policy", "test"]);
    run.expect_code(0);
    assert!(run.stdout.contains("0 failed"), "{run:?}");
    assert!(!run.stdout.contains("FAIL"), "{run:?}");
}

#[test]
fn policy_test_reports_a_user_rule_whose_example_does_not_match() {
    let env = TestEnvironment::new();
    let file = env.rule_file("bad-example.toml", EXAMPLE_DOES_NOT_MATCH);

    let mut args = vec![OsString::from("policy"), OsString::from("test")];
    args.push(file.clone().into_os_string());
    let run = env.run(&args);
    run.expect_code(1);
    assert!(run.stdout.contains("FAIL"), "{run:?}");
    assert!(run.stdout.contains("user.curl"), "{run:?}");
    assert!(run.stdout.contains("1 failed"), "{run:?}");

    let run = env.run([
        OsStr::new("--rules"),
        file.as_os_str(),
        OsStr::new("policy"),
        OsStr::new("test"),
    ]);
    run.expect_code(1);
    assert!(run.stdout.contains("FAIL"), "{run:?}");
}

#[test]
fn user_rule_file_with_a_failing_example_is_refused_before_running() {
    let env = TestEnvironment::new();
    let file = env.rule_file("bad-example.toml", EXAMPLE_DOES_NOT_MATCH);
    let run = env.run([
        OsStr::new("--rules"),
        file.as_os_str(),
        OsStr::new("-c"),
        OsStr::new("touch ran.txt"),
    ]);
    run.expect_code(USAGE);
    assert!(run.stderr.contains("user.curl"), "{run:?}");
    assert!(!env.exists("ran.txt"), "{run:?}");
}

#[test]
fn rule_file_with_an_unknown_key_is_a_usage_error_naming_the_file() {
    let env = TestEnvironment::new();
    let file = env.rule_file("unknown-key.toml", UNKNOWN_KEY);
    for args in [
        vec![
            OsStr::new("--rules"),
            file.as_os_str(),
            OsStr::new("check"),
            OsStr::new("-c"),
            OsStr::new("ls"),
        ],
        vec![OsStr::new("policy"), OsStr::new("test"), file.as_os_str()],
    ] {
        let run = env.run(&args);
        run.expect_code(USAGE);
        assert!(run.stderr.contains("unknown-key.toml"), "{run:?}");
        assert!(run.stderr.contains("colour"), "{run:?}");
    }
}

#[test]
fn rule_file_with_an_unknown_fact_is_a_usage_error() {
    let env = TestEnvironment::new();
    let file = env.rule_file("unknown-fact.toml", UNKNOWN_FACT);
    let run = env.run([
        OsStr::new("--rules"),
        file.as_os_str(),
        OsStr::new("-c"),
        OsStr::new("touch ran.txt"),
    ]);
    run.expect_code(USAGE);
    assert!(run.stderr.contains("unknown-fact.toml"), "{run:?}");
    assert!(run.stderr.contains("no.such.fact"), "{run:?}");
    assert!(!env.exists("ran.txt"), "{run:?}");

    let run = env.run([OsStr::new("policy"), OsStr::new("test"), file.as_os_str()]);
    run.expect_code(USAGE);
    assert!(run.stderr.contains("no.such.fact"), "{run:?}");
}

#[test]
fn missing_rule_file_is_a_usage_error() {
    let env = TestEnvironment::new();
    let file = env.root.join("absent.toml");
    let run = env.run([
        OsStr::new("--rules"),
        file.as_os_str(),
        OsStr::new("-c"),
        OsStr::new("echo hi"),
    ]);
    run.expect_code(USAGE);
    assert!(run.stderr.contains("absent.toml"), "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
}

#[test]
fn user_rule_file_decides_commands_it_matches() {
    let env = TestEnvironment::new();
    let file = env.rule_file("make.toml", MAKE_NEEDS_APPROVAL);
    let run = env.run([
        OsStr::new("--rules"),
        file.as_os_str(),
        OsStr::new("check"),
        OsStr::new("--json"),
        OsStr::new("-c"),
        OsStr::new("make all"),
    ]);
    run.expect_code(NEEDS_APPROVAL);
    let records = run.json_lines();
    assert_eq!(records.len(), 1, "{run:?}");
    assert_eq!(records[0]["rule"], "user.make");
    assert_eq!(records[0]["decision"], "ask");

    let run = env.run([
        OsStr::new("--rules"),
        file.as_os_str(),
        OsStr::new("policy"),
        OsStr::new("list"),
    ]);
    run.expect_code(0);
    assert!(run.stdout.contains("user.make"), "{run:?}");
}

// ---------------------------------------------------------------------------------------------
// 13. Script on stdin

#[test]
fn script_on_stdin_is_run() {
    let env = TestEnvironment::new();
    let run = env.run_with_stdin(std::iter::empty::<&str>(), b"echo from-stdin\n");
    run.expect_code(0);
    assert_eq!(run.stdout, "from-stdin\n", "{run:?}");
}

#[test]
fn catastrophic_script_on_stdin_is_denied() {
    let env = TestEnvironment::new();
    let run = env.run_with_stdin(std::iter::empty::<&str>(), b"rm -rf /\n");
    run.expect_code(DENIED);
    assert!(run.stderr.starts_with("[catastrophic] blocked:"), "{run:?}");
}

#[test]
fn empty_stdin_without_a_command_does_nothing_and_exits_0() {
    let env = TestEnvironment::new();
    let run = env.run_with_stdin(std::iter::empty::<&str>(), b"");
    run.expect_code(0);
    assert!(run.stdout.is_empty(), "{run:?}");
}

// ---------------------------------------------------------------------------------------------
// 14. help and version

#[test]
fn help_exits_0_and_documents_the_shell_form() {
    let env = TestEnvironment::new();
    let run = env.run(["--help"]);
    run.expect_code(0);
    assert!(run.stdout.contains("-c"), "{run:?}");
    assert!(run.stdout.contains("Exit codes"), "{run:?}");
}

#[test]
fn version_exits_0_and_prints_the_version() {
    let env = TestEnvironment::new();
    let run = env.run(["--version"]);
    run.expect_code(0);
    assert!(run.stdout.contains(env!("CARGO_PKG_VERSION")), "{run:?}");
}

// ---------------------------------------------------------------------------------------------
// Environment hygiene

#[test]
fn the_runs_see_only_the_environment_the_test_gave() {
    let env = TestEnvironment::new();
    let run = env.run(["run", "--", "env"]);
    run.expect_code(0);
    // The sandbox's home, inside the workspace; never the real one.
    let home_line = format!("HOME={}", env.workspace.join(".warden/home").display());
    assert!(run.stdout.lines().any(|l| l == home_line), "{run:?}");
    assert!(
        !run.stdout.contains(&env.home.display().to_string()),
        "{run:?}"
    );
    assert!(
        run.stdout.lines().any(|l| l == format!("PATH={PATH}")),
        "{run:?}"
    );
    let pwd = env.run(["-c", "pwd"]);
    pwd.expect_code(0);
    assert_eq!(
        Path::new(pwd.stdout.trim()),
        env.workspace.as_path(),
        "{pwd:?}"
    );
}
