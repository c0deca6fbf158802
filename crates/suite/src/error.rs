//! Why a suite command cannot be used: it cannot be split, its program is missing, pytest is not
//! installed for its Python, or it cannot be narrowed to some tests. Each message is what a user
//! reads.

use std::path::PathBuf;

use crate::results::Framework;

/// Why a suite command cannot be split, run or narrowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SuiteError {
    /// The declared command has no words.
    #[error("the test command is empty")]
    Empty,
    /// A quote is not closed, or the text holds a NUL.
    #[error("the test command `{text}` cannot be split into words (a quote is not closed)")]
    Unbalanced { text: String },
    /// A shell operator outside quotes: the command is run without a shell.
    #[error(
        "the test command `{text}` holds `{word}`, which is shell syntax: the command is run \
         without a shell (write `sh -c '...'` for one)"
    )]
    ShellSyntax { text: String, word: String },
    /// The program cannot be found.
    #[error("{}", missing(program))]
    Missing { program: String },
    /// `python -m pytest` with a Python that cannot import pytest.
    #[error(
        "pytest is not installed for {} (apt install python3-pytest, or pip install pytest)",
        python.display()
    )]
    PytestMissing { python: PathBuf },
    /// [`crate::SuiteCommand::only`] was given no test.
    #[error("no test was given to narrow the command to")]
    NothingSelected,
    /// The command is not one this crate knows how to narrow for the framework.
    #[error(
        "`{command}` is not a {framework:?} command this crate can narrow to single tests \
         (pytest: `pytest ...` or `python -m pytest ...`; node: `node --test ...`; cargo: \
         `cargo test ...`)"
    )]
    Unsupported {
        framework: Framework,
        command: String,
    },
    /// A test id that the framework cannot select (a pytest skip reported by location only).
    #[error("the test `{id}` cannot be selected by name")]
    NotSelectable { id: String },
}

/// The message of a missing program: not on `PATH`, or not an executable file at the path given.
fn missing(program: &str) -> String {
    if program.contains('/') {
        format!("`{program}` does not exist or is not an executable file")
    } else {
        format!("`{program}` is not on PATH")
    }
}
