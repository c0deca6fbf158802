//! The ratchet: a scenario names a committed baseline results file (`thresholds.baseline`), and
//! the run fails (exit 2) when any fixture regresses against it, even while the absolute
//! thresholds hold. Only fixture ids and outcomes are compared, never timings or paths.
//!
//! Fixtures absent from either run are not judged: a filtered or sharded run is compared on the
//! fixtures it ran, and a fixture added since the baseline has nothing to regress from.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::exit_code;
use std::borrow::Borrow;

use crate::score::changes::{fixture_changes, FixtureChange};
use crate::score::metrics::ThresholdResult;
use crate::score::record::TrialRecord;

/// The name of the ratchet's threshold in summaries.
pub const THRESHOLD_NAME: &str = "regressions against baseline";

/// The ratchet judged: the fixtures that regressed against the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RatchetResult {
    /// The baseline as the scenario names it.
    pub baseline: String,
    /// The baseline run's id.
    pub baseline_run: String,
    pub regressions: Vec<FixtureChange>,
}

impl RatchetResult {
    pub fn threshold(&self) -> ThresholdResult {
        let ids: Vec<&str> = self
            .regressions
            .iter()
            .map(|r| r.fixture.as_str())
            .collect();
        let figure = if ids.is_empty() {
            "0".to_owned()
        } else {
            format!("{} ({})", ids.len(), ids.join(", "))
        };
        ThresholdResult {
            name: THRESHOLD_NAME.into(),
            figure,
            bar: format!("<= 0 vs {}", self.baseline),
            met: ids.is_empty(),
            exit_code: exit_code::THRESHOLDS,
        }
    }
}

/// Judges `trials` against the baseline's trials (`named` as the scenario names the baseline,
/// `baseline_run` its run id).
pub fn check(
    named: &str,
    baseline_run: &str,
    baseline: impl IntoIterator<Item = impl Borrow<TrialRecord>>,
    trials: impl IntoIterator<Item = impl Borrow<TrialRecord>>,
) -> RatchetResult {
    let regressions = fixture_changes(baseline, trials)
        .into_iter()
        .filter(|c| c.kind.is_regression())
        .collect();
    RatchetResult {
        baseline: named.to_owned(),
        baseline_run: baseline_run.to_owned(),
        regressions,
    }
}
