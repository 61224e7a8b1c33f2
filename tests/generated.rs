//! The committed man pages and completions are exactly what `warden::generate` produces from
//! the clap definition: a changed option or subcommand that was not regenerated fails here.
//!
//! `WARDEN_REGENERATE=1 cargo test --release --test generated` rewrites the committed files
//! (and removes generated-looking files nothing produces any more) instead of comparing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const REFRESH: &str = "WARDEN_REGENERATE=1 cargo test --release --test generated";

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn regenerating() -> bool {
    std::env::var_os("WARDEN_REGENERATE").is_some_and(|v| v == "1")
}

/// Files under the generated directories, relative to the repository root.
fn committed() -> BTreeSet<PathBuf> {
    let mut found = BTreeSet::new();
    for dir in ["man", "completions"] {
        let Ok(entries) = std::fs::read_dir(repository().join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            found.insert(Path::new(dir).join(entry.file_name()));
        }
    }
    found
}

#[test]
fn committed_files_match_the_clap_definition() {
    let expected = warden::generate::files();
    let wanted: BTreeSet<&PathBuf> = expected.iter().map(|(p, _)| p).collect();
    let leftovers: Vec<PathBuf> = committed()
        .into_iter()
        .filter(|p| !wanted.contains(p))
        .collect();
    if regenerating() {
        for leftover in &leftovers {
            std::fs::remove_file(repository().join(leftover)).expect("remove a leftover file");
        }
        warden::generate::write(repository(), &expected).expect("write the generated files");
        return;
    }
    let mut problems = Vec::new();
    for (path, contents) in &expected {
        match std::fs::read(repository().join(path)) {
            Ok(on_disk) if on_disk == *contents => {}
            Ok(_) => problems.push(format!("{} is stale", path.display())),
            Err(e) => problems.push(format!("{} cannot be read: {e}", path.display())),
        }
    }
    for leftover in &leftovers {
        problems.push(format!(
            "{} is no longer generated (a removed subcommand?)",
            leftover.display()
        ));
    }
    assert!(
        problems.is_empty(),
        "the generated files differ from the clap definition:\n  {}\nrefresh them with `{REFRESH}` and commit the result",
        problems.join("\n  ")
    );
}

#[test]
fn generation_is_deterministic() {
    assert_eq!(warden::generate::files(), warden::generate::files());
}

fn generated(path: &str) -> String {
    let (_, contents) = warden::generate::files()
        .into_iter()
        .find(|(p, _)| p == Path::new(path))
        .unwrap_or_else(|| panic!("{path} is not generated"));
    String::from_utf8(contents).expect("generated text is UTF-8")
}

#[test]
fn main_page_names_every_subcommand_and_the_exit_codes() {
    let page = generated("man/warden.1");
    let pages: Vec<PathBuf> = warden::generate::man_pages()
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    for name in warden::cli::SUBCOMMANDS
        .iter()
        .filter(|n| !matches!(**n, "help" | "generate"))
    {
        assert!(
            page.contains(&format!("warden\\-{name}(1)")),
            "man/warden.1 does not mention `{name}`"
        );
        let own = PathBuf::from(format!("man/warden-{name}.1"));
        assert!(pages.contains(&own), "no page for `{name}`");
    }
    for code in ["\\fB75\\fR", "\\fB77\\fR", "\\fB124\\fR", "\\fB125\\fR"] {
        assert!(page.contains(code), "man/warden.1 lacks exit code {code}");
    }
    for section in ["SHELL FORM", "EXIT STATUS", "ENVIRONMENT", "FILES"] {
        assert!(page.contains(section), "man/warden.1 lacks {section}");
    }
    for name in [
        "WARDEN_WORKSPACE",
        "WARDEN_SESSION",
        "WARDEN_ALLOW_DEGRADED",
        "policy.toml",
        "config.toml",
    ] {
        assert!(page.contains(name), "man/warden.1 does not mention {name}");
    }
    assert!(
        !page.contains("warden\\-generate"),
        "the hidden subcommand has no place in the manual"
    );
}

#[test]
fn bash_completion_offers_the_subcommands() {
    let bash = generated("completions/warden.bash");
    for name in ["tool", "policy", "check"] {
        assert!(bash.contains(name), "the bash completion lacks `{name}`");
    }
}

#[test]
fn generate_subcommand_writes_the_same_files() {
    let out = tempfile::Builder::new()
        .prefix("warden-generate-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("create output directory");
    let status = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["generate", "--out"])
        .arg(out.path())
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .expect("run warden generate");
    assert!(status.status.success(), "{status:?}");
    for (path, contents) in warden::generate::files() {
        let written = std::fs::read(out.path().join(&path)).expect("read a written file");
        assert!(written == contents, "{} differs", path.display());
    }
}
