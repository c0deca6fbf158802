//! The `gatebench` binary: parse the command line, call the library, exit with its code.

mod cli;

fn main() {
    std::process::exit(cli::main());
}
