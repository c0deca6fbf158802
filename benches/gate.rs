//! What the reference gate and its verification loop cost, in one run: one gate round on each
//! golden (the Loom goldens, and `loop-wordcount` whose round runs four POSIX sh commands besides
//! the validators and writes the state file), one whole three-round convergence (materialize,
//! three rounds, two scripted fixes), and the full bundled suite end to end (`execute::execute` on
//! `scenarios/default.yaml`: select, materialize, rounds, score, write the reports) with 1 and 2
//! jobs. Repositories go to tmpfs (`/dev/shm`) when the machine has it, as `--work-dir` advises.
//! docs/PERFORMANCE.md records the medians and the parallel speedup.

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use gatebench::corpus;
use gatebench::corpus::scenario::{PipelineSpec, Scenario};
use gatebench::repo::materialize::materialize;
use gatebench::repo::workdir::WorkRoot;
use gatebench::run::options::{Overrides, RunOptions};
use gatebench::run::runner::{run_trial, RunConfig};
use gatebench::score::outcome::ConvergenceStatus;
use gatebench_gate::{run_gate, GateOptions};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Where the bench's repositories go: tmpfs when there is one, else the temp dir.
fn scratch_root() -> PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

fn rounds(c: &mut Criterion) {
    let corpus = corpus::load(&root().join("fixtures")).unwrap_or_else(|e| panic!("{e:?}"));
    let scratch = tempfile::Builder::new()
        .prefix("gatebench-bench-gate-")
        .tempdir_in(scratch_root())
        .unwrap();
    let options = GateOptions::default();
    let mut group = c.benchmark_group("gate-round");
    for fixture in corpus.fixtures.iter().filter(|f| f.is_golden()) {
        let m = materialize(fixture, &scratch.path().join(&fixture.id)).unwrap();
        // Every measured round must be the round a correct gate gives: PASS on a golden.
        let report = run_gate(&m.work_dir, &options);
        assert_eq!(
            report.verdict(),
            Some(gatebench_report::Verdict::Pass),
            "{}",
            fixture.id
        );
        group.bench_with_input(
            BenchmarkId::from_parameter(&fixture.id),
            &m.work_dir,
            |b, dir| b.iter(|| run_gate(dir, &options)),
        );
    }
    group.finish();

    let fixture = corpus
        .get("loop-wordcount-converges-in-three")
        .expect("the three-round fixture");
    let work = WorkRoot::create(Some(&scratch_root()), false).unwrap();
    let gate = gatebench::pipeline::select::from_spec(&PipelineSpec::builtin(), root());
    let scoring = gatebench::pipeline::select::scoring(gate.as_ref());
    let cfg = RunConfig {
        jobs: 1,
        trials: 1,
        max_rounds: 3,
        base_ref: "main".into(),
        work_root: &work,
        cache: None,
        scoring: &scoring,
        scenario: "t".into(),
        on_modified: Default::default(),
        retries: 0,
        objects: None,
        on_fixture: None,
    };
    let check = run_trial(fixture, 0, gate.as_ref(), &cfg);
    assert_eq!(
        check.convergence.map(|c| (c.actual, c.status)),
        Some((Some(3), ConvergenceStatus::AsExpected)),
        "the bench must time a convergence in three rounds"
    );
    let mut group = c.benchmark_group("gate-convergence");
    group.bench_function(BenchmarkId::from_parameter(&fixture.id), |b| {
        b.iter(|| run_trial(fixture, 0, gate.as_ref(), &cfg))
    });
    group.finish();
}

fn suite(c: &mut Criterion) {
    let reports = tempfile::Builder::new()
        .prefix("gatebench-bench-reports-")
        .tempdir()
        .unwrap();
    let mut group = c.benchmark_group("suite");
    group.sample_size(10);
    for jobs in [1usize, 2] {
        let scenario = Scenario::load(&root().join("scenarios/default.yaml")).unwrap();
        let options = RunOptions::resolve(
            scenario,
            Overrides {
                jobs: Some(jobs),
                reports_dir: Some(reports.path().to_path_buf()),
                work_dir: Some(scratch_root()),
                ..Overrides::default()
            },
        );
        let finished = gatebench::run::execute::execute(&options, &|_, _, _| {})
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(finished.results.exit_code, 0, "the suite must pass");
        group.bench_with_input(BenchmarkId::new("jobs", jobs), &options, |b, options| {
            b.iter(|| {
                gatebench::run::execute::execute(options, &|_, _, _| {})
                    .map(|f| f.results.exit_code)
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = rounds, suite
}
criterion_main!(benches);
