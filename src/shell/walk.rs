//! The walker: visits every node of the bash AST that bash would execute.
//!
//! Invariants: every word is parsed (so every command substitution is analysed), every code string
//! handed to a shell is parsed again one level deeper, and the working directory is tracked the way
//! bash scopes it (subshells and pipeline elements get a copy, lists share it).

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use brush_parser::ast;

use super::word::{self, Part, Source, Word};
use super::{
    Analysis, Context, Cwd, Finding, FindingKind, Input, Invocation, MAX_DEPTH, MAX_INPUT_BYTES,
    MAX_INVOCATIONS, MAX_NESTING, Redirect, RedirectKind,
};

/// Mutable state that follows bash's scoping.
#[derive(Clone, Debug)]
pub(super) struct Scope {
    pub cwd: Cwd,
    pub dirstack: Vec<Cwd>,
    /// Code being walked runs as another user (inside `sudo bash -c`, `su -c`, …).
    pub privileged: bool,
}

/// How a command sits in its pipeline / list (used for fork-bomb detection).
#[derive(Clone, Copy, Debug, Default)]
struct Position {
    in_pipeline: bool,
    background: bool,
}

pub(super) struct Walker<'a> {
    pub ctx: &'a Context,
    pub out: Analysis,
    functions: HashSet<String>,
    aliases: HashSet<String>,
    calling: Vec<String>,
    parses: usize,
}

impl<'a> Walker<'a> {
    pub fn new(ctx: &'a Context) -> Self {
        Walker {
            ctx,
            out: Analysis::default(),
            functions: HashSet::new(),
            aliases: HashSet::new(),
            calling: Vec::new(),
            parses: 0,
        }
    }

    pub fn run(mut self, source: &str) -> Analysis {
        let mut scope = self.initial_scope();
        self.walk_code(source, 0, &mut scope, Input::Inherited);
        self.out
    }

    pub fn run_argv(mut self, argv: &[String]) -> Analysis {
        let mut scope = self.initial_scope();
        let words: Vec<Word> = argv.iter().map(|a| Word::literal(a)).collect();
        let inv = Invocation {
            assigns: Vec::new(),
            argv: words,
            redirects: Vec::new(),
            input: Input::Inherited,
            cwd: scope.cwd.clone(),
            via: Vec::new(),
            privileged: scope.privileged,
            args_from_input: false,
            found_under: Vec::new(),
            depth: 0,
        };
        self.dispatch(inv, &mut scope);
        self.out
    }

    fn initial_scope(&self) -> Scope {
        Scope {
            cwd: Some(self.ctx.cwd.clone()),
            dirstack: Vec::new(),
            privileged: false,
        }
    }

    pub fn finding(&mut self, kind: FindingKind, detail: impl Into<String>) {
        let finding = Finding {
            kind,
            detail: detail.into(),
        };
        if !self.out.findings.contains(&finding) {
            self.out.findings.push(finding);
        }
    }

    /// Parses and walks a piece of bash code; returns what its output would be made of.
    pub fn walk_code(
        &mut self,
        source: &str,
        depth: usize,
        scope: &mut Scope,
        input: Input,
    ) -> Source {
        if depth > MAX_DEPTH {
            self.finding(
                FindingKind::TooDeep,
                format!("code nested more than {MAX_DEPTH} levels deep"),
            );
            return Source::Unknown("nested code".into());
        }
        if source.len() > MAX_INPUT_BYTES {
            self.finding(FindingKind::TooLarge, format!("{} bytes", source.len()));
            return Source::Unknown("oversized code".into());
        }
        if source.contains('\0') {
            self.finding(FindingKind::ParseError, "NUL byte in code");
            return Source::Unknown("invalid code".into());
        }
        if let Some(why) = super::known_parser_panic(source) {
            self.finding(FindingKind::ParseError, why);
            return Source::Unknown("invalid code".into());
        }
        let (nesting, parens) = super::raw_nesting(source);
        if nesting > MAX_NESTING || parens > super::MAX_PAREN_NESTING {
            let detail = if parens > super::MAX_PAREN_NESTING {
                format!(
                    "parentheses nested more than {} levels deep",
                    super::MAX_PAREN_NESTING
                )
            } else {
                format!("brackets nested more than {MAX_NESTING} levels deep")
            };
            self.finding(FindingKind::TooDeep, detail);
            return Source::Unknown("nested code".into());
        }
        self.parses += 1;
        if self.parses > MAX_INVOCATIONS {
            self.finding(FindingKind::OverBudget, "too many nested parses");
            return Source::Unknown("over budget".into());
        }
        let options = super::parser_options();
        let mut parser =
            brush_parser::Parser::new(std::io::Cursor::new(source.as_bytes()), &options);
        let program = match parser.parse_program() {
            Ok(program) => program,
            Err(err) => {
                self.finding(FindingKind::ParseError, err.to_string());
                return Source::Unknown("unparsable code".into());
            }
        };
        let mut last = Source::Literal(String::new());
        for list in &program.complete_commands {
            last = self.walk_list(list, depth, scope, &input);
        }
        last
    }

    fn walk_list(
        &mut self,
        list: &ast::CompoundList,
        depth: usize,
        scope: &mut Scope,
        input: &Input,
    ) -> Source {
        let mut last = Source::Literal(String::new());
        for ast::CompoundListItem(and_or, sep) in &list.0 {
            let background = matches!(sep, ast::SeparatorOperator::Async);
            if background {
                // A backgrounded list runs in a subshell: its `cd` does not leak.
                let mut sub = scope.clone();
                last = self.walk_and_or(and_or, depth, &mut sub, input, background);
            } else {
                last = self.walk_and_or(and_or, depth, scope, input, background);
            }
        }
        last
    }

    fn walk_and_or(
        &mut self,
        list: &ast::AndOrList,
        depth: usize,
        scope: &mut Scope,
        input: &Input,
        background: bool,
    ) -> Source {
        let mut last = self.walk_pipeline(&list.first, depth, scope, input, background);
        for next in &list.additional {
            let (ast::AndOr::And(p) | ast::AndOr::Or(p)) = next;
            last = self.walk_pipeline(p, depth, scope, input, background);
        }
        last
    }

    fn walk_pipeline(
        &mut self,
        pipeline: &ast::Pipeline,
        depth: usize,
        scope: &mut Scope,
        input: &Input,
        background: bool,
    ) -> Source {
        if pipeline.seq.len() == 1 {
            let pos = Position {
                in_pipeline: false,
                background,
            };
            return self.walk_command(&pipeline.seq[0], depth, scope, input.clone(), pos);
        }
        let mut feed = input.clone();
        let mut last = Source::Unknown(String::new());
        for cmd in &pipeline.seq {
            let pos = Position {
                in_pipeline: true,
                background,
            };
            // Every element of a multi-command pipeline runs in its own subshell.
            let mut sub = scope.clone();
            last = self.walk_command(cmd, depth, &mut sub, feed, pos);
            feed = Input::From(last.clone());
        }
        last
    }

    fn walk_command(
        &mut self,
        cmd: &ast::Command,
        depth: usize,
        scope: &mut Scope,
        input: Input,
        pos: Position,
    ) -> Source {
        match cmd {
            ast::Command::Simple(simple) => self.walk_simple(simple, depth, scope, input, pos),
            ast::Command::Compound(compound, redirects) => {
                let input = match redirects {
                    Some(list) => {
                        let (redirs, redirected) = self.convert_redirects(&list.0, depth, scope);
                        self.emit_bare_redirects(redirs, scope, depth);
                        redirected.unwrap_or(input)
                    }
                    None => input,
                };
                self.walk_compound(compound, depth, scope, input, pos)
            }
            ast::Command::Function(def) => {
                let name = def.fname.value.clone();
                self.functions.insert(name.clone());
                self.calling.push(name);
                let mut sub = scope.clone();
                if let Some(list) = &def.body.1 {
                    let (redirs, _) = self.convert_redirects(&list.0, depth, &sub);
                    self.emit_bare_redirects(redirs, &sub, depth);
                }
                self.walk_compound(
                    &def.body.0,
                    depth,
                    &mut sub,
                    Input::Inherited,
                    Position::default(),
                );
                self.calling.pop();
                Source::Literal(String::new())
            }
            ast::Command::ExtendedTest(test, redirects) => {
                if let Some(list) = redirects {
                    let (redirs, _) = self.convert_redirects(&list.0, depth, scope);
                    self.emit_bare_redirects(redirs, scope, depth);
                }
                self.walk_test(&test.expr, depth, scope);
                Source::Literal(String::new())
            }
        }
    }

    fn walk_test(&mut self, expr: &ast::ExtendedTestExpr, depth: usize, scope: &mut Scope) {
        match expr {
            ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
                self.walk_test(a, depth, scope);
                self.walk_test(b, depth, scope);
            }
            ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => {
                self.walk_test(a, depth, scope)
            }
            ast::ExtendedTestExpr::UnaryTest(_, w) => {
                self.parse_word(&w.value, depth, scope);
            }
            ast::ExtendedTestExpr::BinaryTest(_, a, b) => {
                self.parse_word(&a.value, depth, scope);
                self.parse_word(&b.value, depth, scope);
            }
        }
    }

    fn walk_compound(
        &mut self,
        compound: &ast::CompoundCommand,
        depth: usize,
        scope: &mut Scope,
        input: Input,
        pos: Position,
    ) -> Source {
        match compound {
            ast::CompoundCommand::BraceGroup(group) => {
                self.walk_list(&group.list, depth, scope, &input)
            }
            ast::CompoundCommand::Subshell(sub) => {
                let mut inner = scope.clone();
                self.walk_list(&sub.list, depth, &mut inner, &input)
            }
            ast::CompoundCommand::IfClause(clause) => {
                self.walk_list(&clause.condition, depth, scope, &input);
                let mut last = self.walk_list(&clause.then, depth, scope, &input);
                for other in clause.elses.iter().flatten() {
                    if let Some(cond) = &other.condition {
                        self.walk_list(cond, depth, scope, &input);
                    }
                    last = self.walk_list(&other.body, depth, scope, &input);
                }
                last
            }
            ast::CompoundCommand::WhileClause(clause)
            | ast::CompoundCommand::UntilClause(clause) => {
                self.walk_list(&clause.0, depth, scope, &input);
                self.walk_list(&clause.1.list, depth, scope, &input)
            }
            ast::CompoundCommand::ForClause(clause) => {
                for w in clause.values.iter().flatten() {
                    self.parse_word(&w.value, depth, scope);
                }
                self.walk_list(&clause.body.list, depth, scope, &input)
            }
            ast::CompoundCommand::ArithmeticForClause(clause) => {
                for expr in [&clause.initializer, &clause.condition, &clause.updater]
                    .into_iter()
                    .flatten()
                {
                    self.parse_word(&expr.value, depth, scope);
                }
                self.walk_list(&clause.body.list, depth, scope, &input)
            }
            ast::CompoundCommand::CaseClause(clause) => {
                self.parse_word(&clause.value.value, depth, scope);
                let mut last = Source::Literal(String::new());
                for item in &clause.cases {
                    for p in &item.patterns {
                        self.parse_word(&p.value, depth, scope);
                    }
                    if let Some(body) = &item.cmd {
                        last = self.walk_list(body, depth, scope, &input);
                    }
                }
                last
            }
            ast::CompoundCommand::Arithmetic(arith) => {
                self.parse_word(&arith.expr.value, depth, scope);
                Source::Literal(String::new())
            }
            ast::CompoundCommand::Coprocess(coproc) => {
                let mut inner = scope.clone();
                self.walk_command(&coproc.body, depth, &mut inner, input, pos)
            }
        }
    }

    /// Parses a word, analysing every substitution inside it one level deeper.
    pub fn parse_word(&mut self, raw: &str, depth: usize, scope: &Scope) -> Word {
        let mut sub_scope = scope.clone();
        let mut analyse = |code: &str| -> Source {
            self.walk_code(code, depth + 1, &mut sub_scope, Input::Inherited)
        };
        match word::parse_word(raw, &mut analyse) {
            Ok(w) => w,
            Err(e) => {
                self.finding(FindingKind::ParseError, e.to_string());
                Word {
                    raw: raw.to_string(),
                    parts: vec![Part::Other],
                }
            }
        }
    }

    /// Applies brace expansion to a raw word (bounded), then parses each result.
    fn expand_word(&mut self, raw: &str, depth: usize, scope: &Scope) -> Vec<Word> {
        if raw.contains('{') && (raw.contains(',') || raw.contains("..")) {
            match expand_braces(raw) {
                Some(alternatives) if alternatives.len() > 1 => {
                    return alternatives
                        .iter()
                        .map(|alt| self.parse_word(alt, depth, scope))
                        .collect();
                }
                Some(_) => {}
                None => {
                    let mut w = self.parse_word(raw, depth, scope);
                    w.parts.push(Part::Other);
                    return vec![w];
                }
            }
        }
        vec![self.parse_word(raw, depth, scope)]
    }

    fn walk_simple(
        &mut self,
        cmd: &ast::SimpleCommand,
        depth: usize,
        scope: &mut Scope,
        input: Input,
        pos: Position,
    ) -> Source {
        let mut assigns = Vec::new();
        let mut argv: Vec<Word> = Vec::new();
        let mut raw_redirects: Vec<&ast::IoRedirect> = Vec::new();
        let items = cmd
            .prefix
            .iter()
            .flat_map(|p| p.0.iter())
            .map(Some)
            .chain(std::iter::once(None))
            .chain(cmd.suffix.iter().flat_map(|s| s.0.iter()).map(Some));
        for item in items {
            let Some(item) = item else {
                if let Some(w) = &cmd.word_or_name {
                    argv.extend(self.expand_word(&w.value, depth, scope));
                }
                continue;
            };
            match item {
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => raw_redirects.push(r),
                ast::CommandPrefixOrSuffixItem::Word(w) => {
                    argv.extend(self.expand_word(&w.value, depth, scope))
                }
                ast::CommandPrefixOrSuffixItem::AssignmentWord(assignment, w) => {
                    if argv.is_empty() {
                        let (name, value) = self.convert_assignment(assignment, depth, scope);
                        assigns.push((name, value));
                    } else {
                        // `export A=b`, `declare x=$(…)`: an argument, but still expanded.
                        argv.push(self.parse_word(&w.value, depth, scope));
                    }
                }
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                    argv.push(self.process_substitution(sub, depth, scope));
                }
            }
        }
        let owned: Vec<ast::IoRedirect> = raw_redirects.into_iter().cloned().collect();
        let (redirects, redirected_input) = self.convert_redirects(&owned, depth, scope);
        let input = redirected_input.unwrap_or(input);

        if let Some(name) = argv.first().and_then(|first| first.as_literal()) {
            if self.aliases.contains(&name) {
                self.finding(
                    FindingKind::AliasUsed,
                    format!("alias `{name}` is used after being defined"),
                );
            }
            if self.functions.contains(&name) {
                if self.calling.contains(&name) && (pos.in_pipeline || pos.background) {
                    self.finding(
                        FindingKind::ForkBomb,
                        format!("function `{name}` spawns copies of itself"),
                    );
                }
                // Function bodies were walked at definition; the call's own words were parsed.
                self.emit_bare_redirects(redirects, scope, depth);
                return Source::Unknown(name);
            }
            if name == "alias" {
                for arg in &argv[1..] {
                    if let Some(def) = arg.as_literal()
                        && let Some((alias, _)) = def.split_once('=')
                    {
                        self.aliases.insert(alias.to_string());
                    }
                }
            }
        }

        let inv = Invocation {
            assigns,
            argv,
            redirects,
            input,
            cwd: scope.cwd.clone(),
            via: Vec::new(),
            privileged: scope.privileged,
            args_from_input: false,
            found_under: Vec::new(),
            depth,
        };
        self.dispatch(inv, scope)
    }

    /// Records a simple command (after peeling wrappers) and returns what it writes to stdout.
    pub fn dispatch(&mut self, inv: Invocation, scope: &mut Scope) -> Source {
        if self.out.invocations.len() >= MAX_INVOCATIONS {
            self.finding(FindingKind::OverBudget, "too many commands");
            return Source::Unknown(String::new());
        }
        let inv = match self.unwrap(inv, scope) {
            Some(inv) => inv,
            None => return Source::Unknown(String::new()),
        };
        self.track_cwd(&inv, scope);
        if inv
            .argv
            .first()
            .and_then(|w| w.as_literal())
            .is_some_and(|p| p.contains('/'))
        {
            self.walk_executable(&inv, scope);
        }
        let source = output_of(&inv);
        self.out.invocations.push(inv);
        source
    }

    fn convert_assignment(
        &mut self,
        assignment: &ast::Assignment,
        depth: usize,
        scope: &Scope,
    ) -> (String, Word) {
        let name = match &assignment.name {
            ast::AssignmentName::VariableName(n) => n.clone(),
            ast::AssignmentName::ArrayElementName(n, _) => n.clone(),
        };
        let value = match &assignment.value {
            ast::AssignmentValue::Scalar(w) => self.parse_word(&w.value, depth, scope),
            ast::AssignmentValue::Array(items) => {
                for (k, v) in items {
                    if let Some(k) = k {
                        self.parse_word(&k.value, depth, scope);
                    }
                    self.parse_word(&v.value, depth, scope);
                }
                Word {
                    raw: String::from("(…)"),
                    parts: vec![Part::Other],
                }
            }
        };
        (name, value)
    }

    fn process_substitution(
        &mut self,
        sub: &ast::SubshellCommand,
        depth: usize,
        scope: &Scope,
    ) -> Word {
        let code = sub.list.to_string();
        let mut inner = scope.clone();
        let origin = if depth + 1 > MAX_DEPTH {
            self.finding(
                FindingKind::TooDeep,
                format!("code nested more than {MAX_DEPTH} levels deep"),
            );
            Source::Unknown(String::new())
        } else {
            self.walk_list(&sub.list, depth + 1, &mut inner, &Input::Inherited)
        };
        Word {
            raw: format!("<({code})"),
            parts: vec![Part::ProcSubst { code, origin }],
        }
    }

    /// Converts redirections; returns them plus the stdin they establish (file, heredoc, …).
    fn convert_redirects(
        &mut self,
        list: &[ast::IoRedirect],
        depth: usize,
        scope: &Scope,
    ) -> (Vec<Redirect>, Option<Input>) {
        let mut out = Vec::new();
        let mut input = None;
        for r in list {
            match r {
                ast::IoRedirect::File(fd, kind, target) => {
                    let kind = match kind {
                        ast::IoFileRedirectKind::Read => RedirectKind::Read,
                        ast::IoFileRedirectKind::Write | ast::IoFileRedirectKind::Clobber => {
                            RedirectKind::Write
                        }
                        ast::IoFileRedirectKind::Append => RedirectKind::Append,
                        ast::IoFileRedirectKind::ReadAndWrite => RedirectKind::ReadWrite,
                        ast::IoFileRedirectKind::DuplicateInput
                        | ast::IoFileRedirectKind::DuplicateOutput => RedirectKind::Duplicate,
                    };
                    let word = match target {
                        ast::IoFileRedirectTarget::Filename(w) => {
                            self.parse_word(&w.value, depth, scope)
                        }
                        ast::IoFileRedirectTarget::Fd(n) => Word::literal(&n.to_string()),
                        ast::IoFileRedirectTarget::Duplicate(w) => {
                            self.parse_word(&w.value, depth, scope)
                        }
                        ast::IoFileRedirectTarget::ProcessSubstitution(_, sub) => {
                            let w = self.process_substitution(sub, depth, scope);
                            if kind == RedirectKind::Read
                                && fd.unwrap_or(0) == 0
                                && let Some(origin) = w.origin()
                            {
                                input = Some(Input::From(origin.clone()));
                            }
                            // The pipe itself is not a file warden needs to judge.
                            continue;
                        }
                    };
                    let duplicate = matches!(
                        target,
                        ast::IoFileRedirectTarget::Fd(_) | ast::IoFileRedirectTarget::Duplicate(_)
                    );
                    let kind = if duplicate {
                        RedirectKind::Duplicate
                    } else {
                        kind
                    };
                    if kind == RedirectKind::Read && fd.unwrap_or(0) == 0 {
                        input = Some(match word.as_literal() {
                            Some(path) => Input::File(path),
                            None => Input::From(Source::Unknown(word.raw.clone())),
                        });
                    }
                    out.push(Redirect {
                        fd: *fd,
                        kind,
                        target: word,
                    });
                }
                ast::IoRedirect::HereDocument(fd, doc) => {
                    let text = if doc.requires_expansion {
                        let w = match word::parse_heredoc_body(&doc.doc.value, &mut |code: &str| {
                            let mut sub = scope.clone();
                            self.walk_code(code, depth + 1, &mut sub, Input::Inherited)
                        }) {
                            Ok(w) => w,
                            Err(e) => {
                                self.finding(FindingKind::ParseError, e.to_string());
                                continue;
                            }
                        };
                        match w.value(&self.ctx.home.to_string_lossy()) {
                            super::Value::Literal(text) => Source::Literal(text),
                            _ => Source::Unknown(String::from("heredoc with expansions")),
                        }
                    } else {
                        Source::Literal(doc.doc.value.clone())
                    };
                    if fd.unwrap_or(0) == 0 {
                        input = Some(Input::From(text));
                    }
                }
                ast::IoRedirect::HereString(fd, w) => {
                    let word = self.parse_word(&w.value, depth, scope);
                    if fd.unwrap_or(0) == 0 {
                        let source = match word.value(&self.ctx.home.to_string_lossy()) {
                            super::Value::Literal(text) => Source::Literal(text),
                            _ => word
                                .origin()
                                .cloned()
                                .unwrap_or(Source::Unknown(word.raw.clone())),
                        };
                        input = Some(Input::From(source));
                    }
                }
                ast::IoRedirect::OutputAndError(w, append) => {
                    let word = self.parse_word(&w.value, depth, scope);
                    out.push(Redirect {
                        fd: None,
                        kind: if *append {
                            RedirectKind::Append
                        } else {
                            RedirectKind::Write
                        },
                        target: word,
                    });
                }
            }
        }
        (out, input)
    }

    /// Redirections on compound commands and function calls are recorded as a command with no
    /// program, so their targets are judged like `> file` alone.
    fn emit_bare_redirects(&mut self, redirects: Vec<Redirect>, scope: &Scope, depth: usize) {
        if redirects.iter().all(|r| r.kind == RedirectKind::Duplicate) {
            return;
        }
        self.out.invocations.push(Invocation {
            assigns: Vec::new(),
            argv: Vec::new(),
            redirects,
            input: Input::Inherited,
            cwd: scope.cwd.clone(),
            via: Vec::new(),
            privileged: scope.privileged,
            args_from_input: false,
            found_under: Vec::new(),
            depth,
        });
    }

    fn track_cwd(&self, inv: &Invocation, scope: &mut Scope) {
        let Some(program) = inv.program() else { return };
        let operand = || -> Option<&Word> {
            inv.argv.iter().skip(1).find(|w| {
                w.as_literal()
                    .is_none_or(|t| !t.starts_with('-') || t == "-")
            })
        };
        match program.as_str() {
            "cd" | "pushd" => {
                let next = match operand() {
                    None if program == "cd" => Some(self.ctx.home.clone()),
                    None => None,
                    Some(w) => match w.value(&self.ctx.home.to_string_lossy()) {
                        super::Value::Literal(dir) if dir != "-" => {
                            scope.cwd.as_ref().map(|cwd| join_normal(cwd, &dir))
                        }
                        _ => None,
                    },
                };
                if program == "pushd" {
                    scope.dirstack.push(scope.cwd.clone());
                }
                scope.cwd = next;
            }
            "popd" => scope.cwd = scope.dirstack.pop().flatten(),
            _ => {}
        }
    }
}

/// Joins `path` onto `base` and removes `.` and `..` lexically (as `cd` does by default).
pub fn join_normal(base: &Path, path: &str) -> PathBuf {
    let joined = if path.starts_with('/') {
        PathBuf::from(path)
    } else {
        base.join(path)
    };
    let mut out = PathBuf::from("/");
    for comp in joined.components() {
        match comp {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(c) => out.push(c),
            _ => {}
        }
    }
    out
}

/// What a command writes to its standard output, as far as it can be known.
fn output_of(inv: &Invocation) -> Source {
    let Some(program) = inv.program() else {
        return Source::Unknown(String::new());
    };
    let literal_args =
        || -> Option<Vec<String>> { inv.argv[1..].iter().map(|w| w.as_literal()).collect() };
    match program.as_str() {
        "echo" => match literal_args() {
            Some(args) => {
                let args: Vec<String> = args
                    .into_iter()
                    .skip_while(|a| {
                        a.starts_with('-')
                            && a.len() > 1
                            && a[1..].chars().all(|c| "neE".contains(c))
                    })
                    .collect();
                Source::Literal(args.join(" "))
            }
            None => Source::Unknown(program),
        },
        "printf" => match literal_args() {
            Some(args) => Source::Literal(word::decode_ansi_c(&args.join(" "))),
            None => Source::Unknown(program),
        },
        "cat" | "tee" if inv.argv.len() == 1 || program == "tee" => match &inv.input {
            Input::From(source) => source.clone(),
            _ => Source::Unknown(program),
        },
        "curl" | "wget" | "fetch" | "http" | "https" | "xh" | "aria2c" | "lynx" | "links" => {
            Source::Download(program)
        }
        _ => Source::Unknown(program),
    }
}

/// Expands `{a,b}` and `{1..3}` like bash, bounded to 64 results; None when over the bound.
fn expand_braces(raw: &str) -> Option<Vec<String>> {
    use brush_parser::word::{BraceExpressionMember, BraceExpressionOrText};
    const LIMIT: usize = 64;
    // The grammar crate's brace parser backtracks exponentially on nested braces
    // (`{{{{…{x,` found by fuzzing): beyond a few levels the word is treated as unknowable.
    let (mut depth, mut deepest) = (0usize, 0usize);
    for b in raw.bytes() {
        match b {
            b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    // It also panics on a sequence bound that overflows an i64 (`{0000…0005..a}`, fuzzing).
    let longest_digits = raw
        .split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0);
    if deepest > 4 || raw.bytes().filter(|&b| b == b'{').count() > 16 || longest_digits > 18 {
        return None;
    }
    let options = super::parser_options();
    let Ok(Some(pieces)) = brush_parser::word::parse_brace_expansions(raw, &options) else {
        return Some(vec![raw.to_string()]);
    };
    fn expand(pieces: &[BraceExpressionOrText]) -> Option<Vec<String>> {
        let mut results = vec![String::new()];
        for piece in pieces {
            let alternatives: Vec<String> = match piece {
                BraceExpressionOrText::Text(t) => vec![t.clone()],
                BraceExpressionOrText::Expr(members) => {
                    let mut alts = Vec::new();
                    for m in members {
                        match m {
                            BraceExpressionMember::Child(inner) => alts.extend(expand(inner)?),
                            BraceExpressionMember::NumberSequence {
                                start,
                                end,
                                increment,
                            } => {
                                let step = increment.unsigned_abs().max(1);
                                let count = start.abs_diff(*end) / step + 1;
                                if count > LIMIT as u64 {
                                    return None;
                                }
                                let mut v = *start;
                                for _ in 0..count {
                                    alts.push(v.to_string());
                                    v = if start <= end {
                                        v.saturating_add(step as i64)
                                    } else {
                                        v.saturating_sub(step as i64)
                                    };
                                }
                            }
                            BraceExpressionMember::CharSequence { start, end, .. } => {
                                let (a, b) = (*start as u32, *end as u32);
                                if a.abs_diff(b) as usize >= LIMIT {
                                    return None;
                                }
                                let range: Vec<u32> = if a <= b {
                                    (a..=b).collect()
                                } else {
                                    (b..=a).rev().collect()
                                };
                                alts.extend(
                                    range
                                        .into_iter()
                                        .filter_map(char::from_u32)
                                        .map(String::from),
                                );
                            }
                        }
                    }
                    alts
                }
            };
            let mut next = Vec::new();
            for r in &results {
                for a in &alternatives {
                    next.push(format!("{r}{a}"));
                    if next.len() > LIMIT {
                        return None;
                    }
                }
            }
            results = next;
        }
        Some(results)
    }
    expand(&pieces)
}
