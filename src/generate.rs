//! Man pages and shell completions, generated from the clap definition in [`crate::cli`].
//!
//! The repository commits what these functions return (`man/`, `completions/`), and
//! `tests/generated.rs` compares the two byte for byte, so a changed option or subcommand that
//! was not regenerated fails the tests instead of shipping stale documentation.
//!
//! Invariant: the output depends only on the clap definition, the constants it quotes (exit
//! codes, the sandbox's environment allow-list) and the text here; no date, host or environment
//! goes in, so two runs anywhere give the same bytes.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};

use crate::cli::Cli;
use crate::exit;

/// The program name as installed, and the stem of every page and completion file.
const NAME: &str = "warden";

/// Every generated file: its path relative to the output directory, and its contents.
pub fn files() -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = man_pages();
    files.extend(completions());
    files
}

/// `man/warden.1` and one page per visible subcommand, nested ones included
/// (`man/warden-policy-lint.1`).
pub fn man_pages() -> Vec<(PathBuf, Vec<u8>)> {
    let mut root = command();
    root.build();
    let mut pages = vec![(page_path(&root), main_page(&root))];
    add_subcommand_pages(&root, &mut pages);
    pages
}

/// `completions/warden.bash`, `completions/_warden` (zsh) and `completions/warden.fish`.
pub fn completions() -> Vec<(PathBuf, Vec<u8>)> {
    [Shell::Bash, Shell::Zsh, Shell::Fish]
        .into_iter()
        .map(|shell| {
            let mut cmd = command();
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut cmd, NAME, &mut out);
            let path =
                Path::new("completions").join(clap_complete::Generator::file_name(&shell, NAME));
            (path, out)
        })
        .collect()
}

/// Writes `files` under `dir`, creating directories as needed; returns the paths written.
pub fn write(dir: &Path, files: &[(PathBuf, Vec<u8>)]) -> std::io::Result<Vec<PathBuf>> {
    let mut written = Vec::with_capacity(files.len());
    for (relative, contents) in files {
        let path = dir.join(relative);
        let annotate =
            |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(annotate)?;
        }
        std::fs::write(&path, contents).map_err(annotate)?;
        written.push(path);
    }
    Ok(written)
}

/// The tool form as clap knows it, without the `help` subcommand (`--help` stays), which would
/// otherwise get a page and completions of its own.
fn command() -> clap::Command {
    Cli::command().disable_help_subcommand(true)
}

fn page_path(cmd: &clap::Command) -> PathBuf {
    let name = cmd.get_display_name().unwrap_or_else(|| cmd.get_name());
    Path::new("man").join(format!("{name}.1"))
}

/// A page's `.TH` line: title in capitals, section 1, no date (a date taken at generation would
/// make every run differ from the committed copy), the version as the source.
fn man(cmd: &clap::Command) -> Man {
    let name = cmd.get_display_name().unwrap_or_else(|| cmd.get_name());
    Man::new(cmd.clone())
        .title(name.to_uppercase())
        // `""` keeps the empty date an argument of its own; an empty string would vanish and
        // shift the source into the date's place.
        .date("\"\"")
        .source(format!("{NAME} {}", env!("CARGO_PKG_VERSION")))
        .manual("warden manual")
}

/// A page assembled from separately rendered parts.
struct Page {
    /// What roff writes before every rendered part; a page needs it once.
    preamble: Vec<u8>,
    text: Vec<u8>,
}

impl Page {
    fn new() -> Page {
        let preamble = Roff::new().render().into_bytes();
        Page {
            text: preamble.clone(),
            preamble,
        }
    }

    /// Adds a part rendered by clap_mangen.
    fn part(&mut self, render: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) {
        let mut out = Vec::new();
        render(&mut out).expect("rendering into memory does not fail");
        let body = out.strip_prefix(self.preamble.as_slice()).unwrap_or(&out);
        self.text.extend_from_slice(body);
    }

    /// Adds sections written here.
    fn roff(&mut self, roff: &Roff) {
        self.part(|w| roff.to_writer(w));
    }
}

fn main_page(root: &clap::Command) -> Vec<u8> {
    // The synopsis names both forms; clap alone knows only the tool form.
    let with_forms = root.clone().override_usage(
        "warden [OPTIONS] -c STRING [ARG0 [ARGS...]]\n\
         warden [OPTIONS] SCRIPT [ARGS...]\n\
         warden [OPTIONS] < SCRIPT\n\
         warden [OPTIONS] COMMAND [COMMAND-OPTIONS] [ARGS...]",
    );
    let man = man(&with_forms);
    let mut page = Page::new();
    page.part(|w| man.render_title(w));
    page.part(|w| man.render_name_section(w));
    page.part(|w| man.render_synopsis_section(w));
    page.roff(&description());
    page.roff(&shell_form());
    page.part(|w| man.render_options_section(w));
    page.part(|w| man.render_subcommands_section(w));
    page.roff(&exit_status());
    page.roff(&environment());
    page.roff(&files_section());
    page.roff(&see_also(&[
        "bash(1)",
        "bwrap(1)",
        "landlock(7)",
        "seccomp(2)",
    ]));
    page.part(|w| man.render_version_section(w));
    page.text
}

/// Every visible subcommand's page, depth first; hidden ones (`generate`) get none.
fn add_subcommand_pages(parent: &clap::Command, pages: &mut Vec<(PathBuf, Vec<u8>)>) {
    for sub in parent.get_subcommands().filter(|s| !s.is_hide_set()) {
        pages.push((page_path(sub), subcommand_page(sub)));
        add_subcommand_pages(sub, pages);
    }
}

/// A subcommand's page lists only its own options; the global ones are described once, on the
/// main page, and named here by reference.
fn subcommand_page(sub: &clap::Command) -> Vec<u8> {
    let own = sub.clone().mut_args(|arg| {
        if arg.is_global_set() {
            arg.hide(true)
        } else {
            arg
        }
    });
    let man = man(&own);
    let mut page = Page::new();
    page.part(|w| man.render_title(w));
    page.part(|w| man.render_name_section(w));
    page.part(|w| man.render_synopsis_section(w));
    page.part(|w| man.render_description_section(w));
    page.part(|w| man.render_options_section(w));
    let mut global = Roff::new();
    global.control("SH", ["GLOBAL OPTIONS"]).text([
        roman("The options of "),
        bold(NAME),
        roman("(1) (such as "),
        bold("--workspace"),
        roman(", "),
        bold("--json"),
        roman(", "),
        bold("--timeout"),
        roman(" and "),
        bold("--profile"),
        roman(") are accepted here too, before or after the subcommand."),
    ]);
    page.roff(&global);
    if sub.get_subcommands().any(|s| !s.is_hide_set()) {
        page.part(|w| man.render_subcommands_section(w));
    }
    page.roff(&see_also(&[&format!("{NAME}(1)")]));
    page.text
}

/// A `.TP` list: a bold term, then its paragraph.
fn definitions(roff: &mut Roff, items: &[(impl AsRef<str>, &str)]) {
    for (term, body) in items {
        roff.control("TP", [])
            .text([bold(term.as_ref())])
            .text([roman(*body)]);
    }
}

fn paragraph(roff: &mut Roff, text: &str) {
    roff.control("PP", []).text([roman(text)]);
}

fn description() -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["DESCRIPTION"]);
    roff.text([
        bold(NAME),
        roman(
            " is a shell for AI agents and for the people who supervise them. Every command is \
             parsed with a bash grammar, classified into operations with their side effects and \
             real targets, and decided by rule files before anything runs: allowed work runs \
             inside a sandbox confined to the workspace, work that needs a person's yes waits \
             for an approval, and whatever is denied or cannot be verified does not run at all.",
        ),
    ]);
    paragraph(
        &mut roff,
        "warden is called in two ways. In the shell form it stands in for bash: agents run it \
         as their $SHELL with -c, and scripts can be given as a file or on stdin. In the tool \
         form a subcommand names what to do: run an argv, decide or explain without running, \
         inspect the policy, answer approvals, read the audit log, serve tool calls or check \
         the sandbox.",
    );
    paragraph(
        &mut roff,
        "A refusal is one line on stderr, naming the tier, the reason and a hint:",
    );
    roff.control("RS", []).control("nf", []);
    roff.text([roman("[tier] blocked: reason \u{2014} hint")]);
    roff.text([roman("[tier] needs approval: reason \u{2014} hint")]);
    roff.control("fi", []).control("RE", []);
    roff
}

fn shell_form() -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["SHELL FORM"]);
    roff.text([roman(
        "Unless a subcommand follows warden's options, the arguments follow bash's own \
         grammar, so that any program able to drive bash can drive warden. warden's options \
         come first, bash's after them.",
    )]);
    definitions(
        &mut roff,
        &[
            (
                "-c STRING [ARG0 [ARGS...]]",
                "Decide STRING as a whole and, when it is allowed, run it with bash in the \
                     sandbox, as bash -c would; ARG0 and ARGS become $0, $1 and so on. Clustered \
                     forms such as -lc and -ec work.",
            ),
            (
                "SCRIPT [ARGS...]",
                "Read the file SCRIPT and decide it as a whole; $0 is SCRIPT and ARGS \
                     become $1 and so on.",
            ),
            (
                "standard input",
                "With neither -c nor SCRIPT, a script piped to stdin is read and decided as \
                     a whole. On a terminal, warden reads one line at a time, deciding and \
                     running each; cd moves the session's directory and exit ends it.",
            ),
            (
                "-e, -u, -x, -o NAME, +o NAME, ...",
                "bash's set-options are checked and passed on to bash. -l, --login, -i, -s, \
                     --noprofile, --norc, --noediting, --posix and --restricted are accepted \
                     and have no further effect.",
            ),
        ],
    );
    paragraph(
        &mut roff,
        &format!(
            "Commands, scripts and their arguments must be UTF-8 and at most {} bytes; \
             warden does not run what it cannot read (exit {}).",
            crate::shell::MAX_INPUT_BYTES,
            exit::DENIED
        ),
    );
    roff
}

fn exit_status() -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["EXIT STATUS"]);
    roff.text([roman(
        "When a command runs, warden exits with the command's own status (128+N when signal N \
         ended it, as bash reports). The other statuses are warden's own:",
    )]);
    let code = |c: i32| c.to_string();
    let table = [
        (
            code(exit::OK),
            "Success; for check, the command is allowed.",
        ),
        (
            code(exit::TEST_FAILED),
            "policy test or policy lint found a failing example or a mistake; selftest found \
             something not contained; doctor found a sandbox layer missing; tool returned a \
             typed failure other than a refusal or an approval.",
        ),
        (
            code(exit::USAGE),
            "Usage error: an unknown option, a missing command, an unreadable or invalid rule \
             file, a bad workspace, an unknown or expired challenge.",
        ),
        (
            code(exit::NEEDS_APPROVAL),
            "The request needs a person's approval (sensitive or system tier). The challenge \
             id is printed; nothing ran. After warden approve ID, the identical request runs \
             once when retried.",
        ),
        (
            code(exit::DENIED),
            "Denied: a catastrophic, unverifiable, secret or policy-tier refusal, a person's \
             no, a question where no one can answer, or the loop guardrail. Nothing ran.",
        ),
        (
            code(exit::TIMEOUT),
            "The time limit was reached; the command's process group got TERM and, after the \
             grace period, KILL.",
        ),
        (
            code(exit::INTERNAL),
            "warden itself failed, or the sandbox could not be had or started; the command did \
             not run.",
        ),
        (
            format!("{} / {}", exit::NOT_EXECUTABLE, exit::NOT_FOUND),
            "The program cannot be executed / was not found, as in bash.",
        ),
    ];
    definitions(&mut roff, &table);
    roff
}

fn environment() -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["ENVIRONMENT"]);
    definitions(
        &mut roff,
        &[
            (
                "WARDEN_WORKSPACE",
                "The workspace when --workspace is not given (otherwise the enclosing git \
                     work tree, else the current directory).",
            ),
            (
                "WARDEN_SESSION",
                "The agent session, as --session: recorded in the audit log and used by \
                     the loop guardrails.",
            ),
            (
                "WARDEN_ALLOW_DEGRADED",
                "Set to 1, the same as --allow-degraded.",
            ),
            (
                "CI",
                "Set to true or 1, the same as --non-interactive: what needs approval is \
                     refused.",
            ),
            (
                "XDG_CONFIG_HOME, XDG_STATE_HOME, HOME",
                "Where the user's policy, configuration and state are found (see FILES).",
            ),
        ],
    );
    paragraph(
        &mut roff,
        &format!(
            "The command in the sandbox gets an environment built from nothing: {} when the \
             host has them, the names given with --pass-env (never loader hooks or anything \
             that looks like a credential), and HOME and TMPDIR inside the sandbox.",
            crate::sandbox::spec::PASSED.join(", ")
        ),
    );
    roff
}

fn files_section() -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["FILES"]);
    roff.text([roman(
        "Policy files are consulted in this order, after the rules built into warden:",
    )]);
    definitions(
        &mut roff,
        &[
            ("/etc/warden/policy.toml", "The administrator's rules."),
            (
                "$XDG_CONFIG_HOME/warden/policy.toml",
                "The user's rules (else ~/.config/warden/policy.toml); refused when it is \
                     inside the workspace.",
            ),
            (
                "WORKSPACE/.warden/policy.toml",
                "The workspace's rules. Commands can write the workspace, so these may \
                     only ask or deny, never allow.",
            ),
            (
                "--rules FILE",
                "Extra rule files, with the same limits as the workspace's.",
            ),
        ],
    );
    roff.control("PP", []);
    roff.text([roman("Other files:")]);
    definitions(
        &mut roff,
        &[
            (
                "$XDG_CONFIG_HOME/warden/config.toml",
                "The user's configuration (else ~/.config/warden/config.toml): the profile \
                     and the network setting under [policy], approvals under [approval], and the \
                     MCP servers proxied by warden mcp under [mcp.upstream.NAME].",
            ),
            (
                "$XDG_STATE_HOME/warden/",
                "warden's state (else ~/.local/state/warden/), private to the user and \
                     outside every sandbox: audit/audit.jsonl, the audit log; approvals/, the \
                     challenges and their answers; guardrails/, the requests that failed per \
                     session; history, the lines of interactive sessions.",
            ),
            (
                "WORKSPACE/.warden/backups/",
                "Copies of configuration files kept before an edit or overwrite, brought \
                     back with warden restore.",
            ),
        ],
    );
    roff
}

fn see_also(pages: &[&str]) -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["SEE ALSO"]);
    let mut line = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        if i > 0 {
            line.push(roman(", "));
        }
        let (name, section) = page.split_once('(').unwrap_or((page, ""));
        line.push(bold(name));
        line.push(roman(format!("({section}")));
    }
    roff.text(line);
    roff
}
