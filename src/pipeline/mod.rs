//! Pipelines, the systems under test: the trait the runner calls, the in-process gates, external
//! commands, and the result cache of external pipelines.

pub mod builtin;
pub mod cache;
pub mod command;
pub mod round;
pub mod select;
