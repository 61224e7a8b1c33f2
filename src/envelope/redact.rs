//! Secrets in tool output are replaced by a visible marker before anything reaches the agent.
//!
//! Every rule looks for one shape of secret and names what it found: `[REDACTED:github-token]`.
//! Where the surrounding text helps a reader (a header name, an assignment's key, the user of a
//! URL), only the secret value is replaced and the context stays. Rules run independently over the
//! original text; the matches are then merged, so a secret found by two rules is replaced once
//! under the more specific name, and overlapping matches never leave a fragment behind.
//!
//! Two kinds of rule exist. Shape rules recognise a secret by its own form (`ghp_` and 36
//! characters, a PEM block, a JWT). Context rules recognise a value by what names it
//! (`password=`, `Authorization:`, `scheme://user:pass@`); they carry the false-positive risk, so
//! they decline placeholders (`***`, `<token>`, `${VAR}`), code (`password = get_password()`,
//! `token = self.token`, type annotations) and prose. All patterns are compiled once and searched
//! by the `regex` crate in time linear in the text; no rule lets one search scan far beyond its
//! own match, so iterating over a large text stays linear as well.

use std::ops::Range;
use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde_json::Value;

/// Text with its secrets replaced, and what was replaced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redacted {
    pub text: String,
    /// Number of markers inserted.
    pub count: usize,
    /// Kinds of the markers, each once, in the order they first appear in the text.
    pub kinds: Vec<&'static str>,
}

/// Replaces every secret found in `text` with `[REDACTED:<kind>]`.
pub fn redact(text: &str) -> Redacted {
    let cuts = find(text);
    let (text, _) = apply(text, &cuts);
    let mut kinds = Vec::new();
    for cut in &cuts {
        if !kinds.contains(&cut.kind) {
            kinds.push(cut.kind);
        }
    }
    Redacted {
        text,
        count: cuts.len(),
        kinds,
    }
}

/// Redacts every string inside a JSON value, in place, and returns the number of markers.
///
/// Structured data names its fields, so a value whose key is secret-like (`"password"`,
/// `"apiKey"`, `"client_secret"`) is redacted whole even when it has no recognisable shape.
pub fn redact_json(value: &mut Value) -> usize {
    match value {
        Value::String(text) => redact_string(text),
        Value::Array(items) => items.iter_mut().map(redact_json).sum(),
        Value::Object(fields) => {
            let mut count = 0;
            for (key, field) in fields.iter_mut() {
                if let Value::String(text) = &mut *field
                    && is_authorization_key(key)
                {
                    count += redact_header_value(text);
                } else if let (Some(class), Value::String(text)) =
                    (KeyClass::of_whole(key), &mut *field)
                {
                    let found = redact_string(text);
                    if found == 0 && class.value_is_secret(key, text) {
                        *text = marker(class.kind());
                        count += 1;
                    }
                    count += found;
                } else {
                    count += redact_json(field);
                }
            }
            count
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
    }
}

fn is_authorization_key(key: &str) -> bool {
    key.eq_ignore_ascii_case("authorization") || key.eq_ignore_ascii_case("proxy-authorization")
}

/// Redacts the value of an `Authorization` field as the header rule would see it.
fn redact_header_value(value: &mut String) -> usize {
    const PREFIX: &str = "Authorization: ";
    let line = format!("{PREFIX}{value}");
    let cuts = find(&line);
    if let Some(redacted) = apply(&line, &cuts).0.strip_prefix(PREFIX)
        && !cuts.is_empty()
    {
        *value = redacted.to_owned();
    }
    cuts.len()
}

fn redact_string(text: &mut String) -> usize {
    let found = redact(text);
    if found.count > 0 {
        *text = found.text;
    }
    found.count
}

/// One stretch of the original text to be replaced by a marker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Cut {
    pub range: Range<usize>,
    pub kind: &'static str,
}

/// Where one marker sits in the redacted text and which original bytes it stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Placed {
    pub redacted: Range<usize>,
    pub original: Range<usize>,
}

const MARKER_PREFIX: &str = "[REDACTED:";

fn marker(kind: &str) -> String {
    format!("{MARKER_PREFIX}{kind}]")
}

/// All secrets in `text`: sorted, non-overlapping, merged.
pub(crate) fn find(text: &str) -> Vec<Cut> {
    let mut found: Vec<(usize, Cut)> = private_key_cuts(text)
        .into_iter()
        .map(|cut| (0, cut))
        .collect();
    for (priority, (rule, regex)) in RULES.iter().zip(COMPILED.iter()).enumerate() {
        for caps in regex.captures_iter(text) {
            let cut = match rule.judge {
                Judge::Whole => caps.get(0).map(|m| Cut {
                    range: m.range(),
                    kind: rule.kind,
                }),
                Judge::Group(index) => caps.get(index).map(|m| Cut {
                    range: m.range(),
                    kind: rule.kind,
                }),
                Judge::Custom(judge) => judge(&caps, text),
            };
            // A marker already in the text (output redacted once before) is not redacted again.
            if let Some(cut) = cut.filter(|c| !c.range.is_empty())
                && !text[cut.range.start..].starts_with(MARKER_PREFIX)
            {
                found.push((priority + 1, cut));
            }
        }
    }
    // Earliest first; on the same start, the more specific rule (lower priority number) wins.
    found.sort_by_key(|(priority, cut)| (cut.range.start, *priority));
    let mut merged: Vec<Cut> = Vec::with_capacity(found.len());
    for (_, cut) in found {
        match merged.last_mut() {
            // An overlap extends the earlier cut so no piece of either secret stays visible.
            Some(last) if cut.range.start < last.range.end => {
                last.range.end = last.range.end.max(cut.range.end);
            }
            _ => merged.push(cut),
        }
    }
    merged
}

/// Replaces each cut with its marker; also reports where each marker landed.
pub(crate) fn apply(text: &str, cuts: &[Cut]) -> (String, Vec<Placed>) {
    let mut out = String::with_capacity(text.len());
    let mut placed = Vec::with_capacity(cuts.len());
    let mut last = 0;
    for cut in cuts {
        out.push_str(&text[last..cut.range.start]);
        let start = out.len();
        out.push_str(MARKER_PREFIX);
        out.push_str(cut.kind);
        out.push(']');
        placed.push(Placed {
            redacted: start..out.len(),
            original: cut.range.clone(),
        });
        last = cut.range.end;
    }
    out.push_str(&text[last..]);
    (out, placed)
}

enum Judge {
    /// The whole match is the secret.
    Whole,
    /// Capture group n is the secret; the rest of the match is context that stays.
    Group(usize),
    /// The match is a candidate; the function decides and says what to cut.
    Custom(fn(&Captures<'_>, &str) -> Option<Cut>),
}

struct Rule {
    kind: &'static str,
    pattern: &'static str,
    judge: Judge,
}

// Order matters only for ties: a secret found by two rules keeps the name of the earlier one.
// `(?-u:\b)` is an ASCII word boundary: tokens are ASCII, and it keeps the fast engines usable on
// non-ASCII text.
static RULES: &[Rule] = &[
    Rule {
        kind: "aws-access-key-id",
        pattern: r"(?-u:\b)(?:A3T[A-Z0-9]|AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}(?-u:\b)",
        judge: Judge::Whole,
    },
    Rule {
        kind: "aws-secret-key",
        pattern: r#"(?i)(?:aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key)["']?[ \t]*[:=][ \t]*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        judge: Judge::Group(1),
    },
    Rule {
        kind: "google-api-key",
        pattern: r"(?-u:\b)(AIza[0-9A-Za-z_-]{35})(?:[^0-9A-Za-z_-]|$)",
        judge: Judge::Group(1),
    },
    Rule {
        kind: "github-token",
        pattern: r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9_]{36,}|github_pat_[A-Za-z0-9_]{22,})",
        judge: Judge::Whole,
    },
    Rule {
        kind: "gitlab-token",
        pattern: r"(?-u:\b)gl(?:pat|dt|rt|ptt|soat|cbt|ft|imt)-[A-Za-z0-9_-]{20,}",
        judge: Judge::Whole,
    },
    Rule {
        kind: "slack-token",
        pattern: r"(?-u:\b)(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,})",
        judge: Judge::Whole,
    },
    Rule {
        kind: "slack-webhook",
        pattern: r"(?i)https://hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9/_-]{8,})",
        judge: Judge::Group(1),
    },
    Rule {
        kind: "npm-token",
        pattern: r"(?-u:\b)npm_[A-Za-z0-9]{36}(?-u:\b)",
        judge: Judge::Whole,
    },
    Rule {
        kind: "pypi-token",
        pattern: r"(?-u:\b)pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}",
        judge: Judge::Whole,
    },
    Rule {
        kind: "stripe-key",
        pattern: r"(?-u:\b)(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",
        judge: Judge::Whole,
    },
    Rule {
        kind: "anthropic-key",
        pattern: r"(?-u:\b)sk-ant-[A-Za-z0-9_-]{20,}",
        judge: Judge::Whole,
    },
    Rule {
        kind: "openai-key",
        pattern: r"(?-u:\b)sk-[A-Za-z0-9_-]{20,}",
        judge: Judge::Custom(judge_openai_key),
    },
    Rule {
        kind: "jwt",
        pattern: r"(?-u:\b)eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
        judge: Judge::Whole,
    },
    Rule {
        kind: "url-password",
        pattern: r"(?i)(?-u:\b)[a-z][a-z0-9+.-]*://[^\s:/@?#]*:([^\s/@?#]+)@",
        judge: Judge::Custom(judge_url_password),
    },
    Rule {
        kind: "authorization",
        pattern: r"(?i)(?-u:\b)(?:proxy-)?authorization[\x22']?[ \t]*:[ \t]*([^\r\n]*)",
        judge: Judge::Custom(judge_authorization),
    },
    Rule {
        kind: "password",
        pattern: concat!(
            r#"(?i)(?P<key>["']?[a-z0-9_.-]*(?:passw(?:or)?d|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|secret[_-]?key)["']?)"#,
            r"(?P<sep>[ \t]*(?:=>|:=|=|:)[ \t]*)",
            r#"(?P<value>"(?:[^"\\\r\n]|\\.)*"|'(?:[^'\\\r\n]|\\.)*'|[^\s"'`,;&()\[\]{}<>]+)"#,
        ),
        judge: Judge::Custom(judge_assignment),
    },
];

static COMPILED: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    RULES
        .iter()
        .map(|rule| Regex::new(rule.pattern).expect("built-in redaction pattern compiles"))
        .collect()
});

// A PEM block counts only when key material follows the BEGIN line: source code that merely
// names the header (`"-----BEGIN RSA PRIVATE KEY-----"`) is left alone. Encrypted PEM and PGP
// armour carry a few `Name: value` header lines first. Repetitions are bounded so one search never
// scans far past its own match.
static PEM_BEGIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"-----BEGIN[ A-Z0-9]*PRIVATE KEY[ A-Z]*-----",
        r"(?:[ \t\r\n]|\\[rn]){0,8}",
        r"(?:[A-Za-z][A-Za-z-]{0,30}:[ -\[\]-~]{0,120}(?:[ \t\r\n]|\\[rn]){1,8}){0,4}",
        r"[A-Za-z0-9+/=]{16}",
    ))
    .expect("built-in PEM pattern compiles")
});

static PEM_END: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"-----END[ A-Z0-9]*PRIVATE KEY[ A-Z]*-----").expect("built-in PEM pattern compiles")
});

/// Private key blocks, BEGIN through END; a block whose END never comes runs to the end of text.
fn private_key_cuts(text: &str) -> Vec<Cut> {
    let mut cuts = Vec::new();
    let mut pos = 0;
    while let Some(begin) = PEM_BEGIN.find_at(text, pos) {
        let end = PEM_END
            .find_at(text, begin.end())
            .map_or(text.len(), |m| m.end());
        cuts.push(Cut {
            range: begin.start()..end,
            kind: "private-key",
        });
        // Searches resume after the block, so each byte is scanned a bounded number of times.
        pos = end;
        if pos >= text.len() {
            break;
        }
    }
    cuts
}

fn judge_openai_key(caps: &Captures<'_>, _text: &str) -> Option<Cut> {
    let m = caps.get(0)?;
    let body = &m.as_str()[3..];
    // Real keys mix cases and digits; kebab-case names (`sk-some-long-package-name`) do not.
    let mixed = body.bytes().any(|b| b.is_ascii_digit())
        && body.bytes().any(|b| b.is_ascii_uppercase())
        && body.bytes().any(|b| b.is_ascii_lowercase());
    mixed.then(|| Cut {
        range: m.range(),
        kind: "openai-key",
    })
}

fn judge_url_password(caps: &Captures<'_>, _text: &str) -> Option<Cut> {
    let password = caps.get(1)?;
    (!is_placeholder(password.as_str())).then(|| Cut {
        range: password.range(),
        kind: "url-password",
    })
}

/// Schemes whose credential is one `token68` word (RFC 9110).
const TOKEN_SCHEMES: &[&str] = &[
    "bearer",
    "basic",
    "token",
    "negotiate",
    "ntlm",
    "dpop",
    "apikey",
    "api-key",
    "key",
    "bot",
    "ssws",
];

/// Schemes whose credential is a list of parameters; the whole list is redacted.
const PARAM_SCHEMES: &[&str] = &["digest", "oauth", "aws4-hmac-sha256", "hoba", "mutual"];

fn judge_authorization(caps: &Captures<'_>, text: &str) -> Option<Cut> {
    let value = caps.get(1)?;
    let mut start = value.start();
    let mut rest = value.as_str();
    // A header inside a string (`-H "Authorization: …"`, `{"Authorization": "…"}`) ends at the
    // string's closing quote; a raw header line (`curl -v`, an HTTP dump) runs to the line end,
    // quotes and all (`Digest username="…", response="…"`).
    let opening = text[..caps.get(0)?.start()].chars().next_back();
    let mut quote = opening.filter(|c| matches!(c, '"' | '\''));
    if let Some(unquoted) = rest.strip_prefix(['"', '\'']) {
        quote = rest.chars().next();
        start += 1;
        rest = unquoted;
    }
    if let Some(end) = quote.and_then(|q| rest.find(q)) {
        rest = &rest[..end];
    }
    let rest = rest.trim_end();
    let (scheme, credential) = match rest.split_once([' ', '\t']) {
        Some((scheme, credential)) => (scheme, credential.trim_start()),
        None => ("", rest),
    };
    let credential_start = start + (rest.len() - credential.len());
    let scheme = scheme.to_ascii_lowercase();
    if PARAM_SCHEMES.contains(&scheme.as_str()) {
        return (!credential.is_empty() && !is_placeholder(credential)).then(|| Cut {
            range: credential_start..credential_start + credential.len(),
            kind: "authorization",
        });
    }
    let first = credential.split([' ', '\t']).next().unwrap_or_default();
    let (word, kind) = match scheme.as_str() {
        "bearer" => (first, "bearer-token"),
        "basic" => (first, "basic-auth"),
        // Outside Bearer and Basic, short words are more likely prose ("token based").
        known if TOKEN_SCHEMES.contains(&known) && first.len() >= 8 => (first, "authorization"),
        // No scheme or an unknown one: only a long lone word is a credential; anything else is
        // prose ("Authorization: see the policy section").
        _ if first == credential && credential.len() >= 16 => (credential, "authorization"),
        _ => return None,
    };
    if word.is_empty() || !is_token68(word) || is_placeholder(word) || is_label(word) {
        return None;
    }
    Some(Cut {
        range: credential_start..credential_start + word.len(),
        kind,
    })
}

/// The character set of HTTP credentials (RFC 9110 `token68`).
fn is_token68(value: &str) -> bool {
    !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/=".contains(&b))
}

/// What a secret-like key holds; the kind of marker and how sure the key alone makes us.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeyClass {
    Password,
    /// `PWD`/`OLDPWD` are usually the working directory, so paths are not secrets here.
    Pwd,
    Token,
    ApiKey,
    AccessKey,
    PrivateKey,
    Secret,
}

static WHOLE_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^[a-z0-9_.-]*(?:passw(?:or)?d|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|secret[_-]?key)$")
        .expect("built-in key pattern compiles")
});

impl KeyClass {
    /// Classifies a key that the assignment pattern already matched (it ends with a keyword).
    fn of(key: &str) -> KeyClass {
        let key = key
            .trim_matches(['"', '\''])
            .to_ascii_lowercase()
            .replace(['_', '-', '.'], "");
        if key.ends_with("pwd") {
            KeyClass::Pwd
        } else if key.ends_with("password")
            || key.ends_with("passwd")
            || key.ends_with("passphrase")
        {
            KeyClass::Password
        } else if key.ends_with("token") {
            KeyClass::Token
        } else if key.ends_with("apikey") {
            KeyClass::ApiKey
        } else if key.ends_with("accesskey") {
            KeyClass::AccessKey
        } else if key.ends_with("privatekey") {
            KeyClass::PrivateKey
        } else {
            KeyClass::Secret
        }
    }

    /// Classifies a JSON object key, which must be secret-like as a whole.
    fn of_whole(key: &str) -> Option<KeyClass> {
        WHOLE_KEY.is_match(key).then(|| KeyClass::of(key))
    }

    fn kind(self) -> &'static str {
        match self {
            KeyClass::Password | KeyClass::Pwd => "password",
            KeyClass::Token => "token",
            KeyClass::ApiKey => "api-key",
            KeyClass::AccessKey => "access-key",
            KeyClass::PrivateKey => "private-key",
            KeyClass::Secret => "secret",
        }
    }

    /// Whether `value`, named by `key`, should be treated as a secret.
    ///
    /// A password key makes any real value a secret. `token` and `secret` also name lexer
    /// tokens, labels and enum variants, so their values must look generated (see
    /// [`looks_random`]). Values with spaces are taken for prose, so a passphrase of several
    /// words is found only by its shape, never by its key.
    fn value_is_secret(self, key: &str, value: &str) -> bool {
        let bare_key = key.trim_matches(['"', '\'']);
        if value.is_empty()
            || is_placeholder(value)
            || is_template(value)
            || value.contains(char::is_whitespace)
            || value.eq_ignore_ascii_case(bare_key)
            || is_label(value)
            || is_colour(value)
            || is_flag(value)
        {
            return false;
        }
        match self {
            KeyClass::Password => true,
            KeyClass::Pwd => !value.starts_with(['/', '~', '.']),
            _ => looks_random(value),
        }
    }
}

/// `"challengePassword"`, `refresh_token`, `YOUR_TOKEN`: a value without digits that ends by
/// naming a secret is a label.
fn is_label(value: &str) -> bool {
    if value.bytes().any(|b| b.is_ascii_digit()) {
        return false;
    }
    let normal: String = value
        .chars()
        .filter(char::is_ascii_alphabetic)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    [
        "password",
        "passwd",
        "passphrase",
        "token",
        "secret",
        "apikey",
        "accesskey",
        "privatekey",
        "secretkey",
    ]
    .iter()
    .any(|word| normal.ends_with(word))
}

/// `"at%s-%s"`, `"{token}"`: format strings that build a value rather than hold one.
fn is_template(value: &str) -> bool {
    ["%s", "%d", "%(", "{", "}"]
        .iter()
        .any(|t| value.contains(t))
}

/// `-W`, `--password-file`: a command-line option given as a value, in a table of options.
fn is_flag(value: &str) -> bool {
    value.strip_prefix('-').is_some_and(|rest| {
        let rest = rest.strip_prefix('-').unwrap_or(rest);
        rest.len() < 24
            && rest.starts_with(|c: char| c.is_ascii_alphabetic())
            && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    })
}

/// `#d0d0d0`: style sheets key colours by token type.
fn is_colour(value: &str) -> bool {
    value.strip_prefix('#').is_some_and(|hex| {
        (3..=8).contains(&hex.len()) && hex.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

fn is_number(value: &str) -> bool {
    let digits = value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"));
    match digits {
        Some(hex) => !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()),
        None => value.bytes().all(|b| b.is_ascii_digit()),
    }
}

fn looks_random(value: &str) -> bool {
    if value.len() < 8 || is_number(value) {
        return false;
    }
    let count = |f: fn(&u8) -> bool| value.as_bytes().iter().filter(|b| f(b)).count();
    let letters = count(u8::is_ascii_alphabetic);
    let digits = count(u8::is_ascii_digit);
    let upper = count(u8::is_ascii_uppercase);
    // Generated secrets mix digits in; the rare one without digits is long and mixes cases far
    // more than `CamelCaseNames` do. Names like `ListObjectsV2` or `sha256` stay below both.
    (digits >= 2 && letters >= 2) || (value.len() >= 20 && upper * 4 >= letters && upper < letters)
}

/// Values that stand in for a secret rather than being one.
fn is_placeholder(value: &str) -> bool {
    let value = value.trim();
    if value.is_empty()
        || value.starts_with(['$', '%', '{', '<', '\\'])
        // A URL is not a credential itself; credentials inside one have their own rule.
        || value.contains("://")
        || value.starts_with(MARKER_PREFIX)
        // A secret has letters or digits; `***`, `:****`, `xxxx` and `-` do not count.
        || value
            .chars()
            .all(|c| matches!(c, 'x' | 'X') || !c.is_alphanumeric())
    {
        return true;
    }
    const WORDS: &[&str] = &[
        "null",
        "none",
        "nil",
        "true",
        "false",
        "undefined",
        "redacted",
        "hidden",
        "masked",
        "empty",
        "required",
        "optional",
        "string",
        "str",
        "bytes",
        "bool",
        "int",
        "number",
        "any",
        "unknown",
        "define",
        "undef",
    ];
    WORDS.iter().any(|w| value.eq_ignore_ascii_case(w))
}

fn is_identifier(value: &str) -> bool {
    let mut chars = value.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `self.token`, `config.db.password`, `process.env.API_KEY`, `Token::Eof`: paths in code.
fn is_code_path(value: &str) -> bool {
    value.starts_with(':')
        || value.contains("::")
        || (value.contains('.')
            && value
                .split('.')
                .all(|part| is_identifier(part.trim_start_matches('$'))))
}

/// `SCREAMING_CASE` names a constant.
fn is_constant(value: &str) -> bool {
    value.contains('_') && !value.bytes().any(|b| b.is_ascii_lowercase())
}

/// `password_bytes`, `userToken`: an identifier with a secret-naming word among its parts.
fn contains_key_word(value: &str) -> bool {
    let mut parts = Vec::new();
    let mut part = String::new();
    for c in value.chars() {
        if c == '_' || (c.is_ascii_uppercase() && part.bytes().any(|b| b.is_ascii_lowercase())) {
            parts.push(std::mem::take(&mut part));
        }
        if c != '_' {
            part.push(c.to_ascii_lowercase());
        }
    }
    parts.push(part);
    parts.iter().any(|part| {
        matches!(
            part.as_str(),
            "pass" | "password" | "passwd" | "pwd" | "token" | "secret" | "key"
        )
    })
}

/// Type annotations after a colon: `password: String`, `token: SecretStr`.
fn is_type_name(value: &str) -> bool {
    let mut chars = value.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase()) && chars.all(|c| c.is_ascii_alphabetic())
}

/// Whether the rest of the line after a value is empty or a `#` comment.
fn line_ends(after: &str) -> bool {
    let line = after
        .split(['\n', '\r'])
        .next()
        .unwrap_or_default()
        .trim_start();
    line.is_empty() || line.starts_with('#')
}

fn judge_assignment(caps: &Captures<'_>, text: &str) -> Option<Cut> {
    let key = caps.name("key")?.as_str();
    let sep = caps.name("sep")?.as_str();
    let value = caps.name("value")?;
    let class = KeyClass::of(key);
    let raw = value.as_str();
    let cut = |range| {
        Some(Cut {
            range,
            kind: class.kind(),
        })
    };

    if raw.len() >= 2 && raw.starts_with(['"', '\'']) {
        let inner = &raw[1..raw.len() - 1];
        return if class.value_is_secret(key, inner) {
            cut(value.start() + 1..value.end() - 1)
        } else {
            None
        };
    }

    let after = &text[value.end()..];
    let next = after.chars().next();
    if raw.len() < 3
        || raw.starts_with('=')
        || is_code_path(raw)
        || matches!(next, Some('(' | '['))
        || !class.value_is_secret(key, raw)
    {
        return None;
    }
    let operator = sep.trim();
    let spaced = operator.len() != sep.len();
    if operator == ":" {
        // `key: value` is YAML or a header only when the value ends the line; otherwise it is a
        // type annotation (`token: Token,`), a struct field, or prose ("password: must be ...").
        if !line_ends(after) || is_type_name(raw) {
            return None;
        }
    } else if matches!(next, Some(',' | ')')) || (spaced && next == Some(';')) {
        // Arguments, enum items and statements: `f(password=pw, x)`, `TOKEN_ID=0x10,`,
        // `token = tok;`. (`Password=abc123;` in a connection string is unspaced.)
        return None;
    } else if is_identifier(raw) && (is_constant(raw) && spaced || contains_key_word(raw)) {
        // `token = TEST_DATA_BASE64`, `password=password_bytes`: names, not values.
        return None;
    } else if spaced && is_identifier(raw) {
        // `token = tok` is code; `password = hunter2` in an ini file is not.
        let letters_and_digits =
            raw.bytes().any(|b| b.is_ascii_digit()) && raw.bytes().any(|b| b.is_ascii_alphabetic());
        if !(letters_and_digits && line_ends(after)) {
            return None;
        }
    }
    cut(value.range())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redacts(input: &str, expected: &str, kind: &str) {
        let out = redact(input);
        assert_eq!(out.text, expected, "input: {input:?}");
        assert!(out.kinds.contains(&kind), "{kind} not in {:?}", out.kinds);
        assert!(out.count >= 1);
    }

    fn unchanged(input: &str) {
        let out = redact(input);
        assert_eq!(out.text, input, "false positive: {:?}", out.kinds);
        assert_eq!(out.count, 0);
    }

    #[test]
    fn all_patterns_compile() {
        assert_eq!(COMPILED.len(), RULES.len());
        LazyLock::force(&PEM_BEGIN);
        LazyLock::force(&PEM_END);
        LazyLock::force(&WHOLE_KEY);
    }

    #[test]
    fn redacts_a_pem_private_key_block() {
        let key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----";
        redacts(
            &format!("before\n{key}\nafter\n"),
            "before\n[REDACTED:private-key]\nafter\n",
            "private-key",
        );
    }

    #[test]
    fn redacts_openssh_and_encrypted_and_escaped_keys() {
        redacts(
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n",
            "[REDACTED:private-key]\n",
            "private-key",
        );
        redacts(
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,2AF25325A9B286F4CBD8A0A6C4F0EC0E\n\nu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0t\n-----END RSA PRIVATE KEY-----",
            "[REDACTED:private-key]",
            "private-key",
        );
        redacts(
            r#"{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n", "x": 1}"#,
            r#"{"private_key": "[REDACTED:private-key]\n", "x": 1}"#,
            "private-key",
        );
    }

    #[test]
    fn redacts_an_unterminated_key_block_to_the_end() {
        redacts(
            "$ head -3 id_rsa\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n",
            "$ head -3 id_rsa\n[REDACTED:private-key]",
            "private-key",
        );
    }

    #[test]
    fn leaves_code_that_only_names_the_pem_header() {
        unchanged(
            "const HEADER: &str = \"-----BEGIN RSA PRIVATE KEY-----\";\nif line == HEADER { parse(rest) }\n",
        );
    }

    #[test]
    fn redacts_aws_access_key_ids() {
        redacts(
            "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n",
            "aws_access_key_id = [REDACTED:aws-access-key-id]\n",
            "aws-access-key-id",
        );
        redacts(
            "key ASIAY34FZKBOKMUTVV7A in use",
            "key [REDACTED:aws-access-key-id] in use",
            "aws-access-key-id",
        );
    }

    #[test]
    fn redacts_aws_secret_keys_in_assignments() {
        redacts(
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nregion = eu-west-1\n",
            "aws_secret_access_key = [REDACTED:aws-secret-key]\nregion = eu-west-1\n",
            "aws-secret-key",
        );
        redacts(
            "export AWS_SECRET_ACCESS_KEY=\"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"",
            "export AWS_SECRET_ACCESS_KEY=\"[REDACTED:aws-secret-key]\"",
            "aws-secret-key",
        );
    }

    #[test]
    fn redacts_google_api_keys() {
        redacts(
            "key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&q=x",
            "key=[REDACTED:google-api-key]&q=x",
            "google-api-key",
        );
    }

    #[test]
    fn redacts_github_tokens() {
        redacts(
            "token ghp_16C7e42F292c6912E7710c838347Ae178B4a here",
            "token [REDACTED:github-token] here",
            "github-token",
        );
        redacts(
            "GH=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789",
            "GH=[REDACTED:github-token]",
            "github-token",
        );
        redacts(
            "gho_16C7e42F292c6912E7710c838347Ae178B4a",
            "[REDACTED:github-token]",
            "github-token",
        );
    }

    #[test]
    fn redacts_gitlab_tokens() {
        redacts(
            "use glpat-xYz12AbCdEfGhIjKlMnOp to push",
            "use [REDACTED:gitlab-token] to push",
            "gitlab-token",
        );
        redacts(
            "glrt-abcdefghij0123456789AB",
            "[REDACTED:gitlab-token]",
            "gitlab-token",
        );
    }

    #[test]
    fn redacts_slack_tokens_and_webhooks() {
        redacts(
            "SLACK=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
            "SLACK=[REDACTED:slack-token]",
            "slack-token",
        );
        redacts(
            "post to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX now",
            "post to https://hooks.slack.com/services/[REDACTED:slack-webhook] now",
            "slack-webhook",
        );
    }

    #[test]
    fn redacts_npm_and_pypi_tokens() {
        redacts(
            "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789",
            "//registry.npmjs.org/:_authToken=[REDACTED:npm-token]",
            "npm-token",
        );
        let pypi = format!("pypi-AgEIcHlwaS5vcmc{}", "A1b2C3d4E5".repeat(6));
        redacts(
            &format!("password = {pypi}\n"),
            "password = [REDACTED:pypi-token]\n",
            "pypi-token",
        );
    }

    #[test]
    fn redacts_stripe_keys() {
        redacts(
            "Stripe.api_key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'",
            "Stripe.api_key = '[REDACTED:stripe-key]'",
            "stripe-key",
        );
        redacts(
            "rk_live_51H8abcdefghijklmnopqrstu",
            "[REDACTED:stripe-key]",
            "stripe-key",
        );
    }

    #[test]
    fn redacts_openai_and_anthropic_keys() {
        redacts(
            "OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_AbCdEf",
            "OPENAI_API_KEY=[REDACTED:openai-key]",
            "openai-key",
        );
        redacts(
            "key sk-T3BlbkFJ8xYzAbCdEfGhIjKlMnOpQrStUvWxYz012345 ok",
            "key [REDACTED:openai-key] ok",
            "openai-key",
        );
        redacts(
            "x-api-key: sk-ant-api03-AbCdEf012345_ghIJkl-MNopQR678901stUV\n",
            "x-api-key: [REDACTED:anthropic-key]\n",
            "anthropic-key",
        );
    }

    #[test]
    fn redacts_jwts() {
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        redacts(
            &format!("cookie session={jwt}; path=/"),
            "cookie session=[REDACTED:jwt]; path=/",
            "jwt",
        );
    }

    #[test]
    fn redacts_authorization_headers_keeping_the_scheme() {
        redacts(
            "> GET / HTTP/1.1\n> Authorization: Bearer abc123def456\n> Accept: */*\n",
            "> GET / HTTP/1.1\n> Authorization: Bearer [REDACTED:bearer-token]\n> Accept: */*\n",
            "bearer-token",
        );
        redacts(
            "curl -H \"Authorization: Basic dXNlcjpwYXNzd29yZA==\" https://x",
            "curl -H \"Authorization: Basic [REDACTED:basic-auth]\" https://x",
            "basic-auth",
        );
        redacts(
            "Proxy-Authorization: token s3cr3tvalue",
            "Proxy-Authorization: token [REDACTED:authorization]",
            "authorization",
        );
        redacts(
            "> Authorization: Digest username=\"u\", response=\"6629fae49393a05397450978507c4ef1\"\n",
            "> Authorization: Digest [REDACTED:authorization]\n",
            "authorization",
        );
        redacts(
            r#"{"headers": {"Authorization": "Bearer abc.def-ghi"}}"#,
            r#"{"headers": {"Authorization": "Bearer [REDACTED:bearer-token]"}}"#,
            "bearer-token",
        );
        redacts(
            "authorization: 0123456789abcdef0123\n",
            "authorization: [REDACTED:authorization]\n",
            "authorization",
        );
    }

    #[test]
    fn a_jwt_in_a_bearer_header_is_one_redaction() {
        let out = redact(
            "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijk",
        );
        assert_eq!(out.text, "Authorization: Bearer [REDACTED:jwt]");
        assert_eq!(out.count, 1);
        assert_eq!(out.kinds, vec!["jwt"]);
    }

    #[test]
    fn leaves_authorization_headers_with_placeholders() {
        unchanged("curl -H \"Authorization: Bearer $TOKEN\" https://api.example.com\n");
        unchanged("Authorization: Bearer <token>\n");
        unchanged("Authorization: Bearer ${GITHUB_TOKEN}\n");
        unchanged("headers = {'Authorization': 'Bearer ' + token}\n");
    }

    #[test]
    fn redacts_the_password_in_a_url_and_keeps_the_user() {
        redacts(
            "DATABASE_URL=postgres://app:s3cr3t-pw@db.internal:5432/app",
            "DATABASE_URL=postgres://app:[REDACTED:url-password]@db.internal:5432/app",
            "url-password",
        );
        redacts(
            "redis://:hunter2@localhost:6379",
            "redis://:[REDACTED:url-password]@localhost:6379",
            "url-password",
        );
        unchanged("git clone https://user:${PASS}@example.com/repo.git\n");
        unchanged("see http://localhost:8080/path and ssh://git@github.com/org/repo\n");
    }

    #[test]
    fn redacts_password_assignments_in_their_common_forms() {
        redacts(
            "password=hunter2",
            "password=[REDACTED:password]",
            "password",
        );
        redacts(
            "mysql --user=root --password=Tr0ub4dor3 db",
            "mysql --user=root --password=[REDACTED:password] db",
            "password",
        );
        redacts(
            r#"{"user": "bob", "password": "hunter2"}"#,
            r#"{"user": "bob", "password": "[REDACTED:password]"}"#,
            "password",
        );
        redacts(
            "db:\n  password: hunter2\n  host: x\n",
            "db:\n  password: [REDACTED:password]\n  host: x\n",
            "password",
        );
        redacts(
            "export API_TOKEN=abc123def456ghi\n",
            "export API_TOKEN=[REDACTED:token]\n",
            "token",
        );
        redacts(
            "client_secret = 'Zq9x8Wv7Ut6S'\n",
            "client_secret = '[REDACTED:secret]'\n",
            "secret",
        );
        redacts(
            "PASSWD : letmein\n",
            "PASSWD : [REDACTED:password]\n",
            "password",
        );
        redacts(
            "Server=db;User Id=sa;Password=abc123;",
            "Server=db;User Id=sa;Password=[REDACTED:password];",
            "password",
        );
        redacts(
            "password = hunter2\n",
            "password = [REDACTED:password]\n",
            "password",
        );
        redacts(
            "GET /cb?code=1&access_token=a1b2c3d4e5f6&x=1",
            "GET /cb?code=1&access_token=[REDACTED:token]&x=1",
            "token",
        );
        redacts(
            "apiKey: \"AbCdEf123456\",",
            "apiKey: \"[REDACTED:api-key]\",",
            "api-key",
        );
        redacts(
            ":password => \"s3cret!\"",
            ":password => \"[REDACTED:password]\"",
            "password",
        );
    }

    #[test]
    fn leaves_placeholders_and_empty_values() {
        for text in [
            "password=\n",
            "password=***\n",
            "password: ********\n",
            "password=<redacted>\n",
            "password=${DB_PASSWORD}\n",
            "password=$DB_PASSWORD\n",
            "\"password\": \"\"\n",
            "token: ${{ secrets.GITHUB_TOKEN }}\n",
            "password = \"{{ vault_password }}\"\n",
            "PWD=/home/user/project\nOLDPWD=/home/user\n",
            "api_key: null\n",
        ] {
            unchanged(text);
        }
    }

    #[test]
    fn leaves_code_that_names_secrets() {
        unchanged(
            r#"use crate::tokenizer::Tokenizer;

struct Login {
    password_field: String,
    token: Option<String>,
    password: String,
}

fn next(lexer: &mut Lexer) -> Token {
    let token = next_token();
    let password = get_password()?;
    let secret = self.secret;
    if token == "EOF" { return token; }
    match token {
        token => token.kind(),
    }
    let api_key: &str = config.api_key.as_str();
    login(password=pw, token=tok)
}
"#,
        );
        unchanged(
            "def login(password: str, token: Token) -> None:\n    password = getpass.getpass()\n    token = session.token\n    api_key = os.environ[\"API_KEY\"]\n    secret = os.getenv(\"SECRET\")\n    return auth(token, password)\n",
        );
        unchanged(
            "const token = req.headers.authorization;\nconst apiKey = process.env.API_KEY;\ninterface U { password: string; }\n",
        );
        unchanged("let max_tokens = 4096;\nlet token = tok;\nint token = 0;\n");
        unchanged("type Token = private::IdentAny;\nlet token = ParsingToken::Range {\n");
        unchanged(
            "    NL80211_ATTR_SAE_PASSWORD = 277,\n    sig.fn_token = syn::Token![fn](span);\n",
        );
        unchanged("    Token::ZeroOrMore\n    | Token::RecursivePrefix => 1,\n");
        unchanged("    pub Authorization: WINBIO_PRESENCE_0,\n");
        unchanged("    Token: '#d0d0d0',\n    Token.Comment: \"#6e7f91 italic\",\n");
        unchanged("auth = dict(Passwd=credentials[1], key_password=cert[0][2])\n");
        unchanged("    CHALLENGE_PASSWORD: \"challengePassword\",\n    password = \":****\"\n");
        unchanged(
            "{\"input_token\": \"ExclusiveStartKey\", \"output_token\": \"LastEvaluatedKey\", \"marker_token\": \"ListObjectsV2\"}\n",
        );
        unchanged(
            "const UNEXPECTED_TOKEN = /^Unexpected token/i\n'Pod::Simple::PullParserEndToken'=> '3.43',\n",
        );
        unchanged(
            "token = TEST_DATA_BASE64\nf(raw_data, password=password_bytes\nf(token=userToken\n'password': '-W',\n",
        );
        unchanged("{\"authorization\": \"Bearer token\"} * `Authorization: Bearer YOUR_TOKEN`.\n");
        unchanged("locations: 1) Authorization: Bearer 2) x-goog-iap-jwt-assertion 3) a query\n");
        unchanged(".. _refresh token: https://developers.google.com/identity\n");
        unchanged(
            "access_token = 'at%s-%s' % (token, now)\nw('#key_file_password =\\n\\n')\nd_grpasswd='define'\n",
        );
        unchanged("    U_UNEXPECTED_TOKEN=0x10100,\n    private_key: \"_RSAPrivateKey\",\n");
    }

    #[test]
    fn leaves_ordinary_text() {
        for text in [
            "pip install scikit-learn  # the sk-learn alias is deprecated\n",
            "commit 3f786850e387550fdab836ed7e6dc881de23001b\nAuthor: A <a@example.com>\n",
            "id 123e4567-e89b-12d3-a456-426614174000\n",
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\n",
            "The password must be 12 characters long and the token expires in one hour.\n",
            "Authorization is decided by the policy stage before anything runs.\n",
            "Authorization: see the policy section below.\n",
            "The constant XAKIAIOSFODNN7EXAMPLE1 is not a key, nor is AKIAIOSFODNN7EXAMPLEXYZ.\n",
            "Password: must be at least 12 characters\n",
            "[sudo] password for alice: \n",
            "tokens: 1234 used of 200000\n",
            "see https://docs.example.com:8443/path?x=1#frag\n",
            "kind: Secret\nmetadata:\n  name: db-secret\n",
            "task-sk-very-long-kebab-case-branch-name\n",
            "eyJhbGciOiJIUzI1NiJ9 alone is only a header\n",
            "",
        ] {
            unchanged(text);
        }
    }

    #[test]
    fn redaction_is_idempotent() {
        let once = redact(
            "password=hunter2 Authorization: Bearer abcdef123456 ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        );
        let twice = redact(&once.text);
        assert_eq!(twice.text, once.text);
        assert_eq!(twice.count, 0);
    }

    #[test]
    fn kinds_are_deduplicated_in_first_seen_order() {
        let out =
            redact("password=hunter2\nghp_16C7e42F292c6912E7710c838347Ae178B4a\npasswd=abc123x\n");
        assert_eq!(out.count, 3);
        assert_eq!(out.kinds, vec!["password", "github-token"]);
    }

    #[test]
    fn surrounding_non_ascii_text_is_kept() {
        redacts(
            "mot de passe — password=hunter2 — ça marche ✓",
            "mot de passe — password=[REDACTED:password] — ça marche ✓",
            "password",
        );
    }

    #[test]
    fn redacts_json_values_by_key_and_by_shape() {
        let mut value = serde_json::json!({
            "user": "bob",
            "password": "hunter2",
            "apiKey": "letters",
            "nested": [{"client_secret": "Zq9x8Wv7Ut6S"}, "Bearer token ghp_16C7e42F292c6912E7710c838347Ae178B4a"],
            "tokenizer": "bert-base",
            "token": "EOF",
            "note": "password=hunter2",
            "count": 3,
        });
        let count = redact_json(&mut value);
        assert_eq!(count, 4);
        assert_eq!(value["password"], "[REDACTED:password]");
        assert_eq!(value["apiKey"], "letters");
        assert_eq!(value["nested"][0]["client_secret"], "[REDACTED:secret]");
        assert_eq!(value["nested"][1], "Bearer token [REDACTED:github-token]");
        assert_eq!(value["tokenizer"], "bert-base");
        assert_eq!(value["token"], "EOF");
        assert_eq!(value["note"], "password=[REDACTED:password]");
        assert_eq!(value["user"], "bob");
    }

    #[test]
    fn redacts_authorization_fields_in_json() {
        let mut value = serde_json::json!({
            "headers": {"Authorization": "Bearer abc123def456", "Accept": "*/*"},
            "proxy": {"proxy-authorization": "Basic dXNlcjpwYXNz"},
            "other": {"authorization": "Bearer $TOKEN"},
        });
        assert_eq!(redact_json(&mut value), 2);
        assert_eq!(
            value["headers"]["Authorization"],
            "Bearer [REDACTED:bearer-token]"
        );
        assert_eq!(value["headers"]["Accept"], "*/*");
        assert_eq!(
            value["proxy"]["proxy-authorization"],
            "Basic [REDACTED:basic-auth]"
        );
        assert_eq!(value["other"]["authorization"], "Bearer $TOKEN");
    }

    #[test]
    fn large_adversarial_inputs_finish() {
        let inputs = [
            "-----BEGIN PRIVATE KEY-----\n".repeat(40_000),
            "-----BEGIN PRIVATE KEY----- A: x AAAAAAAAAAAAAAAA ".repeat(20_000),
            "password=password=".repeat(60_000),
            "Authorization: ".repeat(60_000),
            "\"token\": \"".repeat(100_000),
            "a".repeat(1 << 20),
            "https://a:b".repeat(80_000),
        ];
        for input in inputs {
            let out = redact(&input);
            assert!(out.text.len() <= input.len() + 32 * out.count);
        }
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            // Without `=`, `:`, `@`, `_` or `-`, no context rule can fire and no token shape fits.
            #[test]
            fn text_without_secret_shapes_is_unchanged(text in "[a-zA-Z0-9 .,;!?()'\"\n]{0,300}") {
                let out = redact(&text);
                prop_assert_eq!(out.count, 0);
                prop_assert_eq!(out.text, text);
            }

            #[test]
            fn redaction_is_idempotent_on_any_text(text in "\\PC{0,200}") {
                let once = redact(&text);
                let twice = redact(&once.text);
                prop_assert_eq!(twice.text, once.text);
            }

            #[test]
            fn a_seeded_secret_never_survives(
                before in "[a-z .\n]{0,40}",
                after in "[a-z .\n]{0,40}",
                pick in 0usize..4,
            ) {
                let secret = [
                    "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
                    "AKIAIOSFODNN7EXAMPLE",
                    "xoxb-123456789012-1234567890123-AbCdEfGh",
                    "npm_abcdefghijklmnopqrstuvwxyz0123456789",
                ][pick];
                let text = format!("{before} {secret} {after}");
                prop_assert!(!redact(&text).text.contains(secret));
            }
        }
    }
}
