//! The reference verification gate: the deterministic checks of the Loom pipeline reliability plan
//! (docs/CONCEPTS.md#the-loom-plan) over the ledger layout of `docs/LEDGER.md`, and the verification
//! loop (docs/CONCEPTS.md#the-verification-loop) with skein-check (docs/CONCEPTS.md#skein-check)
//! when the repository declares it (`docs/LOOP.md`). Also the legacy document-style checker it is
//! compared with. Both are systems under test: this crate does not depend on the harness, so neither
//! can see a fixture or an expectation.

pub mod build_report;
pub mod check;
pub mod context;
pub mod deep;
pub mod fault;
pub mod finding;
pub mod ledger;
pub mod legacy;
pub mod load;
pub mod loom;
pub mod options;
pub mod repo;
pub mod run;
pub mod scope;
pub mod validators;
pub mod verification_loop;
pub mod workflow;

#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod testutil;

pub use check::{Check, Rule};
pub use options::{Depth, GateOptions};
pub use run::{run_gate, run_gate_in_scope};
pub use scope::ScopeMode;
pub use workflow::workflow_schema;
