//! What a test command runs on, as a string for cache keys: the program's real path and what its
//! `--version` says, and for `python -m pytest` pytest's version, for `cargo` rustc's. Asked in
//! the sandbox a run gets, with its environment (rustup picks the toolchain from it), once a
//! process per command form.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::check::{pytest_python, resolve};
use crate::command::SuiteCommand;
use crate::room::Room;

/// How long one `--version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(60);

/// The toolchain `command` runs on: lines of its program's resolved real path and `--version`
/// output; for `python -m pytest`, then `python [OPTIONS] -m pytest --version`; for `cargo`, then
/// `rustc --version`. A program that cannot be found gives `PROGRAM: not found`; a version that
/// cannot be asked gives what the attempt printed (or why it could not start). Memoized for the
/// process, per program and form (the rest of the command does not change the toolchain, the
/// Python's own options before `-m pytest` may).
pub fn toolchain_id(command: &SuiteCommand) -> String {
    type Known = HashMap<(String, Option<Vec<String>>), String>;
    static KNOWN: OnceLock<Mutex<Known>> = OnceLock::new();
    let pytest = pytest_python(command).map(|(_, options)| options.to_vec());
    let key = (command.program().to_owned(), pytest.clone());
    let known = KNOWN.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(id) = known.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return id.clone();
    }
    let id = ask(command, pytest.as_deref());
    known
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, id.clone());
    id
}

/// Asks the program (and pytest, or rustc) for their versions.
fn ask(command: &SuiteCommand, pytest: Option<&[String]>) -> String {
    let program = command.program();
    let Some(resolved) = resolve(program) else {
        return format!("{program}: not found");
    };
    let real = gatebench_process::real(&resolved).display().to_string();
    let room = match Room::new(&[], command.is_cargo(), None) {
        Ok(room) => room,
        Err(e) => return format!("{real}\nno scratch folder: {e}"),
    };
    let version = |argv: &[&str]| {
        let argv: Vec<String> = argv.iter().map(|w| (*w).to_owned()).collect();
        let record = room.run(&argv, &room.scratch(), VERSION_TIMEOUT);
        match &record.spawn_error {
            Some(why) => format!("{}: {why}", argv.join(" ")),
            None => format!("{}{}", record.stdout.text, record.stderr.text)
                .trim()
                .to_owned(),
        }
    };
    // Asked through the path found, not the real one: a rustup proxy (`cargo` -> `rustup`) is
    // told what to run by the name it is started under.
    let found = resolved.display().to_string();
    let mut lines = vec![real, version(&[&found, "--version"])];
    if let Some(options) = pytest {
        let mut argv: Vec<&str> = vec![&found];
        argv.extend(options.iter().map(String::as_str));
        argv.extend(["-m", "pytest", "--version"]);
        lines.push(version(&argv));
    }
    if command.is_cargo() {
        let rustc = resolve("rustc").map_or("rustc".to_owned(), |p| p.display().to_string());
        lines.push(version(&[&rustc, "--version"]));
    }
    lines.join("\n")
}
