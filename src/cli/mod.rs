//! The command line (clap), one file per subcommand; `dispatch` parses and hands over. Only the
//! binary sees clap types: each subcommand resolves its arguments into library calls.

mod baseline;
mod check;
mod compare;
mod dispatch;
mod explain;
mod gate;
mod import;
mod list;
mod materialize;
mod merge;
mod mutate;
mod replay;
pub(crate) mod run;
mod schema;
mod workflow_schema;

pub use dispatch::main;
