//! The interactive session's prompt: where a person types the next line.
//!
//! On a terminal (stdin and stdout both, `TERM` not `dumb`) the line can be edited (arrows,
//! Ctrl-A/E, Ctrl-R to search, Up/Down to recall) with the history of earlier sessions
//! ([`crate::history`]); elsewhere the prompt goes to stderr and plain lines are read, as a
//! terminal without editing has them. Either way every entered line is recorded in the history
//! before anything decides on it. The terminal is in raw mode only while a line is being read:
//! commands and approval questions get it as they always had it, and lines typed ahead while a
//! command ran are kept for the prompts after it.

use std::io::{BufRead, IsTerminal, Write};

use rustyline::error::ReadlineError;
use rustyline::history::MemHistory;
use rustyline::{Config, Editor};

use crate::history::History;

/// What the person did at the prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entered {
    /// A line, without its newline; may be blank.
    Line(String),
    /// Ctrl-C: the line was dropped, ask again.
    Cleared,
    /// Ctrl-D on an empty line, or the end of input.
    End,
}

/// The prompt of one session.
pub struct Prompt {
    text: &'static str,
    editor: Option<Editor<(), MemHistory>>,
    history: Option<History>,
    /// The history file failed once already (said once, not at every line).
    history_failed: bool,
}

impl Prompt {
    /// A prompt showing `text`, with editing when the terminal allows it.
    pub fn new(text: &'static str) -> Prompt {
        let history = History::open();
        let editing = std::io::stdin().is_terminal()
            && std::io::stdout().is_terminal()
            && std::env::var_os("TERM").is_none_or(|t| t != "dumb");
        let editor = editing.then(|| editor(history.as_ref())).flatten();
        Prompt {
            text,
            editor,
            history,
            history_failed: false,
        }
    }

    /// Shows the prompt and waits for the next line.
    pub fn read(&mut self) -> std::io::Result<Entered> {
        let entered = match &mut self.editor {
            Some(editor) => match editor.readline(self.text) {
                Ok(line) => {
                    if !unrecorded(&line) {
                        let _ = editor.add_history_entry(line.as_str());
                    }
                    Entered::Line(line)
                }
                Err(ReadlineError::Interrupted) => Entered::Cleared,
                // The editor has already ended the line on the terminal.
                Err(ReadlineError::Eof) => Entered::End,
                Err(ReadlineError::Io(e)) => return Err(e),
                Err(e) => return Err(std::io::Error::other(e)),
            },
            None => plain(self.text)?,
        };
        if let Entered::Line(line) = &entered {
            self.record(line);
        }
        Ok(entered)
    }

    fn record(&mut self, line: &str) {
        if line.trim().is_empty() || unrecorded(line) {
            return;
        }
        let Some(history) = &self.history else {
            return;
        };
        if let Err(e) = history.append(line)
            && !self.history_failed
        {
            self.history_failed = true;
            eprintln!(
                "warden: the history {} could not be written: {e}",
                history.path().display()
            );
        }
    }
}

/// A line typed with a leading space is kept out of the history, as bash does with
/// `HISTCONTROL=ignorespace`: the way to run something with a secret on its line.
fn unrecorded(line: &str) -> bool {
    line.starts_with(' ')
}

/// An editor in emacs style with the recorded history loaded; None when the terminal cannot
/// have one.
fn editor(history: Option<&History>) -> Option<Editor<(), MemHistory>> {
    let config = Config::builder()
        .max_history_size(crate::history::LIMIT)
        .ok()?
        .history_ignore_dups(true)
        .ok()?
        .auto_add_history(false)
        .build();
    let memory = MemHistory::with_config(&config);
    let mut editor = Editor::with_history(config, memory).ok()?;
    if let Some(history) = history {
        match history.load() {
            Ok(entries) => {
                for entry in entries {
                    let _ = editor.add_history_entry(entry);
                }
            }
            Err(e) => eprintln!(
                "warden: the history {} could not be read: {e}",
                history.path().display()
            ),
        }
    }
    Some(editor)
}

/// A line read as is: the prompt on stderr, the line from stdin.
fn plain(text: &str) -> std::io::Result<Entered> {
    eprint!("{text}");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line)? == 0 {
        eprintln!();
        return Ok(Entered::End);
    }
    let line = line.trim_end_matches(['\n', '\r']);
    Ok(Entered::Line(line.to_string()))
}
