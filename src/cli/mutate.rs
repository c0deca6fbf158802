//! `gatebench mutate`: list the generated mutants of the goldens (viable and unviable), or write
//! chosen ones as ordinary fixture folders (`--write DIR MUTANT...`).

use std::path::PathBuf;

use gatebench::corpus;
use gatebench::corpus::scenario::MutantSelection;
use gatebench::error::Error;
use gatebench::exit_code;
use gatebench::mutate::{generate, write};

use crate::cli::CmdResult;

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
}

pub fn run(args: MutateArgs) -> CmdResult {
    let corpus = corpus::load(&args.fixtures)?;
    let selection = MutantSelection {
        goldens: args.goldens,
        operators: args.operators,
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
    let operators = generate::all().len();
    outln!(
        "{} mutants from {operators} operators: {viable} viable, {} unviable",
        mutants.len(),
        mutants.len() - viable
    );
    Ok(exit_code::SUCCESS)
}
