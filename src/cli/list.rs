//! `gatebench list`: the fixtures with category, golden and expectation, optionally filtered by a run's outcomes.

use std::path::{Path, PathBuf};

use gatebench::corpus;
use gatebench::exit_code;
use gatebench::output::store::runs;
use gatebench::score::outcome;

use crate::cli::CmdResult;

#[derive(clap::Args)]
pub struct ListArgs {
    #[arg(long, default_value = "fixtures")]
    pub fixtures: PathBuf,
    /// Only fixtures of this category.
    #[arg(long)]
    pub category: Option<String>,
    /// Only fixtures with this tag.
    #[arg(long)]
    pub tag: Option<String>,
    /// Only fixtures with a trial of this outcome in a run (detected, wrong-reason,
    /// false-pass, passed, false-alarm, error, timeout).
    #[arg(long, value_parser = parse_outcome)]
    pub outcome: Option<outcome::Outcome>,
    /// The run whose outcomes are shown and filtered: a results.json or a run folder
    /// (default: the newest run under --reports-dir).
    #[arg(long)]
    pub results: Option<PathBuf>,
    #[arg(long, default_value = "reports")]
    pub reports_dir: PathBuf,
}

fn parse_outcome(s: &str) -> Result<outcome::Outcome, String> {
    outcome::Outcome::ALL
        .iter()
        .copied()
        .find(|o| o.as_str() == s)
        .ok_or_else(|| {
            let all: Vec<&str> = outcome::Outcome::ALL.iter().map(|o| o.as_str()).collect();
            format!("`{s}` is not an outcome: one of {}", all.join(", "))
        })
}

pub fn run(args: ListArgs) -> CmdResult {
    let ListArgs {
        fixtures,
        category,
        tag,
        outcome,
        results,
        reports_dir,
    } = args;
    cmd_list(&fixtures, category, tag, outcome, results, &reports_dir)
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
        errln!("outcomes from {}", file.display());
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
    let mut table = gatebench::output::render::table::Table::new(head);
    let mut listed = 0;
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
            row.insert(3, gatebench::score::changes::show_outcomes(&outcomes));
        }
        table.push(row);
        listed += 1;
    }
    out!("{}", table.text(""));
    outln!("{listed} fixtures");
    Ok(exit_code::SUCCESS)
}
