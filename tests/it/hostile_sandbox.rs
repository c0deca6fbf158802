//! A hostile verifier and a hostile fixture (issue 46): `tests/pipelines/hostile.py` tries the
//! terminal, capabilities, other processes' `/proc`, the answer key through gatebench's own
//! command line and environment and through a `PATH` folder that holds the fixtures, a file's
//! metadata outside, and a unix socket, and writes what it reached. gatebench runs as a user
//! runs it, in a terminal (`script` gives it a pseudo-terminal as its controlling terminal), once
//! with the script as a `command` pipeline and once as a loop fixture's `buildCommand` under the
//! default built-in pipeline. The controls run the same script where nothing stops it, so every
//! refusal is the sandbox's doing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn hostile() -> PathBuf {
    root().join("tests/pipelines/hostile.py")
}

const PYTHON: &str = "/usr/bin/python3";
const SCRIPT: &str = "/usr/bin/script";

/// The tools this test needs; missing ones are named, never skipped.
fn prerequisites() -> bool {
    assert!(
        Path::new(PYTHON).exists(),
        "{PYTHON} is missing: the hostile script needs the system python3"
    );
    assert!(
        Path::new(SCRIPT).exists(),
        "{SCRIPT} is missing (Debian package bsdutils): it gives gatebench a terminal"
    );
    if gatebench_process::landlock_abi().is_none() || !gatebench_process::private_mounts_available()
    {
        eprintln!("no Landlock or no private mounts on this machine: the sandbox is partial here");
        return false;
    }
    true
}

/// `argv` run in `cwd` under `script`, whose pseudo-terminal becomes its controlling terminal,
/// with `PATH` set to `path`. Returns the exit code and what it printed.
fn in_a_terminal(argv: &[String], cwd: &Path, path: &str) -> (Option<i32>, String) {
    let quoted: Vec<String> = argv
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect();
    let mut command = Command::new(SCRIPT);
    // A descriptor gatebench inherits without close-on-exec, as from a shell that keeps a log
    // open: a command it starts must not get it (`inherited-descriptors`).
    // SAFETY: dup2 only, in the child between fork and exec.
    unsafe {
        use std::os::unix::process::CommandExt;
        command.pre_exec(|| {
            if libc::dup2(2, 9) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = command
        .args(["-qec", &quoted.join(" "), "/dev/null"])
        .current_dir(cwd)
        .env("PATH", path)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// What the script wrote: each attempt's name, whether it reached it, and the detail.
fn reached(file: &Path) -> BTreeMap<String, (bool, String)> {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("the hostile script wrote no {}: {e}", file.display()));
    text.lines()
        .map(|line| {
            let mut words = line.splitn(3, ' ');
            let name = words.next().unwrap().to_owned();
            let verdict = words.next().unwrap_or("");
            let detail = words.next().unwrap_or("");
            // An observation that could not be made keeps its word in the detail.
            let detail = if verdict == "error" {
                format!("error {detail}")
            } else {
                detail.to_owned()
            };
            (name, (verdict == "reached", detail))
        })
        .collect()
}

fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn copy(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .arg("-r")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

/// Asserts that nothing but what a command may do was reached.
fn assert_refused_all(results: &BTreeMap<String, (bool, String)>, what: &str) {
    let unobserved: Vec<&String> = results
        .iter()
        .filter(|(_, (_, detail))| detail.starts_with("error "))
        .map(|(name, _)| name)
        .collect();
    assert!(
        unobserved.is_empty(),
        "{what} could not observe {unobserved:?}: {results:?}"
    );
    let reached: Vec<String> = results
        .iter()
        .filter(|(_, (reached, _))| *reached)
        .map(|(name, (_, detail))| format!("{name} ({detail})"))
        .collect();
    assert!(reached.is_empty(), "{what} reached {reached:?}");
    assert!(results.len() >= 10, "{what}: {results:?}");
}

/// A folder that holds the fixtures (the answer key) and is put on `PATH`; a scenario and the
/// folder gatebench runs in are elsewhere, so that only the protection of the fixtures and
/// reports keeps the `PATH` folder out of the sandbox.
struct Layout {
    _keys: tempfile::TempDir,
    keys: PathBuf,
    _work: tempfile::TempDir,
    work: PathBuf,
}

fn layout(fixtures: &[&str]) -> Layout {
    let keys = tempfile::Builder::new()
        .prefix("gatebench-keys-")
        .tempdir()
        .unwrap();
    let work = tempfile::Builder::new()
        .prefix("gatebench-hostile-")
        .tempdir()
        .unwrap();
    std::fs::create_dir(keys.path().join("fixtures")).unwrap();
    for id in fixtures {
        copy(
            &root().join("fixtures").join(id),
            &keys.path().join("fixtures").join(id),
        );
    }
    for sub in ["out", "cwd"] {
        std::fs::create_dir(work.path().join(sub)).unwrap();
    }
    Layout {
        keys: keys.path().to_path_buf(),
        _keys: keys,
        work: work.path().to_path_buf(),
        _work: work,
    }
}

fn path_with(folder: &Path) -> String {
    format!("{}:/usr/bin:/bin", folder.display())
}

#[test]
fn a_hostile_verifier_in_a_terminal_reaches_nothing() {
    if !prerequisites() {
        return;
    }
    let l = layout(&["subscription-cancel"]);
    let scenario = |name: &str, sandbox: &str| {
        let file = l.work.join(format!("{name}.yaml"));
        std::fs::write(
            &file,
            format!(
                "name: {name}\nfixtures_dir: {}\npipeline:\n  kind: command\n  command: [{PYTHON}, {}, {}]\n  timeout_secs: 60\n  sandbox: {sandbox}\n",
                l.keys.join("fixtures").display(),
                hostile().display(),
                l.work.join("out").join(format!("{name}.txt")).display(),
            ),
        )
        .unwrap();
        file
    };
    let run = |file: &Path| {
        let argv: Vec<String> = [
            env!("CARGO_BIN_EXE_gatebench").into(),
            "run".into(),
            file.display().to_string(),
            "--quiet".into(),
            "--reports-dir".into(),
            l.keys.join("reports").display().to_string(),
        ]
        .to_vec();
        in_a_terminal(&argv, &l.work.join("cwd"), &path_with(&l.keys))
    };

    // The control in a terminal, outside gatebench: a terminal, and the answer key on PATH.
    let direct = l.work.join("out/direct.txt");
    in_a_terminal(
        &[
            PYTHON.into(),
            hostile().display().to_string(),
            direct.display().to_string(),
        ],
        &l.work.join("cwd"),
        &path_with(&l.keys),
    );
    let direct = reached(&direct);
    for name in [
        "controlling-terminal",
        "dev-tty",
        "answer-key-through-path",
        "unix-socket",
    ] {
        assert!(
            direct[name].0,
            "the control did not reach {name}: {direct:?}"
        );
    }
    if is_root() {
        assert!(direct["capabilities"].0, "{direct:?}");
    }
    // The control inside gatebench without a sandbox: gatebench's own process and the answer key
    // it names.
    let (_, printed) = run(&scenario("open", "none"));
    let open = reached(&l.work.join("out/open.txt"));
    for name in [
        "proc-harness-command-line",
        "answer-key-through-proc",
        "answer-key-through-path",
    ] {
        assert!(
            open[name].0,
            "the control did not reach {name}: {open:?}\n{printed}"
        );
    }

    let grants = format!(
        "{{read: ['{}'], write: ['{}']}}",
        hostile().display(),
        l.work.join("out").display()
    );
    let (_, printed) = run(&scenario("sandboxed", &grants));
    let sandboxed = reached(&l.work.join("out/sandboxed.txt"));
    assert_refused_all(&sandboxed, &format!("the sandboxed verifier\n{printed}"));
}

#[test]
fn a_hostile_loop_fixture_under_the_builtin_pipeline_in_a_terminal_reaches_nothing() {
    if !prerequisites() {
        return;
    }
    let l = layout(&["loop-wordcount"]);
    // The plant: the build step is the hostile script, which writes what it reached into the
    // repository (kept with --keep).
    let plant = l.keys.join("fixtures/loop-wordcount-hostile");
    std::fs::create_dir_all(plant.join("plant/scripts")).unwrap();
    std::fs::copy(hostile(), plant.join("plant/scripts/hostile.py")).unwrap();
    std::fs::write(
        plant.join("plant/scripts/build.sh"),
        format!("exec {PYTHON} scripts/hostile.py hostile-results.txt\n"),
    )
    .unwrap();
    std::fs::write(
        plant.join("fixture.yaml"),
        "id: loop-wordcount-hostile\ndescription: \"The build step tries to leave the sandbox.\"\nextends: loop-wordcount\ncategory: verification-loop\ntags: [loop]\nplant:\n  overlay: plant\nexpect:\n  verdict: fail\n  kind: verification-not-runnable\n  locus:\n    - path: scripts/build.sh\n      lines: [1, 1]\n",
    )
    .unwrap();
    let scenario = l.work.join("builtin.yaml");
    std::fs::write(
        &scenario,
        format!(
            "name: builtin\nfixtures_dir: {}\n",
            l.keys.join("fixtures").display()
        ),
    )
    .unwrap();
    let repos = l.work.join("repos");
    let argv: Vec<String> = [
        env!("CARGO_BIN_EXE_gatebench").into(),
        "run".into(),
        scenario.display().to_string(),
        "--quiet".into(),
        "--keep".into(),
        "--work-dir".into(),
        repos.display().to_string(),
        "--reports-dir".into(),
        l.keys.join("reports").display().to_string(),
        "--filter".into(),
        "loop-wordcount-hostile".into(),
    ]
    .to_vec();
    let (code, printed) = in_a_terminal(&argv, &l.work.join("cwd"), &path_with(&l.keys));
    let found: Vec<PathBuf> = walk(&repos)
        .into_iter()
        .filter(|p| p.ends_with("hostile-results.txt"))
        .collect();
    assert!(
        !found.is_empty(),
        "exit {code:?}, no results under {}:\n{printed}",
        repos.display()
    );
    for file in found {
        assert_refused_all(
            &reached(&file),
            &format!("the fixture's build step\n{printed}"),
        );
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
