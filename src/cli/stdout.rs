//! Standard output for every subcommand. `println!` panics when standard output is a closed pipe
//! (`gatebench list | head`: exit 101 and a backtrace); everything printed goes through
//! [`write`] instead (the `out!` and `outln!` macros), which ends the process as a SIGPIPE would
//! have had Rust not ignored it: quietly, killed by SIGPIPE (status 141 in a shell), as `cat` and
//! `grep` end. The reader stopped reading, which is no error of gatebench's; a shell with
//! `pipefail` still sees a failed command, not a success that printed less. Any other write error
//! is reported on standard error (exit 1).

use std::io::Write;

/// Writes `args` to standard output, ending the process on a closed pipe. Control characters are
/// written as visible escapes (`output::render::escape::terminal`): what is printed quotes others' text (a
/// finding's title, a fixture's category, a file name) and gatebench itself prints none.
pub fn write(args: std::fmt::Arguments<'_>) {
    let text = match args.as_str() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(args.to_string()),
    };
    let shown = gatebench::output::render::escape::terminal(&text);
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(shown.as_bytes()) {
        closed(e);
    }
}

/// Writes a line to standard error with its control characters escaped as [`write`] does (an
/// error may quote a file's content or name); a failed write to standard error is ignored, as
/// `eprintln!` would panic on it.
pub fn error_line(args: std::fmt::Arguments<'_>) {
    let text = args.to_string();
    let shown = gatebench::output::render::escape::terminal(&text);
    let _ = writeln!(std::io::stderr().lock(), "{shown}");
}

/// Flushes standard output (what `print!` left in its buffer), ending the process on a closed pipe.
pub fn flush() {
    if let Err(e) = std::io::stdout().lock().flush() {
        closed(e);
    }
}

fn closed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        // Rust starts programs with SIGPIPE ignored (so writes fail with EPIPE instead): restore
        // the default action and raise it.
        // SAFETY: setting a signal's disposition to the default and raising it in this process.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
            libc::raise(libc::SIGPIPE);
        }
        std::process::exit(141);
    }
    let _ = writeln!(
        std::io::stderr(),
        "error: could not write to standard output: {e}"
    );
    std::process::exit(gatebench::exit_code::USAGE);
}
