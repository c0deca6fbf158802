//! Out of memory is a clear error, never a crash: the bundled corpus run under a 150 MB address
//! space limit with 8 jobs (was: SIGSEGV inside libgit2 with no output, or Rust's abort, exit
//! 134). The first failed allocation releases gatebench's reserve (`src/run/memory.rs`): the
//! trials not yet started are recorded as errors, the run writes its outputs and says on standard
//! error that it is partial (exit 3); should memory run out again, it says so and exits 71.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;

#[test]
fn running_out_of_memory_is_a_recorded_partial_run_or_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let reports = dir.path().join("reports");
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 150000; exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_gatebench"))
        .args(["run", "--jobs", "8", "--quiet", "--work-dir"])
        .arg(dir.path())
        .arg("--reports-dir")
        .arg(&reports)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.signal(),
        None,
        "killed: {:?}\n{stderr}",
        out.status
    );
    assert!(stderr.contains("gatebench ran out of memory"), "{stderr}");
    match out.status.code() {
        Some(3) => {
            let run = std::fs::read_dir(&reports)
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| p.join("results.json").is_file())
                .expect("the partial run is recorded");
            let results = std::fs::read_to_string(run.join("results.json")).unwrap();
            assert!(
                results.contains("not run: gatebench ran out of memory"),
                "no trial recorded as not run"
            );
        }
        Some(71) => {}
        other => panic!("exit {other:?}: {stderr}"),
    }
}
