//! The command line (clap), resolved into library calls. Only the binary sees clap types.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand, ValueEnum};

use gatebench::error::Error;
use gatebench::options::{Overrides, RunOptions};
use gatebench::report::Report;
use gatebench::scenario::Scenario;
use gatebench::{
    corpus, exit_code, gate, materialize, outcome, results, run, schema, summary, workdir,
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
        } => cmd_list(&fixtures, category, tag),
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
    };
    result.unwrap_or_else(|errors| report_errors(&errors))
}

fn report_errors(errors: &[Error]) -> i32 {
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
        },
    );
    let _ = ctrlc::set_handler(|| {
        workdir::remove_live_roots();
        eprintln!("\ninterrupted: temporary repositories removed");
        std::process::exit(exit_code::INTERRUPTED);
    });
    let live = !args.quiet && std::io::stderr().is_terminal();
    let progress = |record: &results::TrialRecord, done: usize, total: usize| {
        if live {
            eprint!(
                "\r\x1b[2K[{done}/{total}] {} {}",
                record.fixture,
                record.outcome.as_str()
            );
        }
    };
    let finished = run::execute(&options, &progress)?;
    if live {
        eprint!("\r\x1b[2K");
    }
    print!("{}", summary::terminal(&finished.results));
    println!("results: {}", finished.dir.join("results.json").display());
    if options.keep {
        println!(
            "repositories kept under the work dir; each trial's path is in results.json (kept_at)"
        );
    }
    Ok(finished.results.exit_code)
}

fn cmd_list(fixtures: &Path, category: Option<String>, tag: Option<String>) -> CmdResult {
    let corpus = corpus::load(fixtures)?;
    let mut rows = vec![[
        "id".to_owned(),
        "category".to_owned(),
        "golden".to_owned(),
        "expects".to_owned(),
    ]];
    for f in &corpus.fixtures {
        if category.as_ref().is_some_and(|c| c != &f.category)
            || tag.as_ref().is_some_and(|t| !f.tags.contains(t))
        {
            continue;
        }
        let mut expects = f.expect.verdict.as_str().to_owned();
        for m in &f.expect.findings {
            expects.push_str(&format!(" [{}]", outcome::describe(&m.spec)));
        }
        rows.push([
            f.id.clone(),
            f.category.clone(),
            f.golden.clone().unwrap_or_else(|| "-".into()),
            expects,
        ]);
    }
    let widths: Vec<usize> = (0..3)
        .map(|i| rows.iter().map(|r| r[i].len()).max().unwrap_or(0))
        .collect();
    for r in &rows {
        println!(
            "{:<w0$}  {:<w1$}  {:<w2$}  {}",
            r[0],
            r[1],
            r[2],
            r[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        );
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
                if let Err(e) = Scenario::load(file) {
                    errors.push(e);
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
