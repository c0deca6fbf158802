//! Harness overhead per external invocation, in one run: a command that writes a fixed report
//! (`cp` of a valid report v1 to `$GATEBENCH_REPORT`) run directly with `std::process::Command`,
//! beside the same command run as one round of the `command` pipeline (own process group,
//! cleared environment, bounded capture, report read, schema and consistency checks), and beside
//! that round with the read-only check around it (two repository fingerprints), which is what the
//! runner does per round. The difference of medians is the overhead; docs/PERFORMANCE.md records
//! it.

use std::path::Path;
use std::process::{Command, Stdio};

use criterion::{criterion_group, criterion_main, Criterion};
use gatebench::corpus;
use gatebench::corpus::scenario::{CommandLine, CommandSpec, PipelineSpec};
use gatebench::pipeline::round::{RoundInput, RoundOutput};
use gatebench::repo::fingerprint;
use gatebench::repo::materialize::materialize;

const SCRIPT: &str = r#"cp "$FIXED" "$GATEBENCH_REPORT""#;

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = corpus::load(&root.join("fixtures")).unwrap_or_else(|e| panic!("{e:?}"));
    let fixture = corpus.get("subscription-cancel").expect("the golden");
    let place = if Path::new("/dev/shm").is_dir() {
        Path::new("/dev/shm").to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let scratch = tempfile::Builder::new()
        .prefix("gatebench-bench-")
        .tempdir_in(place)
        .unwrap();
    let repo = scratch.path().join("repo");
    let m = materialize(fixture, &repo).unwrap();
    // The fixed report: what the reference gate says about this repository.
    let fixed = scratch.path().join("fixed.json");
    let report = gatebench_gate::run_gate(
        &m.work_dir,
        &gatebench_gate::GateOptions {
            base_ref: "main".into(),
            ..Default::default()
        },
    );
    std::fs::write(&fixed, serde_json::to_vec(&report).unwrap()).unwrap();
    let out_dir = scratch.path().join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let direct_report = out_dir.join("direct.json");

    let spec = PipelineSpec::Command(CommandSpec {
        command: CommandLine::Shell(SCRIPT.into()),
        timeout_secs: 60.0,
        env: [("FIXED".to_owned(), fixed.display().to_string())].into(),
        env_allowlist: Vec::new(),
        version: None,
        files: Vec::new(),
        fixer: None,
        kinds: Vec::new(),
        sandbox: Default::default(),
        network: Default::default(),
        scenario_dir_env: false,
    });
    let pipeline = gatebench::pipeline::select::from_spec(&spec, root);
    let round_dir = scratch.path().join("rounds");
    let input = RoundInput {
        work_dir: &m.work_dir,
        repo_dir: &m.repo_dir,
        case_id: "0123456789ab",
        round: 1,
        trial: 0,
        base_ref: "main",
        scratch_dir: &round_dir,
        pinned: &m.pinned,
    };
    let check = |out: RoundOutput| match out {
        RoundOutput::Report(..) => {}
        other => panic!("the fixed report must be usable: {other:?}"),
    };
    check(pipeline.run_round(&input).output);

    let mut group = c.benchmark_group("external-invocation");
    group.bench_function("direct", |b| {
        b.iter(|| {
            let status = Command::new("sh")
                .arg("-c")
                .arg(SCRIPT)
                .current_dir(&m.work_dir)
                .env("FIXED", &fixed)
                .env("GATEBENCH_REPORT", &direct_report)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .output()
                .unwrap();
            assert!(status.status.success());
        })
    });
    group.bench_function("command-pipeline-round", |b| {
        b.iter(|| check(pipeline.run_round(&input).output))
    });
    group.bench_function("command-pipeline-round+read-only-check", |b| {
        b.iter(|| {
            let before = fingerprint::take(&m.work_dir).unwrap();
            check(pipeline.run_round(&input).output);
            let after = fingerprint::take(&m.work_dir).unwrap();
            assert!(before.changed(&after).is_empty());
        })
    });
    let argv: Vec<String> = vec!["sh".into(), "-c".into(), SCRIPT.into()];
    let env: Vec<(String, String)> = vec![
        ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
        ("FIXED".into(), fixed.display().to_string()),
        (
            "GATEBENCH_REPORT".into(),
            direct_report.display().to_string(),
        ),
    ];
    group.bench_function("process-run-alone", |b| {
        b.iter(|| {
            let r = gatebench_process::run(&gatebench_process::Spawn {
                argv: &argv,
                cwd: &m.work_dir,
                env: &env,
                timeout: std::time::Duration::from_secs(60),
            });
            assert_eq!(r.exit_code, Some(0));
        })
    });
    let fixed_bytes = std::fs::read(&fixed).unwrap();
    group.bench_function("report-check-alone", |b| {
        b.iter(|| gatebench_report::check::parse(&fixed_bytes).unwrap())
    });
    group.bench_function("read-only-check-alone", |b| {
        b.iter(|| {
            let before = fingerprint::take(&m.work_dir).unwrap();
            let after = fingerprint::take(&m.work_dir).unwrap();
            assert!(before.changed(&after).is_empty());
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(50);
    targets = bench
}
criterion_main!(benches);
