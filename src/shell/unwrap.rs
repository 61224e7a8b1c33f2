//! Seeing through wrappers and code given as data, by each program's real argv grammar.
//!
//! A wrapper (`sudo`, `env`, `nice`, `timeout`, …) runs another program: its options (including
//! those that take a value) and fixed positionals are skipped, and the rest is the command. Shells,
//! `eval`, `su -c`, `watch`, `flock -c`, `script -c` and `find -exec sh -c` take code as data: the
//! code is parsed and walked one level deeper. Anything dynamic where code or a program is expected
//! becomes a finding. Invariant: a wrapper option warden does not know is treated as a flag, never
//! as swallowing the command, so an unknown option cannot hide the program that follows it.

use super::walk::{Scope, Walker, join_normal};
use super::word::{Part, Source, Value, Word};
use super::{FindingKind, Input, Invocation, MAX_INPUT_BYTES, program_name};
use std::path::PathBuf;

/// Option grammar of a wrapper: which short letters and long names take a value, and how many
/// positional operands come before the wrapped command.
struct Grammar {
    short_values: &'static str,
    long_values: &'static [&'static str],
    positionals: usize,
}

const fn grammar(
    short_values: &'static str,
    long_values: &'static [&'static str],
    positionals: usize,
) -> Grammar {
    Grammar {
        short_values,
        long_values,
        positionals,
    }
}

/// Wrappers whose only job is to run the rest of the argv.
fn plain_wrapper(name: &str) -> Option<Grammar> {
    Some(match name {
        "nohup" | "builtin" | "setsid" | "unbuffer" | "rlwrap" | "torsocks" | "proxychains"
        | "proxychains4" | "eatmydata" | "fakeroot" | "catchsegv" | "dbus-run-session"
        | "caffeinate" => grammar("", &[], 0),
        "nice" => grammar("n", &["--adjustment"], 0),
        "ionice" => grammar(
            "cnp",
            &["--class", "--classdata", "--pid", "--pgid", "--uid"],
            0,
        ),
        "chrt" => grammar(
            "TPD",
            &["--sched-runtime", "--sched-period", "--sched-deadline"],
            1,
        ),
        "taskset" => grammar("", &[], 1),
        "timeout" => grammar("sk", &["--signal", "--kill-after"], 1),
        "time" => grammar("fo", &["--format", "--output"], 0),
        "stdbuf" => grammar("ioe", &["--input", "--output", "--error"], 0),
        "strace" | "ltrace" => grammar(
            "oepsuEabIOSPXn",
            &["--output", "--expr", "--attach", "--user", "--env"],
            0,
        ),
        "exec" => grammar("a", &[], 0),
        "sshpass" => grammar("pfdP", &[], 0),
        "chroot" => grammar("", &["--userspec", "--groups"], 1),
        "nsenter" => grammar("tSGw", &["--target", "--setuid", "--setgid", "--wd"], 0),
        "unshare" => grammar(
            "",
            &["--map-user", "--map-group", "--setuid", "--setgid", "--wd"],
            0,
        ),
        "xvfb-run" => grammar(
            "nsfepw",
            &[
                "--server-num",
                "--server-args",
                "--auth-file",
                "--error-file",
                "--xauth-protocol",
                "--wait",
            ],
            0,
        ),
        "firejail" | "valgrind" => grammar("", &[], 0),
        "pkexec" => grammar("", &["--user"], 0),
        "doas" => grammar("uC", &[], 0),
        "faketime" => grammar("f", &[], 1),
        "ssh-agent" => grammar("aEPt", &[], 0),
        _ => return None,
    })
}

const SHELLS: &[&str] = &[
    "bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "fish", "rbash", "yash", "tcsh", "csh",
];

/// True for programs that run code from their arguments or standard input as a shell.
pub fn is_shell(name: &str) -> bool {
    SHELLS.contains(&name)
}

/// Result of splitting a wrapper's argv into its own options and the wrapped command.
struct Split {
    /// Index of the first word of the wrapped command (== len when there is none).
    command: usize,
    /// Short or long option letters/names seen, with their values when they take one.
    options: Vec<(String, Option<Word>)>,
}

/// Splits `argv[1..]` by a grammar: options (with values), then `positionals` operands, then the
/// command. An option word that is not literal ends the options (and is treated as the command,
/// so a dynamic word there is judged as a dynamic program).
fn split(argv: &[Word], g: &Grammar) -> Split {
    let mut options = Vec::new();
    let mut skipped = 0;
    let mut i = 1;
    while i < argv.len() {
        let Some(text) = argv[i].as_literal() else {
            break;
        };
        if text == "--" {
            i += 1;
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            if long.is_empty() {
                break;
            }
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(Word::literal(v))),
                None => (text.clone(), None),
            };
            if attached.is_none() && g.long_values.contains(&name.as_str()) {
                options.push((name, argv.get(i + 1).cloned()));
                i += 2;
            } else {
                options.push((name, attached));
                i += 1;
            }
            continue;
        }
        if text.len() > 1 && text.starts_with('-') {
            let letters: Vec<char> = text[1..].chars().collect();
            let mut consumed_next = false;
            for (k, c) in letters.iter().enumerate() {
                if g.short_values.contains(*c) {
                    let rest: String = letters[k + 1..].iter().collect();
                    if rest.is_empty() {
                        options.push((format!("-{c}"), argv.get(i + 1).cloned()));
                        consumed_next = true;
                    } else {
                        options.push((format!("-{c}"), Some(Word::literal(&rest))));
                    }
                    break;
                }
                options.push((format!("-{c}"), None));
            }
            i += if consumed_next { 2 } else { 1 };
            continue;
        }
        break;
    }
    while skipped < g.positionals && i < argv.len() {
        skipped += 1;
        i += 1;
    }
    Split {
        command: i.min(argv.len()),
        options,
    }
}

fn has(split: &Split, names: &[&str]) -> bool {
    split
        .options
        .iter()
        .any(|(n, _)| names.contains(&n.as_str()))
}

fn value_of(split: &Split, names: &[&str]) -> Option<Word> {
    split
        .options
        .iter()
        .rev()
        .find(|(n, _)| names.contains(&n.as_str()))
        .and_then(|(_, v)| v.clone())
}

impl Walker<'_> {
    /// Peels wrappers off `inv` and walks code given as data. Returns the innermost invocation to
    /// record, or None when nothing further is to be recorded.
    pub(super) fn unwrap(&mut self, mut inv: Invocation, scope: &mut Scope) -> Option<Invocation> {
        for _ in 0..64 {
            let Some(first) = inv.argv.first() else {
                return Some(inv);
            };
            let Some(literal) = first.as_literal() else {
                if let Some(Source::Download(_)) = first.origin() {
                    self.finding(
                        FindingKind::DownloadToShell,
                        format!("downloaded text runs as a command: {}", first.raw),
                    );
                } else {
                    self.finding(
                        FindingKind::DynamicProgram,
                        format!("the program name `{}` is computed at run time", first.raw),
                    );
                }
                return Some(inv);
            };
            let name = program_name(&literal).to_string();
            let peeled = match name.as_str() {
                "sudo" | "doas" | "pkexec" | "run0" => self.peel_privileged(&mut inv, &name, scope),
                "env" => self.peel_env(&mut inv, scope),
                "command" => {
                    let s = split(&inv.argv, &grammar("", &[], 0));
                    if has(&s, &["-v", "-V"]) {
                        return Some(inv);
                    }
                    Some(s.command)
                }
                "busybox" => (inv.argv.len() > 1).then_some(1),
                "xargs" | "parallel" => {
                    let idx = self.peel_xargs(&inv, &name);
                    if let Some(idx) = idx {
                        let mut inner = inv.clone();
                        inner.argv = if idx < inv.argv.len() {
                            inv.argv[idx..]
                                .iter()
                                .take_while(|w| {
                                    !matches!(
                                        w.as_literal().as_deref(),
                                        Some(":::" | "::::" | ":::+" | "::::+")
                                    )
                                })
                                .cloned()
                                .collect()
                        } else {
                            vec![Word::literal("echo")]
                        };
                        inner.args_from_input = true;
                        inner.via.push(name.clone());
                        inner.redirects.clear();
                        self.dispatch(inner, scope);
                    }
                    return Some(inv);
                }
                "find" => {
                    self.peel_find(&inv, scope);
                    return Some(inv);
                }
                "watch" => return self.peel_watch(inv, scope),
                "flock" => return self.peel_flock(inv, scope),
                "script" => {
                    return self.peel_code_option(
                        inv,
                        scope,
                        &grammar(
                            "cETtIOB",
                            &[
                                "--command",
                                "--echo",
                                "--log-timing",
                                "--log-in",
                                "--log-out",
                                "--log-io",
                                "--logging-format",
                            ],
                            0,
                        ),
                        &["-c", "--command"],
                    );
                }
                "su" | "runuser" | "sg" => return self.peel_su(inv, &name, scope),
                "eval" => return self.walk_eval(inv, scope),
                "source" | "." => return self.walk_source(inv, scope),
                n if is_shell(n) => return self.walk_shell(inv, scope),
                n => match plain_wrapper(n) {
                    Some(g) => {
                        let s = split(&inv.argv, &g);
                        // `ionice -p`, `chrt -p`, `taskset -p`, `strace -p` act on a running process.
                        if matches!(n, "ionice" | "chrt" | "taskset" | "strace" | "ltrace")
                            && has(&s, &["-p", "--pid", "--attach"])
                        {
                            return Some(inv);
                        }
                        if matches!(n, "chroot" | "nsenter" | "doas" | "pkexec") {
                            inv.privileged = true;
                        }
                        Some(s.command)
                    }
                    None => return Some(inv),
                },
            };
            let Some(idx) = peeled else { return Some(inv) };
            if idx >= inv.argv.len() {
                // A wrapper with nothing to wrap (`sudo -i`, `nohup` alone): judge the wrapper.
                return Some(inv);
            }
            inv.via.push(name);
            inv.argv.drain(..idx);
        }
        self.finding(FindingKind::OverBudget, "too many nested wrappers");
        None
    }

    fn peel_privileged(
        &mut self,
        inv: &mut Invocation,
        name: &str,
        scope: &mut Scope,
    ) -> Option<usize> {
        let g = match name {
            "sudo" => grammar(
                "ugpCDrtTUhR",
                &[
                    "--user",
                    "--group",
                    "--prompt",
                    "--close-from",
                    "--chdir",
                    "--role",
                    "--type",
                    "--command-timeout",
                    "--other-user",
                    "--host",
                    "--chroot",
                ],
                0,
            ),
            "doas" => grammar("uC", &[], 0),
            _ => grammar("", &["--user"], 0),
        };
        let s = split(&inv.argv, &g);
        inv.privileged = true;
        scope.privileged = true;
        if name == "sudo" && has(&s, &["-e", "--edit"]) {
            // sudoedit: files edited as root.
            let files: Vec<Word> = inv.argv[s.command..].to_vec();
            inv.argv = std::iter::once(Word::literal("sudoedit"))
                .chain(files)
                .collect();
            return None;
        }
        if let Some(dir) = value_of(&s, &["-D", "--chdir"]) {
            inv.cwd = match (dir.as_literal(), &inv.cwd) {
                (Some(d), Some(cwd)) => Some(join_normal(cwd, &d)),
                _ => None,
            };
        }
        Some(s.command)
    }

    fn peel_env(&mut self, inv: &mut Invocation, scope: &mut Scope) -> Option<usize> {
        let g = grammar(
            "uCSP",
            &[
                "--unset",
                "--chdir",
                "--split-string",
                "--default-signal",
                "--ignore-signal",
                "--block-signal",
            ],
            0,
        );
        let mut s = split(&inv.argv, &g);
        if let Some(dir) = value_of(&s, &["-C", "--chdir"]) {
            inv.cwd = match (dir.as_literal(), &inv.cwd) {
                (Some(d), Some(cwd)) => Some(join_normal(cwd, &d)),
                _ => None,
            };
        }
        // NAME=VALUE operands are assignments for the command.
        while let Some(word) = inv.argv.get(s.command) {
            let Some(text) = word.as_literal() else { break };
            match text.split_once('=') {
                Some((name, value))
                    if !name.is_empty()
                        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
                {
                    inv.assigns.push((name.to_string(), Word::literal(value)));
                    s.command += 1;
                }
                _ => break,
            }
        }
        if let Some(code) = value_of(&s, &["-S", "--split-string"]) {
            // `env -S 'prog args'`: the string is split into words and run.
            let rest: Vec<String> = inv.argv[s.command..]
                .iter()
                .map(|w| w.raw.clone())
                .collect();
            match self.code_text(&code) {
                Some(text) => {
                    let joined = std::iter::once(text)
                        .chain(rest)
                        .collect::<Vec<_>>()
                        .join(" ");
                    let mut sub = scope.clone();
                    self.walk_code(&joined, inv.depth + 1, &mut sub, inv.input.clone());
                }
                None => self.finding(FindingKind::DynamicCode, "env -S with a computed string"),
            }
            inv.argv.truncate(1);
            return None;
        }
        Some(s.command)
    }

    /// Returns the index of the command in an `xargs`/`parallel` argv.
    fn peel_xargs(&mut self, inv: &Invocation, name: &str) -> Option<usize> {
        let g = if name == "xargs" {
            grammar(
                "aEdILlnPsei",
                &[
                    "--arg-file",
                    "--delimiter",
                    "--eof",
                    "--replace",
                    "--max-lines",
                    "--max-args",
                    "--max-procs",
                    "--max-chars",
                    "--process-slot-var",
                ],
                0,
            )
        } else {
            grammar(
                "jSaINnLP",
                &[
                    "--jobs",
                    "--sshlogin",
                    "--arg-file",
                    "--delay",
                    "--colsep",
                    "--timeout",
                    "--joblog",
                    "--results",
                    "--tmpdir",
                    "--workdir",
                    "--env",
                    "--basefile",
                    "--max-args",
                    "--max-lines",
                    "--memfree",
                    "--load",
                    "--shebang-wrap",
                ],
                0,
            )
        };
        // `-e`, `-i`, `-l` take an attached optional value in xargs; `split` treats a lone letter
        // from `short_values` as consuming the next word, so handle them as flags when alone.
        let mut argv = inv.argv.clone();
        for w in argv.iter_mut().skip(1) {
            if let Some(t) = w.as_literal()
                && matches!(t.as_str(), "-e" | "-i" | "-l")
            {
                *w = Word::literal("--optional-attached");
            }
        }
        Some(split(&argv, &g).command)
    }

    fn peel_find(&mut self, inv: &Invocation, scope: &mut Scope) {
        let mut roots = Vec::new();
        let mut i = 1;
        while i < inv.argv.len() {
            let w = &inv.argv[i];
            match w.as_literal() {
                Some(t) if t.starts_with('-') || t == "(" || t == "!" || t == ")" || t == "," => {
                    break;
                }
                _ => roots.push(w.clone()),
            }
            i += 1;
        }
        if roots.is_empty() {
            roots.push(Word::literal("."));
        }
        while i < inv.argv.len() {
            let t = inv.argv[i].as_literal().unwrap_or_default();
            if matches!(t.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                let start = i + 1;
                let mut end = start;
                while end < inv.argv.len()
                    && !matches!(inv.argv[end].as_literal().as_deref(), Some(";" | "+"))
                {
                    end += 1;
                }
                if end > start {
                    let mut inner = inv.clone();
                    inner.argv = inv.argv[start..end].to_vec();
                    inner.found_under = roots.clone();
                    inner.via.push(format!("find {t}"));
                    inner.redirects.clear();
                    inner.input = Input::Inherited;
                    self.dispatch(inner, scope);
                }
                i = end + 1;
                continue;
            }
            i += 1;
        }
    }

    fn peel_watch(&mut self, inv: Invocation, scope: &mut Scope) -> Option<Invocation> {
        let g = grammar("nqd", &["--interval", "--equexit", "--differences"], 0);
        let s = split(&inv.argv, &g);
        if s.command >= inv.argv.len() {
            return Some(inv);
        }
        if has(&s, &["-x", "--exec"]) {
            let mut inner = inv.clone();
            inner.argv = inv.argv[s.command..].to_vec();
            inner.via.push("watch".into());
            self.dispatch(inner, scope);
        } else {
            self.walk_joined_code(&inv, s.command, scope);
        }
        Some(inv)
    }

    fn peel_flock(&mut self, inv: Invocation, scope: &mut Scope) -> Option<Invocation> {
        let g = grammar(
            "wEc",
            &["--timeout", "--wait", "--conflict-exit-code", "--command"],
            1,
        );
        let s = split(&inv.argv, &g);
        if let Some(code) = value_of(&s, &["-c", "--command"]) {
            self.walk_code_word(&code, &inv, scope);
            return Some(inv);
        }
        if s.command < inv.argv.len() {
            let mut inner = inv.clone();
            inner.argv = inv.argv[s.command..].to_vec();
            inner.via.push("flock".into());
            self.dispatch(inner, scope);
        }
        Some(inv)
    }

    /// Programs that take a code string through one option (`script -c CMD`).
    fn peel_code_option(
        &mut self,
        inv: Invocation,
        scope: &mut Scope,
        g: &Grammar,
        names: &[&str],
    ) -> Option<Invocation> {
        let s = split(&inv.argv, g);
        if let Some(code) = value_of(&s, names) {
            self.walk_code_word(&code, &inv, scope);
        }
        Some(inv)
    }

    fn peel_su(
        &mut self,
        mut inv: Invocation,
        name: &str,
        scope: &mut Scope,
    ) -> Option<Invocation> {
        inv.privileged = true;
        let g = match name {
            "sg" => grammar("c", &[], 0),
            _ => grammar(
                "csgGuwC",
                &[
                    "--command",
                    "--session-command",
                    "--shell",
                    "--group",
                    "--supp-group",
                    "--user",
                    "--whitelist-environment",
                ],
                0,
            ),
        };
        let s = split(&inv.argv, &g);
        let mut sub = scope.clone();
        sub.privileged = true;
        // su permutes its arguments (GNU getopt): `su root -c CMD` has the user first.
        let code = value_of(&s, &["-c", "--command", "--session-command"])
            .or_else(|| su_command(&inv.argv));
        if let Some(code) = code {
            self.walk_code_word(&code, &inv, &mut sub);
            return Some(inv);
        }
        if name == "sg" && s.command + 1 < inv.argv.len() {
            // `sg GROUP COMMAND-STRING`
            let code = inv.argv[s.command + 1].clone();
            self.walk_code_word(&code, &inv, &mut sub);
            return Some(inv);
        }
        if name == "runuser" && has(&s, &["-u", "--user"]) && s.command < inv.argv.len() {
            let mut inner = inv.clone();
            inner.argv = inv.argv[s.command..].to_vec();
            inner.via.push("runuser".into());
            self.dispatch(inner, &mut sub);
        }
        Some(inv)
    }

    fn walk_eval(&mut self, inv: Invocation, scope: &mut Scope) -> Option<Invocation> {
        let args = &inv.argv[1..];
        let literal: Option<Vec<String>> = args.iter().map(|w| self.code_text(w)).collect();
        match literal {
            Some(parts) => {
                // eval runs in the current shell: its `cd` carries on.
                self.walk_code(&parts.join(" "), inv.depth + 1, scope, inv.input.clone());
            }
            None => self.dynamic_code(args, "eval"),
        }
        Some(inv)
    }

    fn walk_source(&mut self, inv: Invocation, scope: &mut Scope) -> Option<Invocation> {
        if let Some(script) = inv.argv.get(1) {
            match script.origin() {
                Some(origin) => self.code_from(origin.clone(), &inv, scope, "source"),
                // `source` runs in the current shell: its `cd` carries on.
                None => self.walk_script_file(script, &inv, scope, true),
            }
        }
        Some(inv)
    }

    /// Reads a shell script named on the command line and walks it like inline code. A script
    /// that does not exist yet (written by the same request) cannot be checked.
    fn walk_script_file(
        &mut self,
        script: &Word,
        inv: &Invocation,
        scope: &mut Scope,
        same_shell: bool,
    ) {
        let Some(text) = self.code_text(script) else {
            self.dynamic_code(std::slice::from_ref(script), "shell");
            return;
        };
        let path = if text.starts_with('/') {
            PathBuf::from(&text)
        } else {
            match &scope.cwd {
                Some(cwd) => cwd.join(&text),
                None => {
                    self.finding(
                        FindingKind::UnknownCodeToShell,
                        format!("script {text} is run from a directory that is not known"),
                    );
                    return;
                }
            }
        };
        match read_script(&path) {
            Ok(code) => {
                if same_shell {
                    self.walk_code(&code, inv.depth + 1, scope, Input::Inherited);
                } else {
                    let mut sub = scope.clone();
                    self.walk_code(&code, inv.depth + 1, &mut sub, Input::Inherited);
                }
            }
            // A missing script fails when run, unless the same request creates it first; the
            // classifier sees the request's writes and judges that case.
            Err(ScriptError::Missing) => {}
            Err(ScriptError::TooLarge) => self.finding(
                FindingKind::TooLarge,
                format!("script {text} is over {MAX_INPUT_BYTES} bytes"),
            ),
            Err(ScriptError::NotText) => self.finding(
                FindingKind::UnknownCodeToShell,
                format!("script {text} is not text a shell can be checked on"),
            ),
            Err(ScriptError::NotAFile) => {}
        }
    }

    /// A program named by path (`./deploy.sh`): when it is a shell script (by its `#!` line, or
    /// text without one, which bash runs itself), its code is walked too.
    pub(super) fn walk_executable(&mut self, inv: &Invocation, scope: &mut Scope) {
        let Some(text) = inv.argv.first().and_then(|w| self.code_text(w)) else {
            return;
        };
        let Some(path) = (if text.starts_with('/') {
            Some(PathBuf::from(&text))
        } else {
            scope.cwd.as_ref().map(|c| c.join(&text))
        }) else {
            return;
        };
        let Ok(code) = read_script(&path) else { return };
        let shell_script = match code.lines().next().and_then(|l| l.strip_prefix("#!")) {
            Some(shebang) => {
                let mut words = shebang.split_whitespace();
                let first = words.next().map(program_name).unwrap_or_default();
                let interpreter = if first == "env" {
                    words.find(|w| !w.starts_with('-')).unwrap_or_default()
                } else {
                    first
                };
                is_shell(interpreter)
            }
            None => true,
        };
        if shell_script {
            let mut sub = scope.clone();
            self.walk_code(&code, inv.depth + 1, &mut sub, Input::Inherited);
        }
    }

    /// `bash [options] [-c STRING [NAME [ARGS…]] | FILE [ARGS…]]`, and reading stdin otherwise.
    fn walk_shell(&mut self, inv: Invocation, scope: &mut Scope) -> Option<Invocation> {
        let g = grammar("oO", &["--rcfile", "--init-file"], 0);
        // `+o name` / `+O name` also take a value; rewrite them so `split` sees options.
        let mut argv = inv.argv.clone();
        let mut plus = false;
        for w in argv.iter_mut().skip(1) {
            if plus {
                plus = false;
                continue;
            }
            if let Some(t) = w.as_literal()
                && (t == "+o" || t == "+O")
            {
                *w = Word::literal("-o");
                plus = true;
            }
        }
        let s = split(&argv, &g);
        let command_mode = has(&s, &["-c"]);
        let operand = argv.get(s.command);
        if command_mode {
            match operand {
                Some(code) => self.walk_code_word(code, &inv, scope),
                None => self.finding(FindingKind::ParseError, "shell -c without a command string"),
            }
            return Some(inv);
        }
        match operand {
            Some(script) if !has(&s, &["-s"]) => {
                if let Some(origin) = script.origin() {
                    self.code_from(origin.clone(), &inv, scope, "shell");
                } else if script.as_literal().as_deref() == Some("-")
                    || script.as_literal().as_deref() == Some("/dev/stdin")
                {
                    self.code_from_input(&inv, scope);
                } else {
                    self.walk_script_file(script, &inv, scope, false);
                }
            }
            _ => self.code_from_input(&inv, scope),
        }
        Some(inv)
    }

    /// The shell reads its code from standard input.
    fn code_from_input(&mut self, inv: &Invocation, scope: &mut Scope) {
        match &inv.input {
            Input::From(source) => self.code_from(source.clone(), inv, scope, "shell"),
            // `bash < script.sh`: the file is read like a script operand.
            Input::File(path) if path != "/dev/stdin" => {
                let word = Word::literal(path);
                self.walk_script_file(&word, inv, scope, false);
            }
            // The code would come from whatever warden itself is reading.
            Input::File(_) | Input::Inherited => self.finding(
                FindingKind::UnknownCodeToShell,
                "the shell reads its code from standard input, which cannot be checked",
            ),
        }
    }

    fn code_from(&mut self, source: Source, inv: &Invocation, scope: &mut Scope, who: &str) {
        match source {
            Source::Literal(text) => {
                let mut sub = scope.clone();
                self.walk_code(&text, inv.depth + 1, &mut sub, Input::Inherited);
            }
            Source::Download(program) => self.finding(
                FindingKind::DownloadToShell,
                format!("text downloaded by {program} runs in a {who}"),
            ),
            Source::Unknown(program) => self.finding(
                FindingKind::UnknownCodeToShell,
                format!(
                    "output of `{program}` runs as code in a {who}; its content cannot be checked"
                ),
            ),
        }
    }

    /// The text of a word given as code, as the outer shell hands it over: quotes removed and an
    /// unquoted `~` expanded. None when it depends on variables or substitutions.
    fn code_text(&self, word: &Word) -> Option<String> {
        match word.value(&self.ctx.home.to_string_lossy()) {
            Value::Literal(text) | Value::Pattern(text) => Some(text),
            Value::Dynamic => None,
        }
    }

    fn walk_code_word(&mut self, code: &Word, inv: &Invocation, scope: &mut Scope) {
        match self.code_text(code) {
            Some(text) => {
                let mut sub = scope.clone();
                self.walk_code(&text, inv.depth + 1, &mut sub, Input::Inherited);
            }
            None => self.dynamic_code(std::slice::from_ref(code), "shell"),
        }
    }

    fn walk_joined_code(&mut self, inv: &Invocation, from: usize, scope: &mut Scope) {
        let words = &inv.argv[from..];
        let literal: Option<Vec<String>> = words.iter().map(|w| self.code_text(w)).collect();
        match literal {
            Some(parts) => {
                let mut sub = scope.clone();
                self.walk_code(&parts.join(" "), inv.depth + 1, &mut sub, Input::Inherited);
            }
            None => self.dynamic_code(words, "shell"),
        }
    }

    fn dynamic_code(&mut self, words: &[Word], who: &str) {
        let downloaded = words.iter().any(|w| {
            w.parts.iter().any(|p| {
                matches!(
                    p,
                    Part::CommandSubst {
                        origin: Source::Download(_),
                        ..
                    } | Part::ProcSubst {
                        origin: Source::Download(_),
                        ..
                    }
                )
            })
        });
        let raw: Vec<&str> = words.iter().map(|w| w.raw.as_str()).collect();
        if downloaded {
            self.finding(
                FindingKind::DownloadToShell,
                format!("downloaded text runs as code via {who}: {}", raw.join(" ")),
            );
        } else {
            self.finding(
                FindingKind::DynamicCode,
                format!("{who} runs code computed at run time: {}", raw.join(" ")),
            );
        }
    }
}

/// The `-c` code of `su`/`runuser` anywhere in argv (options may follow the user name), including
/// clustered (`-lc CMD`), attached (`-cCMD`) and long (`--command=CMD`) forms.
fn su_command(argv: &[Word]) -> Option<Word> {
    let mut i = 1;
    while i < argv.len() {
        let Some(t) = argv[i].as_literal() else {
            i += 1;
            continue;
        };
        if t == "--" {
            return None;
        }
        for long in ["--command", "--session-command"] {
            if t == long {
                return argv.get(i + 1).cloned();
            }
            if let Some(v) = t.strip_prefix(long).and_then(|r| r.strip_prefix('=')) {
                return Some(Word::literal(v));
            }
        }
        if let Some(flags) = t
            .strip_prefix('-')
            .filter(|f| !f.starts_with('-') && !f.is_empty())
            && let Some(pos) = flags.find('c')
            && flags[..pos].chars().all(|c| "lmpfP".contains(c))
        {
            let attached = &flags[pos + 1..];
            return if attached.is_empty() {
                argv.get(i + 1).cloned()
            } else {
                Some(Word::literal(attached))
            };
        }
        i += 1;
    }
    None
}

enum ScriptError {
    Missing,
    NotAFile,
    TooLarge,
    NotText,
}

fn read_script(path: &std::path::Path) -> Result<String, ScriptError> {
    let meta = std::fs::metadata(path).map_err(|_| ScriptError::Missing)?;
    if !meta.is_file() {
        return Err(ScriptError::NotAFile);
    }
    if meta.len() > MAX_INPUT_BYTES as u64 {
        return Err(ScriptError::TooLarge);
    }
    let bytes = std::fs::read(path).map_err(|_| ScriptError::NotText)?;
    if bytes.contains(&0) {
        return Err(ScriptError::NotText);
    }
    String::from_utf8(bytes).map_err(|_| ScriptError::NotText)
}
