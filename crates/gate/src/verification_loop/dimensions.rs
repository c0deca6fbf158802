//! The command dimensions of the verification loop (V1 build, V2 test, V3 performance, V5
//! standards): running the repository's command under a time limit, and judging pass / warn /
//! fail / blocked from its exit status and the error, warning and test-point lines it prints.

use std::cell::{Cell, OnceCell};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use regex::Regex;

use crate::check::rules::*;
use crate::check::Rule;
use crate::finding::GateFinding;
use crate::repo::is_plain_relative;
use crate::verification_loop::loop_config::{CommandSpec, AGENTS_FILE};
use crate::verification_loop::state_file::{DimensionStatus, Step};
use gatebench_process::{self as process, ProcessRecord, Spawn};

/// At most this many items of one kind are kept per dimension (the state file holds summaries,
/// not logs).
pub const MAX_ITEMS: usize = 20;

/// At most this many characters of one item.
const ITEM_CHARS: usize = 200;

/// What one run of a dimension found.
#[derive(Debug, Clone, PartialEq)]
pub struct DimensionOutcome {
    pub status: DimensionStatus,
    /// One line for the state file.
    pub summary: String,
    /// V2: the test points that failed.
    pub failed_items: Vec<String>,
    /// Error-level (blocking) lines.
    pub critical_items: Vec<String>,
    /// Warning-level lines, recorded and not blocking.
    pub warning_items: Vec<String>,
    /// The findings this run raises (none for pass and warn).
    pub findings: Vec<GateFinding>,
}

impl DimensionOutcome {
    fn new(status: DimensionStatus, summary: String) -> DimensionOutcome {
        DimensionOutcome {
            status,
            summary,
            failed_items: Vec::new(),
            critical_items: Vec::new(),
            warning_items: Vec::new(),
            findings: Vec::new(),
        }
    }
}

/// Where and how a round's command dimensions run.
#[derive(Debug)]
pub struct CommandContext<'a> {
    pub repo_dir: &'a Path,
    pub timeout: Duration,
    pub iteration: u32,
    /// Run each command in a Landlock sandbox (`GateOptions::sandbox_commands`).
    pub sandboxed: bool,
    /// The round's sandbox, made at its first sandboxed command (`None` inside: no Landlock, or
    /// no scratch folder could be made).
    room: OnceCell<Option<Room>>,
}

impl<'a> CommandContext<'a> {
    pub fn new(repo_dir: &'a Path, timeout: Duration, iteration: u32, sandboxed: bool) -> Self {
        CommandContext {
            repo_dir,
            timeout,
            iteration,
            sandboxed,
            room: OnceCell::new(),
        }
    }

    /// The round's sandbox, made once; `None` when commands run unsandboxed.
    fn room(&self) -> Option<&Room> {
        self.room
            .get_or_init(|| {
                if !self.sandboxed || process::landlock_abi().is_none() {
                    return None;
                }
                let scratch = tempfile::tempdir().ok()?;
                let sandbox = command_sandbox(self.repo_dir, scratch.path()).prepare();
                Some(Room {
                    scratch,
                    sandbox,
                    commands: Cell::new(0),
                })
            })
            .as_ref()
    }
}

/// Where a round's sandboxed commands run: a scratch folder, and the sandbox (the repository and
/// the scratch folder writable) prepared once for all of them. Each command gets an empty folder
/// of its own in the scratch folder as its `HOME` and `TMPDIR`, removed when it ends.
#[derive(Debug)]
struct Room {
    scratch: tempfile::TempDir,
    sandbox: process::PreparedSandbox,
    /// How many commands have run: the name of the next one's folder.
    commands: Cell<u32>,
}

impl Room {
    /// A new empty folder for the next command (the scratch folder itself if none can be made:
    /// the command still runs sandboxed).
    fn private_folder(&self) -> PathBuf {
        let n = self.commands.get() + 1;
        self.commands.set(n);
        let folder = self.scratch.path().join(n.to_string());
        match std::fs::create_dir(&folder) {
            Ok(()) => folder,
            Err(_) => self.scratch.path().to_path_buf(),
        }
    }

    /// Removes what the command left in its folder.
    fn command_ended(&self, folder: &Path) {
        if folder != self.scratch.path() {
            let _ = std::fs::remove_dir_all(folder);
        }
    }
}

/// The sandbox of a loop command: read system locations and the folders on `PATH` (except one
/// that holds or sits inside the current folder, where the caller's own files are); read and
/// write the repository, `scratch` (its `HOME` and `TMPDIR`) and the device files.
fn command_sandbox(repo_dir: &Path, scratch: &Path) -> process::Sandbox {
    let mut sandbox = base_sandbox();
    sandbox.write.push(process::real(repo_dir));
    sandbox.write.push(process::real(scratch));
    sandbox
}

/// What every loop command's sandbox holds before its round's folders: made again only when
/// `PATH`, the current folder or the protected paths (`process::protect`) changed since the last
/// round (resolving each folder on `PATH`
/// to its real path was a readlink a component, every round).
fn base_sandbox() -> process::Sandbox {
    type Key = (Option<std::ffi::OsString>, Option<PathBuf>, Vec<PathBuf>);
    static LAST: std::sync::Mutex<Option<(Key, process::Sandbox)>> = std::sync::Mutex::new(None);
    let key: Key = (
        std::env::var_os("PATH"),
        std::env::current_dir().ok(),
        process::protected(),
    );
    let mut last = LAST.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((known, sandbox)) = last.as_ref() {
        if *known == key {
            return sandbox.clone();
        }
    }
    let cwd = key.1.as_deref().map(process::real).unwrap_or_default();
    let mut sandbox = process::Sandbox::base(key.0.as_deref().unwrap_or_default(), &[cwd]);
    sandbox.read.sort();
    sandbox.read.dedup();
    *last = Some((key, sandbox.clone()));
    sandbox
}

/// The configuration key of a command dimension.
pub fn config_key(step: Step) -> &'static str {
    match step {
        Step::Build => "buildCommand",
        Step::Test => "testCommand",
        Step::Performance => "perfCommand",
        Step::Standard => "lintCommand",
        Step::Alignment | Step::Delivery => "",
    }
}

fn title_of(step: Step) -> &'static str {
    match step {
        Step::Build => "V1 build",
        Step::Test => "V2 test",
        Step::Performance => "V3 performance",
        Step::Alignment => "V4 audit",
        Step::Standard => "V5 standards",
        Step::Delivery => "delivery documents",
    }
}

/// The rule a failed dimension's findings are raised under.
fn failure_rule(step: Step) -> Rule {
    match step {
        Step::Test => loop_test::FAILED,
        Step::Performance => loop_performance::FAILED,
        Step::Standard => loop_standards::FAILED,
        _ => loop_build::FAILED,
    }
}

/// A line that reports an error-level problem: `error:`, `fatal:` or `critical:` (any case),
/// optionally after a `path:line:` prefix and with a `[code]`, e.g. `src/a.py:3: error[E1]: ...`.
fn error_line() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?i)^\s*(?:[^\s:]+(?::\d+)*:\s*)?(?:error|fatal|critical)(?:\[[^\]]*\])?\s*:")
            .expect("valid regex")
    })
}

/// A line that reports a warning: `warning:` or `warn:` (any case), with the same prefixes.
fn warning_line() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?i)^\s*(?:[^\s:]+(?::\d+)*:\s*)?(?:warning|warn)(?:\[[^\]]*\])?\s*:")
            .expect("valid regex")
    })
}

fn tap_failure() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"^not ok\b\s*(\d*)\s*(?:-\s*)?([^#]*?)\s*(?:#.*)?$").expect("valid regex")
    })
}

fn fail_line() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"^(?:---\s+)?FAIL(?:ED)?:?\s+(\S+)").expect("valid regex"))
}

fn located() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"^\s*([^\s:]+):(\d+)(?::\d+)?:").expect("valid regex"))
}

fn clip(line: &str) -> String {
    let line = line.trim();
    if line.chars().count() <= ITEM_CHARS {
        return line.to_owned();
    }
    let cut: String = line.chars().take(ITEM_CHARS).collect();
    format!("{cut}...")
}

/// The error-level lines of an output.
pub fn error_lines(output: &str) -> Vec<String> {
    output
        .lines()
        .filter(|line| error_line().is_match(line))
        .map(clip)
        .collect()
}

/// The warning lines of an output.
pub fn warning_lines(output: &str) -> Vec<String> {
    output
        .lines()
        .filter(|line| warning_line().is_match(line) && !error_line().is_match(line))
        .map(clip)
        .collect()
}

/// The failed test points a test command printed: TAP `not ok N - name` lines (the name), and
/// `FAIL name`, `FAIL: name`, `FAILED name ...` or `--- FAIL: name` lines (the first word). In the
/// order printed, without repeats.
pub fn failed_test_points(output: &str) -> Vec<String> {
    let mut points: Vec<String> = Vec::new();
    for line in output.lines() {
        let point = if let Some(caps) = tap_failure().captures(line) {
            let name = caps.get(2).map_or("", |m| m.as_str()).trim();
            if name.is_empty() {
                format!("test {}", caps.get(1).map_or("?", |m| m.as_str()))
            } else {
                name.to_owned()
            }
        } else if let Some(caps) = fail_line().captures(line) {
            caps[1].trim_end_matches(':').to_owned()
        } else {
            continue;
        };
        let point = clip(&point);
        if !points.contains(&point) {
            points.push(point);
        }
    }
    points
}

/// The last `n` non-empty lines of an output, for a finding's description.
fn tail(output: &str, n: usize) -> String {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(n);
    lines[start..]
        .iter()
        .map(|l| format!("  {}", clip(l)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A `path:line:` prefix naming a file of the repository.
fn location_of(line: &str, repo_dir: &Path) -> Option<(String, u64)> {
    let caps = located().captures(line)?;
    let path = caps.get(1)?.as_str().trim_start_matches("./");
    let number = caps.get(2)?.as_str().parse().ok()?;
    (is_plain_relative(path) && repo_dir.join(path).is_file()).then(|| (path.to_owned(), number))
}

/// The environment a dimension's command gets: the gate's `PATH`, `HOME` and temp dir, a fixed
/// locale, and which dimension and round it runs for. Nothing else is inherited.
fn environment(step: Step, iteration: u32) -> Vec<(String, String)> {
    let mut env = Vec::new();
    for key in ["PATH", "HOME", "TMPDIR"] {
        if let Ok(value) = std::env::var(key) {
            env.push((key.to_owned(), value));
        }
    }
    if !env.iter().any(|(k, _)| k == "PATH") {
        env.push(("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()));
    }
    env.push(("LC_ALL".into(), "C".into()));
    env.push(("GATEBENCH_LOOP_DIMENSION".into(), step.key().to_owned()));
    env.push(("GATEBENCH_LOOP_ITERATION".into(), iteration.to_string()));
    env
}

/// Runs one command dimension as the configuration declares it.
pub fn run_command_dimension(
    step: Step,
    spec: &CommandSpec,
    ctx: &CommandContext<'_>,
) -> DimensionOutcome {
    let key = config_key(step);
    let name = title_of(step);
    match spec {
        CommandSpec::Missing => {
            let mut outcome = DimensionOutcome::new(
                DimensionStatus::Blocked,
                format!("no {key} declared: the gate does not guess one"),
            );
            outcome.findings.push(
                GateFinding::new(
                    loop_config::NO_COMMAND,
                    format!("{name}: no `{key}` in {AGENTS_FILE}"),
                    format!(
                        "The Verification section of {AGENTS_FILE} declares no `{key}`, so {name} \
                             cannot run. The verification loop asks the user instead of guessing a command from \
                             the tech stack; the gate reports it instead. Declare `- {key}: \
                             `<command>`` (or `none` when the project has no such step{})",
                        if step == Step::Test {
                            "; V2 does not accept `none`"
                        } else {
                            ""
                        }
                    ),
                )
                .at(AGENTS_FILE, None),
            );
            outcome
        }
        CommandSpec::NotApplicable { line } if step == Step::Test => {
            let mut outcome = DimensionOutcome::new(
                DimensionStatus::Blocked,
                "testCommand is `none`: V2 cannot pass without tests".into(),
            );
            outcome.findings.push(
                GateFinding::new(
                    loop_config::INVALID,
                    "V2 test: `testCommand: none` is not accepted",
                    format!(
                        "{AGENTS_FILE} line {line} says the project has no test command. V2 \
                             passes only when the project's tests pass (the verification loop), so without a \
                             test command nothing can be judged."
                    ),
                )
                .at(AGENTS_FILE, Some(*line)),
            );
            outcome
        }
        CommandSpec::NotApplicable { line } => {
            let note = format!(
                "no {key}: {AGENTS_FILE} line {line} declares `none`; {name} was not verified"
            );
            let mut outcome = DimensionOutcome::new(DimensionStatus::Warn, note.clone());
            outcome.warning_items.push(note);
            outcome
        }
        CommandSpec::Run { argv, text, line } => {
            let mut env = environment(step, ctx.iteration);
            // A sandboxed command gets a private HOME and TMPDIR, the only places besides the
            // repository (and the round's scratch folder they are in) it may write.
            let room = ctx.room().map(|room| (room, room.private_folder()));
            let isolation = process::Isolation {
                sandbox: room.as_ref().map(|(room, private)| {
                    env.retain(|(k, _)| k != "HOME" && k != "TMPDIR");
                    env.push(("HOME".into(), private.display().to_string()));
                    env.push(("TMPDIR".into(), private.display().to_string()));
                    room.sandbox.clone()
                }),
                ..process::Isolation::default()
            };
            let record = process::run_isolated(
                &Spawn {
                    argv,
                    cwd: ctx.repo_dir,
                    env: &env,
                    timeout: ctx.timeout,
                },
                &isolation,
            );
            if let Some((room, private)) = &room {
                room.command_ended(private);
            }
            let declared = Declared {
                text,
                argv,
                line: Some(*line),
            };
            judge_declared(step, &declared, &record, ctx)
        }
    }
}

/// Judges a finished command: blocked when it could not start, was not found (exit 126/127) or
/// timed out; fail on a non-zero exit, an error line, or (V2) a failed test point; warn on warning
/// lines; pass otherwise.
pub fn judge(
    step: Step,
    command: &str,
    record: &ProcessRecord,
    ctx: &CommandContext<'_>,
) -> DimensionOutcome {
    let declared = Declared {
        text: command,
        argv: &[],
        line: None,
    };
    judge_declared(step, &declared, record, ctx)
}

/// A command as the configuration declares it: its text, its words, and the line of `AGENTS.md`
/// that declares it (when known), so findings can point at where the problem is.
pub struct Declared<'a> {
    pub text: &'a str,
    pub argv: &'a [String],
    pub line: Option<u64>,
}

/// Where a failed test point is defined: the first line naming it in a repository file the
/// command runs (`sh scripts/test.sh` names `scripts/test.sh`). Files over 1 MiB are not read.
fn test_point_at(point: &str, argv: &[String], repo_dir: &Path) -> Option<(String, u64)> {
    argv.iter()
        .map(|word| word.trim_start_matches("./"))
        .filter(|word| is_plain_relative(word))
        .filter_map(|word| {
            let path = repo_dir.join(word);
            let meta = std::fs::symlink_metadata(&path).ok()?;
            (meta.is_file() && meta.len() <= 1 << 20).then_some((word, path))
        })
        .find_map(|(word, path)| {
            let text = std::fs::read_to_string(path).ok()?;
            let number = text.lines().position(|l| l.contains(point))?;
            Some((word.to_owned(), number as u64 + 1))
        })
}

/// [`judge`] for a declared command: environment findings point at the line of `AGENTS.md` that
/// declares the command, a failed test point at the line of the test file that defines it.
pub fn judge_declared(
    step: Step,
    declared: &Declared<'_>,
    record: &ProcessRecord,
    ctx: &CommandContext<'_>,
) -> DimensionOutcome {
    let command = declared.text;
    let name = title_of(step);
    let output = format!("{}\n{}", record.stdout.text, record.stderr.text);
    let blocked = |summary: String, description: String| {
        let mut outcome = DimensionOutcome::new(DimensionStatus::Blocked, summary.clone());
        let mut item = GateFinding::new(
            loop_environment::NOT_RUNNABLE,
            format!("{name}: `{command}` {summary}"),
            format!(
                "{description} Nothing was judged: the environment must be repaired before \
                 {name} can be verified (the verification loop: BLOCKED, retry once the obstacle is removed)."
            ),
        );
        if let Some(line) = declared.line {
            item = item.at(AGENTS_FILE, Some(line));
        }
        outcome.findings.push(item);
        outcome
    };
    if let Some(error) = &record.spawn_error {
        crate::fault::note_text(&format!("start `{command}`"), error);
        return blocked(
            "could not be started".into(),
            format!("Starting it failed: {error}."),
        );
    }
    if record.timed_out {
        return blocked(
            format!("timed out after {} s", ctx.timeout.as_secs()),
            format!(
                "It did not finish within commandTimeoutSeconds ({} s); its whole process group \
                 was killed.",
                ctx.timeout.as_secs()
            ),
        );
    }
    if let Some(code @ (126 | 127)) = record.exit_code {
        return blocked(
            format!("exited with {code}: a program it runs was not found or not executable"),
            format!(
                "Exit status {code} is the shell's \"{}\". Output:\n{}",
                if code == 127 {
                    "command not found"
                } else {
                    "not executable"
                },
                tail(&output, 10)
            ),
        );
    }
    let status_text = match (record.exit_code, record.signal) {
        (Some(code), _) => format!("exited with {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => "ended without a status".into(),
    };
    let exited_zero = record.exit_code == Some(0);
    let errors = error_lines(&output);
    let warnings = warning_lines(&output);
    let points = if step == Step::Test {
        failed_test_points(&output)
    } else {
        Vec::new()
    };
    let rule = failure_rule(step);
    if exited_zero && errors.is_empty() && points.is_empty() {
        if warnings.is_empty() {
            return DimensionOutcome::new(DimensionStatus::Pass, format!("`{command}` exited 0"));
        }
        let mut outcome = DimensionOutcome::new(
            DimensionStatus::Warn,
            format!(
                "`{command}` exited 0 with {} warning(s): {}",
                warnings.len(),
                warnings
                    .iter()
                    .take(3)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        );
        outcome.warning_items = warnings.into_iter().take(MAX_ITEMS).collect();
        return outcome;
    }
    let mut outcome = DimensionOutcome::new(DimensionStatus::Fail, String::new());
    outcome.warning_items = warnings.into_iter().take(MAX_ITEMS).collect();
    let why = if exited_zero {
        format!("exited 0 but printed {} error line(s)", errors.len())
    } else {
        status_text.clone()
    };
    match step {
        Step::Test => {
            outcome.failed_items = if points.is_empty() {
                // No test point is named: the command is the one point that failed.
                vec![command.to_owned()]
            } else {
                points.iter().take(MAX_ITEMS).cloned().collect()
            };
            outcome.summary = format!(
                "`{command}` {why}; failed: {}",
                outcome.failed_items.join(", ")
            );
            if points.is_empty() {
                let mut item = GateFinding::new(
                    rule,
                    format!("{name}: `{command}` {why}"),
                    format!(
                        "The test command failed without naming a failed test point (TAP `not ok` \
                         or `FAIL name` lines). Output:\n{}",
                        tail(&output, 15)
                    ),
                );
                // Nothing more precise is known: the failing command's declaration.
                if let Some(line) = declared.line {
                    item = item.at(AGENTS_FILE, Some(line));
                }
                outcome.findings.push(item);
            }
            for point in points.iter().take(MAX_ITEMS) {
                let mut item = GateFinding::new(
                    rule,
                    format!("{name}: test point `{point}` failed"),
                    format!(
                        "`{command}` {status_text} and reported `{point}` as failed. Output:\n{}",
                        tail(&output, 15)
                    ),
                );
                if let Some((path, number)) = test_point_at(point, declared.argv, ctx.repo_dir) {
                    item = item.at(path, Some(number));
                }
                outcome.findings.push(item);
            }
        }
        _ => {
            outcome.critical_items = errors.iter().take(MAX_ITEMS).cloned().collect();
            outcome.summary = match errors.first() {
                Some(first) => format!("`{command}` {why}: {first}"),
                None => format!("`{command}` {why}"),
            };
            if errors.is_empty() {
                let mut item = GateFinding::new(
                    rule,
                    format!("{name}: `{command}` {why}"),
                    format!(
                        "The command failed without an error line. Output:\n{}",
                        tail(&output, 15)
                    ),
                );
                // Nothing more precise is known: the failing command's declaration.
                if let Some(line) = declared.line {
                    item = item.at(AGENTS_FILE, Some(line));
                }
                outcome.findings.push(item);
            }
            for line in errors.iter().take(MAX_ITEMS) {
                let mut item = GateFinding::new(
                    rule,
                    format!("{name}: {line}"),
                    format!("`{command}` {status_text} and reported: {line}"),
                );
                if let Some((path, number)) = location_of(line, ctx.repo_dir) {
                    item = item.at(path, Some(number));
                }
                outcome.findings.push(item);
            }
        }
    }
    outcome
}

#[cfg(test)]
mod tests;
