//! Unit tests of the JavaScript module, through the crate's public API (so that lib.rs's
//! parse-check of every mutant runs too).

mod code;
mod discovery;
mod neutralize;
mod smoke;
mod testops;

use crate::{apply, Lang, Mutation, Operator};

/// Every site of `op` in `src`.
fn sites(src: &str, op: Operator) -> Vec<Mutation> {
    crate::mutations(Lang::JavaScript, src, op).expect("a JavaScript source parses")
}

/// The source each site of `op` makes.
fn mutated(src: &str, op: Operator) -> Vec<String> {
    sites(src, op)
        .iter()
        .map(|m| apply(src, &m.edits))
        .collect()
}

/// The only site of `op` in `src`, and the source it makes.
fn only(src: &str, op: Operator) -> (Mutation, String) {
    let mut all = sites(src, op);
    assert_eq!(all.len(), 1, "{op:?} sites: {all:#?}");
    let m = all.remove(0);
    let text = apply(src, &m.edits);
    (m, text)
}
