//! The mutation operators, one file per family of issue 12.

pub mod approvals;
pub mod code;
pub mod common;
pub mod convergence;
pub mod delivery;
pub mod evidence;
pub mod ledger;
pub mod ownership;
pub mod refs;
pub mod reviews;
pub mod tasks;
