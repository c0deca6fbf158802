//! The ratchet's baseline: loading the one a scenario names, and making a run fit to commit as one.

use std::path::{Path, PathBuf};

use crate::corpus::scenario::Thresholds;
use crate::error::{Error, Result};
use crate::output::store::results::{self, RunResults};

/// A baseline, loaded.
#[derive(Debug, Clone)]
pub struct Baseline {
    /// As the scenario names it (relative to the scenario file).
    pub named: String,
    pub path: PathBuf,
    pub results: RunResults,
}

/// Loads the baseline the thresholds name, resolved against the scenario file's folder. A named
/// baseline that cannot be read is an error naming the scenario and the path: a ratchet that
/// silently does nothing would be a pass without evidence.
pub fn load(scenario_file: &Path, thresholds: &Thresholds) -> Result<Option<Baseline>> {
    let Some(named) = &thresholds.baseline else {
        return Ok(None);
    };
    let path = scenario_file.parent().unwrap_or(Path::new(".")).join(named);
    if !path.is_file() {
        return Err(Error::invalid(
            scenario_file,
            format!(
                "`thresholds.baseline` names {}, which is not a file (write one with `gatebench baseline RUN --out {}`)",
                path.display(),
                path.display()
            ),
        ));
    }
    let results = results::read(&path)?;
    Ok(Some(Baseline {
        named: named.clone(),
        path,
        results,
    }))
}

/// A run made fit to commit as a baseline: everything that changes from one identical run to the
/// next cleared, so that two runs with the same outcomes give byte-identical baselines. Cleared:
/// every `*_ms` timing (wherever it sits, so timings added later are covered too), ids with a time
/// or process id, job counts, work paths, the bodies of reports and processes, the cache summary.
/// What the ratchet reads (fixture ids, categories and outcomes) and what a reader needs
/// (expectations, reasons, verdicts, finding counts, commit ids) stays.
pub fn baseline_of(results: &RunResults) -> Result<RunResults> {
    fn clear(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, v) in map.iter_mut() {
                    if key.ends_with("_ms") && v.is_number() {
                        *v = serde_json::Value::from(0);
                    } else {
                        clear(v);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(clear),
            _ => {}
        }
    }
    let mut b = results.clone();
    // A run id is read back as one file name (`ids::is_run_id`): the name as run ids have it.
    b.run_id = format!("baseline-{}", crate::ids::sanitize(&b.scenario.name));
    b.started_at = "1970-01-01T00:00:00Z".into();
    b.jobs = 0;
    b.shard = None;
    b.merged_from = Vec::new();
    b.cache = None;
    for t in b.trials.to_mut()? {
        t.work_dir = String::new();
        t.kept_at = None;
        t.cached = false;
        for r in &mut t.rounds {
            r.report = None;
            r.report_ref = None;
            r.process = None;
            r.process_ref = None;
            r.fixer = None;
            r.fixer_ref = None;
        }
    }
    let Ok(mut value) = serde_json::to_value(&b) else {
        return Ok(b);
    };
    clear(&mut value);
    Ok(serde_json::from_value(value).unwrap_or(b))
}
