//! Environment faults: an I/O error that says nothing about the repository judged (no space left,
//! a file too large for the limits, too many open files, no memory, a device error). The gate
//! reports what the repository holds; when it could not read or write because the machine failed
//! it, any verdict it gave would be the machine's, not the repository's. Each such error is noted
//! where it happens (the gate's reads of the work tree, the loop's state file, the commands it
//! starts); a caller that must tell them apart from verdicts (gatebench's built-in pipeline: a full
//! disk made a golden a false alarm, too few file descriptors turned FAILs into BLOCKED) runs the
//! gate inside [`collect`] and gets them back. The gate runs on one thread, so the notes are kept
//! per thread.

use std::cell::RefCell;

thread_local! {
    static NOTED: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// The error numbers that are the machine's, not the repository's.
const ENVIRONMENTAL: [i32; 8] = [
    28,  // ENOSPC
    122, // EDQUOT
    27,  // EFBIG (RLIMIT_FSIZE)
    24,  // EMFILE
    23,  // ENFILE
    12,  // ENOMEM
    5,   // EIO
    105, // ENOBUFS
];

fn environmental(errno: i32) -> bool {
    ENVIRONMENTAL.contains(&errno)
}

/// Notes `error` (what was being done: `what`) when it is an environment fault; returns whether
/// it was.
pub fn note_io(what: &str, error: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    let machine = match error.raw_os_error() {
        Some(errno) => environmental(errno),
        // An error wrapped with context (tempfile adds the path) keeps its kind, and its text
        // still ends with the number.
        None => {
            matches!(
                error.kind(),
                ErrorKind::StorageFull
                    | ErrorKind::FileTooLarge
                    | ErrorKind::QuotaExceeded
                    | ErrorKind::OutOfMemory
            ) || return note_text(what, &error.to_string())
        }
    };
    if machine {
        note(format!("{what}: {error}"));
    }
    machine
}

/// [`note_io`] for an error text, as a process start gives it (`... (os error 24)`).
pub fn note_text(what: &str, text: &str) -> bool {
    let errno = text
        .split_once("(os error ")
        .and_then(|(_, rest)| rest.split(')').next())
        .and_then(|n| n.parse::<i32>().ok());
    match errno {
        Some(errno) if environmental(errno) => {
            note(format!("{what}: {text}"));
            true
        }
        _ => false,
    }
}

/// [`note_io`] for a libgit2 error: one of its operating-system class (an open or a read the
/// system refused) on a repository the caller just built.
pub fn note_git(what: &str, error: &git2::Error) -> bool {
    if error.class() == git2::ErrorClass::Os {
        note(format!("{what}: {}", error.message()));
        true
    } else {
        false
    }
}

fn note(text: String) {
    NOTED.with(|n| {
        if let Some(list) = n.borrow_mut().as_mut() {
            list.push(text);
        }
    });
}

/// Runs `f` and returns what it returned with the environment faults noted while it ran (on this
/// thread). Outside `collect`, nothing is noted.
pub fn collect<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    let outer = NOTED.with(|n| n.borrow_mut().replace(Vec::new()));
    let value = f();
    let noted = NOTED.with(|n| std::mem::replace(&mut *n.borrow_mut(), outer));
    (value, noted.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_machines_errors_are_noted_and_only_inside_collect() {
        let full = std::io::Error::from_raw_os_error(28);
        let missing = std::io::Error::from_raw_os_error(2);
        assert!(note_io("outside", &full));
        let ((), noted) = collect(|| {
            assert!(note_io("write x", &full));
            assert!(!note_io("read y", &missing));
            assert!(note_text("start z", "Too many open files (os error 24)"));
            assert!(!note_text(
                "start z",
                "No such file or directory (os error 2)"
            ));
        });
        assert_eq!(noted.len(), 2, "{noted:?}");
        assert!(noted[0].starts_with("write x: "));
    }
}
