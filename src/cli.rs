//! Command-line surface: clap definitions for the subcommands, and the shell-shim grammar.
//!
//! warden is called two ways. As a tool (`warden run|check|explain|policy …`), parsed by clap. As
//! a shell (`warden [OPTIONS] -c STRING [ARG0 ARGS…]`, what agents do with `$SHELL -c`), parsed by
//! [`parse_shell`], which follows bash's own option grammar (clustered `-lc`, `-ec`, `-o NAME`,
//! positional parameters after the string) so that any program that can drive bash can drive
//! warden. Invariant: nothing here decides or runs; it only turns argv into a typed request.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

/// Options shared by every form.
#[derive(Args, Clone, Debug, Default)]
pub struct Global {
    /// The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the
    /// enclosing git work tree, else the current directory].
    #[arg(long, global = true, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// Machine-readable output (JSON).
    #[arg(long, global = true)]
    pub json: bool,
    /// Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s].
    #[arg(long, global = true, value_name = "DURATION", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
    /// Time between TERM and KILL when the limit is reached [default: 2s].
    #[arg(long, global = true, value_name = "DURATION", value_parser = parse_duration)]
    pub grace: Option<Duration>,
    /// Extra rule file, consulted after the shipped rules (repeatable).
    #[arg(long = "rules", global = true, value_name = "FILE")]
    pub rules: Vec<PathBuf>,
    /// Budget for each of the command's stdout and stderr when not a terminal, e.g. `1M`,
    /// `512K`, `0` for none; the head and tail are kept and a marker names what was dropped
    /// [default: 1M].
    #[arg(long, global = true, value_name = "SIZE", value_parser = parse_size)]
    pub max_output: Option<usize>,
    /// Give the command the host network (the policy asks for approval first). Without it the
    /// sandbox has only loopback.
    #[arg(long, global = true)]
    pub network: bool,
    /// Run allowed commands even when the sandbox cannot be had here (bwrap missing, user
    /// namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1.
    #[arg(long, global = true)]
    pub allow_degraded: bool,
    /// Pass this environment variable into the sandbox (repeatable). Loader hooks and anything
    /// that looks like a credential never pass, whatever is asked.
    #[arg(long = "pass-env", global = true, value_name = "NAME")]
    pub pass_env: Vec<String>,
    /// The agent session this request belongs to (recorded in the audit log; also
    /// WARDEN_SESSION).
    #[arg(long, global = true, value_name = "ID")]
    pub session: Option<String>,
    /// The defaults where no rule decided: readonly, workspace (the default) or strict
    /// (overrides `[policy] profile` in the user configuration).
    #[arg(long, global = true, value_name = "PROFILE", value_parser = crate::policy::Profile::parse)]
    pub profile: Option<crate::policy::Profile>,
    /// Refuse any identical request that already failed twice in this session (by default only
    /// writes are refused; other repeats get a warning).
    #[arg(long, global = true)]
    pub hard_stop: bool,
    /// Return the command's output as untrusted data: each stream inside an envelope naming
    /// its source, size and SHA-256, secrets redacted, within the --max-output budget.
    #[arg(long, global = true)]
    pub envelope: bool,
    /// No person can answer here: what needs approval is refused (also when CI=true).
    #[arg(long, global = true)]
    pub non_interactive: bool,
    /// When approval is needed, wait for a person's answer (up to DURATION, default until the
    /// challenge expires) instead of exiting 75.
    #[arg(long, global = true, value_name = "DURATION", num_args = 0..=1, default_missing_value = "0", value_parser = parse_duration)]
    pub wait: Option<Duration>,
}

/// warden: a guarded shell. Every command is parsed, classified and decided before it runs.
#[derive(Parser, Debug)]
#[command(
    name = "warden",
    version,
    about = "A guarded shell: commands are parsed, classified and decided by rules before they run.",
    after_help = "Shell form: warden [OPTIONS] -c STRING [ARG0 ARGS…] runs STRING like `bash -c`.\n\
                  Exit codes: the command's own status; 2 usage; 75 needs approval; 77 denied; 124 timeout; \
                  125 warden failed; 126/127 not executable / not found."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run PROGRAM with ARGS (no shell re-parsing of the arguments) if the policy allows it.
    Run {
        /// The program and its arguments, after `--`.
        #[arg(last = true, required = true, value_name = "PROGRAM [ARGS]")]
        argv: Vec<OsString>,
    },
    /// Decide without running: exit 0 allow, 75 needs approval, 77 deny.
    Check {
        /// Bash text to decide.
        #[arg(short = 'c', value_name = "STRING", conflicts_with_all = ["batch", "argv"])]
        command: Option<OsString>,
        /// Read commands from stdin (one per line, or NUL-separated with --null); one JSON line each.
        #[arg(long)]
        batch: bool,
        /// With --batch: commands are separated by NUL bytes, so they may span lines.
        #[arg(long, requires = "batch")]
        null: bool,
        /// A program and arguments to decide as an argv, after `--`.
        #[arg(last = true, value_name = "PROGRAM [ARGS]", conflicts_with = "batch")]
        argv: Vec<OsString>,
    },
    /// Show how a command is parsed, classified and decided, rule by rule.
    Explain {
        /// Bash text to explain.
        #[arg(short = 'c', value_name = "STRING", conflicts_with = "argv")]
        command: Option<OsString>,
        /// A program and arguments, after `--`.
        #[arg(last = true, value_name = "PROGRAM [ARGS]")]
        argv: Vec<OsString>,
    },
    /// Check what the sandbox can have on this machine (bwrap, namespaces, Landlock), with fixes.
    Doctor,
    /// Try to break out of the sandbox on this machine; exit 0 only if everything is contained.
    Selftest,
    /// Approve a pending challenge: the identical request then runs once when retried.
    Approve {
        /// The challenge id warden printed.
        id: String,
        /// Do not ask for confirmation (for a person's own tooling; otherwise a terminal asks).
        #[arg(long)]
        yes: bool,
    },
    /// Deny a pending challenge.
    Deny {
        /// The challenge id warden printed.
        id: String,
    },
    /// List the challenges waiting for an answer.
    Pending,
    /// Serve tool calls: one JSON request on stdin (`{"tool": …, "args": {…}, "id": …}`), one
    /// JSON result on stdout; with --stream, one request per line until end of input.
    Tool {
        /// Read a stream of JSON lines, one result line each.
        #[arg(long)]
        stream: bool,
    },
    /// Serve the tools as a Model Context Protocol server on stdin and stdout: the tool list is
    /// the capability snapshot of the profile, every call goes through the policy. With
    /// --upstream, also a policy proxy in front of other MCP servers, each started in the
    /// sandbox, their tools listed as NAME.tool.
    Mcp {
        /// Proxy the MCP server started by the command after `--`, its tools named NAME.tool
        /// (more: `… -- CMD ARGS --upstream NAME2 -- CMD2 ARGS`; or [mcp.upstream.NAME] in
        /// the configuration).
        #[arg(long, value_name = "NAME")]
        upstream: Option<String>,
        /// Never ask approval questions through the client (MCP elicitation); a person answers
        /// with `warden approve` only.
        #[arg(long)]
        no_elicitation: bool,
        /// The upstream's command and arguments, after `--`.
        #[arg(last = true, value_name = "COMMAND [ARGS]")]
        command: Vec<String>,
    },
    /// Decide an agent's own tool call as its pre-tool hook (`claude-code`): the payload on
    /// stdin, the decision as JSON on stdout, always exit 0; anything that cannot be judged is
    /// denied.
    Hook {
        /// The agent whose hook protocol is spoken: claude-code (PreToolUse) or gemini (BeforeTool).
        agent: String,
    },
    /// Wire warden into an agent's configuration (claude-code, gemini, codex), keeping
    /// everything there.
    ///
    /// claude-code: its PreToolUse hook in ~/.claude/settings.json; gemini: its BeforeTool hook
    /// in ~/.gemini/settings.json (the project's with --project); codex: warden's tools as the
    /// MCP server [mcp_servers.warden] appended to ~/.codex/config.toml ($CODEX_HOME when set),
    /// started in the directory Codex runs in. Codex's own shell tool is not seen by warden.
    /// The previous file is kept beside the new one and a second run changes nothing; a file of
    /// another shape is refused (exit 2) and left as it is.
    Install {
        /// The agent: claude-code, gemini or codex.
        #[arg(value_parser = clap::builder::PossibleValuesParser::new(crate::install::AGENTS.iter().copied()))]
        agent: String,
        /// Print the whole resulting configuration instead of writing it.
        #[arg(long)]
        dry_run: bool,
        /// The workspace's `.claude/settings.json` or `.gemini/settings.json` instead of the
        /// user's (not for codex).
        #[arg(long)]
        project: bool,
    },
    /// Decide the commands written in files without running them: shell scripts, Dockerfile
    /// RUN lines, Makefile recipes, GitHub Actions run steps. Exit 1 when any is denied.
    Scan {
        /// text, json (one line per command) or sarif.
        #[arg(long, default_value = "text")]
        format: String,
        /// The files to scan.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Bring back a backup that an edit or overwrite of a configuration file kept (the newest,
    /// or --from NAME); --list shows them. The current content is backed up first.
    Restore {
        /// The file, relative to the workspace root.
        path: String,
        /// List the backups of PATH instead.
        #[arg(long)]
        list: bool,
        /// The backup to restore (a name from --list).
        #[arg(long, value_name = "NAME", conflicts_with = "list")]
        from: Option<String>,
    },
    /// Print the tool schemas an agent should be shown under the profile (--profile).
    Tools {
        /// json, mcp, openai or anthropic.
        #[arg(long, default_value = "json")]
        format: String,
    },
    /// Show the audit log: one line per decision warden acted on.
    Log {
        /// Only records newer than this (`30m`, `2h`, `7d` as `168h`).
        #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
        since: Option<Duration>,
        /// Only records with this decision (allow, ask, deny).
        #[arg(long, value_name = "DECISION")]
        decision: Option<String>,
        /// Keep printing records as they are written.
        #[arg(short = 'f', long)]
        follow: bool,
    },
    /// Show a recorded decision and decide the same request again under today's policy,
    /// without running anything.
    Replay {
        /// The record id (from `warden log`).
        id: String,
    },
    /// Inspect and test the rules in force.
    Policy {
        #[command(subcommand)]
        action: PolicyAction,
    },
    /// Write the man pages and shell completions (for packagers; the repository commits them).
    #[command(hide = true)]
    Generate {
        /// The directory that receives `man/` and `completions/`.
        #[arg(long, value_name = "DIR", default_value = ".")]
        out: PathBuf,
    },
}

#[derive(Subcommand, Debug)]
pub enum PolicyAction {
    /// List the rules in force, in the order they are consulted.
    List,
    /// Show one rule (or all) in full.
    Show { id: Option<String> },
    /// Check every rule's examples (and FILE's rules, added to the shipped ones).
    Test { file: Option<PathBuf> },
    /// Find mistakes in your policy files (or FILE): failing examples, rules an earlier rule
    /// shadows, allows that a catastrophic rule makes moot. Exit 1 when something is found.
    Lint { file: Option<PathBuf> },
}

/// Names that select the tool form; anything else is the shell form.
pub const SUBCOMMANDS: &[&str] = &[
    "run", "check", "explain", "policy", "doctor", "selftest", "approve", "deny", "pending", "log",
    "replay", "restore", "tool", "tools", "hook", "install", "scan", "mcp", "generate", "help",
];

/// `120`, `120s`, `500ms`, `2m`, `1h`, `1.5s`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (try 30s, 500ms, 2m)"))?;
    let seconds = match unit {
        "" | "s" => value,
        "ms" => value / 1000.0,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => {
            return Err(format!(
                "unknown unit `{unit}` in `{text}` (use ms, s, m or h)"
            ));
        }
    };
    if !seconds.is_finite() || seconds <= 0.0 || seconds > 7.0 * 24.0 * 3600.0 {
        return Err(format!(
            "`{text}` is out of range (more than 0, at most 7 days)"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// `1048576`, `512K`, `1M`, `2G` (powers of 1024); `0` turns the budget off.
pub fn parse_size(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: usize = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size (try 1M, 512K)"))?;
    let factor: usize = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        _ => return Err(format!("unknown unit `{unit}` in `{text}` (use K, M or G)")),
    };
    value
        .checked_mul(factor)
        .ok_or_else(|| format!("`{text}` is too large"))
}

/// The shell form, parsed.
#[derive(Debug, Default)]
pub struct ShellArgs {
    pub global: Global,
    /// `-c STRING`.
    pub command: Option<OsString>,
    /// A script file operand (`warden script.sh args`), when there is no `-c`.
    pub script_file: Option<PathBuf>,
    /// `$0 $1 …` after the command string (or `$1 …` after the script file).
    pub positional: Vec<OsString>,
    /// bash set-options to keep (`-e`, `-u`, `-x`, `-o pipefail`, …), passed to bash as given.
    pub shell_options: Vec<String>,
    pub help: bool,
    pub version: bool,
}

/// A usage error in the shell form.
#[derive(Debug, thiserror::Error)]
#[error(
    "{0}\n\nUsage: warden [OPTIONS] -c STRING [ARG0 ARGS…]\n       warden run|check|explain|policy … (see `warden --help`)"
)]
pub struct UsageError(pub String);

const SET_FLAGS: &str = "abefhkmnptuvxBCEHPT";
const SET_OPTIONS: &[&str] = &[
    "allexport",
    "braceexpand",
    "errexit",
    "errtrace",
    "functrace",
    "hashall",
    "histexpand",
    "history",
    "ignoreeof",
    "keyword",
    "monitor",
    "noclobber",
    "noexec",
    "noglob",
    "nolog",
    "notify",
    "nounset",
    "onecmd",
    "physical",
    "pipefail",
    "posix",
    "privileged",
    "verbose",
    "vi",
    "emacs",
    "xtrace",
];

/// Parses the shell form: warden's long options, then bash's (`-c`, `-l`, `-i`, `-s`, set flags).
pub fn parse_shell(args: &[OsString]) -> Result<ShellArgs, UsageError> {
    let mut out = ShellArgs::default();
    let mut want_command = false;
    let mut i = 0;
    let value_of =
        |i: &mut usize, inline: Option<&str>, name: &str| -> Result<String, UsageError> {
            if let Some(v) = inline {
                return Ok(v.to_string());
            }
            *i += 1;
            args.get(*i)
                .and_then(|v| v.to_str())
                .map(str::to_string)
                .ok_or_else(|| UsageError(format!("option `{name}` needs a value")))
        };
    while i < args.len() {
        let Some(arg) = args[i].to_str() else {
            break; // a non-UTF-8 operand: the command string or a positional parameter
        };
        if arg == "--" || arg == "-" {
            i += 1;
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            match name {
                "workspace" => {
                    out.global.workspace =
                        Some(PathBuf::from(value_of(&mut i, inline, "--workspace")?))
                }
                "timeout" => {
                    out.global.timeout = Some(
                        parse_duration(&value_of(&mut i, inline, "--timeout")?)
                            .map_err(UsageError)?,
                    )
                }
                "grace" => {
                    out.global.grace = Some(
                        parse_duration(&value_of(&mut i, inline, "--grace")?)
                            .map_err(UsageError)?,
                    )
                }
                "max-output" => {
                    out.global.max_output = Some(
                        parse_size(&value_of(&mut i, inline, "--max-output")?)
                            .map_err(UsageError)?,
                    )
                }
                "rules" => out
                    .global
                    .rules
                    .push(PathBuf::from(value_of(&mut i, inline, "--rules")?)),
                "non-interactive" if inline.is_none() => out.global.non_interactive = true,
                "hard-stop" if inline.is_none() => out.global.hard_stop = true,
                "envelope" if inline.is_none() => out.global.envelope = true,
                "wait" => {
                    out.global.wait = Some(match inline {
                        Some(v) => parse_duration(v).map_err(UsageError)?,
                        None => Duration::ZERO,
                    })
                }
                "session" => out.global.session = Some(value_of(&mut i, inline, "--session")?),
                "profile" => {
                    out.global.profile = Some(
                        crate::policy::Profile::parse(&value_of(&mut i, inline, "--profile")?)
                            .map_err(UsageError)?,
                    )
                }
                "pass-env" => out
                    .global
                    .pass_env
                    .push(value_of(&mut i, inline, "--pass-env")?),
                "json" if inline.is_none() => out.global.json = true,
                "allow-degraded" if inline.is_none() => out.global.allow_degraded = true,
                "network" if inline.is_none() => out.global.network = true,
                "login" | "noprofile" | "norc" | "noediting" | "posix" | "restricted"
                    if inline.is_none() => {}
                "help" if inline.is_none() => out.help = true,
                "version" if inline.is_none() => out.version = true,
                _ => return Err(UsageError(format!("unknown option `--{name}`"))),
            }
            i += 1;
            continue;
        }
        let (on, flags) = if let Some(f) = arg.strip_prefix('-').filter(|f| !f.is_empty()) {
            (true, f)
        } else if let Some(f) = arg.strip_prefix('+').filter(|f| !f.is_empty()) {
            (false, f)
        } else {
            break; // first operand
        };
        let sign = if on { '-' } else { '+' };
        let mut takes_option_name = false;
        for c in flags.chars() {
            match c {
                'c' if on => want_command = true,
                'l' | 'i' | 's' if on => {}
                'h' if on && flags == "h" => out.help = true,
                'o' => takes_option_name = true,
                c if SET_FLAGS.contains(c) => out.shell_options.push(format!("{sign}{c}")),
                c => return Err(UsageError(format!("unknown option `{sign}{c}`"))),
            }
        }
        if takes_option_name {
            let name = value_of(&mut i, None, &format!("{sign}o"))?;
            if !SET_OPTIONS.contains(&name.as_str()) {
                return Err(UsageError(format!(
                    "unknown shell option `{name}` for `{sign}o`"
                )));
            }
            out.shell_options.push(format!("{sign}o"));
            out.shell_options.push(name);
        }
        i += 1;
    }
    let mut rest = args[i.min(args.len())..].iter().cloned();
    if want_command {
        out.command = Some(
            rest.next()
                .ok_or_else(|| UsageError("option `-c` needs a command string".into()))?,
        );
    } else if let Some(file) = rest.next() {
        out.script_file = Some(PathBuf::from(file));
    }
    out.positional = rest.collect();
    Ok(out)
}

/// True when argv selects the tool form (a subcommand, possibly after warden's global options).
pub fn is_tool_form(args: &[OsString]) -> bool {
    let mut i = 0;
    while let Some(arg) = args.get(i).and_then(|a| a.to_str()) {
        match arg {
            "--workspace" | "--timeout" | "--grace" | "--rules" | "--max-output" | "--pass-env"
            | "--session" | "--profile" => i += 2,
            "--json" | "--allow-degraded" | "--network" | "--non-interactive" | "--wait"
            | "--hard-stop" => i += 1,
            a if a.starts_with("--") && a.contains('=') => i += 1,
            a => return SUBCOMMANDS.contains(&a),
        }
    }
    false
}

/// Reads one `check --batch` record of at most MAX_INPUT_BYTES (+1 to detect excess); the rest of an oversized
/// record is consumed without being stored. Returns None at the end of input.
pub fn read_record(
    input: &mut impl std::io::BufRead,
    separator: u8,
) -> std::io::Result<Option<(Vec<u8>, bool)>> {
    let mut record = Vec::new();
    let mut oversized = false;
    let mut any = false;
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok(any.then_some((record, oversized)));
        }
        any = true;
        let (chunk, done) = match available.iter().position(|&b| b == separator) {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        if !oversized {
            let room = (crate::shell::MAX_INPUT_BYTES + 1).saturating_sub(record.len());
            record.extend_from_slice(&chunk[..chunk.len().min(room)]);
            oversized = record.len() > crate::shell::MAX_INPUT_BYTES;
        }
        let consumed = done.unwrap_or(available.len());
        input.consume(consumed);
        if done.is_some() {
            return Ok(Some((record, oversized)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn clustered_lc_takes_the_next_word_as_the_command() {
        let parsed = parse_shell(&os(&["-lc", "echo hi", "zero", "one"])).unwrap();
        assert_eq!(parsed.command, Some(OsString::from("echo hi")));
        assert_eq!(parsed.positional, os(&["zero", "one"]));
        assert!(parsed.shell_options.is_empty());
    }

    #[test]
    fn errexit_and_pipefail_are_kept_for_bash() {
        let parsed = parse_shell(&os(&["-e", "-o", "pipefail", "-c", "true"])).unwrap();
        assert_eq!(parsed.shell_options, vec!["-e", "-o", "pipefail"]);
        let parsed = parse_shell(&os(&["-ec", "true"])).unwrap();
        assert_eq!(parsed.shell_options, vec!["-e"]);
    }

    #[test]
    fn warden_options_come_before_the_command() {
        let parsed = parse_shell(&os(&["--timeout", "5s", "--workspace=/w", "-c", "ls"])).unwrap();
        assert_eq!(parsed.global.timeout, Some(Duration::from_secs(5)));
        assert_eq!(parsed.global.workspace, Some(PathBuf::from("/w")));
        assert_eq!(parsed.command, Some(OsString::from("ls")));
    }

    #[test]
    fn unknown_options_are_usage_errors() {
        assert!(parse_shell(&os(&["--frobnicate", "-c", "ls"])).is_err());
        assert!(parse_shell(&os(&["-Z", "-c", "ls"])).is_err());
        assert!(parse_shell(&os(&["-c"])).is_err());
        assert!(parse_shell(&os(&["-o", "nonsense", "-c", "ls"])).is_err());
    }

    #[test]
    fn subcommands_are_found_after_global_options() {
        assert!(is_tool_form(&os(&["check", "-c", "ls"])));
        assert!(is_tool_form(&os(&[
            "--workspace",
            "/w",
            "check",
            "--batch"
        ])));
        assert!(!is_tool_form(&os(&["-c", "check"])));
        assert!(!is_tool_form(&os(&["--timeout", "5", "-lc", "run"])));
    }

    #[test]
    fn batch_records_split_on_the_separator_and_oversized_ones_are_flagged() {
        let mut input = std::io::Cursor::new(b"a\nb b\n\nlast".to_vec());
        let mut records = Vec::new();
        while let Some(r) = read_record(&mut input, b'\n').unwrap() {
            records.push(r);
        }
        let texts: Vec<&[u8]> = records.iter().map(|(b, _)| b.as_slice()).collect();
        assert_eq!(texts, vec![&b"a"[..], b"b b", b"", b"last"]);
        let big = vec![b'x'; crate::shell::MAX_INPUT_BYTES + 10];
        let mut input = std::io::Cursor::new([big.as_slice(), b"\0next\0"].concat());
        let (first, oversized) = read_record(&mut input, 0).unwrap().unwrap();
        assert!(oversized);
        assert_eq!(first.len(), crate::shell::MAX_INPUT_BYTES + 1);
        assert_eq!(
            read_record(&mut input, 0).unwrap(),
            Some((b"next".to_vec(), false))
        );
        assert_eq!(read_record(&mut input, 0).unwrap(), None);
    }

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("120"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("0").is_err());
        assert!(parse_duration("abc").is_err());
        assert!(parse_duration("5 parsecs").is_err());
    }
}
