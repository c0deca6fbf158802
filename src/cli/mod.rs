//! The command line (clap), one file per subcommand; `dispatch` parses and hands over. Only the
//! binary sees clap types: each subcommand resolves its arguments into library calls.

/// `print!` that ends the process quietly when standard output is a closed pipe (`stdout.rs`).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::stdout::write(format_args!($($arg)*))
    };
}

/// `println!` that ends the process quietly when standard output is a closed pipe (`stdout.rs`).
macro_rules! outln {
    () => {
        $crate::cli::stdout::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {{
        $crate::cli::stdout::write(format_args!($($arg)*));
        $crate::cli::stdout::write(format_args!("\n"));
    }};
}

/// `eprintln!` with control characters escaped and a failed write ignored (`stdout.rs`).
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::cli::stdout::error_line(format_args!($($arg)*))
    };
}

use gatebench::error::Error;

/// What a subcommand returns: its exit code, or the errors that stopped it. Here, not in
/// `dispatch.rs`, so that the subcommands import only their parent and `dispatch` imports them.
pub type CmdResult = Result<i32, Vec<Error>>;

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
mod stdout;
mod workflow_schema;

pub use dispatch::main;
