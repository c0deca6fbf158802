//! Finding runs on disk: a results file or a run folder named on the command line, or the newest
//! run under `reports/` (run ids start with a UTC stamp, so they sort by time).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::output::store::results::{self, RunResults};

/// The results file a path names: the file itself, or `results.json` inside a run folder.
pub fn results_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("results.json")
    } else {
        path.to_path_buf()
    }
}

/// Reads the run a path names (a results file or a run folder). A matrix run's folder holds one
/// run per pipeline: the error names them.
pub fn read(path: &Path) -> Result<RunResults> {
    let file = results_file(path);
    if !file.is_file() && path.join("matrix.json").is_file() {
        let pipelines = path.join(crate::output::store::matrix::PIPELINES);
        let mut names: Vec<String> = std::fs::read_dir(&pipelines)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.path().display().to_string())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        return Err(Error::invalid(
            path,
            format!(
                "a matrix run, one run per pipeline: name one of them ({})",
                names.join(", ")
            ),
        ));
    }
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

/// The newest run folder under `reports_dir` that holds a `results.json` (or a matrix run's
/// `matrix.json`, which [`read`] then says how to read); `None` when there is none. The committed
/// `baseline/` is not a run of this checkout and is never picked.
pub fn newest(reports_dir: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(reports_dir).ok()?;
    entries
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name().to_str().is_some_and(is_run_id)
                && (e.path().join("results.json").is_file()
                    || e.path().join("matrix.json").is_file())
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

    #[test]
    fn a_matrix_run_is_the_newest_and_reading_it_names_its_pipelines() {
        let dir = tempfile::tempdir().unwrap();
        let single = dir.path().join("20260101T000000Z-a-1");
        std::fs::create_dir_all(&single).unwrap();
        std::fs::write(single.join("results.json"), "{}").unwrap();
        let matrix = dir.path().join("20260102T000000Z-m-2");
        for name in ["builtin", "mine"] {
            std::fs::create_dir_all(matrix.join("pipelines").join(name)).unwrap();
        }
        std::fs::write(matrix.join("matrix.json"), "{}").unwrap();
        assert_eq!(newest(dir.path()), Some(matrix.clone()));
        let message = read(&matrix).unwrap_err().to_string();
        assert!(message.contains("a matrix run"), "{message}");
        assert!(
            message.contains(&matrix.join("pipelines/builtin").display().to_string())
                && message.contains(&matrix.join("pipelines/mine").display().to_string()),
            "{message}"
        );
    }
}
