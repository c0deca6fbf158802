//! Tests of `verification_loop/dimensions.rs` (moved out of it: its production code alone is under 800 lines).

use super::*;
use gatebench_process::Captured;

fn record(exit: Option<i32>, stdout: &str) -> ProcessRecord {
    ProcessRecord {
        argv: vec!["x".into()],
        exit_code: exit,
        signal: None,
        timed_out: false,
        spawn_error: None,
        duration_ms: 1,
        stdout: Captured {
            total_bytes: stdout.len() as u64,
            text: stdout.into(),
            truncated: false,
            abandoned: false,
        },
        stderr: Captured::default(),
    }
}

fn ctx(dir: &Path) -> CommandContext<'_> {
    CommandContext::new(dir, Duration::from_secs(5), 1, false)
}

#[test]
fn a_failed_test_point_points_at_the_line_that_defines_it_and_a_missing_tool_at_its_declaration() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scripts")).unwrap();
    std::fs::write(
        dir.path().join("scripts/test.sh"),
        "n=0\npoint \"ranking orders\" true\npoint \"top 0 lists no words\" false\n",
    )
    .unwrap();
    let argv = vec!["sh".to_owned(), "scripts/test.sh".to_owned()];
    let declared = Declared {
        text: "sh scripts/test.sh",
        argv: &argv,
        line: Some(12),
    };
    let out = judge_declared(
        Step::Test,
        &declared,
        &record(
            Some(1),
            "ok 1 - ranking orders\nnot ok 2 - top 0 lists no words\n",
        ),
        &ctx(dir.path()),
    );
    let finding = &out.findings[0];
    assert_eq!(finding.path.as_deref(), Some("scripts/test.sh"));
    assert_eq!(finding.line, Some(3));
    let missing = judge_declared(
        Step::Build,
        &declared,
        &record(Some(127), "sh: 1: cargo: not found\n"),
        &ctx(dir.path()),
    );
    assert_eq!(missing.status, DimensionStatus::Blocked);
    assert_eq!(missing.findings[0].path.as_deref(), Some(AGENTS_FILE));
    assert_eq!(missing.findings[0].line, Some(12));
    // A point no file the command names defines keeps no location.
    let unknown = judge_declared(
        Step::Test,
        &declared,
        &record(Some(1), "not ok 1 - something else\n"),
        &ctx(dir.path()),
    );
    assert_eq!(unknown.findings[0].path, None);
}

#[test]
fn a_sandboxed_command_writes_the_repository_but_cannot_read_or_write_outside_it() {
    if process::landlock_abi().is_none() {
        eprintln!("no Landlock on this kernel: nothing to check");
        return;
    }
    let repo = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("answer.txt"), "secret").unwrap();
    let script = format!(
        "echo built > out.txt; cat {0}/answer.txt && exit 3; echo x > {0}/leak.txt && exit 4; \
         echo tmp > \"$TMPDIR/t\" || exit 5; exit 0",
        outside.path().display()
    );
    let spec = CommandSpec::Run {
        argv: vec!["sh".into(), "-c".into(), script.clone()],
        text: script,
        line: 1,
    };
    let sandboxed = CommandContext::new(repo.path(), Duration::from_secs(10), 1, true);
    let out = run_command_dimension(Step::Build, &spec, &sandboxed);
    assert_eq!(out.status, DimensionStatus::Pass, "{}", out.summary);
    assert!(repo.path().join("out.txt").is_file());
    assert!(!outside.path().join("leak.txt").exists());
    // The same command unsandboxed reads the file (so the check above can fail).
    let open = CommandContext::new(repo.path(), Duration::from_secs(10), 1, false);
    let out = run_command_dimension(Step::Build, &spec, &open);
    assert_eq!(out.status, DimensionStatus::Fail, "{}", out.summary);
}

/// The commands of one round share one prepared sandbox, yet each starts with an empty
/// `HOME` and `TMPDIR` of its own, and what a command left there is gone when it ends.
#[test]
fn each_sandboxed_command_of_a_round_gets_an_empty_home_of_its_own() {
    if process::landlock_abi().is_none() {
        eprintln!("no Landlock on this kernel: nothing to check");
        return;
    }
    let repo = tempfile::tempdir().unwrap();
    // Fails (exit 3) when HOME holds anything, then leaves a file there and records where
    // HOME was, in the repository.
    let script = "[ -z \"$(ls -A \"$HOME\")\" ] || exit 3; [ \"$HOME\" = \"$TMPDIR\" ] || exit 4; \
         echo left > \"$HOME/mark\" || exit 5; echo \"$HOME\" >> homes.txt";
    let spec = CommandSpec::Run {
        argv: vec!["sh".into(), "-c".into(), script.into()],
        text: script.into(),
        line: 1,
    };
    let round = CommandContext::new(repo.path(), Duration::from_secs(10), 1, true);
    for step in [Step::Build, Step::Test, Step::Standard] {
        let out = run_command_dimension(step, &spec, &round);
        assert_ne!(
            out.status,
            DimensionStatus::Fail,
            "{step:?}: {}",
            out.summary
        );
    }
    let homes = std::fs::read_to_string(repo.path().join("homes.txt")).unwrap();
    let homes: Vec<&str> = homes.lines().collect();
    assert_eq!(homes.len(), 3, "{homes:?}");
    let distinct: std::collections::BTreeSet<&&str> = homes.iter().collect();
    assert_eq!(distinct.len(), 3, "{homes:?}");
    for home in &homes {
        assert!(!Path::new(home).exists(), "{home} was left behind");
    }
}

#[test]
fn error_and_warning_lines_are_told_apart_from_prose() {
    let out = "compiling\nerror: x\nsrc/a.py:3: error[E1]: y\nFATAL: z\n0 errors\nError handling ok\nwarning: w\nsrc/b.py:1:2: WARN: v\nok - warning: not a level\n";
    assert_eq!(
        error_lines(out),
        vec!["error: x", "src/a.py:3: error[E1]: y", "FATAL: z"]
    );
    assert_eq!(
        warning_lines(out),
        vec!["warning: w", "src/b.py:1:2: WARN: v"]
    );
}

#[test]
fn failed_test_points_come_from_tap_and_fail_lines() {
    let out = "ok 1 - a\nnot ok 2 - top ranks ties alphabetically # expected x\nnot ok 3\nFAILED tests/t.py::test_y - assert\n--- FAIL: TestZ (0.00s)\nFAIL: c\nnot ok 4 - top ranks ties alphabetically\n";
    assert_eq!(
        failed_test_points(out),
        vec![
            "top ranks ties alphabetically",
            "test 3",
            "tests/t.py::test_y",
            "TestZ",
            "c"
        ]
    );
}

#[test]
fn exit_zero_without_error_lines_passes_and_warnings_make_it_warn() {
    let dir = tempfile::tempdir().unwrap();
    let pass = judge(
        Step::Build,
        "b",
        &record(Some(0), "built\n"),
        &ctx(dir.path()),
    );
    assert_eq!(pass.status, DimensionStatus::Pass);
    assert!(pass.findings.is_empty());
    let warn = judge(
        Step::Standard,
        "l",
        &record(Some(0), "warning: long line\n"),
        &ctx(dir.path()),
    );
    assert_eq!(warn.status, DimensionStatus::Warn);
    assert_eq!(warn.warning_items, vec!["warning: long line"]);
    assert!(warn.findings.is_empty());
}

#[test]
fn an_error_line_fails_even_when_the_command_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/a.py"), "x\n").unwrap();
    let out = judge(
        Step::Standard,
        "lint",
        &record(Some(0), "src/a.py:1: error: bad name\n"),
        &ctx(dir.path()),
    );
    assert_eq!(out.status, DimensionStatus::Fail);
    assert_eq!(out.critical_items, vec!["src/a.py:1: error: bad name"]);
    assert_eq!(out.findings.len(), 1);
    assert_eq!(out.findings[0].validator, "loop-standards");
    assert_eq!(out.findings[0].path.as_deref(), Some("src/a.py"));
    assert_eq!(out.findings[0].line, Some(1));
}

#[test]
fn a_failed_test_point_is_a_failed_item_and_a_finding_each() {
    let dir = tempfile::tempdir().unwrap();
    let out = judge(
        Step::Test,
        "t",
        &record(Some(1), "ok 1 - a\nnot ok 2 - b\nnot ok 3 - c\n"),
        &ctx(dir.path()),
    );
    assert_eq!(out.status, DimensionStatus::Fail);
    assert_eq!(out.failed_items, vec!["b", "c"]);
    assert_eq!(out.findings.len(), 2);
    assert!(out.findings[0].title.contains("`b`"));
    let unnamed = judge(
        Step::Test,
        "t",
        &record(Some(2), "boom\n"),
        &ctx(dir.path()),
    );
    assert_eq!(unnamed.failed_items, vec!["t"]);
    assert_eq!(unnamed.findings.len(), 1);
}

#[test]
fn a_command_that_cannot_start_or_is_not_found_is_blocked_not_failed() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = record(None, "");
    r.spawn_error = Some("no such file".into());
    let out = judge(Step::Build, "cc", &r, &ctx(dir.path()));
    assert_eq!(out.status, DimensionStatus::Blocked);
    assert_eq!(out.findings[0].validator, "loop-environment");
    let out = judge(
        Step::Build,
        "sh b.sh",
        &record(Some(127), "b.sh: 1: cc: not found\n"),
        &ctx(dir.path()),
    );
    assert_eq!(out.status, DimensionStatus::Blocked);
    let mut r = record(None, "");
    r.timed_out = true;
    r.signal = Some(9);
    assert_eq!(
        judge(Step::Test, "t", &r, &ctx(dir.path())).status,
        DimensionStatus::Blocked
    );
}

#[test]
fn a_missing_command_is_blocked_and_none_warns_except_for_tests() {
    let dir = tempfile::tempdir().unwrap();
    let missing = run_command_dimension(Step::Build, &CommandSpec::Missing, &ctx(dir.path()));
    assert_eq!(missing.status, DimensionStatus::Blocked);
    assert!(missing.findings[0].title.contains("buildCommand"));
    let none = CommandSpec::NotApplicable { line: 4 };
    let perf = run_command_dimension(Step::Performance, &none, &ctx(dir.path()));
    assert_eq!(perf.status, DimensionStatus::Warn);
    assert_eq!(perf.warning_items.len(), 1);
    let test = run_command_dimension(Step::Test, &none, &ctx(dir.path()));
    assert_eq!(test.status, DimensionStatus::Blocked);
}

#[test]
fn a_real_command_runs_in_the_repository_with_the_dimension_in_its_environment() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("t.sh"),
        "echo \"not ok 1 - $GATEBENCH_LOOP_DIMENSION in round $GATEBENCH_LOOP_ITERATION\"\nexit 1\n",
    )
    .unwrap();
    let spec = CommandSpec::Run {
        argv: vec!["sh".into(), "t.sh".into()],
        text: "sh t.sh".into(),
        line: 1,
    };
    let out = run_command_dimension(Step::Test, &spec, &ctx(dir.path()));
    assert_eq!(out.failed_items, vec!["V2_TEST in round 1"]);
}

#[test]
fn a_command_that_outlives_its_timeout_is_blocked() {
    let dir = tempfile::tempdir().unwrap();
    let spec = CommandSpec::Run {
        argv: vec!["sh".into(), "-c".into(), "sleep 30 & sleep 30".into()],
        text: "sh -c ...".into(),
        line: 1,
    };
    let out = run_command_dimension(
        Step::Build,
        &spec,
        &CommandContext::new(dir.path(), Duration::from_millis(300), 1, false),
    );
    assert_eq!(out.status, DimensionStatus::Blocked);
    assert!(out.summary.contains("timed out"), "{}", out.summary);
    assert_eq!(out.findings[0].validator, "loop-environment");
}
