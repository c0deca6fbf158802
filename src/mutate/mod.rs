//! Generated omissions: mutation operators over the goldens, each mutant a fixture (docs/MUTATION.md).
//! Imports run one way: `jsontext` and `ledger` at the bottom, then `operator`, `operators`,
//! `mutant`, `generate` and `write` at the top.

pub mod generate;
pub mod jsontext;
pub mod ledger;
pub mod mutant;
pub mod operator;
pub mod operators;
pub mod semantic;
pub mod write;
