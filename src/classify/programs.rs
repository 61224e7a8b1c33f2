//! Per-program knowledge: which arguments are options (and which options take values), which are
//! paths and in what role, which subcommands change the system, reach the network or publish.
//!
//! Unknown programs are treated as running code (`exec`) whose path-like operands are read, so
//! secret paths and URLs are still seen. Invariant: an option this table does not know is a flag,
//! never a value-taker, so a path operand cannot be hidden behind an unknown option.

use super::{
    Effect, Env, Operation, Role, add_target, judge_tree_read, known_input, literal_value,
};
use std::path::{Path, PathBuf};

use crate::shell::{Input, Invocation, Source, Word};

/// Option grammar for one program: short letters and long names that take a value.
struct Opts {
    short: &'static str,
    long: &'static [&'static str],
}

const NONE: Opts = Opts {
    short: "",
    long: &[],
};

/// Parsed arguments: options with their values, and operands in order.
struct Args<'a> {
    options: Vec<(String, Option<&'a Word>, Option<String>)>,
    operands: Vec<&'a Word>,
}

impl Args<'_> {
    fn has(&self, names: &[&str]) -> bool {
        self.options
            .iter()
            .any(|(n, _, _)| names.contains(&n.as_str()))
    }

    /// Value of the last occurrence of an option (attached or following word).
    fn value(&self, names: &[&str]) -> Option<Word> {
        self.options
            .iter()
            .rev()
            .find(|(n, _, _)| names.contains(&n.as_str()))
            .and_then(|(_, w, attached)| match (w, attached) {
                (_, Some(text)) => Some(Word::literal(text)),
                (Some(w), None) => Some((*w).clone()),
                _ => None,
            })
    }

    fn values(&self, names: &[&str]) -> Vec<Word> {
        self.options
            .iter()
            .filter(|(n, _, _)| names.contains(&n.as_str()))
            .filter_map(|(_, w, attached)| match (w, attached) {
                (_, Some(text)) => Some(Word::literal(text)),
                (Some(w), None) => Some((*w).clone()),
                _ => None,
            })
            .collect()
    }
}

/// GNU-style argument parsing: options may be interleaved with operands until `--`.
fn parse<'a>(args: &'a [Word], opts: &Opts) -> Args<'a> {
    let mut out = Args {
        options: Vec::new(),
        operands: Vec::new(),
    };
    let mut i = 0;
    let mut ended = false;
    while i < args.len() {
        let w = &args[i];
        i += 1;
        let text = match w.as_literal() {
            Some(t) if !ended => t,
            _ => {
                out.operands.push(w);
                continue;
            }
        };
        if text == "--" {
            ended = true;
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            match long.split_once('=') {
                Some((name, value)) => {
                    out.options
                        .push((format!("--{name}"), None, Some(value.to_string())))
                }
                None if opts.long.contains(&text.as_str()) => {
                    out.options.push((text.clone(), args.get(i), None));
                    i += 1;
                }
                None => out.options.push((text.clone(), None, None)),
            }
            continue;
        }
        if text.len() > 1 && text.starts_with('-') {
            let letters: Vec<char> = text[1..].chars().collect();
            for (k, c) in letters.iter().enumerate() {
                if opts.short.contains(*c) {
                    let rest: String = letters[k + 1..].iter().collect();
                    if rest.is_empty() {
                        out.options.push((format!("-{c}"), args.get(i), None));
                        i += 1;
                    } else {
                        out.options.push((format!("-{c}"), None, Some(rest)));
                    }
                    break;
                }
                out.options.push((format!("-{c}"), None, None));
            }
            continue;
        }
        out.operands.push(w);
    }
    out
}

fn lit(w: &Word) -> String {
    w.as_literal().unwrap_or_else(|| w.raw.clone())
}

/// Classifies by program name; sets effect, subcommand, targets and facts.
pub(super) fn classify_program(inv: &Invocation, env: &Env, op: &mut Operation) {
    let args = &inv.argv[1..];
    let name = op.program.clone();
    let name = name.as_str();
    match name {
        "warden" | "wsh" => warden_itself(op, args),
        "rm" | "unlink" | "rmdir" | "shred" | "srm" | "wipe" => delete(inv, env, op, args),
        "truncate" => {
            let a = parse(
                args,
                &Opts {
                    short: "sr",
                    long: &["--size", "--reference"],
                },
            );
            op.effect = Effect::Delete;
            for w in &a.operands {
                add_target(op, env, inv, w, Role::Delete);
            }
        }
        "find" => find(inv, env, op, args),
        "mv" => mv(inv, env, op, args),
        "cp" | "install" | "ln" | "rsync" | "scp" | "sftp" => copy(inv, env, op, args),
        "dd" => dd(inv, env, op, args),
        "tee" | "sponge" => {
            let a = parse(args, &NONE);
            op.effect = Effect::Write;
            let role = if a.has(&["-a", "--append"]) || name == "sponge" {
                Role::Write
            } else {
                Role::Truncate
            };
            for w in &a.operands {
                add_target(op, env, inv, w, role);
            }
        }
        "touch" | "mkdir" | "mkfifo" | "mknod" => {
            let a = parse(
                args,
                &Opts {
                    short: "dtrmZ",
                    long: &["--date", "--reference", "--mode", "--context"],
                },
            );
            op.effect = Effect::Write;
            let operands: Vec<&Word> = if name == "mknod" {
                a.operands.iter().take(1).copied().collect()
            } else {
                a.operands
            };
            for w in operands {
                add_target(op, env, inv, w, Role::Write);
            }
        }
        "chmod" | "chown" | "chgrp" | "chattr" | "setfacl" => permissions(inv, env, op, args),
        "sed" => sed(inv, env, op, args),
        "awk" | "gawk" | "mawk" | "nawk" => awk(inv, env, op, args),
        "vi" | "vim" | "nvim" | "nano" | "emacs" | "code" | "subl" | "ed" | "micro" | "hx"
        | "helix" | "kak" | "pico" | "joe" | "sudoedit" | "gedit" => {
            op.effect = Effect::Write;
            for w in parse(
                args,
                &Opts {
                    short: "cSuUiTtwWs",
                    long: &[],
                },
            )
            .operands
            {
                if !lit(w).starts_with('+') {
                    add_target(op, env, inv, w, Role::Write);
                }
            }
            if name == "sudoedit" {
                op.effect = Effect::System;
            }
        }
        "tar" | "bsdtar" => tar(inv, env, op, args),
        "zip" => {
            let a = parse(
                args,
                &Opts {
                    short: "bn",
                    long: &[],
                },
            );
            op.effect = Effect::Write;
            let recursive = a.has(&["-r", "-R", "--recurse-paths"]);
            let excludes: Vec<String> = a.values(&["-x", "--exclude"]).iter().map(lit).collect();
            for (i, w) in a.operands.iter().enumerate() {
                add_target(
                    op,
                    env,
                    inv,
                    w,
                    if i == 0 { Role::Write } else { Role::Read },
                );
                if i > 0 && recursive {
                    judge_tree_read(op, env, inv, w, true, &excludes);
                }
            }
        }
        "unzip" => {
            let a = parse(
                args,
                &Opts {
                    short: "dx",
                    long: &[],
                },
            );
            op.effect = Effect::Write;
            if let Some(dir) = a.value(&["-d"]) {
                add_target(op, env, inv, &dir, Role::Write);
            }
            for w in a.operands.iter().take(1) {
                add_target(op, env, inv, w, Role::Read);
            }
        }
        "git" => git(inv, env, op, args),
        "mkfs" | "mke2fs" | "mkswap" | "wipefs" | "mkdosfs" | "mkntfs" | "mkexfatfs"
        | "mformat" => make_filesystem(inv, env, op, args),
        n if n.starts_with("mkfs.") => make_filesystem(inv, env, op, args),
        "hdparm" => hdparm(op, args),
        "cryptsetup" => cryptsetup(op, args),
        "zpool" => zpool(op, args),
        "fdisk" | "sfdisk" | "gdisk" | "sgdisk" | "cfdisk" | "parted" | "partx" | "blkdiscard"
        | "lvremove" | "vgremove" | "pvremove" => {
            partitioner(op, args);
        }
        "shutdown" | "reboot" | "poweroff" | "halt" | "kexec" => {
            op.effect = Effect::System;
            let words: Vec<String> = args.iter().map(lit).collect();
            let has = |names: &[&str]| words.iter().any(|w| names.contains(&w.as_str()));
            if has(&["-c", "--help", "--show"]) {
                // Cancelling or showing a scheduled shutdown.
            } else if name != "shutdown" && has(&["-w", "--wtmp-only"]) {
                op.fact(
                    "system.service",
                    format!("{name} --wtmp-only records a shutdown without one"),
                );
            } else if name == "kexec" && !has(&["-e", "--exec", "-f", "--force"]) {
                op.fact(
                    "system.kernel",
                    "kexec loads or unloads a kernel for a later reboot",
                );
            } else {
                op.fact("power.off", format!("{name} stops the machine"));
            }
        }
        "init" | "telinit" => {
            op.effect = Effect::System;
            match args.first().map(lit).as_deref() {
                Some("0" | "6") => op.fact(
                    "power.off",
                    format!("{name} {} stops the machine", lit(&args[0])),
                ),
                Some(_) => op.fact("system.service", format!("{name} changes the run level")),
                None => {}
            }
        }
        "systemctl" => systemctl(op, args),
        "service" => {
            op.effect = Effect::System;
            let action = args.get(1).map(lit).unwrap_or_default();
            if !matches!(action.as_str(), "status" | "" | "--help")
                && !args.first().is_some_and(|w| lit(w).starts_with("--status"))
            {
                op.fact(
                    "system.service",
                    format!(
                        "service {} {action}",
                        args.first().map(lit).unwrap_or_default()
                    ),
                );
            }
        }
        "crontab" => {
            let a = parse(
                args,
                &Opts {
                    short: "u",
                    long: &[],
                },
            );
            if !a.has(&["-l"]) {
                op.effect = Effect::System;
                op.fact("system.scheduler", "crontab changes scheduled jobs");
            }
        }
        "at" | "batch" | "atrm" => {
            if !args.iter().any(|w| matches!(lit(w).as_str(), "-l" | "-c")) {
                op.effect = Effect::System;
                op.fact(
                    "system.scheduler",
                    format!("{name} schedules or removes jobs"),
                );
            }
        }
        "useradd" | "userdel" | "usermod" | "groupadd" | "groupdel" | "groupmod" | "passwd"
        | "chpasswd" | "adduser" | "deluser" | "addgroup" | "delgroup" | "gpasswd" | "chsh"
        | "chfn" | "visudo" | "vipw" | "vigr" | "newusers" | "chage" => {
            op.effect = Effect::System;
            if !(name == "chage" && args.iter().any(|w| lit(w) == "-l")) {
                op.fact("system.users", format!("{name} changes users or groups"));
            }
        }
        "sysctl" => {
            let a = parse(args, &NONE);
            if a.has(&["-w", "--write", "-p", "--load", "--system"])
                || a.operands.iter().any(|w| lit(w).contains('='))
            {
                op.effect = Effect::System;
                op.fact("system.kernel", "sysctl changes kernel parameters");
            }
        }
        "modprobe" | "insmod" | "rmmod" | "depmod" | "update-grub" | "grub-install"
        | "grub-mkconfig" | "update-initramfs" | "dracut" | "kexec-tools" | "setenforce"
        | "ldconfig" | "setcap" => {
            op.effect = Effect::System;
            if !args
                .iter()
                .any(|w| matches!(lit(w).as_str(), "--help" | "-h" | "--version"))
            {
                op.fact(
                    "system.kernel",
                    format!("{name} changes the kernel or boot setup"),
                );
            }
        }
        "iptables" | "ip6tables" | "nft" | "ufw" | "firewall-cmd" | "iptables-restore"
        | "ip6tables-restore" | "ebtables" | "arptables" | "pfctl" => firewall(op, name, args),
        "ip" | "ifconfig" | "route" | "nmcli" | "iwconfig" | "tc" | "brctl" => {
            network_config(op, name, args)
        }
        "mount" | "umount" | "swapon" | "swapoff" | "losetup" | "fusermount" | "mountpoint" => {
            let readonly = args.is_empty()
                || matches!(name, "mountpoint")
                || args.iter().all(|w| {
                    matches!(
                        lit(w).as_str(),
                        "-l" | "--show" | "-a" | "--summary" | "-s" | "-t" | "--list"
                    )
                }) && name != "umount"
                    && name != "swapoff";
            if !readonly {
                op.effect = Effect::System;
                op.fact("system.mount", format!("{name} changes mounts"));
            }
        }
        "kill" | "killall" | "pkill" | "skill" | "xkill" | "killall5" => kill(op, name, args),
        "hostnamectl"
        | "timedatectl"
        | "localectl"
        | "loginctl"
        | "journalctl"
        | "update-alternatives"
        | "dpkg-reconfigure"
        | "locale-gen"
        | "update-rc.d"
        | "chkconfig"
        | "rc-update"
        | "rc-service"
        | "launchctl"
        | "sv"
        | "supervisorctl" => {
            let read = args.is_empty()
                || args.iter().any(|w| {
                    let t = lit(w);
                    matches!(
                        t.as_str(),
                        "status"
                            | "show"
                            | "list"
                            | "--list"
                            | "-l"
                            | "list-timezones"
                            | "list-keymaps"
                            | "list-locales"
                            | "list-sessions"
                            | "list-users"
                            | "--display"
                            | "--query"
                            | "--help"
                            | "-f"
                            | "--follow"
                            | "-u"
                            | "-n"
                            | "-b"
                            | "-k"
                            | "-p"
                            | "-e"
                            | "--since"
                            | "-x"
                    ) || t.starts_with("--list")
                        || t.starts_with("--since")
                });
            let destructive = args.iter().any(|w| {
                let t = lit(w);
                t.starts_with("set-")
                    || t.starts_with("--vacuum")
                    || t == "--rotate"
                    || t.starts_with("terminate")
                    || t.starts_with("kill")
                    || t == "--install"
                    || t == "--set"
                    || t == "--remove"
                    || t == "enable"
                    || t == "disable"
                    || t == "stop"
                    || t == "start"
                    || t == "restart"
                    || t == "unload"
                    || t == "load"
                    || t == "add"
                    || t == "del"
                    || t == "delete"
            });
            if destructive || (!read && name != "journalctl") {
                op.effect = Effect::System;
                op.fact("system.service", format!("{name} changes system settings"));
            }
        }
        "dpkg" | "rpm" => {
            if args.iter().any(|w| {
                let t = lit(w);
                t.starts_with("-i")
                    || t.starts_with("-r")
                    || t.starts_with("-P")
                    || t == "--install"
                    || t == "--remove"
                    || t == "--purge"
                    || t.starts_with("-U")
                    || t.starts_with("-e")
                    || t == "--erase"
                    || t == "--configure"
            }) {
                op.effect = Effect::System;
                op.fact(
                    "system.packages",
                    format!("{name} installs or removes system packages"),
                );
            }
        }
        "apt" | "apt-get" | "aptitude" | "dnf" | "yum" | "zypper" | "pacman" | "yay" | "paru"
        | "apk" | "brew" | "port" | "snap" | "flatpak" | "emerge" | "nix-env" | "pkg"
        | "pkg_add" | "xbps-install" | "xbps-remove" | "eopkg" | "slackpkg" | "urpmi" | "choco"
        | "winget" | "scoop" | "mas" => system_packages(op, name, args),
        "npm" | "pnpm" | "yarn" | "bun" | "cargo" | "pip" | "pip3" | "pipx" | "uv" | "poetry"
        | "gem" | "go" | "composer" | "bundle" | "conda" | "mamba" | "micromamba" | "dotnet"
        | "nuget" | "mvn" | "gradle" | "gradlew" | "mix" | "hex" | "cabal" | "stack" | "opam"
        | "luarocks" | "cpan" | "cpanm" | "deno" | "twine" | "flit" | "hatch" | "rye" | "helm"
        | "vsce" | "ovsx" | "swift" | "dart" | "flutter" | "pub" | "nimble" | "raco" | "R"
        | "julia" => language_tool(inv, env, op, name, args),
        "npx" | "pnpx" | "bunx" | "uvx" => {
            op.effect = Effect::Network;
            op.fact("net.use", format!("{name} downloads and runs a package"));
        }
        "docker" | "podman" | "nerdctl" | "kubectl" | "oc" | "k3s" | "minikube" | "kind"
        | "docker-compose" | "buildah" | "skopeo" => container(op, name, args),
        "ssh" | "mosh" | "autossh" => {
            let a = parse(
                args,
                &Opts {
                    short: "bcDEeFIiJLlmOopQRSWw",
                    long: &[],
                },
            );
            op.effect = Effect::Network;
            let host = a.operands.first().map(|w| lit(w)).unwrap_or_default();
            if a.has(&["-V"]) && host.is_empty() {
                op.effect = Effect::Read;
                return;
            }
            op.remote = Some(host.clone());
            op.fact("net.remote", format!("{name} connects to {host}"));
        }
        "nc" | "ncat" | "netcat" | "telnet" | "socat" | "ftp" | "lftp" | "tftp" | "ssh-copy-id"
        | "smbclient" | "rdesktop" | "xfreerdp" | "vncviewer" => {
            op.effect = Effect::Network;
            let host = args
                .iter()
                .map(lit)
                .find(|t| !t.starts_with('-'))
                .unwrap_or_default();
            op.remote = Some(host.clone());
            op.fact("net.remote", format!("{name} connects to {host}"));
            for w in args {
                // `/p:secret`, `user@host:/dir`, `//server/share` are options and addresses, not files.
                if let Some(t) = w.as_literal()
                    && (t.contains('/') || t.starts_with('.'))
                    && !t.contains([':', '@', '%'])
                    && !t.starts_with("//")
                {
                    add_target(op, env, inv, w, Role::Read);
                }
            }
        }
        "curl" | "wget" | "http" | "https" | "xh" | "aria2c" | "httpie" | "lynx" | "links"
        | "w3m" | "axel" | "grpcurl" | "websocat" => download(inv, env, op, name, args),
        "ping" | "ping6" | "dig" | "nslookup" | "host" | "traceroute" | "tracepath" | "mtr"
        | "whois" | "nmap" | "masscan" | "arping" | "ssh-keyscan" | "speedtest"
        | "speedtest-cli" | "iperf" | "iperf3" | "drill" | "gh" | "glab" | "hub" | "aws"
        | "gcloud" | "gsutil" | "az" | "doctl" | "flyctl" | "heroku" | "vercel" | "netlify"
        | "terraform" | "pulumi" | "ansible" | "ansible-playbook" | "rclone" | "s3cmd"
        | "youtube-dl" | "yt-dlp" | "ngrok" | "wrangler" | "firebase" => {
            let local = args.is_empty()
                || args.iter().any(|w| {
                    matches!(
                        lit(w).as_str(),
                        "--help" | "-h" | "--version" | "-V" | "help" | "version"
                    )
                });
            let offline_sub = args.first().map(lit).is_some_and(|s| {
                matches!(
                    s.as_str(),
                    "fmt" | "validate" | "completion" | "config" | "alias" | "auth" | "init"
                )
            });
            let offline = offline_sub
                && matches!(name, "terraform" | "gh" | "glab" | "aws" | "gcloud" | "az");
            if !(local || offline) {
                op.effect = Effect::Network;
                op.fact("net.use", format!("{name} uses the network"));
            }
            if name == "terraform" && args.first().map(lit).is_some_and(|s| s == "destroy") {
                op.fact("publish", "terraform destroy removes remote infrastructure");
            }
        }
        "psql" | "mysql" | "mariadb" | "sqlite3" | "sqlcmd" | "clickhouse-client" | "duckdb"
        | "cockroach" | "mongosh" | "mongo" | "redis-cli" | "cqlsh" | "dropdb" | "mysqladmin" => {
            sql(inv, op, name, args)
        }
        "python" | "python2" | "python3" | "pypy" | "pypy3" | "perl" | "ruby" | "node"
        | "nodejs" | "php" | "lua" | "luajit" | "Rscript" | "osascript" | "tclsh" | "irb"
        | "jshell" | "groovy" | "scala" | "elixir" | "guile" | "racket" | "sbcl" | "clisp" => {
            interpreter(inv, env, op, name, args)
        }
        n if n.starts_with("python3.") || n.starts_with("python2.") => {
            interpreter(inv, env, op, "python", args)
        }
        "source" | "." => {
            op.effect = Effect::Exec;
            if let Some(w) = args.first() {
                add_target(op, env, inv, w, Role::Read);
            }
        }
        "eval" | "exec" | "command" | "builtin" | "bash" | "sh" | "dash" | "zsh" | "ksh"
        | "mksh" | "ash" | "fish" | "su" | "runuser" | "sg" | "watch" | "flock" | "script"
        | "xargs" | "parallel" | "env" | "nohup" | "time" | "timeout" | "nice" => {
            // Code and wrapped commands were analysed by the shell stage; a script operand is read.
            op.effect = Effect::Exec;
            if matches!(
                name,
                "bash" | "sh" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "fish"
            ) && let Some(script) = args.iter().find(|w| !lit(w).starts_with('-'))
                && !args.iter().any(|w| {
                    // `-c CODE` and `-s` (read stdin) take no script operand.
                    let t = lit(w);
                    t.starts_with('-') && !t.starts_with("--") && t.contains(['c', 's'])
                })
            {
                add_target(op, env, inv, script, Role::Read);
            }
        }
        "sudo" | "doas" | "pkexec" | "run0" => {
            op.effect = Effect::Privilege;
            if !args.iter().any(|w| {
                matches!(
                    lit(w).as_str(),
                    "-l" | "-v"
                        | "-k"
                        | "-K"
                        | "--list"
                        | "--validate"
                        | "-V"
                        | "--version"
                        | "-h"
                        | "--help"
                )
            }) {
                op.fact("privilege", format!("{name} opens a privileged session"));
            }
        }
        "echo" | "printf" | "true" | "false" | "sleep" | "yes" | "seq" | "expr" | "test" | "["
        | "[[" | "export" | "alias" | "unalias" | "set" | "unset" | "cd" | "pushd" | "popd"
        | "pwd" | "type" | "which" | "whereis" | "hash" | "date" | "cal" | "whoami" | "id"
        | "groups" | "uname" | "printenv" | "history" | "exit" | "return" | "shift" | "read"
        | "wait" | "jobs" | "fg" | "bg" | "disown" | "umask" | "ulimit" | "trap" | "local"
        | "declare" | "typeset" | "readonly" | "let" | ":" | "basename" | "dirname" | "ls"
        | "stat" | "du" | "df" | "tree" | "tput" | "clear" | "reset" | "nproc" | "free"
        | "uptime" | "w" | "who" | "last" | "lsblk" | "lscpu" | "lsusb" | "lspci" | "realpath"
        | "readlink" | "exa" | "eza" | "getconf" | "locale" | "tty" | "stty" | "shopt"
        | "complete" | "compgen" | "man" | "info" | "help" | "apropos" | "whatis" | "tldr"
        | "ps" | "top" | "htop" | "pgrep" | "pidof" | "lsof" | "vmstat" | "iostat" | "dmesg"
        | "env-update" | "mktemp" | "getent" | "numfmt" | "factor" | "bc" | "dc" => {
            op.effect = Effect::Read;
            if name == "hostname" && !args.is_empty() {
                op.fact("system.service", "hostname changes the host name");
            }
        }
        _ => generic(inv, env, op, args),
    }
    url_facts(op, args);
}

/// Unknown programs run code; their path-like operands are read (for the secret rules) and URL
/// arguments reach the network.
/// Recursive searches reach every file below their roots, secrets included.
fn recursive_search(inv: &Invocation, env: &Env, op: &mut Operation, args: &[Word]) {
    let name = op.program.as_str();
    let mut recursive = matches!(name, "rgrep" | "rg" | "ag" | "ack");
    let mut hidden = !matches!(name, "rg" | "ag");
    let mut excludes = Vec::new();
    let mut pattern_given = false;
    let mut operands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let t = lit(&args[i]);
        match t.as_str() {
            "--" => {
                operands.extend(args[i + 1..].iter().cloned());
                break;
            }
            "-r" | "-R" | "--recursive" | "--dereference-recursive" => recursive = true,
            "--hidden" | "-." | "-uu" | "-uuu" => hidden = true,
            "-e" | "-f" | "--regexp" | "--file" => {
                pattern_given = true;
                i += 1;
            }
            "-d" | "--directories" if args.get(i + 1).is_some_and(|w| lit(w) == "recurse") => {
                recursive = true;
                i += 1;
            }
            "-A" | "-B" | "-C" | "-m" | "-D" | "-g" | "--glob" | "-t" | "--type" | "-T"
            | "--type-not" | "-M" | "-j" | "--max-count" | "--context" | "--iglob"
            | "--encoding" => {
                i += 1;
            }
            "--directories=recurse" => recursive = true,
            _ if t.starts_with("--exclude=") || t.starts_with("--exclude-dir=") => {
                excludes.push(
                    t.split_once('=')
                        .map(|(_, v)| v.to_string())
                        .unwrap_or_default(),
                );
            }
            _ if t.starts_with("--regexp=") || t.starts_with("--file=") => pattern_given = true,
            _ if t.starts_with("--") => {}
            _ if t.starts_with('-') && t.len() > 1 => {
                recursive |= t.contains(['r', 'R']);
                if t.contains('e') {
                    pattern_given = true;
                }
            }
            _ => operands.push(args[i].clone()),
        }
        i += 1;
    }
    if !recursive || (name != "ag" && name != "rg" && !hidden) {
        return;
    }
    if !pattern_given && !operands.is_empty() {
        operands.remove(0);
    }
    if operands.is_empty() {
        operands.push(Word::literal("."));
    }
    for w in &operands {
        judge_tree_read(op, env, inv, w, hidden, &excludes);
    }
}

fn generic(inv: &Invocation, env: &Env, op: &mut Operation, args: &[Word]) {
    if matches!(
        op.program.as_str(),
        "grep" | "egrep" | "fgrep" | "rgrep" | "rg" | "ag" | "ack" | "zgrep"
    ) {
        recursive_search(inv, env, op, args);
    }
    op.effect = Effect::Exec;
    let reader = matches!(
        op.program.as_str(),
        "cat"
            | "tac"
            | "head"
            | "tail"
            | "less"
            | "more"
            | "bat"
            | "batcat"
            | "nl"
            | "wc"
            | "grep"
            | "egrep"
            | "fgrep"
            | "rg"
            | "ag"
            | "ack"
            | "sort"
            | "uniq"
            | "cut"
            | "paste"
            | "join"
            | "comm"
            | "diff"
            | "cmp"
            | "md5sum"
            | "sha1sum"
            | "sha256sum"
            | "sha512sum"
            | "b2sum"
            | "cksum"
            | "base64"
            | "base32"
            | "xxd"
            | "hexdump"
            | "od"
            | "strings"
            | "file"
            | "jq"
            | "yq"
            | "column"
            | "fold"
            | "fmt"
            | "pr"
            | "iconv"
            | "zcat"
            | "bzcat"
            | "xzcat"
            | "zless"
            | "view"
            | "gpg"
            | "openssl"
            | "xclip"
            | "pbcopy"
            | "wl-copy"
            | "split"
            | "csplit"
            | "expand"
            | "unexpand"
            | "rev"
            | "shuf"
            | "look"
            | "diff3"
            | "sdiff"
            | "colordiff"
            | "delta"
            | "gzip"
            | "bzip2"
            | "xz"
            | "zstd"
            | "lz4"
            | "7z"
            | "tr"
    );
    if reader {
        op.effect = Effect::Read;
    }
    // Searchers take a pattern first (unless given by -e/-f), and some options take a value.
    let searcher = matches!(
        op.program.as_str(),
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" | "zgrep"
    );
    let valued: &[&str] = if searcher {
        &[
            "-A",
            "-B",
            "-C",
            "-m",
            "-d",
            "-D",
            "-g",
            "--glob",
            "-t",
            "--type",
            "-T",
            "--type-not",
            "-M",
            "-j",
            "--max-count",
            "--context",
            "--iglob",
            "-E",
            "--encoding",
        ]
    } else {
        &[]
    };
    let mut pattern_pending = searcher
        && !args.iter().any(|w| {
            let t = lit(w);
            matches!(t.as_str(), "-e" | "-f" | "--regexp" | "--file")
                || t.starts_with("--regexp=")
                || t.starts_with("--file=")
                || (t.starts_with("-e") && !t.starts_with("--"))
        });
    let mut skip_next = false;
    for w in args {
        if skip_next {
            skip_next = false;
            continue;
        }
        let t = lit(w);
        if valued.contains(&t.as_str()) {
            skip_next = true;
            continue;
        }
        if pattern_pending && !t.starts_with('-') {
            pattern_pending = false;
            continue;
        }
        let Some(text) = w.as_literal() else {
            // Globs, `~` and substitutions of known text are resolved (and checked for secrets).
            add_target(op, env, inv, w, Role::Read);
            continue;
        };
        // `--keyfile key.pem`, `-keystore x.jks`, `--vault-password-file f`: the program uses the
        // credential for its purpose (as `ssh -i` does); its content is not read out.
        if let Some(name) = text.strip_prefix('-').map(|n| n.trim_start_matches('-'))
            && credential_option(name.split('=').next().unwrap_or(name))
        {
            skip_next = !text.contains('=');
            continue;
        }
        if matches!(
            text.as_str(),
            "-m" | "--message" | "--body" | "--title" | "-e" | "--regexp" | "--description"
        ) {
            // Message and pattern options carry data, not paths.
            skip_next = true;
            continue;
        }
        let candidate = match text.split_once('=') {
            Some((opt, value)) if opt.starts_with("--") => value.to_string(),
            _ if text.starts_with('-') => continue,
            _ => text.clone(),
        };
        if candidate.contains("://") {
            continue;
        }
        // A path by its shape; a bare word counts only where the program reads files by name
        // (`cat secrets`) or it names a file (`x.pem`, `id_rsa`). `user:pass@host` is not a path.
        let anchored =
            candidate.starts_with('/') || candidate.starts_with('.') || candidate.starts_with('~');
        let option_like = candidate.contains(['@', ':', '%'])
            && !candidate.starts_with("./")
            && !candidate.starts_with('~');
        let shaped =
            !option_like && (anchored || candidate.contains('/') || candidate.contains('*'));
        let named = reader || candidate.contains('.') || candidate.starts_with("id_");
        let pathish = shaped || (named && super::secrets::secret_kind(&candidate).is_some());
        if pathish {
            let word = if candidate == text {
                w.clone()
            } else {
                Word::literal(&candidate)
            };
            add_target(op, env, inv, &word, Role::Read);
        }
    }
}

/// Option names that hand a program a credential to use (key, certificate, password file,
/// token, keystore), never single letters, whose meaning differs from program to program.
fn credential_option(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.len() > 1
        && ([
            "key", "cert", "cred", "password", "passwd", "secret", "token", "identity", "vault",
        ]
        .iter()
        .any(|w| name.contains(w))
            || matches!(name.as_str(), "ks" | "pass-file" | "passfile"))
}

/// URL arguments reach the network, whatever the program.
fn url_facts(op: &mut Operation, args: &[Word]) {
    if op.has_fact("net.use")
        || op.has_fact("net.remote")
        || op.effect == Effect::Read && op.program == "echo"
    {
        return;
    }
    if matches!(op.program.as_str(), "echo" | "printf" | "git") {
        return;
    }
    for w in args {
        let text = lit(w);
        let text = text.split_once('=').map_or(text.as_str(), |(k, v)| {
            if k.starts_with('-') { v } else { text.as_str() }
        });
        let lower = text.to_ascii_lowercase();
        if [
            "http://", "https://", "ftp://", "ftps://", "ssh://", "git://", "s3://", "gs://",
            "rsync://", "sftp://", "ws://", "wss://", "scp://",
        ]
        .iter()
        .any(|s| lower.starts_with(s))
        {
            op.remote = Some(text.to_string());
            op.fact("net.use", format!("{} reaches {text}", op.program));
            if op.effect == Effect::Exec || op.effect == Effect::Read {
                op.effect = Effect::Network;
            }
            return;
        }
    }
}

fn delete(inv: &Invocation, env: &Env, op: &mut Operation, args: &[Word]) {
    let opts = if op.program == "shred" {
        Opts {
            short: "ns",
            long: &["--iterations", "--size", "--random-source"],
        }
    } else {
        NONE
    };
    let a = parse(args, &opts);
    op.effect = Effect::Delete;
    if op.program == "shred"
        && !a.has(&["-u", "--remove"])
        && a.operands.iter().all(|w| lit(w).starts_with("/dev/"))
    {
        // shred of a device destroys it.
        for w in &a.operands {
            add_target(op, env, inv, w, Role::Delete);
        }
        return;
    }
    let from_find = !inv.found_under.is_empty();
    for w in &a.operands {
        if from_find && lit(w).contains("{}") {
            continue;
        }
        add_target(op, env, inv, w, Role::Delete);
    }
    if from_find {
        for root in &inv.found_under {
            add_target(op, env, inv, root, Role::DeleteUnder);
        }
    }
}

/// `find ROOT … -exec PROGRAM {}`: the program gets every file found. When it reads content
/// and the name tests could select a secret (or there are none and the tree holds one), the
/// command reads secrets.
fn find_exec_reads_secrets(
    inv: &Invocation,
    env: &Env,
    op: &mut Operation,
    roots: &[Word],
    expr: &[Word],
) {
    const METADATA_ONLY: &[&str] = &[
        "chmod", "chown", "chgrp", "touch", "rm", "ls", "stat", "file", "du", "wc", "echo",
        "basename", "dirname", "realpath", "readlink", "test", "[", "mv", "mkdir", "rmdir",
        "unlink", "printf", "true", "false",
    ];
    let words: Vec<String> = expr.iter().map(lit).collect();
    let Some(exec) = words
        .iter()
        .position(|w| matches!(w.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"))
    else {
        return;
    };
    let program = words
        .get(exec + 1)
        .map(|p| crate::shell::program_name(p).to_string())
        .unwrap_or_default();
    if METADATA_ONLY.contains(&program.as_str()) {
        return;
    }
    let mut patterns = Vec::new();
    for (k, w) in words.iter().enumerate().take(exec) {
        if matches!(
            w.as_str(),
            "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename"
        ) && let Some(p) = words.get(k + 1)
        {
            patterns.push(p.clone());
        }
    }
    if patterns.is_empty() {
        for root in roots {
            judge_tree_read(op, env, inv, root, true, &[]);
        }
        return;
    }
    let secret = patterns.iter().find_map(|p| {
        let last = p.rsplit('/').next().unwrap_or(p);
        super::secrets::secret_kind(last)
            .or_else(|| super::secrets::glob_could_match_secret(last))
            .map(|k| (p.clone(), k))
    });
    if let Some((pattern, kind)) = secret {
        op.fact(
            "secret.read",
            format!("find runs {program} on files named {pattern}, which is {kind}"),
        );
    }
}

fn find(inv: &Invocation, env: &Env, op: &mut Operation, args: &[Word]) {
    op.effect = Effect::Read;
    let mut roots = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_literal() {
            Some(t) if t.starts_with('-') || t == "(" || t == "!" || t == ")" || t == "," => break,
            _ => roots.push(args[i].clone()),
        }
        i += 1;
    }
    if roots.is_empty() {
        roots.push(Word::literal("."));
    }
    let rest = &args[i..];
    find_exec_reads_secrets(inv, env, op, &roots, rest);
    let mut j = 0;
    while j < rest.len() {
        let t = lit(&rest[j]);
        match t.as_str() {
            "-delete" => {
                op.effect = Effect::Delete;
                // With no test before `-delete`, find removes the whole tree below each root:
                // judged like `rm -rf ROOT` (so `find . -delete` is the workspace root).
                let filtered = rest[..j].iter().any(|w| {
                    let t = lit(w);
                    !matches!(
                        t.as_str(),
                        "-depth"
                            | "-d"
                            | "-xdev"
                            | "-mount"
                            | "-follow"
                            | "-ignore_readdir_race"
                            | "-noleaf"
                            | "-daystart"
                            | "-maxdepth"
                            | "-mindepth"
                    ) && !t.chars().all(|c| c.is_ascii_digit())
                });
                let role = if filtered {
                    Role::DeleteUnder
                } else {
                    Role::Delete
                };
                for r in &roots {
                    add_target(op, env, inv, r, role);
                }
            }
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                if let Some(w) = rest.get(j + 1) {
                    add_target(op, env, inv, w, Role::Truncate);
                }
                j += 1;
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                while j < rest.len() && !matches!(lit(&rest[j]).as_str(), ";" | "+") {
                    j += 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
}

fn mv(inv: &Invocation, env: &Env, op: &mut Operation, args: &[Word]) {
    let a = parse(
        args,
        &Opts {
            short: "tS",
            long: &["--target-directory", "--suffix", "--backup"],
        },
    );
    op.effect = Effect::Write;
    let (sources, dest): (Vec<&Word>, Option<Word>) = match a.value(&["-t", "--target-directory"]) {
        Some(dir) => (a.operands.clone(), Some(dir)),
        None => match a.operands.split_last() {
            Some((last, rest)) if !rest.is_empty() => (rest.to_vec(), Some((*last).clone())),
            _ => (a.operands.clone(), None),
        },
    };
    for s in sources {
        // Moving something away removes it from where it was: judged by the rm boundary.
        add_target(op, env, inv, s, Role::Delete);
    }
    if let Some(d) = dest {
        add_target(op, env, inv, &d, Role::Write);
    }
}

/// `ln -s TARGET… [LINK|DIR]`: remembers the links so that later commands of the same request
/// are resolved through them.
fn register_symlinks(inv: &Invocation, env: &Env, args: &[Word]) {
    let mut symbolic = false;
    let mut target_dir: Option<Word> = None;
    let mut operands: Vec<&Word> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let t = lit(&args[i]);
        if t == "--" {
            operands.extend(args[i + 1..].iter());
            break;
        }
        if t == "--symbolic" {
            symbolic = true;
        } else if t == "-t" || t == "--target-directory" {
            target_dir = args.get(i + 1).cloned();
            i += 1;
        } else if let Some(dir) = t.strip_prefix("--target-directory=") {
            target_dir = Some(Word::literal(dir));
        } else if t == "-S" || t == "--suffix" {
            i += 1;
        } else if t.starts_with('-') && !t.starts_with("--") && t.len() > 1 {
            symbolic |= t.contains('s');
        } else if !t.starts_with("--") {
            operands.push(&args[i]);
        }
        i += 1;
    }
    if !symbolic || operands.is_empty() {
        return;
    }
    let Some(cwd) = inv.cwd.clone() else { return };
    let (targets, place): (Vec<&Word>, Option<Word>) = match target_dir {
        Some(dir) => (operands, Some(dir)),
        None if operands.len() == 1 => (operands, None),
        None => {
            let Some((last, rest)) = operands.split_last() else {
                return;
            };
            (rest.to_vec(), Some((*last).clone()))
        }
    };
    for target in targets {
        let target_text = match target.value(&env.home) {
            crate::shell::Value::Literal(t) => Some(t),
            _ => None,
        };
        let name = target_text
            .as_deref()
            .map(|t| {
                t.trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .unwrap_or(t)
                    .to_string()
            })
            .unwrap_or_default();
        let link = match &place {
            None => cwd.join(&name),
            Some(p) => {
                let Some(path) = env.resolve(p, &inv.cwd).path else {
                    continue;
                };
                if path.is_dir() {
                    path.join(&name)
                } else {
                    path
                }
            }
        };
        let resolved_target = target_text.map(|t| {
            let base = link
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| cwd.clone());
            let joined = if t.starts_with('/') {
                PathBuf::from(&t)
            } else {
                base.join(&t)
            };
            super::paths::real_path(&joined, true)
        });
        env.add_link(link, resolved_target);
    }
}

fn copy(inv: &Invocation, env: &Env, op: &mut Operation, args: &[Word]) {
    let name = op.program.clone();
    if name == "ln" {
        register_symlinks(inv, env, args);
    }
    let opts = match name.as_str() {
        "rsync" => Opts {
            short: "eTfB",
            long: &[
                "--rsh",
                "--exclude",
                "--include",
                "--filter",
                "--exclude-from",
                "--include-from",
                "--files-from",
                "--rsync-path",
                "--temp-dir",
                "--partial-dir",
                "--backup-dir",
                "--log-file",
                "--password-file",
                "--chmod",
                "--chown",
                "--port",
                "--bwlimit",
                "--timeout",
                "--suffix",
                "--compare-dest",
                "--copy-dest",
                "--link-dest",
            ],
        },
        "scp" | "sftp" => Opts {
            short: "cFiJlopPSDBbRs",
            long: &[],
        },
        _ => Opts {
            short: "tSm",
            long: &[
                "--target-directory",
                "--suffix",
                "--backup",
                "--mode",
                "--owner",
                "--group",
            ],
        },
    };
    let a = parse(args, &opts);
    op.effect = Effect::Write;
    let is_remote = |w: &Word| -> Option<String> {
        let t = lit(w);
        if t.starts_with("rsync://") || t.contains("::") {
            return Some(t);
        }
        let (host, _) = t.split_once(':')?;
        if host.is_empty() || host.contains('/') || host.len() == 1 {
            return None;
        }
        Some(t)
    };
    let (sources, dest): (Vec<&Word>, Option<Word>) = match a.value(&["-t", "--target-directory"]) {
        Some(dir) => (a.operands.clone(), Some(dir)),
        None => match a.operands.split_last() {
            Some((last, rest)) if !rest.is_empty() => (rest.to_vec(), Some((*last).clone())),
            _ if name == "sftp" => (Vec::new(), a.operands.first().map(|w| (*w).clone())),
            _ => (a.operands.clone(), None),
        },
    };
    let mut remote = None;
    let recursive = name != "ln"
        && args.iter().any(|w| {
            let t = lit(w);
            matches!(t.as_str(), "--recursive" | "--archive" | "--mirror")
                || (t.starts_with('-') && !t.starts_with("--") && t.contains(['r', 'R', 'a']))
        });
    let excludes: Vec<String> = args
        .iter()
        .map(lit)
        .filter_map(|t| t.strip_prefix("--exclude=").map(str::to_string))
        .collect();
    for s in &sources {
        match is_remote(s) {
            Some(r) => remote = Some(r),
            None => {
                add_target(op, env, inv, s, Role::Read);
                if recursive {
                    judge_tree_read(op, env, inv, s, true, &excludes);
                }
            }
        }
    }
    if let Some(d) = dest {
        match is_remote(&d) {
            Some(r) => remote = Some(r),
            None if name == "sftp" => remote = Some(lit(&d)),
            None => add_target(op, env, inv, &d, Role::Write),
        }
    }
    if name == "rsync"
        && a.has(&[
            "--delete",
            "--delete-before",
            "--delete-after",
            "--delete-during",
            "--delete-excluded",
            "--remove-source-files",
        ])
        && let Some(t) = op.targets.iter_mut().rev().find(|t| t.role == Role::Write)
    {
        t.role = Role::DeleteUnder;
    }
    if let Some(r) = remote {
        op.effect = Effect::Network;
        op.remote = Some(r.clone());
        op.fact("net.remote", format!("{name} transfers files with {r}"));
    }
}

fn dd(inv: &Invocation, env: &Env, op: &mut Operation, args: &[Word]) {
    op.effect = Effect::Write;
    for w in args {
        let Some((key, _)) = w.raw.split_once('=') else {
            continue;
        };
        let value = Word {
            raw: w.raw[key.len() + 1..].to_string(),
            parts: strip_prefix_parts(w, key.len() + 1),
        };
        match key {
            "of" => {
                if value.is_dynamic() {
                    op.fact(
                        "device.dynamic",
                        format!("dd writes to {}, a target computed at run time", value.raw),
                    );
                } else {
                    add_target(op, env, inv, &value, Role::Truncate);
                }
            }
            "if" => add_target(op, env, inv, &value, Role::Read),
            _ => {}
        }
    }
}

/// Drops the first `n` literal characters of a word (`of=/dev/sda` → `/dev/sda`).
fn strip_prefix_parts(word: &Word, mut n: usize) -> Vec<crate::shell::Part> {
    use crate::shell::Part;
    let mut out = Vec::new();
    for part in &word.parts {
        match part {
            Part::Lit { text, quoted } if n > 0 => {
                let chars: Vec<char> = text.chars().collect();
                let take = n.min(chars.len());
                n -= take;
                let rest: String = chars[take..].iter().collect();
                if !rest.is_empty() {
                    out.push(Part::Lit {
                        text: rest,
                        quoted: *quoted,
                    });
                }
            }
            other => out.push(other.clone()),
        }
    }
    out
}

fn permissions(inv: &Invocation, env: &Env, op: &mut Operation, args: &[Word]) {
    let a = parse(
        args,
        &Opts {
            short: "",
            long: &["--reference", "--from"],
        },
    );
    op.effect = Effect::Write;
    let recursive = a.has(&["-R", "-r", "--recursive"]);
    let skip =
        if a.value(&["--reference"]).is_some() || op.program == "setfacl" && a.has(&["-b", "-k"]) {
            0
        } else {
            1
        };
    for w in a.operands.iter().skip(skip) {
        add_target(op, env, inv, w, Role::Write);
    }
    if recursive {
        let bad: Vec<String> = op
            .targets
            .iter()
            .filter(|t| {
                matches!(
                    t.resolved.place,
                    super::paths::Place::Root
                        | super::paths::Place::System
                        | super::paths::Place::Home
                )
            })
            .map(|t| t.resolved.written.clone())
            .collect();
        for b in bad {
            op.fact(
                "perm.recursive_system",
                format!("{} -R on {b} changes a whole system tree", op.program),
            );
        }
    }
}

fn sed(inv: &Invocation, env: &Env, op: &mut Operation, args: &[Word]) {
    let a = parse(
        args,
        &Opts {
            short: "efl",
            long: &["--expression", "--file", "--line-length"],
        },
    );
    let in_place = a
        .options
        .iter()
        .any(|(n, _, _)| n == "-i" || n.starts_with("--in-place"));
    let script_given = a.has(&["-e", "--expression", "-f", "--file"]);
    let files: Vec<&Word> = a
        .operands
        .iter()
        .skip(if script_given { 0 } else { 1 })
        .copied()
        .collect();
    op.effect = if in_place {
        Effect::Write
    } else {
        Effect::Read
    };
    for f in a.values(&["-f", "--file"]) {
        add_target(op, env, inv, &f, Role::Read);
    }
    for w in files {
        add_target(
            op,
            env,
            inv,
            w,
            if in_place { Role::Write } else { Role::Read },
        );
    }
    let scripts: Vec<String> = if script_given {
        a.values(&["-e", "--expression"]).iter().map(lit).collect()
    } else {
        a.operands.first().map(|w| vec![lit(w)]).unwrap_or_default()
    };
    if scripts.iter().any(|s| sed_runs_commands(s)) {
        op.fact(
            "interp.risky",
            "the sed script runs shell commands (e or w command)",
        );
    }
}

/// GNU sed's `e` command and `s///e` flag run shell commands; `w FILE` writes a file.
fn sed_runs_commands(script: &str) -> bool {
    let trimmed = script.trim_start();
    trimmed.starts_with("e ")
        || trimmed == "e"
        || script.contains("/e")
            && script.starts_with('s')
            && script
                .rsplit('/')
                .next()
                .is_some_and(|flags| flags.contains('e'))
}

fn awk(inv: &Invocation, env: &Env, op: &mut Operation, args: &[Word]) {
    let a = parse(
        args,
        &Opts {
            short: "Fvf",
            long: &["--field-separator", "--assign", "--file"],
        },
    );
    op.effect = Effect::Read;
    let program_given = a.has(&["-f", "--file"]);
    if !program_given && let Some(p) = a.operands.first() {
        let text = lit(p);
        if text.contains("system")
            || text.contains("| getline")
            || text.contains("|getline")
            || text.contains("print >")
            || text.contains("printf >")
            || text.contains("print>")
        {
            op.fact(
                "interp.risky",
                "the awk program runs commands or writes files",
            );
        }
    }
    for w in a.operands.iter().skip(if program_given { 0 } else { 1 }) {
        if !lit(w).contains('=') {
            add_target(op, env, inv, w, Role::Read);
        }
    }
}

fn tar(inv: &Invocation, env: &Env, op: &mut Operation, args: &[Word]) {
    // Old-style `tar czf FILE …`: a first word without `-` is a cluster of letters.
    let mut normalised: Vec<Word> = Vec::with_capacity(args.len() + 1);
    for (i, w) in args.iter().enumerate() {
        match w.as_literal() {
            Some(t)
                if i == 0 && !t.starts_with('-') && t.chars().all(|c| c.is_ascii_alphabetic()) =>
            {
                normalised.push(Word::literal(&format!("-{t}")))
            }
            _ => normalised.push(w.clone()),
        }
    }
    let a = parse(
        &normalised,
        &Opts {
            short: "fCbHKLNTVgX",
            long: &[
                "--file",
                "--directory",
                "--exclude",
                "--files-from",
                "--exclude-from",
                "--transform",
                "--owner",
                "--group",
                "--mode",
                "--use-compress-program",
                "--newer",
                "--after-date",
                "--label",
            ],
        },
    );
    let create = a.has(&[
        "-c",
        "-r",
        "-u",
        "-A",
        "--create",
        "--append",
        "--update",
        "--concatenate",
    ]);
    let extract = a.has(&["-x", "--extract", "--get"]);
    op.effect = if create || extract {
        Effect::Write
    } else {
        Effect::Read
    };
    if let Some(f) = a.value(&["-f", "--file"])
        && lit(&f) != "-"
    {
        add_target(
            op,
            env,
            inv,
            &f,
            if create { Role::Truncate } else { Role::Read },
        );
    }
    if extract {
        let dir = a
            .value(&["-C", "--directory"])
            .unwrap_or_else(|| Word::literal("."));
        add_target(op, env, inv, &dir, Role::Write);
    }
    if create {
        let excludes: Vec<String> = normalised
            .iter()
            .map(lit)
            .filter_map(|t| t.strip_prefix("--exclude=").map(str::to_string))
            .chain(a.values(&["--exclude"]).iter().map(lit))
            .collect();
        for w in &a.operands {
            add_target(op, env, inv, w, Role::Read);
            judge_tree_read(op, env, inv, w, true, &excludes);
        }
    }
}

/// `mkfs*`, `mkswap`, `wipefs`: destructive on a device (or a target computed at run time);
/// building an image file is an ordinary write, judged like any other.
fn make_filesystem(inv: &Invocation, env: &Env, op: &mut Operation, args: &[Word]) {
    op.effect = Effect::System;
    let name = op.program.clone();
    let operands: Vec<&Word> = args.iter().filter(|w| !lit(w).starts_with('-')).collect();
    let on_device = operands
        .iter()
        .any(|w| w.is_dynamic() || lit(w).starts_with("/dev/"));
    let informational = args
        .iter()
        .any(|w| matches!(lit(w).as_str(), "-V" | "--version" | "-h" | "--help"));
    if informational && !on_device {
        op.effect = Effect::Read;
        return;
    }
    if name == "wipefs" {
        // Without -a/-o wipefs only lists signatures; -n/--no-act never writes.
        let erases = args.iter().any(|w| {
            let t = lit(w);
            matches!(t.as_str(), "-a" | "--all" | "-o" | "--offset")
                || (t.starts_with('-') && !t.starts_with("--") && t.contains(['a', 'o']))
        });
        let no_act = args
            .iter()
            .any(|w| matches!(lit(w).as_str(), "-n" | "--no-act"));
        if erases && !no_act {
            op.fact("disk.format", "wipefs erases file system signatures");
        } else {
            op.effect = Effect::Read;
        }
        return;
    }
    if on_device || operands.is_empty() {
        op.fact(
            "disk.format",
            format!("{name} destroys the file system on its target"),
        );
        return;
    }
    op.effect = Effect::Write;
    for w in operands {
        add_target(op, env, inv, w, Role::Write);
    }
}

fn hdparm(op: &mut Operation, args: &[Word]) {
    op.effect = Effect::System;
    let flags: Vec<String> = args
        .iter()
        .map(lit)
        .filter(|t| t.starts_with('-'))
        .collect();
    let destructive = flags.iter().any(|f| {
        f.starts_with("--security-erase")
            || f.starts_with("--trim-sector")
            || f.starts_with("--write-sector")
            || f.starts_with("--make-bad-sector")
            || f.starts_with("--fwdownload")
            || f == "--security-set-pass"
    });
    if destructive {
        op.fact("disk.format", "hdparm erases or rewrites the drive");
        return;
    }
    let reads = flags.iter().all(|f| {
        matches!(
            f.as_str(),
            "-I" | "-i"
                | "-t"
                | "-T"
                | "-g"
                | "-C"
                | "-v"
                | "-H"
                | "-V"
                | "-h"
                | "--help"
                | "--direct"
        )
    });
    if reads {
        op.effect = Effect::Read;
    } else {
        op.fact("system.kernel", "hdparm changes drive settings");
    }
}

fn cryptsetup(op: &mut Operation, args: &[Word]) {
    op.effect = Effect::System;
    let verbs: Vec<String> = args
        .iter()
        .map(lit)
        .filter(|t| !t.starts_with('-'))
        .collect();
    let verb = verbs.first().cloned().unwrap_or_default();
    match verb.as_str() {
        "luksFormat" | "erase" | "luksErase" | "luksKillSlot" | "reencrypt" | "tcryptFormat" => op
            .fact(
                "disk.format",
                format!("cryptsetup {verb} destroys the data or keys on its device"),
            ),
        "status" | "luksDump" | "isLuks" | "luksUUID" | "tcryptDump" | "benchmark" | "" => {
            op.effect = Effect::Read
        }
        _ => op.fact(
            "system.mount",
            format!("cryptsetup {verb} changes encrypted volumes"),
        ),
    }
}

fn zpool(op: &mut Operation, args: &[Word]) {
    op.effect = Effect::System;
    let verb = args
        .iter()
        .map(lit)
        .find(|t| !t.starts_with('-'))
        .unwrap_or_default();
    match verb.as_str() {
        "create" | "destroy" | "labelclear" | "add" | "attach" | "replace" | "split"
        | "initialize" | "trim" => op.fact(
            "disk.format",
            format!("zpool {verb} overwrites devices or destroys a pool"),
        ),
        "status" | "list" | "history" | "iostat" | "get" | "events" | "wait" | "" => {
            op.effect = Effect::Read
        }
        _ => op.fact(
            "system.mount",
            format!("zpool {verb} changes storage pools"),
        ),
    }
}

fn partitioner(op: &mut Operation, args: &[Word]) {
    op.effect = Effect::System;
    if op.program == "parted" {
        // parted's `-s` is --script (no questions asked), not a read-only flag.
        const CHANGES: &[&str] = &[
            "mklabel",
            "mktable",
            "mkpart",
            "mkpartfs",
            "rm",
            "resizepart",
            "resize",
            "rescue",
            "name",
            "set",
            "toggle",
            "disk_set",
            "disk_toggle",
            "mkfs",
            "move",
            "cp",
            "type",
        ];
        let words: Vec<String> = args.iter().map(lit).collect();
        let changes = words.iter().any(|w| CHANGES.contains(&w.as_str()));
        let only_reads = words.iter().any(|w| {
            matches!(
                w.as_str(),
                "print" | "-l" | "--list" | "--help" | "-h" | "-v" | "--version"
            )
        });
        if changes || !only_reads {
            op.fact("disk.format", "parted rewrites partition tables");
        }
        return;
    }
    let read = args.iter().any(|w| {
        let t = lit(w);
        matches!(
            t.as_str(),
            "-l" | "--list"
                | "-s"
                | "--show"
                | "print"
                | "-p"
                | "--print"
                | "-d"
                | "--dump"
                | "--help"
                | "-h"
                | "-V"
                | "--version"
                | "-i"
                | "-I"
                | "status"
                | "list"
                | "-L"
                | "--list-types"
                | "-v"
                | "--verify"
        )
    }) || args.is_empty();
    // sgdisk with only backup/print/verify options reads the disk.
    if op.program == "sgdisk" {
        let only_reads = args
            .iter()
            .map(lit)
            .filter(|t| t.starts_with('-'))
            .all(|t| {
                matches!(
                    t.as_str(),
                    "-b" | "--backup"
                        | "-p"
                        | "--print"
                        | "-v"
                        | "--verify"
                        | "-L"
                        | "--list-types"
                        | "-i"
                        | "--info"
                        | "-O"
                        | "--print-mbr"
                        | "-P"
                        | "--pretend"
                )
            });
        if only_reads {
            op.effect = Effect::Read;
            return;
        }
    }
    // partx changes the kernel's view of partitions only with -a/-d/-u.
    if op.program == "partx" {
        let changes = args.iter().any(|w| {
            matches!(
                lit(w).as_str(),
                "-a" | "--add" | "-d" | "--delete" | "-u" | "--update"
            )
        });
        if changes {
            op.fact("system.mount", "partx changes the kernel's partition table");
        } else {
            op.effect = Effect::Read;
        }
        return;
    }
    if !read {
        op.fact(
            "disk.format",
            format!("{} rewrites partitions or disks", op.program),
        );
    }
}

fn systemctl(op: &mut Operation, args: &[Word]) {
    let a = parse(
        args,
        &Opts {
            short: "tpHMnos",
            long: &[
                "--type",
                "--property",
                "--host",
                "--machine",
                "--lines",
                "--output",
                "--signal",
                "--state",
                "--root",
                "--kill-whom",
                "--when",
            ],
        },
    );
    let verb = a.operands.first().map(|w| lit(w)).unwrap_or_default();
    if !verb.is_empty() {
        op.subcommand = Some(verb.clone());
    }
    match verb.as_str() {
        "poweroff" | "reboot" | "halt" | "kexec" | "soft-reboot" => {
            op.effect = Effect::System;
            if a.value(&["--when"]).is_some_and(|w| lit(&w) == "cancel")
                || args.iter().any(|w| lit(w) == "--when=cancel")
            {
                op.fact(
                    "system.service",
                    format!("systemctl {verb} --when cancel cancels a scheduled shutdown"),
                );
            } else {
                op.fact("power.off", format!("systemctl {verb} stops the machine"));
            }
        }
        "" | "status" | "show" | "cat" | "list-units" | "list-unit-files" | "list-timers"
        | "list-sockets" | "list-dependencies" | "list-jobs" | "list-machines" | "is-active"
        | "is-enabled" | "is-failed" | "is-system-running" | "get-default" | "help"
        | "show-environment" | "--version" | "--help" => {
            op.effect = Effect::Read;
        }
        _ => {
            op.effect = Effect::System;
            if a.has(&["--user"]) {
                op.fact(
                    "system.service",
                    format!("systemctl --user {verb} changes user services"),
                );
            } else {
                op.fact(
                    "system.service",
                    format!("systemctl {verb} changes system services"),
                );
            }
        }
    }
}

fn firewall(op: &mut Operation, name: &str, args: &[Word]) {
    let texts: Vec<String> = args.iter().map(lit).collect();
    let read = texts.is_empty()
        || texts.iter().all(|t| {
            matches!(
                t.as_str(),
                "-L" | "--list"
                    | "-S"
                    | "--list-rules"
                    | "-n"
                    | "-v"
                    | "--numeric"
                    | "--verbose"
                    | "--line-numbers"
                    | "-t"
                    | "filter"
                    | "nat"
                    | "mangle"
                    | "raw"
                    | "status"
                    | "verbose"
                    | "numbered"
                    | "list"
                    | "ruleset"
                    | "show"
                    | "--state"
                    | "--list-all"
                    | "--get-zones"
                    | "--get-active-zones"
                    | "--list-services"
                    | "--list-ports"
                    | "--help"
                    | "-h"
                    | "--version"
                    | "-x"
                    | "--exact"
                    | "INPUT"
                    | "OUTPUT"
                    | "FORWARD"
                    | "app"
                    | "info"
                    | "-a"
                    | "--get-default-zone"
            )
        });
    if !read {
        op.effect = Effect::System;
        op.fact("system.firewall", format!("{name} changes the firewall"));
    }
}

fn network_config(op: &mut Operation, name: &str, args: &[Word]) {
    let texts: Vec<String> = args.iter().map(lit).collect();
    let mutating = texts.iter().any(|t| {
        matches!(
            t.as_str(),
            "add"
                | "del"
                | "delete"
                | "set"
                | "flush"
                | "change"
                | "replace"
                | "up"
                | "down"
                | "append"
                | "modify"
                | "connect"
                | "disconnect"
                | "addbr"
                | "delbr"
                | "addif"
                | "delif"
                | "netmask"
                | "mtu"
                | "hw"
                | "promisc"
                | "-promisc"
                | "on"
                | "off"
                | "reload"
        )
    });
    let ifconfig_set = name == "ifconfig" && texts.len() >= 2;
    if mutating || ifconfig_set {
        op.effect = Effect::System;
        op.fact(
            "system.network",
            format!("{name} changes network interfaces or routes"),
        );
    }
}

fn kill(op: &mut Operation, name: &str, args: &[Word]) {
    op.effect = Effect::System;
    if name == "kill" {
        // bash's kill: an optional signal (`-9`, `-KILL`, `-s SIG`, `-n N`, `--signal SIG`), an
        // optional `--`, then targets, which may themselves be negative (`-1` is every process,
        // `-PGID` a process group).
        let mut rest = args;
        let mut seen_signal = false;
        while let Some((first, tail)) = rest.split_first() {
            let t = lit(first);
            match t.as_str() {
                "-l" | "-L" | "--list" | "--table" => {
                    op.effect = Effect::Read;
                    return;
                }
                "--" => {
                    rest = tail;
                    break;
                }
                "-s" | "-n" | "--signal" => {
                    rest = tail.get(1..).unwrap_or(&[]);
                    seen_signal = true;
                }
                s if !seen_signal && s.len() > 1 && s.starts_with('-') && !s.starts_with("-%") => {
                    rest = tail;
                    seen_signal = true;
                }
                _ => break,
            }
        }
        // Job specs (`%1`) and `$!` name the command's own children.
        let own = rest.iter().all(|w| {
            let t = w.raw.as_str();
            t.starts_with('%') || t == "$!" || t == "\"$!\"" || t.starts_with("-%")
        });
        if own && !rest.is_empty() {
            op.effect = Effect::Exec;
            return;
        }
        let targets: Vec<String> = rest.iter().map(|w| w.raw.clone()).collect();
        if targets.is_empty() {
            op.effect = Effect::Read;
            return;
        }
        op.fact(
            "system.signal",
            format!("kill sends a signal to {}", targets.join(" ")),
        );
        return;
    }
    if args.iter().any(|w| {
        matches!(
            lit(w).as_str(),
            "-l" | "--list" | "-V" | "--version" | "--help"
        )
    }) {
        op.effect = Effect::Read;
        return;
    }
    op.fact("system.signal", format!("{name} signals processes by name"));
}

fn system_packages(op: &mut Operation, name: &str, args: &[Word]) {
    let a = parse(
        args,
        &Opts {
            short: "ocC",
            long: &[
                "--option",
                "--config-file",
                "--root",
                "--installroot",
                "--repo",
                "--enablerepo",
                "--disablerepo",
            ],
        },
    );
    let verb = a.operands.first().map(|w| lit(w)).unwrap_or_default();
    let pacman_mut = matches!(name, "pacman" | "yay" | "paru")
        && a.options.iter().any(|(n, _, _)| {
            matches!(
                n.as_str(),
                "-S" | "-R" | "-U" | "-y" | "-u" | "--sync" | "--remove" | "--upgrade"
            )
        })
        && !a.options.iter().any(|(n, _, _)| {
            matches!(
                n.as_str(),
                "-Q" | "-s" | "-i" | "-l" | "--query" | "--search" | "--info"
            )
        });
    let mutating_verbs = [
        "install",
        "reinstall",
        "remove",
        "purge",
        "autoremove",
        "upgrade",
        "full-upgrade",
        "dist-upgrade",
        "update",
        "add",
        "del",
        "uninstall",
        "erase",
        "downgrade",
        "refresh",
        "dup",
        "in",
        "rm",
        "up",
        "sync",
        "tap",
        "untap",
        "link",
        "unlink",
        "cleanup",
        "clean",
        "build-dep",
        "source",
        "localinstall",
        "groupinstall",
        "swap",
        "distro-sync",
        "-i",
        "--install",
        "-e",
        "--uninstall",
        "-iA",
        "fix",
        "switch",
        "pin",
    ];
    let mutating = pacman_mut
        || mutating_verbs.contains(&verb.as_str())
        || (name == "nix-env"
            && a.has(&["-i", "-e", "-u", "--install", "--uninstall", "--upgrade"]));
    if mutating {
        op.effect = Effect::System;
        op.subcommand = Some(verb.clone());
        // Installing also downloads, but the system change is what the approval is about.
        op.fact(
            "system.packages",
            format!("{name} {verb} changes installed system packages"),
        );
    } else {
        // Queries (search, info, show, list, …) only read.
        op.effect = Effect::Read;
    }
}

fn language_tool(inv: &Invocation, env: &Env, op: &mut Operation, name: &str, args: &[Word]) {
    let a = parse(
        args,
        &Opts {
            short: "CpZ",
            long: &[
                "--manifest-path",
                "--prefix",
                "--target",
                "--registry",
                "--index",
                "--index-url",
                "--config",
                "--cwd",
                "--dir",
                "--workspace",
                "--filter",
                "--package",
                "--features",
                "--bin",
                "--example",
                "--test",
                "--bench",
                "--jobs",
                "--python",
                "--project",
                "--directory",
                "--repo",
            ],
        },
    );
    let verb = a.operands.first().map(|w| lit(w)).unwrap_or_default();
    let second = a.operands.get(1).map(|w| lit(w)).unwrap_or_default();
    op.effect = Effect::Exec;
    op.subcommand = (!verb.is_empty()).then(|| verb.clone());
    let publish = match name {
        "npm" | "pnpm" | "yarn" | "bun" => {
            matches!(verb.as_str(), "publish" | "unpublish" | "deprecate")
                || verb == "npm" && second == "publish"
                || (verb == "dist-tag" && second == "add")
                || (verb == "owner" && second == "add")
        }
        "cargo" => matches!(verb.as_str(), "publish" | "yank" | "owner"),
        "twine" => verb == "upload",
        "gem" => matches!(verb.as_str(), "push" | "yank" | "owner"),
        "poetry" | "flit" | "hatch" | "rye" | "uv" => verb == "publish",
        "helm" => verb == "push",
        "vsce" | "ovsx" => verb == "publish",
        "dotnet" => verb == "nuget" && second == "push",
        "nuget" => verb == "push",
        "mvn" => a
            .operands
            .iter()
            .any(|w| lit(w) == "deploy" || lit(w).ends_with(":deploy")),
        "gradle" | "gradlew" => a.operands.iter().any(|w| lit(w).starts_with("publish")),
        "dart" | "flutter" | "pub" => verb == "pub" && second == "publish" || verb == "publish",
        "mix" | "hex" => verb == "hex.publish",
        "cabal" => verb == "upload",
        "opam" => verb == "publish",
        "luarocks" => verb == "upload",
        _ => false,
    };
    if publish {
        op.effect = Effect::Publish;
        op.fact("publish", format!("{name} {verb} publishes to a registry"));
        return;
    }
    let network = match name {
        "npm" => {
            matches!(verb.as_str(), "install" | "i" | "ci" | "add" | "update" | "up" | "upgrade" | "outdated" | "view" | "info" | "show" | "search" | "login" | "adduser" | "audit" | "exec" | "x" | "create" | "init" if !(verb == "init" && a.operands.len() == 1))
                || verb == "install-test"
                || verb == "it"
        }
        "pnpm" | "bun" => matches!(
            verb.as_str(),
            "install"
                | "i"
                | "add"
                | "update"
                | "up"
                | "dlx"
                | "create"
                | "outdated"
                | "audit"
                | "x"
        ),
        "yarn" => {
            verb.is_empty()
                || matches!(
                    verb.as_str(),
                    "install"
                        | "add"
                        | "upgrade"
                        | "up"
                        | "dlx"
                        | "create"
                        | "outdated"
                        | "audit"
                        | "global"
                )
        }
        "cargo" => matches!(
            verb.as_str(),
            "install"
                | "add"
                | "update"
                | "fetch"
                | "search"
                | "login"
                | "generate-lockfile"
                | "vendor"
                | "binstall"
        ),
        "pip" | "pip3" => {
            matches!(verb.as_str(), "install" | "download" | "search" | "index")
                && !a.has(&["--no-index"])
        }
        "pipx" => matches!(
            verb.as_str(),
            "install" | "run" | "upgrade" | "upgrade-all" | "inject" | "reinstall"
        ),
        "uv" => {
            matches!(verb.as_str(), "add" | "sync" | "lock" | "tool" | "python" | "run" if verb != "run")
                || verb == "pip"
                    && matches!(second.as_str(), "install" | "download" | "compile" | "sync")
        }
        "poetry" => matches!(
            verb.as_str(),
            "add" | "install" | "update" | "lock" | "search" | "self"
        ),
        "gem" => matches!(
            verb.as_str(),
            "install" | "update" | "fetch" | "search" | "sources"
        ),
        "go" => {
            matches!(verb.as_str(), "get" | "install")
                || verb == "mod" && matches!(second.as_str(), "download" | "tidy")
        }
        "composer" => matches!(
            verb.as_str(),
            "install" | "require" | "update" | "create-project" | "global" | "self-update"
        ),
        "bundle" => matches!(verb.as_str(), "install" | "update" | "add") || verb.is_empty(),
        "conda" | "mamba" | "micromamba" => matches!(
            verb.as_str(),
            "install" | "update" | "create" | "upgrade" | "search"
        ),
        "dotnet" => {
            matches!(verb.as_str(), "add" | "restore" | "tool" | "new")
                && !(verb == "new" && a.operands.len() == 1)
        }
        "deno" => {
            matches!(verb.as_str(), "install" | "add" | "upgrade")
                || a.operands.iter().any(|w| lit(w).starts_with("http"))
        }
        "helm" => matches!(
            verb.as_str(),
            "install"
                | "upgrade"
                | "uninstall"
                | "rollback"
                | "pull"
                | "repo"
                | "dependency"
                | "search"
        ),
        "opam" | "cabal" | "stack" | "luarocks" | "cpan" | "cpanm" | "nimble" | "raco" => {
            matches!(
                verb.as_str(),
                "install" | "update" | "upgrade" | "init" | "get" | "fetch"
            ) || name == "cpanm"
        }
        "mvn" | "gradle" | "gradlew" | "swift" | "dart" | "flutter" | "pub" | "mix" | "hex"
        | "julia" | "R" | "nuget" | "rye" | "hatch" | "flit" | "twine" | "vsce" | "ovsx" => {
            matches!(
                verb.as_str(),
                "install" | "restore" | "pub" | "deps.get" | "add" | "sync" | "upgrade" | "get"
            ) && !(name == "mvn" && verb == "install")
        }
        _ => false,
    };
    if network {
        op.effect = Effect::Network;
        op.fact(
            "net.use",
            format!("{name} {verb} downloads packages from the network"),
        );
    }
    if matches!(name, "npm" | "pnpm" | "yarn" | "bun") && a.has(&["-g", "--global"]) && network {
        op.fact(
            "write.outside",
            format!("{name} {verb} --global installs outside the workspace"),
        );
    }
    if matches!(name, "pip" | "pip3") && verb == "uninstall"
        || matches!(name, "npm" | "pnpm" | "yarn")
            && matches!(verb.as_str(), "uninstall" | "remove" | "rm" | "un")
            && a.has(&["-g", "--global"])
    {
        op.fact(
            "system.packages",
            format!("{name} {verb} removes installed packages"),
        );
    }
    for w in a.values(&["--manifest-path"]) {
        add_target(op, env, inv, &w, Role::Read);
    }
}

fn container(op: &mut Operation, name: &str, args: &[Word]) {
    let a = parse(
        args,
        &Opts {
            short: "HcfnlL",
            long: &[
                "--host",
                "--context",
                "--config",
                "--namespace",
                "--kubeconfig",
                "--log-level",
                "--file",
                "--project-name",
                "--env-file",
                "--profile",
                "--cluster",
                "--user",
                "--server",
                "--token",
            ],
        },
    );
    let mut verbs = a.operands.iter().map(|w| lit(w));
    let mut verb = verbs.next().unwrap_or_default();
    if verb == "compose"
        || verb == "container"
        || verb == "image"
        || verb == "system"
        || verb == "volume"
        || verb == "network"
        || verb == "buildx"
    {
        let second = verbs.next().unwrap_or_default();
        verb = format!("{verb} {second}");
    }
    op.subcommand = Some(verb.clone());
    let read_verbs = [
        "",
        "ps",
        "images",
        "image ls",
        "inspect",
        "logs",
        "version",
        "info",
        "help",
        "get",
        "describe",
        "explain",
        "top",
        "events",
        "stats",
        "diff",
        "history",
        "container ls",
        "compose ps",
        "compose logs",
        "compose config",
        "volume ls",
        "network ls",
        "system df",
        "api-resources",
        "api-versions",
        "cluster-info",
        "config",
        "auth",
        "--version",
        "--help",
        "search",
        "port",
        "compose ls",
        "completion",
    ];
    if read_verbs.contains(&verb.as_str()) {
        op.effect = Effect::Read;
        if matches!(name, "kubectl" | "oc")
            && !verb.is_empty()
            && !matches!(
                verb.as_str(),
                "version" | "help" | "explain" | "config" | "completion"
            )
        {
            op.effect = Effect::Network;
            op.fact("net.remote", format!("{name} {verb} talks to a cluster"));
        }
        return;
    }
    if verb == "push" || verb.ends_with(" push") {
        op.effect = Effect::Publish;
        op.fact("publish", format!("{name} push publishes an image"));
        return;
    }
    if matches!(name, "kubectl" | "oc" | "helm") {
        op.effect = Effect::Network;
        op.fact("net.remote", format!("{name} {verb} changes a cluster"));
        return;
    }
    op.effect = Effect::System;
    op.fact(
        "system.container",
        format!("{name} {verb} changes containers or images on this machine"),
    );
    if matches!(
        verb.as_str(),
        "pull" | "login" | "build" | "run" | "compose up" | "compose pull" | "buildx build"
    ) {
        op.fact("net.use", format!("{name} {verb} may download images"));
    }
}

fn download(inv: &Invocation, env: &Env, op: &mut Operation, name: &str, args: &[Word]) {
    let opts = match name {
        "curl" => Opts {
            short: "oTdFHuAeEKrXwmxbcCDQYyzPU",
            long: &[
                "--output",
                "--upload-file",
                "--data",
                "--data-binary",
                "--data-raw",
                "--data-urlencode",
                "--form",
                "--header",
                "--user",
                "--user-agent",
                "--referer",
                "--cert",
                "--key",
                "--config",
                "--range",
                "--request",
                "--write-out",
                "--max-time",
                "--proxy",
                "--cookie",
                "--cookie-jar",
                "--dump-header",
                "--cacert",
                "--capath",
                "--connect-timeout",
                "--retry",
                "--output-dir",
                "--json",
                "--url",
                "--resolve",
                "--interface",
                "--limit-rate",
            ],
        },
        "wget" => Opts {
            short: "OoaPUtTeiBQwlADRIXYkNd",
            long: &[
                "--output-document",
                "--output-file",
                "--append-output",
                "--directory-prefix",
                "--user-agent",
                "--tries",
                "--timeout",
                "--post-data",
                "--post-file",
                "--body-file",
                "--header",
                "--user",
                "--password",
                "--input-file",
                "--load-cookies",
                "--save-cookies",
                "--execute",
                "--level",
                "--accept",
                "--reject",
                "--domains",
                "--exclude-domains",
                "--include-directories",
                "--exclude-directories",
                "--wait",
                "--limit-rate",
                "--quota",
                "--ca-certificate",
                "--certificate",
                "--private-key",
            ],
        },
        _ => NONE,
    };
    let a = parse(args, &opts);
    op.effect = Effect::Network;
    let url = a.operands.iter().map(|w| lit(w)).next().unwrap_or_default();
    op.remote = (!url.is_empty()).then(|| url.clone());
    let version_only = args
        .iter()
        .all(|w| matches!(lit(w).as_str(), "--version" | "-V" | "--help" | "-h"));
    if !version_only {
        op.fact("net.use", format!("{name} fetches {url}"));
    }
    for w in a.values(&[
        "-o",
        "--output",
        "-O",
        "--output-document",
        "-D",
        "--dump-header",
        "-c",
        "--cookie-jar",
        "--save-cookies",
        "-a",
        "--append-output",
    ]) {
        if lit(&w) != "-" && !(name == "wget" && lit(&w) == "-") {
            add_target(op, env, inv, &w, Role::Truncate);
        }
    }
    for w in a.values(&["-P", "--directory-prefix", "--output-dir"]) {
        add_target(op, env, inv, &w, Role::Write);
    }
    for w in a.values(&[
        "-T",
        "--upload-file",
        "--post-file",
        "--body-file",
        "-K",
        "--config",
        "-i",
        "--input-file",
    ]) {
        add_target(op, env, inv, &w, Role::Read);
    }
    for w in a.values(&[
        "-d",
        "--data",
        "--data-binary",
        "--data-urlencode",
        "-F",
        "--form",
        "--json",
    ]) {
        let t = lit(&w);
        if let Some(idx) = t.find('@') {
            let file = t[idx + 1..].split(';').next().unwrap_or("").to_string();
            if !file.is_empty() && file != "-" {
                add_target(op, env, inv, &Word::literal(&file), Role::Read);
            }
        }
    }
}

/// warden run by a guarded command: its approval and policy commands are a person's alone
/// (an agent approving its own request would make every approval a blank cheque).
fn warden_itself(op: &mut Operation, args: &[Word]) {
    const WITH_VALUE: &[&str] = &[
        "--workspace",
        "--timeout",
        "--grace",
        "--rules",
        "--max-output",
        "--pass-env",
    ];
    op.effect = Effect::Exec;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = lit(word);
        if WITH_VALUE.contains(&text.as_str()) {
            i += 2;
            continue;
        }
        if text.starts_with('-') {
            i += 1;
            continue;
        }
        if word.as_literal().is_none()
            || matches!(text.as_str(), "approve" | "deny" | "pending" | "policy")
        {
            op.subcommand = Some(text.clone());
            op.fact(
                "warden.authority",
                format!(
                    "`warden {text}` answers approvals or edits policy, which only a person may do"
                ),
            );
        }
        return;
    }
}

fn sql(inv: &Invocation, op: &mut Operation, name: &str, args: &[Word]) {
    op.effect = Effect::Exec;
    if name == "dropdb"
        || name == "mysqladmin" && args.iter().any(|w| lit(w).eq_ignore_ascii_case("drop"))
    {
        op.fact("sql.drop", format!("{name} drops a database"));
        return;
    }
    let mut texts: Vec<String> = Vec::new();
    let a = parse(
        args,
        &Opts {
            short: "cefqQdhpUuPDsSx",
            long: &[
                "--command",
                "--execute",
                "--query",
                "--file",
                "--dbname",
                "--host",
                "--port",
                "--username",
                "--user",
                "--password",
                "--database",
                "--eval",
            ],
        },
    );
    for v in a.values(&[
        "-c",
        "--command",
        "-e",
        "--execute",
        "--query",
        "-q",
        "-Q",
        "--eval",
    ]) {
        texts.push(lit(&v));
    }
    if matches!(name, "sqlite3" | "duckdb") {
        texts.extend(a.operands.iter().skip(1).map(|w| lit(w)));
    }
    if let Some(t) = known_input(inv) {
        texts.push(t.to_string());
    }
    if let Input::From(Source::Unknown(_)) = &inv.input {
        // Unknown SQL piped in is not code warden can check, but not a shell either.
    }
    for text in texts {
        if let Some(stmt) = sql_drop(&text) {
            op.fact("sql.drop", format!("{name} runs `{stmt}`"));
        }
    }
}

/// Finds `DROP DATABASE|TABLE|SCHEMA` (any case) as whole words in SQL text.
fn sql_drop(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_uppercase())
        .collect();
    words.windows(2).find_map(|w| {
        (w[0] == "DROP" && matches!(w[1].as_str(), "DATABASE" | "TABLE" | "SCHEMA"))
            .then(|| format!("DROP {}", w[1]))
            .or_else(|| {
                (w[0] == "TRUNCATE" && w[1] == "TABLE").then(|| "TRUNCATE TABLE".to_string())
            })
    })
}

fn interpreter(inv: &Invocation, env: &Env, op: &mut Operation, name: &str, args: &[Word]) {
    op.effect = Effect::Exec;
    let code_flags: &[&str] = match name {
        "python" | "python2" | "python3" | "pypy" | "pypy3" => &["-c"],
        "perl" => &["-e", "-E"],
        "ruby" => &["-e"],
        "node" | "nodejs" => &["-e", "--eval", "-p", "--print"],
        "php" => &["-r"],
        "lua" | "luajit" => &["-e"],
        "Rscript" => &["-e"],
        "osascript" => &["-e"],
        _ => &[],
    };
    // Find inline code or a script operand, honouring clustered flags like `-Mstrict -e`.
    let mut code: Vec<String> = Vec::new();
    let mut script: Option<&Word> = None;
    let mut module = false;
    let mut i = 0;
    // `-e CODE`, and clusters ending in the code flag (`perl -ne CODE`, `ruby -pe CODE`).
    let is_code_flag = |t: &str| {
        code_flags.contains(&t)
            || (t.len() > 2
                && t.starts_with('-')
                && !t.starts_with("--")
                && t[1..].chars().all(|c| c.is_ascii_alphabetic())
                && code_flags
                    .iter()
                    .any(|f| f.len() == 2 && t.ends_with(&f[1..])))
    };
    while i < args.len() {
        let t = lit(&args[i]);
        if is_code_flag(&t) {
            if let Some(c) = args.get(i + 1) {
                code.push(c.as_literal().unwrap_or_default());
                if c.is_dynamic() {
                    op.fact(
                        "interp.risky",
                        format!("{name} runs code computed at run time"),
                    );
                }
            }
            break;
        }
        if let Some(rest) = code_flags
            .iter()
            .find_map(|f| t.strip_prefix(f).filter(|r| !r.is_empty() && f.len() == 2))
        {
            code.push(rest.to_string());
            break;
        }
        if t == "-m" {
            module = true;
            let m = args.get(i + 1).map(lit).unwrap_or_default();
            if m == "pip"
                && args
                    .get(i + 2)
                    .map(lit)
                    .is_some_and(|v| matches!(v.as_str(), "install" | "download"))
                || m == "http.server"
                || m == "SimpleHTTPServer"
            {
                op.effect = Effect::Network;
                op.fact("net.use", format!("{name} -m {m} uses the network"));
            }
            break;
        }
        if t == "-" {
            break;
        }
        if !t.starts_with('-') {
            script = Some(&args[i]);
            break;
        }
        i += 1;
    }
    if let Some(s) = script {
        add_target(op, env, inv, s, Role::Read);
        return;
    }
    if module {
        return;
    }
    if code.is_empty() {
        match &inv.input {
            Input::From(Source::Download(p)) => op.fact(
                "code.download_to_shell",
                format!("text downloaded by {p} runs in {name}"),
            ),
            Input::From(Source::Unknown(p)) if !p.is_empty() => op.fact(
                "code.unknown_origin",
                format!("output of `{p}` runs as {name} code"),
            ),
            Input::From(Source::Literal(t)) => code.push(t.clone()),
            _ => {}
        }
    }
    // Operands after inline code are files the program may read (`perl -ne print .env`).
    if let Some(pos) = args.iter().position(|w| is_code_flag(&lit(w))) {
        for w in args
            .iter()
            .skip(pos + 2)
            .filter(|w| !lit(w).starts_with('-'))
        {
            add_target(op, env, inv, w, Role::Read);
        }
    }
    for c in code {
        if let Some(why) = risky_code(&c) {
            op.fact("interp.risky", format!("{name} one-liner {why}"));
        }
        if let Some((token, kind)) = secret_in_code(&c, &env.home) {
            op.fact(
                "secret.read",
                format!("{name} one-liner names {token}, which is {kind}"),
            );
        }
    }
}

/// A secret path named inside code of another language (`open('.env')`, `"~/.ssh/id_rsa"`):
/// string-ish tokens are checked as paths.
fn secret_in_code(code: &str, home: &str) -> Option<(String, &'static str)> {
    code.split(|c: char| c.is_whitespace() || "'\"`()[]{},;+=<>|&$".contains(c))
        .filter(|t| !t.is_empty())
        .find_map(|t| {
            let path = match t.strip_prefix("~/") {
                Some(rest) => format!("{home}/{rest}"),
                None => t.to_string(),
            };
            super::secrets::secret_kind(&path)
                .filter(|_| t.contains(['.', '/']) || t.starts_with("id_"))
                .map(|k| (t.to_string(), k))
        })
}

/// Whether inline interpreter code deletes, runs programs, reaches the network or leaves the
/// workspace. Word-level scan of code in another language: it errs towards asking.
fn risky_code(code: &str) -> Option<&'static str> {
    const DELETE: &[&str] = &[
        "rmtree",
        "remove",
        "unlink",
        "rmdir",
        "rm_rf",
        "rm_r",
        "rmSync",
        "rmdirSync",
        "unlinkSync",
        "truncate",
        "delete",
        "removedirs",
        "shred",
    ];
    const EXEC: &[&str] = &[
        "system",
        "subprocess",
        "popen",
        "Popen",
        "exec",
        "execSync",
        "spawn",
        "spawnSync",
        "execFile",
        "child_process",
        "os.system",
        "fork",
        "eval",
        "__import__",
        "pty",
        "ctypes",
        "IO.popen",
        "Open3",
        "Kernel",
        "shell_exec",
        "passthru",
        "proc_open",
    ];
    const NET: &[&str] = &[
        "socket",
        "urllib",
        "urlopen",
        "requests",
        "http",
        "https",
        "fetch",
        "net",
        "httplib",
        "ftplib",
        "smtplib",
        "telnetlib",
        "LWP",
        "Net",
        "open-uri",
        "XMLHttpRequest",
        "axios",
        "curl",
        "wget",
        "paramiko",
    ];
    const WRITE: &[&str] = &[
        "chmod",
        "chown",
        "rename",
        "move",
        "writeFileSync",
        "write_text",
        "write_bytes",
        "kill",
        "setuid",
        "symlink",
    ];
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let any = |list: &[&str]| words.iter().any(|w| list.contains(w));
    if any(DELETE) {
        return Some("deletes files");
    }
    if any(EXEC) || code.contains('`') {
        return Some("runs other programs");
    }
    if any(NET) {
        return Some("reaches the network");
    }
    if any(WRITE) {
        return Some("changes files or processes");
    }
    // Writing through open(…, 'w') or to an absolute path outside.
    if (code.contains("'w'")
        || code.contains("\"w\"")
        || code.contains("'a'")
        || code.contains("\"a\""))
        && code.contains("open")
    {
        return Some("writes files");
    }
    let outside = ["'/", "\"/", "'~", "\"~"].iter().any(|p| code.contains(p));
    if outside {
        return Some("reaches paths outside the workspace");
    }
    None
}

fn git(inv: &Invocation, env: &Env, op: &mut Operation, args: &[Word]) {
    let mut i = 0;
    let mut cwd = inv.cwd.clone();
    while i < args.len() {
        let Some(t) = args[i].as_literal() else { break };
        match t.as_str() {
            "-C" => {
                if let Some(dir) = args.get(i + 1) {
                    cwd = match (literal_value(dir, env), &cwd) {
                        (Some(d), Some(c)) => Some(crate::shell::join_normal(c, &d)),
                        _ => None,
                    };
                }
                i += 2;
            }
            "-c" => {
                if let Some(kv) = args.get(i + 1) {
                    git_config_vector(op, &lit(kv));
                }
                i += 2;
            }
            "--config-env" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix"
            | "--list-cmds" | "--attr-source" => i += 2,
            _ if t.starts_with("--exec-path=") => {
                op.fact(
                    "git.exec_vector",
                    format!("git {t} runs git helpers from another place"),
                );
                i += 1;
            }
            _ if t.starts_with("--config-env=") => {
                op.fact(
                    "git.exec_vector",
                    format!("git {t} sets configuration from the environment"),
                );
                i += 1;
            }
            _ if t.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let sub = args.get(i).map(lit).unwrap_or_default();
    let rest = if i < args.len() {
        &args[i + 1..]
    } else {
        &[][..]
    };
    op.subcommand = (!sub.is_empty()).then(|| sub.clone());
    op.effect = Effect::Exec;
    let scoped = Invocation { cwd, ..inv.clone() };
    let texts: Vec<String> = rest.iter().map(lit).collect();
    let has = |names: &[&str]| texts.iter().any(|t| names.contains(&t.as_str()));
    match sub.as_str() {
        "push" => git_push(op, rest),
        "clone" | "fetch" | "pull" | "ls-remote" | "archive"
            if sub != "archive" || texts.iter().any(|t| t.starts_with("--remote")) =>
        {
            op.effect = Effect::Network;
            op.fact("net.use", format!("git {sub} talks to a remote"));
            for t in &texts {
                if t.starts_with("--upload-pack") || t == "-u" || t.starts_with("--config=") {
                    op.fact("git.exec_vector", format!("git {sub} {t} runs a program"));
                }
            }
            let mut j = 0;
            while j < texts.len() {
                if texts[j] == "-c" || texts[j] == "--config" {
                    if let Some(kv) = texts.get(j + 1) {
                        git_config_vector(op, kv);
                    }
                    j += 1;
                }
                j += 1;
            }
            if sub == "pull" && has(&["--force", "-f"]) {
                op.fact("git.history", "git pull --force can overwrite local refs");
            }
        }
        "submodule" if has(&["update", "add"]) && !has(&["status", "summary"]) => {
            op.effect = Effect::Network;
            let verb = texts.first().cloned().unwrap_or_default();
            op.fact("net.use", format!("git submodule {verb} talks to a remote"));
        }
        "remote" if has(&["update"]) || texts.first().is_some_and(|t| t == "prune") => {
            op.effect = Effect::Network;
            op.fact("net.use", "git remote update talks to remotes");
        }
        "reset" if has(&["--hard", "--merge", "--keep"]) => {
            op.fact("git.history", "git reset --hard discards uncommitted work")
        }
        "clean" => {
            let force = texts.iter().any(|t| {
                t == "--force" || (t.starts_with('-') && !t.starts_with("--") && t.contains('f'))
            });
            let dry = texts.iter().any(|t| {
                t == "--dry-run" || (t.starts_with('-') && !t.starts_with("--") && t.contains('n'))
            });
            if force && !dry {
                op.effect = Effect::Delete;
                op.fact("git.history", "git clean -f deletes untracked files");
            }
        }
        "checkout" => {
            let dashdash = texts.iter().position(|t| t == "--");
            let paths_after = dashdash.is_some_and(|p| p + 1 < texts.len());
            if paths_after
                || has(&[".", "-f", "--force", "-p", "--patch"])
                || texts
                    .iter()
                    .any(|t| t == ":/" || t.starts_with("--theirs") || t.starts_with("--ours"))
            {
                op.fact(
                    "git.history",
                    "git checkout over files discards their uncommitted changes",
                );
            }
        }
        "restore" => {
            let staged = has(&["--staged", "-S"]);
            let worktree = has(&["--worktree", "-W"])
                || texts
                    .iter()
                    .any(|t| t.starts_with('-') && !t.starts_with("--") && t.contains('W'));
            if !staged || worktree {
                op.fact(
                    "git.history",
                    "git restore discards uncommitted changes in the working tree",
                );
            }
        }
        "stash" if has(&["drop", "clear"]) => {
            op.fact("git.history", "git stash drop/clear deletes stashed work")
        }
        "branch" if has(&["-D"]) || (has(&["-d", "--delete"]) && has(&["-f", "--force"])) => op
            .fact(
                "git.history",
                "git branch -D deletes a branch with unmerged commits",
            ),
        "filter-branch" | "filter-repo" | "replace" => {
            op.fact("git.history", format!("git {sub} rewrites history"))
        }
        "reflog" if has(&["expire", "delete"]) => {
            op.fact("git.history", "git reflog expire drops recovery points")
        }
        "update-ref" if has(&["-d"]) => op.fact("git.history", "git update-ref -d deletes a ref"),
        "gc" if texts.iter().any(|t| t.starts_with("--prune")) => {
            op.fact("git.history", "git gc --prune drops unreachable commits")
        }
        // `git rm --cached` only unstages; it falls through to the ordinary arm below.
        "rm" if !has(&["--cached"]) => {
            op.effect = Effect::Delete;
            for w in rest.iter().filter(|w| !lit(w).starts_with('-')) {
                add_target(op, env, &scoped, w, Role::Delete);
            }
        }
        "mv" => {
            op.effect = Effect::Write;
            let operands: Vec<&Word> = rest.iter().filter(|w| !lit(w).starts_with('-')).collect();
            if let Some((dest, sources)) = operands.split_last() {
                for s in sources {
                    add_target(op, env, &scoped, s, Role::Delete);
                }
                add_target(op, env, &scoped, dest, Role::Write);
            }
        }
        "config" => {
            let values: Vec<&String> = texts.iter().filter(|t| !t.starts_with('-')).collect();
            let reading = has(&[
                "--get",
                "--get-all",
                "--list",
                "-l",
                "--get-regexp",
                "--show-origin",
            ]) || values.len() < 2;
            if !reading {
                if let (Some(k), Some(v)) = (values.first(), values.get(1)) {
                    git_config_vector(op, &format!("{k}={v}"));
                }
                if has(&["--global", "--system"]) {
                    op.fact(
                        "write.outside",
                        "git config --global changes the user's git configuration",
                    );
                }
            }
        }
        "add" | "commit" | "status" | "diff" | "log" | "show" | "blame" | "grep" | "switch"
        | "merge" | "rebase" | "tag" | "init" | "stash" | "branch" | "describe" | "rev-parse"
        | "shortlog" | "cherry-pick" | "revert" | "bisect" | "worktree" | "notes" | "am"
        | "apply" | "format-patch" | "ls-files" | "cat-file" | "reflog" | "whatchanged"
        | "range-diff" | "show-branch" | "difftool" | "mergetool" | "sparse-checkout"
        | "maintenance" | "gc" | "fsck" | "count-objects" | "help" | "version" | "var" => {
            for w in rest {
                let t = lit(w);
                if t.starts_with('-') {
                    continue;
                }
                if matches!(sub.as_str(), "add" | "diff" | "show" | "blame")
                    && super::secrets::secret_kind(&t).is_some()
                {
                    add_target(op, env, &scoped, w, Role::Read);
                }
            }
        }
        _ => {}
    }
}

/// `git -c key=value`: keys that make git run a program.
fn git_config_vector(op: &mut Operation, kv: &str) {
    let (key, value) = kv.split_once('=').unwrap_or((kv, ""));
    let key = key.to_ascii_lowercase();
    let exec_key = matches!(
        key.as_str(),
        "core.sshcommand"
            | "core.fsmonitor"
            | "core.pager"
            | "core.editor"
            | "core.hookspath"
            | "core.gitproxy"
            | "core.askpass"
            | "sequence.editor"
            | "diff.external"
            | "credential.helper"
            | "gpg.program"
            | "uploadpack.packobjectshook"
            | "include.path"
            | "protocol.ext.allow"
            | "core.alternaterefscommand"
            | "ssh.variant"
            | "gpg.ssh.program"
            | "gpg.x509.program"
            | "gpg.openpgp.program"
            | "web.browser"
            | "instaweb.httpd"
            | "merge.tool"
            | "diff.tool"
    ) || key.starts_with("pager.")
        || key.starts_with("filter.")
            && (key.ends_with(".clean") || key.ends_with(".smudge") || key.ends_with(".process"))
        || key.starts_with("diff.") && (key.ends_with(".textconv") || key.ends_with(".command"))
        || key.starts_with("merge.") && key.ends_with(".driver")
        || key.starts_with("remote.")
            && (key.ends_with(".uploadpack")
                || key.ends_with(".receivepack")
                || key.ends_with(".proxy"))
        || key.starts_with("includeif.")
        || key.starts_with("credential.") && key.ends_with(".helper")
        || key.starts_with("alias.") && value.trim_start().starts_with('!')
        || key.starts_with("mergetool.") && key.ends_with(".cmd")
        || key.starts_with("difftool.") && key.ends_with(".cmd");
    if exec_key {
        op.fact(
            "git.exec_vector",
            format!("git config {key} makes git run a program"),
        );
    }
}

fn git_push(op: &mut Operation, rest: &[Word]) {
    op.effect = Effect::Publish;
    let mut operands = Vec::new();
    let mut force = None;
    let mut lease = false;
    let mut i = 0;
    while i < rest.len() {
        let t = lit(&rest[i]);
        i += 1;
        if t == "--" {
            operands.extend(rest[i..].iter().map(lit));
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or("");
            match name {
                "force" => force = Some(t.clone()),
                "force-with-lease" | "force-if-includes" => lease = true,
                "mirror" => op.fact(
                    "git.push.destructive",
                    "git push --mirror overwrites and deletes remote refs",
                ),
                "delete" | "prune" => op.fact(
                    "git.push.destructive",
                    format!("git push --{name} deletes remote branches"),
                ),
                "repo" | "push-option" | "receive-pack" | "exec" | "signed"
                | "recurse-submodules"
                    if !long.contains('=') =>
                {
                    i += 1
                }
                _ => {}
            }
            if matches!(name, "receive-pack" | "exec") {
                op.fact(
                    "git.exec_vector",
                    format!("git push {t} runs a program on the remote side"),
                );
            }
            continue;
        }
        if t.len() > 1 && t.starts_with('-') {
            for c in t[1..].chars() {
                match c {
                    'f' => force = Some(t.clone()),
                    'd' => op.fact(
                        "git.push.destructive",
                        "git push -d deletes remote branches",
                    ),
                    'o' => {
                        i += 1;
                        break;
                    }
                    _ => {}
                }
            }
            continue;
        }
        operands.push(t);
    }
    for refspec in operands.iter().skip(1) {
        if refspec.starts_with('+') {
            force = Some(refspec.clone());
        }
        if refspec.starts_with(':') {
            op.fact(
                "git.push.destructive",
                format!("git push {refspec} deletes a remote branch"),
            );
        }
    }
    if let Some(how) = force {
        op.fact(
            "git.force_push",
            format!("git push {how} rewrites published history"),
        );
    } else {
        op.fact(
            "git.push",
            if lease {
                "git push --force-with-lease rewrites a remote branch (guarded by a lease)"
                    .to_string()
            } else {
                "git push publishes commits to a remote".to_string()
            },
        );
    }
    op.remote = operands.first().cloned();
}

/// Commands whose purpose is to print a credential (`gh auth token`, `gpg --export-secret-keys`,
/// `kubectl config view --raw`, password-manager reads): a secret read without a secret path.
pub(super) fn credential_printer(program: &str, args: &[Word]) -> Option<String> {
    let words: Vec<String> = args.iter().map(lit).collect();
    let has = |w: &str| words.iter().any(|x| x == w);
    let starts = |w: &str| words.iter().any(|x| x.starts_with(w));
    let seq = |a: &str, b: &str| words.windows(2).any(|p| p[0] == a && p[1] == b);
    let first = words
        .iter()
        .find(|w| !w.starts_with('-'))
        .map(String::as_str)
        .unwrap_or("");
    let prints = match program {
        "gpg" | "gpg2" => starts("--export-secret-key") || starts("--export-secret-subkey"),
        "gh" => {
            seq("auth", "token") || (seq("auth", "status") && (has("--show-token") || has("-t")))
        }
        "glab" => seq("auth", "status") && has("--show-token"),
        "gcloud" => words.iter().any(|w| {
            matches!(
                w.as_str(),
                "print-access-token" | "print-identity-token" | "print-refresh-token"
            )
        }),
        "az" => seq("account", "get-access-token"),
        "aws" => {
            (seq("configure", "get")
                && words.iter().any(|w| {
                    w.contains("secret") || w.contains("token") || w.contains("access_key")
                }))
                || seq("configure", "export-credentials")
                || seq("ecr", "get-login-password")
        }
        "kubectl" | "oc" => {
            (seq("config", "view") && (has("--raw") || has("--flatten")))
                || (first == "get"
                    && words
                        .iter()
                        .any(|w| w == "secret" || w == "secrets" || w.starts_with("secret/"))
                    && words
                        .iter()
                        .any(|w| w.starts_with("-o") || w.starts_with("--output")))
        }
        "vault" => {
            matches!(first, "read" | "kv") || seq("token", "lookup") || seq("print", "token")
        }
        // `pass NAME` and `pass show NAME` print the password; bare `pass` lists names.
        "pass" | "gopass" => {
            const MANAGE: &[&str] = &[
                "ls",
                "list",
                "find",
                "search",
                "init",
                "git",
                "generate",
                "insert",
                "edit",
                "rm",
                "mv",
                "cp",
                "help",
                "version",
                "grep",
                "mounts",
                "new",
                "create",
                "sync",
                "audit",
                "config",
                "clone",
                "setup",
                "fsck",
                "recipients",
                "templates",
            ];
            let stores = first == "otp"
                && words
                    .iter()
                    .any(|w| matches!(w.as_str(), "insert" | "append"));
            !(first.is_empty() || MANAGE.contains(&first) || stores)
        }
        "op" => matches!(first, "read") || seq("item", "get") || seq("document", "get"),
        "bw" => matches!(first, "get" | "export"),
        "lpass" => first == "show",
        "security" => {
            words.iter().any(|w| {
                matches!(
                    w.as_str(),
                    "find-generic-password" | "find-internet-password"
                )
            }) && (has("-w") || has("-g"))
        }
        "secret-tool" => first == "lookup",
        "doppler" => {
            seq("secrets", "get")
                || seq("secrets", "download")
                || (first == "secrets" && words.len() == 1)
        }
        "heroku" => first == "auth:token",
        "git" => seq("credential", "fill"),
        p if p.starts_with("docker-credential-") => first == "get",
        _ => false,
    };
    prints.then(|| {
        format!("{program} {} prints a credential", words.join(" "))
            .trim()
            .to_string()
    })
}
