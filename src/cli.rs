//! The command line (clap), resolved into library calls. Only the binary sees clap types.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand, ValueEnum};

use gatebench::error::Error;
use gatebench::options::{Overrides, RunOptions};
use gatebench::progress::LiveProgress;
use gatebench::report::Report;
use gatebench::scenario::Scenario;
use gatebench::{
    corpus, exit_code, gate, materialize, outcome, results, run, runs, schema, summary, workdir,
};

#[derive(Parser)]
#[command(
    name = "gatebench",
    version,
    about = "Does a verification gate ever PASS work with a known omission?"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario: materialize every selected fixture, run the pipeline, score, summarize.
    Run(RunArgs),
    /// Re-score a recorded run from its saved reports against the current fixtures' expectations,
    /// without invoking any pipeline.
    Replay {
        /// A results file or a run folder under reports/.
        recorded: PathBuf,
        /// The fixtures to score against (default: the recorded scenario's).
        #[arg(long)]
        fixtures: Option<PathBuf>,
        #[arg(long, default_value = "reports")]
        reports_dir: PathBuf,
    },
    /// List the fixtures with their category and expectation.
    List {
        #[arg(long, default_value = "fixtures")]
        fixtures: PathBuf,
        /// Only fixtures of this category.
        #[arg(long)]
        category: Option<String>,
        /// Only fixtures with this tag.
        #[arg(long)]
        tag: Option<String>,
        /// Only fixtures with a trial of this outcome in a run (detected, wrong-reason,
        /// false-pass, passed, false-alarm, error, timeout).
        #[arg(long, value_parser = parse_outcome)]
        outcome: Option<outcome::Outcome>,
        /// The run whose outcomes are shown and filtered: a results.json or a run folder
        /// (default: the newest run under --reports-dir).
        #[arg(long)]
        results: Option<PathBuf>,
        #[arg(long, default_value = "reports")]
        reports_dir: PathBuf,
    },
    /// Compare two runs (results.json files or run folders): fixtures that newly pass falsely,
    /// newly missed, newly alarmed, fixed; metric, convergence and cost deltas. Exits 2 when a
    /// fixture regressed.
    Compare {
        base: PathBuf,
        new: PathBuf,
        #[arg(long, value_enum, default_value_t = CompareFormat::Text)]
        format: CompareFormat,
        /// Write the comparison here instead of standard output.
        #[arg(long)]
        output: Option<PathBuf>,
    },
    /// Merge the results of every shard of a run (`run --shard i/n`) into one run, with metrics
    /// and thresholds computed again; exits like `run`.
    Merge {
        /// The results.json (or run folder) of each shard.
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        #[arg(long, default_value = "reports")]
        reports_dir: PathBuf,
    },
    /// Write a run as a baseline for the ratchet (`thresholds.baseline`): volatile data removed.
    Baseline {
        /// A results.json or run folder (default: the newest run under --reports-dir).
        run: Option<PathBuf>,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value = "reports")]
        reports_dir: PathBuf,
    },
    /// What a fixture plants (the diff from its golden), what a correct gate must report, and
    /// what the last run's pipeline reported for it.
    Explain {
        fixture: String,
        #[arg(long, default_value = "fixtures")]
        fixtures: PathBuf,
        /// The run to show (default: the newest run under --reports-dir).
        #[arg(long)]
        results: Option<PathBuf>,
        #[arg(long, default_value = "reports")]
        reports_dir: PathBuf,
    },
    /// Validate every fixture and scenario without running anything.
    Check {
        #[arg(long, default_value = "fixtures")]
        fixtures: PathBuf,
        #[arg(long, default_value = "scenarios")]
        scenarios: PathBuf,
    },
    /// Run the reference gate on a repository; exits non-zero unless the verdict is PASS.
    Gate {
        /// The repository (default: the current folder).
        #[arg(default_value = ".")]
        path: PathBuf,
        /// The base ref to compare against.
        #[arg(long, default_value = "main")]
        base: String,
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Write the report here instead of standard output.
        #[arg(long)]
        output: Option<PathBuf>,
    },
    /// Build one fixture into a git repository at OUT and leave it there.
    Materialize {
        fixture: String,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value = "fixtures")]
        fixtures: PathBuf,
    },
    /// Check that the committed JSON Schemas match the code (or rewrite them with --write).
    Schema {
        #[arg(long, default_value = "schemas")]
        dir: PathBuf,
        #[arg(long)]
        write: bool,
    },
    /// Print the pipeline schema that `config/pipeline.schema.json` must hold for a workflow.
    WorkflowSchema { workflow: PathBuf },
}

#[derive(clap::Args)]
struct RunArgs {
    /// The scenario file.
    #[arg(default_value = "scenarios/default.yaml")]
    scenario: PathBuf,
    /// Only fixtures whose id matches this glob (repeatable); their goldens run too.
    #[arg(long)]
    filter: Vec<String>,
    /// Parallel trials (default: the scenario's, else one per core).
    #[arg(long)]
    jobs: Option<usize>,
    #[arg(long)]
    trials: Option<u32>,
    #[arg(long)]
    max_rounds: Option<u32>,
    /// The fixtures folder (default: the scenario's).
    #[arg(long)]
    fixtures: Option<PathBuf>,
    /// Where temporary repositories go (point it at tmpfs for speed).
    #[arg(long)]
    work_dir: Option<PathBuf>,
    /// Keep the temporary repositories (their paths are in results.json).
    #[arg(long)]
    keep: bool,
    #[arg(long, default_value = "reports")]
    reports_dir: PathBuf,
    /// Print only the summary, no progress.
    #[arg(long)]
    quiet: bool,
    /// Run only shard I of N (1-based, e.g. `2/3`): fixtures are assigned by a hash of their id,
    /// every trial of a fixture on one shard. Merge the shards with `gatebench merge`.
    #[arg(long, value_name = "I/N")]
    shard: Option<gatebench::shard::Shard>,
    /// Run every trial even when the result cache (`<reports-dir>/.cache/`, external pipelines
    /// only) holds it; finished trials are still written to it.
    #[arg(long)]
    no_cache: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum CompareFormat {
    Text,
    Markdown,
}

fn parse_outcome(s: &str) -> Result<outcome::Outcome, String> {
    outcome::Outcome::ALL
        .into_iter()
        .find(|o| o.as_str() == s)
        .ok_or_else(|| {
            let all: Vec<&str> = outcome::Outcome::ALL.iter().map(|o| o.as_str()).collect();
            format!("`{s}` is not an outcome: one of {}", all.join(", "))
        })
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Json,
}

pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                exit_code::USAGE
            } else {
                exit_code::SUCCESS
            };
        }
    };
    let result = match cli.command {
        Command::Run(args) => cmd_run(args),
        Command::List {
            fixtures,
            category,
            tag,
            outcome,
            results,
            reports_dir,
        } => cmd_list(&fixtures, category, tag, outcome, results, &reports_dir),
        Command::Compare {
            base,
            new,
            format,
            output,
        } => cmd_compare(&base, &new, format, output),
        Command::Merge {
            shards,
            reports_dir,
        } => cmd_merge(&shards, &reports_dir),
        Command::Baseline {
            run,
            out,
            reports_dir,
        } => cmd_baseline(run.as_deref(), &out, &reports_dir),
        Command::Explain {
            fixture,
            fixtures,
            results,
            reports_dir,
        } => cmd_explain(&fixtures, &fixture, results.as_deref(), &reports_dir),
        Command::Check {
            fixtures,
            scenarios,
        } => cmd_check(&fixtures, &scenarios),
        Command::Gate {
            path,
            base,
            format,
            output,
        } => cmd_gate(&path, base, format, output),
        Command::Materialize {
            fixture,
            out,
            fixtures,
        } => cmd_materialize(&fixtures, &fixture, &out),
        Command::Schema { dir, write } => cmd_schema(&dir, write),
        Command::WorkflowSchema { workflow } => cmd_workflow_schema(&workflow),
        Command::Replay {
            recorded,
            fixtures,
            reports_dir,
        } => cmd_replay(recorded, fixtures, reports_dir),
    };
    result.unwrap_or_else(|errors| report_errors(&errors))
}

fn report_errors(errors: &[Error]) -> i32 {
    if errors.iter().any(|e| matches!(e, Error::Interrupted)) {
        // The Ctrl-C handler is removing the temporary repositories and exits the process itself
        // when done; returning now could end the process before it has.
        std::thread::sleep(std::time::Duration::from_secs(10));
        return exit_code::INTERRUPTED;
    }
    for e in errors {
        eprintln!("error: {e}");
    }
    if errors.len() > 1 {
        eprintln!("{} problems", errors.len());
    }
    errors
        .iter()
        .map(Error::exit_code)
        .max()
        .unwrap_or(exit_code::INTERNAL)
}

type CmdResult = Result<i32, Vec<Error>>;

fn cmd_run(args: RunArgs) -> CmdResult {
    let scenario = Scenario::load(&args.scenario).map_err(|e| vec![e])?;
    let options = RunOptions::resolve(
        scenario,
        Overrides {
            filters: args.filter,
            jobs: args.jobs,
            trials: args.trials,
            max_rounds: args.max_rounds,
            fixtures_dir: args.fixtures,
            work_dir: args.work_dir,
            reports_dir: Some(args.reports_dir),
            keep: args.keep,
            no_cache: args.no_cache,
            shard: args.shard,
        },
    );
    let _ = ctrlc::set_handler(|| {
        gatebench::process::kill_live_groups();
        workdir::interrupt_and_remove_roots(std::time::Duration::from_secs(5));
        eprintln!("\ninterrupted: temporary repositories removed");
        std::process::exit(exit_code::INTERRUPTED);
    });
    let live = LiveProgress::new(!args.quiet && std::io::stderr().is_terminal());
    let progress = |record: &results::TrialRecord, done: usize, total: usize| {
        live.on_trial(record, done, total);
    };
    let finished = run::execute(&options, &progress);
    live.finish();
    let finished = finished?;
    print!("{}", summary::terminal(&finished.results));
    println!("results: {}", finished.dir.join("results.json").display());
    println!(
        "report:  {} (also summary.md, junit.xml)",
        finished.dir.join("report.html").display()
    );
    step_summary(&finished.results)?;
    if options.keep {
        println!(
            "repositories kept under the work dir; each trial's path is in results.json (kept_at)"
        );
    }
    Ok(finished.results.exit_code)
}

fn cmd_list(
    fixtures: &Path,
    category: Option<String>,
    tag: Option<String>,
    outcome: Option<outcome::Outcome>,
    results: Option<PathBuf>,
    reports_dir: &Path,
) -> CmdResult {
    let corpus = corpus::load(fixtures)?;
    // The last run's outcomes, when asked for (by --outcome or --results).
    let last = if outcome.is_some() || results.is_some() {
        let (file, run) =
            runs::named_or_newest(results.as_deref(), reports_dir).map_err(|e| vec![e])?;
        eprintln!("outcomes from {}", file.display());
        Some(run)
    } else {
        None
    };
    let outcomes_of = |id: &str| -> Vec<outcome::Outcome> {
        last.as_ref().map_or_else(Vec::new, |r| {
            r.trials
                .iter()
                .filter(|t| t.fixture == id)
                .map(|t| t.outcome)
                .collect()
        })
    };
    let mut head = vec!["id", "category", "golden", "expects"];
    if last.is_some() {
        head.insert(3, "last run");
    }
    let mut rows: Vec<Vec<String>> = vec![head.into_iter().map(str::to_owned).collect()];
    for f in &corpus.fixtures {
        let outcomes = outcomes_of(&f.id);
        if category.as_ref().is_some_and(|c| c != &f.category)
            || tag.as_ref().is_some_and(|t| !f.tags.contains(t))
            || outcome.is_some_and(|o| !outcomes.contains(&o))
        {
            continue;
        }
        let mut expects = f.expect.verdict.as_str().to_owned();
        for m in &f.expect.findings {
            expects.push_str(&format!(" [{}]", outcome::describe(&m.spec)));
        }
        let mut row = vec![
            f.id.clone(),
            f.category.clone(),
            f.golden.clone().unwrap_or_else(|| "-".into()),
            expects,
        ];
        if last.is_some() {
            row.insert(3, gatebench::compare::show_outcomes(&outcomes));
        }
        rows.push(row);
    }
    let columns = rows[0].len();
    let widths: Vec<usize> = (0..columns - 1)
        .map(|i| rows.iter().map(|r| r[i].len()).max().unwrap_or(0))
        .collect();
    for r in &rows {
        let mut line: String = widths
            .iter()
            .zip(r)
            .map(|(w, cell)| format!("{cell:<w$}  "))
            .collect();
        line.push_str(&r[columns - 1]);
        println!("{line}");
    }
    println!("{} fixtures", rows.len() - 1);
    Ok(exit_code::SUCCESS)
}

fn cmd_check(fixtures: &Path, scenarios: &Path) -> CmdResult {
    let mut errors = Vec::new();
    let corpus = corpus::load(fixtures).map_err(|e| errors.extend(e)).ok();
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
                        if let Err(e) = gatebench::ratchet::load(file, &s.spec.thresholds) {
                            errors.push(e);
                        }
                    }
                    Err(e) => errors.push(e),
                }
            }
        }
        Err(e) => errors.push(Error::io("read the scenarios folder", scenarios, e)),
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let n = corpus.map_or(0, |c| c.fixtures.len());
    println!("ok: {n} fixtures, {scenario_count} scenarios");
    Ok(exit_code::SUCCESS)
}

fn cmd_gate(path: &Path, base: String, format: Format, output: Option<PathBuf>) -> CmdResult {
    let report = gate::run_gate(path, &gate::GateOptions { base_ref: base });
    let text = match format {
        Format::Json => {
            let mut t = serde_json::to_string_pretty(&report)
                .map_err(|e| vec![Error::Internal(e.to_string())])?;
            t.push('\n');
            t
        }
        Format::Human => human(&report),
    };
    match output {
        Some(file) => results::write_atomic(&file, text.as_bytes()).map_err(|e| vec![e])?,
        None => print!("{text}"),
    }
    Ok(match report.verdict() {
        Some(gatebench::report::Verdict::Pass) => exit_code::SUCCESS,
        Some(_) => exit_code::THRESHOLDS,
        None => exit_code::INTERNAL,
    })
}

fn human(report: &Report) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let verdict = match report.verdict() {
        Some(v) => v.as_str().to_uppercase(),
        None => "ERROR".into(),
    };
    let _ = writeln!(
        out,
        "gatebench gate: {verdict} ({} finding(s))",
        report.findings.len()
    );
    if let Some(e) = &report.error {
        let _ = writeln!(out, "error {}: {}", e.code, e.message);
    }
    for f in &report.findings {
        let validator = f.validator.as_deref().unwrap_or("-");
        let _ = writeln!(out, "\n[{}] {} ({validator})", f.severity, f.title);
        if let Some(l) = &f.location {
            match l.line {
                Some(line) => {
                    let _ = writeln!(out, "    at {}:{line}", l.path);
                }
                None => {
                    let _ = writeln!(out, "    at {}", l.path);
                }
            }
        }
        let ids: Vec<&str> = [f.requirement_id.as_deref(), f.obligation_id.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        if !ids.is_empty() {
            let _ = writeln!(out, "    about {}", ids.join(", "));
        }
        for line in f.description.lines() {
            let _ = writeln!(out, "    {line}");
        }
    }
    out
}

fn cmd_materialize(fixtures: &Path, id: &str, out: &Path) -> CmdResult {
    let corpus = corpus::load(fixtures)?;
    let fixture = corpus.get(id).ok_or_else(|| {
        vec![Error::invalid(
            fixtures,
            format!("no fixture with id `{id}`"),
        )]
    })?;
    if out.exists()
        && std::fs::read_dir(out)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        return Err(vec![Error::invalid(
            out,
            "the output folder exists and is not empty",
        )]);
    }
    let m = materialize::materialize(fixture, out).map_err(|e| vec![e])?;
    println!("{}", m.work_dir.display());
    for (layer, commit) in &m.commits {
        println!("  {layer}: {commit}");
    }
    Ok(exit_code::SUCCESS)
}

fn cmd_schema(dir: &Path, write: bool) -> CmdResult {
    if write {
        schema::write_all(dir).map_err(|e| vec![e])?;
        println!("schemas written to {}", dir.display());
        return Ok(exit_code::SUCCESS);
    }
    let drifted = schema::drifted(dir);
    if drifted.is_empty() {
        println!("schemas are current");
        Ok(exit_code::SUCCESS)
    } else {
        for name in &drifted {
            eprintln!(
                "error: {} differs from the code; run `gatebench schema --write`",
                dir.join(name).display()
            );
        }
        Ok(exit_code::USAGE)
    }
}

fn cmd_workflow_schema(workflow: &Path) -> CmdResult {
    let text =
        std::fs::read_to_string(workflow).map_err(|e| vec![Error::io("read", workflow, e)])?;
    let value = gate::workflow_schema(&text).map_err(|m| vec![Error::invalid(workflow, m)])?;
    println!("{}", schema::render(&value).trim_end());
    Ok(exit_code::SUCCESS)
}

/// Appends the Markdown summary to `$GITHUB_STEP_SUMMARY` when GitHub Actions sets it.
fn step_summary(results: &results::RunResults) -> Result<(), Vec<Error>> {
    match std::env::var_os("GITHUB_STEP_SUMMARY").filter(|v| !v.is_empty()) {
        Some(path) => {
            gatebench::outputs::append_step_summary(Path::new(&path), results).map_err(|e| vec![e])
        }
        None => Ok(()),
    }
}

fn cmd_compare(
    base: &Path,
    new: &Path,
    format: CompareFormat,
    output: Option<PathBuf>,
) -> CmdResult {
    let (base_results, new_results) = match (runs::read(base), runs::read(new)) {
        (Ok(b), Ok(n)) => (b, n),
        (b, n) => return Err(b.err().into_iter().chain(n.err()).collect()),
    };
    let comparison = gatebench::compare::compare(
        &base_results,
        &new_results,
        &base.display().to_string(),
        &new.display().to_string(),
    );
    let text = match format {
        CompareFormat::Text => gatebench::compare::text(&comparison),
        CompareFormat::Markdown => gatebench::compare::markdown(&comparison),
    };
    match output {
        Some(file) => results::write_atomic(&file, text.as_bytes()).map_err(|e| vec![e])?,
        None => print!("{text}"),
    }
    Ok(if comparison.regressions().next().is_some() {
        exit_code::THRESHOLDS
    } else {
        exit_code::SUCCESS
    })
}

fn cmd_replay(recorded: PathBuf, fixtures: Option<PathBuf>, reports_dir: PathBuf) -> CmdResult {
    let finished = gatebench::replay::replay(&gatebench::replay::ReplayOptions {
        recorded,
        fixtures_dir: fixtures,
        reports_dir,
    })?;
    let results = &finished.results;
    print!("{}", summary::terminal(results));
    println!(
        "replay of {} (no pipeline invoked)",
        results.replay_of.as_deref().unwrap_or("?")
    );
    println!("results: {}", finished.dir.join("results.json").display());
    Ok(results.exit_code)
}

fn cmd_merge(shards: &[PathBuf], reports_dir: &Path) -> CmdResult {
    let mut read = Vec::new();
    let mut errors = Vec::new();
    for path in shards {
        match runs::read(path) {
            Ok(r) => read.push((runs::results_file(path), r)),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut merged = gatebench::merge::merge(read, std::time::SystemTime::now())?;
    merged.run_id = run::reserve_run_dir(reports_dir, &merged.run_id).map_err(|e| vec![e])?;
    let dir = reports_dir.join(&merged.run_id);
    gatebench::outputs::write_all(&dir, &merged).map_err(|e| vec![e])?;
    print!("{}", summary::terminal(&merged));
    println!("merged {} shards", merged.merged_from.len());
    println!("results: {}", dir.join("results.json").display());
    println!(
        "report:  {} (also summary.md, junit.xml)",
        dir.join("report.html").display()
    );
    step_summary(&merged)?;
    Ok(merged.exit_code)
}

fn cmd_baseline(run: Option<&Path>, out: &Path, reports_dir: &Path) -> CmdResult {
    let (file, results) = runs::named_or_newest(run, reports_dir).map_err(|e| vec![e])?;
    let baseline = gatebench::ratchet::baseline_of(&results);
    results::write_json_atomic(out, &baseline).map_err(|e| vec![e])?;
    println!(
        "baseline of {} ({} fixtures, {} trials) written to {}",
        file.display(),
        baseline.metrics.overall.fixtures,
        baseline.trials.len(),
        out.display()
    );
    Ok(exit_code::SUCCESS)
}

fn cmd_explain(fixtures: &Path, id: &str, results: Option<&Path>, reports_dir: &Path) -> CmdResult {
    let corpus = corpus::load(fixtures)?;
    // No run yet is not an error for `explain`: it still shows the fixture.
    let last = match results {
        Some(p) => Some((p.display().to_string(), runs::read(p).map_err(|e| vec![e])?)),
        None => runs::newest(reports_dir).and_then(|dir| {
            runs::read(&dir)
                .ok()
                .map(|r| (dir.display().to_string(), r))
        }),
    };
    let text = gatebench::explain::explain(
        &corpus,
        id,
        last.as_ref().map(|(label, r)| (label.as_str(), r)),
    )
    .map_err(|e| vec![e])?;
    print!("{text}");
    Ok(exit_code::SUCCESS)
}
