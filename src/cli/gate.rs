//! `gatebench gate [PATH]`: the reference gate on any repository.

use std::path::{Path, PathBuf};

use gatebench::error::Error;
use gatebench::exit_code;
use gatebench_report::Report;

use crate::cli::CmdResult;

#[derive(clap::Args)]
pub struct GateArgs {
    /// The repository (default: the current folder).
    #[arg(default_value = ".")]
    pub path: PathBuf,
    /// The base ref to compare against.
    #[arg(long, default_value = "main")]
    pub base: String,
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Write the report here instead of standard output.
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// The changes to verify (docs/CONCEPTS.md#verify-scope): `staged`, `unstaged` or `branch`.
    /// Default: detected (staged changes if any, else unstaged, else the branch against the base).
    #[arg(long, value_enum)]
    pub scope: Option<ScopeArg>,
    /// Run the verification loop's commands in a Landlock sandbox (read system locations and
    /// `PATH`, write only the repository and a private temporary folder), as `gatebench run`
    /// does for fixtures.
    #[arg(long)]
    pub sandbox: bool,
    /// `light` reads the ledger, the code and the logs; `deep` also runs the tests, sandboxed, in
    /// a throwaway copy of the work tree: each test receipt's command again, and each obligation's
    /// tests with its cited code neutralized.
    #[arg(long, value_enum, default_value = "light")]
    pub depth: DepthArg,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum DepthArg {
    Light,
    Deep,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ScopeArg {
    Staged,
    Unstaged,
    Branch,
}

impl ScopeArg {
    fn mode(self) -> gatebench_gate::ScopeMode {
        match self {
            ScopeArg::Staged => gatebench_gate::ScopeMode::Staged,
            ScopeArg::Unstaged => gatebench_gate::ScopeMode::Unstaged,
            ScopeArg::Branch => gatebench_gate::ScopeMode::Branch,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
}

pub fn run(args: GateArgs) -> CmdResult {
    let GateArgs {
        path,
        base,
        format,
        output,
        scope,
        sandbox,
        depth,
    } = args;
    let options = gatebench_gate::GateOptions {
        base_ref: base,
        sandbox_commands: sandbox,
        // One's own repository: opened as git opens it, its configuration honoured
        // (`core.worktree` included). Trials are pinned (`pipeline/builtin.rs`).
        pinned: None,
        depth: match depth {
            DepthArg::Light => gatebench_gate::Depth::Light,
            DepthArg::Deep => gatebench_gate::Depth::Deep,
        },
    };
    cmd_gate(&path, options, format, output, scope.map(ScopeArg::mode))
}

/// The gate's environment errors that are about what the user named (`PATH`, `--base`).
const BAD_INPUT_CODES: [&str; 5] = [
    "not-a-git-repository",
    "bare-repository",
    "head-unresolved",
    "base-ref-not-found",
    "no-merge-base",
];

fn cmd_gate(
    path: &Path,
    options: gatebench_gate::GateOptions,
    format: Format,
    output: Option<PathBuf>,
    scope: Option<gatebench_gate::ScopeMode>,
) -> CmdResult {
    let report = gatebench_gate::run_gate_in_scope(path, &options, scope);
    // A path that is not a repository, or a base that names no commit, is bad input: one error on
    // standard error, exit 1, no report.
    if let Some(e) = &report.error {
        if BAD_INPUT_CODES.contains(&e.code.as_str()) {
            return Err(vec![Error::invalid(path, e.message.clone())]);
        }
    }
    let text = match format {
        Format::Json => {
            let mut t = serde_json::to_string_pretty(&report)
                .map_err(|e| vec![Error::Internal(e.to_string())])?;
            t.push('\n');
            t
        }
        Format::Human => human(&report),
    };
    match output {
        Some(file) => {
            gatebench::atomic::write_atomic(&file, text.as_bytes()).map_err(|e| vec![e])?
        }
        None => out!("{text}"),
    }
    Ok(match report.verdict() {
        Some(gatebench_report::Verdict::Pass) => exit_code::SUCCESS,
        Some(_) => exit_code::THRESHOLDS,
        None => exit_code::INTERNAL,
    })
}

fn human(report: &Report) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let verdict = match report.verdict() {
        Some(v) => v.as_str().to_uppercase(),
        None => "ERROR".into(),
    };
    let _ = writeln!(
        out,
        "gatebench gate: {verdict} ({} finding(s))",
        report.findings.len()
    );
    if let Some(e) = &report.error {
        let _ = writeln!(out, "error {}: {}", e.code, e.message);
    }
    let _ = writeln!(
        out,
        "scope: {} ({} file(s))",
        report.scope.mode,
        report.scope.included_files.len()
    );
    for file in &report.scope.included_files {
        let lines = if file.lines.is_empty() {
            String::new()
        } else {
            format!(", lines {}", file.lines.join(", "))
        };
        let _ = writeln!(out, "    {} ({}{lines})", file.path, file.status);
    }
    for f in &report.findings {
        let validator = f.validator.as_deref().unwrap_or("-");
        let _ = writeln!(out, "\n[{}] {} ({validator})", f.severity, f.title);
        if let Some(l) = &f.location {
            match l.line {
                Some(line) => {
                    let _ = writeln!(out, "    at {}:{line}", l.path);
                }
                None => {
                    let _ = writeln!(out, "    at {}", l.path);
                }
            }
        }
        let ids: Vec<&str> = [f.requirement_id.as_deref(), f.obligation_id.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        if !ids.is_empty() {
            let _ = writeln!(out, "    about {}", ids.join(", "));
        }
        for line in f.description.lines() {
            let _ = writeln!(out, "    {line}");
        }
    }
    out
}
