//! The gate's deep mode (`--depth deep`): what light mode reads, deep mode runs. Every test receipt's
//! command is run again and compared test by test with what the receipt claims (`rerun.rs`); every
//! obligation's cited code is neutralized and its tests run again, which must now fail
//! (`red_green.rs`, the red-green rule of docs/CONCEPTS.md#loom-red-green-verify); for work that
//! passes all that, each site of the cited code is changed on its own and must fail some test of
//! an obligation citing it (`adequacy.rs`). All of it runs
//! in a throwaway copy of the work tree (`workcopy.rs`), inside the sandbox every untrusted command
//! goes through (`gatebench-suite`), so the gate never changes the repository it judges; runs are
//! cached by the content they depend on (`runner.rs`).

mod adequacy;
mod red_green;
mod rerun;
mod runner;
mod workcopy;

#[cfg(test)]
mod tests;

use crate::finding::{GateFinding, WARNING_MAX};
use crate::load::FeatureLedger;
use crate::repo::RepoView;

pub use runner::{cached_runs, executed_on_this_thread};

/// The deep checks' findings over every feature of the repository. `failing`: whether the light
/// checks already fail the work; then the costliest check (`adequacy.rs`) is not run, nor when a
/// deep check before it fails it.
pub fn deep_findings(
    repo: &RepoView,
    features: &[FeatureLedger],
    failing: bool,
) -> Vec<GateFinding> {
    let ledger_dirs: Vec<String> = features.iter().map(|f| format!("{}/", f.dir)).collect();
    let mut runner = match runner::Runner::new(repo, ledger_dirs) {
        Ok(r) => r,
        Err(finding) => return vec![*finding],
    };
    let mut findings = Vec::new();
    let mut commands = Vec::new();
    for feature in features {
        let (found, ran) = rerun::findings(&mut runner, feature);
        findings.extend(found);
        commands.extend(ran);
    }
    for feature in features {
        findings.extend(red_green::findings(&mut runner, feature, &commands));
    }
    if failing || findings.iter().any(|f| f.severity > WARNING_MAX) {
        return findings;
    }
    for feature in features {
        findings.extend(adequacy::findings(&mut runner, feature, &commands));
    }
    findings
}
