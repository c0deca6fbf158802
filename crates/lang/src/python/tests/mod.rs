//! Unit tests of the Python module, through the crate's public API (so the parse check of
//! `lib.rs` runs on every mutant): snippets per operator, collection, neutralization, and a smoke
//! test over a golden's files.

mod checks;
mod code;
mod collect;
mod neutral;
mod smoke;

use crate::{apply, mutations, Lang, Mutation, Operator};

/// Every mutation of `op` in `source`.
fn muts(source: &str, op: Operator) -> Vec<Mutation> {
    mutations(Lang::Python, source, op).expect("parses")
}

/// The source as each mutation of `op` leaves it.
fn mutated(source: &str, op: Operator) -> Vec<String> {
    muts(source, op)
        .iter()
        .map(|m| apply(source, &m.edits))
        .collect()
}

/// The source as the only mutation of `op` leaves it.
fn only(source: &str, op: Operator) -> String {
    let all = mutated(source, op);
    assert_eq!(all.len(), 1, "{op:?} sites: {all:#?}");
    all.into_iter().next().unwrap_or_default()
}

/// The site ids of `op` in `source`.
fn sites(source: &str, op: Operator) -> Vec<String> {
    muts(source, op).into_iter().map(|m| m.site).collect()
}
