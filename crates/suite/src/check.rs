//! Whether a suite command can run here at all: its program found on the caller's `PATH` (or at
//! the path it names), and for `python -m pytest`, pytest importable by that Python, asked once
//! a process per Python, inside the same sandbox a run gets (a pytest the sandbox cannot see is
//! as missing as one not installed).

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::command::{base_name, SuiteCommand};
use crate::error::SuiteError;
use crate::room::{caller_path, Room};

/// How long asking a Python whether it has pytest may take.
const IMPORT_TIMEOUT: Duration = Duration::from_secs(60);

/// The program as the command would run it: a word with a slash as given (an absolute one must
/// be an executable file; a relative one is in the project's folder, not checked), else the
/// first executable file of that name on the caller's `PATH`; `None` when there is none.
pub(crate) fn resolve(program: &str) -> Option<PathBuf> {
    let executable = |p: &Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.is_empty() {
        return None;
    }
    if program.contains('/') {
        let path = Path::new(program);
        // A relative path names a file of the project's folder, which is not known here.
        return (path.is_relative() || executable(path)).then(|| path.to_path_buf());
    }
    std::env::split_paths(&caller_path())
        .map(|dir| dir.join(program))
        .find(|candidate| executable(candidate))
}

/// The Python of a `python... -m pytest` command, `None` for any other command.
pub(crate) fn pytest_python(command: &SuiteCommand) -> Option<&str> {
    let argv = &command.argv;
    let program = argv.first()?;
    let module = argv.windows(2).any(|w| w[0] == "-m" && w[1] == "pytest");
    (base_name(program).starts_with("python") && module).then_some(program.as_str())
}

/// `Ok` when `command` can start here: its program exists (`SuiteError::Missing`, e.g.
/// "`python3` is not on PATH"), and for `python -m pytest`, that Python imports pytest inside
/// the sandbox (`SuiteError::PytestMissing`, asked once a process per Python).
pub fn check_available(command: &SuiteCommand) -> Result<(), SuiteError> {
    let program = command.argv.first().ok_or(SuiteError::Empty)?;
    let resolved = resolve(program).ok_or_else(|| SuiteError::Missing {
        program: program.clone(),
    })?;
    if pytest_python(command).is_some() && !imports_pytest(&resolved) {
        return Err(SuiteError::PytestMissing { python: resolved });
    }
    Ok(())
}

/// Whether `python -c "import pytest"` succeeds in the sandbox (remembered per Python).
fn imports_pytest(python: &Path) -> bool {
    static KNOWN: OnceLock<Mutex<HashMap<PathBuf, bool>>> = OnceLock::new();
    let known = KNOWN.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(&answer) = known.lock().unwrap_or_else(|p| p.into_inner()).get(python) {
        return answer;
    }
    let answer = Room::new(&[], false, None).is_ok_and(|room| {
        let argv = [
            python.display().to_string(),
            "-c".to_owned(),
            "import pytest".to_owned(),
        ];
        room.run(&argv, &room.scratch(), IMPORT_TIMEOUT).exit_code == Some(0)
    });
    known
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(python.to_path_buf(), answer);
    answer
}
