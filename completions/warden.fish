# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_warden_global_optspecs
    string join \n workspace= json timeout= grace= rules= max-output= network allow-degraded pass-env= session= profile= hard-stop envelope non-interactive wait= h/help V/version
end

function __fish_warden_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_warden_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_warden_using_subcommand
    set -l cmd (__fish_warden_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c warden -n "__fish_warden_needs_command" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_needs_command" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_needs_command" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_needs_command" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_needs_command" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_needs_command" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_needs_command" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_needs_command" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_needs_command" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_needs_command" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_needs_command" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_needs_command" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_needs_command" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_needs_command" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_needs_command" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_needs_command" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_needs_command" -s V -l version -d 'Print version'
complete -c warden -n "__fish_warden_needs_command" -f -a "run" -d 'Run PROGRAM with ARGS (no shell re-parsing of the arguments) if the policy allows it'
complete -c warden -n "__fish_warden_needs_command" -f -a "check" -d 'Decide without running: exit 0 allow, 75 needs approval, 77 deny'
complete -c warden -n "__fish_warden_needs_command" -f -a "explain" -d 'Show how a command is parsed, classified and decided, rule by rule'
complete -c warden -n "__fish_warden_needs_command" -f -a "doctor" -d 'Check what the sandbox can have on this machine (bwrap, namespaces, Landlock), with fixes'
complete -c warden -n "__fish_warden_needs_command" -f -a "selftest" -d 'Try to break out of the sandbox on this machine; exit 0 only if everything is contained'
complete -c warden -n "__fish_warden_needs_command" -f -a "approve" -d 'Approve a pending challenge: the identical request then runs once when retried'
complete -c warden -n "__fish_warden_needs_command" -f -a "deny" -d 'Deny a pending challenge'
complete -c warden -n "__fish_warden_needs_command" -f -a "pending" -d 'List the challenges waiting for an answer'
complete -c warden -n "__fish_warden_needs_command" -f -a "tool" -d 'Serve tool calls: one JSON request on stdin (`{"tool": …, "args": {…}, "id": …}`), one JSON result on stdout; with --stream, one request per line until end of input'
complete -c warden -n "__fish_warden_needs_command" -f -a "mcp" -d 'Serve the tools as a Model Context Protocol server on stdin and stdout: the tool list is the capability snapshot of the profile, every call goes through the policy. With --upstream, also a policy proxy in front of other MCP servers, each started in the sandbox, their tools listed as NAME.tool'
complete -c warden -n "__fish_warden_needs_command" -f -a "hook" -d 'Decide an agent\'s own tool call as its pre-tool hook (`claude-code`): the payload on stdin, the decision as JSON on stdout, always exit 0; anything that cannot be judged is denied'
complete -c warden -n "__fish_warden_needs_command" -f -a "install" -d 'Wire warden into an agent\'s configuration (claude-code, gemini, codex), keeping everything there'
complete -c warden -n "__fish_warden_needs_command" -f -a "scan" -d 'Decide the commands written in files without running them: shell scripts, Dockerfile RUN lines, Makefile recipes, GitHub Actions run steps. Exit 1 when any is denied'
complete -c warden -n "__fish_warden_needs_command" -f -a "restore" -d 'Bring back a backup that an edit or overwrite of a configuration file kept (the newest, or --from NAME); --list shows them. The current content is backed up first'
complete -c warden -n "__fish_warden_needs_command" -f -a "tools" -d 'Print the tool schemas an agent should be shown under the profile (--profile)'
complete -c warden -n "__fish_warden_needs_command" -f -a "log" -d 'Show the audit log: one line per decision warden acted on'
complete -c warden -n "__fish_warden_needs_command" -f -a "replay" -d 'Show a recorded decision and decide the same request again under today\'s policy, without running anything'
complete -c warden -n "__fish_warden_needs_command" -f -a "policy" -d 'Inspect and test the rules in force'
complete -c warden -n "__fish_warden_needs_command" -f -a "generate" -d 'Write the man pages and shell completions (for packagers; the repository commits them)'
complete -c warden -n "__fish_warden_using_subcommand run" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand run" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand run" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand run" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand run" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand run" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand run" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand run" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand run" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand run" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand run" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand run" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand run" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand run" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand run" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand run" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand check" -s c -d 'Bash text to decide' -r
complete -c warden -n "__fish_warden_using_subcommand check" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand check" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand check" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand check" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand check" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand check" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand check" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand check" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand check" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand check" -l batch -d 'Read commands from stdin (one per line, or NUL-separated with --null); one JSON line each'
complete -c warden -n "__fish_warden_using_subcommand check" -l null -d 'With --batch: commands are separated by NUL bytes, so they may span lines'
complete -c warden -n "__fish_warden_using_subcommand check" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand check" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand check" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand check" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand check" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand check" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand check" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand explain" -s c -d 'Bash text to explain' -r
complete -c warden -n "__fish_warden_using_subcommand explain" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand explain" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand explain" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand explain" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand explain" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand explain" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand explain" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand explain" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand explain" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand explain" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand explain" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand explain" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand explain" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand explain" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand explain" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand explain" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand doctor" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand doctor" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand doctor" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand doctor" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand doctor" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand doctor" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand doctor" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand doctor" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand doctor" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand doctor" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand doctor" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand doctor" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand doctor" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand doctor" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand doctor" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand selftest" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand selftest" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand selftest" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand selftest" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand selftest" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand selftest" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand selftest" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand selftest" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand selftest" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand selftest" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand selftest" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand selftest" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand selftest" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand selftest" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand selftest" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand selftest" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand approve" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand approve" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand approve" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand approve" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand approve" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand approve" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand approve" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand approve" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand approve" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand approve" -l yes -d 'Do not ask for confirmation (for a person\'s own tooling; otherwise a terminal asks)'
complete -c warden -n "__fish_warden_using_subcommand approve" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand approve" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand approve" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand approve" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand approve" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand approve" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand approve" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand deny" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand deny" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand deny" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand deny" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand deny" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand deny" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand deny" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand deny" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand deny" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand deny" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand deny" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand deny" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand deny" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand deny" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand deny" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand deny" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand pending" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand pending" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand pending" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand pending" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand pending" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand pending" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand pending" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand pending" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand pending" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand pending" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand pending" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand pending" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand pending" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand pending" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand pending" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand pending" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand tool" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand tool" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand tool" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand tool" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand tool" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand tool" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand tool" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand tool" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand tool" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand tool" -l stream -d 'Read a stream of JSON lines, one result line each'
complete -c warden -n "__fish_warden_using_subcommand tool" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand tool" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand tool" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand tool" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand tool" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand tool" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand tool" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand mcp" -l upstream -d 'Proxy the MCP server started by the command after `--`, its tools named NAME.tool (more: `… -- CMD ARGS --upstream NAME2 -- CMD2 ARGS`; or [mcp.upstream.NAME] in the configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand mcp" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand mcp" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand mcp" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand mcp" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand mcp" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand mcp" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand mcp" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand mcp" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand mcp" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand mcp" -l no-elicitation -d 'Never ask approval questions through the client (MCP elicitation); a person answers with `warden approve` only'
complete -c warden -n "__fish_warden_using_subcommand mcp" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand mcp" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand mcp" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand mcp" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand mcp" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand mcp" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand mcp" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand hook" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand hook" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand hook" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand hook" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand hook" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand hook" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand hook" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand hook" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand hook" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand hook" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand hook" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand hook" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand hook" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand hook" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand hook" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand hook" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand install" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand install" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand install" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand install" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand install" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand install" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand install" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand install" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand install" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand install" -l dry-run -d 'Print the whole resulting configuration instead of writing it'
complete -c warden -n "__fish_warden_using_subcommand install" -l project -d 'The workspace\'s `.claude/settings.json` or `.gemini/settings.json` instead of the user\'s (not for codex)'
complete -c warden -n "__fish_warden_using_subcommand install" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand install" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand install" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand install" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand install" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand install" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c warden -n "__fish_warden_using_subcommand scan" -l format -d 'text, json (one line per command) or sarif' -r
complete -c warden -n "__fish_warden_using_subcommand scan" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand scan" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand scan" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand scan" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand scan" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand scan" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand scan" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand scan" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand scan" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand scan" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand scan" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand scan" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand scan" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand scan" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand scan" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand scan" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand restore" -l from -d 'The backup to restore (a name from --list)' -r
complete -c warden -n "__fish_warden_using_subcommand restore" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand restore" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand restore" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand restore" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand restore" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand restore" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand restore" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand restore" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand restore" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand restore" -l list -d 'List the backups of PATH instead'
complete -c warden -n "__fish_warden_using_subcommand restore" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand restore" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand restore" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand restore" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand restore" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand restore" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand restore" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand tools" -l format -d 'json, mcp, openai or anthropic' -r
complete -c warden -n "__fish_warden_using_subcommand tools" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand tools" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand tools" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand tools" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand tools" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand tools" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand tools" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand tools" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand tools" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand tools" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand tools" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand tools" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand tools" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand tools" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand tools" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand tools" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand log" -l since -d 'Only records newer than this (`30m`, `2h`, `7d` as `168h`)' -r
complete -c warden -n "__fish_warden_using_subcommand log" -l decision -d 'Only records with this decision (allow, ask, deny)' -r
complete -c warden -n "__fish_warden_using_subcommand log" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand log" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand log" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand log" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand log" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand log" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand log" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand log" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand log" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand log" -s f -l follow -d 'Keep printing records as they are written'
complete -c warden -n "__fish_warden_using_subcommand log" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand log" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand log" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand log" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand log" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand log" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand log" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand replay" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand replay" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand replay" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand replay" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand replay" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand replay" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand replay" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand replay" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand replay" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand replay" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand replay" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand replay" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand replay" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand replay" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand replay" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand replay" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -f -a "list" -d 'List the rules in force, in the order they are consulted'
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -f -a "show" -d 'Show one rule (or all) in full'
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -f -a "test" -d 'Check every rule\'s examples (and FILE\'s rules, added to the shipped ones)'
complete -c warden -n "__fish_warden_using_subcommand policy; and not __fish_seen_subcommand_from list show test lint" -f -a "lint" -d 'Find mistakes in your policy files (or FILE): failing examples, rules an earlier rule shadows, allows that a catastrophic rule makes moot. Exit 1 when something is found'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from list" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from list" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from list" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from list" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from list" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from list" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from list" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from list" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from list" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from list" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from list" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from list" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from list" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from list" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from list" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from show" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from show" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from show" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from show" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from show" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from show" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from show" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from show" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from show" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from show" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from show" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from show" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from show" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from show" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from show" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from test" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from test" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from test" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from test" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from test" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from test" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from test" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from test" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from test" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from test" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from test" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from test" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from test" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from test" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from test" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from test" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from lint" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from lint" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from lint" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from lint" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from lint" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from lint" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from lint" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from lint" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from lint" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from lint" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from lint" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from lint" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from lint" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from lint" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from lint" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand policy; and __fish_seen_subcommand_from lint" -s h -l help -d 'Print help'
complete -c warden -n "__fish_warden_using_subcommand generate" -l out -d 'The directory that receives `man/` and `completions/`' -r -F
complete -c warden -n "__fish_warden_using_subcommand generate" -l workspace -d 'The workspace: the only tree work may change [default: $WARDEN_WORKSPACE, else the enclosing git work tree, else the current directory]' -r -F
complete -c warden -n "__fish_warden_using_subcommand generate" -l timeout -d 'Time limit for a run, e.g. `120`, `30s`, `500ms`, `5m` [default: 120s]' -r
complete -c warden -n "__fish_warden_using_subcommand generate" -l grace -d 'Time between TERM and KILL when the limit is reached [default: 2s]' -r
complete -c warden -n "__fish_warden_using_subcommand generate" -l rules -d 'Extra rule file, consulted after the shipped rules (repeatable)' -r -F
complete -c warden -n "__fish_warden_using_subcommand generate" -l max-output -d 'Budget for each of the command\'s stdout and stderr when not a terminal, e.g. `1M`, `512K`, `0` for none; the head and tail are kept and a marker names what was dropped [default: 1M]' -r
complete -c warden -n "__fish_warden_using_subcommand generate" -l pass-env -d 'Pass this environment variable into the sandbox (repeatable). Loader hooks and anything that looks like a credential never pass, whatever is asked' -r
complete -c warden -n "__fish_warden_using_subcommand generate" -l session -d 'The agent session this request belongs to (recorded in the audit log; also WARDEN_SESSION)' -r
complete -c warden -n "__fish_warden_using_subcommand generate" -l profile -d 'The defaults where no rule decided: readonly, workspace (the default) or strict (overrides `[policy] profile` in the user configuration)' -r
complete -c warden -n "__fish_warden_using_subcommand generate" -l wait -d 'When approval is needed, wait for a person\'s answer (up to DURATION, default until the challenge expires) instead of exiting 75' -r
complete -c warden -n "__fish_warden_using_subcommand generate" -l json -d 'Machine-readable output (JSON)'
complete -c warden -n "__fish_warden_using_subcommand generate" -l network -d 'Give the command the host network (the policy asks for approval first). Without it the sandbox has only loopback'
complete -c warden -n "__fish_warden_using_subcommand generate" -l allow-degraded -d 'Run allowed commands even when the sandbox cannot be had here (bwrap missing, user namespaces blocked): unconfined, and said on every run. Also WARDEN_ALLOW_DEGRADED=1'
complete -c warden -n "__fish_warden_using_subcommand generate" -l hard-stop -d 'Refuse any identical request that already failed twice in this session (by default only writes are refused; other repeats get a warning)'
complete -c warden -n "__fish_warden_using_subcommand generate" -l envelope -d 'Return the command\'s output as untrusted data: each stream inside an envelope naming its source, size and SHA-256, secrets redacted, within the --max-output budget'
complete -c warden -n "__fish_warden_using_subcommand generate" -l non-interactive -d 'No person can answer here: what needs approval is refused (also when CI=true)'
complete -c warden -n "__fish_warden_using_subcommand generate" -s h -l help -d 'Print help'
