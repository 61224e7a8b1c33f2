//! Secret paths: files whose content is a credential, wherever they are.
//!
//! Matching is by path component and by whole words of a file name, never by substring, so
//! `src/tokenizer.rs` is code and `api_token.txt` is a secret. The same function guards shell
//! targets now and the file tools later.

use std::path::Path;

use super::paths::glob_match;

/// Why a path is a secret, or None.
pub fn secret_kind(path: &str) -> Option<&'static str> {
    let path = path.trim_end_matches('/');
    let components: Vec<&str> = path
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    let name = *components.last()?;

    for (i, dir) in components.iter().enumerate() {
        let rest = &components[i + 1..];
        match *dir {
            ".ssh" | ".gnupg" | ".aws" | ".azure" | ".password-store" => {
                // The directory itself and everything inside it.
                let _ = rest;
                return Some(match *dir {
                    ".ssh" => "SSH keys and configuration",
                    ".gnupg" => "GnuPG keys",
                    ".aws" => "AWS credentials",
                    ".azure" => "Azure credentials",
                    _ => "a password store",
                });
            }
            ".kube" if rest.first() == Some(&"config") => return Some("Kubernetes credentials"),
            ".docker" if rest.first() == Some(&"config.json") => {
                return Some("Docker registry credentials");
            }
            ".claude" if rest.first().is_some_and(|n| n.contains("credentials")) => {
                return Some("a coding agent's credentials");
            }
            ".codex" if rest.first() == Some(&"auth.json") => {
                return Some("a coding agent's credentials");
            }
            ".gemini"
                if rest
                    .first()
                    .is_some_and(|n| n.contains("oauth") || n.contains("credentials")) =>
            {
                return Some("a coding agent's credentials");
            }
            "gcloud"
                if rest.iter().any(|n| {
                    n.contains("credentials") || n.ends_with(".db") || *n == "legacy_credentials"
                }) =>
            {
                return Some("Google Cloud credentials");
            }
            "gh" if rest.first() == Some(&"hosts.yml") => return Some("GitHub CLI token"),
            ".cargo" | ".gem" if rest.first().is_some_and(|n| n.starts_with("credentials")) => {
                return Some("a package registry token");
            }
            _ => {}
        }
    }

    if name == "environ" && components.first() == Some(&"proc") {
        return Some("a process environment, which holds its tokens");
    }
    if name == ".env" {
        return Some("an environment file with secrets");
    }
    if let Some(suffix) = name.strip_prefix(".env.") {
        let template = ["example", "sample", "template", "dist", "defaults"]
            .iter()
            .any(|t| suffix == *t || suffix.ends_with(&format!(".{t}")));
        if !template {
            return Some("an environment file with secrets");
        }
        return None;
    }
    match name {
        "id_rsa" | "id_dsa" | "id_ecdsa" | "id_ed25519" | "id_ecdsa_sk" | "id_ed25519_sk"
        | "identity" => {
            return Some("a private SSH key");
        }
        ".netrc"
        | "_netrc"
        | ".npmrc"
        | ".pypirc"
        | ".git-credentials"
        | ".pgpass"
        | ".my.cnf"
        | ".vault-token"
        | ".s3cfg"
        | ".boto"
        | ".htpasswd"
        | "credentials.tfrc.json" => return Some("a credentials file"),
        _ => {}
    }
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s, e.to_ascii_lowercase()),
        _ => (name, String::new()),
    };
    let words: Vec<String> = stem
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect();
    let has = |names: &[&str]| words.iter().any(|w| names.contains(&w.as_str()));
    // `production.env`, `app.env`: environment files by extension (templates excepted).
    if ext == "env" && !has(&["example", "sample", "template", "dist", "defaults"]) {
        return Some("an environment file with secrets");
    }
    if matches!(
        ext.as_str(),
        "pem" | "key" | "p12" | "pfx" | "jks" | "keystore" | "ppk" | "p8"
    ) {
        // A PEM or key file named as a public certificate or public key (`cert.pem`,
        // `fullchain.pem`, `public.key`) holds nothing secret, unless its name also says private.
        let public = matches!(ext.as_str(), "pem" | "key")
            && has(&[
                "cert",
                "certificate",
                "cacert",
                "fullchain",
                "chain",
                "ca",
                "public",
                "pub",
                "pubkey",
            ])
            && !has(&["key", "private", "priv", "privkey", "secret"]);
        if !public {
            return Some("a private key or certificate bundle");
        }
        return None;
    }
    let data_ext = matches!(
        ext.as_str(),
        "json" | "yaml" | "yml" | "toml" | "txt" | "ini" | "env" | "xml" | "conf" | "cfg" | ""
    );
    if data_ext && has(&["credentials", "credential", "secrets", "secret"]) {
        return Some("a secrets store");
    }
    if matches!(ext.as_str(), "txt" | "json" | "")
        && has(&[
            "token",
            "tokens",
            "apikey",
            "apikeys",
            "password",
            "passwords",
        ])
    {
        return Some("a token file");
    }
    None
}

/// Names that stand for each secret kind, used to decide whether a glob could reach one.
const SAMPLES: &[&str] = &[
    ".env",
    ".env.local",
    ".env.production",
    "id_rsa",
    "id_ed25519",
    "id_ecdsa",
    "id_dsa",
    "x.pem",
    "x.key",
    "x.p12",
    "x.pfx",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".ssh",
    ".aws",
];

/// Whether a glob pattern's last component could name a secret. Only patterns with at least two
/// literal characters are judged by samples (`*` alone reads whatever is there, which is checked
/// against the real directory instead).
pub fn glob_could_match_secret(pattern: &str) -> Option<&'static str> {
    let last = pattern
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(pattern);
    let literal = last
        .chars()
        .filter(|c| !matches!(c, '*' | '?' | '[' | ']' | '\\'))
        .count();
    if literal < 2 {
        return None;
    }
    let dir = &pattern[..pattern.len() - last.len()];
    SAMPLES
        .iter()
        .find(|s| glob_match(last, s))
        .and_then(|s| secret_kind(&format!("{dir}{s}")))
}

/// Looks for a secret file inside a directory tree that a recursive reader would reach
/// (`grep -r`, `cp -r`, `tar c`). Breadth-first, without following symlinks, skipping names that
/// match `excludes` and (unless `hidden`) dot-files; bounded in entries so the check stays cheap.
pub fn find_in_tree(
    root: &Path,
    hidden: bool,
    excludes: &[String],
) -> Option<(std::path::PathBuf, &'static str)> {
    const MAX_ENTRIES: usize = 5_000;
    const SKIP: &[&str] = &[".git", "node_modules", "target", ".venv", "__pycache__"];
    let meta = std::fs::symlink_metadata(root).ok()?;
    if !meta.is_dir() {
        return None;
    }
    let mut queue = std::collections::VecDeque::from([root.to_path_buf()]);
    let mut seen = 0;
    while let Some(dir) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            seen += 1;
            if seen > MAX_ENTRIES {
                return None;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            if (!hidden && name.starts_with('.')) || excludes.iter().any(|g| glob_match(g, &name)) {
                continue;
            }
            let path = entry.path();
            if let Some(kind) = secret_kind(&path.to_string_lossy()) {
                return Some((path, kind));
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() && !SKIP.contains(&name.as_str()) {
                queue.push_back(path);
            }
        }
    }
    None
}

/// Convenience for paths.
pub fn is_secret_path(path: &Path) -> Option<&'static str> {
    secret_kind(&path.to_string_lossy())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_extension_files_are_secrets_but_templates_are_not() {
        assert!(secret_kind("deploy/production.env").is_some());
        assert!(secret_kind("app.example.env").is_none());
        assert!(secret_kind("src/env.rs").is_none());
    }

    #[test]
    fn process_environments_are_secrets() {
        assert!(secret_kind("/proc/self/environ").is_some());
        assert!(secret_kind("/proc/1/environ").is_some());
        assert!(secret_kind("docs/environ").is_none());
    }

    #[test]
    fn public_certificates_are_not_secrets_but_their_keys_are() {
        assert!(secret_kind("tls/cert.pem").is_none());
        assert!(secret_kind("fullchain.pem").is_none());
        assert!(secret_kind("public.key").is_none());
        assert!(secret_kind("key.pem").is_some());
        assert!(secret_kind("server.pem").is_some());
        assert!(secret_kind("cert-key.pem").is_some());
        assert!(secret_kind("private_cert.pem").is_some());
        assert!(secret_kind("bundle.p12").is_some());
    }

    #[test]
    fn env_files_are_secrets_but_templates_are_not() {
        assert!(secret_kind(".env").is_some());
        assert!(secret_kind("config/.env.local").is_some());
        assert!(secret_kind(".env.example").is_none());
        assert!(secret_kind(".env.sample").is_none());
        assert!(secret_kind(".envrc").is_none());
        assert!(secret_kind("environment.md").is_none());
    }

    #[test]
    fn word_match_not_substring() {
        assert!(secret_kind("src/tokenizer.rs").is_none());
        assert!(secret_kind("api_token.txt").is_some());
        assert!(secret_kind("github-token.txt").is_some());
        assert!(secret_kind("tokenizer_notes.txt").is_none());
        assert!(secret_kind("credentials.json").is_some());
        assert!(secret_kind("secrets.yaml").is_some());
        assert!(secret_kind("secretary.txt").is_none());
    }

    #[test]
    fn key_material_and_credential_dirs() {
        assert!(secret_kind("/home/u/.ssh/config").is_some());
        assert!(secret_kind("/home/u/.ssh").is_some());
        assert!(secret_kind("id_rsa").is_some());
        assert!(secret_kind("id_rsa.pub").is_none());
        assert!(secret_kind("certs/server.pem").is_some());
        assert!(secret_kind("/home/u/.aws/credentials").is_some());
        assert!(secret_kind("/home/u/.kube/config").is_some());
        assert!(secret_kind("/home/u/.docker/config.json").is_some());
        assert!(secret_kind("/home/u/.codex/auth.json").is_some());
    }

    #[test]
    fn globs_that_can_reach_secrets() {
        assert!(glob_could_match_secret(".e*").is_some());
        assert!(glob_could_match_secret("*.pem").is_some());
        assert!(glob_could_match_secret(".env*").is_some());
        assert!(glob_could_match_secret("*.rs").is_none());
        assert!(glob_could_match_secret("*").is_none());
        assert!(glob_could_match_secret("*.txt").is_none());
    }
}
