//! The reference verification gate: the deterministic checks of the Loom pipeline reliability plan
//! (seed 004) over the ledger layout of `docs/LEDGER.md`.

pub mod build_report;
pub mod context;
pub mod convergence;
pub mod details;
pub mod evidence;
pub mod finding;
pub mod isolation;
pub mod load;
pub mod ownership;
pub mod refs;
pub mod repo;
pub mod run;
pub mod tasks;
pub mod workflow;

#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod testutil;

pub use finding::ValidatorId;
pub use run::{run_gate, GateOptions};
pub use workflow::workflow_schema;
