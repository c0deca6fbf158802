//! The `gatebench` binary: parse the command line, call the library, exit with its code.

mod cli;

/// mimalloc instead of glibc's allocator: measured in docs/PERFORMANCE.md ("Per-trial CPU").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(cli::main());
}
