//! The formats of the ids gatebench reads back from files it did not write in this process
//! (results files, shards, cached trials, the object store) and may build a path from: case ids,
//! fixture ids, run ids, pipeline names, trial numbers and object references. Every such id is
//! checked here, once when the file is read (`results::parse`) and again where a path is built
//! from it (`objects::Store`, the trial logs, `explain`), so that an id like `../../x` in a
//! results file can never name a folder or a file outside the run it belongs to.

use std::path::Path;

use crate::error::{Error, Result};

/// A case id: 12 lowercase hex digits (`workdir::case_id`).
pub fn is_case_id(s: &str) -> bool {
    s.len() == 12 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// An object reference: the sha256 of the object, 64 lowercase hex digits (`objects::Store`).
pub fn is_object_ref(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A fixture id (the loader's rule for `id:`, which generated mutants' ids follow too: their
/// golden's id, operator name and site joined by `--`): lowercase letters, digits and dashes, not
/// starting with a dash. No length bound: an id is never a path component on its own (a trial's
/// folders are named by its case id).
pub fn is_fixture_id(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The longest pipeline name of a matrix (`pipelines:`).
pub const MAX_PIPELINE_NAME: usize = 64;

/// A matrix pipeline's name (its folder under `pipelines/`): 1 to [`MAX_PIPELINE_NAME`] letters,
/// digits, `.`, `_` or `-`, not starting with `.`.
pub fn is_pipeline_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_PIPELINE_NAME
        && !s.starts_with('.')
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The longest run id: a file name (255 bytes on Linux file systems).
pub const MAX_RUN_ID: usize = 255;

/// A run id as gatebench writes them (`YYYYMMDDTHHMMSSZ-<scenario>-<suffix>`, or a baseline's
/// `baseline-<scenario>`): one path component, so it is read as at most [`MAX_RUN_ID`] bytes,
/// none of them `/`, NUL or a control character, and not `.` or `..`.
pub fn is_run_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_RUN_ID
        && s != "."
        && s != ".."
        && !s.chars().any(|c| c == '/' || c == '\\' || c.is_control())
}

/// The error for `value`, read from `file` as a `what`, not in its `format`.
pub fn bad(file: &Path, what: &str, value: &str, format: &str) -> Error {
    Error::invalid(
        file,
        format!(
            "{what} `{}` is not {format}: the file was not written by gatebench, or was changed",
            value.escape_debug()
        ),
    )
}

/// `value` as a case id, or an error naming `file`.
pub fn case_id<'a>(file: &Path, value: &'a str) -> Result<&'a str> {
    if is_case_id(value) {
        Ok(value)
    } else {
        Err(bad(file, "case id", value, "a case id (12 hex digits)"))
    }
}

/// `value` as an object reference, or an error naming `file`.
pub fn object_ref<'a>(file: &Path, value: &'a str) -> Result<&'a str> {
    if is_object_ref(value) {
        Ok(value)
    } else {
        Err(bad(
            file,
            "object reference",
            value,
            "an object reference (64 hex digits)",
        ))
    }
}

/// `value` as a fixture id, or an error naming `file`.
pub fn fixture_id<'a>(file: &Path, value: &'a str) -> Result<&'a str> {
    if is_fixture_id(value) {
        Ok(value)
    } else {
        Err(bad(
            file,
            "fixture id",
            value,
            "a fixture id (lowercase letters, digits and dashes)",
        ))
    }
}

/// `value` as a run id, or an error naming `file`.
pub fn run_id<'a>(file: &Path, value: &'a str) -> Result<&'a str> {
    if is_run_id(value) {
        Ok(value)
    } else {
        Err(bad(file, "run id", value, "a run id (one file name)"))
    }
}

/// `value` as a matrix pipeline's name, or an error naming `file`.
pub fn pipeline_name<'a>(file: &Path, value: &'a str) -> Result<&'a str> {
    if is_pipeline_name(value) {
        Ok(value)
    } else {
        Err(bad(
            file,
            "pipeline name",
            value,
            "a pipeline name (letters, digits, `.`, `_`, `-`)",
        ))
    }
}

/// `trial` of `fixture` as a trial number of a run of `count` trials per fixture (0-based), or
/// an error naming `file`.
pub fn trial_number(file: &Path, fixture: &str, trial: u32, count: u32) -> Result<u32> {
    if trial < count {
        Ok(trial)
    } else {
        Err(Error::invalid(
            file,
            format!(
                "trial {trial} of `{fixture}` is not a trial of this run: it has {count} trial(s) per fixture, numbered from 0"
            ),
        ))
    }
}

/// A name as it goes into a run id: ASCII letters, digits, `-` and `_` kept, anything else `-`.
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_would_leave_a_folder_are_refused() {
        for bad in ["../../x", "..", ".", "", "a/b", "/abs", "a\0b", "a\nb"] {
            assert!(!is_case_id(bad), "{bad:?}");
            assert!(!is_object_ref(bad), "{bad:?}");
            assert!(!is_fixture_id(bad), "{bad:?}");
            assert!(!is_pipeline_name(bad), "{bad:?}");
            assert!(!is_run_id(bad), "{bad:?}");
        }
        assert!(is_case_id("0123456789ab"));
        assert!(!is_case_id("0123456789AB"));
        assert!(is_object_ref(&"a".repeat(64)));
        assert!(!is_object_ref(&"a".repeat(63)));
        assert!(is_fixture_id("envload-apply--drop-task--t2"));
        assert!(!is_fixture_id("-x"));
        assert!(is_pipeline_name("my.verifier_2"));
        assert!(!is_pipeline_name(".hidden"));
        assert!(is_run_id("20261129T202426Z-default-9315"));
        assert!(is_run_id("baseline-my scenario"));
        assert!(!is_run_id(&"a".repeat(MAX_RUN_ID + 1)));
    }
}
