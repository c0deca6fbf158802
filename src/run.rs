//! One run of a scenario, end to end: load and select fixtures, run every trial, compute metrics,
//! judge thresholds, and write `results.json` and `summary.md` under `reports/<run-id>/`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::corpus;
use crate::error::{Error, Result};
use crate::metrics::{self, MetricsReport};
use crate::options::RunOptions;
use crate::pipeline;
use crate::results::{self, FixtureInfo, RunResults, ScenarioInfo, TrialRecord};
use crate::runner::{self, RunConfig};
use crate::scenario;
use crate::summary;
use crate::workdir::WorkRoot;

/// What a finished run left behind.
#[derive(Debug)]
pub struct Finished {
    pub results: RunResults,
    pub dir: PathBuf,
}

/// Progress of a run, reported as each trial finishes: (the trial, how many are done, of how many).
pub type Progress<'a> = dyn Fn(&TrialRecord, usize, usize) + Sync + 'a;

/// Runs the scenario. Invalid fixtures stop the run before anything starts (all errors listed).
pub fn execute(
    options: &RunOptions,
    progress: &Progress<'_>,
) -> std::result::Result<Finished, Vec<Error>> {
    let corpus = corpus::load(&options.fixtures_dir)?;
    let selected = scenario::select(&corpus, &options.scenario.spec.fixtures, &options.filters)
        .map_err(|e| vec![e])?;
    if selected.is_empty() {
        return Err(vec![Error::invalid(
            &options.scenario.file,
            format!(
                "no fixture in {} matches the selection and filters",
                options.fixtures_dir.display()
            ),
        )]);
    }
    run_selected(options, &selected, progress).map_err(|e| vec![e])
}

/// Runs already-selected fixtures.
pub fn run_selected(
    options: &RunOptions,
    selected: &[&corpus::Fixture],
    progress: &Progress<'_>,
) -> Result<Finished> {
    {
        let started_at = SystemTime::now();
        let clock = Instant::now();
        let pipeline = pipeline::from_spec(&options.scenario.spec.pipeline);
        let work_root = WorkRoot::create(options.work_dir.as_deref(), options.keep)?;
        let total = selected.len() * options.trials as usize;
        let done = AtomicUsize::new(0);
        let cfg = RunConfig {
            jobs: options.jobs,
            trials: options.trials,
            max_rounds: options.max_rounds,
            base_ref: options.scenario.spec.base_ref.clone(),
            work_root: &work_root,
        };
        let trials = runner::run(selected, pipeline.as_ref(), &cfg, &|record| {
            let n = done.fetch_add(1, Ordering::SeqCst) + 1;
            progress(record, n, total);
        });
        let metrics = MetricsReport::of(&trials);
        let thresholds = metrics::judge(&metrics.overall, &options.scenario.spec.thresholds);
        let exit_code = metrics::exit_code_of(&thresholds);
        let (stamp, rfc3339) = utc_stamp(started_at);
        let run_id = format!(
            "{stamp}-{}-{}",
            sanitize(&options.scenario.spec.name),
            std::process::id()
        );
        let results = RunResults {
            schema_version: results::SCHEMA_VERSION,
            gatebench_version: env!("CARGO_PKG_VERSION").to_owned(),
            run_id: run_id.clone(),
            scenario: ScenarioInfo {
                name: options.scenario.spec.name.clone(),
                file: options.scenario.file.display().to_string(),
            },
            pipeline: pipeline.name().to_owned(),
            started_at: rfc3339,
            duration_ms: clock.elapsed().as_millis() as u64,
            jobs: options.jobs,
            trial_count: options.trials,
            max_rounds: options.max_rounds,
            fixtures: selected.iter().map(|f| FixtureInfo::of(f)).collect(),
            trials,
            metrics,
            thresholds,
            exit_code,
        };
        let dir = options.reports_dir.join(&run_id);
        results::write_json_atomic(&dir.join("results.json"), &results)?;
        results::write_atomic(
            &dir.join("summary.md"),
            summary::markdown(&results).as_bytes(),
        )?;
        Ok(Finished { results, dir })
    }
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// (`YYYYMMDDTHHMMSSZ`, RFC 3339) of a time, in UTC.
pub fn utc_stamp(t: SystemTime) -> (String, String) {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    let (hh, mm, ss) = (rem / 3600, rem % 3600 / 60, rem % 60);
    (
        format!("{y:04}{m:02}{d:02}T{hh:02}{mm:02}{ss:02}Z"),
        format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn utc_stamp_formats_a_known_instant() {
        let t = UNIX_EPOCH + Duration::from_secs(1_767_225_600 + 3_661);
        assert_eq!(
            utc_stamp(t),
            ("20260101T010101Z".into(), "2026-01-01T01:01:01Z".into())
        );
    }
}
