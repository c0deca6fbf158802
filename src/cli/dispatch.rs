//! The command line's entry: parse, dispatch to the subcommand's file, map errors to exit codes.

use clap::{Parser, Subcommand};

use gatebench::error::Error;
use gatebench::exit_code;

use crate::cli::{
    baseline, check, compare, explain, gate, import, list, materialize, merge, mutate, replay, run,
    schema, workflow_schema,
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
    Run(run::RunArgs),
    /// Re-score a recorded run from its saved reports against the current fixtures' expectations,
    /// without invoking any pipeline.
    Replay(replay::ReplayArgs),
    /// List the fixtures with their category and expectation.
    List(list::ListArgs),
    /// Compare two runs (results.json files or run folders): fixtures that newly pass falsely,
    /// newly missed, newly alarmed, fixed; metric, convergence and cost deltas. Exits 2 when a
    /// fixture regressed.
    Compare(compare::CompareArgs),
    /// Merge the results of every shard of a run (`run --shard i/n`) into one run, with metrics
    /// and thresholds computed again; exits like `run`.
    Merge(merge::MergeArgs),
    /// Write a run as a baseline for the ratchet (`thresholds.baseline`): volatile data removed.
    Baseline(baseline::BaselineArgs),
    /// What a fixture plants (the diff from its golden), what a correct gate must report, and
    /// what the last run's pipeline reported for it.
    Explain(explain::ExplainArgs),
    /// The generated mutants of the goldens: list them (`--list`), or write chosen ones as
    /// fixture folders (`--write DIR MUTANT...`).
    Mutate(mutate::MutateArgs),
    /// Validate every fixture and scenario without running anything.
    Check(check::CheckArgs),
    /// Run the reference gate on a repository; exits non-zero unless the verdict is PASS.
    Gate(gate::GateArgs),
    /// Write a golden fixture from an existing git repository: base, head, and optionally the
    /// staged and unstaged changes; large and secret-looking files left out, ledger ids turned
    /// into placeholders.
    Import(import::ImportArgs),
    /// Build one fixture into a git repository at OUT and leave it there.
    Materialize(materialize::MaterializeArgs),
    /// Check that the committed JSON Schemas match the code (or rewrite them with --write).
    Schema(schema::SchemaArgs),
    /// Print the pipeline schema that `config/pipeline.schema.json` must hold for a workflow.
    WorkflowSchema(workflow_schema::WorkflowSchemaArgs),
}

pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            let _ = e.print();
            return exit_code::USAGE;
        }
        // `--help` and `--version`: standard output, as anything printed (a closed pipe ends the
        // process quietly, `stdout.rs`).
        Err(e) => {
            out!("{}", e.render());
            super::stdout::flush();
            return exit_code::SUCCESS;
        }
    };
    let result = match cli.command {
        Command::Run(args) => run::run(args),
        Command::Replay(args) => replay::run(args),
        Command::List(args) => list::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Baseline(args) => baseline::run(args),
        Command::Explain(args) => explain::run(args),
        Command::Mutate(args) => mutate::run(args),
        Command::Check(args) => check::run(args),
        Command::Gate(args) => gate::run(args),
        Command::Import(args) => import::run(args),
        Command::Materialize(args) => materialize::run(args),
        Command::Schema(args) => schema::run(args),
        Command::WorkflowSchema(args) => workflow_schema::run(args),
    };
    // What `out!` left in standard output's buffer, written now: a closed pipe ends the process
    // as for any other write (`stdout.rs`), rather than being lost silently at exit.
    super::stdout::flush();
    result.unwrap_or_else(|errors| report_errors(&errors))
}

fn report_errors(errors: &[Error]) -> i32 {
    if errors.iter().any(|e| matches!(e, Error::Interrupted)) {
        // The Ctrl-C handler is removing the run's folders and ends the process itself when done;
        // returning now could end the process before it has. Bounded: a handler stuck on a
        // folder does not keep the process alive.
        gatebench::run::interrupt::wait_for_cleanup(std::time::Duration::from_secs(10));
        return exit_code::INTERRUPTED;
    }
    for e in errors {
        errln!("error: {e}");
    }
    if errors.len() > 1 {
        errln!("{} problems", errors.len());
    }
    errors
        .iter()
        .map(Error::exit_code)
        .max()
        .unwrap_or(exit_code::INTERNAL)
}
