//! Reading a feature's ledger files from the work tree. A file that is missing, unreadable or does
//! not match its type becomes a `ledger-schema` finding with the file, line and column; it never
//! aborts the gate.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;

use crate::check::rules::*;
use crate::finding::GateFinding;
use crate::ledger::{
    ApprovalReceipt, ConvergenceReport, EvaluationReceipt, ImplementationReceipt, LedgerFinding,
    PipelineState, Requirements, ReviewReceipt, TaskFrontMatter, TaskState, TestReceipt,
    Traceability, Versioned, SCHEMA_VERSION,
};
use crate::repo::RepoView;

/// The text of a file, with the repository path it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextFile {
    pub path: String,
    pub text: String,
}

impl TextFile {
    /// The 1-based line of the first occurrence of `needle`.
    pub fn line_of(&self, needle: &str) -> Option<u64> {
        self.text.find(needle).map(|offset| self.line_at(offset))
    }

    /// The 1-based line of the first occurrence of `needle` after the first occurrence of
    /// `anchor`; falls back to `needle` anywhere, then to `anchor`.
    pub fn line_after(&self, anchor: &str, needle: &str) -> Option<u64> {
        if let Some(start) = self.text.find(anchor) {
            if let Some(offset) = self.text[start..].find(needle) {
                return Some(self.line_at(start + offset));
            }
        }
        self.line_of(needle).or_else(|| self.line_of(anchor))
    }

    /// The line of a JSON string value (searched quoted, as it is written in the file).
    pub fn line_of_json(&self, value: &str) -> Option<u64> {
        self.line_of(&quoted(value))
    }

    /// The line of a JSON string value after the JSON string `anchor`.
    pub fn line_of_json_after(&self, anchor: &str, value: &str) -> Option<u64> {
        self.line_after(&quoted(anchor), &quoted(value))
    }

    fn line_at(&self, offset: usize) -> u64 {
        memchr::memchr_iter(b'\n', &self.text.as_bytes()[..offset]).count() as u64 + 1
    }
}

/// `value` as a JSON string literal.
pub fn quoted(value: &str) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| format!("\"{value}\""))
}

/// A ledger file that parsed.
#[derive(Debug, Clone)]
pub struct Parsed<T> {
    pub file: TextFile,
    pub value: T,
}

/// A `tasks/<T>.md` file.
#[derive(Debug, Clone)]
pub struct TaskFile {
    /// The file name without `.md`: the task id.
    pub stem: String,
    pub file: TextFile,
    /// The front matter, when it parsed.
    pub front: Option<TaskFrontMatter>,
    /// The 1-based line where the body (after the front matter) starts.
    pub body_line: u64,
}

/// Receipts of one kind, by path relative to the feature folder (`receipts/tests/unit.json`).
/// `None` is a receipt that exists but did not parse (already a `ledger-schema` finding).
pub type Receipts<T> = BTreeMap<String, Option<Parsed<T>>>;

/// Everything the gate read from one `specs/<feature>/` folder.
#[derive(Debug, Clone)]
pub struct FeatureLedger {
    pub name: String,
    /// `specs/<name>`.
    pub dir: String,
    pub requirements: Option<Parsed<Requirements>>,
    pub traceability: Option<Parsed<Traceability>>,
    pub tasks: BTreeMap<String, TaskFile>,
    /// By task id (the file name without `.state.json`).
    pub task_states: BTreeMap<String, Option<Parsed<TaskState>>>,
    pub implementations: Receipts<ImplementationReceipt>,
    pub reviews: Receipts<ReviewReceipt>,
    pub tests: Receipts<TestReceipt>,
    pub evaluations: Receipts<EvaluationReceipt>,
    pub approvals: Receipts<ApprovalReceipt>,
    pub findings: Receipts<LedgerFinding>,
    pub convergence: Option<Parsed<ConvergenceReport>>,
    pub pipeline_state: Option<Parsed<PipelineState>>,
}

impl FeatureLedger {
    /// The repository path of a path relative to the feature folder.
    pub fn path(&self, relative: &str) -> String {
        format!("{}/{}", self.dir, relative)
    }
}

/// A path relative to the feature folder as the ledger writes it, normalized (`./` dropped).
pub fn feature_relative(path: &str) -> &str {
    path.strip_prefix("./").unwrap_or(path)
}

/// The feature folders: every `specs/<name>/` that holds a `requirements.json`, sorted.
pub fn discover_features(repo: &RepoView) -> Vec<String> {
    repo.list_dir(gatebench_gittree::LEDGER_DIR)
        .into_iter()
        .filter(|name| {
            repo.is_file(&format!(
                "{}/{name}/requirements.json",
                gatebench_gittree::LEDGER_DIR
            ))
        })
        .collect()
}

/// Reads one feature folder; every problem with a file is returned as a `ledger-schema` finding.
pub fn load_feature(repo: &RepoView, name: &str) -> (FeatureLedger, Vec<GateFinding>) {
    let dir = format!("{}/{name}", gatebench_gittree::LEDGER_DIR);
    let mut findings = Vec::new();

    for required in ["spec.md", "plan.md"] {
        let path = format!("{dir}/{required}");
        if !repo.is_file(&path) {
            findings.push(missing(&path));
        }
    }
    let requirements = load_required(repo, &format!("{dir}/requirements.json"), &mut findings);
    let traceability = load_required(repo, &format!("{dir}/traceability.json"), &mut findings);
    let convergence = load_required(
        repo,
        &format!("{dir}/convergence-report.json"),
        &mut findings,
    );
    let pipeline_state = load_required(repo, &format!("{dir}/pipeline.state.json"), &mut findings);

    let mut tasks = BTreeMap::new();
    for file_name in repo.list_dir(&format!("{dir}/tasks")) {
        let Some(stem) = file_name.strip_suffix(".md") else {
            continue;
        };
        let path = format!("{dir}/tasks/{file_name}");
        let Some(file) = read_text(repo, &path, &mut findings) else {
            continue;
        };
        let (front, body_line) = match parse_front_matter(&file) {
            Ok((front, body_line)) => {
                if front.id != stem {
                    findings.push(
                        GateFinding::new(
                            ledger_schema::MISNAMED,
                            format!("task file {file_name} declares id {}", front.id),
                            format!(
                                "{path} declares `id: {}`, but a task's file name must be its id. \
                                 Rename the file to tasks/{}.md or set `id: {stem}`.",
                                front.id, front.id
                            ),
                        )
                        .at(&path, file.line_of("id:")),
                    );
                }
                (Some(front), body_line)
            }
            Err(finding) => {
                findings.push(*finding);
                (None, 1)
            }
        };
        tasks.insert(
            stem.to_owned(),
            TaskFile {
                stem: stem.to_owned(),
                file,
                front,
                body_line,
            },
        );
    }

    let mut task_states = BTreeMap::new();
    for file_name in repo.list_dir(&format!("{dir}/task-states")) {
        let path = format!("{dir}/task-states/{file_name}");
        let Some(stem) = file_name.strip_suffix(".state.json") else {
            if repo.is_file(&path) {
                findings.push(
                    GateFinding::new(
                        ledger_schema::MISNAMED,
                        format!("task-states/{file_name} is not named <task>.state.json"),
                        format!(
                            "{path} is in task-states/ but is not named `<task id>.state.json`, \
                             so it is no task's state. Rename or remove it."
                        ),
                    )
                    .at(&path, None),
                );
            }
            continue;
        };
        let parsed: Option<Parsed<TaskState>> = load_optional(repo, &path, &mut findings);
        if let Some(state) = &parsed {
            if state.value.task_id != stem {
                findings.push(
                    GateFinding::new(
                        ledger_schema::MISNAMED,
                        format!("task state {file_name} names task {}", state.value.task_id),
                        format!(
                            "{path} has `task_id` {}, but a task state's file name must be its \
                             task id. Set `task_id` to {stem} or rename the file.",
                            state.value.task_id
                        ),
                    )
                    .at(&path, state.file.line_of("\"task_id\"")),
                );
            }
        }
        if repo.is_file(&path) {
            task_states.insert(stem.to_owned(), parsed);
        }
    }

    let ledger = FeatureLedger {
        name: name.to_owned(),
        requirements,
        traceability,
        tasks,
        task_states,
        implementations: load_receipts(repo, &dir, "receipts/implementations", &mut findings),
        reviews: load_receipts(repo, &dir, "receipts/reviews", &mut findings),
        tests: load_receipts(repo, &dir, "receipts/tests", &mut findings),
        evaluations: load_receipts(repo, &dir, "receipts/evaluations", &mut findings),
        approvals: load_receipts(repo, &dir, "receipts/approvals", &mut findings),
        findings: load_receipts(repo, &dir, "findings", &mut findings),
        convergence,
        pipeline_state,
        dir,
    };
    (ledger, findings)
}

fn missing(path: &str) -> GateFinding {
    GateFinding::new(
        ledger_schema::FILE_MISSING,
        format!("{path} is missing"),
        format!(
            "{path} is a required ledger file (docs/LEDGER.md) and does not exist in the work \
             tree. Write it."
        ),
    )
    .at(path, None)
}

/// Reads a UTF-8 text file; `None` (with a finding when it exists but is not UTF-8) otherwise.
pub fn read_text(repo: &RepoView, path: &str, findings: &mut Vec<GateFinding>) -> Option<TextFile> {
    let bytes = repo.read(path)?.into_owned();
    match String::from_utf8(bytes) {
        Ok(text) => Some(TextFile {
            path: path.to_owned(),
            text,
        }),
        Err(error) => {
            findings.push(
                GateFinding::new(
                    ledger_schema::MALFORMED,
                    format!("{path} is not UTF-8 text"),
                    format!(
                        "{path} is not valid UTF-8 (byte {}); ledger files are UTF-8 JSON, \
                         YAML or Markdown.",
                        error.utf8_error().valid_up_to()
                    ),
                )
                .at(path, None),
            );
            None
        }
    }
}

fn load_required<T: DeserializeOwned + Versioned>(
    repo: &RepoView,
    path: &str,
    findings: &mut Vec<GateFinding>,
) -> Option<Parsed<T>> {
    if !repo.is_file(path) {
        findings.push(missing(path));
        return None;
    }
    load_optional(repo, path, findings)
}

fn load_optional<T: DeserializeOwned + Versioned>(
    repo: &RepoView,
    path: &str,
    findings: &mut Vec<GateFinding>,
) -> Option<Parsed<T>> {
    let file = read_text(repo, path, findings)?;
    findings.extend(duplicate_key_findings(&file));
    let (parsed, warnings) = parse_json_collecting::<T>(&file);
    findings.extend(warnings);
    match parsed {
        Ok(value) => Some(Parsed { file, value }),
        Err(finding) => {
            findings.push(*finding);
            None
        }
    }
}

/// Every `*.json` directly in `<feature>/<folder>`, parsed.
fn load_receipts<T: DeserializeOwned + Versioned>(
    repo: &RepoView,
    dir: &str,
    folder: &str,
    findings: &mut Vec<GateFinding>,
) -> Receipts<T> {
    let mut receipts = BTreeMap::new();
    for file_name in repo.list_dir(&format!("{dir}/{folder}")) {
        if !file_name.ends_with(".json") {
            continue;
        }
        let relative = format!("{folder}/{file_name}");
        let path = format!("{dir}/{relative}");
        if !repo.is_file(&path) {
            continue;
        }
        receipts.insert(relative, load_optional(repo, &path, findings));
    }
    receipts
}

/// Parses a JSON ledger file; a parse error or a wrong `schema_version` is a `ledger-schema`
/// finding at the line (and, in the description, column) serde reports.
pub fn parse_json<T: DeserializeOwned + Versioned>(file: &TextFile) -> Result<T, Box<GateFinding>> {
    let (value, _) = parse_json_collecting::<T>(file);
    value
}

/// Parses a JSON ledger file like `parse_json`, and also returns a warning (severity 2,
/// `ledger-schema`) for every key the type does not know, found with `serde_ignored`.
pub fn parse_json_collecting<T: DeserializeOwned + Versioned>(
    file: &TextFile,
) -> (Result<T, Box<GateFinding>>, Vec<GateFinding>) {
    let (parsed, warnings) = parse_fragment::<T>(file);
    let parsed = parsed.and_then(|value| check_version(file, value));
    (parsed, warnings)
}

/// Parses JSON text into `T` without a `schema_version` check (an example of the Loom plan is often
/// a fragment of a ledger file): the value, and one warning per unknown key.
pub fn parse_fragment<T: DeserializeOwned>(
    file: &TextFile,
) -> (Result<T, Box<GateFinding>>, Vec<GateFinding>) {
    let mut unknown: Vec<String> = Vec::new();
    let mut deserializer = serde_json::Deserializer::from_str(&file.text);
    let result = serde_ignored::deserialize(&mut deserializer, |path| {
        unknown.push(path.to_string());
    })
    .and_then(|value| deserializer.end().map(|()| value));
    let warnings = unknown
        .iter()
        .map(|path| {
            let key = path.rsplit('.').next().unwrap_or(path);
            GateFinding::new(
                ledger_schema::UNKNOWN_KEY,
                format!("{} has an unknown key `{path}`", file.path),
                format!(
                    "{}: `{path}` is not a key of this file's contract (docs/LEDGER.md); the \
                     gate ignores it. A warning, not a failure: a newer pipeline may write keys \
                     this gate does not read. Check it is not a misspelt key.",
                    file.path
                ),
            )
            .severity(2)
            .at(&file.path, file.line_of(&quoted(key)))
        })
        .collect();
    match result {
        Ok(value) => (Ok(value), warnings),
        Err(error) => (Err(Box::new(schema_error(file, &error))), warnings),
    }
}

fn schema_error(file: &TextFile, error: &serde_json::Error) -> GateFinding {
    GateFinding::new(
        ledger_schema::MALFORMED,
        format!("{} does not match its schema", file.path),
        format!(
            "{} line {}, column {}: {}. Fix the file so that it matches its contract in \
             docs/LEDGER.md (schemas/ledger/).",
            file.path,
            error.line(),
            error.column(),
            strip_position(&error.to_string())
        ),
    )
    .at(&file.path, Some(error.line().max(1) as u64))
}

fn check_version<T: Versioned>(file: &TextFile, value: T) -> Result<T, Box<GateFinding>> {
    if value.schema_version() == SCHEMA_VERSION {
        return Ok(value);
    }
    Err(Box::new(
        GateFinding::new(
            ledger_schema::MALFORMED,
            format!(
                "{} has schema_version {}",
                file.path,
                value.schema_version()
            ),
            format!(
                "{} declares schema_version {}; this gate reads schema_version \
                 {SCHEMA_VERSION} only (docs/LEDGER.md).",
                file.path,
                value.schema_version()
            ),
        )
        .at(&file.path, file.line_of("\"schema_version\"")),
    ))
}

/// serde_json appends " at line L column C" to its messages; the description says it once.
fn strip_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(index) => &message[..index],
        None => message,
    }
}

/// Parses the YAML front matter of a task file: the text between a first line `---` and the next
/// line `---`. Returns the front matter and the line where the body starts.
pub fn parse_front_matter(file: &TextFile) -> Result<(TaskFrontMatter, u64), Box<GateFinding>> {
    let no_front_matter = || {
        Box::new(
            GateFinding::new(
                ledger_schema::MALFORMED,
                format!("{} has no front matter", file.path),
                format!(
                    "{} must open with YAML front matter between two `---` lines (id, title, \
                     obligations, owns, depends_on; docs/LEDGER.md).",
                    file.path
                ),
            )
            .at(&file.path, Some(1)),
        )
    };
    let text = file.text.strip_prefix('\u{feff}').unwrap_or(&file.text);
    let mut lines = text.split_inclusive('\n');
    match lines.next() {
        Some(first) if first.trim_end() == "---" => {}
        _ => return Err(no_front_matter()),
    }
    let mut yaml = String::new();
    let mut closing_line = None;
    for (index, line) in lines.enumerate() {
        if line.trim_end() == "---" {
            // Line 1 is the opening `---`; the front matter's first line is line 2.
            closing_line = Some(index as u64 + 2);
            break;
        }
        yaml.push_str(line);
    }
    let Some(closing_line) = closing_line else {
        return Err(no_front_matter());
    };
    match yaml_serde::from_str::<TaskFrontMatter>(&yaml) {
        Ok(front) => Ok((front, closing_line + 1)),
        Err(error) => {
            let (line, column) = error
                .location()
                .map(|location| (location.line() as u64 + 1, location.column() as u64))
                .unwrap_or((1, 0));
            Err(Box::new(
                GateFinding::new(
                    ledger_schema::MALFORMED,
                    format!("{} front matter does not match its schema", file.path),
                    format!(
                        "{} line {line}, column {column}: {}. Fix the front matter so that it \
                         matches docs/LEDGER.md (keys id, title, obligations, owns, depends_on).",
                        file.path,
                        strip_yaml_position(&error.to_string())
                    ),
                )
                .at(&file.path, Some(line)),
            ))
        }
    }
}

/// yaml_serde appends " at line L column C" to its messages, with lines of the front matter
/// alone; the description gives file lines instead.
fn strip_yaml_position(message: &str) -> &str {
    match message.find(" at line ") {
        Some(index) => &message[..index],
        None => message,
    }
}

/// A `ledger-schema` finding for every key given twice in one JSON object of the file, at the
/// line of the repetition (serde_json would silently keep the last value).
pub fn duplicate_key_findings(file: &TextFile) -> Vec<GateFinding> {
    duplicate_keys(&file.text)
        .into_iter()
        .map(|(key, line)| {
            GateFinding::new(
                ledger_schema::MALFORMED,
                format!("{} gives the key `{key}` twice", file.path),
                format!(
                    "{} line {line} repeats the key `{key}` of the same object: a JSON parser \
                     silently keeps one of the two values, so the file says two things at once. \
                     Keep one.",
                    file.path
                ),
            )
            .at(&file.path, Some(line))
        })
        .collect()
}

pub use gatebench_report::json::duplicate_keys;
