//! A project's test suite, run in the sandbox, and its per-test results.
//!
//! gatebench plants omissions in small golden projects (Python with pytest, JavaScript with
//! `node --test`, Rust with `cargo test`). Two parts of it need to run such a project's declared
//! test command over a copy of its files and know which tests passed, failed, were skipped,
//! xfailed or todo:
//!
//! - the harness, to prove each semantic mutant's ground truth (the golden's tests pass, the
//!   mutant's named test fails);
//! - the reference gate's deep mode, which runs the tests of the work it judges.
//!
//! Both use this crate, which depends on neither (the gate must not see the harness's fixtures).
//!
//! - [`SuiteCommand`]: the declared command split into words (no shell), its framework, and the
//!   same command narrowed to some tests ([`SuiteCommand::only`]);
//! - [`check_available`]: whether its program (and, for `python -m pytest`, pytest) is there;
//! - [`run`] / [`run_with`]: the command run over a folder inside `gatebench-process`'s sandbox
//!   (Landlock, no network, a PID namespace; a private `HOME`; a minimal fixed environment), as a
//!   [`SuiteRun`]: the process record and the [`Parsed`] results;
//! - [`parse`]: any run's output read as per-test results, the framework told from the output;
//! - [`toolchain_id`]: what the command runs on, for cache keys.

mod check;
mod command;
mod error;
mod results;
mod room;
mod run;
mod toolchain;

pub use check::check_available;
pub use command::SuiteCommand;
pub use error::SuiteError;
pub use results::{parse, Framework, Parsed, TestOutcome, TestResult};
pub use run::{run, run_with, RunOptions, SuiteRun};
pub use toolchain::toolchain_id;
