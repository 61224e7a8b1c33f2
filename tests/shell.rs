//! warden as a shell: invoked as `wsh` (a link, for `SHELL=`), in an interactive session on a
//! terminal (through a real pty: line editing, history kept between sessions), and with
//! coloured refusals only where colour is wanted.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod common;

use common::describe;

const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

struct Env {
    _dir: tempfile::TempDir,
    bin: PathBuf,
    workspace: PathBuf,
    home: PathBuf,
    state: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::Builder::new()
            .prefix("warden-shell-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        let env = Env {
            bin: root.join("bin"),
            workspace: root.join("workspace"),
            home: root.join("home"),
            state: root.join("state"),
            _dir: dir,
        };
        for d in [&env.bin, &env.workspace.join("src"), &env.home, &env.state] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_warden"), env.bin.join("wsh"))
            .expect("link");
        env
    }

    fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .env("PATH", format!("{}:{PATH}", self.bin.display()))
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", &self.state)
            .env("WARDEN_WORKSPACE", &self.workspace)
            .current_dir(&self.workspace);
        cmd
    }

    /// Runs `line` under a pseudo-terminal (util-linux `script`), typing `input` after a pause.
    fn on_terminal(&self, line: &str, input: &str, extra_env: &[(&str, &str)]) -> Output {
        let mut cmd = self.command("script");
        cmd.args(["-qec", line, "/dev/null"])
            .env("TERM", "xterm")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("script (util-linux) runs");
        let mut stdin = child.stdin.take().expect("stdin");
        for chunk in input.split_inclusive('\n') {
            std::thread::sleep(Duration::from_millis(400));
            let _ = stdin.write_all(chunk.as_bytes());
            let _ = stdin.flush();
        }
        std::thread::sleep(Duration::from_millis(400));
        drop(stdin);
        child.wait_with_output().expect("wait")
    }

    /// An interactive session (`wsh` with no command) on a pseudo-terminal, at its first prompt.
    fn session(&self) -> Session {
        let mut child = self
            .command("script")
            .args(["-qec", "wsh", "/dev/null"])
            .env("TERM", "xterm")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("script (util-linux) runs");
        let stdin = child.stdin.take().expect("stdin");
        let mut stdout = child.stdout.take().expect("stdout");
        let output = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&output);
        std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                sink.lock().expect("output").extend_from_slice(&chunk[..n]);
            }
        });
        let mut session = Session {
            child,
            stdin: Some(stdin),
            output,
        };
        session.wait("the first prompt", 0, at_prompt);
        session
    }

    fn history(&self) -> PathBuf {
        self.state.join("warden").join("history")
    }
}

/// How long a session may take to show what a test waits for (sandboxed commands on a busy
/// machine can be slow; a hang still fails).
const PATIENCE: Duration = Duration::from_secs(90);

/// A running interactive session: keys go in, and the terminal's output is collected.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    output: Arc<Mutex<Vec<u8>>>,
}

impl Session {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().expect("output")).into_owned()
    }

    /// Waits until the output after byte `from` satisfies `done`; fails the test after
    /// [`PATIENCE`], showing the output.
    fn wait(&mut self, what: &str, from: usize, done: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let text = self.text();
            if done(text.get(from..).unwrap_or_default()) {
                return;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("no {what} within {PATIENCE:?}; the terminal showed:\n{text:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn press(&mut self, keys: &str) -> usize {
        let from = self.output.lock().expect("output").len();
        let stdin = self.stdin.as_mut().expect("session still open");
        stdin.write_all(keys.as_bytes()).expect("type");
        stdin.flush().expect("flush");
        from
    }

    /// Types `keys` (which end the line: Enter or Ctrl-C) and waits for the next prompt.
    fn line(&mut self, keys: &str) {
        let from = self.press(keys);
        self.wait("prompt after the line", from, |new| {
            new.contains('\n') && at_prompt(new)
        });
    }

    /// Types `keys` and waits until the terminal shows `shown`.
    fn keys(&mut self, keys: &str, shown: &str) {
        let from = self.press(keys);
        self.wait(shown, from, |new| strip_escapes(new).contains(shown));
    }

    /// Types `keys` that end the session, and returns its exit status and the whole output.
    fn end(mut self, keys: &str) -> (Option<i32>, String) {
        self.press(keys);
        let deadline = Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the session did not end; it showed:\n{:?}", self.text());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        drop(self.stdin.take());
        // The reader thread has the rest once the pty is closed.
        let deadline = Instant::now() + Duration::from_secs(5);
        while Arc::strong_count(&self.output) > 1 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        (status.code(), self.text())
    }
}

/// Whether the terminal is showing an empty prompt at the end of `output`.
fn at_prompt(output: &str) -> bool {
    strip_escapes(output)
        .trim_end_matches('\r')
        .ends_with("warden$ ")
}

/// `output` without terminal control sequences (CSI `ESC [ … final`, and two-byte `ESC x`).
fn strip_escapes(output: &str) -> String {
    let mut out = String::with_capacity(output.len());
    let mut chars = output.chars();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        if chars.next() == Some('[') {
            for c in chars.by_ref() {
                if ('\x40'..='\x7e').contains(&c) {
                    break;
                }
            }
        }
    }
    out
}

/// The lines as a terminal leaves them, roughly: control sequences dropped and, where a line
/// was rewritten after a carriage return, its last writing.
fn shown_lines(output: &str) -> Vec<String> {
    strip_escapes(output)
        .split('\n')
        .map(|line| {
            line.split('\r')
                .rfind(|part| !part.is_empty())
                .unwrap_or_default()
                .trim_end()
                .to_string()
        })
        .collect()
}

#[test]
fn as_wsh_every_argument_belongs_to_the_shell() {
    let env = Env::new();
    let out = env
        .command("wsh")
        .args(["-c", "echo hi from $0", "wsh-test"])
        .output()
        .expect("run");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "hi from wsh-test\n",
        "{}",
        describe(&out)
    );
    // `run` is a script here, not warden's subcommand.
    std::fs::write(env.workspace.join("run"), "echo from the script\n").expect("write");
    let out = env.command("wsh").arg("run").output().expect("run");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "from the script\n",
        "{}",
        describe(&out)
    );
    // Agents call `$SHELL -lc` and `-ic`.
    for flags in ["-lc", "-ic"] {
        let out = env
            .command("wsh")
            .args([flags, "printf '%s\\n' ok"])
            .stdin(Stdio::null())
            .output()
            .expect("run");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "ok\n",
            "{flags}: {}",
            describe(&out)
        );
    }
    let out = env
        .command("wsh")
        .args(["-c", "rm -rf ~"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(77), "{}", describe(&out));
}

#[test]
fn an_interactive_session_decides_each_line_and_keeps_the_directory() {
    let env = Env::new();
    let out = env.on_terminal(
        "wsh",
        "cd src\npwd\nexport GREETING='still here'\nrm -rf ~\necho $GREETING\nexit\n",
        &[],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("{}/src", env.workspace.display())),
        "{text}"
    );
    assert!(text.contains("[catastrophic] blocked"), "{text}");
    assert!(text.lines().any(|l| l.trim_end() == "still here"), "{text}");
    assert!(env.home.exists());
}

#[test]
fn refusals_are_coloured_on_a_terminal_unless_no_color() {
    let env = Env::new();
    let out = env.on_terminal("wsh -c 'rm -rf ~'", "", &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\x1b[1;31m[catastrophic] blocked"),
        "{text:?}"
    );
    let out = env.on_terminal("wsh -c 'rm -rf ~'", "", &[("NO_COLOR", "1")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("[catastrophic] blocked") && !text.contains("\x1b[1;31m"),
        "{text:?}"
    );
    // Piped, never.
    let out = env
        .command("wsh")
        .args(["-c", "rm -rf ~"])
        .output()
        .expect("run");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains('\x1b'),
        "{}",
        describe(&out)
    );
}

#[test]
fn history_is_recalled_in_the_next_session_with_the_up_arrow() {
    let env = Env::new();
    let log = env.workspace.join("log");
    let mut first = env.session();
    first.line("echo recalled >> log\r");
    assert_eq!(std::fs::read_to_string(&log).expect("log"), "recalled\n");
    // Ctrl-D ends the session without adding a line to the history.
    let (status, text) = first.end("\x04");
    assert_eq!(status, Some(0), "{text:?}");

    let mut second = env.session();
    second.keys("\x1b[A", "echo recalled >> log");
    second.line("\r");
    let (status, text) = second.end("\x04");
    assert_eq!(status, Some(0), "{text:?}");
    assert_eq!(
        std::fs::read_to_string(&log).expect("log"),
        "recalled\nrecalled\n",
        "{text:?}"
    );
}

#[test]
fn a_line_is_edited_before_it_is_decided() {
    let env = Env::new();
    let mut session = env.session();
    // "cho helo", Ctrl-A "e", Ctrl-E, Left "l", Ctrl-E " world!", Backspace, Enter.
    session.line("cho helo\x01e\x05\x1b[Dl\x05 world!\x7f\r");
    let (status, text) = session.end("exit\r");
    assert_eq!(status, Some(0), "{text:?}");
    let lines = shown_lines(&text);
    assert!(lines.iter().any(|l| l == "hello world"), "{lines:#?}");
    assert!(!lines.iter().any(|l| l.contains("not found")), "{lines:#?}");
}

#[test]
fn ctrl_c_drops_the_line_and_ctrl_d_ends_with_the_last_status() {
    let env = Env::new();
    let mut session = env.session();
    session.line("echo dropped\x03");
    session.line("echo kept\r");
    session.line("false\r");
    let (status, text) = session.end("\x04");
    assert_eq!(status, Some(1), "{text:?}");
    let lines = shown_lines(&text);
    assert!(lines.iter().any(|l| l == "kept"), "{lines:#?}");
    assert!(!lines.iter().any(|l| l == "dropped"), "{lines:#?}");
}

#[test]
fn the_history_file_is_private_keeps_refused_lines_and_skips_space_led_ones() {
    let env = Env::new();
    let mut session = env.session();
    session.line("rm -rf ~\r");
    session.line(" echo with-a-token-on-the-line\r");
    session.line("echo fine\r");
    let (status, text) = session.end("\x04");
    assert_eq!(status, Some(0), "{text:?}");
    assert!(text.contains("[catastrophic] blocked"), "{text:?}");
    assert!(text.contains("with-a-token-on-the-line"), "{text:?}");
    assert!(env.home.exists());
    let history = env.history();
    let mode = std::fs::metadata(&history)
        .expect("the history file exists")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    assert_eq!(
        std::fs::read_to_string(&history).expect("history"),
        "rm -rf ~\necho fine\n"
    );
}

#[test]
fn an_unanswered_question_does_not_take_the_next_line() {
    let env = Env::new();
    let config = env.home.join(".config/warden");
    std::fs::create_dir_all(&config).expect("mkdir");
    std::fs::write(config.join("config.toml"), "[approval]\nexpiry = \"2s\"\n").expect("config");
    let mut session = env.session();
    // Asked inline; nobody answers before the challenge expires.
    session.keys("git push origin main\r", "no answer in time");
    // The next line goes to the session, not to a reader left over from the question.
    session.line("echo after >> answered\r");
    let (status, text) = session.end("\x04");
    assert_eq!(status, Some(0), "{text:?}");
    assert!(text.contains("[y/N]"), "{text:?}");
    assert_eq!(
        std::fs::read_to_string(env.workspace.join("answered")).expect("the line ran"),
        "after\n"
    );
}
