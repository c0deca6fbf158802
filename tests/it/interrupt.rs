//! Ctrl-C during a run removes the temporary repositories it made and exits 130.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn an_interrupted_run_leaves_no_temporary_repository_behind() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = tempfile::tempdir().unwrap();
    let work = scratch.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    // Enough trials that the run is still going when the signal arrives.
    let mut child = Command::new(env!("CARGO_BIN_EXE_gatebench"))
        .args([
            "run",
            "scenarios/default.yaml",
            "--quiet",
            "--trials",
            "200",
            "--jobs",
            "1",
        ])
        .arg("--work-dir")
        .arg(&work)
        .arg("--reports-dir")
        .arg(scratch.path().join("reports"))
        .current_dir(root)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let has_repo = || {
        std::fs::read_dir(&work)
            .unwrap()
            .filter_map(|e| e.ok())
            .any(|e| {
                std::fs::read_dir(e.path())
                    .map(|mut d| d.next().is_some())
                    .unwrap_or(false)
            })
    };
    while !has_repo() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the run never created a repository"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it could be interrupted"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let left: Vec<_> = std::fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    assert!(
        !scratch.path().join("reports").exists(),
        "an interrupted run must not write a results file"
    );
}
