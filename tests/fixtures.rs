//! One libtest trial per bundled fixture, named by its id: `cargo test --test fixtures -- <id>`
//! runs one, `-- --list` lists them. Each trial materializes the fixture, runs the built-in gate
//! over it round by round, and fails unless the outcome is what a correct gate gives (`passed`
//! for a golden, `detected` for an omission) and convergence matches the expectation.
//!
//! Fixtures of the semantic tier are listed but ignored: they measure gates (the reference gate
//! included, `scenarios/semantic.yaml` and `semantic-deep.yaml`, which catch only some of them)
//! rather than hold the reference gate to catching them; what proves each one is running its
//! golden's suite (`tests/it/semantic.rs`). `-- --ignored` runs them anyway.

use std::path::Path;

use gatebench::corpus;
use gatebench::corpus::scenario::PipelineSpec;
use gatebench::corpus::taxonomy::Tier;
use gatebench::repo::workdir::WorkRoot;
use gatebench::run::runner::{run_trial, RunConfig};
use gatebench::score::outcome::ConvergenceStatus;
use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let fixtures_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let corpus = match corpus::load(&fixtures_dir) {
        Ok(c) => c,
        Err(errors) => {
            for e in &errors {
                eprintln!("error: {e}");
            }
            std::process::exit(1);
        }
    };
    let trials = corpus
        .fixtures
        .iter()
        .cloned()
        .map(|fixture| {
            let kind = if fixture.is_golden() {
                "golden"
            } else {
                fixture.category.as_str()
            };
            let kind = kind.to_owned();
            let measured_only = fixture.tier == Tier::Semantic;
            Trial::test(fixture.id.clone(), move || check(&fixture))
                .with_kind(kind)
                .with_ignored_flag(measured_only)
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

fn check(fixture: &corpus::Fixture) -> Result<(), Failed> {
    let root = WorkRoot::create(None, false).map_err(|e| e.to_string())?;
    let gate = gatebench::pipeline::select::from_spec(&PipelineSpec::builtin(), Path::new("."));
    let scoring = gatebench::pipeline::select::scoring(gate.as_ref());
    let cfg = RunConfig {
        jobs: 1,
        trials: 1,
        max_rounds: 3,
        base_ref: "main".into(),
        work_root: &root,
        cache: None,
        scoring: &scoring,
        scenario: "t".into(),
        on_modified: Default::default(),
        retries: 0,
        objects: None,
        on_fixture: None,
    };
    let record = run_trial(fixture, 0, gate.as_ref(), &cfg);
    if !record.outcome.is_good() {
        let findings: Vec<String> = record
            .rounds
            .first()
            .and_then(|r| r.report.as_ref())
            .and_then(|r| r["findings"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .map(|f| {
                format!(
                    "  - [{}] {} at {}",
                    f["validator"], f["title"], f["location"]
                )
            })
            .collect();
        return Err(format!(
            "{}: {}\nfindings of round 1:\n{}",
            record.outcome.as_str(),
            record.reason,
            findings.join("\n")
        )
        .into());
    }
    if let Some(c) = &record.convergence {
        if c.status != ConvergenceStatus::AsExpected {
            return Err(format!(
                "convergence {:?}: expected {:?}, got {:?}",
                c.status, c.expected, c.actual
            )
            .into());
        }
    }
    Ok(())
}
