//! `gatebench mutate --validate`: the semantic tier's ground truth, by running each golden's suite
//! on every candidate (`gatebench::mutate::semantic::validate`), with progress on standard error
//! and, at the end, what was found and what it cost; the record written to the fixtures folder
//! (or, with `--check`, compared with it).

use std::time::Instant;

use gatebench::corpus;
use gatebench::error::Error;
use gatebench::exit_code;
use gatebench::mutate::semantic::record::Record;
use gatebench::mutate::semantic::runs::Runs;
use gatebench::mutate::semantic::validate;

use super::MutateArgs;
use crate::cli::CmdResult;

pub fn run(args: MutateArgs) -> CmdResult {
    let corpus = corpus::load(&args.fixtures)?;
    // No suite may be granted the answer key or the cache.
    gatebench_process::protect([args.fixtures.as_path(), args.cache.as_path()]);
    let runs = Runs::new((!args.no_cache).then(|| args.cache.clone()));
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| vec![Error::invalid("--jobs", e.to_string())])?;
    let started = Instant::now();
    let last = std::sync::Mutex::new(Instant::now());
    let progress = |golden: &str, done: usize, total: usize| {
        let mut last = last.lock().unwrap_or_else(|p| p.into_inner());
        if done == total || last.elapsed().as_secs() >= 5 {
            *last = Instant::now();
            errln!("validating {golden}: {done}/{total} steps");
        }
    };
    let (record, tally) = pool
        .install(|| validate::validate(&corpus, &args.goldens, &runs, &progress))
        .map_err(|e| vec![e])?;
    let wall = started.elapsed();
    // Some goldens validated: the others' entries stay as recorded.
    let record = match Record::load(&args.fixtures).map_err(|e| vec![e])? {
        Some(earlier) if !args.goldens.is_empty() => record.merged_into(earlier),
        _ => record,
    };
    for (status, n) in &record.counts {
        outln!("{n:>6}  {status}");
    }
    let planted = record.mutants.iter().filter(|m| m.status.planted()).count();
    outln!(
        "{} candidates of {} golden(s) validated (the record plants {planted}); {} suite runs executed, {} from the cache, in {:.1} s \
         ({:.1} candidates/s; the suites' own time {:.1} s over {jobs} jobs)",
        tally.candidates,
        tally.goldens,
        tally.executed,
        tally.cached,
        wall.as_secs_f64(),
        tally.candidates as f64 / wall.as_secs_f64().max(1e-9),
        tally.command_ms as f64 / 1000.0,
    );
    if args.check {
        let committed = Record::load(&args.fixtures).map_err(|e| vec![e])?;
        if committed.as_ref() != Some(&record) {
            errln!(
                "{} differs from what validation finds: run `gatebench mutate --validate`",
                Record::path(&args.fixtures).display()
            );
            return Ok(exit_code::ERRORS);
        }
        outln!("{} is current", Record::path(&args.fixtures).display());
        return Ok(exit_code::SUCCESS);
    }
    record.write(&args.fixtures).map_err(|e| vec![e])?;
    outln!("wrote {}", Record::path(&args.fixtures).display());
    Ok(exit_code::SUCCESS)
}
