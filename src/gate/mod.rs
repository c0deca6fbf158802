//! The reference verification gate: the deterministic checks of the Loom pipeline reliability plan
//! (seed 004) over the ledger layout of `docs/LEDGER.md`, and the verification loop of seed 000
//! with skein-check (seed 002) when the repository declares it (`docs/LOOP.md`).

pub mod build_report;
pub mod context;
pub mod convergence;
pub mod delivery;
pub mod details;
pub mod dimensions;
pub mod evidence;
pub mod finding;
pub mod isolation;
pub mod load;
pub mod loop_check;
pub mod loop_config;
pub mod loop_report;
pub mod ownership;
pub mod refs;
pub mod repo;
pub mod run;
pub mod skein;
pub mod state_file;
pub mod tasks;
pub mod verify_loop;
pub mod workflow;

#[cfg(test)]
mod loop_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod testutil;

pub use finding::ValidatorId;
pub use run::{run_gate, GateOptions};
pub use workflow::workflow_schema;
