//! Word splitting and quote removal, checked against the real bash.
//!
//! Generates command lines from quoting constructs (single and double quotes, backslash escapes,
//! `$'…'` ANSI-C strings, line continuations, comments, empty strings, adjacent concatenation)
//! and compares the words warden's parser produces with the words bash hands to
//! `printf '%s\0'`. Inputs are deterministic (a fixed-seed generator), so a failure reproduces.

use std::process::Command;

/// A small deterministic generator (xorshift64*), so the test needs no extra crate.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn chars(&mut self, alphabet: &str, max: usize) -> String {
        let chars: Vec<char> = alphabet.chars().collect();
        (0..self.below(max + 1))
            .map(|_| chars[self.below(chars.len())])
            .collect()
    }
}

const PLAIN: &str = "abcXYZ019_./:=@%+,-";
/// Characters that are safe inside single quotes (anything but the quote itself).
const IN_SINGLE: &str = "ab $`\\\"*?;&|<>(){}#~!\t";
/// Characters that are literal inside double quotes.
const IN_DOUBLE: &str = "ab '*?;&|<>(){}#~\t";
const ESCAPABLE: &str = " '\"\\$*?;&|<>()#{}~!\t";

fn piece(g: &mut Gen) -> String {
    match g.below(9) {
        0 | 1 => {
            let s = g.chars(PLAIN, 6);
            if s.is_empty() { "x".into() } else { s }
        }
        2 => format!("'{}'", g.chars(IN_SINGLE, 8)),
        3 => {
            let mut s = String::from("\"");
            for _ in 0..g.below(6) {
                match g.below(4) {
                    0 => s.push_str(g.pick(&["\\\"", "\\\\", "\\$", "\\`", "\\a", "\\n"])),
                    _ => s.push_str(&g.chars(IN_DOUBLE, 3)),
                }
            }
            s.push('"');
            s
        }
        4 => {
            let chars: Vec<char> = ESCAPABLE.chars().collect();
            format!("\\{}", chars[g.below(chars.len())])
        }
        5 => {
            let mut s = String::from("$'");
            for _ in 0..g.below(5) {
                s.push_str(g.pick(&[
                    "\\n", "\\t", "\\x41", "\\101", "\\'", "\\\\", "\\\"", "a b", "\\e", "\\u00e9",
                    "\\x7e", "z",
                ]));
            }
            s.push('\'');
            s
        }
        6 => g.pick(&["''", "\"\""]).to_string(),
        7 => g
            .pick(&["a#b", "x=y", "--flag=v", "-n", "%s", "é", "日本"])
            .to_string(),
        _ => g.pick(&["\\\n", "'a\nb'", "\"c\nd\""]).to_string(),
    }
}

fn word(g: &mut Gen) -> String {
    (0..1 + g.below(3)).map(|_| piece(g)).collect()
}

fn command_line(g: &mut Gen) -> String {
    let mut line = String::new();
    for i in 0..1 + g.below(5) {
        if i > 0 {
            line.push_str(g.pick(&[" ", "  ", "\t", " \\\n "]));
        }
        line.push_str(&word(g));
    }
    if g.below(6) == 0 {
        line.push_str(g.pick(&[" # trailing comment 'x", " #", "  # a \"b\""]));
    }
    line
}

/// The words bash passes to a command, as printf shows them.
fn bash_words(line: &str, dir: &std::path::Path) -> Vec<String> {
    let script = format!("set -f; printf '%s\\0' SENTINEL {line}");
    let out = Command::new("bash")
        .arg("--norc")
        .arg("--noprofile")
        .arg("-c")
        .arg(&script)
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect("bash runs (it is required by the test suite)");
    assert!(
        out.status.success(),
        "bash failed on {line:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("bash output is UTF-8 for these inputs");
    let mut words: Vec<String> = text.split('\0').map(str::to_string).collect();
    assert_eq!(words.pop().as_deref(), Some(""), "output ends with NUL");
    assert_eq!(words.first().map(String::as_str), Some("SENTINEL"));
    words.remove(0);
    words
}

fn warden_words(line: &str) -> Result<Vec<String>, String> {
    let words = warden::shell::literal_words(&format!("printf '%s\\0' SENTINEL {line}"))?;
    match words.as_slice() {
        [printf, format, sentinel, rest @ ..]
            if printf == "printf" && format == "%s\\0" && sentinel == "SENTINEL" =>
        {
            Ok(rest.to_vec())
        }
        _ => Err(format!("unexpected prefix: {words:?}")),
    }
}

#[test]
fn word_splitting_and_quote_removal_match_bash() {
    let dir = tempfile::tempdir().expect("empty directory for bash");
    let mut g = Gen(0x5eed_0f3a_7d11_u64);
    let mut failures = Vec::new();
    let total = 400;
    for _ in 0..total {
        let line = command_line(&mut g);
        let expected = bash_words(&line, dir.path());
        match warden_words(&line) {
            Ok(got) if got == expected => {}
            Ok(got) => failures.push(format!(
                "{line:?}\n    bash:   {expected:?}\n    warden: {got:?}"
            )),
            Err(e) => failures.push(format!(
                "{line:?}\n    bash:   {expected:?}\n    warden error: {e}"
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {total} inputs split differently:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn hand_picked_quoting_tricks_match_bash() {
    let dir = tempfile::tempdir().expect("empty directory for bash");
    let cases = [
        r#"r''m -rf"#,
        r#"\rm "-rf""#,
        r#""r"m"#,
        r#"$'\x72\x6d' -rf"#,
        r#"'a'"b"c\ d"#,
        r#"a\
b"#,
        r#"e""cho 'x'\''y'"#,
        r#"x # comment 'unbalanced"#,
        r#"$'it\'s' "$'not'""#,
        r#""\$HOME" '\$HOME' \$HOME"#,
        r##"a"#"b"##,
    ];
    for line in cases {
        assert_eq!(
            warden_words(line).as_ref(),
            Ok(&bash_words(line, dir.path())),
            "input {line:?}"
        );
    }
}

#[test]
fn inputs_bash_rejects_are_rejected() {
    for line in [
        "echo 'x", "echo \"x", "echo $'x", "echo x\\", "echo `x", "echo $(x",
    ] {
        let bash = Command::new("bash")
            .args(["--norc", "--noprofile", "-n", "-c", line])
            .env_clear()
            .output()
            .expect("bash runs");
        // `echo x\` ends in a lone backslash, which bash accepts as a literal; skip what bash takes.
        if bash.status.success() {
            continue;
        }
        assert!(
            warden_words(line).is_err(),
            "bash rejects {line:?} but warden split it"
        );
    }
}
