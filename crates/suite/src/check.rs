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

/// The Python of a `python... -m pytest` command and the interpreter's own options before `-m`
/// (`-S`, `-I`, `-X dev`: they change what it can import), `None` for any other command.
pub(crate) fn pytest_python(command: &SuiteCommand) -> Option<(&str, &[String])> {
    let argv = &command.argv;
    let program = argv.first()?;
    let module = argv
        .windows(2)
        .position(|w| w[0] == "-m" && w[1] == "pytest")?;
    base_name(program)
        .starts_with("python")
        .then(|| (program.as_str(), &argv[1..module]))
}

/// `Ok` when `command` can start here: its program exists (`SuiteError::Missing`, e.g.
/// "`python3` is not on PATH"), and for `python -m pytest`, that Python (with the command's
/// interpreter options) imports pytest inside the sandbox (`SuiteError::PytestMissing`, asked
/// once a process per Python and options).
pub fn check_available(command: &SuiteCommand) -> Result<(), SuiteError> {
    let program = command.argv.first().ok_or(SuiteError::Empty)?;
    let resolved = resolve(program).ok_or_else(|| SuiteError::Missing {
        program: program.clone(),
    })?;
    if let Some((_, options)) = pytest_python(command) {
        if !imports_pytest(&resolved, options) {
            return Err(SuiteError::PytestMissing { python: resolved });
        }
    }
    Ok(())
}

/// Whether `python OPTIONS -c "import pytest"` succeeds in the sandbox (remembered per Python
/// and options).
fn imports_pytest(python: &Path, options: &[String]) -> bool {
    type Known = HashMap<(PathBuf, Vec<String>), bool>;
    static KNOWN: OnceLock<Mutex<Known>> = OnceLock::new();
    let key = (python.to_path_buf(), options.to_vec());
    let known = KNOWN.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(&answer) = known.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return answer;
    }
    let answer = Room::new(&[], false, None).is_ok_and(|room| {
        let mut argv = vec![python.display().to_string()];
        argv.extend(options.iter().cloned());
        argv.extend(["-c".to_owned(), "import pytest".to_owned()]);
        room.run(&argv, &room.scratch(), IMPORT_TIMEOUT).exit_code == Some(0)
    });
    known
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, answer);
    answer
}
