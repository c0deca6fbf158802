//! A project's declared test command: split into words as a shell would split them (no shell
//! runs it), the framework it runs told from its words, and the same command narrowed to a few
//! tests (`narrow.rs`).

mod narrow;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::error::SuiteError;
use crate::results::{Framework, TestOutcome};

/// Words that a shell would read as an operator: refused, since no shell runs the command.
const SHELL_OPERATORS: &[&str] = &[
    "&&", "||", "|", ";", "&", ">", ">>", "<", "<<", "2>", "2>>", "2>&1", ">&2", "&>", ";;", "(",
    ")",
];

/// A test command: the program and its arguments, run without a shell.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SuiteCommand {
    pub argv: Vec<String>,
}

impl SuiteCommand {
    /// Splits a declared command into words the way a POSIX shell does (`'...'`, `"..."`,
    /// backslashes; shlex). A word that is a shell operator (`&&`, `|`, `;`, `>`, ...) is
    /// refused, quoted or not (the split does not tell them apart): the command is run without a
    /// shell, where it would be an argument, not an operator.
    pub fn parse(text: &str) -> Result<SuiteCommand, SuiteError> {
        let argv = shlex::split(text).ok_or_else(|| SuiteError::Unbalanced {
            text: text.to_owned(),
        })?;
        if argv.is_empty() {
            return Err(SuiteError::Empty);
        }
        if let Some(word) = argv.iter().find(|w| SHELL_OPERATORS.contains(&w.as_str())) {
            return Err(SuiteError::ShellSyntax {
                text: text.to_owned(),
                word: word.clone(),
            });
        }
        Ok(SuiteCommand { argv })
    }

    /// The command's words as one line, quoted where a shell would need it.
    pub fn display(&self) -> String {
        shlex::try_join(self.argv.iter().map(String::as_str))
            .unwrap_or_else(|_| self.argv.join(" "))
    }

    /// The program: the first word.
    pub fn program(&self) -> &str {
        self.argv.first().map_or("", String::as_str)
    }

    /// The framework the command runs, told from its words: `pytest ...`, `py.test ...` or
    /// `python... -m pytest ...`; `node ... --test ...`; `cargo [+toolchain] test ...`. `None` for
    /// anything else (a script, `npm test`, `make test`): its output may still be recognised by
    /// [`crate::parse`].
    pub fn framework(&self) -> Option<Framework> {
        // The program decides first: `node --test pytest/` is node's.
        if narrow::cargo_test_at(&self.argv).is_some() {
            Some(Framework::Libtest)
        } else if narrow::node_test_flag(&self.argv).is_some() {
            Some(Framework::NodeTest)
        } else if narrow::pytest_args_start(&self.argv).is_some() {
            Some(Framework::Pytest)
        } else {
            None
        }
    }

    /// Whether the program is cargo (its toolchain is then granted to the sandbox).
    pub fn is_cargo(&self) -> bool {
        base_name(self.program()) == "cargo"
    }

    /// The command narrowed to `tests` (their ids as [`crate::parse`] gives them):
    /// - pytest: the command's own path arguments replaced by the tests' node ids;
    /// - node --test: `--test-name-pattern` with an anchored, escaped regex for each test's own
    ///   title (its last ` > ` part), right after `--test`, any pattern of the command's own
    ///   left out. Node 20 matches a pattern against a test's own title only, and runs every
    ///   subtest of a matched test: a `describe`'s test is reached by its title alone, but a
    ///   subtest of a `test()` (`t.test`) is not run unless its parent matches too, which then
    ///   runs all its siblings; such a subtest is not run by the narrowed command (its id is
    ///   then missing from the results);
    /// - cargo test: the targets the tests belong to (`--lib`, `--bins`, `--test NAME`, `--bench
    ///   NAME`, `--example NAME`, `--doc`; none when doc tests and other targets are mixed, which
    ///   cargo refuses), then after `--` the test names as filters with `--exact`; the command's
    ///   own name filters are left out.
    ///
    /// An error when `tests` is empty, the command is not a `framework` command this crate knows
    /// (`Unsupported`), or a test cannot be selected by name (a pytest skip reported only by
    /// location).
    pub fn only(
        &self,
        framework: Framework,
        tests: &[&TestOutcome],
    ) -> Result<SuiteCommand, SuiteError> {
        if tests.is_empty() {
            return Err(SuiteError::NothingSelected);
        }
        let unsupported = || SuiteError::Unsupported {
            framework,
            command: self.display(),
        };
        let argv = match framework {
            Framework::Pytest => narrow::pytest(&self.argv, tests),
            Framework::NodeTest => narrow::node(&self.argv, tests),
            Framework::Libtest => narrow::cargo(&self.argv, tests),
        };
        match argv {
            Some(argv) => Ok(SuiteCommand { argv: argv? }),
            None => Err(unsupported()),
        }
    }
}

/// The last part of a path (`/usr/bin/python3` gives `python3`).
pub(crate) fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}
