//! `gatebench check`: every fixture and scenario validated, nothing run.

use std::path::{Path, PathBuf};

use gatebench::corpus;
use gatebench::corpus::scenario::Scenario;
use gatebench::error::Error;
use gatebench::exit_code;
use gatebench::run::execute;

use crate::cli::CmdResult;

#[derive(clap::Args)]
pub struct CheckArgs {
    #[arg(long, default_value = "fixtures")]
    pub fixtures: PathBuf,
    #[arg(long, default_value = "scenarios")]
    pub scenarios: PathBuf,
}

pub fn run(args: CheckArgs) -> CmdResult {
    let CheckArgs {
        fixtures,
        scenarios,
    } = args;
    cmd_check(&fixtures, &scenarios)
}

fn cmd_check(fixtures: &Path, scenarios: &Path) -> CmdResult {
    let mut errors = Vec::new();
    let corpus = corpus::load(fixtures).map_err(|e| errors.extend(e)).ok();
    // Nothing a fixture materializes may give its answer away (src/corpus/loader/hygiene.rs).
    if let Some(corpus) = &corpus {
        errors.extend(corpus::loader::hygiene::check(corpus));
    }
    let mut scenario_count = 0;
    match std::fs::read_dir(scenarios) {
        Ok(entries) => {
            let mut files: Vec<PathBuf> =
                entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
            files.sort();
            for file in files
                .iter()
                .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
            {
                scenario_count += 1;
                // A scenario's ratchet baseline must be readable too.
                match Scenario::load(file) {
                    Ok(s) => {
                        // A matrix's pipelines each have their bars (and baseline).
                        for (_, one) in s.per_pipeline() {
                            if let Err(e) =
                                gatebench::run::baseline::load(file, &one.spec.thresholds)
                            {
                                errors.push(e);
                            }
                        }
                        // What `run` checks of the scenario against its corpus, checked here too.
                        let own = s.fixtures_dir();
                        let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
                            (Ok(a), Ok(b)) => a == b,
                            _ => a == b,
                        };
                        let loaded;
                        let against = if same(&own, fixtures) {
                            corpus.as_ref()
                        } else {
                            loaded = corpus::load(&own).map_err(|e| errors.extend(e)).ok();
                            loaded.as_ref()
                        };
                        // A scenario that generates mutants selects among them too.
                        let composed;
                        let against = match against {
                            Some(_) if s.spec.mutants.is_some() => {
                                composed = corpus::load(&own)
                                    .map_err(|e| errors.extend(e))
                                    .ok()
                                    .and_then(|c| {
                                        execute::with_mutants(&s, c)
                                            .map_err(|e| errors.push(e))
                                            .ok()
                                    });
                                composed.as_ref()
                            }
                            other => other,
                        };
                        if let Some(c) = against {
                            for (_, one) in s.per_pipeline() {
                                if let Err(e) = execute::check_selection(&one, &own, c, &[]) {
                                    errors.push(e);
                                }
                            }
                        }
                    }
                    Err(e) => errors.push(e),
                }
            }
        }
        Err(e) => errors.push(Error::invalid(
            scenarios,
            format!("the scenarios folder cannot be read: {e}"),
        )),
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let n = corpus.map_or(0, |c| c.fixtures.len());
    outln!("ok: {n} fixtures, {scenario_count} scenarios");
    Ok(exit_code::SUCCESS)
}
