//! Exit codes of the `gatebench` binary, in one place.
//!
//! When several conditions hold at once, the first one in this order wins:
//! `INTERNAL` (70), `USAGE` (1), `GOLDEN_FAILED` (4), `ERRORS` (3), `THRESHOLDS` (2), `SUCCESS` (0).
//! A failed golden or a run full of errors makes every other figure untrustworthy, so those are
//! reported first; the summary still names every broken threshold.

/// Every threshold met (and, for `gate`, the verdict was PASS).
pub const SUCCESS: i32 = 0;
/// Usage error, or an invalid fixture, scenario or input file.
pub const USAGE: i32 = 1;
/// A threshold was broken: a false pass, recall below the bar, rounds off expectation, ...
/// For `gatebench gate`: the verdict was not PASS.
pub const THRESHOLDS: i32 = 2;
/// Errors or timeouts above what the scenario tolerates.
pub const ERRORS: i32 = 3;
/// A golden failed (a false alarm above what the scenario tolerates): detections in its family
/// cannot be trusted.
pub const GOLDEN_FAILED: i32 = 4;
/// Interrupted by Ctrl-C (the conventional 128 + SIGINT).
pub const INTERRUPTED: i32 = 130;
/// An internal error of gatebench itself.
pub const INTERNAL: i32 = 70;
/// Memory ran out twice: after the reserve released at the first failure (`run::memory`), an
/// allocation failed again; the process ends at once with a message on standard error.
pub const OUT_OF_MEMORY: i32 = 71;
