//! The `command` pipeline: any external verifier (a script, a validator binary, a coding agent
//! running a verify skill) run as a process per round in the materialized repository, its report
//! v1 read back and checked; and its optional fixer. The protocol is in docs/GUIDE.md ("External
//! pipelines").

use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::corpus::scenario::{
    CommandLine, CommandSpec, KindRule, Network, PipelineSpec, SandboxMode,
};
use crate::pipeline::round::{
    FixInput, FixRun, IsolationInfo, Pipeline, RoundInput, RoundOutput, RoundRun,
};
use gatebench_process::{self as process, Isolation, ProcessRecord, Sandbox, Spawn};
use gatebench_report::check as report_check;
use gatebench_report::Cost;

/// Variables every command inherits from gatebench's environment (when set), besides those the
/// scenario's `env_allowlist` names.
pub const INHERITED: [&str; 6] = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR"];

/// A report larger than this is not read (an error): no verifier needs 64 MiB to say FAIL.
const MAX_REPORT_BYTES: u64 = 64 * 1024 * 1024;

/// A fixer's `$GATEBENCH_FIX_COST` file larger than this is not read (the fixer's error): a cost
/// object is a few numbers.
const MAX_COST_BYTES: u64 = 64 * 1024;

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
    /// What every round of this pipeline may read and write besides its own trial's folders;
    /// `None` when the sandbox is off or the kernel has no Landlock.
    sandbox: Option<Sandbox>,
    /// `HOME` / `TMPDIR` as the scenario gives them: `Some(true)` when its `env` sets them (the
    /// folder is then writable in the sandbox), `Some(false)` when `env_allowlist` names them
    /// (gatebench's own value is kept, and only what `sandbox:` lists in it is reachable),
    /// `None`: sandboxed rounds get private, empty ones.
    own_home: Option<bool>,
    own_tmp: Option<bool>,
    no_network: bool,
    isolation: IsolationInfo,
}

/// Checks what a command pipeline asks of the machine before anything runs: `sandbox: required`
/// needs Landlock, `network: none` needs network namespaces.
pub fn preflight(spec: &PipelineSpec) -> Result<(), String> {
    let PipelineSpec::Command(spec) = spec else {
        return Ok(());
    };
    if spec.sandbox.mode() == SandboxMode::Required && process::landlock_abi().is_none() {
        return Err(
            "the scenario says `sandbox: required` but this kernel has no Landlock \
                    (see docs/GUIDE.md, \"The sandbox\")"
                .into(),
        );
    }
    if spec.network == Network::None && !process::network_isolation_available() {
        return Err(
            "the scenario says `network: none` but this machine does not allow a new \
                    network namespace (unprivileged user namespaces are off)"
                .into(),
        );
    }
    Ok(())
}

/// How the scenario gives `name` (`HOME`, `TMPDIR`): see `CommandPipeline::own_home`.
fn own_var(spec: &CommandSpec, name: &str) -> Option<bool> {
    if spec.env.contains_key(name) {
        Some(true)
    } else if spec.env_allowlist.iter().any(|n| n == name) {
        Some(false)
    } else {
        None
    }
}

/// A path the scenario's `sandbox:` lists: `~/` is gatebench's `HOME`, a relative path is
/// relative to the scenario's folder.
fn scenario_path(word: &str, dir: &Path) -> PathBuf {
    match (word.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest),
        _ => dir.join(word),
    }
}

/// The folders and files every round of a sandboxed pipeline may read and write, besides its own
/// repository and scratch folders: system locations and the toolchains on `PATH` (unless one
/// holds, or is inside, the project, the scenario's folder or the fixtures), the gatebench
/// binary, the files the command names, and what the scenario lists.
fn sandbox_of(spec: &CommandSpec, dir: &Path, env: &[(String, String)]) -> Sandbox {
    let mut protected: Vec<PathBuf> = vec![dir.to_path_buf()];
    if let Some(parent) = dir.parent() {
        protected.push(parent.to_path_buf());
    }
    if let Ok(cwd) = std::env::current_dir() {
        protected.push(process::real(&cwd));
    }
    let path_var = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map_or(String::new(), |(_, v)| v.clone());
    let Sandbox {
        mut read,
        mut write,
    } = Sandbox::base(std::ffi::OsStr::new(&path_var), &protected);
    if let Some(bin) = gatebench_bin() {
        read.push(process::real(Path::new(&bin)));
    }
    read.extend(
        named_files(spec, dir)
            .into_iter()
            .map(|(name, _)| process::real(&resolve_name(&name, dir))),
    );
    let (more_read, more_write) = spec.sandbox.paths();
    read.extend(more_read.iter().map(|w| scenario_path(w, dir)));
    write.extend(more_write.iter().map(|w| scenario_path(w, dir)));
    read.sort();
    read.dedup();
    Sandbox { read, write }
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
    gatebench_gittree::sha256_hex(bytes)
}

/// The words of a string command that name a file: split at blanks and shell punctuation,
/// quotes dropped, `$GATEBENCH_SCENARIO_DIR` replaced by the scenario's folder; a word counts when
/// it has a slash and names an existing file (absolute, or relative to the scenario's folder).
fn shell_words(line: &str, dir: &Path) -> Vec<String> {
    let dir_text = dir.display().to_string();
    line.replace("${GATEBENCH_SCENARIO_DIR}", &dir_text)
        .replace("$GATEBENCH_SCENARIO_DIR", &dir_text)
        .split(|c: char| c.is_whitespace() || ";|&()<>`".contains(c))
        .map(|w| w.trim_matches(|c| c == '"' || c == '\''))
        .filter(|w| w.contains('/') && !w.starts_with('-'))
        .filter(|w| resolve_name(w, dir).is_file())
        .map(str::to_owned)
        .collect()
}

/// A name from a spec as a path: absolute as is, else relative to the scenario's folder.
fn resolve_name(name: &str, dir: &Path) -> PathBuf {
    if Path::new(name).is_absolute() {
        name.into()
    } else {
        dir.join(name)
    }
}

/// The program a command line starts, resolved on gatebench's `PATH` (`sh` for a string).
fn program_of(line: &CommandLine) -> Option<PathBuf> {
    let program = match line {
        CommandLine::Argv(argv) => argv.first()?.clone(),
        CommandLine::Shell(_) => "sh".into(),
    };
    if program.contains('/') {
        return None;
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(&program))
        .find(|p| p.is_file())
}

/// The files a spec names (argv words that name a file under `dir`, words of a string command
/// that name a file, and `files:`), by the name written, with the sha256 of their content (read
/// streaming); a `files:` entry that does not exist is recorded as missing. Then the program each
/// command line starts, by its resolved path.
fn named_files(spec: &CommandSpec, dir: &Path) -> Vec<(String, String)> {
    let mut names: Vec<String> = Vec::new();
    let mut lines = vec![&spec.command];
    if let Some(f) = &spec.fixer {
        lines.push(&f.command);
    }
    for line in &lines {
        match line {
            CommandLine::Argv(argv) => names.extend(
                argv.iter()
                    .filter(|w| named_file(w, dir).is_some())
                    .cloned(),
            ),
            CommandLine::Shell(text) => names.extend(shell_words(text, dir)),
        }
    }
    names.extend(spec.files.iter().cloned());
    names.extend(
        lines
            .iter()
            .filter_map(|l| program_of(l))
            .map(|p| p.display().to_string()),
    );
    names.sort();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let hash = hash_file(&resolve_name(&name, dir)).unwrap_or_else(|| "missing".into());
            (name, hash)
        })
        .collect()
}

/// The sha256 of a file's content, read in blocks.
fn hash_file(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).ok()?;
    Some(gatebench_gittree::hex(&hasher.finalize()))
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
        let mentions_dir = [Some(&spec.command), spec.fixer.as_ref().map(|f| &f.command)]
            .into_iter()
            .flatten()
            .any(|l| matches!(l, CommandLine::Shell(t) if t.contains("GATEBENCH_SCENARIO_DIR")));
        if spec.scenario_dir_env || mentions_dir {
            base_env.push(("GATEBENCH_SCENARIO_DIR".into(), dir.display().to_string()));
        }
        if let Some(bin) = gatebench_bin() {
            base_env.push(("GATEBENCH_BIN".into(), bin));
        }
        let landlock = process::landlock_abi().is_some();
        let sandbox = (spec.sandbox.mode() != SandboxMode::None && landlock)
            .then(|| sandbox_of(spec, &dir, &base_env));
        let isolation = IsolationInfo {
            sandbox: match (spec.sandbox.mode(), landlock) {
                (SandboxMode::None, _) => "none",
                (_, true) if process::private_mounts_available() => "on",
                (_, true) => "partial",
                (_, false) => "unavailable",
            }
            .into(),
            containment: match process::containment() {
                process::Containment::PidNamespace => "pid-namespace",
                process::Containment::ProcessGroupOnly => "process-group",
            }
            .into(),
            network: match spec.network {
                Network::Host => "host",
                Network::None => "none",
            }
            .into(),
        };
        CommandPipeline {
            kinds: spec.kinds.clone(),
            sandbox,
            own_home: own_var(spec, "HOME"),
            own_tmp: own_var(spec, "TMPDIR"),
            no_network: spec.network == Network::None,
            isolation,
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

    /// The isolation of one round (or fixer run): the pipeline's sandbox plus the trial's
    /// repository and scratch folder; private `HOME` and `TMPDIR` folders are created under the
    /// scratch folder and set in `env`.
    fn isolation_for(
        &self,
        input: &RoundInput<'_>,
        env: &mut Vec<(String, String)>,
    ) -> Result<Isolation, String> {
        let Some(base) = &self.sandbox else {
            return Ok(Isolation {
                contain: true,
                sandbox: None,
                no_network: self.no_network,
            });
        };
        let mut sandbox = base.clone();
        sandbox.write.extend([
            process::real(input.work_dir),
            process::real(input.repo_dir),
            process::real(input.scratch_dir),
        ]);
        for (name, own, folder) in [
            ("HOME", self.own_home, "home"),
            ("TMPDIR", self.own_tmp, "tmp"),
        ] {
            if let Some(grant) = own {
                if let (true, Some((_, v))) = (grant, env.iter().find(|(k, _)| k == name)) {
                    sandbox.write.push(PathBuf::from(v));
                }
                continue;
            }
            let private = input.scratch_dir.join(folder);
            std::fs::create_dir_all(&private)
                .map_err(|e| format!("gatebench could not create {}: {e}", private.display()))?;
            env.retain(|(k, _)| k != name);
            env.push((name.into(), private.display().to_string()));
        }
        Ok(Isolation {
            contain: true,
            sandbox: Some(sandbox.prepare()),
            no_network: self.no_network,
        })
    }

    fn env(&self, input: &RoundInput<'_>, more: &[(&str, &Path)]) -> Vec<(String, String)> {
        let mut env = self.base_env.clone();
        env.extend([
            ("GATEBENCH_CASE".into(), input.case_id.to_owned()),
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

/// Reads the report at `rel` below the trial's scratch folder `root` (`crate::input::read_beneath`,
/// as every file from outside is read): only a regular file, no symbolic link followed on the way,
/// opened without blocking (a FIFO left at the path would otherwise block the open forever), its
/// kind and size checked on the open descriptor before a byte is read, and read up to a bound.
fn read_report(root: &Path, rel: &Path) -> ReportFile {
    use crate::input::ReadError;
    match crate::input::read_beneath(root, rel, MAX_REPORT_BYTES) {
        Ok(bytes) => ReportFile::Bytes(bytes),
        Err(ReadError::Missing) => ReportFile::Missing,
        Err(ReadError::Link) => ReportFile::Unreadable("the report path is a symbolic link".into()),
        Err(ReadError::NotRegular(_)) => ReportFile::Unreadable(
            "the report path is not a regular file (a FIFO, a device, a socket or a folder)".into(),
        ),
        Err(ReadError::TooLarge { .. }) => ReportFile::Unreadable(format!(
            "the report is larger than {} MiB",
            MAX_REPORT_BYTES / (1024 * 1024)
        )),
        Err(ReadError::Io(e)) => {
            ReportFile::Unreadable(format!("the report could not be read: {e}"))
        }
    }
}

/// What a finished verifier process and the report it left come to. A report is read only from a
/// command that exited by itself (any code: many verifiers exit non-zero on FAIL).
pub fn interpret(
    process: &ProcessRecord,
    (root, report): (&Path, &Path),
    timeout: Duration,
) -> RoundOutput {
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
    match read_report(root, report) {
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
        let round = format!("round-{}", input.round);
        let dir = input.scratch_dir.join(&round);
        if let Err(reason) = fresh_dir(&dir) {
            return RoundRun {
                output: RoundOutput::Error(reason),
                process: None,
                report_file: None,
            };
        }
        let report = dir.join("report.json");
        let mut env = self.env(input, &[("GATEBENCH_REPORT", &report)]);
        let isolation = match self.isolation_for(input, &mut env) {
            Ok(i) => i,
            Err(reason) => {
                return RoundRun {
                    output: RoundOutput::Error(reason),
                    process: None,
                    report_file: None,
                }
            }
        };
        let process = process::run_isolated(
            &Spawn {
                argv: &self.verifier.argv,
                cwd: input.work_dir,
                env: &env,
                timeout: self.verifier.timeout,
            },
            &isolation,
        );
        RoundRun {
            output: interpret(
                &process,
                (input.scratch_dir, &Path::new(&round).join("report.json")),
                self.verifier.timeout,
            ),
            process: Some(process),
            report_file: Some(report),
        }
    }

    fn has_fixer(&self) -> bool {
        self.fixer.is_some()
    }

    fn run_fixer(&self, input: &FixInput<'_>) -> Option<FixRun> {
        let fixer = self.fixer.as_ref()?;
        let folder = format!("fix-after-round-{}", input.round.round);
        let dir = input.round.scratch_dir.join(&folder);
        let cost_file = dir.join("cost.json");
        let mut setup = fresh_dir(&dir);
        let mut env = self.env(
            &input.round,
            &[
                ("GATEBENCH_LAST_REPORT", input.last_report),
                ("GATEBENCH_FIX_COST", &cost_file),
            ],
        );
        let isolation = match self.isolation_for(&input.round, &mut env) {
            Ok(i) => i,
            Err(e) => {
                // Never run a fixer outside its sandbox: a sandbox that allows nothing cannot
                // even start it, and the fixer's error says why.
                setup = Err(e);
                Isolation {
                    contain: true,
                    sandbox: Some(Sandbox::default().prepare()),
                    no_network: self.no_network,
                }
            }
        };
        let process = process::run_isolated(
            &Spawn {
                argv: &fixer.argv,
                cwd: input.round.work_dir,
                env: &env,
                timeout: fixer.timeout,
            },
            &isolation,
        );
        let mut error = setup.err();
        if process.timed_out {
            error = Some(
                "the fixer did not finish within its timeout; its process group was killed".into(),
            );
        } else if process.exit_code != Some(0) {
            error = Some(format!("the fixer {}", process.status_text()));
        }
        // Read as the report is: a FIFO, a device, a link (at the file or a folder on the way) or
        // a file over the bound is the fixer's error, never a hang, a read without end or a
        // file outside the sandbox.
        use crate::input::ReadError;
        let cost = match crate::input::read_beneath(
            input.round.scratch_dir,
            &Path::new(&folder).join("cost.json"),
            MAX_COST_BYTES,
        ) {
            Ok(bytes) => match serde_json::from_slice::<Cost>(&bytes) {
                Ok(cost) => Some(cost),
                Err(e) => {
                    error.get_or_insert(format!(
                        "the fixer's $GATEBENCH_FIX_COST file is not a cost object: {e}"
                    ));
                    None
                }
            },
            Err(ReadError::Missing) => None,
            Err(e) => {
                error.get_or_insert(format!(
                    "the fixer's $GATEBENCH_FIX_COST file was not read: {e}"
                ));
                None
            }
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

    fn isolation(&self) -> Option<IsolationInfo> {
        Some(self.isolation.clone())
    }
}
