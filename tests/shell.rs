//! warden as a shell: invoked as `wsh` (a link, for `SHELL=`), in an interactive session on a
//! terminal (through a real pty), and with coloured refusals only where colour is wanted.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

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
