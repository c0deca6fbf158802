//! The library's error type: every error names the file it is about and, where known, the line
//! and column, so that a person can go straight to it.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::exit_code;

/// A line and column, both 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Input the user gave (a fixture, a scenario, a command-line value) is invalid.
    #[error("{}: {message}", located(file, *position))]
    Invalid {
        file: PathBuf,
        position: Option<Position>,
        message: String,
    },
    /// Reading or writing a file failed.
    #[error("failed to {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// libgit2 failed while building or reading a repository.
    #[error("git failed to {action}: {source}")]
    Git {
        action: String,
        #[source]
        source: git2::Error,
    },
    /// A bug or an impossible state inside gatebench.
    #[error("internal error: {0}")]
    Internal(String),
    /// The run was interrupted (Ctrl-C) and wrote no results.
    #[error("interrupted: no results written")]
    Interrupted,
}

impl Error {
    pub fn invalid(file: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::Invalid {
            file: file.into(),
            position: None,
            message: message.into(),
        }
    }

    pub fn invalid_at(
        file: impl Into<PathBuf>,
        position: Option<Position>,
        message: impl Into<String>,
    ) -> Self {
        Error::Invalid {
            file: file.into(),
            position,
            message: message.into(),
        }
    }

    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }

    pub fn git(action: impl Into<String>, source: git2::Error) -> Self {
        Error::Git {
            action: action.into(),
            source,
        }
    }

    /// The exit code the binary uses for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Invalid { .. } => exit_code::USAGE,
            Error::Io { .. } | Error::Git { .. } | Error::Internal(_) => exit_code::INTERNAL,
            Error::Interrupted => exit_code::INTERRUPTED,
        }
    }
}

fn located(file: &Path, position: Option<Position>) -> Located<'_> {
    Located { file, position }
}

struct Located<'a> {
    file: &'a Path,
    position: Option<Position>,
}

impl fmt::Display for Located<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(p) => write!(f, "{}:{}:{}", self.file.display(), p.line, p.column),
            None => write!(f, "{}", self.file.display()),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
