//! The verify JSON report v1 (docs/CONCEPTS.md#verify-report-v1): the wire format that every
//! verifier writes and gatebench reads. Like `nextest-metadata`, this crate is only the shared
//! format: the types, their JSON Schema, and the checks a report must pass before it can be scored.

pub mod check;
pub mod json;
pub mod schema;
pub mod time;
mod v1;

pub use v1::*;
