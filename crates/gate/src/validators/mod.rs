//! The Loom validators (docs/CONCEPTS.md#loom-required-validators) and the gate's checks of the
//! detail ledger, one file per family; `crate::loom` runs them all.

pub mod computed;
pub mod convergence;
pub mod details;
pub mod evidence;
pub mod isolation;
pub mod ownership;
pub mod receipt_log;
pub mod refs;
pub mod tasks;
