//! Per-trial logs: `trials/<case>/` in a run's folder (each round's report, the pipeline's and the fixer's output, the planted and fix diffs, `trial.json`), and the trial views the HTML report embeds; built from the trial records and the loaded fixtures.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::corpus::model::fixture::LocusEntry;
use crate::corpus::{Corpus, Fixture};
use crate::error::{Error, Result};
use crate::output::render::reported::shown;
use crate::output::store::results::RunResults;
use crate::output::store::spool::{Record, Records, Spool};
use crate::score::locus;
use crate::score::record::{Attempt, TrialRecord};
use gatebench_report::Finding;

pub use crate::corpus::model::files::diff as diff_trees;

/// The folder of trial logs in a run's folder.
pub const TRIALS: &str = "trials";

/// What a fixture planted, as the trial logs and the HTML trial view show it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FixtureView {
    /// The diff from the golden's work tree to the fixture's (`None` for a golden).
    pub planted_diff: Option<String>,
    /// Each scripted fix's diff from the tree before it, with the round it follows.
    pub fix_diffs: Vec<(u32, String)>,
    /// The ground truth's locus (`expect.locus`).
    pub locus: Vec<LocusEntry>,
}

/// A fixture's view, as spooled: keyed by the fixture's id.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ViewRecord {
    pub fixture: String,
    #[serde(flatten)]
    pub view: FixtureView,
}

impl Record for ViewRecord {
    const NAME: &'static str = "fixture view";
    fn key(&self) -> (&str, u32) {
        (&self.fixture, 0)
    }
}

impl ViewRecord {
    /// The view of `f` (in full), its golden looked up in `corpus`.
    pub fn of(f: &Fixture, corpus: &Corpus) -> ViewRecord {
        ViewRecord {
            fixture: f.id.clone(),
            view: view_of(f, corpus),
        }
    }
}

/// Fixture views, spooled as each is computed (`Spool<ViewRecord>`) and read back when a trial
/// needs one: memory holds an offset per fixture, not its diffs.
#[derive(Debug, Default)]
pub struct Views(Records<ViewRecord>);

impl Views {
    /// No views: trial logs and the HTML show no planted or fix diffs.
    pub fn new() -> Views {
        Views::default()
    }

    /// The views written to `spool`.
    pub fn finish(spool: Spool<ViewRecord>) -> Result<Views> {
        spool.finish().map(Views)
    }

    /// The view of fixture `id`, `None` for a fixture without one.
    pub fn get(&self, id: &str) -> Result<Option<FixtureView>> {
        let found = self.0.find(id).map(|r| r.into_owned().view);
        self.0.check()?;
        Ok(found)
    }
}

/// The views of `fixtures`, their goldens looked up in `corpus`; the fixtures composed in
/// parallel, one fixture's trees in memory per worker at a time. A fixture whose files can no
/// longer be composed has no diffs (its trials are errors that say why).
pub fn views(fixtures: &[&Fixture], corpus: &Corpus) -> Result<Views> {
    use rayon::prelude::*;
    let mut sorted = fixtures.to_vec();
    sorted.sort_by(|a, b| a.id.cmp(&b.id));
    let out = Spool::create(&std::env::temp_dir())?;
    sorted
        .par_iter()
        .enumerate()
        .for_each(|(rank, f)| out.push(rank as u32, &ViewRecord::of(f, corpus)));
    Views::finish(out)
}

/// What `f` planted over its golden, and each scripted fix's diff.
fn view_of(f: &Fixture, corpus: &Corpus) -> FixtureView {
    let Ok(trees) = f.compose() else {
        return FixtureView {
            locus: f.expect.locus.clone(),
            ..FixtureView::default()
        };
    };
    let planted_diff = f
        .golden
        .as_deref()
        .and_then(|g| corpus.get(g))
        .and_then(|g| g.compose().ok())
        .map(|g| diff_trees(g.final_files(), trees.final_files()));
    let mut before = trees.final_files();
    let mut fix_diffs = Vec::new();
    for fix in &trees.fixes {
        fix_diffs.push((fix.after_round, diff_trees(before, &fix.files)));
        before = &fix.files;
    }
    FixtureView {
        planted_diff,
        fix_diffs,
        locus: f.expect.locus.clone(),
    }
}

/// The case id of a trial: from the run's case map, else computed as the runner does.
pub fn case_of(results: &RunResults, trial: &TrialRecord) -> String {
    let computed =
        crate::repo::workdir::case_id(&results.scenario.name, &trial.fixture, trial.trial);
    let is_it = |c: &crate::output::store::results::CaseRef| {
        c.fixture == trial.fixture && c.trial == trial.trial
    };
    let cases = &results.cases;
    if cases.is_empty() || cases.are_computed() || cases.get(&computed).is_some_and(|c| is_it(&c)) {
        return computed;
    }
    cases
        .iter()
        .find(|(_, c)| is_it(c))
        .map_or(computed, |(case, _)| case)
}

/// A locus entry in one line: `path:START-END`, `requirement REQ-001`, ...
pub fn locus_text(e: &LocusEntry) -> String {
    match (&e.path, e.lines, &e.requirement, &e.obligation, &e.task) {
        (Some(p), Some([a, b]), ..) => format!("{p}:{a}-{b}"),
        (Some(p), None, ..) => p.clone(),
        (_, _, Some(r), ..) => format!("requirement {r}"),
        (_, _, _, Some(o), _) => format!("obligation {o}"),
        (_, _, _, _, Some(t)) => format!("task {t}"),
        _ => String::new(),
    }
}

/// One finding of a round, and whether it points at the locus (`score::locus::points_at`).
#[derive(Debug, Clone, Serialize)]
pub struct FindingView {
    pub severity: u8,
    pub title: String,
    pub validator: Option<String>,
    pub location: Option<String>,
    pub at_locus: bool,
}

/// One round of a trial as the trial view shows it.
#[derive(Debug, Clone, Serialize)]
pub struct RoundView {
    pub round: u32,
    pub verdict: Option<String>,
    pub error: Option<String>,
    pub timed_out: bool,
    pub duration_ms: u64,
    pub findings: Vec<FindingView>,
    /// Findings in the report that could not be read as findings.
    pub unreadable: usize,
    /// Findings past the first `reported::MAX_SHOWN_FINDINGS`, not shown.
    pub left_out: usize,
    /// The diff of the scripted fix committed after this round, if one was.
    pub fix_diff: Option<String>,
    /// The external fixer's status after this round, if one ran.
    pub fixer: Option<String>,
}

/// Every round of `trial`, its findings marked against `view`'s locus.
pub fn rounds_view(trial: &TrialRecord, view: Option<&FixtureView>) -> Vec<RoundView> {
    let locus: &[LocusEntry] = view.map_or(&[], |v| v.locus.as_slice());
    trial
        .rounds
        .iter()
        .map(|r| {
            let mut findings = Vec::new();
            let mut unreadable = 0;
            let listed = r
                .report
                .as_ref()
                .map(crate::output::render::reported::Shown::of)
                .unwrap_or_default();
            for value in listed.first {
                match serde_json::from_value::<Finding>(value) {
                    Ok(f) => findings.push(FindingView {
                        severity: f.severity,
                        at_locus: locus::at_locus(&f, locus),
                        title: shown(&f.title),
                        validator: f.validator.as_deref().map(shown),
                        location: f.location.map(|l| match l.line {
                            Some(line) => shown(&format!("{}:{line}", l.path)),
                            None => shown(&l.path),
                        }),
                    }),
                    Err(_) => unreadable += 1,
                }
            }
            // A scripted fix's diff is the fixture's; an external fixer's was taken when its
            // changes were committed.
            let fix_diff = if r.fix_commit.is_some() && r.fixer.is_none() {
                view.and_then(|v| v.fix_diffs.iter().find(|(after, _)| *after == r.round))
                    .map(|(_, d)| d.clone())
            } else {
                r.fix_diff.clone()
            };
            RoundView {
                round: r.round,
                verdict: r.verdict.map(|v| v.as_str().to_owned()),
                error: r.error.clone(),
                timed_out: r.timed_out,
                duration_ms: r.duration_ms,
                findings,
                unreadable,
                left_out: listed.more,
                fix_diff,
                fixer: r.fixer.as_ref().map(|p| p.status_text()),
            }
        })
        .collect()
}

/// `trial.json`: what happened in the trial besides the files beside it.
#[derive(Serialize)]
struct TrialFacts<'a> {
    case: &'a str,
    fixture: &'a str,
    trial: u32,
    category: &'a str,
    outcome: &'static str,
    reason: &'a str,
    run_id: &'a str,
    pipeline: &'a str,
    /// How the pipeline's processes were isolated (external pipelines).
    isolation: Option<&'a crate::pipeline::round::IsolationInfo>,
    work_dir: &'a str,
    kept_at: Option<&'a str>,
    cached: bool,
    retried: bool,
    attempts: &'a [Attempt],
    materialize_ms: u64,
    duration_ms: u64,
    commits: &'a std::collections::BTreeMap<String, String>,
    modified_paths: &'a [String],
    harness_error: Option<&'a str>,
    locus: Vec<String>,
    rounds: Vec<RoundFacts<'a>>,
    /// The files of this folder.
    files: Vec<String>,
}

#[derive(Serialize)]
struct RoundFacts<'a> {
    round: u32,
    verdict: Option<&'static str>,
    error: Option<&'a str>,
    timed_out: bool,
    duration_ms: u64,
    findings: usize,
    /// The verifier's process: how it ended, its command and time.
    process: Option<ProcessFacts<'a>>,
    fixer: Option<ProcessFacts<'a>>,
    fix_commit: Option<&'a str>,
    modified_paths: &'a [String],
}

#[derive(Serialize)]
struct ProcessFacts<'a> {
    argv: &'a [String],
    status: String,
    timed_out: bool,
    duration_ms: u64,
    stdout_bytes: u64,
    stderr_bytes: u64,
    truncated: bool,
}

fn process_facts(p: &gatebench_process::ProcessRecord) -> ProcessFacts<'_> {
    ProcessFacts {
        argv: &p.argv,
        status: p.status_text(),
        timed_out: p.timed_out,
        duration_ms: p.duration_ms,
        stdout_bytes: p.stdout.total_bytes,
        stderr_bytes: p.stderr.total_bytes,
        truncated: p.stdout.truncated || p.stderr.truncated,
    }
}

/// Writes `trials/<case>/` for every trial of `results` under `run_dir`.
pub fn write(run_dir: &Path, results: &RunResults, views: &Views) -> Result<()> {
    use rayon::prelude::*;
    (0..results.trials.len()).into_par_iter().try_for_each(|i| {
        // `None` only when the spool cannot be read back: `check` says why.
        match results.trials.get(i) {
            Some(trial) => write_one(run_dir, results, views, &trial),
            None => results.trials.check(),
        }
    })
}

/// The log folder of one trial, its reports read back from the run's objects (one trial's at a
/// time: memory does not grow with the run).
fn write_one(
    run_dir: &Path,
    results: &RunResults,
    views: &Views,
    trial: &TrialRecord,
) -> Result<()> {
    {
        let trial = &*crate::output::store::objects::resolved(results.objects.as_ref(), trial)?;
        let case = case_of(results, trial);
        // A case id read from a results file names a folder: only in its format.
        let dir = run_dir
            .join(TRIALS)
            .join(crate::ids::case_id(run_dir, &case)?);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io("create", &dir, e))?;
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        let view = views.get(&trial.fixture)?;
        let view = view.as_ref();
        if let Some(diff) = view.and_then(|v| v.planted_diff.as_ref()) {
            files.push(("planted.diff".into(), diff.clone().into_bytes()));
        }
        for (n, r) in rounds_view(trial, view).iter().enumerate() {
            if let Some(diff) = &r.fix_diff {
                files.push((
                    format!("round-{}.fix.diff", r.round),
                    diff.clone().into_bytes(),
                ));
            }
            let record = &trial.rounds[n];
            if let Some(report) = &record.report {
                let text = serde_json::to_vec_pretty(report)
                    .map_err(|e| Error::Internal(format!("a round's report: {e}")))?;
                files.push((format!("round-{}.report.json", r.round), text));
            }
            for (who, p) in [("", &record.process), (".fixer", &record.fixer)] {
                if let Some(p) = p {
                    files.push((
                        format!("round-{}{who}.stdout", r.round),
                        p.stdout.text.clone().into_bytes(),
                    ));
                    files.push((
                        format!("round-{}{who}.stderr", r.round),
                        p.stderr.text.clone().into_bytes(),
                    ));
                }
            }
        }
        let mut names: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
        names.push("trial.json".into());
        names.sort();
        let facts = TrialFacts {
            case: &case,
            fixture: &trial.fixture,
            trial: trial.trial,
            category: &trial.category,
            outcome: trial.outcome.as_str(),
            reason: &trial.reason,
            run_id: &results.run_id,
            pipeline: &results.pipeline,
            isolation: results.isolation.as_ref(),
            work_dir: &trial.work_dir,
            kept_at: trial.kept_at.as_deref(),
            cached: trial.cached,
            retried: trial.retried,
            attempts: &trial.attempts,
            materialize_ms: trial.materialize_ms,
            duration_ms: trial.duration_ms,
            commits: &trial.commits,
            modified_paths: &trial.modified_paths,
            harness_error: trial.harness_error.as_deref(),
            locus: view.map_or_else(Vec::new, |v| v.locus.iter().map(locus_text).collect()),
            rounds: trial
                .rounds
                .iter()
                .map(|r| RoundFacts {
                    round: r.round,
                    verdict: r.verdict.map(|v| v.as_str()),
                    error: r.error.as_deref(),
                    timed_out: r.timed_out,
                    duration_ms: r.duration_ms,
                    findings: r.findings,
                    process: r.process.as_ref().map(process_facts),
                    fixer: r.fixer.as_ref().map(process_facts),
                    fix_commit: r.fix_commit.as_deref(),
                    modified_paths: &r.modified_paths,
                })
                .collect(),
            files: names,
        };
        let json = serde_json::to_vec_pretty(&facts)
            .map_err(|e| Error::Internal(format!("trial.json: {e}")))?;
        files.push(("trial.json".into(), json));
        for (name, bytes) in files {
            let path = dir.join(&name);
            std::fs::write(&path, bytes).map_err(|e| Error::io("write", &path, e))?;
        }
    }
    Ok(())
}
