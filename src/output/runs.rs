//! Finding runs on disk: a results file or a run folder named on the command line, or the newest
//! run under `reports/` (run ids start with a UTC stamp, so they sort by time).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::output::results::{self, RunResults};

/// The results file a path names: the file itself, or `results.json` inside a run folder.
pub fn results_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("results.json")
    } else {
        path.to_path_buf()
    }
}

/// Reads the run a path names (a results file or a run folder).
pub fn read(path: &Path) -> Result<RunResults> {
    let file = results_file(path);
    if !file.is_file() {
        return Err(Error::invalid(
            path,
            "not a results file, nor a run folder holding results.json",
        ));
    }
    results::read(&file)
}

/// Whether a folder name is a run id (`YYYYMMDDTHHMMSSZ-...`), as opposed to `baseline/`.
fn is_run_id(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() > 17
        && b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'T'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'Z'
        && b[16] == b'-'
}

/// The newest run folder under `reports_dir` that holds a `results.json`; `None` when there is
/// none. The committed `baseline/` is not a run of this checkout and is never picked.
pub fn newest(reports_dir: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(reports_dir).ok()?;
    entries
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name().to_str().is_some_and(is_run_id) && e.path().join("results.json").is_file()
        })
        .map(|e| e.path())
        .max_by(|a, b| a.file_name().cmp(&b.file_name()))
}

/// The run a command reads: the one named, else the newest under `reports_dir`.
pub fn named_or_newest(named: Option<&Path>, reports_dir: &Path) -> Result<(PathBuf, RunResults)> {
    let path = match named {
        Some(p) => p.to_path_buf(),
        None => newest(reports_dir).ok_or_else(|| {
            Error::invalid(
                reports_dir,
                "no run found here (run `gatebench run` first, or name one with --results)",
            )
        })?,
    };
    let results = read(&path)?;
    Ok((results_file(&path), results))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_are_told_from_other_folders() {
        assert!(is_run_id("20261129T202426Z-legacy-9315"));
        assert!(!is_run_id("baseline"));
        assert!(!is_run_id("20261129T202426Z"));
        assert!(!is_run_id("2026112xT202426Z-a"));
    }

    #[test]
    fn the_newest_run_is_the_latest_stamp_with_results() {
        let dir = tempfile::tempdir().unwrap();
        for (name, with_results) in [
            ("20260101T000000Z-a-1", true),
            ("20260102T000000Z-a-2", true),
            ("20260103T000000Z-a-3", false),
            ("baseline", true),
        ] {
            let run = dir.path().join(name);
            std::fs::create_dir_all(&run).unwrap();
            if with_results {
                std::fs::write(run.join("results.json"), "{}").unwrap();
            }
        }
        assert_eq!(
            newest(dir.path()),
            Some(dir.path().join("20260102T000000Z-a-2"))
        );
        assert_eq!(newest(&dir.path().join("nothing")), None);
    }
}
