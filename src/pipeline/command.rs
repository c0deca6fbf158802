//! The `command` pipeline: any external verifier (a script, a validator binary, a coding agent
//! running a verify skill) run as a process per round in the materialized repository, its report
//! v1 read back and checked; and its optional fixer. The protocol is in the README ("External
//! pipelines").

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::corpus::scenario::{CommandLine, CommandSpec, KindRule};
use crate::pipeline::round::{FixInput, FixRun, Pipeline, RoundInput, RoundOutput, RoundRun};
use gatebench_process::{self as process, ProcessRecord, Spawn};
use gatebench_report::check as report_check;
use gatebench_report::Cost;

/// Variables every command inherits from gatebench's environment (when set), besides those the
/// scenario's `env_allowlist` names.
pub const INHERITED: [&str; 6] = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR"];

/// A report larger than this is not read (an error): no verifier needs 64 MiB to say FAIL.
const MAX_REPORT_BYTES: u64 = 64 * 1024 * 1024;

/// One command line, resolved.
#[derive(Debug, Clone)]
struct Line {
    argv: Vec<String>,
    timeout: Duration,
}

/// A scenario's `pipeline: {kind: command, ...}`, ready to run.
#[derive(Debug)]
pub struct CommandPipeline {
    name: String,
    verifier: Line,
    fixer: Option<Line>,
    /// Inherited and declared variables, sorted; the per-round `GATEBENCH_*` come on top.
    base_env: Vec<(String, String)>,
    fingerprint: String,
    /// The scenario's `kinds:` mapping (scoring only: not part of the fingerprint).
    kinds: Vec<KindRule>,
}

/// The file a command-line word names, when it is a relative path (it has a slash and is not an
/// option) to a file that exists under `dir`. A bare word (`python3`) is a program found on
/// `PATH`, never a file here.
fn named_file(word: &str, dir: &Path) -> Option<PathBuf> {
    if !word.contains('/') || word.starts_with('-') || Path::new(word).is_absolute() {
        return None;
    }
    let full = dir.join(word);
    full.is_file()
        .then(|| std::fs::canonicalize(&full).unwrap_or(full))
}

fn resolve(line: &CommandLine, timeout_secs: f64, dir: &Path) -> Line {
    let argv = match line {
        CommandLine::Argv(argv) => argv
            .iter()
            .map(|word| match named_file(word, dir) {
                Some(path) => path.display().to_string(),
                None => word.clone(),
            })
            .collect(),
        CommandLine::Shell(s) => vec!["sh".into(), "-c".into(), s.clone()],
    };
    Line {
        argv,
        timeout: Duration::from_secs_f64(timeout_secs.clamp(0.001, 1e9)),
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The files a spec names that exist under `dir` (argv words and `files:`), by the name written,
/// with the sha256 of their content; a `files:` entry that does not exist is recorded as missing.
fn named_files(spec: &CommandSpec, dir: &Path) -> Vec<(String, String)> {
    let mut names: Vec<&String> = Vec::new();
    let mut lines = vec![&spec.command];
    if let Some(f) = &spec.fixer {
        lines.push(&f.command);
    }
    for line in lines {
        if let CommandLine::Argv(argv) = line {
            names.extend(argv.iter().filter(|w| named_file(w, dir).is_some()));
        }
    }
    names.extend(&spec.files);
    names.sort();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let hash = std::fs::read(dir.join(name))
                .map(|bytes| sha256_hex(&bytes))
                .unwrap_or_else(|_| "missing".into());
            (name.clone(), hash)
        })
        .collect()
}

/// The environment a command starts from: the inherited variables that are set, then `env`.
fn base_env(spec: &CommandSpec) -> Vec<(String, String)> {
    let mut env: std::collections::BTreeMap<String, String> = INHERITED
        .iter()
        .map(|n| n.to_string())
        .chain(spec.env_allowlist.iter().cloned())
        .filter_map(|name| std::env::var(&name).ok().map(|v| (name, v)))
        .collect();
    env.extend(spec.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    env.into_iter().collect()
}

/// The gatebench binary a verifier may call (`$GATEBENCH_BIN`): this process when it is
/// gatebench, else whatever `GATEBENCH_BIN` gatebench itself was given.
fn gatebench_bin() -> Option<String> {
    std::env::current_exe()
        .ok()
        .filter(|p| p.file_stem().is_some_and(|s| s == "gatebench"))
        .map(|p| p.display().to_string())
        .or_else(|| std::env::var("GATEBENCH_BIN").ok())
}

impl CommandPipeline {
    pub fn new(spec: &CommandSpec, scenario_dir: &Path) -> CommandPipeline {
        let dir = std::fs::canonicalize(scenario_dir).unwrap_or_else(|_| scenario_dir.into());
        let mut base_env = base_env(spec);
        base_env.push(("GATEBENCH_SCENARIO_DIR".into(), dir.display().to_string()));
        if let Some(bin) = gatebench_bin() {
            base_env.push(("GATEBENCH_BIN".into(), bin));
        }
        CommandPipeline {
            kinds: spec.kinds.clone(),
            name: format!("command: {}", spec.command.display()),
            verifier: resolve(&spec.command, spec.timeout_secs, &dir),
            fixer: spec
                .fixer
                .as_ref()
                .map(|f| resolve(&f.command, f.timeout_secs, &dir)),
            fingerprint: fingerprint(spec, &dir),
            base_env,
        }
    }

    fn env(&self, input: &RoundInput<'_>, more: &[(&str, &Path)]) -> Vec<(String, String)> {
        let mut env = self.base_env.clone();
        env.extend([
            ("GATEBENCH_FIXTURE".into(), input.fixture_id.to_owned()),
            ("GATEBENCH_ROUND".into(), input.round.to_string()),
            ("GATEBENCH_TRIAL".into(), input.trial.to_string()),
            ("GATEBENCH_BASE".into(), input.base_ref.to_owned()),
        ]);
        env.extend(
            more.iter()
                .map(|(k, p)| (k.to_string(), p.display().to_string())),
        );
        env
    }
}

/// A hash of everything about a command pipeline that can change its answers: the command lines
/// as written, timeouts, declared variables, the values of inherited ones, the version string, and
/// the content of the files it names.
pub fn fingerprint(spec: &CommandSpec, dir: &Path) -> String {
    let inherited: Vec<(String, Option<String>)> = INHERITED
        .iter()
        .map(|n| n.to_string())
        .chain(spec.env_allowlist.iter().cloned())
        .map(|name| {
            let value = std::env::var(&name).ok();
            (name, value)
        })
        .collect();
    let value = serde_json::json!({
        "kind": "command",
        "spec": spec,
        "inherited": inherited,
        "files": named_files(spec, dir),
    });
    sha256_hex(value.to_string().as_bytes())
}

enum ReportFile {
    Missing,
    Unreadable(String),
    Bytes(Vec<u8>),
}

fn read_report(path: &Path) -> ReportFile {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return ReportFile::Missing,
        Err(e) => return ReportFile::Unreadable(format!("the report could not be read: {e}")),
    };
    if file.metadata().is_ok_and(|m| !m.is_file()) {
        return ReportFile::Unreadable("the report path is not a file".into());
    }
    let mut bytes = Vec::new();
    match file.take(MAX_REPORT_BYTES + 1).read_to_end(&mut bytes) {
        Ok(n) if n as u64 > MAX_REPORT_BYTES => ReportFile::Unreadable(format!(
            "the report is larger than {} MiB",
            MAX_REPORT_BYTES / (1024 * 1024)
        )),
        Ok(_) => ReportFile::Bytes(bytes),
        Err(e) => ReportFile::Unreadable(format!("the report could not be read: {e}")),
    }
}

/// What a finished verifier process and the report it left come to. A report is read only from a
/// command that exited by itself (any code: many verifiers exit non-zero on FAIL).
pub fn interpret(process: &ProcessRecord, report: &Path, timeout: Duration) -> RoundOutput {
    if let Some(e) = &process.spawn_error {
        return RoundOutput::Error(format!("the command could not be started: {e}"));
    }
    if process.timed_out {
        return RoundOutput::Timeout(format!(
            "the command did not finish within {} s; its process group was killed after {} ms",
            timeout.as_secs_f64(),
            process.duration_ms
        ));
    }
    let Some(code) = process.exit_code else {
        return RoundOutput::Error(format!("the command {}", process.status_text()));
    };
    match read_report(report) {
        ReportFile::Missing if code == 0 => RoundOutput::Error(
            "the command exited 0 but wrote no report at $GATEBENCH_REPORT".into(),
        ),
        ReportFile::Missing => RoundOutput::Error(format!(
            "the command exited with {code} and wrote no report"
        )),
        ReportFile::Unreadable(reason) => {
            RoundOutput::Error(format!("{reason} (the command exited with {code})"))
        }
        ReportFile::Bytes(bytes) => match report_check::parse(&bytes) {
            Ok((report, value)) => RoundOutput::Report(Box::new(report), value),
            Err(reason) => RoundOutput::Error(format!("{reason} (the command exited with {code})")),
        },
    }
}

fn fresh_dir(dir: &Path) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("gatebench could not create {}: {e}", dir.display()))
}

impl Pipeline for CommandPipeline {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind_rules(&self) -> Vec<KindRule> {
        self.kinds.clone()
    }

    fn run_round(&self, input: &RoundInput<'_>) -> RoundRun {
        let dir = input.scratch_dir.join(format!("round-{}", input.round));
        if let Err(reason) = fresh_dir(&dir) {
            return RoundRun {
                output: RoundOutput::Error(reason),
                process: None,
                report_file: None,
            };
        }
        let report = dir.join("report.json");
        let env = self.env(input, &[("GATEBENCH_REPORT", &report)]);
        let process = process::run(&Spawn {
            argv: &self.verifier.argv,
            cwd: input.work_dir,
            env: &env,
            timeout: self.verifier.timeout,
        });
        RoundRun {
            output: interpret(&process, &report, self.verifier.timeout),
            process: Some(process),
            report_file: Some(report),
        }
    }

    fn has_fixer(&self) -> bool {
        self.fixer.is_some()
    }

    fn run_fixer(&self, input: &FixInput<'_>) -> Option<FixRun> {
        let fixer = self.fixer.as_ref()?;
        let dir = input
            .round
            .scratch_dir
            .join(format!("fix-after-round-{}", input.round.round));
        let cost_file = dir.join("cost.json");
        let setup = fresh_dir(&dir);
        let env = self.env(
            &input.round,
            &[
                ("GATEBENCH_LAST_REPORT", input.last_report),
                ("GATEBENCH_FIX_COST", &cost_file),
            ],
        );
        let process = process::run(&Spawn {
            argv: &fixer.argv,
            cwd: input.round.work_dir,
            env: &env,
            timeout: fixer.timeout,
        });
        let mut error = setup.err();
        if process.timed_out {
            error = Some(
                "the fixer did not finish within its timeout; its process group was killed".into(),
            );
        } else if process.exit_code != Some(0) {
            error = Some(format!("the fixer {}", process.status_text()));
        }
        let cost = match std::fs::read(&cost_file) {
            Ok(bytes) => match serde_json::from_slice::<Cost>(&bytes) {
                Ok(cost) => Some(cost),
                Err(e) => {
                    error.get_or_insert(format!(
                        "the fixer's $GATEBENCH_FIX_COST file is not a cost object: {e}"
                    ));
                    None
                }
            },
            Err(_) => None,
        };
        Some(FixRun {
            process,
            cost,
            error,
        })
    }

    fn fingerprint(&self) -> Option<&str> {
        Some(&self.fingerprint)
    }
}
