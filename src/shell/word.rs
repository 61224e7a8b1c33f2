//! Words as bash sees them after quote removal.
//!
//! A [`Word`] keeps its raw source text and a list of [`Part`]s that say, piece by piece, what bash
//! would produce: literal characters (remembering whether they were quoted, because only unquoted
//! `*?[` glob), the home directory, parameters, command substitutions (whose code is kept so the
//! walker can analyse it too) and anything else dynamic. Invariant: a word is only ever reported as
//! literal when every part of it is literal; anything warden cannot compute stays visibly dynamic.

use brush_parser::word::{Parameter, ParameterExpr, TildeExpr, WordPiece, WordPieceWithSource};

/// Where the text of a pipe, a substitution or a process substitution comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Text fully known before anything runs (`echo`, `printf`, heredocs with literal bodies).
    Literal(String),
    /// Bytes fetched from the network by the named program (`curl`, `wget`, …).
    Download(String),
    /// Output of some other program: its content cannot be known in advance.
    Unknown(String),
}

/// One piece of a word after parsing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// Literal characters; `quoted` is false only for bare text, where `*?[` are glob characters.
    Lit { text: String, quoted: bool },
    /// `~`, `$HOME` or `${HOME}`: expanded to the user's home when judging paths.
    Home,
    /// `~user`: another user's home.
    TildeUser(String),
    /// A parameter expansion other than `$HOME` (`$x`, `${x:-y}`, `$@`, …).
    Param { name: String, quoted: bool },
    /// `$(…)` or backticks; the code itself is analysed separately, `origin` says what it yields.
    CommandSubst { code: String, origin: Source },
    /// `<(…)` or `>(…)`: a path to a pipe fed by (or feeding) the given code.
    ProcSubst { code: String, origin: Source },
    /// Arithmetic expansion or any other expansion warden does not compute.
    Other,
}

/// A shell word: its raw text and what it expands to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    pub raw: String,
    pub parts: Vec<Part>,
}

/// The value of a word as far as it can be known before anything runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A single fixed string.
    Literal(String),
    /// A glob pattern (bash syntax, with quoted metacharacters escaped by `\`).
    Pattern(String),
    /// Depends on variables, substitutions or other run-time state.
    Dynamic,
}

impl Word {
    /// A word that is exactly the given literal text (used for argv given without a shell).
    pub fn literal(text: &str) -> Word {
        Word {
            raw: text.to_string(),
            parts: vec![Part::Lit {
                text: text.to_string(),
                quoted: true,
            }],
        }
    }

    /// The word's text when it contains nothing but literal characters (quotes removed).
    pub fn as_literal(&self) -> Option<String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Lit { text, .. } => out.push_str(text),
                _ => return None,
            }
        }
        Some(out)
    }

    /// True when the literal text contains an unquoted glob character.
    pub fn has_glob(&self) -> bool {
        self.parts.iter().any(|p| match p {
            Part::Lit {
                text,
                quoted: false,
            } => text.contains(['*', '?', '[']),
            _ => false,
        })
    }

    /// True when the word depends on anything besides literal text and the home directory.
    pub fn is_dynamic(&self) -> bool {
        self.parts
            .iter()
            .any(|p| !matches!(p, Part::Lit { .. } | Part::Home))
    }

    /// Code run while expanding this word (command substitutions).
    pub fn substitutions(&self) -> impl Iterator<Item = (&str, &Source)> {
        self.parts.iter().filter_map(|p| match p {
            Part::CommandSubst { code, origin } | Part::ProcSubst { code, origin } => {
                Some((code.as_str(), origin))
            }
            _ => None,
        })
    }

    /// What the word expands to, with `~`/`$HOME` replaced by `home`.
    pub fn value(&self, home: &str) -> Value {
        let mut out = String::new();
        let mut glob = false;
        for part in &self.parts {
            match part {
                Part::Lit { text, quoted } => {
                    if *quoted {
                        for c in text.chars() {
                            if matches!(c, '*' | '?' | '[' | ']' | '\\') {
                                out.push('\\');
                            }
                            out.push(c);
                        }
                    } else {
                        glob |= text.contains(['*', '?', '[']);
                        out.push_str(text);
                    }
                }
                Part::Home => out.push_str(home),
                _ => return Value::Dynamic,
            }
        }
        if glob {
            Value::Pattern(out)
        } else {
            // No glob: undo the escaping added for quoted metacharacters.
            match self.literal_with_home(home) {
                Some(text) => Value::Literal(text),
                None => Value::Dynamic,
            }
        }
    }

    fn literal_with_home(&self, home: &str) -> Option<String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Lit { text, .. } => out.push_str(text),
                Part::Home => out.push_str(home),
                _ => return None,
            }
        }
        Some(out)
    }

    /// Where the word's content comes from when it is one command substitution (`"$(curl …)"`).
    pub fn origin(&self) -> Option<&Source> {
        let mut found = None;
        for part in &self.parts {
            match part {
                Part::CommandSubst { origin, .. } | Part::ProcSubst { origin, .. } => {
                    found = Some(origin)
                }
                Part::Lit { text, .. } if text.trim().is_empty() => {}
                _ => return None,
            }
        }
        found
    }
}

/// Error raised when a word cannot be parsed as bash would.
#[derive(Debug, thiserror::Error)]
#[error("cannot parse word `{0}`")]
pub struct WordError(pub String);

/// Callback used to learn what a piece of substituted code produces.
pub type OriginOf<'a> = &'a mut dyn FnMut(&str) -> Source;

/// Parses the raw text of a word into parts.
pub fn parse_word(raw: &str, origin_of: OriginOf<'_>) -> Result<Word, WordError> {
    let options = super::parser_options();
    let pieces =
        brush_parser::word::parse(raw, &options).map_err(|_| WordError(raw.to_string()))?;
    let mut parts = Vec::new();
    convert(&pieces, raw, false, &mut parts, origin_of)?;
    Ok(Word {
        raw: raw.to_string(),
        parts: merge(parts),
    })
}

/// Parses a here-document body that undergoes expansion (unquoted delimiter).
pub fn parse_heredoc_body(raw: &str, origin_of: OriginOf<'_>) -> Result<Word, WordError> {
    let options = super::parser_options();
    let pieces =
        brush_parser::word::parse_heredoc(raw, &options).map_err(|_| WordError(raw.to_string()))?;
    let mut parts = Vec::new();
    convert(&pieces, raw, true, &mut parts, origin_of)?;
    Ok(Word {
        raw: raw.to_string(),
        parts: merge(parts),
    })
}

fn convert(
    pieces: &[WordPieceWithSource],
    raw: &str,
    quoted: bool,
    out: &mut Vec<Part>,
    origin_of: OriginOf<'_>,
) -> Result<(), WordError> {
    for piece in pieces {
        match &piece.piece {
            WordPiece::Text(text) => out.push(Part::Lit {
                text: text.clone(),
                quoted,
            }),
            WordPiece::SingleQuotedText(text) => out.push(Part::Lit {
                text: text.clone(),
                quoted: true,
            }),
            WordPiece::AnsiCQuotedText(text) => out.push(Part::Lit {
                text: decode_ansi_c(text),
                quoted: true,
            }),
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                // An empty "" still produces an (empty) literal word.
                out.push(Part::Lit {
                    text: String::new(),
                    quoted: true,
                });
                convert(inner, raw, true, out, origin_of)?
            }
            WordPiece::TildeExpansion(TildeExpr::Home) => out.push(Part::Home),
            WordPiece::TildeExpansion(TildeExpr::UserHome(user)) => {
                out.push(Part::TildeUser(user.clone()))
            }
            WordPiece::TildeExpansion(_) => out.push(Part::Other),
            WordPiece::ParameterExpansion(expr) => {
                out.push(parameter_part(expr, quoted));
                if !is_plain_parameter(expr) {
                    // Complex expansions (`${x:-$(cmd)}`) may hide code: parse their inside as a
                    // word so any command substitution in it is found and analysed.
                    let text = raw
                        .get(piece.start_index..piece.end_index)
                        .ok_or_else(|| WordError(raw.to_string()))?;
                    let inner = text
                        .strip_prefix("${")
                        .and_then(|t| t.strip_suffix('}'))
                        .unwrap_or("");
                    if inner.contains(['$', '`']) {
                        let nested = parse_word(inner, origin_of)?;
                        out.extend(
                            nested
                                .parts
                                .into_iter()
                                .filter(|p| matches!(p, Part::CommandSubst { .. })),
                        );
                    }
                }
            }
            WordPiece::CommandSubstitution(code)
            | WordPiece::BackquotedCommandSubstitution(code) => {
                let origin = origin_of(code);
                out.push(Part::CommandSubst {
                    code: code.clone(),
                    origin,
                })
            }
            WordPiece::EscapeSequence(seq) => {
                let text = unescape(seq, quoted);
                out.push(Part::Lit { text, quoted: true })
            }
            WordPiece::ArithmeticExpression(expr) => {
                out.push(Part::Other);
                if expr.value.contains(['$', '`']) {
                    let nested = parse_word(&expr.value, origin_of)?;
                    out.extend(
                        nested
                            .parts
                            .into_iter()
                            .filter(|p| matches!(p, Part::CommandSubst { .. })),
                    );
                }
            }
        }
    }
    Ok(())
}

fn is_plain_parameter(expr: &ParameterExpr) -> bool {
    matches!(
        expr,
        ParameterExpr::Parameter {
            indirect: false,
            ..
        }
    )
}

fn parameter_part(expr: &ParameterExpr, quoted: bool) -> Part {
    if let ParameterExpr::Parameter {
        parameter: Parameter::Named(name),
        indirect: false,
    } = expr
    {
        if name == "HOME" {
            return Part::Home;
        }
        return Part::Param {
            name: name.clone(),
            quoted,
        };
    }
    Part::Param {
        name: String::from("?"),
        quoted,
    }
}

/// Removes the backslash of an escape sequence as bash does in the given quoting context.
fn unescape(seq: &str, in_double_quotes: bool) -> String {
    let rest = seq.strip_prefix('\\').unwrap_or(seq);
    if rest == "\n" {
        return String::new();
    }
    if in_double_quotes && !matches!(rest, "$" | "`" | "\"" | "\\") {
        return seq.to_string();
    }
    rest.to_string()
}

/// Decodes the escapes of a `$'…'` string.
pub fn decode_ansi_c(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'e' | 'E' => out.push('\x1b'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '\\' | '\'' | '"' | '?' => out.push(e),
            'c' => {
                if let Some(x) = chars.next() {
                    out.push(char::from((x as u32 & 0x1f) as u8));
                }
            }
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                push_byte_char(&mut out, value & 0xff);
            }
            'x' | 'u' | 'U' => {
                let max = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut value = 0u32;
                let mut digits = 0;
                while digits < max {
                    match chars.peek().and_then(|c| c.to_digit(16)) {
                        Some(d) => {
                            value = value.wrapping_mul(16).wrapping_add(d);
                            chars.next();
                            digits += 1;
                        }
                        None => break,
                    }
                }
                if digits == 0 {
                    out.push('\\');
                    out.push(e);
                } else if e == 'x' {
                    push_byte_char(&mut out, value);
                } else if let Some(ch) = char::from_u32(value) {
                    out.push(ch);
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

/// Bytes above 0x7f from `\x`/octal escapes are not valid UTF-8 on their own; keep them visible
/// as the replacement character so the word never silently equals a different name.
fn push_byte_char(out: &mut String, value: u32) {
    if value < 0x80 {
        out.push(char::from(value as u8));
    } else {
        out.push('\u{fffd}');
    }
}

/// Joins adjacent literal parts so callers see one literal per run of text.
fn merge(parts: Vec<Part>) -> Vec<Part> {
    let mut out: Vec<Part> = Vec::with_capacity(parts.len());
    for part in parts {
        if let (
            Some(Part::Lit {
                text: prev,
                quoted: pq,
            }),
            Part::Lit { text, quoted },
        ) = (out.last_mut(), &part)
            && *pq == *quoted
        {
            prev.push_str(text);
            continue;
        }
        out.push(part);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(raw: &str) -> Word {
        parse_word(raw, &mut |_| Source::Unknown(String::new())).expect("parses")
    }

    #[test]
    fn quote_removal_normalises_program_names() {
        for raw in [
            "rm",
            "\\rm",
            "\"rm\"",
            "r''m",
            "'r'm",
            "$'\\x72m'",
            "$'\\162m'",
        ] {
            assert_eq!(word(raw).as_literal().as_deref(), Some("rm"), "{raw}");
        }
    }

    #[test]
    fn home_forms_expand_to_home() {
        for raw in ["~", "$HOME", "${HOME}", "\"$HOME\""] {
            assert_eq!(word(raw).value("/h"), Value::Literal("/h".into()), "{raw}");
        }
        assert_eq!(word("~/x").value("/h"), Value::Literal("/h/x".into()));
    }

    #[test]
    fn globs_are_only_unquoted_metacharacters() {
        assert!(word("*.o").has_glob());
        assert!(!word("'*.o'").has_glob());
        assert_eq!(word("'*'x*").value("/h"), Value::Pattern("\\*x*".into()));
    }

    #[test]
    fn substitution_inside_default_value_is_found() {
        let w = word("${x:-$(rm -rf /)}");
        let codes: Vec<_> = w.substitutions().map(|(c, _)| c.to_string()).collect();
        assert_eq!(codes, vec!["rm -rf /".to_string()]);
    }

    #[test]
    fn variables_make_a_word_dynamic() {
        assert_eq!(word("$DIR/x").value("/h"), Value::Dynamic);
        assert!(word("\"$x\"").is_dynamic());
    }
}
