//! The semantic tier (docs/MUTATION.md): code and test mutants of the goldens that only running
//! the code reveals, each proved by running the golden's own suite in the sandbox. Imports run one
//! way: `runs` and `record` at the bottom, then `candidate`, `validate`, and at the top `plant`
//! and `handwritten` (the hand-written semantic fixtures, proved by running their suites).

pub mod candidate;
pub mod handwritten;
pub mod plant;
pub mod record;
pub mod runs;
pub mod validate;
