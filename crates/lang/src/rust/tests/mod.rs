//! Unit tests of the Rust module, through the crate's public API (so lib.rs's parse check runs).

use crate::{apply, Lang, Mutation, Operator};

/// The sites of `op` in `src`.
fn sites(src: &str, op: Operator) -> Vec<Mutation> {
    crate::mutations(Lang::Rust, src, op).expect("parses")
}

/// The text of `src` after the mutation.
fn after(src: &str, m: &Mutation) -> String {
    apply(src, &m.edits)
}

mod code;
mod golden;
mod items;
mod neutralize;
mod test_ops;
