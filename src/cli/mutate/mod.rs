//! `gatebench mutate`: list the generated mutants of the goldens (viable and unviable), write
//! chosen ones as ordinary fixture folders (`--write DIR MUTANT...`), or validate the semantic
//! tier by running the goldens' suites (`--validate`, `validate.rs`).

use std::path::PathBuf;

use gatebench::corpus;
use gatebench::corpus::scenario::MutantSelection;
use gatebench::corpus::taxonomy::Tier;
use gatebench::error::Error;
use gatebench::exit_code;
use gatebench::mutate::{generate, write};

use crate::cli::CmdResult;

mod validate;

#[derive(clap::Args)]
pub struct MutateArgs {
    #[arg(long, default_value = "fixtures")]
    pub fixtures: PathBuf,
    /// Only these goldens (comma-separated ids; default every golden).
    #[arg(long, value_delimiter = ',')]
    pub goldens: Vec<String>,
    /// Only these operators (comma-separated names; default every operator).
    #[arg(long, value_delimiter = ',')]
    pub operators: Vec<String>,
    /// List the mutants: id, operator, kind and locus; unviable ones with why.
    #[arg(long, conflicts_with = "write")]
    pub list: bool,
    /// Write the named mutants as fixture folders under DIR.
    #[arg(long, value_name = "DIR", requires = "mutants")]
    pub write: Option<PathBuf>,
    /// Mutant ids (with --write).
    pub mutants: Vec<String>,
    /// Which tier's mutants: `ledger` (generated from the ledgers, nothing run) or `semantic`
    /// (code and test mutants, as `fixtures/semantic-validation.json` validated them).
    #[arg(long, value_enum, default_value = "ledger")]
    pub tier: TierArg,
    /// Validate the semantic tier: run each golden's suite on every candidate in the sandbox
    /// (cached by content) and write `fixtures/semantic-validation.json`.
    #[arg(long, conflicts_with_all = ["list", "write"])]
    pub validate: bool,
    /// With --validate: write nothing; exit 1 when the record differs from what validation finds.
    #[arg(long, requires = "validate")]
    pub check: bool,
    /// With --validate: suites run at once (default: the machine's cores).
    #[arg(long, requires = "validate")]
    pub jobs: Option<usize>,
    /// With --validate: the run cache's folder.
    #[arg(long, requires = "validate", default_value = "reports/.cache/suites")]
    pub cache: PathBuf,
    /// With --validate: run every suite again, reading no cached run (results are still written).
    #[arg(long, requires = "validate")]
    pub no_cache: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum TierArg {
    Ledger,
    Semantic,
}

pub fn run(args: MutateArgs) -> CmdResult {
    if args.validate {
        return validate::run(args);
    }
    let corpus = corpus::load(&args.fixtures)?;
    let selection = MutantSelection {
        goldens: args.goldens,
        operators: args.operators,
        tier: match args.tier {
            TierArg::Ledger => Tier::Ledger,
            TierArg::Semantic => Tier::Semantic,
        },
    };
    let mutants = generate::generate(&corpus, &selection).map_err(|e| vec![e])?;
    if let Some(dir) = args.write {
        let mut errors = Vec::new();
        for id in &args.mutants {
            let Some(m) = mutants.iter().find(|m| &m.id == id) else {
                errors.push(Error::invalid("mutate", format!("`{id}` names no mutant of the selected goldens and operators (see `gatebench mutate --list`)")));
                continue;
            };
            let (Ok(f), Some(golden)) = (&m.fixture, corpus.get(&m.golden)) else {
                errors.push(Error::invalid(
                    "mutate",
                    format!(
                        "`{id}` is unviable: {}",
                        m.fixture.as_ref().err().map_or("", String::as_str)
                    ),
                ));
                continue;
            };
            match write::write(&dir, golden, f) {
                Ok(folder) => outln!("wrote {}", folder.display()),
                Err(e) => errors.push(e),
            }
        }
        return if errors.is_empty() {
            Ok(exit_code::SUCCESS)
        } else {
            Err(errors)
        };
    }
    if !args.list && !args.mutants.is_empty() {
        return Err(vec![Error::invalid(
            "mutate",
            "mutant ids go with --write DIR",
        )]);
    }
    let mut viable = 0;
    for m in &mutants {
        match &m.fixture {
            Ok(f) => {
                viable += 1;
                let locus: Vec<String> = f.expect.locus.iter().map(|l| l.describe()).collect();
                let kind = f.expect.kind.map_or("", |k| k.as_str());
                outln!("{}\t{}\t{kind}\t{}", m.id, m.operator, locus.join("; "));
            }
            Err(why) => outln!("{}\t{}\tunviable\t{why}", m.id, m.operator),
        }
    }
    let operators: std::collections::BTreeSet<&str> = mutants.iter().map(|m| m.operator).collect();
    outln!(
        "{} mutants from {} operators: {viable} viable, {} unviable",
        mutants.len(),
        operators.len(),
        mutants.len() - viable
    );
    Ok(exit_code::SUCCESS)
}
