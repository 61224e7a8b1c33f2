//! The `warden` binary: parse argv, run the pipeline, map the outcome to an exit code.

use std::ffi::OsString;
use std::io::{BufRead, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;

use warden::cli::{self, Cli, Command, Global, PolicyAction};
use warden::exit;
use warden::pipeline::{Evaluation, Evaluator, Request};
use warden::policy::{Decision, Policy};
use warden::report;
use warden::runner::{Confinement, Runner};
use warden::shell::{Context, MAX_INPUT_BYTES};

fn main() -> ExitCode {
    // Before any thread exists: nothing warden inherited beyond stdio reaches a command.
    warden::sys::close_inherited_fds_on_exec();
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    // Inside the sandbox: warden's own inner stage, then the command.
    if args
        .first()
        .is_some_and(|a| a == warden::sandbox::INNER_SUBCOMMAND)
    {
        let argv: Vec<String> = args
            .iter()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let code = warden::sandbox::inner::run(&argv);
        return ExitCode::from(u8::try_from(code).unwrap_or(exit::INTERNAL as u8));
    }
    // As `wsh` (a link named so, for `SHELL=`), every argument is the shell's: `wsh run` runs a
    // script named `run`. A login shell's `-wsh` or `-warden` is the same.
    let invoked_as = std::env::args_os()
        .next()
        .map(|a| {
            Path::new(&a)
                .file_name()
                .map(|n| n.to_string_lossy().trim_start_matches('-').to_string())
                .unwrap_or_default()
        })
        .unwrap_or_default();
    let code = if invoked_as != "wsh" && cli::is_tool_form(&args) {
        tool_form(args)
    } else {
        shell_form(args)
    };
    ExitCode::from(u8::try_from(code).unwrap_or(exit::INTERNAL as u8))
}

/// An error that ends warden before anything runs, with its exit code.
struct Fatal {
    code: i32,
    message: String,
}

impl Fatal {
    fn usage(message: impl Into<String>) -> Fatal {
        Fatal {
            code: exit::USAGE,
            message: message.into(),
        }
    }
}

fn fail(f: Fatal) -> i32 {
    // A refusal already carries its `[tier] blocked:` prefix; other failures name warden.
    if f.code == exit::DENIED {
        eprintln!("{}", f.message);
    } else {
        eprintln!("warden: {}", f.message);
    }
    f.code
}

/// Resolves the workspace: the option, $WARDEN_WORKSPACE, the enclosing git work tree, the cwd.
fn context(global: &Global) -> Result<Context, Fatal> {
    let cwd = std::env::current_dir().map_err(|e| Fatal {
        code: exit::INTERNAL,
        message: format!("cannot read the current directory: {e}"),
    })?;
    let chosen = global
        .workspace
        .clone()
        .or_else(|| {
            std::env::var_os("WARDEN_WORKSPACE")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| git_toplevel(&cwd).unwrap_or_else(|| cwd.clone()));
    let workspace = std::fs::canonicalize(&chosen)
        .map_err(|e| Fatal::usage(format!("workspace {}: {e}", chosen.display())))?;
    if !workspace.is_dir() {
        return Err(Fatal::usage(format!(
            "workspace {} is not a directory",
            workspace.display()
        )));
    }
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(home_from_passwd)
        .unwrap_or_else(|| PathBuf::from("/"));
    Ok(Context {
        workspace,
        cwd,
        home,
    })
}

/// With HOME unset, bash expands `~` to the home directory in the password database.
fn home_from_passwd() -> Option<PathBuf> {
    let uid = rustix::process::getuid().as_raw().to_string();
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.len() >= 6 && fields[2] == uid).then(|| PathBuf::from(fields[5]))
    })
}

/// The nearest ancestor holding `.git` (a directory or a worktree file), found without spawning git.
fn git_toplevel(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
}

/// The policy in force: the shipped rules, then `/etc/warden/policy.toml` (admin),
/// `$XDG_CONFIG_HOME/warden/policy.toml` (user), the workspace's `.warden/policy.toml` and the
/// `--rules` files. Every file's examples must pass.
fn load_policy(global: &Global, workspace: Option<&Path>) -> Result<Policy, Fatal> {
    let (files, policy) = policy_files(global, workspace)?;
    if !files.is_empty() {
        let failures = warden::pipeline::check_examples(&policy, |r| {
            r.layer != warden::policy::Layer::Shipped && !r.expired()
        });
        if let Some(first) = failures.first() {
            return Err(Fatal::usage(format!(
                "{first} ({} example failure(s); see `warden policy lint`)",
                failures.len()
            )));
        }
    }
    Ok(policy)
}

type LayeredFiles = Vec<(warden::policy::Layer, String, String)>;

/// The policy files of every layer and the policy they make (examples not yet checked).
fn policy_files(
    global: &Global,
    workspace: Option<&Path>,
) -> Result<(LayeredFiles, Policy), Fatal> {
    use warden::policy::Layer;
    let mut files: Vec<(Layer, String, String)> = Vec::new();
    let mut add = |layer: Layer, path: &Path, required: bool| -> Result<(), Fatal> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                files.push((layer, path.display().to_string(), text));
                Ok(())
            }
            Err(e) if !required && e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Fatal::usage(format!("rule file {}: {e}", path.display()))),
        }
    };
    add(Layer::Admin, Path::new("/etc/warden/policy.toml"), false)?;
    if let Some(user) = warden::config::xdg_base("XDG_CONFIG_HOME", ".config")
        .map(|base| base.join("warden").join("policy.toml"))
    {
        // A workspace that holds the home is refused for running anyway (and check/explain
        // run nothing); any other workspace must not hold the person's own policy.
        let home = std::env::var_os("HOME").map(PathBuf::from);
        if workspace.is_some_and(|ws| {
            user.starts_with(ws)
                && warden::sandbox::workspace_refusal(ws, home.as_deref()).is_none()
        }) {
            return Err(Fatal::usage(format!(
                "the user policy {} is inside the workspace, where commands could write it; set XDG_CONFIG_HOME outside it",
                user.display()
            )));
        }
        add(Layer::User, &user, false)?;
    }
    if let Some(ws) = workspace {
        add(
            Layer::Workspace,
            &ws.join(".warden").join("policy.toml"),
            false,
        )?;
    }
    for file in &global.rules {
        add(Layer::Extra, file, true)?;
    }
    let config = warden::config::load().map_err(Fatal::usage)?;
    let profile = match global.profile {
        Some(p) => p,
        None => config.policy.profile().map_err(Fatal::usage)?,
    };
    let network = config.policy.network().map_err(Fatal::usage)?;
    let policy = Policy::with_layers(&files)
        .map_err(|e| Fatal::usage(e.to_string()))?
        .with_defaults(profile, network);
    Ok((files, policy))
}

fn evaluator(global: &Global) -> Result<Evaluator, Fatal> {
    let ctx = context(global)?;
    let mut evaluator = Evaluator::new(load_policy(global, Some(&ctx.workspace))?, ctx);
    evaluator.network = global.network;
    Ok(evaluator)
}

/// Converts an argument to text, or explains why it cannot be judged.
fn text_of(arg: OsString, what: &str) -> Result<String, Fatal> {
    arg.into_string().map_err(|raw| Fatal {
        code: exit::DENIED,
        message: format!(
            "[unverifiable] blocked: {what} is not valid UTF-8 ({:?}) — pass text; warden only runs what it can read",
            raw.to_string_lossy()
        ),
    })
}

fn texts_of(args: Vec<OsString>, what: &str) -> Result<Vec<String>, Fatal> {
    args.into_iter().map(|a| text_of(a, what)).collect()
}

// ---------------------------------------------------------------------------------------------
// Shell form: warden [OPTIONS] -c STRING [ARG0 ARGS…]

fn shell_form(args: Vec<OsString>) -> i32 {
    let parsed = match cli::parse_shell(&args) {
        Ok(p) => p,
        Err(e) => return fail(Fatal::usage(e.to_string())),
    };
    if parsed.help {
        let _ = Cli::try_parse_from(["warden", "--help"]).map_err(|e| e.print());
        return exit::OK;
    }
    if parsed.version {
        println!("warden {}", env!("CARGO_PKG_VERSION"));
        return exit::OK;
    }
    match shell_request(parsed) {
        Ok((request, global, interactive)) => {
            let mut evaluator = match evaluator(&global) {
                Ok(e) => e,
                Err(f) => return fail(f),
            };
            match request {
                Some(request) => decide_and_run(&mut evaluator, &global, request),
                None if interactive => repl(&mut evaluator, &global),
                None => exit::OK,
            }
        }
        Err(f) => fail(f),
    }
}

/// Builds the request of the shell form; None with `interactive` for a terminal session.
fn shell_request(parsed: cli::ShellArgs) -> Result<(Option<Request>, Global, bool), Fatal> {
    let positional = texts_of(parsed.positional, "a positional parameter")?;
    let options = parsed.shell_options;
    let (script, positional) = if let Some(command) = parsed.command {
        (text_of(command, "the command")?, positional)
    } else if let Some(file) = parsed.script_file {
        let bytes = read_bounded_file(&file)?;
        let script = String::from_utf8(bytes).map_err(|_| Fatal {
            code: exit::DENIED,
            message: format!(
                "[unverifiable] blocked: {} is not valid UTF-8 — warden only runs what it can read",
                file.display()
            ),
        })?;
        let mut all = vec![file.display().to_string()];
        all.extend(positional);
        (script, all)
    } else if !std::io::stdin().is_terminal() {
        let mut bytes = Vec::new();
        let read = std::io::stdin()
            .lock()
            .take(MAX_INPUT_BYTES as u64 + 1)
            .read_to_end(&mut bytes);
        read.map_err(|e| Fatal::usage(format!("cannot read the script from stdin: {e}")))?;
        if bytes.len() > MAX_INPUT_BYTES {
            return Err(Fatal {
                code: exit::DENIED,
                message: format!(
                    "[unverifiable] blocked: the script on stdin is over {MAX_INPUT_BYTES} bytes — split the work into smaller commands"
                ),
            });
        }
        let script = String::from_utf8(bytes).map_err(|_| Fatal {
            code: exit::DENIED,
            message: "[unverifiable] blocked: the script on stdin is not valid UTF-8 — warden only runs what it can read".into(),
        })?;
        if script.trim().is_empty() {
            return Ok((None, parsed.global, false));
        }
        (script, positional)
    } else {
        return Ok((None, parsed.global, true));
    };
    let request = Request::Shell {
        script,
        positional,
        options,
    };
    Ok((Some(request), parsed.global, false))
}

fn read_bounded_file(file: &Path) -> Result<Vec<u8>, Fatal> {
    let handle = std::fs::File::open(file).map_err(|e| Fatal {
        code: if e.kind() == std::io::ErrorKind::NotFound {
            exit::NOT_FOUND
        } else {
            exit::NOT_EXECUTABLE
        },
        message: format!("{}: {e}", file.display()),
    })?;
    let mut bytes = Vec::new();
    handle
        .take(MAX_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Fatal {
            code: exit::NOT_EXECUTABLE,
            message: format!("{}: {e}", file.display()),
        })?;
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(Fatal {
            code: exit::DENIED,
            message: format!(
                "[unverifiable] blocked: {} is over {MAX_INPUT_BYTES} bytes — split it into smaller scripts",
                file.display()
            ),
        });
    }
    Ok(bytes)
}

/// A terminal session: each line is decided and, when allowed, run. `cd DIR` lines move the
/// session's working directory (each line otherwise runs in its own shell). Lines are edited
/// and recalled from the history where the terminal allows it (`warden::prompt`); Ctrl-C drops
/// the line being typed, Ctrl-D on an empty line ends the session with the last status.
fn repl(evaluator: &mut Evaluator, global: &Global) -> i32 {
    let mut prompt = warden::prompt::Prompt::new("warden$ ");
    let mut last = exit::OK;
    let mut exported: Vec<(String, String)> = Vec::new();
    loop {
        let line = match prompt.read() {
            Ok(warden::prompt::Entered::Line(line)) => line,
            Ok(warden::prompt::Entered::Cleared) => continue,
            Ok(warden::prompt::Entered::End) => return last,
            Err(e) => return fail(Fatal::usage(format!("cannot read input: {e}"))),
        };
        let line = line.as_str();
        if line.trim().is_empty() {
            continue;
        }
        if line.trim() == "exit" {
            return last;
        }
        if let Some(dir) = line
            .trim()
            .strip_prefix("cd ")
            .map(str::trim)
            .filter(|d| !d.contains(['$', '`', ';', '&', '|']))
        {
            let target = evaluator.ctx.cwd.join(dir.trim_matches(['"', '\'']));
            match std::fs::canonicalize(&target) {
                Ok(dir) if dir.is_dir() => {
                    evaluator.ctx.cwd = dir;
                    last = exit::OK;
                }
                _ => {
                    eprintln!("warden: cd: {}: no such directory", target.display());
                    last = 1;
                }
            }
            continue;
        }
        // Variables exported in the session carry over: each later line is decided and run
        // with them set first (and so are they, each time).
        let prefix: String = exported
            .iter()
            .map(|(name, value)| {
                format!(
                    "export {name}={}; ",
                    shlex::try_quote(value).unwrap_or_default()
                )
            })
            .collect();
        last = decide_and_run(evaluator, global, Request::shell(format!("{prefix}{line}")));
        if last == exit::OK
            && let Some((name, value)) = plain_export(line)
        {
            exported.retain(|(n, _)| *n != name);
            exported.push((name, value));
        }
    }
}

/// `export NAME=VALUE` with a literal value (quotes allowed, no expansions), as a pair.
fn plain_export(line: &str) -> Option<(String, String)> {
    let rest = line.trim().strip_prefix("export ")?.trim();
    let (name, value) = rest.split_once('=')?;
    let name_ok = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let words = shlex::split(value)?;
    let literal = !value.contains(['$', '`', ';', '&', '|', '<', '>', '(', ')', '\\']);
    (name_ok && literal && words.len() <= 1).then(|| {
        (
            name.to_string(),
            words.into_iter().next().unwrap_or_default(),
        )
    })
}

/// The shell and run forms: decide, disclose, run when allowed; every decision is recorded in
/// the audit log.
fn decide_and_run(evaluator: &mut Evaluator, global: &Global, request: Request) -> i32 {
    let started = std::time::Instant::now();
    let evaluation = evaluator.evaluate(request);
    let mut outcome = warden::audit::Outcome {
        confinement: "none".into(),
        ..Default::default()
    };
    let session = global.session.clone().or_else(|| {
        std::env::var("WARDEN_SESSION")
            .ok()
            .filter(|s| !s.is_empty())
    });
    let code = decide_and_run_recorded(
        evaluator,
        global,
        &evaluation,
        session.as_deref(),
        &mut outcome,
    );
    outcome.exit = code;
    outcome.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let record = warden::audit::record_of(
        &evaluation,
        session.as_deref(),
        &evaluator.ctx.workspace,
        &evaluator.ctx.cwd,
        global.network,
        &evaluator.policy.revision,
        outcome,
    );
    match warden::audit::Log::open() {
        Some(log) => {
            if let Err(e) = log.append(&record) {
                eprintln!("warden: the audit log could not be written: {e}");
            }
        }
        None => {
            eprintln!("warden: no state directory for the audit log (set XDG_STATE_HOME or HOME)")
        }
    }
    code
}

fn decide_and_run_recorded(
    evaluator: &mut Evaluator,
    global: &Global,
    evaluation: &Evaluation,
    session: Option<&str>,
    outcome: &mut warden::audit::Outcome,
) -> i32 {
    let decided = evaluation.effective();
    if decided.verdict.decision == Decision::Deny {
        if global.json {
            eprintln!("{}", report::record(evaluation));
        } else {
            eprintln!(
                "{}",
                report::painted(&report::line(decided), decided.verdict.decision)
            );
        }
        return exit::DENIED;
    }
    // Loop guardrail: an identical request that keeps failing is not simply run again.
    let digest = warden::approval::digest(
        &evaluation.plan(),
        &evaluator.ctx.workspace,
        &evaluator.ctx.cwd,
        global.network,
    );
    let guard = warden::guardrail::Guard::open(&warden::guardrail::session_name(session));
    let mutating = evaluation.operations.iter().any(|op| {
        matches!(
            op.effect,
            warden::classify::Effect::Write | warden::classify::Effect::Delete
        )
    });
    if let Some(g) = &guard {
        match g.check(&digest, mutating, global.hard_stop) {
            warden::guardrail::Verdict::Go => {}
            warden::guardrail::Verdict::Warn(message) => {
                eprintln!("{message}");
                outcome.guardrail = Some(message);
            }
            warden::guardrail::Verdict::Stop(message) => {
                eprintln!("{message}");
                outcome.guardrail = Some(message);
                return exit::DENIED;
            }
        }
    }
    let authorized = match decided.verdict.decision {
        // Refused above, before the guardrail.
        Decision::Deny => return exit::DENIED,
        Decision::Allow => evaluation.authorize(),
        Decision::Ask => {
            if global.json {
                eprintln!("{}", report::record(evaluation));
            }
            let asking = warden::ask::Asking {
                workspace: &evaluator.ctx.workspace,
                cwd: &evaluator.ctx.cwd,
                network: global.network,
                policy_revision: &evaluator.policy.revision,
                non_interactive: global.non_interactive || warden::ask::ci(),
                wait: global.wait,
                prompt: true,
            };
            let (consent, challenge) = warden::ask::consent(evaluation, &asking);
            outcome.challenge = challenge;
            match consent {
                Ok(consent) => evaluation.authorize_with(consent),
                Err(code) => return code,
            }
        }
    };
    if let Some(r) = &evaluation.remediation {
        eprintln!("{}", r.disclosure);
    }
    let Some(authorized) = authorized else {
        // Unreachable: allowed or approved requests are authorised; refusing is the safe reading.
        eprintln!("warden: internal error: the request was not authorised");
        return exit::INTERNAL;
    };
    let code = run_authorized(evaluator, global, &authorized, outcome);
    if let Some(g) = &guard
        && let Err(e) = g.record(&digest, code)
    {
        eprintln!("warden: the loop guardrail could not record this run: {e}");
    }
    code
}

/// Runs an authorised plan in the sandbox (or, degraded, without it).
fn run_authorized(
    evaluator: &Evaluator,
    global: &Global,
    authorized: &warden::policy::Authorized,
    outcome: &mut warden::audit::Outcome,
) -> i32 {
    let degraded_allowed =
        global.allow_degraded || std::env::var("WARDEN_ALLOW_DEGRADED").is_ok_and(|v| v == "1");
    let confinement = match warden::sandbox::configure(
        &evaluator.ctx.workspace,
        global.network,
        global.pass_env.clone(),
    ) {
        Ok(mut config) => {
            config.allow_degraded = degraded_allowed;
            Confinement::Sandbox(config)
        }
        Err(why) if degraded_allowed && !why.is_refusal() => {
            eprintln!("warden: running WITHOUT the sandbox (--allow-degraded): {why}");
            Confinement::Unconfined
        }
        Err(why) => {
            eprintln!("warden: {why}");
            return exit::INTERNAL;
        }
    };
    let mut runner = Runner::new(evaluator.ctx.cwd.clone(), confinement);
    // A terminal gets the stream as it is; pipes and files (agents, CI) get a bounded copy.
    let budget = global
        .max_output
        .unwrap_or(warden::output::DEFAULT_MAX_OUTPUT);
    if budget > 0 {
        runner.max_stdout = (!std::io::stdout().is_terminal()).then_some(budget);
        runner.max_stderr = (!std::io::stderr().is_terminal()).then_some(budget);
    }
    // --envelope: the output is kept and returned as untrusted data once the command ends.
    let captured = global.envelope.then(|| {
        let captured = std::sync::Arc::new(warden::runner::Captured::default());
        runner.max_stdout = Some(warden::runner::CAPTURE_MAX);
        runner.max_stderr = Some(warden::runner::CAPTURE_MAX);
        runner.capture = Some(std::sync::Arc::clone(&captured));
        captured
    });
    if let Some(t) = global.timeout {
        runner.timeout = t;
    }
    if let Some(g) = global.grace {
        runner.grace = g;
    }
    let mut result = runner.run(authorized);
    if matches!(result, Err(warden::runner::RunError::SandboxFailed)) && degraded_allowed {
        eprintln!(
            "warden: the sandbox could not start; running WITHOUT it (--allow-degraded): run `warden doctor` for the cause"
        );
        runner.confinement = Confinement::Unconfined;
        result = runner.run(authorized);
    }
    outcome.confinement = match runner.confinement {
        Confinement::Sandbox(_) => "sandbox".into(),
        Confinement::Unconfined => "unconfined (degraded)".into(),
    };
    if let Confinement::Sandbox(config) = &runner.confinement {
        // Without --allow-degraded the inner stage refuses to run unless Landlock and seccomp
        // are in force; with it, it names what is missing on stderr.
        let mut layers = vec!["bwrap".to_string()];
        if !config.allow_degraded {
            layers.extend(["landlock".to_string(), "seccomp".to_string()]);
        }
        layers.push(
            if config.pid_namespace_limit {
                "pid-namespace-limit"
            } else if rustix::process::geteuid().is_root() {
                "cgroup-pids"
            } else {
                "rlimit-nproc"
            }
            .to_string(),
        );
        outcome.layers = layers;
    }
    outcome.output = (runner.max_stdout.is_some() || runner.max_stderr.is_some())
        .then(|| runner.output.summary());
    if let Some(captured) = captured {
        let (stdout, stderr) = captured.take();
        let budget = if budget > 0 {
            budget
        } else {
            warden::runner::CAPTURE_MAX
        };
        let source = evaluator_source(authorized);
        let hint = "write the output to a file and read it in pages";
        let out = warden::envelope::wrap(&format!("{source} (stdout)"), &stdout, budget, hint);
        let _ = writeln!(std::io::stdout(), "{}", out.render().trim_end_matches('\n'));
        if !stderr.is_empty() {
            let err = warden::envelope::wrap(&format!("{source} (stderr)"), &stderr, budget, hint);
            let _ = writeln!(std::io::stderr(), "{}", err.render().trim_end_matches('\n'));
        }
    }
    match result {
        Ok(ran) => {
            if ran == warden::runner::Outcome::TimedOut {
                eprintln!(
                    "[timeout] killed after {:?} — the command and everything it started were stopped (TERM, then KILL after {:?})",
                    runner.timeout, runner.grace
                );
            }
            ran.exit_code()
        }
        Err(e) => {
            eprintln!("warden: {e}");
            e.exit_code()
        }
    }
}

/// `warden mcp`: the tool server over the Model Context Protocol.
fn serve_mcp(
    global: &Global,
    upstream: Option<&str>,
    no_elicitation: bool,
    command: &[String],
) -> Result<i32, Fatal> {
    let config = warden::config::load().map_err(Fatal::usage)?;
    let mut upstreams = config.mcp.upstreams().map_err(Fatal::usage)?;
    for spec in warden::mcp::upstream::from_command_line(upstream, command).map_err(Fatal::usage)? {
        if upstreams.iter().any(|u| u.name == spec.name) {
            return Err(Fatal::usage(format!(
                "upstream `{}` is named twice (the command line and the configuration)",
                spec.name
            )));
        }
        upstreams.push(spec);
    }
    let elicitation = !no_elicitation && config.mcp.elicitation.unwrap_or(true);
    let evaluator = evaluator(global)?;
    let offered = warden::tools::snapshot(&evaluator.policy);
    let mut settings = tool_settings(global);
    // The MCP session is the session: one per server process unless one is named.
    settings.session = settings
        .session
        .or_else(|| Some(format!("mcp-{}", std::process::id())));
    let server = warden::toolcall::Server::new(evaluator, settings)
        .map_err(|e| Fatal::usage(format!("the workspace cannot be opened: {e}")))?;
    let allow_degraded = settings_degraded(global);
    let mcp = warden::mcp::Mcp::new(server, &offered)
        .with_elicitation(elicitation)
        .with_upstream_timeout(
            global
                .timeout
                .unwrap_or(warden::mcp::DEFAULT_UPSTREAM_TIMEOUT),
        );
    warden::mcp::serve(mcp, &upstreams, allow_degraded).map_err(|e| Fatal {
        code: exit::INTERNAL,
        message: format!("mcp: {e}"),
    })?;
    Ok(exit::OK)
}

/// Whether running on with a sandbox layer missing was asked for.
fn settings_degraded(global: &Global) -> bool {
    global.allow_degraded || std::env::var("WARDEN_ALLOW_DEGRADED").is_ok_and(|v| v == "1")
}

/// The tool server's settings from the command line.
fn tool_settings(global: &Global) -> warden::toolcall::Settings {
    warden::toolcall::Settings {
        session: global.session.clone().or_else(|| {
            std::env::var("WARDEN_SESSION")
                .ok()
                .filter(|s| !s.is_empty())
        }),
        non_interactive: global.non_interactive,
        wait: global.wait,
        hard_stop: global.hard_stop,
        allow_degraded: settings_degraded(global),
        pass_env: global.pass_env.clone(),
        timeout: global.timeout,
        grace: global.grace,
        result_budget: global
            .max_output
            .filter(|b| *b > 0)
            .unwrap_or(warden::envelope::DEFAULT_RESULT_BUDGET),
        session_budget: warden::envelope::DEFAULT_SESSION_BUDGET,
    }
}

/// `warden tool [--stream]`: the tool-call protocol on stdin and stdout.
fn serve_tools(global: &Global, stream: bool) -> Result<i32, Fatal> {
    use std::io::{BufRead, Read, Write};
    let evaluator = evaluator(global)?;
    let settings = tool_settings(global);
    let mut server = warden::toolcall::Server::new(evaluator, settings)
        .map_err(|e| Fatal::usage(format!("the workspace cannot be opened: {e}")))?;
    let stdout = std::io::stdout();
    let emit = |value: &serde_json::Value| -> Result<(), Fatal> {
        let mut out = stdout.lock();
        writeln!(out, "{value}")
            .and_then(|()| out.flush())
            .map_err(|e| Fatal::usage(format!("stdout: {e}")))
    };
    let limit = warden::toolcall::MAX_REQUEST_BYTES as u64;
    if !stream {
        let mut input = Vec::new();
        std::io::stdin()
            .lock()
            .take(limit + 1)
            .read_to_end(&mut input)
            .map_err(|e| Fatal::usage(format!("stdin: {e}")))?;
        let result = server.handle(&input);
        emit(&result)?;
        return Ok(tool_exit(&result));
    }
    let mut stdin = std::io::stdin().lock();
    loop {
        let mut line = Vec::new();
        let n = (&mut stdin)
            .take(limit + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| Fatal::usage(format!("stdin: {e}")))?;
        if n == 0 {
            return Ok(exit::OK);
        }
        if line.len() as u64 > limit && !line.ends_with(b"\n") {
            // Skip the rest of the oversized line, then answer it.
            let mut rest = Vec::new();
            let _ = stdin.read_until(b'\n', &mut rest);
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        emit(&server.handle(&line))?;
    }
}

/// `warden scan [--format F] FILE…`.
fn scan(global: &Global, format: &str, files: &[PathBuf]) -> Result<i32, Fatal> {
    use warden::scan::{Kind, Reported};
    if !matches!(format, "text" | "json" | "sarif") {
        return Err(Fatal::usage(format!(
            "unknown format `{format}` (text, json or sarif)"
        )));
    }
    let mut evaluator = evaluator(global)?;
    let mut reported = Vec::new();
    for file in files {
        let bytes =
            std::fs::read(file).map_err(|e| Fatal::usage(format!("{}: {e}", file.display())))?;
        if bytes.len() > warden::scan::MAX_FILE_BYTES {
            return Err(Fatal::usage(format!(
                "{}: larger than {} bytes",
                file.display(),
                warden::scan::MAX_FILE_BYTES
            )));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| Fatal::usage(format!("{}: not UTF-8 text", file.display())))?;
        let kind = Kind::of(file);
        for found in warden::scan::extract(kind, &text) {
            let evaluation = evaluator.evaluate(found.request);
            reported.push(Reported {
                file: file.display().to_string(),
                kind,
                line: found.line,
                record: report::record(&evaluation),
            });
        }
    }
    let mut out = String::new();
    match format {
        "sarif" => {
            out = serde_json::to_string_pretty(&warden::scan::sarif(&reported)).unwrap_or_default();
        }
        "json" => {
            for r in &reported {
                let mut record = r.record.clone();
                record["file"] = r.file.clone().into();
                record["line"] = r.line.into();
                record["kind"] = r.kind.as_str().into();
                out.push_str(&record.to_string());
                out.push('\n');
            }
        }
        _ => {
            for r in &reported {
                out.push_str(&format!(
                    "{}:{}: {}\n",
                    r.file,
                    r.line,
                    r.record["message"].as_str().unwrap_or_default()
                ));
            }
            let count = |d: &str| {
                reported
                    .iter()
                    .filter(|r| r.record["decision"] == d)
                    .count()
            };
            out.push_str(&format!(
                "{} command(s): {} allowed, {} need approval, {} denied\n",
                reported.len(),
                count("allow"),
                count("ask"),
                count("deny")
            ));
        }
    }
    write_stdout(out.trim_end_matches('\n'))?;
    Ok(if reported.iter().any(|r| r.record["decision"] == "deny") {
        1
    } else {
        exit::OK
    })
}

/// `warden install AGENT [--dry-run] [--project]`.
fn install(global: &Global, agent: &str, dry_run: bool, project: bool) -> Result<i32, Fatal> {
    use warden::install::{Agent, InstallError};
    let agent = Agent::parse(agent).ok_or_else(|| {
        Fatal::usage(format!(
            "`{agent}` cannot be wired in: {}",
            warden::install::AGENTS.join(", ")
        ))
    })?;
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| Fatal::usage("HOME is not set"))?;
    let codex_home = std::env::var_os("CODEX_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let workspace = if project {
        Some(context(global)?.workspace)
    } else {
        None
    };
    // A document of another shape, or one that cannot be read, is the person's to fix (2); a
    // write that fails is warden's own failure (125).
    let fatal = |e: InstallError| Fatal {
        code: if matches!(e, InstallError::Write { .. }) {
            exit::INTERNAL
        } else {
            exit::USAGE
        },
        message: e.to_string(),
    };
    let file = agent
        .config_file(&home, codex_home.as_deref(), workspace.as_deref())
        .map_err(fatal)?;
    let exe =
        std::env::current_exe().map_err(|e| Fatal::usage(format!("warden's own path: {e}")))?;
    let plan = warden::install::plan(agent, &file, &exe).map_err(fatal)?;
    let notes = || {
        for note in &plan.notes {
            eprintln!("warden: note: {note}");
        }
    };
    if dry_run {
        print!("{}", plan.text);
        eprintln!(
            "warden: {} would be {} (dry run: nothing written)",
            file.display(),
            if plan.changed {
                "changed as above"
            } else {
                "left as it is: warden is already there"
            }
        );
        notes();
        return Ok(exit::OK);
    }
    if !plan.changed {
        eprintln!("warden: {}", plan.already());
        notes();
        return Ok(exit::OK);
    }
    if let Some(kept) = warden::install::write(&plan, warden::approval::now()).map_err(fatal)? {
        eprintln!("warden: the previous file is kept as {}", kept.display());
    }
    eprintln!("warden: {}", plan.done());
    notes();
    Ok(exit::OK)
}

/// `warden hook AGENT`: always answers in the agent's protocol and exits 0; whatever goes wrong
/// (unknown agent, bad payload, an internal error or panic) is a deny.
fn hook(global: &Global, agent: &str) -> i32 {
    let answer =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| hook_answer(global, agent)))
            .unwrap_or_else(|_| Err("an internal error".to_string()))
            .unwrap_or_else(|why| {
                if agent == "gemini" {
                    warden::hook::gemini_refusal(&why)
                } else {
                    warden::hook::refusal(&why)
                }
            });
    println!("{answer}");
    exit::OK
}

fn hook_answer(global: &Global, agent: &str) -> Result<serde_json::Value, String> {
    let event = match agent {
        "claude-code" => "PreToolUse",
        "gemini" => "BeforeTool",
        _ => return Err(format!("unknown agent `{agent}` (claude-code or gemini)")),
    };
    let mut input = Vec::new();
    std::io::stdin()
        .lock()
        .take(warden::hook::MAX_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut input)
        .map_err(|e| format!("stdin: {e}"))?;
    let payload = warden::hook::decode_event(&input, event)?;
    if let Some(cwd) = &payload.cwd {
        std::env::set_current_dir(cwd).map_err(|e| format!("the payload's cwd {cwd}: {e}"))?;
    }
    let mut global = global.clone();
    if global.workspace.is_none() && std::env::var_os("WARDEN_WORKSPACE").is_none() {
        // The project directory the agent names for its hooks (Gemini CLI also sets Claude
        // Code's name, as an alias).
        let names: &[&str] = match agent {
            "gemini" => &["GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
            _ => &["CLAUDE_PROJECT_DIR"],
        };
        global.workspace = names
            .iter()
            .filter_map(std::env::var_os)
            .find(|v| !v.is_empty())
            .map(PathBuf::from);
    }
    let mut evaluator = evaluator(&global).map_err(|f| f.message)?;
    let warden_path = std::env::current_exe()
        .map_err(|e| format!("warden's own path: {e}"))?
        .to_string_lossy()
        .into_owned();
    let started = std::time::Instant::now();
    let decided = if agent == "gemini" {
        warden::hook::decide_gemini(&mut evaluator, &payload, &warden_path)
    } else {
        warden::hook::decide_claude_code(&mut evaluator, &payload, &warden_path)
    };
    let Some(answer) = decided else {
        // Not a tool warden judges: the agent's own permission rules apply.
        return Ok(serde_json::json!({}));
    };
    // The agent executes file calls itself: judged against the root, the home or a system
    // directory, "inside the workspace" would mean anywhere. Such a workspace is refused, as the
    // sandbox and the tool server refuse it.
    let ctx = &evaluator.ctx;
    if let Some(why) = warden::sandbox::workspace_refusal(&ctx.workspace, Some(&ctx.home)) {
        return Err(format!(
            "the workspace {} {why}, so no call can be judged inside it; start the agent in a project directory, or set WARDEN_WORKSPACE",
            ctx.workspace.display()
        ));
    }
    let outcome = warden::audit::Outcome {
        confinement: "hook".into(),
        exit: exit_for(answer.decision),
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        ..Default::default()
    };
    // The evaluation behind the answer; a call its path alone decided (outside the workspace,
    // a guarded path) is recorded as the agent's call, with the answer's verdict below.
    let unevaluated;
    let evaluation = match &answer.evaluation {
        Some(evaluation) => evaluation,
        None => {
            unevaluated = evaluator.evaluate(Request::Tool {
                tool: format!("{agent}:{}", payload.tool_name),
                args: payload.tool_input.clone(),
            });
            &unevaluated
        }
    };
    let session = payload
        .session_id
        .clone()
        .or_else(|| global.session.clone());
    let mut record = warden::audit::record_of(
        evaluation,
        session.as_deref(),
        &evaluator.ctx.workspace,
        &evaluator.ctx.cwd,
        false,
        &evaluator.policy.revision,
        outcome,
    );
    // The record says what the hook answered (for a file tool, judged by its path).
    record.tool = format!("{agent}:{}", payload.tool_name);
    record.decision = answer.decision.as_str().to_string();
    record.tier = answer.tier.clone();
    record.rule = answer.rule.clone();
    record.reason = answer.reason.clone();
    if let Some(log) = warden::audit::Log::open() {
        let _ = log.append(&record);
    }
    Ok(if agent == "gemini" {
        answer.to_gemini()
    } else {
        answer.to_claude_code()
    })
}

/// `warden restore PATH [--list | --from NAME]`.
fn restore(global: &Global, path: &str, list: bool, from: Option<String>) -> Result<i32, Fatal> {
    use warden::fs::{RelPath, Root, write};
    let ctx = context(global)?;
    let root = Root::new(&ctx.workspace).map_err(|e| Fatal::usage(e.to_string()))?;
    let rel = RelPath::parse(path).map_err(|e| Fatal::usage(e.to_string()))?;
    let backups = write::backups_of(&root, &rel).map_err(|e| Fatal::usage(e.to_string()))?;
    if list {
        for b in &backups {
            println!("{b}");
        }
        if backups.is_empty() {
            eprintln!("warden: no backups of `{rel}`");
            return Ok(1);
        }
        return Ok(exit::OK);
    }
    let chosen = match &from {
        Some(name) => backups
            .iter()
            .find(|b| b.components().last().is_some_and(|n| n == name) || b.as_text() == *name),
        None => backups.last(),
    }
    .ok_or_else(|| {
        Fatal::usage(format!(
            "no such backup of `{rel}` (see `warden restore {rel} --list`)"
        ))
    })?;
    let (content, _) = warden::fs::read::read_all(&root, chosen, write::MAX_BACKUP_BYTES)
        .map_err(|e| Fatal::usage(e.to_string()))?;
    // The content being replaced is backed up first, like any configuration file.
    let stamp = write::backup_stamp(warden::approval::now());
    let (_, kept) = write::backup_then_write(&root, &rel, &content, true, &stamp)
        .map_err(|e| Fatal::usage(e.to_string()))?;
    if let Some(kept) = kept {
        eprintln!("warden: the content it replaced is kept as {kept}");
    }
    eprintln!("warden: restored `{rel}` from {chosen}");
    Ok(exit::OK)
}

/// The exit code of one tool result: 0 done, 77 refused, 75 needs approval, 1 other failure.
fn tool_exit(result: &serde_json::Value) -> i32 {
    if result["ok"] == serde_json::json!(true) {
        return exit::OK;
    }
    match result["error"]["code"].as_str() {
        Some("POLICY_DENIED" | "GUARDRAIL") => exit::DENIED,
        Some("APPROVAL_REQUIRED") => exit::NEEDS_APPROVAL,
        _ => 1,
    }
}

/// What an envelope names as the source of a run's output.
fn evaluator_source(authorized: &warden::policy::Authorized) -> String {
    let text = match authorized.plan() {
        warden::policy::Plan::Shell { script, .. } => script.replace('\n', " ⏎ "),
        warden::policy::Plan::Argv { argv } => warden::pipeline::quote_argv(argv),
        warden::policy::Plan::Steps { steps } => steps
            .iter()
            .map(|s| warden::pipeline::quote_argv(s))
            .collect::<Vec<_>>()
            .join(" && "),
        warden::policy::Plan::Tool { tool, .. } => tool.clone(),
    };
    // Redacted whole before it is cut, so that no secret survives as a prefix.
    let text = warden::envelope::redact::redact(&warden::audit::redact(&text)).text;
    format!("bash {}", text.chars().take(80).collect::<String>())
}

fn exit_for(decision: Decision) -> i32 {
    match decision {
        Decision::Allow => exit::OK,
        Decision::Ask => exit::NEEDS_APPROVAL,
        Decision::Deny => exit::DENIED,
    }
}

// ---------------------------------------------------------------------------------------------
// Tool form: warden run|check|explain|policy …

fn tool_form(args: Vec<OsString>) -> i32 {
    let cli = match Cli::try_parse_from(std::iter::once(OsString::from("warden")).chain(args)) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
        }
    };
    let result = match cli.command {
        Command::Run { argv } => run_argv(&cli.global, argv),
        Command::Check {
            command,
            batch,
            null,
            argv,
        } => {
            if batch {
                check_batch(&cli.global, null)
            } else {
                check_one(&cli.global, command, argv)
            }
        }
        Command::Explain { command, argv } => explain(&cli.global, command, argv),
        Command::Policy { action } => policy(&cli.global, action),
        Command::Approve { id, yes } => answer(&id, true, yes),
        Command::Deny { id } => answer(&id, false, true),
        Command::Pending => pending(&cli.global),
        Command::Tool { stream } => serve_tools(&cli.global, stream),
        Command::Mcp {
            upstream,
            no_elicitation,
            command,
        } => serve_mcp(&cli.global, upstream.as_deref(), no_elicitation, &command),
        Command::Hook { agent } => Ok(hook(&cli.global, &agent)),
        Command::Scan { format, files } => scan(&cli.global, &format, &files),
        Command::Install {
            agent,
            dry_run,
            project,
        } => install(&cli.global, &agent, dry_run, project),
        Command::Restore { path, list, from } => restore(&cli.global, &path, list, from),
        Command::Tools { format } => {
            let policy =
                context(&cli.global).and_then(|ctx| load_policy(&cli.global, Some(&ctx.workspace)));
            policy.and_then(|policy| {
                let value = warden::tools::render(&warden::tools::snapshot(&policy), &format)
                    .map_err(Fatal::usage)?;
                write_stdout(&serde_json::to_string_pretty(&value).unwrap_or_default())?;
                Ok(exit::OK)
            })
        }
        Command::Log {
            since,
            decision,
            follow,
        } => log(&cli.global, since, decision, follow),
        Command::Replay { id } => replay(&cli.global, &id),
        Command::Doctor => doctor(&cli.global),
        Command::Selftest => selftest(&cli.global),
        Command::Generate { out } => generate(&out),
    };
    result.unwrap_or_else(fail)
}

fn request_of(command: Option<OsString>, argv: Vec<OsString>) -> Result<Request, Fatal> {
    match command {
        Some(c) => Ok(Request::shell(text_of(c, "the command")?)),
        None if !argv.is_empty() => Ok(Request::Argv {
            argv: texts_of(argv, "an argument")?,
        }),
        None => Err(Fatal::usage(
            "give a command: -c STRING, or -- PROGRAM [ARGS…]",
        )),
    }
}

fn run_argv(global: &Global, argv: Vec<OsString>) -> Result<i32, Fatal> {
    let request = request_of(None, argv)?;
    let mut evaluator = evaluator(global)?;
    Ok(decide_and_run(&mut evaluator, global, request))
}

fn check_one(
    global: &Global,
    command: Option<OsString>,
    argv: Vec<OsString>,
) -> Result<i32, Fatal> {
    let request = request_of(command, argv)?;
    let mut evaluator = evaluator(global)?;
    let evaluation = evaluator.evaluate(request);
    let out = if global.json {
        report::record(&evaluation).to_string()
    } else {
        human_check(&evaluation)
    };
    write_stdout(&out)?;
    Ok(exit_for(evaluation.decision()))
}

fn human_check(evaluation: &Evaluation) -> String {
    let mut out = String::new();
    if let Some(r) = &evaluation.remediation {
        out.push_str(&r.disclosure);
        out.push('\n');
    }
    out.push_str(&report::line(evaluation.effective()));
    out
}

fn write_stdout(text: &str) -> Result<(), Fatal> {
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{text}").and_then(|_| stdout.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe means the reader has what it wanted.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Fatal {
            code: exit::INTERNAL,
            message: format!("cannot write output: {e}"),
        }),
    }
}

fn check_batch(global: &Global, null: bool) -> Result<i32, Fatal> {
    let mut evaluator = evaluator(global)?;
    let separator = if null { 0 } else { b'\n' };
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    loop {
        let (bytes, oversized) = match cli::read_record(&mut input, separator) {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => {
                return Err(Fatal {
                    code: exit::INTERNAL,
                    message: format!("cannot read stdin: {e}"),
                });
            }
        };
        let record = if oversized {
            let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(80)]).into_owned();
            let reason = format!("the command is over {MAX_INPUT_BYTES} bytes");
            report::refusal_record(
                &format!("{shown}…"),
                "unverifiable.too-large",
                &reason,
                "split the work into smaller commands",
            )
        } else {
            match String::from_utf8(bytes) {
                Ok(mut text) => {
                    if !null && text.ends_with('\r') {
                        text.pop();
                    }
                    report::record(&evaluator.evaluate(Request::shell(text)))
                }
                Err(e) => {
                    let shown = String::from_utf8_lossy(e.as_bytes()).into_owned();
                    report::refusal_record(
                        &shown,
                        "unverifiable.parse-error",
                        "the command is not valid UTF-8",
                        "pass text; warden only runs what it can read",
                    )
                }
            }
        };
        if let Err(e) = writeln!(out, "{record}") {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                return Ok(exit::OK);
            }
            return Err(Fatal {
                code: exit::INTERNAL,
                message: format!("cannot write output: {e}"),
            });
        }
    }
    match out.flush() {
        Ok(()) => Ok(exit::OK),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(exit::OK),
        Err(e) => Err(Fatal {
            code: exit::INTERNAL,
            message: format!("cannot write output: {e}"),
        }),
    }
}

fn explain(global: &Global, command: Option<OsString>, argv: Vec<OsString>) -> Result<i32, Fatal> {
    let request = request_of(command, argv)?;
    let mut evaluator = evaluator(global)?;
    let evaluation = evaluator.evaluate(request);
    let out = if global.json {
        serde_json::to_string_pretty(&report::explain_json(&evaluation)).unwrap_or_default()
    } else {
        report::explain_text(&evaluation, Some(&evaluator.policy))
    };
    write_stdout(out.trim_end())?;
    Ok(exit_for(evaluation.decision()))
}

fn policy(global: &Global, action: PolicyAction) -> Result<i32, Fatal> {
    match action {
        PolicyAction::List => {
            let workspace = context(global).ok().map(|c| c.workspace);
            let policy = load_policy(global, workspace.as_deref())?;
            if global.json {
                write_stdout(&serde_json::to_string_pretty(&policy.rules).unwrap_or_default())?;
            } else {
                write_stdout(report::rule_list(&policy).trim_end())?;
            }
            Ok(exit::OK)
        }
        PolicyAction::Show { id } => {
            let workspace = context(global).ok().map(|c| c.workspace);
            let policy = load_policy(global, workspace.as_deref())?;
            let rules: Vec<_> = policy
                .rules
                .iter()
                .filter(|r| id.as_deref().is_none_or(|id| r.id == id))
                .collect();
            if rules.is_empty() {
                return Err(Fatal::usage(format!(
                    "no rule with id `{}` (see `warden policy list`)",
                    id.unwrap_or_default()
                )));
            }
            let out = if global.json {
                serde_json::to_string_pretty(&rules).unwrap_or_default()
            } else {
                rules
                    .iter()
                    .map(|r| report::rule_show(r))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            write_stdout(out.trim_end())?;
            Ok(exit::OK)
        }
        PolicyAction::Lint { file } => {
            let policy = match file {
                Some(f) => {
                    let text = std::fs::read_to_string(&f)
                        .map_err(|e| Fatal::usage(format!("rule file {}: {e}", f.display())))?;
                    Policy::with_layers(&[(
                        warden::policy::Layer::User,
                        f.display().to_string(),
                        text,
                    )])
                    .map_err(|e| Fatal::usage(e.to_string()))?
                }
                None => {
                    let workspace = context(global).ok().map(|c| c.workspace);
                    policy_files(global, workspace.as_deref())?.1
                }
            };
            let findings = warden::lint::lint(&policy);
            let mut out = String::new();
            for f in &findings {
                out.push_str(&format!("{f}\n"));
            }
            let personal = policy
                .rules
                .iter()
                .filter(|r| r.layer != warden::policy::Layer::Shipped)
                .count();
            out.push_str(&format!(
                "{personal} rules of yours, {} finding(s)",
                findings.len()
            ));
            write_stdout(&out)?;
            Ok(if findings.is_empty() {
                exit::OK
            } else {
                exit::TEST_FAILED
            })
        }
        PolicyAction::Test { file } => {
            // FILE is tested as the person's own policy file (it may allow); --rules files as
            // they are used.
            let mut extra = Vec::new();
            for (layer, f) in global
                .rules
                .iter()
                .map(|f| (warden::policy::Layer::Extra, f))
                .chain(file.iter().map(|f| (warden::policy::Layer::User, f)))
            {
                let text = std::fs::read_to_string(f)
                    .map_err(|e| Fatal::usage(format!("rule file {}: {e}", f.display())))?;
                extra.push((layer, f.display().to_string(), text));
            }
            let policy = Policy::with_layers(&extra).map_err(|e| Fatal::usage(e.to_string()))?;
            let failures = warden::pipeline::check_examples(&policy, |_| true);
            let examples: usize = policy
                .rules
                .iter()
                .map(|r| r.examples.matches.len() + r.examples.not_match.len())
                .sum();
            let mut out = String::new();
            for f in &failures {
                out.push_str(&format!("FAIL {f}\n"));
            }
            out.push_str(&format!(
                "{} rules, {} examples: {} passed, {} failed",
                policy.rules.len(),
                examples,
                examples - failures.len(),
                failures.len()
            ));
            write_stdout(&out)?;
            Ok(if failures.is_empty() {
                exit::OK
            } else {
                exit::TEST_FAILED
            })
        }
    }
}

/// `warden approve ID` / `warden deny ID`: shows the exact request, confirms on a terminal,
/// records the answer.
fn answer(id: &str, approve: bool, yes: bool) -> Result<i32, Fatal> {
    use warden::approval::{Store, now};
    let store = Store::open(None).map_err(|e| Fatal::usage(e.to_string()))?;
    let challenge = store.get(id).map_err(|e| Fatal::usage(e.to_string()))?;
    let left = challenge.remaining(now());
    eprintln!("challenge  {}", challenge.id);
    eprintln!("request    {}", challenge.request);
    eprintln!(
        "runs       {}",
        serde_json::to_string(&challenge.plan).unwrap_or_default()
    );
    eprintln!("workspace  {}", challenge.workspace.display());
    eprintln!("cwd        {}", challenge.cwd.display());
    eprintln!(
        "network    {}",
        if challenge.network { "on" } else { "off" }
    );
    eprintln!(
        "rule       {} [{}]: {}",
        challenge.rule, challenge.tier, challenge.reason
    );
    eprintln!("expires in {}:{:02}", left / 60, left % 60);
    if approve && !yes {
        if !std::io::stdin().is_terminal() {
            return Err(Fatal::usage(
                "approving needs a person at a terminal to confirm (or --yes from a person's own tooling)",
            ));
        }
        eprint!("Approve this exact request, to run once? [y/N] ");
        let mut line = String::new();
        let _ = std::io::stdin().lock().read_line(&mut line);
        if !matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
            eprintln!("not approved");
            return Ok(exit::TEST_FAILED);
        }
    }
    let who = std::env::var("USER").unwrap_or_else(|_| "a person".into());
    let decided = store
        .decide(
            id,
            approve,
            &format!(
                "{who} (warden {})",
                if approve { "approve" } else { "deny" }
            ),
        )
        .map_err(|e| Fatal::usage(e.to_string()))?;
    if approve {
        println!(
            "approved {}: the identical request runs once when retried within {}:{:02}",
            decided.id,
            left / 60,
            left % 60
        );
    } else {
        println!("denied {}", decided.id);
    }
    Ok(exit::OK)
}

fn audit_log() -> Result<warden::audit::Log, Fatal> {
    warden::audit::Log::open().ok_or_else(|| {
        Fatal::usage("no state directory for the audit log: set XDG_STATE_HOME or HOME")
    })
}

fn log_line(r: &warden::audit::Record) -> String {
    let command = match &r.request {
        Request::Shell { script, .. } => script.replace('\n', " ⏎ "),
        Request::Argv { argv } => warden::pipeline::quote_argv(argv),
        tool @ Request::Tool { .. } => tool.text(),
    };
    let short: String = command.chars().take(80).collect();
    format!(
        "{}  {}  {:<5} {:<12} exit {:<3} {:>6} ms  {}",
        warden::audit::utc(r.time),
        r.id,
        r.decision,
        r.tier,
        r.exit,
        r.duration_ms,
        short
    )
}

/// `warden log`: the audit log as a table (or JSON lines).
fn log(
    global: &Global,
    since: Option<std::time::Duration>,
    decision: Option<String>,
    follow: bool,
) -> Result<i32, Fatal> {
    let log = audit_log()?;
    if let Some(d) = &decision
        && !["allow", "ask", "deny"].contains(&d.as_str())
    {
        return Err(Fatal::usage(format!(
            "--decision must be allow, ask or deny, not `{d}`"
        )));
    }
    let after = since.map_or(0, |s| warden::approval::now().saturating_sub(s.as_secs()));
    let keep = |r: &warden::audit::Record| {
        r.time >= after && decision.as_ref().is_none_or(|d| *d == r.decision)
    };
    let print = |r: &warden::audit::Record| {
        if global.json {
            println!("{}", serde_json::to_string(r).unwrap_or_default());
        } else {
            println!("{}", log_line(r));
        }
    };
    let mut seen = std::collections::HashSet::new();
    for r in log.read_all().iter().filter(|r| keep(r)) {
        seen.insert(r.id.clone());
        print(r);
    }
    if follow {
        loop {
            std::thread::sleep(std::time::Duration::from_millis(500));
            for r in log.read_all().iter().filter(|r| keep(r)) {
                if seen.insert(r.id.clone()) {
                    print(r);
                }
            }
        }
    }
    Ok(exit::OK)
}

/// `warden replay ID`: the recorded decision, and the same request decided under today's
/// policy (nothing runs).
fn replay(global: &Global, id: &str) -> Result<i32, Fatal> {
    let log = audit_log()?;
    let record = log
        .read_all()
        .into_iter()
        .rev()
        .find(|r| r.id == id)
        .ok_or_else(|| Fatal::usage(format!("no audit record `{id}`")))?;
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"));
    let ctx = Context {
        workspace: record.workspace.clone(),
        cwd: record.cwd.clone(),
        home,
    };
    let policy = load_policy(global, Some(&record.workspace))?;
    let revision = policy.revision.clone();
    let mut evaluator = Evaluator::new(policy, ctx);
    evaluator.network = record.network;
    let today = evaluator.evaluate(record.request.clone());
    let now = &today.effective().verdict;
    let same = now.decision.as_str() == record.decision && now.rule == record.rule;
    if global.json {
        println!(
            "{}",
            serde_json::json!({
                "recorded": record,
                "today": report::record(&today),
                "same_decision": same,
                "same_policy": revision == record.policy_revision,
            })
        );
        return Ok(exit::OK);
    }
    println!("{}", log_line(&record));
    println!(
        "then:  {} [{}] by {}: {}",
        record.decision, record.tier, record.rule, record.reason
    );
    if !record.rules.is_empty() {
        println!("       rules matched: {}", record.rules.join(", "));
    }
    if let Some(bytes) = record.output_bytes {
        println!(
            "       exit {} after {} ms; {bytes} bytes of output (stdout sha256 {}, stderr sha256 {})",
            record.exit,
            record.duration_ms,
            record.stdout_sha256.as_deref().unwrap_or("-"),
            record.stderr_sha256.as_deref().unwrap_or("-"),
        );
    }
    println!(
        "today: {} [{}] by {}: {}",
        now.decision.as_str(),
        now.tier.as_str(),
        now.rule,
        now.reason
    );
    println!(
        "{}{}",
        if same {
            "the same decision"
        } else {
            "a DIFFERENT decision"
        },
        if revision == record.policy_revision {
            ", under the same policy"
        } else {
            ", under a changed policy"
        }
    );
    Ok(exit::OK)
}

/// `warden pending [--json]`: the challenges waiting for an answer.
fn pending(global: &Global) -> Result<i32, Fatal> {
    use warden::approval::{Store, now};
    let store = Store::open(None).map_err(|e| Fatal::usage(e.to_string()))?;
    let waiting = store.pending();
    if global.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&waiting).unwrap_or_default()
        );
        return Ok(exit::OK);
    }
    let now = now();
    for c in &waiting {
        let left = c.remaining(now);
        println!(
            "{}  {:>2}:{:02} left  [{}] {}  ({})",
            c.id,
            left / 60,
            left % 60,
            c.tier,
            c.request,
            c.cwd.display()
        );
    }
    if waiting.is_empty() {
        println!("nothing is waiting for approval");
    }
    Ok(exit::OK)
}

fn doctor(global: &Global) -> Result<i32, Fatal> {
    let ctx = context(global)?;
    let checks = warden::sandbox::doctor::run(&ctx.workspace);
    let out = if global.json {
        serde_json::to_string_pretty(&checks).unwrap_or_default()
    } else {
        checks
            .iter()
            .map(|c| {
                let fix = c
                    .fix
                    .as_deref()
                    .map(|f| format!("\n          fix: {f}"))
                    .unwrap_or_default();
                format!(
                    "{:<8} {:<16} {}{fix}",
                    c.status.to_uppercase(),
                    c.name,
                    c.detail
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    write_stdout(&out)?;
    Ok(if checks.iter().any(|c| c.status == "missing") {
        exit::TEST_FAILED
    } else {
        exit::OK
    })
}

/// `warden generate [--out DIR]`: the man pages and completions, byte for byte as committed.
fn generate(out: &Path) -> Result<i32, Fatal> {
    let written = warden::generate::write(out, &warden::generate::files()).map_err(|e| Fatal {
        code: exit::INTERNAL,
        message: format!("cannot write the generated files: {e}"),
    })?;
    let list: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    write_stdout(&list.join("\n"))?;
    Ok(exit::OK)
}

fn selftest(global: &Global) -> Result<i32, Fatal> {
    let probes = warden::sandbox::selftest::run().map_err(|e| Fatal {
        code: exit::INTERNAL,
        message: format!("selftest cannot start the sandbox: {e}"),
    })?;
    let out = if global.json {
        serde_json::to_string_pretty(&probes).unwrap_or_default()
    } else {
        probes
            .iter()
            .map(|p| {
                format!(
                    "{:<10} {:<40} {}",
                    if p.contained { "contained" } else { "BREACH" },
                    p.name,
                    p.detail
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    write_stdout(&out)?;
    Ok(if probes.iter().all(|p| p.contained) {
        exit::OK
    } else {
        exit::TEST_FAILED
    })
}
